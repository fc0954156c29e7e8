#!/bin/sh
# Fault survival: bugbridged killed with SIGKILL at random points of its
# cycles (polling, posting comments and field updates, sending a digest),
# 20 times in a row with restarts; and `bugbridge db migrate` killed the same
# way.  Afterwards: every comment and update landed exactly once, every
# digest arrived under one Message-ID, and the database passes
# PRAGMA integrity_check.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
. "$(dirname "$0")/lib/digest-lib.sh"

ROUNDS=${FAULT_ROUNDS:-20}
plan 9

# count_marker_line BUG MARKER: comments on BUG with a line that is MARKER.
count_marker_line() {
	curl -s "$STANDIN_URL/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"].splitlines()
          for c in list(d["bugs"].values())[0]["comments"]))' "$2"
}

# random_ms MAX: a random number of milliseconds below MAX.
random_ms() { echo $(( $(od -An -N2 -tu2 /dev/urandom) % $1 )); }
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }

standin_start || { not_ok "bz-standin starts"; exit 1; }
smtp_start || { not_ok "the SMTP server starts"; exit 1; }
tracker_config "$TMP/bb.conf" <<EOF2
watch_bugs = 9370
poll_interval = 1
timeout = 1
retries = 1
[web]
listen = 127.0.0.1:$(free_port)
[smtp]
url = smtp://127.0.0.1:$SMTP_PORT
to = linux-scsi@vger.kernel.org
timeout = 1
backoff = 1
[digest]
every = daily
hour = 0
EOF2
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1

# A result comment is queued before each round, so every round has a write
# in flight; the tracker answers each request 600 ms after committing it, so
# many kills land between the post and its bookkeeping.  Three field updates
# wait from the start.
queue_result() {	# queue_result JOB
	bug=$((9370 + $1 % 3))
	sql "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES ('comment', $bug,
		$1, 'bugbridge-result: job $1', 'Result of job $1.' || char(10) || char(10) ||
		'bugbridge-result: job $1' || char(10))"
}
for bug in 9370 9371 9372; do
	sql "INSERT INTO outbox (kind, bug_id, marker, payload) VALUES ('update', $bug,
		'bugbridge-state: bug $bug t', '{\"whiteboard\": \"[bugbridge: reproduced]\"}')"
done
standin_ctl delay "ms=600&count=100000&commit_first=1"

i=0
while [ $i -lt "$ROUNDS" ]; do
	i=$((i + 1))
	queue_result $i
	"$BB_BUILD/bugbridged" --config "$TMP/bb.conf" >>"$TMP/bbd.log" 2>&1 &
	pid=$!
	sleep_ms "$(random_ms 4000)"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
standin_ctl reset
ok "bugbridged killed with SIGKILL $ROUNDS times at random points"
diag "during the kills: $(sql "SELECT group_concat(state || '=' || n, ' ') FROM
	(SELECT state, count(*) n FROM outbox GROUP BY state)")"

# Let the survivors finish: rows left 'sending' are checked after the
# tracker timeout, mail rows after their lease.
tries=0
while [ $tries -lt 20 ]; do
	bbd --once --config "$TMP/bb.conf" >>"$TMP/settle.log" 2>&1
	left=$(sql "SELECT count(*) FROM outbox WHERE state IN ('pending', 'sending')")
	[ "$left" = 0 ] && break
	sleep 1
	tries=$((tries + 1))
done
is "every write is settled" "$left" 0
diag "kills that landed between a post and its bookkeeping (found on the tracker afterwards):" \
	"$(cat "$TMP/bbd.log" "$TMP/settle.log" | grep -c 'already landed')"
is "none failed" "$(sql "SELECT count(*) FROM outbox WHERE state NOT IN ('sent')")" 0

dups=""
missing=""
for job in $(seq 1 "$ROUNDS"); do
	bug=$(sql "SELECT bug_id FROM outbox WHERE job_id = $job")
	c=$(count_marker_line "$bug" "bugbridge-result: job $job")
	[ "$c" = 1 ] || { [ "$c" = 0 ] && missing="$missing $job" || dups="$dups $job($c)"; }
done
is "no result comment posted twice" "$dups" ""
is "no result comment lost" "$missing" ""
wb=$(for bug in 9370 9371 9372; do
	curl -s "$STANDIN_URL/rest/bug/$bug?include_fields=whiteboard" | python3 -c '
import json, sys; print(json.load(sys.stdin)["bugs"][0]["whiteboard"])'; done | sort -u)
is "every field update landed" "$wb" "[bugbridge: reproduced]"

digests=$(sql "SELECT count(*) FROM digests")
ids=$(grep -h '^Message-ID:' "$MAILDIR"/new/* "$MAILDIR"/cur/* 2>/dev/null | sort -u | wc -l)
is "each digest arrived, under one Message-ID each ($digests recorded)" "$ids" "$digests"
is "the database passes PRAGMA integrity_check" "$(sql 'PRAGMA integrity_check')" ok

# Migrations killed part-way: the next run completes them.
bad=""
i=0
while [ $i -lt "$ROUNDS" ]; do
	i=$((i + 1))
	rm -f "$TMP/m.db" "$TMP/m.db-wal" "$TMP/m.db-shm"
	BUGBRIDGE_DB_PATH=$TMP/m.db "$BB_BUILD/bugbridge" db migrate >/dev/null 2>&1 &
	pid=$!
	sleep_ms "$(random_ms 40)"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	BUGBRIDGE_DB_PATH=$TMP/m.db "$BB_BUILD/bugbridge" db migrate >/dev/null 2>&1 || bad="$bad round$i:migrate"
	[ "$(sqlite3 "$TMP/m.db" 'PRAGMA integrity_check')" = ok ] || bad="$bad round$i:integrity"
	[ "$(sqlite3 "$TMP/m.db" .schema | md5sum)" = "$(sql .schema | md5sum)" ] || bad="$bad round$i:schema"
done
is "migrations killed at random points complete on the next run, intact" "$bad" ""
