/*
 * boot: the boot and test stages.  initramfs.c makes the guest's initramfs
 * (busybox, bbsuite, /init); boot.c boots each scenario once with the whole
 * suite, re-runs failing tests and sums up a variant's verdict; baseline.c
 * keeps the base's results, cached per base, config and suite.
 */
#ifndef BB_BOOT_H
#define BB_BOOT_H

#include <stdbool.h>
#include "run.h"

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

#endif
