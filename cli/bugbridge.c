/*
 * bugbridge: the admin command line.  A dispatch table, as in git and cgit:
 * global options first, then a subcommand that owns the rest of argv.
 */
#include "app.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "db", cmd_db, "db migrate | db version: create or upgrade the database" },
	{ "status", cmd_status, "status [--json]: queue, bug, outbox and poll counts" },
	{ "config", cmd_config, "config show | example | check: the configuration" },
	{ "job", cmd_job, "job add | show | list | cancel | retry: kernel test jobs" },
	{ "digest", cmd_digest, "digest [--dry-run | --send-now]: the mailing-list digest" },
};

static void print_usage(FILE *out)
{
	fputs("usage: bugbridge [--config FILE] [-v|-q] COMMAND [ARGS]\n"
	      "\n"
	      "Administer bugbridge.  Commands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		fprintf(out, "  %s\n", commands[i].help);
	fputs("\n"
	      "  -c, --config FILE  configuration file (default: $BUGBRIDGE_CONFIG,\n"
	      "                     then /etc/bugbridge/bugbridge.conf, then built-in)\n"
	      "  -v, --verbose      log more;  -q, --quiet: errors only\n"
	      "  -h, --help         this help; 'bugbridge COMMAND --help' for one command\n"
	      "  -V, --version      show the version\n", out);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		APP_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct app_opts opts = { 0 };
	struct buf err = BUF_INIT;
	const struct command *cmd = NULL;
	int c;

	opterr = 0;
	/* "+": stop at the subcommand; its options are its own. */
	while ((c = getopt_long(argc, argv, "+" APP_SHORTOPTS, longopts, NULL)) != -1) {
		if (c == 'h') {
			print_usage(stdout);
			return 0;
		}
		app_option(c, "bugbridge", "", argv, optind, optopt, &opts);
	}
	if (optind >= argc) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(argv[optind], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		fprintf(stderr, "bugbridge: unknown command '%s' (try 'bugbridge --help')\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	/* Help needs no configuration: it must work on a broken setup. */
	if (cmd_has_help(argc - optind, argv + optind))
		return cmd->run(argc - optind, argv + optind);
	if (app_setup(&opts, &err)) {
		fprintf(stderr, "bugbridge: %s\n", err.ptr);
		buf_release(&err);
		return EXIT_USAGE;
	}
	return cmd->run(argc - optind, argv + optind);
}
