/*
 * t_hba.c: the hba-* tests, the suite's generic disk and CD tests run
 * through a real host adapter driver behind one of QEMU's emulated HBAs
 * (issue 34).  Every controller's boot in suite/scenarios gives it the same
 * devices, with the faults injected on the QEMU side (blkdebug), so each
 * error travels through the emulated controller's status and sense and the
 * driver's completion function before the midlayer sees it:
 *
 *   disk  4 MiB lba-pattern; a read of sector 3000 fails with ENODATA and a
 *         write of sector 7000 too (QEMU: CHECK CONDITION, MEDIUM ERROR
 *         11/00, neither VALID nor INFORMATION, no data)
 *   cd    2 MiB lba-pattern (1024 2K blocks); a read of sector 3000 (2K
 *         block 750, far from the end: sr never trims the capacity) fails
 *
 * The tests of one controller are hba-NAME-*, and its boot runs them alone
 * (bbsuite.group=hba-NAME); hba.h's table says where each controller's
 * devices sit and what its emulation can report.  A device is found by its
 * role: its host's driver (proc_name), its kind (sd or sr) and its INQUIRY
 * vendor and model, never by a name an earlier test saw.
 *
 * What each test expects to see and how it must surface:
 *   read          no fault: every sector of the disk and every 2K block of
 *                 the CD outside the bad ones reads right, O_DIRECT and
 *                 buffered; the controller's hosts hold these two devices
 *                 and no other (the scan took no empty target for one)
 *   write         no fault: a pattern written O_DIRECT and buffered reads
 *                 back right (the disk's content is put back after)
 *   medium-error  the read fault: an O_DIRECT read across sector 3000 fails
 *                 with ENODATA, the sectors beside it read right alone, the
 *                 kernel log has the sense ("Sense Key : Medium Error") and
 *                 "critical medium error, dev sdX"; the write fault: an
 *                 O_DIRECT write across sector 7000 fails with ENODATA, one
 *                 beside it works; the disk's size never changes
 *   sgio          the same sense through SG_IO: READ(10) of sector 3000 is
 *                 CHECK CONDITION with MEDIUM ERROR 11/00 in the sense
 *                 bytes, READ(10) past the end ILLEGAL REQUEST 21/00, a good
 *                 READ(10) GOOD with the right data and resid 0; and a short
 *                 transfer: READ CAPACITY(10) into 512 bytes sends 8, and
 *                 the residual (504) and host byte are what the emulation
 *                 reports for an underrun (hba.h says which, per controller)
 *   cd            the CD's capacity (READ CAPACITY through SG_IO: last block
 *                 1023, 2048 bytes; the size in sysfs 4096 sectors), its
 *                 medium error (2K block 750 fails with ENODATA, the blocks
 *                 beside it read right, the sense in the kernel log) and the
 *                 size unchanged after it
 *
 * The write test restores what it changes; no other test changes anything.
 * No timeout test: none of QEMU 7.2's fault injections delays a completion
 * (blkdebug fails or passes a request at once), so a command can time out
 * only by throttling, which the emulated HBAs' abort paths do not survive
 * the same way; see docs/controllers.md.
 */
#include "bbsuite.h"
#include "hba.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DISK_SECTORS	8192ull		/* image hd 4194304 */
#define DISK_BAD_READ	3000ull		/* blkdebug read_aio sector=3000 */
#define DISK_BAD_WRITE	7000ull		/* blkdebug write_aio sector=7000 */
#define CD_SECTORS	4096ull		/* image cd 2097152 */
#define CD_BAD_BLOCK	750ull		/* blkdebug read_aio sector=3000 */
#define CD_BLOCK	2048u
#define CHUNK		(64u * 1024u)

/* ---- devices by role ---- */

static int small_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (n = (ssize_t)strlen(buf); n > 0 && isspace((unsigned char)buf[n - 1]);)
		buf[--n] = '\0';
	return 0;
}

/* Does block device name (sdX or srX) hold role d of controller c? */
static bool holds(const struct hba *c, const struct hba_dev *d, const char *name)
{
	char path[PATH_MAX], link[PATH_MAX], val[64];
	const char *base;
	int h, ch, t, l;

	snprintf(path, sizeof(path), "/sys/block/%s/device", name);
	if (!realpath(path, link))
		return false;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (sscanf(base, "%d:%d:%d:%d", &h, &ch, &t, &l) != 4)
		return false;
	snprintf(path, sizeof(path), "/sys/class/scsi_host/host%d/proc_name", h);
	if (small_read(path, val, sizeof(val)) || strcmp(val, c->host))
		return false;
	if (d->target >= 0 && t != d->target)
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/device/vendor", name);
	if (small_read(path, val, sizeof(val)) || strcmp(val, d->vendor))
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/device/model", name);
	return !small_read(path, val, sizeof(val)) && !strcmp(val, d->model);
}

/* How many block devices hold the role now; the first one's name. */
static int holders(const struct hba *c, bool cd, char *name, size_t len)
{
	const struct hba_dev *d = cd ? &c->cd : &c->disk;
	DIR *dir = opendir("/sys/block");
	struct dirent *de;
	int found = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		if (strncmp(de->d_name, cd ? "sr" : "sd", 2) || !holds(c, d, de->d_name))
			continue;
		if (!found++)
			snprintf(name, len, "%s", de->d_name);
	}
	closedir(dir);
	return found;
}

/*
 * The block device holding the role ("sdb"), or fail().  A SAS HBA's
 * devices come from its firmware's discovery, after the boot has reached
 * /init (mptsas): wait for them, 20 s at most.
 */
static int find(const struct hba *c, bool cd, char *name, size_t len)
{
	const struct hba_dev *d = cd ? &c->cd : &c->disk;
	int found = 0;

	for (int i = 0; i < 200 && (found = holders(c, cd, name, len)) == 0; i++)
		usleep(100 * 1000);
	if (found < 0)
		return fail("cannot list /sys/block: %s", strerror(errno));
	if (found != 1)
		return fail("%s %s (%s \"%s\" \"%s\" on a %s host): %s", c->name,
			    cd ? "CD" : "disk", cd ? "sr" : "sd", d->vendor, d->model, c->host,
			    found ? "more than one device holds the role" : "no such device");
	return 0;
}

static int open_role(const struct hba *c, bool cd, int flags, char *name, size_t len)
{
	char node[PATH_MAX];
	int fd;

	if (find(c, cd, name, len))
		return -1;
	snprintf(node, sizeof(node), "/dev/%s", name);
	fd = open(node, flags | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open '%s': %s", node, strerror(errno));
	return fd;
}

static long long size_of(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	return knob_number(path);
}

static int size_is(const char *name, unsigned long long want)
{
	long long got = size_of(name);

	if (got != (long long)want)
		return fail("%s: size %lld sectors, want %llu", name, got, want);
	return 0;
}

/* ---- I/O ---- */

/* len bytes at byte off must read right (seed 0: the runner's lba-pattern). */
static int read_right(int fd, uint64_t off, size_t len, uint64_t seed, const char *what)
{
	unsigned char *buf = io_buf(len);
	ssize_t n = io_pread(fd, buf, len, off);
	int ret;

	if (n != (ssize_t)len)
		ret = fail("%s: read of %zu bytes at byte %llu: %s", what, len,
			   (unsigned long long)off, n < 0 ? strerror((int)-n) : "short read");
	else
		ret = pat_expect(buf, len, off, seed, what);
	free(buf);
	return ret;
}

/* [from, to) in CHUNK pieces, each right. */
static int read_span(int fd, uint64_t from, uint64_t to, const char *what)
{
	for (uint64_t off = from; off < to; off += CHUNK) {
		size_t len = to - off < CHUNK ? (size_t)(to - off) : CHUNK;
		if (read_right(fd, off, len, 0, what))
			return -1;
	}
	return 0;
}

/* An O_DIRECT read (or write) that must fail with the errno e of the
 * controller's error (ENODATA for a MEDIUM ERROR). */
static int must_fail(const struct hba_err *e, int fd, bool write, uint64_t off, size_t len,
		     const char *what)
{
	unsigned char *buf = io_buf(len);
	ssize_t n;

	pat_fill(buf, len, off, 0);
	n = write ? io_pwrite(fd, buf, len, off) : io_pread(fd, buf, len, off);
	free(buf);
	if (n == -e->err)
		return 0;
	return fail("%s: O_DIRECT %s of %zu bytes at byte %llu: %s, want %s (%s)", what,
		    write ? "write" : "read", len, (unsigned long long)off,
		    n >= 0 ? "it worked" : strerror((int)-n), strerror(e->err), e->why);
}

static int log_has(size_t mark, const char *needle, const char *why)
{
	if (kmsg_find(mark, needle))
		return 0;
	return fail("the kernel log has no \"%s\" (%s)", needle, why);
}

/* The sense the driver handed on, as sd or sr printed it for dev. */
static int log_sense(const struct hba_err *e, size_t mark, const char *dev)
{
	char needle[NAME_MAX + 64];

	snprintf(needle, sizeof(needle), "[%s] tag#", dev);
	if (!kmsg_find(mark, needle))
		return fail("the kernel log has no line of %s's failed command", dev);
	snprintf(needle, sizeof(needle), "Sense Key : %s", e->key_name);
	if (kmsg_find(mark, needle))
		return 0;
	return fail("the kernel log has no \"%s\" (the sense the driver handed on): %s", needle,
		    kmsg_find(mark, "Sense Key : ") ? kmsg_find(mark, "Sense Key : ") : "no sense");
}

/* ---- the tests ---- */

/* How many SCSI devices sit behind the controller's hosts; -1: cannot tell. */
static int devices_behind(const struct hba *c)
{
	DIR *dir = opendir("/sys/bus/scsi/devices");
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		char path[PATH_MAX], val[64];
		int h, ch, t, l, end = 0;

		if (sscanf(de->d_name, "%d:%d:%d:%d%n", &h, &ch, &t, &l, &end) != 4 ||
		    de->d_name[end])
			continue;	/* a host or a target, not a device */
		snprintf(path, sizeof(path), "/sys/class/scsi_host/host%d/proc_name", h);
		if (!small_read(path, val, sizeof(val)) && !strcmp(val, c->host))
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * The scan found the disk and the CD and nothing else: an empty target's
 * answer (pvscsi's SELTIMEO, virtio-scsi's BAD_TARGET) taken for a good
 * one makes a device of it.  Counted until two counts 0.2 s apart agree.
 */
static int only_two(const struct hba *c)
{
	int n = devices_behind(c), last = -2;

	for (int i = 0; i < 25 && n != last; i++) {
		usleep(200 * 1000);
		last = n;
		n = devices_behind(c);
	}
	if (n == 2)
		return 0;
	return fail("%d SCSI devices behind the %s hosts, want 2 (the disk and the CD)%s", n,
		    c->host, n > 2 ? ": the scan took an empty target for a device" : "");
}

int hba_read(const struct hba *c)
{
	char disk[NAME_MAX + 1], cd[NAME_MAX + 1];
	int dfd = -1, bfd = -1, cfd = -1, ret = -1;
	uint64_t bad = DISK_BAD_READ * SECTOR, cbad = CD_BAD_BLOCK * CD_BLOCK;

	diag("%s: no fault expected: the disk and the CD read right outside their bad"
	     " sectors", c->name);
	dfd = open_role(c, false, O_RDONLY | O_DIRECT, disk, sizeof(disk));
	if (dfd < 0)
		goto out;
	if (size_is(disk, DISK_SECTORS) ||
	    read_span(dfd, 0, bad & ~(uint64_t)(CHUNK - 1), "O_DIRECT read of the disk") ||
	    read_span(dfd, (bad | (CHUNK - 1)) + 1, DISK_SECTORS * SECTOR,
		      "O_DIRECT read of the disk"))
		goto out;
	bfd = open_role(c, false, O_RDONLY, disk, sizeof(disk));
	if (bfd < 0 || read_span(bfd, 0, 1 << 20, "buffered read of the disk"))
		goto out;
	cfd = open_role(c, true, O_RDONLY | O_DIRECT, cd, sizeof(cd));
	if (cfd < 0 ||
	    read_span(cfd, 0, cbad & ~(uint64_t)(CHUNK - 1), "O_DIRECT read of the CD") ||
	    read_span(cfd, (cbad | (CHUNK - 1)) + 1, CD_SECTORS * SECTOR, "O_DIRECT read of the CD"))
		goto out;
	ret = only_two(c);
out:
	if (dfd >= 0)
		close(dfd);
	if (bfd >= 0)
		close(bfd);
	if (cfd >= 0)
		close(cfd);
	return ret;
}

/* Write seed's pattern over [off, off + len) with fd; 0 or fail(). */
static int write_pattern(int fd, uint64_t off, size_t len, uint64_t seed, const char *what)
{
	unsigned char *buf = io_buf(len);
	ssize_t n;

	pat_fill(buf, len, off, seed);
	n = io_pwrite(fd, buf, len, off);
	free(buf);
	if (n != (ssize_t)len)
		return fail("%s: write of %zu bytes at byte %llu: %s", what, len,
			    (unsigned long long)off, n < 0 ? strerror((int)-n) : "short write");
	return 0;
}

int hba_write(const struct hba *c)
{
	const uint64_t off = 6000 * SECTOR, boff = 6400 * SECTOR;
	const size_t len = 128 * 1024;
	char disk[NAME_MAX + 1];
	int dfd, bfd = -1, ret = -1;

	diag("%s: no fault expected: written data reads back right, O_DIRECT and buffered",
	     c->name);
	dfd = open_role(c, false, O_RDWR | O_DIRECT, disk, sizeof(disk));
	if (dfd < 0)
		return -1;
	if (write_pattern(dfd, off, len, 0x5eed, "O_DIRECT write") ||
	    read_right(dfd, off, len, 0x5eed, "O_DIRECT read of what was written"))
		goto restore;
	bfd = open_role(c, false, O_RDWR, disk, sizeof(disk));
	if (bfd < 0 || write_pattern(bfd, boff, len, 0xb0ff, "buffered write") ||
	    io_drop_cache(bfd) ||
	    read_right(dfd, boff, len, 0xb0ff, "O_DIRECT read of what was written buffered"))
		goto restore;
	ret = 0;
restore:
	/* the lba-pattern back, for the tests after this one */
	if (write_pattern(dfd, off, len, 0, "putting the disk back") ||
	    write_pattern(dfd, boff, len, 0, "putting the disk back") ||
	    read_right(dfd, off, len, 0, "the disk put back"))
		ret = -1;
	if (bfd >= 0) {
		io_drop_cache(bfd);
		close(bfd);
	}
	close(dfd);
	return ret;
}

int hba_medium_error(const struct hba *c)
{
	char disk[NAME_MAX + 1], needle[NAME_MAX + 64];
	size_t mark = kmsg_mark();
	int fd, ret = -1;

	diag("%s: read fault at sector %llu and write fault at sector %llu (MEDIUM ERROR"
	     " 11/00 without INFORMATION): ENODATA, the sense in the kernel log, the"
	     " sectors beside them right, the size unchanged", c->name,
	     DISK_BAD_READ, DISK_BAD_WRITE);
	fd = open_role(c, false, O_RDWR | O_DIRECT, disk, sizeof(disk));
	if (fd < 0)
		return -1;
	if (must_fail(&c->disk_err, fd, false, (DISK_BAD_READ - 4) * SECTOR, 4096,
		      "across the bad sector") ||
	    must_fail(&c->disk_err, fd, false, DISK_BAD_READ * SECTOR, SECTOR,
		      "the bad sector alone"))
		goto out;
	kmsg_sync();
	if (log_sense(&c->disk_err, mark, disk))
		goto out;
	snprintf(needle, sizeof(needle), "%s, dev %s", c->disk_err.blk_line, disk);
	if (log_has(mark, needle, "the block layer's error line"))
		goto out;
	if (read_right(fd, (DISK_BAD_READ - 1) * SECTOR, SECTOR, 0, "the sector before") ||
	    read_right(fd, (DISK_BAD_READ + 1) * SECTOR, SECTOR, 0, "the sector after"))
		goto out;
	if (must_fail(&c->disk_err, fd, true, (DISK_BAD_WRITE - 4) * SECTOR, 4096,
		      "across the bad sector") ||
	    write_pattern(fd, (DISK_BAD_WRITE + 8) * SECTOR, 4096, 0, "a write beside it") ||
	    read_right(fd, (DISK_BAD_WRITE + 8) * SECTOR, 4096, 0, "the write beside it"))
		goto out;
	ret = size_is(disk, DISK_SECTORS);
out:
	close(fd);
	return ret;
}

static void cdb10(unsigned char *cdb, unsigned char op, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 10);
	cdb[0] = op;
	cdb[2] = lba >> 24;
	cdb[3] = lba >> 16;
	cdb[4] = lba >> 8;
	cdb[5] = lba;
	cdb[7] = blocks >> 8;
	cdb[8] = blocks;
}

/* Fixed or descriptor sense: key, asc, ascq. */
static void sense_parts(const struct sgio_result *r, int *key, int *asc, int *ascq)
{
	const unsigned char *s = r->sense;
	bool desc = r->sense_len > 0 && (s[0] & 0x7f) >= 0x72;

	*key = r->sense_len > 2 ? s[desc ? 1 : 2] & 0xf : -1;
	*asc = r->sense_len > (desc ? 2 : 12) ? s[desc ? 2 : 12] : -1;
	*ascq = r->sense_len > (desc ? 3 : 13) ? s[desc ? 3 : 13] : -1;
}

/* The sense key and asc; CHECK CONDITION with host byte 0, or the host
 * byte host (a controller that reports the error its own way) and the
 * status it then leaves. */
static int check_condition(const struct sgio_result *r, int host, int key, int asc,
			   const char *what)
{
	int k, a, q, status = host ? 0 : 2;

	sense_parts(r, &k, &a, &q);
	if (r->status != status || r->host_status != host || k != key || a != asc)
		return fail("%s: status 0x%x host 0x%x sense %d bytes key 0x%x asc 0x%02x/%02x,"
			    " want status 0x%x host 0x%x, key 0x%x asc 0x%02x", what, r->status,
			    r->host_status, r->sense_len, k, a, q, status, host, key, asc);
	diag("%s: CHECK CONDITION, sense key 0x%x asc 0x%02x/0x%02x", what, k, a, q);
	return 0;
}

/*
 * A short transfer: READ CAPACITY(10) sends 8 bytes whatever the buffer;
 * with 512 the controller must say that 504 did not come (resid), as the
 * emulation tells it.
 */
static int sgio_short(const struct hba *c, int fd)
{
	unsigned char cdb[10], *buf = io_buf(512);
	struct sgio_result r;
	int ret = -1, want = c->short_resid;
	uint32_t last;

	memset(buf, 0xee, 512);
	cdb10(cdb, 0x25, 0, 0);
	if (sgio(fd, cdb, 10, buf, 512, &r))
		goto out;
	last = (uint32_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3];
	if (r.status || r.host_status != c->short_host || r.resid != want ||
	    last != DISK_SECTORS - 1 || buf[8] != (c->short_zeroed ? 0 : 0xee)) {
		fail("READ CAPACITY(10) into 512 bytes (8 sent): status 0x%x host 0x%x resid %d,"
		     " last LBA %u, byte 8 0x%02x; want status 0 host 0x%x resid %d (%s), last LBA"
		     " %llu, byte 8 %s", r.status, r.host_status, r.resid, last, buf[8],
		     c->short_host, want, c->short_why, DISK_SECTORS - 1,
		     c->short_zeroed ? "0x00" : "untouched");
		goto out;
	}
	diag("short transfer: READ CAPACITY(10) into 512 bytes, 8 sent: host 0x%x resid %d (%s)",
	     r.host_status, r.resid, c->short_why);
	ret = 0;
out:
	free(buf);
	return ret;
}

int hba_sgio(const struct hba *c)
{
	char disk[NAME_MAX + 1];
	unsigned char cdb[10], *buf = io_buf(4096);
	struct sgio_result r;
	int fd, ret = -1;

	diag("%s: SG_IO sees the controller's status and the sense it copied", c->name);
	fd = open_role(c, false, O_RDWR, disk, sizeof(disk));
	if (fd < 0)
		goto out;
	cdb10(cdb, 0x28, DISK_BAD_READ, 1);
	if (sgio(fd, cdb, 10, buf, SECTOR, &r) ||
	    check_condition(&r, 0, c->disk_err.key, c->disk_err.asc, "READ(10) of the bad sector"))
		goto out;
	cdb10(cdb, 0x28, DISK_SECTORS, 1);
	if (sgio(fd, cdb, 10, buf, SECTOR, &r) ||
	    check_condition(&r, c->past_end.host, c->past_end.key, c->past_end.asc,
			    "READ(10) past the end"))
		goto out;
	cdb10(cdb, 0x28, 100, 8);
	if (sgio(fd, cdb, 10, buf, 4096, &r))
		goto out;
	if (r.status || r.host_status || r.resid) {
		fail("READ(10) of 8 good sectors: status 0x%x host 0x%x resid %d, want all 0",
		     r.status, r.host_status, r.resid);
		goto out;
	}
	if (pat_expect(buf, 4096, 100 * SECTOR, 0, "SG_IO READ(10) data") ||
	    sgio_short(c, fd))
		goto out;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

int hba_cd(const struct hba *c)
{
	char cd[NAME_MAX + 1];
	unsigned char cdb[10], cap[8];
	struct sgio_result r;
	size_t mark = kmsg_mark();
	int fd, ret = -1;
	uint32_t last, blksz;
	long long size;

	diag("%s: the CD's capacity (1024 2K blocks) and its read fault at 2K block %llu"
	     " (MEDIUM ERROR 11/00): ENODATA, the sense in the kernel log, the blocks beside"
	     " it right, the size unchanged", c->name, CD_BAD_BLOCK);
	fd = open_role(c, true, O_RDONLY | O_DIRECT, cd, sizeof(cd));
	if (fd < 0)
		return -1;
	cdb10(cdb, 0x25, 0, 0);
	if (sgio(fd, cdb, 10, cap, sizeof(cap), &r))
		goto out;
	last = (uint32_t)cap[0] << 24 | cap[1] << 16 | cap[2] << 8 | cap[3];
	blksz = (uint32_t)cap[4] << 24 | cap[5] << 16 | cap[6] << 8 | cap[7];
	if (r.status || r.host_status || last != CD_SECTORS / 4 - 1 || blksz != CD_BLOCK) {
		fail("READ CAPACITY: status 0x%x host 0x%x, last block %u of %u bytes, want 1023"
		     " of 2048", r.status, r.host_status, last, blksz);
		goto out;
	}
	size = size_of(cd);
	if (c->cd_size_why)
		diag("%s: size %lld sectors, not checked: %s", cd, size, c->cd_size_why);
	else if (size_is(cd, CD_SECTORS))
		goto out;
	if (must_fail(&c->cd_err, fd, false, CD_BAD_BLOCK * CD_BLOCK, CD_BLOCK,
		      "the CD's bad block"))
		goto out;
	kmsg_sync();
	if (log_sense(&c->cd_err, mark, cd) ||
	    read_right(fd, (CD_BAD_BLOCK - 1) * CD_BLOCK, CD_BLOCK, 0, "the 2K block before") ||
	    read_right(fd, (CD_BAD_BLOCK + 1) * CD_BLOCK, CD_BLOCK, 0, "the 2K block after") ||
	    read_right(fd, (CD_SECTORS / 4 - 1) * CD_BLOCK, CD_BLOCK, 0, "the last 2K block"))
		goto out;
	ret = size_is(cd, size);	/* the error changed nothing */
out:
	close(fd);
	return ret;
}
