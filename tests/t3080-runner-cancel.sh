#!/bin/sh
# bugbridge job cancel on a running job stops its build: the runner kills
# make within seconds, the job ends cancelled without a verdict, and the
# runner exits 0.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 5
runner_setup </dev/null

id=$(bb job add --bug 9370 --none 2>/dev/null)
"$BB_BUILD/bugbridge-runner" --once >"$TMP/runner.log" 2>&1 &
pid=$!
wait_stage $id build
bb job cancel $id >/dev/null
wait $pid
is "the runner exits 0" "$?" "0"
is "the job is cancelled" "$(job_field $id state)" "cancelled"
is "without a verdict" "$(job_field $id "coalesce(verdict, 'none')")" "none"
is "the build stage ended cancelled, not finished" \
	"$(sql "SELECT status || ' ' || detail FROM job_stages WHERE job_id = $id AND stage = 'build'")" \
	"failed cancelled"

done_testing
