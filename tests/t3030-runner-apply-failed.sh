#!/bin/sh
# The seed patch (Ingo Molnar's 2.6.24 revert) does not apply to 6.1: the
# verdict is apply-failed, naming the patch, the file and the rejected hunk,
# and nothing is built.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require
seed=$(ls "$BB_SHARED"/seeds/001-*.patch 2>/dev/null | head -1)
[ -n "$seed" ] || skip_all "no seed patch in $BB_SHARED/seeds"

plan 9
runner_setup </dev/null

id=$(bb job add --bug 9370 --patch "$seed" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the verdict is apply-failed" "$(job_field $id verdict)" "apply-failed"
is "the patch's fault, after one run" "$(job_field $id "fault || ' ' || attempts")" "patch 1"
detail=$(job_field $id verdict_detail)
like "the detail names the patch by its own name" "$detail" "patch 1/1 '001-patch-scsi-revert-[^']*\.patch' does not apply"
like "the detail names a rejected hunk" "$detail" "hunk #[0-9]+ FAILED|can't find file|does not exist"
like "the detail shows the hunk" "$detail" "rejected hunk:|@@ "
is "nothing was built" "$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id AND stage = 'build'")" "0"
check "the apply log has the rejected hunk" grep -q "FAILED" "$(job_field $id log_dir)/patched-apply.log"
is "job show --kcidb exports it: the checkout is not valid" \
	"$(bb job show $id --kcidb | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["version"]["major"], d["checkouts"][0]["valid"])')" \
	"5 False"

done_testing
