/*
 * job_queue: putting work on the queue.  Everything that creates a job (the
 * poller for a new candidate, `bugbridge job add`, triage for re-runs and
 * bisection steps, the API) goes through job_enqueue(), so a job row always
 * starts the same way.  Claiming and running jobs is the runner's (job.h).
 */
#ifndef BB_JOB_QUEUE_H
#define BB_JOB_QUEUE_H

#include <stdbool.h>
#include "db.h"

struct job_spec {
	sqlite3_int64 bug_id;		/* 0: none */
	sqlite3_int64 candidate_id;	/* 0: no patch (a baseline-only run) */
	sqlite3_int64 parent_id;	/* 0: none */
	const char *kind;		/* "test" (default), "retest", "bisect", "bisect-step" */
	const char *base;		/* NULL: the bug's (bases.h: base_choose), else the default */
	const char *base_reason;	/* why base, for the job page (NULL with base NULL: the choice's) */
	const char *purpose;		/* NULL: the bug's own; "backtest", "release" (0017_bases.sql) */
	int patch_count;		/* apply only the first N patches; 0: all */
	bool with_baseline;		/* also run the unpatched base and compare */
	const char *boot_args;		/* NULL or kernel command-line tokens for every boot */
};

/* Are s kernel command-line tokens a job may add ([A-Za-z0-9_.,:=-], blank
 * separated, at most 512 bytes)?  job_enqueue refuses others. */
bool job_boot_args_ok(const char *s);

/*
 * Insert a queued job; *id gets its id.  Runs inside the caller's
 * transaction if there is one (so a candidate and its job land together).
 */
int job_enqueue(struct db *db, const struct job_spec *spec, sqlite3_int64 *id);

#endif
