#!/bin/sh
# kernel-patches/sr-sense-valid with --baseline: the runner runs the
# unpatched base and the patched tree and says what the patch changed:
# sr-capacity FAIL->PASS, nothing else moves.  A second job on the same base
# takes the baseline from the cache instead of building it again, and the
# patched tree's build is incremental.  The pristine baseline is never
# touched by a job's patches.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 13
BB_TEST_COVERAGE=true runner_setup </dev/null

id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the patched kernel passes" "$(job_field $id verdict)" "pass"
is "the job's change is FAIL->PASS" "$(job_field $id change)" "FAIL->PASS"
is "sr-capacity: FAIL->PASS" \
	"$(sql "SELECT change FROM test_results WHERE job_id = $id AND variant = 'patched'
		AND name = 'sr-capacity'")" "FAIL->PASS"
is "the baseline's sr-capacity failed every run" \
	"$(sql "SELECT status, failures FROM test_results WHERE job_id = $id AND variant = 'baseline'
		AND name = 'sr-capacity'")" "fail|3"
is "no other test changed" \
	"$(sql "SELECT count(*) FROM test_results WHERE job_id = $id AND variant = 'patched'
		AND change NOT IN ('PASS->PASS', 'FAIL->PASS', 'SKIP')")" "0"
is "both variants went through every stage" \
	"$(sql "SELECT count(DISTINCT variant || stage) FROM job_stages WHERE job_id = $id
		AND variant <> 'seed'")" "12"
is "the fix's changed line ran: the verdict says so" "$(job_field $id reach)" \
	"reached 1 of 1 changed lines"
like "the coverage log names it" "$(cat "$(job_field $id log_dir)/patched-coverage.log")" \
	"drivers/scsi/sr.c:[0-9]+ executed [1-9]"

base=$RUNNER_CACHE/base/linux-source-6.1
unlike "the pristine baseline's sr.c is unchanged" \
	"$(grep -c 'sense_buffer\[0\] & 0x80' "$base/drivers/scsi/sr.c")" "^[1-9]"

id2=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline 2>/dev/null)
run_once runner2.log
is "a second job gives the same change" "$(job_field $id2 change)" "FAIL->PASS"
like "its baseline came from the cache" "$(job_field $id2 verdict_detail)" "baseline \(cached\)"
is "so it built one kernel, not two" \
	"$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id2 AND stage = 'build'")" "1"

done_testing
