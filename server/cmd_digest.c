/* bugbridge digest: placeholder until its issue lands. */
#include "app.h"
#include "commands.h"

#include <stdio.h>

int cmd_digest(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("bugbridge digest: not available yet\n", stderr);
	return EXIT_USAGE;
}
