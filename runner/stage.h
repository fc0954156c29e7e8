/*
 * stage: what every stage of a job uses.  stage.c keeps the job_stages rows
 * and runs each stage's child with the lease kept alive and a cancel seen;
 * progress.c reads a build's progress from its own output, with an
 * estimate; joblog.c writes job logs (a log we cannot write is infra-error).
 */
#ifndef BB_STAGE_H
#define BB_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "child.h"
#include "fault.h"
#include "run.h"

/* ---- stage.c ---- */
/* The claim has just renewed the lease: start its clock. */
void stage_lease_start(struct run *r);
/*
 * The child.h tick: renew the lease about every lease/3 s, read the cancel
 * flag every 2 s, see SIGTERM; r->cancel set on any (or a lost lease).
 */
void stage_tick(void *arg);
/* stage_tick() now; true when the job is to stop. */
bool stage_interrupted(struct run *r);
/*
 * child_run(ch) with the job's tick and cancel flag: the lease stays alive
 * and a cancel, a lost lease or SIGTERM kills the child; its log (if any)
 * keeps [runner] max_build_log bytes, head and tail.  child_run's result.
 */
int stage_child(struct run *r, struct child *ch);
/* The same for n children at once (child_run_all). */
int stage_children(struct run *r, struct child *const *chs, int n);
/*
 * Before stage_child: ch's capture (no log_path: stdout and stderr) kept
 * within max_build_log like a log, head and tail: apply's and gcov's
 * output, which the tree's patch or build can make as large as it likes.
 */
void stage_cap_output(struct child *ch);
/*
 * After a stage_child of untrusted code: did its output pass max_build_log?
 * Then a flood, the tree's doing: why says so (the log keeps head and tail).
 */
bool stage_flooded(const struct child *ch, const char *what, struct buf *why);
/* End the current stage "ok", begin the next (job_stages + progress); v NULL: patched. */
int stage_begin(struct run *r, struct variant *v, const char *stage);
/* A note on the current stage, shown on the job page (kept when it ends ok). */
int stage_note(struct run *r, const char *detail);
/* End the current stage (if any): status "ok" or "failed", detail may be NULL. */
int stage_end(struct run *r, const char *status, const char *detail);
/*
 * End the variant with a verdict of the patch's making (and its stage,
 * failed): v->fault is FAULT_PATCH (FAULT_NONE for the base's own run).
 */
void stage_fail(struct variant *v, const char *verdict, const char *detail);
/*
 * No verdict of the patch's: the reason appended to r->infra (the job ends
 * in infra-error), whose fault it is in r->fault unless a reason is there
 * already.  A reason written into r->infra directly is the infrastructure's.
 */
void stage_blame(struct run *r, enum fault f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- progress.c ---- */
struct build_progress {
	struct variant *v;
	const char *log_path;		/* make's output, growing */
	long long off;			/* read so far */
	int done, total;		/* objects compiled; of (0: not known) */
	double total_secs;		/* the last full build's time (0: not known) */
	double start, last;
	struct buf line;		/* the line being read */
	struct buf step;		/* make's last step: "LD vmlinux" */
};
void progress_start(struct run *r, struct build_progress *p, struct variant *v,
		    const char *log_path);
void progress_stop(struct run *r, struct build_progress *p);
/* stage_tick: every 2 s (20 s without a job) the line to job_progress or stdout. */
void progress_tick(struct run *r);
/* Pure: "patched: build: 412 of 852 objects compiled, about 3 min 10 s left (CC x.o)". */
void progress_text(const struct build_progress *p, double elapsed, struct buf *out);

/* ---- joblog.c ---- */
/* Write (or append) a job log; -1 and r->infra names the file and errno. */
int joblog_write(struct run *r, const char *path, bool append, const char *data, size_t len);
/* After a child with a log_path: -1 and r->infra if its log could not be written. */
int joblog_child(struct run *r, const struct child *ch);

#endif
