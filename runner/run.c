/*
 * run: one claimed job, from its trees to its verdict.
 *
 *   prepare   baseline tree (extracted once), suite binary, the candidate's
 *             patches, the harness series, the scenario file
 *   apply     the patched tree: candidate patches (each dry-run first), then
 *             the harness; before anything is built, so a patch that does
 *             not apply costs seconds and builds nothing
 *   seed      when the cache has no build of the base with this config (or
 *             the job needs a baseline run that is not cached): the base
 *             built in full and kept as the seed (tree.c)
 *   patched   configure (tinyconfig + fragments, checked), build (make
 *             bzImage, incremental from the seed), boot (each scenario
 *             boot once: console, KTAP, kernel problems), test (failing
 *             tests again, boot.c)
 *   baseline  the base's boot and tests, only when the patched run reached
 *             the suite, and only when baseline_runs has no results for
 *             this base, config and suite (baseline.c)
 *   report    verdict, change, test results and signatures, in one
 *             transaction (lib/job.c)
 *
 * So a cold job costs one full build and one incremental one; a warm one
 * with a cached baseline one incremental build and one boot.  The trees
 * are removed after the report, and the next job's tree made then
 * (tree_refill_spare), so neither delays a verdict.
 *
 * Who is to blame decides the verdict (lib/fault.h): a patch that does not
 * apply, does not build, panics or hangs the guest gets apply-failed,
 * build-failed, panic, boot-timeout (FAULT_PATCH, stage_fail); anything
 * else is infra-error, never reported as the patch's: the infrastructure's
 * (a tool that would not run, a full disk, QEMU that would not start: the
 * job queue retries it) or ours (the harness that does not apply, a config
 * option that did not stick, a base that does not build, the scenario
 * file: stage_blame with FAULT_OURS, not retried).
 */
#include "run.h"
#include "kcache.h"
#include "stage.h"
#include "paths.h"
#include "sandbox.h"
#include "tree.h"
#include "fetch.h"
#include "apply.h"
#include "kconfig.h"
#include "kplan.h"
#include "build.h"
#include "boot.h"
#include "lava.h"
#include "coverage.h"
#include "scenario.h"
#include "controllers.h"
#include "keys.h"
#include "logscan.h"
#include "verdict.h"
#include "buf.h"
#include "db.h"
#include "job.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

DB_SQL(sql_run_logdir_get, "SELECT coalesce(log_dir, '') FROM jobs WHERE id = ?");
DB_SQL(sql_run_logdir_set, "UPDATE jobs SET log_dir = ? WHERE id = ? AND runner = ?");

/* ---- prepare ---- */

static int prepare(struct run *r)
{
	struct buf path = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	if (sandbox_check(&r->infra))
		goto out;
	if (tree_base_ensure(r) || build_suite(r) || apply_load_candidate(r))
		goto out;
	buf_addf(&path, "%s/harness", r->patches_dir);
	if (path_exists(path.ptr)) {
		buf_addstr(&path, "/series");
		if (path_exists(path.ptr)) {
			buf_setlen(&path, path.len - strlen("/series"));
			if (apply_load_series_dir(path.ptr, NULL, &r->harness, &r->nharness,
						  &r->infra))
				goto out;
		}
	}
	buf_reset(&path);
	buf_addf(&path, "%s/suite/scenarios", r->patches_dir);
	r->scenario = xcalloc(1, sizeof(*r->scenario));
	if (scenario_load(path.ptr, r->scenario, &err)) {
		stage_blame(r, FAULT_OURS, "%s", err.ptr);
		goto out;
	}
	if (controllers_select(r))
		goto out;
	build_compiler_id(&path);
	r->compiler = buf_detach(&path, NULL);
	runner_keys_make(r);
	ret = 0;
out:
	buf_release(&path);
	buf_release(&err);
	return ret;
}

/* ---- one variant ---- */

static int do_apply(struct run *r, struct variant *v)
{
	struct buf why = BUF_INIT;
	char **cand = NULL, **harness = NULL;
	int ncand = 0, nharness = 0, ret = -1;
	enum fault f;

	stage_begin(r, v, "apply");
	if (tree_make(r, v))
		goto out;
	f = apply_series(r, v, r->patches, v->npatches, "apply", &why, &cand, &ncand);
	if (f == FAULT_PATCH) {
		stage_fail(v, "apply-failed", why.ptr);
		goto out;
	}
	if (f) {
		if (!r->infra.len)	/* else joblog.c said why */
			buf_addstr(&r->infra, "could not run patch");
		goto out;
	}
	f = apply_series(r, v, r->harness, r->nharness, "harness", &why, &harness, &nharness);
	if (f == FAULT_INFRA && r->infra.len)
		goto out;
	if (f) {
		/* The harness is ours; a candidate that conflicts with it is not its fault. */
		stage_blame(r, FAULT_OURS, "the test harness does not apply on top of this tree: %s",
			    why.ptr);
		goto out;
	}
	tree_settle_harness(r, v, harness, nharness, cand, ncand);
	for (int i = 0; i < ncand; i++) {
		const char *base = strrchr(cand[i], '/') ? strrchr(cand[i], '/') + 1 : cand[i];
		if (!strncmp(base, "Kconfig", 7) || strstr(cand[i], "configs/"))
			v->kconfig_touched = true;
	}
	v->cand_files = cand;		/* coverage.c measures what they changed */
	v->ncand_files = ncand;
	cand = NULL;
	ncand = 0;
	ret = 0;
out:
	strv_free(cand, ncand);
	strv_free(harness, nharness);
	buf_release(&why);
	return ret;
}

static int do_build(struct run *r, struct variant *v)
{
	struct buf why = BUF_INIT;
	int ret = -1;
	enum fault f;

	stage_begin(r, v, "configure");
	if (v->grown)		/* which options, for which files */
		kplan_note_config(r);
	/*
	 * The seed's .config came from the same fragments on the same Kconfig
	 * files; unless the patch changed a Kconfig file, it is still right.
	 * (A gcov variant seeded from the plain seed needs the gcov fragment.)
	 */
	if (v->seed_exact && !v->kconfig_touched && !v->grown ? kconfig_check(r, v)
								   : kconfig_configure(r, v))
		goto out;
	stage_begin(r, v, "build");
	if (v->no_seed.len) {
		struct buf note = BUF_INIT;

		buf_addf(&note, "full build: %s", v->no_seed.ptr);
		stage_note(r, note.ptr);
		buf_release(&note);
	}
	f = build_kernel(r, v, &why);
	if (f == FAULT_PATCH && !v->npatches)
		/* The unpatched base must build: if it does not, the fault is ours. */
		stage_blame(r, FAULT_OURS, "the unpatched base does not build: %s", why.ptr);
	else if (f == FAULT_PATCH)
		stage_fail(v, "build-failed", why.ptr);
	if (f)
		goto out;
	if (v->grown)
		kplan_note_build(r, v);		/* what the grown config cost */
	else if (!v->npatches)
		tree_save_seed(r, v);
	if (!v->npatches && !v->seeded && !v->grown)
		warm_record(r, v->build_seconds, v->build_objects);	/* the next estimates */
	ret = 0;
out:
	buf_release(&why);
	return ret;
}

/* Boot and test a built variant; 0 with its verdict, -1 when it ended without. */
static int boot_variant(struct run *r, struct variant *v)
{
	if (boot_suite(r, v) || stage_interrupted(r)) {
		if (v->verdict)
			boot_summarise(v);
		return v->verdict ? 0 : -1;
	}
	if (v->coverage)
		coverage_measure(r, v);
	if (boot_reruns(r, v))
		return -1;
	boot_summarise(v);
	return 0;
}

/* The patched variant after its apply: out/ from the seed, build, boot, test. */
static int run_patched(struct run *r, struct variant *v)
{
	int lock = -1, ret;

	/* the base alone (--none) without a seed builds it: one build at a time (seed.c) */
	if (!v->npatches && !tree_has_seed(r, v) && seed_lock(r, v, &lock))
		return -1;
	ret = tree_seed(r, v) || kplan_profile(r, v) || do_build(r, v);
	seed_unlock(lock);
	if (ret || v->verdict || stage_interrupted(r))
		return v->verdict ? 0 : -1;
	if (kplan_check_built(r, v) || v->verdict)	/* no pass for code not built */
		return v->verdict ? 0 : -1;
	if (!v->npatches)
		v->coverage = false;	/* the base (--none) built like the seed: nothing to measure */
	if (boot_variant(r, v))
		return -1;
	if (kcache_on(r, v))
		kcache_keep(r, v);	/* a kernel that booted, copied out of the tree */
	return 0;
}

/*
 * The base built with the patched variant's config (gcov or not) and kept
 * as the seed.  A base that does not apply the harness or does not build
 * is our fault.
 */
static int build_base(struct run *r, struct variant *v)
{
	if (do_apply(r, v) || v->verdict || stage_interrupted(r) || tree_seed(r, v) ||
	    do_build(r, v) || v->verdict) {
		if (!r->infra.len && !r->cancel)
			stage_blame(r, FAULT_OURS, "the build of the base failed: %s",
				    v->detail.ptr);
		return -1;
	}
	return 0;
}

/* ---- report ---- */

static void add_outcome_rows(const struct variant *v, struct job_test **tests, int *nt,
			     struct job_signature **sigs, int *ns)
{
	for (int i = 0; i < v->ntests; i++) {
		const struct vtest *t = &v->tests[i];
		*tests = xrealloc(*tests, (*nt + 1) * sizeof(**tests));
		(*tests)[(*nt)++] = (struct job_test){ v->name, t->name, t->status, t->runs,
						       t->failures, t->diag, t->change };
	}
	for (int i = 0; v->problems && i < v->problems->n; i++) {
		const struct logscan_problem *p = &v->problems->items[i];
		*sigs = xrealloc(*sigs, (*ns + 1) * sizeof(**sigs));
		(*sigs)[(*ns)++] = (struct job_signature){ v->name, p->kind, p->title, p->frames,
							   p->hash };
	}
}

static int report(struct run *r, struct variant *patched, struct variant *base)
{
	struct job_outcome out = { 0 };
	struct job_test *tests = NULL;
	struct job_signature *sigs = NULL;
	struct buf detail = BUF_INIT;
	int nt = 0, ns = 0, ret;

	if (r->infra.len) {
		out.verdict = "infra-error";
		out.fault = r->fault == FAULT_OURS ? FAULT_OURS : FAULT_INFRA;
		buf_addstr(&detail, r->infra.ptr);
	} else {
		out.verdict = patched->verdict;
		out.fault = patched->fault;
		buf_addstr(&detail, patched->detail.ptr);
		if (base && base->verdict) {
			out.change = verdict_compare(patched->tests, patched->ntests, base->tests,
						     base->ntests, patched->verdict, base->verdict);
			buf_addf(&detail, "\nbaseline%s: %s: %s", base->from_cache ? " (cached)" : "",
				 base->verdict, base->detail.ptr);
		}
		add_outcome_rows(patched, &tests, &nt, &sigs, &ns);
		if (base)
			add_outcome_rows(base, &tests, &nt, &sigs, &ns);
	}
	out.detail = detail.ptr;
	out.accel = r->accel;
	out.kernel_version = r->kernel_version;
	out.log_dir = r->logs;
	out.tests = tests;
	out.ntests = nt;
	out.sigs = sigs;
	out.nsigs = ns;
	if (!r->infra.len && patched->reach_measured) {
		out.reach = patched->reach.summary.ptr;
		out.reach_changed = patched->reach.changed;
		out.reach_reached = patched->reach.reached;
	}
	stage_begin(r, patched, "report");
	ret = job_finish(r->job, r->db, &out, cfg_int("runner.max_attempts"));
	free(tests);
	free(sigs);
	buf_release(&detail);
	return ret;
}

/* ---- the job ---- */

static void variant_init(struct run *r, struct variant *v, const char *name, int npatches)
{
	struct buf b = BUF_INIT;

	memset(v, 0, sizeof(*v));
	v->run = r;
	v->name = name;
	v->npatches = npatches;
	buf_addf(&b, "%s/%s", r->jobdir, name);
	v->dir = buf_detach(&b, NULL);
	buf_addf(&b, "%s/tree", v->dir);
	v->tree = buf_detach(&b, NULL);
	buf_addf(&b, "%s/out", v->tree);
	v->out = buf_detach(&b, NULL);
	v->logs = r->logs;
	v->problems = xcalloc(1, sizeof(*v->problems));
	buf_init(&v->no_seed, 0);
	reach_init(&v->reach);
}

static void variant_release(struct variant *v)
{
	free(v->dir);
	free(v->tree);
	free(v->out);
	buf_release(&v->detail);
	buf_release(&v->no_seed);
	buf_release(&v->console);
	vtests_free(v->tests, v->ntests);
	logscan_release(v->problems);
	free(v->problems);
	strv_free(v->cand_files, v->ncand_files);
	reach_release(&v->reach);
}

static void run_release(struct run *r)
{
	fetch_release_hold(r);
	free(r->cache);
	free(r->patches_dir);
	free(r->base_tree);
	free(r->kernel_version);
	free(r->compiler);
	free(r->jobdir);
	free(r->logs);
	free(r->suite_bin);
	free(r->seed_key);
	free(r->seed_key_gcov);
	free(r->suite_key);
	kplan_free(r->plan);
	patch_items_free(r->patches, r->npatches);
	patch_items_free(r->harness, r->nharness);
	if (r->scenario)
		scenario_release(r->scenario);
	strv_free(r->configs, r->nconfigs);
	free(r->controllers_note);
	free(r->scenario);
	buf_release(&r->infra);
}

/*
 * A runner killed mid-job leaves its trees behind; the run that takes the
 * job over removes them (the logs stay) and records its own log dir, so
 * `job show` points at the live attempt.  The old job dir's name is the
 * last part of the old log dir (or the part before "/logs").
 */
static void drop_old_trees(struct run *r)
{
	sqlite3_stmt *st = db_stmt(r->db, sql_run_logdir_get);
	struct buf old = BUF_INIT, prefix = BUF_INIT, path = BUF_INIT;
	const char *name;

	if (st) {
		sqlite3_bind_int64(st, 1, r->job->id);
		if (sqlite3_step(st) == SQLITE_ROW)
			buf_addstr(&old, db_col_text(st, 0));
		sqlite3_reset(st);
	}
	if (old.len > 5 && !strcmp(old.ptr + old.len - 5, "/logs"))
		buf_setlen(&old, old.len - 5);
	name = strrchr(old.ptr, '/') ? strrchr(old.ptr, '/') + 1 : old.ptr;
	buf_addf(&prefix, "%lld-a", (long long)r->job->id);
	if (!strncmp(name, prefix.ptr, prefix.len) && strcmp(name, strrchr(r->jobdir, '/') + 1)) {
		for (int i = 0; i < 2; i++) {
			buf_reset(&path);
			buf_addf(&path, "%s/jobs/%s/%s", r->cache, name, i ? "baseline" : "patched");
			remove_tree(path.ptr);
		}
	}
	st = db_stmt(r->db, sql_run_logdir_set);
	if (st) {
		db_bind_text(st, 1, r->logs);
		sqlite3_bind_int64(st, 2, r->job->id);
		db_bind_text(st, 3, r->job->runner);
		db_step_done(r->db, st);
	}
	buf_release(&old);
	buf_release(&prefix);
	buf_release(&path);
}

static int run_setup(struct run *r)
{
	struct buf b = BUF_INIT;

	if (runner_cache_dir(&b)) {
		buf_addstr(&r->infra, "no usable cache dir");
		buf_release(&b);
		return -1;
	}
	r->cache = buf_detach(&b, NULL);
	if (runner_patches_dir(&b)) {
		buf_addstr(&r->infra, "no kernel-patches directory");
		buf_release(&b);
		return -1;
	}
	r->patches_dir = buf_detach(&b, NULL);
	/*
	 * Several databases (a test's, a second service's) may share one cache
	 * dir, so a job id alone does not name a directory: mkdtemp does.
	 */
	buf_addf(&b, "%s/jobs", r->cache);
	if (mkdir_p(b.ptr, 0755)) {
		buf_addf(&r->infra, "cannot create '%s'", b.ptr);
		buf_release(&b);
		return -1;
	}
	buf_addf(&b, "/%lld-a%d-XXXXXX", (long long)r->job->id, r->job->attempt);
	if (!mkdtemp(b.ptr)) {
		buf_addf(&r->infra, "cannot create a job dir in '%s/jobs': %s", r->cache,
			 strerror(errno));
		buf_release(&b);
		return -1;
	}
	chmod(b.ptr, 0755);
	r->jobdir = buf_detach(&b, NULL);
	if (*cfg_str("runner.log_dir"))
		buf_addf(&b, "%s/%s", cfg_str("runner.log_dir"), strrchr(r->jobdir, '/') + 1);
	else
		buf_addf(&b, "%s/logs", r->jobdir);
	r->logs = buf_detach(&b, NULL);
	if (mkdir_p(r->logs, 0755)) {
		buf_addf(&r->infra, "cannot create the log dir '%s': %s", r->logs, strerror(errno));
		return -1;
	}
	drop_old_trees(r);
	return 0;
}

/* Drop the big trees of a finished job; logs stay. */
static void cleanup(struct run *r, struct variant *v)
{
	if (getenv("BUGBRIDGE_KEEP_TREES") || !v->dir || !path_exists(v->dir))
		return;
	remove_tree(v->dir);
	(void)r;
}

/*
 * The seed, when the cache has none of this kind (gcov or plain): the base
 * built as the variant "seed", then dropped (its out/ is kept).
 */
int run_seed(struct run *r, bool coverage)
{
	struct variant s;
	int ret = 0, lock = -1;

	variant_init(r, &s, "seed", 0);
	s.coverage = coverage;
	/* one build per seed at a time: another runner's may be under way (seed.c) */
	if (!tree_has_seed(r, &s) && (ret = seed_lock(r, &s, &lock)) == 0 && !tree_has_seed(r, &s))
		ret = build_base(r, &s);
	seed_unlock(lock);
	cleanup(r, &s);
	variant_release(&s);
	return ret;
}

/*
 * The baseline: the seed's own kernel when there is a seed (it is the base
 * built with this config), else built in full and kept as the seed (one
 * build at a time).
 */
static int build_baseline(struct run *r, struct variant *base)
{
	int ret, lock = -1;

	/* a grown baseline is no seed: the standard one first, then it, from it */
	if (base->grown)
		return run_seed(r, base->coverage) || build_base(r, base);
	if (!tree_has_seed(r, base) && seed_lock(r, base, &lock))
		return -1;
	ret = tree_has_seed(r, base) ? tree_use_seed(r, base) : build_base(r, base);
	seed_unlock(lock);
	return ret;
}

/* For --warm (warm.c): the job's setup and prepare stage; run_end after. */
int run_begin(struct run *r)
{
	buf_init(&r->infra, 64 * 1024);
	stage_lease_start(r);
	stage_begin(r, NULL, "prepare");
	return run_setup(r) || prepare(r) ? -1 : 0;
}

void run_end(struct run *r)
{
	stage_end(r, r->infra.len ? "failed" : "ok", NULL);
	run_release(r);
}

static bool reached_suite(const struct variant *v)
{
	return v->verdict && (!strcmp(v->verdict, "pass") || !strcmp(v->verdict, "fail"));
}

/*
 * Apply before any build; then the seed (as the baseline variant when the
 * job needs a baseline run that is not cached: it boots after the patched
 * one, and only if that reached the suite); then the patched variant.
 * *with_base: the report compares with base.
 */
static void run_variants(struct run *r, struct variant *patched, struct variant *base,
			 bool *with_base)
{
	bool need_base = r->job->with_baseline && r->npatches > 0, cached = false;

	/* the same kernel built before (kcache.h): no tree, no build */
	if (kcache_on(r, patched) && kcache_find(r, patched)) {
		if (!r->infra.len && boot_variant(r, patched) && !r->infra.len && !r->cancel)
			buf_addstr(&r->infra, "run ended without a verdict");
		return;
	}
	if (do_apply(r, patched) || patched->verdict || stage_interrupted(r))
		return;
	/* the options the patch's files need; or "untested", before any build */
	if ((r->npatches || r->plan) && (kplan_make(r, patched) || patched->verdict))
		return;
	runner_keys_grown(r);
	if (need_base) {
		variant_init(r, base, "baseline", 0);
		base->grown = kplan_grown(r);
		cached = baseline_from_cache(r, base);
	}
	if (need_base && !cached) {
		base->coverage = patched->coverage;	/* the same seed; it measures nothing */
		if (build_baseline(r, base))
			return;
		base->coverage = false;
	} else if (r->npatches && run_seed(r, patched->coverage)) {
		return;		/* (the base alone builds and keeps its own seed) */
	}
	if (run_patched(r, patched) && !r->infra.len && !r->cancel)
		buf_addstr(&r->infra, "run ended without a verdict");
	*with_base = need_base && !r->infra.len && !r->cancel && reached_suite(patched);
	if (!*with_base || cached)
		return;
	if (boot_variant(r, base) && !r->infra.len && !r->cancel)
		buf_addstr(&r->infra, "baseline run failed");
	if (!r->infra.len && !r->cancel && reached_suite(base))
		baseline_remember(r, base);
}

int run_job(struct db *db, struct job *job, const volatile sig_atomic_t *stop)
{
	struct run r = { .db = db, .job = job, .stop = stop };
	struct variant patched = { .name = "patched" }, base = { .name = "baseline" };
	bool with_base = false;
	int ret = 0;

	buf_init(&r.infra, 64 * 1024);
	buf_init(&patched.detail, 0);
	buf_init(&base.detail, 0);
	stage_lease_start(&r);
	stage_begin(&r, NULL, "prepare");
	if (run_setup(&r) || prepare(&r))
		goto report;
	variant_init(&r, &patched, "patched", r.npatches);
	/*
	 * reach: gcov for the patched build of a patch (issue 15).  A job of
	 * the base alone (--none) is built with gcov too, like the seed and
	 * every baseline, so that it starts from that seed and rebuilds
	 * nothing; it measures nothing (issue 33).
	 */
	patched.coverage = cfg_bool("runner.coverage");
	run_variants(&r, &patched, &base, &with_base);
report:
	if (r.stage_id && (r.cancelled || r.lease_lost || (stop && *stop)))
		stage_end(&r, "failed", r.cancelled ? "cancelled" : r.lease_lost ? "lease lost"
			  : "runner stopped");
	else if (r.stage_id)
		stage_end(&r, r.infra.len ? "failed" : "ok", r.infra.len ? r.infra.ptr : NULL);
	if (r.lease_lost) {
		log_warn("runner: job %lld: lease lost; dropping the run", (long long)job->id);
	} else if (r.cancelled) {
		job_finish_cancelled(job, db);
	} else if (stop && *stop) {
		job_unclaim(job, db);
	} else {
		if (!r.infra.len && !patched.verdict)
			buf_addstr(&r.infra, "run ended without a verdict");
		ret = report(&r, &patched, with_base ? &base : NULL);
		stage_end(&r, "ok", NULL);
	}
	/* after the verdict: the trees' removal and the next tree cost it nothing */
	cleanup(&r, &patched);
	cleanup(&r, &base);
	if (r.base_tree && !r.lease_lost && !(stop && *stop))
		tree_refill_spare(&r);
	variant_release(&patched);
	variant_release(&base);
	run_release(&r);
	return ret;
}
