/*
 * job_record: one job as everything downstream of the runner reads it.
 *
 * The runner writes a job through job.h; triage, bisection, the comment
 * writer, KCIDB export, `bugbridge job show` and /api/jobs/<id> read it back
 * through job_record_load() alone: the job row, its candidate, and, as the
 * caller asks, the stages, test results, failure signatures, the log files
 * and the patch text.  Triage's hot loop asks for test results and
 * signatures only, so it never pulls a patch or the stages.
 *
 * Nullable columns stay NULL (a queued job has no verdict), so that the
 * JSON document can say null; job_str() gives "" for readers that do not
 * care.  Ids and times are 0 where the database has NULL.
 *
 * Ownership: the record owns every string and array in it;
 * job_record_release() frees them and accepts a zeroed record.
 */
#ifndef BB_JOB_RECORD_H
#define BB_JOB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include "db.h"
#include "fault.h"

/* What job_record_load() reads besides the job row and its candidate's facts. */
enum {
	JOB_LOAD_STAGES = 1 << 0,	/* job_stages, in the order they ran */
	JOB_LOAD_TESTS = 1 << 1,	/* test_results */
	JOB_LOAD_SIGS = 1 << 2,		/* signatures */
	JOB_LOAD_LOGS = 1 << 3,		/* the servable log files in log_dir (job_logs.h) */
	JOB_LOAD_CONTENT = 1 << 4,	/* the candidate's patch text */
	JOB_LOAD_LAVA = 1 << 5,		/* the LAVA jobs its boots became, in order */
	/* everything job_record_json() shows */
	JOB_LOAD_DOC = JOB_LOAD_STAGES | JOB_LOAD_TESTS | JOB_LOAD_SIGS | JOB_LOAD_LOGS |
		       JOB_LOAD_LAVA,
};

struct job_record_stage {
	int attempt;
	char *variant, *stage, *status;	/* status: running, ok, failed, skipped */
	char *detail;			/* NULL: none */
	double started_at, finished_at;
	bool open;			/* no finished_at yet (finished_at is 0) */
};

struct job_record_test {
	sqlite3_int64 id;		/* the order the runner recorded them in */
	char *variant, *name, *status;	/* status: pass, fail, skip, flaky */
	int runs, failures;
	char *diagnostics;
	char *change;			/* "FAIL->PASS" ...; NULL without a baseline */
};

struct job_record_sig {
	char *variant, *kind, *title, *frames, *hash;
};

/* One boot in a LAVA lab ([runner] backend = lava). */
struct job_record_lava {
	int attempt;
	long long lava_id;		/* 0: not submitted (LAVA did not answer) */
	char *variant, *boot;		/* boot: "all", or "all/sr-capacity" for a re-run */
	char *state;			/* LAVA's state, or "waiting" */
	char *url, *health, *device, *outcome;	/* NULL where unknown yet */
};

/* The candidate's facts; all "" and 0 for a job without a patch. */
struct job_record_candidate {
	char *name, *kind, *sha256;	/* kind: patch, series, mbox */
	int patch_count;
	char *content;			/* JOB_LOAD_CONTENT: NUL-terminated, else NULL */
	size_t content_len;
};

struct job_record {
	sqlite3_int64 id, bug_id, candidate_id, parent_id;
	char *kind, *base, *state;
	char *base_reason;		/* why this base (NULL: not recorded) */
	char *purpose;			/* "", "backtest", "release" (schema/0017_bases.sql) */
	char *boot_args;		/* added to the kernel command line (NULL: none) */
	int patch_count;		/* 0: all */
	bool with_baseline, cancel, reported;
	int attempts;
	/* NULL where the column is NULL */
	char *stage, *progress, *runner, *verdict, *change, *verdict_detail, *accel,
	     *kernel_version, *log_dir;
	long long created_at, started_at, finished_at;
	enum fault fault;		/* whose fault the outcome is (fault.h) */
	/* Did the run execute the patch's changed lines?  reach NULL: not measured. */
	char *reach;
	int reach_changed, reach_reached;
	/* Its place in the queue (schema/0020_queue.sql): "" is the operator's account. */
	char *account;
	int lane;			/* 0 allow_commands, 1 first verdict, 2 follow-up */
	long long not_before;		/* queued: not claimed before (0: due) */
	char *held;			/* why it waits for a budget (NULL: it does not) */
	struct job_record_candidate cand;

	struct job_record_stage *stages;	/* in the order they ran */
	int nstages;
	struct job_record_test *tests;	/* patched before baseline, then by name */
	int ntests;
	struct job_record_sig *sigs;	/* patched before baseline, then as found */
	int nsigs;
	char **logs;			/* file names, sorted */
	int nlogs;
	struct job_record_lava *lava;	/* in the order they were made */
	int nlava;
};

#define JOB_RECORD_INIT { 0 }

/*
 * Load job id with the parts `flags` names into *rec, which must be
 * zeroed (JOB_RECORD_INIT) or released.  Returns 1 when loaded, 0 when
 * there is no such job, -1 on a database error (logged); *rec is left empty
 * unless 1.
 */
int job_record_load(struct db *db, sqlite3_int64 id, unsigned flags, struct job_record *rec);
void job_record_release(struct job_record *rec);

/* s, or "" for a NULL column. */
static inline const char *job_str(const char *s) { return s ? s : ""; }
/* A lane in words: "allowed", "first", "follow-up" (job_queue.h). */
const char *job_lane_name(int lane);

/* Does variant have test results or signatures?  (needs TESTS and SIGS) */
bool job_record_ran(const struct job_record *rec, const char *variant);
/* Did a test of variant fail, or did it show a signature?  (needs TESTS and SIGS) */
bool job_record_failed(const struct job_record *rec, const char *variant);

/*
 * A pass that never executed any of the patch's changed lines (measured:
 * reach_changed > 0, reach_reached 0): "pass (not reached)", which says
 * nothing about the patch and never counts as a fix.
 */
bool job_record_not_reached(const struct job_record *rec);
/*
 * The verdict "untested" (issue 32): the patch changes code the runner's
 * kernel configuration cannot build, or that was not compiled, so no test
 * judged it (verdict_detail says why, a line per file).  No pass, no fix,
 * no regression; nobody's fault.
 */
bool job_record_untested(const struct job_record *rec);

/* --- job_json.c -------------------------------------------------------- */

struct json_object;

/*
 * The job as the one JSON document of `bugbridge job show --json` and
 * GET /api/jobs/<id> (docs/api.md lists the fields).
 * Load it with JOB_LOAD_DOC.  The caller owns the returned reference.
 */
struct json_object *job_record_json(const struct job_record *rec);

#endif
