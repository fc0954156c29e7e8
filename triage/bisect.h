/*
 * bisect: the first bad patch of a series, by binary search (bisect.c).
 */
#ifndef BB_BISECT_H
#define BB_BISECT_H

#include "db.h"

struct job_record;

/*
 * Binary search over a series of n patches whose prefix of `good` patches
 * passes and of `bad` patches fails (0 <= good < bad <= n): the next prefix
 * length to test, or 0 when bad is the first bad patch.
 */
int bisect_next(int good, int bad);

/*
 * A finished job of a series (kind test/bisect/bisect-step), loaded with
 * its test results and signatures: start or continue the bisection it
 * belongs to, enqueueing the next bisect-step, or queue the comment naming
 * the first bad patch.  Inside the caller's transaction.
 */
int bisect_job_done(struct db *db, const struct job_record *job);

#endif
