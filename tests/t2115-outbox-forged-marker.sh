#!/bin/sh
# A marker typed by someone else does not pass for ours (issue 23).  With
# [tracker] login unset, the poster asks the tracker whose the key is
# before it trusts a marker: GET /rest/whoami where the tracker has it
# (5.1+, BMO), else, on 5.0 and 5.2 (the stand-in by default), GET
# /rest/valid_login about the author of each comment that carries the
# marker.  Attack: user@example.com posts "bugbridge-result: job N" on the
# bug before the bot's first POST fails (500, nothing stored), so the
# retry's marker check finds that comment; the bot must still post its
# result, exactly once.  And the check still finds the bot's own comment
# behind a newer forged one, so a crash after the POST does not double it.
# What the tracker said (whoami's answer, or the account valid_login said
# yes about) is remembered for the key, so it is asked once.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
plan 16

standin_start || { not_ok "bz-standin starts"; exit 1; }
tracker_config "$TMP/bb.conf" <<EOF
timeout = 2
EOF
sed -i '/^login = /d' "$TMP/bb.conf"
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1

forge() {	# forge BUG JOB: user@example.com types job JOB's marker on BUG
	as_user "/rest/bug/$1/comment" \
		"{\"comment\": \"not the bot\\n\\nbugbridge-result: job $2\\n\"}" >/dev/null
}
# by_bot BUG MARKER: comments by bot@example.com on BUG that carry MARKER
by_bot() {
	curl -s "$STANDIN_URL/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"] and c["creator"] == "bot@example.com"
          for c in list(d["bugs"].values())[0]["comments"]))' "$2"
}
bot_comment_id() {
	curl -s "$STANDIN_URL/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([c["id"] for c in list(d["bugs"].values())[0]["comments"]
       if sys.argv[1] in c["text"] and c["creator"] == "bot@example.com"][-1])' "$2"
}

# 1. Bugzilla 5.2 (no whoami): the forged marker is there before the bot's POST fails
forge 9370 1
queue_result 9370 1
standin_ctl reset
standin_ctl fail "count=1&status=500"
bbd --once --config "$TMP/bb.conf" >"$TMP/run1.log" 2>&1
is "the run exits 0" "$?" 0
is "the bot posted its result once, despite the forged marker" \
	"$(by_bot 9370 'bugbridge-result: job 1')" 1
is "the row is sent, with the bot's comment id" \
	"$(sql "SELECT state, remote_id FROM outbox WHERE job_id = 1")" \
	"sent|$(bot_comment_id 9370 'bugbridge-result: job 1')"
reqs=$(standin_requests | tr '\n' ' ')
like "it asked whoami (5.2: 404), then valid_login about the forger" "$reqs" \
	"GET /rest/whoami\?api_key=REDACTED 404 GET /rest/valid_login\?login=user@example.com&api_key=REDACTED 200 POST /rest/bug/9370/comment 201"
like "the log names the forged comment" "$(cat "$TMP/run1.log")" \
	"carries 'bugbridge-result: job 1' but is not ours"

# 2. 5.2: the bot's comment landed (crash after the POST), then a forged one
queue_result 9371 2
BUGBRIDGE_TEST_CRASH_AFTER_POST=1 bbd --once --config "$TMP/bb.conf" >"$TMP/run2.log" 2>&1
is "the crash hook killed bugbridged after the POST" "$?" 9
forge 9371 2
sleep 3.2
standin_ctl reset
bbd --once --config "$TMP/bb.conf" >"$TMP/run2b.log" 2>&1
is "behind the newer forged marker the bot's own is found: still one" \
	"$(by_bot 9371 'bugbridge-result: job 2')" 1
is "the row is sent with the bot's comment id" \
	"$(sql "SELECT state, remote_id FROM outbox WHERE job_id = 2")" \
	"sent|$(bot_comment_id 9371 'bugbridge-result: job 2')"
like "valid_login: the forger's is not ours, the bot's is" "$(standin_requests | tr '\n' ' ')" \
	"valid_login\?login=user@example.com&api_key=REDACTED 200 GET /rest/valid_login\?login=bot@example.com&api_key=REDACTED 200"

# 3. A tracker with whoami (5.1+, BMO), on a fresh database: one question, no valid_login
standin_ctl reset
standin_ctl whoami "on=1"
is "the stand-in now answers whoami with the key's login" \
	"$(curl -s "$STANDIN_URL/rest/whoami?api_key=$BOT_KEY" | python3 -c '
import json, sys; print(json.load(sys.stdin)["name"])')" bot@example.com
rm -f "$TMP/bugbridge.db"*
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
forge 9372 3
queue_result 9372 3
curl -s -X DELETE "$STANDIN_URL/__control/requests" >/dev/null
standin_ctl fail "count=1&status=500"
bbd --once --config "$TMP/bb.conf" >"$TMP/run3.log" 2>&1
is "with whoami too the bot posted its result once" "$(by_bot 9372 'bugbridge-result: job 3')" 1
reqs=$(standin_requests | tr '\n' ' ')
like "it asked whoami (200)" "$reqs" "GET /rest/bug/9372/comment\\?api_key=REDACTED 200 GET /rest/whoami\\?api_key=REDACTED 200"
unlike "and no valid_login" "$reqs" "valid_login"

# 4. What the tracker said is remembered: the next check asks nothing about accounts
forge 9370 4
queue_result 9370 4
curl -s -X DELETE "$STANDIN_URL/__control/requests" >/dev/null
standin_ctl fail "count=1&status=500"
bbd --once --config "$TMP/bb.conf" >"$TMP/run4.log" 2>&1
is "the next result too is posted once" "$(by_bot 9370 'bugbridge-result: job 4')" 1
unlike "without asking whoami or valid_login again" "$(standin_requests | tr '\n' ' ')" "whoami|valid_login"

is "nothing failed or is held" "$(sql "SELECT count(*) FROM outbox WHERE state != 'sent'")" 0
done_testing
