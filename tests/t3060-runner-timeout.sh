#!/bin/sh
# A guest that hangs: the watchdog kills QEMU at [runner] boot_timeout and
# the verdict is boot-timeout.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 5
runner_setup <<EOF2
boot_timeout = 25
EOF2

id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/runner/hang-at-boot.patch" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the verdict is boot-timeout" "$(job_field $id verdict)" "boot-timeout"
like "the detail names the limit" "$(job_field $id verdict_detail)" "did not finish within 25 s"
# The watchdog's own deadline, plus its 5 s SIGTERM->SIGKILL grace.
is "the guest was stopped at the limit, not later" \
	"$(sql "SELECT finished_at - started_at < 25 + 10 FROM job_stages WHERE job_id = $id
		AND stage = 'boot'")" "1"
check "the console shows where it hung" grep -q "this kernel never starts /init" \
	"$(job_field $id log_dir)"/patched-console-*.log

done_testing
