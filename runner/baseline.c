/*
 * baseline: the unpatched base's results, cached.
 *
 * The base with the same config, harness, suite, scenarios and re-run
 * count gives the same results, so a job with a baseline first looks in
 * baseline_runs under r->suite_key (keys.c hashes all of those):
 * a row younger than [runner] baseline_max_age hands over its verdict and
 * the test_results rows (variant 'baseline') of the job that ran it, and
 * that job costs one build less and one boot less.  A key that changed, or
 * a row too old, means the base runs again and its results replace it.
 */
#include "run.h"
#include "boot.h"
#include "verdict.h"
#include "buf.h"
#include "db.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <string.h>

DB_SQL(sql_baseline_get,
       "SELECT job_id, verdict, detail FROM baseline_runs WHERE key = ?"
       " AND created_at >= CAST(strftime('%s', 'now') AS INTEGER) - ?");
DB_SQL(sql_baseline_tests,
       "SELECT name, status, runs, failures, diagnostics FROM test_results"
       " WHERE job_id = ? AND variant = 'baseline' ORDER BY id");
DB_SQL(sql_baseline_put,
       "INSERT OR REPLACE INTO baseline_runs (key, job_id, verdict, detail) VALUES (?, ?, ?, ?)");

static void add_test(struct variant *v, sqlite3_stmt *st)
{
	struct vtest *t;

	v->tests = xrealloc(v->tests, (v->ntests + 1) * sizeof(*v->tests));
	t = &v->tests[v->ntests++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(db_col_text(st, 0));
	t->status = xstrdup(db_col_text(st, 1));
	t->runs = sqlite3_column_int(st, 2);
	t->failures = sqlite3_column_int(st, 3);
	t->diag = xstrdup(db_col_text(st, 4));
}

bool baseline_from_cache(struct run *r, struct variant *v)
{
	sqlite3_stmt *st = db_stmt(r->db, sql_baseline_get);
	long long max_age = cfg_int("runner.baseline_max_age");
	sqlite3_int64 job_id;

	if (!st || max_age <= 0)
		return false;
	db_bind_text(st, 1, r->suite_key);
	sqlite3_bind_int64(st, 2, max_age);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return false;
	}
	job_id = sqlite3_column_int64(st, 0);
	v->verdict = !strcmp(db_col_text(st, 1), "pass") ? "pass" : "fail";
	buf_reset(&v->detail);
	buf_addstr(&v->detail, db_col_text(st, 2));
	sqlite3_reset(st);
	st = db_stmt(r->db, sql_baseline_tests);
	if (!st)
		return false;
	sqlite3_bind_int64(st, 1, job_id);
	while (sqlite3_step(st) == SQLITE_ROW)
		add_test(v, st);
	sqlite3_reset(st);
	v->from_cache = true;
	log_info("runner: baseline results from job %lld (same base, config and suite)",
		 (long long)job_id);
	return true;
}

void baseline_remember(struct run *r, const struct variant *v)
{
	sqlite3_stmt *st = db_stmt(r->db, sql_baseline_put);

	if (!st)
		return;
	db_bind_text(st, 1, r->suite_key);
	sqlite3_bind_int64(st, 2, r->job->id);
	db_bind_text(st, 3, v->verdict);
	db_bind_text(st, 4, v->detail.ptr);
	db_step_done(r->db, st);
}
