/*
 * t_lying_merge.c: lying-device-mixed-merge (issue 15: scsi_rq_err_bytes,
 * which only a failed request mixing fail-fast and normal bios reaches).
 *
 *   A readahead failing RESERVATION CONFLICT is dropped (one command) and
 *   its page then reads right alone.  An O_DIRECT read merged behind a
 *   readahead in one io_submit plug (a mixed merge: a normal bio behind
 *   fail-fast ones) and failed with RESERVATION CONFLICT: only the
 *   readahead's bios fail, the direct read is sent again alone and right.
 *
 * Disk sectors 1856..1927 and 1952..1983.  read_ahead_kb is 16 while it
 * runs, so the readahead windows are known: 2 pages, then 4.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Pages of 8 sectors; the mixed request is built at page MM_P + 2. */
#define MM_P		233u	/* sectors 1864..1871 */
#define RA_SECTOR	1952u	/* the plain readahead case: 1952..1983 */
#define RESERVATION_CONFLICT 0x18

static int set_read_ahead_kb(long long kb)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/read_ahead_kb", dev_name(ROLE_BBDISK));
	return knob_writef(path, "%lld", kb);
}

static void iocb_read(struct iocb *cb, int fd, void *buf, size_t len, uint64_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = IOCB_CMD_PREAD;
	cb->aio_fildes = (uint32_t)fd;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = (int64_t)off;
}

/*
 * One io_submit of three reads, which the kernel plugs as one batch: a
 * buffered read of page P + 1, which holds the readahead mark of the
 * window the earlier reads of pages P - 1 and P opened, so it starts the
 * next window (pages P + 2 .. P + 5, with read_ahead_kb 16) and returns
 * without waiting; an O_DIRECT read of pages P + 6 and P + 7, whose bio
 * joins the readahead request still in the plug: a normal bio behind
 * fail-fast ones, a mixed merge; and a buffered read of page P (cached).
 * The direct read's result in *res, its data in dbuf.
 */
static int mixed_batch(int fdb, int fdd, unsigned char *dbuf, long *res)
{
	aio_context_t ctx = 0;
	struct iocb cbs[3], *list[3] = { &cbs[0], &cbs[1], &cbs[2] };
	struct io_event ev[3];
	unsigned char *b1 = io_buf(4096), *b2 = io_buf(4096);
	int n = 0, ret = -1;

	*res = -1;
	if (syscall(SYS_io_setup, 4, &ctx)) {
		fail("io_setup: %s", strerror(errno));
		goto out;
	}
	iocb_read(&cbs[0], fdb, b1, 4096, (MM_P + 1) * 4096ull);
	iocb_read(&cbs[1], fdd, dbuf, 8192, (MM_P + 6) * 4096ull);
	iocb_read(&cbs[2], fdb, b2, 4096, MM_P * 4096ull);
	if (syscall(SYS_io_submit, ctx, 3, list) != 3) {
		fail("io_submit of the three reads: %s", strerror(errno));
		goto out;
	}
	while (n < 3) {
		long got = syscall(SYS_io_getevents, ctx, 1, 3 - n, &ev[n], NULL);

		if (got < 0) {
			fail("io_getevents: %s", strerror(errno));
			goto out;
		}
		n += (int)got;
	}
	for (int i = 0; i < 3; i++)
		if (ev[i].obj == (uint64_t)(uintptr_t)&cbs[1])
			*res = (long)ev[i].res;
	ret = 0;
out:
	if (ctx)
		syscall(SYS_io_destroy, ctx);
	free(b1);
	free(b2);
	return ret;
}

/* The device's commands: the first covers the readahead and the direct
 * read (the mixed request), the second the direct read alone (its bio,
 * sent again after the readahead's bios were failed). */
static int mixed_commands(void)
{
	struct bbt_cmd log[64];
	int n = bbtest_log_read(log, 64), k = 0;
	const uint64_t ra = (MM_P + 2) * 8ull, dio = (MM_P + 6) * 8ull;

	for (int i = 0; i < n; i++) {
		if (log[i].lun != 0 || log[i].lba + log[i].blocks <= ra)
			continue;
		diag("command: sector %llu, %llu block(s)%s", (unsigned long long)log[i].lba,
		     (unsigned long long)log[i].blocks, log[i].rule ? " (scripted)" : "");
		if (k == 0 && (log[i].lba != ra || log[i].blocks != 48))
			return fail("the readahead and the direct read were not one request (sector"
				    " %llu for %llu, want %llu for 48): no mixed merge to test",
				    (unsigned long long)log[i].lba,
				    (unsigned long long)log[i].blocks, (unsigned long long)ra);
		if (k == 1 && (log[i].lba != dio || log[i].blocks != 16))
			return fail("after the failed mixed request the device got sector %llu for"
				    " %llu, want the direct read alone (%llu for 16)",
				    (unsigned long long)log[i].lba,
				    (unsigned long long)log[i].blocks, (unsigned long long)dio);
		k++;
	}
	if (k != 2)
		return fail("%d command(s) for the mixed request, want 2", k);
	return 0;
}

static int mixed_merge(void)
{
	int fdb = io_open(ROLE_BBDISK, O_RDONLY), fdd = io_open(ROLE_BBDISK, O_RDONLY | O_DIRECT);
	unsigned char *dbuf = io_buf(8192), *pbuf = io_buf(4096);
	long res = -1;
	int ret = -1;

	if (fdb < 0 || fdd < 0 || io_drop_cache(fdb))
		goto out;
	/* pages P - 1 then P: a sequential start, so the window of P is
	 * pages P and P + 1 with the readahead mark on P + 1 */
	if (io_pread(fdb, pbuf, 4096, (MM_P - 1) * 4096ull) != 4096 ||
	    io_pread(fdb, pbuf, 4096, MM_P * 4096ull) != 4096) {
		fail("buffered reads of pages %u and %u failed", MM_P - 1, MM_P);
		goto out;
	}
	if (bbtest_clear() || rulef("lun=0 lba=%u status=%d copy=0 resid=rest",
				    (MM_P + 6) * 8, RESERVATION_CONFLICT) ||
	    mixed_batch(fdb, fdd, dbuf, &res))
		goto out;
	diag("the direct read in the mixed request: %ld", res);
	if (mixed_commands())
		goto out;
	if (res != 8192) {
		fail("the direct read merged behind a failed readahead: %s, want its 8192 bytes"
		     " (only the readahead's bios fail)", res < 0 ? strerror((int)-res) : "short");
		goto out;
	}
	ret = pat_expect(dbuf, 8192, (MM_P + 6) * 4096ull, 0, "the direct read");
out:
	if (fdb >= 0)
		close(fdb);
	if (fdd >= 0)
		close(fdd);
	free(dbuf);
	free(pbuf);
	return ret;
}

/* A readahead alone (all its bios fail-fast) failing RESERVATION CONFLICT:
 * quietly dropped, and the page then reads right on its own. */
static int plain_readahead(void)
{
	int fd = io_open(ROLE_BBDISK, O_RDONLY), ret = -1, seen, oob;

	if (fd < 0 || io_drop_cache(fd) || bbtest_clear() ||
	    rulef("lun=0 lba=%u status=%d copy=0 resid=rest", RA_SECTOR + 8, RESERVATION_CONFLICT))
		goto out;
	if (readahead(fd, RA_SECTOR * SECTOR, 16384)) {
		fail("readahead(2): %s", strerror(errno));
		goto out;
	}
	seen = bbtest_log_count(0, RA_SECTOR, 32, &oob);
	diag("readahead of 16 KiB failing RESERVATION CONFLICT: %d command(s)", seen);
	if (seen != 1) {
		fail("a readahead failing RESERVATION CONFLICT took %d commands, want 1", seen);
		goto out;
	}
	close(fd);
	fd = -1;
	ret = expect_right("the page after it", ROLE_BBDISK, RA_SECTOR * SECTOR, 4096, 0,
			   RA_SECTOR, 8, 2);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

int t_lying_mixed_merge(void)
{
	long long ra_kb;
	int ret;

	if (dev_require(ROLE_BBDISK))
		return -1;
	ra_kb = dev_sysfs_number(ROLE_BBDISK, "queue/read_ahead_kb");
	if (ra_kb < 0 || set_read_ahead_kb(16))
		return -1;
	ret = plain_readahead() || mixed_merge();
	if (set_read_ahead_kb(ra_kb) || ret)
		return -1;
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}
