/*
 * shard (pure but for the timing file): the suite of one scenario boot
 * split over several guests booted at once, each with "bbsuite.tests=" of
 * its share (boot.c runs them and merges their results).  How many guests,
 * and which tests each runs, from the host's CPUs and what a boot and each
 * test took here before.
 */
#ifndef BB_SHARD_H
#define BB_SHARD_H

#include <stdbool.h>
#include "buf.h"

struct scenario_boot;
struct vtest;

#define SHARD_MAX 8

/* What a suite's boot costs here: the times file, or the defaults. */
struct shard_times {
	double boot;			/* seconds to /init */
	char **names;			/* test names ... */
	double *seconds;		/* ... and what each took */
	int n;
	bool measured;			/* from a run on this host, not the defaults */
};

/* Pure: how many guests for a suite of these times on cpus CPUs (1..SHARD_MAX). */
int shard_count(const struct shard_times *t, const struct scenario_boot *sb, double cpus);
/*
 * Pure: sb's tests dealt to n shards.  Each test goes to the shard that has
 * the least time so far (longest first, ties to the lower shard, then by
 * the scenario's order), so the same times give the same shards; a test
 * that judges the whole boot (kernel-log-clean) is in every shard.  Each
 * shard lists its tests in the scenario's order: out[k] its names,
 * nout[k] how many.  Free with shard_plan_free.
 */
void shard_plan(const struct shard_times *t, const struct scenario_boot *sb, int n,
		char ***out, int *nout);
void shard_plan_free(char ***out, int *nout, int n);
/*
 * Pure: the shards' results of one boot, t[first] to t[*n - 1], as one
 * guest's: a test that ran in several shards (one that judges the whole
 * boot) becomes one, failed when it failed in any (with that shard's
 * diagnostics); then the tests in the boot's order (order[]), any it does
 * not name after them as they came.  The earlier boots' tests, t[0] to
 * t[first - 1], stay where they are.
 */
void shard_merge_tests(struct vtest *t, int *n, int first, char *const *order, int norder);
/* Pure: does the test judge the whole boot (never re-run, in every shard)? */
bool shard_whole_boot(const char *name);

/*
 * Pure: the seconds each test took and the time to /init, from a console
 * ("# NAME took 0.21 s" before "# bbsuite:", "[    2.13] Run /init"),
 * added to t (a test already there keeps its first time).  Returns the
 * guest's seconds they add up to (its boot and its tests), to be checked
 * against the host's clock; -1 when the console has no suite in it.
 */
double shard_times_from_console(const char *console, struct shard_times *t);
/* Read dir/test-times (else the defaults, measured false). */
void shard_times_load(const char *dir, struct shard_times *t);
/* Keep t as dir/test-times, unless there already: the same shards from then on. */
void shard_times_save(const char *dir, const struct shard_times *t);
void shard_times_release(struct shard_times *t);

#endif
