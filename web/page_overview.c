/*
 * page_overview: "/", the dashboard at a glance: open watched bugs by
 * component with counts, the latest verdicts, the queue (running jobs with
 * stage and elapsed time, queued jobs with position and estimates, and
 * what the estimates stand on), the
 * bugs that need attention and the writes the tracker refused.  Refreshes itself every minute.
 */
#include "html.h"
#include "log.h"
#include "page.h"

#include <string.h>
#include <time.h>

DB_SQL(sql_overview_components,
       "SELECT component, product, count(*), sum(needs_attention),"
       " sum(triage_state = 'fix-verified')"
       " FROM bugs WHERE is_open GROUP BY component, product ORDER BY component, product");
DB_SQL(sql_overview_verdicts,
       "SELECT j.id, ifnull(j.bug_id, 0), j.verdict, ifnull(j.change, ''),"
       " ifnull(j.finished_at, 0), ifnull(b.summary, ''), ifnull(b.component, '')"
       " FROM jobs j LEFT JOIN bugs b ON b.id = j.bug_id"
       " WHERE j.state = 'done' AND j.verdict IS NOT NULL"
       " ORDER BY j.finished_at DESC, j.id DESC LIMIT 15");
DB_SQL(sql_overview_attention,
       "SELECT id, component, summary, last_change_time, triage_state FROM bugs"
       " WHERE is_open AND needs_attention ORDER BY last_change_time LIMIT 50");

static int components(struct db *db, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_overview_components);
	int rc, total = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Open bugs by component</h2>\n<table>\n"
		   "<thead><tr><th>Component</th><th>Product</th><th class=\"num\">Open</th>"
		   "<th class=\"num\">Need attention</th><th class=\"num\">Fix verified</th>"
		   "</tr></thead>\n<tbody>\n");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *comp = db_col_text(st, 0), *prod = db_col_text(st, 1);

		/* one row per (component, product): its page is the product's, not a mix */
		buf_addstr(out, "<tr><td><a href=\"");
		page_component_url(out, prod, comp);
		buf_addstr(out, "\">");
		html_txt(out, *comp ? comp : "(none)");
		buf_addstr(out, "</a></td><td>");
		html_txt(out, prod);
		buf_addf(out, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
			 "<td class=\"num\">%d</td></tr>\n", sqlite3_column_int(st, 2),
			 sqlite3_column_int(st, 3), sqlite3_column_int(st, 4));
		total += sqlite3_column_int(st, 2);
	}
	sqlite3_reset(st);
	buf_addf(out, "</tbody>\n<tfoot><tr><td>Total</td><td></td><td class=\"num\">%d</td>"
		 "<td></td><td></td></tr></tfoot>\n</table>\n</section>\n", total);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int verdicts(struct db *db, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_overview_verdicts);
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Latest verdicts</h2>\n<table>\n"
		   "<thead><tr><th>Job</th><th>Bug</th><th>Summary</th><th>Verdict</th>"
		   "<th>Change</th><th>Finished</th></tr></thead>\n<tbody>\n");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 bug = sqlite3_column_int64(st, 1);

		buf_addf(out, "<tr><td><a href=\"/job/%lld\">%lld</a></td><td>",
			 (long long)sqlite3_column_int64(st, 0),
			 (long long)sqlite3_column_int64(st, 0));
		if (bug)
			page_bug_link(out, bug);
		buf_addstr(out, "</td><td>");
		html_txt_cut(out, db_col_text(st, 5), 100);
		buf_addstr(out, "</td><td>");
		page_verdict(out, db_col_text(st, 2));
		buf_addstr(out, "</td><td class=\"change\">");
		html_txt(out, db_col_text(st, 3));
		buf_addstr(out, "</td><td>");
		page_time(out, (time_t)sqlite3_column_int64(st, 4));
		buf_addstr(out, "</td></tr>\n");
		n++;
	}
	sqlite3_reset(st);
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"6\">No verdicts yet.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

static void queue_row(struct buf *out, const struct queue_entry *e, time_t now)
{
	buf_addf(out, "<tr><td><a href=\"/job/%lld\">%lld</a></td><td>",
		 (long long)e->job_id, (long long)e->job_id);
	if (e->bug_id)
		page_bug_link(out, e->bug_id);
	buf_addstr(out, "</td><td>");
	html_txt(out, e->kind);
	if (!strcmp(e->state, "running")) {
		buf_addstr(out, "</td><td>running: ");
		html_txt(out, *e->stage ? e->stage : "starting");
		if (e->total)
			buf_addf(out, " (%d of %d objects)", e->done, e->total);
		buf_addstr(out, "</td><td>");
		page_duration(out, e->elapsed);
		buf_addstr(out, " elapsed</td><td>");
	} else {
		buf_addf(out, "</td><td>queued #%d</td><td>", e->position);
		if (e->est_start) {
			buf_addstr(out, "starts ~");
			page_time(out, e->est_start);
		}
		buf_addstr(out, "</td><td>");
	}
	if (e->est_finish) {
		buf_addstr(out, "~");
		page_time(out, e->est_finish);
		buf_addstr(out, " (in ");
		page_duration(out, (long)(e->est_finish - now));
		buf_addstr(out, e->overdue ? "; its step runs longer than usual)" : ")");
	}
	buf_addstr(out, "</td></tr>\n");
}

static int queue(struct db *db, struct buf *out, time_t now)
{
	struct buf basis = BUF_INIT;
	struct queue q;

	if (queue_load(db, now, &q))
		return -1;
	est_basis(&q.est, NULL, &basis);
	buf_addstr(out, "<section>\n<h2><a href=\"/queue\">Queue</a></h2>\n"
		   "<p class=\"note\">Estimates: ");
	html_txt(out, basis.ptr);
	buf_addf(out, ", on %d runner slot%s.</p>\n", q.slots, q.slots == 1 ? "" : "s");
	buf_addstr(out, "<table>\n<thead><tr><th>Job</th><th>Bug</th><th>Kind</th>"
		   "<th>State</th><th>Time</th><th>Estimated finish</th></tr></thead>\n<tbody>\n");
	for (int i = 0; i < q.n; i++)
		queue_row(out, &q.v[i], now);
	if (!q.n)
		buf_addstr(out, "<tr><td colspan=\"6\">The queue is empty.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	queue_release(&q);
	buf_release(&basis);
	return 0;
}

DB_SQL(sql_overview_refused,
       "SELECT id, ifnull(bug_id, 0), kind, state, ifnull(refused, last_error), marker"
       " FROM outbox WHERE kind IN ('comment', 'update')"
       " AND (state IN ('failed', 'held') OR refused IS NOT NULL)"
       " ORDER BY id DESC LIMIT 20");
DB_SQL(sql_overview_keywords,
       "SELECT keywords_missing FROM tracker_state WHERE keywords_missing IS NOT NULL");

/* The keywords the tracker lacks for the mirror, as a note before the table. */
static int keywords_note(struct db *db, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_overview_keywords);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		buf_addstr(out, "<p class=\"warn\">[triage] mirror has keywords, but the tracker"
			   " lacks some, so updates go without them: ");
		html_txt_cut(out, db_col_text(st, 0), 300);
		buf_addstr(out, ". An admin can create them (Administration &gt; Keywords).</p>\n");
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Writes to the tracker that failed for good, are held, or landed without
 * a part the tracker refused (keywords it lacks): nothing else shows them
 * but the log and `bugbridge status`.
 */
static int refused_writes(struct db *db, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_overview_refused);
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Writes the tracker refused</h2>\n");
	if (keywords_note(db, out))
		return -1;
	buf_addstr(out, "<table>\n<thead><tr><th>Bug</th><th>Write</th><th>State</th>"
		   "<th>What the tracker said</th></tr></thead>\n<tbody>\n");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *state = db_col_text(st, 3);

		buf_addstr(out, "<tr><td>");
		if (sqlite3_column_int64(st, 1))
			page_bug_link(out, sqlite3_column_int64(st, 1));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 2));
		buf_addstr(out, " (");
		html_txt_cut(out, db_col_text(st, 5), 80);
		buf_addstr(out, ")</td><td>");
		html_txt(out, strcmp(state, "sent") ? state : "sent in part");
		buf_addstr(out, "</td><td>");
		html_txt_cut(out, db_col_text(st, 4), 300);
		buf_addstr(out, "</td></tr>\n");
		n++;
	}
	sqlite3_reset(st);
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"4\">None: every write landed whole.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

static int attention(struct db *db, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_overview_attention);
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Needs attention</h2>\n<table>\n"
		   "<thead><tr><th>Bug</th><th>Component</th><th>Summary</th><th>Triage</th>"
		   "<th>Last activity</th></tr></thead>\n<tbody>\n");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_addstr(out, "<tr><td>");
		page_bug_link(out, sqlite3_column_int64(st, 0));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 1));
		buf_addstr(out, "</td><td>");
		html_txt_cut(out, db_col_text(st, 2), 100);
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 4));
		buf_addstr(out, "</td><td>");
		page_iso_time(out, db_col_text(st, 3));
		buf_addstr(out, "</td></tr>\n");
		n++;
	}
	sqlite3_reset(st);
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"5\">Nothing needs attention.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

int page_overview(struct http_request *req, struct http_response *resp)
{
	struct buf *out = &resp->body;
	time_t now = time(NULL);

	page_begin(out, "Overview", 60);
	buf_addstr(out, "<h1>Overview</h1>\n<div class=\"grid\">\n");
	if (components(req->db, out) || queue(req->db, out, now) ||
	    attention(req->db, out) || verdicts(req->db, out) || refused_writes(req->db, out))
		return error("http: overview: %s", db_errmsg(req->db));
	buf_addstr(out, "</div>\n");
	page_end(out);
	return 0;
}
