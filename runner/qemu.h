/*
 * qemu: one guest boot (struct boot: what to boot, what came of it) and the
 * local backend that runs it: the accelerator probe, then QEMU with a
 * watchdog.  lava.h is the other backend, with the same struct boot.
 */
#ifndef BB_QEMU_H
#define BB_QEMU_H

#include <stdbool.h>
#include "buf.h"
#include "run.h"

struct scenario_boot;

struct boot {
	const struct scenario_boot *sb;
	const char *kernel;		/* bzImage */
	const char *initrd;
	const char *only;		/* bbsuite.only=NAME, or NULL */
	const char *console_path;	/* console copy written here */
	const char *images_dir;
	size_t max_console;		/* console bytes kept (0: [runner] max_console) */
	/* results */
	bool timed_out;
	bool cancelled;
	int exit_code;
	double seconds;
	unsigned long long console_cut;	/* console bytes beyond max_console, dropped */
};
/*
 * Decide KVM or TCG once per runner: a real probe boot of the seed's kernel
 * (tree_seed_kernel), never a job's; r->accel.
 */
int qemu_pick_accel(struct run *r);
/*
 * Boot once; the console (head and tail within max_console, console.c) is
 * appended to *console and written to console_path.  -1: QEMU did not run,
 * or the console log could not be written (r->infra says which).
 */
int qemu_boot(struct run *r, struct boot *b, struct buf *console);
/*
 * The n boots bs[] at once (the suite's shards, re-runs of failing
 * tests), each as qemu_boot would, its console into consoles[i]; -1 when
 * any of them failed so.
 */
int qemu_boot_all(struct run *r, struct boot *bs, struct buf *consoles, int n);

#endif
