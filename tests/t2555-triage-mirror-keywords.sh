#!/bin/sh
# [triage] mirror = whiteboard, keywords on a tracker whose admin has not
# created the bugbridge-* keywords (the stock seed has regression, patch,
# needinfo).  Bugzilla refuses a whole update naming an unknown keyword
# (code 51, nothing stored: recording 71), so bugbridge checks the keywords
# at start-up, says which are missing, and sends updates without them: the
# whiteboard still lands.  When the check could not tell, the refusal itself
# teaches it.  The overview lists what the tracker refused.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
plan 14

standin_start || { not_ok "bz-standin starts"; exit 1; }
B=$STANDIN_URL
field() {
	curl -s "$B/rest/bug/$1?include_fields=$2" | python3 -c '
import json, sys
v = json.load(sys.stdin)["bugs"][0][sys.argv[1]]
print(", ".join(sorted(v)) if isinstance(v, list) else v)' "$2"
}

# The stand-in refuses like Bugzilla 5.2: 404, code 51, and the whiteboard
# of the same update is not stored either.
out=$(curl -s -X PUT -H 'Content-Type: application/json' "$B/rest/bug/9371" \
	-d "{\"api_key\": \"$BOT_KEY\", \"whiteboard\": \"wb\", \"keywords\": {\"add\": [\"bugbridge-new\"]}}")
like "the stand-in refuses an unknown keyword with code 51" "$out" \
	"\"code\": *51.*|There is no keyword named 'bugbridge-new'"
is "and stores nothing of that update" "$(field 9371 whiteboard)" ""

tracker_config "$TMP/bb.conf" <<EOF2
watch_bugs = 9370
retries = 0
[triage]
mirror = whiteboard, keywords
[digest]
every = never
EOF2
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
cycle() { bbd --once >>"$TMP/$1.log" 2>&1 || echo "$1: bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
finish() {	# JOB VERDICT CHANGE BASELINE-STATUS PATCHED-STATUS
	sql "UPDATE jobs SET state = 'done', verdict = '$2', change = '$3', accel = 'kvm'
		WHERE id = $1;
	INSERT INTO test_results (job_id, variant, name, status) VALUES
		($1, 'baseline', 'sr-capacity', '$4'), ($1, 'patched', 'sr-capacity', '$5');"
}

bb db migrate >/dev/null 2>&1
cycle start
like "start-up names the missing keywords" "$(cat "$TMP/start.log")" \
	"warn.*mirror: \[triage\] mirror has keywords, but the tracker has no keyword bugbridge-new, bugbridge-needs-repro, .*bugbridge-duplicate"
is "and remembers them" "$(sql "SELECT keywords_missing LIKE 'bugbridge-new,%' FROM tracker_state")" 1

# Known at start-up: the update goes without its keywords.
job=$(sql "SELECT id FROM jobs WHERE bug_id = 9370 AND state = 'queued' ORDER BY id LIMIT 1")
finish "$job" fail FAIL-\>FAIL fail fail
cycle known
is "the whiteboard is set although the keywords are missing" "$(field 9370 whiteboard)" \
	"[bugbridge: reproduced]"
is "the bug's keywords are untouched" "$(field 9370 keywords)" "regression"
is "the write is sent, with the refused part noted" \
	"$(sql "SELECT state, refused FROM outbox WHERE bug_id = 9370 AND kind = 'update'")" \
	"sent|keywords: the tracker has no keyword bugbridge-new, bugbridge-needs-repro, bugbridge-reproduced, bugbridge-fix-candidate, bugbridge-fix-verified, bugbridge-not-reproducible, bugbridge-duplicate"

# The check could not tell (the tracker failed that one request): the
# refusal (code 51) teaches it, and the rest of the update is sent again.
sql "UPDATE tracker_state SET keywords_missing = NULL"
sql "INSERT INTO jobs (bug_id, candidate_id, kind, with_baseline, state)
	SELECT 9370, candidate_id, 'test', 1, 'queued' FROM jobs WHERE id = $job"
finish "$(sql "SELECT MAX(id) FROM jobs")" pass FAIL-\>PASS fail pass
standin_ctl fail "count=1&status=500"
cycle refused
like "the failed check is a warning" "$(cat "$TMP/refused.log")" "warn.*mirror: cannot read the tracker's keywords"
like "the refusal is logged, and the rest goes" "$(cat "$TMP/refused.log")" \
	"outbox: update for bug 9370 .* goes without its keywords: keywords: PUT /rest/bug/9370: There is no keyword named 'bugbridge-fix-candidate'"
is "the whiteboard follows the state" "$(field 9370 whiteboard)" "[bugbridge: fix-candidate]"
like "the tracker's words are remembered" "$(sql "SELECT keywords_missing FROM tracker_state")" \
	"There is no keyword named 'bugbridge-fix-candidate'"

# The overview shows both writes and why.
port=$(free_port)
cat >>"$TMP/bb.conf" <<EOF2
[web]
listen = 127.0.0.1:$port
[tracker]
poll_interval = 3600
EOF2
bg bbd "$BB_BUILD/bugbridged"
wait_port "$port" 20
page=$(curl -s "http://127.0.0.1:$port/" | tr '\n' ' ')
like "the overview lists the refused part of each write" "$page" \
	'Writes the tracker refused.*href="/bug/9370">9370</a></td><td>update \(bugbridge-state: bug 9370 fix-candidate job 2\)</td><td>sent in part</td><td>keywords: PUT /rest/bug/9370: There is no keyword named &#39;bugbridge-fix-candidate&#39;.*href="/bug/9370".*reproduced job 1.*sent in part'
like "and says updates go without the keywords" "$page" \
	'mirror has keywords, but the tracker lacks some, so updates go without them: bugbridge-new, '
is "every cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
