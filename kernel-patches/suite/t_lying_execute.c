/*
 * t_lying_execute.c: the kernel's own commands (__scsi_execute), as user
 * space starts them and sees their outcome (issue 24).
 *
 *   lying-device-execute-retries  a rescan of the scsi_bbtest disk
 *                              (sd_revalidate_disk) whose READ CAPACITY(10)
 *                              is answered DID_SOFT_ERROR three times: the
 *                              midlayer retries it within sd's first try
 *                              (scsi_execute's retries, sd's max_retries 5):
 *                              2048 sectors after 4 commands.  sd's own
 *                              loop alone would give up after 3.
 */
#include "bbsuite.h"

#include <stdio.h>

#define OP_READ_CAPACITY	0x25
#define DID_SOFT_ERROR		0x0b

int t_lying_execute_retries(void)
{
	char path[256];
	long long got;
	int seen;

	if (dev_require(ROLE_BBDISK) || bbtest_clear() || bbtest_opcodes_clear() ||
	    rulef("lun=0 op=0x%02x host=%d count=3", OP_READ_CAPACITY, DID_SOFT_ERROR))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/rescan", dev_name(ROLE_BBDISK));
	if (knob_write(path, "1"))
		return -1;
	got = dev_sectors(ROLE_BBDISK);
	seen = bbtest_opcount(0, OP_READ_CAPACITY);
	diag("rescan, READ CAPACITY(10) DID_SOFT_ERROR three times: %lld sectors after %d"
	     " command(s)", got, seen);
	if (got != (long long)BBDISK_SECTORS || seen != 4)
		return fail("rescan, READ CAPACITY(10) DID_SOFT_ERROR three times: %lld sectors"
			    " after %d commands, want %llu after 4 (retried by the midlayer)", got,
			    seen, BBDISK_SECTORS);
	return bbtest_pending() ? fail("a scripted completion was never used") : 0;
}
