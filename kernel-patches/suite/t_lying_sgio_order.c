/*
 * t_lying_sgio_order.c: where SG_IO puts its command in the queue (issue
 * 24: sg_io's SG_FLAG_Q_AT_HEAD).
 *
 *   lying-device-sgio-at-head  the disk at queue depth 1 with a READ held
 *                          by the device (delay=, then "release"): an
 *                          SG_IO READ waits in the queue, then one with
 *                          SG_FLAG_Q_AT_HEAD; once the held one is
 *                          answered, the device gets the one at the head
 *                          first; all three end GOOD; the queue depth is
 *                          put back
 *   lying-device-sgio-tag-wait  the disk's queue at nr_requests 4 (its
 *                          tags), four READs held by the device take them
 *                          all: an SG_IO READ then waits for a tag
 *                          (blk-mq's debugfs: ws_active 1), it does not
 *                          fail, and ends GOOD once they are answered;
 *                          nr_requests is put back
 *
 * Disk sectors 1660..1671, 1676..1691.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <scsi/sg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the kernel's uapi scsi/sg.h has it, glibc's does not */
#ifndef SG_FLAG_Q_AT_HEAD
#define SG_FLAG_Q_AT_HEAD	0x20
#endif

#define HELD	1660
#define WAITING	1664
#define AT_HEAD	1668

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A child doing SG_IO READ(10) of one sector at s (flags: SG_FLAG_*);
 * it exits 0 when the command ended GOOD. */
static pid_t sgio_child(uint64_t s, unsigned int flags)
{
	pid_t pid = fork();

	if (pid == 0) {
		unsigned char cdb[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0 }, sense[32], buf[SECTOR];
		struct sg_io_hdr h;
		int fd = open(dev_node(ROLE_BBDISK), O_RDWR | O_CLOEXEC);

		for (int i = 0; i < 4; i++)
			cdb[2 + i] = (unsigned char)(s >> (24 - 8 * i));
		memset(&h, 0, sizeof(h));
		h.interface_id = 'S';
		h.dxfer_direction = SG_DXFER_FROM_DEV;
		h.cmd_len = sizeof(cdb);
		h.cmdp = cdb;
		h.dxferp = buf;
		h.dxfer_len = sizeof(buf);
		h.sbp = sense;
		h.mx_sb_len = sizeof(sense);
		h.timeout = 20000;
		h.flags = flags;
		_exit(fd < 0 || ioctl(fd, SG_IO, &h) < 0 || h.status || h.host_status);
	}
	return pid;
}

/* Requests waiting in the disk's hardware queue's dispatch list, or -1. */
static int dispatch_waiting(void)
{
	char path[128], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/block/%s/hctx0/dispatch",
		 dev_name(ROLE_BBDISK));
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/* Wait (up to 5 s) for cond() to reach want: 0 or fail(). */
static int wait_for(const char *what, int (*cond)(void), int want)
{
	int got = -1;

	for (int i = 0; i < 500; i++) {
		got = cond();
		if (got == want)
			return 0;
		nap_ms(10);
	}
	return fail("%s: %d after 5 s, want %d", what, got, want);
}

static int rules_left(void)
{
	return bbtest_pending();
}

/* The order the device answered the three READs in: 0 or fail(). */
static int answer_order(void)
{
	struct bbt_cmd log[64];
	int n = bbtest_log_read(log, 64), pos[3] = { -1, -1, -1 };
	const uint64_t lba[3] = { HELD, WAITING, AT_HEAD };

	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			if (log[i].lun == 0 && log[i].lba == lba[k] && pos[k] < 0)
				pos[k] = i;
	diag("the device's log positions: the held READ %d, the waiting one %d, the one at the"
	     " head %d", pos[0], pos[1], pos[2]);
	if (pos[0] < 0 || pos[1] < 0 || pos[2] < 0)
		return fail("the device did not get all three READs (log positions %d %d %d)",
			    pos[0], pos[1], pos[2]);
	if (!(pos[0] < pos[2] && pos[2] < pos[1]))
		return fail("SG_FLAG_Q_AT_HEAD: the device got the READ queued at the head %s the"
			    " one that waited before it (log positions: held %d, waiting %d, at the"
			    " head %d)", pos[2] > pos[1] ? "after" : "before the held one or after",
			    pos[0], pos[1], pos[2]);
	return 0;
}

static int at_head(void)
{
	pid_t kids[3] = { -1, -1, -1 };
	int ret = -1, st, bad = 0;

	if (rulef("lun=0 lba=%d delay=20000", HELD) || (kids[0] = sgio_child(HELD, 0)) < 0 ||
	    wait_for("timing rules left once the READ is held", rules_left, 0) ||
	    (kids[1] = sgio_child(WAITING, 0)) < 0 ||
	    wait_for("requests waiting in the queue", dispatch_waiting, 1) ||
	    (kids[2] = sgio_child(AT_HEAD, SG_FLAG_Q_AT_HEAD)) < 0 ||
	    wait_for("requests waiting in the queue", dispatch_waiting, 2))
		goto out;
	ret = 0;
out:
	bbtest_rule("release");
	for (int k = 0; k < 3; k++) {
		if (kids[k] <= 0)
			continue;
		if (waitpid(kids[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	if (ret)
		return -1;
	if (bad)
		return fail("%d of the three SG_IO READs did not end GOOD", bad);
	return answer_order();
}

int t_lying_sgio_at_head(void)
{
	char path[160], old[16] = "4";
	int ret;

	if (dev_require(ROLE_BBDISK) || bbtest_clear())
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/queue_depth", dev_name(ROLE_BBDISK));
	if (knob_read(path, old, sizeof(old)))
		return -1;
	if (knob_write(path, "1"))
		return -1;
	ret = at_head();
	if (knob_write(path, old))
		return -1;
	return ret;
}

/* --- lying-device-sgio-tag-wait ---------------------------------------- */

#define TAGS	4
#define TAGGED	1676	/* TAGS held READs at TAGGED + 2k, the waiting one after */

/* Tasks waiting for one of the disk's tags (the scheduler's, or the
 * driver's without a scheduler): ws_active in blk-mq's debugfs, or -1. */
static int tag_waiters(void)
{
	static const char *const files[] = { "sched_tags", "tags" };
	char path[160], line[256];
	int n = -1;

	for (int i = 0; i < 2 && n < 0; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/debug/block/%s/hctx0/%s",
			 dev_name(ROLE_BBDISK), files[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (n < 0 && fgets(line, sizeof(line), f))
			if (sscanf(line, "ws_active=%d", &n) != 1)
				n = -1;
		fclose(f);
	}
	return n;
}

static int tag_wait(void)
{
	pid_t kids[TAGS + 1];
	int ret = -1, st, bad = 0, early = 0, early_st = 0;

	for (int k = 0; k <= TAGS; k++)
		kids[k] = -1;
	if (rulef("lun=0 op=read delay=20000 count=%d", TAGS))
		goto out;
	for (int k = 0; k < TAGS; k++)
		if ((kids[k] = sgio_child(TAGGED + 2 * k, 0)) < 0)
			goto out;
	if (wait_for("timing rules left once the READs are held", rules_left, 0))
		goto out;
	kids[TAGS] = sgio_child(TAGGED + 2 * TAGS, 0);
	if (kids[TAGS] < 0)
		goto out;
	/* it must wait for a tag (a failed allocation ends it at once) */
	for (int i = 0; i < 1000 && !early && tag_waiters() < 1; i++) {
		early = waitpid(kids[TAGS], &early_st, WNOHANG) == kids[TAGS];
		nap_ms(5);
	}
	if (early)
		kids[TAGS] = -1;
	else if (tag_waiters() < 1)
		goto out;
	ret = 0;
out:
	bbtest_rule("release");
	for (int k = 0; k <= TAGS; k++) {
		if (kids[k] <= 0)
			continue;
		if (waitpid(kids[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	if (ret)
		return fail("SG_IO READ with every tag taken: no task waits for a tag after 5 s");
	diag("SG_IO READ with every tag taken: %s; %d of %d SG_IO READs did not end GOOD",
	     early ? "ended before the tags came free" : "waited", bad, TAGS + 1);
	if (early && (!WIFEXITED(early_st) || WEXITSTATUS(early_st)))
		return fail("SG_IO READ with all %d tags taken failed at once, want it to wait for"
			    " a tag", TAGS);
	if (early)
		return fail("SG_IO READ with all %d tags taken ended before they came free", TAGS);
	if (bad)
		return fail("%d of the %d SG_IO READs did not end GOOD", bad, TAGS + 1);
	return 0;
}

int t_lying_sgio_tag_wait(void)
{
	char path[160], old[16] = "32";
	int ret;

	if (dev_require(ROLE_BBDISK) || bbtest_clear())
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/nr_requests", dev_name(ROLE_BBDISK));
	if (knob_read(path, old, sizeof(old)))
		return -1;
	diag("nr_requests %s, down to %d", old, TAGS);
	if (knob_writef(path, "%d", TAGS))
		return -1;
	ret = tag_wait();
	if (knob_write(path, old))
		return -1;
	return ret;
}
