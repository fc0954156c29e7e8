/*
 * page_queue: the job queue as the dashboard and API show it, with each
 * queued job's position and an estimated start and finish.
 *
 * The estimate comes from recent stage durations (the last few hundred
 * finished stages): a job is expected to take the sum of the average
 * duration of each stage, twice that if it also runs the baseline.  A
 * running job has left the average of its current stage minus the time
 * already spent in it, plus the stages after it.  Queued jobs are then
 * dealt, in claim order (by id), to whichever of the runner slots frees up
 * first; slots are [runner] parallel or the number of jobs running now,
 * whichever is larger.  It is an estimate: the page says so.
 */
#include "config.h"
#include "xalloc.h"
#include "log.h"
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stage_order[] = {
	"prepare", "apply", "configure", "build", "boot", "test", "report",
};
#define NSTAGES (int)(sizeof(stage_order) / sizeof(stage_order[0]))

DB_SQL(sql_queue_stage_avg,
       "SELECT stage, avg(finished_at - started_at) FROM"
       " (SELECT stage, started_at, finished_at FROM job_stages"
       "  WHERE status = 'ok' AND finished_at IS NOT NULL AND variant = 'patched'"
       "  ORDER BY id DESC LIMIT 300)"
       " GROUP BY stage");
DB_SQL(sql_queue_jobs,
       "SELECT j.id, ifnull(j.bug_id, 0), j.state, ifnull(j.stage, ''), j.kind,"
       " ifnull(j.started_at, j.created_at), j.with_baseline,"
       " (SELECT started_at FROM job_stages s WHERE s.job_id = j.id"
       "   AND s.finished_at IS NULL ORDER BY s.id DESC LIMIT 1)"
       " FROM jobs j WHERE j.state IN ('running', 'queued')"
       " ORDER BY j.state = 'queued', j.started_at, j.id LIMIT 1000");

static int stage_index(const char *stage)
{
	for (int i = 0; i < NSTAGES; i++)
		if (!strcmp(stage, stage_order[i]))
			return i;
	return -1;
}

static int load_averages(struct db *db, double avg[NSTAGES])
{
	sqlite3_stmt *st = db_stmt(db, sql_queue_stage_avg);
	int rc;

	memset(avg, 0, NSTAGES * sizeof(avg[0]));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int i = stage_index(db_col_text(st, 0));

		if (i >= 0)
			avg[i] = sqlite3_column_double(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Seconds a running job still needs, by the averages. */
static long remaining(const double avg[NSTAGES], const char *stage, double in_stage)
{
	int cur = stage_index(stage);
	double left = 0;

	if (cur < 0)
		cur = 0;
	left = avg[cur] > in_stage ? avg[cur] - in_stage : 0;
	for (int i = cur + 1; i < NSTAGES; i++)
		left += avg[i];
	return (long)left;
}

static int earliest_slot(const time_t *free_at, int n)
{
	int best = 0;

	for (int i = 1; i < n; i++)
		if (free_at[i] < free_at[best])
			best = i;
	return best;
}

static void estimate(struct queue *q, const double avg[NSTAGES], const int *baseline,
		     const double *in_stage, time_t now)
{
	time_t *free_at;
	int nrunning = 0, slot = 0, position = 0;

	for (int i = 0; i < NSTAGES; i++)
		q->typical += (long)avg[i];
	for (int i = 0; i < q->n; i++)
		nrunning += !strcmp(q->v[i].state, "running");
	q->slots = (int)cfg_int("runner.parallel");
	if (q->slots < nrunning)
		q->slots = nrunning;
	if (q->slots < 1)
		q->slots = 1;
	free_at = xcalloc((size_t)q->slots, sizeof(*free_at));
	for (int i = 0; i < q->slots; i++)
		free_at[i] = now;
	for (int i = 0; i < q->n; i++) {
		struct queue_entry *e = &q->v[i];

		if (!strcmp(e->state, "running")) {
			if (q->typical) {
				e->est_finish = now + remaining(avg, e->stage, in_stage[i]);
				free_at[slot++] = e->est_finish;
			}
			continue;
		}
		e->position = ++position;
		if (!q->typical)
			continue;
		slot = earliest_slot(free_at, q->slots);
		e->est_start = free_at[slot] > now ? free_at[slot] : now;
		e->est_finish = e->est_start + q->typical * (baseline[i] ? 2 : 1);
		free_at[slot] = e->est_finish;
	}
	free(free_at);
}

int queue_load(struct db *db, time_t now, struct queue *q)
{
	sqlite3_stmt *st;
	double avg[NSTAGES], *in_stage = NULL;
	int *baseline = NULL, alloc = 0, rc, ret = -1;

	memset(q, 0, sizeof(*q));
	if (load_averages(db, avg))
		goto out;
	st = db_stmt(db, sql_queue_jobs);
	if (!st)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct queue_entry *e;

		if (q->n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			q->v = xrealloc(q->v, (size_t)alloc * sizeof(*q->v));
			baseline = xrealloc(baseline, (size_t)alloc * sizeof(*baseline));
			in_stage = xrealloc(in_stage, (size_t)alloc * sizeof(*in_stage));
		}
		e = &q->v[q->n];
		memset(e, 0, sizeof(*e));
		e->job_id = sqlite3_column_int64(st, 0);
		e->bug_id = sqlite3_column_int64(st, 1);
		snprintf(e->state, sizeof(e->state), "%s", db_col_text(st, 2));
		snprintf(e->stage, sizeof(e->stage), "%s", db_col_text(st, 3));
		snprintf(e->kind, sizeof(e->kind), "%s", db_col_text(st, 4));
		e->elapsed = (long)(now - sqlite3_column_int64(st, 5));
		baseline[q->n] = sqlite3_column_int(st, 6);
		in_stage[q->n] = sqlite3_column_type(st, 7) == SQLITE_NULL ? (double)e->elapsed :
			(double)now - sqlite3_column_double(st, 7);
		q->n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		error("http: cannot read the queue: %s", db_errmsg(db));
		goto out;
	}
	estimate(q, avg, baseline, in_stage, now);
	ret = 0;
out:
	free(baseline);
	free(in_stage);
	if (ret)
		queue_release(q);
	return ret;
}

void queue_release(struct queue *q)
{
	free(q->v);
	memset(q, 0, sizeof(*q));
}
