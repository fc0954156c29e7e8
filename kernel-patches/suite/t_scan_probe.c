/*
 * t_scan_probe.c: the scan's INQUIRY as user space sees it (issue 24:
 * scsi_probe_lun), and what the scan-* tests share.
 *
 * The scan-* tests use scsi_bbtest's scan target (target 1, off at boot:
 * scan_target=1 adds it), script its INQUIRY and REPORT LUNS through the
 * module's parameters and rules with id=1, scan it from user space (the
 * host's scan file) and read sysfs (which LUNs appeared, vendor, model,
 * rev, type, scsi_level, the raw inquiry) and the target's scan_log (the
 * commands it got, their allocation lengths and timeouts).  Every case
 * deletes the LUNs it added and the test takes the target away again, so
 * later tests see the devices the boot made.
 *
 *   scan-inquiry   a scan of LUN 3 alone ("0 1 3"):
 *       - 36 bytes of data: one INQUIRY for 36 with a timeout of
 *         scsi_mod.inq_timeout s (+ up to 1 s); vendor, model, rev, type
 *         3 and scsi_level 6 (SPC-3) in sysfs, the inquiry file 36 bytes;
 *       - 96 bytes: a second INQUIRY for 96, the inquiry file all 96;
 *       - 96 bytes from a device that refuses more than 36: INQUIRY for
 *         36, 96 (refused) and 36 again, the inquiry file 36 bytes;
 *       - UNIT ATTENTION 29/00 twice: three INQUIRYs, the LUN is there;
 *       - GOOD with nothing transferred (resid = all) once: asked again,
 *         the LUN is there with its vendor;
 *       - SCSI-2, SCSI-1 CCS and SCSI-1 answers: scsi_level 3, 2 and 1.
 */
#include "bbsuite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCAN_LOG "/sys/kernel/debug/scsi_bbtest/scan_log"
#define OP_INQUIRY	0x12

static int scan_hostno = -1;

/* The scsi_bbtest host's number: 0 or fail(). */
static int scan_find_host(void)
{
	struct dirent **names;
	int n = scandir("/sys/class/scsi_host", &names, NULL, alphasort);

	if (n < 0)
		return fail("/sys/class/scsi_host: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		char path[320], buf[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/scsi_host/%s/proc_name",
			 names[i]->d_name);
		f = fopen(path, "re");
		if (f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "scsi_bbtest\n"))
			sscanf(names[i]->d_name, "host%d", &scan_hostno);
		if (f)
			fclose(f);
		free(names[i]);
	}
	free(names);
	return scan_hostno < 0 ? fail("no scsi_bbtest host in /sys/class/scsi_host") : 0;
}

static int scan_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/scsi_bbtest/parameters/%s", name);
	return knob_write(path, val);
}

int scan_setup(const struct scan_target *t)
{
	const struct { const char *name; int v; } p[] = {
		{ "scan_version", t->version }, { "scan_format", t->format },
		{ "scan_inq_len", t->inq_len }, { "scan_inq_max", t->inq_max },
		{ "scan_rl_count", t->rl_count }, { "scan_rl_junk", t->rl_junk },
	};
	char v[32];

	if (scan_hostno < 0 && scan_find_host())
		return -1;
	if (scan_param("scan_luns", t->luns))
		return -1;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		snprintf(v, sizeof(v), "%d", p[i].v);
		if (scan_param(p[i].name, v))
			return -1;
	}
	return scan_param("scan_target", "1") || knob_write(SCAN_LOG, "clear") ? -1 : 0;
}

int scan_run(const char *what)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/class/scsi_host/host%d/scan", scan_hostno);
	return knob_write(path, what);
}

/* The LUNs of target 1 in sysfs, "0,5" (ascending), into out. */
void scan_present(char *out, size_t len)
{
	struct dirent **names;
	char prefix[32];
	int n = scandir("/sys/bus/scsi/devices", &names, NULL, versionsort);
	size_t used = 0;

	out[0] = '\0';
	snprintf(prefix, sizeof(prefix), "%d:0:1:", scan_hostno);
	for (int i = 0; i < n; i++) {
		if (!strncmp(names[i]->d_name, prefix, strlen(prefix)) && used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "",
						 names[i]->d_name + strlen(prefix));
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

int scan_expect(const char *what, const char *want)
{
	char got[128];

	scan_present(got, sizeof(got));
	diag("%s: LUNs %s", what, got[0] ? got : "none");
	if (strcmp(got, want))
		return fail("%s: target 1's LUNs are '%s', want '%s'", what, got, want);
	return 0;
}

/* Delete every LUN of target 1, then take the target away: 0 or fail(). */
int scan_cleanup(void)
{
	char luns[128], path[128];
	int ret = 0;

	scan_present(luns, sizeof(luns));
	for (char *l = strtok(luns, ","); l; l = strtok(NULL, ",")) {
		snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%d:0:1:%s/delete",
			 scan_hostno, l);
		ret |= knob_write(path, "1");
	}
	scan_present(luns, sizeof(luns));
	if (luns[0])
		ret = fail("target 1's LUNs %s are still there after their delete", luns);
	return scan_param("scan_target", "0") || ret ? -1 : 0;
}

int scan_log_read(struct scan_cmd *out, int max)
{
	FILE *f = fopen(SCAN_LOG, "re");
	int n = 0;

	if (!f)
		return fail("cannot open '%s': %s", SCAN_LOG, strerror(errno));
	while (n < max && fscanf(f, "%u %x %u %u %u %40s", &out[n].lun, &out[n].opcode,
				 &out[n].alloc, &out[n].timeout_ms, &out[n].allowed,
				 out[n].cdb) == 6)
		n++;
	fclose(f);
	return n;
}

/* The INQUIRYs (not VPD) lun got, their allocation lengths "36,96" in out. */
int scan_inquiries(unsigned int lun, char *out, size_t len)
{
	struct scan_cmd log[64];
	int n = scan_log_read(log, 64), count = 0;
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		/* byte 1: EVPD is bit 0 (bits 5-7 carry a SCSI-2 LUN) */
		unsigned int b1 = 0;

		if (log[i].lun != lun || log[i].opcode != OP_INQUIRY ||
		    sscanf(log[i].cdb + 2, "%2x", &b1) != 1 || (b1 & 1))
			continue;
		count++;
		if (used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%u", used ? "," : "",
						 log[i].alloc);
	}
	return n < 0 ? -1 : count;
}

/* /sys/bus/scsi/devices/H:0:1:lun/name, trimmed: 0 or fail(). */
static int lun_attr(unsigned int lun, const char *name, char *out, size_t len)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%d:0:1:%u/%s", scan_hostno, lun, name);
	return knob_read(path, out, len);
}

int scan_attr_is(unsigned int lun, const char *name, const char *want)
{
	char got[128];

	if (lun_attr(lun, name, got, sizeof(got)))
		return -1;
	if (strcmp(got, want))
		return fail("LUN %u's %s is '%s', want '%s'", lun, name, got, want);
	return 0;
}

/* The raw INQUIRY data sysfs keeps for lun: its length, or -1. */
static int lun_inquiry(unsigned int lun, unsigned char *raw, size_t len)
{
	char path[160];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%d:0:1:%u/inquiry", scan_hostno, lun);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("%s: %s", path, strerror(errno));
	n = read(fd, raw, len);
	close(fd);
	return n < 0 ? fail("%s: %s", path, strerror(errno)) : (int)n;
}

/* --- scan-inquiry ------------------------------------------------------ */

/* The inquiry file of LUN 3: want bytes, byte i >= 36 holding i. */
static int inquiry_file(const char *what, int want)
{
	unsigned char raw[300];
	int n = lun_inquiry(3, raw, sizeof(raw));

	if (n < 0)
		return -1;
	if (n != want)
		return fail("%s: the inquiry file has %d bytes, want %d", what, n, want);
	for (int i = 36; i < n; i++)
		if (raw[i] != i)
			return fail("%s: inquiry byte %d is 0x%02x, want 0x%02x", what, i, raw[i], i);
	return 0;
}

/* A scan of LUN 3 alone: the INQUIRYs it got ("36,96"), the LUN there or
 * not, and its scsi_level. */
static int probe(const char *what, const char *inqs, bool there, const char *level)
{
	char got[128];

	if (scan_run("0 1 3"))
		return -1;
	scan_inquiries(3, got, sizeof(got));
	diag("%s: INQUIRY allocation lengths %s", what, got);
	if (strcmp(got, inqs))
		return fail("%s: INQUIRYs for %s bytes, want %s", what, got, inqs);
	if (scan_expect(what, there ? "3" : ""))
		return -1;
	if (there && (scan_attr_is(3, "vendor", "BBTEST") ||
		      scan_attr_is(3, "model", "SCAN LUN 3") || scan_attr_is(3, "rev", "0001") ||
		      scan_attr_is(3, "type", "3") || scan_attr_is(3, "scsi_level", level)))
		return -1;
	return 0;
}

/* The first INQUIRY's timeout: scsi_mod.inq_timeout seconds and at most
 * one more. */
static int inquiry_timeout(void)
{
	struct scan_cmd log[64];
	int n = scan_log_read(log, 64);
	long s = -1;
	FILE *f = fopen("/sys/module/scsi_mod/parameters/inq_timeout", "re");

	if (!f || fscanf(f, "%ld", &s) != 1)
		s = -1;
	if (f)
		fclose(f);
	if (n < 1 || s < 0)
		return fail("no INQUIRY logged (%d) or no scsi_mod.inq_timeout (%ld)", n, s);
	diag("INQUIRY timeout %u ms, scsi_mod.inq_timeout %ld s", log[0].timeout_ms, s);
	if (log[0].timeout_ms < s * 1000 || log[0].timeout_ms > s * 1000 + 1000)
		return fail("the INQUIRY's timeout is %u ms, want scsi_mod.inq_timeout (%ld s) and"
			    " at most 1 s more", log[0].timeout_ms, s);
	return 0;
}

static int inquiry_cases(void)
{
	struct scan_target t = SCAN_TARGET("3");
	char ua[64];

	if (scan_setup(&t) || probe("36 bytes", "36", true, "6") || inquiry_timeout() ||
	    inquiry_file("36 bytes", 36) || scan_cleanup())
		return -1;
	t.inq_len = 96;
	if (scan_setup(&t) || probe("96 bytes", "36,96", true, "6") ||
	    inquiry_file("96 bytes", 96) || scan_cleanup())
		return -1;
	t.inq_max = 36;
	if (scan_setup(&t) || probe("96 bytes, more than 36 refused", "36,96,36", true, "6") ||
	    inquiry_file("96 bytes, more than 36 refused", 36) || scan_cleanup())
		return -1;
	t.inq_len = 36;
	t.inq_max = 0;
	sense_q(ua, false, 6, 0x29, 0, false, 0);
	if (scan_setup(&t) || rulef("id=1 lun=3 op=0x12 status=2 sense=%s count=2", ua) ||
	    probe("UNIT ATTENTION 29/00 twice", "36,36,36", true, "6") || scan_cleanup())
		return -1;
	if (scan_setup(&t) || rulef("id=1 lun=3 op=0x12 resid=36") ||
	    probe("nothing transferred once", "36,36", true, "6") || scan_cleanup())
		return -1;
	t.version = 2;
	if (scan_setup(&t) || probe("SCSI-2", "36", true, "3") || scan_cleanup())
		return -1;
	t.version = t.format = 1;
	if (scan_setup(&t) || probe("SCSI-1 CCS", "36", true, "2") || scan_cleanup())
		return -1;
	t.format = 0;
	if (scan_setup(&t))
		return -1;
	return probe("SCSI-1", "36", true, "1");
}

int t_scan_inquiry(void)
{
	int ret = inquiry_cases();

	if (scan_hostno >= 0 && scan_cleanup())
		ret = -1;
	if (!ret && bbtest_pending())
		return fail("a scripted INQUIRY was never used");
	return ret;
}
