/*
 * triage_backtest: a fix tried on every kept series (triage_backtest.c);
 * the matrix itself is lib/backtest.h.
 */
#ifndef BB_TRIAGE_BACKTEST_H
#define BB_TRIAGE_BACKTEST_H

#include "buf.h"
#include "db.h"

struct job_record;

/*
 * A finished job that is a fix (FAIL->PASS) and was not back-tested: queue
 * its patch with a baseline on every other kept series ([triage] backtest).
 */
int backtest_queue(struct db *db, const struct job_record *job);
/*
 * "bugbridge: backtest": finished job j's patch on every other kept
 * series, whatever its verdict, unless that patch was back-tested before
 * (once per patch, asked for or not).  What was done, or why not, in one
 * line into answer.  -1 on a database error.
 */
int backtest_request(struct db *db, const struct job_record *j, struct buf *answer);
/* A finished back-test: when it was the last, queue the matrix comment. */
int backtest_job_done(struct db *db, const struct job_record *job);

#endif
