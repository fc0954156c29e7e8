/*
 * hba.h: the controllers the hba-* tests run through (t_hba.c), and where
 * each one's devices sit.  suite/scenarios declares the same devices on the
 * QEMU side, one boot per controller (keep the two in step).
 */
#ifndef BB_HBA_H
#define BB_HBA_H

#include <stdbool.h>

/* A device's role behind the controller: sd or sr, INQUIRY vendor and
 * model, and its SCSI target (-1: any, as for ahci, one host per port). */
struct hba_dev {
	const char *vendor, *model;
	int target;
};

/* How a read fault (blkdebug ENODATA) surfaces through the controller. */
struct hba_err {
	int err;			/* errno of the failed read: ENODATA, EIO */
	int key, asc;			/* in the sense SG_IO gets */
	const char *key_name;		/* as the kernel log prints it: "Medium Error" */
	const char *blk_line;		/* the block layer's: "critical medium error" */
	const char *why;		/* why so, for messages */
};

struct hba {
	const char *name;		/* the tests are hba-NAME-* */
	const char *host;		/* the Linux driver's proc_name */
	struct hba_dev disk, cd;
	struct hba_err disk_err, cd_err;
	struct {			/* a READ(10) past the end: host byte, sense */
		int host, key, asc;
	} past_end;
	const char *cd_size_why;	/* the CD's size is not the disc's: why */
	/* A short transfer (fewer bytes than the buffer): the residual reaches
	 * SG_IO as short_resid (504: the bytes that did not come), with host byte
	 * short_host; short_why says why so. */
	int short_resid;
	int short_host;
	const char *short_why;
	bool short_zeroed;		/* the buffer past the 8 bytes is zeroed, not untouched */
};

extern const struct hba hba_virtio, hba_megasas, hba_pvscsi, hba_ahci;

int hba_read(const struct hba *c);
int hba_write(const struct hba *c);
int hba_medium_error(const struct hba *c);
int hba_sgio(const struct hba *c);
int hba_cd(const struct hba *c);

#endif
