/*
 * t_hba_ctl.c: the controllers of the hba-* tests (hba.h) and the test
 * functions bbsuite.c's table names, one set per controller.
 */
#include "bbsuite.h"
#include "hba.h"

#include <errno.h>

#include <errno.h>

#define QEMU_DISK { "QEMU", "QEMU HARDDISK", 1 }
#define QEMU_CD { "QEMU", "QEMU CD-ROM", 2 }
#define DID_ERROR 0x07
/* QEMU's scsi-hd and scsi-cd answer a blkdebug ENODATA as sd and sr expect */
#define MEDIUM { ENODATA, 3, 0x11, "Medium Error", "critical medium error", \
		 "MEDIUM ERROR 11/00" }
#define PAST_END { 0, 5, 0x21 }		/* ILLEGAL REQUEST, LBA out of range */

const struct hba hba_virtio = {
	"virtio", "virtio_scsi", QEMU_DISK, QEMU_CD, MEDIUM, MEDIUM, PAST_END, NULL,
	504, 0, "virtio-scsi's response carries the residual", false };

const struct hba hba_megasas = {
	"megasas", "megaraid_sas", QEMU_DISK, QEMU_CD, MEDIUM, MEDIUM, PAST_END,
	"QEMU's megasas fails sr's READ CAPACITY at probe (sr then takes 0x1fffff blocks);"
	" SG_IO's later one answers right",
	0, 0, "megasas_complete_cmd (an MFI frame) reports no residual", false };

/*
 * QEMU's pvscsi reports any command that moved fewer bytes than asked
 * (a READ past the end moves none) as BTSTAT_DATARUN with dataLen 0:
 * pvscsi_complete_request makes it DID_ERROR, drops the SCSI status (the
 * sense is still copied) and takes every byte for missing.
 */
const struct hba hba_pvscsi = {
	"pvscsi", "vmw_pvscsi", QEMU_DISK, QEMU_CD, MEDIUM, MEDIUM, { DID_ERROR, 5, 0x21 },
	NULL, 512, DID_ERROR, "QEMU's pvscsi: BTSTAT_DATARUN with dataLen 0", false };

/*
 * QEMU's IDE answers every failed read or write, and a read past the end,
 * with ABRT alone in the error register, which libata's ata_to_sense_error()
 * makes ABORTED COMMAND 00/00 (sd retries it, then EIO).
 */
#define ATA_ABORT { EIO, 0xb, 0x00, "Aborted Command", "I/O error", \
		    "QEMU's IDE sets ABRT, libata makes it ABORTED COMMAND" }
const struct hba hba_ahci = {
	"ahci", "ahci", { "ATA", "QEMU HARDDISK", -1 }, { "QEMU", "QEMU DVD-ROM", -1 },
	ATA_ABORT,
	{ EIO, 5, 0x21, "Illegal Request", "I/O error",
	  "QEMU's ATAPI answers a failed read ILLEGAL REQUEST 21/00" },
	{ 0, 0xb, 0x00 }, NULL,
	0, 0, "libata's SATL answers READ CAPACITY itself, from a zeroed buffer as long"
	" as the request's", true };

#define HBA_TESTS(c)								\
	int t_hba_##c##_read(void) { return hba_read(&hba_##c); }		\
	int t_hba_##c##_write(void) { return hba_write(&hba_##c); }		\
	int t_hba_##c##_medium_error(void) { return hba_medium_error(&hba_##c); } \
	int t_hba_##c##_sgio(void) { return hba_sgio(&hba_##c); }		\
	int t_hba_##c##_cd(void) { return hba_cd(&hba_##c); }

HBA_TESTS(virtio)
HBA_TESTS(megasas)
HBA_TESTS(pvscsi)
HBA_TESTS(ahci)
