/*
 * runner: bugbridge-runner's public face (its loop over the job queue) and
 * a map of the folder, in the order a job meets it.  May use: lib/ only.
 * `bugbridge config check` (cli/) calls runner_check.
 * Each header owns one concern; a .c file includes the ones it uses.
 *
 *   runner.h     claim.c: the main loop: claim a job (lib/job.h), keep its
 *                lease, run it, release it on SIGTERM
 *   run.h        the job model (struct run, variant, patch_item, reach);
 *                run.c: one job, prepare, apply (before any build), the
 *                seed, the patched variant through configure, build, boot,
 *                test, the baseline's boot, then report; warm.c: --warm,
 *                the seed built ahead of any job, with an estimate
 *   stage.h      stage.c: stage rows, children run with the lease kept
 *                alive and a cancel seen (every stage's child goes through
 *                it); progress.c: a build's progress from its own output;
 *                joblog.c: job logs (one we cannot write is infra-error)
 *   paths.h      paths.c: where things live (cache dir, kernel-patches)
 *   runner.h     runner_check.c, lava_check.c: `config check`'s lines, and
 *                what the runner refuses to start without
 *   sandbox.h    sandbox.c: argv prefixes that confine apply, builds, gcov
 *                and QEMU (bwrap)
 *
 *   the stages:
 *   tree.h       tree.c: pristine baseline (extracted once), per-job
 *                trees, seeds; seed.c: what a seed was made from, why no
 *                seed fits a job
 *   apply.h      apply.c: patch series: load from the candidate, dry-run, apply
 *   kconfig.h    kconfig.c: tinyconfig + fragments, and the check that they stuck
 *   build.h      build.c: make bzImage, first compiler errors, the suite
 *   boot.h       initramfs.c: the newc cpio with busybox, bbsuite and /init;
 *                boot.c: suite boots, flake re-runs; baseline.c: the base's
 *                results, cached per base, config and suite
 *   qemu.h       qemu.c: the accelerator probe and one guest boot with a
 *                watchdog
 *   lava.h       lava.c: or that boot as a LAVA job ([runner] backend =
 *                lava); lavaart.c: the files it boots, for the LAVA worker
 *   coverage.h   coverage.c, reach.c: the reach of the patch's lines
 *
 *   the pure parsers:
 *   console.h    the guest's console within max_console: head, cut, tail
 *   scenario.h   kernel-patches/suite/scenarios: images, QEMU args, cmdline
 *   controllers.h  controllers.c: which host adapters' boots a job runs (its patch,
 *                [runner] controllers) and their config fragments
 *   lavadef.h    a LAVA job's definition, its log's console, its end judged
 *   ktap.h       KTAP parser
 *   logscan.h    kernel problems in the console log -> signatures
 *   verdict.h    flake counting, the verdict and what changed
 *   coverage.h   (its pure parts) gcov data, changed lines, which ran
 */
#ifndef BB_RUNNER_H
#define BB_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include "db.h"

struct runner_opts {
	bool once;		/* run one queued job, then exit */
	sqlite3_int64 job_id;	/* run exactly this job, then exit */
	bool warm;		/* build the seed ahead of any job, then exit */
	const char *base;	/* --warm's base (NULL: the default), or --fetch's */
	bool fetch;		/* fetch and extract base (a release: evicting), then exit */
};

/* 0: the runner did its work; -1: it could not (logged). */
int runner_main(struct db *db, const struct runner_opts *opts,
		const volatile sig_atomic_t *stop);

/*
 * `bugbridge config check` (runner_check.c): a line each for the
 * kernel-patches directory, each kept series' tarball, the cache dir (and
 * log dir) being writable, the sandbox, and with backend = lava the lab
 * (lava_check.c: it answers, the token, its devices, the artifact URL).
 */
struct check;
void runner_check(struct check *c);
void lava_check(struct check *c);
/*
 * At start: what would fail every job alike, one line each in why: no
 * cache dir to write in, and (patches) no kernel-patches directory.  -1
 * when any; the runner then exits 2 saying why.
 */
struct buf;
int runner_workable(bool patches, struct buf *why);

#endif
