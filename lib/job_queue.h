/*
 * job_queue: putting work on the queue.  Everything that creates a job (the
 * poller for a new candidate, `bugbridge job add`, triage for re-runs and
 * bisection steps, the API) goes through job_submit() (or job_enqueue(),
 * the same without the answer), so a job row always starts the same way,
 * and every path meets the same budgets (job_budget.h).
 *
 * Each job is for an account: the tracker account whose patch or command
 * it is (spec.account), its parent's for follow-up work, or the
 * operator's ("") for `bugbridge job add` and the API.  Its lane decides
 * when the runners take it (job.h, JOB_CLAIM_ORDER): first verdicts of
 * [triage] allow_commands accounts, then the other first verdicts, then
 * follow-up work (re-runs triage queues, back-tests, release and series
 * bisection steps), which runs only when no first verdict waits.
 * Claiming and running jobs is the runner's (job.h).
 */
#ifndef BB_JOB_QUEUE_H
#define BB_JOB_QUEUE_H

#include <stdbool.h>
#include "buf.h"
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
	const char *account;		/* the tracker account it is for; NULL: its parent's, */
					/* else the operator's (""), never held by a budget */
	bool caller_answers;		/* the caller tells the tracker what became of it (a */
					/* command's reply): no budget comment for it */
};

/* What became of a submitted job. */
enum job_admit {
	JOB_QUEUED,			/* queued; it runs in its turn */
	JOB_DEFERRED,			/* queued, but not before not_before (a budget) */
	JOB_REFUSED,			/* not queued: over budget past [queue] defer_days, */
					/* or an mbox over [queue] max_mbox_patches */
};

struct job_admission {
	sqlite3_int64 id;		/* the job; 0 when refused */
	enum job_admit admit;
	long not_before;		/* JOB_DEFERRED: when it may start (00:00 UTC of a day) */
	char why[200];			/* JOB_DEFERRED, JOB_REFUSED: why, in words */
};

/* Are s kernel command-line tokens a job may add ([A-Za-z0-9_.,:=-], blank
 * separated, at most 512 bytes)?  job_enqueue refuses others. */
bool job_boot_args_ok(const char *s);

/*
 * Queue a job as its budgets allow; *adm says what became of it.  A job
 * held or refused from the tracker (an account, a bug) is also said on
 * the bug (job_budget.h) unless spec->caller_answers.  Runs inside the
 * caller's transaction if there is one (so a candidate and its job land
 * together).  -1 on a database error or refused boot arguments; a budget's
 * refusal is 0 with adm->admit JOB_REFUSED.
 */
int job_submit(struct db *db, const struct job_spec *spec, struct job_admission *adm);
/* job_submit without the answer; *id gets the job's id (0: refused). */
int job_enqueue(struct db *db, const struct job_spec *spec, sqlite3_int64 *id);
/*
 * One line for a reply on the tracker: "queued as job 12", "queued as job
 * 12; it waits until 2026-12-08 00:00 UTC: the bug's 40 jobs a day are
 * used", "not queued: ...".
 */
void job_admission_text(const struct job_admission *adm, struct buf *out);
/* Is account in [triage] allow_commands (case ignored)? */
bool job_account_allowed(const char *account);

#endif
