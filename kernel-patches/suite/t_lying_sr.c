/*
 * t_lying_sr.c: sr_done's VALID-INFORMATION path with 2048-byte blocks
 * (issue 15), on the scsi_bbtest CD-ROM (LUN 1, 512 blocks of 2 KiB =
 * 2048 sectors of 512 bytes).  QEMU's scsi-cd never sets VALID, so only a
 * lying device reaches it.
 *
 * sr_done turns the 2K INFORMATION block into a 512-byte sector (<< 2),
 * rounds it down to the size of the request's first bio (at least 4
 * sectors), and completes the sectors before it; past the end of the
 * request, or before its start, nothing is good.  A medium error in the
 * last 75 2K blocks also shrinks the disc to the error (the spec lets
 * READ CAPACITY overstate the end by that much).
 *
 *   lying-device-sr-valid-inside  RECOVERED ERROR: right data after one
 *       command.  Then an O_DIRECT read of blocks 202..205, bad
 *       block 205 (sector 820), blocks 202..204 sent: one 16-sector bio,
 *       so 820 rounds down to 816 and exactly 8 sectors are good: the read
 *       fails with ENODATA and the block layer names sector 816.  Then the
 *       same through the page cache: every page either fails or holds the
 *       right data.  Far from the end: the size stays 2048 sectors.
 *   lying-device-sr-deferred  a deferred MEDIUM ERROR (0x71) with VALID
 *       INFORMATION inside an O_DIRECT read of blocks 122..125 (bad 125,
 *       blocks before it sent; current sense would give 4096 bytes done,
 *       as in sr-valid-inside), on every try: sr's 3 retries, 4 commands,
 *       then EIO with 0 bytes done:
 *       deferred sense is about an earlier command, so its INFORMATION
 *       says nothing about this one.  sr logs no "mismatch count".
 *   lying-device-sr-end-trim  bad block 500 of 512 (sector 2000): the read
 *       fails and the disc is trimmed to 2000 sectors; reads past the new
 *       end return nothing, never poison.  The trim stays until the
 *       suite scans the CD again after the test (bbstate.c).
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEDIUM_ERROR	3
#define CD_BLOCK	2048u

/* O_DIRECT read of n 2K blocks at block b: the negative errno, or 1 if it
 * it did not fail (fail() said why). */
static int cd_direct(uint64_t b, uint64_t n, size_t blk)
{
	int fd = io_open(ROLE_BBCD, O_RDONLY | O_DIRECT), ret;
	unsigned char *buf = io_buf(n * blk);
	ssize_t got;

	if (fd < 0) {
		free(buf);
		return 1;
	}
	got = io_pread(fd, buf, n * blk, b * blk);
	ret = 1;
	if (got < 0)
		ret = (int)got;
	else if (!pat_expect(buf, (size_t)got, b * blk, 0, "O_DIRECT read of the CD"))
		fail("O_DIRECT read across a bad block returned %zd bytes, want ENODATA", got);
	free(buf);
	close(fd);
	return ret;
}

/* O_DIRECT read of n 2K blocks at block b that must succeed: 0, the
 * negative errno, or 1 for wrong data (fail() said where). */
static int cd_direct_good(uint64_t b, uint64_t n)
{
	int fd = io_open(ROLE_BBCD, O_RDONLY | O_DIRECT), ret;
	unsigned char *buf = io_buf(n * CD_BLOCK);
	ssize_t got;

	if (fd < 0) {
		free(buf);
		return 1;
	}
	got = io_pread(fd, buf, n * CD_BLOCK, b * CD_BLOCK);
	if (got < 0)
		ret = (int)got;
	else
		ret = got != (ssize_t)(n * CD_BLOCK) ||
		      pat_expect(buf, (size_t)got, b * CD_BLOCK, 0, "O_DIRECT read of the CD");
	free(buf);
	close(fd);
	return ret;
}

/* Buffered 4 KiB pages of blocks [b, b + n): each fails or is right. */
static int cd_pages_clean(uint64_t b, uint64_t n)
{
	int fd = io_open(ROLE_BBCD, O_RDONLY), ret = 0;
	unsigned char *buf = io_buf(4096);

	if (fd < 0 || io_drop_cache(fd)) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (uint64_t p = b; p < b + n && !ret; p += 2) {
		ssize_t got = io_pread(fd, buf, 4096, p * CD_BLOCK);

		if (got > 0)
			ret = pat_expect(buf, (size_t)got, p * CD_BLOCK, 0,
					 "buffered page around a bad 2K block");
		else if (got < 0 && got != -EIO && got != -ENODATA)
			ret = fail("buffered page at 2K block %llu: %s", (unsigned long long)p,
				   strerror((int)-got));
	}
	free(buf);
	close(fd);
	return ret;
}

#define LOG_HLCOMPLETE "33554432"	/* SCSI_LOG_HLCOMPLETE 2 */

/* cd_direct() with the midlayer's completion logging on (bbsuite.h). */
int cd_direct_done(uint64_t b, uint64_t n, size_t blk, long *done)
{
	char needle[32];
	size_t mark;
	int ret;

	*done = -1;
	if (knob_write(SCSI_LOGGING, LOG_HLCOMPLETE))
		return 1;
	mark = kmsg_mark();
	ret = cd_direct(b, n, blk);
	knob_write(SCSI_LOGGING, "0");
	kmsg_sync();
	snprintf(needle, sizeof(needle), "[%s]", dev_name(ROLE_BBCD));
	for (size_t i = mark; i < kmsg_count(); i++) {
		const char *l = kmsg_line(i), *p = strstr(l, " sectors total, ");
		unsigned long total;
		long x;

		if (!strstr(l, needle) || !p)
			continue;
		while (p > l && p[-1] >= '0' && p[-1] <= '9')
			p--;
		if (sscanf(p, "%lu sectors total, %ld bytes done", &total, &x) != 2 ||
		    total != n * blk / 512)
			continue;
		diag("kernel: %s", l);
		*done = x;
		break;
	}
	return ret;
}

static int size_is(long long want)
{
	long long size = dev_sectors(ROLE_BBCD);

	if (size != want)
		return fail("CD size %lld sectors, want %lld", size, want);
	return 0;
}

int t_lying_sr_valid_inside(void)
{
	char sense[64];
	size_t mark;
	long done;
	int got, seen, oob;

	/* RECOVERED ERROR: sr_done counts the whole transfer good, so the
	 * read is right after one command, not sent again */
	sense_fixed(sense, false, false, 1, 0x17, 0);
	if (dev_require(ROLE_BBCD) ||
	    rulef("lun=1 lba=300 status=2 sense=%s copy=all resid=0", sense))
		return -1;
	got = cd_direct_good(300, 4);
	seen = bbtest_log_count(1, 300, 4, &oob);
	if (got || seen != 1)
		return fail("RECOVERED ERROR on the CD: %s after %d commands, want the right data"
			    " after 1", got < 0 ? strerror(-got) : got ? "wrong data" : "success", seen);
	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 205);
	if (dev_require(ROLE_BBCD) || size_is(BBCD_BLOCKS * 4) ||
	    rulef("lun=1 lba=205 status=2 sense=%s copy=upto resid=rest", sense))
		return -1;
	mark = kmsg_mark();
	got = cd_direct_done(202, 4, CD_BLOCK, &done);
	if (got > 0)
		return -1;
	if (got != -ENODATA)
		return fail("O_DIRECT read across the bad block failed with %s, want ENODATA",
			    strerror(-got));
	if (done != 8 * 512)
		return fail("sr_done gave %ld good bytes, want 4096 (sector 820 rounded down to "
			    "the 16-sector bio: 816)", done);
	if (error_line_names(mark, ROLE_BBCD, 816))
		return -1;
	if (rulef("lun=1 lba=205 status=2 sense=%s copy=upto resid=rest", sense) ||
	    cd_pages_clean(196, 16) || size_is(BBCD_BLOCKS * 4))
		return -1;
	return lying_finish(1, 196, 16);
}

int t_lying_sr_deferred(void)
{
	char sense[64];
	const char *l;
	size_t mark;
	long done;
	int got, seen, oob;

	sense_fixed(sense, true, true, MEDIUM_ERROR, 0x11, 125);
	if (dev_require(ROLE_BBCD) ||
	    rulef("lun=1 lba=125 status=2 sense=%s copy=upto resid=rest count=4", sense))
		return -1;
	kmsg_sync();
	mark = kmsg_mark();
	got = cd_direct_done(122, 4, CD_BLOCK, &done);
	/* sr_init_command's own check of the S/G size: never on a sane read */
	l = kmsg_find(mark, "mismatch count");
	if (l)
		return fail("sr built a command whose data size disagrees: %s", l);
	seen = bbtest_log_count(1, 122, 4, &oob);
	diag("deferred MEDIUM ERROR on the CD: %s after %d command(s), %ld bytes done",
	     got < 0 ? strerror(-got) : "no error", seen, done);
	if (got > 0)
		return -1;
	if (got != -EIO || seen != 4 || done != 0)
		return fail("deferred MEDIUM ERROR every time: %s after %d commands with %ld bytes"
			    " done, want EIO after 4 (sr's 3 retries) with 0", strerror(-got), seen,
			    done);
	return lying_finish(1, 122, 4);
}

int t_lying_sr_end_trim(void)
{
	char sense[64];
	unsigned char *buf = io_buf(4 * CD_BLOCK);
	long done;
	int fd, got;
	ssize_t n;

	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 500);
	if (dev_require(ROLE_BBCD) || size_is(BBCD_BLOCKS * 4) ||
	    rulef("lun=1 lba=500 status=2 sense=%s copy=upto resid=rest", sense))
		goto bad;
	got = cd_direct_done(498, 4, CD_BLOCK, &done);
	if (got > 0)
		goto bad;
	if (got != -ENODATA) {
		fail("read across the bad block near the end failed with %s, want ENODATA",
		     strerror(-got));
		goto bad;
	}
	if (done != 8 * 512) {
		fail("sr_done gave %ld good bytes, want 4096 (the 2K blocks 498 and 499)", done);
		goto bad;
	}
	/* sector 2000 rounds to itself (16-sector bio): the disc ends there */
	if (size_is(2000))
		goto bad;
	fd = io_open(ROLE_BBCD, O_RDONLY | O_DIRECT);
	if (fd < 0)
		goto bad;
	n = io_pread(fd, buf, 4 * CD_BLOCK, 500 * CD_BLOCK);
	close(fd);
	if (n != 0) {
		fail("O_DIRECT read at the trimmed end returned %s, want 0 (EOF)",
		     n < 0 ? strerror((int)-n) : "data");
		goto bad;
	}
	free(buf);
	return lying_finish(1, 496, 16);
bad:
	free(buf);
	return -1;
}
