/*
 * run: the job model.  A struct run is one job in progress, a struct
 * variant one of its trees ("patched" or "baseline"), a struct patch_item
 * one patch of a series, a struct reach how much of the candidate's change
 * the guest executed.  run.c takes a claimed job through its stages to a
 * verdict; warm.c builds the seed ahead of any job.
 *
 * Everything a stage writes lives under the job's directory in the cache;
 * logs under <job dir>/logs, or <[runner] log_dir>/<job dir name> when
 * that is set, which is what jobs.log_dir names.
 */
#ifndef BB_RUN_H
#define BB_RUN_H

#include <signal.h>
#include <stdbool.h>
#include "buf.h"
#include "db.h"
#include "fault.h"
#include "job.h"

struct run;
struct ktap_result;
struct vtest;
struct logscan_result;
struct scenario;
struct build_progress;
struct kplan;
struct jobserver;

/* How much of the candidate's change the run executed (coverage.c). */
struct reach {
	int changed, reached;		/* executable changed lines, of those executed */
	struct buf unreached_funcs;	/* "sd_eh_action (sd.c), ..." */
	struct buf not_measured;	/* files gcov cannot see, with why */
	struct buf no_lines;		/* files with no lines that run (Kconfig, docs), with why */
	struct buf files;		/* each measured file's count: "sr.c 1 of 1, ..." */
	int nfiles;			/* files measured */
	struct buf log;			/* one line per counted line */
	struct buf summary;		/* the verdict's line */
};

struct variant {
	struct run *run;
	const char *name;		/* "patched" or "baseline" */
	char *dir;			/* <job dir>/<name> */
	char *tree;			/* <dir>/tree */
	char *out;			/* <tree>/out, the O= dir */
	char *logs;			/* <job dir>/logs */
	int npatches;			/* candidate patches applied (0: baseline) */
	bool seeded;			/* out/ came from the seed build */
	bool seed_exact;		/* of its own kind (gcov or plain): same .config */
	struct buf no_seed;		/* else why not (seed_explain), for the build stage */
	bool kconfig_touched;		/* a candidate patch changed a Kconfig file */
	bool grown;			/* configured with the job's own options too (kplan.h) */
	double build_seconds;		/* make's wall clock */
	int build_objects;		/* objects it compiled (progress.c) */
	/* outcome */
	const char *verdict;		/* NULL: still going */
	enum fault fault;		/* whose: set with the verdict (stage_fail) */
	struct buf detail;
	struct buf console;		/* full-suite console */
	struct ktap_result *ktap;
	struct vtest *tests;		/* after flake reruns */
	int ntests;
	struct logscan_result *problems;
	bool from_cache;		/* baseline results came from baseline_runs */
	/* reach (coverage.c): only the patched variant, with [runner] coverage */
	bool coverage;			/* built with configs/gcov.config */
	char **cand_files;		/* files the candidate touched */
	int ncand_files;
	int gcda_files;			/* gcov files the guest handed back */
	int gcda_added;			/* of those, added to another shard's (gcda.h) */
	bool reach_measured;
	struct reach reach;
};

struct patch_item {
	char *name;			/* as given: "foo.patch", a series entry, a mail's subject */
	char *path;			/* file on disk */
};

struct run {
	struct db *db;
	struct job *job;
	const volatile sig_atomic_t *stop;	/* SIGTERM: release and exit */
	volatile int cancel;		/* child.h kills the child when set */
	bool lease_lost;
	bool cancelled;
	double last_renew;
	double last_cancel_check;
	char *cache;			/* cache dir */
	char *patches_dir;		/* kernel-patches */
	char *base_tree;		/* pristine baseline */
	int base_lock;			/* fd + 1 of its lock, held while we use it (fetch.c) */
	char *kernel_version;
	char *compiler;			/* build_compiler_id() */
	char *jobdir;			/* <cache>/jobs/<id> */
	char *logs;			/* <jobdir>/logs */
	char *suite_bin;		/* built bbsuite */
	char *seed_key;			/* base+config+harness hash */
	char *seed_key_gcov;		/* + configs/gcov.config: the coverage seed */
	char *suite_key;		/* + suite: baseline cache key */
	const char *accel;		/* "kvm" or "tcg" after the probe */
	struct patch_item *patches;	/* candidate series */
	int npatches;
	struct patch_item *harness;
	int nharness;
	struct scenario *scenario;	/* only the boots this job runs (controllers.c) */
	char **configs;			/* the chosen controllers' fragments (configs/NAME.config) */
	int nconfigs;
	char *controllers_note;		/* which controllers, and why: for the job page */
	struct kplan *plan;		/* what the patch needs of the build (kplan.h) */
	sqlite3_int64 stage_id;
	const char *stage_variant;
	struct buf infra;		/* infra-error reason, if any */
	enum fault fault;		/* whose: FAULT_OURS, else the infrastructure's */
	bool log_failed;		/* joblog.c said so in infra already */
	struct build_progress *progress;	/* a build is running: stage_tick reads it */
	struct jobserver *jobserver;	/* and its share of the CPUs (jobserver.h) */
};

/* ---- run.c ---- */
/* Run one claimed job to its verdict (or release/cancel). */
int run_job(struct db *db, struct job *job, const volatile sig_atomic_t *stop);
/* Setup and prepare of r (r->db, r->job, r->stop set); run_end releases. */
int run_begin(struct run *r);
void run_end(struct run *r);
/* Build the base as the seed of this kind unless the cache has it. */
int run_seed(struct run *r, bool coverage);

/* ---- warm.c ---- */
/*
 * bugbridge-runner --warm: the seed a job would build first, built now: of
 * base, or (NULL) of every kept base.
 */
int run_warm(struct db *db, const char *base, const volatile sig_atomic_t *stop);
/* Keep the time and object count of a full build of the job's base (estimates). */
void warm_record(struct run *r, double seconds, int objects);
/* The last ones kept; -1 when none. */
int warm_last(struct run *r, double *seconds, int *objects);

#endif
