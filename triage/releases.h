/*
 * releases: the first release of a series that fails a test, by a
 * bisection over the archive's releases (releases.c).
 */
#ifndef BB_RELEASES_H
#define BB_RELEASES_H

#include "db.h"

struct job_record;

/*
 * A finished job whose unpatched kernel (of a kept series) failed tests,
 * loaded with its test results: start the release bisection of its bug
 * and series unless there is one ([triage] release_bisect).
 */
int releases_start(struct db *db, const struct job_record *job);
/* A finished release step: go on with its root's search (or post the answer). */
int releases_job_done(struct db *db, const struct job_record *job);
/* The search of root: queue the next release, or post the answer once. */
int releases_advance(struct db *db, const struct job_record *root);

#endif
