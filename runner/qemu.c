/*
 * qemu: booting the guest.
 *
 * One boot is one qemu-system-x86_64 run with the job's bzImage, our
 * initramfs, the scenario's devices and command line, a serial console
 * captured (its head and tail within [runner] max_console, console.c) and
 * a wall-clock watchdog.
 * -no-reboot with panic=-1 makes a panicking guest end the run at once.
 *
 * The guest is the patch author's kernel, so QEMU gets -nodefaults and
 * -nic none (no network device of any kind: nothing to reach the host's
 * loopback or beyond with), only the scenario's devices, its own seccomp
 * filter (-sandbox: no exec, no privilege or resource changes), and runs
 * in the build's sandbox as the build user (sandbox.c), seeing only the
 * kernel, the initramfs and the disk images.  The console is the way out.
 *
 * The accelerator: /dev/kvm existing proves nothing (on nested setups a 6.1
 * guest dies in early FPU init, see KERNEL-NOTES), so `accel = auto` boots
 * a kernel once under KVM with a probe initramfs whose /init prints a
 * marker; only if the marker appears is KVM used.  That kernel is the
 * seed's, the base as bugbridge built it, never a job's patched kernel: a
 * patch must not decide how every later job's guest runs (one that hangs
 * under KVM would send them all to TCG; one that prints the marker from a
 * hostile boot would vouch for KVM).  No seed: TCG, not remembered.  The
 * answer is kept for the life of the runner process and recorded in each
 * verdict.
 */
#include "qemu.h"
#include "run.h"
#include "stage.h"
#include "sandbox.h"
#include "boot.h"
#include "tree.h"
#include "console.h"
#include "scenario.h"
#include "buf.h"
#include "child.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "wfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROBE_MARKER "bugbridge-probe-reached-init"
/*
 * A working KVM guest prints its banner ("Linux version ...", replayed when
 * the serial console registers) well within a second; on this kind of
 * nested host a broken one prints nothing (QEMU's own warnings aside) and
 * hangs, which cost every cold job a minute of waiting for the timeout.
 * Giving up too early on a loaded host costs only speed (TCG), never a
 * wrong verdict.
 */
#define PROBE_SILENT_SECONDS 5

static const char *probed_accel;

static void base_argv(struct buf *append, const char *accel, const char *kernel,
		      const char *initrd, const char ***argv, int *argc)
{
	static const char *fixed[] = { "qemu-system-x86_64", "-accel", NULL, "-m", "512",
				       "-smp", "1", "-no-reboot", "-kernel", NULL,
				       "-initrd", NULL, "-append", NULL,
				       /* the scenario's devices and nothing else */
				       "-nodefaults", "-nic", "none", "-display", "none",
				       "-serial", "stdio", "-monitor", "none", "-sandbox",
				       "on,obsolete=deny,elevateprivileges=deny,spawn=deny,"
				       "resourcecontrol=deny" };
	int n = sizeof(fixed) / sizeof(*fixed);

	*argv = xcalloc(n + 1, sizeof(**argv));
	memcpy(*argv, fixed, sizeof(fixed));
	(*argv)[2] = accel;
	(*argv)[9] = kernel;
	(*argv)[11] = initrd;
	(*argv)[13] = append->ptr;
	*argc = n;
}

static void push(const char ***argv, int *argc, const char *arg)
{
	*argv = xrealloc(*argv, (*argc + 2) * sizeof(**argv));
	(*argv)[(*argc)++] = arg;
	(*argv)[*argc] = NULL;
}

/* Where QEMU sees its files in the sandbox (the host's paths outside it). */
#define QEMU_KERNEL "/bb/bzImage"
#define QEMU_INITRD "/bb/initramfs.cpio"
#define QEMU_IMAGES "/bb/images"

static const char *inside(const char *fixed, const char *host)
{
	return strcmp(sandbox_mode(), "bwrap") ? host : fixed;
}

/*
 * QEMU runs the patch's kernel: it is confined like a build (sandbox.c),
 * seeing the kernel and initramfs read-only and the disk images dir
 * read-write, as the build user, without network; *cmd is what to run.
 */
static void wrap_qemu(struct run *r, const char *const *argv, const char *kernel,
		      const char *initrd, const char *images, bool kvm, int cpu,
		      struct sandbox_cmd *cmd)
{
	struct sandbox sb = { .cpu = cpu, .flags = SB_DROP | SB_QEMU | (kvm ? SB_KVM : 0) };
	struct buf d = BUF_INIT;

	sb.binds[0].host = kernel;
	sb.binds[0].inside = QEMU_KERNEL;
	sb.binds[1].host = initrd;
	sb.binds[1].inside = QEMU_INITRD;
	if (images) {
		sb.binds[2].host = images;
		sb.binds[2].inside = QEMU_IMAGES;
		sb.binds[2].rw = true;
	}
	sandbox_wrap(&sb, argv, cmd);
	for (int i = 0; i < cmd->argc; i++)
		buf_addf(&d, "%s%s", i ? " " : "", cmd->argv[i]);
	log_info("runner: qemu: %s", d.ptr);
	buf_release(&d);
	(void)r;
}

struct probe_watch {
	struct buf *console;
	int ticks; /* about one a second (child.c) */
	bool silent;
	volatile int stop;
	const volatile int *cancel;
};

/* A failed KVM guest does not exit, it stops: end the probe as soon as we know. */
static void probe_tick(void *arg)
{
	struct probe_watch *w = arg;

	if (++w->ticks >= PROBE_SILENT_SECONDS && !strstr(w->console->ptr, "Linux version"))
		w->silent = true;
	if (w->silent || strstr(w->console->ptr, "KVM internal error") ||
	    strstr(w->console->ptr, "emulation failure") ||
	    strstr(w->console->ptr, PROBE_MARKER) || (w->cancel && *w->cancel))
		w->stop = 1;
}

static bool probe_kvm(struct run *r, const char *kernel)
{
	struct probe_watch watch = { 0 };
	struct buf initrd = BUF_INIT, append = BUF_INIT, console = BUF_INIT;
	const struct cpio_entry entries[] = {
		{ "bin", S_IFDIR | 0755, NULL, NULL, 0, 0 },
		{ "dev", S_IFDIR | 0755, NULL, NULL, 0, 0 },
		{ "dev/console", S_IFCHR | 0600, NULL, NULL, 5, 1 },
		{ "bin/busybox", S_IFREG | 0755, "/bin/busybox", NULL, 0, 0 },
		{ "init", S_IFREG | 0755, NULL,
		  "#!/bin/busybox sh\n/bin/busybox echo " PROBE_MARKER "\n"
		  "/bin/busybox poweroff -f\n", 0, 0 },
	};
	struct child ch = CHILD_INIT;
	struct sandbox_cmd cmd = { 0 };
	const char **argv = NULL;
	int argc;
	bool ok = false;

	log_info("runner: KVM probe: the seed's kernel %s", kernel);
	if (access("/dev/kvm", R_OK | W_OK)) {
		log_info("runner: KVM probe: no usable /dev/kvm");
		return false;
	}
	buf_addf(&initrd, "%s/kvm-probe.cpio", r->jobdir);
	if (cpio_write(initrd.ptr, entries, sizeof(entries) / sizeof(*entries)))
		goto out;
	buf_addstr(&append, "console=ttyS0 panic=-1 oops=panic loglevel=4");
	base_argv(&append, "kvm", inside(QEMU_KERNEL, kernel), inside(QEMU_INITRD, initrd.ptr),
		  &argv, &argc);
	wrap_qemu(r, argv, kernel, initrd.ptr, NULL, true, 120, &cmd);
	buf_init(&console, 1 << 20);
	watch.console = &console;
	watch.cancel = &r->cancel;
	ch.argv = (const char *const *)cmd.argv;
	ch.clean_env = true;
	ch.capture = &console;
	ch.timeout = 60;
	ch.cancel = &watch.stop;
	ch.tick = probe_tick;
	ch.tick_arg = &watch;
	child_run(&ch);
	ok = strstr(console.ptr, PROBE_MARKER) != NULL;
	if (!ok && watch.silent) {
		log_info("runner: KVM probe guest printed no kernel banner in %d s: using TCG",
			 PROBE_SILENT_SECONDS);
	} else if (!ok) {
		const char *why = strstr(console.ptr, "KVM internal error");
		log_info("runner: KVM probe boot did not reach /init%s%.*s: using TCG",
			 why ? ": " : "", why ? 60 : 0, why ? why : "");
	}
out:
	sandbox_cmd_release(&cmd);
	free(argv);
	buf_release(&initrd);
	buf_release(&append);
	buf_release(&console);
	return ok;
}

/*
 * The probe's answer is kept in <cache>/accel-probe with the host's boot id:
 * whether KVM works is a property of this boot of this host, and every
 * runner process (and every test) need not pay for a probe boot again.
 */
static void probe_file(struct run *r, struct buf *path, struct buf *boot_id)
{
	buf_addf(path, "%s/accel-probe", r->cache);
	if (!buf_read_file(boot_id, "/proc/sys/kernel/random/boot_id"))
		buf_trim(boot_id);
}

static const char *probe_cached(struct run *r)
{
	struct buf path = BUF_INIT, id = BUF_INIT, text = BUF_INIT;
	const char *ret = NULL;

	probe_file(r, &path, &id);
	if (id.len && !buf_read_file(&text, path.ptr)) {
		buf_trim(&text);
		if (!strncmp(text.ptr, "kvm ", 4) && !strcmp(text.ptr + 4, id.ptr))
			ret = "kvm";
		else if (!strncmp(text.ptr, "tcg ", 4) && !strcmp(text.ptr + 4, id.ptr))
			ret = "tcg";
	}
	buf_release(&path);
	buf_release(&id);
	buf_release(&text);
	return ret;
}

static void probe_remember(struct run *r, const char *accel)
{
	struct buf path = BUF_INIT, id = BUF_INIT, text = BUF_INIT;

	probe_file(r, &path, &id);
	buf_addf(&text, "%s %s\n", accel, id.ptr);
	if (id.len && write_file(path.ptr, text.ptr, text.len, WF_ATOMIC))
		log_warn("runner: cannot keep the accelerator in '%s': %s", path.ptr,
			 strerror(errno));
	buf_release(&path);
	buf_release(&id);
	buf_release(&text);
}

int qemu_pick_accel(struct run *r)
{
	const char *want = cfg_str("runner.accel");
	struct buf seed = BUF_INIT;

	if (strcmp(want, "auto")) {
		r->accel = want;
		return 0;
	}
	if (!probed_accel && (probed_accel = probe_cached(r)))
		log_info("runner: accelerator %s (probed earlier on this host boot)", probed_accel);
	if (!probed_accel && tree_seed_kernel(r, &seed)) {
		log_info("runner: no seed kernel to probe KVM with: TCG for this job");
		buf_release(&seed);
		r->accel = "tcg";
		return 0;
	}
	if (!probed_accel) {
		probed_accel = probe_kvm(r, seed.ptr) ? "kvm" : "tcg";
		if (!r->cancel)
			probe_remember(r, probed_accel);
		log_info("runner: accelerator %s", probed_accel);
	}
	buf_release(&seed);
	r->accel = probed_accel;
	return 0;
}

/* The console log: what the parsers saw, and why it ends where it does. */
static int write_console_log(struct run *r, const struct boot *b, const struct buf *console,
			     int limit)
{
	struct buf note = BUF_INIT;
	int ret = joblog_write(r, b->console_path, false, console->ptr, console->len);

	if (!ret && b->timed_out) {
		buf_addf(&note, "\n[bugbridge: guest killed after %d s]\n", limit);
		ret = joblog_write(r, b->console_path, true, note.ptr, note.len);
	}
	buf_release(&note);
	return ret;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#if defined(__x86_64__) || defined(__i386__)
/* The host's clock and TSC read together (within 20 us), t halfway. */
static void tsc_sample(double *t, unsigned long long *tsc)
{
	for (int i = 0; i < 1000; i++) {
		double a = now_mono();

		*tsc = __builtin_ia32_rdtsc();
		*t = now_mono();
		if (*t - a < 20e-6) {
			*t = (a + *t) / 2;
			return;
		}
	}
}
#endif

/*
 * A TCG guest's TSC counts at the host's rate (QEMU hands it the host's),
 * and a guest that calibrates it while it is starved of CPU (a loaded host,
 * shards booting at once) can get it wrong fifty times over ("tsc: Fast TSC
 * calibration failed ... Detected 53.073 MHz processor" on a 2.6 GHz host):
 * its clock then runs fifty times too fast, /init at "246 s" after 5 s, and
 * every timeout of the suite fires early (a test "stuck" for 90 s in 2).  So
 * the guest is told the rate (tsc_early_khz=), measured here once: 0 where
 * it cannot be (not x86).
 */
static unsigned long host_tsc_khz(void)
{
	static unsigned long khz;
#if defined(__x86_64__) || defined(__i386__)
	unsigned long long c0, c1;
	double t0, t1;
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	if (khz)
		return khz;
	tsc_sample(&t0, &c0);
	nanosleep(&pause, NULL);
	tsc_sample(&t1, &c1);
	if (t1 > t0 && c1 > c0)
		khz = (unsigned long)((c1 - c0) / (t1 - t0) / 1000 + 0.5);
	log_info("runner: the host's TSC counts at %lu kHz: a TCG guest is told so", khz);
#endif
	return khz;
}

/* One guest of a qemu_boot_all: its command line, its child, its console. */
struct guest {
	struct boot *b;
	struct buf append, err;
	struct buf *args;
	const char **argv;
	struct sandbox_cmd cmd;
	struct child ch;
	struct console cons;
	int limit;
};

/* The guest's QEMU, ready to run; -1 with r->infra (its images could not be made). */
static int guest_prepare(struct run *r, struct boot *b, struct guest *g)
{
	const struct scenario_boot *sb = b->sb;
	int argc;

	memset(g, 0, sizeof(*g));
	g->b = b;
	g->ch = (struct child)CHILD_INIT;
	g->limit = cfg_int("runner.boot_timeout");
	console_init(&g->cons, b->max_console ? b->max_console : (size_t)cfg_int("runner.max_console"));
	buf_addstr(&g->append, "console=ttyS0 panic=-1 oops=panic loglevel=7");
	for (int i = 0; i < sb->ncmdline; i++)
		buf_addf(&g->append, " %s", sb->cmdline[i]);
	if (b->only)
		buf_addf(&g->append, " bbsuite.only=%s", b->only);
	if (!strcmp(r->accel, "tcg") && host_tsc_khz())
		buf_addf(&g->append, " tsc_early_khz=%lu", host_tsc_khz());
	if (r->job && r->job->boot_args && *r->job->boot_args)	/* 0018_boot_args.sql */
		buf_addf(&g->append, " %s", r->job->boot_args);
	if (scenario_make_images(sb, b->images_dir, &g->err)) {
		buf_addf(&r->infra, "cannot make the disk images: %s", g->err.ptr);
		return -1;
	}
	base_argv(&g->append, r->accel, inside(QEMU_KERNEL, b->kernel),
		  inside(QEMU_INITRD, b->initrd), &g->argv, &argc);
	g->args = xcalloc(sb->nqemu + 1, sizeof(*g->args));
	for (int i = 0; i < sb->nqemu; i++) {
		buf_init(&g->args[i], 0);
		scenario_subst(sb, sb->qemu[i], inside(QEMU_IMAGES, b->images_dir), &g->args[i]);
		push(&g->argv, &argc, g->args[i].ptr);
	}
	if (sb->timeout && sb->timeout < g->limit)
		g->limit = sb->timeout;
	if (sandbox_give(b->images_dir)) {
		buf_addf(&r->infra, "cannot give '%s' to the build user", b->images_dir);
		return -1;
	}
	wrap_qemu(r, g->argv, b->kernel, b->initrd, b->images_dir, !strcmp(r->accel, "kvm"),
		  g->limit + 60, &g->cmd);
	g->ch.argv = (const char *const *)g->cmd.argv;
	g->ch.clean_env = true;
	g->ch.output = console_add;
	g->ch.output_arg = &g->cons;
	g->ch.timeout = g->limit;
	return 0;
}

/* After the guest's QEMU ended (rc: child_run's): the results in b and console. */
static int guest_finish(struct run *r, struct guest *g, int rc, struct buf *console)
{
	struct boot *b = g->b;
	int ret = rc;

	b->timed_out = g->ch.timed_out;
	b->cancelled = g->ch.cancelled;
	b->exit_code = g->ch.exit_code;
	b->seconds = g->ch.seconds;
	b->console_cut = console_cut_bytes(&g->cons);
	console_text(&g->cons, console);
	if (b->console_cut)
		log_warn("runner: the guest wrote %llu bytes to its console; %llu cut ([runner] max_console)",
			 g->cons.total, b->console_cut);
	if (ret && (g->ch.timed_out || g->ch.cancelled))
		ret = 0;	/* the caller reads timed_out/cancelled */
	else if (ret)
		buf_addstr(&r->infra, "could not start qemu-system-x86_64");
	if (!ret && b->console_path && write_console_log(r, b, console, g->limit))
		ret = -1;
	return ret;
}

static void guest_release(struct guest *g)
{
	sandbox_cmd_release(&g->cmd);
	for (int i = 0; g->args && i < g->b->sb->nqemu; i++)
		buf_release(&g->args[i]);
	free(g->args);
	free(g->argv);
	buf_release(&g->append);
	buf_release(&g->err);
	console_release(&g->cons);
}

int qemu_boot_all(struct run *r, struct boot *bs, struct buf *consoles, int n)
{
	struct guest *g = xcalloc(n, sizeof(*g));
	struct child **chs = xcalloc(n, sizeof(*chs));
	int ret = 0, ready = 0;

	for (; ready < n; ready++) {
		if (guest_prepare(r, &bs[ready], &g[ready])) {
			ready++;	/* its half-made state is released below */
			ret = -1;
			goto out;
		}
		chs[ready] = &g[ready].ch;
	}
	stage_children(r, chs, n);
	for (int i = 0; i < n; i++) {
		/* each child's own outcome: child_run_all's is of them all */
		int rc = g[i].ch.timed_out || g[i].ch.cancelled || g[i].ch.exit_code < 0 ? -1 : 0;

		if (guest_finish(r, &g[i], rc, &consoles[i]))
			ret = -1;
	}
out:
	for (int i = 0; i < ready; i++)
		guest_release(&g[i]);
	free(g);
	free(chs);
	return ret;
}

int qemu_boot(struct run *r, struct boot *b, struct buf *console)
{
	return qemu_boot_all(r, b, console, 1);
}
