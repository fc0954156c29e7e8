/*
 * runner: the pieces of bugbridge-runner, in the order a job meets them.
 *
 *   claim.c      the main loop: claim a job (lib/job.h), keep its lease,
 *                run it, release it on SIGTERM
 *   run.c        one job: prepare, apply (before any build), the seed,
 *                the patched variant through configure, build, boot, test,
 *                the baseline's boot; then report
 *   baseline.c   the base's results, cached per base, config and suite
 *   warm.c       --warm: the seed built ahead of any job, with an estimate
 *   progress.c   a build's progress from its own output, with an estimate
 *   stage.c      stage rows and progress; children run with the lease kept
 *                alive and a cancel seen (every stage's child goes through it)
 *   boot.c       the boot and test stages: suite boots, flake re-runs
 *   paths.c      where things live: cache dir, kernel-patches dir
 *   sandbox.c    argv prefixes that confine apply, builds, gcov and QEMU (bwrap)
 *   tree.c       pristine baseline (extracted once), per-job trees, seeds
 *   seed.c       what a seed was made from; why no seed fits a job
 *   apply.c      patch series: load from the candidate, dry-run, apply
 *   kconfig.c    tinyconfig + fragments, and the check that they stuck
 *   build.c      make bzImage, first compiler errors
 *   initramfs.c  the newc cpio with busybox, bbsuite and /init
 *   scenario.c   kernel-patches/suite/scenarios: images, QEMU args, cmdline
 *   qemu.c       the accelerator probe and one guest boot with a watchdog
 *   lava.c       or that boot as a LAVA job ([runner] backend = lava);
 *   lavaart.c    the files it boots, published for the LAVA worker;
 *   lavadef.c    its definition, its log's console, its end judged (pure)
 *   console.c    the guest's console within max_console: head, cut, tail
 *   joblog.c     writing job logs; a log we cannot write is infra-error
 *   ktap.c       KTAP parser (pure)
 *   logscan.c    kernel problems in the console log -> signatures (pure)
 *   verdict.c    flake counting, the verdict and what changed (pure)
 *   coverage.c   reach: the guest's gcov data, the patch's changed lines,
 *                which of them ran (pure parts); reach.c runs diff and gcov
 *
 * A struct run is one job in progress; struct variant one of its trees.
 * Everything a stage writes lives under the job's directory in the cache;
 * logs under <job dir>/logs, or <[runner] log_dir>/<job dir name> when
 * that is set, which is what jobs.log_dir names.
 */
#ifndef BB_RUNNER_H
#define BB_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include "buf.h"
#include "child.h"
#include "db.h"
#include "job.h"

/* ---- paths.c ---- */
/* The cache dir (lib/cachedir.h), created if missing. */
int runner_cache_dir(struct buf *out);
/*
 * The kernel-patches directory: [runner] patches_dir, else
 * $BUGBRIDGE_DATADIR/kernel-patches, else the source tree the binary was built
 * in (the directory above its build dir holding kernel-patches/), else
 * BB_DATADIR/kernel-patches.
 */
int runner_patches_dir(struct buf *out);
/* mkdir -p */
int mkdir_p(const char *path, int mode);
/* rm -rf through a child (trees are large; no recursion here). */
int remove_tree(const char *path);
bool path_exists(const char *path);
/* A file's sha256 folded into ctx (missing file: its name only). */
struct sha256;
void hash_file(struct sha256 *ctx, const char *path);

/* ---- sandbox.c ---- */
enum sandbox_flags {
	SB_DROP = 1,		/* run as the build user when we are root */
	SB_QEMU = 2,		/* QEMU's address-space limit, not a compiler's */
	SB_KVM = 4,		/* /dev/kvm inside, and the kvm group */
};
#define SB_MAX_BINDS 4
struct sandbox {
	const char *tree;	/* host path mounted read-only at /bb/src */
	const char *tree_rw;	/* or read-write */
	const char *out;	/* host path mounted read-write at /bb/src/out */
	const char *ccache;	/* host path mounted at /bb/ccache, read-only unless */
	bool ccache_rw;		/* ... this (builds of trusted trees only) */
	bool in_out;		/* start in out/ rather than the tree */
	int cpu;		/* CPU seconds per process (0: an hour) */
	struct {
		const char *host, *inside;	/* inside NULL: the same path */
		bool rw;
	} binds[SB_MAX_BINDS];
	int flags;
};
/*
 * Resolve [runner] sandbox once: "bwrap" when bwrap works as we use it,
 * else "unshare" or "none" (which confine nothing that matters).
 */
const char *sandbox_mode(void);
/*
 * 0 when untrusted code may run: bwrap works, or [runner] unconfined is set
 * (logged).  Else -1 with the reason appended to why (an infra-error).
 */
int sandbox_check(struct buf *why);
/* The build user's uid/gid when we are root; -1 when no drop applies. */
int sandbox_build_ids(uid_t *uid, gid_t *gid);
/*
 * Wrap argv for the sandbox.  cmd->argv is a NULL-terminated vector in
 * storage (free with sandbox_cmd_release); cmd->cwd the directory to start
 * in on the host (NULL under bwrap, which sets it); cmd->ccache_dir the
 * CCACHE_DIR value to use.  Run it with child.h's clean_env.
 */
struct sandbox_cmd {
	char **argv;
	int argc, alloc;
	const char *cwd;
	char *ccache_dir;
};
int sandbox_wrap(const struct sandbox *sb, const char *const *argv, struct sandbox_cmd *cmd);
void sandbox_cmd_release(struct sandbox_cmd *cmd);
/* chown -R path to the build user (no-op unless we are root and drop). */
int sandbox_give(const char *path);
/* The same for path's directories only (a job tree: its files are the base's). */
int sandbox_give_dirs(const char *path);
/* Is path the build user's already (or is there no build user)? */
bool sandbox_given(const char *path);

/* ---- the job in progress ---- */
struct run;

/* How much of the candidate's change the run executed (coverage.c). */
struct reach {
	int changed, reached;		/* executable changed lines, of those executed */
	struct buf unreached_funcs;	/* "sd_eh_action (sd.c), ..." */
	struct buf not_measured;	/* files gcov cannot see, with why */
	struct buf log;			/* one line per counted line */
	struct buf summary;		/* the verdict's line */
};

struct variant {
	struct run *run;
	const char *name;		/* "patched" or "baseline" */
	char *dir;			/* <job dir>/<name> */
	char *tree;			/* <dir>/tree */
	char *out;			/* <tree>/out, the O= dir */
	char *logs;			/* <job dir>/logs */
	int npatches;			/* candidate patches applied (0: baseline) */
	bool seeded;			/* out/ came from the seed build */
	bool seed_exact;		/* of its own kind (gcov or plain): same .config */
	struct buf no_seed;		/* else why not (seed_explain), for the build stage */
	bool kconfig_touched;		/* a candidate patch changed a Kconfig file */
	double build_seconds;		/* make's wall clock */
	int build_objects;		/* objects it compiled (progress.c) */
	/* outcome */
	const char *verdict;		/* NULL: still going */
	struct buf detail;
	struct buf console;		/* full-suite console */
	struct ktap_result *ktap;
	struct vtest *tests;		/* after flake reruns */
	int ntests;
	struct logscan_result *problems;
	bool from_cache;		/* baseline results came from baseline_runs */
	/* reach (coverage.c): only the patched variant, with [runner] coverage */
	bool coverage;			/* built with configs/gcov.config */
	char **cand_files;		/* files the candidate touched */
	int ncand_files;
	int gcda_files;			/* gcov files the guest handed back */
	bool reach_measured;
	struct reach reach;
};

struct patch_item {
	char *name;			/* "0001-foo.patch" */
	char *path;			/* file on disk */
};

struct run {
	struct db *db;
	struct job *job;
	const volatile sig_atomic_t *stop;	/* SIGTERM: release and exit */
	volatile int cancel;		/* child.h kills the child when set */
	bool lease_lost;
	bool cancelled;
	double last_renew;
	double last_cancel_check;
	char *cache;			/* cache dir */
	char *patches_dir;		/* kernel-patches */
	char *base_tree;		/* pristine baseline */
	char *kernel_version;
	char *jobdir;			/* <cache>/jobs/<id> */
	char *logs;			/* <jobdir>/logs */
	char *suite_bin;		/* built bbsuite */
	char *seed_key;			/* base+config+harness hash */
	char *seed_key_gcov;		/* + configs/gcov.config: the coverage seed */
	char *suite_key;		/* + suite: baseline cache key */
	const char *accel;		/* "kvm" or "tcg" after the probe */
	struct patch_item *patches;	/* candidate series */
	int npatches;
	struct patch_item *harness;
	int nharness;
	struct scenario *scenario;
	sqlite3_int64 stage_id;
	const char *stage_variant;
	struct buf infra;		/* infra-error reason, if any */
	bool log_failed;		/* joblog.c said so in infra already */
	struct build_progress *progress;	/* a build is running: stage_tick reads it */
};

/* ---- run.c ---- */
/* Run one claimed job to its verdict (or release/cancel). */
int run_job(struct db *db, struct job *job, const volatile sig_atomic_t *stop);
/* Setup and prepare of r (r->db, r->job, r->stop set); run_end releases. */
int run_begin(struct run *r);
void run_end(struct run *r);
/* Build the base as the seed of this kind unless the cache has it. */
int run_seed(struct run *r, bool coverage);

/* ---- warm.c ---- */
/* bugbridge-runner --warm: the seed a job would build first, built now. */
int run_warm(struct db *db, const volatile sig_atomic_t *stop);
/* Keep the time and object count of a full build of the base (estimates). */
void warm_record(struct run *r, double seconds, int objects);
/* The last ones kept; -1 when none. */
int warm_last(struct run *r, double *seconds, int *objects);

/* ---- progress.c ---- */
struct build_progress {
	struct variant *v;
	const char *log_path;		/* make's output, growing */
	long long off;			/* read so far */
	int done, total;		/* objects compiled; of (0: not known) */
	double total_secs;		/* the last full build's time (0: not known) */
	double start, last;
	struct buf line;		/* the line being read */
	struct buf step;		/* make's last step: "LD vmlinux" */
};
void progress_start(struct run *r, struct build_progress *p, struct variant *v,
		    const char *log_path);
void progress_stop(struct run *r, struct build_progress *p);
/* stage_tick: every 2 s (20 s without a job) the line to job_progress or stdout. */
void progress_tick(struct run *r);
/* Pure: "patched: build: 412 of 852 objects compiled, about 3 min 10 s left (CC x.o)". */
void progress_text(const struct build_progress *p, double elapsed, struct buf *out);

/* ---- stage.c ---- */
/* The claim has just renewed the lease: start its clock. */
void stage_lease_start(struct run *r);
/*
 * The child.h tick: renew the lease about every lease/3 s, read the cancel
 * flag every 2 s, see SIGTERM; r->cancel set on any (or a lost lease).
 */
void stage_tick(void *arg);
/* stage_tick() now; true when the job is to stop. */
bool stage_interrupted(struct run *r);
/*
 * child_run(ch) with the job's tick and cancel flag: the lease stays alive
 * and a cancel, a lost lease or SIGTERM kills the child.  child_run's result.
 */
int stage_child(struct run *r, struct child *ch);
/* End the current stage "ok", begin the next (job_stages + progress); v NULL: patched. */
int stage_begin(struct run *r, struct variant *v, const char *stage);
/* A note on the current stage, shown on the job page (kept when it ends ok). */
int stage_note(struct run *r, const char *detail);
/* End the current stage (if any): status "ok" or "failed", detail may be NULL. */
int stage_end(struct run *r, const char *status, const char *detail);
/* End the variant with a verdict of the patch's making (and its stage, failed). */
void stage_fail(struct variant *v, const char *verdict, const char *detail);

/* ---- boot.c ---- */
/* The boot stage, then test: each scenario boot once with the whole suite. */
int boot_suite(struct run *r, struct variant *v);
/* Failing tests again, alone, flake_retries times.  Both -1 when the variant ended. */
int boot_reruns(struct run *r, struct variant *v);
/* The variant's verdict (pass/fail) and detail from its tests. */
void boot_summarise(struct variant *v);

/* ---- baseline.c ---- */
/* The base's results from baseline_runs (younger than baseline_max_age) into v. */
bool baseline_from_cache(struct run *r, struct variant *v);
/* Keep v's results as the base's for r->suite_key. */
void baseline_remember(struct run *r, const struct variant *v);

/* ---- tree.c ---- */
/* Extract the tarball once (locked); r->base_tree, r->kernel_version. */
int tree_base_ensure(struct run *r);
/* v->tree as a hardlink farm of the baseline (no out/ yet): the spare, or a new one. */
int tree_make(struct run *r, struct variant *v);
/* Make the next job's tree now (between jobs), unless one is waiting. */
void tree_refill_spare(struct run *r);
/* v->out from the seed (candidate files touched: v->seeded), or empty without one. */
int tree_seed(struct run *r, struct variant *v);
/* After a seed build (no candidate patches): keep v->out as the seed (gcov or plain). */
int tree_save_seed(struct run *r, struct variant *v);
/* Is there a seed of v's kind (gcov or plain)? */
bool tree_has_seed(struct run *r, const struct variant *v);
/* ---- seed.c ---- */
/* The ingredients of this runner's seed key, "what<TAB>value" lines (+ gcov). */
void seed_parts(struct run *r, bool coverage, struct buf *out);
/* Keep them beside the seed as <key>.parts, unless there already. */
int seed_parts_save(struct run *r, bool coverage);
/* Pure: the ingredients in which two parts texts differ ("; "-joined); how many. */
int seed_parts_diff(const char *ours, const char *theirs, struct buf *out);
/* Why no seed build fits this runner's key (for the log and the job page). */
void seed_explain(struct run *r, struct buf *why);

/* Files touched only by the harness get the baseline's mtime (see tree.c). */
int tree_settle_harness(struct run *r, struct variant *v, char **touched, int ntouched,
			char **cand_touched, int ncand);

/* ---- apply.c ---- */
/* Free a patch list. */
void patch_items_free(struct patch_item *items, int n);
/* Load the candidate's patches into <jobdir>/patches; r->patches. */
int apply_load_candidate(struct run *r);
/* The harness series from kernel-patches/harness (may be empty). */
int apply_load_series_dir(const char *dir, const char *dest, struct patch_item **items, int *n,
			  struct buf *err);
/*
 * Apply items[0..n) to v->tree, each checked by patch_check() and dry-run
 * first.  On a patch that is refused or does not apply: returns 1 with the
 * patch name and the reason or rejected hunks in *why (and the log).  touched collects "patching file X" names.  -1: could not run patch.
 */
int apply_series(struct run *r, struct variant *v, const struct patch_item *items, int n,
		 const char *log_name, struct buf *why, char ***touched, int *ntouched);
void strv_free(char **v, int n);

/* ---- kconfig.c ---- */
/* tinyconfig + fragments + olddefconfig; 1 with the missing options in *why. */
int kconfig_configure(struct run *r, struct variant *v, struct buf *why);
/* Only the check, on a seeded out/.config (no Kconfig file changed). */
int kconfig_check(struct run *r, struct variant *v, struct buf *why);
/* Pure: options in fragment text that config text does not have; names in *missing. */
int kconf_missing(const char *fragment, const char *config, struct buf *missing);

/* ---- build.c ---- */
/* make bzImage; 1 = compile failed (first errors in *why), -1 infra. */
int build_kernel(struct run *r, struct variant *v, struct buf *why);
/* Pure: the first compiler error lines of a build log. */
void build_first_errors(const char *log, struct buf *out, int max_lines);
/* UTS_VERSION of the kernel last linked in v->out ("#2 bugbridge"); -1: none. */
int build_uts_version(const struct variant *v, struct buf *out);
/*
 * Pure: false when the console's "Linux version" banner does not end with
 * uts_version (the guest booted another kernel than the one built), the
 * banner's version in *booted; true when it does or there is no banner.
 */
bool banner_is_built(const char *console, const char *uts_version, struct buf *booted);
/* Build kernel-patches/suite once per content hash; r->suite_bin. */
int build_suite(struct run *r);

/* ---- initramfs.c ---- */
struct cpio_entry {
	const char *name;		/* path inside, no leading slash */
	unsigned mode;			/* S_IFREG|0755 ... */
	const char *src;		/* host file for regular files, or NULL */
	const char *data;		/* or inline content / symlink target */
	unsigned rdev_major, rdev_minor;
};
/* Write an uncompressed newc archive. */
int cpio_write(const char *path, const struct cpio_entry *entries, int n);
/* The guest initramfs for this run: busybox, bbsuite, init. */
int initramfs_make(struct run *r, const char *path);

/* ---- console.c ---- */
struct console {
	struct buf head;		/* the first max_console/2 bytes */
	char *ring;			/* the latest ring_cap bytes */
	size_t ring_cap, ring_len, ring_next;
	unsigned long long total;	/* bytes the guest wrote */
};
void console_init(struct console *c, size_t cap);
/* A child.h output callback (arg: the struct console). */
void console_add(void *arg, const char *data, size_t len);
/* Bytes that were neither in the head nor in the tail. */
unsigned long long console_cut_bytes(const struct console *c);
/* Head, a line saying how much was cut (if any), tail. */
void console_text(const struct console *c, struct buf *out);
void console_release(struct console *c);

/* ---- joblog.c ---- */
/* Write (or append) a job log; -1 and r->infra names the file and errno. */
int joblog_write(struct run *r, const char *path, bool append, const char *data, size_t len);
/* After a child with a log_path: -1 and r->infra if its log could not be written. */
int joblog_child(struct run *r, const struct child *ch);

/* ---- scenario.c ---- */
/* kernel-patches/suite/scenarios (grammar at the top of that file). */
struct scenario_image {
	char *name;
	long long size;
	bool lba_pattern;		/* else zero-filled */
};
struct scenario_boot {
	char *name;
	int timeout;			/* seconds; 0: [runner] boot_timeout */
	struct scenario_image *images;
	int nimages;
	char **qemu;			/* argv elements, "@NAME@" unresolved */
	int nqemu;
	char **cmdline;
	int ncmdline;
	char **tests;
	int ntests;
	bool *emulated;			/* per test: needs QEMU's devices or faults */
};
struct scenario {
	struct scenario_boot *boots;
	int nboots;
};
int scenario_load(const char *path, struct scenario *sc, struct buf *err);
/* Pure: parse text; -1 with "line N: why" in err. */
int scenario_parse(const char *text, struct scenario *sc, struct buf *err);
void scenario_release(struct scenario *sc);
/* The boot that lists test `name` (or a test starting with "name-"), or NULL. */
const struct scenario_boot *scenario_boot_for(const struct scenario *sc, const char *name);
/* Fresh images for a boot under dir (dir/NAME.img). */
int scenario_make_images(const struct scenario_boot *b, const char *dir, struct buf *err);
/* The kernel command line of a boot (only: bbsuite.only=NAME, or NULL). */
void scenario_append(const struct scenario_boot *b, const char *only, struct buf *out);
/* arg with each "@NAME@" replaced by dir/NAME.img. */
void scenario_subst(const struct scenario_boot *b, const char *arg, const char *dir,
		    struct buf *out);

/* ---- qemu.c ---- */
struct boot {
	const struct scenario_boot *sb;
	const char *kernel;		/* bzImage */
	const char *initrd;
	const char *only;		/* bbsuite.only=NAME, or NULL */
	const char *console_path;	/* console copy written here */
	const char *images_dir;
	/* results */
	bool timed_out;
	bool cancelled;
	int exit_code;
	double seconds;
	unsigned long long console_cut;	/* console bytes beyond max_console, dropped */
};
/* Decide KVM or TCG once per runner (real probe boot); r->accel. */
int qemu_pick_accel(struct run *r, const char *kernel, const char *initrd);
/*
 * Boot once; the console (head and tail within max_console, console.c) is
 * appended to *console and written to console_path.  -1: QEMU did not run,
 * or the console log could not be written (r->infra says which).
 */
int qemu_boot(struct run *r, struct boot *b, struct buf *console);

/* ---- lavaart.c ---- */
struct lava_art {
	char token[65];			/* names the directory and its URL */
	struct buf dir;			/* the published files */
	bool row;			/* an artifacts row to withdraw */
};
/* Publish the boot's files; url: where the worker fetches them. */
int lava_art_publish(struct run *r, const struct variant *v, const struct boot *b,
		     long long lava_row, struct lava_art *a, struct buf *url);
void lava_art_withdraw(struct run *r, struct lava_art *a);

/* ---- lava.c ---- */
/* [runner] backend = lava */
bool lava_enabled(void);
/*
 * qemu_boot's twin: the boot as a LAVA job (submitted, followed, its log
 * read back).  Same results in *b and *console; -1 with r->infra when the
 * lab failed us (never the patch's fault).  v names the lava_jobs row.
 */
int lava_boot(struct run *r, struct variant *v, struct boot *b, struct buf *console);

/* ---- lavadef.c (pure) ---- */
#define LAVA_SUITE_END "# bbsuite exit status"
struct lava_def {
	const char *job_name, *device_type, *priority, *visibility;
	long job_timeout, test_timeout;		/* seconds */
	const char *kernel_url, *ramdisk_url;
	const char *images_url;			/* images at <images_url>/NAME.img */
	const char *append;			/* the kernel command line */
	const struct scenario_boot *sb;
	bool board;				/* a real board: no QEMU devices */
	bool kvm;
	const char *boot_method;		/* a board's */
};
/* The job definition (JSON, which LAVA reads as YAML) into out. */
void lava_definition(const struct lava_def *d, struct buf *out);
/*
 * From a LAVA 2023.01 job log: the serial console (the "target" and
 * "feedback" lines, one
 * per line) appended to console, the QEMU command line to boot_cmd (if not
 * NULL).  Returns the number of console lines.
 */
int lava_log_console(const char *log, size_t len, struct buf *console, struct buf *boot_cmd);
/* Does this QEMU command line give the guest a network? */
bool lava_cmd_has_network(const char *cmd);
enum lava_end {
	LAVA_END_RAN,		/* the guest ran; its console tells the rest */
	LAVA_END_TIMEOUT,	/* the guest hung past the test's timeout */
	LAVA_END_CANCELED,	/* cancelled in LAVA, not by us */
	LAVA_END_INFRA,		/* the lab failed: the kernel never ran, or lost mid-boot */
};
/* What a finished LAVA job (health, failure_comment) with this console means. */
enum lava_end lava_judge(const char *health, const char *failure, const char *console);

/* ---- coverage.c, reach.c ---- */
struct gcda_blob {
	char *path;			/* "drivers/scsi/sd.gcda" */
	unsigned char *data;
	size_t len;
};
/* Pure: the "#bbgcov" blocks of a console (suite/bbgcov.c); bad ones are skipped. */
int coverage_blobs(const char *text, size_t len, struct gcda_blob **out, int *n);
void coverage_blobs_free(struct gcda_blob *b, int n);
/* Write the console's gcov data into v->out (after the full-suite boot). */
int coverage_collect(struct run *r, struct variant *v, const struct buf *console);
struct changed_line {
	int line;			/* in the new file */
	bool deletion;			/* lines were deleted just before it */
};
/* Pure: the lines a `diff -U0` changes in the new file. */
int coverage_changed_lines(const char *diff, struct changed_line **out, int *n);
/* Pure: add file's changed lines to acc from gcov's JSON; -1 if the JSON lacks the file. */
int coverage_reach_file(const char *file, const char *json, const struct changed_line *cl,
			int ncl, struct reach *acc);
/* Pure: acc->summary from the counts. */
void coverage_summary(struct reach *acc);
void reach_init(struct reach *acc);
void reach_release(struct reach *acc);
/* After the patched variant's suite: v->reach (reach.c). */
int coverage_measure(struct run *r, struct variant *v);

/* ---- ktap.c (pure) ---- */
enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };
struct ktap_test {
	int number;
	char *name;
	enum ktap_status status;
	char *reason;			/* after " # " */
	char *diag;			/* "# " lines before the result, joined */
};
struct ktap_result {
	bool seen_version;
	int planned;			/* -1: no plan line */
	struct ktap_test *tests;
	int ntests;
};
/* Parse a console log (kernel lines, \r, interleaving all tolerated). */
int ktap_parse(const char *text, size_t len, struct ktap_result *out);
void ktap_release(struct ktap_result *r);
const char *ktap_status_name(enum ktap_status s);

/* ---- logscan.c (pure) ---- */
struct logscan_problem {
	char *kind;			/* oops, bug, warning, kasan, eod, hung, panic */
	char *title;			/* normalised */
	char *frames;			/* top frames, newline-separated */
	char hash[65];
	int count;
	char *first_line;		/* raw line, for the verdict detail */
};
struct logscan_result {
	struct logscan_problem *items;
	int n;
	bool panicked;			/* "Kernel panic - not syncing" seen */
};
int logscan(const char *text, size_t len, struct logscan_result *out);
void logscan_release(struct logscan_result *r);
/* Pure: strip timestamps, addresses, pids, CPU numbers from one line. */
void logscan_normalise(const char *line, struct buf *out);

/* ---- verdict.c (pure) ---- */
struct vtest {
	char *name;
	char *status;			/* pass, fail, skip, flaky */
	int runs, failures;
	char *diag;
	const char *change;		/* set by verdict_compare */
};
/* Fold a test's runs: first the full-suite result, then reruns. */
void vtest_from_ktap(const struct ktap_test *t, struct vtest *out);
void vtest_add_rerun(struct vtest *t, bool failed, const char *diag);
/* The guest's in-boot re-runs ("# rerun NAME K/N: ok|not ok # why") of a console. */
void vtests_add_guest_reruns(struct vtest *tests, int ntests, const char *console);
void vtests_free(struct vtest *t, int n);
/* "failed 3/3", "failed 1/3: flaky", "passed" */
void vtest_summary(const struct vtest *t, struct buf *out);
/*
 * Per-test and overall change between baseline and patched results
 * ("FAIL->PASS", "PASS->FAIL", "FAIL->FAIL", "PASS->PASS", per test also
 * "FLAKY", "NEW", "GONE").  Returns the overall change (static string).
 */
const char *verdict_compare(struct vtest *patched, int np, const struct vtest *base, int nb,
			    const char *patched_verdict, const char *base_verdict);

#endif
