/*
 * commands: "bugbridge: test 123" and its kin in tracker comments.
 *
 *   commands_parse.c         which lines are commands, what each asks for (pure)
 *   commands_run.c           doing one command, and the line that answers it
 *   commands_in_comments.c   new comments -> commands done, refused or not
 *                            understood -> one answer per comment (outbox)
 *
 * Every line of a comment that starts with "bugbridge:" gets an answer: what
 * was done ("queued as job 42 ..."), or what went wrong ("not understood:
 * ... did you mean `bugbridge: test on 6.12`?", with the list of commands),
 * all in one short comment per comment; a comment by an account outside
 * [triage] allow_commands gets one refusal per bug and account instead.
 */
#ifndef BB_COMMANDS_H
#define BB_COMMANDS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "db.h"

/* --- commands_parse.c --------------------------------------------------- */

enum comment_cmd_kind {
	COMMENT_CMD_TEST,	/* test N [on K]: attachment N; test on K: the bug's latest patch */
	COMMENT_CMD_RETEST,	/* retest: the bug's latest patch job again */
	COMMENT_CMD_BISECT,	/* bisect N [on K]: the series in attachment N */
	COMMENT_CMD_BACKTEST,	/* backtest [N]: a patch on every other kept series */
	COMMENT_CMD_RELEASES,	/* bisect releases [S]: the first release failing the bug's tests */
	COMMENT_CMD_IGNORE,	/* ignore: no more jobs or comments on the bug */
	COMMENT_CMD_HELP,	/* help: the list of commands */
	COMMENT_CMD_UNKNOWN,	/* a "bugbridge:" line that is none of these */
};

/* Commands read from one comment; further "bugbridge:" lines are only counted. */
#define COMMENT_CMD_MAX 8

struct comment_cmd {
	enum comment_cmd_kind kind;
	long long attachment_id;	/* test, bisect, backtest; 0: none given */
	char base[48];			/* the kernel after "on" (releases: the series); "" none */
	char line[100];			/* the line as typed, blanks squeezed, cut to fit */
	char hint[200];			/* UNKNOWN: what is wrong, or the command it most likely meant */
	bool suggestion;		/* hint is that command ("test on 6.12") */
};

/*
 * The command lines in a comment's text, in order: lines "bugbridge: ...",
 * never quoted ones ("> ...").  Fills at most max; returns how many there
 * are (possibly more than max).
 */
int comment_cmd_parse(const char *text, struct comment_cmd *cmds, int max);
/* The command as bugbridge spells it ("test 4 on 6.12"); UNKNOWN: its line. */
void comment_cmd_text(const struct comment_cmd *c, char *out, size_t size);

/* --- commands_run.c ----------------------------------------------------- */

/* Where a command came from. */
struct comment_ref {
	sqlite3_int64 id, bug;		/* the tracker comment and its bug */
	int count;			/* its number on the bug ("comment #3") */
	const char *author;
};

/*
 * Do one command (not UNKNOWN) for an allowed account, in the caller's
 * transaction, and say in one line what was done or why not into answer
 * ("queued as job 42: ...", "not done: ...").  -1 on a database error.
 */
int comment_cmd_execute(struct db *db, const struct comment_ref *from,
			const struct comment_cmd *c, struct buf *answer);
/* The list of commands, a line each, for "help" and "not understood". */
void comment_cmd_help(struct buf *out);

/* --- commands_in_comments.c --------------------------------------------- */

/* Is author in [triage] allow_commands? (case-insensitive) */
bool comment_cmd_allowed(const char *author);
/* Act on unhandled human comments, each once, and answer each that had commands. */
int comment_cmd_run(struct db *db, const volatile sig_atomic_t *stop);

#endif
