/*
 * t_lying_runtime.c: the midlayer's limit on how long one command may be
 * retried (issue 15).  Retries that are not counted (a device answering
 * BUSY, or NOT READY "format in progress") would go on for ever; 6.1 ends
 * them once a command is older than (allowed + 1) x its timeout, in
 * scsi_complete (for BUSY, ADD_TO_MLQUEUE) and in
 * scsi_io_completion_action (for a delayed retry).
 *
 *   lying-device-runtime-limit  with the scsi_bbtest disk's request timeout
 *       at 200 ms (queue/io_timeout; the block layer's timer rounds up
 *       to a whole second, and the device answers at once, so no command
 *       times out), the limit is (5 + 1) x 200 ms = 1.2 s.  Two reads:
 *       one answered BUSY, the other NOT READY 04/04, each for up to
 *       1000 commands: both fail with EIO after about 1.2 s each (the
 *       second waits for the first), long before the device runs out of
 *       scripted answers.  The timeout is put back.  The only test that
 *       waits: about 2.5 s of the boot.
 *
 * Disk region (512-byte sectors): 1152..1183.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* O_DIRECT read of 8 KiB at sector s: the negative errno, 0 right data,
 * 1 wrong data or short. */
static int read8k(uint64_t s)
{
	int fd = io_open(ROLE_BBDISK, O_RDONLY | O_DIRECT), ret;
	unsigned char *buf = io_buf(8192);
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return 1;
	}
	n = io_pread(fd, buf, 8192, s * SECTOR);
	ret = n < 0 ? (int)n : n != 8192 || pat_check(buf, 8192, s * SECTOR, 0) >= 0;
	free(buf);
	close(fd);
	return ret;
}

static int both_fail(void)
{
	int got, st = 0, child;
	pid_t pid = fork();

	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(read8k(1168) == -EIO ? 0 : 1);
	got = read8k(1152);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return fail("the second reader did not finish");
	child = WEXITSTATUS(st);
	diag("NOT READY 04/04 for ever: %s; BUSY for ever: %s",
	     got < 0 ? strerror(-got) : got ? "wrong data" : "success",
	     child ? "not EIO" : "Input/output error");
	if (got != -EIO)
		return fail("NOT READY 04/04 on every try: %s, want EIO once the command is older"
			    " than (5 + 1) x 200 ms", got < 0 ? strerror(-got) : got ? "wrong data" :
			    "success (retried until the device gave in)");
	if (child)
		return fail("BUSY on every try: no EIO, want EIO once the command is older than"
			    " (5 + 1) x 200 ms");
	return 0;
}

int t_lying_runtime_limit(void)
{
	char old[32] = "30000", sense[64];
	unsigned char s[18] = { 0x70, 0, 2, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x04, 0x04 };
	int ret = -1, seen;

	lying_hex(sense, s, sizeof(s));
	if (dev_require(ROLE_BBDISK) || bbtest_clear() || disk_io_timeout(old, sizeof(old), "200"))
		return -1;
	if (!rulef("lun=0 lba=1154 status=2 sense=%s copy=0 resid=rest count=1000", sense) &&
	    !rulef("lun=0 lba=1170 status=8 copy=0 resid=rest count=1000"))
		ret = both_fail();
	seen = bbtest_pending();
	diag("scripted answers left: %d rule(s) (each had 1000)", seen);
	if (!ret && seen != 2)
		ret = fail("%d rules left: a read outlived its 1000 scripted answers", seen);
	if (bbtest_clear() | disk_io_timeout(NULL, 0, old))
		ret = -1;
	return ret;
}
