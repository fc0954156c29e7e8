/*
 * bugbridge config: show the effective configuration (secrets masked),
 * print the example file, or check that the configuration loads.
 */
#include "app.h"
#include "cli.h"
#include "config.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: bugbridge config show      the effective configuration, secrets masked\n"
	"       bugbridge config example   every key with its default and help\n"
	"       bugbridge config check     exit 0 if the configuration loads\n";

int cmd_config(int argc, char **argv)
{
	struct buf out = BUF_INIT;

	if (cmd_wants_help(argc, argv, usage))
		return 0;
	if (argc != 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "show")) {
		if (cfg->path)
			printf("# from %s and the environment\n", cfg->path);
		config_dump(cfg, &out, false);
	} else if (!strcmp(argv[1], "example")) {
		config_dump(cfg, &out, true);
	} else if (!strcmp(argv[1], "check")) {
		printf("configuration ok%s%s\n", cfg->path ? ": " : " (built-in defaults)",
		       cfg->path ? cfg->path : "");
	} else {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	fputs(out.ptr, stdout);
	buf_release(&out);
	return 0;
}
