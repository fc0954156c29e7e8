/*
 * run: one claimed job, from its trees to its verdict.
 *
 *   prepare   baseline tree (extracted once), suite binary, the candidate's
 *             patches, the harness series, the scenario file
 *   per variant (the patched one first, then the baseline when the job asks
 *   for one and the patched run reached the suite):
 *     apply      candidate patches (dry run first), then the harness
 *     configure  tinyconfig + fragments, checked
 *     build      make bzImage (incremental from the seed build)
 *     boot       each scenario boot once: console, KTAP, kernel problems
 *     test       failing tests again with bbsuite.only=NAME (flake_retries)
 *   report    verdict, change, test results and signatures, in one
 *             transaction (lib/job.c)
 *
 * Who is to blame decides the verdict: a patch that does not apply, does
 * not build, panics or hangs the guest gets apply-failed, build-failed,
 * panic, boot-timeout; anything that is our fault (a missing tool, a config
 * option that did not stick, QEMU that would not start) is infra-error,
 * which the job queue retries and never reports as the patch's.
 *
 * The baseline variant's results are cached in baseline_runs by a key over
 * the base, config, harness, suite and scenarios: a later job on the same
 * base copies them instead of building the unpatched kernel again.
 */
#include "runner.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

DB_SQL(sql_run_logdir_get, "SELECT coalesce(log_dir, '') FROM jobs WHERE id = ?");
DB_SQL(sql_run_logdir_set, "UPDATE jobs SET log_dir = ? WHERE id = ? AND runner = ?");
DB_SQL(sql_run_baseline_get,
       "SELECT job_id, verdict, detail FROM baseline_runs WHERE key = ?");
DB_SQL(sql_run_baseline_tests,
       "SELECT name, status, runs, failures, diagnostics FROM test_results"
       " WHERE job_id = ? AND variant = 'baseline' ORDER BY id");
DB_SQL(sql_run_baseline_put,
       "INSERT OR REPLACE INTO baseline_runs (key, job_id, verdict, detail) VALUES (?, ?, ?, ?)");

/* ---- keys ---- */

static char *hex_of(struct sha256 *ctx)
{
	unsigned char d[SHA256_LEN];
	char *hex = xmalloc(65);

	sha256_final(ctx, d);
	for (int i = 0; i < SHA256_LEN; i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
	hex[16] = '\0';		/* 64 bits name a cache entry well enough */
	return hex;
}

static void make_keys(struct run *r)
{
	struct sha256 ctx;
	struct buf path = BUF_INIT;
	const char *variant = cfg_str("runner.config_variant");

	sha256_init(&ctx);
	sha256_update(&ctx, r->job->base, strlen(r->job->base) + 1);
	sha256_update(&ctx, r->kernel_version, strlen(r->kernel_version) + 1);
	buf_addf(&path, "%s/configs/base.config", r->patches_dir);
	hash_file(&ctx, path.ptr);
	buf_reset(&path);
	buf_addf(&path, "%s/configs/%s.config", r->patches_dir, variant);
	hash_file(&ctx, path.ptr);
	for (int i = 0; i < r->nharness; i++)
		hash_file(&ctx, r->harness[i].path);
	r->seed_key = hex_of(&ctx);

	sha256_init(&ctx);
	sha256_update(&ctx, r->seed_key, strlen(r->seed_key) + 1);
	buf_reset(&path);
	buf_addf(&path, "%s/configs/gcov.config", r->patches_dir);
	hash_file(&ctx, path.ptr);
	r->seed_key_gcov = hex_of(&ctx);

	sha256_init(&ctx);
	sha256_update(&ctx, r->seed_key, strlen(r->seed_key) + 1);
	hash_file(&ctx, r->suite_bin);
	buf_reset(&path);
	buf_addf(&path, "%s/suite/init", r->patches_dir);
	hash_file(&ctx, path.ptr);
	buf_reset(&path);
	buf_addf(&path, "%s/suite/scenarios", r->patches_dir);
	hash_file(&ctx, path.ptr);
	sha256_update(&ctx, cfg_str("runner.flake_retries"), strlen(cfg_str("runner.flake_retries")));
	r->suite_key = hex_of(&ctx);
	buf_release(&path);
}

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
		buf_addstr(&r->infra, err.ptr);
		goto out;
	}
	make_keys(r);
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
	int ncand = 0, nharness = 0, rc, ret = -1;

	stage_begin(r, v, "apply");
	if (tree_make(r, v))
		goto out;
	rc = apply_series(r, v, r->patches, v->npatches, "apply", &why, &cand, &ncand);
	if (rc > 0) {
		stage_fail(v, "apply-failed", why.ptr);
		goto out;
	}
	if (rc < 0) {
		if (!r->infra.len)	/* else joblog.c said why */
			buf_addstr(&r->infra, "could not run patch");
		goto out;
	}
	rc = apply_series(r, v, r->harness, r->nharness, "harness", &why, &harness, &nharness);
	if (rc < 0 && r->infra.len)
		goto out;
	if (rc) {
		/* The harness is ours; a candidate that conflicts with it is not its fault. */
		buf_addf(&r->infra, "the test harness does not apply on top of this tree: %s",
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
	int rc, ret = -1;

	stage_begin(r, v, "configure");
	/*
	 * The seed's .config came from the same fragments on the same Kconfig
	 * files; unless the patch changed a Kconfig file, it is still right.
	 */
	if (v->seeded && !v->kconfig_touched && !v->coverage)
		rc = kconfig_check(r, v, &why);
	else
		rc = kconfig_configure(r, v, &why);
	if (rc) {
		if (rc > 0)
			buf_addf(&r->infra, "config options did not stick: %s", why.ptr);
		goto out;
	}
	stage_begin(r, v, "build");
	if (v->no_seed.len) {
		struct buf note = BUF_INIT;

		buf_addf(&note, "full build: %s", v->no_seed.ptr);
		stage_note(r, note.ptr);
		buf_release(&note);
	}
	rc = build_kernel(r, v, &why);
	if (rc > 0 && !v->npatches)
		/* The unpatched base must build: if it does not, the fault is ours. */
		buf_addf(&r->infra, "the unpatched base does not build: %s", why.ptr);
	else if (rc > 0)
		stage_fail(v, "build-failed", why.ptr);
	if (rc)
		goto out;
	if (!v->npatches)
		tree_save_seed(r, v);
	ret = 0;
out:
	buf_release(&why);
	return ret;
}

static int run_variant(struct run *r, struct variant *v)
{
	if (do_apply(r, v) || v->verdict || stage_interrupted(r))
		return v->verdict ? 0 : -1;
	if (do_build(r, v) || v->verdict || stage_interrupted(r))
		return v->verdict ? 0 : -1;
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

/* ---- baseline cache ---- */

static bool baseline_from_cache(struct run *r, struct variant *v)
{
	sqlite3_stmt *st = db_stmt(r->db, sql_run_baseline_get);
	sqlite3_int64 job_id;

	if (!st)
		return false;
	db_bind_text(st, 1, r->suite_key);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return false;
	}
	job_id = sqlite3_column_int64(st, 0);
	v->verdict = !strcmp(db_col_text(st, 1), "pass") ? "pass" : "fail";
	buf_addstr(&v->detail, db_col_text(st, 2));
	sqlite3_reset(st);
	st = db_stmt(r->db, sql_run_baseline_tests);
	if (!st)
		return false;
	sqlite3_bind_int64(st, 1, job_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct vtest *t;
		v->tests = xrealloc(v->tests, (v->ntests + 1) * sizeof(*v->tests));
		t = &v->tests[v->ntests++];
		memset(t, 0, sizeof(*t));
		t->name = xstrdup(db_col_text(st, 0));
		t->status = xstrdup(db_col_text(st, 1));
		t->runs = sqlite3_column_int(st, 2);
		t->failures = sqlite3_column_int(st, 3);
		t->diag = xstrdup(db_col_text(st, 4));
	}
	sqlite3_reset(st);
	v->from_cache = true;
	log_info("runner: baseline results from job %lld (same base, config and suite)",
		 (long long)job_id);
	return true;
}

static void baseline_remember(struct run *r, const struct variant *v)
{
	sqlite3_stmt *st = db_stmt(r->db, sql_run_baseline_put);

	if (!st)
		return;
	db_bind_text(st, 1, r->suite_key);
	sqlite3_bind_int64(st, 2, r->job->id);
	db_bind_text(st, 3, v->verdict);
	db_bind_text(st, 4, v->detail.ptr);
	db_step_done(r->db, st);
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
		buf_addstr(&detail, r->infra.ptr);
	} else {
		out.verdict = patched->verdict;
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
	free(r->cache);
	free(r->patches_dir);
	free(r->base_tree);
	free(r->kernel_version);
	free(r->jobdir);
	free(r->logs);
	free(r->suite_bin);
	free(r->seed_key);
	free(r->seed_key_gcov);
	free(r->suite_key);
	patch_items_free(r->patches, r->npatches);
	patch_items_free(r->harness, r->nharness);
	if (r->scenario)
		scenario_release(r->scenario);
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
	if (getenv("BUGBRIDGE_KEEP_TREES"))
		return;
	remove_tree(v->dir);
	(void)r;
}

/*
 * The gcov build of the unpatched base, once per cache, so that a coverage
 * job rebuilds only what its patch touches (issue 15).  Its stages show as
 * the variant "seed"; a base that does not build is our fault.
 */
static int ensure_gcov_seed(struct run *r, struct variant *patched)
{
	struct variant s;
	int ret = 0;

	if (!patched->coverage || tree_has_seed(r, patched))
		return 0;
	variant_init(r, &s, "seed", 0);
	s.coverage = true;
	if (do_apply(r, &s) || s.verdict || do_build(r, &s) || s.verdict) {
		if (!r->infra.len && !r->cancel)
			buf_addf(&r->infra, "the gcov build of the base failed: %s", s.detail.ptr);
		ret = -1;
	}
	cleanup(r, &s);
	variant_release(&s);
	return ret;
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
	/* reach: gcov for the patched build of a patch (issue 15) */
	patched.coverage = cfg_bool("runner.coverage") && r.npatches > 0;
	if (ensure_gcov_seed(&r, &patched))
		goto report;
	if (run_variant(&r, &patched) && !r.infra.len && !r.cancel)
		buf_addstr(&r.infra, "run ended without a verdict");
	cleanup(&r, &patched);
	/*
	 * The baseline only after the patched run, and only when that ran the
	 * suite: a patch that does not apply or build has nothing to compare,
	 * and a cold baseline build costs minutes.
	 */
	with_base = job->with_baseline && r.npatches > 0 && !r.infra.len && !r.cancel &&
		    patched.verdict && (!strcmp(patched.verdict, "pass") ||
					!strcmp(patched.verdict, "fail"));
	if (with_base) {
		variant_init(&r, &base, "baseline", 0);
		if (!baseline_from_cache(&r, &base)) {
			if (run_variant(&r, &base) && !r.infra.len && !r.cancel)
				buf_addstr(&r.infra, "baseline run failed");
			cleanup(&r, &base);
			if (!r.infra.len && !r.cancel && base.verdict &&
			    (!strcmp(base.verdict, "pass") || !strcmp(base.verdict, "fail")))
				baseline_remember(&r, &base);
		}
	}
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
	variant_release(&patched);
	variant_release(&base);
	run_release(&r);
	return ret;
}
