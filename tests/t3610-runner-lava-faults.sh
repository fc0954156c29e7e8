#!/bin/sh
# backend = lava when the lab fails, and when the guest does (a real LAVA
# 2023.01 lab, lava-lib.sh; the files come from a directory "the operator
# serves", [lava] artifacts_dir, as file:// URLs):
#  - LAVA's API down when a boot is to be submitted: the boot waits and is
#    submitted once LAVA is back;
#  - the worker offline until the LAVA job's queue_timeout: infra-error, the
#    job is tried again, and with the worker back gets its real verdict
#    (stock 6.1: fail, naming sr-capacity);
#  - a kernel that panics: verdict panic, not infra-error (LAVA itself calls
#    the job Incomplete, "Connection closed");
#  - a bugbridge job cancelled while its guest runs cancels the LAVA job;
#  - LAVA takes a job but its answer is lost (a proxy drops it): the runner
#    finds the job by its name and follows it; LAVA never gets a second one.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/lava-lib.sh"
runner_require
lava_require

plan 19
lava_up || { echo "Bail out! no LAVA lab"; exit 1; }
mkdir -p "$TMP/art"
runner_setup <<EOF
backend = lava
boot_timeout = 200
retry_delay = 0
[lava]
url = $LAVA
token_file = $LAVA_TOKEN_FILE
poll_interval = 1
artifacts_dir = $TMP/art
artifacts_url = file://$TMP/art
EOF

# wait_for SECONDS COMMAND...: until COMMAND prints something non-empty.
wait_for() {
	_n=$(($1 * 2)); shift
	while [ $_n -gt 0 ] && [ -z "$("$@" 2>/dev/null)" ]; do sleep 0.5; _n=$((_n - 1)); done
	"$@"
}
lava_row() { sql "SELECT $2 FROM lava_jobs WHERE job_id = $1 ${3:-} ORDER BY id DESC LIMIT 1"; }

# 1. LAVA down at submit, then the worker offline, then a real verdict
id=$(bb job add --bug 9370 --none 2>/dev/null)
lava_web_stop
lava_worker_stop
BUGBRIDGE_LAVA_QUEUE_TIMEOUT=15 bg runner1 bbrunner --job "$id"
is "with LAVA's API down the boot waits, unsubmitted" \
	"$(wait_for 900 lava_row $id "state || '/' || ifnull(lava_id, 'none')")" "waiting/none"
sleep 3
is "and keeps waiting" "$(lava_row $id "state || '/' || ifnull(lava_id, 'none')")" \
	"waiting/none"
lava_web_start
like "LAVA back: the boot is submitted" "$(wait_for 60 lava_row $id lava_id "AND lava_id > 0")" \
	"^[0-9]+$"
wait "$PID_runner1"
lid=$(lava_row $id lava_id)
is "the attempt is an infra-error, the job queued again" \
	"$(job_field $id "state || '/' || attempts")" "queued/1"
like "naming the wait for a device" "$(sql "SELECT detail FROM job_stages WHERE job_id = $id
	AND status = 'failed'")" "waited 15 s for a qemu device"
lava_worker_start
run_once runner2.log
is "no worker until queue_timeout: the first LAVA job was cancelled" \
	"$(lava_json "jobs/$lid/" 'd["state"] + "/" + d["health"]')" "Finished/Canceled"
is "with the worker back: the real verdict" "$(job_field $id verdict)" "fail"
like "stock 6.1 through LAVA fails naming sr-capacity" "$(job_field $id verdict_detail)" \
	"sr-capacity: failed 3/3"
is "each boot was one LAVA job, submitted once" \
	"$(sql "SELECT count(*) = count(DISTINCT lava_id) FROM lava_jobs WHERE job_id = $id")" "1"

# 2. a kernel that panics
id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/runner/panic-at-boot.patch" 2>/dev/null)
run_once runner3.log
is "a panic through LAVA: verdict panic" "$(job_field $id verdict)" "panic"
like "quoting the panic" "$(job_field $id verdict_detail)" "Kernel panic - not syncing"
is "though LAVA calls its job Incomplete" \
	"$(lava_json "jobs/$(lava_row $id lava_id)/" 'd["health"]')" "Incomplete"

# 3. cancelled while the guest runs
id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/runner/hang-at-boot.patch" 2>/dev/null)
bg runner4 bbrunner --job "$id"
lid=$(wait_for 900 lava_row $id lava_id "AND state = 'Running'")
bb job cancel "$id" >/dev/null 2>&1
wait "$PID_runner4"
wait_for 30 lava_json "jobs/$lid/" '"yes" if d["state"] == "Finished" else ""' >/dev/null
is "the bugbridge job is cancelled" "$(job_field $id state)" "cancelled"
is "and so is its LAVA job" "$(lava_json "jobs/$lid/" 'd["health"]')" "Canceled"
is "the files published for it are gone" "$(ls "$TMP/art" | wc -l)" "0"

# 4. the answer to the submission lost on its way back
pport=$(free_port)
bg proxy python3 "$BB_SRC/tests/lib/answer_drop_proxy.py" "$pport" "$LAVA" "$TMP/drop-next-post"
wait_port "$pport" 20
touch "$TMP/drop-next-post"
id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" 2>/dev/null)
# The lab is one per machine and keeps its jobs across test runs, so an
# earlier run's job of the same number may be there: count only newer ones.
# The answer dropped is the first boot's (all); the default controller's
# boot (hba-virtio) is a LAVA job of its own.
mine="jobs/?description__startswith=bugbridge%20job%20$id%20patched%20all%20&limit=1000"
before=$(lava_json "$mine" 'max([j["id"] for j in d["results"]] or [0])')
export BUGBRIDGE_LAVA_URL="http://127.0.0.1:$pport"
run_once runner5.log
unset BUGBRIDGE_LAVA_URL
like "LAVA took the job, and its answer was dropped" "$(cat "$TMP/drop-next-post.done" 2>/dev/null)" \
	"^dropped"
is "the bugbridge job still gets its verdict" "$(job_field $id verdict)" "pass"
is "LAVA has one job for that boot, not two" \
	"$(lava_json "$mine" "sum(1 for j in d['results'] if j['id'] > ${before:-0})")" "1"
is "and it is the one the runner followed" "$(lava_row $id lava_id "AND boot = 'all'")" \
	"$(lava_json "$mine" "max([j['id'] for j in d['results'] if j['id'] > ${before:-0}] or [0])")"

done_testing
