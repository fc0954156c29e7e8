/*
 * t_lying_probe.c: sd's probing of the disk's size and its cache flushes,
 * as user space starts and sees them (issue 24: sd.c's read_capacity_10,
 * read_capacity_16, sd_revalidate_disk, sd_setup_flush_cmnd, sd_sync_cache).
 *
 *   lying-device-capacity  rescans of the scsi_bbtest disk
 *       (sd_revalidate_disk) with READ CAPACITY answered as scripted:
 *       (10) UNIT ATTENTION 29/00 (a reset) 3 times: 2048 sectors after 4
 *       commands (a reset earns retries of its own); 11 times: after 12
 *       (9 reset retries, then sd's ordinary ones; 6.12: 10 retries in
 *       all, size 0 after 11).  The disk claiming LBA 0xffffffff ("too big
 *       for READ CAPACITY(10)"): sd asks READ CAPACITY(16), and its answer
 *       counts: 2048 sectors, 4096-byte physical blocks (exponent 3), thin
 *       provisioning only with LBPME (provisioning_mode writesame_16);
 *       READ CAPACITY(16) refused (ILLEGAL REQUEST 20/00) once, or
 *       UNIT ATTENTION 29/00 12 times (more than its retries): sd takes the
 *       disk as 2^32 blocks after 1 or 12 commands; with BLIST_NO_RC16 the
 *       LBA 0xffffffff means no medium: size 0, no READ CAPACITY(16).  The
 *       disk's max_sectors_kb never exceeds its host's max_hw_sectors_kb.
 *       Probed again as an SPC-3 disk with PROTECT whose READ CAPACITY(16)
 *       says protection type 4 (unknown): disabled, size 0.  Probed again
 *       as SPC-3 with a Block Limits page: max_sectors_kb the host's 128;
 *       the page's maximum transfer length then 64 blocks: after a rescan
 *       32.  Removed and added again at the end, as at boot (thin
 *       provisioning sticks).
 *   lying-device-flush  with the write cache on (cache_type "temporary
 *       write back"): fsync's SYNCHRONIZE CACHE comes with twice the disk's
 *       I/O timeout (queue/io_timeout); answered ABORTED COMMAND once it is
 *       retried: fsync succeeds after 2.  The disk removed (device/delete)
 *       with the cache on: sd_sync_cache's SYNCHRONIZE CACHE, answered
 *       with host byte DID_BAD_TARGET, is tried 3 times (6.12: 4), each
 *       with twice the I/O timeout, and sd logs the failure with its host
 *       byte and no sense (there is none); the disk is added again (a scan
 *       of its LUN), write through, 2048 sectors.
 *
 * Both put the disk back by removing it and scanning its LUN again: a
 * fresh probe, as at boot.  It may come back under another name (sdf for
 * sde: the kernel frees a name with the last reference to the old disk),
 * so dev_readd finds it again by its place and INQUIRY, and so does every
 * later test.  Disk sectors 1192..1207 (fsync's writes).
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OP_READ_CAPACITY	0x25
#define OP_SYNC_CACHE		0x35
#define OP_RC16			0x9e
#define ILLEGAL_REQUEST		5
#define UNIT_ATTENTION		6
#define ABORTED_COMMAND		0xb
#define DID_BAD_TARGET		4
#define BIG_SECTORS		(1ll << 32)	/* sd's guess: 2^32 blocks of 512 */

/* The disk's scsi_disk attribute name, trimmed: 0 or fail(). */
static int sdisk_read(const char *name, char *out, size_t len)
{
	char path[512];

	if (sdisk_attr_path(name, path, sizeof(path)))
		return -1;
	return knob_read(path, out, len);
}

static int rescan_disk(void)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/block/%s/device/rescan", dev_name(ROLE_BBDISK));
	return knob_write(path, "1");
}

/* --- lying-device-capacity ---------------------------------------------- */

/* A rescan with READ CAPACITY(op) scripted (rule NULL: unscripted): the
 * disk must have want sectors after rc10 READ CAPACITY(10) and rc16 (16). */
static int rc_expect(const char *name, const char *rule, long long want, int rc10, int rc16)
{
	long long got;
	int n10, n16;

	if (bbtest_opcodes_clear() || (rule && rulef("%s", rule)) || rescan_disk())
		return -1;
	got = dev_sectors(ROLE_BBDISK);
	n10 = bbtest_opcount(0, OP_READ_CAPACITY);
	n16 = bbtest_opcount(0, OP_RC16);
	diag("rescan, %s: %lld sectors after %d READ CAPACITY(10), %d (16)", name, got, n10, n16);
	if (got != want || n10 != rc10 || n16 != rc16)
		return fail("rescan, %s: %lld sectors after %d READ CAPACITY(10) and %d (16), want"
			    " %lld after %d and %d", name, got, n10, n16, want, rc10, rc16);
	if (bbtest_pending())
		return fail("rescan, %s: the scripted answer was never used", name);
	return 0;
}

static int rc_with_sense(const char *name, unsigned int op, uint8_t key, uint8_t asc, int count,
			 long long want, int rc10, int rc16)
{
	char sense[64], rule[160];

	sense_q(sense, false, key, asc, 0, false, 0);
	snprintf(rule, sizeof(rule), "lun=0 op=0x%02x status=2 sense=%s count=%d", op, sense, count);
	return rc_expect(name, rule, want, rc10, rc16);
}

/* The disk's queue/NAME must be want. */
static int queue_is(const char *name, long long want)
{
	char rel[64];
	long long got;

	snprintf(rel, sizeof(rel), "queue/%s", name);
	got = dev_sysfs_number(ROLE_BBDISK, rel);
	if (got != want)
		return fail("the disk's %s is %lld, want %lld", rel, got, want);
	return 0;
}

/* thin_provisioning and provisioning_mode as sd now has them. */
static int lbp_is(const char *thin, const char *mode)
{
	char t[32], m[32];

	if (sdisk_read("thin_provisioning", t, sizeof(t)) ||
	    sdisk_read("provisioning_mode", m, sizeof(m)))
		return -1;
	diag("thin_provisioning %s, provisioning_mode %s", t, m);
	if (strcmp(t, thin) || strcmp(m, mode))
		return fail("thin_provisioning %s, provisioning_mode %s; want %s, %s", t, m, thin,
			    mode);
	return 0;
}

/* Does the midlayer count sd's retries (scsi_failures, as 6.12 does)?  Then
 * READ CAPACITY(10) gets 10 retries after a reset in all (6.1: 9 of its own,
 * then sd's 2 ordinary ones), and sd_sync_cache 1 try and 3 retries (6.1:
 * 3 tries). */
static bool new_retries(void)
{
	return kernel_version() >= KV(6, 12, 0);
}

/* READ CAPACITY(10) and its reset retries; the limits sd set at boot. */
static int capacity_rc10(void)
{
	long long hw = dev_sysfs_number(ROLE_BBDISK, "queue/max_hw_sectors_kb"),
		  max = dev_sysfs_number(ROLE_BBDISK, "queue/max_sectors_kb");

	diag("max_sectors_kb %lld, max_hw_sectors_kb %lld", max, hw);
	if (hw <= 0 || max <= 0 || max > hw)
		return fail("the disk's max_sectors_kb is %lld, its host's max_hw_sectors_kb %lld",
			    max, hw);
	return rc_expect("unscripted", NULL, BBDISK_SECTORS, 1, 0) ||
	       rc_with_sense("READ CAPACITY(10) UNIT ATTENTION 29/00 3 times", OP_READ_CAPACITY,
			     UNIT_ATTENTION, 0x29, 3, BBDISK_SECTORS, 4, 0) ||
	       rc_with_sense("READ CAPACITY(10) UNIT ATTENTION 29/00 11 times", OP_READ_CAPACITY,
			     UNIT_ATTENTION, 0x29, 11, new_retries() ? 0 : BBDISK_SECTORS,
			     new_retries() ? 11 : 12, 0) ||
	       queue_is("max_sectors_kb", max) ? -1 : 0;
}

/* The disk too big for READ CAPACITY(10): READ CAPACITY(16) decides. */
static int capacity_rc16(void)
{
	if (bbtest_param("disk_rc10_lba", 0xffffffffl) || bbtest_param("disk_rc16_exp", 3) ||
	    rc_expect("READ CAPACITY(10) claims LBA 0xffffffff", NULL, BBDISK_SECTORS, 1, 1) ||
	    queue_is("physical_block_size", 4096) || queue_is("logical_block_size", 512) ||
	    lbp_is("0", "full") || bbtest_param("disk_lbpme", 1) ||
	    rc_expect("READ CAPACITY(16) with LBPME", NULL, BBDISK_SECTORS, 1, 1) ||
	    lbp_is("1", "writesame_16") ||
	    rc_with_sense("READ CAPACITY(16) ILLEGAL REQUEST 20/00 once", OP_RC16,
			  ILLEGAL_REQUEST, 0x20, 1, BIG_SECTORS, 1, 1) ||
	    rc_with_sense("READ CAPACITY(16) UNIT ATTENTION 29/00 12 times", OP_RC16,
			  UNIT_ATTENTION, 0x29, 12, BIG_SECTORS, 1, 12) ||
	    bbtest_param("disk_no_rc16", 1) ||
	    rc_expect("BLIST_NO_RC16, READ CAPACITY(10) claims LBA 0xffffffff", NULL, 0, 1, 0))
		return -1;
	return 0;
}

/* The disk probed again as an SPC-3 disk with PROTECT, formatted (READ
 * CAPACITY(16)) with protection type 4, which no kernel knows: sd
 * disables it, size 0. */
static int capacity_protect(void)
{
	size_t mark;
	const char *line;

	kmsg_sync();
	mark = kmsg_mark();
	if (bbtest_param("disk_protect", 1) || bbtest_param("disk_rc16_prot", 3 << 1 | 1) ||
	    dev_readd(ROLE_BBDISK, false))
		return -1;
	line = kmsg_find(mark, "unsupported protection type");
	diag("probed with protection type 4: %lld sectors; %s", dev_sectors(ROLE_BBDISK),
	     line ? line : "nothing logged");
	if (dev_sectors(ROLE_BBDISK) != 0 || !line)
		return fail("an SPC-3 disk formatted with protection type 4: %lld sectors and %s,"
			    " want 0 and 'unsupported protection type' logged",
			    dev_sectors(ROLE_BBDISK), line ? "it logged" : "nothing logged");
	return 0;
}

/* Every parameter of the disk's probing back to the truth. */
static int params_reset(void)
{
	static const char *const names[] = {
		"disk_rc10_lba", "disk_rc16_exp", "disk_lbpme", "disk_no_rc16",
		"disk_protect", "disk_rc16_prot", "disk_spc3", "disk_max_xfer",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bbtest_param(names[i], 0))
			return -1;
	return 0;
}

/* The disk probed again as SPC-3 with a Block Limits page: no maximum
 * transfer length, max_sectors_kb is the host's (128); the page then says
 * 64 blocks: a rescan brings max_sectors_kb down to 32. */
static int capacity_limits(void)
{
	if (params_reset() || bbtest_param("disk_spc3", 1) || dev_readd(ROLE_BBDISK, true) ||
	    queue_is("max_sectors_kb", dev_sysfs_number(ROLE_BBDISK, "queue/max_hw_sectors_kb")))
		return -1;
	if (bbtest_param("disk_max_xfer", 64) || rescan_disk())
		return -1;
	diag("Block Limits' maximum 64 blocks, after a rescan: max_sectors_kb %lld",
	     dev_sysfs_number(ROLE_BBDISK, "queue/max_sectors_kb"));
	return queue_is("max_sectors_kb", 32);
}

int t_lying_capacity(void)
{
	int ret;

	if (dev_require(ROLE_BBDISK) || bbtest_clear())
		return -1;
	ret = capacity_rc10() || capacity_rc16() || capacity_protect() || capacity_limits() ?
	      -1 : 0;
	if (params_reset() || bbtest_clear() || dev_readd(ROLE_BBDISK, true))
		return -1;
	if (!ret && (queue_is("physical_block_size", 512) || lbp_is("0", "full")))
		ret = -1;
	if (!ret && dev_sectors(ROLE_BBDISK) != (long long)BBDISK_SECTORS)
		ret = fail("added again, the disk has %lld sectors, want %llu",
			   dev_sectors(ROLE_BBDISK), BBDISK_SECTORS);
	return ret;
}

/* --- lying-device-flush ------------------------------------------------- */

/* The timeout (ms) scsi_bbtest saw on the last command of opcode op. */
static long timeout_of(unsigned int op)
{
	FILE *f = fopen("/sys/kernel/debug/scsi_bbtest/timeouts", "re");
	unsigned int l, o, ms;
	long got = 0;

	if (!f)
		return fail("cannot open scsi_bbtest's timeouts: %s", strerror(errno));
	while (fscanf(f, "%u %x %u", &l, &o, &ms) == 3)
		if (l == 0 && o == op)
			got = ms;
	fclose(f);
	return got;
}

static int timeouts_clear(void)
{
	return knob_write("/sys/kernel/debug/scsi_bbtest/timeouts", "clear");
}

static int cache_type(const char *type)
{
	char path[512];

	if (sdisk_attr_path("cache_type", path, sizeof(path)))
		return -1;
	diag("write cache: %s", type);
	return knob_writef(path, "temporary %s", type);
}

/* A buffered write of one block at sector s and fsync: 0 or -errno, with
 * the SYNCHRONIZE CACHE commands sent in *sent. */
static int write_fsync(uint64_t s, int *sent)
{
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret = 0;
	unsigned char *buf = io_buf(4096);

	*sent = -1;
	if (fd < 0 || bbtest_opcodes_clear()) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	pat_fill(buf, 4096, s * SECTOR, 0);
	if (io_pwrite(fd, buf, 4096, s * SECTOR) != 4096)
		ret = fail("buffered write of the disk: %s", strerror(errno));
	else if (fsync(fd))
		ret = -errno;
	*sent = bbtest_opcount(0, OP_SYNC_CACHE);
	close(fd);
	free(buf);
	return ret;
}

static int fsync_expect(const char *name, uint64_t s, int want)
{
	int sent, got = write_fsync(s, &sent);

	diag("fsync, %s: %s after %d SYNCHRONIZE CACHE", name, what(got), sent);
	if (got || sent != want)
		return fail("fsync, %s: %s after %d SYNCHRONIZE CACHE, want success after %d",
			    name, what(got), sent, want);
	return 0;
}

static int flush_timeout_is(const char *name, long want)
{
	long got = timeout_of(OP_SYNC_CACHE);

	diag("%s: SYNCHRONIZE CACHE came with a timeout of %ld ms", name, got);
	if (got != want)
		return fail("%s: SYNCHRONIZE CACHE came with a timeout of %ld ms, want %ld (twice"
			    " the disk's io_timeout)", name, got, want);
	return 0;
}

/* Remove the disk with its cache on: sd_sync_cache's SYNCHRONIZE CACHE
 * fails with DID_BAD_TARGET three times, which sd logs and lets go. */
static int remove_write_back(long want_ms)
{
	size_t mark;
	const char *line;
	int sent, tries = new_retries() ? 4 : 3;

	kmsg_sync();
	mark = kmsg_mark();
	if (bbtest_opcodes_clear() || timeouts_clear() ||
	    rulef("lun=0 op=0x%02x host=%d count=%d", OP_SYNC_CACHE, DID_BAD_TARGET, tries) ||
	    dev_readd(ROLE_BBDISK, true))
		return -1;
	sent = bbtest_opcount(0, OP_SYNC_CACHE);
	diag("removal with the write cache on: %d SYNCHRONIZE CACHE", sent);
	if (sent != tries)
		return fail("removal with the write cache on, SYNCHRONIZE CACHE failing with"
			    " DID_BAD_TARGET: %d sent, want %d (sd_sync_cache's tries)", sent, tries);
	if (flush_timeout_is("removal", want_ms))
		return -1;
	line = kmsg_find(mark, "Synchronize Cache(10) failed");
	if (!line || !strstr(line, "DID_BAD_TARGET"))
		return fail("removal: sd logged %s, want 'Synchronize Cache(10) failed' with"
			    " hostbyte=DID_BAD_TARGET", line ? line : "no failed SYNCHRONIZE CACHE");
	diag("logged: %s", line);
	line = kmsg_find(mark, "Sense Key");
	if (line)
		return fail("removal: sd printed sense for a command that has none: %s", line);
	return 0;
}

int t_lying_flush(void)
{
	char sense[64], type[64];
	long long io_ms;
	int ret = -1;

	if (dev_require(ROLE_BBDISK) || bbtest_clear() || timeouts_clear())
		return -1;
	io_ms = dev_sysfs_number(ROLE_BBDISK, "queue/io_timeout");
	diag("the disk's io_timeout: %lld ms", io_ms);
	if (io_ms <= 0)
		return fail("the disk's queue/io_timeout is %lld", io_ms);
	if (cache_type("write back"))
		goto out;
	sense_q(sense, false, ABORTED_COMMAND, 0, 0, false, 0);
	if (fsync_expect("unscripted", 1192, 1) || flush_timeout_is("fsync", 2 * io_ms) ||
	    rulef("lun=0 op=0x%02x status=2 sense=%s", OP_SYNC_CACHE, sense) ||
	    fsync_expect("SYNCHRONIZE CACHE ABORTED COMMAND once", 1200, 2))
		goto out;
	ret = remove_write_back(2 * io_ms);
	if (ret)
		return -1;	/* the removal is done or failed: nothing to put back */
	if (sdisk_read("cache_type", type, sizeof(type)))
		return -1;
	diag("added again: %lld sectors, cache %s", dev_sectors(ROLE_BBDISK), type);
	if (strcmp(type, "write through") || dev_sectors(ROLE_BBDISK) != (long long)BBDISK_SECTORS)
		return fail("added again, the disk has %lld sectors and cache '%s', want %llu and"
			    " 'write through'", dev_sectors(ROLE_BBDISK), type, BBDISK_SECTORS);
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
out:
	cache_type("write through");
	return ret;
}
