/*
 * t_lying_eh.c: the error handler's own commands and resets (issue 24),
 * on scsi_bbtest's disk.  Each case fails one READ so that the error
 * handler takes it, scripts what the device answers the error handler,
 * and checks the read's outcome with what the device saw: READs, REQUEST
 * SENSE, START UNIT, TEST UNIT READY, the driver's abort, device and bus
 * resets (debugfs resets) and commands it had to refuse for a malformed
 * CDB (debugfs refused: the error handler takes a refused TEST UNIT READY
 * for a success, so only the device can tell).
 *
 *   lying-device-eh-sense    a READ answered CHECK CONDITION without
 *                            sense: one REQUEST SENSE (none for a READ
 *                            answered DID_TIME_OUT), and its answer
 *                            decides: NO SENSE or ABORTED COMMAND: sent
 *                            again, right; NOT READY 04/02 with
 *                            allow_restart: START UNIT, TEST UNIT READY,
 *                            sent again; MEDIUM ERROR 11/00 with unlimited
 *                            retries (max_retries -1): ENODATA after one
 *                            READ; REQUEST SENSE failed (RESERVATION
 *                            CONFLICT) whatever data came: a device reset,
 *                            sent again, right
 *   lying-device-eh-answers  a READ answered DID_TIME_OUT, the error
 *                            handler's TEST UNIT READY (never refused)
 *                            answered: GOOD after the device reset, no bus
 *                            reset; DID_ERROR: a bus reset and another;
 *                            DID_RESET with UNIT ATTENTION 29/00 (the
 *                            device reset it expected): sent again, no bus
 *                            reset; BUSY twice: 2 TEST UNIT READY, taken
 *                            for a success
 *   lying-device-eh-escalation  a READ answered DID_TIME_OUT: device and
 *                            bus resets failing (scsi_bbtest.reset_fails),
 *                            with allow_restart: a host reset, START UNIT,
 *                            TEST UNIT READY, sent again, right; every
 *                            reset failing: the disk offlined, EIO, and
 *                            (set running) no UNIT ATTENTION expected: a
 *                            NOT READY 04/02 is EIO after one READ; a
 *                            device reset that takes the disk offline
 *                            (reset_offlines): EIO, no TEST UNIT READY
 *   lying-device-eh-deadline the host's eh_deadline: 0, a CHECK CONDITION
 *                            without sense gets no REQUEST SENSE and no
 *                            reset but the host's, TEST UNIT READY, sent
 *                            again; 1 s with a device reset failing and a
 *                            bus reset of 1.1 s (scsi_bbtest.bus_reset_ms):
 *                            not tested after the bus reset, the host is
 *                            reset (1.1 s: the deadline is the contract)
 *
 * Disk sectors 1928..1951 (each case clears the device's log first).
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BBT_DEBUGFS	"/sys/kernel/debug/scsi_bbtest"

#define NOT_READY	2
#define MEDIUM_ERROR	3
#define UNIT_ATTENTION	6
#define ABORTED_COMMAND	0xb
#define OP_TUR		0x00
#define OP_REQUEST_SENSE 0x03
#define OP_START_STOP	0x1b
#define DID_TIME_OUT	3
#define DID_RESET	8
#define DID_ERROR	7


/* The count on the line "name N" of debugfs resets, or -1. */
static int resets_count(const char *name)
{
	FILE *f = fopen(BBT_DEBUGFS "/resets", "re");
	char key[16];
	int n, got = -1;

	if (!f)
		return fail("cannot open '%s': %s", BBT_DEBUGFS "/resets", strerror(errno));
	while (fscanf(f, "%15s %d", key, &n) == 2)
		if (!strcmp(key, name))
			got = n;
	fclose(f);
	return got;
}

/* Commands refused for a malformed CDB on any LUN, or -1. */
static int refused_count(void)
{
	FILE *f = fopen(BBT_DEBUGFS "/refused", "re");
	unsigned int lun, op;
	int n, sum = 0;

	if (!f)
		return fail("cannot open '%s': %s", BBT_DEBUGFS "/refused", strerror(errno));
	while (fscanf(f, "%u %x %d", &lun, &op, &n) == 3)
		sum += n;
	fclose(f);
	return sum;
}

int eh_counters_clear(void)
{
	if (bbtest_clear() || bbtest_opcodes_clear() ||
	    knob_write(BBT_DEBUGFS "/resets", "clear"))
		return -1;
	return knob_write(BBT_DEBUGFS "/refused", "clear");
}

void eh_seen_read(struct eh_seen *s)
{
	int oob;

	s->reads = bbtest_log_count(0, EH_SECTOR, EH_LEN / SECTOR, &oob);
	s->rs = bbtest_opcount(0, OP_REQUEST_SENSE);
	s->stu = bbtest_opcount(0, OP_START_STOP);
	s->tur = bbtest_opcount(0, OP_TUR);
	s->abort = resets_count("abort");
	s->device = resets_count("device");
	s->bus = resets_count("bus");
	s->host = resets_count("host");
	s->refused = refused_count();
}

bool eh_seen_eq(const struct eh_seen *a, const struct eh_seen *b)
{
	return a->reads == b->reads && a->rs == b->rs && a->stu == b->stu &&
	       a->tur == b->tur && a->abort == b->abort && a->device == b->device &&
	       a->bus == b->bus && a->host == b->host && a->refused == b->refused;
}

const char *eh_seen_str(const struct eh_seen *s, char *out, size_t n)
{
	snprintf(out, n, "%d READ, %d REQUEST SENSE, %d START UNIT, %d TEST UNIT READY, "
		 "abort %d, device reset %d, bus reset %d, host reset %d, %d refused", s->reads,
		 s->rs, s->stu, s->tur, s->abort, s->device, s->bus, s->host, s->refused);
	return out;
}

/*
 * One case: the READ of disk sectors [EH_SECTOR, +16) answered by read
 * (a rule's answer for the block EH_SECTOR + 2), other (if not NULL) a
 * further rule; the read must end in errno err (0: the right data) with
 * the device having seen exactly *want, and every rule used.
 */
int eh_case(const char *name, const char *read, const char *other, int err,
		   const struct eh_seen *want)
{
	struct eh_seen got;
	char a[256], b[256];
	int res, pending;

	if (eh_counters_clear() ||
	    rulef("lun=0 lba=%u %s", EH_SECTOR + 2, read) ||
	    (other && rulef("%s", other)))
		return -1;
	res = rd_open(ROLE_BBDISK, (uint64_t)EH_SECTOR * SECTOR, EH_LEN);
	eh_seen_read(&got);
	pending = bbtest_pending();
	diag("%s: %s; %s", name, what(res), eh_seen_str(&got, a, sizeof(a)));
	if (res != -err || !eh_seen_eq(&got, want))
		return fail("%s: %s after %s; want %s after %s", name, what(res), a,
			    err ? strerror(err) : "the right data", eh_seen_str(want, b, sizeof(b)));
	if (pending)
		return fail("%s: %d scripted completion(s) never used", name, pending);
	return 0;
}

int eh_disk_attr(const char *attr, const char *val)
{
	char path[400];

	if (sdisk_attr_path(attr, path, sizeof(path)))
		return -1;
	return knob_write(path, val);
}

/* The number in a scsi_disk attribute, or -1. */
long long eh_disk_attr_get(const char *attr)
{
	char path[400];

	if (sdisk_attr_path(attr, path, sizeof(path)))
		return -1;
	return knob_number(path);
}

/*
 * A reset leaves the disk expecting a UNIT ATTENTION (expecting_cc_ua),
 * which turns the next NOT READY or UNIT ATTENTION into a retry: one UNIT
 * ATTENTION 29/00, retried either way, takes it.
 */
static int ua_settle(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen retried = { 2, 0, 0, 0, 0, 0, 0, 0, 0 };
	char rule[128], sense[64];

	sense_q(sense, false, UNIT_ATTENTION, 0x29, 0, false, 0);
	snprintf(rule, sizeof(rule), "status=2 sense=%s", sense);
	return eh_case("READ answered UNIT ATTENTION 29/00 (settles the disk)", rule, NULL, 0,
		       &retried);
}

/* --- lying-device-eh-sense --------------------------------------------- */

/* A CHECK CONDITION without sense: the error handler asks REQUEST SENSE. */
#define CC_NO_SENSE	"status=2 copy=0 resid=rest"

static int sense_rule(char *out, size_t n, uint8_t key, uint8_t asc, uint8_t ascq,
		      const char *extra)
{
	char sense[64];

	sense_q(sense, false, key, asc, ascq, false, 0);
	snprintf(out, n, "lun=0 op=0x%02x sense=%s%s", OP_REQUEST_SENSE, sense, extra);
	return 0;
}

static int sense_cases(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen asked = { 2, 1, 0, 0, 0, 0, 0, 0, 0 };
	static const struct eh_seen tested = { 2, 0, 0, 1, 0, 1, 0, 0, 0 };
	static const struct eh_seen started = { 2, 1, 1, 1, 0, 0, 0, 0, 0 };
	static const struct eh_seen medium = { 1, 1, 0, 0, 0, 0, 0, 0, 0 };
	static const struct eh_seen conflict = { 2, 1, 0, 1, 0, 1, 0, 0, 0 };
	char rule[256];
	int ret;

	if (ua_settle() || eh_case("CHECK CONDITION without sense, REQUEST SENSE unscripted", CC_NO_SENSE,
		    NULL, 0, &asked))
		return -1;
	sense_rule(rule, sizeof(rule), ABORTED_COMMAND, 0x47, 0, "");
	if (eh_case("REQUEST SENSE says ABORTED COMMAND 47/00", CC_NO_SENSE, rule, 0, &asked))
		return -1;
	sense_rule(rule, sizeof(rule), NOT_READY, 0x04, 0x02, "");
	if (eh_disk_attr("allow_restart", "1"))
		return -1;
	ret = eh_case("REQUEST SENSE says NOT READY 04/02, allow_restart", CC_NO_SENSE, rule,
		      0, &started);
	if (eh_disk_attr("allow_restart", "0") || ret)
		return -1;
	sense_rule(rule, sizeof(rule), MEDIUM_ERROR, 0x11, 0, "");
	if (eh_disk_attr("max_retries", "-1"))
		return -1;
	ret = eh_case("REQUEST SENSE says MEDIUM ERROR 11/00, unlimited retries", CC_NO_SENSE,
		      rule, ENODATA, &medium);
	if (eh_disk_attr("max_retries", "5") || ret)	/* sd's default */
		return -1;
	/* these two reset the device (and leave it expecting a UNIT ATTENTION) */
	if (eh_case("DID_TIME_OUT: no REQUEST SENSE", "host=3 copy=0 resid=rest", NULL, 0,
		    &tested))
		return -1;
	sense_rule(rule, sizeof(rule), MEDIUM_ERROR, 0x11, 0, " status=0x18");
	return eh_case("REQUEST SENSE answered RESERVATION CONFLICT (data: MEDIUM ERROR)",
		       CC_NO_SENSE, rule, 0, &conflict);
}

int t_lying_eh_sense(void)
{
	if (dev_require(ROLE_BBDISK) || sense_cases())
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}

/* --- lying-device-eh-answers ------------------------------------------- */


int t_lying_eh_answers(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen reset = { 2, 0, 0, 1, 0, 1, 0, 0, 0 };
	static const struct eh_seen bus = { 2, 0, 0, 2, 0, 1, 1, 0, 0 };
	static const struct eh_seen twice = { 2, 0, 0, 2, 0, 1, 0, 0, 0 };
	char rule[256], sense[64];

	if (dev_require(ROLE_BBDISK) ||
	    eh_case("TEST UNIT READY unscripted", EH_TIMED_OUT, NULL, 0, &reset) ||
	    eh_case("TEST UNIT READY answered DID_ERROR", EH_TIMED_OUT, "lun=0 op=0x00 host=7",
		    0, &bus) ||
	    eh_case("TEST UNIT READY answered BUSY twice", EH_TIMED_OUT,
		    "lun=0 op=0x00 status=8 count=2", 0, &twice))
		return -1;
	sense_q(sense, false, UNIT_ATTENTION, 0x29, 0, false, 0);
	snprintf(rule, sizeof(rule), "lun=0 op=0x00 host=%d status=2 sense=%s", DID_RESET, sense);
	if (eh_case("TEST UNIT READY answered DID_RESET, UNIT ATTENTION 29/00", EH_TIMED_OUT, rule,
		    0, &twice))
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}

/* --- lying-device-eh-escalation ---------------------------------------- */

/* Device and bus resets fail: the host reset, then (allow_restart) START
 * UNIT and TEST UNIT READY before the READ is sent again. */
static int host_reset_case(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen host = { 2, 0, 1, 1, 0, 1, 1, 1, 0 };
	int ret;

	if (bbtest_param("reset_fails", 3) || eh_disk_attr("allow_restart", "1"))
		ret = -1;
	else
		ret = eh_case("device and bus resets fail, allow_restart", EH_TIMED_OUT, NULL, 0,
			      &host);
	if (eh_disk_attr("allow_restart", "0") || bbtest_param("reset_fails", 0))
		ret = -1;
	return ret;
}

/* Every reset fails: the disk is offlined, the READ fails; back to running,
 * nothing reset it, so a NOT READY 04/02 is not retried as one expected. */
static int offline_case(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen offline = { 1, 0, 0, 0, 0, 1, 1, 1, 0 };
	static const struct eh_seen once = { 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	char path[160], rule[128], sense[64];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/device/state", dev_name(ROLE_BBDISK));
	if (bbtest_param("reset_fails", 7))
		ret = -1;
	else
		ret = eh_case("every reset fails", EH_TIMED_OUT, NULL, EIO, &offline);
	/* (the state file takes a name only with its newline) */
	if (bbtest_param("reset_fails", 0) || knob_write(path, "running\n") || ret)
		return -1;
	sense_q(sense, false, NOT_READY, 0x04, 0x02, false, 0);
	snprintf(rule, sizeof(rule), "status=2 sense=%s", sense);
	return eh_case("back to running: NOT READY 04/02", rule, NULL, EIO, &once);
}

/* A device reset that works but takes the disk offline: its commands are
 * finished (EIO) without a TEST UNIT READY; then set running again. */
static int reset_offlines_case(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen gone = { 1, 0, 0, 0, 0, 1, 0, 0, 0 };
	char path[160];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/device/state", dev_name(ROLE_BBDISK));
	if (bbtest_param("reset_offlines", 1))
		ret = -1;
	else
		ret = eh_case("the device reset takes the disk offline", EH_TIMED_OUT, NULL, EIO, &gone);
	if (bbtest_param("reset_offlines", 0) || knob_write(path, "running\n"))
		ret = -1;
	return ret;
}

int t_lying_eh_escalation(void)
{
	if (dev_require(ROLE_BBDISK) || ua_settle() || host_reset_case() || ua_settle() ||
	    offline_case() || reset_offlines_case())
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}

/* --- lying-device-eh-deadline ------------------------------------------ */

/* /sys/class/scsi_host/host<N>/<attr> of the scsi_bbtest disk's host. */
static int host_attr_path(const char *attr, char *out, size_t n)
{
	char hctl[32];
	unsigned int host;

	if (disk_hctl(hctl, sizeof(hctl)))
		return -1;
	if (sscanf(hctl, "%u:", &host) != 1)
		return fail("no H:C:T:L in '%s'", hctl);
	snprintf(out, n, "/sys/class/scsi_host/host%u/%s", host, attr);
	return 0;
}

/* The error handler's deadline (eh_deadline, seconds) and what it skips. */
static int deadline_cases(const char *path)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen at_once = { 2, 0, 0, 1, 0, 0, 0, 1, 0 };
	static const struct eh_seen late = { 2, 0, 0, 1, 0, 1, 1, 1, 0 };
	int ret;

	/* past at once: no REQUEST SENSE, no reset but the host's */
	if (knob_write(path, "0") ||
	    eh_case("eh_deadline 0: CHECK CONDITION without sense", CC_NO_SENSE, NULL, 0,
		    &at_once))
		return -1;
	/* past during the bus reset (the device reset failed): not tested
	 * after it, the host is reset */
	if (knob_write(path, "1") || bbtest_param("reset_fails", 1) ||
	    bbtest_param("bus_reset_ms", 1100))
		ret = -1;
	else
		ret = eh_case("eh_deadline 1 s, a bus reset of 1.1 s", EH_TIMED_OUT, NULL, 0, &late);
	if (bbtest_param("bus_reset_ms", 0) || bbtest_param("reset_fails", 0))
		ret = -1;
	return ret;
}

int t_lying_eh_deadline(void)
{
	char path[200], was[32] = "";
	int ret;

	if (dev_require(ROLE_BBDISK) || host_attr_path("eh_deadline", path, sizeof(path)))
		return -1;
	if (knob_read(path, was, sizeof(was)))
		return -1;
	ret = ua_settle() || deadline_cases(path) ? -1 : 0;
	if (knob_write(path, was) || ret)
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}
