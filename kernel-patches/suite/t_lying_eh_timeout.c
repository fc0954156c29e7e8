/*
 * t_lying_eh_timeout.c: the error handler and the device's queue (issue
 * 24), on scsi_bbtest's disk and CD: commands the device never answers,
 * what a UNIT ATTENTION 3f/0e makes a target expect, queue depth ramp-up.
 * The helpers (eh_case: one READ, what the device saw) are t_lying_eh.c's.
 *
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
 *   lying-device-eh-lun-change  a READ answered UNIT ATTENTION 3f/0e: the
 *                            target expects it from every LUN; a good SG_IO
 *                            REPORT LUNS ends that: a NOT READY 3f/0e is
 *                            then EIO after one READ, not retried
 *   lying-device-eh-ramp-up  the disk's queue depth lowered by the driver
 *                            (scsi_bbtest.disk_queue_depth) 2 below its
 *                            maximum, track_queue_depth: with a ramp-up
 *                            period of 1 s, the error handler's TEST UNIT
 *                            READY answered TASK SET FULL once: the depth
 *                            stays; with 0, a READ answered DID_TIME_OUT
 *                            brings it back (the error handler's TEST UNIT
 *                            READY, +1; the READ sent again, +1)
 *
 * Disk sectors 1928..1951 (each case clears the device's log first), CD
 * 2K block 10.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOT_READY	2
#define UNIT_ATTENTION	6
#define DID_TIME_OUT	3

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
	long long max = eh_disk_attr_get("max_medium_access_timeouts");
	char v[32];
	int ret;

	if (max < 0)
		return fail("cannot read the disk's max_medium_access_timeouts");
	if (eh_disk_attr("max_medium_access_timeouts", "8"))
		return -1;
	ret = eh_case("READ answered DID_TIME_OUT 6 times", EH_TIMED_OUT " count=6", NULL, EIO, &six);
	snprintf(v, sizeof(v), "%lld", max);
	if (eh_disk_attr("max_medium_access_timeouts", v))
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
int disk_hctl(char *out, size_t n)
{
	struct hctl at;

	if (dev_hctl(ROLE_BBDISK, &at))
		return -1;
	snprintf(out, n, "%d:%d:%d:%d", at.host, at.channel, at.target, at.lun);
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
	if (eh_counters_clear() || rulef("lun=0 lba=%u %s", EH_SECTOR + 2, EH_TIMED_OUT) ||
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
	eh_seen_read(&got);
	diag("a disk READ never answered the second time, a CD READ never answered: disk %s,"
	     " CD %s; %s", what(res), what(cd), eh_seen_str(&got, a, sizeof(a)));
	if (res != -EIO || cd || !eh_seen_eq(&got, &lost))
		return fail("READs never answered: disk %s, CD %s after %s; want disk %s, CD right"
			    " after %s", what(res), what(cd), a, strerror(EIO),
			    eh_seen_str(&lost, b, sizeof(b)));
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
	ret = knob_write(pd, "200") || knob_write(pc, "200") || eh_disk_attr("max_retries", "1");
	if (!ret)
		ret = lost_both();
	if (eh_disk_attr("max_retries", "5") || ret)	/* sd's default */
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

/* --- lying-device-eh-lun-change ---------------------------------------- */

#define OP_REPORT_LUNS	0xa0

/* SG_IO REPORT LUNS to the disk, answered GOOD (scripted: scsi_bbtest's
 * targets are SCSI-2 and refuse it otherwise): 0 or fail(). */
static int report_luns(void)
{
	unsigned char cdb[12] = { OP_REPORT_LUNS }, buf[16];
	struct sgio_result res;
	int fd, ret;

	cdb[9] = sizeof(buf);
	if (bbtest_opcodes_clear() || rulef("lun=0 op=0x%02x", OP_REPORT_LUNS))
		return -1;
	fd = io_open(ROLE_BBDISK, O_RDONLY);
	if (fd < 0)
		return -1;
	ret = sgio(fd, cdb, sizeof(cdb), buf, sizeof(buf), &res);
	close(fd);
	if (ret)
		return -1;
	diag("REPORT LUNS: status 0x%x, host 0x%x, %d command(s)", res.status, res.host_status,
	     bbtest_opcount(0, OP_REPORT_LUNS));
	if (res.status || res.host_status || bbtest_opcount(0, OP_REPORT_LUNS) != 1)
		return fail("SG_IO REPORT LUNS: status 0x%x, host 0x%x after %d command(s); want"
			    " GOOD after 1", res.status, res.host_status,
			    bbtest_opcount(0, OP_REPORT_LUNS));
	return 0;
}

/*
 * A UNIT ATTENTION 3f/0e (REPORTED LUNS DATA HAS CHANGED) makes the target
 * expect one from each of its LUNs (expecting_lun_change: retried, under
 * any key); a good REPORT LUNS ends that.  After it, a NOT READY 3f/0e is
 * no longer retried: EIO after one READ.
 */
int t_lying_eh_lun_change(void)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen retried = { 2, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const struct eh_seen once = { 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	char rule[128], sense[64];

	if (dev_require(ROLE_BBDISK))
		return -1;
	sense_q(sense, false, UNIT_ATTENTION, 0x3f, 0x0e, false, 0);
	snprintf(rule, sizeof(rule), "status=2 sense=%s copy=0 resid=rest", sense);
	if (eh_case("UNIT ATTENTION 3f/0e: retried", rule, NULL, 0, &retried) || report_luns())
		return -1;
	sense_q(sense, false, NOT_READY, 0x3f, 0x0e, false, 0);
	snprintf(rule, sizeof(rule), "status=2 sense=%s copy=0 resid=rest", sense);
	if (eh_case("after REPORT LUNS, NOT READY 3f/0e: not retried", rule, NULL, EIO, &once))
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}

/* --- lying-device-eh-ramp-up ------------------------------------------- */

static long long disk_depth(void)
{
	return dev_sysfs_number(ROLE_BBDISK, "device/queue_depth");
}

/* With the depth two below its maximum: each GOOD completion ramps it up
 * by one, the error handler's TEST UNIT READY too. */
static int ramp_case(long long was)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen tested = { 2, 0, 0, 1, 0, 1, 0, 0, 0 };
	long long before = disk_depth(), after;

	if (before != was - 2)
		return fail("the driver set the disk's queue depth to %lld: it has %lld", was - 2,
			    before);
	if (eh_case("DID_TIME_OUT, the queue depth 2 below its maximum", EH_TIMED_OUT, NULL, 0,
		    &tested))
		return -1;
	after = disk_depth();
	diag("queue depth %lld -> %lld (the error handler's TEST UNIT READY and the READ)",
	     before, after);
	if (after != was)
		return fail("queue depth %lld -> %lld after a TEST UNIT READY and a READ, both good;"
			    " want %lld", before, after, was);
	return 0;
}

/* The error handler's TEST UNIT READY answered TASK SET FULL once: the
 * midlayer notes the time (scsi_track_queue_full), and no good command
 * ramps the depth up within the ramp-up period (1 s) after it. */
static int full_case(long long was)
{
	/* reads, RS, STU, TUR, abort, device, bus, host, refused */
	static const struct eh_seen full = { 2, 0, 0, 2, 0, 1, 0, 0, 0 };
	long long before = disk_depth(), after;

	if (before != was - 2)
		return fail("the driver set the disk's queue depth to %lld: it has %lld", was - 2,
			    before);
	if (eh_case("DID_TIME_OUT, TEST UNIT READY answered TASK SET FULL", EH_TIMED_OUT,
		    "lun=0 op=0x00 status=0x28", 0, &full))
		return -1;
	after = disk_depth();
	diag("queue depth %lld -> %lld (a TASK SET FULL just before)", before, after);
	if (after != before)
		return fail("queue depth %lld -> %lld within the ramp-up period after a TASK SET"
			    " FULL; want no change", before, after);
	return 0;
}

/*
 * The midlayer ramps a queue depth the driver lowered back up (with
 * track_queue_depth): by one per good command, the error handler's own
 * commands included, but not within queue_ramp_up_period after a TASK SET
 * FULL, the error handler's TEST UNIT READY's included.
 */
int t_lying_eh_ramp_up(void)
{
	long long was = disk_depth(), period;
	char qd[160], rp[160];
	int ret;

	if (dev_require(ROLE_BBDISK))
		return -1;
	period = dev_sysfs_number(ROLE_BBDISK, "device/queue_ramp_up_period");
	if (was < 3 || period < 0)
		return fail("the disk's queue depth %lld, ramp-up period %lld", was, period);
	snprintf(qd, sizeof(qd), "/sys/block/%s/device/queue_depth", dev_name(ROLE_BBDISK));
	snprintf(rp, sizeof(rp), "/sys/block/%s/device/queue_ramp_up_period",
		 dev_name(ROLE_BBDISK));
	/* sysfs sets the maximum too; the driver's change leaves it */
	ret = knob_writef(qd, "%lld", was) || bbtest_param("track_queue_depth", 1) ||
	      knob_write(rp, "1000") || bbtest_param("disk_queue_depth", was - 2) ||
	      full_case(was) || knob_write(rp, "0");
	if (!ret)
		ret = ramp_case(was);
	if (bbtest_param("track_queue_depth", 0) || knob_writef(rp, "%lld", period) ||
	    knob_writef(qd, "%lld", was) || ret)
		return -1;
	return lying_finish(0, EH_SECTOR, EH_LEN / SECTOR);
}
