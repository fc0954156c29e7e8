#!/bin/sh
# The unpatched 6.1 base: bugbridge-runner --once builds it, boots it under
# QEMU, runs the whole guest suite and lists every test case.  On stock 6.1
# sr-capacity fails (sr_done trusts an INFORMATION field without VALID) with
# "attempt to access beyond end of device" in the log, every time.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 14
runner_setup </dev/null

id=$(bb job add --bug 9370 --none 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the job is done" "$(job_field $id state)" "done"
unlike "the harness settles without a warning (0011 deletes scsi_bbtest.c: no mtime to reset)" \
	"$(grep warn "$TMP/runner.log")" "cannot reset the mtime"
is "stock 6.1 fails the suite" "$(job_field $id verdict)" "fail"
like "the kernel version is recorded" "$(job_field $id kernel_version)" "^6\.1\.[0-9]+"
like "the accelerator is recorded" "$(job_field $id accel)" "^(kvm|tcg)$"

missing=""
for t in $(scenario_tests); do
	[ -n "$(test_status $id patched $t)" ] || missing="$missing $t"
done
is "every test case of the suite has a result" "$missing" ""
is "sr-capacity fails, and keeps failing when re-run" \
	"$(sql "SELECT status, runs, failures FROM test_results WHERE job_id = $id AND name = 'sr-capacity'")" \
	"fail|3|3"
like "the verdict names the failing case with its counts" "$(job_field $id verdict_detail)" \
	"sr-capacity: failed 3/3"
is "the symptom became a signature" \
	"$(sql "SELECT count(*) FROM signatures WHERE job_id = $id AND kind = 'eod'")" "1"
is "every stage ran and finished" \
	"$(sql "SELECT group_concat(stage, ' ') FROM (SELECT DISTINCT stage FROM job_stages
		WHERE job_id = $id AND finished_at IS NOT NULL ORDER BY id)")" \
	"prepare apply configure build boot test report"
logs=$(job_field $id log_dir)
check "the build log is kept" test -s "$logs/patched-build.log"
check "the console log is kept" grep -q "KTAP version 1" "$logs"/patched-console-*.log
out=$(bb job show $id)
like "job show lists the test cases" "$out" "patched +sr-capacity +fail +failed 3/3"

done_testing
