/*
 * page_bases: the bug page's "Kernel versions" section: which releases a
 * failing test is in (release_bisections, triage/releases.c) and each
 * fix's matrix over the kept series (lib/backtest.h), as the comments
 * triage posted say them.  Read through the page's connection, whose
 * public shadows leave a private bug's rows out.
 */
#include "page.h"
#include "backtest.h"
#include "html.h"

#include <stdlib.h>
#include <string.h>

DB_SQL(sql_pb_releases,
       "SELECT root_job, series, tests, state, IFNULL(good, ''), IFNULL(bad, ''), builds,"
       " IFNULL(summary, ''), IFNULL(regzbot, '') FROM release_bisections"
       " WHERE bug_id = ? ORDER BY root_job");

static int releases(struct db *db, sqlite3_int64 bug, struct buf *out, int *shown)
{
	sqlite3_stmt *st = db_stmt(db, sql_pb_releases);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 root = sqlite3_column_int64(st, 0);
		const char *state = db_col_text(st, 3);

		if (!(*shown)++)
			buf_addstr(out, "<section>\n<h2>Kernel versions</h2>\n");
		buf_addstr(out, "<h3>Releases of ");
		html_txt(out, db_col_text(st, 1));
		buf_addstr(out, "</h3>\n<p class=\"releases\">");
		if (!strcmp(state, "running")) {
			html_txt(out, db_col_text(st, 2));
			buf_addstr(out, ": searching the archive's releases");
			if (*db_col_text(st, 4)) {
				buf_addstr(out, " (passes on ");
				html_txt(out, db_col_text(st, 4));
				buf_addstr(out, ")");
			}
			buf_addstr(out, ", fails on ");
			html_txt(out, db_col_text(st, 5));
		} else {
			html_txt(out, db_col_text(st, 7));
		}
		buf_addf(out, "; %d release(s) built, from <a href=\"/job/%lld\">job %lld</a>.</p>\n",
			 sqlite3_column_int(st, 6), (long long)root, (long long)root);
		if (*db_col_text(st, 8)) {
			buf_addstr(out, "<p>For regzbot: <code class=\"regzbot\">");
			html_txt(out, db_col_text(st, 8));
			buf_addstr(out, "</code></p>\n");
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void matrix(const struct backtest *bt, struct buf *out)
{
	buf_addf(out, "<h3>Back-test of the fix in <a href=\"/job/%lld\">job %lld</a>%s</h3>\n"
		 "<table class=\"backtest\">\n<thead><tr><th>Series</th><th>Kernel</th><th>Job"
		 "</th><th>Applies</th><th>Unpatched</th><th>Patched</th><th>Change</th></tr>"
		 "</thead>\n<tbody>\n", (long long)bt->fix_job, (long long)bt->fix_job,
		 bt->pending ? " (running)" : "");
	for (int i = 0; i < bt->n; i++) {
		const struct backtest_row *r = &bt->rows[i];

		buf_addstr(out, "<tr><td>");
		html_txt(out, r->series);
		buf_addstr(out, "</td><td>");
		html_txt(out, *r->kernel_version ? r->kernel_version : "-");
		buf_addf(out, "</td><td><a href=\"/job/%lld\">%lld</a></td><td>",
			 (long long)r->job_id, (long long)r->job_id);
		html_txt(out, strcmp(r->state, "done") ? r->state : r->applies);
		buf_addstr(out, "</td><td>");
		html_txt(out, r->unpatched);
		buf_addstr(out, "</td><td>");
		html_txt(out, r->patched);
		buf_addstr(out, "</td><td>");
		html_txt(out, r->change);
		buf_addstr(out, "</td></tr>\n");
	}
	buf_addstr(out, "</tbody>\n</table>\n");
}

int page_bug_versions(struct db *db, sqlite3_int64 bug, struct buf *out)
{
	sqlite3_int64 *fixes = NULL;
	int n = 0, shown = 0, ret = -1;

	if (releases(db, bug, out, &shown) || backtest_fixes(db, bug, &fixes, &n))
		goto out;
	for (int i = 0; i < n; i++) {
		struct backtest bt;

		if (backtest_load(db, fixes[i], &bt))
			goto out;
		if (bt.n && !shown++)
			buf_addstr(out, "<section>\n<h2>Kernel versions</h2>\n");
		if (bt.n)
			matrix(&bt, out);
		backtest_release(&bt);
	}
	if (shown)
		buf_addstr(out, "</section>\n");
	ret = 0;
out:
	free(fixes);
	return ret;
}
