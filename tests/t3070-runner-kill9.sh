#!/bin/sh
# kill -9 of the runner in the middle of a build: its lease runs out, the job
# is claimed again (attempt 2) and completes; while the lease holds, another
# runner does not get the job.  retry_delay = 0: a lost lease is an
# infra-error, whose next try waits a minute by default.  (The claim's
# exclusivity between two database connections is unit-tested in
# tests/unit/test_job.c.)
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 8
runner_setup <<EOF2
lease = 30
retry_delay = 0
EOF2

id=$(bb job add --bug 9370 --none 2>/dev/null)
# the binary itself, not a shell function's subshell: kill -9 must hit the runner
"$BB_BUILD/bugbridge-runner" >"$TMP/runner1.log" 2>&1 &
pid=$!
wait_stage $id build
kill -9 $pid
wait $pid 2>/dev/null
is "after kill -9 the job still looks running" "$(job_field $id state)" "running"

run_once runner2.log
is "a second runner exits 0 with the lease still held" "$?" "0"
is "and did not take the job" "$(job_field $id "state || ' ' || attempts")" "running 0"

while [ "$(sql "SELECT lease_expires < strftime('%s', 'now') FROM jobs WHERE id = $id")" != 1 ]; do
	sleep 1
done
run_once runner3.log
is "after the lease, a runner claims it again and finishes" "$(job_field $id state)" "done"
is "two runs: the lost one and the one that finished" "$(job_field $id attempts)" "2"
like "and the job has its verdict" "$(job_field $id verdict)" "^(pass|fail)$"
is "the stages of both attempts are kept" \
	"$(sql "SELECT group_concat(DISTINCT attempt) FROM job_stages WHERE job_id = $id")" "1,2"

done_testing
