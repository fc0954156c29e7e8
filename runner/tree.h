/*
 * tree: the kernel trees a job builds in.  tree.c extracts the pristine
 * baseline once, makes each job's tree as a hardlink farm of it, and keeps
 * the seed build (out/ of the base) that jobs start from; seed.c says what
 * a seed was made from and why none fits a job.
 */
#ifndef BB_TREE_H
#define BB_TREE_H

#include <stdbool.h>
#include "buf.h"
#include "run.h"

/* ---- tree.c ---- */
/* Extract the tarball once (locked); r->base_tree, r->kernel_version. */
int tree_base_ensure(struct run *r);
/* v->tree as a hardlink farm of the baseline (no out/ yet): the spare, or a new one. */
int tree_make(struct run *r, struct variant *v);
/* Make the next job's tree now (between jobs), unless one is waiting. */
void tree_refill_spare(struct run *r);
/* v->out from the seed (candidate files touched: v->seeded), or empty without one. */
int tree_seed(struct run *r, struct variant *v);
/*
 * tree_seed's: the candidate's patched files touched (now), through
 * lib/safefile; a link on the way is the patch's verdict (apply-failed).
 */
int tree_touch_candidate(struct run *r, struct variant *v);
/*
 * v (the base alone) boots the seed's own kernel, built as it would be:
 * its kernel and version copied into v->out, a "build" stage saying so.
 */
int tree_use_seed(struct run *r, struct variant *v);
/* After a seed build (no candidate patches): keep v->out as the seed (gcov or plain). */
int tree_save_seed(struct run *r, struct variant *v);
/*
 * The bzImage of a seed of this job's base (the plain one, else the gcov
 * one): a kernel bugbridge built itself, for the KVM probe.  -1 when none.
 */
int tree_seed_kernel(struct run *r, struct buf *out);
/* Is there a seed of v's kind (gcov or plain)? */
bool tree_has_seed(struct run *r, const struct variant *v);
/* Files touched only by the harness get the baseline's mtime (see tree.c). */
int tree_settle_harness(struct run *r, struct variant *v, char **touched, int ntouched,
			char **cand_touched, int ncand);

/* ---- seed.c ---- */
/* The ingredients of this runner's seed key, "what<TAB>value" lines (+ gcov). */
void seed_parts(struct run *r, bool coverage, struct buf *out);
/* Keep them beside the seed as <key>.parts, unless there already. */
int seed_parts_save(struct run *r, bool coverage);
/* Pure: the ingredients in which two parts texts differ ("; "-joined); how many. */
int seed_parts_diff(const char *ours, const char *theirs, struct buf *out);
/* Why no seed build fits this runner's key (for the log and the job page). */
void seed_explain(struct run *r, struct buf *why);
/*
 * Take the lock of the seed of v's kind, waiting (and saying so in the
 * job's progress and a note on a "build" stage) while another runner holds
 * it; *fd is the lock, for seed_unlock.  -1: interrupted, or no lock file
 * (r->infra says why).
 */
int seed_lock(struct run *r, const struct variant *v, int *fd);
void seed_unlock(int fd);

#endif
