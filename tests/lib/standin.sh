# standin.sh: helpers for tests that talk to the stand-in tracker
# (tests/tracker/, built as $BB_BUILD/bz-standin).  Source after test-lib.sh.
#
#   standin_start            start it seeded from tests/data/tracker-seed.json
#   standin_ctl VERB ARGS    POST /__control/VERB?ARGS (fault switches, reset)
#   standin_requests         the request log, one "METHOD PATH STATUS" a line
#   tracker_config FILE      a bugbridge config pointing at it (extra lines on stdin)
#   data_dump                every table the poller and poster write, plus the
#                            cursor (not poll_state's timestamps and counters)
#   as_user PATH JSON        POST JSON to the stand-in as user@example.com
#   attach_as KEY BUG FILE NAME [PRIVATE]   attach a patch, print its id
#   queue_result BUG JOB     an outbox row: job JOB's result comment on BUG

BOT_KEY=botkey0123456789abcdefghijABCDEFGHIJ0001
USER_KEY=usrkey0123456789abcdefghijABCDEFGHIJ0002

standin_start() {
	STANDIN_PORT=$(free_port)
	STANDIN_URL=http://127.0.0.1:$STANDIN_PORT
	bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$STANDIN_PORT" \
		--db "$TMP/standin.db" --seed "$BB_SRC/tests/data/tracker-seed.json"
	wait_port "$STANDIN_PORT"
}

standin_ctl() {
	curl -s -X POST "$STANDIN_URL/__control/$1${2:+?$2}" >/dev/null
}

standin_requests() {
	curl -s "$STANDIN_URL/__control/requests" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["requests"]:
    print(r["method"], r["path"], r["status"])'
}

tracker_config() {
	_file=$1
	{
		echo "[tracker]"
		echo "url = $STANDIN_URL"
		echo "api_key = $BOT_KEY"
		echo "login = bot@example.com"
		echo "backoff_ms = 20"
		echo "timeout = 10"
		cat
	} | write_config "$_file"
}

data_dump() {
	sqlite3 -batch "$TMP/bugbridge.db" \
		".dump bugs comments attachments candidates jobs outbox tracker_state" \
		"SELECT 'cursor', cursor FROM poll_state"
}

as_user() {
	curl -s -X POST -H 'Content-Type: application/json' \
		"$STANDIN_URL$1?api_key=$USER_KEY" -d "$2"
}

# comment_json TEXT: a {"comment": TEXT} body, TEXT read from a file.
comment_json() {
	python3 -c 'import json, sys; print(json.dumps({"comment": open(sys.argv[1]).read()}))' "$1"
}

# bug_comments BUG: "id creator" of each comment on the stand-in, a line each.
bug_comments() {
	curl -s "$STANDIN_URL/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in list(d["bugs"].values())[0]["comments"]:
    print(c["id"], c["creator"])'
}

# count_marker BUG MARKER: how many comments on the bug carry MARKER.
count_marker() {
	curl -s "$STANDIN_URL/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"] for c in list(d["bugs"].values())[0]["comments"]))' "$2"
}

# attach_as KEY BUG FILE NAME [PRIVATE]: attach FILE to BUG on the stand-in
# as the owner of KEY, as a patch (PRIVATE: true makes it private); prints
# the attachment id.
attach_as() {
	python3 - "$STANDIN_URL" "$@" <<'PY'
import base64, json, sys, urllib.request
bz, key, bug, path, name = sys.argv[1:6]
private = len(sys.argv) > 6 and sys.argv[6] == "true"
body = {"api_key": key, "ids": [int(bug)], "file_name": name, "summary": name,
        "data": base64.b64encode(open(path, "rb").read()).decode(),
        "content_type": "text/plain", "is_patch": True, "is_private": private}
req = urllib.request.Request(bz + "/rest/bug/%s/attachment" % bug, method="POST",
                             data=json.dumps(body).encode(),
                             headers={"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(req))["ids"][0])
PY
}

queue_result() {
	sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('comment', $1, $2,
		'bugbridge-result: job $2', 'Result of job $2: PASS' || char(10) || char(10) ||
		'bugbridge-result: job $2' || char(10))"
}
