/*
 * t_lying_sgio.c: SG_IO and SCSI_IOCTL_SEND_COMMAND when the caller's
 * header or memory is wrong (issue 24: scsi_ioctl.c's sg_io,
 * scsi_complete_sghdr_rq and sg_scsi_ioctl).  What user space sees: the
 * errno, the header, and the commands the scsi_bbtest disk got (a header
 * the kernel refuses sends nothing).
 *
 *   lying-device-sgio-faults   errnos before anything is sent: interface_id
 *                              not 'S' EINVAL, a bad dxfer_direction EINVAL,
 *                              dxfer_len over max_hw_sectors EIO, cmd_len 33
 *                              EINVAL, 5 EMSGSIZE, cmdp unreadable EFAULT;
 *                              a 32-byte CDB (the largest) is taken, not
 *                              EINVAL; CHECK CONDITION with no sense buffer
 *                              (sbp NULL): 0, status 2, sb_len_wr 0; a WRITE
 *                              from read-only memory is sent (the pages are
 *                              only read); a READ bounced (unaligned) into
 *                              read-only memory is sent, then EFAULT when
 *                              the data cannot be copied back; duration is
 *                              at most the wall time the ioctl took
 *   lying-device-send-command-faults  SCSI_IOCTL_SEND_COMMAND: a CHECK
 *                              CONDITION hands back exactly 16 bytes of
 *                              sense (the 17th, non-zero here, is not
 *                              copied); a data area user space cannot write
 *                              is EFAULT (the command was sent, once) for a
 *                              GOOD and for a CHECK CONDITION answer
 *
 * Disk sectors 1536..1599.
 */
#include "bbsuite.h"

#include <errno.h>
#include <fcntl.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MEDIUM_ERROR	3
#define OP_READ_10	0x28
#define OP_WRITE_10	0x2a
#define OP_VARLEN	0x7f
#define PAGE		4096u

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A READ(10) or WRITE(10) CDB of n blocks at sector s. */
static void rw10(unsigned char *cdb, unsigned char op, uint64_t s, unsigned int n)
{
	memset(cdb, 0, 10);
	cdb[0] = op;
	for (int i = 0; i < 4; i++)
		cdb[2 + i] = (unsigned char)(s >> (24 - 8 * i));
	cdb[7] = (unsigned char)(n >> 8);
	cdb[8] = (unsigned char)n;
}

/* A header for cdb (len bytes) moving dlen bytes of buf from the device
 * (to it when out), with sense room mx in sense; output fields garbage. */
static void hdr_init(struct sg_io_hdr *h, unsigned char *cdb, int len, void *buf,
		     unsigned int dlen, bool out, unsigned char *sense, int mx)
{
	memset(h, 0, sizeof(*h));
	h->interface_id = 'S';
	h->dxfer_direction = !dlen ? SG_DXFER_NONE : out ? SG_DXFER_TO_DEV : SG_DXFER_FROM_DEV;
	h->cmd_len = (unsigned char)len;
	h->cmdp = cdb;
	h->dxferp = buf;
	h->dxfer_len = dlen;
	h->sbp = sense;
	h->mx_sb_len = (unsigned char)mx;
	h->timeout = 20000;
	h->status = h->masked_status = 0x5a;
	h->sb_len_wr = 0x5a;
	h->host_status = h->driver_status = 0x5a5a;
	h->duration = 0x5a5a5a5a;
}

/* SG_IO on the disk: 0 or -errno; the wall time it took in *ms. */
static int sg_ioctl(struct sg_io_hdr *h, double *ms)
{
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret;
	double t0;

	if (fd < 0)
		return -EBADF;
	t0 = now_ms();
	ret = ioctl(fd, SG_IO, h) < 0 ? -errno : 0;
	if (ms)
		*ms = now_ms() - t0;
	close(fd);
	return ret;
}

/* Every command the disk got since the opcodes were cleared (scsi_bbtest
 * counts all but INQUIRY), or -1. */
static int disk_commands(void)
{
	FILE *f = fopen("/sys/kernel/debug/scsi_bbtest/opcodes", "re");
	unsigned int lun, op;
	int n, total = 0;

	if (!f)
		return fail("scsi_bbtest/opcodes: %s", strerror(errno));
	while (fscanf(f, "%u %x %d", &lun, &op, &n) == 3)
		if (lun == 0)
			total += n;
	fclose(f);
	return total;
}

static int clear_counts(void)
{
	return knob_write("/sys/kernel/debug/scsi_bbtest/log", "clear") || bbtest_opcodes_clear();
}

/* A header the kernel must refuse with errno want, sending nothing. */
static int refused(const char *name, struct sg_io_hdr *h, int want)
{
	int got, sent;

	if (clear_counts())
		return -1;
	got = sg_ioctl(h, NULL);
	sent = disk_commands();
	diag("SG_IO, %s: %s, %d command(s) sent", name, got ? strerror(-got) : "success", sent);
	if (got == -EBADF)
		return -1;
	if (got != -want || sent != 0)
		return fail("SG_IO, %s: %s after %d commands sent, want %s and nothing sent", name,
			    got ? strerror(-got) : "success", sent, strerror(want));
	return 0;
}

static int sgio_refusals(unsigned char *buf, unsigned char *noread)
{
	unsigned char cdb[40], sense[32];
	struct sg_io_hdr h;

	rw10(cdb, OP_READ_10, 1536, 1);
	hdr_init(&h, cdb, 10, buf, SECTOR, false, sense, 32);
	h.interface_id = 'Q';
	if (refused("interface_id 'Q'", &h, EINVAL))
		return -1;
	hdr_init(&h, cdb, 10, buf, SECTOR, false, sense, 32);
	h.dxfer_direction = 7;
	if (refused("dxfer_direction 7", &h, EINVAL))
		return -1;
	/* scsi_bbtest's max_sectors is 256: 128 KiB at most */
	hdr_init(&h, cdb, 10, buf, 256 * SECTOR + SECTOR, false, sense, 32);
	if (refused("dxfer_len 128 KiB + 512 (max_hw_sectors 256)", &h, EIO))
		return -1;
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = OP_VARLEN;
	cdb[7] = 32 - 8;
	hdr_init(&h, cdb, 33, NULL, 0, false, sense, 32);
	if (refused("cmd_len 33", &h, EINVAL))
		return -1;
	rw10(cdb, OP_READ_10, 1536, 1);
	hdr_init(&h, cdb, 5, buf, SECTOR, false, sense, 32);
	if (refused("cmd_len 5", &h, EMSGSIZE))
		return -1;
	hdr_init(&h, noread, 10, buf, SECTOR, false, sense, 32);
	return refused("cmdp unreadable", &h, EFAULT);
}

/* A 32-byte variable-length CDB: SG_IO takes it (the host may refuse it:
 * scsi_bbtest's max_cmd_len is 16). */
static int sgio_varlen(void)
{
	unsigned char cdb[32] = { OP_VARLEN, 0, 0, 0, 0, 0, 0, 32 - 8 }, sense[32];
	struct sg_io_hdr h;
	int got;

	hdr_init(&h, cdb, 32, NULL, 0, false, sense, 32);
	got = sg_ioctl(&h, NULL);
	diag("SG_IO, a 32-byte CDB: %s, status 0x%02x host 0x%02x info %u",
	     got ? strerror(-got) : "success", h.status, h.host_status, h.info);
	if (got == -EBADF)
		return -1;
	if (got || !(h.info & SG_INFO_CHECK))
		return fail("SG_IO, a 32-byte CDB: %s (info %u), want it taken and failed by the"
			    " host or the device (SG_INFO_CHECK)", got ? strerror(-got) : "success",
			    h.info);
	return 0;
}

/* CHECK CONDITION with sense, the caller giving no sense buffer. */
static int sgio_no_sbp(unsigned char *buf)
{
	unsigned char cdb[10];
	struct sg_io_hdr h;
	char sense[64];
	int got;

	sense_q(sense, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	rw10(cdb, OP_READ_10, 1540, 1);
	hdr_init(&h, cdb, 10, buf, SECTOR, false, NULL, 32);
	if (rulef("lun=0 lba=1540 status=2 sense=%s copy=0 resid=rest", sense))
		return -1;
	got = sg_ioctl(&h, NULL);
	diag("SG_IO, CHECK CONDITION, sbp NULL, mx_sb_len 32: %s, status 0x%02x driver 0x%02x"
	     " sb_len_wr %d", got ? strerror(-got) : "success", h.status, h.driver_status,
	     h.sb_len_wr);
	if (got == -EBADF)
		return -1;
	if (got || h.status != 2 || h.driver_status != 0x08 || h.sb_len_wr != 0)
		return fail("SG_IO, CHECK CONDITION without a sense buffer: %s, status 0x%02x"
			    " driver 0x%02x sb_len_wr %d; want success, 2, 0x08 (DRIVER_SENSE), 0",
			    got ? strerror(-got) : "success", h.status, h.driver_status, h.sb_len_wr);
	return 0;
}

/* SG_IO of cdb on buf (dlen bytes, out: to the device) that must end in
 * want (0 or an errno) after one command on the region; on success with
 * status GOOD and a duration within the wall time the ioctl took (an
 * EFAULT leaves the caller's header as it was). */
static int sgio_memory(const char *name, unsigned char *cdb, void *buf, unsigned int dlen,
		       bool out, int want, uint64_t s)
{
	unsigned char sense[32];
	struct sg_io_hdr h;
	int got, oob, seen;
	double ms;

	hdr_init(&h, cdb, 10, buf, dlen, out, sense, 32);
	if (clear_counts())
		return -1;
	got = sg_ioctl(&h, &ms);
	seen = bbtest_log_count(0, s, dlen / SECTOR, &oob);
	diag("SG_IO, %s: %s, status 0x%02x, %d command(s), duration %u ms of %.1f ms", name,
	     got ? strerror(-got) : "success", h.status, seen, h.duration, ms);
	if (got == -EBADF)
		return -1;
	if (got != -want || seen != 1)
		return fail("SG_IO, %s: %s after %d commands; want %s after 1", name,
			    got ? strerror(-got) : "success", seen, want ? strerror(want) : "success");
	if (want)
		return 0;
	if (h.status != 0)
		return fail("SG_IO, %s: status 0x%02x, want GOOD", name, h.status);
	/* jiffies (HZ 100 at the coarsest: 10 ms) against the monotonic clock */
	if (h.duration > ms + 10)
		return fail("SG_IO, %s: duration %u ms, but the ioctl took %.1f ms", name,
			    h.duration, ms);
	return 0;
}

static int sgio_faults(unsigned char *map)
{
	unsigned char *ro = map + PAGE, *buf = io_buf(PAGE), cdb[10];
	int ret = -1;

	/* page 0: no access; pages 1-2: the lba pattern of sector 1544, read-only */
	pat_fill(ro, 2 * PAGE, 1544 * SECTOR, 0);
	if (mprotect(map, PAGE, PROT_NONE) || mprotect(ro, 2 * PAGE, PROT_READ)) {
		fail("mprotect: %s", strerror(errno));
		goto out;
	}
	if (sgio_refusals(buf, map) || sgio_varlen() || sgio_no_sbp(buf))
		goto out;
	rw10(cdb, OP_WRITE_10, 1544, 8);
	if (sgio_memory("WRITE(10) from read-only memory", cdb, ro, PAGE, true, 0, 1544))
		goto out;
	/* one byte off the queue's dma alignment: bounced, copied back after */
	rw10(cdb, OP_READ_10, 1560, 1);
	if (sgio_memory("READ(10) bounced into read-only memory", cdb, ro + 1, SECTOR, false,
			EFAULT, 1560))
		goto out;
	rw10(cdb, OP_READ_10, 1568, 8);
	if (sgio_memory("READ(10)", cdb, buf, PAGE, false, 0, 1568) ||
	    pat_expect(buf, PAGE, 1568 * SECTOR, 0, "SG_IO READ(10) data"))
		goto out;
	ret = bbtest_pending() ? fail("a scripted completion was never used") : 0;
out:
	free(buf);
	return ret;
}

int t_lying_sgio_faults(void)
{
	unsigned char *map;
	int ret;

	if (dev_require(ROLE_BBDISK) || bbtest_clear())
		return -1;
	map = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return fail("mmap: %s", strerror(errno));
	ret = sgio_faults(map);
	munmap(map, 3 * PAGE);
	return ret;
}

/* --- lying-device-send-command-faults ---------------------------------- */

#define SCSI_IOCTL_SEND_COMMAND	1

struct send_cmd {
	unsigned int inlen, outlen;
	unsigned char data[PAGE - 8];
};

/* SCSI_IOCTL_SEND_COMMAND through sc (in memory of any protection): its
 * return (the status byte, or -errno; -EBADF: no device) and the commands
 * it sent on sector s. */
static int send_ioctl(struct send_cmd *sc, uint64_t s, int *sent)
{
	int fd = io_open(ROLE_BBDISK, O_RDWR), ret;

	if (fd < 0)
		return -EBADF;
	if (clear_counts()) {
		close(fd);
		return -EBADF;
	}
	ret = ioctl(fd, SCSI_IOCTL_SEND_COMMAND, sc);
	ret = ret < 0 ? -errno : ret;
	close(fd);
	*sent = bbtest_log_count(0, s, 1, &(int){ 0 });
	return ret;
}

static void send_prep(struct send_cmd *sc, uint64_t s)
{
	memset(sc, 0xa5, sizeof(*sc));
	sc->inlen = 0;
	sc->outlen = SECTOR;
	rw10(sc->data, OP_READ_10, s, 1);
}

/* The sense: 18 bytes, MEDIUM ERROR 11/00, bytes 16 and 17 0x5a. */
static const char *sense18(char *out)
{
	sense_q(out, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	memcpy(out + 32, "5a5a", 4);
	return out;
}

static int send_sense16(void)
{
	struct send_cmd sc;
	char sense[64];
	int got, sent;

	send_prep(&sc, 1580);
	if (rulef("lun=0 lba=1580 status=2 sense=%s copy=0 resid=rest", sense18(sense)))
		return -1;
	got = send_ioctl(&sc, 1580, &sent);
	if (got == -EBADF)
		return -1;
	diag("SCSI_IOCTL_SEND_COMMAND, CHECK CONDITION with 18 bytes of sense: %d after %d"
	     " command(s); sense bytes 2 %02x 12 %02x 15 %02x 16 %02x", got, sent, sc.data[2],
	     sc.data[12], sc.data[15], sc.data[16]);
	if (got != 2 || sent != 1)
		return fail("SCSI_IOCTL_SEND_COMMAND, CHECK CONDITION: %d after %d commands, want 2"
			    " after 1", got, sent);
	if (sc.data[2] != MEDIUM_ERROR || sc.data[12] != 0x11 || sc.data[15] != 0 ||
	    sc.data[16] != 0xa5)
		return fail("SCSI_IOCTL_SEND_COMMAND, CHECK CONDITION: the data area holds sense"
			    " bytes 2 %02x 12 %02x 15 %02x 16 %02x; want the first 16 of the"
			    " device's (03 11 00) and byte 16 untouched (a5)", sc.data[2],
			    sc.data[12], sc.data[15], sc.data[16]);
	return 0;
}

/* The data area read-only: the answer (data or sense) cannot be handed
 * back, EFAULT, after exactly one command. */
static int send_readonly(const char *name, struct send_cmd *sc, uint64_t s, const char *rule)
{
	int got, sent;

	if (mprotect(sc, PAGE, PROT_READ | PROT_WRITE))
		return fail("mprotect: %s", strerror(errno));
	send_prep(sc, s);
	if (mprotect(sc, PAGE, PROT_READ))
		return fail("mprotect: %s", strerror(errno));
	if (rule && rulef("lun=0 lba=%llu %s", (unsigned long long)s, rule))
		return -1;
	got = send_ioctl(sc, s, &sent);
	diag("SCSI_IOCTL_SEND_COMMAND into read-only memory, %s: %s after %d command(s)", name,
	     got < 0 ? strerror(-got) : "a status", sent);
	if (got == -EBADF)
		return -1;
	if (got != -EFAULT || sent != 1)
		return fail("SCSI_IOCTL_SEND_COMMAND into read-only memory, %s: %d after %d"
			    " commands, want EFAULT after 1", name, got, sent);
	return 0;
}

int t_lying_send_command_faults(void)
{
	struct send_cmd *sc;
	char sense[64], rule[160];
	int ret = -1;

	if (dev_require(ROLE_BBDISK) || bbtest_clear() || send_sense16())
		return -1;
	sc = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sc == MAP_FAILED)
		return fail("mmap: %s", strerror(errno));
	snprintf(rule, sizeof(rule), "status=2 sense=%s copy=0 resid=rest", sense18(sense));
	if (send_readonly("GOOD", sc, 1584, NULL) ||
	    send_readonly("CHECK CONDITION", sc, 1588, rule))
		goto out;
	ret = bbtest_pending() ? fail("a scripted completion was never used") : 0;
out:
	munmap(sc, PAGE);
	return ret;
}
