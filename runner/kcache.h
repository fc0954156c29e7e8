/*
 * kcache: kernels kept to be booted again (issue 24).  With [runner]
 * reuse_kernels on, the bzImage of a patched variant that built is kept
 * under <cache>/kernels/<key>, the key hashing the seed (base, config,
 * harness) and every candidate patch; a later job with the same key boots
 * that kernel instead of preparing a tree and building it again.  The
 * mutation campaign builds every mutant into one kernel and runs a job per
 * mutant with its own boot arguments (bb_mutant=N): one build, N boots.
 * Not for coverage runs (gcov needs the job's own tree) nor for jobs that
 * also run the base.  The newest KCACHE_KEEP kernels are kept.
 */
#ifndef BB_KCACHE_H
#define BB_KCACHE_H

#include <stdbool.h>

struct run;
struct variant;

#define KCACHE_KEEP 4

/* Does v of this job take part (the config key, no gcov, no baseline)? */
bool kcache_on(const struct run *r, const struct variant *v);
/* 1: the kept kernel is copied to <variant dir>/bzImage, which boot.c
 * boots (its stage row says so); 0: none kept; -1: r->infra says why. */
int kcache_find(struct run *r, struct variant *v);
/* Keep v's kernel after its boot: boot.c's copy in <variant dir>, made
 * through lib/safefile (a failure only logs: the job goes on). */
void kcache_keep(struct run *r, const struct variant *v);

#endif
