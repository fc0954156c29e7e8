#!/bin/sh
# t3540: a patch that changes only a function the suite never calls
# (sd_pr_clear: no test issues persistent reservations), on a real kernel
# built with gcov: the runner measures that none of its changed lines ran
# and says which function; the verdict's reach is 0 of 1 (issue 15).  What
# triage and the comment make of such a pass is t2570's.  The gcov seed is
# t3020's (made once per cache); this job then builds only sd.c.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 5
BB_TEST_COVERAGE=true runner_setup <<EOF2
flake_retries = 0
EOF2

id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/sd-pr-clear.patch" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" 0
like "the patched kernel ran the suite" "$(job_field $id verdict)" "^(pass|fail)$"
is "reach: 0 of 1 changed lines" "$(job_field $id reach_changed)/$(job_field $id reach_reached)" "1/0"
like "the verdict names the function that never ran" "$(job_field $id reach)" \
	"^the patch's change in sd_pr_clear \(sd.c\) was never executed: a pass says nothing about it"
like "the coverage log has the line, not executed" \
	"$(cat "$(job_field $id log_dir)/patched-coverage.log")" "drivers/scsi/sd.c:1862 NOT executed 0"
done_testing
