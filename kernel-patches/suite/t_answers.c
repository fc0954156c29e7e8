/*
 * t_answers.c: lying-device-answers-sense, -status and -cd (issue 32): for
 * each class of answer the completion code tells apart
 * (kernel-patches/suite/ANSWERS.md: sense formats and keys, status and
 * host bytes, a device lost with its answer or before it), what user
 * space sees, through one test body (t_answers_io.c) run on a table:
 * which blocks of a split O_DIRECT read complete with the data written
 * and the errno of the others, the commands the device got, the pages a
 * readahead leaves, SG_IO's status, host byte, residual and sense, and
 * the device's state and size afterwards.
 *
 * Where 6.12 differs from 6.1, the row says both (io612): a command
 * duration limit (ABORTED COMMAND 2e/xx, COMPLETED 55/0a) is ETIME there
 * and never retried, and a GOOD answer carrying sense data that names a
 * failure fails (6.12's scsi_decide_disposition reads it).
 *
 * Regions: disk sectors 1008..1023, CD 2K blocks 300..307 (far from the
 * last 75, so no answer trims the CD); both written by the test and the
 * media put back after it.
 */
#include "t_answers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NO_SENSE	0x0
#define RECOVERED	0x1
#define NOT_READY	0x2
#define MEDIUM		0x3
#define HARDWARE	0x4
#define ILLEGAL		0x5
#define UNIT_ATTN	0x6
#define DATA_PROTECT	0x7
#define BLANK_CHECK	0x8
#define VENDOR		0x9
#define COPY_ABORTED	0xa
#define ABORTED		0xb
#define VOLUME_OVERFLOW	0xd
#define MISCOMPARE	0xe
#define COMPLETED	0xf
#define FILEMARK	0x80	/* fixed sense byte 2: FILEMARK, EOM, ILI */
#define ILI		0x20

#define CC		0x02	/* CHECK CONDITION */

#define FIXED(k, a, q, i)	{ SENSE_FIXED, k, a, q, i }
#define DEFERRED(k, a, q, i)	{ SENSE_FIXED_DEFERRED, k, a, q, i }
#define DESC(k, a, q, i)	{ SENSE_DESC, k, a, q, i }
#define SENSE(f, k, a, q, i)	{ f, k, a, q, i }
#define NOSENSE			{ SENSE_NONE, 0, 0, 0, INFO_NONE }

/* One answer on the disk (16 blocks, bad block 12): name, sense, status,
 * host, blocks sent, honest residual, times, 6.1's outcome. */
#define ROW(n_, s_, st_, h_, sent_, r_, t_, good_, err_, cmds_) \
	{ .name = n_, .sense = s_, .status = st_, .host = h_, .sent = sent_, .resid = r_, \
	  .times = t_, .io = { good_, err_, cmds_ } }

/* On the disk: sense data (formats, then keys). */
static const struct answer sense_answers[] = {
	/* sense formats (scsi_normalize_sense, scsi_get_sense_info_fld) */
	ROW("fixed sense, VALID INFORMATION inside the read", FIXED(MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 12, true, 1, 12, ENODATA, 1),
	ROW("fixed sense without VALID", FIXED(MEDIUM, 0x11, 0, INFO_NONE),
	    CC, 0, 12, true, 1, 0, ENODATA, 1),
	ROW("fixed sense, INFORMATION outside the read", FIXED(MEDIUM, 0x11, 0, INFO_OUTSIDE),
	    CC, 0, 0, true, 1, 0, ENODATA, 1),
	ROW("deferred fixed sense once", DEFERRED(MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 12, true, 1, 16, 0, 2),
	ROW("deferred fixed sense on every try", DEFERRED(MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 12, true, EVERY_TRY, 0, EIO, 6),
	ROW("descriptor sense with INFORMATION", DESC(MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 12, true, 1, 12, ENODATA, 1),
	ROW("descriptor sense without descriptors", SENSE(SENSE_DESC_BARE, MEDIUM, 0x11, 0,
							  INFO_NONE), CC, 0, 12, true, 1, 0, ENODATA, 1),
	ROW("deferred descriptor sense once", SENSE(SENSE_DESC_DEFERRED, MEDIUM, 0x11, 0,
						    INFO_BAD), CC, 0, 12, true, 1, 16, 0, 2),
	ROW("fixed sense of 8 bytes (no ASC), every try", SENSE(SENSE_FIXED_SHORT, MEDIUM, 0x11,
								0, INFO_BAD),
	    CC, 0, 12, true, EVERY_TRY, 12, EIO, 6),
	ROW("fixed sense with ILI and MEDIUM ERROR", FIXED(ILI | MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 12, true, 1, 12, EIO, 1),
	ROW("fixed sense with FILEMARK and ABORTED COMMAND", FIXED(FILEMARK | ABORTED, 0, 0,
								   INFO_NONE),
	    CC, 0, 0, true, 1, 0, EIO, 1),
	ROW("descriptor sense with a stream ILI", SENSE(SENSE_DESC_STREAM_ILI, ABORTED, 0, 0,
							INFO_NONE), CC, 0, 0, true, 1, 0, EIO, 1),
	/* sense keys (scsi_check_sense, sd_done, scsi_io_completion_action) */
	ROW("NO SENSE once", FIXED(NO_SENSE, 0, 0, INFO_NONE), CC, 0, 0, true, 1, 16, 0, 2),
	ROW("RECOVERED ERROR", FIXED(RECOVERED, 0x17, 0, INFO_NONE), CC, 0, -1, false, 1,
	    16, 0, 1),
	ROW("NOT READY 04/01 once", FIXED(NOT_READY, 0x04, 0x01, INFO_NONE), CC, 0, 0, true, 1,
	    16, 0, 2),
	ROW("NOT READY 04/02 without allow_restart", FIXED(NOT_READY, 0x04, 0x02, INFO_NONE),
	    CC, 0, 0, true, 1, 0, EIO, 1),
	ROW("NOT READY 04/04 once", FIXED(NOT_READY, 0x04, 0x04, INFO_NONE), CC, 0, 0, true, 1,
	    16, 0, 2),
	ROW("NOT READY 3a/00", FIXED(NOT_READY, 0x3a, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EIO, 1),
	ROW("UNIT ATTENTION 29/00 once, not removable", FIXED(UNIT_ATTN, 0x29, 0, INFO_NONE),
	    CC, 0, 0, true, 1, 16, 0, 2),
	ROW("UNIT ATTENTION 28/00 once, not removable", FIXED(UNIT_ATTN, 0x28, 0, INFO_NONE),
	    CC, 0, 0, true, 1, 16, 0, 2),
	ROW("MEDIUM ERROR 14/00", FIXED(MEDIUM, 0x14, 0, INFO_BAD), CC, 0, 12, true, 1,
	    12, ENODATA, 1),
	ROW("MEDIUM ERROR 31/00 on every try", FIXED(MEDIUM, 0x31, 0, INFO_BAD), CC, 0, 12, true,
	    EVERY_TRY, 12, EIO, 6),
	ROW("HARDWARE ERROR", FIXED(HARDWARE, 0x44, 0, INFO_BAD), CC, 0, 12, true, 1,
	    12, EREMOTEIO, 1),
	ROW("ILLEGAL REQUEST 25/00", FIXED(ILLEGAL, 0x25, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EIO, 1),
	ROW("ILLEGAL REQUEST 10/01 (DIX)", FIXED(ILLEGAL, 0x10, 0x01, INFO_BAD), CC, 0, 12, true,
	    1, 12, EILSEQ, 1),
	ROW("ABORTED COMMAND 10/01 (DIF)", FIXED(ABORTED, 0x10, 0x01, INFO_BAD), CC, 0, 12, true,
	    1, 12, EILSEQ, 1),
	ROW("ABORTED COMMAND on every try", FIXED(ABORTED, 0, 0, INFO_NONE), CC, 0, 0, true,
	    EVERY_TRY, 0, EIO, 6),
	{ .name = "ABORTED COMMAND 2e/02 (duration limit) on every try",
	  .sense = FIXED(ABORTED, 0x2e, 0x02, INFO_NONE), .status = CC, .sent = 0, .resid = true,
	  .times = EVERY_TRY, .io = { 0, EIO, 6 }, .io612 = { 0, ETIME, 1 } },
	ROW("DATA PROTECT 27/07", FIXED(DATA_PROTECT, 0x27, 0x07, INFO_NONE), CC, 0, 0, true, 1,
	    0, ENOSPC, 1),
	ROW("DATA PROTECT 27/00", FIXED(DATA_PROTECT, 0x27, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EREMOTEIO, 1),
	ROW("DATA PROTECT 0c/12", FIXED(DATA_PROTECT, 0x0c, 0x12, INFO_NONE), CC, 0, 0, true, 1,
	    0, ETOOMANYREFS, 1),
	ROW("COPY ABORTED", FIXED(COPY_ABORTED, 0, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EREMOTEIO, 1),
	ROW("VOLUME OVERFLOW", FIXED(VOLUME_OVERFLOW, 0, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EREMOTEIO, 1),
	ROW("MISCOMPARE", FIXED(MISCOMPARE, 0x1d, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EREMOTEIO, 1),
	ROW("BLANK CHECK", FIXED(BLANK_CHECK, 0, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EREMOTEIO, 1),
	ROW("vendor specific sense key", FIXED(VENDOR, 0, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EIO, 1),
	{ .name = "COMPLETED 55/0a (duration limit)", .sense = FIXED(COMPLETED, 0x55, 0x0a,
								     INFO_NONE),
	  .status = CC, .sent = 0, .resid = true, .times = 1, .io = { 0, EIO, 1 },
	  .io612 = { 0, ETIME, 1 } },
	ROW("COMPLETED 00/00", FIXED(COMPLETED, 0, 0, INFO_NONE), CC, 0, 0, true, 1,
	    0, EIO, 1),
	{ .name = "HARDWARE ERROR once, retry_hwerror", .sense = FIXED(HARDWARE, 0x44, 0,
								       INFO_NONE),
	  .status = CC, .sent = 0, .resid = true, .times = 1, .io = { 16, 0, 2 }, .sg_cmds = 2,
	  .quirk = "disk_retry_hwerror" },
	{ .name = "ABORTED COMMAND c1/01 once, BLIST_RETRY_ASC_C1",
	  .sense = FIXED(ABORTED, 0xc1, 0x01, INFO_NONE), .status = CC, .sent = 0, .resid = true,
	  .times = 1, .io = { 16, 0, 2 }, .sg_cmds = 2, .quirk = "disk_retry_asc_c1" },
};

/* On the disk: status and host bytes, the disk's state. */
static const struct answer status_answers[] = {
	/* status bytes (scsi_decide_disposition, scsi_io_completion_nz_result) */
	ROW("GOOD, half sent, honest residual", NOSENSE, 0, 0, 8, true, 1, 16, 0, 2),
	{ .name = "GOOD with MEDIUM ERROR sense", .sense = FIXED(MEDIUM, 0x11, 0, INFO_BAD),
	  .status = 0, .sent = -1, .times = 1, .io = { 16, 0, 1 }, .io612 = { 0, ENODATA, 1 } },
	ROW("CONDITION MET once", NOSENSE, 0x04, 0, -1, false, 1, 16, 0, 2),
	ROW("INTERMEDIATE once", NOSENSE, 0x10, 0, -1, false, 1, 16, 0, 2),
	ROW("COMMAND TERMINATED once", NOSENSE, 0x22, 0, 0, true, 1, 16, 0, 2),
	ROW("ACA ACTIVE", NOSENSE, 0x30, 0, 0, true, 1, 0, EIO, 1),
	ROW("TASK ABORTED once", NOSENSE, 0x40, 0, 0, true, 1, 16, 0, 2),
	{ .name = "BUSY once", .sense = NOSENSE, .status = 0x08, .sent = 0, .resid = true,
	  .times = 1, .io = { 16, 0, 2 }, .sg_cmds = 2 },
	{ .name = "TASK SET FULL once", .sense = NOSENSE, .status = 0x28, .sent = 0,
	  .resid = true, .times = 1, .io = { 16, 0, 2 }, .sg_cmds = 2 },
	ROW("RESERVATION CONFLICT", NOSENSE, 0x18, 0, 0, true, 1, 0, EBADE, 1),
	/* host bytes (scsi_decide_disposition, scsi_noretry_cmd,
	 * scsi_result_to_blk_status) */
	ROW("DID_NO_CONNECT", NOSENSE, 0, 0x01, 0, true, 1, 0, EIO, 1),
	ROW("DID_BUS_BUSY on every try", NOSENSE, 0, 0x02, 0, true, EVERY_TRY, 0, EIO, 6),
	ROW("DID_BAD_TARGET", NOSENSE, 0, 0x04, 0, true, 1, 0, EIO, 1),
	ROW("DID_ABORT", NOSENSE, 0, 0x05, 0, true, 1, 0, EIO, 1),
	ROW("DID_PARITY once", NOSENSE, 0, 0x06, 0, true, 1, 16, 0, 2),
	ROW("DID_ERROR on every try", NOSENSE, 0, 0x07, 0, true, EVERY_TRY, 0, EIO, 6),
	ROW("DID_ERROR with RESERVATION CONFLICT", NOSENSE, 0x18, 0x07, 0, true, 1, 0, EBADE, 1),
	ROW("DID_RESET once", NOSENSE, 0, 0x08, 0, true, 1, 16, 0, 2),
	ROW("DID_PASSTHROUGH, GOOD", NOSENSE, 0, 0x0a, -1, false, 1, 16, 0, 1),
	ROW("DID_PASSTHROUGH with MEDIUM ERROR", FIXED(MEDIUM, 0x11, 0, INFO_BAD), CC, 0x0a,
	    12, true, 1, 12, EIO, 1),
	ROW("DID_SOFT_ERROR on every try", NOSENSE, 0, 0x0b, 0, true, EVERY_TRY, 0, EIO, 6),
	{ .name = "DID_IMM_RETRY once", .sense = NOSENSE, .host = 0x0c, .sent = 0, .resid = true,
	  .times = 1, .io = { 16, 0, 2 }, .sg_cmds = 2 },
	{ .name = "DID_REQUEUE once", .sense = NOSENSE, .host = 0x0d, .sent = 0, .resid = true,
	  .times = 1, .io = { 16, 0, 2 }, .sg_cmds = 2 },
	ROW("DID_TRANSPORT_DISRUPTED once", NOSENSE, 0, 0x0e, 0, true, 1, 16, 0, 2),
	ROW("DID_TRANSPORT_FAILFAST", NOSENSE, 0, 0x0f, 0, true, 1, 0, ENOLINK, 1),
	ROW("DID_TRANSPORT_MARGINAL", NOSENSE, 0, 0x14, 0, true, 1, 0, ENOLINK, 1),
	/* the device's state */
	{ .name = "lost with its answer (ABORTED COMMAND, then offline)",
	  .sense = FIXED(ABORTED, 0, 0, INFO_NONE), .status = CC, .sent = 0, .resid = true,
	  .times = 1, .io = { 0, EIO, 1 }, .offline = true },
	{ .name = "offline before the read", .io = { 0, EIO, 0 }, .lost_before = true },
	/* last: the error handler's (a device reset leaves the disk expecting
	 * a UNIT ATTENTION, which the test then takes) */
	ROW("CHECK CONDITION without sense data", NOSENSE, CC, 0, 0, true, 1, 16, 0, 2),
	ROW("sense data that is not sense (response code 0)", SENSE(SENSE_NOT_SENSE, MEDIUM,
								    0x11, 0, INFO_NONE),
	    CC, 0, 0, true, 1, 16, 0, 2),
	ROW("status 0x0c (not a SAM status) once", NOSENSE, 0x0c, 0, 0, true, 1, 16, 0, 2),
	ROW("DID_BAD_INTR once", NOSENSE, 0, 0x09, 0, true, 1, 16, 0, 2),
	ROW("host byte 0x10 (no longer defined) once", NOSENSE, 0, 0x10, 0, true, 1, 16, 0, 2),
};

/* One answer on the CD (8 2K blocks, bad block 6). */
static const struct answer cd_answers[] = {
	ROW("fixed sense, VALID INFORMATION inside the read", FIXED(MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 6, true, 1, 6, ENODATA, 1),
	ROW("fixed sense without VALID, INFORMATION 0", FIXED(MEDIUM, 0x11, 0, INFO_NONE),
	    CC, 0, 6, true, 1, 0, ENODATA, 1),
	ROW("ILLEGAL REQUEST 21/00, VALID INFORMATION inside", FIXED(ILLEGAL, 0x21, 0, INFO_BAD),
	    CC, 0, 6, true, 1, 6, EREMOTEIO, 1),
	ROW("VOLUME OVERFLOW, VALID INFORMATION inside", FIXED(VOLUME_OVERFLOW, 0, 0, INFO_BAD),
	    CC, 0, 6, true, 1, 6, EREMOTEIO, 1),
	ROW("HARDWARE ERROR, VALID INFORMATION inside", FIXED(HARDWARE, 0x44, 0, INFO_BAD),
	    CC, 0, 6, true, 1, 0, EREMOTEIO, 1),
	ROW("fixed sense with ILI and MEDIUM ERROR", FIXED(ILI | MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 6, true, 1, 0, EIO, 1),
	ROW("descriptor sense with INFORMATION", DESC(MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 6, true, 1, 0, ENODATA, 1),
	ROW("RECOVERED ERROR", FIXED(RECOVERED, 0x17, 0, INFO_NONE), CC, 0, -1, false, 1,
	    8, 0, 1),
	ROW("deferred fixed sense once", DEFERRED(MEDIUM, 0x11, 0, INFO_BAD),
	    CC, 0, 6, true, 1, 8, 0, 2),
	ROW("ABORTED COMMAND on every try", FIXED(ABORTED, 0, 0, INFO_NONE), CC, 0, 0, true,
	    EVERY_TRY, 0, EIO, 4),
	ROW("GOOD, half sent, honest residual", NOSENSE, 0, 0, 4, true, 1, 8, 0, 2),
};

static const struct answer_dev disk = { ROLE_BBDISK, 0, 512, 1008, 16, 12, 6 };
static const struct answer_dev cd = { ROLE_BBCD, 1, 2048, 300, 8, 6, 4 };

/* A read answered UNIT ATTENTION 29/00 once: right after 2 commands, and
 * the disk no longer expects one (the error handler's resets made it). */
static int disk_settle(void)
{
	static const struct answer ua = ROW("UNIT ATTENTION 29/00 once, to settle",
					    FIXED(UNIT_ATTN, 0x29, 0, INFO_NONE), CC, 0, 0, true,
					    1, 16, 0, 2);

	return answer_run(&disk, &ua, 99);
}

static int run_table(const struct answer_dev *d, const struct answer *rows, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++)
		ret = answer_run(d, &rows[i], (int)i);
	if (answer_media_reset(d))
		ret = -1;
	return ret;
}

int t_lying_answers_sense(void)
{
	if (dev_require(ROLE_BBDISK))
		return -1;
	return run_table(&disk, sense_answers, sizeof(sense_answers) / sizeof(sense_answers[0]));
}

int t_lying_answers_status(void)
{
	int ret;

	if (dev_require(ROLE_BBDISK))
		return -1;
	ret = run_table(&disk, status_answers, sizeof(status_answers) / sizeof(status_answers[0]));
	if (disk_settle() || answer_media_reset(&disk))
		ret = -1;
	return ret;
}

int t_lying_answers_cd(void)
{
	if (dev_require(ROLE_BBCD))
		return -1;
	return run_table(&cd, cd_answers, sizeof(cd_answers) / sizeof(cd_answers[0]));
}
