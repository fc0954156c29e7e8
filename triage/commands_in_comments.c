/*
 * commands_in_comments: maintainers steer bugbridge from the tracker, and
 * every command gets an answer.
 *
 * A new human comment (not ours: bot.h; not private) is read once: its
 * "bugbridge:" lines (commands_parse.c) are done, and the comment is marked
 * handled, in one transaction with the jobs they queue and the answer.
 *
 *  - From an account in [triage] allow_commands: one answer per comment
 *    (marker "bugbridge-cmd: comment <id>"), in Bugzilla's reply form,
 *    a line per command: what was done ("queued as job 42: ..."), or why
 *    not ("not done: ...", "not understood; did you mean ...?"); when a
 *    line was not understood, or help was asked for, the list of commands
 *    follows.  The jobs it queued carry the comment's id (jobs.asked_in),
 *    so that [triage] acknowledge does not announce them again.
 *  - From anyone else: one refusal per bug and account, however often it
 *    tries (marker "bugbridge-refused: bug <id> <account>"), so that nobody
 *    can make bugbridge spam a bug; every refused line is logged.
 */
#include "commands.h"
#include "triage_comment.h"
#include "config.h"
#include "log.h"
#include "outbox.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

DB_SQL(sql_cc_pending,
       "SELECT c.id, c.bug_id, c.count, c.author, c.text FROM comments c"
       " JOIN bugs b ON b.id = c.bug_id"
       " WHERE c.handled = 0 AND c.is_ours = 0 AND c.is_private = 0 AND c.author <> ?"
       " ORDER BY c.id LIMIT 200");
DB_SQL(sql_cc_handled, "UPDATE comments SET handled = 1 WHERE id = ?");
DB_SQL(sql_cc_last_job, "SELECT IFNULL(MAX(id), 0) FROM jobs");
DB_SQL(sql_cc_asked_in, "UPDATE jobs SET asked_in = ?1 WHERE id > ?2");
DB_SQL(sql_cc_told, "SELECT 1 FROM outbox WHERE marker = ?");

bool comment_cmd_allowed(const char *author)
{
	int n = 0;
	char **list = config_split_list(cfg_str("triage.allow_commands"), &n);
	bool ok = false;

	for (int i = 0; i < n && !ok; i++)
		ok = *list[i] && !strcasecmp(list[i], author);
	config_list_free(list);
	return ok;
}

/* The account as one token: a login has no blanks, a hostile one loses them. */
static void add_account(struct buf *out, const char *author)
{
	for (const char *p = author; *p && p - author < 100; p++)
		buf_addch(out, isgraph((unsigned char)*p) ? *p : '_');
}

/* A line as typed, for the answer: in `...`, so it never reads as a command itself. */
static void add_typed(struct buf *out, const struct comment_cmd *c)
{
	buf_addch(out, '`');
	for (const char *p = c->line; *p; p++)
		buf_addch(out, *p == '`' ? '\'' : *p);
	buf_addch(out, '`');
}

static int refuse(struct db *db, const struct comment_ref *from, const struct comment_cmd *cmds,
		  int n)
{
	struct buf msg = BUF_INIT, marker = BUF_INIT, who = BUF_INIT;
	sqlite3_stmt *st = db_stmt(db, sql_cc_told);
	bool told;
	int ret = -1;

	add_account(&who, from->author);
	buf_addf(&marker, "bugbridge-refused: bug %lld %s", (long long)from->bug, who.ptr);
	if (!st)
		goto out;
	db_bind_text(st, 1, marker.ptr);
	told = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	for (int i = 0; i < n && i < COMMENT_CMD_MAX; i++)
		log_info("commands: %s may not give bugbridge commands (comment %lld on bug %lld:"
			 " '%s'); refused%s", who.ptr, (long long)from->id, (long long)from->bug,
			 cmds[i].line, told ? ", as it was told on this bug before" : "");
	triage_add_clean(&msg, from->author, 200);
	buf_addf(&msg, " is not allowed to give bugbridge commands, so nothing was done (comment"
		 " #%d). An admin can add the account to [triage] allow_commands. This is said"
		 " once per bug: later commands of this account here get no answer.\n\n%s\n",
		 from->count, marker.ptr);
	ret = outbox_add(db, "comment", from->bug, 0, marker.ptr, msg.ptr);
out:
	buf_release(&msg);
	buf_release(&marker);
	buf_release(&who);
	return ret;
}

/* One command's line of the answer, and its log line. */
static int answer_one(struct db *db, const struct comment_ref *from, const struct comment_cmd *c,
		      const char *who, struct buf *reply)
{
	struct buf line = BUF_INIT;
	int ret = 0;

	if (c->kind == COMMENT_CMD_UNKNOWN && c->suggestion)
		buf_addf(&line, "not understood; did you mean `bugbridge: %s`?", c->hint);
	else if (c->kind == COMMENT_CMD_UNKNOWN)
		buf_addf(&line, "not understood: %s.", c->hint);
	else
		ret = comment_cmd_execute(db, from, c, &line);
	if (!ret) {
		log_info("commands: %s on bug %lld (comment %lld): '%s': %s", who,
			 (long long)from->bug, (long long)from->id, c->line, line.ptr);
		add_typed(reply, c);
		buf_addf(reply, ": %s\n", line.ptr);
	}
	buf_release(&line);
	return ret;
}

/* The answer to an allowed account's comment: a line per command, then the list if needed. */
static int answer(struct db *db, const struct comment_ref *from, const struct comment_cmd *cmds,
		  int n)
{
	struct buf reply = BUF_INIT, marker = BUF_INIT, who = BUF_INIT;
	sqlite3_stmt *st = db_stmt(db, sql_cc_last_job);
	sqlite3_int64 last;
	bool list = false;
	int ret = -1;

	if (!st)
		return -1;
	last = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	add_account(&who, from->author);
	buf_addstr(&reply, "(In reply to ");
	triage_add_clean(&reply, from->author, 200);
	buf_addf(&reply, " from comment #%d)\n", from->count);
	for (int i = 0; i < n && i < COMMENT_CMD_MAX; i++) {
		if (answer_one(db, from, &cmds[i], who.ptr, &reply))
			goto out;
		list |= cmds[i].kind == COMMENT_CMD_UNKNOWN || cmds[i].kind == COMMENT_CMD_HELP;
	}
	if (n > COMMENT_CMD_MAX)
		buf_addf(&reply, "%d more `bugbridge:` lines were not read: at most %d commands"
			 " a comment.\n", n - COMMENT_CMD_MAX, COMMENT_CMD_MAX);
	if (list) {
		buf_addch(&reply, '\n');
		comment_cmd_help(&reply);
	}
	st = db_stmt(db, sql_cc_asked_in);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, from->id);
	sqlite3_bind_int64(st, 2, last);
	if (db_step_done(db, st))
		goto out;
	buf_addf(&marker, "bugbridge-cmd: comment %lld", (long long)from->id);
	buf_addf(&reply, "\n%s\n", marker.ptr);
	ret = outbox_add(db, "comment", from->bug, 0, marker.ptr, reply.ptr);
out:
	buf_release(&reply);
	buf_release(&marker);
	buf_release(&who);
	return ret;
}

/* One comment, in its own transaction: act (or refuse), answer, and mark it handled. */
static int handle(struct db *db, const struct comment_ref *from, const char *text)
{
	struct comment_cmd cmds[COMMENT_CMD_MAX];
	int n = comment_cmd_parse(text, cmds, COMMENT_CMD_MAX);
	sqlite3_stmt *st;
	int ret = 0;

	if (db_begin(db))
		return -1;
	if (n && !comment_cmd_allowed(from->author))
		ret = refuse(db, from, cmds, n);
	else if (n)
		ret = answer(db, from, cmds, n);
	st = db_stmt(db, sql_cc_handled);
	if (!ret && st) {
		sqlite3_bind_int64(st, 1, from->id);
		ret = db_step_done(db, st);
	}
	if (ret || !st) {
		db_rollback(db);
		return error("commands: comment %lld not handled; will retry", (long long)from->id);
	}
	return db_commit(db);
}

struct cc_row {
	sqlite3_int64 id, bug;
	int count;
	char *author, *text;
};

int comment_cmd_run(struct db *db, const volatile sig_atomic_t *stop)
{
	sqlite3_stmt *st = db_stmt(db, sql_cc_pending);
	struct cc_row *rows = NULL;
	int n = 0, ret = 0;

	if (!st)
		return -1;
	db_bind_text(st, 1, cfg_str("tracker.login"));
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows = xrealloc(rows, (n + 1) * sizeof(*rows));
		rows[n].id = sqlite3_column_int64(st, 0);
		rows[n].bug = sqlite3_column_int64(st, 1);
		rows[n].count = sqlite3_column_int(st, 2);
		rows[n].author = xstrdup(db_col_text(st, 3));
		rows[n].text = xstrdup(db_col_text(st, 4));
		n++;
	}
	sqlite3_reset(st);
	for (int i = 0; i < n; i++) {
		struct comment_ref from = { rows[i].id, rows[i].bug, rows[i].count, rows[i].author };

		if (!*stop && handle(db, &from, rows[i].text))
			ret = -1;
		free(rows[i].author);
		free(rows[i].text);
	}
	free(rows);
	return ret;
}
