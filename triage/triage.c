/*
 * triage: where a verdict becomes a comment.  For each finished job not
 * yet reported, in ONE transaction: the result comment and the state
 * mirror become outbox rows, the bug's triage state moves, a fix gets its
 * re-run queued, duplicates are linked, a series bisection advances, and
 * the job is marked reported.  A crash before the commit leaves the job
 * unreported and nothing queued; after it, everything is queued exactly
 * once (markers make the outbox rows idempotent besides).
 *
 * Around the jobs, each cycle also acts on commands in new tracker
 * comments (before, so that the jobs they queue are seen soon), and
 * afterwards acknowledges queued requests (if configured), flags stale
 * bugs and refreshes owners.
 */
#include "triage.h"
#include "triage_state.h"
#include "triage_comment.h"
#include "duplicates.h"
#include "owners.h"
#include "stale.h"
#include "bisect.h"
#include "triage_backtest.h"
#include "releases.h"
#include "commands.h"
#include "xalloc.h"
#include "config.h"
#include "job.h"
#include "job_queue.h"
#include "job_record.h"
#include "log.h"
#include "outbox.h"
#include "privacy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_tr_pending,
       "SELECT id FROM jobs WHERE state = 'done' AND reported = 0 ORDER BY id LIMIT 200");
DB_SQL(sql_tr_bug, "SELECT triage_state, ignored FROM bugs WHERE id = ?");
DB_SQL(sql_tr_reported, "UPDATE jobs SET reported = 1 WHERE id = ?");
/* A re-run of this job, or one of the same patch still to come, is enough. */
DB_SQL(sql_tr_has_retest,
       "SELECT 1 FROM jobs WHERE kind = 'retest' AND (parent_id = ?1"
       " OR (candidate_id = ?2 AND state IN ('queued', 'running')))");

/* What triage reads of a job: the row, its test results and signatures (and LAVA jobs, for the comment). */
#define TRIAGE_LOAD (JOB_LOAD_TESTS | JOB_LOAD_SIGS | JOB_LOAD_LAVA)

static bool ran_suite(const char *verdict)
{
	return !strcmp(verdict, "pass") || !strcmp(verdict, "fail") ||
	       !strcmp(verdict, "panic") || !strcmp(verdict, "boot-timeout");
}

/* What the job says about its bug (see triage_next). */
static void job_fact(const struct job_record *j, struct triage_fact *f)
{
	const char *verdict = job_str(j->verdict), *change = job_str(j->change);

	memset(f, 0, sizeof(*f));
	f->has_patch = j->candidate_id != 0;
	f->is_retest = !strcmp(j->kind, "retest");
	/* untested: nothing judged the patch (its code was not built), so nothing moves */
	if (fault_no_result(j->fault) || (!f->has_patch && !ran_suite(verdict)) ||
	    job_record_untested(j)) {
		f->infra = true;
		return;
	}
	if (!f->has_patch) {
		/* a baseline-only run: its own verdict is the baseline's */
		f->baseline_ran = true;
		f->baseline_failed = strcmp(verdict, "pass") != 0;
		return;
	}
	f->patched_ran = ran_suite(verdict);
	/* a pass that never executed the patch's lines is no evidence for it */
	f->patched_passed = !strcmp(verdict, "pass") && !job_record_not_reached(j);
	/*
	 * The baseline's own rows say whether it failed; the job's change
	 * cannot, since a regression elsewhere outranks a fix there
	 * ("PASS->FAIL" although the baseline failed the bug's test).
	 */
	f->baseline_ran = job_record_ran(j, "baseline");
	f->baseline_failed = job_record_failed(j, "baseline");
	if (!f->baseline_ran && (!strncmp(change, "FAIL->", 6) || !strncmp(change, "PASS->", 6))) {
		f->baseline_ran = true;
		f->baseline_failed = change[0] == 'F';
	}
}

/* -1 error, 0 no such bug, 1 found. */
static int bug_state(struct db *db, sqlite3_int64 bug_id, enum triage_state *s, bool *ignored)
{
	sqlite3_stmt *st = db_stmt(db, sql_tr_bug);
	int rc, parsed;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		parsed = triage_state_parse(db_col_text(st, 0));
		*s = parsed < 0 ? TRIAGE_NEW : (enum triage_state)parsed;
		*ignored = sqlite3_column_int(st, 1) != 0;
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : -1;
}

static int queue_retest(struct db *db, const struct job_record *j)
{
	sqlite3_stmt *st = db_stmt(db, sql_tr_has_retest);
	struct job_spec spec = { 0 };
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, j->id);
	sqlite3_bind_int64(st, 2, j->candidate_id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 0;
	spec.bug_id = j->bug_id;
	spec.candidate_id = j->candidate_id;
	spec.parent_id = j->id;
	spec.kind = "retest";
	spec.patch_count = j->patch_count;
	/* the re-run verifies the fix where it was seen */
	spec.base = j->base;
	spec.base_reason = "the re-run of a fix is built on the fix's base";
	return job_enqueue(db, &spec, NULL);
}

static int post_result(struct db *db, const struct job_record *j)
{
	struct buf text = BUF_INIT, marker = BUF_INIT;
	int ret, rc;

	rc = triage_comment(db, j, &text);
	if (rc < 0) {
		ret = -1;
	} else if (rc > 0) {
		log_info("triage: job %lld (%s) gets no result comment", (long long)j->id,
			 job_str(j->verdict));
		ret = 0;
	} else {
		buf_addf(&marker, "bugbridge-result: job %lld", (long long)j->id);
		ret = outbox_add(db, "comment", j->bug_id, j->id, marker.ptr, text.ptr);
	}
	buf_release(&text);
	buf_release(&marker);
	return ret;
}

/* Everything one finished job causes; the caller holds the transaction. */
static int triage_job(struct db *db, const struct job_record *j)
{
	struct triage_fact fact;
	enum triage_state cur = TRIAGE_NEW, next;
	bool ignored = false, failed = false, hidden;
	int found, dups = 0;

	found = j->bug_id ? bug_state(db, j->bug_id, &cur, &ignored) : 0;
	/* private (its bug, or its candidate's comment or attachment) and skipped */
	hidden = private_bugs_skipped() && job_is_private(db, j->id, &failed);
	if (found < 0 || failed)
		return -1;
	if (!j->bug_id || ignored || hidden) {
		log_info("triage: job %lld: %s, nothing to report", (long long)j->id,
			 hidden ? "private, and private_bugs = skip" :
			 ignored ? "bug is ignored" : "no bug");
		return 0;
	}
	/* a job for a bug we do not watch (bugbridge job add --bug): its result only */
	if (!found)
		return post_result(db, j);
	/* back-tests and release steps change no state: their own files report them */
	if (!strcmp(j->purpose, "backtest"))
		return backtest_job_done(db, j);
	if (!strcmp(j->purpose, "release"))
		return releases_job_done(db, j);
	/* a step is one probe of a bisection: bisect.c reports the outcome */
	if (!strcmp(j->kind, "bisect-step"))
		return bisect_job_done(db, j);
	if (post_result(db, j) || duplicates_check(db, j->id, &dups))
		return -1;
	job_fact(j, &fact);
	if (dups && bug_state(db, j->bug_id, &cur, &ignored) < 0)
		return -1;
	next = triage_next(cur, &fact);
	if (next != cur && triage_set_state(db, j->bug_id, next, j->id, 0))
		return -1;
	if (next == TRIAGE_FIX_CANDIDATE && !fact.is_retest && queue_retest(db, j))
		return -1;
	if (backtest_queue(db, j) || releases_start(db, j))
		return -1;
	if (j->candidate_id && bisect_job_done(db, j))
		return -1;
	return 0;
}

static int mark_reported(struct db *db, sqlite3_int64 id)
{
	sqlite3_stmt *st = db_stmt(db, sql_tr_reported);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	return db_step_done(db, st);
}

static int triage_one(struct db *db, sqlite3_int64 id)
{
	struct job_record j = JOB_RECORD_INIT;
	int rc;

	if (db_begin(db))
		return -1;
	rc = job_record_load(db, id, TRIAGE_LOAD, &j);
	if (rc > 0 && !j.reported)
		rc = triage_job(db, &j) || mark_reported(db, id) ? -1 : 0;
	job_record_release(&j);
	if (rc < 0) {
		db_rollback(db);
		return error("triage: job %lld not reported; will retry", (long long)id);
	}
	return db_commit(db);
}

static int pending_jobs(struct db *db, sqlite3_int64 **ids, int *n)
{
	sqlite3_stmt *st = db_stmt(db, sql_tr_pending);
	int rc;

	*ids = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : error("triage: cannot list jobs: %s", db_errmsg(db));
}

DB_SQL(sql_tr_ack_jobs,
       "SELECT j.id, j.bug_id, j.kind, IFNULL(c.name, '')"
       " FROM jobs j LEFT JOIN candidates c ON c.id = j.candidate_id"
       " JOIN bugs b ON b.id = j.bug_id"
       " WHERE j.state = 'queued' AND j.kind IN ('test', 'retest', 'bisect')"
       " AND j.asked_in IS NULL"	/* a command's answer said it already */
       " AND b.ignored = 0 AND NOT EXISTS (SELECT 1 FROM outbox o"
       "  WHERE o.marker = 'bugbridge-ack: job ' || j.id)");

/*
 * [triage] acknowledge: one short comment per job bugbridge queued on its
 * own (a new patch, a fix's re-run); a job a command asked for was
 * announced in the command's answer (commands_in_comments.c).
 */
static int acknowledge(struct db *db)
{
	sqlite3_stmt *st;
	struct buf text = BUF_INIT, marker = BUF_INIT;
	int ret = 0;

	if (!cfg_bool("triage.acknowledge"))
		return 0;
	if (db_begin(db))
		return -1;
	st = db_stmt(db, sql_tr_ack_jobs);
	while (st && sqlite3_step(st) == SQLITE_ROW && !ret) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);

		buf_reset(&text);
		buf_reset(&marker);
		buf_addf(&text, "bugbridge queued job %lld (%s", (long long)id,
			 db_col_text(st, 2));
		if (*db_col_text(st, 3)) {
			buf_addstr(&text, " of ");
			triage_add_clean(&text, db_col_text(st, 3), 200);
		}
		buf_addf(&text, "), number %d in the queue.\nThe result will be posted here."
			 " Progress: ", job_queue_position(db, id, (long)time(NULL)));
		triage_job_url(id, &text);
		buf_addf(&marker, "bugbridge-ack: job %lld", (long long)id);
		buf_addf(&text, "\n\n%s\n", marker.ptr);
		ret = outbox_add(db, "comment", sqlite3_column_int64(st, 1), id, marker.ptr,
				 text.ptr);
	}
	if (st)
		sqlite3_reset(st);
	ret = ret || !st ? db_rollback(db), -1 : db_commit(db);
	buf_release(&text);
	buf_release(&marker);
	return ret;
}

/* Every finished job not yet reported, in batches; a failing job waits for the next cycle. */
static int triage_jobs(struct db *db, const volatile sig_atomic_t *stop)
{
	sqlite3_int64 *ids = NULL;
	int n = 0, ret = 0;

	do {
		if (pending_jobs(db, &ids, &n))
			return -1;
		for (int i = 0; i < n && !*stop; i++)
			if (triage_one(db, ids[i]))
				ret = -1;
		free(ids);
	} while (n && !ret && !*stop);
	return ret;
}

int triage_run(struct db *db, const volatile sig_atomic_t *stop)
{
	int ret = 0, flagged = 0;

	if (comment_cmd_run(db, stop))
		ret = -1;
	if (triage_jobs(db, stop))
		ret = -1;
	if (!*stop && acknowledge(db))
		ret = -1;
	if (!*stop && stale_check(db, time(NULL), &flagged))
		ret = -1;
	if (!*stop && owners_refresh(db, stop))
		ret = -1;
	return ret;
}
