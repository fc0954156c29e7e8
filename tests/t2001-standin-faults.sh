#!/bin/sh
# The stand-in tracker's misbehaviour switches (/__control/, see
# tests/tracker/README.md) each do what a client test relies on, its request
# log hides API keys, and it keeps its state across a restart.
. "$(dirname "$0")/lib/test-lib.sh"
plan 41

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
SEED=$BB_SRC/tests/data/tracker-seed.json

start() {
	port=$(free_port)
	bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" \
		--db "$TMP/standin.db" --seed "$SEED"
	wait_port "$port" || { diag "$(cat "$TMP/standin.log")"; return 1; }
	B=http://127.0.0.1:$port
}
ctl() { curl -s -X POST "$B/__control/$1"; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
comment() {
	curl -s -H 'Content-Type: application/json' \
		-d "{\"api_key\":\"$BOT\",\"comment\":\"$1\"}" "$B/rest/bug/9370/comment"
}
ncomments() {
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(c["text"] == sys.argv[1] for c in d["bugs"]["9370"]["comments"]))' "$1"
}

start
like "starts and says where it listens" "$(cat "$TMP/standin.log")" "^listening on 127.0.0.1:$port$"

# fail: N answers with the given status, then normal again
ctl 'fail?count=2&status=500' >/dev/null
is "fail: first request gets 500" "$(code "$B/rest/version")" 500
is "fail: second request gets 500" "$(code "$B/rest/version")" 500
is "fail: third request is answered" "$(code "$B/rest/version")" 200
ctl 'fail?count=1&status=429&retry_after=7' >/dev/null
hdrs=$(curl -s -D - -o /dev/null "$B/rest/version" | tr -d '\r')
like "fail: 429 status" "$hdrs" "^HTTP/1.1 429"
like "fail: 429 carries Retry-After" "$hdrs" "^Retry-After: 7$"
ctl 'fail?count=1&status=503' >/dev/null
is "fail: 503 status" "$(code "$B/rest/version")" 503
out=$(ctl 'fail?count=1&status=99')
like "fail: a bad status is refused" "$out" '"error"'

# fail does not process the request: a failed comment POST stores nothing
ctl 'fail?count=1&status=500' >/dev/null
comment "not-stored-by-failure" >/dev/null
is "fail: the failed POST stored no comment" "$(ncomments not-stored-by-failure)" 0

# delay: a client with a short timeout gives up; the next answer is prompt
ctl 'delay?ms=3000&count=1' >/dev/null
curl -s -o /dev/null --max-time 0.5 "$B/rest/version"; rc=$?
is "delay: a 0.5 s client times out (curl 28)" "$rc" 28
is "delay: only the armed count is delayed" "$(code --max-time 2 "$B/rest/version")" 200

# delay: by default the request waits before it is handled (a write lands
# late); with commit_first=1 it is handled at once and only the answer waits
ctl 'delay?ms=2500&count=1' >/dev/null
comment "late-landing" >/dev/null &
cpid=$!
sleep 1
is "delay: the delayed comment has not landed yet" "$(ncomments late-landing)" 0
wait "$cpid"
is "delay: it lands when the delay is over" "$(ncomments late-landing)" 1
ctl 'delay?ms=2500&count=1&commit_first=1' >/dev/null
comment "early-landing" >/dev/null &
cpid=$!
sleep 1
is "delay commit_first: the comment is stored before the answer" "$(ncomments early-landing)" 1
wait "$cpid"

# malformed: 200 with a body that is not JSON
ctl 'malformed?count=1' >/dev/null
body=$(curl -s "$B/rest/bug?id=9370")
if printf '%s' "$body" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; then
	not_ok "malformed: the body does not parse"
else ok "malformed: the body does not parse"; fi
body=$(curl -s "$B/rest/bug?id=9370")
if printf '%s' "$body" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; then
	ok "malformed: the next answer parses again"
else not_ok "malformed: the next answer parses again"; fi

# truncate: the connection closes half-way through the body
ctl 'truncate?count=1' >/dev/null
curl -s -o "$TMP/trunc" "$B/rest/bug/9370/comment"; rc=$?
full=$(curl -s "$B/rest/bug/9370/comment" | wc -c)
part=$(wc -c <"$TMP/trunc")
[ $rc -ne 0 ]; is "truncate: the client sees a transfer error (curl $rc)" "$?" 0
[ "$part" -lt "$full" ]; is "truncate: fewer bytes arrive ($part of $full)" "$?" 0

# oversize: a valid but huge body
ctl 'oversize?count=1&bytes=3000000' >/dev/null
size=$(curl -s -o "$TMP/big" -w '%{size_download}' "$B/rest/bug?id=9370")
[ "$size" -gt 3000000 ]; is "oversize: more than 3000000 bytes arrive ($size)" "$?" 0
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/big"
is "oversize: and they are valid JSON" "$?" 0

# drop-after-comment: stored, but the client hears nothing
ctl 'drop-after-comment?count=1' >/dev/null
out=$(comment "dropped-once"); rc=$?
is "drop: the client gets no answer (curl 52: empty reply)" "$rc" 52
is "drop: the answer is empty" "$out" ""
is "drop: the comment is stored exactly once" "$(ncomments dropped-once)" 1
like "drop: the next comment POST is answered" "$(comment after-drop)" '^\{"id":[0-9]+\}$'
# a failing comment POST does not use up the switch
ctl 'drop-after-comment?count=1' >/dev/null
code -H 'Content-Type: application/json' -d '{"comment":"x"}' "$B/rest/bug/9370/comment" >/dev/null
out=$(comment "dropped-later"); rc=$?
is "drop: a rejected POST (401) does not consume it" "$rc" 52

# the request log: counts requests, hides keys, skips control requests
ctl reset >/dev/null
curl -s "$B/rest/bug?id=9370&api_key=$BOT" >/dev/null
curl -s "$B/rest/bug/9370/comment?Bugzilla_api_key=$BOT&new_since=2026-01-01T00:00:00Z" >/dev/null
log=$(curl -s "$B/__control/requests")
n=$(printf '%s' "$log" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["requests"]))')
is "log: two REST requests since reset, control requests not logged" "$n" 2
like "log: method, path and status" "$log" '"method":"GET","path":"/rest/bug\?id=9370&api_key=REDACTED","status":200'
like "log: Bugzilla_api_key redacted too" "$log" 'Bugzilla_api_key=REDACTED'
unlike "log: the key itself never appears" "$log" "$BOT"

# If-None-Match with the current ETag: 304, as Bugzilla's REST server does
etag=$(curl -s -D - -o /dev/null "$B/rest/bug/9371" | tr -d '\r' | sed -n 's/^ETag: //Ip')
is "ETag match on a GET is 304" "$(code -H "If-None-Match: \"$etag\"" "$B/rest/bug/9371")" 304
is "another ETag is 200" "$(code -H 'If-None-Match: "other"' "$B/rest/bug/9371")" 200

# the query string's key wins over the body's (a bad query key is 306)
out=$(curl -s -H 'Content-Type: application/json' -d "{\"api_key\":\"$BOT\",\"comment\":\"x\"}" \
	"$B/rest/bug/9370/comment?Bugzilla_api_key=wrong")
like "a bad key in the query string beats a good one in the body" "$out" '"code":306'

# reset disarms every switch
ctl 'fail?count=5&status=500' >/dev/null
ctl reset >/dev/null
is "reset: armed failures are gone" "$(code "$B/rest/version")" 200

# touch: bugs change without a REST request (benchmarks, poll tests)
before=$(curl -s "$B/rest/bug?id=9371&include_fields=last_change_time")
sleep 1.1
out=$(ctl 'touch?first=9371&count=2&comment=poke')
like "touch: reports the bugs it changed (9371, 9372)" "$out" '"touched":2'
after=$(curl -s "$B/rest/bug?id=9371&include_fields=last_change_time")
[ "$before" != "$after" ]; is "touch: last_change_time moved ($after)" "$?" 0
is "touch: not a REST request, so not logged" \
	"$(curl -s "$B/__control/requests" | grep -c '__control')" 0

# Apache's request-line limit (8190 bytes): a huge id= list is 414, as on
# a real Bugzilla; 1000 ids fit
ids=$(python3 -c 'print(",".join(str(9000 + i) for i in range(1000)))')
is "a 6 KB request line is answered" "$(code "$B/rest/bug?include_fields=id&id=$ids")" 200
ids=$(python3 -c 'print(",".join(str(9000 + i) for i in range(2000)))')
is "a 12 KB request line is 414" "$(code "$B/rest/bug?include_fields=id&id=$ids")" 414

# SIGTERM exits 0; the state survives a restart (no re-seed)
kill -TERM "$PID_standin"; wait "$PID_standin"; rc=$?
BB_PIDS=""
is "SIGTERM exits 0" "$rc" 0
start
is "restart keeps the comments (database not re-seeded)" "$(ncomments dropped-once)" 1

"$BB_BUILD/bz-standin" --help >/dev/null; rc=$?
is "--help exits 0" "$rc" 0
done_testing
