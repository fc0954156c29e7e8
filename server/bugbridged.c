/*
 * bugbridged: the service, and all of server/: it only wires the cycle
 * together.  One main loop runs the steps in data-flow order on its timer
 * (tracker: poll_cycle; triage: triage_run; tracker: outbox_flush; mail:
 * digest_tick); the dashboard and API (web/) run in a process of their own,
 * without our secrets, which web_start() starts and keeps running (the same
 * binary, as `bugbridged --web-child`).  May use every folder's public
 * header; nothing includes it.
 *
 * Signals only raise flags; the loop acts on them between steps, so a post
 * in flight always finishes before we exit (SIGTERM/SIGINT) or reload the
 * configuration and reopen the log (SIGHUP).
 */
#include "app.h"
#include "config.h"
#include "lab_privacy.h"
#include "log.h"
#include "mail.h"
#include "tracker.h"
#include "triage.h"
#include "web.h"
#include "wake.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reload_requested;

static const char usage[] =
	"usage: bugbridged [--config FILE] [--once] [-v|--verbose] [-q|--quiet]\n"
	"\n"
	"The bugbridge service: polls the tracker, queues kernel test jobs,\n"
	"posts verdicts back exactly once, sends digests and serves the\n"
	"dashboard and JSON API.\n"
	"\n"
	"  -c, --config FILE  configuration file (default: $BUGBRIDGE_CONFIG,\n"
	"                     then /etc/bugbridge/bugbridge.conf, then built-in)\n"
	"      --once         run one cycle (poll, triage, post, digest), then exit:\n"
	"                     0 when every step worked, 1 when one failed (the tracker\n"
	"                     down, the key refused, a digest not sent), 2 bad config\n"
	"  -v, --verbose      log more (repeat for debug)\n"
	"  -q, --quiet        log errors only\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n"
	"\n"
	"Signals: SIGTERM/SIGINT finish the step in flight and exit 0;\n"
	"SIGHUP re-reads the configuration and reopens the log file.\n";

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* A failed step: its name joins the list --once prints ("poll, post"). */
static void step_failed(struct buf *failed, const char *name)
{
	buf_addf(failed, "%s%s", failed->len ? ", " : "", name);
}

/*
 * One cycle; returns 1 when one of its steps failed, naming each in
 * failed (for --once, whose exit status cron and systemd read).  Every
 * step runs whatever the others did: a tracker that does not answer the
 * poll may still take the posts, and the digest does not need it.
 */
static int run_cycle(struct db *db, struct buf *failed)
{
	int rc;

	if (!stop_requested && poll_cycle(db, &stop_requested)) {
		log_warn("cycle: the poll of the tracker failed; will retry next cycle");
		step_failed(failed, "poll");
	}
	/* what a job made private had out in the lab: its tokens, its public LAVA jobs */
	if (!stop_requested && lab_privacy_enforce(db)) {
		log_warn("cycle: something of a job made private is still public; will retry");
		step_failed(failed, "lab privacy");
	}
	if (!stop_requested && triage_run(db, &stop_requested)) {
		log_warn("cycle: triage failed; will retry next cycle");
		step_failed(failed, "triage");
	}
	rc = stop_requested ? 0 : outbox_flush(db, &stop_requested);
	if (rc) {
		/* held (1): the tracker refused our credentials, logged already */
		if (rc < 0)
			log_warn("cycle: posting to the tracker failed; will retry");
		step_failed(failed, rc < 0 ? "post" : "post (held: credentials or url refused)");
	}
	if (!stop_requested && digest_tick(db, time(NULL), &stop_requested)) {
		log_warn("cycle: a digest was not sent (see above)");
		step_failed(failed, "digest");
	}
	return failed->len > 0;
}

static void reload(const struct app_opts *opts, struct web *web)
{
	struct buf err = BUF_INIT;

	reload_requested = 0;
	if (app_reload(opts, &err)) {
		log_error("reload: %s; keeping the old configuration", err.ptr);
	} else {
		log_info("reload: configuration re-read, log reopened");
		web_reload(web);	/* the dashboard gets the new one (a new token...) */
	}
	log_reopen();
	buf_release(&err);
}

/*
 * Sleep until the next poll.  A finished job wakes us (wake.h) to triage
 * and post its verdict at once; every few seconds the outbox is tried
 * anyway, for rows whose backoff has run out.
 */
static void idle(struct db *db, const struct app_opts *opts, struct web *web,
		 struct wake *verdicts,
		 time_t next_poll)
{
	time_t last_post = time(NULL);

	while (!stop_requested && time(NULL) < next_poll) {
		/* a second at most: a signal may land on another thread (the dashboard's monitor) */
		bool woken = wake_wait(verdicts, 1000) == 1;
		if (reload_requested)
			reload(opts, web);
		if (stop_requested || (!woken && time(NULL) - last_post < 5))
			continue;
		if (triage_run(db, &stop_requested))
			log_warn("cycle: triage failed; will retry");
		if (outbox_flush(db, &stop_requested) < 0)
			log_warn("cycle: posting failed; will retry");
		last_post = time(NULL);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		APP_LONGOPTS,
		{ "once", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	struct app_opts opts = { .refuse = CONFIG_DAEMON };
	struct web *web = NULL;
	struct buf err = BUF_INIT;
	struct db db;
	struct wake verdicts;
	bool once = false;
	int c, failed = 0;

	/* the dashboard's process (web_start); never given by hand */
	if (argc > 1 && !strcmp(argv[1], "--web-child"))
		return web_child_main(argc, argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, APP_SHORTOPTS, longopts, NULL)) != -1) {
		if (c == 'o')
			once = true;
		else
			app_option(c, "bugbridged", usage, argv, optind, optopt, &opts);
	}
	if (optind < argc)
		app_usage_error("bugbridged", "unexpected argument");
	c = app_start("bugbridged", &opts, &db, true);
	if (c)
		return c;
	install_signals();
	/* before the dashboard reads comments: which are ours (tracker.h) */
	if (tracker_ours_refresh(&db))
		log_warn("bugbridged: cannot correct which stored comments are ours; the poll will");
	if (!once) {
		web = web_start(log_get_level(), &err);
		if (!web) {
			fprintf(stderr, "bugbridged: %s\n", err.ptr);
			log_error("bugbridged: %s", err.ptr);
			db_close(&db);
			buf_release(&err);
			return 1;
		}
	}
	mirror_check(&db, &stop_requested);	/* warns; keywords left out while missing */
	wake_open(&verdicts, db.path, WAKE_VERDICTS);
	log_info("bugbridged %s started (database %s)", BUGBRIDGE_VERSION, cfg_str("db.path"));
	while (!stop_requested) {
		time_t next_poll = time(NULL) + cfg_int("tracker.poll_interval");

		buf_reset(&err);
		failed = run_cycle(&db, &err);
		if (once)
			break;
		idle(&db, &opts, web, &verdicts, next_poll);
	}
	if (once && failed) {
		/* cron and systemd see a failed cycle; the log says why */
		fprintf(stderr, "bugbridged: the cycle failed: %s (see the log)\n", err.ptr);
		log_error("bugbridged: the cycle failed: %s; exit 1", err.ptr);
	}
	log_info("bugbridged: %s", once ? "cycle done, exiting" : "stopping");
	web_stop(web);
	wake_close(&verdicts);
	db_close(&db);
	buf_release(&err);
	return once && failed ? 1 : 0;
}
