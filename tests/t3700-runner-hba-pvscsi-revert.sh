#!/bin/sh
# A real vmw_pvscsi completion fix, reverted, is caught through the runner
# (issue 34): kernel-patches/pvscsi-resid-revert undoes 142c779d05d1 ("Set
# residual data length conditionally", in 6.1 since its release).  QEMU's
# pvscsi never fills in a completion's dataLen, so the reverted
# pvscsi_complete_request() says every successful command moved nothing;
# the midlayer zeroes what INQUIRY and READ CAPACITY brought, sd finds
# disks of sector size 0 and the boot hangs before /init, as the fix's
# own message reports for QEMU.  The job picks the pvscsi boot from the
# patch's path; its verdict is boot-timeout, blamed on the patch, with
# every hba-pvscsi test failed; the stock base passes them (the second
# job's baseline) and the fix on top of the revert passes them again
# (tests/lib/hba-revert.sh).  About 4 minutes (the revert hangs its boot
# until the boot timeout): BUGBRIDGE_SLOW=1; make check's sample of a
# reverted driver fix is t3701 (libata).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/hba-revert.sh"
[ "${BUGBRIDGE_SLOW:-0}" = 1 ] || skip_all "slow (a boot hangs to its timeout): set BUGBRIDGE_SLOW=1"
runner_require

plan 17
hba_revert_prepare
KP=$HR_KP
# a cold seed build on this shared machine may take longer than the
# default 30 min
runner_setup <<EOF
build_timeout = 3600
EOF
hba_revert pvscsi-resid-revert pvscsi drivers/scsi/vmw_pvscsi.c boot-timeout \
	"hba-pvscsi-read hba-pvscsi-write hba-pvscsi-medium-error hba-pvscsi-sgio hba-pvscsi-cd"
like "  the runner says where it hung" "$(sql "SELECT verdict_detail FROM jobs WHERE id = 1")" \
	"within [0-9]+ s \\(boot hba-pvscsi; 0 test results before it hung\\)"
done_testing
