/*
 * commands: "bugbridge: test 123" and its kin in tracker comments, from
 * the humans in [triage] allow_commands (commands_in_comments.c).
 */
#ifndef BB_COMMANDS_H
#define BB_COMMANDS_H

#include <signal.h>
#include <stdbool.h>
#include "db.h"

enum comment_cmd_kind { COMMENT_CMD_TEST, COMMENT_CMD_RETEST, COMMENT_CMD_BISECT,
			COMMENT_CMD_IGNORE };

struct comment_cmd {
	enum comment_cmd_kind kind;
	long long attachment_id;	/* test, bisect */
};

/*
 * The commands in a comment's text: lines "bugbridge: <verb> [id]", not
 * quoted ("> ..." lines are ignored).  Fills at most max; returns the count.
 */
int comment_cmd_parse(const char *text, struct comment_cmd *cmds, int max);
/* Is author in [triage] allow_commands? (case-insensitive) */
bool comment_cmd_allowed(const char *author);
/* Act on unhandled human comments, each once. */
int comment_cmd_run(struct db *db, const volatile sig_atomic_t *stop);

#endif
