/*
 * bugbridge-runner: claims kernel test jobs and runs them (see runner.h for
 * the map of the code, claim.c for the loop).
 */
#include "app.h"
#include "runner.h"
#include "bases.h"
#include "config.h"
#include "db.h"
#include "log.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: bugbridge-runner [--config FILE] [--once | --job ID | --warm [--base B] |\n"
	"                        --fetch B] [-v|-q]\n"
	"\n"
	"Claims queued kernel test jobs, builds the patched kernel, boots it in\n"
	"QEMU, runs the guest suite and records the verdict.  Exits 0 whatever\n"
	"the verdict; non-zero only when the runner itself failed.\n"
	"\n"
	"  -c, --config FILE  configuration file\n"
	"      --once         run the next queued job (with [runner] parallel = N:\n"
	"                     up to N at once), then exit\n"
	"      --job ID       run exactly job ID, then exit\n"
	"      --warm         build the seed of every kept base now (saying how long\n"
	"                     each will take), so that no job builds cold; then exit\n"
	"      --base B       with --warm: that base alone (6.12, 6.1.170, linux-source-6.12)\n"
	"      --fetch B      fetch and extract base B now (a release: from the archive,\n"
	"                     dropping the least recently used past release_cache_mb)\n"
	"  -v, --verbose      log more;  -q, --quiet: errors only\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		APP_LONGOPTS,
		{ "once", no_argument, NULL, 'o' },
		{ "job", required_argument, NULL, 'j' },
		{ "warm", no_argument, NULL, 'w' },
		{ "base", required_argument, NULL, 'b' },
		{ "fetch", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	struct app_opts opts = { .refuse = CONFIG_RUNNER };
	struct runner_opts ropts = { 0 };
	struct db db = { 0 };
	struct buf base = BUF_INIT, err = BUF_INIT;
	const char *base_arg = NULL;
	char *end;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, APP_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'o': ropts.once = true; break;
		case 'w': ropts.warm = true; break;
		case 'b': base_arg = optarg; break;
		case 'f': ropts.fetch = true; base_arg = optarg; break;
		case 'j':
			errno = 0;
			ropts.job_id = strtoll(optarg, &end, 10);
			if (errno || *end || ropts.job_id <= 0)
				app_usage_error("bugbridge-runner", "--job takes a job id");
			break;
		default: app_option(c, "bugbridge-runner", usage, argv, optind, optopt, &opts);
		}
	}
	if (optind < argc)
		app_usage_error("bugbridge-runner", "unexpected argument");
	if (ropts.once + !!ropts.job_id + ropts.warm + ropts.fetch > 1)
		app_usage_error("bugbridge-runner", "--once, --job, --warm and --fetch exclude each other");
	if (base_arg && !ropts.warm && !ropts.fetch)
		app_usage_error("bugbridge-runner", "--base goes with --warm");
	ret = app_start("bugbridge-runner", &opts, &db, false);
	if (ret)
		return ret;
	/* what would fail every job alike, in a second each: refused now, once */
	if (runner_workable(!ropts.fetch, &err)) {
		for (const char *p = err.ptr, *nl; *p; p = nl + !!*nl) {
			nl = strchrnul(p, '\n');
			fprintf(stderr, "bugbridge-runner: %.*s\n", (int)(nl - p), p);
		}
		db_close(&db);
		buf_release(&err);
		return 2;
	}
	/* the configuration is read: a short name may now be resolved */
	if (base_arg && base_resolve(base_arg, &base, &err)) {
		fprintf(stderr, "bugbridge-runner: %s\n", err.ptr);
		db_close(&db);
		return 2;
	}
	ropts.base = base_arg ? base.ptr : NULL;
	install_signals();
	ret = runner_main(&db, &ropts, &stop) ? 1 : 0;
	db_close(&db);
	buf_release(&base);
	buf_release(&err);
	log_close();
	return ret;
}
