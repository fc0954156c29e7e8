/*
 * commands_in_comments: maintainers steer bugbridge from the tracker.
 *
 *   bugbridge: test <attachment-id>     test that attachment (with baseline)
 *   bugbridge: retest                   re-run the bug's latest patch job
 *   bugbridge: bisect <attachment-id>   test a series and bisect a failure
 *   bugbridge: ignore                   no more jobs or comments on this bug
 *                                       (until one of the others asks again)
 *
 * A command is a line of its own starting with "bugbridge:" (blanks before
 * it allowed, case ignored, nothing after it but blanks); a quoted line
 * ("> bugbridge: test 1", as replies quote) is never a command.  Only
 * comments from humans count: not ours (is_ours, or our login).
 *
 * Each comment is acted on once: comments.handled is set in the same
 * transaction as the jobs it queues.  An account outside [triage]
 * allow_commands gets one refusal comment per bug, however often it tries
 * (marker "bugbridge-refused: bug <id> <account>"), so that nobody can make
 * bugbridge spam a bug; a command naming an attachment that is not on the
 * bug gets one answer (marker "bugbridge-cmd: comment <id>").
 */
#include "commands.h"
#include "triage_comment.h"
#include "xalloc.h"
#include "config.h"
#include "job_queue.h"
#include "log.h"
#include "outbox.h"
#include "patch.h"
#include "sha256.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* One line (without its newline); 1 and *cmd when it is a command. */
static int parse_line(const char *p, const char *end, struct comment_cmd *cmd)
{
	static const struct { const char *verb; enum comment_cmd_kind kind; bool id; } verbs[] = {
		{ "test", COMMENT_CMD_TEST, true },
		{ "retest", COMMENT_CMD_RETEST, false },
		{ "bisect", COMMENT_CMD_BISECT, true },
		{ "ignore", COMMENT_CMD_IGNORE, false },
	};
	size_t wlen = 0;

	p = skip_blanks(p, end);
	if (end - p < 10 || strncasecmp(p, "bugbridge:", 10))
		return 0;
	p = skip_blanks(p + 10, end);
	while (p + wlen < end && isalpha((unsigned char)p[wlen]))
		wlen++;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strlen(verbs[i].verb) != wlen || strncasecmp(p, verbs[i].verb, wlen))
			continue;
		p = skip_blanks(p + wlen, end);
		cmd->kind = verbs[i].kind;
		cmd->attachment_id = 0;
		if (verbs[i].id) {
			long long id = 0;
			int digits = 0;

			if (p < end && *p == '#')
				p++;
			while (p < end && isdigit((unsigned char)*p) && digits < 15) {
				id = id * 10 + (*p++ - '0');
				digits++;
			}
			if (!digits || !id)
				return 0;
			cmd->attachment_id = id;
			p = skip_blanks(p, end);
		}
		return p == end;
	}
	return 0;
}

int comment_cmd_parse(const char *text, struct comment_cmd *cmds, int max)
{
	const char *p = text;
	int n = 0;

	while (p && *p && n < max) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *q = skip_blanks(p, end);

		if (q < end && *q != '>' && parse_line(q, end, &cmds[n]))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

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

DB_SQL(sql_cc_pending,
       "SELECT c.id, c.bug_id, c.author, c.text FROM comments c JOIN bugs b ON b.id = c.bug_id"
       " WHERE c.handled = 0 AND c.is_ours = 0 AND c.is_private = 0 AND c.author <> ?"
       " ORDER BY c.id LIMIT 200");
DB_SQL(sql_cc_handled, "UPDATE comments SET handled = 1 WHERE id = ?");
DB_SQL(sql_cc_candidate,
       "SELECT id FROM candidates WHERE bug_id = ?1 AND source = 'attachment' AND source_id = ?2"
       " AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.id = ?2 AND a.is_private <> 0)"
       " ORDER BY id DESC LIMIT 1");
DB_SQL(sql_cc_attachment,
       "SELECT file_name, sha256, data FROM attachments WHERE id = ? AND bug_id = ?"
       " AND data IS NOT NULL AND is_private = 0");
DB_SQL(sql_cc_add_candidate,
       "INSERT INTO candidates (bug_id, source, source_id, kind, name, sha256, content,"
       " patch_count) VALUES (?, 'attachment', ?, ?, ?, ?, ?, ?)"
       " ON CONFLICT (bug_id, sha256) DO NOTHING");
DB_SQL(sql_cc_candidate_by_sha, "SELECT id FROM candidates WHERE bug_id = ? AND sha256 = ?");
DB_SQL(sql_cc_latest_job,
       "SELECT id, candidate_id, patch_count FROM jobs WHERE bug_id = ?"
       " AND candidate_id IS NOT NULL AND kind IN ('test', 'retest', 'bisect')"
       " ORDER BY id DESC LIMIT 1");
DB_SQL(sql_cc_ignore, "UPDATE bugs SET ignored = 1 WHERE id = ?");
DB_SQL(sql_cc_unignore, "UPDATE bugs SET ignored = 0 WHERE id = ? AND ignored = 1");
DB_SQL(sql_cc_cancel_queued,
       "UPDATE jobs SET state = 'cancelled', cancel = 1 WHERE bug_id = ? AND state = 'queued'");

static sqlite3_int64 one_id(struct db *db, sqlite3_stmt *st)
{
	sqlite3_int64 id = 0;

	(void)db;
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return id;
}

/* A candidate for attachment att of bug, made from it if the poller has not. */
static int attachment_candidate(struct db *db, sqlite3_int64 bug, long long att,
				sqlite3_int64 *cand)
{
	sqlite3_stmt *st = db_stmt(db, sql_cc_candidate);
	char hex[SHA256_HEX_LEN], *name = NULL;
	struct patch_info info;
	struct buf norm = BUF_INIT;
	const char *data;
	int len, npatches, ret = -1;

	*cand = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_int64(st, 2, att);
	*cand = one_id(db, st);
	if (*cand)
		return 0;
	st = db_stmt(db, sql_cc_attachment);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, att);
	sqlite3_bind_int64(st, 2, bug);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return 0;	/* no such attachment here: the caller answers */
	}
	name = xstrdup(db_col_text(st, 0));
	data = sqlite3_column_blob(st, 2);
	len = sqlite3_column_bytes(st, 2);
	/* the poller's identity of a patch: the hash of its normalised diff */
	if (patch_parse(data, len, &info)) {
		sqlite3_reset(st);
		ret = 0;	/* not a patch: nothing to test, the caller answers */
		goto out;
	}
	patch_normalise(data, len, &norm);
	sha256_hex(norm.ptr, norm.len, hex);
	npatches = info.patches > 1 ? info.patches : 1;
	{
		sqlite3_stmt *ins = db_stmt(db, sql_cc_add_candidate);

		if (!ins) {
			sqlite3_reset(st);
			goto out;
		}
		sqlite3_bind_int64(ins, 1, bug);
		sqlite3_bind_int64(ins, 2, att);
		db_bind_text(ins, 3, info.kind == PATCH_MBOX ? "mbox" : "patch");
		db_bind_text(ins, 4, name);
		db_bind_text(ins, 5, hex);
		sqlite3_bind_blob(ins, 6, data, len, SQLITE_TRANSIENT);
		sqlite3_bind_int(ins, 7, npatches);
		sqlite3_reset(st);
		if (db_step_done(db, ins))
			goto out;
	}
	st = db_stmt(db, sql_cc_candidate_by_sha);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, bug);
	db_bind_text(st, 2, hex);
	*cand = one_id(db, st);
	ret = 0;
out:
	free(name);
	buf_release(&norm);
	return ret;
}

/* A comment on bug ending in its marker line. */
static int answer(struct db *db, sqlite3_int64 bug, const char *marker, const char *text)
{
	struct buf body = BUF_INIT;
	int ret;

	buf_addf(&body, "%s\n\n%s\n", text, marker);
	ret = outbox_add(db, "comment", bug, 0, marker, body.ptr);
	buf_release(&body);
	return ret;
}

static int answer_comment(struct db *db, sqlite3_int64 bug, sqlite3_int64 comment,
			  const char *text)
{
	struct buf marker = BUF_INIT;
	int ret;

	buf_addf(&marker, "bugbridge-cmd: comment %lld", (long long)comment);
	ret = answer(db, bug, marker.ptr, text);
	buf_release(&marker);
	return ret;
}

static int run_test(struct db *db, sqlite3_int64 bug, sqlite3_int64 comment,
		    const char *author, const struct comment_cmd *c)
{
	struct job_spec spec = { 0 };
	struct buf msg = BUF_INIT;
	sqlite3_int64 cand;
	int ret;

	if (attachment_candidate(db, bug, c->attachment_id, &cand))
		return -1;
	if (!cand) {
		buf_addf(&msg, "bugbridge: there is no attachment %lld with content on bug %lld;"
			 " nothing was queued.", c->attachment_id, (long long)bug);
		ret = answer_comment(db, bug, comment, msg.ptr);
		buf_release(&msg);
		return ret;
	}
	spec.bug_id = bug;
	spec.candidate_id = cand;
	spec.kind = c->kind == COMMENT_CMD_BISECT ? "bisect" : "test";
	spec.with_baseline = true;
	spec.account = author;	/* the asker's turn and budget (job_queue.h) */
	return job_enqueue(db, &spec, NULL);
}

static int run_retest(struct db *db, sqlite3_int64 bug, const char *author)
{
	sqlite3_stmt *st = db_stmt(db, sql_cc_latest_job);
	struct job_spec spec = { 0 };

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	if (sqlite3_step(st) == SQLITE_ROW) {
		spec.parent_id = sqlite3_column_int64(st, 0);
		spec.candidate_id = sqlite3_column_int64(st, 1);
		spec.patch_count = sqlite3_column_int(st, 2);
		spec.kind = "retest";
	}
	sqlite3_reset(st);
	/* without an earlier patch job, a retest is a fresh baseline run */
	spec.bug_id = bug;
	spec.with_baseline = true;
	spec.account = author;
	return job_enqueue(db, &spec, NULL);
}

static int run_ignore(struct db *db, sqlite3_int64 bug)
{
	sqlite3_stmt *st = db_stmt(db, sql_cc_ignore);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	if (db_step_done(db, st))
		return -1;
	st = db_stmt(db, sql_cc_cancel_queued);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	log_info("commands: bug %lld is ignored from now on", (long long)bug);
	return db_step_done(db, st);
}

/* The account as one token: a login has no blanks, a hostile one loses them. */
static void add_account(struct buf *out, const char *author)
{
	for (const char *p = author; *p && p - author < 100; p++)
		buf_addch(out, isgraph((unsigned char)*p) ? *p : '_');
}

static int refuse(struct db *db, sqlite3_int64 bug, sqlite3_int64 comment, const char *author)
{
	struct buf msg = BUF_INIT, marker = BUF_INIT, who = BUF_INIT;
	int ret;

	add_account(&who, author);
	buf_addstr(&msg, "bugbridge: ");
	triage_add_clean(&msg, author, 200);
	buf_addstr(&msg, " is not allowed to give bugbridge commands, so nothing was done."
		   "\nAn admin can add the account to [triage] allow_commands.");
	buf_addf(&marker, "bugbridge-refused: bug %lld ", (long long)bug);
	add_account(&marker, author);
	ret = answer(db, bug, marker.ptr, msg.ptr);
	log_info("commands: %s may not give bugbridge commands (comment %lld on bug %lld);"
		 " refused", who.ptr, (long long)comment, (long long)bug);
	buf_release(&msg);
	buf_release(&marker);
	buf_release(&who);
	return ret;
}

/* An explicit request for a job lifts an earlier "bugbridge: ignore". */
static int unignore(struct db *db, sqlite3_int64 bug)
{
	sqlite3_stmt *st = db_stmt(db, sql_cc_unignore);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	if (db_step_done(db, st))
		return -1;
	if (sqlite3_changes(db->h))
		log_info("commands: bug %lld is no longer ignored", (long long)bug);
	return 0;
}

/* What a command asks for, as the log says it ("test attachment 4 on bug 9370"). */
static void describe(const struct comment_cmd *c, sqlite3_int64 bug, struct buf *out)
{
	switch (c->kind) {
	case COMMENT_CMD_TEST:
		buf_addf(out, "test attachment %lld on bug %lld", c->attachment_id, (long long)bug);
		break;
	case COMMENT_CMD_BISECT:
		buf_addf(out, "bisect the series in attachment %lld on bug %lld",
			 c->attachment_id, (long long)bug);
		break;
	case COMMENT_CMD_RETEST:
		buf_addf(out, "re-run the latest patch job of bug %lld", (long long)bug);
		break;
	case COMMENT_CMD_IGNORE:
		buf_addf(out, "ignore bug %lld from now on", (long long)bug);
		break;
	}
}

static int execute(struct db *db, sqlite3_int64 bug, sqlite3_int64 comment,
		   const char *author, const struct comment_cmd *c)
{
	struct buf who = BUF_INIT, what = BUF_INIT;

	if (c->kind != COMMENT_CMD_IGNORE && unignore(db, bug))
		return -1;
	add_account(&who, author);
	describe(c, bug, &what);
	log_info("commands: %s asks bugbridge to %s (comment %lld)", who.ptr, what.ptr,
		 (long long)comment);
	buf_release(&who);
	buf_release(&what);
	switch (c->kind) {
	case COMMENT_CMD_TEST:
	case COMMENT_CMD_BISECT:
		return run_test(db, bug, comment, author, c);
	case COMMENT_CMD_RETEST:
		return run_retest(db, bug, author);
	case COMMENT_CMD_IGNORE:
		return run_ignore(db, bug);
	}
	return 0;
}

/* One comment, in its own transaction: act (or refuse) and mark it handled. */
static int handle(struct db *db, sqlite3_int64 id, sqlite3_int64 bug, const char *author,
		  const char *text)
{
	struct comment_cmd cmds[8];
	int n = comment_cmd_parse(text, cmds, 8);
	sqlite3_stmt *st;
	int ret = 0;

	if (db_begin(db))
		return -1;
	if (n && !comment_cmd_allowed(author))
		ret = refuse(db, bug, id, author);
	else
		for (int i = 0; i < n && !ret; i++)
			ret = execute(db, bug, id, author, &cmds[i]);
	st = db_stmt(db, sql_cc_handled);
	if (!ret && st) {
		sqlite3_bind_int64(st, 1, id);
		ret = db_step_done(db, st);
	}
	if (ret || !st) {
		db_rollback(db);
		return error("commands: comment %lld not handled; will retry", (long long)id);
	}
	return db_commit(db);
}

struct cc_row {
	sqlite3_int64 id, bug;
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
		rows[n].author = xstrdup(db_col_text(st, 2));
		rows[n].text = xstrdup(db_col_text(st, 3));
		n++;
	}
	sqlite3_reset(st);
	for (int i = 0; i < n; i++) {
		if (!*stop && handle(db, rows[i].id, rows[i].bug, rows[i].author, rows[i].text))
			ret = -1;
		free(rows[i].author);
		free(rows[i].text);
	}
	free(rows);
	return ret;
}
