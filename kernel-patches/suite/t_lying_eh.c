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
 *   lying-device-eh-timeout  a READ answered DID_TIME_OUT every time:
 *                            EIO after 6 (sd's 5 retries; sd offlines the
 *                            disk after max_medium_access_timeouts error
 *                            handler rounds of one command, raised for it);
 *                            a disk READ answered DID_TIME_OUT, then never
 *                            answered, and a CD READ never answered
 *                            (io_timeout 200 ms, the disk's max_retries
 *                            1): aborts fail, both in the error handler at
 *                            once, a device reset each, the disk's EIO
 *                            after 2 READs (DID_TIME_OUT is EIO on 6.1 and
 *                            6.12), the CD's right (~1.3 s: the block
 *                            layer rounds timeouts up to a second)
 *
 * Disk sectors 1928..1951 (each case clears the device's log first), CD
 * 2K block 10.
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BBT_DEBUGFS	"/sys/kernel/debug/scsi_bbtest"
#define EH_SECTOR	1928u
#define EH_LEN		8192u

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

/* What the device saw during one case. */
struct eh_seen {
	int reads, rs, stu, tur;
	int abort, device, bus, host;
	int refused;
};

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

static int counters_clear(void)
{
	if (bbtest_clear() || bbtest_opcodes_clear() ||
	    knob_write(BBT_DEBUGFS "/resets", "clear"))
		return -1;
	return knob_write(BBT_DEBUGFS "/refused", "clear");
}

static void seen_read(struct eh_seen *s)
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

static bool seen_eq(const struct eh_seen *a, const struct eh_seen *b)
{
	return a->reads == b->reads && a->rs == b->rs && a->stu == b->stu &&
	       a->tur == b->tur && a->abort == b->abort && a->device == b->device &&
	       a->bus == b->bus && a->host == b->host && a->refused == b->refused;
}

static const char *seen_str(const struct eh_seen *s, char *out, size_t n)
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
static int eh_case(const char *name, const char *read, const char *other, int err,
		   const struct eh_seen *want)
{
	struct eh_seen got;
	char a[256], b[256];
	int res, pending;

	if (counters_clear() ||
	    rulef("lun=0 lba=%u %s", EH_SECTOR + 2, read) ||
	    (other && rulef("%s", other)))
		return -1;
	res = rd_open(ROLE_BBDISK, (uint64_t)EH_SECTOR * SECTOR, EH_LEN);
	seen_read(&got);
	pending = bbtest_pending();
	diag("%s: %s; %s", name, what(res), seen_str(&got, a, sizeof(a)));
	if (res != -err || !seen_eq(&got, want))
		return fail("%s: %s after %s; want %s after %s", name, what(res), a,
			    err ? strerror(err) : "the right data", seen_str(want, b, sizeof(b)));
	if (pending)
		return fail("%s: %d scripted completion(s) never used", name, pending);
	return 0;
}

/* /sys/block/<disk>/device/scsi_disk/<h:c:t:l>/<attr>: its path in out. */
static int disk_attr_path(const char *attr, char *out, size_t n)
{
	char dir[128];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/block/%s/device/scsi_disk", dev_name(ROLE_BBDISK));
	d = opendir(dir);
	if (!d)
		return fail("cannot open '%s': %s", dir, strerror(errno));
	out[0] = '\0';
	while ((e = readdir(d)) != NULL)	/* one entry, named H:C:T:L */
		if (e->d_name[0] != '.')
			snprintf(out, n, "%s/%s/%s", dir, e->d_name, attr);
	closedir(d);
	if (!out[0])
		return fail("no scsi_disk entry in '%s'", dir);
	return 0;
}

static int disk_attr(const char *attr, const char *val)
{
	char path[400];

	if (disk_attr_path(attr, path, sizeof(path)))
		return -1;
	return knob_write(path, val);
}

/* The number in a scsi_disk attribute, or -1. */
static long long disk_attr_get(const char *attr)
{
	char path[400], buf[32];
	long long v = -1;
	FILE *f;

	if (disk_attr_path(attr, path, sizeof(path)))
		return -1;
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f))
		v = atoll(buf);
	if (f)
		fclose(f);
	return v;
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
	if (disk_attr("allow_restart", "1"))
		return -1;
	ret = eh_case("REQUEST SENSE says NOT READY 04/02, allow_restart", CC_NO_SENSE, rule,
		      0, &started);
	if (disk_attr("allow_restart", "0") || ret)
		return -1;
	sense_rule(rule, sizeof(rule), MEDIUM_ERROR, 0x11, 0, "");
	if (disk_attr("max_retries", "-1"))
		return -1;
	ret = eh_case("REQUEST SENSE says MEDIUM ERROR 11/00, unlimited retries", CC_NO_SENSE,
		      rule, ENODATA, &medium);
	if (disk_attr("max_retries", "5") || ret)	/* sd's default */
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

#define TIMED_OUT	"host=3 copy=0 resid=rest"

int t_lying_eh_answers(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen reset = { 2, 0, 0, 1, 0, 1, 0, 0, 0 };
	static const struct eh_seen bus = { 2, 0, 0, 2, 0, 1, 1, 0, 0 };
	static const struct eh_seen twice = { 2, 0, 0, 2, 0, 1, 0, 0, 0 };
	char rule[256], sense[64];

	if (dev_require(ROLE_BBDISK) ||
	    eh_case("TEST UNIT READY unscripted", TIMED_OUT, NULL, 0, &reset) ||
	    eh_case("TEST UNIT READY answered DID_ERROR", TIMED_OUT, "lun=0 op=0x00 host=7",
		    0, &bus) ||
	    eh_case("TEST UNIT READY answered BUSY twice", TIMED_OUT,
		    "lun=0 op=0x00 status=8 count=2", 0, &twice))
		return -1;
	sense_q(sense, false, UNIT_ATTENTION, 0x29, 0, false, 0);
	snprintf(rule, sizeof(rule), "lun=0 op=0x00 host=%d status=2 sense=%s", DID_RESET, sense);
	if (eh_case("TEST UNIT READY answered DID_RESET, UNIT ATTENTION 29/00", TIMED_OUT, rule,
		    0, &twice))
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}

/* --- lying-device-eh-timeout ------------------------------------------- */

/*
 * A READ answered DID_TIME_OUT 6 times: EIO after 6, sd's 5 retries.  sd
 * takes the disk offline after max_medium_access_timeouts (2) error
 * handler rounds of one command whose TEST UNIT READY worked: raised for
 * the case.  (Before io_timeout is lowered: sd also gives up on a command
 * older than its timeout times its tries.)  A 7th READ would be answered.
 */
static int six_case(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen six = { 6, 0, 0, 6, 0, 6, 0, 0, 0 };
	long long max = disk_attr_get("max_medium_access_timeouts");
	char v[32];
	int ret;

	if (max < 0)
		return fail("cannot read the disk's max_medium_access_timeouts");
	if (disk_attr("max_medium_access_timeouts", "8"))
		return -1;
	ret = eh_case("READ answered DID_TIME_OUT 6 times", TIMED_OUT " count=6", NULL, EIO, &six);
	snprintf(v, sizeof(v), "%lld", max);
	if (disk_attr("max_medium_access_timeouts", v))
		ret = -1;
	return ret;
}

#define CD_BLOCK	10u	/* CD 2K block 10 */

/* Wait (up to 5 s) until the device has seen n READs of lun: 0 or fail(). */
static int reads_seen(unsigned int lun, int n)
{
	struct bbt_cmd log[64];

	for (int i = 0; i < 500; i++) {
		int got = bbtest_log_read(log, 64), count = 0;

		for (int j = 0; j < got; j++)
			count += log[j].lun == lun;
		if (count >= n)
			return 0;
		usleep(10000);
	}
	return fail("%d READ(s) of LUN %u never reached the device", n, lun);
}

/* An O_DIRECT read of len bytes at byte off of r in a child: its pid. */
static pid_t read_child(enum role r, uint64_t off, size_t len)
{
	pid_t pid = fork();

	if (pid == 0) {
		int res = rd_open(r, off, len);

		_exit(res < 0 ? (-res & 0xff) : res ? 255 : 0);
	}
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	return pid;
}

/* read_child()'s result as rd_open() gives it (1: wrong or no result). */
static int read_wait(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status) == 255 ? 1 : -WEXITSTATUS(status);
}

/* SCSI_LOG_MLCOMPLETE 5: scsi_finish_command logs each result it hands up */
#define LOG_ML_RESULT	"20480"

/* The disk's H:C:T:L ("2:0:0:0") in out. */
static int disk_hctl(char *out, size_t n)
{
	char link[160], target[256];
	const char *base;
	ssize_t len;

	snprintf(link, sizeof(link), "/sys/block/%s/device", dev_name(ROLE_BBDISK));
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return fail("readlink '%s': %s", link, strerror(errno));
	target[len] = '\0';
	base = strrchr(target, '/');
	snprintf(out, n, "%.31s", base ? base + 1 : target);
	return 0;
}

/* The results scsi_finish_command handed sd for the disk since mark (its
 * "Notifying upper driver of completion (result %x)" lines): how many, the
 * last in *result. */
static int disk_results(size_t mark, const char *hctl, unsigned int *result)
{
	const char *what = "Notifying upper driver of completion (result ";
	char needle[48];
	int n = 0;

	snprintf(needle, sizeof(needle), " %.31s: ", hctl);
	kmsg_sync();
	for (size_t i = mark; i < kmsg_count(); i++) {
		const char *l = kmsg_line(i), *p = strstr(l, what);

		if (p && strstr(l, needle) && sscanf(p + strlen(what), "%x", result) == 1)
			n++;
	}
	return n;
}

/*
 * A disk READ answered DID_TIME_OUT, then (sent again after the error
 * handler) never answered, and meanwhile a CD READ never answered: the
 * second error handler round takes both (it waits until every command out
 * has failed; were the CD's late, it gets a round of its own and the same
 * counts), and resets and tests each device for its own command.  The
 * disk's (max_retries 1) then fails, EIO (the error handler gives it
 * DID_TIME_OUT, which is EIO on 6.1 and 6.12), after 2 READs; the CD's is
 * sent again and right.  The disk's second timeout also checks that the
 * first round left the command off the error handler's lists.  The host
 * byte shows only in the midlayer's log (SG_IO would, but waits at least
 * 7 s for a timeout): MLCOMPLETE logging is on meanwhile.
 */
static int lost_both(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen lost = { 2, 0, 0, 2, 2, 3, 0, 0, 0 };
	struct eh_seen got;
	char a[256], b[256], hctl[32];
	int res = 1, cd = 1, n;
	unsigned int result = 0;
	pid_t disk, cdp = -1;
	size_t mark;

	if (disk_hctl(hctl, sizeof(hctl)) || knob_write(SCSI_LOGGING, LOG_ML_RESULT))
		return -1;
	mark = kmsg_mark();
	if (counters_clear() || rulef("lun=0 lba=%u %s", EH_SECTOR + 2, TIMED_OUT) ||
	    rulef("lun=0 lba=%u drop=1", EH_SECTOR + 2) ||
	    rulef("lun=1 lba=%u drop=1", CD_BLOCK))
		return -1;
	disk = read_child(ROLE_BBDISK, (uint64_t)EH_SECTOR * SECTOR, EH_LEN);
	if (disk < 0)
		return -1;
	if (!reads_seen(0, 2))
		cdp = read_child(ROLE_BBCD, CD_BLOCK * 2048ull, 2048);
	res = read_wait(disk);
	if (cdp > 0)
		cd = read_wait(cdp);
	knob_write(SCSI_LOGGING, "0");
	n = disk_results(mark, hctl, &result);
	diag("the disk's command handed to sd %d time(s), last with result 0x%x", n, result);
	if (n != 1 || result != DID_TIME_OUT << 16)
		return fail("the disk's command never answered reached sd %d time(s), result 0x%x;"
			    " want once, 0x%x (DID_TIME_OUT)", n, result, DID_TIME_OUT << 16);
	seen_read(&got);
	diag("a disk READ never answered the second time, a CD READ never answered: disk %s,"
	     " CD %s; %s", what(res), what(cd), seen_str(&got, a, sizeof(a)));
	if (res != -EIO || cd || !seen_eq(&got, &lost))
		return fail("READs never answered: disk %s, CD %s after %s; want disk %s, CD right"
			    " after %s", what(res), what(cd), a, strerror(EIO),
			    seen_str(&lost, b, sizeof(b)));
	return 0;
}

/* lost_both() with io_timeout 200 ms on both and max_retries 1 on the disk. */
static int lost_case(void)
{
	long long td = dev_sysfs_number(ROLE_BBDISK, "queue/io_timeout");
	long long tc = dev_sysfs_number(ROLE_BBCD, "queue/io_timeout");
	char pd[160], pc[160];
	int ret;

	if (td <= 0 || tc <= 0)
		return fail("cannot read the queue/io_timeout of the disk and the CD");
	snprintf(pd, sizeof(pd), "/sys/block/%s/queue/io_timeout", dev_name(ROLE_BBDISK));
	snprintf(pc, sizeof(pc), "/sys/block/%s/queue/io_timeout", dev_name(ROLE_BBCD));
	ret = knob_write(pd, "200") || knob_write(pc, "200") || disk_attr("max_retries", "1");
	if (!ret)
		ret = lost_both();
	if (disk_attr("max_retries", "5") || ret)	/* sd's default */
		ret = -1;
	if (knob_writef(pd, "%lld", td) || knob_writef(pc, "%lld", tc))
		ret = -1;
	return ret;
}

int t_lying_eh_timeout(void)
{
	if (dev_require(ROLE_BBDISK) || dev_require(ROLE_BBCD) || six_case() || lost_case())
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

	if (bbtest_param("reset_fails", 3) || disk_attr("allow_restart", "1"))
		ret = -1;
	else
		ret = eh_case("device and bus resets fail, allow_restart", TIMED_OUT, NULL, 0,
			      &host);
	if (disk_attr("allow_restart", "0") || bbtest_param("reset_fails", 0))
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
		ret = eh_case("every reset fails", TIMED_OUT, NULL, EIO, &offline);
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
		ret = eh_case("the device reset takes the disk offline", TIMED_OUT, NULL, EIO, &gone);
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
	char link[160], target[256];
	const char *base;
	ssize_t len;
	unsigned int host;

	snprintf(link, sizeof(link), "/sys/block/%s/device", dev_name(ROLE_BBDISK));
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return fail("readlink '%s': %s", link, strerror(errno));
	target[len] = '\0';
	base = strrchr(target, '/');
	if (sscanf(base ? base + 1 : target, "%u:", &host) != 1)
		return fail("no H:C:T:L at the end of '%s'", target);
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
		ret = eh_case("eh_deadline 1 s, a bus reset of 1.1 s", TIMED_OUT, NULL, 0, &late);
	if (bbtest_param("bus_reset_ms", 0) || bbtest_param("reset_fails", 0))
		ret = -1;
	return ret;
}

int t_lying_eh_deadline(void)
{
	char path[200], was[32] = "";
	FILE *f;
	int ret;

	if (dev_require(ROLE_BBDISK) || host_attr_path("eh_deadline", path, sizeof(path)))
		return -1;
	f = fopen(path, "re");
	if (!f || !fgets(was, sizeof(was), f)) {
		if (f)
			fclose(f);
		return fail("cannot read '%s'", path);
	}
	fclose(f);
	was[strcspn(was, "\n")] = '\0';
	ret = ua_settle() || deadline_cases(path) ? -1 : 0;
	if (knob_write(path, was) || ret)
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}
