#!/bin/sh
# kill -9 of the runner while its guest boots: QEMU dies with it (no orphan
# keeps the CPU or the disk images), the lease runs out, the job is claimed
# again and completes once, with one verdict and one set of test results.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 9
runner_setup <<EOF2
lease = 20
retry_delay = 0
EOF2

id=$(bb job add --bug 9370 --none 2>/dev/null)
# the binary itself, not a shell function's subshell: kill -9 must hit the runner
"$BB_BUILD/bugbridge-runner" >"$TMP/runner1.log" 2>&1 &
pid=$!
wait_stage $id boot
jobdir=$(dirname "$(job_field $id log_dir)")
# The job's QEMU runs in a sandbox (bwrap) whose bind mounts name the job
# dir: the QEMU processes below such a bwrap.
job_qemu() {
	_todo=$(pgrep -f "[b]wrap .*$jobdir/.* qemu-system-x86_64 ")
	while [ -n "$_todo" ]; do
		_next=""
		for _p in $_todo; do
			pgrep -P $_p -f "^qemu-system-x86_64 "
			_next="$_next $(pgrep -P $_p)"
		done
		_todo=$(echo $_next)
	done
}
# QEMU is started a moment after the stage is recorded
i=0
while [ $i -lt 100 ] && [ -z "$(job_qemu)" ]; do
	sleep 0.2; i=$((i + 1))
done
qemu=$(job_qemu | head -1)
check "its guest is running" test -n "$qemu"
kill -9 $pid
wait $pid 2>/dev/null
sleep 1
check "QEMU died with the runner" sh -c "! kill -0 ${qemu:-0} 2>/dev/null && [ -z \"\$(pgrep -f '[b]wrap .*$jobdir/')\" ]"
is "after kill -9 the job still looks running" "$(job_field $id state)" "running"

while [ "$(sql "SELECT lease_expires < strftime('%s', 'now') FROM jobs WHERE id = $id")" != 1 ]; do
	sleep 1
done
run_once runner2.log
is "after the lease, a runner claims it again and finishes" "$(job_field $id state)" "done"
like "the job has its verdict" "$(job_field $id verdict)" "^(pass|fail)$"
is "two runs: the lost one and the one that finished" "$(job_field $id attempts)" "2"
is "one result per test, not two" \
	"$(sql "SELECT count(*) > 0 AND count(*) = count(DISTINCT variant || name) FROM test_results WHERE job_id = $id")" "1"
is "the boot stage of the lost attempt is kept" \
	"$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id AND attempt = 1 AND stage = 'boot'")" "1"

done_testing
