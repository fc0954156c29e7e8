#!/bin/sh
# A pass that never executed the patch is no evidence for it (issue 15).
# Bug 9370's patch "passes" (FAIL->PASS against a failing baseline), but the
# runner measured that none of its 3 changed lines ran (reach 0 of 3): the
# comment leads with "PASS (not reached)" and names the function, the bug
# stays reproduced (never fix-candidate) and no re-run is queued.  Then the
# same patch with its lines reached ("reached 3 of 3 changed lines") does
# become fix-candidate, and its comment says so.  The runner's rows are
# written with sqlite3 (t3020 and t3530 measure reach on real kernels).
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 15

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
comment_text() {
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"]["9370"]["comments"] if sys.argv[1] in c["text"]))' "$1"
}

check "database migrates" bb db migrate
cycle
job=$(sql "SELECT id FROM jobs WHERE bug_id = 9370 AND state = 'queued' ORDER BY id LIMIT 1")
like "the poller queued a job for 9370's patch" "$job" '^[0-9]+$'
is "state starts as new" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" new


check "database migrates" bb db migrate
cycle
job=$(sql "SELECT id FROM jobs WHERE bug_id = 9370 AND state = 'queued' ORDER BY id LIMIT 1")
like "the poller queued a job for 9370's patch" "$job" '^[0-9]+$'

# finish JOB REACHED: a failing baseline, a passing patch, 3 changed lines
finish() {
	if [ "$2" = 0 ]; then
		reach="the patch''s change in sd_pr_clear (sd.c) was never executed: a pass says nothing about it (0 of 3 changed lines reached)"
	else
		reach="reached $2 of 3 changed lines"
	fi
	sql "UPDATE jobs SET state = 'done', verdict = 'pass', change = 'FAIL->PASS', accel = 'tcg',
		kernel_version = '6.1.158', started_at = 1796256000, finished_at = 1796256432,
		reach_changed = 3, reach_reached = $2, reach = '$reach'
		WHERE id = $1;
	INSERT INTO test_results (job_id, variant, name, status, change) VALUES
		($1, 'baseline', 'sr-capacity', 'fail', NULL),
		($1, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS');"
}

finish "$job" 0
cycle
is "a pass that reached none of the patch's lines leaves the bug reproduced" \
	"$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" reproduced
is "and queues no re-run of it as a fix" "$(sql "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'")" 0
text=$(comment_text "bugbridge-result: job $job")
like "the comment leads with PASS (not reached)" "$text" \
	"^bugbridge PASS \\(not reached\\): the suite never executed the lines this patch changes"
like "and names the function that never ran" "$text" \
	"^Reach: +the patch's change in sd_pr_clear \\(sd.c\\) was never executed: a pass says nothing about it"
unlike "it never claims the patch fixes anything" "$text" "fixes sr-capacity"
is "the job's JSON says not reached" \
	"$(bb job show "$job" --json | python3 -c 'import json,sys; r=json.load(sys.stdin)["reach"]; print(r["changed_lines"], r["reached_lines"], r["not_reached"])')" \
	"3 0 True"

# The same patch again, its lines reached this time: now it is a fix candidate.
job2=$(bb job add --bug 9370 --none 2>/dev/null)
sql "UPDATE jobs SET candidate_id = (SELECT candidate_id FROM jobs WHERE id = $job) WHERE id = $job2"
finish "$job2" 3
cycle
is "a reached pass makes the bug fix-candidate" \
	"$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" fix-candidate
text=$(comment_text "bugbridge-result: job $job2")
like "its comment leads with the fix" "$text" "^bugbridge FAIL->PASS: this patch fixes sr-capacity"
like "and says every changed line ran" "$text" "^Reach: +reached 3 of 3 changed lines$"
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
