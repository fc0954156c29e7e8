#!/bin/sh
# [runner] backend = lava against a real LAVA 2023.01 lab (lava-lib.sh): the
# sr-sense-valid fix with a baseline boots in the lab, FAIL->PASS, with the
# same per-test results as the same job booted locally; the baseline is
# stock 6.1 through LAVA and fails naming sr-capacity.  The worker fetched
# what it booted from bugbridged's /artifacts/<token>/ (withdrawn after),
# the job page links the LAVA jobs, and the guest had no network: the QEMU
# command line in the LAVA log says -nic none and no -net nic.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/lava-lib.sh"
runner_require
lava_require

plan 17
lava_up || { echo "Bail out! no LAVA lab"; exit 1; }
lava_runner_up </dev/null

id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the patched kernel passes in the lab" "$(job_field $id verdict)" "pass"
is "the job's change is FAIL->PASS" "$(job_field $id change)" "FAIL->PASS"
is "sr-capacity: FAIL->PASS" \
	"$(sql "SELECT change FROM test_results WHERE job_id = $id AND variant = 'patched'
		AND name = 'sr-capacity'")" "FAIL->PASS"
like "stock 6.1 through LAVA fails naming sr-capacity" \
	"$(job_field $id verdict_detail | tr '\n' ' ')" \
	"baseline: fail: .*sr-capacity: failed 3/3"
is "every boot (patched, baseline, any re-run) became a LAVA job that ran" \
	"$(sql "SELECT count(DISTINCT variant) = 2 AND count(*) = sum(state = 'Finished'
		AND outcome = 'ran' AND url LIKE '$LAVA/scheduler/job/%')
		FROM lava_jobs WHERE job_id = $id")" "1"
is "on the lab's QEMU device" \
	"$(sql "SELECT DISTINCT device FROM lava_jobs WHERE job_id = $id")" "$LAVA_DEVICE"
lid=$(sql "SELECT lava_id FROM lava_jobs WHERE job_id = $id AND variant = 'patched' AND boot = 'all'")
is "LAVA agrees the job is complete" "$(lava_json "jobs/$lid/" 'd["health"]')" "Complete"
# (the contrast to t3630's private jobs: a public bug's is anyone's to read)
is "a public bug's LAVA job is public: an anonymous visitor reads it" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$LAVA/api/v0.2/jobs/$lid/")" "200"
like "the worker fetched the kernel from bugbridged's artifacts" \
	"$(lava_api "jobs/$lid/logs/" | grep -m1 -o "http://127.0.0.1:$WEB_PORT/artifacts/[0-9a-f]*/bzImage")" \
	"^http://127.0.0.1:$WEB_PORT/artifacts/[0-9a-f]{64}/bzImage$"
is "and the token was withdrawn when the boots ended" "$(sql "SELECT count(*) FROM artifacts")" "0"
cmd=$(grep -m1 -o 'Boot command: [^"]*' "$(job_field $id log_dir)/patched-lava-all.log")
like "the LAVA log has the guest's QEMU command line, with -nic none" "$cmd" \
	"qemu-system-x86_64 .* -nic none .*-no-reboot"
unlike "and no network device" "$cmd" "-net nic|-netdev|-net user"
like "the console came back from the LAVA log" \
	"$(cat "$(job_field $id log_dir)/patched-console-all.log")" "# bbsuite exit status"
like "the job page links the LAVA job" \
	"$(curl -s "http://127.0.0.1:$WEB_PORT/job/$id")" "href=\"$LAVA/scheduler/job/$lid\""

# the same job booted locally gives the same results, test by test
id2=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline 2>/dev/null)
BUGBRIDGE_RUNNER_BACKEND=local run_once runner-local.log
is "locally too: FAIL->PASS" "$(job_field $id2 change)" "FAIL->PASS"
results() {
	sql "SELECT variant, name, status, change FROM test_results WHERE job_id = $1
		ORDER BY variant, name"
}
is "the same per-test results through LAVA as locally" "$(results $id)" "$(results $id2)"

done_testing
