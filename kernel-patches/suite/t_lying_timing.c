/*
 * t_lying_timing.c: commands the device answers late or completes twice
 * (issue 24: the timeout each kind of command is given, and the
 * midlayer's guard against a second completion).  scsi_bbtest's timing
 * rules: delay=MS holds a command's answer, twice=1 calls scsi_done again.
 *
 *   lying-device-timeouts  with the disk's queue timeout at 100 ms
 *                          (queue/io_timeout; the block layer's timer
 *                          fires on the next whole second, so by 1.1 s),
 *                          two commands answered 1.5 s late, at once: a
 *                          rescan's READ CAPACITY(10) (sd asks for
 *                          SD_TIMEOUT, 30 s: __scsi_execute's timeout) and
 *                          a SCSI_IOCTL_SEND_COMMAND READ(10) (60 s,
 *                          BLK_DEFAULT_SG_TIMEOUT): neither times out, each
 *                          is sent once, 2048 sectors and the right data;
 *                          the timeout is put back
 *   lying-device-double-done  a read the device completes twice: the right
 *                          data, and the midlayer counts one completion
 *                          (iodone_cnt and iorequest_cnt up by one,
 *                          device_busy back to 0)
 *
 * Disk sectors 1616..1631 (timeouts), 1632..1647 (double-done).
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OP_READ_CAPACITY	0x25
#define SCSI_IOCTL_SEND_COMMAND	1
#define HOLD_MS			1500

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The child: a rescan of the disk; exit 0 when it is 2048 sectors. */
static void rescan_child(void)
{
	char path[256];

	double t0 = now();
	int bad;

	kmsg_reopen();
	snprintf(path, sizeof(path), "/sys/block/%s/device/rescan", dev_name(ROLE_BBDISK));
	bad = knob_write(path, "1") || dev_sectors(ROLE_BBDISK) != (long long)BBDISK_SECTORS;
	t0 = now() - t0;
	diag("the rescan took %.2f s", t0);
	fflush(stdout);
	_exit(bad ? 1 : t0 < HOLD_MS / 1000.0 - 0.05 ? 2 : 0);
}

struct send_cmd {
	unsigned int inlen, outlen;
	unsigned char data[SECTOR + 16];
};

/* SCSI_IOCTL_SEND_COMMAND READ(10) of sector s: 0 and the right data, or
 * fail(); the seconds it took in *secs. */
static int send_read(uint64_t s, double *secs)
{
	struct send_cmd sc = { 0, SECTOR, { 0x28 } };
	int fd = io_open(ROLE_BBDISK, O_RDWR), got;
	double t0 = now();

	if (fd < 0)
		return -1;
	for (int i = 0; i < 4; i++)
		sc.data[2 + i] = (unsigned char)(s >> (24 - 8 * i));
	sc.data[8] = 1;
	got = ioctl(fd, SCSI_IOCTL_SEND_COMMAND, &sc);
	got = got < 0 ? -errno : got;
	*secs = now() - t0;
	close(fd);
	diag("SCSI_IOCTL_SEND_COMMAND READ(10) answered %d ms late: %d after %.2f s", HOLD_MS,
	     got, *secs);
	if (got)
		return fail("SCSI_IOCTL_SEND_COMMAND READ(10) answered %d ms late: %d, want 0", HOLD_MS,
			    got);
	return pat_expect(sc.data, SECTOR, s * SECTOR, 0, "SCSI_IOCTL_SEND_COMMAND data");
}

/* Both late commands at once; the queue timeout is already short. */
static int late_pair(void)
{
	int st = 0, ret, rc, sent, oob;
	double secs;
	pid_t pid;

	if (bbtest_opcodes_clear() ||
	    rulef("lun=0 op=0x%02x delay=%d", OP_READ_CAPACITY, HOLD_MS) ||
	    rulef("lun=0 lba=1618 delay=%d", HOLD_MS))
		return -1;
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (pid == 0)
		rescan_child();
	ret = send_read(1618, &secs);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return fail("the rescan did not finish");
	rc = bbtest_opcount(0, OP_READ_CAPACITY);
	sent = bbtest_log_count(0, 1618, 1, &oob);
	diag("rescan with READ CAPACITY(10) answered %d ms late: %s, %d READ CAPACITY;"
	     " %d READ(10) of SCSI_IOCTL_SEND_COMMAND", HOLD_MS,
	     WEXITSTATUS(st) ? "wrong size" : "2048 sectors", rc, sent);
	if (ret)
		return -1;
	if (WEXITSTATUS(st) == 1 || rc != 1)
		return fail("rescan with READ CAPACITY(10) answered %d ms late: %lld sectors after %d"
			    " READ CAPACITY, want 2048 after 1 (sd gives it 30 s)", HOLD_MS,
			    dev_sectors(ROLE_BBDISK), rc);
	if (WEXITSTATUS(st))
		return fail("the rescan ended before its READ CAPACITY was answered %d ms late",
			    HOLD_MS);
	if (sent != 1)
		return fail("SCSI_IOCTL_SEND_COMMAND READ(10) answered %d ms late: sent %d times,"
			    " want once (it has 60 s)", HOLD_MS, sent);
	if (secs < HOLD_MS / 1000.0 - 0.05)
		return fail("SCSI_IOCTL_SEND_COMMAND took %.2f s: the answer was not held", secs);
	return 0;
}

int t_lying_timeouts(void)
{
	char old[32] = "30000";
	int ret;

	if (dev_require(ROLE_BBDISK) || bbtest_clear() || disk_io_timeout(old, sizeof(old), "100"))
		return -1;
	ret = late_pair();
	if (disk_io_timeout(NULL, 0, old))
		return -1;
	if (ret)
		return -1;
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}

/* --- lying-device-double-done ------------------------------------------ */

int t_lying_double_done(void)
{
	long long done0, req0, done, req, busy;

	if (dev_require(ROLE_BBDISK) || bbtest_clear() || rulef("lun=0 lba=1634 twice=1"))
		return -1;
	done0 = dev_counter(ROLE_BBDISK, "iodone_cnt");
	req0 = dev_counter(ROLE_BBDISK, "iorequest_cnt");
	if (expect_right("a read completed twice", ROLE_BBDISK, 1632 * SECTOR, 8192, 0, 1632, 16,
			 1))
		return -1;
	done = dev_counter(ROLE_BBDISK, "iodone_cnt") - done0;
	req = dev_counter(ROLE_BBDISK, "iorequest_cnt") - req0;
	busy = dev_sysfs_number(ROLE_BBDISK, "device/device_busy");
	diag("a read completed twice: iodone_cnt +%lld, iorequest_cnt +%lld, device_busy %lld",
	     done, req, busy);
	if (done != 1 || req != 1 || busy != 0)
		return fail("a read completed twice: iodone_cnt +%lld, iorequest_cnt +%lld,"
			    " device_busy %lld; want +1, +1, 0 (the second completion ignored)",
			    done, req, busy);
	return lying_finish(0, 1632, 16);
}
