/*
 * commands_run: one command from a tracker comment, done, and the line
 * that answers it ("queued as job 42: ...", "not done: ...").
 *
 * Jobs go through job_enqueue() like every other job, in the transaction
 * of the comment that asked for them (commands_in_comments.c).  A command
 * that names a kernel ("on 6.12", "on 6.1.170") gets that base, resolved
 * as `bugbridge job add --base` resolves it (lib/bases.h); a back-test and
 * a release bisection are asked of triage_backtest.c and releases.c, which
 * otherwise start them on their own.
 */
#include "commands.h"
#include "releases.h"
#include "triage_backtest.h"
#include "triage_comment.h"
#include "bases.h"
#include "config.h"
#include "job_queue.h"
#include "job_record.h"
#include "log.h"
#include "patch.h"
#include "sha256.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_cr_candidate,
       "SELECT id FROM candidates WHERE bug_id = ?1 AND source = 'attachment' AND source_id = ?2"
       " AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.id = ?2 AND a.is_private <> 0)"
       " ORDER BY id DESC LIMIT 1");
DB_SQL(sql_cr_attachment,
       "SELECT file_name, data, is_private FROM attachments WHERE id = ? AND bug_id = ?");
DB_SQL(sql_cr_add_candidate,
       "INSERT INTO candidates (bug_id, source, source_id, kind, name, sha256, content,"
       " patch_count) VALUES (?, 'attachment', ?, ?, ?, ?, ?, ?)"
       " ON CONFLICT (bug_id, sha256) DO NOTHING");
DB_SQL(sql_cr_candidate_by_sha, "SELECT id FROM candidates WHERE bug_id = ? AND sha256 = ?");
DB_SQL(sql_cr_latest_job,
       "SELECT id, candidate_id, patch_count FROM jobs WHERE bug_id = ?"
       " AND candidate_id IS NOT NULL AND kind IN ('test', 'retest', 'bisect')"
       " AND purpose = '' ORDER BY id DESC LIMIT 1");
DB_SQL(sql_cr_job_what,
       "SELECT j.base, IFNULL(c.name, ''), j.with_baseline, IFNULL(c.patch_count, 0)"
       " FROM jobs j LEFT JOIN candidates c ON c.id = j.candidate_id WHERE j.id = ?");
DB_SQL(sql_cr_tested,
       "SELECT id, state FROM jobs WHERE candidate_id = ?1 AND bug_id = ?2 AND purpose = ''"
       " AND kind IN ('test', 'retest', 'bisect')"
       " ORDER BY state = 'done' DESC, id DESC LIMIT 1");
DB_SQL(sql_cr_latest_done,
       "SELECT id FROM jobs WHERE bug_id = ? AND candidate_id IS NOT NULL AND purpose = ''"
       " AND kind IN ('test', 'retest', 'bisect') AND state = 'done' ORDER BY id DESC LIMIT 1");
DB_SQL(sql_cr_failed_unpatched,
       "SELECT j.id FROM jobs j WHERE j.bug_id = ?1 AND j.state = 'done' AND j.purpose = ''"
       " AND (?2 = '' OR j.base = ?2) AND instr(j.base, '=') = 0"
       " AND EXISTS (SELECT 1 FROM test_results t WHERE t.job_id = j.id AND t.status = 'fail'"
       "  AND t.variant = CASE WHEN j.candidate_id IS NULL THEN 'patched' ELSE 'baseline' END)"
       " ORDER BY j.id DESC LIMIT 1");
DB_SQL(sql_cr_ignore, "UPDATE bugs SET ignored = 1 WHERE id = ?");
DB_SQL(sql_cr_unignore, "UPDATE bugs SET ignored = 0 WHERE id = ? AND ignored = 1");
DB_SQL(sql_cr_cancel_queued,
       "UPDATE jobs SET state = 'cancelled', cancel = 1 WHERE bug_id = ? AND state = 'queued'");

/* The first column of st's one row (bound by the caller), 0 when none. */
static sqlite3_int64 one_id(sqlite3_stmt *st)
{
	sqlite3_int64 id = 0;

	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return id;
}

/* A new candidate from attachment att's data; *cand its id (0: not a patch). */
static int candidate_from(struct db *db, sqlite3_int64 bug, long long att, const char *name,
			  const void *data, int len, sqlite3_int64 *cand)
{
	sqlite3_stmt *st = db_stmt(db, sql_cr_add_candidate);
	char hex[SHA256_HEX_LEN];
	struct patch_info info;
	struct buf norm = BUF_INIT;

	*cand = 0;
	/* the poller's identity of a patch: the hash of its normalised diff */
	if (!st || patch_parse(data, (size_t)len, &info))
		return st ? 0 : -1;
	patch_normalise(data, (size_t)len, &norm);
	sha256_hex(norm.ptr, norm.len, hex);
	buf_release(&norm);
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_int64(st, 2, att);
	db_bind_text(st, 3, info.kind == PATCH_MBOX ? "mbox" : "patch");
	db_bind_text(st, 4, name);
	db_bind_text(st, 5, hex);
	sqlite3_bind_blob(st, 6, data, len, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 7, info.patches > 1 ? info.patches : 1);
	if (db_step_done(db, st))
		return -1;
	st = db_stmt(db, sql_cr_candidate_by_sha);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	db_bind_text(st, 2, hex);
	*cand = one_id(st);
	return 0;
}

/*
 * The candidate of attachment att on bug, made from it if the poller has
 * not (an author whose patches wait for a command).  0 with *cand 0 and the
 * reason in why when there is nothing to test; -1 on a database error.
 */
static int attachment_candidate(struct db *db, sqlite3_int64 bug, long long att,
				sqlite3_int64 *cand, struct buf *why)
{
	sqlite3_stmt *st = db_stmt(db, sql_cr_candidate);
	char *name;
	int ret;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_int64(st, 2, att);
	*cand = one_id(st);
	if (*cand)
		return 0;
	st = db_stmt(db, sql_cr_attachment);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, att);
	sqlite3_bind_int64(st, 2, bug);
	if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 2)) {
		sqlite3_reset(st);
		/* a private attachment is never tested: its results would show it */
		buf_addf(why, "bug %lld has no attachment %lld that bugbridge may test",
			 (long long)bug, att);
		return 0;
	}
	if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
		sqlite3_reset(st);
		buf_addf(why, "attachment %lld has not been fetched yet; ask again later", att);
		return 0;
	}
	name = xstrdup(db_col_text(st, 0));
	ret = candidate_from(db, bug, att, name, sqlite3_column_blob(st, 1),
			     sqlite3_column_bytes(st, 1), cand);
	sqlite3_reset(st);
	free(name);
	if (!ret && !*cand)
		buf_addf(why, "attachment %lld is not a patch bugbridge can apply (a unified diff"
			 " or an mbox)", att);
	return ret;
}

/* The kernel a command names, as a base name; 0 with *ok false and why in answer when not. */
static int command_base(const struct comment_cmd *c, struct buf *base, bool *ok,
			struct buf *answer)
{
	struct buf err = BUF_INIT;

	*ok = true;
	if (!c->base[0])
		return 0;
	if (base_resolve(c->base, base, &err)) {
		*ok = false;
		buf_addstr(answer, "not done: ");
		buf_add(answer, err.ptr, err.len);
	}
	buf_release(&err);
	return 0;
}

/* "queued as job 42: <what> on <base>[, with the unpatched kernel]; <url>" */
static int say_queued(struct db *db, sqlite3_int64 id, const char *what, struct buf *answer)
{
	sqlite3_stmt *st = db_stmt(db, sql_cr_job_what);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return error("commands: job %lld is gone", (long long)id);
	}
	buf_addf(answer, "queued as job %lld: ", (long long)id);
	buf_addstr(answer, what);
	if (*db_col_text(st, 1)) {
		buf_addstr(answer, " (");
		triage_add_clean(answer, db_col_text(st, 1), 80);
		if (sqlite3_column_int(st, 3) > 1)
			buf_addf(answer, ", %d patches", sqlite3_column_int(st, 3));
		buf_addch(answer, ')');
	}
	buf_addf(answer, " on %s%s; ", db_col_text(st, 0),
		 sqlite3_column_int(st, 2) ? ", with the unpatched kernel beside it" : "");
	sqlite3_reset(st);
	triage_job_url(id, answer);
	return 0;
}

/*
 * Submit spec for the asking account and say what became of it: queued,
 * queued to wait for a budget (job_queue.h), or not queued.  The why of
 * its base is the command.
 */
static int enqueue(struct db *db, const struct comment_ref *from, struct job_spec *spec,
		   const char *what, struct buf *answer)
{
	struct buf why = BUF_INIT, adm_text = BUF_INIT;
	struct job_admission adm;
	int ret;

	if (spec->base) {
		buf_addf(&why, "asked for in comment #%d by ", from->count);
		triage_add_clean(&why, from->author, 100);
		spec->base_reason = why.ptr;
	}
	spec->account = from->author;	/* the asker's turn and budget */
	spec->caller_answers = true;	/* this answer says what became of it */
	ret = job_submit(db, spec, &adm);
	if (!ret)
		job_admission_text(&adm, &adm_text);
	if (!ret && adm.admit == JOB_REFUSED) {
		buf_addf(answer, "%s: ", what);
		buf_add(answer, adm_text.ptr, adm_text.len);
	} else if (!ret) {
		ret = say_queued(db, adm.id, what, answer);
		/* "queued as job 12; it waits until ...": the wait is said after the link */
		if (!ret && adm.admit == JOB_DEFERRED && strchr(adm_text.ptr, ';'))
			buf_addstr(answer, strchr(adm_text.ptr, ';'));
	}
	buf_release(&why);
	buf_release(&adm_text);
	return ret;
}

static int run_test(struct db *db, const struct comment_ref *from, const struct comment_cmd *c,
		    struct buf *answer)
{
	struct job_spec spec = { .bug_id = from->bug, .with_baseline = true };
	struct buf base = BUF_INIT, why = BUF_INIT, what = BUF_INIT;
	bool ok;
	int ret;

	ret = command_base(c, &base, &ok, answer);
	if (ret || !ok)
		goto out;
	spec.base = base.len ? base.ptr : NULL;
	spec.kind = c->kind == COMMENT_CMD_BISECT ? "bisect" : "test";
	if (c->attachment_id) {
		ret = attachment_candidate(db, from->bug, c->attachment_id, &spec.candidate_id, &why);
		if (!ret && !spec.candidate_id)
			buf_addf(answer, "not done: %s", why.ptr);
		if (ret || !spec.candidate_id)
			goto out;
		buf_addf(&what, "%s %lld", c->kind == COMMENT_CMD_BISECT ?
			 "the series in attachment" : "attachment", c->attachment_id);
	} else {
		/* test on <kernel>: the bug's latest patch there, or its unpatched kernel */
		sqlite3_stmt *st = db_stmt(db, sql_cr_latest_job);

		if (!st) {
			ret = -1;
			goto out;
		}
		sqlite3_bind_int64(st, 1, from->bug);
		if (sqlite3_step(st) == SQLITE_ROW) {
			spec.candidate_id = sqlite3_column_int64(st, 1);
			spec.patch_count = sqlite3_column_int(st, 2);
			buf_addf(&what, "the patch of job %lld", (long long)sqlite3_column_int64(st, 0));
		} else {
			buf_addstr(&what, "the unpatched kernel (the bug has no patch yet)");
		}
		sqlite3_reset(st);
	}
	ret = enqueue(db, from, &spec, what.ptr, answer);
	if (!ret && c->kind == COMMENT_CMD_BISECT)
		buf_addstr(answer, "; if the series breaks a test, the patch that does is searched for");
out:
	buf_release(&base);
	buf_release(&why);
	buf_release(&what);
	return ret;
}

static int run_retest(struct db *db, const struct comment_ref *from, struct buf *answer)
{
	sqlite3_stmt *st = db_stmt(db, sql_cr_latest_job);
	struct job_spec spec = { .bug_id = from->bug, .with_baseline = true };
	struct buf what = BUF_INIT;
	int ret;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, from->bug);
	if (sqlite3_step(st) == SQLITE_ROW) {
		spec.parent_id = sqlite3_column_int64(st, 0);
		spec.candidate_id = sqlite3_column_int64(st, 1);
		spec.patch_count = sqlite3_column_int(st, 2);
		spec.kind = "retest";
		buf_addf(&what, "job %lld again", (long long)spec.parent_id);
	} else {
		/* without an earlier patch job, a retest is a fresh baseline run */
		buf_addstr(&what, "the unpatched kernel (the bug has no patch job yet)");
	}
	sqlite3_reset(st);
	ret = enqueue(db, from, &spec, what.ptr, answer);
	buf_release(&what);
	return ret;
}

/* The finished job a back-test starts from: of attachment att, or the bug's latest. */
static int backtest_source(struct db *db, const struct comment_ref *from, long long att,
			   sqlite3_int64 *job, struct buf *answer)
{
	struct buf why = BUF_INIT;
	sqlite3_int64 cand = 0;
	sqlite3_stmt *st;
	int ret = 0;

	*job = 0;
	if (!att) {
		st = db_stmt(db, sql_cr_latest_done);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, from->bug);
		*job = one_id(st);
		if (!*job)
			buf_addstr(answer, "not done: no patch of this bug has a result yet");
		return 0;
	}
	if (attachment_candidate(db, from->bug, att, &cand, &why))
		return -1;
	st = cand ? db_stmt(db, sql_cr_tested) : NULL;
	if (cand && !st)
		ret = -1;
	else if (!cand)
		buf_addf(answer, "not done: %s", why.ptr);
	else {
		sqlite3_bind_int64(st, 1, cand);
		sqlite3_bind_int64(st, 2, from->bug);
		if (sqlite3_step(st) != SQLITE_ROW)
			buf_addf(answer, "not done: attachment %lld has not been tested here;"
				 " `bugbridge: test %lld` first", att, att);
		else if (strcmp(db_col_text(st, 1), "done"))
			buf_addf(answer, "not done yet: job %lld, its test, has not finished; ask"
				 " again once its result is here",
				 (long long)sqlite3_column_int64(st, 0));
		else
			*job = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	buf_release(&why);
	return ret;
}

static int run_backtest(struct db *db, const struct comment_ref *from,
			const struct comment_cmd *c, struct buf *answer)
{
	struct job_record j = JOB_RECORD_INIT;
	sqlite3_int64 id;
	int ret;

	if (backtest_source(db, from, c->attachment_id, &id, answer))
		return -1;
	if (!id)
		return 0;
	ret = job_record_load(db, id, JOB_LOAD_TESTS, &j) <= 0 ? -1 :
	      backtest_request(db, &j, answer);
	job_record_release(&j);
	return ret;
}

static int run_releases(struct db *db, const struct comment_ref *from,
			const struct comment_cmd *c, struct buf *answer)
{
	struct job_record j = JOB_RECORD_INIT;
	struct buf base = BUF_INIT;
	struct base b;
	sqlite3_stmt *st;
	sqlite3_int64 id;
	bool ok;
	int ret;

	ret = command_base(c, &base, &ok, answer);
	if (ret || !ok)
		goto out;
	if (base.len && (base_parse(base.ptr, &b) || base_is_release(&b))) {
		buf_addf(answer, "not done: %s is a release; name a series (6.1, 6.12)", c->base);
		goto out;
	}
	st = db_stmt(db, sql_cr_failed_unpatched);
	ret = -1;
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, from->bug);
	db_bind_text(st, 2, base.ptr);
	ret = 0;
	if (!(id = one_id(st))) {
		buf_addf(answer, "not done: no unpatched kernel %s%s has failed a test on this"
			 " bug yet", base.len ? "of " : "", base.len ? c->base : "");
		goto out;
	}
	ret = job_record_load(db, id, JOB_LOAD_TESTS, &j) <= 0 ? -1 :
	      releases_request(db, &j, answer);
out:
	job_record_release(&j);
	buf_release(&base);
	return ret;
}

static int run_ignore(struct db *db, const struct comment_ref *from, struct buf *answer)
{
	sqlite3_stmt *st = db_stmt(db, sql_cr_ignore);
	int cancelled;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, from->bug);
	if (db_step_done(db, st))
		return -1;
	st = db_stmt(db, sql_cr_cancel_queued);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, from->bug);
	if (db_step_done(db, st))
		return -1;
	cancelled = sqlite3_changes(db->h);
	log_info("commands: bug %lld is ignored from now on", (long long)from->bug);
	buf_addf(answer, "done: bugbridge ignores this bug from now on (%d queued job%s"
		 " cancelled); a command that asks for a job lifts it", cancelled,
		 cancelled == 1 ? "" : "s");
	return 0;
}

/* An explicit request for a job lifts an earlier "bugbridge: ignore". */
static int unignore(struct db *db, sqlite3_int64 bug)
{
	sqlite3_stmt *st = db_stmt(db, sql_cr_unignore);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	if (db_step_done(db, st))
		return -1;
	if (sqlite3_changes(db->h))
		log_info("commands: bug %lld is no longer ignored", (long long)bug);
	return 0;
}

int comment_cmd_execute(struct db *db, const struct comment_ref *from,
			const struct comment_cmd *c, struct buf *answer)
{
	bool asks_job = c->kind != COMMENT_CMD_IGNORE && c->kind != COMMENT_CMD_HELP &&
			c->kind != COMMENT_CMD_UNKNOWN;

	if (asks_job && unignore(db, from->bug))
		return -1;
	switch (c->kind) {
	case COMMENT_CMD_TEST:
	case COMMENT_CMD_BISECT:
		return run_test(db, from, c, answer);
	case COMMENT_CMD_RETEST:
		return run_retest(db, from, answer);
	case COMMENT_CMD_BACKTEST:
		return run_backtest(db, from, c, answer);
	case COMMENT_CMD_RELEASES:
		return run_releases(db, from, c, answer);
	case COMMENT_CMD_IGNORE:
		return run_ignore(db, from, answer);
	case COMMENT_CMD_HELP:
		buf_addstr(answer, "the commands are below");
		return 0;
	case COMMENT_CMD_UNKNOWN:
		break;
	}
	return 0;
}

void comment_cmd_help(struct buf *out)
{
	int n;
	char **kept = bases_kept(&n);

	buf_addstr(out,
		"Commands, each on a line of its own, from an account in [triage] allow_commands:\n"
		"`bugbridge: test <attachment> [on <kernel>]`    that patch, beside the unpatched kernel\n"
		"`bugbridge: test on <kernel>`                   the bug's latest patch (or its unpatched kernel) there\n"
		"`bugbridge: retest`                             the bug's latest patch job again\n"
		"`bugbridge: bisect <attachment> [on <kernel>]`  a series; which patch breaks a test\n"
		"`bugbridge: backtest [<attachment>]`            a tested patch on every other kept series\n"
		"`bugbridge: bisect releases [<series>]`         the first release failing the bug's tests\n"
		"`bugbridge: ignore`                             no more jobs or comments here\n"
		"`bugbridge: help`                               this list\n"
		"<kernel>: a kept series (");
	for (int i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? ", " : "", kept[i] + strlen(BASE_PKG));
	buf_addstr(out, n ? ") " : "none here) ");
	buf_addstr(out, "or a release of Debian's archive (6.1.170, 6.1.170-3).\n");
	bases_free(kept, n);
}
