#!/bin/sh
# A real libata SCSI-translation fix, reverted, is caught through the
# runner (issue 34): kernel-patches/libata-sense-revert undoes
# cf3fc037623c ("ata: libata-scsi: Fix ata_to_sense_error() status
# handling", 6.1.153).  QEMU's IDE fails a read of a bad sector with ABRT
# alone and DRDY|ERR: the reverted ata_to_sense_error() makes that ILLEGAL
# REQUEST, UNALIGNED WRITE COMMAND (21/04) instead of ABORTED COMMAND, so
# hba-ahci-medium-error (the sense key in the kernel log) and hba-ahci-sgio
# (the sense SG_IO gets) go PASS->FAIL against stock 6.1 on the ahci boot
# the patch's path picks, and the fix on top of the revert brings them back
# (tests/lib/hba-revert.sh).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/hba-revert.sh"
runner_require

plan 17
hba_revert_prepare
KP=$HR_KP
# a cold seed build on this shared machine may take longer than the
# default 30 min
runner_setup <<EOF
build_timeout = 3600
EOF
hba_revert libata-sense-revert ahci drivers/ata/libata-scsi.c fail \
	"hba-ahci-medium-error hba-ahci-sgio"
done_testing
