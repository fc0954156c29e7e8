/*
 * feed: "/feed.atom", an Atom feed of verdicts, newest first, optionally
 * for one component (?component=SCSI; an unknown one is a 404).  Entry ids
 * are tag: URIs built from the job id, so they stay stable if the
 * dashboard moves; links use [web] base_url.  Text goes through html_txt,
 * which is also correct XML escaping.
 */
#include "html.h"
#include "log.h"
#include "page.h"

#include <time.h>

#define FEED_ENTRIES 50

DB_SQL(sql_feed_known,
       "SELECT 1 FROM bugs WHERE component = ? LIMIT 1");
DB_SQL(sql_feed_entries,
       "SELECT j.id, ifnull(j.bug_id, 0), j.verdict, ifnull(j.change, ''),"
       " ifnull(j.finished_at, j.created_at), ifnull(b.summary, ''), ifnull(b.component, ''),"
       " ifnull(j.verdict_detail, '')"
       " FROM jobs j LEFT JOIN bugs b ON b.id = j.bug_id"
       " WHERE j.state = 'done' AND j.verdict IS NOT NULL"
       " AND (?1 IS NULL OR b.component = ?1)"
       " ORDER BY j.finished_at DESC, j.id DESC LIMIT ?2");

static void atom_time(struct buf *out, time_t t)
{
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_addstr(out, s);
}

static void entry(struct buf *out, sqlite3_stmt *st, const char *base)
{
	sqlite3_int64 job = sqlite3_column_int64(st, 0), bug = sqlite3_column_int64(st, 1);

	buf_addf(out, "<entry>\n<id>tag:bugbridge,2026:job/%lld</id>\n<title>", (long long)job);
	if (bug)
		buf_addf(out, "Bug %lld: ", (long long)bug);
	html_txt(out, db_col_text(st, 2));
	if (*db_col_text(st, 3)) {
		buf_addstr(out, " (");
		html_txt(out, db_col_text(st, 3));
		buf_addstr(out, ")");
	}
	buf_addstr(out, " \xe2\x80\x94 ");
	html_txt_cut(out, db_col_text(st, 5), 200);
	buf_addstr(out, "</title>\n<updated>");
	atom_time(out, (time_t)sqlite3_column_int64(st, 4));
	buf_addstr(out, "</updated>\n<link href=\"");
	html_attr(out, base);
	buf_addf(out, "/job/%lld\"/>\n", (long long)job);
	if (*db_col_text(st, 6)) {
		buf_addstr(out, "<category term=\"");
		html_attr(out, db_col_text(st, 6));
		buf_addstr(out, "\"/>\n");
	}
	buf_addf(out, "<summary>Job %lld: ", (long long)job);
	html_txt(out, db_col_text(st, 2));
	if (*db_col_text(st, 7)) {
		buf_addstr(out, ". ");
		html_txt_cut(out, db_col_text(st, 7), 1000);
	}
	buf_addstr(out, "</summary>\n</entry>\n");
}

int page_feed(struct http_request *req, struct http_response *resp)
{
	const char *comp = http_query(req, "component");
	struct buf *out = &resp->body, base = BUF_INIT;
	sqlite3_stmt *st;
	int rc, ret = -1;

	if (comp) {
		st = db_stmt(req->db, sql_feed_known);
		if (!st)
			return -1;
		db_bind_text(st, 1, comp);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_ROW)
			return http_error(resp, 404, "no component '%s'", comp);
	}
	page_base_url(&base);
	buf_addstr(out, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		   "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>bugbridge verdicts");
	if (comp) {
		buf_addstr(out, ": ");
		html_txt(out, comp);
	}
	buf_addstr(out, "</title>\n<id>tag:bugbridge,2026:verdicts");
	if (comp) {
		buf_addch(out, '/');
		html_url_arg(out, comp);
	}
	buf_addstr(out, "</id>\n<link href=\"");
	html_attr(out, base.ptr);
	buf_addstr(out, "/\"/>\n<link rel=\"self\" href=\"");
	html_attr(out, base.ptr);
	buf_addstr(out, "/feed.atom");
	if (comp) {
		buf_addstr(out, "?component=");
		html_url_arg(out, comp);
	}
	buf_addstr(out, "\"/>\n<updated>");
	atom_time(out, time(NULL));
	buf_addstr(out, "</updated>\n<author><name>bugbridge</name></author>\n");
	st = db_stmt(req->db, sql_feed_entries);
	if (!st)
		goto out;
	db_bind_text(st, 1, comp);
	sqlite3_bind_int(st, 2, FEED_ENTRIES);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		entry(out, st, base.ptr);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		error("http: feed: %s", db_errmsg(req->db));
		goto out;
	}
	buf_addstr(out, "</feed>\n");
	resp->content_type = "application/atom+xml; charset=utf-8";
	ret = 0;
out:
	buf_release(&base);
	return ret;
}
