/*
 * bbstate.c: every test starts from the state the boot left.
 *
 * A test that fails half way (a kernel bug, which is what the suite is
 * for) may not get to put back what it changed: a device deleted, offline
 * or resized, a knob, a queue depth, a rule never consumed, a LUN flag of
 * the midlayer's.  The next test would then fail too, and a report of one
 * bug would name many tests (or a shuffled order would decide which).  So
 * at boot state_snapshot() records what a test can change, and after every
 * test state_restore() puts back what differs, saying so on a diagnostic
 * line ("left behind: ...") charged to the test that left it:
 *   - the SCSI devices there are (a LUN too many is deleted, a missing one
 *     scanned again) and each role's size (a device whose size changed is
 *     deleted and scanned again: a fresh probe, as at boot);
 *   - writable attributes of each role's device (queue, device, scsi_disk),
 *     every host's eh_deadline, scsi_mod's logging level, scsi_debug's
 *     injection, scsi_bbtest's parameters;
 *   - scsi_bbtest's LUN flags the midlayer keeps (sdev_flags: harness
 *     0009), its rules, held commands and counters;
 *   - and it waits until scsi_bbtest got no command for a while: a close
 *     of the CD queues the block layer's media event check (blkdev_put's
 *     disk_flush_events), which runs after the test and could otherwise
 *     use up a rule the next test scripts.
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define VAL_MAX		128
#define SAVED_MAX	512
#define LUNS_MAX	64
#define BBT_DIR		"/sys/kernel/debug/scsi_bbtest"
#define BBT_PARAMS	"/sys/module/scsi_bbtest/parameters"
#define SDEBUG_DIR	"/sys/bus/pseudo/drivers/scsi_debug"

/* Attributes of a role's block device, relative to /sys/block/NAME; "@" is
 * the device's H:C:T:L (its scsi_disk directory). */
static const char *const role_attrs[] = {
	"queue/nr_requests", "queue/io_timeout", "queue/max_sectors_kb",
	"queue/read_ahead_kb", "queue/nomerges", "events_poll_msecs",
	"device/state", "device/timeout", "device/eh_timeout", "device/queue_depth",
	"device/queue_ramp_up_period",
	"device/scsi_disk/@/cache_type", "device/scsi_disk/@/allow_restart",
	"device/scsi_disk/@/max_retries", "device/scsi_disk/@/max_medium_access_timeouts",
	"device/scsi_disk/@/provisioning_mode", "device/scsi_disk/@/manage_start_stop",
};
#define NATTRS (sizeof(role_attrs) / sizeof(role_attrs[0]))

/* What a role's device was found to be when it was probed (read-only):
 * if one differs from the boot's, the device is deleted and scanned again,
 * as at boot.  "size" first. */
static const char *const role_facts[] = {
	"size", "queue/logical_block_size", "queue/physical_block_size",
	"queue/max_hw_sectors_kb", "device/scsi_level", "device/type",
	"device/scsi_disk/@/protection_type", "device/scsi_disk/@/thin_provisioning",
};
#define NFACTS (sizeof(role_facts) / sizeof(role_facts[0]))

struct saved {
	int role;			/* -1: path is absolute */
	const char *rel;		/* role_attrs[i] */
	char path[PATH_MAX];		/* an absolute one */
	char val[VAL_MAX];
};

static struct saved saved[SAVED_MAX];
static size_t nsaved;
static char boot_facts[ROLE_MAX][NFACTS][VAL_MAX];
static bool boot_seen[ROLE_MAX];
static char boot_luns[LUNS_MAX][32];
static size_t nluns;
static char boot_flags[8][VAL_MAX];	/* scsi_bbtest's sdev_flags lines */
static size_t nflags;
static char sdebug_opts[VAL_MAX], sdebug_nth[VAL_MAX];

/* The first line of path, trailing blanks cut, quietly: 0 or -1. */
static int peek(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, out, len - 1);
	close(fd);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	n = (ssize_t)strlen(out);
	while (n > 0 && out[n - 1] == ' ')
		out[--n] = '\0';
	return 0;
}

static bool writable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IWUSR);
}

/* /sys/block/NAME/REL of role r now, into out: 0, or -1 (no such device). */
static int role_path(int r, const char *rel, char *out, size_t len)
{
	struct hctl at;
	char where[32];
	const char *at_sign = strchr(rel, '@');

	if (!dev_name(r) || dev_hctl(r, &at))
		return -1;
	snprintf(where, sizeof(where), "%d:%d:%d:%d", at.host, at.channel, at.target, at.lun);
	if (at_sign)
		snprintf(out, len, "/sys/block/%s/%.*s%s%s", dev_name(r), (int)(at_sign - rel), rel,
			 where, at_sign + 1);
	else
		snprintf(out, len, "/sys/block/%s/%s", dev_name(r), rel);
	return 0;
}

static void save(int r, const char *rel, const char *path)
{
	struct saved *s = &saved[nsaved];

	if (nsaved == SAVED_MAX || !writable(path) || peek(path, s->val, sizeof(s->val)))
		return;
	s->role = r;
	s->rel = rel;
	snprintf(s->path, sizeof(s->path), "%s", path);
	nsaved++;
}

/* Every writable regular file in dir (scsi_bbtest's parameters). */
static void save_dir(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		save(-1, NULL, path);
	}
	closedir(d);
}

/* The SCSI devices ("H:C:T:L") in /sys/bus/scsi/devices, into out. */
static size_t list_luns(char out[][32], size_t max)
{
	struct dirent *e;
	DIR *d = opendir("/sys/bus/scsi/devices");
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL && n < max) {
		int h, c, t, l, end = 0;

		if (sscanf(e->d_name, "%d:%d:%d:%d%n", &h, &c, &t, &l, &end) == 4 &&
		    !e->d_name[end])
			snprintf(out[n++], 32, "%.31s", e->d_name);
	}
	closedir(d);
	return n;
}

static bool lun_listed(char list[][32], size_t n, const char *lun)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], lun))
			return true;
	return false;
}

/* scsi_bbtest's sdev_flags, one line each, into out. */
static size_t read_flags(char out[][VAL_MAX], size_t max)
{
	FILE *f = fopen(BBT_DIR "/sdev_flags", "re");
	size_t n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(out[n], VAL_MAX, f)) {
		out[n][strcspn(out[n], "\n")] = '\0';
		n++;
	}
	fclose(f);
	return n;
}

static void save_hosts(void)
{
	struct dirent *e;
	DIR *d = opendir("/sys/class/scsi_host");

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX];

		if (strncmp(e->d_name, "host", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/scsi_host/%s/eh_deadline", e->d_name);
		save(-1, NULL, path);
	}
	closedir(d);
}

void state_snapshot(void)
{
	nsaved = 0;
	save_dir(BBT_PARAMS);	/* first: the device's truth, before its attributes */
	save(-1, NULL, SCSI_LOGGING);
	save_hosts();
	for (int r = 0; r < ROLE_MAX; r++) {
		boot_seen[r] = dev_name(r) != NULL;
		for (size_t i = 0; i < NFACTS && boot_seen[r]; i++) {
			char path[PATH_MAX];

			if (role_path(r, role_facts[i], path, sizeof(path)) ||
			    peek(path, boot_facts[r][i], VAL_MAX))
				boot_facts[r][i][0] = '\0';
		}
		for (size_t i = 0; i < NATTRS && boot_seen[r]; i++) {
			char path[PATH_MAX];

			if (!role_path(r, role_attrs[i], path, sizeof(path)))
				save(r, role_attrs[i], path);
		}
	}
	nluns = list_luns(boot_luns, LUNS_MAX);
	nflags = read_flags(boot_flags, 8);
	if (peek(SDEBUG_DIR "/opts", sdebug_opts, sizeof(sdebug_opts)) ||
	    peek(SDEBUG_DIR "/every_nth", sdebug_nth, sizeof(sdebug_nth)))
		sdebug_opts[0] = '\0';
}

/* --- after each test ----------------------------------------------------- */

static long long cd_commands;	/* the scsi_bbtest CD's iorequest_cnt before the test */

/* Write val to path quietly (no fail(): the test's verdict is not ours). */
static int put(const char *path, const char *val)
{
	FILE *f = fopen(path, "we");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

static int nleft, nstuck;	/* things found changed after this test; not put back */

static void left(const char *what, const char *now, const char *boot, bool ok)
{
	nleft++;
	nstuck += !ok;
	diag("left behind: %s %s (boot: %s): %s", what, now, boot,
	     ok ? "put back" : "could not put it back");
}

/* How an attribute is written back: cache_type without the MODE SELECT a
 * plain write sends, state with the newline its parser wants. */
static int put_attr(const char *path, const char *rel, const char *val)
{
	char v[VAL_MAX + 16];

	if (rel && strstr(rel, "cache_type"))
		snprintf(v, sizeof(v), "temporary %s", val);
	else if (rel && !strcmp(rel, "device/state"))
		snprintf(v, sizeof(v), "%s\n", val);
	else
		snprintf(v, sizeof(v), "%s", val);
	return put(path, v);
}

static void restore_saved(void)
{
	for (size_t i = 0; i < nsaved; i++) {
		const struct saved *s = &saved[i];
		char path[PATH_MAX], now[VAL_MAX], what[PATH_MAX + 64];
		const char *p = s->path;

		if (s->role >= 0) {
			if (role_path(s->role, s->rel, path, sizeof(path)))
				continue;	/* restore_devices said so */
			p = path;
		}
		if (peek(p, now, sizeof(now)) || !strcmp(now, s->val))
			continue;
		if (s->role >= 0)
			snprintf(what, sizeof(what), "%s (%s) %s", dev_what(s->role),
				 dev_name(s->role), s->rel);
		else
			snprintf(what, sizeof(what), "%s", p);
		left(what, now, s->val, put_attr(p, s->rel, s->val) == 0);
	}
	if (sdebug_opts[0]) {
		char opts[VAL_MAX], nth[VAL_MAX];

		if (!peek(SDEBUG_DIR "/opts", opts, sizeof(opts)) &&
		    !peek(SDEBUG_DIR "/every_nth", nth, sizeof(nth)) &&
		    (strcmp(opts, sdebug_opts) || strcmp(nth, sdebug_nth))) {
			bool ok = !put(SDEBUG_DIR "/every_nth", "0") &&
				  !put(SDEBUG_DIR "/opts", sdebug_opts) &&
				  !put(SDEBUG_DIR "/every_nth", sdebug_nth);

			left("scsi_debug opts/every_nth", opts, sdebug_opts, ok);
		}
	}
}

/* The first fact of role r that differs from the boot's (its index, now
 * in now), or -1. */
static int fact_changed(int r, char *now, size_t len)
{
	for (size_t i = 0; i < NFACTS; i++) {
		char path[PATH_MAX];

		if (!boot_facts[r][i][0] || role_path(r, role_facts[i], path, sizeof(path)))
			continue;
		if (peek(path, now, len))
			snprintf(now, len, "(unreadable)");
		if (strcmp(now, boot_facts[r][i]))
			return (int)i;
	}
	return -1;
}

/* Role r there again, and probed as at boot. */
static void restore_probe(int r)
{
	char what[128], now[VAL_MAX], again[VAL_MAX];
	bool sized = strcmp(boot_facts[r][0], "0") != 0, ok;
	int i;

	if (!dev_name(r)) {
		left(dev_what(r), "missing", "present", !dev_add(r, sized));
		return;
	}
	i = fact_changed(r, now, sizeof(now));
	if (i < 0)
		return;
	snprintf(what, sizeof(what), "%s (%s) %s", dev_what(r), dev_name(r), role_facts[i]);
	ok = !dev_readd(r, sized) && fact_changed(r, again, sizeof(again)) < 0;
	left(what, now, boot_facts[r][i], ok);
}

/* The SCSI devices of the boot, no more, no fewer, each probed as then. */
static void restore_devices(void)
{
	char now[LUNS_MAX][32], path[PATH_MAX];
	size_t n = list_luns(now, LUNS_MAX);
	int h, c, t, l;

	for (size_t i = 0; i < n; i++) {
		if (lun_listed(boot_luns, nluns, now[i]))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%s/delete", now[i]);
		left("SCSI device", now[i], "absent", !put(path, "1"));
	}
	for (size_t i = 0; i < nluns; i++) {
		if (lun_listed(now, n, boot_luns[i]) ||
		    sscanf(boot_luns[i], "%d:%d:%d:%d", &h, &c, &t, &l) != 4)
			continue;
		snprintf(path, sizeof(path), "/sys/class/scsi_host/host%d/scan", h);
		snprintf(now[0], sizeof(now[0]), "%d %d %d", c, t, l);
		left("SCSI device absent", boot_luns[i], "present", !put(path, now[0]));
	}
	dev_scan();
	for (int r = 0; r < ROLE_MAX; r++)
		if (boot_seen[r])
			restore_probe(r);
}

/* The flags of two sdev_flags lines (after their C:T:L) that differ:
 * "expecting_cc_ua=1 use_10_for_rw=0" from now into a, the boot's into b. */
static void flags_diff(const char *now, const char *boot, char *a, char *b, size_t len)
{
	size_t na = 0, nb = 0;

	a[0] = b[0] = '\0';
	now += strcspn(now, " ");
	boot += strcspn(boot, " ");
	while (*now == ' ' && *boot == ' ' && na < len && nb < len) {
		int la = (int)strcspn(now + 1, " "), lb = (int)strcspn(boot + 1, " ");

		if (la != lb || strncmp(now + 1, boot + 1, (size_t)la)) {
			na += (size_t)snprintf(a + na, len - na, "%s%.*s", na ? " " : "", la, now + 1);
			nb += (size_t)snprintf(b + nb, len - nb, "%s%.*s", nb ? " " : "", lb, boot + 1);
		}
		now += la + 1;
		boot += lb + 1;
	}
}

static void restore_flags(void)
{
	char now[8][VAL_MAX], what[64], a[VAL_MAX], b[VAL_MAX];
	size_t n = read_flags(now, 8);

	for (size_t i = 0; i < nflags; i++) {
		size_t key = strcspn(boot_flags[i], " ");

		for (size_t k = 0; k < n; k++) {
			if (strncmp(now[k], boot_flags[i], key + 1) || !strcmp(now[k], boot_flags[i]))
				continue;
			snprintf(what, sizeof(what), "scsi_bbtest %.*s", (int)key, now[k]);
			flags_diff(now[k], boot_flags[i], a, b, sizeof(a));
			left(what, a, b, !put(BBT_DIR "/sdev_flags", boot_flags[i]));
		}
	}
}

/* scsi_bbtest without rules, held commands or counts. */
static void bbtest_fresh(void)
{
	static const char *const counts[] = {
		"log", "opcodes", "refused", "resets", "timeouts", "scan_log",
	};
	char path[PATH_MAX];

	put(BBT_DIR "/rules", "release");	/* answers the held commands */
	put(BBT_DIR "/rules", "clear");
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", BBT_DIR, counts[i]);
		put(path, "clear");
	}
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Until the scsi_bbtest CD got no command for 50 ms (2 s at most): the
 * event check its last close queued has run. */
static void cd_quiet(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	double t0 = mono(), since = t0;
	long long n = dev_counter(ROLE_BBCD, "iorequest_cnt");

	while (mono() - since < 0.05 && mono() - t0 < 2) {
		long long now;

		nanosleep(&tick, NULL);
		now = dev_counter(ROLE_BBCD, "iorequest_cnt");
		if (now != n) {
			n = now;
			since = mono();
		}
	}
}

void state_before(void)
{
	cd_commands = dev_counter(ROLE_BBCD, "iorequest_cnt");
}

int state_restore(void)
{
	int n;

	nleft = nstuck = 0;
	dev_scan();
	if (dev_name(ROLE_BBCD) && dev_counter(ROLE_BBCD, "iorequest_cnt") != cd_commands)
		cd_quiet();
	restore_saved();	/* scsi_bbtest's parameters first: the devices' truth */
	n = nleft;
	restore_devices();
	if (nleft > n)
		restore_saved();	/* the attributes of devices scanned again */
	restore_flags();
	if (nleft && dev_name(ROLE_BBCD))
		cd_quiet();
	bbtest_fresh();
	return nstuck;
}
