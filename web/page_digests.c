/*
 * page_digests: "/digests", the archive of digests we sent to the mailing
 * lists, newest first, each with its delivery state and the text as sent
 * (folded away: <details> needs no JavaScript).
 */
#include "html.h"
#include "log.h"
#include "page.h"

#include <time.h>

DB_SQL(sql_digests_list,
       "SELECT d.id, d.list, d.period, d.subject, d.created_at, d.body,"
       " ifnull(o.state, 'unsent'), ifnull(o.sent_at, 0)"
       " FROM digests d LEFT JOIN outbox o ON o.id = d.outbox_id"
       " ORDER BY d.id DESC LIMIT 100");

int page_digests(struct http_request *req, struct http_response *resp)
{
	struct buf *out = &resp->body;
	sqlite3_stmt *st = db_stmt(req->db, sql_digests_list);
	int rc, n = 0;

	if (!st)
		return -1;
	page_begin(out, "Digests", 0);
	buf_addstr(out, "<h1>Digests</h1>\n<p>The mailing-list digests, newest first "
		   "(<a href=\"/api/digests\">JSON</a>).</p>\n");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *state = db_col_text(st, 6);

		buf_addf(out, "<article class=\"digest\" id=\"digest-%lld\">\n<h2>",
			 (long long)sqlite3_column_int64(st, 0));
		html_txt(out, db_col_text(st, 3));
		buf_addstr(out, "</h2>\n<p>To ");
		html_txt(out, db_col_text(st, 1));
		buf_addstr(out, " \xc2\xb7 period ");
		html_txt(out, db_col_text(st, 2));
		buf_addstr(out, " \xc2\xb7 <span class=\"state s-");
		html_attr(out, state);
		buf_addstr(out, "\">");
		html_txt(out, state);
		buf_addstr(out, "</span> ");
		page_time(out, sqlite3_column_int64(st, 7) ? (time_t)sqlite3_column_int64(st, 7) :
			  (time_t)sqlite3_column_int64(st, 4));
		buf_addstr(out, "</p>\n<details><summary>Text</summary><pre class=\"text\">");
		html_txt_cut(out, db_col_text(st, 5), 200000);
		buf_addstr(out, "</pre></details>\n</article>\n");
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return error("http: digests: %s", db_errmsg(req->db));
	if (!n)
		buf_addstr(out, "<p>No digests sent yet.</p>\n");
	page_end(out);
	return 0;
}
