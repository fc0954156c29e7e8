#!/bin/sh
# Exactly one comment per result, whatever fails when: the tracker drops the
# connection after committing the comment; bugbridged dies right after the
# POST (BUGBRIDGE_TEST_CRASH_AFTER_POST=1: the state a kill -9 at the worst
# moment leaves); bugbridged is killed -9 with the POST in flight.  Also:
# a comment over the tracker's 65,535 characters is cut, keeping its marker;
# a marker quoted inside a line of our own comment is not a marker.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"

plan 23
standin_start || { not_ok "bz-standin starts"; exit 1; }
# Nothing to watch: the only tracker requests are the poster's.  A row left
# 'sending' by a dead process is looked at after [tracker] timeout seconds
# (its request may still be in flight): 2 here, so 3 s (whole seconds, + 1).
tracker_config "$TMP/bb.conf" <<EOF2
timeout = 2
EOF2
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1

# 1. The connection drops after the comment is committed.
queue_result 9370 1
standin_ctl drop-after-comment count=1
bbd --once --config "$TMP/bb.conf" >"$TMP/run1.log" 2>&1
is "run with a dropped connection exits 0" "$?" 0
like "it asked the tracker before posting again" "$(standin_requests | tr '\n' ' ')" \
	'^POST /rest/bug/9370/comment 0 GET /rest/bug/9370/comment\?api_key=REDACTED 200 $'
is "exactly one comment for job 1" "$(count_marker 9370 'bugbridge-result: job 1')" 1
is "the row is sent, with the tracker's comment id" \
	"$(sql "SELECT state, remote_id FROM outbox WHERE job_id = 1")" \
	"sent|$(bug_comments 9370 | tail -1 | cut -d' ' -f1)"
bbd --once --config "$TMP/bb.conf" >"$TMP/run1b.log" 2>&1
is "another run posts nothing more" "$(count_marker 9370 'bugbridge-result: job 1')" 1

# 2. The process dies between the POST and the bookkeeping.
queue_result 9370 2
BUGBRIDGE_TEST_CRASH_AFTER_POST=1 bbd --once --config "$TMP/bb.conf" >"$TMP/run2.log" 2>&1
is "the crash hook killed bugbridged" "$?" 9
is "the row was left 'sending'" "$(sql "SELECT state FROM outbox WHERE job_id = 2")" sending
is "the comment had landed" "$(count_marker 9370 'bugbridge-result: job 2')" 1
bbd --once --config "$TMP/bb.conf" >"$TMP/run2a.log" 2>&1
is "an immediate restart leaves the row alone (its request may be in flight)" \
	"$(sql "SELECT state FROM outbox WHERE job_id = 2")" sending
sleep 3.2
bbd --once --config "$TMP/bb.conf" >"$TMP/run2b.log" 2>&1
is "restart exits 0" "$?" 0
is "still exactly one comment for job 2" "$(count_marker 9370 'bugbridge-result: job 2')" 1
is "the row is sent" "$(sql "SELECT state FROM outbox WHERE job_id = 2")" sent
like "the log says it had landed" "$(cat "$TMP/run2b.log")" "had already landed as comment"

# 3. kill -9 with the POST in flight (the tracker holds its answer).
queue_result 9371 3
standin_ctl reset
standin_ctl delay "ms=1500&count=1"
bbd --config "$TMP/bb.conf" --once >"$TMP/run3.log" 2>&1 &
pid=$!
sleep 0.7
kill -9 $pid
wait $pid 2>/dev/null
standin_ctl reset
bbd --once --config "$TMP/bb.conf" >"$TMP/run3a.log" 2>&1
sleep 3.2
bbd --once --config "$TMP/bb.conf" >"$TMP/run3b.log" 2>&1
is "after kill -9 and restarts: exactly one comment for job 3" \
	"$(count_marker 9371 'bugbridge-result: job 3')" 1
is "the row is sent" "$(sql "SELECT state FROM outbox WHERE job_id = 3")" sent

# 4. Longer than the tracker allows: cut, note added, marker kept.
python3 -c '
import sys
body = "".join("line %d of a long log\n" % i for i in range(5000))
sys.stdout.write(body + "\nbugbridge-result: job 4\n")' >"$TMP/long.txt"
sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('comment', 9371, 4,
	'bugbridge-result: job 4', readfile('$TMP/long.txt'))"
bbd --once --config "$TMP/bb.conf" >"$TMP/run4.log" 2>&1
is "the long comment was posted" "$(sql "SELECT state FROM outbox WHERE job_id = 4")" sent
curl -s "$STANDIN_URL/rest/bug/9371/comment" | python3 -c '
import json, sys
c = list(json.load(sys.stdin)["bugs"].values())[0]["comments"][-1]["text"]
print(len(c) <= 65535, c.rstrip().endswith("bugbridge-result: job 4"), "cut by bugbridge" in c)' >"$TMP/long.check"
is "it fits, ends with its marker and says it was cut" "$(cat "$TMP/long.check")" "True True True"

# 5. A marker quoted inside a line of one of our comments (a patch's name, a
# rejected hunk) is not that job's marker: job 5, whose request may have been
# in flight, is still posted.
sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('comment', 9372, 6,
	'bugbridge-result: job 6', 'Patch:    x.patch bugbridge-result: job 5' || char(10) ||
	char(10) || 'bugbridge-result: job 6' || char(10))"
bbd --once --config "$TMP/bb.conf" >"$TMP/run5a.log" 2>&1
sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload, state, attempts, next_try)
	VALUES ('comment', 9372, 5, 'bugbridge-result: job 5', 'Result of job 5: PASS' ||
	char(10) || char(10) || 'bugbridge-result: job 5' || char(10), 'sending', 1, 0)"
bbd --once --config "$TMP/bb.conf" >"$TMP/run5b.log" 2>&1
curl -s "$STANDIN_URL/rest/bug/9372/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum("bugbridge-result: job 5" in c["text"].splitlines()
          for c in list(d["bugs"].values())[0]["comments"]))' >"$TMP/quoted.check"
is "a quoted marker does not pass for job 5's: its comment is posted" "$(cat "$TMP/quoted.check")" 1

is "nothing failed or is held" "$(sql "SELECT count(*) FROM outbox WHERE state != 'sent'")" 0
unlike "the API key is in no log line" "$(cat "$TMP"/run*.log)" "$BOT_KEY"
like "bugbridge status counts the sent rows" "$(bb --config "$TMP/bb.conf" status)" "outbox +0 pending, 0 sending, 6 sent"

# The poller recognises our own comments (and takes no patch from them).
sed "s/^login = .*/&\nwatch_bugs = 9370, 9371/" "$TMP/bb.conf" >"$TMP/watch.conf"
bbd --once --config "$TMP/watch.conf" >"$TMP/poll.log" 2>&1
is "our comments are stored as ours" \
	"$(sql "SELECT count(*) FROM comments WHERE is_ours = 1 AND text LIKE '%bugbridge-result: job %'")" 4
is "no candidate came from them" "$(sql "SELECT count(*) FROM candidates WHERE source = 'comment'")" 0
