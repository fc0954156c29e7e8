/*
 * warm: `bugbridge-runner --warm`, the seed built ahead of any job.
 *
 * A job on a cold cache builds the base in full first (the seed, tree.c),
 * then its own kernel incrementally.  --warm builds that seed now, the kind
 * a patch's job uses ([runner] coverage: the gcov one), and says first how
 * long it will take: the median of the base's last full builds on this
 * host (their job_stages rows, lib/estimate.h), else the last full build's
 * time on this cache (<cache>/seed/full-build: seconds and objects, kept by
 * every unseeded build of the base, run.c), else a
 * figure scaled from this machine's processors (a full build of the runner's
 * config with gcov is about 260 CPU-seconds with a cold ccache: 130 s on 2
 * cores, measured 2026-12-04 after the config lost its unused options).  With the seed in
 * place it says so and exits at once.  It writes no job rows: stage.c only
 * logs the stages of job 0.
 */
#include "run.h"
#include "paths.h"
#include "tree.h"
#include "buf.h"
#include "db.h"
#include "job.h"
#include "bases.h"
#include "config.h"
#include "estimate.h"
#include "log.h"
#include "wfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CPU_SECONDS_COLD 260.0

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void record_path(struct run *r, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s/seed/full-build", r->cache);
}

int warm_last(struct run *r, double *seconds, int *objects)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int ret = -1;

	record_path(r, &path);
	if (!buf_read_file(&text, path.ptr) && sscanf(text.ptr, "%lf %d", seconds, objects) == 2 &&
	    *seconds > 0 && *objects > 0)
		ret = 0;
	buf_release(&path);
	buf_release(&text);
	return ret;
}

/* The estimate in seconds, and what it stands on. */
static double estimate(struct run *r, const char **basis)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct est_stats st;
	double s = 0;
	int objects;

	*basis = "the median of its last full builds on this host";
	if (est_stats_load(r->db, &st) || !est_full_build(&st, r->job->base, &s, &objects)) {
		*basis = "as long as the last full build on this cache";
		if (warm_last(r, &s, &objects)) {
			*basis = "estimated from the number of processors";
			s = CPU_SECONDS_COLD / (ncpu > 0 ? ncpu : 1);
		}
	}
	est_stats_release(&st);
	return s;
}

void warm_record(struct run *r, double seconds, int objects)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	record_path(r, &path);
	buf_addf(&text, "%.0f %d\n", seconds, objects);
	if (write_file(path.ptr, text.ptr, text.len, WF_ATOMIC))	/* only an estimate lost */
		log_warn("runner: cannot keep the build time in '%s'", path.ptr);
	buf_release(&path);
	buf_release(&text);
}

static int warm(struct run *r)
{
	bool coverage = cfg_bool("runner.coverage");
	struct buf seed = BUF_INIT;
	const char *basis;
	double start;
	long est;
	int ret;

	buf_addf(&seed, "%s/seed/%s", r->cache, coverage ? r->seed_key_gcov : r->seed_key);
	if (path_exists(seed.ptr)) {
		printf("bugbridge-runner: the seed of %s is built (%s): jobs build incrementally\n",
		       r->kernel_version, seed.ptr);
		buf_release(&seed);
		return 0;
	}
	est = (long)(estimate(r, &basis) + 0.5);
	printf("bugbridge-runner: building the seed of %s (%s config%s): about %ld min %02ld s"
	       " (%s)\n", r->kernel_version, cfg_str("runner.config_variant"),
	       coverage ? " with gcov" : "", est / 60, est % 60, basis);
	fflush(stdout);
	start = now_mono();
	ret = run_seed(r, coverage);
	if (!ret)
		printf("bugbridge-runner: seed built in %.0f s: %s\n", now_mono() - start, seed.ptr);
	buf_release(&seed);
	return ret;
}

int run_warm(struct db *db, const char *base, const volatile sig_atomic_t *stop)
{
	struct job job = JOB_INIT;
	struct run r = { .db = db, .job = &job, .stop = stop };
	struct buf def = BUF_INIT;
	int ret;

	bases_default(&def);
	job.base = (char *)(base ? base : def.ptr);
	ret = run_begin(&r) || warm(&r) ? -1 : 0;
	if (ret)
		fprintf(stderr, "bugbridge-runner: --warm failed: %s\n",
			r.infra.len ? r.infra.ptr : "interrupted");
	if (r.jobdir && !getenv("BUGBRIDGE_KEEP_TREES") && !ret)
		remove_tree(r.jobdir);
	if (r.base_tree && !ret)
		tree_refill_spare(&r);	/* and the first job's tree */
	run_end(&r);
	buf_release(&def);
	return ret;
}
