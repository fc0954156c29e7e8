#!/bin/sh
# The suite sharded over several guests booted at once (issue 33), on real
# 6.1 kernels built with gcov:
#   - stock 6.1 in one guest and in three: the same verdict, the same test
#     list (status, runs, failures), the same signatures; sr-capacity fails
#     in its shard with its diagnostics, and is re-run in that shard's boot;
#   - a patch with a line only lying-device-read6-fallback runs and one only
#     sr-capacity runs: the same reach in one guest and in three, the
#     shards' gcov counters added up;
#   - a patch that panics in sr-capacity: the verdict is the patch's panic,
#     as in one guest, and the other shards' tests still report.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 17
BB_TEST_COVERAGE=true runner_setup <<EOF2
shards = 3
EOF2
results() {
	sql "SELECT name || ' ' || status || ' ' || runs || ' ' || failures FROM test_results
		WHERE job_id = $1 AND variant = 'patched' ORDER BY id"
}
signatures() { sql "SELECT kind || ' ' || title FROM signatures WHERE job_id = $1 ORDER BY kind, title"; }

# --- stock 6.1, one guest and three -------------------------------------
one=$(bb job add --bug 9370 --none 2>/dev/null)
BUGBRIDGE_RUNNER_SHARDS=1 run_once one.log
three=$(bb job add --bug 9370 --none 2>/dev/null)
run_once three.log
log=$(job_field $three log_dir)/patched-console-all.log
is "three guests booted" "$(grep -c '^\[bugbridge: shard [0-9] of 3, bbsuite.tests=' "$log")" "3"
is "one guest booted for the other" \
	"$(grep -c '^\[bugbridge: shard' "$(job_field $one log_dir)/patched-console-all.log")" "0"
is "the same verdict" "$(job_field $three "verdict || ' ' || fault")" \
	"$(job_field $one "verdict || ' ' || fault")"
is "the same tests, in the same order, with the same runs" "$(results $three)" "$(results $one)"
is "every test of the suite is there" "$(results $three | wc -l)" "$(scenario_tests | wc -l)"
is "the same signatures" "$(signatures $three)" "$(signatures $one)"
is "sr-capacity ran in one shard" "$(grep -cE '^\[bugbridge: shard .*[=,]sr-capacity(,|\])' "$log")" "1"
like "its failure fails the job, with its diagnostics" "$(job_field $three verdict_detail)" \
	"sr-capacity: failed 3/3 \(kernel log: .*attempt to access beyond end of device"
like "and it was re-run in its shard's boot" "$(cat "$log")" "# rerun sr-capacity 2/2: not ok"

# --- reach over shards --------------------------------------------------
p=$BB_SRC/tests/data/runner/reach-two-tests.patch
r1=$(bb job add --bug 9370 --patch "$p" 2>/dev/null)
BUGBRIDGE_RUNNER_SHARDS=1 run_once reach1.log
r3=$(bb job add --bug 9370 --patch "$p" 2>/dev/null)
run_once reach3.log
is "one guest reached both changed lines" "$(job_field $r1 "reach_reached || '/' || reach_changed")" "2/2"
is "three guests too" "$(job_field $r3 "reach_reached || '/' || reach_changed")" "2/2"
like "their counters were added up" "$(cat "$TMP/reach3.log")" \
	"gcov: [0-9]+ files of 3 shards, [1-9][0-9]* of them added to another shard's counters"

# --- a panic in one shard -----------------------------------------------
pn=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/runner/panic-in-sr-capacity.patch" 2>/dev/null)
run_once panic.log
is "the verdict is the patch's panic" "$(job_field $pn "verdict || ' ' || fault")" "panic patch"
# one guest would panic in sr-capacity first (its eighth test): the same panic
like "the detail quotes sr-capacity's panic, as one guest's" "$(job_field $pn verdict_detail)" \
	"^kernel panic during boot all: .*bugbridge test: sr_done would shrink the disc to 0 sectors"
is "sr-capacity never reported" \
	"$(sql "SELECT status || ': ' || diagnostics FROM test_results WHERE job_id = $pn
		AND name = 'sr-capacity'")" "fail: kernel crashed before the test reported"
check "the other shards' tests reported" \
	test "$(sql "SELECT count(*) FROM test_results WHERE job_id = $pn AND status = 'pass'")" -gt 0
like "the panic is a signature" \
	"$(sql "SELECT title FROM signatures WHERE job_id = $pn AND kind = 'panic'")" \
	"sr_done would shrink the disc to 0 sectors"

done_testing
