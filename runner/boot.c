/*
 * boot: the boot and test stages of a variant.  Each scenario boot runs
 * once with the whole suite; its console gives the KTAP results and the
 * kernel problems (signatures).  A panic or a hang ends the variant with
 * that verdict, naming the tests that never reported.  Each failing test
 * runs flake_retries times more: in the same boot, after the suite, while
 * the kernel is sane (bbsuite.rerun=N; the guest prints "# rerun" lines),
 * else booted again alone (bbsuite.only=NAME); its runs and failures decide
 * pass, fail or flaky.  run.c calls these;
 * the stage rows and the verdict of a crash go through stage.c.
 */
#include "boot.h"
#include "run.h"
#include "stage.h"
#include "paths.h"
#include "build.h"
#include "qemu.h"
#include "lava.h"
#include "coverage.h"
#include "scenario.h"
#include "shard.h"
#include "ktap.h"
#include "logscan.h"
#include "verdict.h"
#include "buf.h"
#include "job.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CRASHED "kernel crashed before the test reported"
#define CUT "the result was in the console output cut ([runner] max_console)"

static bool listed(const struct scenario_boot *sb, const char *name)
{
	for (int j = 0; j < sb->ntests; j++)
		if (!strcmp(sb->tests[j], name))
			return true;
	return false;
}

/* How many of sb's tests (NULL: of any) the guest reported. */
static int reported(const struct ktap_result *k, const struct scenario_boot *sb)
{
	int n = 0;

	for (int i = 0; i < k->ntests; i++)
		n += !sb || listed(sb, k->tests[i].name);
	return n;
}

/* The first of sb's tests the guest did not report (NULL: it reported them all). */
static const char *first_unreported(const struct scenario_boot *sb, const struct ktap_result *k)
{
	for (int j = 0; j < sb->ntests; j++) {
		bool seen = false;

		for (int i = 0; i < k->ntests && !seen; i++)
			seen = !strcmp(k->tests[i].name, sb->tests[j]);
		if (!seen)
			return sb->tests[j];
	}
	return NULL;
}

/*
 * The tests of one boot (a shard: only its own, the others were skipped
 * there); those it never reported fail with missing_why.
 */
static void collect_tests(struct variant *v, const struct scenario_boot *sb,
			  const struct ktap_result *k, const char *missing_why, bool shard)
{
	for (int i = 0; i < k->ntests; i++) {
		if (shard && !listed(sb, k->tests[i].name))
			continue;
		v->tests = xrealloc(v->tests, (v->ntests + 1) * sizeof(*v->tests));
		vtest_from_ktap(&k->tests[i], &v->tests[v->ntests++]);
	}
	if (!missing_why)
		return;
	for (int j = 0; j < sb->ntests; j++) {
		bool seen = false;
		for (int i = 0; i < k->ntests && !seen; i++)
			seen = !strcmp(k->tests[i].name, sb->tests[j]);
		if (seen)
			continue;
		v->tests = xrealloc(v->tests, (v->ntests + 1) * sizeof(*v->tests));
		struct vtest *t = &v->tests[v->ntests++];
		memset(t, 0, sizeof(*t));
		t->name = xstrdup(sb->tests[j]);
		t->status = xstrdup("fail");
		t->runs = t->failures = 1;
		t->diag = xstrdup(missing_why);
	}
}

/*
 * Add this console's problems to the variant's; true if it panicked, with
 * the panic's title (its first problem that is no access beyond the end of
 * a device and no warning) in *title.
 */
static bool merge_problems(struct variant *v, const struct buf *console, struct buf *title)
{
	struct logscan_result found;
	bool panicked;
	int t = 0;

	logscan(console->ptr, console->len, &found);
	for (int i = 0; i < found.n; i++)
		if (strcmp(found.items[i].kind, "eod") && strcmp(found.items[i].kind, "warning")) {
			t = i;
			break;
		}
	buf_reset(title);
	buf_addstr(title, found.n ? found.items[t].title : "kernel panic");
	for (int i = 0; i < found.n; i++) {
		struct logscan_problem *p = &found.items[i];
		bool dup = false;
		for (int j = 0; j < v->problems->n && !dup; j++)
			if (!strcmp(v->problems->items[j].hash, p->hash)) {
				v->problems->items[j].count += p->count;
				dup = true;
			}
		if (dup)
			continue;
		v->problems->items = xrealloc(v->problems->items,
					     (v->problems->n + 1) * sizeof(*v->problems->items));
		v->problems->items[v->problems->n++] = *p;
		memset(p, 0, sizeof(*p));
	}
	v->problems->panicked |= found.panicked;
	panicked = found.panicked;
	logscan_release(&found);
	return panicked;
}

/*
 * A verdict is about the kernel built from the patch: a guest whose banner
 * names another build (a stale object: see INCBIN_UNCACHED in build.c) is
 * an infra-error, never a result.
 */
static bool booted_what_was_built(struct run *r, struct variant *v, const struct buf *console,
				  const char *console_path)
{
	struct buf built = BUF_INIT, booted = BUF_INIT;
	bool same = true;

	if (build_uts_version(v, &built))
		goto out;	/* a kernel built elsewhere: nothing to compare with */
	same = banner_is_built(console->ptr, built.ptr, &booted);
	if (!same)
		buf_addf(&r->infra, "the guest booted another kernel than the one built:"
			 " its banner says \"%s\", the build \"%s\" (see %s)", booted.ptr,
			 built.ptr, console_path);
out:
	buf_release(&built);
	buf_release(&booted);
	return same;
}

/* A bzImage of tinyconfig is about 1 MiB, of a gcov kernel a few. */
#define KERNEL_MAX (256 << 20)

/*
 * The kernel QEMU or the LAVA lab boots: the build's out/arch/x86/boot/bzImage
 * copied through lib/safefile to <variant dir>/bzImage, ours, once a
 * variant.  So a build that leaves a link there (to the database, to
 * another job's kernel) has it refused, and QEMU's bind mount and the LAVA
 * artifacts never follow anything the build made.  0 with the copy's path
 * in kernel; -1 with the verdict (the tree's doing) or r->infra set.
 */
static int boot_kernel(struct run *r, struct variant *v, struct buf *kernel)
{
	struct buf built = BUF_INIT, why = BUF_INIT;
	int in = -1, out = -1, ret = -1;

	/* v->dir is ours: no sandbox sees it and the build user cannot write it */
	buf_addf(kernel, "%s/bzImage", v->dir);
	if (path_exists(kernel->ptr))
		return 0;
	buf_addf(&built, "%s/arch/x86/boot/bzImage", v->out);
	in = job_open(r, built.ptr, SAFE_READ);
	if (in < 0) {
		buf_addf(&why, "bugbridge refused the built kernel out/arch/x86/boot/bzImage: %s",
			 safe_strerror(errno));
		if (v->npatches)
			stage_fail(v, "build-failed", why.ptr);
		else
			stage_blame(r, FAULT_OURS, "%s", why.ptr);
		goto out;
	}
	out = job_open(r, kernel->ptr, SAFE_WRITE);
	if (out < 0 || safe_copy_fd(in, out, KERNEL_MAX) || close(out)) {
		buf_addf(&r->infra, "cannot copy the kernel to '%s': %s", kernel->ptr,
			 safe_strerror(errno));
		out = -1;
		unlink(kernel->ptr);
		goto out;
	}
	out = -1;
	ret = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	buf_release(&built);
	buf_release(&why);
	return ret;
}

/*
 * One guest of a batch booted at once: a shard of the suite, the whole
 * suite (one shard), or a re-run of one failing test (only).
 */
struct guest {
	struct scenario_boot sb;	/* the scenario's boot; tests and cmdline our own */
	char **tests;			/* a shard's tests (NULL: the boot's) */
	int ntests;
	struct buf rerun, selection;	/* "bbsuite.rerun=N", "bbsuite.tests=a,b" */
	const char *only;		/* a re-run: the test */
	int run_no;
	struct buf cpath, images;
	struct boot b;
	struct ktap_result k;
	struct buf console;
	int rc;				/* judge(): 0 results, -1 none (a crash or infra) */
	const char *crash;		/* "panic" or "boot-timeout": the verdict it would be */
	struct buf crash_detail;
	const char *crashed_in;		/* the first of its tests that never reported */
};

/* The wall-clock limit of a boot: the scenario's, within [runner] boot_timeout. */
static int boot_limit(const struct scenario_boot *sb)
{
	int limit = cfg_int("runner.boot_timeout");

	return sb->timeout && sb->timeout < limit ? sb->timeout : limit;
}

/* The guest's boot: sb's command line with ours after it (tests: a shard's). */
static void guest_init(struct guest *g, const struct scenario_boot *sb, char **tests, int ntests,
		       const char *only, int run_no)
{
	*g = (struct guest){ .rerun = BUF_INIT, .selection = BUF_INIT, .cpath = BUF_INIT,
			     .images = BUF_INIT, .console = BUF_INIT, .crash_detail = BUF_INIT };
	g->sb = *sb;
	g->only = only;
	g->run_no = run_no;
	g->sb.cmdline = xcalloc(sb->ncmdline + 2, sizeof(*g->sb.cmdline));
	for (int i = 0; i < sb->ncmdline; i++)
		g->sb.cmdline[i] = sb->cmdline[i];
	if (!only) {
		buf_addf(&g->rerun, "bbsuite.rerun=%d", (int)cfg_int("runner.flake_retries"));
		g->sb.cmdline[g->sb.ncmdline++] = g->rerun.ptr;
	}
	if (tests) {
		g->tests = tests;
		g->ntests = ntests;
		g->sb.tests = tests;
		g->sb.ntests = ntests;
		buf_addstr(&g->selection, "bbsuite.tests=");
		for (int i = 0; i < ntests; i++)
			buf_addf(&g->selection, "%s%s", i ? "," : "", tests[i]);
		g->sb.cmdline[g->sb.ncmdline++] = g->selection.ptr;
	}
	buf_init(&g->console, 0);
}

static void guest_release(struct guest *g)
{
	free(g->sb.cmdline);
	buf_release(&g->rerun);
	buf_release(&g->selection);
	buf_release(&g->cpath);
	buf_release(&g->images);
	ktap_release(&g->k);
	buf_release(&g->console);
	buf_release(&g->crash_detail);
}

/*
 * After the guest ended: 0 and its KTAP in g->k, or -1: it did not boot
 * what was built or QEMU did not start (r->infra), it was cancelled, or it
 * panicked or hung, which for the suite (not a re-run) is the variant's
 * verdict (the first such guest's) with the tests it never reported failed.
 */
static int judge(struct run *r, struct variant *v, struct guest *g)
{
	struct buf *d = &g->crash_detail, title = BUF_INIT;
	bool panicked;

	if (g->b.cancelled)
		return -1;
	if (!g->b.timed_out && g->b.exit_code && !strstr(g->console.ptr, "Linux version")) {
		buf_addf(&r->infra, "qemu exited with %d before the kernel started (see %s)",
			 g->b.exit_code, g->cpath.ptr);
		return -1;
	}
	if (!booted_what_was_built(r, v, &g->console, g->cpath.ptr))
		return -1;
	panicked = merge_problems(v, &g->console, &title);
	ktap_parse(g->console.ptr, g->console.len, &g->k);
	if (panicked)
		buf_addf(d, "kernel panic during %s%s: %s", g->only ? "test " : "boot ",
			 g->only ? g->only : g->sb.name, title.ptr);
	else if (g->b.timed_out)
		buf_addf(d, "guest did not finish within %d s (boot %s%s%s; %d test results"
			 " before it hung)", boot_limit(&g->sb), g->sb.name, g->only ? ", test " : "",
			 g->only ? g->only : "", reported(&g->k, g->tests ? &g->sb : NULL));
	buf_release(&title);
	if (!d->len)
		return 0;
	/* a crash in a re-run is one failed run, not the verdict */
	if (!g->only) {
		g->crash = panicked ? "panic" : "boot-timeout";
		g->crashed_in = first_unreported(&g->sb, &g->k);
		collect_tests(v, &g->sb, &g->k, CRASHED, g->tests != NULL);
	}
	return -1;
}

/*
 * The variant's verdict when guests of the suite crashed: the crash one
 * guest would have met first, in the test that comes first in the
 * scenario's order (the same as in one guest).
 */
static void crash_verdict(struct variant *v, const struct scenario_boot *sb, struct guest *g,
			  int n)
{
	int best = -1, best_at = 0;

	for (int i = 0; i < n; i++) {
		int at = sb->ntests;

		if (!g[i].crash)
			continue;
		for (int j = 0; g[i].crashed_in && j < sb->ntests; j++)
			if (!strcmp(sb->tests[j], g[i].crashed_in))
				at = j;
		if (best < 0 || at < best_at) {
			best = i;
			best_at = at;
		}
	}
	if (best >= 0 && !v->verdict)
		stage_fail(v, g[best].crash, g[best].crash_detail.ptr);
}

/* Where a guest's console and images go: the whole suite's, a shard's, a re-run's. */
static void guest_paths(struct variant *v, struct guest *g, int slot)
{
	if (g->only)
		buf_addf(&g->cpath, "%s/%s-console-%s-%s-%d.log", v->logs, v->name, g->sb.name,
			 g->only, g->run_no);
	else
		buf_addf(&g->cpath, "%s/%s-console-%s.log", v->logs, v->name, g->sb.name);
	buf_addf(&g->images, "%s/images", v->dir);
	if (slot)
		buf_addf(&g->images, "-%d", slot + 1);	/* each guest its own disks */
}

/* The shards' consoles as one log, each under a line naming its tests. */
static int write_shard_log(struct run *r, struct guest *g, int n)
{
	struct buf text = BUF_INIT;
	int ret;

	for (int i = 0; i < n; i++) {
		buf_addf(&text, "%s[bugbridge: shard %d of %d, %s]\n", i ? "\n" : "", i + 1, n,
			 g[i].selection.ptr);
		buf_add(&text, g[i].console.ptr, g[i].console.len);
		if (g[i].b.timed_out)
			buf_addf(&text, "\n[bugbridge: guest killed after %d s]\n",
				 boot_limit(&g[i].sb));
	}
	ret = joblog_write(r, g[0].cpath.ptr, false, text.ptr, text.len);
	buf_release(&text);
	return ret;
}

/*
 * Boot the n guests at once (one after the other on a LAVA lab) and judge
 * each.  -1 when r->infra is set or the job was cancelled; the guests'
 * own outcomes are in their rc.
 */
static int boot_guests(struct run *r, struct variant *v, struct guest *g, int n, bool shards)
{
	struct buf kernel = BUF_INIT, initrd = BUF_INIT;
	struct boot *bs = xcalloc(n, sizeof(*bs));
	struct buf *consoles = xcalloc(n, sizeof(*consoles));
	int ret = -1;

	if (boot_kernel(r, v, &kernel))
		goto out;
	buf_addf(&initrd, "%s/initramfs.cpio", r->jobdir);
	/* the job dir's own files are ours: only the variants' trees are the build's */
	if (!path_exists(initrd.ptr) && initramfs_make(r, initrd.ptr))
		goto out;
	if (lava_enabled())
		r->accel = "lava";	/* the lab's device type says the rest */
	else if (!r->accel)
		qemu_pick_accel(r);
	for (int i = 0; i < n; i++) {
		guest_paths(v, &g[i], i);
		g[i].b = (struct boot){ .sb = &g[i].sb, .kernel = kernel.ptr, .initrd = initrd.ptr,
					.only = g[i].only, .images_dir = g[i].images.ptr,
					.console_path = shards && n > 1 ? NULL : g[i].cpath.ptr };
		/* the shards' log (one file) stays within max_console, each keeping its share */
		if (shards && n > 1)
			g[i].b.max_console = cfg_int("runner.max_console") / n;
		bs[i] = g[i].b;
		buf_init(&consoles[i], 0);	/* qemu.c keeps it within max_console */
	}
	if (lava_enabled()) {
		for (int i = 0; i < n && !r->infra.len && !r->cancel; i++)
			if (lava_boot(r, v, &bs[i], &consoles[i]))
				goto out;
	} else if (qemu_boot_all(r, bs, consoles, n)) {
		goto out;
	}
	for (int i = 0; i < n; i++) {
		g[i].b = bs[i];
		g[i].b.sb = &g[i].sb;
		buf_release(&g[i].console);
		g[i].console = consoles[i];
		buf_init(&consoles[i], 0);
	}
	if (shards && n > 1 && write_shard_log(r, g, n))
		goto out;
	for (int i = 0; i < n; i++)
		g[i].rc = judge(r, v, &g[i]);
	ret = r->infra.len || r->cancel ? -1 : 0;
out:
	for (int i = 0; i < n; i++)
		buf_release(&consoles[i]);
	free(consoles);
	free(bs);
	buf_release(&kernel);
	buf_release(&initrd);
	return ret;
}

/* ---- the suite, in shards ---- */

/* The CPUs a job's guests may count on: its share of [runner] parallel's slots. */
static double job_cpus(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), slots = cfg_int("runner.parallel");

	return (double)(ncpu > 0 ? ncpu : 1) / (slots > 1 ? slots : 1);
}

/* A job that chose its own tests (the mutation campaign's) is booted whole. */
static bool chose_tests(const struct run *r)
{
	const char *a = r->job ? r->job->boot_args : NULL;

	return a && (strstr(a, "bbsuite.tests=") || strstr(a, "bbsuite.only=") ||
		     strstr(a, "bbsuite.stop="));
}

/* How many shards for sb: [runner] shards, else what this host measured (shard.c). */
static int shards_for(struct run *r, const struct scenario_boot *sb, struct shard_times *t)
{
	long want = cfg_int("runner.shards");
	int n;

	if (lava_enabled() || chose_tests(r) || sb->ntests < 2)
		return 1;
	n = want > 0 ? (int)want : shard_count(t, sb, job_cpus());
	return n > SHARD_MAX ? SHARD_MAX : n < 1 ? 1 : n;
}

/* The suite's directory in the cache (<cache>/suite/<hash>): its times live there. */
static void suite_dir(const struct run *r, struct buf *out)
{
	const char *slash = strrchr(r->suite_bin, '/');

	buf_add(out, r->suite_bin, slash ? (size_t)(slash - r->suite_bin) : 0);
}

/* Each shard's results into v (from v->tests[first]) in sb's order; the times kept. */
static void merge_shards(struct run *r, struct variant *v, const struct scenario_boot *sb,
			 struct guest *g, int n, int first, struct shard_times *t)
{
	const char *missing;
	bool whole = true;
	double guest;

	for (int i = 0; i < n; i++) {
		if (g[i].rc)
			continue;	/* judge() collected a crashed shard's */
		missing = g[i].b.console_cut ? CUT : CRASHED;
		if (v->coverage)
			coverage_collect(r, v, &g[i].console);
		if (!g[i].k.seen_version || !g[i].k.ntests) {
			if (!v->verdict)
				stage_fail(v, "fail", g[i].b.console_cut ? "the guest flooded its"
					   " console and its KTAP results were in the part cut"
					   " ([runner] max_console)"
					   : "the guest suite printed no KTAP results");
			collect_tests(v, &g[i].sb, &g[i].k, missing, n > 1);
			whole = false;
			continue;
		}
		collect_tests(v, &g[i].sb, &g[i].k, g[i].k.planned > g[i].k.ntests ? missing : NULL,
			      n > 1);
		vtests_add_guest_reruns(v->tests, v->ntests, g[i].console.ptr);
		guest = shard_times_from_console(g[i].console.ptr, t);
		/* times from a guest whose clock ran fast (more than QEMU ran) measure nothing */
		whole &= guest >= 0 && guest <= g[i].b.seconds + 1;
	}
	if (n > 1)
		shard_merge_tests(v->tests, &v->ntests, first, sb->tests, sb->ntests);
	if (n > 1 && v->coverage)
		log_info("runner: %s: gcov: %d files of %d shards, %d of them added to another"
			 " shard's counters", v->name, v->gcda_files, n, v->gcda_added);
	if (whole && !v->verdict && !t->measured) {
		struct buf dir = BUF_INIT;

		suite_dir(r, &dir);
		shard_times_save(dir.ptr, t);
		buf_release(&dir);
	}
}

/* One scenario boot: its shards at once; -1 when the variant ended without results. */
static int boot_scenario(struct run *r, struct variant *v, const struct scenario_boot *sb)
{
	struct shard_times t;
	struct buf dir = BUF_INIT;
	char **plan[SHARD_MAX];
	int nplan[SHARD_MAX], n, ret, first = v->ntests;
	struct guest g[SHARD_MAX];

	suite_dir(r, &dir);
	shard_times_load(dir.ptr, &t);
	n = shards_for(r, sb, &t);
	if (n > 1)
		shard_plan(&t, sb, n, plan, nplan);
	for (int i = 0; i < n; i++)
		guest_init(&g[i], sb, n > 1 ? plan[i] : NULL, n > 1 ? nplan[i] : 0, NULL, 0);
	if (n > 1) {
		struct buf prog = BUF_INIT;

		buf_addf(&prog, "%s: boot: the suite in %d guests at once", v->name, n);
		job_progress(r->job, r->db, "boot", prog.ptr);
		log_info("runner: %s", prog.ptr);
		buf_release(&prog);
	}
	ret = boot_guests(r, v, g, n, true);
	if (!ret) {
		crash_verdict(v, sb, g, n);
		merge_shards(r, v, sb, g, n, first, &t);
		for (int i = 0; i < n; i++)
			ret |= g[i].rc;
	}
	for (int i = 0; i < n; i++)
		guest_release(&g[i]);
	if (n > 1)
		shard_plan_free(plan, nplan, n);
	shard_times_release(&t);
	buf_release(&dir);
	return ret ? -1 : 0;
}

int boot_suite(struct run *r, struct variant *v)
{
	stage_begin(r, v, "boot");
	for (int i = 0; i < r->scenario->nboots; i++) {
		if (boot_scenario(r, v, &r->scenario->boots[i]))
			return -1;
		if (i == 0)
			stage_begin(r, v, "test");
	}
	return 0;
}

/* ---- re-runs ---- */

/* A re-run boot of test t, its run n: the pair, for one batch. */
struct rerun {
	struct vtest *t;
	const struct scenario_boot *sb;
	int n;
};

/* One batch of re-runs at once; each run's result added to its test. */
static int rerun_batch(struct run *r, struct variant *v, struct rerun *q, int n, int retries)
{
	struct guest *g = xcalloc(n, sizeof(*g));
	struct buf prog = BUF_INIT;
	int ret;

	buf_addf(&prog, "%s: test: re-running", v->name);
	for (int i = 0; i < n; i++) {
		guest_init(&g[i], q[i].sb, NULL, 0, q[i].t->name, q[i].n);
		buf_addf(&prog, "%s %s (%d/%d)", i ? "," : "", q[i].t->name, q[i].n, retries);
	}
	job_progress(r->job, r->db, "test", prog.ptr);
	/* a crash or hang in a re-run counts as a failed run */
	ret = boot_guests(r, v, g, n, false);
	for (int i = 0; !ret && i < n; i++) {
		bool failed = true;
		const char *diag = NULL;

		for (int j = 0; j < g[i].k.ntests; j++)
			if (!strcmp(g[i].k.tests[j].name, q[i].t->name)) {
				failed = g[i].k.tests[j].status == KTAP_FAIL;
				diag = g[i].k.tests[j].reason;
			}
		vtest_add_rerun(q[i].t, failed, diag);
	}
	for (int i = 0; i < n; i++)
		guest_release(&g[i]);
	free(g);
	buf_release(&prog);
	return ret;
}

/*
 * Re-run each failing test alone in fresh boots, up to flake_retries runs
 * beyond its first: the ones the guest could not do in its own boot (the
 * kernel was no longer sane).  As many at once as the suite had shards.
 */
int boot_reruns(struct run *r, struct variant *v)
{
	int retries = cfg_int("runner.flake_retries"), width = 1, nq = 0, ret = 0;
	struct rerun *q = NULL;
	struct shard_times t;
	struct buf dir = BUF_INIT;

	for (int i = 0; i < v->ntests; i++) {
		struct vtest *tt = &v->tests[i];
		const struct scenario_boot *sb;

		if (strcmp(tt->status, "fail") || shard_whole_boot(tt->name) || tt->runs > retries)
			continue;
		sb = scenario_boot_for(r->scenario, tt->name);
		for (int n = tt->runs; sb && n <= retries; n++) {
			q = xreallocarray(q, nq + 1, sizeof(*q));
			q[nq++] = (struct rerun){ tt, sb, n };
		}
	}
	if (nq) {
		suite_dir(r, &dir);
		shard_times_load(dir.ptr, &t);
		width = shards_for(r, q[0].sb, &t);
		shard_times_release(&t);
	}
	for (int i = 0; i < nq && !ret; i += width)
		ret = rerun_batch(r, v, q + i, nq - i < width ? nq - i : width, retries);
	free(q);
	buf_release(&dir);
	return ret;
}

void boot_summarise(struct variant *v)
{
	struct buf d = BUF_INIT;
	int failed = 0, flaky = 0;

	for (int i = 0; i < v->ntests; i++) {
		const struct vtest *t = &v->tests[i];
		if (strcmp(t->status, "fail") && strcmp(t->status, "flaky"))
			continue;
		buf_addf(&d, "%s%s: ", d.len ? "\n" : "", t->name);
		vtest_summary(t, &d);
		if (*t->diag) {
			const char *nl = strchr(t->diag, '\n');
			buf_addf(&d, " (%.*s)", nl ? (int)(nl - t->diag) : (int)strlen(t->diag),
				 t->diag);
		}
		if (!strcmp(t->status, "fail"))
			failed++;
		else
			flaky++;
	}
	if (!v->verdict) {
		v->verdict = failed ? "fail" : "pass";
		buf_reset(&v->detail);
		buf_addf(&v->detail, "%d tests: %d failed%s", v->ntests, failed,
			 flaky ? ", some flaky" : "");
	}
	if (d.len) {
		buf_addch(&v->detail, '\n');
		buf_addstr(&v->detail, d.ptr);
	}
	buf_release(&d);
}
