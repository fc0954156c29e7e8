/*
 * commands: helpers shared by the admin subcommands (cmd_*.c).
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

bool cmd_has_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

bool cmd_wants_help(int argc, char **argv, const char *usage)
{
	if (!cmd_has_help(argc, argv))
		return false;
	fputs(usage, stdout);
	return true;
}
