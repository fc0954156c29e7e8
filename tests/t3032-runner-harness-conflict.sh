#!/bin/sh
# Whose fault (lib/fault.h): a candidate that changes the very Makefile line
# the test harness patches applies cleanly, but then the harness does not.
# That is bugbridge's own fault, not the patch's: the job ends in
# infra-error with fault "ours" at once (no retry: it would fail the same
# way), names the harness, builds nothing, and its JSON says so.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 6
runner_setup <<EOF2
max_attempts = 3
EOF2

id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/harness-conflict.patch" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" 0
is "infra-error, our fault, after one run (not retried)" \
	"$(job_field $id "state || ' ' || verdict || ' ' || fault || ' ' || attempts")" \
	"done infra-error ours 1"
like "the detail names the harness and its rejected Makefile hunk" \
	"$(job_field $id verdict_detail | tr '\n' ' ')" \
	"^the test harness does not apply on top of this tree: patch 1/[0-9]+ '0001-scsi-add-scsi_bbtest.* drivers/scsi/Makefile: hunk #1 FAILED"
is "the candidate itself applied; nothing was built" \
	"$(sql "SELECT group_concat(stage || ':' || status, ' ') FROM job_stages
		WHERE job_id = $id AND stage IN ('apply', 'build')")" "apply:failed"
is "job show --json says whose fault" \
	"$(bb job show $id --json | jq -c '[.verdict, .fault]')" '["infra-error","ours"]'
like "the runner's log says so" "$(cat "$TMP/runner.log")" "done: infra-error, fault: ours"
done_testing
