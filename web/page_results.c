/*
 * page_results: a job's test-case table and failure signatures, as the bug
 * page (one block per job) and the job page show them.  The pages choose
 * the headings around them; the rows are the same everywhere.
 */
#include "html.h"
#include "page.h"

#include <string.h>

DB_SQL(sql_results_tests,
       "SELECT variant, name, status, runs, failures, diagnostics, ifnull(change, '')"
       " FROM test_results"
       " WHERE job_id = ? ORDER BY variant DESC, name");
DB_SQL(sql_results_signatures,
       "SELECT variant, kind, title, frames, hash FROM signatures WHERE job_id = ? ORDER BY id");

void page_tests_head(struct buf *out)
{
	buf_addstr(out, "<table class=\"tests\">\n<thead><tr><th>Variant</th>"
		   "<th>Test case</th><th>Result</th><th class=\"num\">Runs</th>"
		   "<th class=\"num\">Failures</th><th>Change</th><th>Diagnostics</th></tr></thead>\n"
		   "<tbody>\n");
}

int page_tests_rows(struct db *db, sqlite3_int64 job, int diag_cut, struct buf *out,
		    int *count)
{
	sqlite3_stmt *st = db_stmt(db, sql_results_tests);
	int rc;

	*count = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_addstr(out, "<tr><td>");
		html_txt(out, db_col_text(st, 0));
		buf_addstr(out, "</td><td>");
		html_txt(out, db_col_text(st, 1));
		buf_addstr(out, "</td><td>");
		page_verdict(out, db_col_text(st, 2));
		buf_addf(out, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td>",
			 sqlite3_column_int(st, 3), sqlite3_column_int(st, 4));
		html_txt(out, db_col_text(st, 6));
		buf_addstr(out, "</td><td>");
		html_txt_cut(out, db_col_text(st, 5), diag_cut);
		buf_addstr(out, "</td></tr>\n");
		(*count)++;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int page_signature_items(struct db *db, sqlite3_int64 job, bool show_hash, struct buf *out,
			 int *count)
{
	sqlite3_stmt *st = db_stmt(db, sql_results_signatures);
	int rc;

	*count = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_addstr(out, "<li><span class=\"sig-kind\">");
		html_txt(out, db_col_text(st, 1));
		buf_addstr(out, "</span> ");
		html_txt(out, db_col_text(st, 2));
		if (show_hash) {
			buf_addstr(out, " <code>");
			html_txt_cut(out, db_col_text(st, 4), 16);
			buf_addstr(out, "</code>");
		}
		if (strcmp(db_col_text(st, 0), "patched")) {
			buf_addstr(out, " (");
			html_txt(out, db_col_text(st, 0));
			buf_addstr(out, ")");
		}
		if (*db_col_text(st, 3)) {
			buf_addstr(out, "<pre class=\"frames\">");
			html_txt_cut(out, db_col_text(st, 3), 4000);
			buf_addstr(out, "</pre>");
		}
		buf_addstr(out, "</li>\n");
		(*count)++;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}
