/*
 * t_scan_luns.c: the scan's REPORT LUNS as user space sees it (issue 24:
 * scsi_report_lun_scan), on scsi_bbtest's scan target (t_scan_probe.c
 * says how).  Each case scans the whole target ("0 1 -") and checks which
 * LUNs appear in sysfs and the REPORT LUNS commands the target got:
 *
 *   scan-report-luns
 *       - SCSI-3, LUNs 0 and 5: one REPORT LUNS (to LUN 0), LUN 5 appears
 *         (a sequential scan would stop at the missing LUN 1), scsi_level 4;
 *         then LUN 7 added to the device's list: a second scan adds it;
 *       - SPC-3 without a LUN 0 (peripheral qualifier 3), listing LUN 2:
 *         REPORT LUNS goes to LUN 0 all the same, LUN 2 alone appears;
 *       - a list of 512 entries (LUN 0 repeated, LUN 4 last): longer than
 *         the first allocation, so a second REPORT LUNS asks for exactly
 *         8 + 512 x 8 bytes, and LUN 4 appears;
 *       - LUNs 0 and 4, the device sending its whole allocation with LUN 6
 *         entries after the list: the list's length rules, LUN 6 never
 *         appears;
 *       - REPORT LUNS failing with DID_ERROR three times (the midlayer's
 *         retries) then UNIT ATTENTION 29/00 twice: six commands, LUN 5
 *         appears;
 *       - REPORT LUNS refused (ILLEGAL REQUEST 20/00) on a target with
 *         LUNs 0, 1 and 5: the sequential scan's 0 and 1, after one REPORT
 *         LUNS (6.12: four, its failure table retries every CHECK
 *         CONDITION);
 *       - a SCSI-1 target with LUNs 0 and 1: no REPORT LUNS, the sequential
 *         scan finds both.
 *     The scan target refuses a REPORT LUNS whose reserved bytes are not
 *     zero or whose allocation length is below 16.
 */
#include "bbsuite.h"

#include <stdio.h>
#include <string.h>

#define OP_REPORT_LUNS	0xa0
#define DID_ERROR	0x07

/* The REPORT LUNS the target got: how many, their allocation lengths in
 * out ("4096,4104"); each went to LUN 0. */
static int report_luns(char *out, size_t len)
{
	struct scan_cmd log[64];
	int n = scan_log_read(log, 64), count = 0;
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (log[i].opcode != OP_REPORT_LUNS)
			continue;
		count++;
		if (used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%u%s", used ? "," : "",
						 log[i].alloc, log[i].lun ? "@lun!" : "");
	}
	return n < 0 ? -1 : count;
}

/* A scan of the whole target: want these LUNs after want_rl REPORT LUNS. */
static int scan_all(const char *what, const char *luns, int want_rl)
{
	char allocs[256];
	int n;

	if (scan_run("0 1 -"))
		return -1;
	n = report_luns(allocs, sizeof(allocs));
	diag("%s: %d REPORT LUNS (allocation lengths %s)", what, n, allocs);
	if (scan_expect(what, luns))
		return -1;
	if (n != want_rl || strstr(allocs, "@lun!"))
		return fail("%s: %d REPORT LUNS (%s), want %d, each to LUN 0", what, n, allocs,
			    want_rl);
	return 0;
}

static int list_grows(void)
{
	struct scan_target t = SCAN_TARGET("0,5");

	t.version = 3;
	if (scan_setup(&t) || scan_all("SCSI-3, LUNs 0 and 5", "0,5", 1) ||
	    scan_attr_is(5, "scsi_level", "4") || scan_attr_is(5, "model", "SCAN LUN 5"))
		return -1;
	t.luns = "0,5,7";
	if (scan_setup(&t) || scan_all("LUN 7 added", "0,5,7", 1))
		return -1;
	return scan_cleanup();
}

static int long_list(void)
{
	struct scan_target t = SCAN_TARGET("0,4");
	char allocs[256];
	unsigned int first = 0, second = 0;

	t.rl_count = 512;
	if (scan_setup(&t) || scan_all("a list of 512", "0,4", 2))
		return -1;
	report_luns(allocs, sizeof(allocs));
	if (sscanf(allocs, "%u,%u", &first, &second) != 2 || first >= 8 + 512 * 8 ||
	    second != 8 + 512 * 8)
		return fail("a list of 512: REPORT LUNS for %s bytes, want one shorter than"
			    " %d then %d", allocs, 8 + 512 * 8, 8 + 512 * 8);
	return scan_cleanup();
}

static int failures(void)
{
	struct scan_target t = SCAN_TARGET("0,5");
	char ua[64], illegal[64];

	sense_q(ua, false, 6, 0x29, 0, false, 0);
	if (scan_setup(&t) || rulef("id=1 op=0xa0 host=%d count=3", DID_ERROR) ||
	    rulef("id=1 op=0xa0 status=2 sense=%s count=2", ua) ||
	    scan_all("DID_ERROR 3 times, UNIT ATTENTION twice", "0,5", 6) || scan_cleanup())
		return -1;
	/* 6.12's failure table retries any CHECK CONDITION 3 times (6.1: a
	 * sense other than UNIT ATTENTION ends it): refused each time */
	sense_q(illegal, false, 5, 0x20, 0, false, 0);
	t.luns = "0,1,5";
	if (scan_setup(&t) || rulef("id=1 op=0xa0 status=2 sense=%s count=4", illegal) ||
	    scan_all("REPORT LUNS refused", "0,1", kernel_version() >= KV(6, 12, 0) ? 4 : 1) ||
	    bbtest_clear())
		return -1;
	return scan_cleanup();
}

static int report_luns_cases(void)
{
	struct scan_target t = SCAN_TARGET("2");

	if (list_grows())
		return -1;
	if (scan_setup(&t) || scan_all("no LUN 0, LUN 2 listed", "2", 1) ||
	    scan_attr_is(2, "vendor", "BBTEST") || scan_cleanup())
		return -1;
	if (long_list())
		return -1;
	t.luns = "0,4";
	t.rl_junk = 6;
	if (scan_setup(&t) || scan_all("LUN 6 past the list", "0,4", 1) || scan_cleanup())
		return -1;
	if (failures())
		return -1;
	t.luns = "0,1";
	t.rl_junk = -1;
	t.version = 1;
	t.format = 0;
	if (scan_setup(&t) || scan_all("SCSI-1, LUNs 0 and 1", "0,1", 0))
		return -1;
	return scan_attr_is(1, "scsi_level", "1");
}

int t_scan_report_luns(void)
{
	int ret = report_luns_cases();

	if (scan_cleanup())
		ret = -1;
	if (!ret && bbtest_pending())
		return fail("a scripted REPORT LUNS was never used");
	return ret;
}
