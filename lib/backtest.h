/*
 * backtest: a fix's matrix over the kept series, as triage posts it and
 * the bug page shows it.
 *
 * After a job whose patch turns a failure into a pass (FAIL->PASS),
 * triage queues the same patch, with a baseline run, on every other kept
 * series (jobs of purpose 'backtest' whose parent is that job).  The
 * matrix is one row per series: the fix's own job first, then each
 * back-test in the order they were queued.  Each row says whether the
 * patch applies there, what the unpatched kernel does, what the patched
 * one does.  Everything comes from the jobs' rows and test results, so
 * the dashboard's public connections (which shadow the tables) and
 * triage read the same thing.
 */
#ifndef BB_BACKTEST_H
#define BB_BACKTEST_H

#include <stdbool.h>
#include "buf.h"
#include "db.h"

struct backtest_row {
	sqlite3_int64 job_id;
	char *base;		/* linux-source-6.12 */
	char *series;		/* 6.12 */
	char *kernel_version;	/* 6.12.118; "" before it ran */
	char *state;		/* queued, running, done, cancelled */
	char *applies;		/* "yes", "no", "?" (not known: not run, infra-error) */
	char *unpatched;	/* "FAIL (sr-capacity)", "PASS", "-" */
	char *patched;		/* "PASS", "FAIL (x)", "build-failed", ..., "-" */
	char *change;		/* "FAIL->PASS", ... or "" */
};

struct backtest {
	sqlite3_int64 fix_job;
	struct backtest_row *rows;
	int n;
	bool pending;		/* a back-test is queued or running */
};

/* The matrix of fix job fix_job; 0 (with n 0 when it has none), -1 on a database error. */
int backtest_load(struct db *db, sqlite3_int64 fix_job, struct backtest *bt);
void backtest_release(struct backtest *bt);
/* The fix jobs of a bug that have back-tests, newest first; *n how many. */
int backtest_fixes(struct db *db, sqlite3_int64 bug_id, sqlite3_int64 **ids, int *n);

/*
 * Pure: the matrix as a plain-text table for a comment, indented by two
 * blanks, each column as wide as its widest cell (lib/text_table.h), so
 * that a long list of failing tests moves no column.
 */
void backtest_text(const struct backtest *bt, struct buf *out);

#endif
