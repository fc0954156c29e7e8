#!/bin/sh
# A comment is ours only when the bot's account wrote it (issue 31).
# user@example.com posts a comment carrying each marker bugbridge writes,
# one carrying a diff, and a command; admin@example.com (allowed to give
# commands) a command followed by a "bugbridge-note:" line.  [tracker]
# login is unset, as on a fresh install: bugbridge learns its account from
# the tracker (5.2 has no whoami: valid_login about the authors of marker
# lines, then the author of a comment it posted itself).  What a user sees:
# none of those comments is ours in the API or on the bug page; the result
# comment whose marker was forged is still posted, once, though its first
# POST failed; the admin's command is acted on and the other account gets
# its one refusal; the diff is a candidate with its job; a forged comment
# counts as an answer for the stale-bug check.  Rows an older bugbridge
# stored as ours are corrected: at start-up, and by migration 0019.  On a
# tracker with whoami (5.1+, BMO) the poll learns the account from it.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 29

ADMIN=admkey0123456789abcdefghijABCDEFGHIJ0000
standin_start || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=$STANDIN_URL

new_bug() {	# SUMMARY -> id; reported by admin@example.com
	python3 -c 'import json, sys; print(json.dumps({"api_key": sys.argv[1], "product": "Linux",
		"component": "SCSI", "version": "6.1", "summary": sys.argv[2],
		"description": "Seen on 6.1."}))' "$ADMIN" "$1" |
		curl -s -H 'Content-Type: application/json' -d @- "$B/rest/bug" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}
say() {	# KEY BUG TEXT: a comment; prints its id
	python3 -c 'import json, sys; print(json.dumps({"api_key": sys.argv[1], "comment": sys.argv[2]}))' \
		"$1" "$3" | curl -s -H 'Content-Type: application/json' -d @- "$B/rest/bug/$2/comment" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}
by_bot() {	# BUG TEXT: how many of the bot's comments on BUG contain TEXT
	curl -s "$B/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"] and c["creator"] == "bot@example.com"
          for c in list(d["bugs"].values())[0]["comments"]))' "$2"
}
bug=$(new_bug "sr: reads past the end")
quiet=$(new_bug "sd: a slow disk")
lonely=$(new_bug "st: a tape nobody answers")

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT_KEY
backoff_ms = 20
watch_bugs = $bug, $quiet, $lonely
[triage]
allow_commands = admin@example.com
stale_days = 1
mirror =
[digest]
every = never
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }

bb db migrate >/dev/null 2>&1
cycle
queue_result "$bug" 1

# every marker bugbridge writes, each in a comment of its own, by another account
for m in "bugbridge-result: job 1" "bugbridge-state: bug $bug reproduced job 1" \
	"bugbridge-dup: $bug 9370" "bugbridge-bisect: job 1" "bugbridge-backtest: job 1" \
	"bugbridge-releases: job 1" "bugbridge-refused: bug $bug user@example.com" \
	"bugbridge-ack: job 1" "bugbridge-cc: bug $bug 0123456789abcdef" \
	"bugbridge-cmd: comment 1" "bugbridge-budget: bug $bug 2026-12-07" \
	"bugbridge-note: from the bot, honest"; do
	say "$USER_KEY" "$bug" "I am not the bot.

$m" >/dev/null
done
diff_comment=$(say "$USER_KEY" "$bug" "Try this:

--- a/drivers/scsi/sr.c
+++ b/drivers/scsi/sr.c
@@ -1,1 +1,1 @@
-old
+new

bugbridge-result: job 1")
say "$USER_KEY" "$bug" "bugbridge: retest" >/dev/null
cmd=$(say "$ADMIN" "$bug" "Please run it again.
bugbridge: retest
bugbridge-note: the bot must still read the line above")
say "$USER_KEY" "$bug" "bugbridge-cmd: comment $cmd" >/dev/null
say "$USER_KEY" "$quiet" "I can reproduce this.

bugbridge-note: a human answer, whatever this line says" >/dev/null

# the result's first POST fails, so the poster looks for its marker first
standin_ctl reset
standin_ctl fail "count=1&status=500&comments=1"
cycle
reqs=$(standin_requests | tr '\n' ' ')
like "the poll asked the tracker about the forgers: valid_login (5.2 has no whoami)" "$reqs" \
	"GET /rest/whoami\\?api_key=REDACTED 404 .*GET /rest/valid_login\\?login=user@example.com&api_key=REDACTED 200"
like "  and about the admin who wrote a marker line" "$reqs" \
	"GET /rest/valid_login\\?login=admin@example.com&api_key=REDACTED 200"
is "the result comment is posted by the bot, once, despite the forged marker" \
	"$(by_bot "$bug" "bugbridge-result: job 1")" 1
like "  the poster saw the forged one and said so" "$(cat "$TMP/bbd.log")" \
	"comment [0-9]+ by user@example.com carries 'bugbridge-result: job 1' but is not ours"
is "the admin's command was acted on: a re-run queued" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE bug_id = $bug AND kind = 'retest'")" 1
like "  and logged" "$(cat "$TMP/bbd.log")" \
	"commands: admin@example.com on bug $bug \\(comment $cmd\\): 'bugbridge: retest': queued as job"
is "  and answered by the bot, once, though its marker was forged before" \
	"$(by_bot "$bug" "bugbridge-cmd: comment $cmd")" 1
is "the other account got one refusal, forged refusal marker or not" \
	"$(by_bot "$bug" "bugbridge-refused: bug $bug user@example.com")" 1
is "the diff in a comment with a marker is a candidate" \
	"$(sql "SELECT COUNT(*) FROM candidates WHERE source = 'comment' AND source_id = $diff_comment")" 1
is "  with its job" "$(sql "SELECT COUNT(*) FROM jobs j JOIN candidates c ON c.id = j.candidate_id
	WHERE c.source_id = $diff_comment AND j.kind = 'test'")" 1

standin_ctl reset
cycle
like "the next poll learned the bot's account from a comment it had posted" "$(cat "$TMP/bbd.log")" \
	"tracker: the bot's account is bot@example.com \\(the author of a comment we posted\\)"
is "  and remembers it" "$(sql "SELECT bot_login || ' ' || bot_how FROM tracker_state")" \
	"bot@example.com posted"
cycle
unlike "from then on it asks the tracker nothing about accounts" "$(standin_requests | tr '\n' ' ')" \
	"whoami|valid_login"

# what a user sees: the dashboard on the same database (a bugbridged whose tracker is away)
WEB_PORT=$(free_port)
write_config "$TMP/web.conf" <<EOF
[web]
listen = 127.0.0.1:$WEB_PORT
[tracker]
url = http://127.0.0.1:9
poll_interval = 3600
[digest]
every = never
EOF
web_up() { bg web bbd --config "$TMP/web.conf"; wait_port "$WEB_PORT" 20 || diag "$(cat "$TMP/web.log")"; }
web_down() { kill "$PID_web"; wait "$PID_web" 2>/dev/null; }
ours_in_api() {	# BUG: "author is_ours" of each comment, from the API
	curl -s "http://127.0.0.1:$WEB_PORT/api/bugs/$1" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["comments"]:
    print(c["author"], c["is_ours"])'
}
web_up
api=$(ours_in_api "$bug")
is "the API: none of user@example.com's 15 comments is ours" \
	"$(echo "$api" | grep -c '^user@example.com 0$') $(echo "$api" | grep -c '^user@example.com 1$')" "15 0"
is "  nor the admin's" "$(echo "$api" | grep -c '^admin@example.com 1$')" 0
is "  the bot's are (the result, the answer, the refusal)" "$(echo "$api" | grep -c '^bot@example.com 1$')" \
	"$(echo "$api" | grep -c '^bot@example.com')"
page=$(curl -s "http://127.0.0.1:$WEB_PORT/bug/$bug")
styled=$(printf '%s\n' "$page" | grep -o 'ev-comment ours"><span class="what">comment #[0-9]*</span> by [^<]*' |
	sed 's/.* by //' | sort | uniq -c | sed 's/^ *//')
is "the bug page styles only the bot's comments as ours" "$styled" \
	"$(echo "$api" | grep -c '^bot@example.com') bot@example.com"
web_down

# the stale-bug check counts the forged comment as a human answer
sql "UPDATE bugs SET creation_time = '2020-01-06T10:00:00Z' WHERE id IN ($quiet, $lonely)"
cycle
is "a bug answered only by a comment with a marker line does not need attention" \
	"$(sql "SELECT needs_attention FROM bugs WHERE id = $quiet")" 0
is "  one nobody answered does" "$(sql "SELECT needs_attention FROM bugs WHERE id = $lonely")" 1

# rows an older bugbridge stored as ours by their markers are corrected at start-up,
# even with the tracker unreachable
sql "UPDATE comments SET is_ours = 1 WHERE author = 'user@example.com';
	UPDATE tracker_state SET ours_login = NULL"
standin_ctl fail "count=1000&status=500"
bbd --once --config "$TMP/bb.conf" >"$TMP/down.log" 2>&1
is "with the tracker down: the comments by others are not ours again" \
	"$(sql "SELECT COUNT(*) FROM comments WHERE is_ours = 1 AND author <> 'bot@example.com'")" 0
like "  logged" "$(cat "$TMP/down.log")" "tracker: 16 stored comments corrected: ours are those by bot@example.com"

# migration 0019: a database of the older bugbridge, with a forged row and an honest one
old=$TMP/old.db
for f in "$BB_SRC"/schema/00*.sql; do
	case $f in */0019_*|*/002[0-9]_*) continue ;; esac
	cat "$f"
done | sqlite3 "$old"
sqlite3 "$old" "PRAGMA user_version = 18;
INSERT INTO bugs (id) VALUES (1);
INSERT INTO comments (id, bug_id, author, text, is_ours) VALUES
	(10, 1, 'bot@example.com', 'Result.' || char(10) || 'bugbridge-result: job 4', 1),
	(11, 1, 'mallory@example.org', 'bugbridge: test 3' || char(10) || 'bugbridge-note: x', 1),
	(12, 1, 'mallory@example.org', 'plain words', 0);
INSERT INTO outbox (kind, bug_id, marker, payload, state, remote_id) VALUES
	('comment', 1, 'bugbridge-result: job 4', 'Result.', 'sent', 10);"
printf '[db]\npath = %s\n' "$old" >"$TMP/old.conf"
bb --config "$TMP/old.conf" db migrate >/dev/null 2>&1
is "migration 0019 keeps the bot's comment ours and no other" \
	"$(sqlite3 "$old" "SELECT group_concat(id || ':' || is_ours, ' ') FROM comments ORDER BY id")" \
	"10:1 11:0 12:0"
is "  the corrected one is history: its command is not acted on late" \
	"$(sqlite3 "$old" "SELECT handled FROM comments WHERE id = 11")" 1

# a tracker with whoami (5.1+, BMO): the poll learns the account from it, once
sed -i "s|^path = .*|path = $TMP/whoami.db|" "$TMP/bb.conf"
bb db migrate >/dev/null 2>&1
standin_ctl reset
standin_ctl whoami "on=1"
cycle
reqs=$(standin_requests | tr '\n' ' ')
like "with whoami the poll asks it" "$reqs" "GET /rest/whoami\\?api_key=REDACTED 200"
unlike "  and asks no valid_login" "$reqs" "valid_login"
like "  and says whose the key is" "$(cat "$TMP/bbd.log")" \
	"tracker: the bot's account is bot@example.com \\(GET /rest/whoami\\)"
is "  none of the forged comments is ours in that database either" \
	"$(sqlite3 "$TMP/whoami.db" "SELECT COUNT(*) FROM comments WHERE is_ours = 1 AND author <> 'bot@example.com'")" 0
is "  the bot's are" \
	"$(sqlite3 "$TMP/whoami.db" "SELECT COUNT(*) = SUM(is_ours) FROM comments WHERE author = 'bot@example.com'")" 1

is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
