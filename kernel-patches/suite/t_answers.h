/*
 * t_answers.h: what the lying-device-answers-* tests share (t_answers.c,
 * the tables of answer classes; t_answers_io.c, what user space sees of
 * one answer).  kernel-patches/suite/ANSWERS.md lists the classes, the
 * branches of the completion code that tell them apart and what each test
 * checks.
 */
#ifndef T_ANSWERS_H
#define T_ANSWERS_H

#include "bbsuite.h"

/* The sense a device sends, built by sense_build(). */
enum sense_form {
	SENSE_NONE,		/* no sense data at all */
	SENSE_FIXED,		/* 0x70, 18 bytes */
	SENSE_FIXED_DEFERRED,	/* 0x71 */
	SENSE_FIXED_SHORT,	/* 0x70 with additional length 0: 8 bytes, no ASC */
	SENSE_NOT_SENSE,	/* response code 0: not sense data (18 bytes) */
	SENSE_DESC,		/* 0x72 with an information descriptor */
	SENSE_DESC_DEFERRED,	/* 0x73 with an information descriptor */
	SENSE_DESC_BARE,	/* 0x72 without descriptors: 8 bytes */
	SENSE_DESC_STREAM_ILI,	/* 0x72, a stream commands descriptor with ILI */
};

/* Where the sense's INFORMATION field points. */
enum info { INFO_NONE, INFO_BAD, INFO_OUTSIDE };

struct sense_spec {
	enum sense_form form;
	unsigned char key;	/* fixed: byte 2 as sent (FILEMARK, EOM, ILI bits too) */
	unsigned char asc, ascq;
	enum info info;		/* INFO_NONE: VALID clear (fixed), no descriptor */
};

/* What user space sees of one answer through the split read: sixteen
 * (disk) or eight (CD) O_DIRECT reads of one block, merged into one
 * command; the first good of them complete with the data written, the
 * rest fail with err (0: they complete too); the device got cmds
 * commands for them. */
struct seen {
	int good, err, cmds;
};

#define EVERY_TRY	(-1)	/* times: as often as the driver tries (sd 6, sr 4) */

struct answer {
	const char *name;	/* the class, as ANSWERS.md names it */
	struct sense_spec sense;
	int status, host;	/* SAM status, host byte */
	int sent;		/* blocks the device transfers (-1: all) */
	bool resid;		/* the residual says so (else 0) */
	int times;		/* commands it answers (0: 1; EVERY_TRY: tries) */
	struct seen io;		/* 6.1 */
	struct seen io612;	/* 6.12, when it differs (cmds 0: the same) */
	int sg_cmds;		/* SG_IO's READ, answered once: its commands (0: 1) */
	const char *quirk;	/* a scsi_bbtest parameter set to 1 meanwhile */
	bool offline;		/* the device is lost with its answer */
	bool lost_before;	/* no answer: the device is offline before each part */
};

/* The device an answer table runs on: its role, scsi_bbtest LUN, block
 * size, the region (blocks) and the block of it the answers name. */
struct answer_dev {
	enum role role;
	unsigned int lun, blksz;
	uint64_t region;
	int blocks, bad, tries;	/* tries: the driver's 1 + retries */
};

/* t_answers_io.c */
/* The bytes of s (INFORMATION info) into out (32 bytes): how many. */
size_t sense_build(const struct sense_spec *s, uint64_t info, unsigned char *out);
/* One answer: split read, readahead, SG_IO, the device afterwards. */
int answer_run(const struct answer_dev *d, const struct answer *a, int row);
/* The device's media back to the lba-pattern, the page cache dropped. */
int answer_media_reset(const struct answer_dev *d);

#endif
