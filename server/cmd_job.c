/* bugbridge job: placeholder until its issue lands. */
#include "app.h"
#include "commands.h"

#include <stdio.h>

int cmd_job(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("bugbridge job: not available yet\n", stderr);
	return EXIT_USAGE;
}
