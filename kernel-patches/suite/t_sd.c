/*
 * t_sd.c: the sd-* tests, on scsi_debug (medium errors with VALID/INFO,
 * recovered errors, timeouts, short transfers) and on a QEMU scsi-hd behind
 * blkdebug (medium error without VALID/INFO, resid 0).
 *
 * A failed read must fail with EIO or ENODATA (the block layer's errno for
 * BLK_STS_MEDIUM); a read that succeeds must return exactly the data on the
 * medium.  Regions used (512-byte sectors):
 *   scsi_debug  2048..2559 read-verify, 4608..4735 medium error (bad 0x1234,
 *               0x1235), 8192..8319 recovered, 10240..10303 timeout,
 *               12288..14335 stress, the last 16 sectors end-of-device
 *   QEMU disk   0..63 runner's lba-pattern, 2944..3071 medium error (bad
 *               3000), 6000..6511 read-verify
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool io_failed(ssize_t n)
{
	return n == -EIO || n == -ENODATA;
}

static const char *errname(ssize_t n)
{
	static char buf[64];

	if (n >= 0)
		snprintf(buf, sizeof(buf), "%zd bytes", n);
	else
		snprintf(buf, sizeof(buf), "%s", strerror((int)-n));
	return buf;
}

/* Read len bytes at sector s and require success and seed's pattern. */
static int expect_good(int fd, uint64_t s, size_t len, uint64_t seed,
		       const char *what)
{
	unsigned char *buf = io_buf(len);
	ssize_t n = io_pread(fd, buf, len, s * SECTOR);
	int ret;

	if (n != (ssize_t)len)
		ret = fail("%s: read of %zu bytes at sector %llu: %s", what, len,
			   (unsigned long long)s, errname(n));
	else
		ret = pat_expect(buf, len, s * SECTOR, seed, what);
	free(buf);
	return ret;
}

/* Read len bytes at sector s and require EIO/ENODATA; data returned
 * instead is checked, so a wrong success names the wrong bytes. */
static int expect_error(int fd, uint64_t s, size_t len, uint64_t seed,
			const char *what)
{
	unsigned char *buf = io_buf(len);
	ssize_t n = io_pread(fd, buf, len, s * SECTOR);
	int ret = 0;

	if (n > 0 && pat_check(buf, (size_t)n, s * SECTOR, seed) >= 0)
		ret = pat_expect(buf, (size_t)n, s * SECTOR, seed, what);
	else if (!io_failed(n))
		ret = fail("%s: read at sector %llu across a medium error returned %s, want EIO",
			   what, (unsigned long long)s, errname(n));
	free(buf);
	return ret;
}

static int write_pattern(int fd, uint64_t s, size_t len, uint64_t seed)
{
	unsigned char *buf = io_buf(len);
	ssize_t n;

	pat_fill(buf, len, s * SECTOR, seed);
	n = io_pwrite(fd, buf, len, s * SECTOR);
	free(buf);
	if (n != (ssize_t)len)
		return fail("write of %zu bytes at sector %llu: %s", len,
			    (unsigned long long)s, errname(n));
	return 0;
}

static int kmsg_names_sector(size_t mark, enum role r, uint64_t s)
{
	char needle[64];

	snprintf(needle, sizeof(needle), "dev %s, sector %llu ", dev_name(r),
		 (unsigned long long)s);
	if (!kmsg_find(mark, needle))
		return fail("the kernel did not name the bad sector (no '%s' in the log)",
			    needle);
	diag("kernel: %s", kmsg_find(mark, needle));
	return 0;
}

/* --- sd-read-verify ----------------------------------------------------- */

static int read_verify(enum role r, uint64_t s, uint64_t seed)
{
	const size_t len = 256 * 1024;
	int dfd = io_open(r, O_RDWR | O_DIRECT), bfd = -1, ret = -1;

	if (dfd < 0)
		return -1;
	bfd = io_open(r, O_RDWR);
	if (bfd < 0)
		goto out;
	if (write_pattern(dfd, s, len, seed) ||
	    expect_good(dfd, s, len, seed, "O_DIRECT read-back") ||
	    io_drop_cache(bfd) ||
	    expect_good(bfd, s, len, seed, "buffered read-back"))
		goto out;
	/* Buffered write, O_DIRECT read. */
	if (write_pattern(bfd, s, 64 * 1024, seed ^ 0xffff) || fsync(bfd) ||
	    expect_good(dfd, s, 64 * 1024, seed ^ 0xffff, "O_DIRECT read of buffered write"))
		goto out;
	ret = 0;
out:
	if (bfd >= 0)
		close(bfd);
	close(dfd);
	return ret;
}

int t_sd_read_verify(void)
{
	int fd, ret;

	if (read_verify(ROLE_SDEBUG, 2048, 0x5eed0001) ||
	    read_verify(ROLE_QDISK, 6000, 0x5eed0002))
		return -1;
	/* The runner's image fill is what every other QEMU test relies on. */
	fd = io_open(ROLE_QDISK, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return -1;
	ret = expect_good(fd, 0, 32 * 1024, 0, "runner's lba-pattern image");
	close(fd);
	return ret;
}

/* --- sd-medium-error ---------------------------------------------------- */

/* Common shape for one disk with a bad sector at bad (region start s0,
 * 128 sectors, bad inside): the span fails, the good sectors on both sides
 * read back right, the bad sector alone fails and is named by the kernel,
 * buffered reads never return wrong data. */
static int medium_error_on(enum role r, uint64_t s0, uint64_t bad, uint64_t nbad)
{
	int dfd = io_open(r, O_RDONLY | O_DIRECT), bfd = -1, ret = -1;
	uint64_t page = bad & ~7ull;
	size_t mark;

	if (dfd < 0)
		return -1;
	bfd = io_open(r, O_RDONLY);
	if (bfd < 0)
		goto out;
	if (expect_error(dfd, s0, 128 * SECTOR, 0, "O_DIRECT read across the bad sector"))
		goto out;
	if (expect_good(dfd, s0, (page - s0) * SECTOR, 0, "sectors before the bad one"))
		goto out;
	for (uint64_t s = page; s < bad; s++)
		if (expect_good(dfd, s, SECTOR, 0, "single sector before the bad one"))
			goto out;
	mark = kmsg_mark();
	if (expect_error(dfd, bad, SECTOR, 0, "the bad sector alone") ||
	    kmsg_names_sector(mark, r, bad))
		goto out;
	for (uint64_t s = bad + nbad; s < page + 8; s++)
		if (expect_good(dfd, s, SECTOR, 0, "single sector after the bad one"))
			goto out;
	if (expect_good(dfd, page + 8, (s0 + 128 - page - 8) * SECTOR, 0,
			"sectors after the bad one (separate read)"))
		goto out;
	if (io_drop_cache(bfd) ||
	    expect_good(bfd, page - 8, 4096, 0, "buffered read of the page before") ||
	    expect_error(bfd, page, 4096, 0, "buffered read of the bad page") ||
	    expect_good(bfd, page + 8, 4096, 0, "buffered read of the page after"))
		goto out;
	ret = 0;
out:
	if (bfd >= 0)
		close(bfd);
	close(dfd);
	return ret;
}

int t_sd_medium_error(void)
{
	int fd = io_open(ROLE_SDEBUG, O_RDWR | O_DIRECT), ret;

	if (fd < 0)
		return -1;
	ret = write_pattern(fd, 4608, 128 * SECTOR, 0);
	close(fd);
	if (ret || sdebug_set(2, 0))
		return -1;
	diag("scsi_debug: MEDIUM ERROR with VALID and INFO at sectors %llu..%llu",
	     SDEBUG_BAD_LBA, SDEBUG_BAD_LBA + SDEBUG_BAD_COUNT - 1);
	if (medium_error_on(ROLE_SDEBUG, 4608, SDEBUG_BAD_LBA, SDEBUG_BAD_COUNT))
		return -1;
	if (sdebug_set(0, 0))
		return -1;
	diag("QEMU disk: blkdebug ENODATA (MEDIUM ERROR, no INFO) at sector %llu",
	     QDISK_BAD_LBA);
	return medium_error_on(ROLE_QDISK, 2944, QDISK_BAD_LBA, 1);
}

/* --- sd-recovered-error ------------------------------------------------- */

int t_sd_recovered_error(void)
{
	static const unsigned char rd10[10] = { 0x28, 0, 0, 0, 0x20, 0, 0, 0, 8, 0 };
	int dfd = io_open(ROLE_SDEBUG, O_RDWR | O_DIRECT), bfd = -1, ret = -1;
	struct sgio_result res;
	unsigned char *buf = io_buf(4096);

	if (dfd < 0)
		goto out;
	bfd = io_open(ROLE_SDEBUG, O_RDONLY);
	if (bfd < 0 || write_pattern(dfd, 8192, 128 * SECTOR, 0x4ec0) ||
	    sdebug_set(8, 1))
		goto out;
	/* Prove the injection is live: passthrough sees the raw status. */
	if (sgio(dfd, rd10, 10, buf, 4096, &res))
		goto out;
	if (res.status != 2 || (res.sense[2] & 0xf) != 1) {
		fail("injection not active: status 0x%x sense key 0x%x, want CHECK CONDITION/RECOVERED ERROR",
		     res.status, res.sense[2] & 0xf);
		goto out;
	}
	diag("scsi_debug: every command completes with RECOVERED ERROR");
	for (uint64_t s = 8192; s < 8320; s += 32)
		if (expect_good(dfd, s, 32 * SECTOR, 0x4ec0, "O_DIRECT read with recovered error"))
			goto out;
	if (io_drop_cache(bfd) ||
	    expect_good(bfd, 8192, 64 * 1024, 0x4ec0, "buffered read with recovered error"))
		goto out;
	ret = 0;
out:
	sdebug_set(0, 0);
	free(buf);
	if (bfd >= 0)
		close(bfd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

/* --- sd-sgio ------------------------------------------------------------ */

int t_sd_sgio(void)
{
	unsigned char inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	unsigned char rc10[10] = { 0x25 };
	unsigned char rd10[10] = { 0x28 };
	unsigned char *buf = io_buf(64 * 1024);
	int fd = io_open(ROLE_SDEBUG, O_RDWR | O_DIRECT), ret = -1;
	struct sgio_result res;
	uint64_t info, lba = SDEBUG_BAD_LBA - 20, last;
	unsigned int len = 32 * SECTOR, key, asc;

	if (fd < 0 || write_pattern(fd, 4608, 128 * SECTOR, 0))
		goto out;
	if (sgio(fd, inq, 6, buf, 36, &res))
		goto out;
	if (res.status || memcmp(buf + 8, "Linux   ", 8)) {
		fail("INQUIRY: status 0x%x vendor '%.8s'", res.status, buf + 8);
		goto out;
	}
	if (sgio(fd, rc10, 10, buf, 8, &res))
		goto out;
	last = (uint64_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3];
	if (res.status || (long long)last + 1 != dev_sectors(ROLE_SDEBUG)) {
		fail("READ CAPACITY: status 0x%x last LBA %llu, size %lld",
		     res.status, (unsigned long long)last, dev_sectors(ROLE_SDEBUG));
		goto out;
	}
	if (sdebug_set(2, 0))
		goto out;
	rd10[2] = (unsigned char)(lba >> 24);
	rd10[3] = (unsigned char)(lba >> 16);
	rd10[4] = (unsigned char)(lba >> 8);
	rd10[5] = (unsigned char)lba;
	rd10[8] = (unsigned char)(len / SECTOR);
	memset(buf, 0xaa, len);
	if (sgio(fd, rd10, 10, buf, len, &res))
		goto out;
	key = (res.sense[0] & 0x7f) >= 0x72 ? res.sense[1] & 0xf : res.sense[2] & 0xf;
	asc = (res.sense[0] & 0x7f) >= 0x72 ? res.sense[2] : res.sense[12];
	diag("READ(10) lba %llu x%u: status 0x%x host 0x%x sense key 0x%x asc 0x%x resid %d",
	     (unsigned long long)lba, len / SECTOR, res.status, res.host_status,
	     key, asc, res.resid);
	if (res.status != 2 || key != 3 || asc != 0x11) {
		fail("READ across the bad LBA: want CHECK CONDITION, MEDIUM ERROR, asc 0x11");
		goto out;
	}
	if (!sense_info(res.sense, res.sense_len, &info) || info != SDEBUG_BAD_LBA) {
		fail("sense INFORMATION field missing or not the bad LBA %llu",
		     SDEBUG_BAD_LBA);
		goto out;
	}
	if (res.resid < 0 || (unsigned int)res.resid > len ||
	    len - (unsigned int)res.resid > (info - lba) * SECTOR) {
		fail("resid %d claims data past the bad LBA (%llu good bytes at most)",
		     res.resid, (unsigned long long)((info - lba) * SECTOR));
		goto out;
	}
	/* A clean READ before the bad LBA returns data and resid 0. */
	rd10[5] = (unsigned char)(lba - 32);
	rd10[4] = (unsigned char)((lba - 32) >> 8);
	rd10[8] = 16;
	if (sgio(fd, rd10, 10, buf, 16 * SECTOR, &res))
		goto out;
	if (res.status || res.resid) {
		fail("clean READ: status 0x%x resid %d", res.status, res.resid);
		goto out;
	}
	if (pat_expect(buf, 16 * SECTOR, (lba - 32) * SECTOR, 0, "SG_IO READ data"))
		goto out;
	ret = 0;
out:
	sdebug_set(0, 0);
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* --- sd-end-of-device --------------------------------------------------- */

static int end_of_device(enum role r, uint64_t want, uint64_t seed, bool write)
{
	int dfd = io_open(r, (write ? O_RDWR : O_RDONLY) | O_DIRECT), bfd = -1;
	unsigned char *buf = io_buf(8192);
	long long size = dev_sectors(r);
	uint64_t end = (uint64_t)size;
	int ret = -1;
	ssize_t n;

	if (dfd < 0)
		goto out;
	bfd = io_open(r, O_RDONLY);
	if (bfd < 0)
		goto out;
	if (size < 0 || (uint64_t)size != want) {
		fail("%s: size %lld sectors, want %llu", dev_name(r), size,
		     (unsigned long long)want);
		goto out;
	}
	if (write && write_pattern(dfd, end - 16, 16 * SECTOR, seed))
		goto out;
	if (expect_good(dfd, end - 1, SECTOR, seed, "last sector (O_DIRECT)") ||
	    expect_good(dfd, end - 8, 4096, seed, "last page (O_DIRECT)"))
		goto out;
	n = io_pread(dfd, buf, 4096, end * SECTOR);
	if (n != 0) {
		fail("O_DIRECT read at the end returned %s, want 0 (EOF)", errname(n));
		goto out;
	}
	n = io_pread(dfd, buf, 4096, (end - 4) * SECTOR);
	if (n != 4 * SECTOR) {
		fail("O_DIRECT read across the end returned %s, want %u bytes",
		     errname(n), 4 * SECTOR);
		goto out;
	}
	if (pat_expect(buf, 4 * SECTOR, (end - 4) * SECTOR, seed, "short read at the end"))
		goto out;
	if (io_drop_cache(bfd) ||
	    expect_good(bfd, end - 8, 4096, seed, "last page (buffered)"))
		goto out;
	n = io_pread(bfd, buf, 8192, (end - 8) * SECTOR);
	if (n != 4096) {
		fail("buffered read across the end returned %s, want 4096 bytes", errname(n));
		goto out;
	}
	n = io_pread(bfd, buf, 4096, end * SECTOR);
	if (n != 0) {
		fail("buffered read at the end returned %s, want 0 (EOF)", errname(n));
		goto out;
	}
	ret = 0;
out:
	free(buf);
	if (bfd >= 0)
		close(bfd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int t_sd_end_of_device(void)
{
	int oob, n;

	if (end_of_device(ROLE_SDEBUG, SDEBUG_SECTORS, 0xe0d, true))
		return -1;
	if (end_of_device(ROLE_BBDISK, BBDISK_SECTORS, 0, false))
		return -1;
	n = bbtest_log_count(0, 0, BBDISK_SECTORS, &oob);
	if (n < 0)
		return -1;
	if (oob)
		return fail("%d command(s) reached past the end of the scsi_bbtest disk", oob);
	return 0;
}

/* --- sd-timeout-eh ------------------------------------------------------ */

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int t_sd_timeout_eh(void)
{
	char path[128], eh[128];
	int fd = io_open(ROLE_SDEBUG, O_RDWR | O_DIRECT), ret = -1;
	double t0, dt;

	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/timeout", dev_name(ROLE_SDEBUG));
	snprintf(eh, sizeof(eh), "/sys/block/%s/device/eh_timeout", dev_name(ROLE_SDEBUG));
	if (write_pattern(fd, 10240, 64 * SECTOR, 0x7173) ||
	    knob_write(path, "2") || knob_write(eh, "2"))
		goto out;
	/* scsi_debug ignores every 3rd command from now on. */
	if (sdebug_set(4, 3))
		goto out;
	t0 = mono();
	for (uint64_t s = 10240; s < 10240 + 32; s += 8)
		if (expect_good(fd, s, 4096, 0x7173, "read with an injected timeout"))
			goto out;
	dt = mono() - t0;
	sdebug_set(0, 0);
	diag("4 reads, the 3rd command ignored by the device (2 s timeout): %.1f s", dt);
	if (dt < 1.5) {
		fail("no command timed out (%.1f s): the injection did not work", dt);
		goto out;
	}
	if (dt > 40) {
		fail("error handling took %.1f s", dt);
		goto out;
	}
	ret = 0;
out:
	sdebug_set(0, 0);
	knob_write(path, "30");
	knob_write(eh, "10");
	close(fd);
	return ret;
}

/* --- sd-stress ---------------------------------------------------------- */

#define STRESS_KIDS	4
#define STRESS_OPS	80
#define STRESS_SECTORS	512

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One child: its own region, a map of which seed each sector holds. */
static int stress_child(int k)
{
	uint64_t base = 12288 + (uint64_t)k * STRESS_SECTORS, rng = 0x9e3779b97f4a7c15ull * (k + 1);
	static uint64_t seeds[STRESS_SECTORS];
	unsigned char *buf = io_buf(64 * 1024);
	int fd = open(dev_node(ROLE_SDEBUG), O_RDWR | O_DIRECT | O_CLOEXEC);

	if (fd < 0)
		return 1;
	for (int op = 0; op < STRESS_OPS; op++) {
		uint64_t start = (xorshift(&rng) % (STRESS_SECTORS / 8)) * 8;
		uint64_t count = (xorshift(&rng) % 16 + 1) * 8;
		ssize_t n;

		if (start + count > STRESS_SECTORS)
			count = STRESS_SECTORS - start;
		if (op < 8 || xorshift(&rng) % 3 == 0) {
			uint64_t seed = 0x5700000000ull | (uint64_t)k << 16 | (uint64_t)op;

			if (op < 8) {	/* first fill the whole region */
				start = (uint64_t)op * 64;
				count = 64;
			}
			pat_fill(buf, count * SECTOR, (base + start) * SECTOR, seed);
			n = io_pwrite(fd, buf, count * SECTOR, (base + start) * SECTOR);
			if (n != (ssize_t)(count * SECTOR)) {
				printf("# stress child %d: write at %llu: %zd\n", k,
				       (unsigned long long)(base + start), n);
				return 1;
			}
			for (uint64_t s = start; s < start + count; s++)
				seeds[s] = seed;
			continue;
		}
		n = io_pread(fd, buf, count * SECTOR, (base + start) * SECTOR);
		if (n != (ssize_t)(count * SECTOR)) {
			printf("# stress child %d: read at %llu: %zd\n", k,
			       (unsigned long long)(base + start), n);
			return 1;
		}
		for (uint64_t s = start; s < start + count; s++) {
			long bad = pat_check(buf + (s - start) * SECTOR, SECTOR,
					     (base + s) * SECTOR, seeds[s]);

			if (bad >= 0) {
				printf("# stress child %d: wrong data in sector %llu (op %d)\n",
				       k, (unsigned long long)(base + s), op);
				return 1;
			}
		}
	}
	close(fd);
	return 0;
}

int t_sd_stress(void)
{
	pid_t kids[STRESS_KIDS];
	int bad = 0;

	if (dev_require(ROLE_SDEBUG))
		return -1;
	/* Every 5th command: reads transfer half with a residual (requeue
	 * the rest), writes complete with RECOVERED ERROR. */
	if (sdebug_set(0x108, 5))
		return -1;
	fflush(stdout);
	for (int k = 0; k < STRESS_KIDS; k++) {
		kids[k] = fork();
		if (kids[k] == 0)
			_exit(stress_child(k));
		if (kids[k] < 0)
			return fail("fork: %s", strerror(errno));
	}
	for (int k = 0; k < STRESS_KIDS; k++) {
		int st;

		if (waitpid(kids[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	sdebug_set(0, 0);
	diag("%d processes x %d verified O_DIRECT ops, short reads and recovered writes injected",
	     STRESS_KIDS, STRESS_OPS);
	if (bad)
		return fail("%d of %d stress processes saw an error or wrong data", bad,
			    STRESS_KIDS);
	return 0;
}
