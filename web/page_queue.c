/*
 * page_queue: the job queue as the dashboard and API show it, with each
 * queued job's position and an estimated start and finish; /queue, the
 * whole queue with whose each job is and what it waits for, and each
 * account's use of the day's budget.
 *
 * The order is the runners' (JOB_CLAIM_ORDER, lib/job.h), jobs that wait
 * for a time (a retry delay, a budget's day) after the rest, by that time.
 *
 * The estimates are lib/estimate.h's, from the stage times measured on
 * this host (per base, the median of each step's last few runs), a job's
 * plan (full or incremental build, baseline cached or not) and, for a
 * running job, its own progress.  Queued jobs are dealt, in claim order,
 * to whichever of the runner slots frees up first (a waiting job no
 * earlier than its time); slots are [runner] parallel or the number of
 * jobs running now, whichever is larger.  The pages say what the estimates
 * stand on (est_basis).
 */
#include "config.h"
#include "estimate.h"
#include "html.h"
#include "job.h"
#include "job_budget.h"
#include "job_queue.h"
#include "job_record.h"
#include "xalloc.h"
#include "log.h"
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_queue_jobs,
       "SELECT j.id, ifnull(j.bug_id, 0), j.state, ifnull(j.stage, ''), j.kind,"
       " ifnull(j.started_at, j.created_at),"
       " j.purpose, j.account, j.lane, j.not_before, ifnull(j.held, '')"
       " FROM jobs j WHERE j.state IN ('running', 'queued')"
       " ORDER BY j.state = 'queued', CASE WHEN j.state = 'running' THEN j.started_at END,"
       " j.not_before > ?1, CASE WHEN j.not_before > ?1 THEN j.not_before END, "
       JOB_CLAIM_ORDER("j") " LIMIT 1000");
DB_SQL(sql_queue_accounts,
       "SELECT account, sum(budget_day = ?1 AND lane < 2 AND state <> 'cancelled'"
       "  AND ifnull(verdict, '') <> 'infra-error'),"
       " sum(state = 'queued' AND not_before <= ?2), sum(state = 'queued' AND not_before > ?2),"
       " sum(state = 'running')"
       " FROM jobs WHERE budget_day >= ?1 OR state IN ('queued', 'running')"
       " GROUP BY account ORDER BY account = '', account LIMIT 500");

/* lib/estimate.h over the queue, in its order; positions for the queued. */
static void estimate(struct db *db, struct queue *q, time_t now)
{
	struct est_job *v = xcalloc((size_t)q->n + 1, sizeof(*v));
	int nrunning = 0, position = 0;

	for (int i = 0; i < q->n; i++) {
		v[i].id = q->v[i].job_id;
		v[i].running = !strcmp(q->v[i].state, "running");
		v[i].not_before = q->v[i].not_before;
		nrunning += v[i].running;
	}
	q->slots = (int)cfg_int("runner.parallel");
	if (q->slots < nrunning)
		q->slots = nrunning;
	if (q->slots < 1)
		q->slots = 1;
	est_queue(db, &q->est, now, q->slots, v, q->n, &q->typical);
	for (int i = 0; i < q->n; i++) {
		struct queue_entry *e = &q->v[i];

		if (!v[i].running)
			e->position = ++position;
		e->est_start = v[i].start;
		e->est_finish = v[i].finish;
		e->done = v[i].done;
		e->total = v[i].total;
		e->overdue = v[i].overdue;
		snprintf(e->base, sizeof(e->base), "%s", v[i].base);
	}
	free(v);
}

/* Whose the job is and what it waits for (columns 6 on). */
static void fill_place(sqlite3_stmt *st, time_t now, struct queue_entry *e)
{
	snprintf(e->purpose, sizeof(e->purpose), "%s", db_col_text(st, 6));
	snprintf(e->account, sizeof(e->account), "%s", db_col_text(st, 7));
	e->lane = sqlite3_column_int(st, 8);
	e->not_before = (time_t)sqlite3_column_int64(st, 9);
	if (e->not_before <= now || strcmp(e->state, "queued"))
		e->not_before = 0;
	else
		snprintf(e->held, sizeof(e->held), "%s", db_col_text(st, 10));
}

int queue_load(struct db *db, time_t now, struct queue *q)
{
	sqlite3_stmt *st;
	int alloc = 0, rc, ret = -1;

	memset(q, 0, sizeof(*q));
	if (est_stats_load(db, &q->est))
		goto out;
	st = db_stmt(db, sql_queue_jobs);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, now);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct queue_entry *e;

		if (q->n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			q->v = xrealloc(q->v, (size_t)alloc * sizeof(*q->v));
		}
		e = &q->v[q->n];
		memset(e, 0, sizeof(*e));
		e->job_id = sqlite3_column_int64(st, 0);
		e->bug_id = sqlite3_column_int64(st, 1);
		snprintf(e->state, sizeof(e->state), "%s", db_col_text(st, 2));
		snprintf(e->stage, sizeof(e->stage), "%s", db_col_text(st, 3));
		snprintf(e->kind, sizeof(e->kind), "%s", db_col_text(st, 4));
		e->elapsed = (long)(now - sqlite3_column_int64(st, 5));
		fill_place(st, now, e);
		q->n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		error("http: cannot read the queue: %s", db_errmsg(db));
		goto out;
	}
	estimate(db, q, now);
	ret = 0;
out:
	if (ret)
		queue_release(q);
	return ret;
}

void queue_release(struct queue *q)
{
	free(q->v);
	est_stats_release(&q->est);
	memset(q, 0, sizeof(*q));
}

/* ---- each account's use ---- */

int queue_accounts_load(struct db *db, time_t now, struct queue_accounts *a)
{
	sqlite3_stmt *st = db_stmt(db, sql_queue_accounts);
	int rc, alloc = 0;

	memset(a, 0, sizeof(*a));
	budget_day_of((long)now, a->day);
	a->account_budget = cfg_int("queue.account_jobs_per_day");
	a->bug_budget = cfg_int("queue.bug_jobs_per_day");
	if (!st)
		return -1;
	db_bind_text(st, 1, a->day);
	sqlite3_bind_int64(st, 2, now);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct queue_account *u;

		if (a->n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			a->v = xrealloc(a->v, (size_t)alloc * sizeof(*a->v));
		}
		u = &a->v[a->n++];
		snprintf(u->account, sizeof(u->account), "%s", db_col_text(st, 0));
		u->today = sqlite3_column_int(st, 1);
		u->queued = sqlite3_column_int(st, 2);
		u->waiting = sqlite3_column_int(st, 3);
		u->running = sqlite3_column_int(st, 4);
		u->limited = *u->account && a->account_budget > 0 &&
			     !job_account_allowed(u->account);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		queue_accounts_release(a);
		return error("http: cannot read the accounts' use: %s", db_errmsg(db));
	}
	return 0;
}

void queue_accounts_release(struct queue_accounts *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ---- /queue ---- */

static void account_cell(struct buf *out, const char *account)
{
	if (*account)
		html_txt(out, account);
	else
		buf_addstr(out, "<em>the operator</em>");
}

/* What a queued job waits for, or where it stands. */
static void job_state(struct buf *out, const struct queue_entry *e, time_t now)
{
	if (!strcmp(e->state, "running")) {
		buf_addstr(out, "running: ");
		html_txt(out, *e->stage ? e->stage : "starting");
		buf_addstr(out, ", ");
		page_duration(out, e->elapsed);
		return;
	}
	buf_addf(out, "queued #%d", e->position);
	if (!e->not_before)
		return;
	buf_addstr(out, e->held[0] ? ", held until " : ", next try at ");
	page_time(out, e->not_before);
	buf_addstr(out, " (in ");
	page_duration(out, (long)(e->not_before - now));
	buf_addch(out, ')');
	if (e->held[0]) {
		buf_addstr(out, ": ");
		html_txt(out, e->held);
	}
}

static void jobs_table(struct buf *out, const struct queue *q, time_t now)
{
	buf_addstr(out, "<section>\n<h2>Jobs</h2>\n<table>\n<thead><tr><th>Job</th><th>Bug</th>"
		   "<th>Kind</th><th>For</th><th>Lane</th><th>State</th>"
		   "<th>Estimated finish</th></tr></thead>\n<tbody>\n");
	for (int i = 0; i < q->n; i++) {
		const struct queue_entry *e = &q->v[i];

		buf_addf(out, "<tr><td><a href=\"/job/%lld\">%lld</a></td><td>",
			 (long long)e->job_id, (long long)e->job_id);
		if (e->bug_id)
			page_bug_link(out, e->bug_id);
		buf_addstr(out, "</td><td>");
		html_txt(out, *e->purpose ? e->purpose : e->kind);
		buf_addstr(out, "</td><td>");
		account_cell(out, e->account);
		buf_addstr(out, "</td><td>");
		html_txt(out, job_lane_name(e->lane));
		buf_addstr(out, "</td><td>");
		job_state(out, e, now);
		buf_addstr(out, "</td><td>");
		if (e->est_finish) {
			buf_addstr(out, "~");
			page_time(out, e->est_finish);
		}
		buf_addstr(out, "</td></tr>\n");
	}
	if (!q->n)
		buf_addstr(out, "<tr><td colspan=\"7\">The queue is empty.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
}

static void accounts_table(struct buf *out, const struct queue_accounts *a)
{
	buf_addf(out, "<section>\n<h2>Use by account, %s (UTC)</h2>\n<table>\n<thead><tr>"
		 "<th>Account</th><th class=\"num\">Today</th><th class=\"num\">Queued</th>"
		 "<th class=\"num\">Waiting</th><th class=\"num\">Running</th></tr></thead>\n"
		 "<tbody>\n", a->day);
	for (int i = 0; i < a->n; i++) {
		const struct queue_account *u = &a->v[i];

		buf_addstr(out, "<tr><td>");
		account_cell(out, u->account);
		buf_addf(out, "</td><td class=\"num\">%d", u->today);
		if (u->limited)
			buf_addf(out, " of %ld", a->account_budget);
		buf_addf(out, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
			 "<td class=\"num\">%d</td></tr>\n", u->queued, u->waiting, u->running);
	}
	if (!a->n)
		buf_addstr(out, "<tr><td colspan=\"5\">No jobs today.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
}

static void budgets_note(struct buf *out, const struct queue_accounts *a)
{
	buf_addstr(out, "<p class=\"note\">Runners take first verdicts before follow-up work"
		   " (re-runs, back-tests, bisection steps), accounts in [triage] allow_commands"
		   " first, and among the others the account whose last job started longest ago."
		   " Budgets per UTC day: ");
	if (a->account_budget > 0)
		buf_addf(out, "%ld first verdicts per account (allow_commands accounts and the"
			 " operator are not limited)", a->account_budget);
	else
		buf_addstr(out, "none per account");
	if (a->bug_budget > 0)
		buf_addf(out, ", %ld jobs per bug, follow-up work included", a->bug_budget);
	buf_addstr(out, "; a job over budget waits for the next day with room.</p>\n");
}

int page_queue(struct http_request *req, struct http_response *resp)
{
	struct buf *out = &resp->body;
	time_t now = time(NULL);
	struct queue_accounts a;
	struct queue q;

	if (queue_load(req->db, now, &q))
		return -1;
	if (queue_accounts_load(req->db, now, &a)) {
		queue_release(&q);
		return -1;
	}
	page_begin(out, "Queue", 60);
	buf_addstr(out, "<h1>Queue</h1>\n");
	budgets_note(out, &a);
	jobs_table(out, &q, now);
	accounts_table(out, &a);
	page_end(out);
	queue_accounts_release(&a);
	queue_release(&q);
	return 0;
}
