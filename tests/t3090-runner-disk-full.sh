#!/bin/sh
# The disk fills while the runner writes a log: [runner] log_dir is a 64 KiB
# tmpfs, full to the last byte, which only the runner's mount namespace sees.
# The runner says which log it could not write and why; the job goes back to
# the queue as infra-error (our fault, never the patch's) with nothing
# reported; the database stays intact.  Once there is room again the job is
# retried and gets the patch's own verdict.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require
seed=$(ls "$BB_SHARED"/seeds/001-*.patch 2>/dev/null | head -1)
[ -n "$seed" ] || skip_all "no seed patch in $BB_SHARED/seeds"
[ "$(id -u)" = 0 ] || skip_all "mounting a tmpfs needs root"
unshare -m true 2>/dev/null || skip_all "cannot make a mount namespace (unshare -m)"

plan 14
logvol="$TMP/logvol"
mkdir -p "$logvol"
runner_setup <<EOF2
log_dir = $logvol
max_attempts = 3
retry_delay = 0
EOF2

# The seed patch does not apply to 6.1: a fast job, with logs to write.
id=$(bb job add --bug 9370 --patch "$seed" 2>/dev/null)

# The script is fixed; the paths are its arguments.
unshare -m --propagation private sh -c '
	mount -t tmpfs -o size=64k bbfull "$1" || exit 99
	dd if=/dev/zero of="$1/filler" bs=4096 2>/dev/null
	shift
	exec "$@"' sh "$logvol" "$BB_BUILD/bugbridge-runner" --once >"$TMP/runner1.log" 2>&1
rc=$?
check "the runner ran (the tmpfs was mounted)" [ "$rc" != 99 ]
like "the runner says which log it could not write and why" \
	"$(cat "$TMP/runner1.log")" "cannot write the log '$logvol/[^']*\.log': No space left on device"
is "the job is queued again" "$(job_field $id state)" "queued"
is "the failed attempt counts" "$(job_field $id attempts)" "1"
like "its progress says why" "$(job_field $id progress)" \
	"^infra-error on attempt 1; next try at [0-9:]+ UTC: cannot write the log .*No space left on device"
is "no verdict was given" "$(job_field $id "coalesce(verdict, 'none')")" "none"
is "no test results were recorded" \
	"$(sql "SELECT count(*) FROM test_results WHERE job_id = $id")" "0"
like "the stage that hit the full disk failed with the reason" \
	"$(sql "SELECT status || ': ' || detail FROM job_stages WHERE job_id = $id AND attempt = 1
		AND status = 'failed'")" "^failed: .*No space left on device"
like "job show tells the user" "$(bb job show $id 2>&1)" "No space left on device"
is "the database is intact" "$(sql "PRAGMA integrity_check")" "ok"

# Room again (the runner's tmpfs went with its namespace): the retry, at
# once (retry_delay = 0; the default waits a minute, t2590).
run_once runner2.log
is "the retry gives the patch's own verdict" "$(job_field $id verdict)" "apply-failed"
is "the job is done" "$(job_field $id state)" "done"
check "its apply log was written in full" grep -q "does not apply" \
	"$(job_field $id log_dir)/patched-apply.log"
is "the database is still intact" "$(sql "PRAGMA integrity_check")" "ok"

done_testing
