#!/bin/sh
# A patch that breaks the build: verdict build-failed with the compiler's
# first error line; the build log is kept.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 4
runner_setup </dev/null

id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/runner/build-breaks.patch" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the verdict is build-failed" "$(job_field $id verdict)" "build-failed"
like "the detail has the compiler error" "$(job_field $id verdict_detail)" \
	"sr\.c:[0-9]+:[0-9]+: error: .bugbridge_no_such_symbol. undeclared"
check "the build log is kept" grep -q bugbridge_no_such_symbol "$(job_field $id log_dir)/patched-build.log"

done_testing
