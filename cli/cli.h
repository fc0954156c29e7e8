/*
 * cli: the admin program `bugbridge`, one subcommand per file
 * (cmd_<name>.c).  May use: lib/ and mail/ (digest preview and send).
 *
 * The subcommands of the admin program `bugbridge`, one file each
 * (cmd_<name>.c).  Each gets argv starting at its own name, runs after the
 * configuration is installed, and returns the process exit code: 0 ok,
 * 1 failure, 2 usage error.  Each handles its own --help.
 */
#ifndef BB_CLI_H
#define BB_CLI_H

int cmd_db(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_digest(int argc, char **argv);

#include <stdbool.h>
/* argv holds --help or -h (before any "--"). */
bool cmd_has_help(int argc, char **argv);
/* cmd_has_help(), and if so print usage to stdout. */
bool cmd_wants_help(int argc, char **argv, const char *usage);

#endif
