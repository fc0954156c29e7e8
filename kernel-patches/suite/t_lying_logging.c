/*
 * t_lying_logging.c: a failed read is logged once (issue 24:
 * scsi_io_completion_action's ACTION_FAIL message).
 *
 *   lying-device-log-once  with the midlayer's completion logging on
 *                          (scsi_logging_level MLCOMPLETE 1), an O_DIRECT
 *                          read answered MEDIUM ERROR fails (EIO) and its
 *                          result and sense are logged once, by
 *                          scsi_log_completion ("Done: ... Result:"); the
 *                          completion does not print them again
 *
 * Disk sectors 1600..1615.
 */
#include "bbsuite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEDIUM_ERROR	3
#define LOG_MLCOMPLETE_1 "4096"		/* SCSI_LOG_MLCOMPLETE_SHIFT 12, level 1 */

/* Lines since mark about the disk that contain needle. */
static int lines_with(size_t mark, const char *needle, const char **first)
{
	char dev[32];
	int n = 0;

	snprintf(dev, sizeof(dev), "[%s]", dev_name(ROLE_BBDISK));
	*first = NULL;
	for (size_t i = mark; i < kmsg_count(); i++) {
		const char *l = kmsg_line(i);

		if (!strstr(l, dev) || !strstr(l, needle))
			continue;
		if (!*first)
			*first = l;
		n++;
	}
	return n;
}

static int logged_once(size_t mark)
{
	const char *res, *sense;
	int nres = lines_with(mark, "Result: ", &res), nsense = lines_with(mark, "Sense Key", &sense);

	diag("the failed read logged %d result line(s), %d sense line(s): %s", nres, nsense,
	     res ? res : "none");
	if (nres != 1 || nsense != 1 || !strstr(res, "Done: "))
		return fail("with MLCOMPLETE logging, the failed read logged %d result line(s) and"
			    " %d sense line(s) (first: %s); want one of each, from"
			    " scsi_log_completion (Done:)", nres, nsense, res ? res : "none");
	return 0;
}

int t_lying_log_once(void)
{
	char sense[64], old[32] = "0";
	size_t mark;
	FILE *f;
	int ret;

	if (dev_require(ROLE_BBDISK) || bbtest_clear())
		return -1;
	f = fopen(SCSI_LOGGING, "re");
	if (f) {
		if (!fgets(old, sizeof(old), f))
			snprintf(old, sizeof(old), "0");
		old[strcspn(old, "\n")] = '\0';
		fclose(f);
	}
	sense_q(sense, false, MEDIUM_ERROR, 0x11, 0, false, 0);
	if (rulef("lun=0 lba=1602 status=2 sense=%s copy=0 resid=rest", sense))
		return -1;
	kmsg_sync();
	mark = kmsg_mark();
	if (knob_write(SCSI_LOGGING, LOG_MLCOMPLETE_1))
		return -1;
	ret = direct_expect_fail(ROLE_BBDISK, 1600, 8192, SECTOR);
	knob_write(SCSI_LOGGING, old);
	kmsg_sync();
	if (ret || logged_once(mark))
		return -1;
	return lying_finish(0, 1600, 16);
}
