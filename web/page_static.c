/*
 * page_static: the stylesheet and the health check.
 *
 * web/style.css is built into the binary (.incbin below; the Makefile makes
 * this object depend on the file), so the service never reads files named
 * by a request and an install cannot serve a stale or missing stylesheet.
 */
#include "log.h"
#include "page.h"

#include <stdio.h>
#include <string.h>

__asm__(".section .rodata\n"
	".global web_style_css\n"
	".type web_style_css, @object\n"
	".balign 16\n"
	"web_style_css:\n"
	".incbin \"web/style.css\"\n"
	".byte 0\n"
	".previous\n");
extern const char web_style_css[];

int page_style(struct http_request *req, struct http_response *resp)
{
	(void)req;
	buf_addstr(&resp->body, web_style_css);
	resp->content_type = "text/css; charset=utf-8";
	http_set_header(resp, "Cache-Control", "max-age=3600");
	return 0;
}

DB_SQL(sql_healthz, "SELECT ifnull(last_ok, 0), ifnull(last_poll, 0) FROM poll_state WHERE id = 1");

/* 200 "ok" when the database answers; supervisors need nothing more. */
int page_healthz(struct http_request *req, struct http_response *resp)
{
	sqlite3_stmt *st = db_stmt(req->db, sql_healthz);

	resp->content_type = "text/plain; charset=utf-8";
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		if (st)
			sqlite3_reset(st);
		resp->status = 503;
		buf_addstr(&resp->body, "database unavailable\n");
		return 0;
	}
	buf_addf(&resp->body, "ok\nlast_poll %lld\nlast_ok %lld\n",
		 (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 0));
	sqlite3_reset(st);
	return 0;
}
