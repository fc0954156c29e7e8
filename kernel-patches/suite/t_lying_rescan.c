/*
 * t_lying_rescan.c: the scan and the revalidation, as user space starts
 * and sees them (issue 24: scsi_scan.c's INQUIRY and REPORT LUNS, sd.c's
 * sd_revalidate_disk and read_capacity_10/16).
 *
 *   scsi-scan              what the boot's INQUIRY left in sysfs for the
 *                          scsi_bbtest LUNs (vendor, model, rev, type,
 *                          scsi_level, the 36 raw bytes); then "- - -" into
 *                          every host's scan (REPORT LUNS for QEMU's and
 *                          scsi_debug's targets, a sequential scan for
 *                          scsi_bbtest's SCSI-2 one): the same devices, the
 *                          same sizes, no scan error logged
 *   lying-device-rescan    the scsi_bbtest disk's rescan (sd_revalidate_disk)
 *                          with READ CAPACITY(10) answered: unscripted, 1
 *                          command; UNIT ATTENTION 29/00 (reset) once, 2;
 *                          ABORTED COMMAND once, 2 (sd's retry); twice, 3;
 *                          2048 sectors each time.  (Not NOT READY 3a: on
 *                          6.1.192 sd then marks the non-removable disk
 *                          changed, and every later read fails "device
 *                          offline or changed", nothing clearing it.)  A
 *                          rescan of the QEMU and scsi_debug disks (READ
 *                          CAPACITY(16): they are SPC-3): sizes unchanged
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OP_READ_CAPACITY	0x25
#define ABORTED_COMMAND		0x0b
#define UNIT_ATTENTION		6

/* /sys/block/<role>/device/<name>, trimmed, into out: 0 or fail(). */
static int dev_attr(enum role r, const char *name, char *out, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/block/%s/device/%s", dev_name(r), name);
	return knob_read(path, out, len);
}

static int attr_is(enum role r, const char *name, const char *want)
{
	char got[128];

	if (dev_attr(r, name, got, sizeof(got)))
		return -1;
	if (strcmp(got, want))
		return fail("%s's %s is '%s', want '%s'", dev_name(r), name, got, want);
	return 0;
}

/* The INQUIRY data the boot kept for a scsi_bbtest LUN. */
static int bbtest_inquiry(enum role r, const char *model, int type)
{
	char want[8], path[256];
	unsigned char raw[64];
	ssize_t n;
	int fd;

	snprintf(want, sizeof(want), "%d", type);
	if (attr_is(r, "vendor", "BBTEST") || attr_is(r, "model", model) ||
	    attr_is(r, "rev", "0001") || attr_is(r, "type", want) ||
	    attr_is(r, "scsi_level", "3"))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/inquiry", dev_name(r));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("%s: %s", path, strerror(errno));
	n = read(fd, raw, sizeof(raw));
	close(fd);
	diag("%s: %zd bytes of INQUIRY data, type %d, version %d", dev_name(r), n,
	     n > 0 ? raw[0] & 0x1f : -1, n > 2 ? raw[2] : -1);
	if (n != 36 || (raw[0] & 0x1f) != type || raw[2] != 2 || memcmp(&raw[8], "BBTEST  ", 8))
		return fail("%s: %zd bytes of INQUIRY data (type %d, version %d), want the 36 the"
			    " device sent (type %d, SCSI-2)", dev_name(r), n,
			    n > 0 ? raw[0] & 0x1f : -1, n > 2 ? raw[2] : -1, type);
	return 0;
}

/* "H:C:T:L size ..." of every SCSI device and block device, sorted. */
static void device_list(char *out, size_t len)
{
	const char *dirs[] = { "/sys/class/scsi_device", "/sys/block" };
	size_t used = 0;

	out[0] = '\0';
	for (int d = 0; d < 2; d++) {
		struct dirent **names;
		int n = scandir(dirs[d], &names, NULL, alphasort);

		for (int i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.' && used < len)
				used += (size_t)snprintf(out + used, len - used, "%s ",
							 names[i]->d_name);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
	}
	for (int r = 0; r < ROLE_MAX && used < len; r++)
		if (dev_name(r))
			used += (size_t)snprintf(out + used, len - used, "%s=%lld ", dev_name(r),
						 dev_sectors(r));
}

static int rescan_hosts(void)
{
	struct dirent **names;
	char path[320];
	int n = scandir("/sys/class/scsi_host", &names, NULL, alphasort), ret = 0;

	if (n < 0)
		return fail("/sys/class/scsi_host: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && !ret) {
			snprintf(path, sizeof(path), "/sys/class/scsi_host/%s/scan", names[i]->d_name);
			ret = knob_write(path, "- - -");
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int t_scsi_scan(void)
{
	static char before[4096], after[4096];
	const char *bad;
	size_t mark;

	if (dev_require(ROLE_BBDISK) || dev_require(ROLE_BBCD) ||
	    bbtest_inquiry(ROLE_BBDISK, "LYING DISK", 0) ||
	    bbtest_inquiry(ROLE_BBCD, "LYING CDROM", 5))
		return -1;
	device_list(before, sizeof(before));
	kmsg_sync();
	mark = kmsg_mark();
	if (rescan_hosts())
		return -1;
	device_list(after, sizeof(after));
	kmsg_sync();
	diag("after a scan of every host: %s", after);
	if (strcmp(before, after))
		return fail("a scan of every host changed the devices: before '%s', after '%s'",
			    before, after);
	bad = kmsg_find(mark, "scsi scan:");
	if (bad)
		return fail("the scan logged: %s", bad);
	return 0;
}

/* --- lying-device-rescan ----------------------------------------------- */

static int rescan(enum role r)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/block/%s/device/rescan", dev_name(r));
	return knob_write(path, "1");
}

/* A rescan of the scsi_bbtest disk with READ CAPACITY(10) answered by
 * sense (NULL: unscripted) count times: want sectors and n commands. */
static int rc10(const char *name, uint8_t key, uint8_t asc, int count, long long sectors, int n)
{
	char sense[64];
	long long got;
	int seen;

	sense_q(sense, false, key, asc, 0, false, 0);
	if (bbtest_opcodes_clear() ||
	    (count && rulef("lun=0 op=0x%02x status=2 sense=%s count=%d", OP_READ_CAPACITY,
			    sense, count)) ||
	    rescan(ROLE_BBDISK))
		return -1;
	got = dev_sectors(ROLE_BBDISK);
	seen = bbtest_opcount(0, OP_READ_CAPACITY);
	diag("rescan, READ CAPACITY(10) %s: %lld sectors after %d command(s)", name, got, seen);
	if (got != sectors || seen != n)
		return fail("rescan, READ CAPACITY(10) %s: %lld sectors after %d commands, want"
			    " %lld after %d", name, got, seen, sectors, n);
	return 0;
}

static int rescan_keeps(enum role r)
{
	long long before = dev_sectors(r), lbs = dev_sysfs_number(r, "queue/logical_block_size");

	if (rescan(r))
		return -1;
	diag("%s rescanned: %lld sectors (%lld before)", dev_name(r), dev_sectors(r), before);
	if (before <= 0 || dev_sectors(r) != before ||
	    dev_sysfs_number(r, "queue/logical_block_size") != lbs)
		return fail("a rescan of %s changed it: %lld sectors of %lld bytes, then %lld of"
			    " %lld", dev_name(r), before, lbs, dev_sectors(r),
			    dev_sysfs_number(r, "queue/logical_block_size"));
	return 0;
}

int t_lying_rescan(void)
{
	if (dev_require(ROLE_BBDISK) || bbtest_clear() ||
	    rc10("unscripted", 0, 0, 0, BBDISK_SECTORS, 1) ||
	    rc10("UNIT ATTENTION 29/00 once", UNIT_ATTENTION, 0x29, 1, BBDISK_SECTORS, 2) ||
	    rc10("ABORTED COMMAND once", ABORTED_COMMAND, 0, 1, BBDISK_SECTORS, 2) ||
	    rc10("ABORTED COMMAND twice", ABORTED_COMMAND, 0, 2, BBDISK_SECTORS, 3))
		return -1;
	if ((dev_name(ROLE_QDISK) && rescan_keeps(ROLE_QDISK)) ||
	    (dev_name(ROLE_SDEBUG) && rescan_keeps(ROLE_SDEBUG)))
		return -1;
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}
