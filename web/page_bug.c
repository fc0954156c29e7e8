/*
 * page_bug: "/bug/<id>", everything we know about one bug: the tracker's
 * view (summary, status, link), our triage state and latest verdict, one
 * timeline merging tracker comments, candidate patches, jobs, verdicts and
 * the posts we made, then per job its test-case table, failure signatures
 * and log links, and the outbox rows with their state.
 *
 * The timeline is built as small HTML fragments with a time each, sorted,
 * then printed; tracker times are ISO text, ours are Unix seconds, so both
 * are turned into time_t first.  Private tracker comments are not shown:
 * the dashboard may be more public than the tracker.
 */
#include "html.h"
#include "xalloc.h"
#include "job_logs.h"
#include "log.h"
#include "page.h"
#include "privsep.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

DB_SQL(sql_bug_get,
       "SELECT product, component, status, resolution, summary, assigned_to,"
       " creation_time, last_change_time, triage_state, needs_attention,"
       " ifnull(duplicate_of, 0), is_open, closed_time, closed_by, keywords"
       " FROM bugs WHERE id = ?");
DB_SQL(sql_bug_owners,
       "SELECT kind, address FROM bug_owners WHERE bug_id = ? ORDER BY kind DESC, rank, address"
       " LIMIT 30");
DB_SQL(sql_bug_comments,
       "SELECT id, count, author, time, text, is_private, is_ours FROM comments"
       " WHERE bug_id = ? ORDER BY count, id LIMIT 2000");
DB_SQL(sql_bug_candidates,
       "SELECT id, source, ifnull(source_id, 0), kind, name, sha256, patch_count, created_at"
       " FROM candidates WHERE bug_id = ? ORDER BY id");
DB_SQL(sql_bug_jobs,
       "SELECT id, kind, state, ifnull(stage, ''), ifnull(verdict, ''), ifnull(change, ''),"
       " ifnull(verdict_detail, ''), ifnull(candidate_id, 0), created_at,"
       " ifnull(finished_at, 0), ifnull(accel, ''), ifnull(kernel_version, ''),"
       " ifnull(log_dir, '')"
       " FROM jobs WHERE bug_id = ? ORDER BY id");
DB_SQL(sql_bug_posts,
       "SELECT id, kind, ifnull(job_id, 0), state, attempts, created_at, ifnull(sent_at, 0),"
       " payload, ifnull(remote_id, 0) FROM outbox WHERE bug_id = ? ORDER BY id");

struct event {
	time_t t;
	int seq;		/* keeps insertion order among equal times */
	char *html;
};

struct timeline {
	struct event *v;
	int n, alloc;
};

static void timeline_add(struct timeline *tl, time_t t, struct buf *html)
{
	if (tl->n == tl->alloc) {
		tl->alloc = tl->alloc ? tl->alloc * 2 : 32;
		tl->v = xrealloc(tl->v, (size_t)tl->alloc * sizeof(*tl->v));
	}
	tl->v[tl->n].t = t;
	tl->v[tl->n].seq = tl->n;
	tl->v[tl->n].html = buf_detach(html, NULL);
	tl->n++;
}

static int event_cmp(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq - y->seq;
}

static void timeline_print(struct timeline *tl, struct buf *out)
{
	if (tl->n) /* qsort's base must not be NULL, even for no elements */
		qsort(tl->v, (size_t)tl->n, sizeof(*tl->v), event_cmp);
	buf_addstr(out, "<section>\n<h2>Timeline</h2>\n<ol class=\"timeline\">\n");
	for (int i = 0; i < tl->n; i++) {
		buf_addstr(out, "<li><span class=\"when\">");
		page_time(out, tl->v[i].t);
		buf_addstr(out, "</span> ");
		buf_addstr(out, tl->v[i].html);
		buf_addstr(out, "</li>\n");
	}
	if (!tl->n)
		buf_addstr(out, "<li>Nothing yet.</li>\n");
	buf_addstr(out, "</ol>\n</section>\n");
}

static void timeline_release(struct timeline *tl)
{
	for (int i = 0; i < tl->n; i++)
		free(tl->v[i].html);
	free(tl->v);
}

static void field(struct buf *out, const char *name, const char *value)
{
	buf_addstr(out, "<tr><th>");
	buf_addstr(out, name);
	buf_addstr(out, "</th><td>");
	html_txt(out, value);
	buf_addstr(out, "</td></tr>\n");
}

/* Maintainers and lists that MAINTAINERS gives for the bug (triage fills them). */
static int owners(struct db *db, struct buf *out, sqlite3_int64 id)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_owners);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_addstr(out, n++ ? ", " : "<tr><th>Owners</th><td>");
		html_txt(out, db_col_text(st, 1));
		if (!strcmp(db_col_text(st, 0), "list"))
			buf_addstr(out, " (list)");
	}
	sqlite3_reset(st);
	if (n)
		buf_addstr(out, "</td></tr>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Header and facts; returns 1 if the bug is unknown. */
static int header(struct http_request *req, struct buf *out, sqlite3_int64 id,
		  const char *latest)
{
	sqlite3_stmt *st = db_stmt(req->db, sql_bug_get);
	struct buf title = BUF_INIT;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return 1;
	}
	buf_addf(&title, "Bug %lld: %s", (long long)id, db_col_text(st, 4));
	page_begin(out, title.ptr, 0);
	buf_release(&title);
	buf_addf(out, "<h1>Bug %lld: ", (long long)id);
	html_txt(out, db_col_text(st, 4));
	buf_addstr(out, "</h1>\n<table class=\"facts\">\n<tr><th>Tracker</th><td><a href=\"");
	page_tracker_url(&title, id);
	html_attr(out, title.ptr);
	buf_release(&title);
	buf_addf(out, "\" rel=\"noopener noreferrer\">open in the tracker</a> \xc2\xb7 "
		 "<a href=\"/api/bugs/%lld\">JSON</a></td></tr>\n", (long long)id);
	buf_addstr(out, "<tr><th>Component</th><td>");
	html_txt(out, db_col_text(st, 0));
	buf_addstr(out, " / <a href=\"/component/");
	html_url_arg(out, db_col_text(st, 1));
	buf_addstr(out, "\">");
	html_txt(out, db_col_text(st, 1));
	buf_addstr(out, "</a></td></tr>\n");
	buf_addf(&title, "%s%s%s", db_col_text(st, 2), *db_col_text(st, 3) ? " " : "",
		 db_col_text(st, 3));
	field(out, "Status", title.ptr);
	buf_release(&title);
	field(out, "Assignee", db_col_text(st, 5));
	field(out, "Keywords", db_col_text(st, 14));
	buf_addstr(out, "<tr><th>Reported</th><td>");
	page_iso_time(out, db_col_text(st, 6));
	buf_addstr(out, "</td></tr>\n<tr><th>Last activity</th><td>");
	page_iso_time(out, db_col_text(st, 7));
	buf_addstr(out, "</td></tr>\n");
	if (!sqlite3_column_int(st, 11) && *db_col_text(st, 12)) {
		buf_addstr(out, "<tr><th>Closed</th><td>");
		page_iso_time(out, db_col_text(st, 12));
		buf_addstr(out, " by ");
		html_txt(out, db_col_text(st, 13));
		buf_addstr(out, "</td></tr>\n");
	}
	buf_addstr(out, "<tr><th>Triage</th><td>");
	html_txt(out, db_col_text(st, 8));
	if (sqlite3_column_int(st, 9))
		buf_addstr(out, " <span class=\"flag\">needs attention</span>");
	if (sqlite3_column_int64(st, 10)) {
		buf_addstr(out, " (duplicate of ");
		page_bug_link(out, sqlite3_column_int64(st, 10));
		buf_addstr(out, ")");
	}
	buf_addstr(out, "</td></tr>\n<tr><th>Latest verdict</th><td>");
	page_verdict(out, latest);
	buf_addstr(out, "</td></tr>\n");
	sqlite3_reset(st);
	if (owners(req->db, out, id))
		return -1;
	buf_addstr(out, "</table>\n");
	return 0;
}

static int comments(struct db *db, sqlite3_int64 id, struct timeline *tl)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_comments);
	struct buf h = BUF_INIT;
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		bool ours = sqlite3_column_int(st, 6);

		buf_addf(&h, "<div class=\"event ev-comment%s\"><span class=\"what\">%s #%d</span> by ",
			 ours ? " ours" : "", sqlite3_column_int(st, 1) ? "comment" : "description",
			 sqlite3_column_int(st, 1));
		html_txt(&h, db_col_text(st, 2));
		if (sqlite3_column_int(st, 5))
			buf_addstr(&h, "<p class=\"note\">(private comment, not shown here)</p>");
		else {
			buf_addstr(&h, "<pre class=\"text\">");
			html_txt_cut(&h, db_col_text(st, 4), 20000);
			buf_addstr(&h, "</pre>");
		}
		buf_addstr(&h, "</div>");
		timeline_add(tl, page_parse_iso(db_col_text(st, 3)), &h);
	}
	sqlite3_reset(st);
	buf_release(&h);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int candidates(struct db *db, sqlite3_int64 id, struct timeline *tl, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_candidates);
	struct buf h = BUF_INIT;
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Candidate patches</h2>\n<table>\n<thead><tr><th>#</th>"
		   "<th>Name</th><th>Kind</th><th>Source</th><th>Patches</th><th>SHA-256</th>"
		   "<th>Found</th></tr></thead>\n<tbody>\n");
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 cid = sqlite3_column_int64(st, 0);

		buf_addf(out, "<tr id=\"candidate-%lld\"><td>%lld</td><td>", (long long)cid,
			 (long long)cid);
		html_txt(out, db_col_text(st, 4));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 3));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 1));
		if (sqlite3_column_int64(st, 2))
			buf_addf(out, " %lld", (long long)sqlite3_column_int64(st, 2));
		buf_addf(out, "</td><td class=\"num\">%d</td><td><code>", sqlite3_column_int(st, 6));
		html_txt_cut(out, db_col_text(st, 5), 12);
		buf_addstr(out, "</code></td><td>");
		page_time(out, (time_t)sqlite3_column_int64(st, 7));
		buf_addstr(out, "</td></tr>\n");

		buf_addf(&h, "<div class=\"event ev-candidate\"><span class=\"what\">candidate "
			 "<a href=\"#candidate-%lld\">#%lld</a></span> ", (long long)cid,
			 (long long)cid);
		html_txt(&h, db_col_text(st, 4));
		buf_addstr(&h, " (");
		html_txt(&h, db_col_text(st, 3));
		buf_addstr(&h, " from ");
		html_txt(&h, db_col_text(st, 1));
		buf_addstr(&h, ")</div>");
		timeline_add(tl, (time_t)sqlite3_column_int64(st, 7), &h);
		n++;
	}
	sqlite3_reset(st);
	buf_release(&h);
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"7\">No candidate patches found.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

static int job_tests(struct db *db, sqlite3_int64 job, struct buf *out)
{
	struct buf rows = BUF_INIT;
	int n, ret = page_tests_rows(db, job, 300, &rows, &n);

	if (n) {
		page_tests_head(out);
		buf_add(out, rows.ptr, rows.len);
		buf_addstr(out, "</tbody>\n</table>\n");
	} else {
		buf_addstr(out, "<p class=\"note\">No test results.</p>\n");
	}
	buf_release(&rows);
	return ret;
}

static int job_signatures(struct db *db, sqlite3_int64 job, struct buf *out)
{
	struct buf items = BUF_INIT;
	int n, ret = page_signature_items(db, job, false, &items, &n);

	if (n) {
		buf_addstr(out, "<h4>Failure signatures</h4>\n<ul class=\"signatures\">\n");
		buf_add(out, items.ptr, items.len);
		buf_addstr(out, "</ul>\n");
	}
	buf_release(&items);
	return ret;
}

/*
 * The logs the job's directory holds (the names the runner chose), as
 * links; bugbridged lists them (this process reads no directory: privsep.h).
 */
static void log_links(struct buf *out, sqlite3_int64 jid, const char *dir)
{
	char **names = NULL;
	int n = 0;

	if (*dir && privsep_log_list(jid, &names, &n))
		log_warn("http: job %lld: its logs are not listed", (long long)jid);
	for (int i = 0; i < n; i++) {
		buf_addstr(out, i ? ", " : " \xc2\xb7 logs: ");
		buf_addf(out, "<a href=\"/job/%lld/", (long long)jid);
		html_url_arg(out, names[i]);
		buf_addstr(out, "\">");
		html_txt(out, names[i]);
		buf_addstr(out, "</a>");
	}
	job_logs_free(names, n);
}

/* One row of the jobs query: a timeline entry or two, and a section. */
static int job(struct db *db, sqlite3_stmt *st, struct timeline *tl, struct buf *out)
{
	sqlite3_int64 jid = sqlite3_column_int64(st, 0), cand = sqlite3_column_int64(st, 7);
	const char *state = db_col_text(st, 2), *verdict = db_col_text(st, 4);
	struct buf h = BUF_INIT;

	buf_addf(&h, "<div class=\"event ev-job\"><span class=\"what\">job "
		 "<a href=\"/job/%lld\">%lld</a></span> queued (", (long long)jid, (long long)jid);
	html_txt(&h, db_col_text(st, 1));
	if (cand)
		buf_addf(&h, ", candidate #%lld", (long long)cand);
	buf_addstr(&h, ")</div>");
	timeline_add(tl, (time_t)sqlite3_column_int64(st, 8), &h);
	if (*verdict) {
		buf_addf(&h, "<div class=\"event ev-verdict\"><span class=\"what\">job "
			 "<a href=\"/job/%lld\">%lld</a></span> verdict ", (long long)jid,
			 (long long)jid);
		page_verdict(&h, verdict);
		if (*db_col_text(st, 5)) {
			buf_addstr(&h, " ");
			html_txt(&h, db_col_text(st, 5));
		}
		buf_addstr(&h, "</div>");
		timeline_add(tl, (time_t)sqlite3_column_int64(st, 9), &h);
	}
	buf_release(&h);

	buf_addf(out, "<article class=\"job\" id=\"job-%lld\">\n<h3><a href=\"/job/%lld\">Job %lld</a> ",
		 (long long)jid, (long long)jid, (long long)jid);
	page_verdict(out, verdict);
	buf_addstr(out, "</h3>\n<p>");
	html_txt(out, db_col_text(st, 1));
	buf_addstr(out, " \xc2\xb7 ");
	html_txt(out, state);
	if (*db_col_text(st, 3) && !strcmp(state, "running")) {
		buf_addstr(out, " (");
		html_txt(out, db_col_text(st, 3));
		buf_addstr(out, ")");
	}
	if (cand)
		buf_addf(out, " \xc2\xb7 candidate <a href=\"#candidate-%lld\">#%lld</a>",
			 (long long)cand, (long long)cand);
	if (*db_col_text(st, 5)) {
		buf_addstr(out, " \xc2\xb7 change ");
		html_txt(out, db_col_text(st, 5));
	}
	if (*db_col_text(st, 11)) {
		buf_addstr(out, " \xc2\xb7 kernel ");
		html_txt(out, db_col_text(st, 11));
	}
	if (*db_col_text(st, 10)) {
		buf_addstr(out, " \xc2\xb7 accel ");
		html_txt(out, db_col_text(st, 10));
	}
	log_links(out, jid, db_col_text(st, 12));
	buf_addstr(out, "</p>\n");
	if (*db_col_text(st, 6)) {
		buf_addstr(out, "<p class=\"detail\">");
		html_txt_cut(out, db_col_text(st, 6), 2000);
		buf_addstr(out, "</p>\n");
	}
	if (job_tests(db, jid, out) || job_signatures(db, jid, out))
		return -1;
	buf_addstr(out, "</article>\n");
	return 0;
}

static int jobs(struct db *db, sqlite3_int64 id, struct timeline *tl, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_jobs);
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Jobs</h2>\n");
	sqlite3_bind_int64(st, 1, id);
	/* job() uses other statements, never this one, so stepping on is safe. */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (job(db, st, tl, out)) {
			sqlite3_reset(st);
			return -1;
		}
		n++;
	}
	sqlite3_reset(st);
	if (!n)
		buf_addstr(out, "<p>No jobs yet.</p>\n");
	buf_addstr(out, "</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

static int posts(struct db *db, sqlite3_int64 id, struct timeline *tl, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_posts);
	struct buf h = BUF_INIT;
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<section>\n<h2>Our posts</h2>\n<table>\n<thead><tr><th>#</th><th>Kind</th>"
		   "<th>Job</th><th>State</th><th class=\"num\">Attempts</th><th>Queued</th>"
		   "<th>Sent</th><th>Text</th></tr></thead>\n<tbody>\n");
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = db_col_text(st, 1), *state = db_col_text(st, 3);
		time_t sent = (time_t)sqlite3_column_int64(st, 6);

		buf_addf(out, "<tr><td>%lld</td><td>", (long long)sqlite3_column_int64(st, 0));
		html_txt(out, kind);
		buf_addstr(out, "</td><td>");
		if (sqlite3_column_int64(st, 2))
			buf_addf(out, "<a href=\"/job/%lld\">%lld</a>",
				 (long long)sqlite3_column_int64(st, 2),
				 (long long)sqlite3_column_int64(st, 2));
		buf_addstr(out, "</td><td><span class=\"state s-");
		html_attr(out, state);
		buf_addstr(out, "\">");
		html_txt(out, state);
		buf_addf(out, "</span></td><td class=\"num\">%d</td><td>", sqlite3_column_int(st, 4));
		page_time(out, (time_t)sqlite3_column_int64(st, 5));
		buf_addstr(out, "</td><td>");
		page_time(out, sent);
		buf_addstr(out, "</td><td><details><summary>show</summary><pre class=\"text\">");
		html_txt_cut(out, db_col_text(st, 7), 20000);
		buf_addstr(out, "</pre></details></td></tr>\n");

		buf_addstr(&h, "<div class=\"event ev-post\"><span class=\"what\">our ");
		html_txt(&h, kind);
		buf_addstr(&h, "</span> ");
		buf_addstr(&h, sent ? "posted" : "queued");
		buf_addstr(&h, " (");
		html_txt(&h, state);
		buf_addstr(&h, ")</div>");
		timeline_add(tl, sent ? sent : (time_t)sqlite3_column_int64(st, 5), &h);
		n++;
	}
	sqlite3_reset(st);
	buf_release(&h);
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"8\">We have not posted anything.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}

DB_SQL(sql_bug_latest_verdict,
       "SELECT verdict FROM jobs WHERE bug_id = ? AND state = 'done' AND verdict IS NOT NULL"
       " ORDER BY finished_at DESC, id DESC LIMIT 1");

static char *latest_verdict(struct db *db, sqlite3_int64 id)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_latest_verdict);
	char *v = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = xstrdup(db_col_text(st, 0));
	sqlite3_reset(st);
	return v;
}

int page_bug(struct http_request *req, struct http_response *resp)
{
	struct buf *out = &resp->body, sections = BUF_INIT;
	struct timeline tl = { 0 };
	sqlite3_int64 id;
	char *verdict = NULL;
	int ret = -1, rc;

	if (http_parse_id(req->rest, &id))
		return http_error(resp, 400, "bad bug id");
	verdict = latest_verdict(req->db, id);
	rc = header(req, out, id, verdict);
	if (rc > 0) {
		ret = http_error(resp, 404, "no bug %lld is known here", (long long)id);
		goto out;
	}
	if (rc < 0 || comments(req->db, id, &tl) || candidates(req->db, id, &tl, &sections) ||
	    page_bug_versions(req->db, id, &sections) ||
	    jobs(req->db, id, &tl, &sections) || posts(req->db, id, &tl, &sections)) {
		error("http: bug %lld: %s", (long long)id, db_errmsg(req->db));
		goto out;
	}
	timeline_print(&tl, out);
	buf_add(out, sections.ptr, sections.len);
	page_end(out);
	ret = 0;
out:
	timeline_release(&tl);
	buf_release(&sections);
	free(verdict);
	return ret;
}
