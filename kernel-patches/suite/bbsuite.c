/*
 * bbsuite.c: the test table, KTAP output and the kernel-log bookkeeping.
 *
 * Output is KTAP version 1 on stdout (the serial console):
 *   KTAP version 1
 *   1..N
 *   # diagnostics of test 1 ...
 *   ok 1 sd-read-verify
 *   not ok 7 sr-capacity # size 256 -> 0 sectors; kernel log: attempt to ...
 * Diagnostics precede the result line they belong to, as in the kernel's
 * own KTAP.  The console log level is lowered to 1 while the suite runs so
 * that kernel messages do not tear KTAP lines; the lines that matter are
 * quoted as diagnostics instead (the full log stays in /dev/kmsg).
 *
 * Every test runs in a kernel-log window: if the kernel logged a failure
 * (Oops, BUG, WARNING, KASAN, hung task, "attempt to access beyond end of
 * device") while it ran, the test is not ok and the line is quoted.  The last
 * test, kernel-log-clean, looks at the whole boot except the windows of tests
 * already reported not ok for such a line, so one kernel failure is reported
 * once, by the test that provoked it.
 *
 * Selection: "bbsuite.only=NAME" on the kernel command line runs only the
 * test NAME, or every test named NAME-* (bbsuite.only=lying-device);
 * "bbsuite.skip=A,B" reports tests A and B as skipped without running them.
 * "bbsuite.group=hba-NAME" runs the tests of one controller's boot (their
 * names start with it); without it, no hba-* test is in the plan.
 * "bbsuite.rerun=N" runs each failing test again N times after the suite,
 * in the same boot, while the kernel is sane (rerun_failed).
 * "bbsuite.stop=1" (the mutation campaign: a kill needs one failure)
 * reports every test after the first that fails as skipped, unrun.
 * "bbsuite.tests=A,B" runs only the tests named (the others are reported
 * skipped, unrun): the campaign's selection for one mutant.
 * "bbsuite.reach=1" (a mutant schemata kernel, tools/schemata.py) adds a
 * diagnostic "reach: F G" to each test: the mutated functions that ran
 * while it did; "reach at boot: ..." before the first says what ran before
 * any test.
 * "bbsuite.timeout=S" gives a test S seconds instead of 90 before it is
 * reported stuck (the campaign: its slowest test takes about 3 s, and a
 * mutant that hangs a test should cost seconds, not minutes).
 * "bbsuite.shuffle=SEED" runs the tests in an order drawn from SEED, named
 * in the header (test_order); "bbsuite.rename=1" makes every device a test
 * removes come back under a new name (bbdev.c).  Neither may change a
 * verdict: each test finds its devices by role when it starts, and what it
 * left behind is put back after it (bbstate.c).
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <time.h>
#include <unistd.h>

struct test {
	const char *name;
	int (*fn)(void);
	enum place place;
};

static int t_kernel_log_clean(void);

/* The order of a boot without bbsuite.shuffle.  No test relies on another
 * having run before it: each finds its devices when it starts (dev_scan)
 * and finds them as the boot left them (state_restore after every test).
 * Two keep their place in a shuffled boot:
 *   sd-medium-error   runs first: it requires the block layer's error line
 *                     naming the bad sector, which is ratelimited (10 in
 *                     5 s, printk_ratelimited in blk-core.c, no knob);
 *                     other tests' failed reads would use up the burst.
 *   kernel-log-clean  runs last: it judges the whole boot's log. */
static const struct test tests[] = {
	{ "guest-no-network", t_guest_no_network, ANY },
	{ "sd-read-verify", t_sd_read_verify, ANY },
	{ "sd-medium-error", t_sd_medium_error, FIRST },
	{ "sd-recovered-error", t_sd_recovered_error, ANY },
	{ "sd-sgio", t_sd_sgio, ANY },
	{ "sr-read", t_sr_read, ANY },
	{ "sr-medium-error", t_sr_medium_error, ANY },
	{ "sr-capacity", t_sr_capacity, ANY },
	{ "sd-end-of-device", t_sd_end_of_device, ANY },
	{ "sd-limits", t_sd_limits, ANY },
	{ "scsi-scan", t_scsi_scan, ANY },
	{ "lying-device-lba-outside", t_lying_lba_outside, ANY },
	{ "lying-device-unaligned-resid", t_lying_unaligned_resid, ANY },
	{ "lying-device-short-resid", t_lying_short_resid, ANY },
	{ "lying-device-medium-no-data", t_lying_medium_no_data, ANY },
	{ "lying-device-deferred-sense", t_lying_deferred_sense, ANY },
	{ "lying-device-descriptor-sense", t_lying_descriptor_sense, ANY },
	{ "lying-device-sr-info-outside", t_lying_sr_info_outside, ANY },
	{ "lying-device-info-resid", t_lying_info_resid, ANY },
	{ "lying-device-errno", t_lying_errno, ANY },
	{ "lying-device-retries", t_lying_retries, ANY },
	{ "lying-device-failfast-readahead", t_lying_failfast_readahead, ANY },
	{ "lying-device-host-bytes", t_lying_host_bytes, ANY },
	{ "lying-device-sense-actions", t_lying_sense_actions, ANY },
	{ "lying-device-unit-attention", t_lying_unit_attention, ANY },
	{ "lying-device-sr-deferred", t_lying_sr_deferred, ANY },
	{ "lying-device-cd-geometry", t_lying_cd_geometry, ANY },	/* puts the CD back as it was */
	{ "lying-device-runtime-limit", t_lying_runtime_limit, ANY },
	{ "lying-device-eh-paths", t_lying_eh_paths, ANY },
	{ "lying-device-write-paths", t_lying_write_paths, ANY },
	{ "lying-device-mixed-merge", t_lying_mixed_merge, ANY },
	{ "lying-device-queue", t_lying_queue, ANY },
	{ "lying-device-sgio-status", t_lying_sgio_status, ANY },
	{ "lying-device-cd-ioctls", t_lying_cd_ioctls, ANY },
	{ "lying-device-cd-events", t_lying_cd_events, ANY },
	{ "lying-device-cd-gesn", t_lying_cd_gesn, ANY },
	{ "lying-device-cd-poll", t_lying_cd_poll, ANY },
	{ "lying-device-cd-revalidate", t_lying_cd_revalidate, ANY },
	{ "lying-device-cd-read-mode1", t_lying_cd_read_mode1, ANY },
	{ "lying-device-cd-offline", t_lying_cd_offline, ANY },	/* puts the CD back online */
	{ "lying-device-cd-mismatch", t_lying_cd_mismatch, ANY },	/* removes the CD and scans it again */
	{ "lying-device-eh-tur", t_lying_eh_tur, ANY },
	{ "lying-device-delayed-requeue", t_lying_delayed_requeue, ANY },
	{ "lying-device-rescan", t_lying_rescan, ANY },
	{ "lying-device-send-command", t_lying_send_command, ANY },
	{ "lying-device-capacity", t_lying_capacity, ANY },	/* puts the disk back: removed, added again */
	{ "lying-device-flush", t_lying_flush, ANY },	/* the same, its cache off again */
	{ "lying-device-read6-fallback", t_lying_read6_fallback, ANY },	/* leaves use_10_for_rw off (put back) */
	{ "lying-device-sr-valid-inside", t_lying_sr_valid_inside, ANY },
	{ "lying-device-sr-end-trim", t_lying_sr_end_trim, ANY },	/* trims the CD (scanned again after it) */
	{ "lying-device-sgio-faults", t_lying_sgio_faults, ANY },
	{ "lying-device-send-command-faults", t_lying_send_command_faults, ANY },
	{ "lying-device-execute-retries", t_lying_execute_retries, ANY },
	{ "lying-device-log-once", t_lying_log_once, ANY },
	{ "scan-inquiry", t_scan_inquiry, ANY },	/* adds and deletes target 1's LUNs */
	{ "scan-report-luns", t_scan_report_luns, ANY },
	{ "lying-device-eh-sense", t_lying_eh_sense, ANY },
	{ "lying-device-eh-answers", t_lying_eh_answers, ANY },
	{ "lying-device-eh-escalation", t_lying_eh_escalation, ANY },
	{ "lying-device-eh-deadline", t_lying_eh_deadline, ANY },
	{ "lying-device-eh-lun-change", t_lying_eh_lun_change, ANY },
	{ "lying-device-eh-ramp-up", t_lying_eh_ramp_up, ANY },
	{ "lying-device-eh-timeout", t_lying_eh_timeout, ANY },
	{ "lying-device-timeouts", t_lying_timeouts, ANY },
	{ "lying-device-double-done", t_lying_double_done, ANY },
	{ "lying-device-sgio-at-head", t_lying_sgio_at_head, ANY },	/* sets the disk's queue depth back */
	{ "lying-device-sgio-tag-wait", t_lying_sgio_tag_wait, ANY },	/* sets nr_requests back */
	{ "lying-device-answers-sense", t_lying_answers_sense, ANY },	/* writes, then resets the media */
	{ "lying-device-answers-status", t_lying_answers_status, ANY },
	{ "lying-device-answers-cd", t_lying_answers_cd, ANY },
	{ "sd-timeout-eh", t_sd_timeout_eh, ANY },
	{ "sd-stress", t_sd_stress, ANY },
	{ "kernel-log-clean", t_kernel_log_clean, LAST },
	{ "hba-virtio-read", t_hba_virtio_read, ANY },
	{ "hba-virtio-write", t_hba_virtio_write, ANY },
	{ "hba-virtio-medium-error", t_hba_virtio_medium_error, ANY },
	{ "hba-virtio-sgio", t_hba_virtio_sgio, ANY },
	{ "hba-virtio-cd", t_hba_virtio_cd, ANY },
	{ "hba-megasas-read", t_hba_megasas_read, ANY },
	{ "hba-megasas-write", t_hba_megasas_write, ANY },
	{ "hba-megasas-medium-error", t_hba_megasas_medium_error, ANY },
	{ "hba-megasas-sgio", t_hba_megasas_sgio, ANY },
	{ "hba-megasas-cd", t_hba_megasas_cd, ANY },
	{ "hba-pvscsi-read", t_hba_pvscsi_read, ANY },
	{ "hba-pvscsi-write", t_hba_pvscsi_write, ANY },
	{ "hba-pvscsi-medium-error", t_hba_pvscsi_medium_error, ANY },
	{ "hba-pvscsi-sgio", t_hba_pvscsi_sgio, ANY },
	{ "hba-pvscsi-cd", t_hba_pvscsi_cd, ANY },
	{ "hba-ahci-read", t_hba_ahci_read, ANY },
	{ "hba-ahci-write", t_hba_ahci_write, ANY },
	{ "hba-ahci-medium-error", t_hba_ahci_medium_error, ANY },
	{ "hba-ahci-sgio", t_hba_ahci_sgio, ANY },
	{ "hba-ahci-cd", t_hba_ahci_cd, ANY },
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

static char reason[512];
static bool stuck;		/* a test got no result in time: no reruns in this boot */

/* Windows [start, end) of kmsg records of tests reported not ok for a bad
 * kernel line; kernel-log-clean skips them. */
static struct { size_t start, end; } charged[NTESTS];
static size_t ncharged;

void diag(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *p = line; *p; p++)	/* one diagnostic, one line */
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	printf("# %s\n", line);
}

int fail(const char *fmt, ...)
{
	va_list ap;

	char msg[sizeof(reason)];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '#')
			*p = ' ';
	diag("%s", msg);
	if (!reason[0])		/* the first reason is the verdict's */
		snprintf(reason, sizeof(reason), "%s", msg);
	return -1;
}

static int t_kernel_log_clean(void)
{
	size_t n = kmsg_mark(), bad = 0, checked = 0;

	for (size_t i = 0; i < n; i++) {
		const char *l = kmsg_line(i);
		bool skip = false;

		for (size_t c = 0; c < ncharged; c++)
			if (i >= charged[c].start && i < charged[c].end)
				skip = true;
		if (skip)
			continue;
		checked++;
		if (!kmsg_is_bad(l))
			continue;
		if (bad++ < 8)
			diag("kernel: %s", l);
	}
	diag("%zu kernel log records, %zu outside failed tests' windows checked",
	     n, checked);
	if (bad)
		return fail("%zu kernel failure line(s) in the boot log", bad);
	return 0;
}

/* bbsuite.stop=1 on the kernel command line. */
static bool stop_at_first(void)
{
	static int stop = -1;
	char buf[4096];		/* the whole command line: cmdline_arg reads it in */

	if (stop < 0) {
		const char *v = cmdline_arg("bbsuite.stop=", buf, sizeof(buf));
		stop = v && !strcmp(v, "1");
	}
	return stop;
}

/* bbsuite.only= from /proc/cmdline, or NULL. */
static char *cmdline_only(void)
{
	static char buf[4096];

	return cmdline_arg("bbsuite.only=", buf, sizeof(buf));
}

/*
 * bbsuite.skip=a,b,c: tests the runner knows cannot run here (a real board
 * has none of QEMU's emulated devices or injected faults).  They are
 * reported "ok N name # SKIP", so the results still name every test.
 */
/* Is name in the comma-separated list? */
static bool listed(const char *list, const char *name)
{
	size_t l = strlen(name);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == l && !strncmp(p, name, l))
			return true;
	}
	return false;
}

/* bbsuite.tests=A,B: only those run (NULL: no such list, every test). */
static const char *cmdline_tests(void)
{
	static char buf[4096];

	return cmdline_arg("bbsuite.tests=", buf, sizeof(buf));
}

#define REACH_PATH "/sys/module/scsi_mod/parameters/bb_reached"

/* bbsuite.reach=1 and a kernel that records reach. */
static bool reach_on(void)
{
	static int on = -1;
	char buf[4096];

	if (on < 0) {
		const char *v = cmdline_arg("bbsuite.reach=", buf, sizeof(buf));

		on = v && !strcmp(v, "1") && access(REACH_PATH, R_OK | W_OK) == 0;
	}
	return on;
}

/* Print what ran since the last call as diagnostic "<label>: F G", then
 * clear it. */
static void reach_report(const char *label)
{
	char names[4096];
	ssize_t n = -1;
	int fd;

	if (!reach_on())
		return;
	fd = open(REACH_PATH, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, names, sizeof(names) - 1);
		close(fd);
	}
	names[n > 0 ? n : 0] = '\0';
	names[strcspn(names, "\n")] = '\0';
	diag("%s: %s", label, n < 0 ? "(unreadable)" : names);
	knob_write(REACH_PATH, "0");
}

static bool skipped(const char *name)
{
	static char buf[4096];

	return listed(cmdline_arg("bbsuite.skip=", buf, sizeof(buf)), name);
}

/*
 * bbsuite.group=PREFIX: the boot runs the tests named PREFIX-* only (a
 * controller's boot: bbsuite.group=hba-megasas); without it, the tests of
 * a group (hba-*) are none of this boot's, and left out of its plan.
 */
static bool in_group(const char *name)
{
	static char buf[4096];
	static const char *group;
	static bool read;
	size_t l;

	if (!read) {
		group = cmdline_arg("bbsuite.group=", buf, sizeof(buf));
		read = true;
	}
	if (!group)
		return strncmp(name, "hba-", 4) != 0;
	l = strlen(group);
	return !strncmp(name, group, l) && name[l] == '-';
}

static bool selected(const char *name, const char *only)
{
	size_t l;

	if (!in_group(name))
		return false;
	if (!only)
		return true;
	if (!strcmp(name, only))
		return true;
	l = strlen(only);
	return !strncmp(name, only, l) && name[l] == '-';
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define TEST_TIMEOUT_S 90

/* bbsuite.timeout=S on the kernel command line, else TEST_TIMEOUT_S. */
static int test_timeout(void)
{
	static int secs;
	char buf[4096];

	if (!secs) {
		const char *v = cmdline_arg("bbsuite.timeout=", buf, sizeof(buf));
		int n = v ? atoi(v) : 0;

		secs = n > 0 ? n : TEST_TIMEOUT_S;
	}
	return secs;
}

/* Run a test in a child process, so that a test stuck in the kernel costs
 * its own verdict ("no result after 90 s") and not the rest of the suite.
 * The child prints its diagnostics itself and sends back "P" or "F" and its
 * reason.  kernel-log-clean runs in place: it needs the parent's record of
 * which windows were charged. */
static int run_isolated(const struct test *t)
{
	char msg[sizeof(reason) + 1];
	size_t got = 0;
	double deadline = now() + test_timeout();
	int pfd[2], st;
	pid_t pid;

	if (t->fn == t_kernel_log_clean || pipe(pfd))
		return t->fn();
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return t->fn();
	}
	if (pid == 0) {
		close(pfd[0]);
		kmsg_reopen();
		msg[0] = t->fn() ? 'F' : 'P';
		snprintf(msg + 1, sizeof(msg) - 1, "%s", reason);
		fflush(stdout);
		if (write(pfd[1], msg, strlen(msg)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int left = (int)((deadline - now()) * 1000);
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, WNOHANG);
			close(pfd[0]);
			stuck = true;
			return fail("no result after %d s: the test is stuck (kernel hang?)",
				    test_timeout());
		}
		n = read(pfd[0], msg + got, sizeof(msg) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(pfd[0]);
	msg[got] = '\0';
	waitpid(pid, &st, 0);
	if (!got)
		return fail("the test process died (wait status 0x%x)", st);
	snprintf(reason, sizeof(reason), "%s", msg + 1);
	return msg[0] == 'P' ? 0 : -1;
}

#define RESTORE_TIMEOUT_S 30

/* state_restore() in a child process: a kernel that hangs while a device
 * is put back (a queue freeze waiting for a lost command) costs the test
 * that left it so, not the rest of the boot.  What cannot be put back is
 * that test's failure too: 0, or -1 and fail(). */
static int restore_isolated(void)
{
	int pfd[2], st, n;
	pid_t pid = -1;

	fflush(stdout);
	if (!pipe(pfd) && (pid = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
	}
	if (pid < 0) {
		n = state_restore();
	} else if (pid == 0) {
		close(pfd[0]);
		n = state_restore();
		fflush(stdout);
		_exit(n > 100 ? 100 : n);
	} else {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		close(pfd[1]);
		/* the child's end of the pipe closes when it exits */
		n = poll(&p, 1, RESTORE_TIMEOUT_S * 1000);
		close(pfd[0]);
		if (n == 0) {
			kill(pid, SIGKILL);
			stuck = true;
			return fail("putting back what the test left behind got no result in %d s"
				    " (kernel hang?)", RESTORE_TIMEOUT_S);
		}
		waitpid(pid, &st, 0);
		n = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	if (n)
		return fail("%d thing(s) the test left behind could not be put back", n);
	return 0;
}

/*
 * One test in its kernel-log window: 0 or -1, with the reason in `reason`.
 * A bad kernel line in the window fails the test (and, in the first pass,
 * charges the window so that kernel-log-clean does not report it again).
 */
static int run_one(const struct test *t, bool charge)
{
	size_t mark = kmsg_mark(), end, nbad = 0;
	const char *firstbad = NULL;
	double t0 = now();
	int ret;

	reason[0] = '\0';
	dev_scan();	/* a name an earlier test saw means nothing */
	state_before();
	ret = run_isolated(t);
	if (restore_isolated())	/* what it left behind is put back, and said */
		ret = -1;
	if (t->fn != t_kernel_log_clean)
		reach_report("reach");	/* the restore's is the test's */
	end = kmsg_mark();
	if (t->fn != t_kernel_log_clean) {
		for (size_t k = mark; k < end; k++) {
			if (!kmsg_is_bad(kmsg_line(k)))
				continue;
			if (nbad++ < 4)
				diag("kernel: %s", kmsg_line(k));
			if (!firstbad)
				firstbad = kmsg_line(k);
		}
	}
	if (firstbad && !strstr(reason, firstbad)) {
		char r[sizeof(reason)];

		snprintf(r, sizeof(r), "%s%skernel log: %.200s", reason,
			 reason[0] ? "; " : "", firstbad);
		snprintf(reason, sizeof(reason), "%s", r);
	}
	if (firstbad && charge) {
		charged[ncharged].start = mark;
		charged[ncharged].end = end;
		ncharged++;
	}
	if (firstbad)
		ret = -1;
	diag("%s took %.2f s", t->name, now() - t0);
	for (char *p = reason; *p; p++)
		if (*p == '#')
			*p = ' ';
	return ret;
}

/*
 * Is the kernel still fit to run a test again?  Not after a test got stuck
 * (its process may still hold a device), nor after a hung task, an Oops, a
 * BUG, KASAN or a general protection fault anywhere in the boot.  A WARNING
 * or an access beyond the end of a device is a test's finding, not a sick
 * kernel.
 */
static const char *insane(void)
{
	static const char *const sick[] = {
		"Oops", "BUG:", "kernel BUG at", "KASAN", "blocked for more than",
		"hung task", "general protection fault", "Unable to handle kernel",
	};
	size_t n = kmsg_mark();

	if (stuck)
		return "a test got stuck";
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(sick) / sizeof(sick[0]); k++)
			if (strstr(kmsg_line(i), sick[k]))
				return sick[k];
	return NULL;
}

/*
 * bbsuite.rerun=N: each failing test again N times in this boot, after the
 * whole suite, as long as the kernel is sane.  Lines for the runner:
 *   # rerun NAME 1/2: ok
 *   # rerun NAME 2/2: not ok # reason
 *   # rerun NAME: fresh boot (a test got stuck)
 * A test whose reruns were not all printed is re-run by the runner in fresh
 * boots (bbsuite.only=NAME).  kernel-log-clean judges the whole boot and is
 * never re-run.
 */
static void rerun_failed(const struct test *const *run, const bool *failed, size_t nrun)
{
	static char buf[4096];
	const char *arg = cmdline_arg("bbsuite.rerun=", buf, sizeof(buf));
	int n = arg ? atoi(arg) : 0;

	for (size_t i = 0; i < nrun && n > 0; i++) {
		const char *why;

		if (!failed[i] || run[i]->fn == t_kernel_log_clean)
			continue;
		for (int k = 1; k <= n; k++) {
			int ret;

			if ((why = insane())) {
				printf("# rerun %s: fresh boot (%s)\n", run[i]->name, why);
				break;
			}
			ret = run_one(run[i], false);
			printf("# rerun %s %d/%d: %s%s%s\n", run[i]->name, k, n,
			       ret ? "not ok" : "ok", ret ? " # " : "",
			       ret ? (reason[0] ? reason : "failed") : "");
		}
	}
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : cmdline_only();
	const char *chosen = cmdline_tests();	/* the campaign's selection */
	const struct test *run[NTESTS];
	enum place places[NTESTS];
	size_t order[NTESTS];
	bool failed[NTESTS] = { false }, shuffled;
	size_t nrun = 0, nfail = 0;
	uint64_t seed = 0;
	double t0 = now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	klogctl(8, NULL, 1);	/* SYSLOG_ACTION_CONSOLE_LEVEL: KTAP stays whole */
	kmsg_open();
	dev_scan();
	state_snapshot();

	for (size_t i = 0; i < NTESTS; i++)
		places[i] = tests[i].place;
	shuffled = test_order(places, NTESTS, order, &seed);
	for (size_t i = 0; i < NTESTS; i++)
		if (selected(tests[order[i]].name, only))
			run[nrun++] = &tests[order[i]];

	printf("KTAP version 1\n");
	printf("1..%zu\n", nrun);
	if (only)
		printf("# bbsuite.only=%s\n", only);
	if (shuffled)
		printf("# bbsuite.shuffle=%llu: tests in a random order; boot with the same"
		       " seed to replay it\n", (unsigned long long)seed);
	reach_report("reach at boot");
	for (size_t i = 0; i < nrun; i++) {
		if (nfail && stop_at_first()) {
			printf("ok %zu %s # SKIP not run: an earlier test failed (bbsuite.stop)\n",
			       i + 1, run[i]->name);
			continue;
		}
		if (chosen && !listed(chosen, run[i]->name)) {
			printf("ok %zu %s # SKIP not selected (bbsuite.tests)\n", i + 1,
			       run[i]->name);
			continue;
		}
		if (skipped(run[i]->name)) {
			printf("ok %zu %s # SKIP needs QEMU's emulated devices or faults"
			       " (bbsuite.skip)\n", i + 1, run[i]->name);
			continue;
		}
		if (run_one(run[i], true) == 0) {
			printf("ok %zu %s\n", i + 1, run[i]->name);
		} else {
			printf("not ok %zu %s # %s\n", i + 1, run[i]->name,
			       reason[0] ? reason : "failed");
			failed[i] = true;
			nfail++;
		}
	}
	diag("bbsuite: %zu tests, %zu not ok, %.2f s", nrun, nfail, now() - t0);
	if (!only)
		gcov_dump();	/* a kernel with gcov: which lines the suite ran */
	if (!only && !stop_at_first())
		rerun_failed(run, failed, nrun);
	fflush(stdout);
	return nfail ? 1 : 0;
}
