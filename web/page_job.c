/*
 * page_job: "/job/<id>", one job: what it tests, its state and verdict, the
 * stages with durations, the test cases and failure signatures, and its
 * logs.  While the job is queued or running the page refreshes itself
 * every few seconds (a meta refresh: no JavaScript needed).
 *
 * "/job/<id>/<name>.log" serves a log from the job's log_dir as plain text,
 * for a job this request may see (a private bug's only with the token).
 * The name is checked against job_logs.h's strict pattern (which also
 * decides what the page and the JSON list); bugbridged opens it (this
 * process opens no file: privsep.h) relative to the log directory with
 * O_NOFOLLOW, and it must be a regular file: a symlink planted in a log
 * directory leads nowhere.
 */
#include "html.h"
#include "xalloc.h"
#include "job_logs.h"
#include "log.h"
#include "page.h"
#include "privsep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REFRESH_SECONDS 5

DB_SQL(sql_job_get,
       "SELECT ifnull(j.bug_id, 0), j.kind, j.base, j.state, j.stage, j.progress, j.runner,"
       " j.attempts, j.verdict, j.change, j.verdict_detail, j.accel, j.kernel_version,"
       " j.log_dir, j.created_at, j.started_at, j.finished_at, j.candidate_id,"
       " j.with_baseline, j.patch_count, ifnull(c.name, ''), ifnull(b.summary, ''),"
       " ifnull(j.reach, ''), j.verdict = 'pass' AND j.reach_changed > 0 AND j.reach_reached = 0,"
       " ifnull(j.base_reason, ''), j.purpose, ifnull(j.parent_id, 0)"
       " FROM jobs j LEFT JOIN candidates c ON c.id = j.candidate_id"
       " LEFT JOIN bugs b ON b.id = j.bug_id WHERE j.id = ?");
DB_SQL(sql_job_stages,
       "SELECT attempt, variant, stage, started_at, finished_at, status, ifnull(detail, '')"
       " FROM job_stages WHERE job_id = ? ORDER BY id");
DB_SQL(sql_job_lava,
       "SELECT attempt, variant, boot, ifnull(lava_id, 0), ifnull(url, ''), state,"
       " ifnull(health, ''), ifnull(device, ''), ifnull(outcome, '')"
       " FROM lava_jobs WHERE job_id = ? ORDER BY id");
DB_SQL(sql_job_visible, "SELECT 1 FROM jobs WHERE id = ?");

/* Is job id there for this request (on the public connection: is it public)? */
static bool job_visible(struct db *db, sqlite3_int64 id)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_visible);
	bool yes = false;

	if (st) {
		sqlite3_bind_int64(st, 1, id);
		yes = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
	}
	return yes;
}

static int serve_log(struct http_request *req, struct http_response *resp,
		     sqlite3_int64 id, const char *name)
{
	struct ps_msg m = { .type = PS_LOG_OPEN, .job_id = id };
	struct ps_reply *r;
	int fd, ret;

	if (!job_log_name_ok(name) || strlen(name) >= sizeof(m.name))
		return http_error(resp, 404, "no such log");
	/* a job this request may not see (a private bug's) has no logs either */
	if (!job_visible(req->db, id))
		return http_error(resp, 404, "no job %lld", (long long)id);
	memcpy(m.name, name, strlen(name) + 1);
	r = xmalloc(sizeof(*r));
	if (privsep_call(&m, r, &fd)) {
		free(r);
		return -1;
	}
	if (r->status != 200 || fd < 0) {
		ret = http_error(resp, r->status == 200 ? 500 : 404, "%s", r->text);
		if (fd >= 0)
			close(fd);
		free(r);
		return ret;
	}
	resp->fd = fd;
	resp->fd_size = (size_t)r->size;
	resp->content_type = "text/plain; charset=utf-8";
	free(r);
	return 0;
}

/* The .log files present in the job's log directory, as links. */
static void log_links(struct buf *out, sqlite3_int64 id)
{
	char **names;
	int n;

	if (privsep_log_list(id, &names, &n))
		log_warn("http: job %lld: its logs are not listed", (long long)id);
	buf_addstr(out, "<section>\n<h2>Logs</h2>\n<ul class=\"logs\">\n");
	for (int i = 0; i < n; i++) {
		buf_addf(out, "<li><a href=\"/job/%lld/", (long long)id);
		html_url_arg(out, names[i]);
		buf_addstr(out, "\">");
		html_txt(out, names[i]);
		buf_addstr(out, "</a></li>\n");
	}
	if (!n)
		buf_addstr(out, "<li>No logs yet.</li>\n");
	buf_addstr(out, "</ul>\n</section>\n");
	job_logs_free(names, n);
}

static void fact(struct buf *out, const char *name, const char *value)
{
	if (!*value)
		return;
	buf_addstr(out, "<tr><th>");
	buf_addstr(out, name);
	buf_addstr(out, "</th><td>");
	html_txt(out, value);
	buf_addstr(out, "</td></tr>\n");
}

static void time_fact(struct buf *out, const char *name, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	buf_addstr(out, "<tr><th>");
	buf_addstr(out, name);
	buf_addstr(out, "</th><td>");
	page_time(out, (time_t)sqlite3_column_int64(st, col));
	buf_addstr(out, "</td></tr>\n");
}

/* The kernel the job builds on, and why it got that one (base_reason). */
static void base_fact(struct buf *out, sqlite3_stmt *st)
{
	buf_addstr(out, "<tr><th>Base</th><td>");
	html_txt(out, db_col_text(st, 2));
	if (*db_col_text(st, 24)) {
		buf_addstr(out, " <span class=\"note\">(why: ");
		html_txt(out, db_col_text(st, 24));
		buf_addstr(out, ")</span>");
	}
	buf_addstr(out, "</td></tr>\n");
}

static void facts(struct buf *out, sqlite3_stmt *st, sqlite3_int64 id, time_t now)
{
	sqlite3_int64 bug = sqlite3_column_int64(st, 0), cand = sqlite3_column_int64(st, 17);
	const char *state = db_col_text(st, 3);

	buf_addf(out, "<h1>Job %lld ", (long long)id);
	page_verdict(out, db_col_text(st, 8));
	if (sqlite3_column_int(st, 23))	/* the pass never ran the patch: say so */
		buf_addstr(out, " (not reached)");
	if (!strcmp(db_col_text(st, 8), "untested"))	/* never a pass, nor a failure */
		buf_addstr(out, " <span class=\"note\">(no test judged this patch: the kernel could"
			   " not be built with the code it changes; see Detail)</span>");
	buf_addstr(out, "</h1>\n<table class=\"facts\">\n");
	if (bug) {
		buf_addstr(out, "<tr><th>Bug</th><td>");
		page_bug_link(out, bug);
		buf_addstr(out, " ");
		html_txt_cut(out, db_col_text(st, 21), 120);
		buf_addstr(out, "</td></tr>\n");
	}
	if (cand) {
		buf_addf(out, "<tr><th>Candidate</th><td><a href=\"/bug/%lld#candidate-%lld\">#%lld</a> ",
			 (long long)bug, (long long)cand, (long long)cand);
		html_txt(out, db_col_text(st, 20));
		buf_addstr(out, "</td></tr>\n");
	}
	fact(out, "Kind", db_col_text(st, 1));
	if (*db_col_text(st, 25)) {	/* a back-test or a release step: its root */
		buf_addf(out, "<tr><th>Part of</th><td>%s of <a href=\"/job/%lld\">job %lld</a>"
			 "</td></tr>\n", strcmp(db_col_text(st, 25), "backtest") ? "release bisection"
			 : "back-test", (long long)sqlite3_column_int64(st, 26),
			 (long long)sqlite3_column_int64(st, 26));
	}
	base_fact(out, st);
	buf_addstr(out, "<tr><th>State</th><td>");
	html_txt(out, state);
	if (!strcmp(state, "running")) {
		buf_addstr(out, " \xe2\x80\x94 ");
		html_txt(out, *db_col_text(st, 4) ? db_col_text(st, 4) : "starting");
		if (sqlite3_column_type(st, 15) != SQLITE_NULL) {
			buf_addstr(out, ", ");
			page_duration(out, (long)(now - sqlite3_column_int64(st, 15)));
			buf_addstr(out, " elapsed");
		}
	}
	buf_addstr(out, "</td></tr>\n");
	fact(out, "Progress", db_col_text(st, 5));
	fact(out, "Runner", db_col_text(st, 6));
	if (!strcmp(state, "running"))
		buf_addf(out, "<tr><th>Attempt</th><td>%d (running)</td></tr>\n",
			 sqlite3_column_int(st, 7) + 1);
	else
		buf_addf(out, "<tr><th>Attempts</th><td>%d</td></tr>\n", sqlite3_column_int(st, 7));
	fact(out, "Change", db_col_text(st, 9));
	fact(out, "Detail", db_col_text(st, 10));
	fact(out, "Reach", db_col_text(st, 22));
	fact(out, "Acceleration", db_col_text(st, 11));
	fact(out, "Kernel", db_col_text(st, 12));
	if (sqlite3_column_int(st, 18))
		fact(out, "Baseline", "also runs the unpatched base");
	if (sqlite3_column_int(st, 19))
		buf_addf(out, "<tr><th>Patches</th><td>first %d</td></tr>\n",
			 sqlite3_column_int(st, 19));
	time_fact(out, "Queued", st, 14);
	time_fact(out, "Started", st, 15);
	time_fact(out, "Finished", st, 16);
	buf_addstr(out, "</table>\n");
	buf_addf(out, "<p class=\"note\"><a href=\"/api/jobs/%lld\">JSON</a>", (long long)id);
	if (!strcmp(state, "done"))
		buf_addf(out, " \xc2\xb7 <a href=\"/api/jobs/%lld/kcidb\">KCIDB</a>", (long long)id);
	buf_addstr(out, "</p>\n");
}

static int stages(struct db *db, sqlite3_int64 id, struct buf *out, double now)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_stages);
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Stages</h2>\n<table>\n<thead><tr><th>Attempt</th><th>Variant</th>"
		   "<th>Stage</th><th>Started</th><th class=\"num\">Duration</th><th>Status</th>"
		   "<th>Detail</th></tr></thead>\n<tbody>\n");
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double start = sqlite3_column_double(st, 3);
		bool open = sqlite3_column_type(st, 4) == SQLITE_NULL;
		double end = open ? now : sqlite3_column_double(st, 4);

		buf_addf(out, "<tr><td class=\"num\">%d</td><td>", sqlite3_column_int(st, 0));
		html_txt(out, db_col_text(st, 1));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 2));
		buf_addstr(out, "</td><td>");
		page_time(out, (time_t)start);
		buf_addstr(out, "</td><td class=\"num\">");
		page_duration(out, (long)(end - start));
		if (open)
			buf_addstr(out, " so far");
		buf_addstr(out, "</td><td><span class=\"state s-");
		html_attr(out, db_col_text(st, 5));
		buf_addstr(out, "\">");
		html_txt(out, db_col_text(st, 5));
		buf_addstr(out, "</span></td><td>");
		html_txt_cut(out, db_col_text(st, 6), 300);
		buf_addstr(out, "</td></tr>\n");
		n++;
	}
	sqlite3_reset(st);
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"7\">Not started.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

/* A link to a LAVA job's page; only http(s) URLs become links. */
static void lava_link(struct buf *out, long long lava_id, const char *url)
{
	if (!lava_id) {
		buf_addstr(out, "not submitted yet");
		return;
	}
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		buf_addf(out, "LAVA job %lld", lava_id);
		return;
	}
	buf_addstr(out, "<a href=\"");
	html_attr(out, url);
	buf_addf(out, "\">LAVA job %lld</a>", lava_id);
}

/* The boots that ran in a LAVA lab ([runner] backend = lava), if any. */
static int lava_jobs(struct db *db, sqlite3_int64 id, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_lava);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!n++)
			buf_addstr(out, "<section>\n<h2>LAVA jobs</h2>\n<table class=\"lava\">\n"
				   "<thead><tr><th>Attempt</th><th>Variant</th><th>Boot</th>"
				   "<th>LAVA job</th><th>State</th><th>Device</th><th>Outcome</th>"
				   "</tr></thead>\n<tbody>\n");
		buf_addf(out, "<tr><td class=\"num\">%d</td><td>", sqlite3_column_int(st, 0));
		html_txt(out, db_col_text(st, 1));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 2));
		buf_addstr(out, "</td><td>");
		lava_link(out, sqlite3_column_int64(st, 3), db_col_text(st, 4));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 5));
		if (*db_col_text(st, 6)) {
			buf_addstr(out, ", ");
			html_txt(out, db_col_text(st, 6));
		}
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 7));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 8));
		buf_addstr(out, "</td></tr>\n");
	}
	sqlite3_reset(st);
	if (n)
		buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

static int tests(struct db *db, sqlite3_int64 id, struct buf *out)
{
	int n, ret;

	buf_addstr(out, "<section>\n<h2>Test cases</h2>\n");
	page_tests_head(out);
	ret = page_tests_rows(db, id, 1000, out, &n);
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"7\">No test results yet.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return ret;
}

static int signatures(struct db *db, sqlite3_int64 id, struct buf *out)
{
	struct buf items = BUF_INIT;
	int n, ret = page_signature_items(db, id, true, &items, &n);

	if (n) {
		buf_addstr(out, "<section>\n<h2>Failure signatures</h2>\n<ul class=\"signatures\">\n");
		buf_add(out, items.ptr, items.len);
		buf_addstr(out, "</ul>\n</section>\n");
	}
	buf_release(&items);
	return ret;
}

/* " Position 2 in the queue.  Estimated start ~..., finish ~... (from ...)." */
static void estimate_note(struct buf *out, const struct queue *q, const struct queue_entry *e,
			  time_t now)
{
	struct buf basis = BUF_INIT;

	est_basis(&q->est, e->base, &basis);
	if (!e->est_finish) {
		buf_addstr(out, " No estimate: ");
		html_txt(out, basis.ptr);
		buf_addstr(out, ".");
		goto out;
	}
	if (e->position) {
		buf_addstr(out, " Estimated start ~");
		page_time(out, e->est_start);
		buf_addstr(out, ",");
	}
	buf_addstr(out, e->position ? " estimated finish ~" : " Estimated finish ~");
	page_time(out, e->est_finish);
	buf_addstr(out, " (in ");
	page_duration(out, (long)(e->est_finish - now));
	if (e->total)
		buf_addf(out, "; its build: %d of %d objects compiled", e->done, e->total);
	if (e->overdue)
		buf_addstr(out, "; its current step runs longer than usual");
	buf_addstr(out, "; ");
	html_txt(out, basis.ptr);
	buf_addstr(out, ").");
out:
	buf_release(&basis);
}

static int queue_note(struct db *db, struct buf *out, sqlite3_int64 id, time_t now)
{
	struct queue q;

	if (queue_load(db, now, &q))
		return -1;
	for (int i = 0; i < q.n; i++) {
		const struct queue_entry *e = &q.v[i];

		if (e->job_id != id)
			continue;
		if (e->position)
			buf_addf(out, " Position %d in the queue.", e->position);
		estimate_note(out, &q, e, now);
	}
	queue_release(&q);
	return 0;
}

static int show(struct http_request *req, struct http_response *resp, sqlite3_int64 id)
{
	struct buf *out = &resp->body, title = BUF_INIT;
	sqlite3_stmt *st = db_stmt(req->db, sql_job_get);
	time_t now = time(NULL);
	const char *state;
	int live;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return http_error(resp, 404, "no job %lld", (long long)id);
	}
	state = db_col_text(st, 3);
	live = !strcmp(state, "running") || !strcmp(state, "queued");
	buf_addf(&title, "Job %lld", (long long)id);
	page_begin(out, title.ptr, live ? REFRESH_SECONDS : 0);
	buf_release(&title);
	facts(out, st, id, now);
	if (live) {
		buf_addf(out, "<p class=\"note live\">This page refreshes every %d seconds while "
			 "the job is %s.", REFRESH_SECONDS, state);
		if (queue_note(req->db, out, id, now))
			buf_addstr(out, " (no queue estimate: database error)");
		buf_addstr(out, "</p>\n");
	}
	sqlite3_reset(st);
	if (stages(req->db, id, out, (double)now) || lava_jobs(req->db, id, out) ||
	    tests(req->db, id, out) || signatures(req->db, id, out))
		return error("http: job %lld: %s", (long long)id, db_errmsg(req->db));
	log_links(out, id);
	page_end(out);
	return 0;
}

int page_job(struct http_request *req, struct http_response *resp)
{
	const char *slash = strchr(req->rest, '/');
	sqlite3_int64 id;
	char *num;
	int bad, ret;

	if (!slash) {
		if (http_parse_id(req->rest, &id))
			return http_error(resp, 400, "bad job id");
		return show(req, resp, id);
	}
	num = xstrndup(req->rest, (size_t)(slash - req->rest));
	bad = http_parse_id(num, &id);
	free(num);
	if (bad)
		return http_error(resp, 400, "bad job id");
	ret = serve_log(req, resp, id, slash + 1);
	return ret;
}
