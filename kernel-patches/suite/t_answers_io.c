/*
 * t_answers_io.c: what user space sees of one answer of the scsi_bbtest
 * disk or CD (a row of t_answers.c's tables), in four parts, each on data
 * written just before it with a seed of its own, so that a page left from
 * an earlier part, or never filled, cannot pass for the right one:
 *
 *   split read  one io_submit of an O_DIRECT read per block of the region,
 *               which the block layer merges into one command: the reads
 *               before the first bad byte complete with the data written,
 *               the others fail with the errno of the class (or complete,
 *               if the command was retried); the device's commands counted
 *   readahead   readahead(2) of the region (REQ_RAHEAD: fail-fast) answered
 *               the same way: every page it left in the page cache holds
 *               the data written (mincore, then the mapping; no I/O), and
 *               every page then reads right through the page cache
 *   SG_IO       a READ of the region answered once: status, host byte,
 *               driver status, residual and sense bytes as the device sent
 *               them (what the midlayer does to each), the bytes sent as
 *               written and those not sent untouched by the kernel
 *   afterwards  the device's state and size as before, and the region
 *               reads right
 *
 * The rows' classes and what tells them apart are in ANSWERS.md.
 */
#include "t_answers.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_BLOCKS	16
#define REGION_MAX	(16 * 512)
#define POISON		0xee	/* scsi_bbtest: bytes it did not send */
#define UNTOUCHED	0x5a	/* SG_IO's buffer before the command */
#define DRIVER_SENSE	0x08
#define DID_PASSTHROUGH	0x0a
#define CHECK_CONDITION	0x02
#define MEDIA		"/sys/kernel/debug/scsi_bbtest/media"

size_t sense_build(const struct sense_spec *s, uint64_t info, unsigned char *out)
{
	bool deferred = s->form == SENSE_FIXED_DEFERRED || s->form == SENSE_DESC_DEFERRED;
	bool valid = s->info != INFO_NONE;

	memset(out, 0, 32);
	switch (s->form) {
	case SENSE_NONE:
		return 0;
	case SENSE_FIXED:
	case SENSE_FIXED_DEFERRED:
	case SENSE_FIXED_SHORT:
	case SENSE_NOT_SENSE:
		out[0] = s->form == SENSE_NOT_SENSE ? 0 : (deferred ? 0x71 : 0x70) | (valid ? 0x80 : 0);
		out[2] = s->key;
		for (int i = 0; i < 4 && valid; i++)
			out[3 + i] = (unsigned char)(info >> (24 - 8 * i));
		if (s->form == SENSE_FIXED_SHORT)
			return 8;	/* additional length 0: no ASC, no ASCQ */
		out[7] = 10;
		out[12] = s->asc;
		out[13] = s->ascq;
		return 18;
	default:
		break;
	}
	out[0] = deferred ? 0x73 : 0x72;
	out[1] = s->key;
	out[2] = s->asc;
	out[3] = s->ascq;
	if (s->form == SENSE_DESC_STREAM_ILI) {
		out[7] = 4;
		out[8] = 0x04;		/* stream commands descriptor */
		out[9] = 0x02;
		out[11] = 0x20;		/* ILI */
		return 12;
	}
	if (s->form == SENSE_DESC_BARE || !valid)
		return 8;
	out[7] = 12;
	out[9] = 0x0a;			/* information descriptor */
	out[10] = 0x80;			/* VALID */
	for (int i = 0; i < 8; i++)
		out[12 + i] = (unsigned char)(info >> (56 - 8 * i));
	return 20;
}

/* --- the device ---------------------------------------------------------- */

static const char *dname(const struct answer_dev *d)
{
	return d->role == ROLE_BBDISK ? "scsi_bbtest disk" : "scsi_bbtest CD";
}

/* The INFORMATION a's sense names: the bad block, or one past the region. */
static uint64_t answer_info(const struct answer_dev *d, const struct answer *a)
{
	return a->sense.info == INFO_BAD ? d->region + d->bad : d->region + d->blocks + 100;
}

static int state_path(const struct answer_dev *d, char *out, size_t len)
{
	if (dev_require(d->role))
		return -1;
	snprintf(out, len, "/sys/block/%s/device/state", dev_name(d->role));
	return 0;
}

static int set_state(const struct answer_dev *d, const char *state)
{
	char path[128];

	return state_path(d, path, sizeof(path)) ? -1 : knob_writef(path, "%s\n", state);
}

static int state_is(const struct answer_dev *d, const char *want, const char *when)
{
	char path[128], now[32];

	if (state_path(d, path, sizeof(path)) || knob_read(path, now, sizeof(now)))
		return -1;
	if (strcmp(now, want))
		return fail("%s: the %s is %s, want %s", when, dname(d), now, want);
	return 0;
}

static size_t region_bytes(const struct answer_dev *d)
{
	return (size_t)d->blocks * d->blksz;
}

static uint64_t region_off(const struct answer_dev *d)
{
	return d->region * d->blksz;
}

/* READ(10) or WRITE(10) of the region. */
static void rw10(const struct answer_dev *d, unsigned char *cdb, unsigned char op)
{
	memset(cdb, 0, 10);
	cdb[0] = op;
	for (int i = 0; i < 4; i++)
		cdb[2 + i] = (unsigned char)(d->region >> (24 - 8 * i));
	cdb[8] = (unsigned char)d->blocks;
}

/* The CD takes no WRITE from sr: its data goes in through SG_IO. */
static int sgio_write(const struct answer_dev *d, int fd, void *buf)
{
	struct sg_io_hdr h;
	unsigned char cdb[10], sense[32];

	rw10(d, cdb, 0x2a);
	memset(&h, 0, sizeof(h));
	h.interface_id = 'S';
	h.dxfer_direction = SG_DXFER_TO_DEV;
	h.cmd_len = 10;
	h.mx_sb_len = sizeof(sense);
	h.dxfer_len = (unsigned int)region_bytes(d);
	h.dxferp = buf;
	h.cmdp = cdb;
	h.sbp = sense;
	h.timeout = 20000;
	if (ioctl(fd, SG_IO, &h) < 0)
		return fail("SG_IO WRITE(10) of the %s: %s", dname(d), strerror(errno));
	if (h.status || h.host_status || h.resid)
		return fail("SG_IO WRITE(10) of the %s: status 0x%x, host 0x%x, resid %d",
			    dname(d), h.status, h.host_status, h.resid);
	return 0;
}

/* The region written with seed's pattern, the page cache dropped. */
static int seed_write(const struct answer_dev *d, uint64_t seed)
{
	unsigned char *buf = io_buf(region_bytes(d));
	bool disk = d->role == ROLE_BBDISK;
	int fd = io_open(d->role, disk ? O_RDWR | O_DIRECT : O_RDONLY), ret = -1;

	if (fd < 0)
		goto out;
	pat_fill(buf, region_bytes(d), region_off(d), seed);
	if (disk && io_pwrite(fd, buf, region_bytes(d), region_off(d)) != (ssize_t)region_bytes(d))
		fail("O_DIRECT write of the %s's region failed", dname(d));
	else if (disk || !sgio_write(d, fd, buf))
		ret = io_drop_cache(fd);
	close(fd);
out:
	free(buf);
	return ret;
}

int answer_media_reset(const struct answer_dev *d)
{
	char now[32];
	int fd;

	if (knob_write(MEDIA, "reset") || knob_read(MEDIA, now, sizeof(now)))
		return -1;
	fd = io_open(d->role, O_RDONLY);
	if (fd < 0)
		return -1;
	if (io_drop_cache(fd)) {
		close(fd);
		return -1;
	}
	close(fd);
	return strcmp(now, "0 0") ? fail("scsi_bbtest's media after a reset: %s", now) : 0;
}

/* --- one answer's rule --------------------------------------------------- */

static int rule_add(const struct answer_dev *d, const struct answer *a, int times, bool say)
{
	unsigned char s[32];
	char sense[80], copy[24];
	size_t n = sense_build(&a->sense, answer_info(d, a), s);

	char rule[256];

	lying_hex(sense, s, n);
	if (a->sent < 0)
		snprintf(copy, sizeof(copy), "all");
	else
		snprintf(copy, sizeof(copy), "%u", a->sent * d->blksz);
	snprintf(rule, sizeof(rule), "lun=%u lba=%llu status=%d host=%d copy=%s resid=%s count=%d%s%s%s",
		 d->lun, (unsigned long long)(d->region + d->bad), a->status, a->host, copy,
		 a->resid ? "rest" : "0", times, n ? " sense=" : "", n ? sense : "",
		 a->offline ? " offline=1" : "");
	if (say)
		diag("rule: %s", rule);
	return bbtest_rule(rule);
}

/* The device's commands on the region since the log was cleared; *merged:
 * the first one was the whole region. */
static int commands(const struct answer_dev *d, bool *merged)
{
	struct bbt_cmd log[64];
	int n = bbtest_log_read(log, 64), seen = 0;

	*merged = false;
	for (int i = 0; i < n; i++) {
		if (log[i].lun != d->lun || log[i].lba >= d->region + d->blocks ||
		    log[i].lba + log[i].blocks <= d->region)
			continue;
		if (!seen++)
			*merged = log[i].lba == d->region && (int)log[i].blocks == d->blocks;
		if (log[i].oob)
			return fail("a command went past the end of the medium");
	}
	return n < 0 ? -1 : seen;
}

/* Before a part: fresh data, no rules, an empty log, the answer scripted. */
static int part_start(const struct answer_dev *d, const struct answer *a, int times,
		      uint64_t seed, bool say)
{
	if (bbtest_clear() || seed_write(d, seed) || bbtest_clear())
		return -1;
	return a->lost_before ? 0 : rule_add(d, a, times, say);
}

/* After a part: the device lost (offline) if the answer said so, then
 * back; no rule left. */
static int part_end(const struct answer_dev *d, const struct answer *a, const char *part)
{
	char when[96];

	snprintf(when, sizeof(when), "after the %s", part);
	if ((a->offline || a->lost_before) &&
	    (state_is(d, "offline", when) || set_state(d, "running")))
		return -1;
	return bbtest_clear();
}

/* --- the split read ------------------------------------------------------- */

/* One io_submit of an O_DIRECT read per block: each one's result in res. */
static int split_submit(const struct answer_dev *d, int fd, unsigned char *buf, long *res)
{
	aio_context_t ctx = 0;
	struct iocb cbs[MAX_BLOCKS], *list[MAX_BLOCKS];
	struct io_event ev[MAX_BLOCKS];
	int n = 0, ret = -1;

	if (syscall(SYS_io_setup, MAX_BLOCKS, &ctx))
		return fail("io_setup: %s", strerror(errno));
	for (int i = 0; i < d->blocks; i++) {
		memset(&cbs[i], 0, sizeof(cbs[i]));
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_fildes = (uint32_t)fd;
		cbs[i].aio_buf = (uint64_t)(uintptr_t)(buf + (size_t)i * d->blksz);
		cbs[i].aio_nbytes = d->blksz;
		cbs[i].aio_offset = (int64_t)(region_off(d) + (uint64_t)i * d->blksz);
		cbs[i].aio_data = (uint64_t)i;
		list[i] = &cbs[i];
	}
	if (syscall(SYS_io_submit, ctx, d->blocks, list) != d->blocks) {
		fail("io_submit of %d reads: %s", d->blocks, strerror(errno));
		goto out;
	}
	while (n < d->blocks) {
		long got = syscall(SYS_io_getevents, ctx, 1, d->blocks - n, &ev[n], NULL);

		if (got < 0) {
			fail("io_getevents: %s", strerror(errno));
			goto out;
		}
		n += (int)got;
	}
	for (int i = 0; i < n; i++)
		res[ev[i].data] = (long)ev[i].res;
	ret = 0;
out:
	syscall(SYS_io_destroy, ctx);
	return ret;
}

/* The split read's results against want: 0 or fail(). */
static int split_judge(const struct answer_dev *d, const struct seen *want,
		       const unsigned char *buf, const long *res, uint64_t seed)
{
	for (int i = 0; i < d->blocks; i++) {
		bool good = i < want->good || !want->err;
		uint64_t off = region_off(d) + (uint64_t)i * d->blksz;

		if (good && res[i] != (long)d->blksz)
			return fail("block %d of %d: %s, want its data", i, d->blocks,
				    res[i] < 0 ? strerror((int)-res[i]) : "short");
		if (good && pat_expect(buf + (size_t)i * d->blksz, d->blksz, off, seed,
				       "a block the split read completed"))
			return -1;
		if (!good && res[i] == (long)d->blksz)
			return fail("block %d of %d completed with %s, want %s", i, d->blocks,
				    pat_check(buf + (size_t)i * d->blksz, d->blksz, off, seed) < 0 ?
				    "the data written" : buf[(size_t)i * d->blksz] == POISON ?
				    "bytes the device never sent" : "wrong data",
				    strerror(want->err));
		if (!good && res[i] != -want->err)
			return fail("block %d of %d: %s, want %s", i, d->blocks,
				    res[i] < 0 ? strerror((int)-res[i]) : "short", strerror(want->err));
	}
	return 0;
}

static int split_read(const struct answer_dev *d, const struct seen *want, bool lost_before,
		      uint64_t seed)
{
	unsigned char *buf = io_buf(region_bytes(d));
	long res[MAX_BLOCKS];
	int fd = io_open(d->role, O_RDONLY | O_DIRECT), ret = -1, right = 0, seen;
	bool merged;

	if (fd < 0 || (lost_before && set_state(d, "offline")) || split_submit(d, fd, buf, res))
		goto out;
	seen = commands(d, &merged);
	for (int i = 0; i < d->blocks && res[i] == (long)d->blksz; i++)
		right++;
	diag("split read: %d of %d blocks complete, then %s; %d command(s)", right, d->blocks,
	     right < d->blocks && res[right] < 0 ? strerror((int)-res[right]) : "-", seen);
	if (seen < 0 || (seen && !merged))
		ret = seen < 0 ? -1 : fail("the %d reads were not merged into one command: the"
					   " bytes completed cannot be told", d->blocks);
	else if (!split_judge(d, want, buf, res, seed))
		ret = seen == want->cmds ? 0 : fail("the split read took %d command(s), want %d",
						    seen, want->cmds);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* --- readahead ------------------------------------------------------------ */

/* Pages of the region in the page cache hold the data written. */
static int cached_pages_right(const struct answer_dev *d, int fd, uint64_t seed, int *cached)
{
	size_t len = region_bytes(d);
	unsigned char vec[REGION_MAX / 4096];
	unsigned char *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)region_off(d));
	int ret = 0;

	*cached = 0;
	if (map == MAP_FAILED)
		return fail("mmap of the %s: %s", dname(d), strerror(errno));
	/* only pages in the cache are touched: no fault reads (the readahead
	 * marked none for a later one) */
	if (mincore(map, len, vec)) {
		ret = fail("mincore: %s", strerror(errno));
		goto out;
	}
	for (size_t p = 0; p < len / 4096 && !ret; p++) {
		if (!(vec[p] & 1))
			continue;
		(*cached)++;
		ret = pat_expect(map + p * 4096, 4096, region_off(d) + p * 4096, seed,
				 "a page the readahead left in the page cache");
	}
out:
	munmap(map, len);
	return ret;
}

static int readahead_part(const struct answer_dev *d, const struct answer *a, uint64_t seed)
{
	unsigned char *buf = io_buf(4096);
	int fd = io_open(d->role, O_RDONLY), ret = -1, cached;

	if (fd < 0 || (a->lost_before && set_state(d, "offline")))
		goto out;
	if (readahead(fd, (off64_t)region_off(d), region_bytes(d))) {
		fail("readahead(2): %s", strerror(errno));
		goto out;
	}
	if (cached_pages_right(d, fd, seed, &cached) || part_end(d, a, "readahead"))
		goto out;
	diag("readahead: %d of %zu pages cached", cached, region_bytes(d) / 4096);
	for (size_t p = 0; p < region_bytes(d) / 4096; p++) {
		uint64_t off = region_off(d) + p * 4096;
		ssize_t got = io_pread(fd, buf, 4096, off);

		if (got != 4096) {
			fail("buffered read after the readahead, page %zu: %s", p,
			     got < 0 ? strerror((int)-got) : "short");
			goto out;
		}
		if (pat_expect(buf, 4096, off, seed, "a buffered read after the readahead"))
			goto out;
	}
	ret = io_drop_cache(fd);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* --- SG_IO ---------------------------------------------------------------- */

/* What SG_IO's READ must see of a: *sense (*sense_len bytes). */
static void sg_want(const struct answer_dev *d, const struct answer *a, bool retried,
		    struct sgio_result *w)
{
	unsigned char s[32];
	size_t n = sense_build(&a->sense, answer_info(d, a), s);
	bool valid = n && (s[0] & 0x70) == 0x70;

	memset(w, 0, sizeof(*w));
	if (retried)
		return;		/* the second command was answered as usual */
	w->status = a->status;
	w->host_status = a->host == DID_PASSTHROUGH ? 0 : a->host;
	w->driver_status = a->status == CHECK_CONDITION ? DRIVER_SENSE : 0;
	w->resid = a->resid ? (int)(region_bytes(d) - (a->sent < 0 ? region_bytes(d) :
						     (size_t)a->sent * d->blksz)) : 0;
	if (a->status == CHECK_CONDITION && !valid) {
		/* the error handler's REQUEST SENSE: scsi_bbtest's NO SENSE */
		w->sense[0] = 0x70;
		w->sense[7] = 10;
		w->sense_len = 18;
		return;
	}
	/* sense comes back with a non-zero result: 6.12 makes a GOOD one
	 * non-zero when its sense names a failure (the rows whose 6.12
	 * outcome differs) */
	if (valid && (w->status || w->host_status ||
		      (kernel_version() >= KV(6, 12, 0) && a->io612.cmds))) {
		memcpy(w->sense, s, n);
		w->sense_len = 8 + s[7] < 32 ? 8 + s[7] : 32;
	}
}

static int sg_judge(const struct answer_dev *d, const struct answer *a, bool retried,
		    const struct sgio_result *r, const unsigned char *buf, uint64_t seed)
{
	struct sgio_result w;
	size_t sent = retried || a->sent < 0 ? region_bytes(d) : (size_t)a->sent * d->blksz;

	sg_want(d, a, retried, &w);
	if (r->status != w.status || r->host_status != w.host_status ||
	    r->driver_status != w.driver_status || r->resid != w.resid)
		return fail("SG_IO READ: status 0x%x host 0x%x driver 0x%x resid %d, want 0x%x 0x%x"
			    " 0x%x %d", r->status, r->host_status, r->driver_status, r->resid,
			    w.status, w.host_status, w.driver_status, w.resid);
	if (r->sense_len != w.sense_len || memcmp(r->sense, w.sense, (size_t)w.sense_len)) {
		char got[80], want[80];

		lying_hex(got, r->sense, r->sense_len > 32 ? 32 : (size_t)r->sense_len);
		lying_hex(want, w.sense, (size_t)w.sense_len);
		return fail("SG_IO READ: sense %s (%d bytes), want %s", got, r->sense_len, want);
	}
	if (pat_expect(buf, sent, region_off(d), seed, "SG_IO READ's data"))
		return -1;
	for (size_t i = sent; i < region_bytes(d); i++)
		if (buf[i] != POISON)
			return fail("SG_IO READ: byte %zu, which the device did not send, is 0x%02x",
				    i, buf[i]);
	return 0;
}

/* SG_IO on an offline device: the ioctl fails with ENODEV, nothing sent
 * (scsi_ioctl_block_when_processing_errors). */
static int sgio_offline(const struct answer_dev *d, int fd, unsigned char *cdb,
			unsigned char *buf)
{
	struct sg_io_hdr h;
	int err, seen;
	bool merged;

	memset(&h, 0, sizeof(h));
	h.interface_id = 'S';
	h.dxfer_direction = SG_DXFER_FROM_DEV;
	h.cmd_len = 10;
	h.dxfer_len = (unsigned int)region_bytes(d);
	h.dxferp = buf;
	h.cmdp = cdb;
	h.timeout = 20000;
	err = ioctl(fd, SG_IO, &h) < 0 ? errno : 0;
	seen = commands(d, &merged);
	diag("SG_IO READ of the offline %s: %s, %d command(s)", dname(d),
	     err ? strerror(err) : "done", seen);
	if (err != ENODEV || seen)
		return fail("SG_IO READ of the offline %s: %s after %d command(s), want ENODEV"
			    " after none", dname(d), err ? strerror(err) : "done", seen);
	return 0;
}

static int sgio_part(const struct answer_dev *d, const struct answer *a, bool lost_before,
		     uint64_t seed)
{
	unsigned char cdb[10], *buf = io_buf(region_bytes(d));
	int fd = io_open(d->role, O_RDONLY), ret = -1, seen, want = a->sg_cmds ? a->sg_cmds : 1;
	struct sgio_result r;
	bool merged;

	memset(buf, UNTOUCHED, region_bytes(d));
	rw10(d, cdb, 0x28);
	if (fd < 0 || (lost_before && set_state(d, "offline")))
		goto out;
	if (lost_before) {
		ret = sgio_offline(d, fd, cdb, buf);
		goto out;
	}
	if (sgio(fd, cdb, 10, buf, region_bytes(d), &r))
		goto out;
	seen = commands(d, &merged);
	diag("SG_IO READ: status 0x%x host 0x%x driver 0x%x resid %d, %d sense bytes, %d"
	     " command(s)", r.status, r.host_status, r.driver_status, r.resid, r.sense_len, seen);
	if (seen != want)
		ret = fail("SG_IO READ: %d command(s), want %d", seen, want);
	else
		ret = sg_judge(d, a, want > 1, &r, buf, seed);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* --- one answer ----------------------------------------------------------- */

/* The open of an offline disk fails: ENXIO (sd_open). */
static int open_offline(const struct answer_dev *d)
{
	int fd, err;

	if (set_state(d, "offline"))
		return -1;
	fd = open(dev_node(d->role), O_RDONLY | O_CLOEXEC);
	err = errno;
	if (fd >= 0)
		close(fd);
	if (set_state(d, "running"))
		return -1;
	if (fd >= 0 || err != ENXIO)
		return fail("open of the offline %s: %s, want ENXIO", dname(d),
			    fd >= 0 ? "it opened" : strerror(err));
	return 0;
}

/* The device afterwards: running, its size, the region right. */
static int after_check(const struct answer_dev *d, long long size, uint64_t seed)
{
	unsigned char *buf = io_buf(region_bytes(d));
	int fd = -1, ret = -1;

	if (state_is(d, "running", "after the answer"))
		goto out;
	if (dev_sectors(d->role) != size) {
		fail("the %s has %lld sectors after the answer, want %lld", dname(d),
		     dev_sectors(d->role), size);
		goto out;
	}
	fd = io_open(d->role, O_RDONLY | O_DIRECT);
	if (fd < 0)
		goto out;
	if (io_pread(fd, buf, region_bytes(d), region_off(d)) != (ssize_t)region_bytes(d))
		fail("the region of the %s no longer reads after the answer", dname(d));
	else
		ret = pat_expect(buf, region_bytes(d), region_off(d), seed,
				 "the region after the answer");
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

static int answer_parts(const struct answer_dev *d, const struct answer *a, int row)
{
	const struct seen *want = kernel_version() >= KV(6, 12, 0) && a->io612.cmds ?
				  &a->io612 : &a->io;
	int times = a->times == EVERY_TRY ? d->tries : a->times ? a->times : 1;
	uint64_t seed = 0x5eed5eed5eed0000ull + (uint64_t)row * 16;
	long long size = dev_sectors(d->role);

	diag("answer: %s", a->name);
	if (part_start(d, a, times, seed + 1, true) || split_read(d, want, a->lost_before, seed + 1) ||
	    part_end(d, a, "split read"))
		return -1;
	if (part_start(d, a, times, seed + 2, false) || readahead_part(d, a, seed + 2))
		return -1;
	if (part_start(d, a, 1, seed + 3, false) || sgio_part(d, a, a->lost_before, seed + 3) ||
	    part_end(d, a, "SG_IO READ"))
		return -1;
	if (a->lost_before && open_offline(d))
		return -1;
	return after_check(d, size, seed + 3);
}

int answer_run(const struct answer_dev *d, const struct answer *a, int row)
{
	int ret;

	if (a->quirk && bbtest_param(a->quirk, 1))
		return -1;
	ret = answer_parts(d, a, row);
	if (ret && (a->offline || a->lost_before))
		set_state(d, "running");	/* a failed part left it offline */
	if (a->quirk && bbtest_param(a->quirk, 0))
		return -1;
	if (ret)
		fail("%s: %s", dname(d), a->name);
	return ret;
}
