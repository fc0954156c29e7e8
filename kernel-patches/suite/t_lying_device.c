/*
 * t_lying_device.c: the completion path of the commands besides READ and
 * WRITE, scripted on scsi_bbtest (issue 15: survivors of the mutation
 * campaign that no test reached; kernel-patches/mutants/triage names them).
 *
 *   lying-device-cd-geometry  sr's get_sectorsize() after a media change:
 *       one READ CAPACITY (not three); 2352-byte blocks are taken as 2048;
 *       1024-byte blocks are unsupported, so the disc has size 0;
 *       READ CAPACITY failing on every try (3 commands on 6.1, 4 on
 *       6.12): sr guesses 2048-byte blocks;
 *       READ CAPACITY short of READ TOC's lead-out (kernel bug 9668): the
 *       lead-out wins; a CD of 512-byte blocks with a MEDIUM ERROR at odd
 *       sector 213 inside a read of 200..215: sr_done rounds it down to the
 *       16-sector bio (208): 4096 good bytes.  The disc is put back as it
 *       was (2048-byte blocks, 2048 sectors) at the end.
 *   lying-device-eh-paths  a disk READ answered once with host byte
 *       DID_TIME_OUT goes to the error handler (abort, TEST UNIT READY) and
 *       is retried: right after 2 READs; after a device reset of the CD
 *       (SG_SCSI_RESET) the UNIT ATTENTION 29/00 it then reports is
 *       expected and retried, not taken for a media change: right after 2;
 *       with BLIST_RETRY_ITF on the disk, ABORTED COMMAND asc 0x44 seven
 *       times is requeued without counting retries: right after 8.
 *   lying-device-write-paths  with the write cache on, fsync whose
 *       SYNCHRONIZE CACHE fails (MEDIUM ERROR) gets ENODATA; BLKZEROOUT of one block: a
 *       RECOVERED ERROR that claims nothing was sent makes sd send the
 *       WRITE SAME again (2), a good one with a stale residual is done (1).
 *   lying-device-queue  with last_sector_bug a read of the last 16
 *       sectors goes out as 8 blocks, then 8 single blocks; on a host that
 *       tracks queue depth, TASK SET FULL repeated (in 11 slots of 16
 *       jiffies) lowers the disk's queue depth by one; after all the I/O a
 *       queue freeze (nr_requests) finishes and logs nothing.
 *
 * Disk sectors 1160..1199 and 2032..2047 (the last 16), CD blocks 170..183;
 * t_lying_merge.c has 1856..1983.
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MEDIUM_ERROR	3
#define ILLEGAL_REQUEST	5
#define UNIT_ATTENTION	6
#define ABORTED_COMMAND	0xb
#define RECOVERED_ERROR	1
#define OP_READ_CAPACITY 0x25
#define OP_SYNC_CACHE	0x35
#define OP_WRITE_SAME	0x41
#define DID_TIME_OUT	3

/* Read len bytes at off of r; want the right data after exactly n commands
 * on [lba, lba + blocks) of lun (bbsuite.h). */
int expect_right(const char *name, enum role r, uint64_t off, size_t len,
			unsigned int lun, uint64_t lba, uint64_t blocks, int n)
{
	int got = rd_open(r, off, len), oob, seen = bbtest_log_count(lun, lba, blocks, &oob);

	diag("%s: %s after %d command(s)", name, what(got), seen);
	if (got || seen != n)
		return fail("%s: %s after %d commands, want the right data after %d", name,
			    what(got), seen, n);
	return 0;
}

/* --- lying-device-cd-geometry ------------------------------------------ */

/* Make sr read the disc again: the TEST UNIT READY of an open (sr's event
 * check) gets UNIT ATTENTION 28/00, medium may have changed, which marks
 * the device changed; the next open reports the change and revalidates the
 * disc (get_sectorsize).  Reads play no part: the disc may have size 0.
 * The READ CAPACITY commands it took, or -1. */
static int cd_revalidate(void)
{
	char sense[64];
	int fd;

	sense_q(sense, false, UNIT_ATTENTION, 0x28, 0, false, 0);
	if (bbtest_opcodes_clear() || rulef("lun=1 op=0x00 status=2 sense=%s", sense))
		return -1;
	for (int i = 0; i < 2; i++) {
		fd = io_open(ROLE_BBCD, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			return -1;
		close(fd);
	}
	if (bbtest_pending())
		return fail("no TEST UNIT READY reached the CD in two opens");
	return bbtest_opcount(1, OP_READ_CAPACITY);
}

/* Sizes sr now has: sectors of 512 bytes and its logical block size. */
static int cd_is(const char *when, long long sectors, long long lbs)
{
	long long got = dev_sectors(ROLE_BBCD), got_lbs = dev_sysfs_number(ROLE_BBCD, "queue/logical_block_size");

	diag("%s: %lld sectors, %lld-byte blocks", when, got, got_lbs);
	if (got != sectors || got_lbs != lbs)
		return fail("%s: the CD has %lld sectors of %lld-byte blocks, want %lld of %lld",
			    when, got, got_lbs, sectors, lbs);
	return 0;
}

/* After a revalidation, exactly want READ CAPACITY commands. */
static int cd_revalidated(const char *when, int want)
{
	int n = cd_revalidate();

	if (n < 0)
		return -1;
	diag("%s: %d READ CAPACITY command(s)", when, n);
	if (n != want)
		return fail("%s: the revalidation sent %d READ CAPACITY, want %d", when, n, want);
	return 0;
}

/* 512-byte blocks, MEDIUM ERROR at odd sector 213 inside 200..215. */
static int cd_512_medium_error(void)
{
	char sense[64];
	long done;
	int got;

	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 213);
	if (rulef("lun=1 lba=213 status=2 sense=%s copy=upto resid=rest", sense))
		return -1;
	got = cd_direct_done(200, 16, 512, &done);
	if (got > 0)
		return -1;
	diag("MEDIUM ERROR at sector 213 of a 512-byte CD: %s, %ld bytes done", what(got), done);
	if (got != -ENODATA || done != 8 * 512)
		return fail("MEDIUM ERROR at sector 213 of a 512-byte CD: %s with %ld bytes done,"
			    " want ENODATA with 4096 (213 rounded down to the 16-sector bio: 208)",
			    what(got), done);
	return 0;
}

static int cd_geometry_steps(void)
{
	const long long sectors = BBCD_BLOCKS * 4;
	const int rc_tries = kernel_version() >= KV(6, 12, 0) ? 4 : 3;
	char sense[64];

	if (cd_revalidated("the disc as it is", 1) || cd_is("as it is", sectors, 2048))
		return -1;
	if (bbtest_param("cd_rc_blksz", 2352) || cd_revalidated("2352-byte blocks", 1) ||
	    cd_is("READ CAPACITY says 2352-byte blocks", sectors, 2048) ||
	    expect_right("a read with 2352 claimed", ROLE_BBCD, 172 * 2048, 8192, 1, 172, 4, 1))
		return -1;
	if (bbtest_param("cd_rc_blksz", 1024) || cd_revalidated("1024-byte blocks", 1) ||
	    cd_is("READ CAPACITY says 1024-byte blocks (unsupported)", 0, 1024))
		return -1;
	/*
	 * READ CAPACITY refused on every try: sr guesses 2K blocks.  6.1's
	 * get_sectorsize() tries 3 times; 6.12's asks scsi-ml for 3 retries
	 * (scsi_failures .allowed = 3), so 4 commands.
	 */
	sense_q(sense, false, ILLEGAL_REQUEST, 0x24, 0, false, 0);
	if (rulef("lun=1 op=0x25 status=2 sense=%s count=%d", sense, rc_tries) ||
	    cd_revalidated("READ CAPACITY failing", rc_tries) ||
	    cd_is("READ CAPACITY failing (sr keeps the size, guesses 2048)", 0, 2048))
		return -1;
	/* READ CAPACITY short of the lead-out: the lead-out is the end */
	if (bbtest_param("cd_rc_blksz", -1) || bbtest_param("cd_rc_blocks", 400) ||
	    bbtest_param("cd_leadout", (long)BBCD_BLOCKS) ||
	    cd_revalidated("READ CAPACITY 400 blocks, lead-out 512", 1) ||
	    cd_is("READ CAPACITY 400 blocks, lead-out 512", sectors, 2048) ||
	    expect_right("the last block", ROLE_BBCD, (BBCD_BLOCKS - 1) * 2048, 2048, 1,
			 BBCD_BLOCKS - 1, 1, 1))
		return -1;
	if (bbtest_param("cd_rc_blocks", 0) || bbtest_param("cd_leadout", 0) ||
	    bbtest_param("cd_blksz", 512) || cd_revalidated("512-byte blocks", 1) ||
	    cd_is("a CD of 512-byte blocks", sectors, 512))
		return -1;
	return cd_512_medium_error();
}

int t_lying_cd_geometry(void)
{
	int ret;

	if (dev_require(ROLE_BBCD) || bbtest_clear())
		return -1;
	ret = cd_geometry_steps();
	/* the disc as the other tests know it, whatever happened */
	bbtest_param("cd_rc_blksz", -1);
	bbtest_param("cd_rc_blocks", 0);
	bbtest_param("cd_leadout", 0);
	bbtest_param("cd_blksz", 2048);
	if (cd_revalidated("put back", 1) || cd_is("put back", BBCD_BLOCKS * 4, 2048))
		return -1;
	if (ret)
		return -1;
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}

/* --- lying-device-eh-paths --------------------------------------------- */

static int reset_cd(void)
{
	int fd = io_open(ROLE_BBCD, O_RDONLY | O_NONBLOCK), what = SG_SCSI_RESET_DEVICE, ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, SG_SCSI_RESET, &what);
	close(fd);
	if (ret)
		return fail("SG_SCSI_RESET of the CD: %s", strerror(errno));
	diag("the CD was reset (SG_SCSI_RESET_DEVICE)");
	return 0;
}

int t_lying_eh_paths(void)
{
	char sense[64];
	int ret;

	if (dev_require(ROLE_BBDISK) || dev_require(ROLE_BBCD) || bbtest_clear())
		return -1;
	/* not a command the LLD timed out (those are TEST UNIT READY and
	 * INQUIRY during a scan): the error handler takes it, then a retry */
	if (rulef("lun=0 lba=1162 host=%d copy=0 resid=rest", DID_TIME_OUT) ||
	    expect_right("host byte DID_TIME_OUT once", ROLE_BBDISK, 1160 * SECTOR, 8192, 0,
			 1160, 16, 2))
		return -1;
	sense_q(sense, false, UNIT_ATTENTION, 0x29, 0, false, 0);
	if (reset_cd() || rulef("lun=1 lba=176 status=2 sense=%s copy=0 resid=rest", sense) ||
	    expect_right("UNIT ATTENTION 29/00 after the reset", ROLE_BBCD, 176 * 2048, 8192, 1,
			 176, 4, 2))
		return -1;
	sense_q(sense, false, ABORTED_COMMAND, 0x44, 0, false, 0);
	if (bbtest_param("disk_retry_itf", 1))
		return -1;
	ret = rulef("lun=0 lba=1178 status=2 sense=%s copy=0 resid=rest count=7", sense) ||
	      expect_right("ABORTED COMMAND 44/00 seven times (BLIST_RETRY_ITF)", ROLE_BBDISK,
			   1176 * SECTOR, 8192, 0, 1176, 16, 8);
	if (bbtest_param("disk_retry_itf", 0) || ret)
		return -1;
	return lying_finish(0, 1160, 32);
}

/* --- lying-device-write-paths ------------------------------------------ */

/* sd's cache_type of the scsi_bbtest disk, as "temporary ..." (sd then
 * believes it without asking the device). */
static int disk_cache(const char *type)
{
	char dir[128], path[512];
	struct dirent *e;
	DIR *d;
	int ret;

	snprintf(dir, sizeof(dir), "/sys/block/%s/device/scsi_disk", dev_name(ROLE_BBDISK));
	d = opendir(dir);
	if (!d)
		return fail("cannot open '%s': %s", dir, strerror(errno));
	path[0] = '\0';
	while ((e = readdir(d)) != NULL)	/* one entry, named H:C:T:L */
		if (e->d_name[0] != '.')
			snprintf(path, sizeof(path), "%s/%s/cache_type", dir, e->d_name);
	closedir(d);
	if (!path[0])
		return fail("no scsi_disk entry in '%s'", dir);
	ret = knob_writef(path, "temporary %s", type);
	if (!ret)
		diag("write cache: %s", type);
	return ret;
}

/* A buffered write of the pattern to sectors [s, s + 8) and fsync. */
static int write_fsync(uint64_t s)
{
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret = 0;
	unsigned char *buf = io_buf(4096);

	if (fd < 0) {
		free(buf);
		return 1;
	}
	pat_fill(buf, 4096, s * SECTOR, 0);
	if (io_pwrite(fd, buf, 4096, s * SECTOR) != 4096)
		ret = fail("buffered write of the disk: %s", strerror(errno));
	else if (fsync(fd))
		ret = -errno;
	io_drop_cache(fd);
	close(fd);
	free(buf);
	return ret;
}

/* BLKZEROOUT of one block at s: 0 or -errno, with the WRITE SAME sent. */
static int zero_one(uint64_t s, int *sent)
{
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret = 0;
	uint64_t range[2] = { s * SECTOR, SECTOR };

	*sent = -1;
	if (fd < 0)
		return 1;
	if (bbtest_opcodes_clear()) {
		close(fd);
		return 1;
	}
	if (ioctl(fd, BLKZEROOUT, range))
		ret = -errno;
	close(fd);
	*sent = bbtest_opcount(0, OP_WRITE_SAME);
	return ret;
}

static int zero_expect(const char *name, uint64_t s, int want)
{
	int sent, got = zero_one(s, &sent);

	diag("BLKZEROOUT of one block, %s: %s after %d WRITE SAME", name, what(got), sent);
	if (got || sent != want)
		return fail("BLKZEROOUT of one block, %s: %s after %d WRITE SAME, want success"
			    " after %d", name, what(got), sent, want);
	return 0;
}

int t_lying_write_paths(void)
{
	char sense[64];
	int got, ret = -1;

	if (dev_require(ROLE_BBDISK) || bbtest_clear() || disk_cache("write back"))
		return -1;
	sense_q(sense, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	if (rulef("lun=0 op=0x35 status=2 sense=%s", sense))
		goto out;
	got = write_fsync(1184);
	diag("fsync while SYNCHRONIZE CACHE fails: %s (%d sent)", what(got),
	     bbtest_opcount(0, OP_SYNC_CACHE));
	if (got != -ENODATA) {
		fail("fsync while the disk fails SYNCHRONIZE CACHE with MEDIUM ERROR: %s,"
		     " want ENODATA", what(got));
		goto out;
	}
	sense_q(sense, false, RECOVERED_ERROR, 0x17, 0, false, 0);
	if (rulef("lun=0 op=0x41 status=2 sense=%s resid=0", sense) ||
	    zero_expect("RECOVERED ERROR claiming nothing sent", 1186, 2) ||
	    rulef("lun=0 op=0x41 resid=512") ||
	    zero_expect("GOOD with a residual of the whole block", 1187, 1))
		goto out;
	ret = 0;
out:
	if (disk_cache("write through"))
		ret = -1;
	if (ret)
		return -1;
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}

/* --- lying-device-queue ------------------------------------------------ */

/* A read of the last 16 sectors with last_sector_bug: 2032 for 8 blocks
 * (up to the last 8), then 2040..2047 one by one. */
static int last_sector_split(void)
{
	struct bbt_cmd log[64];
	int n, k = 0, ret = 0;

	if (bbtest_clear() || bbtest_param("disk_last_sector_bug", 1))
		return -1;
	if (rd_open(ROLE_BBDISK, 2032 * SECTOR, 8192))
		ret = fail("a read of the last 16 sectors with last_sector_bug went wrong");
	bbtest_param("disk_last_sector_bug", 0);
	if (ret)
		return -1;
	n = bbtest_log_read(log, 64);
	for (int i = 0; i < n; i++) {
		uint64_t want_lba = k ? 2039 + (uint64_t)k : 2032, want_n = k ? 1 : 8;

		if (log[i].lun != 0)
			continue;
		diag("command %d: sector %llu, %llu block(s)", k, (unsigned long long)log[i].lba,
		     (unsigned long long)log[i].blocks);
		if (k > 8 || log[i].lba != want_lba || log[i].blocks != want_n)
			return fail("with last_sector_bug the read of the last 16 sectors went out"
				    " as sector %llu for %llu as command %d, want %llu for %llu",
				    (unsigned long long)log[i].lba,
				    (unsigned long long)log[i].blocks, k,
				    (unsigned long long)want_lba, (unsigned long long)want_n);
		k++;
	}
	if (k != 9)
		return fail("with last_sector_bug the read of the last 16 sectors took %d commands,"
			    " want 9 (8 blocks, then 8 single blocks)", k);
	return 0;
}

/* Changing nr_requests freezes the queue: it waits until every request
 * the disk completed has dropped its reference. */
static int queue_freeze(void)
{
	char path[128], buf[32];
	long long nr;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/nr_requests", dev_name(ROLE_BBDISK));
	if (knob_read(path, buf, sizeof(buf)))
		return -1;
	nr = atoll(buf);
	diag("nr_requests %lld -> %lld -> %lld (each a queue freeze)", nr, nr - 1, nr);
	if (nr < 2 || knob_writef(path, "%lld", nr - 1) || knob_writef(path, "%lld", nr))
		return fail("nr_requests of the scsi_bbtest disk could not be changed and put back");
	return 0;
}

/* Poll the disk's queue depth every 20 ms for up to 30 s while a child
 * reads a page that gets TASK SET FULL: the first depth below was, or was
 * itself if it never dropped.  Then the rule goes and the child's read
 * finishes: its verdict in *child_ok. */
static long long depth_while_full(long long was, bool *child_ok)
{
	long long now = was;
	int status;
	pid_t pid = fork();

	*child_ok = false;
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		return was;
	}
	if (pid == 0)
		_exit(rd_open(ROLE_BBDISK, 1192 * SECTOR, 4096) == 0 ? 0 : 1);
	for (int i = 0; i < 1500 && now >= was; i++) {
		usleep(20000);
		now = dev_sysfs_number(ROLE_BBDISK, "device/queue_depth");
	}
	bbtest_clear();
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		*child_ok = true;
	return now;
}

/* TASK SET FULL more than 10 times, each in another 16-jiffy slot, on a
 * host that tracks queue depth: scsi_handle_queue_full lowers the LUN's
 * depth by one.  (It waits for the kernel's own pace: about 0.7 s.) */
static int queue_full_lowers_depth(void)
{
	long long was = dev_sysfs_number(ROLE_BBDISK, "device/queue_depth"), now;
	bool child_ok;
	char path[128];
	int ret = 0;

	if (was < 2 || bbtest_clear() || bbtest_param("track_queue_depth", 1))
		return was < 2 ? fail("queue depth of the scsi_bbtest disk: %lld", was) : -1;
	if (rulef("lun=0 lba=1192 status=0x28 copy=0 resid=rest count=100000"))
		ret = -1;
	now = ret ? was : depth_while_full(was, &child_ok);
	bbtest_param("track_queue_depth", 0);
	snprintf(path, sizeof(path), "/sys/block/%s/device/queue_depth", dev_name(ROLE_BBDISK));
	if (now != was && knob_writef(path, "%lld", was))
		ret = -1;
	if (ret)
		return -1;
	diag("TASK SET FULL until the depth moved: queue depth %lld -> %lld, the read %s", was,
	     now, child_ok ? "right" : "wrong");
	if (now != was - 1)
		return fail("repeated TASK SET FULL: queue depth %lld -> %lld, want %lld", was, now,
			    was - 1);
	if (!child_ok)
		return fail("the read that got TASK SET FULL was not right once the device took it");
	return 0;
}

int t_lying_queue(void)
{
	if (dev_require(ROLE_BBDISK) || last_sector_split() || queue_full_lowers_depth())
		return -1;
	return queue_freeze();
}
