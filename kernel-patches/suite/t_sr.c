/*
 * t_sr.c: the sr-* tests, on QEMU scsi-cd devices (2048-byte blocks) behind
 * blkdebug, which reports MEDIUM ERROR with neither VALID nor INFO.
 *
 * cdbig (2 MiB, bad 512-byte sector 3000 = 2K block 750) is large enough
 * that sr_done's "medium error in the last 75 2K sectors" trimming never
 * applies; cdsmall (128 KiB, bad sector 200 = 2K block 50) is small enough
 * that it always does.  sr-capacity writes an ext2 file system through a
 * writable scsi-hd alias of cdsmall's image, then reads its file through the
 * CD: the path by which bug 9370's "attempt to access beyond end of device"
 * reaches a user.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define CD_BLOCK 2048u

static bool io_failed(ssize_t n)
{
	return n == -EIO || n == -ENODATA;
}

/* Read 2K blocks [b, b + n) with fd; want good data or, if bad, failure. */
static int cd_read(int fd, uint64_t b, uint64_t n, bool want_fail, const char *what)
{
	size_t len = n * CD_BLOCK;
	unsigned char *buf = io_buf(len);
	ssize_t r = io_pread(fd, buf, len, b * CD_BLOCK);
	int ret = 0;

	if (r > 0 && pat_check(buf, (size_t)r, b * CD_BLOCK, 0) >= 0)
		ret = pat_expect(buf, (size_t)r, b * CD_BLOCK, 0, what);
	else if (want_fail && !io_failed(r))
		ret = fail("%s: read of 2K blocks %llu..%llu returned %zd, want EIO", what,
			   (unsigned long long)b, (unsigned long long)(b + n - 1), r);
	else if (!want_fail && r != (ssize_t)len)
		ret = fail("%s: read of 2K blocks %llu..%llu: %s", what,
			   (unsigned long long)b, (unsigned long long)(b + n - 1),
			   r < 0 ? strerror((int)-r) : "short read");
	free(buf);
	return ret;
}

static int size_is(enum role r, long long want)
{
	long long size = dev_sectors(r);

	if (size != want)
		return fail("%s: size %lld sectors, want %lld", dev_name(r), size, want);
	return 0;
}

int t_sr_read(void)
{
	int dfd = io_open(ROLE_CDBIG, O_RDONLY | O_DIRECT), bfd = -1, ret = -1;
	uint64_t bad = CDBIG_BAD_SECTOR / 4, blocks = CDBIG_SECTORS / 4;
	unsigned char buf[CD_BLOCK];

	if (dfd < 0)
		return -1;
	bfd = io_open(ROLE_CDBIG, O_RDONLY);
	if (bfd < 0 || size_is(ROLE_CDBIG, CDBIG_SECTORS))
		goto out;
	for (uint64_t b = 0; b + 32 <= (bad & ~31ull); b += 32)
		if (cd_read(dfd, b, 32, false, "O_DIRECT read of the disc"))
			goto out;
	for (uint64_t b = (bad | 31) + 1; b < blocks; b += 32)
		if (cd_read(dfd, b, 32, false, "O_DIRECT read of the disc"))
			goto out;
	if (cd_read(dfd, blocks - 1, 1, false, "last 2K block"))
		goto out;
	if (io_pread(dfd, buf, CD_BLOCK, blocks * CD_BLOCK) != 0) {
		fail("read at the end of the disc did not return EOF");
		goto out;
	}
	if (io_drop_cache(bfd) || cd_read(bfd, 0, 32, false, "buffered read") ||
	    cd_read(bfd, blocks - 8, 8, false, "buffered read of the end"))
		goto out;
	ret = size_is(ROLE_CDBIG, CDBIG_SECTORS);
out:
	if (bfd >= 0)
		close(bfd);
	close(dfd);
	return ret;
}

int t_sr_medium_error(void)
{
	int dfd = io_open(ROLE_CDBIG, O_RDONLY | O_DIRECT), bfd = -1, ret = -1;
	uint64_t bad = CDBIG_BAD_SECTOR / 4;

	if (dfd < 0)
		return -1;
	bfd = io_open(ROLE_CDBIG, O_RDONLY);
	if (bfd < 0)
		goto out;
	diag("cdbig: blkdebug ENODATA at 2K block %llu", (unsigned long long)bad);
	if (cd_read(dfd, bad & ~31ull, 32, true, "O_DIRECT 64 KiB read across the bad block"))
		goto out;
	for (uint64_t b = bad - 10; b < bad; b++)
		if (cd_read(dfd, b, 1, false, "block before the bad one"))
			goto out;
	if (cd_read(dfd, bad, 1, true, "the bad block alone"))
		goto out;
	for (uint64_t b = bad + 1; b < bad + 11; b++)
		if (cd_read(dfd, b, 1, false, "block after the bad one"))
			goto out;
	if (io_drop_cache(bfd) ||
	    cd_read(bfd, (bad & ~1ull) - 2, 2, false, "buffered read of the page before") ||
	    cd_read(bfd, bad & ~1ull, 2, true, "buffered read of the bad page") ||
	    cd_read(bfd, (bad & ~1ull) + 2, 2, false, "buffered read of the page after"))
		goto out;
	ret = size_is(ROLE_CDBIG, CDBIG_SECTORS);
out:
	if (bfd >= 0)
		close(bfd);
	close(dfd);
	return ret;
}

/* --- sr-capacity -------------------------------------------------------- */

#define FILE_BYTES (96 * 1024)
#define FILE_SEED 0xf11e

/* Make ext2 on the alias, write the file, return the file offset of the
 * 2K block that holds the bad sector (-1 and fail() otherwise). */
static long long make_fs(void)
{
	const char *argv[] = { "/bin/busybox", "mke2fs", "-F", "-b", "2048", "-m", "0",
			       "-i", "16384", dev_node(ROLE_CDALIAS), NULL };
	unsigned char *buf = io_buf(FILE_BYTES);
	long long bad_off = -1;
	int fd, st;

	st = run_prog(argv);
	if (st) {
		fail("mke2fs on %s failed (%d)", dev_node(ROLE_CDALIAS), st);
		goto out;
	}
	mkdir("/mnt", 0755);
	mkdir("/mnt/alias", 0755);
	if (mount(dev_node(ROLE_CDALIAS), "/mnt/alias", "ext2", 0, NULL)) {
		fail("mount %s: %s", dev_node(ROLE_CDALIAS), strerror(errno));
		goto out;
	}
	fd = open("/mnt/alias/data", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fail("create file: %s", strerror(errno));
		goto umount;
	}
	pat_fill(buf, FILE_BYTES, 0, FILE_SEED);
	if (write(fd, buf, FILE_BYTES) != FILE_BYTES || fsync(fd)) {
		fail("write file: %s", strerror(errno));
		close(fd);
		goto umount;
	}
	for (int i = 0; i < FILE_BYTES / 2048; i++) {
		int blk = i;

		if (ioctl(fd, FIBMAP, &blk) == 0 &&
		    (uint64_t)blk == CDSMALL_BAD_SECTOR / 4)
			bad_off = (long long)i * 2048;
	}
	close(fd);
	if (bad_off < 0)
		fail("layout: no file block on the bad 2K block %llu",
		     CDSMALL_BAD_SECTOR / 4);
umount:
	if (umount("/mnt/alias"))
		fail("umount: %s", strerror(errno));
out:
	free(buf);
	return bad_off;
}

int t_sr_capacity(void)
{
	unsigned char *buf = io_buf(4096);
	long long bad_off, before = dev_sectors(ROLE_CDSMALL);
	int fd = -1, ret = -1, after_bad = 0, after_ok = 0, before_bad = 0;
	long long first_err = -1;
	size_t mark;
	const char *l;

	if (dev_require(ROLE_CDSMALL) || dev_require(ROLE_CDALIAS) ||
	    size_is(ROLE_CDSMALL, CDSMALL_SECTORS))
		goto out;
	bad_off = make_fs();
	if (bad_off < 0)
		goto out;
	diag("file 'data' (%d bytes): its 2K block at offset %lld is on the bad sector %llu",
	     FILE_BYTES, bad_off, CDSMALL_BAD_SECTOR);
	mkdir("/mnt/cd", 0755);
	mark = kmsg_mark();
	if (mount(dev_node(ROLE_CDSMALL), "/mnt/cd", "ext2", MS_RDONLY, NULL)) {
		fail("mount %s: %s", dev_node(ROLE_CDSMALL), strerror(errno));
		goto out;
	}
	fd = open("/mnt/cd/data", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail("open file on the CD: %s", strerror(errno));
		goto umount;
	}
	for (long long off = 0; off < FILE_BYTES; off += 4096) {
		bool bad_page = bad_off >= off && bad_off < off + 4096;
		ssize_t n = io_pread(fd, buf, 4096, (uint64_t)off);

		if (n == 4096 && pat_check(buf, 4096, (uint64_t)off, FILE_SEED) < 0) {
			after_ok += off > bad_off;
			continue;
		}
		if (n == 4096) {	/* wrong data is the worst outcome */
			pat_expect(buf, 4096, (uint64_t)off, FILE_SEED, "file data on the CD");
			goto close;
		}
		if (bad_page && io_failed(n))
			continue;
		if (off > bad_off)
			after_bad++;
		else
			before_bad++;
		if (first_err < 0)
			first_err = off;
	}
	diag("%s: size %lld -> %lld sectors; pages before the bad block failed: %d; after it: %d read, %d failed",
	     dev_name(ROLE_CDSMALL), before, dev_sectors(ROLE_CDSMALL), before_bad,
	     after_ok, after_bad);
	l = kmsg_find(mark, "attempt to access beyond end of device");
	if (l) {
		fail("kernel log: %s", l);
		goto close;
	}
	if (before_bad || after_bad) {
		fail("%d good page(s) of the file failed to read, first at offset %lld",
		     before_bad + after_bad, first_err);
		goto close;
	}
	if (size_is(ROLE_CDSMALL, CDSMALL_SECTORS))
		goto close;
	ret = 0;
close:
	close(fd);
umount:
	umount("/mnt/cd");
out:
	free(buf);
	return ret;
}
