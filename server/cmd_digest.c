/* bugbridge digest: placeholder until its issue lands. */
#include "app.h"
#include "commands.h"

#include <stdio.h>

int cmd_digest(int argc, char **argv)
{
	if (cmd_wants_help(argc, argv, "usage: bugbridge digest (not available yet)\n"))
		return 0;
	fputs("bugbridge digest: not available yet\n", stderr);
	return EXIT_USAGE;
}
