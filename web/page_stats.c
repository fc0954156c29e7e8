/*
 * page_stats: "/stats", where the energy goes, after GNOME's yearly bug
 * statistics: bugs opened and closed per month, the top closers per year,
 * verdict counts, and the median time from a candidate patch being found
 * to its result being posted on the tracker.  Charts are inline SVG drawn
 * here (no scripts, no images to fetch); every chart has its numbers in a
 * table beside it.  stats_load() is shared with /api/stats.
 */
#include "html.h"
#include "xalloc.h"
#include "log.h"
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_stats_months,
       "SELECT m, sum(o), sum(c) FROM ("
       " SELECT substr(creation_time, 1, 7) AS m, 1 AS o, 0 AS c FROM bugs"
       "  WHERE creation_time GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]*'"
       " UNION ALL"
       " SELECT substr(closed_time, 1, 7), 0, 1 FROM bugs"
       "  WHERE closed_time GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]*')"
       " GROUP BY m ORDER BY m");
DB_SQL(sql_stats_closers,
       "SELECT substr(closed_time, 1, 4) AS y, closed_by, count(*) AS c FROM bugs"
       " WHERE closed_time GLOB '[0-9][0-9][0-9][0-9]*' AND ifnull(closed_by, '') != ''"
       " GROUP BY y, closed_by ORDER BY y DESC, c DESC, closed_by");
DB_SQL(sql_stats_verdicts,
       "SELECT verdict, count(*) FROM jobs WHERE state = 'done' AND verdict IS NOT NULL"
       " GROUP BY verdict ORDER BY count(*) DESC, verdict");
/* Per candidate: the first result comment we got posted about it. */
DB_SQL(sql_stats_to_post,
       "SELECT min(o.sent_at) - c.created_at AS d FROM candidates c"
       " JOIN jobs j ON j.candidate_id = c.id"
       " JOIN outbox o ON o.job_id = j.id"
       " WHERE o.kind = 'comment' AND o.state = 'sent' AND o.sent_at IS NOT NULL"
       " GROUP BY c.id ORDER BY d");

static int month_number(const char *m)
{
	int y, mo;

	if (sscanf(m, "%4d-%2d", &y, &mo) != 2 || mo < 1 || mo > 12)
		return -1;
	return y * 12 + mo - 1;
}

static void month_push(struct stats *s, int *alloc, int num, int opened, int closed)
{
	struct stats_month *m;

	if (s->nmonths == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 32;
		s->months = xrealloc(s->months, (size_t)*alloc * sizeof(*s->months));
	}
	m = &s->months[s->nmonths++];
	snprintf(m->month, sizeof(m->month), "%04d-%02d", (num / 12) % 10000, num % 12 + 1);
	m->opened = opened;
	m->closed = closed;
}

static int load_months(struct db *db, struct stats *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_stats_months);
	int rc, alloc = 0, last = -1;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int num = month_number(db_col_text(st, 0));

		if (num < 0)
			continue;
		/* Fill gaps so the chart's x axis is time, not just rows. */
		while (last >= 0 && ++last < num && s->nmonths < 100000)
			month_push(s, &alloc, last, 0, 0);
		month_push(s, &alloc, num, sqlite3_column_int(st, 1), sqlite3_column_int(st, 2));
		last = num;
	}
	sqlite3_reset(st);
	if (s->nmonths > STATS_MAX_MONTHS) {
		memmove(s->months, s->months + s->nmonths - STATS_MAX_MONTHS,
			STATS_MAX_MONTHS * sizeof(*s->months));
		s->nmonths = STATS_MAX_MONTHS;
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

static int load_closers(struct db *db, struct stats *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_stats_closers);
	int rc, alloc = 0, in_year = 0;
	char year[8] = "";

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct stats_closer *c;

		if (strcmp(year, db_col_text(st, 0))) {
			snprintf(year, sizeof(year), "%s", db_col_text(st, 0));
			in_year = 0;
		}
		if (in_year++ >= STATS_TOP_CLOSERS)
			continue;
		if (s->ncloser == alloc) {
			alloc = alloc ? alloc * 2 : 32;
			s->closers = xrealloc(s->closers, (size_t)alloc * sizeof(*s->closers));
		}
		c = &s->closers[s->ncloser++];
		snprintf(c->year, sizeof(c->year), "%s", year);
		c->who = xstrdup(db_col_text(st, 1));
		c->count = sqlite3_column_int(st, 2);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int load_verdicts(struct db *db, struct stats *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_stats_verdicts);
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (s->nverdicts == (int)(sizeof(s->verdicts) / sizeof(s->verdicts[0])))
			continue;
		snprintf(s->verdicts[s->nverdicts].name, sizeof(s->verdicts[0].name), "%s",
			 db_col_text(st, 0));
		s->verdicts[s->nverdicts++].count = sqlite3_column_int(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int load_median(struct db *db, struct stats *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_stats_to_post);
	long *v = NULL;
	int rc, n = 0, alloc = 0;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			v = xrealloc(v, (size_t)alloc * sizeof(*v));
		}
		v[n++] = (long)sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	/* Rows come sorted. */
	s->nposted = n;
	s->median_to_post = !n ? -1 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return rc == SQLITE_DONE ? 0 : -1;
}

int stats_load(struct db *db, struct stats *s)
{
	memset(s, 0, sizeof(*s));
	s->median_to_post = -1;
	if (load_months(db, s) || load_closers(db, s) || load_verdicts(db, s) ||
	    load_median(db, s)) {
		error("http: stats: %s", db_errmsg(db));
		stats_release(s);
		return -1;
	}
	return 0;
}

void stats_release(struct stats *s)
{
	for (int i = 0; i < s->ncloser; i++)
		free(s->closers[i].who);
	free(s->closers);
	free(s->months);
	memset(s, 0, sizeof(*s));
}

/* Opened and closed per month as paired bars, newest on the right. */
static void svg_months(struct buf *out, const struct stats *s)
{
	const int w = 760, h = 220, left = 40, bottom = 30, top = 10;
	int max = 1, first = s->nmonths > 36 ? s->nmonths - 36 : 0, n = s->nmonths - first;
	double slot;

	for (int i = first; i < s->nmonths; i++) {
		if (s->months[i].opened > max)
			max = s->months[i].opened;
		if (s->months[i].closed > max)
			max = s->months[i].closed;
	}
	slot = n ? (double)(w - left - 10) / n : 0;
	buf_addf(out, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
		 "aria-label=\"Bugs opened and closed per month\">\n", w, h);
	buf_addf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		 left, h - bottom, w - 10, h - bottom);
	buf_addf(out, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n",
		 left - 4, top + 10, max);
	buf_addf(out, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n",
		 left - 4, h - bottom);
	for (int i = 0; i < n; i++) {
		const struct stats_month *m = &s->months[first + i];
		double x = left + i * slot, bw = slot * 0.4;
		double ho = (double)m->opened * (h - bottom - top) / max;
		double hc = (double)m->closed * (h - bottom - top) / max;

		buf_addf(out, "<rect class=\"opened\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			 "height=\"%.1f\"><title>%s: %d opened</title></rect>\n",
			 x + slot * 0.1, h - bottom - ho, bw, ho, m->month, m->opened);
		buf_addf(out, "<rect class=\"closed\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			 "height=\"%.1f\"><title>%s: %d closed</title></rect>\n",
			 x + slot * 0.5, h - bottom - hc, bw, hc, m->month, m->closed);
		if (n <= 12 || i % (n / 12 + 1) == 0)
			buf_addf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
				 "text-anchor=\"middle\">%s</text>\n", x + slot / 2, h - bottom + 16,
				 m->month);
	}
	buf_addstr(out, "</svg>\n<p class=\"legend\"><span class=\"key opened\"></span> opened "
		   "<span class=\"key closed\"></span> closed</p>\n");
}

/* Horizontal bars with labels, for counts. */
static void svg_hbars(struct buf *out, const char *label, const char *const *names,
		      const int *counts, int n, const char *cls)
{
	const int w = 520, row = 22, left = 170;
	int max = 1;

	for (int i = 0; i < n; i++)
		if (counts[i] > max)
			max = counts[i];
	buf_addf(out, "<svg class=\"chart bars\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		 w, n * row + 4);
	html_attr(out, label);
	buf_addstr(out, "\">\n");
	for (int i = 0; i < n; i++) {
		double bw = (double)counts[i] * (w - left - 50) / max;

		buf_addf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">",
			 left - 6, i * row + 16);
		html_txt_cut(out, names[i], 26);
		buf_addf(out, "</text><rect class=\"%s", cls);
		if (!strcmp(cls, "verdict")) {
			buf_addstr(out, " v-");
			html_attr(out, names[i]);
		}
		buf_addf(out, "\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>"
			 "<text class=\"value\" x=\"%.1f\" y=\"%d\">%d</text>\n", left, i * row + 3,
			 bw, row - 6, left + bw + 4, i * row + 16, counts[i]);
	}
	buf_addstr(out, "</svg>\n");
}

static void months_section(struct buf *out, const struct stats *s)
{
	buf_addstr(out, "<section>\n<h2>Bugs opened and closed per month</h2>\n");
	if (!s->nmonths) {
		buf_addstr(out, "<p>No bugs yet.</p>\n</section>\n");
		return;
	}
	svg_months(out, s);
	buf_addstr(out, "<details><summary>Numbers</summary>\n<table class=\"months\">\n<thead><tr>"
		   "<th>Month</th><th class=\"num\">Opened</th><th class=\"num\">Closed</th></tr>"
		   "</thead>\n<tbody>\n");
	for (int i = s->nmonths - 1; i >= 0; i--)
		buf_addf(out, "<tr><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
			 "</tr>\n", s->months[i].month, s->months[i].opened, s->months[i].closed);
	buf_addstr(out, "</tbody>\n</table>\n</details>\n</section>\n");
}

static void closers_section(struct buf *out, const struct stats *s)
{
	const char *names[STATS_TOP_CLOSERS];
	int counts[STATS_TOP_CLOSERS];

	buf_addstr(out, "<section>\n<h2>Top closers per year</h2>\n");
	if (!s->ncloser)
		buf_addstr(out, "<p>No closed bugs yet.</p>\n");
	for (int i = 0; i < s->ncloser;) {
		int n = 0, j;

		buf_addstr(out, "<h3>");
		html_txt(out, s->closers[i].year);
		buf_addstr(out, "</h3>\n<table class=\"closers\">\n<thead><tr><th>Closed by</th>"
			   "<th class=\"num\">Bugs</th></tr></thead>\n<tbody>\n");
		for (j = i; j < s->ncloser && !strcmp(s->closers[j].year, s->closers[i].year); j++) {
			buf_addstr(out, "<tr><td>");
			html_txt(out, s->closers[j].who);
			buf_addf(out, "</td><td class=\"num\">%d</td></tr>\n", s->closers[j].count);
			names[n] = s->closers[j].who;
			counts[n++] = s->closers[j].count;
		}
		buf_addstr(out, "</tbody>\n</table>\n");
		svg_hbars(out, "Top closers", names, counts, n, "closer");
		i = j;
	}
	buf_addstr(out, "</section>\n");
}

static void verdicts_section(struct buf *out, const struct stats *s)
{
	const char *names[16];
	int counts[16];

	buf_addstr(out, "<section>\n<h2>Verdicts</h2>\n");
	if (!s->nverdicts) {
		buf_addstr(out, "<p>No verdicts yet.</p>\n</section>\n");
		return;
	}
	buf_addstr(out, "<table class=\"verdicts\">\n<thead><tr><th>Verdict</th>"
		   "<th class=\"num\">Jobs</th></tr></thead>\n<tbody>\n");
	for (int i = 0; i < s->nverdicts; i++) {
		buf_addstr(out, "<tr><td>");
		page_verdict(out, s->verdicts[i].name);
		buf_addf(out, "</td><td class=\"num\">%d</td></tr>\n", s->verdicts[i].count);
		names[i] = s->verdicts[i].name;
		counts[i] = s->verdicts[i].count;
	}
	buf_addstr(out, "</tbody>\n</table>\n");
	svg_hbars(out, "Verdict counts", names, counts, s->nverdicts, "verdict");
	buf_addstr(out, "</section>\n");
}

int page_stats(struct http_request *req, struct http_response *resp)
{
	struct buf *out = &resp->body;
	struct stats s;

	if (stats_load(req->db, &s))
		return -1;
	page_begin(out, "Statistics", 0);
	buf_addstr(out, "<h1>Statistics</h1>\n<section>\n<h2>Turnaround</h2>\n<p>Median time from "
		   "a candidate patch being found to its result being posted: <strong "
		   "class=\"median\">");
	if (s.median_to_post >= 0)
		page_duration(out, s.median_to_post);
	else
		buf_addstr(out, "no results posted yet");
	buf_addf(out, "</strong> (%d candidate%s with a posted result).</p>\n</section>\n",
		 s.nposted, s.nposted == 1 ? "" : "s");
	months_section(out, &s);
	verdicts_section(out, &s);
	closers_section(out, &s);
	page_end(out);
	stats_release(&s);
	return 0;
}
