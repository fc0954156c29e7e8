/*
 * estimate: how long jobs take on this host, from the stage times the
 * runner measured here (job_stages rows, schema 0021: a build row says
 * whether it was a full or an incremental build and how many objects it
 * compiled).
 *
 * The measure of a step (prepare, apply, configure, a full build, an
 * incremental build, boot, test, report) is the median of its last
 * EST_RECENT successful runs on the job's base, else on any base (said so),
 * else none: no estimate, and the pages say "no measurement yet".
 *
 * A job is a plan of steps: prepare, apply; the base built first when the
 * job has patches and no seed of its base was built on this host (the
 * baseline's build when it runs one, else the seed); configure, build
 * (incremental on a seed, else full), boot, test; the baseline's boot and
 * test unless its results are cached (a baseline_runs row of that base
 * younger than [runner] baseline_max_age); report.  A running job has left
 * the rest of its current step and the steps after it; a running build
 * counts its own progress: objects compiled, of the median of the base's
 * last full builds.  A step that runs longer than its median is given a
 * tenth of it more, never nothing.
 *
 * Queued jobs are dealt, in the order given (the runners'), to whichever
 * of `slots` runners frees up first, each no earlier than its not_before;
 * what a job ahead builds (a seed, a baseline) counts for those after it.
 */
#ifndef BB_ESTIMATE_H
#define BB_ESTIMATE_H

#include <stdbool.h>
#include <time.h>
#include "db.h"

#define EST_RECENT 5

enum est_step {
	EST_PREPARE, EST_APPLY, EST_CONFIGURE, EST_BUILD_FULL, EST_BUILD_INCR,
	EST_BOOT, EST_TEST, EST_REPORT, EST_NSTEPS
};

/* One base's measures: the median of each step's last EST_RECENT runs. */
struct est_base {
	char base[64];			/* jobs.base: linux-source-6.1 */
	double median[EST_NSTEPS];	/* seconds; valid where count > 0 */
	int count[EST_NSTEPS];		/* runs the median is of (<= EST_RECENT) */
	double objects;			/* objects of a full build (median); 0: unknown */
	int nobjects;
};

struct est_stats {
	struct est_base *v;
	int n, alloc;
	struct est_base any;		/* every base together: the fallback */
};

/* Read the measures (the newest few thousand stage rows).  -1 on a database error. */
int est_stats_load(struct db *db, struct est_stats *s);
void est_stats_release(struct est_stats *s);
/*
 * A step's measure for base, falling back to every base; *from_base says
 * which.  false: never measured on this host.
 */
bool est_step(const struct est_stats *s, const char *base, enum est_step step,
	      double *seconds, bool *from_base);

/*
 * A full build of base as measured here (no fallback: another base's
 * kernel compiles another number of objects): the medians of its seconds
 * and objects.  false: none measured.
 */
bool est_full_build(const struct est_stats *s, const char *base, double *seconds,
		    int *objects);

/* A job as the queue sees it; est_queue fills the last part. */
struct est_job {
	sqlite3_int64 id;
	bool running;
	time_t not_before;		/* queued: not before this (0: due) */
	/* filled in */
	char base[64];			/* jobs.base */
	time_t start, finish;		/* 0: no estimate */
	int done, total;		/* running build: objects compiled, of (0: unknown) */
	bool overdue;			/* its current step runs longer than its median */
};

/*
 * Estimate each job (running ones first, then the queued in claim order)
 * with `slots` runners, at now.  A job a step of whose plan was never
 * measured, or whose rows cannot be read, has no estimate, nor has any
 * queued after it.  *typical: a job with a patch on the newest measured
 * base, its seed built (0: not measured).
 */
void est_queue(struct db *db, const struct est_stats *s, time_t now, int slots,
	       struct est_job *v, int n, long *typical);

/*
 * What the estimates of a job on base stand on (NULL: any base), for the
 * pages: "from the last 7 builds and 5 boots of linux-source-6.1 on this
 * host" (each step: the median of its last EST_RECENT), or "no measurement
 * yet (...)".
 */
void est_basis(const struct est_stats *s, const char *base, struct buf *out);

#endif
