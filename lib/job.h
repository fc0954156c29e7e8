/*
 * job: a job's life on the runner side, in the database.
 *
 *   queued --claim--> running --finish--> done (verdict)
 *      ^                 |  \--cancel---> cancelled
 *      +--lease expired--+  (attempts + 1; done/infra-error past max_attempts)
 *      +--infra-error----+  (attempts + 1, not before a growing delay)
 *      +--release (SIGTERM, attempts unchanged)
 *      +--------------------- bugbridge job retry (an infra-error, by an operator)
 *
 * The runners take queued jobs in JOB_CLAIM_ORDER: first verdicts before
 * follow-up work, allow_commands accounts first, and across accounts the
 * one that least recently had a job started (job_queue.h), never a job
 * whose not_before has not come.  A job that hit an infrastructure error
 * (or whose runner vanished) is tried again after [runner] retry_delay
 * seconds, doubled for each later try up to retry_delay_max: a broken
 * host does not burn all its tries in a second.
 *
 * A claim is one UPDATE ... WHERE state = 'queued' ... RETURNING inside a
 * BEGIN IMMEDIATE transaction, so two runners (or two connections) can never
 * both get the same row.  Every later write of a running job names the runner
 * in its WHERE clause: a runner whose lease expired and was re-claimed by
 * another cannot overwrite the new owner's stages or verdict (job_renew()
 * tells it the lease is lost, and it stops).
 *
 * `attempts` counts the runs that have ended, however they ended (a verdict,
 * a lost lease, an infra-error, a cancel); the run in progress is attempt
 * attempts+1, the number its job_stages rows carry.  So a job finished on
 * its first run shows 1, like its stage table.
 *
 * Queuing is job_queue.h's; this file is everything after that.
 */
#ifndef BB_JOB_H
#define BB_JOB_H

#include <stdbool.h>
#include "buf.h"
#include "db.h"
#include "fault.h"

struct job {
	sqlite3_int64 id;
	sqlite3_int64 bug_id;		/* 0: none */
	sqlite3_int64 candidate_id;	/* 0: no patch */
	char *kind;
	char *base;
	int patch_count;		/* 0: all */
	bool with_baseline;
	char *boot_args;		/* kernel command-line tokens for every boot ("") */
	int attempt;			/* 1-based number of this run */
	int retry_from;			/* attempts before an operator's retry (0: none) */
	char *runner;
};

#define JOB_INIT { 0 }

/*
 * The order runners take queued jobs in, and the queue page shows them
 * in: the lane (0020_queue.sql), then the account whose latest job
 * started longest ago (never: first), then the oldest.  q: the alias of
 * the jobs table in the query.
 */
#define JOB_CLAIM_ORDER(q) \
	q ".lane, (SELECT max(u.started_at) FROM jobs u WHERE u.account = " q ".account), " q ".id"

void job_release(struct job *job);

/* Put jobs whose lease passed `now` back on the queue (or to infra-error). */
int job_expire_leases(struct db *db, long now, int max_attempts);

/*
 * Expire stale leases, then claim the next due queued job (JOB_CLAIM_ORDER)
 * for `runner` with a lease of `lease` seconds.  Returns 1 and fills *job
 * when one was claimed, 0 when none is due, -1 on a database error.
 */
int job_claim_next(struct db *db, const char *runner, int lease, int max_attempts,
		   struct job *job);
/*
 * Where a queued job stands: 1 is the next a runner takes (jobs that wait
 * for a time count after the due ones); 0 when it is not queued.
 */
int job_queue_position(struct db *db, sqlite3_int64 id, long now);
/* When the next queued job that is not due yet becomes due (0: none waits). */
long job_next_due(struct db *db, long now);
/* The same for one given job, due or not; 0 when it is not queued (running, done, ...). */
int job_claim_id(struct db *db, sqlite3_int64 id, const char *runner, int lease,
		 int max_attempts, struct job *job);

/*
 * Extend the lease.  Returns 0 while we still hold it, -1 when it is lost
 * (expired and taken, or the job was cancelled and finished elsewhere).
 * *cancel gets the job's cancel flag.
 */
int job_renew(const struct job *job, struct db *db, int lease, bool *cancel);
/* The job's cancel flag (a cheap read, polled more often than the lease). */
bool job_cancel_requested(const struct job *job, struct db *db);
/* The progress line shown while the job runs (jobs.progress, jobs.stage). */
int job_progress(const struct job *job, struct db *db, const char *stage, const char *text);

/* A stage row: job_stage_begin gives its id, job_stage_end closes it. */
int job_stage_begin(const struct job *job, struct db *db, const char *variant,
		    const char *stage, sqlite3_int64 *stage_id);
/* A detail on a running stage; a later job_stage_end without one keeps it. */
int job_stage_note(struct db *db, sqlite3_int64 stage_id, const char *detail);
/* status: "ok", "failed" or "skipped"; detail may be NULL (keeps a note). */
int job_stage_end(struct db *db, sqlite3_int64 stage_id, const char *status,
		  const char *detail);

/* Give the job back to the queue unchanged (runner shutting down). */
int job_unclaim(const struct job *job, struct db *db);

/* One test case's outcome in one variant (patched or baseline). */
struct job_test {
	const char *variant;
	const char *name;
	const char *status;		/* pass, fail, skip, flaky */
	int runs, failures;
	const char *diagnostics;
	const char *change;		/* "FAIL->PASS" ...; NULL without a baseline */
};

struct job_signature {
	const char *variant;
	const char *kind;		/* oops, bug, warning, kasan, eod, hung, panic */
	const char *title;
	const char *frames;		/* newline-separated */
	const char *hash;		/* sha256 hex of kind, title, frames */
};

struct job_outcome {
	const char *verdict;		/* pass, fail, apply-failed, ..., infra-error */
	enum fault fault;		/* whose fault it is (fault.h) */
	const char *change;		/* NULL without a baseline */
	const char *detail;
	const char *accel;
	const char *kernel_version;
	const char *log_dir;
	const struct job_test *tests;
	int ntests;
	const struct job_signature *sigs;
	int nsigs;
	/* Reach of the patch's changed lines (runner/coverage.c); reach NULL: not measured. */
	const char *reach;
	int reach_changed, reach_reached;
};

/*
 * Record the outcome and end the job, in one transaction.  An outcome whose
 * fault is retried (fault_retried: the infrastructure's) below max_attempts
 * sends the job back to the queue instead (attempts + 1), keeping its
 * stages for the record.  -1 when the lease was lost.
 */
int job_finish(const struct job *job, struct db *db, const struct job_outcome *out,
	       int max_attempts);
/* End a cancelled job (the runner saw the cancel flag). */
int job_finish_cancelled(const struct job *job, struct db *db);

/* The delay before try `tries` + 1 of a job that failed `tries` times ([runner] retry_delay). */
long job_retry_delay(int tries);

/*
 * `bugbridge job retry`: a job that ended in infra-error is queued again
 * (same id, its stages kept, a fresh round of [runner] max_attempts
 * tries); a queued job waiting for a retry delay or a budget becomes due
 * now.  -1 with *err saying why for any other (a verdict stands: queue a
 * new job for a re-run).
 */
int job_retry(struct db *db, sqlite3_int64 id, struct buf *err);

/*
 * `bugbridge job cancel`: a queued job is cancelled at once, a running one
 * gets its cancel flag (the runner stops it within a lease tick).  Returns
 * 0, or -1 when there is no such job or it is already finished.
 */
int job_request_cancel(struct db *db, sqlite3_int64 id, struct buf *err);

#endif
