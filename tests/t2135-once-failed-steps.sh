#!/bin/sh
# `bugbridged --once` names every step of the cycle that failed (issue 31:
# it named only "poll" when the outbox's post had failed too), so that cron
# and systemd say what to look at: the stand-in failing every request (the
# poll and the post), failing only comment POSTs (the post alone), and a
# comment the tracker refuses for good (the post, once); a cycle where all
# worked exits 0 and says nothing.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 9

standin_start || { diag "$(cat "$TMP/standin.log")"; exit 1; }
tracker_config "$TMP/bb.conf" <<EOF
watch_bugs = 9371
retries = 0
[digest]
every = never
EOF
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
# once NAME: one cycle, its exit status; what it says besides the log in $TMP/NAME.err
once() {
	bbd --once --config "$TMP/bb.conf" 2>"$TMP/$1.log" >/dev/null
	_rc=$?
	grep -v '^[0-9-]*T[0-9:]*Z ' "$TMP/$1.log" >"$TMP/$1.err"
	echo $_rc
}

queue_result 9371 1
standin_ctl fail "count=1000&status=500"
is "the tracker failing every request: exit 1" "$(once both)" 1
is "  naming the poll and the post" "$(cat "$TMP/both.err")" \
	"bugbridged: the cycle failed: poll, post (see the log)"
is "  the result still waits" "$(sql "SELECT state FROM outbox WHERE job_id = 1")" pending

standin_ctl reset
standin_ctl fail "count=1000&status=500&comments=1"
sql "UPDATE outbox SET next_try = 0"
is "only comment POSTs failing: exit 1" "$(once post)" 1
is "  naming the post alone" "$(cat "$TMP/post.err")" "bugbridged: the cycle failed: post (see the log)"

standin_ctl reset
sql "UPDATE outbox SET next_try = 0"
queue_result 999999 2
is "a comment on a bug the tracker does not have: exit 1" "$(once gone)" 1
is "  naming the post" "$(cat "$TMP/gone.err")" "bugbridged: the cycle failed: post (see the log)"
is "  the other result landed" "$(sql "SELECT group_concat(job_id || ':' || state, ' ') FROM outbox")" \
	"1:sent 2:failed"

is "a cycle where everything worked: exit 0, nothing said" "$(once fine) $(cat "$TMP/fine.err")" "0 "
done_testing
