/*
 * backtest: the matrix of a fix over the kept series.  See backtest.h.
 */
#include "backtest.h"
#include "bases.h"
#include "job_record.h"
#include "log.h"
#include "text_table.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_bt_children,
       "SELECT id FROM jobs WHERE parent_id = ? AND purpose = 'backtest' ORDER BY id");
DB_SQL(sql_bt_fixes,
       "SELECT DISTINCT parent_id FROM jobs WHERE purpose = 'backtest' AND bug_id = ?"
       " AND parent_id IS NOT NULL ORDER BY parent_id DESC");

/* Failed tests of variant, "FAIL (a, b, c +2)"; "PASS" when it ran clean; "-" when not. */
static char *variant_result(const struct job_record *j, const char *variant)
{
	struct buf out = BUF_INIT;
	int failed = 0, ran = 0;

	for (int i = 0; i < j->ntests; i++) {
		const struct job_record_test *t = &j->tests[i];

		if (strcmp(t->variant, variant))
			continue;
		ran++;
		if (strcmp(t->status, "fail"))
			continue;
		if (failed < 3)
			buf_addf(&out, "%s%s", failed ? ", " : "FAIL (", t->name);
		failed++;
	}
	if (failed > 3)
		buf_addf(&out, " +%d", failed - 3);
	if (failed)
		buf_addch(&out, ')');
	else
		buf_addstr(&out, ran ? "PASS" : "-");
	return buf_detach(&out, NULL);
}

static void fill_row(const struct job_record *j, struct backtest_row *row)
{
	const char *verdict = job_str(j->verdict);
	struct base b;
	bool done = !strcmp(j->state, "done");

	row->job_id = j->id;
	row->base = xstrdup(j->base);
	row->series = xstrdup(base_parse(j->base, &b) ? j->base : b.series);
	row->kernel_version = xstrdup(job_str(j->kernel_version));
	row->state = xstrdup(j->state);
	row->change = xstrdup(job_str(j->change));
	if (!done || !strcmp(verdict, "infra-error")) {
		row->applies = xstrdup("?");
		row->unpatched = xstrdup("-");
		row->patched = xstrdup(done ? verdict : "-");
	} else if (!strcmp(verdict, "apply-failed")) {
		row->applies = xstrdup("no");
		row->unpatched = xstrdup("-");
		row->patched = xstrdup("-");
	} else {
		row->applies = xstrdup("yes");
		row->unpatched = variant_result(j, "baseline");
		row->patched = !strcmp(verdict, "fail") ? variant_result(j, "patched")
			       : xstrdup(!strcmp(verdict, "pass") ? "PASS" : verdict);
	}
}

static int add_row(struct db *db, sqlite3_int64 id, struct backtest *bt)
{
	struct job_record j = JOB_RECORD_INIT;
	int rc = job_record_load(db, id, JOB_LOAD_TESTS, &j);

	if (rc > 0) {
		bt->rows = xrealloc(bt->rows, (bt->n + 1) * sizeof(*bt->rows));
		memset(&bt->rows[bt->n], 0, sizeof(bt->rows[bt->n]));
		fill_row(&j, &bt->rows[bt->n]);
		bt->pending |= bt->n && (!strcmp(j.state, "queued") || !strcmp(j.state, "running"));
		bt->n++;
	}
	job_record_release(&j);
	return rc < 0 ? -1 : 0;
}

int backtest_load(struct db *db, sqlite3_int64 fix_job, struct backtest *bt)
{
	sqlite3_stmt *st = db_stmt(db, sql_bt_children);
	sqlite3_int64 *ids = NULL;
	int n = 0, rc, ret = -1;

	memset(bt, 0, sizeof(*bt));
	bt->fix_job = fix_job;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, fix_job);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xrealloc(ids, (n + 1) * sizeof(*ids));
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto out;
	/* the rows after the scan: job_record_load runs statements of its own */
	if (n && add_row(db, fix_job, bt))
		goto out;
	for (int i = 0; i < n; i++)
		if (add_row(db, ids[i], bt))
			goto out;
	ret = 0;
out:
	free(ids);
	if (ret)
		error("backtest: cannot read the back-tests of job %lld", (long long)fix_job);
	return ret;
}

void backtest_release(struct backtest *bt)
{
	for (int i = 0; i < bt->n; i++) {
		struct backtest_row *r = &bt->rows[i];

		free(r->base);
		free(r->series);
		free(r->kernel_version);
		free(r->state);
		free(r->applies);
		free(r->unpatched);
		free(r->patched);
		free(r->change);
	}
	free(bt->rows);
	memset(bt, 0, sizeof(*bt));
}

int backtest_fixes(struct db *db, sqlite3_int64 bug_id, sqlite3_int64 **ids, int *n)
{
	sqlite3_stmt *st = db_stmt(db, sql_bt_fixes);
	int rc;

	*ids = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

void backtest_text(const struct backtest *bt, struct buf *out)
{
	static const char *const head[] = { "Series", "Kernel", "Job", "Applies", "Unpatched",
					    "Patched" };
	struct text_table t;

	/* each column as wide as its widest cell: a long list of failing tests shifts nothing */
	text_table_init(&t, 6);
	text_table_add(&t, head);
	for (int i = 0; i < bt->n; i++) {
		const struct backtest_row *r = &bt->rows[i];
		struct buf job = BUF_INIT, patched = BUF_INIT;
		const char *cells[6];

		buf_addf(&job, "%lld", (long long)r->job_id);
		buf_addstr(&patched, r->patched);
		if (*r->change)
			buf_addf(&patched, " (%.12s)", r->change);
		cells[0] = r->series;
		cells[1] = *r->kernel_version ? r->kernel_version : "-";
		cells[2] = job.ptr;
		cells[3] = strcmp(r->state, "done") ? r->state : r->applies;
		cells[4] = r->unpatched;
		cells[5] = patched.ptr;
		text_table_add(&t, cells);
		buf_release(&job);
		buf_release(&patched);
	}
	text_table_render(&t, "  ", out);
	text_table_release(&t);
}
