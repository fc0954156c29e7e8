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

static const char usage[] =
	"usage: bugbridge digest --dry-run [--list ADDRESS]\n"
	"       bugbridge digest --send-now [--list ADDRESS]\n"
	"\n"
	"The mailing-list digest: new bugs, bugs that need attention, test\n"
	"results and regressions since each list's last digest.\n"
	"\n"
	"  --dry-run       print the digest each list would get now (8-bit body),\n"
	"                  without recording or sending anything\n"
	"  --send-now      build this period's digest for each list unless it was\n"
	"                  built already, then send every due digest mail\n"
	"  --list ADDRESS  only the list with this address\n"
	"\n"
	"Lists come from [smtp] to (every bug) and [smtp] lists (per component);\n"
	"the period from [digest] every and hour.  Exit status: 0 when nothing\n"
	"is left unsent, 1 when a mail waits for a retry or was refused.\n";

static int digest_dry_run(struct db *db, const struct digest_routes *routes, time_t now)
{
	struct digest_shared *shared = digest_shared_new();
	struct buf msg = BUF_INIT;
	int ret = 0;

	for (int i = 0; i < routes->n; i++) {
		bool empty = false;

		buf_reset(&msg);
		if (digest_preview(db, &routes->v[i], shared, now, &msg, &empty)) {
			ret = 1;
			continue;
		}
		if (i)
			putchar('\n');
		/* show the message as a person reads it: LF line ends */
		for (const char *p = msg.ptr; *p; p++)
			if (*p != '\r')
				putchar(*p);
		if (empty)
			printf("(nothing new for %s: this digest would not be sent)\n",
			       routes->v[i].list);
	}
	buf_release(&msg);
	digest_shared_free(shared);
	return ret;
}

static int digest_send_now(struct db *db, const struct digest_routes *routes, time_t now)
{
	struct digest_shared *shared = digest_shared_new();
	struct digest_send_stats stats = { 0 };
	struct buf period = BUF_INIT;
	static volatile sig_atomic_t never;
	int ret = 0;

	digest_period(&period, now, cfg_str("digest.every"), (int)cfg_int("digest.hour"));
	for (int i = 0; i < routes->n; i++) {
		int q = digest_queue(db, &routes->v[i], shared, period.ptr, now);

		if (q < 0)
			ret = 1;
		else if (q > 0)
			printf("queued digest %s for %s\n", period.ptr, routes->v[i].list);
		else
			printf("no new digest %s for %s (built already, or nothing new)\n",
			       period.ptr, routes->v[i].list);
	}
	if (digest_send_pending(db, now, &never, &stats))
		ret = 1;
	printf("sent %d, waiting to retry %d, refused %d\n", stats.sent, stats.retry,
	       stats.failed);
	if (stats.retry || stats.failed)
		ret = 1;
	digest_shared_free(shared);
	buf_release(&period);
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
			if (mode && mode != c)
				app_usage_error("bugbridge digest", "--dry-run and --send-now exclude each other");
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
	ret = mode == 'n' ? digest_dry_run(&db, &routes, time(NULL))
			  : digest_send_now(&db, &routes, time(NULL));
	routes.n = n_all;
out_db:
	db_close(&db);
out:
	digest_routes_release(&routes);
	buf_release(&err);
	return ret;
}
