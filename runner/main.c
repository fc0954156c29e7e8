/*
 * bugbridge-runner: claims kernel test jobs and runs them.
 * Placeholder main until the runner issue lands: options and help only.
 */
#include "app.h"
#include "log.h"

#include <getopt.h>
#include <stdio.h>

static const char usage[] =
	"usage: bugbridge-runner [--config FILE] [--once | --job ID] [-v|-q]\n"
	"\n"
	"Claims queued kernel test jobs, builds the patched kernel, boots it in\n"
	"QEMU, runs the guest suite and records the verdict.\n"
	"\n"
	"  -c, --config FILE  configuration file\n"
	"      --once         run the next queued job, then exit\n"
	"      --job ID       run exactly job ID, then exit\n"
	"  -v, --verbose      log more;  -q, --quiet: errors only\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, 'o' },
		{ "job", required_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct app_opts opts = { 0 };
	struct buf err = BUF_INIT;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:vqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': opts.config_path = optarg; break;
		case 'o': case 'j': break;
		case 'v': opts.verbosity++; break;
		case 'q': opts.verbosity = -1; break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': puts("bugbridge-runner " BUGBRIDGE_VERSION); return 0;
		default: app_option_error("bugbridge-runner", argv, optind, optopt);
		}
	}
	if (app_setup(&opts, &err)) {
		fprintf(stderr, "bugbridge-runner: %s\n", err.ptr);
		return EXIT_USAGE;
	}
	log_error("runner: not built yet");
	return 1;
}
