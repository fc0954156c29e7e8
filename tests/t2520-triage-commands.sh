#!/bin/sh
# Commands in tracker comments, against the stand-in tracker: every
# "bugbridge:" line gets an answer (issue 31).  An allowed account's
# comment with four command lines gets one answer, a line each: its
# "test 1" and "test 1 on 6.12" queued (the second on 6.12, saying why),
# "test 6.12" and "tset 1" not understood with the command meant and the
# list of commands; the answer comes once, however many cycles run.
# Another account's commands are refused with one comment, once; a quoted
# command does nothing.  A series that is not kept, "help", a back-test
# and a release bisection on request (with [triage] backtest and
# release_bisect off), a command over the bug's budget of the day and
# "ignore" are answered too.  [triage]
# acknowledge announces the job bugbridge queued on its own, not the ones
# a command's answer named.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 41

ADMIN=admkey0123456789abcdefghijABCDEFGHIJ0000
standin_start || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=$STANDIN_URL
mkdir -p "$TMP/src"
: >"$TMP/src/linux-source-6.1.tar.xz"
: >"$TMP/src/linux-source-6.12.tar.xz"
write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT_KEY
login = bot@example.com
watch_bugs = 9370
[triage]
allow_commands = admin@example.com
acknowledge = true
backtest = false
release_bisect = false
mirror =
[runner]
kernel_source = $TMP/src/linux-source-{series}.tar.xz
[web]
base_url = http://bugbridge.example/
[digest]
every = never
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"

# one service cycle; a non-zero exit (a sanitizer report, a crash) is remembered
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
say() {	# KEY TEXT: a comment on 9370; prints its id
	python3 -c 'import json,sys; print(json.dumps({"api_key": sys.argv[1], "comment": sys.argv[2]}))' \
		"$1" "$2" | curl -s -H 'Content-Type: application/json' -d @- "$B/rest/bug/9370/comment" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}
comments() {	# TEXT: the bot's comments on 9370 that contain TEXT
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"]["9370"]["comments"]
                if sys.argv[1] in c["text"] and c["creator"] == "bot@example.com"))' "$1"
}
count_comments() {	# TEXT: how many of the bot's comments on 9370 contain TEXT
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"] and c["creator"] == "bot@example.com"
          for c in d["bugs"]["9370"]["comments"]))' "$1"
}
jobs_of_attachment() {
	sql "SELECT COUNT(*) FROM jobs j JOIN candidates c ON c.id = j.candidate_id
		WHERE c.bug_id = 9370 AND c.source = 'attachment' AND c.source_id = 1 AND j.purpose = ''"
}

bb db migrate >/dev/null 2>&1
cycle
is "the poller queued attachment 1 once by itself" "$(jobs_of_attachment)" 1

asked=$(say "$ADMIN" "Please try it again, here and on 6.12.
bugbridge: test 1
bugbridge: test 6.12
bugbridge: test 1 on 6.12
bugbridge: tset 1")
say "$USER_KEY" "bugbridge: retest" >/dev/null
say "$USER_KEY" "bugbridge: test 1" >/dev/null
quoted=$(say "$ADMIN" "Earlier someone wrote:
> bugbridge: test 1
and that was fine.")
cycle

is "the allowed command queued two more jobs of attachment 1" "$(jobs_of_attachment)" 3
is "one of them on 6.12, as asked" \
	"$(sql "SELECT base FROM jobs WHERE asked_in = $asked ORDER BY id")" \
	"linux-source-6.1
linux-source-6.12"
like "  and its job says why" "$(sql "SELECT base_reason FROM jobs WHERE base = 'linux-source-6.12'")" \
	"^asked for in comment #[0-9]+ by admin@example.com\$"
is "the comment got one answer" "$(count_comments "bugbridge-cmd: comment $asked")" 1
answer=$(comments "bugbridge-cmd: comment $asked")
like "  in Bugzilla's reply form" "$answer" "^\\(In reply to admin@example.com from comment #[0-9]+\\)\$"
job61=$(sql "SELECT id FROM jobs WHERE asked_in = $asked AND base = 'linux-source-6.1'")
job612=$(sql "SELECT id FROM jobs WHERE asked_in = $asked AND base = 'linux-source-6.12'")
like "  test 1: queued, naming the job, the kernel and the link" "$answer" \
	"^\`bugbridge: test 1\`: queued as job $job61: attachment 1 \\(0001-scsi-revert-get-rid-of-scsi_cmnd-done.patch\\) on linux-source-6.1, with the unpatched kernel beside it; http://bugbridge.example/job/$job61\$"
like "  test 6.12: not understood, with the command meant" "$answer" \
	"^\`bugbridge: test 6.12\`: not understood; did you mean \`bugbridge: test on 6.12\`\\?\$"
like "  test 1 on 6.12: queued on 6.12" "$answer" \
	"^\`bugbridge: test 1 on 6.12\`: queued as job $job612: attachment 1 .* on linux-source-6.12, "
like "  tset 1: did you mean test 1" "$answer" \
	"^\`bugbridge: tset 1\`: not understood; did you mean \`bugbridge: test 1\`\\?\$"
like "  then the commands" "$answer" "^\`bugbridge: test on <kernel>\` +the bug's latest patch"
like "  and the kept series" "$answer" "^<kernel>: a kept series \\(6.1, 6.12\\) or a release"
is "  the answer's lines are in the order asked" \
	"$(echo "$answer" | grep -o '^`bugbridge: [^`]*`:' | tr '\n' '|')" \
	"\`bugbridge: test 1\`:|\`bugbridge: test 6.12\`:|\`bugbridge: test 1 on 6.12\`:|\`bugbridge: tset 1\`:|"
like "the log says what each line got" "$(cat "$TMP/bbd.log")" \
	"commands: admin@example.com on bug 9370 \\(comment $asked\\): 'bugbridge: test 6.12': not understood; did you mean"
is "the other account got one refusal on the tracker for its two tries" \
	"$(count_comments "bugbridge-refused: bug 9370 user@example.com")" 1
like "the refusal names the account" "$(comments "bugbridge-refused:")" \
	"^user@example.com is not allowed to give bugbridge commands, so nothing was done"
like "and the log each line refused" "$(cat "$TMP/bbd.log")" \
	"commands: user@example.com may not give bugbridge commands \\(comment [0-9]+ on bug 9370: 'bugbridge: test 1'\\); refused, as it was told on this bug before"
is "no retest was queued for it" "$(sql "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'")" 0
is "the quoted command got no answer" "$(count_comments "bugbridge-cmd: comment $quoted")" 0
is "acknowledge announced the job the poller queued" "$(count_comments "bugbridge-ack: job 1")" 1
is "  not the jobs the answer named" "$(count_comments "bugbridge-ack: job $job61") $(count_comments "bugbridge-ack: job $job612")" "0 0"
is "every human comment is marked handled" \
	"$(sql "SELECT COUNT(*) FROM comments WHERE handled = 0 AND is_ours = 0")" 0

cycle
cycle
is "commands run once: no new job on later cycles" "$(jobs_of_attachment)" 3
is "and no second answer or refusal" \
	"$(count_comments "bugbridge-cmd: comment $asked") $(count_comments "bugbridge-refused:")" "1 1"
is "our own comments are never taken as commands" \
	"$(sql "SELECT COUNT(*) FROM comments WHERE is_ours = 1 AND author <> 'bot@example.com'")
$(sql "SELECT COUNT(*) FROM comments WHERE is_ours = 1 AND handled = 1")" "0
0"

# a series that is not kept, and help, in one comment
help=$(say "$ADMIN" "bugbridge: test on 6.13
bugbridge: help")
cycle
answer=$(comments "bugbridge-cmd: comment $help")
like "a series that is not kept: not done, saying which are" "$answer" \
	"^\`bugbridge: test on 6.13\`: not done: series 6.13 is not kept here"
like "help: the list" "$answer" "^\`bugbridge: help\`: the commands are below\$"
like "  which follows" "$answer" "^\`bugbridge: bisect releases \\[<series>\\]\` "

# the runner's part: job 1 (attachment 1 on 6.1) ran, its unpatched kernel failing sr-capacity
sql "UPDATE jobs SET state = 'cancelled' WHERE state = 'queued';
UPDATE jobs SET state = 'done', verdict = 'fail', change = 'FAIL->FAIL', accel = 'tcg',
	kernel_version = '6.1.192' WHERE id = 1;
INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	(1, 'baseline', 'sr-capacity', 'fail', NULL), (1, 'patched', 'sr-capacity', 'fail', 'FAIL->FAIL');"
cycle
is "with [triage] backtest and release_bisect off nothing starts by itself" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE purpose <> ''")" 0
asked=$(say "$ADMIN" "bugbridge: backtest 1
bugbridge: bisect releases 6.12
bugbridge: bisect releases")
cycle
answer=$(comments "bugbridge-cmd: comment $asked")
bt=$(sql "SELECT id FROM jobs WHERE purpose = 'backtest'")
like "backtest on request: the patch of job 1 on the other kept series" "$answer" \
	"^\`bugbridge: backtest 1\`: queued the patch of job 1, with the unpatched kernel beside it, on 6.12 as job $bt; one table when they are done\$"
is "  one back-test job, on 6.12" "$(sql "SELECT base || ' ' || parent_id FROM jobs WHERE purpose = 'backtest'")" \
	"linux-source-6.12 1"
like "bisect releases of a series whose unpatched kernel never failed: not done" "$answer" \
	"^\`bugbridge: bisect releases 6.12\`: not done: no unpatched kernel of 6.12 has failed a test on this bug yet\$"
if [ "$(apt-cache madison linux-source-6.1 2>/dev/null | wc -l)" -gt 3 ]; then
	like "bisect releases: started from job 1's failure" "$answer" \
		"^\`bugbridge: bisect releases\`: started: which release of 6.1 first fails sr-capacity \\(failed by job 1's unpatched 6.1.192\\): [0-9]+ older release\\(s\\)"
	is "  its first step queued" "$(sql "SELECT COUNT(*) FROM jobs WHERE purpose = 'release' AND parent_id = 1")" 1
else
	like "bisect releases: not done, saying why (no archive here)" "$answer" \
		"^\`bugbridge: bisect releases\`: not done: "
	ok "  # SKIP no apt-cache madison listing of linux-source-6.1 here"
fi
is "  the jobs carry the comment that asked for them" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE purpose <> '' AND asked_in = $asked")" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE purpose <> ''")"

# over the bug's budget of the day ([queue] bug_jobs_per_day): the answer says when it runs
over=$(say "$ADMIN" "bugbridge: retest")
BUGBRIDGE_QUEUE_BUG_JOBS_PER_DAY=1 cycle
like "a command over the bug's budget: queued to wait, and the answer says until when" \
	"$(comments "bugbridge-cmd: comment $over")" \
	"^\`bugbridge: retest\`: queued as job [0-9]+: job [0-9]+ again .*; it waits until [0-9-]+ 00:00 UTC: "
is "  and no budget comment besides" "$(count_comments "bugbridge-budget:")" 0

ignore=$(say "$ADMIN" "bugbridge: ignore")
cycle
like "ignore: done, saying what it cancelled" "$(comments "bugbridge-cmd: comment $ignore")" \
	"^\`bugbridge: ignore\`: done: bugbridge ignores this bug from now on \\([0-9]+ queued jobs? cancelled\\)"
is "ignore marks the bug" "$(sql "SELECT ignored FROM bugs WHERE id = 9370")" 1
is "and cancels its queued jobs" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE bug_id = 9370 AND state = 'queued'")" 0
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
