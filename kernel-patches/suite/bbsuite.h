/*
 * bbsuite.h: the guest side of bugbridge's SCSI completion test suite.
 *
 * bbsuite runs inside a QEMU guest as the last step of /init.  Each test
 * drives one branch of the 6.1 completion path (sd_done, sd_completed_bytes,
 * sr_done, scsi_finish_command's resid handling, scsi_io_completion) through
 * a real device and checks what user space sees: the data, the errno, the
 * disk size, and the kernel log written while the test ran.  Results go to
 * stdout (the serial console) as KTAP version 1.
 *
 * Map of the code:
 *   bbsuite.c     test table, KTAP output, the per-test kernel-log window,
 *                 kernel-log-clean, bbsuite.only= selection
 *   bbdev.c       devices found by role (host driver, H:C:T:L, INQUIRY),
 *                 removed and scanned again
 *   bborder.c     the running order: the table's, or bbsuite.shuffle=SEED's
 *   bbstate.c     the state the boot left, put back after every test
 *   bbutil.c      pattern fill/check, I/O,
 *                 sysfs knobs, /dev/kmsg reader, SG_IO, child processes
 *   t_sd.c        sd-* tests (scsi_debug and QEMU scsi-hd behind blkdebug)
 *   t_sd_limits.c sd-limits (I/O limits from the Block Limits VPD page)
 *   t_sr.c        sr-* tests (QEMU scsi-cd behind blkdebug)
 *   t_lying.c     lying-device-* tests (the scsi_bbtest harness driver)
 *   t_lying_device.c  lying-device-* tests of the commands besides READ and
 *                 WRITE: READ CAPACITY, READ TOC, resets, SYNCHRONIZE
 *                 CACHE, WRITE SAME, the disk's last sector, a queue freeze
 *   t_lying_merge.c   lying-device-mixed-merge (a failed mixed-merge request)
 *   t_lying_ioctl.c   SG_IO's header, the CD's ioctls and media events, the
 *                 error handler's TEST UNIT READY, the delayed requeue
 *   t_lying_cd_media.c  the CD's media events (GET EVENT STATUS, polls, the
 *                 disagreement with TEST UNIT READY), revalidation and
 *                 sessions, CDROMREADMODE1's fallback to READ(10)
 *   t_lying_rescan.c  scsi-scan (INQUIRY data, a scan of every host) and
 *                 lying-device-rescan (sd's revalidation, READ CAPACITY)
 *   t_lying_sgio.c    SG_IO and SCSI_IOCTL_SEND_COMMAND with a bad header
 *                 or unreadable, unwritable or unaligned user memory
 *   t_lying_execute.c the kernel's own commands (__scsi_execute) started
 *                 from user space: retries of a rescan's READ CAPACITY
 *   t_lying_logging.c  a failed read logged once with completion logging on
 *   t_scan_probe.c    scan-inquiry (the scan's INQUIRY) and what the scan-*
 *                 tests share (scsi_bbtest's scan target)
 *   t_scan_luns.c     scan-report-luns (the scan's REPORT LUNS)
 *   t_lying_eh.c  lying-device-eh-*: the error handler's own commands
 *                 (REQUEST SENSE, TEST UNIT READY, START UNIT), its resets
 *                 and deadline
 *   t_lying_eh_timeout.c  commands the device never answers, a target
 *                 expecting a LUN change, queue depth ramp-up
 *   t_lying_probe.c   lying-device-capacity (READ CAPACITY(10) and (16) as
 *                 sd reads them), lying-device-flush (SYNCHRONIZE CACHE: fsync,
 *                 the disk's removal)
 *   t_lying_timing.c   commands answered late (the timeout each is given)
 *                 or completed twice
 *   t_lying_sgio_order.c  SG_IO in a busy queue: SG_FLAG_Q_AT_HEAD's order,
 *                 waiting for a tag
 *   t_answers.c   lying-device-answers-*: one test body over a table of the
 *                 answer classes (ANSWERS.md); t_answers_io.c is the body
 *   t_guest.c     guest-no-network (QEMU gave the guest no NIC)
 *   bbgcov.c      after the suite, the kernel's gcov data (drivers/scsi, and
 *                 what the runner profiled for a patch)
 *
 * Test contract: a test function returns 0 (ok) or -1 (not ok) after calling
 * fail() with the reason; diag() adds "# " lines.  A test never decides its
 * result from anything but what it observed.
 */
#ifndef BBSUITE_H
#define BBSUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SECTOR 512u

/* Device roles; the QEMU side is declared in suite/scenarios. */
enum role {
	ROLE_SDEBUG,	/* scsi_debug disk (Linux scsi_debug) */
	ROLE_QDISK,	/* QEMU scsi-hd, virtio-scsi target 1, blkdebug */
	ROLE_CDALIAS,	/* QEMU scsi-hd, target 2: writable alias of cdsmall */
	ROLE_CDBIG,	/* QEMU scsi-cd, target 3, blkdebug */
	ROLE_CDSMALL,	/* QEMU scsi-cd, target 4, blkdebug, 128 KiB */
	ROLE_QLIMITS,	/* QEMU scsi-hd, target 5, a Block Limits page */
	ROLE_BBDISK,	/* scsi_bbtest LUN 0 */
	ROLE_BBCD,	/* scsi_bbtest LUN 1 */
	ROLE_MAX
};

/* Fixed facts shared with suite/scenarios (keep the two in step). */
#define SDEBUG_SECTORS		16384ull	/* scsi_debug.dev_size_mb=8 */
#define SDEBUG_BAD_LBA		0x1234ull	/* scsi_debug's OPT_MEDIUM_ERR_ADDR */
#define SDEBUG_BAD_COUNT	2ull		/* scsi_debug.medium_error_count=2 */
#define QDISK_SECTORS		8192ull		/* image qdisk 4194304 */
#define QDISK_BAD_LBA		3000ull		/* blkdebug sector=3000 */
#define CDBIG_SECTORS		4096ull		/* image cdbig 2097152 */
#define CDBIG_BAD_SECTOR	3000ull		/* blkdebug sector=3000 (2K block 750) */
#define CDSMALL_SECTORS		256ull		/* image cdsmall 131072 */
#define CDSMALL_BAD_SECTOR	200ull		/* blkdebug sector=200 (2K block 50) */
#define BBDISK_SECTORS		2048ull		/* scsi_bbtest.disk_blocks default */
#define BBCD_BLOCKS		512ull		/* scsi_bbtest.cd_blocks default */

/* bbsuite.c */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* bborder.c: the tests' running order, as indices of the table (place[i]
 * for table entry i): the table's, or drawn from bbsuite.shuffle=SEED
 * (then true and *seed).  FIRST and LAST tests keep their places. */
enum place { ANY, FIRST, LAST };
bool test_order(const enum place *place, size_t n, size_t *order, uint64_t *seed);

/* bbstate.c: what a test can change, recorded at boot (state_snapshot)
 * and put back after every test (state_before, then state_restore), each
 * thing said on a "left behind" diagnostic; state_restore returns how
 * many could not be put back. */
void state_snapshot(void);
void state_before(void);
int state_restore(void);

/* bbdev.c: devices by role (host driver, H:C:T:L, vendor and model).
 * dev_scan() maps each role to the block device holding it now; bbsuite
 * calls it before every test, dev_add/dev_readd after a scan. */
struct hctl { int host, channel, target, lun; };
void dev_scan(void);
const char *dev_node(enum role r);		/* "/dev/sdb" or NULL */
const char *dev_name(enum role r);		/* "sdb" or NULL */
const char *dev_what(enum role r);		/* "scsi_bbtest disk" */
int dev_require(enum role r);			/* 0, or fail() */
int dev_hctl(enum role r, struct hctl *at);	/* 0, or fail() */
/* Scan r's LUN (where it was last seen) and wait (10 s at most) until a
 * block device holds the role again, with a size if sized: 0 or fail().
 * dev_readd() deletes it first: a fresh probe, as at boot. */
int dev_add(enum role r, bool sized);
int dev_readd(enum role r, bool sized);
long long dev_sectors(enum role r);		/* /sys/block/X/size, -1 */
/* /sys/block/X/device/NAME: the midlayer's per-device counters (hex), -1 */
long long dev_counter(enum role r, const char *name);
/* /sys/block/X/REL as a decimal number ("queue/read_ahead_kb"), -1 */
long long dev_sysfs_number(enum role r, const char *rel);

/* bbutil.c: data pattern.  Every 512-byte unit at byte address A holds the
 * little-endian u64 (A / 512) ^ seed, repeated; seed 0 is the runner's and
 * scsi_bbtest's "lba-pattern". */
void pat_fill(void *buf, size_t len, uint64_t addr, uint64_t seed);
/* Offset of the first byte that differs, or -1. */
long pat_check(const void *buf, size_t len, uint64_t addr, uint64_t seed);
/* pat_check() and fail() naming what and where; 0 if the data is right. */
int pat_expect(const void *buf, size_t len, uint64_t addr, uint64_t seed,
	       const char *what);

/* bbutil.c: I/O.  Buffers come from io_buf() (aligned for O_DIRECT). */
void *io_buf(size_t len);
int io_open(enum role r, int flags);		/* fd or fail() */
/* pread/pwrite of exactly len bytes: returns bytes, or -errno. */
ssize_t io_pread(int fd, void *buf, size_t len, uint64_t off);
ssize_t io_pwrite(int fd, const void *buf, size_t len, uint64_t off);
int io_drop_cache(int fd);			/* fsync + BLKFLSBUF */

/* bbutil.c: sysfs and debugfs knobs */
int knob_write(const char *path, const char *val);
int knob_read(const char *path, char *out, size_t len);	/* first line, trimmed */
long long knob_number(const char *path);		/* -1: unreadable */
int sdisk_attr_path(const char *attr, char *out, size_t n);	/* bbdisk's scsi_disk */
int disk_io_timeout(char *old, size_t len, const char *v);	/* bbdisk's io_timeout */
int knob_writef(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int sdebug_set(unsigned int opts, int every_nth);
int bbtest_rule(const char *rule);		/* one line into rules */
int bbtest_clear(void);
int bbtest_pending(void);			/* rules not yet consumed */
/* Commands in scsi_bbtest's log covering [lba, lba + n) of lun, with the
 * number past the end of the medium in *oob. */
int bbtest_log_count(unsigned int lun, uint64_t lba, uint64_t n, int *oob);
/* The commands in scsi_bbtest's log, oldest first: how many, or -1. */
struct bbt_cmd {
	unsigned int lun, opcode;
	uint64_t lba, blocks;
	bool rule;			/* a scripted completion was used */
	bool oob;			/* it reached past the end of the medium */
};
int bbtest_log_read(struct bbt_cmd *out, int max);
/* Commands of opcode the device got on lun since the last clear, or -1. */
int bbtest_opcount(unsigned int lun, unsigned int opcode);
int bbtest_opcodes_clear(void);
/* /sys/module/scsi_bbtest/parameters/NAME = val */
int bbtest_param(const char *name, long val);

/* bbutil.c: kernel log, read from /dev/kmsg */
int kmsg_open(void);
void kmsg_reopen(void);				/* own read position (child) */
void kmsg_sync(void);
size_t kmsg_mark(void);				/* records read so far */
size_t kmsg_count(void);
const char *kmsg_line(size_t i);
/* First line at or after mark containing needle, or NULL. */
const char *kmsg_find(size_t mark, const char *needle);
/* Is this line a kernel failure (Oops, BUG, WARNING, KASAN, hung task,
 * "attempt to access beyond end of device")? */
bool kmsg_is_bad(const char *line);

/* bbutil.c: SG_IO */
struct sgio_result {
	int status;		/* SCSI status byte */
	int masked_status;	/* the status byte shifted right by one */
	int host_status, driver_status;
	unsigned int info;	/* SG_INFO_CHECK: something went wrong */
	int resid;
	unsigned char sense[32];
	int sense_len;
};
int sgio(int fd, const unsigned char *cdb, int cdb_len, void *buf,
	 size_t len, struct sgio_result *res);
/* The same with mx_sb_len mx (at most sizeof(res->sense)). */
int sgio_mx(int fd, const unsigned char *cdb, int cdb_len, void *buf,
	    size_t len, int mx, struct sgio_result *res);
bool sense_info(const unsigned char *sense, int len, uint64_t *info);

/* bbgcov.c: print the kernel's gcov data on the console (gcov kernels) */
void gcov_dump(void);

/* bbutil.c: the running kernel's release as KV(6, 12, 118) (0: unknown).
 * The suite runs on every kept base (6.1, 6.12): where the midlayer's own
 * behaviour changed between them, a test asks for what this kernel does. */
#define KV(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
unsigned int kernel_version(void);

/* bbutil.c: the value of "key=" on /proc/cmdline (in buf, which holds
 * the whole command line: 4096 bytes), or NULL. */
char *cmdline_arg(const char *key, char *buf, size_t size);

/* bbutil.c: run a program, wait, return its exit status or -1 */
int run_prog(const char *const argv[]);

/* t_lying.c: what the lying-device-* tests share.  sense_* write hex for a
 * rule's sense=; rulef() adds a rule (and says so); lying_finish() checks
 * the rule was used and nothing went past the end; direct_* are O_DIRECT
 * reads of len bytes at 512-byte sector s (blk: the unit of s for the
 * failing one); error_line_names() requires the block layer's error line,
 * if not ratelimited away, to name sector; direct_fail_good_bytes() reads
 * sd_done's "completed X of Y bytes" for a failing read of the disk. */
void lying_hex(char *out, const unsigned char *b, size_t n);
void sense_fixed(char *out, bool deferred, bool valid, uint8_t key, uint8_t asc,
		 uint32_t info);
void sense_desc(char *out, uint8_t key, uint8_t asc, uint64_t info);
int rulef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int lying_finish(unsigned int lun, uint64_t lba, uint64_t n);
int direct_expect_fail(enum role r, uint64_t s, size_t len, size_t blk);
int direct_expect_good(enum role r, uint64_t s, size_t len);
int error_line_names(size_t mark, enum role r, uint64_t sector);
int direct_fail_good_bytes(uint64_t s, size_t len, long *good);
/* t_lying_sr.c: O_DIRECT read of n blocks of blk bytes at block b of the
 * scsi_bbtest CD that must fail: its negative errno (1: it did not fail,
 * fail() said why), with the good bytes scsi_io_completion() was given in
 * *done ("N sectors total, M bytes done"; -1 if none was logged). */
int cd_direct_done(uint64_t b, uint64_t n, size_t blk, long *done);
/* t_lying_paths.c: fixed sense with an ascq (INFORMATION and VALID when
 * valid); an O_DIRECT read of len bytes at byte off of r on a fresh open:
 * 0 and the right data, 1 wrong data, or the negative errno; what() names
 * such a result. */
void sense_q(char *out, bool deferred, uint8_t key, uint8_t asc, uint8_t ascq,
	     bool valid, uint32_t info);
int rd_open(enum role r, uint64_t off, size_t len);
const char *what(int got);
/* t_lying_device.c: an O_DIRECT read of len bytes at byte off of r that
 * must return the right data after exactly n commands on [lba, lba +
 * blocks) of scsi_bbtest's lun; 0 or fail(). */
int expect_right(const char *name, enum role r, uint64_t off, size_t len,
		 unsigned int lun, uint64_t lba, uint64_t blocks, int n);
/* t_scan_probe.c: what the scan-* tests share: scsi_bbtest's scan target
 * (target 1) set up (scan_setup: its parameters, the target on, scan_log
 * cleared), scanned (scan_run: "0 1 -" into its host's scan), its LUNs in
 * sysfs ("0,5"), its commands (scan_log), and taken away again
 * (scan_cleanup: every LUN deleted, the target off). */
struct scan_target {
	const char *luns;		/* scan_luns, "0,5" */
	int version, format;		/* INQUIRY's VERSION, RESPONSE DATA FORMAT */
	int inq_len, inq_max;		/* INQUIRY data length; longest answered (0: any) */
	int rl_count, rl_junk;		/* REPORT LUNS's entries (0: luns'); junk LUN (-1) */
};
#define SCAN_TARGET(l) { .luns = (l), .version = 5, .format = 2, .inq_len = 36, .rl_junk = -1 }
struct scan_cmd {
	unsigned int lun, opcode, alloc, timeout_ms, allowed;
	char cdb[41];			/* hex */
};
int scan_setup(const struct scan_target *t);
int scan_run(const char *what);
void scan_present(char *out, size_t len);
int scan_expect(const char *what, const char *want);	/* LUNs "0,5": 0 or fail() */
int scan_cleanup(void);
int scan_log_read(struct scan_cmd *out, int max);
/* INQUIRYs (not VPD) lun got: how many, their allocation lengths "36,96" */
int scan_inquiries(unsigned int lun, char *out, size_t len);
int scan_attr_is(unsigned int lun, const char *name, const char *want);
/* scsi_mod's logging knob; LOG_SD_DONE makes sd_done() log its count */
#define SCSI_LOGGING "/sys/module/scsi_mod/parameters/scsi_logging_level"
#define LOG_SD_DONE "33554432"	/* SCSI_LOG_HLCOMPLETE 2: logs level 1 */

/* t_lying_eh.c: what the lying-device-eh-* tests share.  eh_case() reads
 * disk sectors [EH_SECTOR, +EH_LEN) once, the READ answered by the rule
 * read (for block EH_SECTOR + 2), other a further rule (NULL: none): 0 if
 * it ends in errno err (0: the right data) with the device having seen
 * exactly *want and every rule used, else fail().  EH_TIMED_OUT answers a
 * READ with host byte DID_TIME_OUT.  eh_disk_attr*() are the disk's
 * scsi_disk attributes (allow_restart, max_retries). */
#define EH_SECTOR	1928u
#define EH_LEN		8192u
#define EH_TIMED_OUT	"host=3 copy=0 resid=rest"
struct eh_seen {		/* what the device saw during one case */
	int reads, rs, stu, tur;	/* READs, REQUEST SENSE, START UNIT, TUR */
	int abort, device, bus, host;	/* the driver's abort and resets */
	int refused;			/* commands refused for a bad CDB */
};
int eh_counters_clear(void);
void eh_seen_read(struct eh_seen *s);
bool eh_seen_eq(const struct eh_seen *a, const struct eh_seen *b);
const char *eh_seen_str(const struct eh_seen *s, char *out, size_t n);
int eh_case(const char *name, const char *read, const char *other, int err,
	    const struct eh_seen *want);
int eh_disk_attr(const char *attr, const char *val);
long long eh_disk_attr_get(const char *attr);
int disk_hctl(char *out, size_t n);		/* the bbdisk's "H:C:T:L" */

/* Test functions */
int t_sd_read_verify(void);
int t_sd_medium_error(void);
int t_sd_recovered_error(void);
int t_sd_sgio(void);
int t_sd_end_of_device(void);
int t_sd_timeout_eh(void);
int t_sd_stress(void);
int t_sd_limits(void);
int t_sr_read(void);
int t_sr_medium_error(void);
int t_sr_capacity(void);
int t_lying_lba_outside(void);
int t_lying_unaligned_resid(void);
int t_lying_short_resid(void);
int t_lying_medium_no_data(void);
int t_lying_deferred_sense(void);
int t_lying_descriptor_sense(void);
int t_lying_sr_info_outside(void);
int t_lying_info_resid(void);
int t_lying_errno(void);
int t_lying_retries(void);
int t_lying_failfast_readahead(void);
int t_lying_sr_valid_inside(void);
int t_lying_sr_end_trim(void);
int t_lying_host_bytes(void);
int t_lying_sense_actions(void);
int t_lying_unit_attention(void);
int t_lying_sr_deferred(void);
int t_lying_read6_fallback(void);
int t_lying_runtime_limit(void);
int t_lying_cd_geometry(void);
int t_lying_eh_paths(void);
int t_lying_write_paths(void);
int t_lying_mixed_merge(void);
int t_lying_queue(void);
int t_lying_sgio_status(void);
int t_lying_cd_ioctls(void);
int t_lying_cd_events(void);
int t_lying_cd_gesn(void);
int t_lying_cd_poll(void);
int t_lying_cd_revalidate(void);
int t_lying_cd_read_mode1(void);
int t_lying_cd_offline(void);
int t_lying_cd_mismatch(void);
int t_lying_eh_tur(void);
int t_lying_delayed_requeue(void);
int t_scsi_scan(void);
int t_lying_rescan(void);
int t_lying_send_command(void);
int t_lying_sgio_faults(void);
int t_lying_send_command_faults(void);
int t_lying_execute_retries(void);
int t_lying_log_once(void);
int t_scan_inquiry(void);
int t_scan_report_luns(void);
int t_lying_eh_sense(void);
int t_lying_eh_answers(void);
int t_lying_eh_escalation(void);
int t_lying_eh_deadline(void);
int t_lying_eh_lun_change(void);
int t_lying_eh_ramp_up(void);
int t_lying_eh_timeout(void);
int t_lying_capacity(void);
int t_lying_flush(void);
int t_lying_timeouts(void);
int t_lying_double_done(void);
int t_lying_sgio_at_head(void);
int t_lying_sgio_tag_wait(void);
int t_lying_answers_sense(void);
int t_lying_answers_status(void);
int t_lying_answers_cd(void);
int t_guest_no_network(void);

/* t_hba_ctl.c: the hba-* tests, per controller (hba.h) */
int t_hba_virtio_read(void);
int t_hba_virtio_write(void);
int t_hba_virtio_medium_error(void);
int t_hba_virtio_sgio(void);
int t_hba_virtio_cd(void);
int t_hba_megasas_read(void);
int t_hba_megasas_write(void);
int t_hba_megasas_medium_error(void);
int t_hba_megasas_sgio(void);
int t_hba_megasas_cd(void);
int t_hba_pvscsi_read(void);
int t_hba_pvscsi_write(void);
int t_hba_pvscsi_medium_error(void);
int t_hba_pvscsi_sgio(void);
int t_hba_pvscsi_cd(void);
int t_hba_ahci_read(void);
int t_hba_ahci_write(void);
int t_hba_ahci_medium_error(void);
int t_hba_ahci_sgio(void);
int t_hba_ahci_cd(void);

#endif
