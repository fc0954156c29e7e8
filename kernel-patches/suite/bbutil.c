/*
 * bbutil.c: what every bbsuite test needs: the lba-pattern, exact-length I/O returning -errno, sysfs/debugfs knobs,
 * a /dev/kmsg reader, SG_IO, and running a helper program.
 */
#include "bbsuite.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <scsi/sg.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- pattern ------------------------------------------------------------ */

void pat_fill(void *buf, size_t len, uint64_t addr, uint64_t seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		uint64_t v = (a / SECTOR) ^ seed;

		p[i] = (unsigned char)(v >> (8 * (a & 7)));
	}
}

long pat_check(const void *buf, size_t len, uint64_t addr, uint64_t seed)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		uint64_t v = (a / SECTOR) ^ seed;

		if (p[i] != (unsigned char)(v >> (8 * (a & 7))))
			return (long)i;
	}
	return -1;
}

int pat_expect(const void *buf, size_t len, uint64_t addr, uint64_t seed,
	       const char *what)
{
	long bad = pat_check(buf, len, addr, seed);
	const unsigned char *p = buf;

	if (bad < 0)
		return 0;
	return fail("%s: wrong data at byte %llu (sector %llu): got 0x%02x%s",
		    what, (unsigned long long)(addr + bad),
		    (unsigned long long)((addr + bad) / SECTOR), p[bad],
		    p[bad] == 0xee ? " (scsi_bbtest poison: never transferred)" : "");
}

/* --- I/O ---------------------------------------------------------------- */

void *io_buf(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 1))
		abort();
	memset(p, 0xaa, len);
	return p;
}

int io_open(enum role r, int flags)
{
	int fd;

	if (dev_require(r))
		return -1;
	fd = open(dev_node(r), flags | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open '%s': %s", dev_node(r), strerror(errno));
	return fd;
}

ssize_t io_pread(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

ssize_t io_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n = pwrite(fd, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

int io_drop_cache(int fd)
{
	fsync(fd);
	if (ioctl(fd, BLKFLSBUF, 0))
		return fail("BLKFLSBUF: %s", strerror(errno));
	return 0;
}

/* --- knobs -------------------------------------------------------------- */

int knob_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(val);
	ssize_t n;

	if (fd < 0)
		return fail("cannot open '%s': %s", path, strerror(errno));
	n = write(fd, val, len);
	if (n != (ssize_t)len) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		return fail("cannot write '%s' to '%s': %s", val, path, strerror(e));
	}
	close(fd);
	return 0;
}

int knob_writef(const char *path, const char *fmt, ...)
{
	char val[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	return knob_write(path, val);
}

int sdebug_set(unsigned int opts, int every_nth)
{
	/* every_nth first when switching off, opts first when switching on. */
	if (knob_writef("/sys/bus/pseudo/drivers/scsi_debug/every_nth", "%d", 0))
		return -1;
	if (knob_writef("/sys/bus/pseudo/drivers/scsi_debug/opts", "0x%x", opts))
		return -1;
	return knob_writef("/sys/bus/pseudo/drivers/scsi_debug/every_nth", "%d",
			   every_nth);
}

#define BBTEST_DIR "/sys/kernel/debug/scsi_bbtest"

int bbtest_rule(const char *rule)
{
	return knob_write(BBTEST_DIR "/rules", rule);
}

int bbtest_clear(void)
{
	if (knob_write(BBTEST_DIR "/rules", "clear"))
		return -1;
	return knob_write(BBTEST_DIR "/log", "clear");
}

int bbtest_pending(void)
{
	FILE *f = fopen(BBTEST_DIR "/rules", "re");
	int c, n = 0;

	if (!f)
		return fail("cannot open '%s': %s", BBTEST_DIR "/rules", strerror(errno));
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int bbtest_log_read(struct bbt_cmd *out, int max)
{
	FILE *f = fopen(BBTEST_DIR "/log", "re");
	unsigned long long seq, l, blocks;
	unsigned int lun, op;
	int rule, oob, n = 0;

	if (!f)
		return fail("cannot open '%s': %s", BBTEST_DIR "/log", strerror(errno));
	while (n < max && fscanf(f, "%llu %u %x %llu %llu %d %d", &seq, &lun, &op, &l,
				 &blocks, &rule, &oob) == 7) {
		out[n].lun = lun;
		out[n].opcode = op;
		out[n].lba = l;
		out[n].blocks = blocks;
		out[n].rule = rule != 0;
		out[n].oob = oob != 0;
		n++;
	}
	fclose(f);
	return n;
}

int bbtest_log_count(unsigned int lun, uint64_t lba, uint64_t n, int *oob)
{
	struct bbt_cmd log[64];	/* the driver keeps the last 64 */
	int got = bbtest_log_read(log, 64), count = 0;

	*oob = 0;
	for (int i = 0; i < got; i++) {
		*oob += log[i].oob;
		if (log[i].lun == lun && log[i].lba < lba + n && log[i].lba + log[i].blocks > lba)
			count++;
	}
	return got < 0 ? -1 : count;
}

/* The first line of a sysfs or debugfs file, trailing blanks cut: 0 or fail(). */
int knob_read(const char *path, char *out, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail("%s: %s", path, strerror(errno));
	n = read(fd, out, len - 1);
	close(fd);
	if (n < 0)
		return fail("%s: %s", path, strerror(errno));
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	n = (ssize_t)strlen(out);
	while (n > 0 && out[n - 1] == ' ')
		out[--n] = '\0';
	return 0;
}

/* The number in a sysfs file, or -1 (a missing file is no failure). */
long long knob_number(const char *path)
{
	char buf[32];
	FILE *f = fopen(path, "re");
	long long v = -1;

	if (f && fgets(buf, sizeof(buf), f))
		v = atoll(buf);
	if (f)
		fclose(f);
	return v;
}

/* /sys/block/<bbdisk>/device/scsi_disk/<H:C:T:L>/<attr>: its path in out. */
int sdisk_attr_path(const char *attr, char *out, size_t n)
{
	char dir[300];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/block/%s/device/scsi_disk", dev_name(ROLE_BBDISK));
	d = opendir(dir);
	if (!d)
		return fail("cannot open '%s': %s", dir, strerror(errno));
	out[0] = '\0';
	while ((e = readdir(d)) != NULL)	/* one entry, named H:C:T:L */
		if (e->d_name[0] != '.')
			snprintf(out, n, "%s/%s/%s", dir, e->d_name, attr);
	closedir(d);
	return out[0] ? 0 : fail("no scsi_disk entry in '%s'", dir);
}

/* The scsi_bbtest disk's queue/io_timeout (ms) into old (when not NULL),
 * then v. */
int disk_io_timeout(char *old, size_t len, const char *v)
{
	char path[300];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_timeout", dev_name(ROLE_BBDISK));
	if (old && knob_read(path, old, len))
		return -1;
	return knob_write(path, v);
}

int bbtest_opcodes_clear(void)
{
	return knob_write(BBTEST_DIR "/opcodes", "clear");
}

int bbtest_opcount(unsigned int lun, unsigned int opcode)
{
	FILE *f = fopen(BBTEST_DIR "/opcodes", "re");
	unsigned int l, op;
	int n, count = 0;

	if (!f)
		return fail("cannot open '%s': %s", BBTEST_DIR "/opcodes", strerror(errno));
	while (fscanf(f, "%u %x %d", &l, &op, &n) == 3)
		if (l == lun && op == opcode)
			count = n;
	fclose(f);
	return count;
}

int bbtest_param(const char *name, long val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/scsi_bbtest/parameters/%s", name);
	return knob_writef(path, "%ld", val);
}

/* --- kernel log --------------------------------------------------------- */

static int kmsg_fd = -1;
static char **kmsg_lines;
static size_t kmsg_n, kmsg_cap;

int kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return kmsg_fd < 0 ? -1 : 0;
}

void kmsg_sync(void)
{
	char rec[8192];

	if (kmsg_fd < 0)
		return;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *msg, *nl;

		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: skip ahead */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		for (char *e; (e = strstr(msg, "\\x0a")) != NULL;)
			memmove(e + 1, e + 4, strlen(e + 4) + 1), *e = ' ';
		if (kmsg_n == kmsg_cap) {
			kmsg_cap = kmsg_cap ? 2 * kmsg_cap : 1024;
			kmsg_lines = realloc(kmsg_lines, kmsg_cap * sizeof(*kmsg_lines));
			if (!kmsg_lines)
				abort();
		}
		kmsg_lines[kmsg_n] = strdup(msg);
		if (!kmsg_lines[kmsg_n])
			abort();
		kmsg_n++;
	}
}

void kmsg_reopen(void)
{
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	for (size_t i = 0; i < kmsg_n; i++)
		free(kmsg_lines[i]);
	kmsg_n = 0;
	kmsg_open();
}

size_t kmsg_mark(void)
{
	kmsg_sync();
	return kmsg_n;
}

size_t kmsg_count(void)
{
	return kmsg_n;
}

const char *kmsg_line(size_t i)
{
	return i < kmsg_n ? kmsg_lines[i] : NULL;
}

const char *kmsg_find(size_t mark, const char *needle)
{
	kmsg_sync();
	for (size_t i = mark; i < kmsg_n; i++)
		if (strstr(kmsg_lines[i], needle))
			return kmsg_lines[i];
	return NULL;
}

bool kmsg_is_bad(const char *line)
{
	static const char *const bad[] = {
		"Oops", "BUG:", "kernel BUG at", "WARNING:", "KASAN",
		"blocked for more than", "hung task",
		"attempt to access beyond end of device",
		"general protection fault", "Kernel panic",
		"Unable to handle kernel",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(line, bad[i]))
			return true;
	return false;
}

/* --- SG_IO -------------------------------------------------------------- */

int sgio(int fd, const unsigned char *cdb, int cdb_len, void *buf,
	 size_t len, struct sgio_result *res)
{
	return sgio_mx(fd, cdb, cdb_len, buf, len, (int)sizeof(res->sense), res);
}

int sgio_mx(int fd, const unsigned char *cdb, int cdb_len, void *buf,
	    size_t len, int mx, struct sgio_result *res)
{
	struct sg_io_hdr h;

	memset(&h, 0, sizeof(h));
	memset(res, 0, sizeof(*res));
	h.interface_id = 'S';
	h.dxfer_direction = len ? SG_DXFER_FROM_DEV : SG_DXFER_NONE;
	h.cmd_len = (unsigned char)cdb_len;
	h.mx_sb_len = (unsigned char)mx;
	h.dxfer_len = (unsigned int)len;
	h.dxferp = buf;
	h.cmdp = (unsigned char *)cdb;
	h.sbp = res->sense;
	h.timeout = 20000;
	/* output fields hold garbage going in: the kernel must set each one */
	h.status = h.masked_status = h.msg_status = 0x5a;
	h.sb_len_wr = 0x5a;
	h.host_status = h.driver_status = 0x5a5a;
	h.resid = 0x5a5a5a;
	h.info = 0x5a5a5a5a;
	if (ioctl(fd, SG_IO, &h) < 0)
		return fail("SG_IO: %s", strerror(errno));
	res->status = h.status;
	res->masked_status = h.masked_status;
	res->info = h.info;
	res->host_status = h.host_status;
	res->driver_status = h.driver_status;
	res->resid = h.resid;
	res->sense_len = h.sb_len_wr;
	return 0;
}

/* The INFORMATION field of fixed (VALID set) or descriptor sense. */
bool sense_info(const unsigned char *s, int len, uint64_t *info)
{
	if (len < 8)
		return false;
	if ((s[0] & 0x7f) == 0x70 || (s[0] & 0x7f) == 0x71) {
		if (!(s[0] & 0x80))
			return false;
		*info = (uint64_t)s[3] << 24 | (uint64_t)s[4] << 16 |
			(uint64_t)s[5] << 8 | s[6];
		return true;
	}
	if ((s[0] & 0x7f) == 0x72 || (s[0] & 0x7f) == 0x73) {
		int i = 8, end = 8 + s[7];

		if (end > len)
			end = len;
		while (i + 1 < end) {
			if (s[i] == 0 && s[i + 1] >= 0x0a && i + 12 <= end &&
			    (s[i + 2] & 0x80)) {
				*info = 0;
				for (int k = 0; k < 8; k++)
					*info = *info << 8 | s[i + 4 + k];
				return true;
			}
			i += s[i + 1] + 2;
		}
	}
	return false;
}

/* --- child processes ---------------------------------------------------- */

int run_prog(const char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* --- the kernel command line ------------------------------------------ */

/* The value of "key=" on /proc/cmdline (a static copy per call site), or NULL. */
char *cmdline_arg(const char *key, char *buf, size_t size)
{
	char *p, *end;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	p = strstr(buf, key);
	if (!p)
		return NULL;
	p += strlen(key);
	end = p + strcspn(p, " \t\n");
	*end = '\0';
	return p;
}

/* --- the running kernel ------------------------------------------------- */

unsigned int kernel_version(void)
{
	static unsigned int code;
	struct utsname u;
	unsigned int a = 0, b = 0, c = 0;

	if (!code && !uname(&u) && sscanf(u.release, "%u.%u.%u", &a, &b, &c) >= 2)
		code = KV(a, b, c);
	return code;
}
