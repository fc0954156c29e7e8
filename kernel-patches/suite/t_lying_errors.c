/*
 * t_lying_errors.c: how the 6.1 completion path classifies a failed command
 * (issue 15): the errno user space gets for each kind of failure, which
 * failures are retried and how often, and that a fail-fast readahead is not
 * retried.  All on the scsi_bbtest disk (LUN 0), each case on a region of
 * its own, and each counts the commands the device actually saw.
 *
 *   lying-device-errno        O_DIRECT reads (and one write): MEDIUM ERROR
 *                             -> ENODATA, HARDWARE ERROR and ILLEGAL REQUEST
 *                             -> EREMOTEIO, RESERVATION CONFLICT -> EBADE,
 *                             DID_TRANSPORT_FAILFAST -> ENOLINK, DATA PROTECT
 *                             out of space on a write -> ENOSPC, DIF and DIX
 *                             (asc 0x10) -> EILSEQ; one command each
 *   lying-device-retries      ABORTED COMMAND twice: retried, the third try
 *                             reads right; six times: sd's 5 retries used up,
 *                             EIO after exactly 6 commands; DID_SOFT_ERROR once:
 *                             retried; SG_IO with ABORTED COMMAND: passthrough
 *                             is never retried, the sense comes back as sent;
 *                             CHECK CONDITION with NO SENSE once: sent again;
 *                             RECOVERED ERROR with half sent: the rest requeued
 *   lying-device-failfast-readahead  64 KiB of readahead(2) get
 *                             DID_SOFT_ERROR, DID_BUS_BUSY, DID_PARITY, and
 *                             CHECK CONDITION / ABORTED COMMAND:
 *                             readahead is fail-fast (driver, transport,
 *                             device), so that command is not retried; a read
 *                             of its first page then reads it alone, right
 *
 * Disk regions (512-byte sectors): 512..639 and 800..863 errno, 640..799
 * and 864..895 retries, 1280..1791 failfast.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEDIUM_ERROR	3
#define HARDWARE_ERROR	4
#define ILLEGAL_REQUEST	5
#define DATA_PROTECT	7
#define ABORTED_COMMAND	0xb

/* Commands in the log covering [lba, lba + n) of the disk, or -1. */
static int commands(uint64_t lba, uint64_t n)
{
	int oob;

	return bbtest_log_count(0, lba, n, &oob);
}

/* O_DIRECT read (or write) of 8 KiB at sector s: the negative errno, 0 on success. */
static int direct_io(uint64_t s, bool write)
{
	int fd = io_open(ROLE_BBDISK, (write ? O_RDWR : O_RDONLY) | O_DIRECT), ret;
	unsigned char *buf = io_buf(8192);
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return 1;
	}
	if (write) {
		pat_fill(buf, 8192, s * SECTOR, 0);
		n = io_pwrite(fd, buf, 8192, s * SECTOR);
	} else {
		n = io_pread(fd, buf, 8192, s * SECTOR);
	}
	if (n == 8192)
		ret = write ? 0 : pat_expect(buf, 8192, s * SECTOR, 0, "O_DIRECT read") ? 1 : 0;
	else
		ret = n < 0 ? (int)n : 1;
	free(buf);
	close(fd);
	return ret;
}

struct errno_case {
	const char *what;
	int key, asc, ascq;		/* key 0: no sense (or raw_sense) */
	int status, host;
	bool write;
	int want;			/* errno */
	const char *raw_sense;		/* hex, instead of key/asc/ascq */
};

/* Descriptor sense, ABORTED COMMAND, with a stream commands descriptor
 * whose ILI bit is set: such a failure is final, never retried. */
#define STREAM_ILI "720b0000000000040402002000"

static const struct errno_case errno_cases[] = {
	{ "MEDIUM ERROR", MEDIUM_ERROR, 0x11, 0, 2, 0, false, ENODATA, NULL },
	{ "HARDWARE ERROR", HARDWARE_ERROR, 0x44, 0, 2, 0, false, EREMOTEIO, NULL },
	{ "ILLEGAL REQUEST, invalid field in CDB", ILLEGAL_REQUEST, 0x24, 0, 2, 0, false,
	  EREMOTEIO, NULL },
	{ "RESERVATION CONFLICT", 0, 0, 0, 0x18, 0, false, EBADE, NULL },
	{ "DID_TRANSPORT_FAILFAST", 0, 0, 0, 0, 0x0f, false, ENOLINK, NULL },
	{ "DATA PROTECT, space allocation failed (write)", DATA_PROTECT, 0x27, 0x07, 2, 0,
	  true, ENOSPC, NULL },
	{ "ABORTED COMMAND, DIF: the target detected corruption", ABORTED_COMMAND, 0x10, 0x01,
	  2, 0, false, EILSEQ, NULL },
	{ "ILLEGAL REQUEST, DIX: the host detected corruption", ILLEGAL_REQUEST, 0x10, 0x01, 2, 0,
	  false, EILSEQ, NULL },
	{ "MEDIUM ERROR, asc 0x13 (no address mark)", MEDIUM_ERROR, 0x13, 0, 2, 0, false, ENODATA, NULL },
	{ "DATA PROTECT, too many open zones (0x55/0x0e)", DATA_PROTECT, 0x55, 0x0e, 2, 0, false,
	  ETOOMANYREFS, NULL },
	{ "DATA PROTECT, too many open zones (0x55/0x0f)", DATA_PROTECT, 0x55, 0x0f, 2, 0, false,
	  ETOOMANYREFS, NULL },
	{ "ABORTED COMMAND, descriptor sense with a stream ILI", 0, 0, 0, 2, 0, false, EIO,
	  STREAM_ILI },
};

static void sense_with_ascq(char *out, int key, int asc, int ascq)
{
	unsigned char s[18] = { 0 };

	s[0] = 0x70;
	s[2] = (unsigned char)key;
	s[7] = 10;
	s[12] = (unsigned char)asc;
	s[13] = (unsigned char)ascq;
	lying_hex(out, s, sizeof(s));
}

int t_lying_errno(void)
{
	size_t ncases = sizeof(errno_cases) / sizeof(errno_cases[0]);
	long long done0, err0;
	char sense[64];

	if (dev_require(ROLE_BBDISK))
		return -1;
	done0 = dev_counter(ROLE_BBDISK, "iodone_cnt");
	err0 = dev_counter(ROLE_BBDISK, "ioerr_cnt");
	for (size_t i = 0; i < ncases; i++) {
		const struct errno_case *c = &errno_cases[i];
		uint64_t s = i < 8 ? 512 + 16 * i : 800 + 16 * (i - 8);
		bool has_sense = c->key || c->raw_sense;
		int got, seen;

		if (c->raw_sense)
			snprintf(sense, sizeof(sense), "%s", c->raw_sense);
		else if (c->key)
			sense_with_ascq(sense, c->key, c->asc, c->ascq);
		if (rulef("lun=0 op=%s lba=%llu status=%d host=%d%s%s copy=0 resid=rest",
			  c->write ? "write" : "read", (unsigned long long)s + 2, c->status,
			  c->host, has_sense ? " sense=" : "", has_sense ? sense : ""))
			return -1;
		got = direct_io(s, c->write);
		seen = commands(s, 16);
		diag("%s: %s, %d command(s)", c->what, got < 0 ? strerror(-got) :
		     got ? "wrong data" : "success", seen);
		if (got != -c->want)
			return fail("%s: the %s failed with %s, want %s", c->what,
				    c->write ? "write" : "read", got < 0 ? strerror(-got) :
				    "no error", strerror(c->want));
		if (seen != 1)
			return fail("%s: %d commands, want 1 (this failure is not retried)",
				    c->what, seen);
	}
	/* every one of those commands completed, and with an error */
	diag("iodone_cnt +%lld, ioerr_cnt +%lld", dev_counter(ROLE_BBDISK, "iodone_cnt") - done0,
	     dev_counter(ROLE_BBDISK, "ioerr_cnt") - err0);
	if (done0 < 0 || dev_counter(ROLE_BBDISK, "iodone_cnt") - done0 != (long long)ncases ||
	    dev_counter(ROLE_BBDISK, "ioerr_cnt") - err0 != (long long)ncases)
		return fail("the device's iodone_cnt/ioerr_cnt grew by %lld/%lld, want %zu/%zu",
			    dev_counter(ROLE_BBDISK, "iodone_cnt") - done0, dev_counter(ROLE_BBDISK, "ioerr_cnt") - err0, ncases,
			    ncases);
	return lying_finish(0, 512, 352);
}

/* The SG_IO leg of lying-device-retries: passthrough is never retried. */
static int sgio_not_retried(uint64_t s)
{
	unsigned char rd10[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, 16, 0 };
	unsigned char *buf = io_buf(8192);
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret = -1, seen;
	struct sgio_result res;

	if (fd < 0)
		goto out;
	rd10[4] = (unsigned char)(s >> 8);
	rd10[5] = (unsigned char)s;
	if (sgio(fd, rd10, 10, buf, 8192, &res))
		goto out;
	seen = commands(s, 16);
	diag("SG_IO READ(10) with ABORTED COMMAND: status 0x%x sense key 0x%x, %d command(s)",
	     res.status, res.sense_len > 2 ? res.sense[2] & 0xf : -1, seen);
	if (res.status != 2 || res.sense_len < 3 || (res.sense[2] & 0xf) != ABORTED_COMMAND) {
		fail("SG_IO: status 0x%x, want CHECK CONDITION with ABORTED COMMAND", res.status);
		goto out;
	}
	if (seen != 1) {
		fail("SG_IO: %d commands, want 1 (passthrough commands are not retried)", seen);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

int t_lying_retries(void)
{
	char aborted[64];
	int got, seen;

	sense_with_ascq(aborted, ABORTED_COMMAND, 0, 0);
	if (dev_require(ROLE_BBDISK) ||
	    rulef("lun=0 lba=642 status=2 sense=%s copy=0 resid=rest count=2", aborted))
		return -1;
	got = direct_io(640, false);
	seen = commands(640, 16);
	diag("ABORTED COMMAND twice: %s after %d command(s)", got ? "failed" : "read right", seen);
	if (got || seen != 3)
		return fail("ABORTED COMMAND twice: %s after %d commands, want the right data after 3",
			    got < 0 ? strerror(-got) : got ? "wrong data" : "success", seen);
	if (rulef("lun=0 lba=674 status=2 sense=%s copy=0 resid=rest count=6", aborted))
		return -1;
	got = direct_io(672, false);
	seen = commands(672, 16);
	diag("ABORTED COMMAND six times: %s after %d command(s)",
	     got < 0 ? strerror(-got) : "no error", seen);
	if (got != -EIO || seen != 6)
		return fail("ABORTED COMMAND every time: %s after %d commands, want EIO after 6"
			    " (1 + sd's 5 retries)", got < 0 ? strerror(-got) : "no error", seen);
	if (rulef("lun=0 lba=706 host=11 copy=0 resid=rest"))
		return -1;
	got = direct_io(704, false);
	seen = commands(704, 16);
	if (got || seen != 2)
		return fail("DID_SOFT_ERROR once: %s after %d commands, want the right data after 2",
			    got < 0 ? strerror(-got) : got ? "wrong data" : "success", seen);
	if (rulef("lun=0 lba=738 status=2 sense=%s copy=0 resid=rest", aborted) ||
	    sgio_not_retried(736))
		return -1;
	/* CHECK CONDITION with NO SENSE: a false alarm, but no data is known to
	 * have arrived, so sd_done clears it and the command goes again */
	sense_with_ascq(aborted, 0, 0, 0);
	if (rulef("lun=0 lba=770 status=2 sense=%s copy=0 resid=rest", aborted))
		return -1;
	got = direct_io(768, false);
	seen = commands(768, 16);
	if (got || seen != 2)
		return fail("NO SENSE once: %s after %d commands, want the right data after 2",
			    got < 0 ? strerror(-got) : got ? "wrong data" : "success", seen);
	/* DID_BUS_BUSY and TASK SET FULL once: both sent again */
	if (rulef("lun=0 lba=866 host=2 copy=0 resid=rest") ||
	    rulef("lun=0 lba=882 status=0x28 copy=0 resid=rest"))
		return -1;
	for (uint64_t s = 864; s <= 880; s += 16) {
		got = direct_io(s, false);
		seen = commands(s, 16);
		if (got || seen != 2)
			return fail("%s once: %s after %d commands, want the right data after 2",
				    s == 864 ? "DID_BUS_BUSY" : "TASK SET FULL",
				    got < 0 ? strerror(-got) : got ? "wrong data" : "success", seen);
	}
	/* RECOVERED ERROR on a short transfer: the data sent is good, and the
	 * rest is asked for again, not failed */
	sense_with_ascq(aborted, 1, 0x17, 0);
	if (rulef("lun=0 lba=786 status=2 sense=%s copy=4096 resid=rest", aborted))
		return -1;
	got = direct_io(784, false);
	seen = commands(784, 16);
	if (got || seen != 2)
		return fail("RECOVERED ERROR with half sent: %s after %d commands, want the right"
			    " data after 2", got < 0 ? strerror(-got) : got ? "wrong data" : "success",
			    seen);
	return lying_finish(0, 640, 256);
}

/* One failure (how: the rule's completion) on 64 KiB of readahead at
 * sector lba: that command is not retried, and the page then reads right
 * on its own. */
static int failfast_case(const char *how, uint64_t lba, const char *name)
{
	struct bbt_cmd log[64];
	unsigned char *buf = io_buf(4096);
	int fd = -1, n, ret = -1, failed = -1;
	ssize_t got;

	fd = io_open(ROLE_BBDISK, O_RDONLY);
	if (fd < 0 || io_drop_cache(fd) || bbtest_clear() ||
	    rulef("lun=0 lba=%llu %s copy=0 resid=rest", (unsigned long long)lba, how))
		goto out;
	/* 64 KiB of readahead (REQ_RAHEAD, hence fail-fast), then the page */
	if (readahead(fd, lba * SECTOR, 64 * 1024)) {
		fail("readahead: %s", strerror(errno));
		goto out;
	}
	got = io_pread(fd, buf, 4096, lba * SECTOR);
	if (got != 4096) {
		fail("%s: buffered read at sector %llu: %s", name, (unsigned long long)lba,
		     got < 0 ? strerror((int)-got) : "short");
		goto out;
	}
	if (pat_expect(buf, 4096, lba * SECTOR, 0, "buffered read after a failed readahead"))
		goto out;
	n = bbtest_log_read(log, 64);
	for (int i = 0; i < n; i++) {
		diag("%s: command %d: lba %llu, %llu blocks%s", name, i,
		     (unsigned long long)log[i].lba, (unsigned long long)log[i].blocks,
		     log[i].rule ? " (scripted)" : "");
		if (log[i].rule && failed < 0)
			failed = i;
	}
	if (failed < 0 || log[failed].blocks <= 8) {
		fail("%s: %s", name, failed < 0 ? "no command met the scripted failure" :
		     "the failed command was not the readahead");
		goto out;
	}
	for (int i = failed + 1; i < n; i++)
		if (log[i].lba == log[failed].lba && log[i].blocks == log[failed].blocks) {
			fail("%s: the fail-fast readahead (lba %llu, %llu blocks) was retried", name,
			     (unsigned long long)log[i].lba, (unsigned long long)log[i].blocks);
			goto out;
		}
	ret = lying_finish(0, lba, 128);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

int t_lying_failfast_readahead(void)
{
	char how[80];

	/* each fail-fast flag readahead carries: driver, transport, device;
	 * the device's also for a retryable CHECK CONDITION (ABORTED COMMAND) */
	snprintf(how, sizeof(how), "status=2 sense=");
	sense_with_ascq(how + strlen(how), ABORTED_COMMAND, 0, 0);
	if (dev_require(ROLE_BBDISK) ||
	    failfast_case("host=11", 1280, "DID_SOFT_ERROR") ||
	    failfast_case("host=2", 1408, "DID_BUS_BUSY") ||
	    failfast_case("host=6", 1536, "DID_PARITY") ||
	    failfast_case(how, 1664, "ABORTED COMMAND"))
		return -1;
	return 0;
}
