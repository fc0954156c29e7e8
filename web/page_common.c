/*
 * page_common: the layout every dashboard page shares (header, navigation,
 * footer) and the formatting of times, durations, verdicts and links.
 * Pages are plain HTML with one stylesheet and no scripts; a page that
 * should update itself uses <meta http-equiv="refresh">, which works
 * without JavaScript and under our Content-Security-Policy.
 */
#include "config.h"
#include "html.h"
#include "page.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void page_begin(struct buf *out, const char *title, int refresh_seconds)
{
	buf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		   "<meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
	if (refresh_seconds > 0)
		buf_addf(out, "<meta http-equiv=\"refresh\" content=\"%d\">\n", refresh_seconds);
	buf_addstr(out, "<title>");
	html_txt(out, title);
	buf_addstr(out, " \xe2\x80\x94 bugbridge</title>\n"
		   "<link rel=\"stylesheet\" href=\"/style.css\">\n"
		   "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Verdicts\""
		   " href=\"/feed.atom\">\n"
		   "</head>\n<body>\n<header><nav>"
		   "<a class=\"brand\" href=\"/\">bugbridge</a>"
		   "<a href=\"/\">Overview</a>"
		   "<a href=\"/queue\">Queue</a>"
		   "<a href=\"/stats\">Statistics</a>"
		   "<a href=\"/digests\">Digests</a>"
		   "<a href=\"/feed.atom\">Feed</a>"
		   "</nav></header>\n<main>\n");
}

void page_end(struct buf *out)
{
	buf_addstr(out, "</main>\n<footer>bugbridge \xc2\xb7 "
		   "<a href=\"/api/bugs\">JSON API</a> \xc2\xb7 "
		   "<a href=\"/healthz\">health</a></footer>\n</body>\n</html>\n");
}

void page_time(struct buf *out, time_t t)
{
	struct tm tm;
	char s[64];

	if (!t || !gmtime_r(&t, &tm)) {
		buf_addstr(out, "\xe2\x80\x93");
		return;
	}
	strftime(s, sizeof(s), "<time datetime=\"%Y-%m-%dT%H:%M:%SZ\">", &tm);
	buf_addstr(out, s);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M", &tm);
	buf_addstr(out, s);
	buf_addstr(out, "</time>");
}

time_t page_parse_iso(const char *iso)
{
	struct tm tm;
	const char *end;

	if (!iso || !*iso)
		return 0;
	memset(&tm, 0, sizeof(tm));
	end = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		end = strptime(iso, "%Y-%m-%d %H:%M:%S", &tm);
	if (!end)
		return 0;
	return timegm(&tm);
}

void page_iso_time(struct buf *out, const char *iso)
{
	time_t t = page_parse_iso(iso);

	if (t)
		page_time(out, t);
	else
		html_txt(out, iso && *iso ? iso : "\xe2\x80\x93");
}

void page_duration(struct buf *out, long s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		buf_addf(out, "%lds", s);
	else if (s < 3600)
		buf_addf(out, "%ldm", s / 60);
	else if (s < 2 * 86400)
		buf_addf(out, "%ldh %ldm", s / 3600, s / 60 % 60);
	else
		buf_addf(out, "%ldd", s / 86400);
}

void page_verdict(struct buf *out, const char *verdict)
{
	if (!verdict || !*verdict) {
		buf_addstr(out, "<span class=\"verdict\">\xe2\x80\x93</span>");
		return;
	}
	buf_addstr(out, "<span class=\"verdict v-");
	html_attr(out, verdict);
	buf_addstr(out, "\">");
	html_txt(out, verdict);
	buf_addstr(out, "</span>");
}

void page_bug_link(struct buf *out, sqlite3_int64 id)
{
	buf_addf(out, "<a href=\"/bug/%lld\">%lld</a>", (long long)id, (long long)id);
}

void page_component_url(struct buf *out, const char *prod, const char *comp)
{
	if (prod && *prod) {
		buf_addstr(out, "/product/");
		html_url_arg(out, prod);
		buf_addch(out, '/');
	} else {
		buf_addstr(out, "/component/");
	}
	html_url_arg(out, comp);
}

/* Drop "user:password@" from a URL so that no credential is ever rendered. */
static void url_without_userinfo(struct buf *out, const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *slash = strchr(host, '/');
	const char *at = strchr(host, '@');

	if (at && (!slash || at < slash)) {
		buf_add(out, url, (size_t)(host - url));
		url = at + 1;
	}
	buf_addstr(out, url);
	while (out->len && out->ptr[out->len - 1] == '/')
		buf_setlen(out, out->len - 1);
}

void page_tracker_url(struct buf *out, sqlite3_int64 id)
{
	url_without_userinfo(out, cfg_str("tracker.url"));
	buf_addf(out, "/show_bug.cgi?id=%lld", (long long)id);
}

void page_base_url(struct buf *out)
{
	const char *base = cfg_str("web.base_url");

	if (*base) {
		url_without_userinfo(out, base);
		return;
	}
	buf_addstr(out, "http://");
	buf_addstr(out, cfg_str("web.listen"));
}

DB_SQL(sql_known_components,
       "SELECT component, count(*) FROM bugs WHERE is_open GROUP BY component"
       " ORDER BY component LIMIT 500");

int page_known_components(struct db *db, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_known_components);
	int rc, n = 0;

	if (!st)
		return -1;
	buf_addstr(out, "<ul class=\"known\">\n");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = db_col_text(st, 0);

		buf_addstr(out, "<li><a href=\"/component/");
		html_url_arg(out, name);
		buf_addstr(out, "\">");
		html_txt(out, name);
		buf_addf(out, "</a> (%d open)</li>\n", sqlite3_column_int(st, 1));
		n++;
	}
	sqlite3_reset(st);
	if (!n)
		buf_addstr(out, "<li>none yet</li>\n");
	buf_addstr(out, "</ul>\n");
	return rc == SQLITE_DONE ? 0 : -1;
}
