/*
 * job_queue: insert queued jobs.  See job_queue.h.
 */
#include "job_queue.h"
#include "config.h"
#include "log.h"
#include "wake.h"

DB_SQL(sql_job_enqueue,
       "INSERT INTO jobs (bug_id, candidate_id, parent_id, kind, base, patch_count,"
       " with_baseline, state) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued')");

static void bind_id(sqlite3_stmt *st, int idx, sqlite3_int64 id)
{
	if (id)
		sqlite3_bind_int64(st, idx, id);
	else
		sqlite3_bind_null(st, idx);
}

int job_enqueue(struct db *db, const struct job_spec *spec, sqlite3_int64 *id)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_enqueue);

	if (!st)
		return -1;
	bind_id(st, 1, spec->bug_id);
	bind_id(st, 2, spec->candidate_id);
	bind_id(st, 3, spec->parent_id);
	db_bind_text(st, 4, spec->kind ? spec->kind : "test");
	db_bind_text(st, 5, spec->base ? spec->base : cfg_str("runner.base"));
	sqlite3_bind_int(st, 6, spec->patch_count);
	sqlite3_bind_int(st, 7, spec->with_baseline);
	if (db_step_done(db, st))
		return error("job: cannot queue job for bug %lld", (long long)spec->bug_id);
	if (id)
		*id = db_last_id(db);
	db_wake_after_commit(db, WAKE_JOBS);
	log_info("job: queued job %lld for bug %lld", (long long)db_last_id(db),
		 (long long)spec->bug_id);
	return 0;
}
