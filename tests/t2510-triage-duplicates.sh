#!/bin/sh
# Duplicates against the stand-in tracker: bugs 9370 and 9371 are polled;
# their jobs (written here as the runner would) show the same normalised
# signature on the unpatched baseline kernel.  bugbridged links them once
# each: 9371 becomes a likely duplicate of 9370, each bug gets one comment
# naming the other, and more jobs with the same signature add nothing.  A
# bug whose job shows a different signature is not linked, and neither is
# one whose PATCHED kernel prints the signature (a patch that prints a
# forged Oops must not make another bug a duplicate, or close it with
# set_status), nor a private bug (a link would name it publicly).
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 14

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
port=$(free_port)
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$BB_SRC/tests/data/tracker-seed.json"
wait_port "$port" || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=http://127.0.0.1:$port

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT
login = bot@example.com
watch_bugs = 9370, 9371, 9372
[triage]
mirror = whiteboard
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"

# one service cycle; a non-zero exit (a sanitizer report, a crash) is remembered
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
count_comments() {	# BUG TEXT
	curl -s "$B/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[2] in c["text"] for c in d["bugs"][sys.argv[1]]["comments"]))' "$1" "$2"
}
# failed_job ID BUG HASH VARIANT [CHANGE]: a finished job of a patch (candidate
# ID) whose VARIANT kernel (baseline: unpatched; patched) oopsed
failed_job() {
	sql "INSERT INTO candidates (id, bug_id, source, kind, name, sha256, content) VALUES
		($1, $2, 'manual', 'patch', 'p$1.patch', 'sha-$1', 'diff');
	INSERT INTO jobs (id, bug_id, candidate_id, kind, state, verdict, change, with_baseline)
		VALUES ($1, $2, $1, 'test', 'done', 'fail', ${5:-NULL}, 1);
	INSERT INTO signatures (job_id, variant, kind, title, frames, hash) VALUES
		($1, '$4', 'oops', 'BUG: kernel NULL pointer dereference in sr_done',
		 'sr_done' || char(10) || 'scsi_finish_command', '$3');"
}

bb db migrate >/dev/null 2>&1
cycle
is "three bugs polled" "$(sql "SELECT COUNT(*) FROM bugs")" 3
sql "UPDATE jobs SET state = 'cancelled'"	# the poller's own patch jobs play no part here
SIG=5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e
failed_job 100 9370 "$SIG" baseline
failed_job 101 9371 "$SIG" baseline
failed_job 102 9372 "0ther000000000000000000000000000000000000000000000000000000000" baseline
# the attack: 9372's patch prints 9370's signature (no regression claimed)
failed_job 103 9372 "$SIG" patched "'FAIL->FAIL'"
failed_job 106 9372 "$SIG" patched "'PASS->FAIL'"
cycle

is "9371 is a likely duplicate of 9370" \
	"$(sql "SELECT triage_state || ' of ' || duplicate_of FROM bugs WHERE id = 9371")" "duplicate of 9370"
is "9370 itself is not a duplicate" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" reproduced
is "9371 got one comment naming 9370" "$(count_comments 9371 "bugbridge-dup: 9371 9370")" 1
is "9370 got one comment naming 9371" "$(count_comments 9370 "bugbridge-dup: 9370 9371")" 1
like "the comment says which bug and why" \
	"$(curl -s "$B/rest/bug/9371/comment")" "likely a duplicate of bug 9370.*same signature"
is "9372 (another baseline signature; the same one printed by its patched kernel) is not linked" \
	"$(sql "SELECT COALESCE(duplicate_of, 'none') FROM bugs WHERE id = 9372")" none
is "9372 got no link comment" "$(count_comments 9372 "bugbridge-dup:")" 0

# The same signature again, on both bugs: nothing new.
failed_job 104 9371 "$SIG" baseline
failed_job 105 9370 "$SIG" baseline
cycle
cycle
is "still one link comment on 9371" "$(count_comments 9371 "bugbridge-dup:")" 1
is "still one link comment on 9370" "$(count_comments 9370 "bugbridge-dup:")" 1
is "two link rows in the outbox, both sent" \
	"$(sql "SELECT COUNT(*) || ' ' || group_concat(DISTINCT state) FROM outbox WHERE marker LIKE 'bugbridge-dup:%'")" "2 sent"
is "the whiteboard of 9371 says duplicate" \
	"$(curl -s "$B/rest/bug/9371?include_fields=whiteboard" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0]["whiteboard"])')" \
	"[bugbridge: duplicate]"
is "nothing failed in the outbox" "$(sql "SELECT COUNT(*) FROM outbox WHERE state <> 'sent'")" 0
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
