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

/* The tests of one boot; those it never reported fail with missing_why. */
static void collect_tests(struct variant *v, const struct scenario_boot *sb,
			  const struct ktap_result *k, const char *missing_why)
{
	for (int i = 0; i < k->ntests; i++) {
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

/* Add this console's problems to the variant's; true if it panicked. */
static bool merge_problems(struct variant *v, const struct buf *console)
{
	struct logscan_result found;
	bool panicked;

	logscan(console->ptr, console->len, &found);
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

static const char *panic_title(const struct variant *v)
{
	for (int i = 0; i < v->problems->n; i++)
		if (strcmp(v->problems->items[i].kind, "eod") &&
		    strcmp(v->problems->items[i].kind, "warning"))
			return v->problems->items[i].title;
	return v->problems->n ? v->problems->items[0].title : "kernel panic";
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
 * One boot: 0 and the results in v, or -1 (v->verdict or r->infra set).
 * *cut (when not NULL): console bytes beyond max_console, dropped.
 */
static int boot_once(struct run *r, struct variant *v, const struct scenario_boot *sb,
		     const char *only, int run_no, struct ktap_result *k, struct buf *console,
		     unsigned long long *cut)
{
	struct buf kernel = BUF_INIT, initrd = BUF_INIT, cpath = BUF_INIT, images = BUF_INIT;
	struct boot b = { 0 };
	bool panicked;
	int ret = -1;

	if (boot_kernel(r, v, &kernel))
		goto out;
	buf_addf(&initrd, "%s/initramfs.cpio", r->jobdir);
	buf_addf(&images, "%s/images", v->dir);
	if (only)
		buf_addf(&cpath, "%s/%s-console-%s-%s-%d.log", v->logs, v->name, sb->name, only,
			 run_no);
	else
		buf_addf(&cpath, "%s/%s-console-%s.log", v->logs, v->name, sb->name);
	/* the job dir's own files are ours: only the variants' trees are the build's */
	if (!path_exists(initrd.ptr) && initramfs_make(r, initrd.ptr))
		goto out;
	if (lava_enabled())
		r->accel = "lava";	/* the lab's device type says the rest */
	else if (!r->accel)
		qemu_pick_accel(r);
	b.sb = sb;
	b.kernel = kernel.ptr;
	b.initrd = initrd.ptr;
	b.only = only;
	b.console_path = cpath.ptr;
	b.images_dir = images.ptr;
	buf_init(console, 0);		/* qemu.c keeps it within max_console */
	if (lava_enabled() ? lava_boot(r, v, &b, console) : qemu_boot(r, &b, console))
		goto out;
	if (b.cancelled)
		goto out;
	if (!b.timed_out && b.exit_code && !strstr(console->ptr, "Linux version")) {
		buf_addf(&r->infra, "qemu exited with %d before the kernel started (see %s)",
			 b.exit_code, cpath.ptr);
		goto out;
	}
	if (!booted_what_was_built(r, v, console, cpath.ptr))
		goto out;
	panicked = merge_problems(v, console);
	ktap_parse(console->ptr, console->len, k);
	if (panicked) {
		struct buf d = BUF_INIT;
		buf_addf(&d, "kernel panic during %s%s: %s", only ? "test " : "boot ",
			 only ? only : sb->name, panic_title(v));
		if (!only) {
			/* a crash in a re-run is one failed run, not the verdict */
			stage_fail(v, "panic", d.ptr);
			collect_tests(v, sb, k, CRASHED);
		}
		buf_release(&d);
		goto out;
	}
	if (b.timed_out) {
		struct buf d = BUF_INIT;
		buf_addf(&d, "guest did not finish within %d s (boot %s%s%s; %d test results"
			 " before it hung)", sb->timeout && sb->timeout < cfg_int("runner.boot_timeout")
			 ? sb->timeout : (int)cfg_int("runner.boot_timeout"), sb->name,
			 only ? ", test " : "", only ? only : "", k->ntests);
		if (!only) {
			stage_fail(v, "boot-timeout", d.ptr);
			collect_tests(v, sb, k, CRASHED);
		}
		buf_release(&d);
		goto out;
	}
	if (cut)
		*cut = b.console_cut;
	ret = 0;
out:
	buf_release(&kernel);
	buf_release(&initrd);
	buf_release(&cpath);
	buf_release(&images);
	return ret;
}

/* sb with "bbsuite.rerun=N" on its command line (the guest re-runs in the boot). */
static void with_reruns(const struct scenario_boot *sb, struct scenario_boot *out,
			struct buf *token)
{
	*out = *sb;
	buf_addf(token, "bbsuite.rerun=%d", (int)cfg_int("runner.flake_retries"));
	out->cmdline = xmalloc((sb->ncmdline + 1) * sizeof(*out->cmdline));
	for (int i = 0; i < sb->ncmdline; i++)
		out->cmdline[i] = sb->cmdline[i];
	out->cmdline[out->ncmdline++] = token->ptr;
}

int boot_suite(struct run *r, struct variant *v)
{
	stage_begin(r, v, "boot");
	for (int i = 0; i < r->scenario->nboots; i++) {
		struct scenario_boot sb;
		struct ktap_result k = { 0 };
		struct buf console = BUF_INIT, token = BUF_INIT;
		unsigned long long cut = 0;
		int rc;
		const char *missing;

		with_reruns(&r->scenario->boots[i], &sb, &token);
		rc = boot_once(r, v, &sb, NULL, 0, &k, &console, &cut);
		missing = cut ? CUT : CRASHED;
		if (!rc && v->coverage)
			coverage_collect(r, v, &console);
		if (!rc) {
			if (!k.seen_version || !k.ntests) {
				stage_fail(v, "fail", cut ? "the guest flooded its console and its"
					      " KTAP results were in the part cut ([runner] max_console)"
					      : "the guest suite printed no KTAP results");
				collect_tests(v, &sb, &k, missing);
			} else {
				collect_tests(v, &sb, &k, k.planned > k.ntests ? missing : NULL);
				vtests_add_guest_reruns(v->tests, v->ntests, console.ptr);
			}
		}
		if (!rc && i == 0)
			stage_begin(r, v, "test");
		ktap_release(&k);
		buf_release(&console);
		buf_release(&token);
		free(sb.cmdline);
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * Tests that judge the whole boot (its kernel log) would judge an empty boot
 * when run alone, and so are never re-run: their one result stands.
 */
static const char *const whole_boot_tests[] = { "kernel-log-clean", NULL };

static bool whole_boot(const char *name)
{
	for (int i = 0; whole_boot_tests[i]; i++)
		if (!strcmp(name, whole_boot_tests[i]))
			return true;
	return false;
}

/*
 * Re-run each failing test alone in fresh boots, up to flake_retries runs
 * beyond its first: the ones the guest could not do in its own boot (the
 * kernel was no longer sane).
 */
int boot_reruns(struct run *r, struct variant *v)
{
	int retries = cfg_int("runner.flake_retries");

	for (int i = 0; i < v->ntests; i++) {
		struct vtest *t = &v->tests[i];
		const struct scenario_boot *sb;
		if (strcmp(t->status, "fail") || whole_boot(t->name) || t->runs > retries)
			continue;
		sb = scenario_boot_for(r->scenario, t->name);
		if (!sb)
			continue;
		for (int n = t->runs; n <= retries; n++) {
			struct ktap_result k = { 0 };
			struct buf console = BUF_INIT, prog = BUF_INIT;
			bool failed = true;
			const char *diag = NULL;

			buf_addf(&prog, "%s: test: re-running %s (%d/%d)", v->name, t->name, n,
				 retries);
			job_progress(r->job, r->db, "test", prog.ptr);
			buf_release(&prog);
			/* a crash or hang in a re-run counts as a failed run */
			if (boot_once(r, v, sb, t->name, n, &k, &console, NULL) &&
			    (r->infra.len || r->cancel)) {
				ktap_release(&k);
				buf_release(&console);
				return -1;
			}
			for (int j = 0; j < k.ntests; j++)
				if (!strcmp(k.tests[j].name, t->name)) {
					failed = k.tests[j].status == KTAP_FAIL;
					diag = k.tests[j].reason;
				}
			vtest_add_rerun(t, failed, diag);
			ktap_release(&k);
			buf_release(&console);
		}
	}
	return 0;
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
