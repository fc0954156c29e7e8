#!/bin/sh
# A late answer from bugbridged is never served to the next request (issue
# 23).  The dashboard asks bugbridged for a log over one socket and gives
# up after 30 s; an answer that comes after that used to sit in the socket
# and be read by the next request of the same type.  Here a token holder
# asks for the log of a private bug's job, bugbridged's answer is held back
# (the test hook BUGBRIDGE_TEST_PRIVSEP_DELAY: bugbridged sleeps before it
# answers that one request, as it would behind a slow disk), the dashboard
# gives up on it, and then an anonymous caller asks for a public job's log:
# it must get that log, never the private one that arrives meanwhile.
. "$(dirname "$0")/lib/test-lib.sh"
plan 7

TOKEN="tok-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
PORT=$(free_port)
WEB=http://127.0.0.1:$PORT
write_config "$TMP/c.conf" <<EOF
[tracker]
url = http://127.0.0.1:9
poll_interval = 3600
private_bugs = test
[web]
listen = 127.0.0.1:$PORT
token = $TOKEN
[digest]
every = never
EOF
bb --config "$TMP/c.conf" db migrate >/dev/null 2>&1
sql "INSERT INTO bugs (id, product, component, summary, groups) VALUES
	(9373, 'Linux', 'SCSI', 'embargoed', 'kernel-security'),
	(9370, 'Linux', 'SCSI', 'public bug', '');
INSERT INTO jobs (id, bug_id, state, verdict, log_dir, reported) VALUES
	(1, 9373, 'done', 'fail', '$TMP/logs/1', 1), (2, 9370, 'done', 'fail', '$TMP/logs/2', 1)"
mkdir -p "$TMP/logs/1" "$TMP/logs/2"
echo PRIVATE-LOG-MARK >"$TMP/logs/1/patched-build.log"
echo PUBLIC-LOG-MARK >"$TMP/logs/2/patched-build.log"
chmod -R a+rX "$TMP"

BUGBRIDGE_TEST_PRIVSEP_DELAY=1:40 bg bbd bbd --config "$TMP/c.conf"
wait_port "$PORT" 20 || { echo "Bail out! bugbridged did not start"; exit 1; }
is "before: anyone gets the public job's log" "$(curl -s "$WEB/job/2/patched-build.log")" \
	PUBLIC-LOG-MARK

# A: the token holder's request for the private log; bugbridged holds its answer
curl -s -o "$TMP/a.out" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
	"$WEB/job/1/patched-build.log" >"$TMP/a.code" &
a=$!
i=0
while [ $i -lt 900 ] && ! grep -q "gave no answer in time" "$TMP/bbd.log"; do
	sleep 0.1; i=$((i + 1))
done
like "the dashboard gave up on request A" "$(cat "$TMP/bbd.log")" "gave no answer in time"
wait $a
is "A got an error, not a log" "$(cat "$TMP/a.code")" 500

# B: anonymous, for the public job's log, while A's answer is still on its way
b=$(curl -s "$WEB/job/2/patched-build.log")
is "B (anonymous) gets the public log, not A's late answer" "$b" PUBLIC-LOG-MARK
like "the late answer was dropped" "$(cat "$TMP/bbd.log")" "dropped a late answer"
unlike "no private log reached anyone without the token" \
	"$b $(cat "$TMP/a.out"; curl -s "$WEB/job/2/patched-build.log"; curl -s "$WEB/job/1/patched-build.log")" \
	PRIVATE-LOG-MARK
is "afterwards the token holder gets the private log again" \
	"$(curl -s -H "Authorization: Bearer $TOKEN" "$WEB/job/1/patched-build.log")" PRIVATE-LOG-MARK
done_testing
