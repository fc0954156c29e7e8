/*
 * warm: `bugbridge-runner --warm`, the seeds built ahead of any job.
 *
 * A job on a cold cache builds the base in full first (the seed, tree.c),
 * then its own kernel incrementally.  --warm builds those seeds now: of
 * every kept series ([runner] bases: 6.1 and 6.12 by default), so that no
 * job, a back-test on the other series included, starts cold; or, with
 * --base, of that base alone.  Each is the kind every job uses ([runner]
 * coverage: the gcov one).  Before each build it says how long it will
 * take, from what was measured on this host:
 *
 *   - the median of that base's last full builds on this host (their
 *     job_stages rows, lib/estimate.h), else the last full build of that
 *     base on this cache (<cache>/seed/.full-build-<base>: seconds and
 *     objects, kept by every full build of a base, run.c, --warm's too);
 *   - else another base's: its rate (seconds per object) times its objects,
 *     the same config on a kernel of about the same size;
 *   - else a figure scaled from the processors (a full build of the
 *     runner's config with gcov is about 330 CPU-seconds with a cold ccache
 *     on the 2-core reference host, measured 2026-12-07).
 *
 * A seed in place is said and skipped.  It writes no job rows: stage.c
 * only logs the stages of job 0.  Another runner building the same seed
 * meanwhile is waited for (seed.c), not built beside.
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

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CPU_SECONDS_COLD 330.0
#define RECORD ".full-build-"

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void record_path(struct run *r, const char *base, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s/seed/" RECORD "%s", r->cache, base);
}

static int read_record(const char *path, double *seconds, int *objects)
{
	struct buf text = BUF_INIT;
	int ret = -1;

	if (!buf_read_file(&text, path) && sscanf(text.ptr, "%lf %d", seconds, objects) == 2 &&
	    *seconds > 0 && *objects > 0)
		ret = 0;
	buf_release(&text);
	return ret;
}

int warm_last(struct run *r, double *seconds, int *objects)
{
	struct buf path = BUF_INIT;
	int ret;

	record_path(r, r->job->base, &path);
	ret = read_record(path.ptr, seconds, objects);
	buf_release(&path);
	return ret;
}

/* Another base's last full build here: its name into other.  -1: none. */
static int other_last(struct run *r, double *seconds, int *objects, struct buf *other)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;
	struct dirent *e;
	DIR *d;
	int ret = -1;

	buf_addf(&dir, "%s/seed", r->cache);
	d = opendir(dir.ptr);
	while (d && ret && (e = readdir(d))) {
		if (strncmp(e->d_name, RECORD, strlen(RECORD)) ||
		    !strcmp(e->d_name + strlen(RECORD), r->job->base))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir.ptr, e->d_name);
		if (read_record(path.ptr, seconds, objects))
			continue;
		buf_reset(other);
		buf_addstr(other, e->d_name + strlen(RECORD));
		ret = 0;
	}
	if (d)
		closedir(d);
	buf_release(&dir);
	buf_release(&path);
	return ret;
}

/* The estimate in seconds, and what it stands on, for the line --warm prints. */
static double estimate(struct run *r, struct buf *basis)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct buf other = BUF_INIT;
	struct est_stats st;
	double s = 0;
	int objects;

	if (!est_stats_load(r->db, &st) && est_full_build(&st, r->job->base, &s, &objects)) {
		buf_addstr(basis, "the median of its last full builds on this host");
	} else if (!warm_last(r, &s, &objects)) {
		buf_addstr(basis, "as long as the last full build on this cache");
	} else if (!other_last(r, &s, &objects, &other)) {
		/* the same config on the other kernel: its rate times its objects */
		buf_addf(basis, "from this host's rate: %d objects of %s in %.0f s", objects,
			 other.ptr, s);
	} else {
		s = CPU_SECONDS_COLD / (ncpu > 0 ? ncpu : 1);
		buf_addstr(basis, "estimated from the number of processors");
	}
	est_stats_release(&st);
	buf_release(&other);
	return s;
}

void warm_record(struct run *r, double seconds, int objects)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	record_path(r, r->job->base, &path);
	buf_addf(&text, "%.0f %d\n", seconds, objects);
	if (write_file(path.ptr, text.ptr, text.len, WF_ATOMIC))	/* only an estimate lost */
		log_warn("runner: cannot keep the build time in '%s'", path.ptr);
	buf_release(&path);
	buf_release(&text);
}

static int warm(struct run *r)
{
	bool coverage = cfg_bool("runner.coverage");
	struct buf seed = BUF_INIT, basis = BUF_INIT;
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
	       coverage ? " with gcov" : "", est / 60, est % 60, basis.ptr);
	fflush(stdout);
	start = now_mono();
	ret = run_seed(r, coverage);
	if (!ret)
		printf("bugbridge-runner: seed built in %.0f s: %s\n", now_mono() - start, seed.ptr);
	buf_release(&seed);
	buf_release(&basis);
	return ret;
}

/* The seed of one base; 0 when it is there (built now, or before). */
static int warm_base(struct db *db, const char *base, const volatile sig_atomic_t *stop)
{
	struct job job = JOB_INIT;
	struct run r = { .db = db, .job = &job, .stop = stop };
	int ret;

	job.base = (char *)base;
	ret = run_begin(&r) || warm(&r) ? -1 : 0;
	if (ret)
		fprintf(stderr, "bugbridge-runner: --warm failed for %s: %s\n", base,
			r.infra.len ? r.infra.ptr : "interrupted");
	if (r.jobdir && !getenv("BUGBRIDGE_KEEP_TREES") && !ret)
		remove_tree(r.jobdir);
	if (r.base_tree && !ret)
		tree_refill_spare(&r);	/* and the first job's tree */
	run_end(&r);
	return ret;
}

int run_warm(struct db *db, const char *base, const volatile sig_atomic_t *stop)
{
	struct buf def = BUF_INIT;
	char **kept;
	int n, ret = 0;

	if (base)
		return warm_base(db, base, stop);
	kept = bases_kept(&n);
	if (!n)		/* no series installed: the default's tarball says why */
		ret = warm_base(db, bases_default(&def)->ptr, stop);
	for (int i = 0; i < n && !(stop && *stop); i++)
		ret |= warm_base(db, kept[i], stop);
	bases_free(kept, n);
	buf_release(&def);
	return ret ? -1 : 0;
}
