/*
 * job: claiming, leasing, staging and finishing jobs.  See job.h.
 *
 * Every state change is a single statement or a BEGIN IMMEDIATE
 * transaction: SQLite serialises writers, so "UPDATE ... WHERE state =
 * 'queued'" is the compare-and-swap that makes a claim exclusive.
 */
#include "job.h"
#include "config.h"
#include "xalloc.h"
#include "log.h"
#include "wake.h"

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* A lost runner is an infrastructure error too: the next try waits as job_retry_delay says. */
DB_SQL(sql_job_requeue_expired,
       "UPDATE jobs SET state = 'queued', runner = NULL, lease_expires = NULL,"
       " stage = NULL, attempts = attempts + 1,"
       " not_before = ?1 + min(?3 * (1 << min(attempts - retry_from, 20)), ?4),"
       " progress = 'lease of ' || coalesce(runner, '?') || ' expired; queued again'"
       " WHERE state = 'running' AND lease_expires < ?1 AND attempts + 1 - retry_from < ?2");
DB_SQL(sql_job_fail_expired,
       "UPDATE jobs SET state = 'done', verdict = 'infra-error', fault = 'infra',"
       " attempts = attempts + 1, verdict_detail = 'runner lost the job '"
       " || (attempts + 1 - retry_from) || ' times (lease expired)',"
       " runner = NULL, lease_expires = NULL, stage = NULL, finished_at = ?1"
       " WHERE state = 'running' AND lease_expires < ?1 AND attempts + 1 - retry_from >= ?2");
DB_SQL(sql_job_claim_next,
       "UPDATE jobs SET state = 'running', runner = ?1, lease_expires = ?2,"
       " started_at = ?3, stage = 'prepare', progress = 'claimed by ' || ?1"
       " WHERE id = (SELECT q.id FROM jobs q WHERE q.state = 'queued' AND q.cancel = 0"
       "             AND q.not_before <= ?3 ORDER BY " JOB_CLAIM_ORDER("q") " LIMIT 1)"
       " AND state = 'queued'"
       " RETURNING id, bug_id, candidate_id, kind, base, patch_count, with_baseline,"
       " attempts, boot_args, retry_from");
DB_SQL(sql_job_claim_id,
       "UPDATE jobs SET state = 'running', runner = ?1, lease_expires = ?2,"
       " started_at = ?3, stage = 'prepare', progress = 'claimed by ' || ?1"
       " WHERE id = ?4 AND state = 'queued' AND cancel = 0"
       " RETURNING id, bug_id, candidate_id, kind, base, patch_count, with_baseline,"
       " attempts, boot_args, retry_from");
DB_SQL(sql_job_position,
       "SELECT pos FROM (SELECT q.id, row_number() OVER (ORDER BY q.not_before > ?2,"
       " CASE WHEN q.not_before > ?2 THEN q.not_before END, " JOB_CLAIM_ORDER("q") ") AS pos"
       " FROM jobs q WHERE q.state = 'queued' AND q.cancel = 0) WHERE id = ?1");
DB_SQL(sql_job_next_due,
       "SELECT min(not_before) FROM jobs WHERE state = 'queued' AND cancel = 0 AND not_before > ?");
DB_SQL(sql_job_renew,
       "UPDATE jobs SET lease_expires = ?1 WHERE id = ?2 AND runner = ?3"
       " AND state = 'running' RETURNING cancel");
DB_SQL(sql_job_cancel_flag, "SELECT cancel FROM jobs WHERE id = ?");
DB_SQL(sql_job_progress,
       "UPDATE jobs SET stage = coalesce(?1, stage), progress = ?2"
       " WHERE id = ?3 AND runner = ?4 AND state = 'running'");
DB_SQL(sql_job_stage_begin,
       "INSERT INTO job_stages (job_id, attempt, variant, stage, started_at)"
       " VALUES (?, ?, ?, ?, ?)");
DB_SQL(sql_job_stage_end,
       "UPDATE job_stages SET finished_at = ?1, status = ?2, detail = ifnull(?3, detail)"
       " WHERE id = ?4");
DB_SQL(sql_job_stage_note, "UPDATE job_stages SET detail = ?1 WHERE id = ?2");
DB_SQL(sql_job_unclaim,
       "UPDATE jobs SET state = 'queued', runner = NULL, lease_expires = NULL,"
       " stage = NULL, progress = 'released by ' || ?2"
       " WHERE id = ?1 AND runner = ?2 AND state = 'running'");
DB_SQL(sql_job_retry,
       "UPDATE jobs SET state = 'queued', runner = NULL, lease_expires = NULL,"
       " stage = NULL, attempts = attempts + 1, not_before = ?4, held = NULL, progress = ?3"
       " WHERE id = ?1 AND runner = ?2 AND state = 'running'");
DB_SQL(sql_job_done,
       "UPDATE jobs SET state = 'done', verdict = ?1, change = ?2, verdict_detail = ?3,"
       " accel = ?4, kernel_version = ?5, log_dir = ?6, finished_at = ?7,"
       " runner = NULL, lease_expires = NULL, stage = NULL, attempts = attempts + 1,"
       " progress = 'done: ' || ?1, fault = ?10"
       " WHERE id = ?8 AND runner = ?9 AND state = 'running'");
DB_SQL(sql_job_reach,
       "UPDATE jobs SET reach_changed = ?1, reach_reached = ?2, reach = ?3 WHERE id = ?4");
DB_SQL(sql_job_clear_results,
       "DELETE FROM test_results WHERE job_id = ?");
DB_SQL(sql_job_clear_sigs,
       "DELETE FROM signatures WHERE job_id = ?");
DB_SQL(sql_job_add_test,
       "INSERT INTO test_results (job_id, variant, name, status, runs, failures,"
       " diagnostics, change) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
DB_SQL(sql_job_add_sig,
       "INSERT OR IGNORE INTO signatures (job_id, variant, kind, title, frames, hash)"
       " VALUES (?, ?, ?, ?, ?, ?)");
DB_SQL(sql_job_cancelled,
       "UPDATE jobs SET state = 'cancelled', finished_at = ?1, runner = NULL,"
       " lease_expires = NULL, stage = NULL, progress = 'cancelled', attempts = attempts + 1"
       " WHERE id = ?2 AND runner = ?3 AND state = 'running'");
DB_SQL(sql_job_cancel_queued,
       "UPDATE jobs SET state = 'cancelled', cancel = 1, finished_at = ?1,"
       " progress = 'cancelled before it ran' WHERE id = ?2 AND state = 'queued'");
DB_SQL(sql_job_retry_done,
       "UPDATE jobs SET state = 'queued', verdict = NULL, change = NULL, verdict_detail = NULL,"
       " fault = NULL, accel = NULL, kernel_version = NULL, finished_at = NULL, reach = NULL,"
       " reach_changed = NULL, reach_reached = NULL, reported = 0, not_before = 0, held = NULL,"
       " retry_from = attempts, progress = 'queued again by an operator (bugbridge job retry)'"
       " WHERE id = ? AND state = 'done' AND verdict = 'infra-error'");
DB_SQL(sql_job_retry_queued,
       "UPDATE jobs SET not_before = 0, held = NULL,"
       " progress = 'due now: an operator said so (bugbridge job retry)'"
       " WHERE id = ? AND state = 'queued' AND not_before > ?");
DB_SQL(sql_job_state_of, "SELECT state, ifnull(verdict, '') FROM jobs WHERE id = ?");
DB_SQL(sql_job_cancel_running,
       "UPDATE jobs SET cancel = 1, progress = 'cancel requested'"
       " WHERE id = ? AND state = 'running'");

void job_release(struct job *job)
{
	if (!job)
		return;
	free(job->kind);
	free(job->base);
	free(job->boot_args);
	free(job->runner);
	memset(job, 0, sizeof(*job));
}

static double now_real(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* One of the expiry statements; what it did is logged as "N job(s) <what>". */
static int expire(struct db *db, const char *sql, long now, int max_attempts,
		  const char *what)
{
	sqlite3_stmt *st = db_stmt(db, sql);
	int n;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int(st, 2, max_attempts);
	if (sqlite3_bind_parameter_count(st) >= 4) {	/* the requeue: its retry delay */
		sqlite3_bind_int64(st, 3, cfg_int("runner.retry_delay") > 0 ?
				   cfg_int("runner.retry_delay") : 0);
		sqlite3_bind_int64(st, 4, cfg_int("runner.retry_delay_max") > 0 ?
				   cfg_int("runner.retry_delay_max") : 1L << 40);
	}
	if (db_step_done(db, st))
		return -1;
	n = sqlite3_changes(db->h);
	if (n)
		log_warn("job: %d job(s) %s", n, what);
	return 0;
}

int job_expire_leases(struct db *db, long now, int max_attempts)
{
	if (expire(db, sql_job_requeue_expired, now, max_attempts,
		   "lost their runner's lease, queued again") ||
	    expire(db, sql_job_fail_expired, now, max_attempts,
		   "lost their runner too often: infra-error"))
		return -1;
	return 0;
}

static char *dup_col(sqlite3_stmt *st, int col)
{
	return xstrdup(db_col_text(st, col));
}

/* Run a claim statement (already bound from ?4 on) inside a transaction. */
static int claim(struct db *db, const char *sql, sqlite3_int64 id, const char *runner,
		 int lease, int max_attempts, struct job *job)
{
	long now = time(NULL);
	sqlite3_stmt *st;
	int rc, ret = -1;

	if (db_begin(db))
		return -1;
	if (job_expire_leases(db, now, max_attempts))
		goto out;
	st = db_stmt(db, sql);
	if (!st)
		goto out;
	db_bind_text(st, 1, runner);
	sqlite3_bind_int64(st, 2, now + lease);
	sqlite3_bind_int64(st, 3, now);
	if (id)
		sqlite3_bind_int64(st, 4, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		job->id = sqlite3_column_int64(st, 0);
		job->bug_id = sqlite3_column_int64(st, 1);
		job->candidate_id = sqlite3_column_int64(st, 2);
		job->kind = dup_col(st, 3);
		job->base = dup_col(st, 4);
		job->patch_count = sqlite3_column_int(st, 5);
		job->with_baseline = sqlite3_column_int(st, 6) != 0;
		job->attempt = sqlite3_column_int(st, 7) + 1;
		job->boot_args = dup_col(st, 8);
		job->retry_from = sqlite3_column_int(st, 9);
		job->runner = xstrdup(runner);
		ret = 1;
		rc = sqlite3_step(st);
	} else {
		ret = 0;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		error("job: cannot claim: %s", db_errmsg(db));
		ret = -1;
		goto out;
	}
	if (db_commit(db))
		ret = -1;
	else
		db = NULL;
out:
	if (db)
		db_rollback(db);
	if (ret != 1)
		job_release(job);
	else
		log_info("job: claimed job %lld (attempt %d) as %s", (long long)job->id,
			 job->attempt, runner);
	return ret;
}

int job_claim_next(struct db *db, const char *runner, int lease, int max_attempts,
		   struct job *job)
{
	return claim(db, sql_job_claim_next, 0, runner, lease, max_attempts, job);
}

int job_claim_id(struct db *db, sqlite3_int64 id, const char *runner, int lease,
		 int max_attempts, struct job *job)
{
	return claim(db, sql_job_claim_id, id, runner, lease, max_attempts, job);
}

int job_queue_position(struct db *db, sqlite3_int64 id, long now)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_position);
	int pos = 0;

	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	if (sqlite3_step(st) == SQLITE_ROW)
		pos = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	return pos;
}

long job_next_due(struct db *db, long now)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_next_due);
	long due = 0;

	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, now);
	if (sqlite3_step(st) == SQLITE_ROW)
		due = (long)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return due;
}

int job_renew(const struct job *job, struct db *db, int lease, bool *cancel)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_renew);
	int rc;

	*cancel = false;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL) + lease);
	sqlite3_bind_int64(st, 2, job->id);
	db_bind_text(st, 3, job->runner);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*cancel = sqlite3_column_int(st, 0) != 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return error("job: lease of job %lld lost", (long long)job->id);
	return 0;
}

bool job_cancel_requested(const struct job *job, struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_cancel_flag);
	bool cancel = false;

	if (!st)
		return false;
	sqlite3_bind_int64(st, 1, job->id);
	if (sqlite3_step(st) == SQLITE_ROW)
		cancel = sqlite3_column_int(st, 0) != 0;
	sqlite3_reset(st);
	return cancel;
}

int job_progress(const struct job *job, struct db *db, const char *stage, const char *text)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_progress);

	if (!st)
		return -1;
	db_bind_text(st, 1, stage);
	db_bind_text(st, 2, text);
	sqlite3_bind_int64(st, 3, job->id);
	db_bind_text(st, 4, job->runner);
	return db_step_done(db, st);
}

int job_stage_begin(const struct job *job, struct db *db, const char *variant,
		    const char *stage, sqlite3_int64 *stage_id)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_stage_begin);
	struct buf text = BUF_INIT;
	int ret;

	*stage_id = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job->id);
	sqlite3_bind_int(st, 2, job->attempt);
	db_bind_text(st, 3, variant);
	db_bind_text(st, 4, stage);
	sqlite3_bind_double(st, 5, now_real());
	if (db_step_done(db, st))
		return -1;
	*stage_id = db_last_id(db);
	buf_addf(&text, "%s: %s", variant, stage);
	ret = job_progress(job, db, stage, text.ptr);
	buf_release(&text);
	return ret;
}

int job_stage_note(struct db *db, sqlite3_int64 stage_id, const char *detail)
{
	sqlite3_stmt *st;

	if (!stage_id)
		return 0;
	st = db_stmt(db, sql_job_stage_note);
	if (!st)
		return -1;
	db_bind_text(st, 1, detail);
	sqlite3_bind_int64(st, 2, stage_id);
	return db_step_done(db, st);
}

int job_stage_end(struct db *db, sqlite3_int64 stage_id, const char *status,
		  const char *detail)
{
	sqlite3_stmt *st;

	if (!stage_id)
		return 0;
	st = db_stmt(db, sql_job_stage_end);
	if (!st)
		return -1;
	sqlite3_bind_double(st, 1, now_real());
	db_bind_text(st, 2, status);
	db_bind_text(st, 3, detail);
	sqlite3_bind_int64(st, 4, stage_id);
	return db_step_done(db, st);
}

int job_unclaim(const struct job *job, struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_unclaim);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job->id);
	db_bind_text(st, 2, job->runner);
	if (db_step_done(db, st))
		return -1;
	db_wake_after_commit(db, WAKE_JOBS);	/* another runner may take it */
	log_info("job: released job %lld", (long long)job->id);
	return 0;
}

static int add_results(const struct job *job, struct db *db, const struct job_outcome *out)
{
	sqlite3_stmt *st;

	for (int i = 0; i < out->ntests; i++) {
		const struct job_test *t = &out->tests[i];
		st = db_stmt(db, sql_job_add_test);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, job->id);
		db_bind_text(st, 2, t->variant);
		db_bind_text(st, 3, t->name);
		db_bind_text(st, 4, t->status);
		sqlite3_bind_int(st, 5, t->runs);
		sqlite3_bind_int(st, 6, t->failures);
		db_bind_text(st, 7, t->diagnostics ? t->diagnostics : "");
		db_bind_text(st, 8, t->change);
		if (db_step_done(db, st))
			return -1;
	}
	for (int i = 0; i < out->nsigs; i++) {
		const struct job_signature *s = &out->sigs[i];
		st = db_stmt(db, sql_job_add_sig);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, job->id);
		db_bind_text(st, 2, s->variant);
		db_bind_text(st, 3, s->kind);
		db_bind_text(st, 4, s->title);
		db_bind_text(st, 5, s->frames ? s->frames : "");
		db_bind_text(st, 6, s->hash);
		if (db_step_done(db, st))
			return -1;
	}
	return 0;
}

static int clear_results(const struct job *job, struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_clear_results);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job->id);
	if (db_step_done(db, st))
		return -1;
	st = db_stmt(db, sql_job_clear_sigs);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job->id);
	return db_step_done(db, st);
}

long job_retry_delay(int tries)
{
	long delay = cfg_int("runner.retry_delay"), max = cfg_int("runner.retry_delay_max");

	if (delay <= 0)
		return 0;
	for (int i = 1; i < tries && i < 40 && (max <= 0 || delay < max); i++)
		delay *= 2;
	return max > 0 && delay > max ? max : delay;
}

/* Back to the queue after an infrastructure error, due after the try's delay. */
static int retry_job(const struct job *job, struct db *db, const struct job_outcome *out,
		     long *due)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_retry);
	struct buf progress = BUF_INIT;
	char at[16];
	time_t t;
	int ret;

	if (!st)
		return -1;
	*due = (long)time(NULL) + job_retry_delay(job->attempt - job->retry_from);
	t = (time_t)*due;
	strftime(at, sizeof(at), "%H:%M:%S", gmtime(&t));
	buf_addf(&progress, "infra-error on attempt %d; next try at %s UTC: %s", job->attempt, at,
		 out->detail ? out->detail : "");
	sqlite3_bind_int64(st, 1, job->id);
	db_bind_text(st, 2, job->runner);
	db_bind_text(st, 3, progress.ptr);
	sqlite3_bind_int64(st, 4, *due);
	ret = db_step_done(db, st);
	buf_release(&progress);
	return ret;
}

/* The reach columns: NULL unless the run measured it. */
static int set_reach(const struct job *job, struct db *db, const struct job_outcome *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_reach);

	if (!st)
		return -1;
	if (out->reach) {
		sqlite3_bind_int(st, 1, out->reach_changed);
		sqlite3_bind_int(st, 2, out->reach_reached);
	}
	db_bind_text(st, 3, out->reach);
	sqlite3_bind_int64(st, 4, job->id);
	return db_step_done(db, st);
}

static int mark_done(const struct job *job, struct db *db, const struct job_outcome *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_done);

	if (!st)
		return -1;
	db_bind_text(st, 1, out->verdict);
	db_bind_text(st, 2, out->change);
	db_bind_text(st, 3, out->detail);
	db_bind_text(st, 4, out->accel);
	db_bind_text(st, 5, out->kernel_version);
	db_bind_text(st, 6, out->log_dir);
	sqlite3_bind_int64(st, 7, time(NULL));
	sqlite3_bind_int64(st, 8, job->id);
	db_bind_text(st, 9, job->runner);
	db_bind_text(st, 10, fault_name(out->fault));
	return db_step_done(db, st);
}

int job_finish(const struct job *job, struct db *db, const struct job_outcome *out,
	       int max_attempts)
{
	bool retry = fault_retried(out->fault) && job->attempt - job->retry_from < max_attempts;
	long due = 0;

	if (db_begin(db))
		return -1;
	if (retry) {
		if (retry_job(job, db, out, &due))
			goto fail;
	} else {
		if (clear_results(job, db) || add_results(job, db, out) || set_reach(job, db, out) ||
		    mark_done(job, db, out))
			goto fail;
	}
	if (sqlite3_changes(db->h) != 1) {
		error("job: job %lld is no longer ours; outcome dropped", (long long)job->id);
		goto fail;
	}
	/* a retry is work for the runners; a verdict is for bugbridged to post */
	db_wake_after_commit(db, retry ? WAKE_JOBS : WAKE_VERDICTS);
	if (db_commit(db))
		goto fail;
	if (retry)
		log_warn("job: job %lld: infra-error on attempt %d, queued again (next try in %ld s):"
			 " %s", (long long)job->id, job->attempt, due - (long)time(NULL),
			 out->detail ? out->detail : "");
	else
		log_info("job: job %lld done: %s%s%s%s%s", (long long)job->id, out->verdict,
			 out->change ? " " : "", out->change ? out->change : "",
			 out->fault ? ", fault: " : "",
			 out->fault ? fault_name(out->fault) : "");
	return 0;
fail:
	db_rollback(db);
	return -1;
}

int job_finish_cancelled(const struct job *job, struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_cancelled);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, time(NULL));
	sqlite3_bind_int64(st, 2, job->id);
	db_bind_text(st, 3, job->runner);
	if (db_step_done(db, st))
		return -1;
	log_info("job: job %lld cancelled", (long long)job->id);
	return 0;
}

int job_request_cancel(struct db *db, sqlite3_int64 id, struct buf *err)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_cancel_queued);

	if (!st)
		goto dberr;
	sqlite3_bind_int64(st, 1, time(NULL));
	sqlite3_bind_int64(st, 2, id);
	if (db_step_done(db, st))
		goto dberr;
	if (sqlite3_changes(db->h))
		return 0;
	st = db_stmt(db, sql_job_cancel_running);
	if (!st)
		goto dberr;
	sqlite3_bind_int64(st, 1, id);
	if (db_step_done(db, st))
		goto dberr;
	if (sqlite3_changes(db->h))
		return 0;
	buf_addf(err, "job %lld is not queued or running", (long long)id);
	return -1;
dberr:
	buf_addf(err, "cannot cancel job %lld: %s", (long long)id, db_errmsg(db));
	return -1;
}

/* One of the retry statements on id (?2, if it has one: now); how many rows it changed. */
static int retry_stmt(struct db *db, const char *sql, sqlite3_int64 id, int *changed)
{
	sqlite3_stmt *st = db_stmt(db, sql);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, time(NULL));
	if (db_step_done(db, st))
		return -1;
	*changed = sqlite3_changes(db->h);
	return 0;
}

int job_retry(struct db *db, sqlite3_int64 id, struct buf *err)
{
	sqlite3_stmt *st;
	int changed = 0, rc;

	if (retry_stmt(db, sql_job_retry_done, id, &changed))
		goto dberr;
	if (!changed && retry_stmt(db, sql_job_retry_queued, id, &changed))
		goto dberr;
	if (changed) {
		db_wake_after_commit(db, WAKE_JOBS);
		log_info("job: job %lld queued again by an operator", (long long)id);
		return 0;
	}
	st = db_stmt(db, sql_job_state_of);
	if (!st)
		goto dberr;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		buf_addf(err, "no job %lld", (long long)id);
	else if (!strcmp(db_col_text(st, 0), "done"))
		buf_addf(err, "job %lld ended '%s': only an infra-error is tried again"
			 " (bugbridge job add queues a new run)", (long long)id, db_col_text(st, 1));
	else if (!strcmp(db_col_text(st, 0), "queued"))
		buf_addf(err, "job %lld is queued and due already", (long long)id);
	else
		buf_addf(err, "job %lld is %s", (long long)id, db_col_text(st, 0));
	sqlite3_reset(st);
	return -1;
dberr:
	buf_addf(err, "cannot retry job %lld: %s", (long long)id, db_errmsg(db));
	return -1;
}
