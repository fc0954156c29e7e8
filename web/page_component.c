/*
 * page_component: "/component/<name>" and "/product/<product>/<component>",
 * the bare URL per component that lists its open bugs at once, newest
 * change first, with status, age, last activity, triage state and latest
 * verdict.  A name we have never seen gives a 404 page listing the known
 * ones, so a typo is one click from the right page.
 *
 * Long lists are paged (?page=N, PAGE_SIZE bugs a page); the JSON API
 * serves the same rows for scripts.
 */
#include "html.h"
#include "xalloc.h"
#include "log.h"
#include "page.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAGE_SIZE 100

/*
 * Both queries take (component, product or NULL for any product).  The
 * list walks index bugs_component_open_change backwards ("is_open = 1",
 * not "is_open", so the index gives the order and no sort is needed):
 * only the rows on the page are read, and only they run the verdict
 * subquery.
 */
DB_SQL(sql_component_exists,
       "SELECT count(*), sum(is_open) FROM bugs WHERE component = ?1"
       " AND (?2 IS NULL OR product = ?2)");
DB_SQL(sql_component_bugs,
       "SELECT b.id, b.product, b.status, b.summary, b.creation_time,"
       " b.last_change_time, b.triage_state, b.needs_attention,"
       " (SELECT j.verdict FROM jobs j WHERE j.bug_id = b.id AND j.state = 'done'"
       "   AND j.verdict IS NOT NULL ORDER BY j.finished_at DESC, j.id DESC LIMIT 1)"
       " FROM bugs b WHERE b.component = ?1 AND (?2 IS NULL OR b.product = ?2)"
       " AND b.is_open = 1 ORDER BY b.last_change_time DESC, b.id DESC LIMIT ?3 OFFSET ?4");

static int not_found(struct http_request *req, struct http_response *resp, const char *name)
{
	struct buf *out = &resp->body;

	resp->status = 404;
	page_begin(out, "Unknown component", 0);
	buf_addstr(out, "<h1>Unknown component</h1>\n<p class=\"error\">No bugs are known for "
		   "component \xe2\x80\x9c");
	html_txt(out, name);
	buf_addstr(out, "\xe2\x80\x9d. Known components:</p>\n");
	if (page_known_components(req->db, out))
		return -1;
	page_end(out);
	return 0;
}

static void bug_row(struct buf *out, sqlite3_stmt *st, time_t now)
{
	time_t created = page_parse_iso(db_col_text(st, 4));

	buf_addstr(out, "<tr><td>");
	page_bug_link(out, sqlite3_column_int64(st, 0));
	buf_addstr(out, "</td><td>");
	html_txt(out, db_col_text(st, 2));
	buf_addstr(out, "</td><td class=\"summary\">");
	html_txt_cut(out, db_col_text(st, 3), 200);
	buf_addstr(out, "</td><td>");
	if (created)
		page_duration(out, (long)(now - created));
	buf_addstr(out, "</td><td>");
	page_iso_time(out, db_col_text(st, 5));
	buf_addstr(out, "</td><td>");
	html_txt(out, db_col_text(st, 6));
	if (sqlite3_column_int(st, 7))
		buf_addstr(out, " <span class=\"flag\">needs attention</span>");
	buf_addstr(out, "</td><td>");
	page_verdict(out, db_col_text(st, 8));
	buf_addstr(out, "</td></tr>\n");
}

static void pager(struct buf *out, const char *comp, const char *prod, long page, long open)
{
	long pages = (open + PAGE_SIZE - 1) / PAGE_SIZE;

	if (pages <= 1)
		return;
	buf_addstr(out, "<p class=\"pager\">");
	for (long p = 1; p <= pages; p++) {
		if (p == page) {
			buf_addf(out, "<strong>%ld</strong> ", p);
			continue;
		}
		buf_addstr(out, "<a href=\"");
		page_component_url(out, prod, comp);
		buf_addf(out, "?page=%ld\">%ld</a> ", p, p);
	}
	buf_addstr(out, "</p>\n");
}

static int show(struct http_request *req, struct http_response *resp,
		const char *prod, const char *comp)
{
	struct buf *out = &resp->body;
	const char *page_arg = http_query(req, "page");
	sqlite3_stmt *st;
	sqlite3_int64 page = 1;
	long total, open;
	int rc, n = 0;
	time_t now = time(NULL);

	if (!*comp || strchr(comp, '/'))
		return http_error(resp, 404, "no such page: %s", req->path);
	if (page_arg && (http_parse_id(page_arg, &page) || page > 100000))
		return http_error(resp, 400, "bad page number");
	st = db_stmt(req->db, sql_component_exists);
	if (!st)
		return -1;
	db_bind_text(st, 1, comp);
	db_bind_text(st, 2, prod);
	if (sqlite3_step(st) != SQLITE_ROW)
		return error("http: component: %s", db_errmsg(req->db));
	total = sqlite3_column_int(st, 0);
	open = sqlite3_column_int(st, 1);
	sqlite3_reset(st);
	if (!total)
		return not_found(req, resp, comp);

	page_begin(out, comp, 0);
	buf_addstr(out, "<h1>");
	if (prod) {
		html_txt(out, prod);
		buf_addstr(out, " / ");
	}
	html_txt(out, comp);
	buf_addf(out, "</h1>\n<p>%ld open bug%s (%ld known). "
		 "<a href=\"/api/bugs?component=", open, open == 1 ? "" : "s", total);
	html_url_arg(out, comp);
	if (prod) {
		buf_addstr(out, "&amp;product=");
		html_url_arg(out, prod);
	}
	buf_addstr(out, "&amp;status=open\">JSON</a> \xc2\xb7 <a href=\"/feed.atom?component=");
	html_url_arg(out, comp);
	buf_addstr(out, "\">Atom feed</a></p>\n<section>\n<table class=\"bugs\">\n<thead><tr><th>Bug</th>"
		   "<th>Status</th><th>Summary</th><th>Age</th><th>Last activity</th>"
		   "<th>Triage</th><th>Verdict</th></tr></thead>\n<tbody>\n");
	st = db_stmt(req->db, sql_component_bugs);
	if (!st)
		return -1;
	db_bind_text(st, 1, comp);
	db_bind_text(st, 2, prod);
	sqlite3_bind_int(st, 3, PAGE_SIZE);
	sqlite3_bind_int64(st, 4, (page - 1) * PAGE_SIZE);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		bug_row(out, st, now);
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return error("http: component: %s", db_errmsg(req->db));
	if (!n)
		buf_addstr(out, "<tr><td colspan=\"7\">No open bugs.</td></tr>\n");
	buf_addstr(out, "</tbody>\n</table>\n</section>\n");
	pager(out, comp, prod, (long)page, open);
	page_end(out);
	return 0;
}

int page_component(struct http_request *req, struct http_response *resp)
{
	return show(req, resp, NULL, req->rest);
}

int page_product(struct http_request *req, struct http_response *resp)
{
	/* Products may contain '/' ("IO/Storage"), components do not. */
	const char *slash = strrchr(req->rest, '/');
	char *prod;
	int ret;

	if (!slash || slash == req->rest)
		return http_error(resp, 404, "want /product/<product>/<component>");
	prod = xstrndup(req->rest, (size_t)(slash - req->rest));
	ret = show(req, resp, prod, slash + 1);
	free(prod);
	return ret;
}
