/*
 * t_lying_ioctl.c: what user space sees on the paths it drives besides
 * read(2) (issue 24): SG_IO's whole header, the CD's ioctls and media
 * events, the error handler's own TEST UNIT READY, the delayed requeue.
 * All on scsi_bbtest; each case counts the commands the device saw.
 *
 *   lying-device-sgio-status   SG_IO READ(10) answered GOOD with a residual:
 *                              status, masked_status, host, driver 0, no
 *                              SG_INFO_CHECK, resid as sent, the data sent is
 *                              right; CHECK CONDITION with 18 bytes of sense
 *                              and mx_sb_len 8: masked_status 1, driver_status
 *                              DRIVER_SENSE, sb_len_wr 8; RESERVATION CONFLICT:
 *                              masked_status 0x0c, no sense; DID_SOFT_ERROR:
 *                              host_status 0x0b after one command (SG_IO is
 *                              never retried)
 *   lying-device-cd-ioctls     CDROMREADTOCHDR (sr_do_ioctl, READ TOC): right
 *                              header; a residual zeroes the bytes past it
 *                              (__scsi_execute); errnos: ILLEGAL REQUEST 20/00
 *                              EOPNOTSUPP, 24/00 EIO, NOT READY 3a ENOMEDIUM,
 *                              MEDIUM ERROR EIO, one command each; UNIT
 *                              ATTENTION once: retried, and CDROM_MEDIA_CHANGED
 *                              says 1 once; eleven times: ENOMEDIUM after 11;
 *                              NOT READY 04/01 once: retried after 2 s;
 *                              none of it printed (the command is quiet)
 *   lying-device-cd-events     CDROM_DRIVE_STATUS per TEST UNIT READY answer
 *                              (sr_drive_status); CDROM_MEDIA_CHANGED when the
 *                              TEST UNIT READY of sr_check_events says the
 *                              medium went (3a) and came back, not for 04/04;
 *                              a GET EVENT STATUS answered UNIT ATTENTION
 *   lying-device-eh-tur        a read the LLD failed with DID_TIME_OUT: the
 *                              error handler's TEST UNIT READY answered BUSY
 *                              (sent again), RESERVATION CONFLICT (a success)
 *                              or CHECK CONDITION without sense (a failure: a
 *                              reset, then another): the read is right after 2
 *   lying-device-delayed-requeue  NOT READY 04/0a (ALUA transition) once: the
 *                              read is sent again after 1 s (requeued with a
 *                              delay), right; a UNIT ATTENTION first takes
 *                              a reset's expected one
 *   lying-device-send-command  SCSI_IOCTL_SEND_COMMAND (sg_scsi_ioctl): INQUIRY
 *                              and READ(10) hand back their data and 0; CHECK
 *                              CONDITION: 2 and the first 16 bytes of sense;
 *                              DID_SOFT_ERROR twice: retried (5 allowed), right
 *                              after 3; READ DEFECT DATA with DID_SOFT_ERROR
 *                              twice: 2 commands (1 allowed)
 *
 * Disk sectors 1216..1279, 1648..1655, 1792..1823, 1984..2031 and 1264..1279 (send-command); the CD gets no READ
 * or WRITE.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/cdrom.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define NOT_READY	2
#define MEDIUM_ERROR	3
#define ILLEGAL_REQUEST	5
#define UNIT_ATTENTION	6
#define OP_TUR		0x00
#define OP_READ_TOC	0x43
#define OP_GET_EVENT	0x4a
#define DID_TIME_OUT	3
#define DID_SOFT_ERROR	0x0b

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- lying-device-sgio-status ------------------------------------------ */

/* SG_IO READ(10) of 16 blocks at disk sector s, mx_sb_len sense bytes. */
static int sgio_rd(uint64_t s, unsigned char *buf, int mx, struct sgio_result *res)
{
	unsigned char rd10[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, 16, 0 };
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret;

	if (fd < 0)
		return -1;
	for (int i = 0; i < 4; i++)
		rd10[2 + i] = (unsigned char)(s >> (24 - 8 * i));
	ret = sgio_mx(fd, rd10, 10, buf, 8192, mx, res);
	close(fd);
	return ret;
}

struct sg_want {
	const char *name;
	int status, masked, host, driver;
	unsigned int info;
	int resid, sb_len, commands;
};

static int sg_expect(uint64_t s, const struct sg_want *w, const struct sgio_result *r)
{
	int oob, seen = bbtest_log_count(0, s, 16, &oob);

	diag("SG_IO %s: status 0x%02x masked 0x%02x host 0x%02x driver 0x%02x info %u"
	     " resid %d sb_len_wr %d, %d command(s)", w->name, r->status, r->masked_status,
	     r->host_status, r->driver_status, r->info, r->resid, r->sense_len, seen);
	if (r->status != w->status || r->masked_status != w->masked ||
	    r->host_status != w->host || r->driver_status != w->driver ||
	    r->info != w->info || r->resid != w->resid ||
	    r->sense_len != w->sb_len || seen != w->commands)
		return fail("SG_IO %s: status 0x%02x masked 0x%02x host 0x%02x driver 0x%02x"
			    " info %u resid %d sb_len_wr %d after %d commands; want 0x%02x 0x%02x"
			    " 0x%02x 0x%02x %u %d %d after %d", w->name, r->status,
			    r->masked_status, r->host_status, r->driver_status, r->info, r->resid,
			    r->sense_len, seen, w->status, w->masked, w->host, w->driver, w->info,
			    w->resid, w->sb_len, w->commands);
	return 0;
}

/* One scripted SG_IO case at s: the rule, the read, the header. */
static int sg_case(uint64_t s, const char *rule, int mx, const struct sg_want *w,
		   unsigned char *buf)
{
	struct sgio_result r;

	if (rulef("lun=0 lba=%llu %s", (unsigned long long)s + 2, rule) ||
	    sgio_rd(s, buf, mx, &r))
		return -1;
	return sg_expect(s, w, &r);
}

int t_lying_sgio_status(void)
{
	static const struct sg_want good = { "GOOD with resid 4096", 0, 0, 0, 0, 0, 4096, 0, 1 };
	static const struct sg_want cc = { "CHECK CONDITION, mx_sb_len 8", 2, 1, 0, 0x08,
					   SG_INFO_CHECK, 8192, 8, 1 };
	static const struct sg_want rc = { "RESERVATION CONFLICT", 0x18, 0x0c, 0, 0,
					   SG_INFO_CHECK, 8192, 0, 1 };
	static const struct sg_want soft = { "DID_SOFT_ERROR", 0, 0, DID_SOFT_ERROR, 0,
					     SG_INFO_CHECK, 8192, 0, 1 };
	unsigned char *buf = io_buf(8192);
	char sense[64], rule[160];
	int ret = -1;

	if (dev_require(ROLE_BBDISK) || bbtest_clear())
		goto out;
	memset(buf, 0, 8192);
	if (sg_case(1216, "copy=4096 resid=4096", 32, &good, buf) ||
	    pat_expect(buf, 4096, 1216 * SECTOR, 0, "the 4096 bytes SG_IO got"))
		goto out;
	sense_q(sense, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	snprintf(rule, sizeof(rule), "status=2 sense=%s copy=0 resid=rest", sense);
	if (sg_case(1232, rule, 8, &cc, buf) ||
	    sg_case(1248, "status=0x18 copy=0 resid=rest", 32, &rc, buf) ||
	    sg_case(1264, "host=11 copy=0 resid=rest", 32, &soft, buf))
		goto out;
	ret = lying_finish(0, 1216, 64);
out:
	free(buf);
	return ret;
}

/* --- lying-device-cd-ioctls -------------------------------------------- */

/* An ioctl on the CD, opened O_NONBLOCK (no medium check), with rule
 * (NULL: none) added after the open, whose own event check would take
 * it: 0 or -errno; the seconds it took in *secs, and the commands of
 * opcode op it sent in *n (when not NULL). */
static int cd_ioctl_n(unsigned long req, void *arg, const char *rule, double *secs,
		      unsigned int op, int *n)
{
	int fd = io_open(ROLE_BBCD, O_RDONLY | O_NONBLOCK), ret;
	double t0;

	if (fd < 0)
		return -EBADF;
	if (bbtest_opcodes_clear() || (rule && rulef("lun=1 %s", rule))) {
		close(fd);
		return -EBADF;
	}
	t0 = now();
	ret = ioctl(fd, req, arg);
	ret = ret < 0 ? -errno : ret;
	if (secs)
		*secs = now() - t0;
	if (n)
		*n = bbtest_opcount(1, op);
	close(fd);
	return ret;
}

/* CDROM_MEDIA_CHANGED, rule added after the open: 0, 1, or -errno. */
static int media_changed_rule(const char *rule)
{
	return cd_ioctl_n(CDROM_MEDIA_CHANGED, (void *)(long)CDSL_CURRENT, rule, NULL, 0, NULL);
}

static int media_changed(void)
{
	return media_changed_rule(NULL);
}

/* Drain the media-change flag of earlier tests: it must settle to 0. */
static int media_settle(void)
{
	for (int i = 0; i < 4; i++)
		if (media_changed() == 0)
			return 0;
	return fail("CDROM_MEDIA_CHANGED never says 0");
}

/* CDROM_MEDIA_CHANGED (its event check meeting rule, NULL: none) must say
 * want, then want2 (the flag is read once: 0 unless the medium moved). */
static int media_expect_rule(const char *when, const char *rule, int want, int want2)
{
	int got = media_changed_rule(rule), again = media_changed();

	diag("%s: CDROM_MEDIA_CHANGED %d, then %d", when, got, again);
	if (got != want || again != want2)
		return fail("%s: CDROM_MEDIA_CHANGED %d then %d, want %d then %d", when, got,
			    again, want, want2);
	return 0;
}

static int media_expect(const char *when, int want)
{
	return media_expect_rule(when, NULL, want, 0);
}

/* CDROMREADTOCHDR with the READ TOC rule rule (NULL: none): want errno
 * want (0: the header, tracks trk0..trk1) after n READ TOC commands. */
static int toc_expect(const char *name, const char *rule, int want, int trk0, int trk1,
		      int n, double *secs)
{
	struct cdrom_tochdr h = { 0xff, 0xff };
	char full[200];
	int got, seen = -1;

	const char *said;
	size_t mark;

	snprintf(full, sizeof(full), "op=0x%02x %s", OP_READ_TOC, rule ? rule : "");
	kmsg_sync();
	mark = kmsg_mark();
	got = cd_ioctl_n(CDROMREADTOCHDR, &h, rule ? full : NULL, secs, OP_READ_TOC, &seen);
	if (got == -EBADF)
		return -1;
	kmsg_sync();
	/* sr_read_tochdr asks sr_do_ioctl to be quiet */
	said = kmsg_find(mark, "disc change detected");
	if (!said)
		said = kmsg_find(mark, "CDROM not ready");
	if (said)
		return fail("CDROMREADTOCHDR, %s: a quiet command printed: %s", name, said);
	diag("CDROMREADTOCHDR, %s: %s, tracks %d..%d, %d READ TOC", name,
	     got ? strerror(-got) : "success", h.cdth_trk0, h.cdth_trk1, seen);
	if (got != -want || seen != n || (!want && (h.cdth_trk0 != trk0 || h.cdth_trk1 != trk1)))
		return fail("CDROMREADTOCHDR, %s: %s (tracks %d..%d) after %d READ TOC; want %s"
			    " (tracks %d..%d) after %d", name, got ? strerror(-got) : "success",
			    h.cdth_trk0, h.cdth_trk1, seen, want ? strerror(want) : "success",
			    trk0, trk1, n);
	return 0;
}

static int toc_sense(const char *name, uint8_t key, uint8_t asc, uint8_t ascq, int count,
		     int want, int n, double *secs)
{
	char sense[64], rule[160];

	sense_q(sense, false, key, asc, ascq, false, 0);
	snprintf(rule, sizeof(rule), "status=2 sense=%s count=%d", sense, count);
	return toc_expect(name, rule, want, 1, 1, n, secs);
}

static int cd_ioctl_cases(void)
{
	double secs;

	/* 12 bytes asked: a residual of 9 leaves bytes 0..2, so the first
	 * track survives and the last is zeroed; 12: nothing is left */
	if (toc_expect("unscripted", NULL, 0, 1, 1, 1, NULL) ||
	    toc_expect("GOOD with resid 9", "reply=1 resid=9", 0, 1, 0, 1, NULL) ||
	    toc_expect("GOOD with resid 12", "reply=1 resid=12", 0, 0, 0, 1, NULL) ||
	    toc_sense("ILLEGAL REQUEST 20/00", ILLEGAL_REQUEST, 0x20, 0, 1, EOPNOTSUPP, 1, NULL) ||
	    toc_sense("ILLEGAL REQUEST 24/00", ILLEGAL_REQUEST, 0x24, 0, 1, EIO, 1, NULL) ||
	    toc_sense("NOT READY 3a/00", NOT_READY, 0x3a, 0, 1, ENOMEDIUM, 1, NULL) ||
	    toc_sense("MEDIUM ERROR 11/00", MEDIUM_ERROR, 0x11, 0, 1, EIO, 1, NULL) ||
	    media_settle() ||
	    toc_sense("UNIT ATTENTION 28/00 once", UNIT_ATTENTION, 0x28, 0, 1, 0, 2, NULL) ||
	    media_expect("after a UNIT ATTENTION on READ TOC", 1) ||
	    toc_sense("UNIT ATTENTION 28/00 eleven times", UNIT_ATTENTION, 0x28, 0, 11,
		      ENOMEDIUM, 11, NULL) ||
	    media_settle() ||
	    toc_sense("NOT READY 04/01 once", NOT_READY, 0x04, 0x01, 1, 0, 2, &secs))
		return -1;
	diag("NOT READY 04/01 once: %.2f s", secs);
	if (secs < 1.9 || secs > 15)
		return fail("NOT READY 04/01 once: the ioctl took %.2f s, want sr_do_ioctl's 2 s"
			    " wait (1.9 to 15 s)", secs);
	return 0;
}

int t_lying_cd_ioctls(void)
{
	int ret;

	if (dev_require(ROLE_BBCD) || bbtest_clear() || bbtest_param("cd_leadout", BBCD_BLOCKS))
		return -1;
	ret = cd_ioctl_cases();
	if (bbtest_param("cd_leadout", 0) || media_settle() || ret)
		return -1;
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}

/* --- lying-device-cd-events -------------------------------------------- */

static const char *const cds_name[] = { "CDS_NO_INFO", "CDS_NO_DISC", "CDS_TRAY_OPEN",
					"CDS_DRIVE_NOT_READY", "CDS_DISC_OK" };

static const char *cds(int v)
{
	return v >= 0 && v <= 4 ? cds_name[v] : v < 0 ? strerror(-v) : "?";
}

/* CDROM_DRIVE_STATUS with TEST UNIT READY answered NOT READY asc/ascq
 * (asc 0: unscripted): want status want after n TEST UNIT READY. */
static int drive_status(uint8_t key, uint8_t asc, uint8_t ascq, int want, int n)
{
	char sense[64], rule[160];
	int got, seen = -1;

	sense_q(sense, false, key, asc, ascq, false, 0);
	snprintf(rule, sizeof(rule), "op=0x%02x status=2 sense=%s", OP_TUR, sense);
	got = cd_ioctl_n(CDROM_DRIVE_STATUS, (void *)(long)CDSL_CURRENT, asc ? rule : NULL, NULL,
			 OP_TUR, &seen);
	if (got == -EBADF)
		return -1;
	diag("CDROM_DRIVE_STATUS, TEST UNIT READY %x/%02x/%02x: %s after %d", key, asc, ascq,
	     cds(got), seen);
	if (got != want || seen != n)
		return fail("CDROM_DRIVE_STATUS, TEST UNIT READY %x/%02x/%02x: %s after %d, want"
			    " %s after %d", key, asc, ascq, cds(got), seen, cds(want), n);
	return 0;
}

/* CDROM_MEDIA_CHANGED after the TEST UNIT READY of sr_check_events (or
 * the GET EVENT STATUS before it) got sense key/asc/ascq. */
static int events_after(const char *when, unsigned int op, uint8_t key, uint8_t asc,
			uint8_t ascq, int want, int want2)
{
	char sense[64], rule[160];

	sense_q(sense, false, key, asc, ascq, false, 0);
	snprintf(rule, sizeof(rule), "op=0x%02x status=2 sense=%s", op, sense);
	return media_expect_rule(when, rule, want, want2);
}

int t_lying_cd_events(void)
{
	if (dev_require(ROLE_BBCD) || bbtest_clear() ||
	    drive_status(0, 0, 0, CDS_DISC_OK, 1) ||
	    drive_status(NOT_READY, 0x04, 0x01, CDS_DRIVE_NOT_READY, 1) ||
	    drive_status(NOT_READY, 0x3a, 0x00, CDS_NO_DISC, 1) ||
	    drive_status(NOT_READY, 0x04, 0x02, CDS_TRAY_OPEN, 1) ||
	    drive_status(NOT_READY, 0x04, 0x04, CDS_DISC_OK, 1) ||
	    drive_status(NOT_READY, 0x05, 0x00, CDS_TRAY_OPEN, 1) ||
	    media_settle() ||
	    /* scsi_test_unit_ready sends it again and marks the disc changed */
	    drive_status(UNIT_ATTENTION, 0x28, 0x00, CDS_DISC_OK, 2) ||
	    media_expect("after CDROM_DRIVE_STATUS met a UNIT ATTENTION", 1) ||
	    events_after("TEST UNIT READY: NOT READY 04/04 (still there)", OP_TUR, NOT_READY,
			 0x04, 0x04, 0, 0) ||
	    /* gone, then back at the next check (whose TEST UNIT READY is good) */
	    events_after("TEST UNIT READY: NOT READY 3a/00 (no medium)", OP_TUR, NOT_READY, 0x3a,
			 0x00, 1, 1) ||
	    media_expect("then", 0) ||
	    events_after("GET EVENT STATUS: UNIT ATTENTION 28/00", OP_GET_EVENT, UNIT_ATTENTION,
			 0x28, 0x00, 1, 0) ||
	    media_settle())
		return -1;
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}

/* --- lying-device-eh-tur ----------------------------------------------- */

/* A read at disk sector s failed once with DID_TIME_OUT, the error
 * handler's TEST UNIT READY answered by tur (empty: unscripted): the read
 * is right after 2 commands, and n TEST UNIT READY were sent. */
static int eh_tur(const char *name, uint64_t s, const char *tur, int n)
{
	int seen;

	if (bbtest_opcodes_clear() ||
	    rulef("lun=0 lba=%llu host=%d copy=0 resid=rest", (unsigned long long)s + 2,
		  DID_TIME_OUT) ||
	    (*tur && rulef("lun=0 op=0x%02x %s", OP_TUR, tur)) ||
	    expect_right(name, ROLE_BBDISK, s * SECTOR, 8192, 0, s, 16, 2))
		return -1;
	seen = bbtest_opcount(0, OP_TUR);
	diag("%s: %d TEST UNIT READY", name, seen);
	if (seen != n)
		return fail("%s: the error handler sent %d TEST UNIT READY, want %d", name, seen, n);
	return 0;
}

int t_lying_eh_tur(void)
{
	if (dev_require(ROLE_BBDISK) || bbtest_clear() ||
	    eh_tur("TEST UNIT READY unscripted", 1984, "", 1) ||
	    eh_tur("TEST UNIT READY BUSY once", 2000, "status=8", 2) ||
	    eh_tur("TEST UNIT READY RESERVATION CONFLICT", 2016, "status=0x18", 1) ||
	    eh_tur("TEST UNIT READY CHECK CONDITION without sense", 1792, "status=2", 2) ||
	    lying_finish(0, 1792, 16))
		return -1;
	return lying_finish(0, 1984, 48);
}

/* --- lying-device-delayed-requeue -------------------------------------- */

/* NOT READY 04/0a (ALUA state transition) is requeued (ACTION_DELAYED_REPREP,
 * scsi_mq_requeue_cmd with 1000 ms): sent again after that second, and
 * right.  A device reset leaves the disk expecting a UNIT ATTENTION
 * (expecting_cc_ua), and the next NOT READY or UNIT ATTENTION is then
 * retried at once instead (scsi_check_sense): the suite clears it after
 * the test that reset (bbstate.c), and a read answered UNIT ATTENTION 29/00
 * once comes first all the same (with a reset pending it takes that; with
 * none it is retried as a power glitch): right after 2 either way. */
int t_lying_delayed_requeue(void)
{
	char sense[64];
	double t0, secs;

	sense_q(sense, false, UNIT_ATTENTION, 0x29, 0x00, false, 0);
	if (dev_require(ROLE_BBDISK) || bbtest_clear() ||
	    rulef("lun=0 lba=1650 status=2 sense=%s copy=0 resid=rest", sense) ||
	    expect_right("UNIT ATTENTION 29/00 once", ROLE_BBDISK, 1648 * SECTOR, 4096, 0, 1648,
			 8, 2))
		return -1;
	sense_q(sense, false, NOT_READY, 0x04, 0x0a, false, 0);
	if (rulef("lun=0 lba=1810 status=2 sense=%s copy=0 resid=rest", sense))
		return -1;
	t0 = now();
	if (expect_right("NOT READY 04/0a (ALUA transition) once", ROLE_BBDISK, 1808 * SECTOR,
			 8192, 0, 1808, 16, 2))
		return -1;
	secs = now() - t0;
	diag("NOT READY 04/0a once: right after %.2f s", secs);
	if (secs < 0.95 || secs > 15)
		return fail("NOT READY 04/0a once: right after %.2f s, want the 1 s requeue delay"
			    " (0.95 to 15 s)", secs);
	return lying_finish(0, 1808, 16);
}

/* --- lying-device-send-command ----------------------------------------- */

#define SCSI_IOCTL_SEND_COMMAND	1
#define OP_READ_DEFECT_DATA	0x37

struct send_cmd {
	unsigned int inlen, outlen;
	unsigned char data[1024];
};

/* SCSI_IOCTL_SEND_COMMAND of cdb (len bytes) asking outlen bytes: its
 * return value (the status byte, or -errno); the data or sense in sc. */
static int send_cmd(const unsigned char *cdb, size_t len, unsigned int outlen,
		    struct send_cmd *sc)
{
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret;

	if (fd < 0)
		return -EBADF;
	memset(sc, 0, sizeof(*sc));
	sc->outlen = outlen;
	memcpy(sc->data, cdb, len);
	ret = ioctl(fd, SCSI_IOCTL_SEND_COMMAND, sc);
	ret = ret < 0 ? -errno : ret;
	close(fd);
	return ret;
}

static int send_read(const char *name, uint64_t s, const char *rule, int want, int n)
{
	unsigned char rd10[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	struct send_cmd sc;
	int got, seen;

	for (int i = 0; i < 4; i++)
		rd10[2 + i] = (unsigned char)(s >> (24 - 8 * i));
	if (rule && rulef("lun=0 lba=%llu %s", (unsigned long long)s, rule))
		return -1;
	got = send_cmd(rd10, sizeof(rd10), SECTOR, &sc);
	seen = bbtest_log_count(0, s, 1, &(int){ 0 });
	diag("SCSI_IOCTL_SEND_COMMAND READ(10), %s: %d after %d command(s), sense key %x asc"
	     " %02x", name, got, seen, sc.data[2] & 0xf, sc.data[12]);
	if (got != want || seen != n)
		return fail("SCSI_IOCTL_SEND_COMMAND READ(10), %s: %d after %d commands, want %d"
			    " after %d", name, got, seen, want, n);
	if (!want)
		return pat_expect(sc.data, SECTOR, s * SECTOR, 0, "SCSI_IOCTL_SEND_COMMAND data");
	if (sc.data[2] != MEDIUM_ERROR || sc.data[12] != 0x11 || sc.data[16])
		return fail("SCSI_IOCTL_SEND_COMMAND READ(10), %s: the sense handed back is not"
			    " the first 16 bytes of the device's (key %x asc %02x, byte 16 %02x)",
			    name, sc.data[2], sc.data[12], sc.data[16]);
	return 0;
}

int t_lying_send_command(void)
{
	static const unsigned char inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	static const unsigned char rdd[10] = { OP_READ_DEFECT_DATA, 0, 0x08, 0, 0, 0, 0, 0, 4, 0 };
	struct send_cmd sc;
	char sense[64], rule[160];
	int got, seen;

	if (dev_require(ROLE_BBDISK) || bbtest_clear())
		return -1;
	got = send_cmd(inq, sizeof(inq), 36, &sc);
	diag("SCSI_IOCTL_SEND_COMMAND INQUIRY: %d, '%.8s'", got, (char *)&sc.data[8]);
	if (got || sc.data[0] != 0 || memcmp(&sc.data[8], "BBTEST  ", 8))
		return fail("SCSI_IOCTL_SEND_COMMAND INQUIRY: %d, '%.8s', want 0 and BBTEST", got,
			    (char *)&sc.data[8]);
	sense_q(sense, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	/* a sense longer than 16 bytes: only 16 come back */
	snprintf(rule, sizeof(rule), "status=2 sense=%sffff copy=0 resid=rest", sense);
	if (send_read("unscripted", 1264, NULL, 0, 1) ||
	    send_read("CHECK CONDITION", 1266, rule, 2, 1) ||
	    send_read("DID_SOFT_ERROR twice", 1268, "host=11 count=2 copy=0 resid=rest", 0, 3))
		return -1;
	if (bbtest_opcodes_clear() || rulef("lun=0 op=0x%02x host=11 count=2", OP_READ_DEFECT_DATA))
		return -1;
	got = send_cmd(rdd, sizeof(rdd), 4, &sc);
	seen = bbtest_opcount(0, OP_READ_DEFECT_DATA);
	diag("SCSI_IOCTL_SEND_COMMAND READ DEFECT DATA, DID_SOFT_ERROR twice: %d after %d"
	     " command(s)", got, seen);
	if (seen != 2)
		return fail("SCSI_IOCTL_SEND_COMMAND READ DEFECT DATA with DID_SOFT_ERROR twice: %d"
			    " commands, want 2 (it is allowed one retry)", seen);
	return lying_finish(0, 1264, 16);
}
