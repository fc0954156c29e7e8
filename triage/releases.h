/*
 * releases: the first release of a series that fails a test, by a
 * bisection over the archive's releases (releases.c).
 */
#ifndef BB_RELEASES_H
#define BB_RELEASES_H

#include "buf.h"
#include "db.h"

struct job_record;

/*
 * A finished job whose unpatched kernel (of a kept series) failed tests,
 * loaded with its test results: start the release bisection of its bug
 * and series unless there is one ([triage] release_bisect).
 */
int releases_start(struct db *db, const struct job_record *job);
/*
 * "bugbridge: bisect releases": the same for finished job j, even with
 * [triage] release_bisect off; once per bug and series all the same.  What
 * was done, or why not, in one line into answer.  -1 on a database error.
 */
int releases_request(struct db *db, const struct job_record *j, struct buf *answer);
/* A finished release step: go on with its root's search (or post the answer). */
int releases_job_done(struct db *db, const struct job_record *job);
/* The search of root: queue the next release, or post the answer once. */
int releases_advance(struct db *db, const struct job_record *root);

#endif
