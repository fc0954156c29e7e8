/*
 * claim: bugbridge-runner's loop over the job queue (local mode).
 */
#ifndef BB_CLAIM_H
#define BB_CLAIM_H

#include <signal.h>
#include <stdbool.h>
#include "db.h"

struct runner_opts {
	bool once;		/* run one queued job, then exit */
	sqlite3_int64 job_id;	/* run exactly this job, then exit */
	bool warm;		/* build the seed ahead of any job, then exit */
};

/* 0: the runner did its work; 1: it could not (logged). */
int runner_main(struct db *db, const struct runner_opts *opts,
		const volatile sig_atomic_t *stop);

#endif
