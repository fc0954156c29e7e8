#!/bin/sh
# Commands in tracker comments, against the stand-in tracker: an allowed
# account's "bugbridge: test 1" queues one job, once; another account's
# "bugbridge: retest" and "bugbridge: test 1" are refused with one comment,
# once; a quoted command ("> bugbridge: test 1") does nothing;
# "bugbridge: ignore" stops the bug.
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 16

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
ADMIN=admkey0123456789abcdefghijABCDEFGHIJ0000
USER=usrkey0123456789abcdefghijABCDEFGHIJ0002
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
watch_bugs = 9370
[triage]
allow_commands = admin@example.com
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"

# one service cycle; a non-zero exit (a sanitizer report, a crash) is remembered
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
say() {	# KEY TEXT: a comment on 9370
	python3 -c 'import json,sys; print(json.dumps({"api_key": sys.argv[1], "comment": sys.argv[2]}))' \
		"$1" "$2" | curl -s -H 'Content-Type: application/json' -d @- "$B/rest/bug/9370/comment" \
		>/dev/null
}
count_comments() {
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"] for c in d["bugs"]["9370"]["comments"]))' "$1"
}
jobs_of_attachment() {
	sql "SELECT COUNT(*) FROM jobs j JOIN candidates c ON c.id = j.candidate_id
		WHERE c.bug_id = 9370 AND c.source = 'attachment' AND c.source_id = 1"
}

bb db migrate >/dev/null 2>&1
cycle
before=$(jobs_of_attachment)
is "the poller queued attachment 1 once by itself" "$before" 1

say "$ADMIN" "Please try it again.
bugbridge: test 1"
say "$USER" "bugbridge: retest"
say "$USER" "bugbridge: test 1"
say "$ADMIN" "Earlier someone wrote:
> bugbridge: test 1
and that was fine."
cycle

is "the allowed command queued one more job of attachment 1" "$(jobs_of_attachment)" 2
is "that job runs the baseline too" \
	"$(sql "SELECT with_baseline FROM jobs ORDER BY id DESC LIMIT 1")" 1
is "the other account got one refusal on the tracker for its two tries" \
	"$(count_comments "bugbridge-refused: bug 9370 user@example.com")" 1
like "the refusal names the account" "$(curl -s "$B/rest/bug/9370/comment")" \
	"user@example.com is not allowed to give bugbridge commands"
like "the log says who asked for what, in words" "$(cat "$TMP/bbd.log")" \
	"commands: admin@example.com asks bugbridge to test attachment 1 on bug 9370 \(comment [0-9]+\)"
like "and whose command was refused" "$(cat "$TMP/bbd.log")" \
	"commands: user@example.com may not give bugbridge commands \(comment [0-9]+ on bug 9370\); refused"
is "no retest was queued for it" "$(sql "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'")" 0
is "every human comment is marked handled" \
	"$(sql "SELECT COUNT(*) FROM comments WHERE handled = 0 AND is_ours = 0 AND author <> 'bot@example.com'")" 0

cycle
cycle
is "commands run once: no new job on later cycles" "$(jobs_of_attachment)" 2
is "and no second refusal" "$(count_comments "bugbridge-refused:")" 1
is "our own comments are never taken as commands" \
	"$(sql "SELECT COUNT(*) FROM comments WHERE is_ours = 1 AND handled = 1")" 0

say "$ADMIN" "bugbridge: ignore"
cycle
like "the log says the bug is ignored, and who asked" "$(cat "$TMP/bbd.log")" \
	"commands: admin@example.com asks bugbridge to ignore bug 9370 from now on \\(comment [0-9]+\\)"
is "ignore marks the bug" "$(sql "SELECT ignored FROM bugs WHERE id = 9370")" 1
is "and cancels its queued jobs" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE bug_id = 9370 AND state = 'queued'")" 0
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
