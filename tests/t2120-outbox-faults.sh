#!/bin/sh
# The poster under tracker faults: 500s for the next 5 requests (retried,
# lands once); a bad API key (400, code 306) and no login (401, code 410)
# hold the whole queue with the tracker's message until the configuration
# is fixed, then every held write lands once and in order; a bug that is
# gone fails its write for good without stopping the others; field updates.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"

plan 33
standin_start || { not_ok "bz-standin starts"; exit 1; }
tracker_config "$TMP/bb.conf" </dev/null
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1

queue() {	# queue BUG JOB
	sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('comment', $1, $2,
		'bugbridge-result: job $2', 'Result of job $2' || char(10) || 'bugbridge-result: job $2')"
}
run() {		# run NAME [CONFIG]
	bbd --once --config "${2:-$TMP/bb.conf}" >"$TMP/$1.log" 2>&1
}

# 500s for the next 5 requests.
queue 9370 1
standin_ctl fail "count=5&status=500"
run r500
is "run through five 500s exits 0" "$?" 0
is "the comment landed exactly once" "$(count_marker 9370 'bugbridge-result: job 1')" 1
is "the row is sent" "$(sql "SELECT state FROM outbox WHERE job_id = 1")" sent

# A POST that times out may still land: it is checked, not blindly re-sent.
sed "s/^timeout = .*/timeout = 1/" "$TMP/bb.conf" >"$TMP/slow.conf"
queue 9370 8
standin_ctl delay "ms=2000&count=1"
run slow1 "$TMP/slow.conf"
like "the timeout is logged" "$(cat "$TMP/slow1.log")" "timed out; checking again in 2s"
run slow2 "$TMP/slow.conf"
is "an immediate rerun does not post again" "$(sql "SELECT state, attempts FROM outbox WHERE job_id = 8")" "pending|1"
sleep 3.2
run slow3 "$TMP/slow.conf"
is "later: the comment that landed late is found, exactly one" \
	"$(count_marker 9370 'bugbridge-result: job 8')" 1
is "and the row is sent" "$(sql "SELECT state FROM outbox WHERE job_id = 8")" sent

# A bad API key: held, with the tracker's words; nothing is dropped.
sed "s/^api_key = .*/api_key = badkey0123456789abcdefghijABCDEFGHIJ9999/" "$TMP/bb.conf" >"$TMP/bad.conf"
queue 9371 2
queue 9371 3
run bad1 "$TMP/bad.conf"
is "a run with a bad key exits 1 (cron and systemd see the refused key)" "$?" 1
like "the log quotes the tracker" "$(cat "$TMP/bad1.log")" \
	"error.*outbox: the tracker refused our credentials: POST /rest/bug/9371/comment: The API key you specified is invalid.*code 306, HTTP 400"
is "the first write is held" "$(sql "SELECT state FROM outbox WHERE job_id = 2")" held
is "the second write waits behind it" "$(sql "SELECT state, attempts FROM outbox WHERE job_id = 3")" "pending|0"
like "bugbridge status shows the hold and why" "$(bb --config "$TMP/bad.conf" status)" \
	"comment for bug 9371: .*The API key you specified is invalid"
standin_ctl reset
run bad2 "$TMP/bad.conf"
is "while the key stays bad, nothing is sent" "$(standin_requests | grep -c POST)" 0
unlike "the bad key is in no log line" "$(cat "$TMP"/bad*.log)" badkey0123
run fixed
is "with the key fixed the run exits 0" "$?" 0
is "job 2's comment landed once" "$(count_marker 9371 'bugbridge-result: job 2')" 1
is "job 3's comment landed once" "$(count_marker 9371 'bugbridge-result: job 3')" 1
is "in order" "$(sql "SELECT (SELECT remote_id FROM outbox WHERE job_id = 2) < (SELECT remote_id FROM outbox WHERE job_id = 3)")" 1

# No credentials at all: 401, code 410.
sed "s/^api_key = .*/api_key =/" "$TMP/bb.conf" >"$TMP/anon.conf"
queue 9372 4
run anon "$TMP/anon.conf"
like "no login: the log quotes the tracker" "$(cat "$TMP/anon.log")" \
	"refused our credentials: .*You must log in before using this part of Bugzilla.*code 410, HTTP 401"
is "the write is held" "$(sql "SELECT state FROM outbox WHERE job_id = 4")" held
run anon-fixed
is "after the fix it landed once" "$(count_marker 9372 'bugbridge-result: job 4')" 1
is "and the hold is gone" "$(sql "SELECT hold_config IS NULL FROM tracker_state")" 1

# A bug that does not exist: failed for good, the next write still goes.
queue 999999 5
queue 9372 6
run gone
is "the write to a missing bug failed with the tracker's message" \
	"$(sql "SELECT state, last_error FROM outbox WHERE job_id = 5")" \
	"failed|POST /rest/bug/999999/comment: Bug #999999 does not exist. (code 101, HTTP 404)"
is "the next write was posted" "$(count_marker 9372 'bugbridge-result: job 6')" 1

# A field update (PUT): whiteboard and a keyword.
sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('update', 9371, 7,
	'bugbridge-state: bug 9371 reproduced',
	'{\"whiteboard\": \"bugbridge:reproduced\", \"keywords\": {\"add\": [\"patch\"]}}')"
run update
is "the update was sent" "$(sql "SELECT state FROM outbox WHERE job_id = 7")" sent
is "the tracker has the new fields" "$(curl -s "$STANDIN_URL/rest/bug/9371" | python3 -c '
import json, sys; b = json.load(sys.stdin)["bugs"][0]; print(b["whiteboard"], ",".join(b["keywords"]))')" \
	"bugbridge:reproduced patch"

# 429 with Retry-After on a read: honoured, then it goes through.
sed "s/^login = .*/&\nwatch_bugs = 9370/" "$TMP/bb.conf" >"$TMP/watch.conf"
standin_ctl fail "count=1&status=429&retry_after=1"
run r429 "$TMP/watch.conf"
like "a 429 is retried after its Retry-After" "$(cat "$TMP/r429.log")" "retry 1 in 1000 ms"
is "and the poll stored the bug" "$(sql "SELECT count(*) FROM bugs WHERE id = 9370")" 1

# A comment queued without its marker gets it (so a retry can find it), and a
# URL given with its /rest part still works.
sed "s|^url = .*|url = $STANDIN_URL/rest/|" "$TMP/bb.conf" >"$TMP/rest.conf"
sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('comment', 9371, 9,
	'bugbridge-result: job 9', 'no marker in here')"
run nomarker "$TMP/rest.conf"
is "the comment went out through a .../rest/ URL" "$(sql "SELECT state FROM outbox WHERE job_id = 9")" sent
is "carrying its marker" "$(count_marker 9371 'bugbridge-result: job 9')" 1

# A URL pointing at the wrong place on the tracker's web server (a 404 page
# that is not Bugzilla's JSON) is a configuration problem: the queue is held,
# no row fails.
sed "s|^url = .*|url = $STANDIN_URL/bugzilla|" "$TMP/bb.conf" >"$TMP/wrong.conf"
queue 9371 10
run wrongurl "$TMP/wrong.conf"
is "the write is held, not failed" "$(sql "SELECT state FROM outbox WHERE job_id = 10")" held
like "the log says to fix the url" "$(cat "$TMP/wrongurl.log")" "url does not lead to Bugzilla's REST API: POST /rest/bug/9371/comment: HTTP 404 .*until \[tracker\] url is fixed"
run righturl
is "with the url fixed it lands once" "$(count_marker 9371 'bugbridge-result: job 10')" 1
