#!/bin/sh
# Fault survival: the tracker goes away while bugbridged has writes to post,
# stays down for a while (shortened: FAULT_DOWN seconds instead of ten
# minutes, with short timeouts and backoff), then comes back on the same
# address with its data.  Every pending write lands exactly once, in order
# per bug, and the service never stopped.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"

DOWN=${FAULT_DOWN:-12}
plan 8

standin_start || { not_ok "bz-standin starts"; exit 1; }
tracker_config "$TMP/bb.conf" <<EOF2
watch_bugs = 9370
poll_interval = 1
timeout = 2
connect_timeout = 1
retries = 1
[web]
listen = 127.0.0.1:$(free_port)
[digest]
every = never
EOF2
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
bbd --once --config "$TMP/bb.conf" >"$TMP/first.log" 2>&1
is "a first cycle against the live tracker works" "$?" 0

# The tracker dies; then six results are queued, three per bug.
kill "$PID_standin"; wait "$PID_standin" 2>/dev/null
for job in 1 2 3 4 5 6; do
	bug=$((9370 + job % 2))
	sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('comment', $bug,
		$job, 'bugbridge-result: job $job', 'Result of job $job.' || char(10) || char(10) ||
		'bugbridge-result: job $job' || char(10))"
done
bg bbd "$BB_BUILD/bugbridged" --config "$TMP/bb.conf"
sleep "$DOWN"
kill -0 "$PID_bbd" 2>/dev/null
is "bugbridged keeps running while the tracker is down for ${DOWN}s" "$?" 0
is "nothing was lost or given up while it was down" \
	"$(sql "SELECT count(*) FROM outbox WHERE state IN ('pending', 'sending')")" 6
like "the failures are logged and retried" "$(cat "$TMP/bbd.log")" "outbox: .*(retry|again|backoff|connect)"

# The tracker comes back, same address, same data.
bg standin2 "$BB_BUILD/bz-standin" --listen "127.0.0.1:$STANDIN_PORT" --db "$TMP/standin.db"
wait_port "$STANDIN_PORT"
i=0
while [ $i -lt 90 ]; do
	[ "$(sql "SELECT count(*) FROM outbox WHERE state = 'sent'")" = 6 ] && break
	sleep 1; i=$((i + 1))
done
is "every pending write landed after the tracker came back" \
	"$(sql "SELECT count(*) FROM outbox WHERE state = 'sent'")" 6

# order_of BUG: the job numbers of our result comments on BUG, in comment order.
order_of() {
	curl -s "$STANDIN_URL/rest/bug/$1/comment" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
for c in list(d["bugs"].values())[0]["comments"]:
    for l in c["text"].splitlines():
        m = re.fullmatch(r"bugbridge-result: job (\d+)", l)
        if m: print(m.group(1))' | tr '\n' ' '
}
is "bug 9371 got its results once each, in order" "$(order_of 9371)" "1 3 5 "
is "bug 9370 got its results once each, in order" "$(order_of 9370)" "2 4 6 "
kill -TERM "$PID_bbd"; wait "$PID_bbd"
is "bugbridged still stops cleanly" "$?" 0
