/*
 * t_lying_cd_media.c: sr's media events and revalidation as user space
 * sees them (issue 24), on the scsi_bbtest CD answering GET EVENT STATUS
 * NOTIFICATION (cd_gesn, cd_event, cd_media) and describing a second
 * session (cd_ms_offset).  Each case counts the commands the CD got.
 *
 *   lying-device-cd-gesn       CDROM_MEDIA_CHANGED per media event of the
 *                              GET EVENT STATUS answer: 1 for new media (2)
 *                              and media removal (3), 0 for none (0), an
 *                              eject request (1) and a code sr does not
 *                              know (4), one GET EVENT STATUS each (the
 *                              device refuses a CDB that is not polled,
 *                              media class, allocation length 8);
 *                              CDROM_DRIVE_STATUS with TEST UNIT READY
 *                              failing reads the answer's media status:
 *                              present DISC_OK, door open TRAY_OPEN,
 *                              neither NO_DISC
 *   lying-device-cd-poll       a check of the block layer's own (a write to
 *                              events_poll_msecs) sends GET EVENT STATUS
 *                              and no TEST UNIT READY; new media it saw
 *                              makes the next open revalidate the disc
 *   lying-device-cd-mismatch   GET EVENT STATUS reporting new media that
 *                              TEST UNIT READY does not see: the tenth time
 *                              in a row, not the ninth, sr says they
 *                              disagree and ignores GET EVENT from then on;
 *                              a check whose TEST UNIT READY saw the change
 *                              too (a UNIT ATTENTION to it, or one the
 *                              midlayer saw before) does not count.  The CD is
 *                              removed and scanned again afterwards (the
 *                              only way back to trusting GET EVENT).
 *   lying-device-cd-revalidate an open after a media change whose TEST UNIT
 *                              READY says no medium: no READ CAPACITY, the
 *                              size stays; with a second session at block
 *                              300 the revalidation reads it: CDROMMULTISESSION
 *                              says 300 (xa 1), and 0 again after a change
 *                              back to one session
 *   lying-device-cd-read-mode1 CDROMREADMODE1: READ CD refused (20/00), the
 *                              sense reaches cdrom.c, which reads with
 *                              READ(10): right data; a UNIT ATTENTION on the
 *                              READ CD (a command that is not quiet) prints
 *                              "disc change detected" and is sent again
 *   lying-device-cd-offline    CDROMREADTOCHDR whose READ TOC is answered
 *                              UNIT ATTENTION by a CD that then drops off
 *                              (offline=1): sr_do_ioctl's second try finds
 *                              it offline: ENODEV after one READ TOC;
 *                              device/state running: the header again
 *
 * The CD gets READ(10) of block 5 only.  Each test puts the parameters
 * back and leaves no media change pending.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/cdrom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define NOT_READY	2
#define UNIT_ATTENTION	6
#define OP_TUR		0x00
#define OP_READ_10	0x28
#define OP_READ_CAPACITY 0x25
#define OP_READ_TOC	0x43
#define OP_GET_EVENT	0x4a
#define OP_READ_CD	0xbe
#define MEDIA_PRESENT	2
#define DOOR_OPEN	1

static int cd_open(void)
{
	return io_open(ROLE_BBCD, O_RDONLY | O_NONBLOCK);
}

/* An open and close of the CD: its event check, and the revalidation of
 * a change it finds, are done.  0 or fail(). */
static int cd_touch(void)
{
	int fd = cd_open();

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Open and close until an open finds no change (CDROM_MEDIA_CHANGED 0). */
static int cd_settle(void)
{
	for (int i = 0; i < 4; i++) {
		int fd = cd_open(), got;

		if (fd < 0)
			return -1;
		got = ioctl(fd, CDROM_MEDIA_CHANGED, CDSL_CURRENT);
		close(fd);
		if (got == 0)
			return 0;
	}
	return fail("CDROM_MEDIA_CHANGED never says 0");
}

/* The parameters as the boot left them; the first failure is kept. */
static int cd_params_back(void)
{
	int ret = 0;

	ret |= bbtest_param("cd_gesn", 0);
	ret |= bbtest_param("cd_event", 0);
	ret |= bbtest_param("cd_media", MEDIA_PRESENT);
	ret |= bbtest_param("cd_ms_offset", 0);
	ret |= bbtest_param("cd_leadout", 0);
	ret |= bbtest_param("cd_rc_blocks", 0);
	return ret ? -1 : 0;
}

static int cd_finish(int ret)
{
	if (bbtest_clear() || cd_params_back() || cd_settle() || ret)
		return -1;
	return 0;
}

/* --- lying-device-cd-gesn ---------------------------------------------- */

/* CDROM_MEDIA_CHANGED on fd with media event code ev in the next GET
 * EVENT STATUS answer: want, after one GET EVENT STATUS. */
static int gesn_case(int fd, const char *name, unsigned int ev, int want)
{
	int got, n;

	if (bbtest_opcodes_clear() || bbtest_param("cd_event", ev))
		return -1;
	got = ioctl(fd, CDROM_MEDIA_CHANGED, CDSL_CURRENT);
	got = got < 0 ? -errno : got;
	n = bbtest_opcount(1, OP_GET_EVENT);
	diag("media event %u (%s): CDROM_MEDIA_CHANGED %d after %d GET EVENT STATUS", ev,
	     name, got, n);
	if (got != want || n != 1)
		return fail("media event %u (%s): CDROM_MEDIA_CHANGED %d after %d GET EVENT"
			    " STATUS, want %d after 1 (new media and media removal are"
			    " changes, nothing else; a GET EVENT STATUS refused reports none)", ev, name, got, n, want);
	return 0;
}

static const char *const cds_name[] = { "CDS_NO_INFO", "CDS_NO_DISC", "CDS_TRAY_OPEN",
					"CDS_DRIVE_NOT_READY", "CDS_DISC_OK" };

static const char *cds(int v)
{
	return v >= 0 && v <= 4 ? cds_name[v] : v < 0 ? strerror(-v) : "?";
}

/* CDROM_DRIVE_STATUS with TEST UNIT READY answered NOT READY asc/ascq and
 * GET EVENT STATUS saying media status media: want, one of each sent. */
static int gesn_status(int fd, uint8_t asc, uint8_t ascq, unsigned int media, int want)
{
	char sense[64];
	int got, tur, ev;

	sense_q(sense, false, NOT_READY, asc, ascq, false, 0);
	if (bbtest_opcodes_clear() || bbtest_param("cd_media", media) ||
	    rulef("lun=1 op=0x%02x status=2 sense=%s", OP_TUR, sense))
		return -1;
	got = ioctl(fd, CDROM_DRIVE_STATUS, CDSL_CURRENT);
	got = got < 0 ? -errno : got;
	tur = bbtest_opcount(1, OP_TUR);
	ev = bbtest_opcount(1, OP_GET_EVENT);
	diag("CDROM_DRIVE_STATUS, TEST UNIT READY 2/%02x/%02x, media status %u: %s after %d"
	     " TEST UNIT READY, %d GET EVENT STATUS", asc, ascq, media, cds(got), tur, ev);
	if (got != want || tur != 1 || ev != 1)
		return fail("CDROM_DRIVE_STATUS, TEST UNIT READY 2/%02x/%02x, media status %u: %s"
			    " after %d TEST UNIT READY and %d GET EVENT STATUS, want %s after 1"
			    " and 1", asc, ascq, media, cds(got), tur, ev, cds(want));
	return 0;
}

static int gesn_cases(int fd)
{
	return gesn_case(fd, "no change", 0, 0) ||
	       gesn_case(fd, "new media", 2, 1) ||
	       gesn_case(fd, "then none", 0, 0) ||
	       gesn_case(fd, "media removal", 3, 1) ||
	       gesn_case(fd, "eject request", 1, 0) ||
	       gesn_case(fd, "code 4, unknown to sr", 4, 0) ||
	       gesn_status(fd, 0x3a, 0, 0, CDS_NO_DISC) ||
	       gesn_status(fd, 0x3a, 0, DOOR_OPEN, CDS_TRAY_OPEN) ||
	       gesn_status(fd, 0x3a, 0, MEDIA_PRESENT, CDS_DISC_OK) ||
	       /* the answer, not the sense's "initialization required" */
	       gesn_status(fd, 0x04, 0x02, 0, CDS_NO_DISC) ? -1 : 0;
}

int t_lying_cd_gesn(void)
{
	int fd, ret;

	if (dev_require(ROLE_BBCD) || bbtest_clear() || cd_settle() ||
	    bbtest_param("cd_gesn", 1))
		return cd_finish(-1);
	fd = cd_open();
	if (fd < 0)
		return cd_finish(-1);
	ret = gesn_cases(fd);
	close(fd);
	if (!ret && bbtest_pending())
		ret = fail("a scripted completion was never used");
	return cd_finish(ret);
}

/* --- lying-device-cd-poll ---------------------------------------------- */

static char poll_path[PATH_MAX];

/* Wait (at most 2 s) until the CD got n GET EVENT STATUS: 0 or fail(). */
static int gesn_wait(int n)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	for (int i = 0; i < 400; i++) {
		if (bbtest_opcount(1, OP_GET_EVENT) >= n)
			return 0;
		nanosleep(&ts, NULL);
	}
	return fail("no event check within 2 s of the write to events_poll_msecs");
}

/* A block-layer check (events_poll_msecs written: one check at once, not
 * clearing anything) with media event ev, then an open: n TEST UNIT READY
 * and rc READ CAPACITY in all (the open's check sends one TEST UNIT READY,
 * its revalidation one and a READ CAPACITY).  Counted with the CD open:
 * every close queues a check of its own (blkdev_put's disk_flush_events),
 * which an open cancels or waits for. */
static int poll_case(const char *name, unsigned int ev, int n, int rc)
{
	int hold = cd_open(), fd = -1, tur, cap, gesn, ret = -1;

	if (hold < 0)
		return -1;
	if (bbtest_opcodes_clear() || bbtest_param("cd_event", ev) ||
	    knob_write(poll_path, "0") || gesn_wait(1))
		goto out;
	/* the open waits for the poll's check to end */
	fd = cd_open();
	if (fd < 0)
		goto out;
	tur = bbtest_opcount(1, OP_TUR);
	cap = bbtest_opcount(1, OP_READ_CAPACITY);
	gesn = bbtest_opcount(1, OP_GET_EVENT);
	diag("%s: a poll and an open: %d GET EVENT STATUS, %d TEST UNIT READY, %d READ CAPACITY",
	     name, gesn, tur, cap);
	if (gesn != 2 || tur != n || cap != rc)
		fail("%s: a poll and an open sent %d GET EVENT STATUS, %d TEST UNIT READY and %d"
		     " READ CAPACITY, want 2, %d and %d (a poll clears nothing: no TEST UNIT"
		     " READY)", name, gesn, tur, cap, n, rc);
	else
		ret = 0;
out:
	if (fd >= 0)
		close(fd);
	close(hold);
	return ret;
}

int t_lying_cd_poll(void)
{
	int ret;

	if (dev_require(ROLE_BBCD) || bbtest_clear())
		return -1;
	snprintf(poll_path, sizeof(poll_path), "/sys/block/%s/events_poll_msecs",
		 dev_name(ROLE_BBCD));
	if (cd_settle() || bbtest_param("cd_gesn", 1))
		return cd_finish(-1);
	ret = poll_case("no event", 0, 1, 0) || poll_case("new media", 2, 2, 1) ? -1 : 0;
	/* -1: the default (no polling); the write's own check is waited for */
	if (bbtest_opcodes_clear() || knob_write(poll_path, "-1") || gesn_wait(1) ||
	    cd_touch())
		ret = -1;
	return cd_finish(ret);
}

/* --- lying-device-cd-mismatch ------------------------------------------ */

#define DISAGREE "GET_EVENT and TUR disagree continuously"

/* CDROM_MEDIA_CHANGED on fd with new media in the GET EVENT STATUS answer
 * while TEST UNIT READY is good: want; the disagreement line printed by
 * then (since mark) or not, as said. */
static int mismatch_case(int fd, int i, int want, bool said, size_t mark)
{
	int got;
	const char *line;

	if (bbtest_param("cd_event", 2))
		return -1;
	got = ioctl(fd, CDROM_MEDIA_CHANGED, CDSL_CURRENT);
	got = got < 0 ? -errno : got;
	kmsg_sync();
	line = kmsg_find(mark, DISAGREE);
	diag("new media by GET EVENT STATUS only, check %d: CDROM_MEDIA_CHANGED %d, %s", i, got,
	     line ? "disagreement said" : "nothing said");
	if (got != want || !line != !said)
		return fail("new media by GET EVENT STATUS only, check %d: CDROM_MEDIA_CHANGED %d,"
			    " the disagreement %s; want %d, %s", i, got,
			    line ? "said" : "not said", want, said ? "said" : "not said yet");
	return 0;
}

/* The next TEST UNIT READY is answered UNIT ATTENTION 28/00 (medium may
 * have changed): scsi_test_unit_ready marks the disc changed and sends it
 * again. */
static int tur_unit_attention(void)
{
	char sense[64];

	sense_q(sense, false, UNIT_ATTENTION, 0x28, 0, false, 0);
	return rulef("lun=1 op=0x%02x status=2 sense=%s", OP_TUR, sense);
}

/* The midlayer marks the disc changed before the next check: a UNIT
 * ATTENTION to CDROM_DRIVE_STATUS's TEST UNIT READY. */
static int mark_changed(int fd)
{
	int got;

	if (tur_unit_attention())
		return -1;
	got = ioctl(fd, CDROM_DRIVE_STATUS, CDSL_CURRENT);
	if (got != CDS_DISC_OK)
		return fail("CDROM_DRIVE_STATUS after a UNIT ATTENTION: %s, want CDS_DISC_OK",
			    cds(got < 0 ? -errno : got));
	return 0;
}

static int mismatch_cases(int fd)
{
	size_t mark;

	kmsg_sync();
	mark = kmsg_mark();
	for (int i = 1; i <= 9; i++)
		if (mismatch_case(fd, i, 1, false, mark))
			return -1;
	/* changes TEST UNIT READY saw too (its own UNIT ATTENTION, or one
	 * the midlayer saw before the check): they agree, no count */
	if (tur_unit_attention() || mismatch_case(fd, 10, 1, false, mark) ||
	    mark_changed(fd) || mismatch_case(fd, 11, 1, false, mark) ||
	    mismatch_case(fd, 12, 1, true, mark) ||
	    /* from now on GET EVENT is not believed */
	    mismatch_case(fd, 13, 0, true, mark))
		return -1;
	return 0;
}

/* Remove the CD and scan its LUN again: a new sr device, as at boot. */
static int cd_recreate(void)
{
	return dev_readd(ROLE_BBCD, true);
}

int t_lying_cd_mismatch(void)
{
	int fd, ret;

	if (dev_require(ROLE_BBCD) || bbtest_clear() || cd_settle() ||
	    bbtest_param("cd_gesn", 1))
		return cd_finish(-1);
	fd = cd_open();
	if (fd < 0)
		return cd_finish(-1);
	ret = mismatch_cases(fd);
	close(fd);
	if (bbtest_clear() || cd_params_back() || cd_recreate())
		return -1;
	return cd_finish(ret);
}

/* --- lying-device-cd-revalidate ---------------------------------------- */

/* An open whose event check gets TEST UNIT READY answered NOT READY 3a
 * (the medium went: a change) count times: the READ CAPACITY it sent.
 * The rule is added with the CD open, so that the check a close queues
 * (blkdev_put's disk_flush_events) is cancelled and cannot take it. */
static int open_gone(int count)
{
	char sense[64];
	int hold = cd_open(), ret = -1;

	if (hold < 0)
		return -1;
	sense_q(sense, false, NOT_READY, 0x3a, 0, false, 0);
	if (!bbtest_opcodes_clear() &&
	    !rulef("lun=1 op=0x%02x status=2 sense=%s count=%d", OP_TUR, sense, count) &&
	    !cd_touch())
		ret = bbtest_opcount(1, OP_READ_CAPACITY);
	close(hold);
	return ret;
}

/* CDROMMULTISESSION (LBA): the last session's start, want, xa flag xa. */
static int multisession(const char *when, int want, int xa)
{
	struct cdrom_multisession ms = { .addr_format = CDROM_LBA };
	int fd = cd_open(), got;

	if (fd < 0)
		return -1;
	got = ioctl(fd, CDROMMULTISESSION, &ms);
	got = got < 0 ? -errno : got;
	close(fd);
	diag("%s: CDROMMULTISESSION %d, lba %d, xa %d", when, got, ms.addr.lba, ms.xa_flag);
	if (got || ms.addr.lba != want || ms.xa_flag != xa)
		return fail("%s: CDROMMULTISESSION %d, lba %d, xa %d; want 0, %d, %d", when, got,
			    ms.addr.lba, ms.xa_flag, want, xa);
	return 0;
}

static int revalidate_cases(void)
{
	long long size = dev_sectors(ROLE_BBCD);
	int rc;

	/* the revalidation's own TEST UNIT READY says no medium too */
	if (bbtest_param("cd_rc_blocks", BBCD_BLOCKS / 2))
		return -1;
	rc = open_gone(2);
	diag("open after a change, revalidation's TEST UNIT READY 3a: %d READ CAPACITY,"
	     " %lld sectors", rc, dev_sectors(ROLE_BBCD));
	if (rc != 0 || dev_sectors(ROLE_BBCD) != size)
		return fail("open after a change with no medium: %d READ CAPACITY and %lld"
			    " sectors, want 0 and %lld (nothing read from a drive not ready)",
			    rc, dev_sectors(ROLE_BBCD), size);
	if (bbtest_param("cd_rc_blocks", 0) || cd_settle() ||
	    bbtest_param("cd_leadout", BBCD_BLOCKS) || bbtest_param("cd_ms_offset", 300))
		return -1;
	rc = open_gone(1);
	if (rc != 1)
		return fail("open after a change: %d READ CAPACITY, want 1", rc);
	if (multisession("second session at 300", 300, 1) || bbtest_param("cd_ms_offset", 0) ||
	    open_gone(1) != 1)
		return -1;
	return multisession("back to one session", 0, 0);
}

int t_lying_cd_revalidate(void)
{
	if (dev_require(ROLE_BBCD) || bbtest_clear() || cd_settle())
		return cd_finish(-1);
	return cd_finish(revalidate_cases());
}

/* --- lying-device-cd-read-mode1 ---------------------------------------- */

/* CDROMREADMODE1 of block 5 (READ CD refused, then READ(10)): 0 and the
 * block's data, with n READ CD and one READ(10). */
static int read_mode1(int fd, const char *name, int n)
{
	/* MSF 00:02:05 is block 5 (the first 150 frames are the pre-gap) */
	union { struct cdrom_msf msf; unsigned char data[CD_FRAMESIZE]; } u;
	int got, rd, rdcd;

	memset(&u, 0, sizeof(u));
	u.msf.cdmsf_sec0 = 2;
	u.msf.cdmsf_frame0 = 5;
	if (bbtest_opcodes_clear())
		return -1;
	got = ioctl(fd, CDROMREADMODE1, &u);
	got = got < 0 ? -errno : got;
	rdcd = bbtest_opcount(1, OP_READ_CD);
	rd = bbtest_opcount(1, OP_READ_10);
	diag("CDROMREADMODE1, %s: %s after %d READ CD, %d READ(10)", name,
	     got ? strerror(-got) : "success", rdcd, rd);
	if (got || rdcd != n || rd != 1)
		return fail("CDROMREADMODE1, %s: %s after %d READ CD and %d READ(10); want"
			    " success after %d and 1 (cdrom.c reads with READ(10) when the"
			    " sense says READ CD is not supported)", name,
			    got ? strerror(-got) : "success", rdcd, rd, n);
	return pat_expect(u.data, CD_FRAMESIZE, 5 * 2048, 0, "CDROMREADMODE1's block");
}

static int read_mode1_cases(int fd)
{
	char sense[64];
	size_t mark;

	if (read_mode1(fd, "READ CD not supported", 1))
		return -1;
	sense_q(sense, false, UNIT_ATTENTION, 0x28, 0, false, 0);
	kmsg_sync();
	mark = kmsg_mark();
	if (rulef("lun=1 op=0x%02x status=2 sense=%s", OP_READ_CD, sense) ||
	    read_mode1(fd, "a UNIT ATTENTION first", 2))
		return -1;
	kmsg_sync();
	if (!kmsg_find(mark, "disc change detected"))
		return fail("a UNIT ATTENTION on READ CD (not quiet) printed no 'disc change"
			    " detected'");
	return 0;
}

int t_lying_cd_read_mode1(void)
{
	int fd, ret;

	if (dev_require(ROLE_BBCD) || bbtest_clear() || cd_settle())
		return -1;
	fd = cd_open();
	if (fd < 0)
		return -1;
	ret = read_mode1_cases(fd);
	close(fd);
	return cd_finish(ret);
}

/* --- lying-device-cd-offline ------------------------------------------- */

/* CDROMREADTOCHDR on fd: want (0 or an errno) after n READ TOC. */
static int tochdr(int fd, const char *name, int want, int n)
{
	struct cdrom_tochdr h = { 0xff, 0xff };
	int got, seen;

	if (bbtest_opcodes_clear())
		return -1;
	got = ioctl(fd, CDROMREADTOCHDR, &h);
	got = got < 0 ? errno : 0;
	seen = bbtest_opcount(1, OP_READ_TOC);
	diag("CDROMREADTOCHDR, %s: %s (tracks %d..%d) after %d READ TOC", name,
	     got ? strerror(got) : "success", h.cdth_trk0, h.cdth_trk1, seen);
	if (got != want || seen != n || (!want && (h.cdth_trk0 != 1 || h.cdth_trk1 != 1)))
		return fail("CDROMREADTOCHDR, %s: %s (tracks %d..%d) after %d READ TOC; want %s"
			    " after %d", name, got ? strerror(got) : "success", h.cdth_trk0,
			    h.cdth_trk1, seen, want ? strerror(want) : "success (tracks 1..1)", n);
	return 0;
}

static int offline_cases(int fd, const char *state)
{
	char sense[64];
	int ret;

	sense_q(sense, false, UNIT_ATTENTION, 0x28, 0, false, 0);
	if (rulef("lun=1 op=0x%02x status=2 sense=%s offline=1", OP_READ_TOC, sense))
		return -1;
	/* a UNIT ATTENTION is tried again, unless the device is gone */
	ret = tochdr(fd, "UNIT ATTENTION, then the CD is offline", ENODEV, 1);
	/* sysfs's state parser wants the newline */
	if (knob_write(state, "running\n") || ret)
		return -1;
	return tochdr(fd, "back online", 0, 1);
}

int t_lying_cd_offline(void)
{
	char state[PATH_MAX];
	int fd, ret;

	if (dev_require(ROLE_BBCD) || bbtest_clear() || cd_settle() ||
	    bbtest_param("cd_leadout", BBCD_BLOCKS))
		return cd_finish(-1);
	snprintf(state, sizeof(state), "/sys/block/%s/device/state", dev_name(ROLE_BBCD));
	fd = cd_open();
	if (fd < 0)
		return cd_finish(-1);
	ret = offline_cases(fd, state);
	close(fd);
	return cd_finish(ret);
}
