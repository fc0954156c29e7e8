#!/bin/sh
# End to end against the stand-in tracker: bug 9370's patch is polled and
# queued; the job finishes (the runner's rows are written here with sqlite3:
# a failing baseline, a passing patched kernel); `bugbridged --once` turns it
# into fix-candidate with exactly one result comment on the tracker and the
# whiteboard set, queues the re-run; the re-run passing makes it
# fix-verified.  More cycles post nothing twice.
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 28

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
port=$(free_port)
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$BB_SRC/tests/data/tracker-seed.json"
wait_port "$port" || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=http://127.0.0.1:$port

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT
login = bot@example.com
watch_bugs = 9370
[web]
base_url = http://bugbridge.example/
[triage]
mirror = whiteboard
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"

# one service cycle; a non-zero exit (a sanitizer report, a crash) is remembered
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
# comments on 9370 whose text contains $1
count_comments() {
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"] for c in d["bugs"]["9370"]["comments"]))' "$1"
}
comment_text() {
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"]["9370"]["comments"] if sys.argv[1] in c["text"]))' "$1"
}
whiteboard() {
	curl -s "$B/rest/bug/9370?include_fields=whiteboard" | python3 -c '
import json, sys
print(json.load(sys.stdin)["bugs"][0]["whiteboard"])'
}

check "database migrates" bb db migrate
cycle
job=$(sql "SELECT id FROM jobs WHERE bug_id = 9370 AND state = 'queued' ORDER BY id LIMIT 1")
like "the poller queued a job for 9370's patch" "$job" '^[0-9]+$'
is "state starts as new" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" new

# The runner's part: a failing baseline, the patch fixes sr-capacity.
sql "UPDATE jobs SET state = 'done', verdict = 'pass', change = 'FAIL->PASS', accel = 'kvm',
	kernel_version = '6.1.158', started_at = 1796256000, finished_at = 1796256432
	WHERE id = $job;
INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	($job, 'baseline', 'sr-capacity', 'fail', NULL),
	($job, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS'),
	($job, 'baseline', 'sd-read', 'pass', NULL),
	($job, 'patched', 'sd-read', 'pass', 'PASS->PASS');
INSERT INTO signatures (job_id, variant, kind, title, frames, hash) VALUES
	($job, 'baseline', 'warning', 'attempt to access beyond end of device',
	 'sr_done' || char(10) || 'scsi_finish_command', 'e2e0000000000000000000000000000000000000000000000000000000000001');"
cycle

is "bug is fix-candidate" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" fix-candidate
is "one result comment row in the outbox" \
	"$(sql "SELECT COUNT(*) FROM outbox WHERE kind = 'comment' AND marker = 'bugbridge-result: job $job'")" 1
is "one whiteboard update row" \
	"$(sql "SELECT COUNT(*) FROM outbox WHERE kind = 'update' AND bug_id = 9370 AND payload LIKE '%whiteboard%'")" 1
is "both were posted" "$(sql "SELECT group_concat(state) FROM outbox WHERE job_id = $job")" "sent,sent"
is "the result comment arrived on the tracker exactly once" \
	"$(count_comments "bugbridge-result: job $job")" 1
text=$(comment_text "bugbridge-result: job $job")
like "comment leads with what changed" "$text" "^bugbridge FAIL->PASS: this patch fixes sr-capacity"
like "comment names the patch and its sha256" "$text" "0001-scsi-revert-get-rid-of-scsi_cmnd-done.patch"
like "comment gives kernel, version, accelerator and time" "$text" "linux-source-6.1, 6.1.158"
like "comment says KVM and the duration" "$text" "KVM, 7m12s"
like "comment shows the test that changed" "$text" "^  FAIL +PASS +sr-capacity$"
like "and counts the one that did not" "$text" "^  1 more test passes on both\\.$"
like "comment links the job page" "$text" "http://bugbridge.example/job/$job"
is "whiteboard mirrors the state" "$(whiteboard)" "[bugbridge: fix-candidate]"
retest=$(sql "SELECT id FROM jobs WHERE kind = 'retest' AND parent_id = $job AND state = 'queued'")
like "a re-run of the fix is queued" "$retest" '^[0-9]+$'

cycle
cycle
is "more cycles post no second result comment" "$(count_comments "bugbridge-result: job $job")" 1
is "and queue no second re-run" "$(sql "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'")" 1

# The re-run passes too.
sql "UPDATE jobs SET state = 'done', verdict = 'pass', accel = 'tcg' WHERE id = $retest;
INSERT INTO test_results (job_id, variant, name, status) VALUES
	($retest, 'patched', 'sr-capacity', 'pass'), ($retest, 'patched', 'sd-read', 'pass');"
cycle
is "bug is fix-verified after the re-run" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" fix-verified
is "whiteboard follows" "$(whiteboard)" "[bugbridge: fix-verified]"
is "the re-run's result comment arrived once" "$(count_comments "bugbridge-result: job $retest")" 1
text=$(comment_text "bugbridge-result: job $retest")
like "it says the fix holds on a re-run" "$text" "^bugbridge PASS again on a re-run: the fix holds"
like "and that it ran on TCG, re-running the fix's job" "$text" "^Run: +TCG \\(re-run of job $job\\)$"
like "with the same verdicts" "$text" "^All 2 tests pass, as in job $job\\.$"
status=$(curl -s "$B/rest/bug/9370?include_fields=status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0]["status"])')
is "status untouched without [triage] set_status" "$status" UNCONFIRMED
is "nothing failed in the outbox" "$(sql "SELECT COUNT(*) FROM outbox WHERE state <> 'sent'")" 0
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
