/*
 * t_lying.c: the lying-device-* tests, on the scsi_bbtest harness driver
 * (kernel-patches/harness).  Each test scripts one completion through
 * /sys/kernel/debug/scsi_bbtest/rules and checks the result the correct
 * 6.1 kernel gives: the bytes reported good are exactly the bytes the
 * device returned before the bad block, never more.  Bytes the device did
 * not transfer are poisoned (0xee) by the driver, so data reported good but
 * never sent reaches user space and is caught by the pattern check.
 *
 * Every test also requires that its rule was consumed (a test whose
 * injection never happened fails, it does not pass) and that no command
 * reached past the end of the medium.
 *
 * Disk regions (512-byte sectors): 64 lba-outside, 128 unaligned-resid,
 * 192 short-resid, 256 medium-no-data, 320 deferred-sense,
 * 384 descriptor-sense, 448 and 1824 info-resid; CD 2K block 100
 * sr-info-outside.  lying-device-info-resid scripts completions where the
 * residual, the sense INFORMATION and the bytes sent disagree: the kernel
 * must count only what both allow (sd_completed_bytes' min).
 */
#include "bbsuite.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEDIUM_ERROR 3

void lying_hex(char *out, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* Fixed-format sense: response code 0x70 (current) or 0x71 (deferred). */
void sense_fixed(char *out, bool deferred, bool valid, uint8_t key,
			uint8_t asc, uint32_t info)
{
	unsigned char s[18] = { 0 };

	s[0] = (deferred ? 0x71 : 0x70) | (valid ? 0x80 : 0);
	s[2] = key;
	s[3] = (unsigned char)(info >> 24);
	s[4] = (unsigned char)(info >> 16);
	s[5] = (unsigned char)(info >> 8);
	s[6] = (unsigned char)info;
	s[7] = 10;
	s[12] = asc;
	lying_hex(out, s, sizeof(s));
}

/* Descriptor-format sense (0x72) with an information descriptor. */
void sense_desc(char *out, uint8_t key, uint8_t asc, uint64_t info)
{
	unsigned char s[20] = { 0 };

	s[0] = 0x72;
	s[1] = key;
	s[2] = asc;
	s[7] = 12;
	s[8] = 0x00;		/* information descriptor */
	s[9] = 0x0a;
	s[10] = 0x80;		/* VALID */
	for (int i = 0; i < 8; i++)
		s[12 + i] = (unsigned char)(info >> (56 - 8 * i));
	lying_hex(out, s, sizeof(s));
}

int rulef(const char *fmt, ...)
{
	char rule[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rule, sizeof(rule), fmt, ap);
	va_end(ap);
	diag("rule: %s", rule);
	return bbtest_rule(rule);
}

/* The rule was used, nothing went past the end. */
int lying_finish(unsigned int lun, uint64_t lba, uint64_t n)
{
	int oob, pending = bbtest_pending(), seen = bbtest_log_count(lun, lba, n, &oob);

	if (pending < 0 || seen < 0)
		return -1;
	diag("commands touching the region: %d", seen);
	if (pending)
		return fail("the scripted completion was never used (%d rule(s) pending)",
			    pending);
	if (oob)
		return fail("%d command(s) went past the end of the medium", oob);
	return 0;
}

static bool io_failed(ssize_t n)
{
	return n == -EIO || n == -ENODATA;
}

/* O_DIRECT read of len bytes at sector s: want failure, never wrong data. */
int direct_expect_fail(enum role r, uint64_t s, size_t len, size_t blk)
{
	int fd = io_open(r, O_RDONLY | O_DIRECT), ret = 0;
	unsigned char *buf = io_buf(len);
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return -1;
	}
	n = io_pread(fd, buf, len, s * blk);
	if (n >= 0)
		ret = pat_expect(buf, (size_t)n, s * blk, 0, "read reported good") ?
		      -1 : fail("read returned %zd bytes of correct data, want EIO "
				"(the device sent none)", n);
	else if (!io_failed(n))
		ret = fail("read failed with %s, want EIO", strerror((int)-n));
	free(buf);
	close(fd);
	return ret;
}

/* O_DIRECT read of len bytes at sector s: want success and right data. */
int direct_expect_good(enum role r, uint64_t s, size_t len)
{
	int fd = io_open(r, O_RDONLY | O_DIRECT), ret;
	unsigned char *buf = io_buf(len);
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return -1;
	}
	n = io_pread(fd, buf, len, s * SECTOR);
	if (n != (ssize_t)len)
		ret = fail("read of %zu bytes at sector %llu: %s", len,
			   (unsigned long long)s, n < 0 ? strerror((int)-n) : "short read");
	else
		ret = pat_expect(buf, len, s * SECTOR, 0, "read");
	free(buf);
	close(fd);
	return ret;
}

int t_lying_lba_outside(void)
{
	char sense[64];
	long good;

	/* MEDIUM ERROR naming LBA 1000 for a read of 64..95; no data, and
	 * the device claims a full transfer (resid 0). */
	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 1000);
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=64 status=2 sense=%s copy=0 resid=0", sense) ||
	    direct_fail_good_bytes(64, 32 * SECTOR, &good))
		return -1;
	/* an INFORMATION outside the request says nothing: no byte is good */
	if (good != 0)
		return fail("INFORMATION outside the request: sd_done counted %ld good bytes, want 0",
			    good);
	return lying_finish(0, 64, 32);
}

/* The command after the scripted one in the disk's region at lba: it must
 * ask for exactly [want, lba + 16), the part the kernel did not count good. */
static int requeued_from(uint64_t lba, uint64_t want)
{
	struct bbt_cmd log[64];
	int n = bbtest_log_read(log, 64), i;

	for (i = 0; i < n && !(log[i].rule && log[i].lun == 0 && log[i].lba == lba); i++)
		;
	for (i++; i < n && !(log[i].lun == 0 && log[i].lba < lba + 16 &&
			     log[i].lba + log[i].blocks > lba); i++)
		;
	if (i >= n)
		return fail("no second command for sectors %llu..%llu",
			    (unsigned long long)lba, (unsigned long long)lba + 15);
	diag("requeued: lba %llu, %llu blocks", (unsigned long long)log[i].lba,
	     (unsigned long long)log[i].blocks);
	if (log[i].lba != want || log[i].lba + log[i].blocks != lba + 16)
		return fail("the rest was asked for at lba %llu, %llu blocks; want lba %llu,"
			    " %llu blocks (the whole sectors sent are good)",
			    (unsigned long long)log[i].lba, (unsigned long long)log[i].blocks,
			    (unsigned long long)want, (unsigned long long)(lba + 16 - want));
	return 0;
}

int t_lying_unaligned_resid(void)
{
	/* GOOD status, 2148 bytes sent, resid 8192 - 2148: sd_done must
	 * round to whole sectors (4 good) and the rest (12) be requeued. */
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=128 status=0 copy=2148 resid=6044") ||
	    direct_expect_good(ROLE_BBDISK, 128, 8192) ||
	    requeued_from(128, 132))
		return -1;
	return lying_finish(0, 128, 16);
}

int t_lying_short_resid(void)
{
	/* GOOD status, half sent, honest resid: scsi_finish_command must
	 * subtract the residual and the rest be requeued. */
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=192 status=0 copy=4096 resid=rest") ||
	    direct_expect_good(ROLE_BBDISK, 192, 8192))
		return -1;
	return lying_finish(0, 192, 16);
}

/* O_DIRECT read of len bytes at sector s of the scsi_bbtest disk, which
 * must fail without returning wrong data, with sd's completion logging on.
 * Sets *good to the good bytes sd_done() reported for the failed command
 * ("sd_done: completed X of len bytes"), -1 if it logged none. */
int direct_fail_good_bytes(uint64_t s, size_t len, long *good)
{
	size_t mark;
	int ret;
	char needle[64];

	*good = -1;
	if (knob_write(SCSI_LOGGING, LOG_SD_DONE))
		return -1;
	mark = kmsg_mark();
	ret = direct_expect_fail(ROLE_BBDISK, s, len, SECTOR);
	knob_write(SCSI_LOGGING, "0");
	kmsg_sync();
	snprintf(needle, sizeof(needle), "[%s]", dev_name(ROLE_BBDISK));
	for (size_t i = mark; i < kmsg_count(); i++) {
		const char *l = kmsg_line(i), *p = strstr(l, "sd_done: completed ");
		long x, y;

		if (!strstr(l, needle) || !p ||
		    sscanf(p, "sd_done: completed %ld of %ld", &x, &y) != 2 ||
		    y != (long)len)
			continue;
		diag("kernel: %s", l);
		*good = x;
		break;
	}
	return ret;
}

/* The block layer's error line, when not ratelimited away, must name the
 * first sector that was not good. */
int error_line_names(size_t mark, enum role r, uint64_t sector)
{
	char needle[64], any[64];
	const char *l;

	snprintf(any, sizeof(any), "dev %s, sector ", dev_name(r));
	l = kmsg_find(mark, any);
	if (!l)
		return 0;
	snprintf(needle, sizeof(needle), "dev %s, sector %llu ", dev_name(r),
		 (unsigned long long)sector);
	if (!strstr(l, needle))
		return fail("the kernel named the wrong first bad sector: %s (want %llu)",
			    l, (unsigned long long)sector);
	return 0;
}

int t_lying_medium_no_data(void)
{
	char sense[64];
	size_t mark;
	long good;

	/* MEDIUM ERROR at 268 for a read of 256..271, VALID and INFO right,
	 * but no data at all (resid = everything): 0 bytes are good, not the
	 * 12 sectors before the bad one. */
	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 268);
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=268 status=2 sense=%s copy=0 resid=rest", sense))
		return -1;
	mark = kmsg_mark();
	if (direct_fail_good_bytes(256, 8192, &good))
		return -1;
	if (good != 0)
		return fail("sd_done counted %ld good bytes of a command that returned no data", good);
	if (error_line_names(mark, ROLE_BBDISK, 256))
		return -1;
	return lying_finish(0, 256, 16);
}

int t_lying_deferred_sense(void)
{
	char sense[64];
	long good;

	/* A deferred error belongs to an earlier command: this one must be
	 * retried, and the retry (not scripted) succeeds. */
	sense_fixed(sense, true, true, MEDIUM_ERROR, 0x11, 324);
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=320 status=2 sense=%s copy=0 resid=rest", sense) ||
	    direct_expect_good(ROLE_BBDISK, 320, 8192))
		return -1;
	/* Deferred every time (1 + sd's 5 retries): the command fails, and
	 * sd_done, which must not read a deferred error's INFORMATION as this
	 * command's, counts no good bytes although sectors 336..339 came. */
	sense_fixed(sense, true, true, MEDIUM_ERROR, 0x11, 340);
	if (rulef("lun=0 lba=340 status=2 sense=%s copy=upto resid=rest count=6", sense) ||
	    direct_fail_good_bytes(336, 8192, &good))
		return -1;
	if (good != 0)
		return fail("a deferred error: sd_done counted %ld good bytes, want 0", good);
	return lying_finish(0, 320, 32);
}

int t_lying_descriptor_sense(void)
{
	char sense[64];
	size_t mark;
	long good;

	/* Descriptor sense, MEDIUM ERROR at 396 for a read of 384..399, data
	 * sent up to the bad block: exactly the 12 sectors before it are good. */
	sense_desc(sense, MEDIUM_ERROR, 0x11, 396);
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=396 status=2 sense=%s copy=upto resid=rest", sense))
		return -1;
	mark = kmsg_mark();
	if (direct_fail_good_bytes(384, 8192, &good))
		return -1;
	if (good != (396 - 384) * SECTOR)
		return fail("sd_done counted %ld good bytes, want %u (the sectors before the bad LBA)",
			    good, (396 - 384) * SECTOR);
	if (error_line_names(mark, ROLE_BBDISK, 396))
		return -1;
	return lying_finish(0, 384, 16);
}

int t_lying_sr_info_outside(void)
{
	char sense[64];
	long long size = dev_sectors(ROLE_BBCD);

	/* The CD names a bad block past its own end for a read of blocks
	 * 100..103, sends nothing and claims a full transfer. */
	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, BBCD_BLOCKS + 10);
	if (dev_require(ROLE_BBCD) ||
	    rulef("lun=1 lba=100 status=2 sense=%s copy=0 resid=0", sense) ||
	    direct_expect_fail(ROLE_BBCD, 100, 4 * 2048, 2048))
		return -1;
	if (dev_sectors(ROLE_BBCD) != size || size != (long long)BBCD_BLOCKS * 4)
		return fail("CD size %lld -> %lld sectors, want %llu", size,
			    dev_sectors(ROLE_BBCD), BBCD_BLOCKS * 4);
	return lying_finish(1, 100, 4);
}

/* Pages of a failed buffered read of the disk at [s, s + n): each either
 * fails again or holds the right data, never poison or stale bytes. */
static int buffered_pages_clean(uint64_t s, uint64_t n)
{
	int fd = io_open(ROLE_BBDISK, O_RDONLY), ret = 0;
	unsigned char *buf = io_buf(4096);

	if (fd < 0) {
		free(buf);
		return -1;
	}
	for (uint64_t p = s; p < s + n && !ret; p += 8) {
		ssize_t got = io_pread(fd, buf, 4096, p * SECTOR);

		if (got == 4096)
			ret = pat_expect(buf, 4096, p * SECTOR, 0, "page of a failed buffered read");
		else if (!io_failed(got))
			ret = fail("page at sector %llu: %s", (unsigned long long)p,
				   got < 0 ? strerror((int)-got) : "short read");
	}
	free(buf);
	close(fd);
	return ret;
}

int t_lying_info_resid(void)
{
	char sense[64];
	size_t mark;
	long good;
	int fd;

	/* The device claims everything was sent (resid 0) but names LBA 460
	 * as bad: INFORMATION wins, the 12 sectors before it are good. */
	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 460);
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=460 status=2 sense=%s copy=all resid=0", sense))
		return -1;
	mark = kmsg_mark();
	if (direct_fail_good_bytes(448, 8192, &good))
		return -1;
	if (good != 12 * SECTOR)
		return fail("INFORMATION 460, resid 0: sd_done counted %ld good bytes, want %u",
			    good, 12 * SECTOR);
	if (error_line_names(mark, ROLE_BBDISK, 460))
		return -1;
	/* Now INFORMATION says 12 sectors were good but only 4 were sent and
	 * the residual says so: the residual wins (sd_completed_bytes' min). */
	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 492);
	if (rulef("lun=0 lba=492 status=2 sense=%s copy=2048 resid=rest", sense))
		return -1;
	mark = kmsg_mark();
	if (direct_fail_good_bytes(480, 8192, &good))
		return -1;
	if (good != 4 * SECTOR)
		return fail("INFORMATION 492, 4 sectors sent: sd_done counted %ld good bytes, want %u",
			    good, 4 * SECTOR);
	if (error_line_names(mark, ROLE_BBDISK, 484))
		return -1;
	/* The same through the page cache: a page reported good must hold
	 * what the device sent, never its poison. */
	fd = io_open(ROLE_BBDISK, O_RDONLY);
	if (fd < 0 || io_drop_cache(fd)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	sense_fixed(sense, false, true, MEDIUM_ERROR, 0x11, 1836);
	if (rulef("lun=0 lba=1836 status=2 sense=%s copy=2048 resid=rest", sense) ||
	    buffered_pages_clean(1824, 16))
		return -1;
	return lying_finish(0, 448, 48);
}
