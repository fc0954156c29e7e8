/*
 * t_lying_paths.c: branches of the 6.1 completion path that the mutation
 * campaign of 2026-12-04 found unreached (issue 15; kernel-patches/mutants/
 * triage names the mutants each case kills).  All on scsi_bbtest, each case
 * on a region of its own, each counting the commands the device saw.
 *
 *   lying-device-host-bytes     SG_IO READ of no blocks with DID_RESET once:
 *                               retried, 2 commands; SG_IO READ with
 *                               DID_ABORT, with DID_RESET: the host byte
 *                               comes back as sent, one command; 18 bytes of fixed sense: SG_IO
 *                               hands back 18 (sb_len_wr).  O_DIRECT:
 *                               DID_PASSTHROUGH with MEDIUM ERROR and no
 *                               data: EIO (the status byte still counts);
 *                               CHECK CONDITION without sense: the error
 *                               handler asks REQUEST SENSE, gets NO SENSE,
 *                               the read goes again and is right
 *   lying-device-sense-actions  ILLEGAL REQUEST asc 0x21: EREMOTEIO, one
 *                               command; NOT READY 04/04 once: retried, right;
 *                               deferred UNIT ATTENTION every time: EIO after
 *                               exactly 6; a good read moves iodone_cnt, not
 *                               ioerr_cnt; INFORMATION one past the request:
 *                               0 good bytes; a one-sector MEDIUM ERROR:
 *                               0 good bytes; DIF (ABORTED COMMAND asc 0x10)
 *                               with VALID INFORMATION: the sectors before it
 *                               are good (`completed 6144 of 8192`), EILSEQ;
 *                               RECOVERED ERROR 00/1d: right, and no sense
 *                               printed; NOT READY 04/02 on a disk with
 *                               allow_restart: START UNIT, retried, right
 *   lying-device-unit-attention UNIT ATTENTION 3f/0e (REPORTED LUNS DATA HAS
 *                               CHANGED) on the CD: retried, right; then NOT
 *                               READY 3f/0e on the disk of the same target:
 *                               still expected, retried, right; UNIT
 *                               ATTENTION 28/00 on the CD: EIO, the disc is
 *                               marked changed, so a second read on the same
 *                               file fails without a command; a new open
 *                               clears it and reads right
 *
 *   lying-device-read6-fallback a disk refusing READ(10) with ILLEGAL
 *                               REQUEST 20/00: the read is sent again as
 *                               READ(6) and is right; a 255-block read then
 *                               goes out as one READ(6)
 *
 * Disk regions (512-byte sectors): 896..975 host-bytes, 976..1087 and
 * 1104..1135 sense-actions, 1088..1103 unit-attention, 1136..1151 and
 * 1280..1534 (unscripted) read6-fallback, 1200 (a command of no blocks)
 * host-bytes; CD 2K blocks
 * 150..165.
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOT_READY	2
#define MEDIUM_ERROR	3
#define ILLEGAL_REQUEST	5
#define UNIT_ATTENTION	6
#define ABORTED_COMMAND	0xb

/* Fixed sense with an ascq; INFORMATION (and VALID) when valid. */
void sense_q(char *out, bool deferred, uint8_t key, uint8_t asc, uint8_t ascq,
		    bool valid, uint32_t info)
{
	unsigned char s[18] = { 0 };

	s[0] = (deferred ? 0x71 : 0x70) | (valid ? 0x80 : 0);
	s[2] = key;
	for (int i = 0; i < 4; i++)
		s[3 + i] = (unsigned char)(info >> (24 - 8 * i));
	s[7] = 10;
	s[12] = asc;
	s[13] = ascq;
	lying_hex(out, s, sizeof(s));
}

static int commands(unsigned int lun, uint64_t lba, uint64_t n)
{
	int oob;

	return bbtest_log_count(lun, lba, n, &oob);
}

/* O_DIRECT read of len bytes at byte offset off on fd: 0 and right data,
 * 1 wrong data, or the negative errno. */
static int rd(int fd, uint64_t off, size_t len)
{
	unsigned char *buf = io_buf(len);
	ssize_t n = io_pread(fd, buf, len, off);
	int ret;

	if (n == (ssize_t)len)
		ret = pat_expect(buf, len, off, 0, "O_DIRECT read") ? 1 : 0;
	else
		ret = n < 0 ? (int)n : 1;
	free(buf);
	return ret;
}

/* The same on a fresh O_DIRECT open of role r (bbsuite.h). */
int rd_open(enum role r, uint64_t off, size_t len)
{
	int fd = io_open(r, O_RDONLY | O_DIRECT), ret;

	if (fd < 0)
		return 1;
	ret = rd(fd, off, len);
	close(fd);
	return ret;
}

const char *what(int got)
{
	return got < 0 ? strerror(-got) : got ? "wrong data" : "success";
}

/* Read 8 KiB at disk sector s (rd_open); want errno want (0: right data)
 * after exactly n commands. */
static int expect(const char *name, uint64_t s, size_t len, int want, int n)
{
	int got = rd_open(ROLE_BBDISK, s * SECTOR, len), seen = commands(0, s, len / SECTOR);

	diag("%s: %s after %d command(s)", name, what(got), seen);
	if (got != -want || seen != n)
		return fail("%s: %s after %d commands, want %s after %d", name, what(got), seen,
			    want ? strerror(want) : "the right data", n);
	return 0;
}

/* SG_IO READ(10) of 16 blocks at disk sector s. */
static int sgio_read(uint64_t s, struct sgio_result *res)
{
	unsigned char rd10[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, 16, 0 };
	unsigned char *buf = io_buf(8192);
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret = -1;

	for (int i = 0; i < 4; i++)
		rd10[2 + i] = (unsigned char)(s >> (24 - 8 * i));
	if (fd >= 0)
		ret = sgio(fd, rd10, 10, buf, 8192, res);
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* SG_IO with host byte host: reported as sent, one command. */
static int sgio_host(uint64_t s, int host, const char *name)
{
	struct sgio_result res;
	int seen;

	if (rulef("lun=0 lba=%llu host=%d copy=all resid=0", (unsigned long long)s + 2, host) ||
	    sgio_read(s, &res))
		return -1;
	seen = commands(0, s, 16);
	diag("SG_IO READ(10) with %s: host_status 0x%02x, %d command(s)", name,
	     res.host_status, seen);
	if (res.host_status != host || seen != 1)
		return fail("SG_IO with %s: host_status 0x%02x after %d commands, want 0x%02x"
			    " after 1 (passthrough is not retried)", name, res.host_status, seen,
			    host);
	return 0;
}

/* SG_IO getting 18 bytes of fixed sense (INFORMATION 0): all 18 come back. */
static int sgio_sense_len(uint64_t s)
{
	struct sgio_result res;
	char sense[64];

	sense_q(sense, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	if (rulef("lun=0 lba=%llu status=2 sense=%s copy=all resid=0",
		  (unsigned long long)s + 2, sense) || sgio_read(s, &res))
		return -1;
	diag("SG_IO READ(10) with 18 bytes of sense: status 0x%x, sb_len_wr %d, asc 0x%02x",
	     res.status, res.sense_len, res.sense_len > 12 ? res.sense[12] : 0);
	if (res.status != 2 || res.sense_len != 18 || res.sense[12] != 0x11)
		return fail("SG_IO: status 0x%x, %d bytes of sense (asc 0x%02x), want CHECK"
			    " CONDITION and the 18 bytes the device sent (asc 0x11)",
			    res.status, res.sense_len, res.sense_len > 12 ? res.sense[12] : 0);
	return 0;
}

/* SG_IO READ(10) of no blocks at s, answered once with DID_RESET: a failed
 * command without data is retried, so it is sent twice and then succeeds.
 * (Its rule names no lba: a command of no blocks covers none; nothing
 * else reads the disk meanwhile.) */
static int sgio_zero_reset(uint64_t s)
{
	unsigned char rd10[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct bbt_cmd log[64];
	struct sgio_result res;
	int fd, n, seen = 0, ret;

	for (int i = 0; i < 4; i++)
		rd10[2 + i] = (unsigned char)(s >> (24 - 8 * i));
	if (rulef("lun=0 host=8 copy=all resid=0"))
		return -1;
	fd = io_open(ROLE_BBDISK, O_RDWR);
	if (fd < 0)
		return -1;
	ret = sgio(fd, rd10, 10, NULL, 0, &res);
	close(fd);
	n = bbtest_log_read(log, 64);
	if (ret || n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		seen += log[i].lun == 0 && log[i].lba == s && log[i].blocks == 0;
	diag("SG_IO READ(10) of 0 blocks with DID_RESET once: host_status 0x%02x after %d"
	     " command(s)", res.host_status, seen);
	if (res.host_status != 0 || seen != 2)
		return fail("SG_IO of no data with DID_RESET once: host_status 0x%02x after %d"
			    " commands, want 0x00 after 2 (retried)", res.host_status, seen);
	return 0;
}

int t_lying_host_bytes(void)
{
	char sense[64];

	if (dev_require(ROLE_BBDISK) || bbtest_clear() ||
	    sgio_zero_reset(1200) ||
	    sgio_host(896, 0x05, "DID_ABORT") ||
	    sgio_host(912, 0x08, "DID_RESET") ||
	    sgio_sense_len(928))
		return -1;
	/* DID_PASSTHROUGH: the midlayer drops the host byte and passes the
	 * rest up as it is: a CHECK CONDITION, nothing sent, not a success */
	sense_q(sense, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	if (rulef("lun=0 lba=946 host=10 status=2 sense=%s copy=0 resid=0", sense) ||
	    expect("DID_PASSTHROUGH with MEDIUM ERROR", 944, 8192, EIO, 1))
		return -1;
	/* no sense with CHECK CONDITION: FAILED, the error handler fetches it */
	if (rulef("lun=0 lba=962 status=2 copy=0 resid=rest") ||
	    expect("CHECK CONDITION without sense", 960, 8192, 0, 2))
		return -1;
	return lying_finish(0, 896, 80);
}

/* A failing O_DIRECT read of len bytes at s with sd_done's logging on:
 * want errno want and `sd_done: completed good of len bytes`. */
static int expect_good_bytes(const char *name, uint64_t s, size_t len, int want, long good)
{
	char needle[64];
	long got_good = -1;
	size_t mark;
	int got;

	if (knob_write(SCSI_LOGGING, LOG_SD_DONE))
		return -1;
	mark = kmsg_mark();
	got = rd_open(ROLE_BBDISK, s * SECTOR, len);
	knob_write(SCSI_LOGGING, "0");
	kmsg_sync();
	snprintf(needle, sizeof(needle), "[%s]", dev_name(ROLE_BBDISK));
	for (size_t i = mark; i < kmsg_count() && got_good < 0; i++) {
		const char *l = kmsg_line(i), *p = strstr(l, "sd_done: completed ");
		long x, y;

		if (strstr(l, needle) && p &&
		    sscanf(p, "sd_done: completed %ld of %ld", &x, &y) == 2 && y == (long)len)
			got_good = x;
	}
	diag("%s: %s, sd_done counted %ld of %zu bytes good", name, what(got), got_good, len);
	if (got != -want || got_good != good)
		return fail("%s: %s with %ld of %zu bytes good, want %s with %ld", name,
			    what(got), got_good, len, strerror(want), good);
	return 0;
}

static int good_read_counts(uint64_t s)
{
	long long done0 = dev_counter(ROLE_BBDISK, "iodone_cnt"), err0 = dev_counter(ROLE_BBDISK, "ioerr_cnt");

	if (expect("a good read", s, 8192, 0, 1))
		return -1;
	diag("a good read: iodone_cnt +%lld, ioerr_cnt +%lld", dev_counter(ROLE_BBDISK, "iodone_cnt") - done0,
	     dev_counter(ROLE_BBDISK, "ioerr_cnt") - err0);
	if (done0 < 0 || dev_counter(ROLE_BBDISK, "iodone_cnt") - done0 != 1 || dev_counter(ROLE_BBDISK, "ioerr_cnt") != err0)
		return fail("a good read: iodone_cnt/ioerr_cnt grew by %lld/%lld, want 1/0",
			    dev_counter(ROLE_BBDISK, "iodone_cnt") - done0, dev_counter(ROLE_BBDISK, "ioerr_cnt") - err0);
	return 0;
}

/* /sys/block/<disk>/device/scsi_disk/<h:c:t:l>/allow_restart := v */
static int allow_restart(const char *v)
{
	char dir[128], path[400];
	struct dirent *e;
	DIR *d;
	int ret = -1;

	snprintf(dir, sizeof(dir), "/sys/block/%s/device/scsi_disk", dev_name(ROLE_BBDISK));
	d = opendir(dir);
	if (!d)
		return fail("%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL && ret < 0)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s/allow_restart", dir, e->d_name);
			ret = knob_write(path, v);
		}
	closedir(d);
	return ret;
}

/* RECOVERED ERROR 00/1d (ATA PASS-THROUGH INFORMATION AVAILABLE): a
 * success, and one the midlayer must not print */
static int recovered_quiet(uint64_t s)
{
	char sense[64], needle[32];
	const char *l;
	size_t mark;

	sense_q(sense, false, 1, 0, 0x1d, false, 0);
	if (rulef("lun=0 lba=%llu status=2 sense=%s copy=all resid=0",
		  (unsigned long long)s + 2, sense))
		return -1;
	kmsg_sync();
	mark = kmsg_mark();
	if (expect("RECOVERED ERROR 00/1d", s, 8192, 0, 1))
		return -1;
	kmsg_sync();
	snprintf(needle, sizeof(needle), "[%s]", dev_name(ROLE_BBDISK));
	for (size_t i = mark; i < kmsg_count(); i++) {
		l = kmsg_line(i);
		if (strstr(l, needle) && strstr(l, "Sense Key"))
			return fail("RECOVERED ERROR 00/1d printed its sense: %s", l);
	}
	return 0;
}

/* NOT READY 04/02 (needs START UNIT) on a disk that allows a restart:
 * the error handler sends START STOP UNIT, and the read goes again */
static int start_unit(uint64_t s)
{
	char sense[64];
	int ret;

	sense_q(sense, false, NOT_READY, 0x04, 0x02, false, 0);
	if (allow_restart("1") ||
	    rulef("lun=0 lba=%llu status=2 sense=%s copy=0 resid=rest",
		  (unsigned long long)s + 2, sense))
		return -1;
	ret = expect("NOT READY 04/02 with allow_restart", s, 8192, 0, 2);
	if (allow_restart("0"))
		return -1;
	return ret;
}

int t_lying_sense_actions(void)
{
	char s1[64], s2[64], s3[64];

	sense_q(s1, false, ILLEGAL_REQUEST, 0x21, 0, false, 0);
	sense_q(s2, false, NOT_READY, 0x04, 0x04, false, 0);
	sense_q(s3, true, UNIT_ATTENTION, 0x29, 0, false, 0);
	if (dev_require(ROLE_BBDISK) || bbtest_clear() ||
	    rulef("lun=0 lba=978 status=2 sense=%s copy=0 resid=rest", s1) ||
	    expect("ILLEGAL REQUEST, lba out of range", 976, 8192, EREMOTEIO, 1) ||
	    rulef("lun=0 lba=994 status=2 sense=%s copy=0 resid=rest", s2) ||
	    expect("NOT READY, format in progress, once", 992, 8192, 0, 2) ||
	    rulef("lun=0 lba=1010 status=2 sense=%s copy=0 resid=rest count=6", s3) ||
	    expect("deferred UNIT ATTENTION six times", 1008, 8192, EIO, 6) ||
	    good_read_counts(1024))
		return -1;
	/* MEDIUM ERROR naming the LBA just past a read of 1040..1055 */
	sense_q(s1, false, MEDIUM_ERROR, 0x11, 0, true, 1056);
	if (rulef("lun=0 lba=1042 status=2 sense=%s copy=0 resid=0", s1) ||
	    expect_good_bytes("INFORMATION one past the request", 1040, 8192, ENODATA, 0))
		return -1;
	/* a one-sector read failing: nothing of it is good */
	sense_q(s1, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	if (rulef("lun=0 lba=1056 status=2 sense=%s copy=0 resid=rest", s1) ||
	    expect_good_bytes("MEDIUM ERROR on one sector", 1056, SECTOR, ENODATA, 0))
		return -1;
	/* DIF with VALID INFORMATION 12 sectors in, those 12 sent */
	sense_q(s1, false, ABORTED_COMMAND, 0x10, 0x01, true, 1084);
	if (rulef("lun=0 lba=1084 status=2 sense=%s copy=upto resid=rest", s1) ||
	    expect_good_bytes("DIF with VALID INFORMATION", 1072, 8192, EILSEQ, 6144) ||
	    recovered_quiet(1104) || start_unit(1120))
		return -1;
	if (lying_finish(0, 1104, 32))
		return -1;
	return lying_finish(0, 976, 112);
}

/* UNIT ATTENTION 28/00 on the CD at 2K block b: the read fails and sr
 * refuses the disc until it is opened again. */
static int cd_changed(uint64_t b)
{
	int fd = io_open(ROLE_BBCD, O_RDONLY | O_DIRECT), got, seen, ret = -1;
	char sense[64];

	sense_q(sense, false, UNIT_ATTENTION, 0x28, 0, false, 0);
	if (fd < 0 || rulef("lun=1 lba=%llu status=2 sense=%s copy=0 resid=rest",
			    (unsigned long long)b + 1, sense))
		goto out;
	got = rd(fd, b * 2048, 8192);
	seen = commands(1, b, 4);
	diag("UNIT ATTENTION 28/00 on the CD: %s after %d command(s)", what(got), seen);
	if (got >= 0 || seen != 1) {
		fail("UNIT ATTENTION 28/00 on the CD: %s after %d commands, want an error after 1",
		     what(got), seen);
		goto out;
	}
	got = rd(fd, b * 2048, 8192);
	seen = commands(1, b, 4);
	diag("the same file again: %s, %d command(s) in all", what(got), seen);
	if (got >= 0 || seen != 1) {
		fail("after the media change the disc was read again without a new open (%s,"
		     " %d commands in all, want an error and none sent)", what(got), seen);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

int t_lying_unit_attention(void)
{
	char sense[64];
	int got, seen;

	sense_q(sense, false, UNIT_ATTENTION, 0x3f, 0x0e, false, 0);
	if (dev_require(ROLE_BBCD) || dev_require(ROLE_BBDISK) || bbtest_clear() ||
	    rulef("lun=1 lba=151 status=2 sense=%s copy=0 resid=rest", sense))
		return -1;
	got = rd_open(ROLE_BBCD, 150 * 2048, 8192);
	seen = commands(1, 150, 4);
	diag("UNIT ATTENTION 3f/0e on the CD: %s after %d command(s)", what(got), seen);
	if (got || seen != 2)
		return fail("UNIT ATTENTION 3f/0e on the CD: %s after %d commands, want the right"
			    " data after 2", what(got), seen);
	/* the target now expects 3f/0e from its other LUNs, under any key */
	sense_q(sense, false, NOT_READY, 0x3f, 0x0e, false, 0);
	if (rulef("lun=0 lba=1090 status=2 sense=%s copy=0 resid=rest", sense) ||
	    expect("NOT READY 3f/0e on the disk after it", 1088, 8192, 0, 2) ||
	    cd_changed(160))
		return -1;
	got = rd_open(ROLE_BBCD, 160 * 2048, 8192);
	seen = commands(1, 160, 4);
	diag("opened again: %s, %d command(s) in all", what(got), seen);
	if (got || seen != 2)
		return fail("opened again after the media change: %s, %d commands in all, want"
			    " the right data with a second command", what(got), seen);
	if (lying_finish(0, 1088, 16))
		return -1;
	return lying_finish(1, 150, 16);
}

/* The command of the log at disk lba with the given size: its opcode, or -1. */
static int opcode_at(uint64_t lba, uint64_t blocks, int nth)
{
	struct bbt_cmd log[64];
	int n = bbtest_log_read(log, 64);

	for (int i = 0; i < n; i++)
		if (log[i].lun == 0 && log[i].lba == lba && log[i].blocks == blocks && !nth--)
			return (int)log[i].opcode;
	return -1;
}

int t_lying_read6_fallback(void)
{
	char sense[64];
	int op;

	/* a disk without READ(10): sd switches to READ(6) for good (the
	 * suite turns use_10_for_rw back on after the test: bbstate.c) */
	sense_q(sense, false, ILLEGAL_REQUEST, 0x20, 0, false, 0);
	if (dev_require(ROLE_BBDISK) || bbtest_clear() ||
	    rulef("lun=0 lba=1138 status=2 sense=%s copy=0 resid=rest", sense) ||
	    expect("READ(10) refused (ILLEGAL REQUEST 20/00)", 1136, 8192, 0, 2))
		return -1;
	diag("the two commands: 0x%02x, then 0x%02x", opcode_at(1136, 16, 0), opcode_at(1136, 16, 1));
	if (opcode_at(1136, 16, 0) != 0x28 || opcode_at(1136, 16, 1) != 0x08)
		return fail("the refused READ(10) was not sent again as READ(6)");
	/* 255 blocks is the most READ(6) takes (0 would mean 256) */
	if (direct_expect_good(ROLE_BBDISK, 1280, 255 * SECTOR))
		return -1;
	op = opcode_at(1280, 255, 0);
	diag("a 255-block read: opcode 0x%02x", op);
	if (op != 0x08)
		return fail("a 255-block read went out as %s, want one READ(6) (0x08)",
			    op < 0 ? "no single command" : op == 0x28 ? "READ(10)" : "another opcode");
	return lying_finish(0, 1136, 16);
}
