/*
 * t_sd_limits.c: the I/O limits sd derives from a disk's Block Limits VPD
 * page and its host, as sysfs shows them (issue 24: sd_revalidate_disk's
 * io_min and max_sectors).
 *
 *   sd-limits  QEMU's scsi-hd at virtio-scsi target 5 (suite/scenarios:
 *       min_io_size=4096, opt_io_size=16384, max_io_size=2097152, so its
 *       Block Limits page says: granularity 8 blocks, optimal 32, maximum
 *       4096): queue/minimum_io_size 4096, optimal_io_size 16384;
 *       max_sectors_kb the optimal transfer (16) on 6.1, where sd sets it
 *       at the first scan, the block layer's default cap (1280) on 6.12;
 *       max_sectors_kb set by the user to the device's maximum (2048) stays
 *       after a rescan.  Every SCSI disk's max_sectors_kb is within its
 *       max_hw_sectors_kb.  The disk's max_sectors_kb is put back.
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /sys/block/<name>/<rel> as a number, or -1. */
static long long blk_number(const char *name, const char *rel)
{
	char path[320];

	snprintf(path, sizeof(path), "/sys/block/%s/%s", name, rel);
	return knob_number(path);
}

/* Every SCSI disk: max_sectors_kb within max_hw_sectors_kb. */
static int every_disk_within_hw(void)
{
	struct dirent *e;
	DIR *d = opendir("/sys/block");
	int ret = 0, n = 0;

	if (!d)
		return fail("/sys/block: %s", strerror(errno));
	while (!ret && (e = readdir(d)) != NULL) {
		long long max, hw;

		if (strncmp(e->d_name, "sd", 2))
			continue;
		max = blk_number(e->d_name, "queue/max_sectors_kb");
		hw = blk_number(e->d_name, "queue/max_hw_sectors_kb");
		n++;
		if (max <= 0 || hw <= 0 || max > hw)
			ret = fail("%s: max_sectors_kb %lld, max_hw_sectors_kb %lld", e->d_name, max,
				   hw);
	}
	closedir(d);
	if (!ret)
		diag("%d disks: max_sectors_kb within max_hw_sectors_kb", n);
	return ret;
}

static int queue_want(const char *name, const char *what, long long want)
{
	char rel[64];
	long long got;

	snprintf(rel, sizeof(rel), "queue/%s", what);
	got = blk_number(name, rel);
	if (got != want)
		return fail("%s's %s is %lld, want %lld", name, rel, got, want);
	return 0;
}

/* The user's max_sectors_kb at the device's maximum survives a rescan. */
static int user_max_kept(const char *name, long long was)
{
	char path[320];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/max_sectors_kb", name);
	if (knob_write(path, "2048"))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/rescan", name);
	ret = knob_write(path, "1");
	diag("max_sectors_kb 2048 by the user, after a rescan: %lld",
	     blk_number(name, "queue/max_sectors_kb"));
	if (!ret)
		ret = queue_want(name, "max_sectors_kb", 2048);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/max_sectors_kb", name);
	if (knob_writef(path, "%lld", was))
		return -1;
	return ret;
}

int t_sd_limits(void)
{
	const char *name = dev_name(ROLE_QLIMITS);
	long long max;

	if (dev_require(ROLE_QLIMITS))
		return -1;
	max = blk_number(name, "queue/max_sectors_kb");
	diag("%s: minimum_io_size %lld, optimal_io_size %lld, max_sectors_kb %lld,"
	     " max_hw_sectors_kb %lld", name, blk_number(name, "queue/minimum_io_size"),
	     blk_number(name, "queue/optimal_io_size"), max,
	     blk_number(name, "queue/max_hw_sectors_kb"));
	if (queue_want(name, "minimum_io_size", 4096) ||
	    queue_want(name, "optimal_io_size", 16384) ||
	    queue_want(name, "max_sectors_kb", kernel_version() >= KV(6, 12, 0) ? 1280 : 16) ||
	    every_disk_within_hw())
		return -1;
	return user_max_kept(name, max);
}
