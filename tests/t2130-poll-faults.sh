#!/bin/sh
# Poll failures leave the database as it was and say clearly what failed:
# malformed JSON, a body cut off mid-way, a body over [tracker]
# max_response, a tracker slower than [tracker] timeout, and URLs that are
# not a Bugzilla (an HTTP file server; a server with other JSON).  After
# the fault clears, the pending change lands.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"

plan 23
standin_start || { not_ok "bz-standin starts"; exit 1; }
sleep 1.1
tracker_config "$TMP/bb.conf" <<EOF2
watch_bugs = 9370
retries = 2
timeout = 1
max_response = 262144
EOF2
bbd --once --config "$TMP/bb.conf" >"$TMP/first.log" 2>&1
is "first poll stored bug 9370" "$(sql "SELECT count(*) FROM bugs")" 1

# A change waits on the tracker while it misbehaves.
as_user /rest/bug/9370/comment '{"comment": "still happens on 6.1"}' >/dev/null
data_dump >"$TMP/before.dump"

fault() {	# fault NAME CONTROL-VERB ARGS PATTERN
	standin_ctl reset
	standin_ctl "$2" "$3"
	bbd --once --config "$TMP/bb.conf" >"$TMP/$1.log" 2>&1
	is "$1: bugbridged --once exits 1 (a failed cycle is visible to cron)" "$?" 1
	like "$1: the log says what went wrong" "$(grep 'error poll:' "$TMP/$1.log")" "$4"
	data_dump >"$TMP/$1.dump"
	check "$1: the database is unchanged" cmp "$TMP/before.dump" "$TMP/$1.dump"
}
fault malformed malformed count=20 \
	'GET /rest/bug: answer is not JSON.*nothing stored, cursor kept'
fault truncated truncate count=20 \
	"GET /rest/bug: cannot GET 'http://127.0.0.1:[0-9]+/rest/bug\?.*api_key=REDACTED': connection closed before the whole answer arrived"
fault oversized oversize "count=20&bytes=1000000" \
	'response larger than 262144 bytes \(see max_response\)'
fault slow delay "ms=2500&count=20" 'timed out \(connect [0-9]+s, total 1s\) after 3 attempts'
like "the last error is kept for bugbridge status" "$(bb --config "$TMP/bb.conf" status)" \
	"last error: GET /rest/bug: .*timed out"

standin_ctl reset
bbd --once --config "$TMP/bb.conf" >"$TMP/recovered.log" 2>&1
is "once the tracker behaves, the change lands" "$(sql "SELECT count(*) FROM comments")" 4
is "and the error is cleared" "$(sql "SELECT last_error IS NULL FROM poll_state")" 1

# Not a Bugzilla: a plain file server, and one that serves other JSON.
mkdir -p "$TMP/www/rest"
echo '{"name": "some other service"}' >"$TMP/www/rest/version"
port=$(free_port)
(cd "$TMP/www" && exec python3 -m http.server --bind 127.0.0.1 "$port") >"$TMP/www.out" 2>&1 &
BB_PIDS="$BB_PIDS $!"
wait_port "$port"
data_dump >"$TMP/before2.dump"
sed "s|^url = .*|url = http://127.0.0.1:$port/|" "$TMP/bb.conf" >"$TMP/json.conf"
bbd --once --config "$TMP/json.conf" >"$TMP/json.log" 2>&1
like "other JSON: the error says it is not a Bugzilla" "$(grep 'error poll:' "$TMP/json.log")" \
	"GET /rest/version: version: expected string, got null; is 'http://127.0.0.1:$port' a Bugzilla 5 base URL\?"
data_dump >"$TMP/json.dump"
check "other JSON: the database is unchanged" cmp "$TMP/before2.dump" "$TMP/json.dump"
rm "$TMP/www/rest/version"
bbd --once --config "$TMP/json.conf" >"$TMP/files.log" 2>&1
like "file server: the error says it is not a Bugzilla" "$(grep 'error poll:' "$TMP/files.log")" \
	"GET /rest/version: HTTP 404 \(text/html.*\), not a Bugzilla error object; is 'http://127.0.0.1:$port' a Bugzilla 5 base URL\?"
data_dump >"$TMP/files.dump"
check "file server: the database is unchanged" cmp "$TMP/before2.dump" "$TMP/files.dump"
unlike "the API key is in no log line" "$(cat "$TMP"/*.log)" "$BOT_KEY"
like "the file server was asked" "$(cat "$TMP/www.out")" "GET /rest/version"
unlike "but never given the key: a URL not known as a Bugzilla never sees it" \
	"$(cat "$TMP/www.out")" "$BOT_KEY"
