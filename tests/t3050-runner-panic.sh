#!/bin/sh
# A patch that panics at boot: verdict panic, with the panic as a signature
# and no test passing.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 5
runner_setup </dev/null

id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/runner/panic-at-boot.patch" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the verdict is panic" "$(job_field $id verdict)" "panic"
like "the detail quotes the panic" "$(job_field $id verdict_detail)" \
	"Kernel panic - not syncing: bugbridge test: this kernel panics before /init"
is "the panic is a signature" \
	"$(sql "SELECT count(*) FROM signatures WHERE job_id = $id AND kind = 'panic'")" "1"
is "no test passed" \
	"$(sql "SELECT count(*) FROM test_results WHERE job_id = $id AND status = 'pass'")" "0"

done_testing
