/*
 * job_record: the one loader of a finished (or any) job.  See job_record.h.
 *
 * One statement reads the job row with its candidate (the patch text only
 * when asked: the CASE keeps SQLite from copying it out), then one per
 * part the caller wants.  Every string is copied, so the statements are
 * reset before the record is used and may be reused by the caller.
 */
#include "job_record.h"
#include "job_logs.h"
#include "log.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

DB_SQL(sql_jr_job,
       "SELECT j.bug_id, j.candidate_id, j.parent_id, j.kind, j.base, j.patch_count,"
       " j.with_baseline, j.state, j.stage, j.progress, j.runner, j.attempts, j.cancel,"
       " j.reported, j.verdict, j.change, j.verdict_detail, j.accel, j.kernel_version,"
       " j.log_dir, j.created_at, j.started_at, j.finished_at, IFNULL(c.name, ''),"
       " IFNULL(c.kind, ''), IFNULL(c.sha256, ''), IFNULL(c.patch_count, 0),"
       " CASE WHEN ?2 THEN c.content END, j.reach, IFNULL(j.reach_changed, 0),"
       " IFNULL(j.reach_reached, 0), j.fault, j.base_reason, j.purpose,"
       " j.boot_args, j.account, j.lane, j.not_before, j.held"
       " FROM jobs j LEFT JOIN candidates c ON c.id = j.candidate_id WHERE j.id = ?1");
DB_SQL(sql_jr_stages,
       "SELECT attempt, variant, stage, started_at, finished_at, status, detail"
       " FROM job_stages WHERE job_id = ? ORDER BY id");
DB_SQL(sql_jr_tests,
       "SELECT id, variant, name, status, runs, failures, diagnostics, change"
       " FROM test_results WHERE job_id = ? ORDER BY variant DESC, name");
DB_SQL(sql_jr_lava,
       "SELECT attempt, ifnull(lava_id, 0), variant, boot, state, url, health, device, outcome"
       " FROM lava_jobs WHERE job_id = ? ORDER BY id");
DB_SQL(sql_jr_sigs,
       "SELECT variant, kind, title, frames, hash FROM signatures WHERE job_id = ?"
       " ORDER BY variant DESC, id");

/* A copy of a text column; NULL for SQL NULL. */
static char *col_str(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NULL;
	return xstrdup(db_col_text(st, col));
}

static char *col_dup(sqlite3_stmt *st, int col)
{
	return xstrdup(db_col_text(st, col));
}

static void fill_candidate(sqlite3_stmt *st, bool content, struct job_record_candidate *c)
{
	c->name = col_dup(st, 23);
	c->kind = col_dup(st, 24);
	c->sha256 = col_dup(st, 25);
	c->patch_count = sqlite3_column_int(st, 26);
	if (content) {
		const void *blob = sqlite3_column_blob(st, 27);

		c->content_len = (size_t)sqlite3_column_bytes(st, 27);
		c->content = xmalloc(c->content_len + 1);
		if (c->content_len)
			memcpy(c->content, blob, c->content_len);
		c->content[c->content_len] = '\0';
	}
}

static void fill_row(sqlite3_stmt *st, sqlite3_int64 id, struct job_record *rec)
{
	rec->id = id;
	rec->bug_id = sqlite3_column_int64(st, 0);
	rec->candidate_id = sqlite3_column_int64(st, 1);
	rec->parent_id = sqlite3_column_int64(st, 2);
	rec->kind = col_dup(st, 3);
	rec->base = col_dup(st, 4);
	rec->patch_count = sqlite3_column_int(st, 5);
	rec->with_baseline = sqlite3_column_int(st, 6) != 0;
	rec->state = col_dup(st, 7);
	rec->stage = col_str(st, 8);
	rec->progress = col_str(st, 9);
	rec->runner = col_str(st, 10);
	rec->attempts = sqlite3_column_int(st, 11);
	rec->cancel = sqlite3_column_int(st, 12) != 0;
	rec->reported = sqlite3_column_int(st, 13) != 0;
	rec->verdict = col_str(st, 14);
	rec->change = col_str(st, 15);
	rec->verdict_detail = col_str(st, 16);
	rec->accel = col_str(st, 17);
	rec->kernel_version = col_str(st, 18);
	rec->log_dir = col_str(st, 19);
	rec->created_at = sqlite3_column_int64(st, 20);
	rec->started_at = sqlite3_column_int64(st, 21);
	rec->finished_at = sqlite3_column_int64(st, 22);
	rec->reach = col_str(st, 28);
	rec->reach_changed = sqlite3_column_int(st, 29);
	rec->reach_reached = sqlite3_column_int(st, 30);
	/* rows written without a fault (by hand, in tests): what the verdict says */
	rec->fault = sqlite3_column_type(st, 31) == SQLITE_NULL ?
		fault_of_verdict(rec->verdict, rec->candidate_id != 0) :
		fault_parse(db_col_text(st, 31));
	rec->base_reason = col_str(st, 32);
	rec->purpose = col_dup(st, 33);
	rec->boot_args = col_str(st, 34);
	rec->account = col_dup(st, 35);
	rec->lane = sqlite3_column_int(st, 36);
	rec->not_before = sqlite3_column_int64(st, 37);
	rec->held = col_str(st, 38);
}

/* 1 loaded, 0 no such job, -1 error. */
static int load_row(struct db *db, sqlite3_int64 id, unsigned flags, struct job_record *rec)
{
	sqlite3_stmt *st = db_stmt(db, sql_jr_job);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, (flags & JOB_LOAD_CONTENT) != 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		fill_row(st, id, rec);
		fill_candidate(st, flags & JOB_LOAD_CONTENT, &rec->cand);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Step sql (the job id bound) to its end, appending one element of `size`
 * bytes per row to *v (of *n), filled by fill.
 */
static int load_rows(struct db *db, const char *sql, sqlite3_int64 id, size_t size,
		     void (*fill)(sqlite3_stmt *st, void *elem), void **v, int *n)
{
	sqlite3_stmt *st = db_stmt(db, sql);
	size_t alloc = 0;
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((size_t)*n + 1 > alloc) {
			alloc = alloc ? 2 * alloc : 8;
			*v = xreallocarray(*v, alloc, size);
		}
		fill(st, (char *)*v + (size_t)(*n)++ * size);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void fill_stage(sqlite3_stmt *st, void *elem)
{
	struct job_record_stage *s = elem;

	s->attempt = sqlite3_column_int(st, 0);
	s->variant = col_dup(st, 1);
	s->stage = col_dup(st, 2);
	s->started_at = sqlite3_column_double(st, 3);
	s->open = sqlite3_column_type(st, 4) == SQLITE_NULL;
	s->finished_at = sqlite3_column_double(st, 4);
	s->status = col_dup(st, 5);
	s->detail = col_str(st, 6);
}

static void fill_test(sqlite3_stmt *st, void *elem)
{
	struct job_record_test *t = elem;

	t->id = sqlite3_column_int64(st, 0);
	t->variant = col_dup(st, 1);
	t->name = col_dup(st, 2);
	t->status = col_dup(st, 3);
	t->runs = sqlite3_column_int(st, 4);
	t->failures = sqlite3_column_int(st, 5);
	t->diagnostics = col_dup(st, 6);
	t->change = col_str(st, 7);
}

static void fill_sig(sqlite3_stmt *st, void *elem)
{
	struct job_record_sig *s = elem;

	s->variant = col_dup(st, 0);
	s->kind = col_dup(st, 1);
	s->title = col_dup(st, 2);
	s->frames = col_dup(st, 3);
	s->hash = col_dup(st, 4);
}

static void fill_lava(sqlite3_stmt *st, void *elem)
{
	struct job_record_lava *l = elem;

	l->attempt = sqlite3_column_int(st, 0);
	l->lava_id = sqlite3_column_int64(st, 1);
	l->variant = col_dup(st, 2);
	l->boot = col_dup(st, 3);
	l->state = col_dup(st, 4);
	l->url = col_str(st, 5);
	l->health = col_str(st, 6);
	l->device = col_str(st, 7);
	l->outcome = col_str(st, 8);
}

/* The parts flags asks for; -1 on a database error (what was read stays, for release). */
static int load_parts(struct db *db, unsigned flags, struct job_record *rec)
{
	void *v;
	int ret = 0;

	if (flags & JOB_LOAD_STAGES) {
		v = NULL;
		ret |= load_rows(db, sql_jr_stages, rec->id, sizeof(*rec->stages), fill_stage,
				 &v, &rec->nstages);
		rec->stages = v;
	}
	if (!ret && (flags & JOB_LOAD_TESTS)) {
		v = NULL;
		ret |= load_rows(db, sql_jr_tests, rec->id, sizeof(*rec->tests), fill_test,
				 &v, &rec->ntests);
		rec->tests = v;
	}
	if (!ret && (flags & JOB_LOAD_SIGS)) {
		v = NULL;
		ret |= load_rows(db, sql_jr_sigs, rec->id, sizeof(*rec->sigs), fill_sig,
				 &v, &rec->nsigs);
		rec->sigs = v;
	}
	if (!ret && (flags & JOB_LOAD_LAVA)) {
		v = NULL;
		ret |= load_rows(db, sql_jr_lava, rec->id, sizeof(*rec->lava), fill_lava,
				 &v, &rec->nlava);
		rec->lava = v;
	}
	if (!ret && (flags & JOB_LOAD_LOGS))
		job_logs_list(rec->log_dir, &rec->logs, &rec->nlogs);
	return ret;
}

int job_record_load(struct db *db, sqlite3_int64 id, unsigned flags, struct job_record *rec)
{
	int rc = load_row(db, id, flags, rec);

	if (rc > 0 && load_parts(db, flags, rec))
		rc = -1;
	if (rc < 0) {
		job_record_release(rec);
		return error("job: cannot read job %lld: %s", (long long)id, db_errmsg(db));
	}
	return rc;
}

void job_record_release(struct job_record *rec)
{
	for (int i = 0; i < rec->nstages; i++) {
		struct job_record_stage *s = &rec->stages[i];

		free(s->variant);
		free(s->stage);
		free(s->status);
		free(s->detail);
	}
	for (int i = 0; i < rec->ntests; i++) {
		struct job_record_test *t = &rec->tests[i];

		free(t->variant);
		free(t->name);
		free(t->status);
		free(t->diagnostics);
		free(t->change);
	}
	for (int i = 0; i < rec->nsigs; i++) {
		struct job_record_sig *s = &rec->sigs[i];

		free(s->variant);
		free(s->kind);
		free(s->title);
		free(s->frames);
		free(s->hash);
	}
	for (int i = 0; i < rec->nlava; i++) {
		struct job_record_lava *l = &rec->lava[i];

		free(l->variant);
		free(l->boot);
		free(l->state);
		free(l->url);
		free(l->health);
		free(l->device);
		free(l->outcome);
	}
	free(rec->lava);
	free(rec->stages);
	free(rec->tests);
	free(rec->sigs);
	job_logs_free(rec->logs, rec->nlogs);
	free(rec->cand.name);
	free(rec->cand.kind);
	free(rec->cand.sha256);
	free(rec->cand.content);
	free(rec->kind);
	free(rec->base);
	free(rec->base_reason);
	free(rec->boot_args);
	free(rec->purpose);
	free(rec->state);
	free(rec->stage);
	free(rec->progress);
	free(rec->runner);
	free(rec->verdict);
	free(rec->change);
	free(rec->verdict_detail);
	free(rec->accel);
	free(rec->kernel_version);
	free(rec->log_dir);
	free(rec->reach);
	free(rec->account);
	free(rec->held);
	memset(rec, 0, sizeof(*rec));
}

bool job_record_not_reached(const struct job_record *rec)
{
	return rec->verdict && !strcmp(rec->verdict, "pass") && rec->reach &&
	       rec->reach_changed > 0 && rec->reach_reached == 0;
}

bool job_record_ran(const struct job_record *rec, const char *variant)
{
	for (int i = 0; i < rec->ntests; i++)
		if (!strcmp(rec->tests[i].variant, variant))
			return true;
	for (int i = 0; i < rec->nsigs; i++)
		if (!strcmp(rec->sigs[i].variant, variant))
			return true;
	return false;
}

bool job_record_failed(const struct job_record *rec, const char *variant)
{
	for (int i = 0; i < rec->ntests; i++)
		if (!strcmp(rec->tests[i].variant, variant) && !strcmp(rec->tests[i].status, "fail"))
			return true;
	for (int i = 0; i < rec->nsigs; i++)
		if (!strcmp(rec->sigs[i].variant, variant))
			return true;
	return false;
}

const char *job_lane_name(int lane)
{
	return lane == 0 ? "allowed" : lane == 2 ? "follow-up" : "first";
}

bool job_record_untested(const struct job_record *rec)
{
	return rec->verdict && !strcmp(rec->verdict, "untested");
}
