/*
 * bugbridge digest: show the next digest, or send it now.
 *
 * --send-now goes through exactly the path bugbridged's timer takes
 * (digest_queue, then digest_send_pending), so what an operator tries by
 * hand is what the service does, with the same once-per-period guarantee.
 */
#include "app.h"
#include "cli.h"
#include "config.h"
#include "mail.h"
#include "log.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char usage[] =
	"usage: bugbridge digest --dry-run [--list ADDRESS]\n"
	"       bugbridge digest --send-now [--list ADDRESS]\n"
	"       bugbridge digest --resend [--list ADDRESS]\n"
	"\n"
	"The mailing-list digest: new bugs, bugs that need attention, test\n"
	"results and regressions since each list's last digest.  One digest per\n"
	"list and period ([digest] every), due at [digest] hour UTC; both modes\n"
	"below name the period they look at, and agree on it.\n"
	"\n"
	"  --dry-run       say what --send-now would do now, for each list, and\n"
	"                  print the digest it would send (8-bit body); records\n"
	"                  and sends nothing\n"
	"  --send-now      build this period's digest for each list unless it was\n"
	"                  built already, then send every due digest mail\n"
	"  --resend        queue the digests the mail server refused again (the\n"
	"                  same message) and send them\n"
	"  --list ADDRESS  only the list with this address\n"
	"\n"
	"Lists come from [smtp] to (every bug) and [smtp] lists (per component).\n"
	"Exit status: 0 when nothing is left unsent, 1 when a mail waits for a\n"
	"retry or was refused (said on standard error), 2 on a usage error.\n";

struct when {
	time_t now;
	struct buf period;	/* this period, as --send-now builds it */
	struct buf next;	/* when the next one starts, "2026-12-05 08:00 UTC" */
};

static void when_init(struct when *w, time_t now)
{
	const char *every = cfg_str("digest.every");
	int hour = (int)cfg_int("digest.hour");
	time_t next = digest_next_period(now, every, hour);
	struct tm tm;
	char s[32];

	w->now = now;
	buf_init(&w->period, 0);
	buf_init(&w->next, 0);
	digest_period(&w->period, now, every, hour);
	gmtime_r(&next, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M UTC", &tm);
	buf_addstr(&w->next, s);
}

static void when_release(struct when *w)
{
	buf_release(&w->period);
	buf_release(&w->next);
}

/* "built already at 2026-12-04 08:00 UTC, sent" and the like. */
static void describe_built(const struct digest_record *d, struct buf *out)
{
	struct tm tm;
	char s[32];

	gmtime_r(&d->created_at, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M UTC", &tm);
	buf_addf(out, "built already at %s, ", s);
	if (!strcmp(d->state, "sent"))
		buf_addstr(out, "sent");
	else if (!strcmp(d->state, "failed"))
		buf_addf(out, "refused by the mail server (%s): --resend sends it again",
			 d->error.ptr);
	else
		buf_addf(out, "not sent yet%s%s", d->error.len ? ": " : "", d->error.ptr);
}

static const char *why_not(enum digest_outcome o)
{
	return o == DIGEST_FIRST_WAITS ? "a list's first digest waits for its first test result"
				       : "nothing new";
}

static int digest_dry_run(struct db *db, const struct digest_routes *routes, time_t now)
{
	struct digest_shared *shared = digest_shared_new();
	struct buf msg = BUF_INIT, line = BUF_INIT;
	struct when w;
	int ret = 0;

	when_init(&w, now);
	for (int i = 0; i < routes->n; i++) {
		const char *list = routes->v[i].list;
		enum digest_outcome o = DIGEST_NOTHING;
		struct digest_record rec;

		buf_reset(&msg);
		buf_reset(&line);
		if (digest_record_get(db, list, w.period.ptr, &rec) ||
		    digest_preview(db, &routes->v[i], shared, now, &msg, &o)) {
			digest_record_release(&rec);
			ret = 1;
			continue;
		}
		buf_addf(&line, "%s%s: digest %s: ", i ? "\n" : "", list, w.period.ptr);
		if (rec.built) {
			describe_built(&rec, &line);
			buf_addf(&line, ". --send-now sends no new digest before the next"
				 " period, from %s; so far it would hold:", w.next.ptr);
		} else if (o == DIGEST_QUEUED) {
			buf_addstr(&line, "--send-now would build and send this now:");
		} else {
			buf_addf(&line, "--send-now would send nothing (%s); it would be:",
				 why_not(o));
		}
		puts(line.ptr);
		/* show the message as a person reads it: LF line ends */
		for (const char *p = msg.ptr; *p; p++)
			if (*p != '\r')
				putchar(*p);
		digest_record_release(&rec);
	}
	buf_release(&msg);
	buf_release(&line);
	when_release(&w);
	digest_shared_free(shared);
	return ret;
}

/* After sending: say, on stderr, which of this period's digests did not go out. */
static int report_unsent(struct db *db, const struct digest_routes *routes,
			 const struct when *w)
{
	int ret = 0;

	for (int i = 0; i < routes->n; i++) {
		struct digest_record rec;
		struct buf line = BUF_INIT;

		if (digest_record_get(db, routes->v[i].list, w->period.ptr, &rec)) {
			ret = 1;
		} else if (rec.built && strcmp(rec.state, "sent")) {
			describe_built(&rec, &line);
			fprintf(stderr, "bugbridge: digest %s for %s not sent: %s\n",
				w->period.ptr, routes->v[i].list, line.ptr);
			ret = 1;
		}
		buf_release(&line);
		digest_record_release(&rec);
	}
	return ret;
}

static int send_pending(struct db *db, const struct digest_routes *routes,
			const struct when *w)
{
	struct digest_send_stats stats = { 0 };
	static volatile sig_atomic_t never;
	int ret = 0;

	if (digest_send_pending(db, w->now, &never, &stats))
		ret = 1;
	printf("sent %d, waiting to retry %d, refused %d\n", stats.sent, stats.retry,
	       stats.failed);
	if (stats.retry || stats.failed)
		ret = 1;
	if (report_unsent(db, routes, w))
		ret = 1;
	return ret;
}

static int digest_send_now(struct db *db, const struct digest_routes *routes, time_t now)
{
	struct digest_shared *shared = digest_shared_new();
	struct when w;
	int ret = 0;

	when_init(&w, now);
	for (int i = 0; i < routes->n; i++) {
		const char *list = routes->v[i].list;
		int q = digest_queue(db, &routes->v[i], shared, w.period.ptr, now);
		struct digest_record rec;
		struct buf line = BUF_INIT;

		if (q < 0) {
			ret = 1;
			continue;
		}
		if (q == DIGEST_QUEUED) {
			printf("%s: digest %s: queued\n", list, w.period.ptr);
		} else if (q == DIGEST_EXISTS && !digest_record_get(db, list, w.period.ptr, &rec)) {
			describe_built(&rec, &line);
			printf("%s: digest %s: %s; the next period starts %s\n", list,
			       w.period.ptr, line.ptr, w.next.ptr);
			digest_record_release(&rec);
		} else {
			printf("%s: digest %s: not sent (%s)\n", list, w.period.ptr,
			       why_not(q));
		}
		buf_release(&line);
	}
	if (send_pending(db, routes, &w))
		ret = 1;
	when_release(&w);
	digest_shared_free(shared);
	return ret;
}

static int digest_resend(struct db *db, const struct digest_routes *routes, time_t now)
{
	struct buf report = BUF_INIT;
	struct when w;
	int ret = 0, n = 0;

	when_init(&w, now);
	for (int i = 0; i < routes->n; i++) {
		int k = digest_requeue_failed(db, routes->v[i].list, &report);

		if (k < 0)
			ret = 1;
		else
			n += k;
	}
	fputs(report.ptr, stdout);
	if (!n)
		puts("no refused digest to send again");
	if (send_pending(db, routes, &w))
		ret = 1;
	when_release(&w);
	buf_release(&report);
	return ret;
}

/*
 * Move the route for list to the front (the caller then looks at the first
 * route only); 0 when list is NULL or found.
 */
static int pick_route(struct digest_routes *routes, const char *list)
{
	int keep = -1;

	if (!list)
		return 0;
	for (int i = 0; i < routes->n; i++)
		if (!strcasecmp(routes->v[i].list, list))
			keep = i;
	if (keep < 0)
		return -1;
	if (keep) {
		struct digest_route tmp = routes->v[0];

		routes->v[0] = routes->v[keep];
		routes->v[keep] = tmp;
	}
	return 0;
}

int cmd_digest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "send-now", no_argument, NULL, 's' },
		{ "resend", no_argument, NULL, 'r' },
		{ "list", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	struct digest_routes routes = DIGEST_ROUTES_INIT;
	struct buf err = BUF_INIT;
	const char *list = NULL;
	int mode = 0, c, ret = 1, n_all;
	struct db db;

	if (cmd_wants_help(argc, argv, usage))
		return 0;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
		case 's':
		case 'r':
			if (mode && mode != c)
				app_usage_error("bugbridge digest",
						"--dry-run, --send-now and --resend exclude each other");
			mode = c;
			break;
		case 'l': list = optarg; break;
		default: app_option_error("bugbridge digest", argv, optind, optopt);
		}
	}
	if (optind < argc)
		app_usage_error("bugbridge digest", "unexpected argument");
	if (!mode) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (app_open_db(&db, false, &err)) {
		fprintf(stderr, "bugbridge: %s\n", err.ptr);
		goto out;
	}
	if (digest_routes_load(&routes, &db, &err)) {
		fprintf(stderr, "bugbridge: %s\n", err.ptr);
		goto out_db;
	}
	if (!routes.n) {
		fputs("bugbridge: no digest recipients: set [smtp] to or [smtp] lists\n", stderr);
		goto out_db;
	}
	if (pick_route(&routes, list)) {
		fprintf(stderr, "bugbridge: no digest goes to '%s'\n", list);
		goto out_db;
	}
	n_all = routes.n;
	if (list)
		routes.n = 1;
	if (mode == 'n')
		ret = digest_dry_run(&db, &routes, time(NULL));
	else if (mode == 's')
		ret = digest_send_now(&db, &routes, time(NULL));
	else
		ret = digest_resend(&db, &routes, time(NULL));
	routes.n = n_all;
out_db:
	db_close(&db);
out:
	digest_routes_release(&routes);
	buf_release(&err);
	return ret;
}
