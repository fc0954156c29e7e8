#!/bin/sh
# The queue on a public tracker (issues 31 and 33), against the stand-in
# tracker with bugbridged and the real runner.  The runner's cache has a
# file where its job directories go, so each job it claims ends at once in
# an infrastructure error: its log says which job it took, in what order,
# and the job row when it may be tried again.  Verdicts the runner would
# give are written here with sqlite3, as in t2500.
# - budgets: one account attaches six patches within a minute; 3 (its
#   budget) are queued, the other 3 wait for the next UTC day, and one
#   comment says which and until when; a seventh on another bug is not
#   queued, and the comment there says so;
# - fairness: a second account's patch is claimed after the burst's first,
#   before its second; an [triage] allow_commands account's goes first;
# - a first verdict goes before a queued re-run and back-test, and the
#   back-test counts against the bug's budget (held to the next day when
#   the bug's is used); a running bisection step is left alone, and the
#   next step waits behind a first verdict sent after it was queued;
# - infrastructure errors: the tries wait 30 s, then 60 s (not_before),
#   the runner does not take the job before; `bugbridge job retry` gives a
#   job that ended in infra-error a fresh round, and refuses a verdict;
# - an mbox over [queue] max_mbox_patches is not tested, and the bug is told;
# - /queue and /api/queue show each account's use of the day.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 53

ADMIN=admkey0123456789abcdefghijABCDEFGHIJ0000
DEV=devkey0123456789abcdefghijABCDEFGHIJ0004
MAINT=mntkey0123456789abcdefghijABCDEFGHIJ0005

# the fixture's accounts, and two more: a developer and a maintainer
python3 - "$BB_SRC/tests/data/tracker-seed.json" "$DEV" "$MAINT" "$TMP" >"$TMP/seed.json" <<'EOF'
import json, os, sys
seed = json.load(open(sys.argv[1]))
for bug in seed["bugs"]:	# attachment files are relative to the fixture
    for a in bug.get("attachments", []):
        if "file" in a:
            a["file"] = os.path.relpath(os.path.join(os.path.dirname(sys.argv[1]), a["file"]),
                                        sys.argv[4])
for uid, login, key in ((4, "dev@example.org", sys.argv[2]), (5, "maint@example.org", sys.argv[3])):
    seed["users"].append({"id": uid, "login": login, "real_name": login, "password": "Pw-" + key,
                          "api_key": key, "groups": ["canconfirm"]})
json.dump(seed, sys.stdout)
EOF
STANDIN_PORT=$(free_port)
STANDIN_URL=http://127.0.0.1:$STANDIN_PORT
B=$STANDIN_URL
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$STANDIN_PORT" --db "$TMP/standin.db" \
	--seed "$TMP/seed.json"
wait_port "$STANDIN_PORT" || { diag "$(cat "$TMP/standin.log")"; exit 1; }

new_bug() {	# SUMMARY -> id
	python3 - "$ADMIN" "$1" <<'EOF' | curl -s -H 'Content-Type: application/json' -d @- "$B/rest/bug" |
import json, sys
print(json.dumps({"api_key": sys.argv[1], "product": "Linux", "component": "SCSI",
		  "summary": sys.argv[2], "version": "6.1", "description": "It breaks."}))
EOF
	python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}
patch() {	# NAME [PATCHES]: a diff, or an mbox of that many patches
	python3 - "$@" <<'EOF'
import sys
name, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
hunk = lambda i: ("diff --git a/drivers/scsi/sd.c b/drivers/scsi/sd.c\n"
		  "--- a/drivers/scsi/sd.c\n+++ b/drivers/scsi/sd.c\n"
		  "@@ -%d,1 +%d,1 @@\n-old %s %d\n+new %s %d\n" % (i * 10, i * 10, name, i, name, i))
if not n:
    sys.stdout.write(hunk(1))
for i in range(1, n + 1):
    sys.stdout.write("From %040x Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.org>\n"
		     "Date: Mon, 7 Dec 2026 08:00:00 +0000\nSubject: [PATCH %d/%d] %s %d\n\n"
		     "Change.\n---\n%s-- \n2.39.5\n\n" % (i, i, n, name, i, hunk(i)))
EOF
}
attach() {	# KEY BUG NAME [PATCHES] -> attachment id
	patch "$3" ${4:-} >"$TMP/$3"
	attach_as "$1" "$2" "$TMP/$3" "$3"
}
comments() {	# BUG TEXT: the bot's comments on BUG containing TEXT
	curl -s "$B/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"][sys.argv[1]]["comments"]
		if sys.argv[2] in c["text"] and c["creator"] == "bot@example.com"))' "$1" "$2"
}
count() { comments "$1" "$2" | grep -c -- "$2"; }

ba=$(new_bug "sd: the burst")
bb_=$(new_bug "sd: two more accounts")
bc=$(new_bug "sr: a fix")
bd=$(new_bug "sd: a series to bisect")
be=$(new_bug "sd: more patches")
mkdir -p "$TMP/src" "$TMP/cache"
: >"$TMP/src/linux-source-6.1.tar.xz"
: >"$TMP/src/linux-source-6.12.tar.xz"
: >"$TMP/cache/jobs"	# a file: every job the runner takes ends in infra-error at once
WEB_PORT=$(free_port)
tracker_config "$TMP/bb.conf" <<EOF
watch_bugs = $ba, $bb_, $bc, $bd, $be
[web]
listen = 127.0.0.1:$WEB_PORT
base_url = http://bugbridge.example/
[triage]
allow_commands = maint@example.org
release_bisect = false
mirror =
[queue]
account_jobs_per_day = 3
bug_jobs_per_day = 20
defer_days = 1
max_mbox_patches = 5
[runner]
name = r1
cache_dir = $TMP/cache
kernel_source = $TMP/src/linux-source-{series}.tar.xz
max_attempts = 1
retry_delay = 30
retry_delay_max = 100
[digest]
every = never
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
# claim: the job the runner took (--once), "none" when it took none
claim() {
	bbrunner --once >"$TMP/runner.log" 2>&1
	cat "$TMP/runner.log" >>"$TMP/runner-all.log"
	sed -n 's/.*claimed job \([0-9]*\) (attempt [0-9]*) as r1$/\1/p' "$TMP/runner.log" |
		grep . || echo none
}
job_of() { sql "SELECT j.id FROM jobs j JOIN candidates c ON c.id = j.candidate_id
	WHERE c.source = 'attachment' AND c.source_id = $1 AND j.purpose = '' AND j.kind = 'test'"; }
# The budgets are per UTC day and this test takes a few minutes: started
# close to midnight it would count on two days, so it starts after it.
left=$(( 86400 - $(date -u +%s) % 86400 ))
if [ "$left" -lt 600 ]; then
	diag "waiting $left s for the UTC day to turn"
	sleep $((left + 2))
fi
tomorrow=$(date -u -d tomorrow +%Y-%m-%d)
midnight=$(date -u -d "$tomorrow 00:00:00" +%s)

check "database migrates" bb db migrate

# --- one account's burst: its budget, then the next day ---
for i in 1 2 3 4 5 6; do eval "d$i=\$(attach $DEV $ba fix-v$i.patch)"; done
cycle
is "six patches, six candidates" "$(sql "SELECT COUNT(*) FROM candidates WHERE bug_id = $ba")" 6
is "three due now, for dev@example.org" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE bug_id = $ba AND not_before = 0 AND account = 'dev@example.org'")" 3
is "three held to the next UTC day" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE bug_id = $ba AND not_before = $midnight AND held LIKE 'the sender''s 3 jobs a day are used'")" 3
is "one comment says so" "$(count $ba "bugbridge-budget: bug $ba")" 1
text=$(comments $ba "bugbridge-budget: bug $ba")
for i in 4 5 6; do
	eval "att=\$d$i"
	like "  naming fix-v$i.patch and when it will be tested" "$text" \
		"^- attachment $att 'fix-v$i.patch': after $tomorrow 00:00 UTC \\(the sender's 3 jobs a day are used\\)\$"
done
unlike "  and not the three that run today" "$text" "fix-v[123]"
is "  in 7 lines" "$(printf '%s\n' "$text" | wc -l)" 7
cycle
is "another cycle posts no second one" "$(count $ba "bugbridge-budget: bug $ba")" 1
d7=$(attach $DEV $be fix-v7.patch)
cycle
is "a seventh patch, on another bug, is not queued (tomorrow is full too)" "$(job_of $d7)" ""
like "  and that bug is told" "$(comments $be "bugbridge-budget: bug $be")" \
	"^- attachment $d7 'fix-v7.patch': not tested \\(the sender's 3 jobs a day are used up to $tomorrow\\); \"bugbridge: test $d7\" from an allowed account can ask for it later\$"

# --- fairness: the burst's first, the other account's, the burst's second ---
u1=$(attach $USER_KEY $bb_ user-fix.patch)
cycle
is "the runner takes the burst's first patch" "$(claim)" "$(job_of $d1)"
is "then the other account's, queued after the burst" "$(claim)" "$(job_of $u1)"
is "then the burst's second" "$(claim)" "$(job_of $d2)"
m1=$(attach $MAINT $bb_ maint-fix.patch)
cycle
is "an allow_commands account's patch goes first" "$(claim)" "$(job_of $m1)"
is "then the burst's third" "$(claim)" "$(job_of $d3)"
is "nothing is due: the held ones wait for their day" "$(claim)" none
like "  the runner says until when" "$(cat "$TMP/runner.log")" \
	"no job due; the next is due at $tomorrow 00:00:00 UTC"

# --- first verdicts before follow-up work; the back-test counts against the bug ---
fix=$(attach $MAINT $bc sr-fix.patch)
cycle
fixjob=$(job_of $fix)
is "the fix's job is the maintainer's" "$(sql "SELECT account || ' ' || lane FROM jobs WHERE id = $fixjob")" \
	"maint@example.org 0"
sql "UPDATE jobs SET state = 'done', verdict = 'pass', change = 'FAIL->PASS', accel = 'tcg'
	WHERE id = $fixjob;
INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	($fixjob, 'baseline', 'sr-capacity', 'fail', NULL),
	($fixjob, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS');"
BUGBRIDGE_QUEUE_BUG_JOBS_PER_DAY=2 cycle
rerun=$(sql "SELECT id FROM jobs WHERE kind = 'retest' AND parent_id = $fixjob")
bt=$(sql "SELECT id FROM jobs WHERE purpose = 'backtest' AND parent_id = $fixjob")
is "the re-run is follow-up work, queued" "$(sql "SELECT lane || ' ' || not_before FROM jobs WHERE id = '$rerun'")" "2 0"
is "the back-test counts against the bug's 2 and waits for the next day" \
	"$(sql "SELECT lane || ' ' || (not_before = $midnight) || ' ' || budget_day FROM jobs WHERE id = '$bt'")" "2 1 $tomorrow"
like "  the bug is told" "$(comments $bc "bugbridge-budget: bug $bc")" \
	"^- the back-test of job $fixjob on 6.12: after $tomorrow 00:00 UTC \\(the bug's 2 jobs a day are used\\)\$"
like "an operator can let it run now" "$(bb job retry $bt 2>/dev/null)" "job $bt: queued again"
n1=$(attach $USER_KEY $be user-fix-2.patch)
cycle
is "a patch sent after them is taken before the re-run" "$(claim)" "$(job_of $n1)"
is "then the re-run" "$(claim)" "$rerun"
is "then the back-test" "$(claim)" "$bt"

# --- a bisection: its running step is left alone, its next one waits ---
s=$(attach $MAINT $bd sd-series.mbox 4)
cycle
root=$(job_of $s)
sql "UPDATE jobs SET state = 'done', verdict = 'fail', change = 'PASS->FAIL', accel = 'tcg'
	WHERE id = $root;
INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	($root, 'baseline', 'sd-partial-completion', 'pass', NULL),
	($root, 'patched', 'sd-partial-completion', 'fail', 'PASS->FAIL');"
cycle
step1=$(sql "SELECT id FROM jobs WHERE kind = 'bisect-step' AND parent_id = $root")
like "the series' failure starts a bisection" "$step1" '^[0-9]+$'
# another runner has the step
sql "UPDATE jobs SET state = 'running', runner = 'r2', started_at = strftime('%s', 'now'),
	lease_expires = strftime('%s', 'now') + 600 WHERE id = $step1"
n2=$(attach $ADMIN $be admin-fix.patch)
cycle
is "a new first verdict is taken" "$(claim)" "$(job_of $n2)"
is "  the running step is not touched" "$(sql "SELECT state || ' ' || runner FROM jobs WHERE id = $step1")" "running r2"
sql "UPDATE jobs SET state = 'done', verdict = 'fail', runner = NULL WHERE id = $step1;
INSERT INTO test_results (job_id, variant, name, status) VALUES
	($step1, 'patched', 'sd-partial-completion', 'fail');"
cycle
step2=$(sql "SELECT id FROM jobs WHERE kind = 'bisect-step' AND parent_id = $root AND state = 'queued'")
like "the bisection queues its next step" "$step2" '^[0-9]+$'
n3=$(attach $ADMIN $be admin-fix-2.patch)
cycle
is "a first verdict sent after the step was queued is taken first" "$(claim)" "$(job_of $n3)"
is "then the step" "$(claim)" "$step2"

# --- infrastructure errors back off; job retry ---
export BUGBRIDGE_RUNNER_MAX_ATTEMPTS=3
n4=$(attach $USER_KEY $be user-fix-3.patch)
cycle
job=$(job_of $n4)
is "the runner takes it" "$(claim)" "$job"
is "its first infra-error: the next try 30 s later" \
	"$(sql "SELECT state || ' ' || (not_before - started_at BETWEEN 30 AND 31) FROM jobs WHERE id = $job")" "queued 1"
like "  the job says so" "$(bb job show $job)" "progress: infra-error on attempt 1; next try at [0-9:]+ UTC: cannot create a job dir"
is "the runner does not take it before" "$(claim)" none
sql "UPDATE jobs SET not_before = 0 WHERE id = $job"	# the 30 s pass
is "after them, it does" "$(claim)" "$job"
is "its second: 60 s" \
	"$(sql "SELECT state || ' ' || (not_before - started_at BETWEEN 60 AND 61) FROM jobs WHERE id = $job")" "queued 1"
like "an operator can make it due now" "$(bb job retry $job 2>/dev/null)" "job $job: queued again"
is "the third try" "$(claim)" "$job"
is "ends it in infra-error" "$(sql "SELECT state || ' ' || verdict || ' ' || attempts FROM jobs WHERE id = $job")" \
	"done infra-error 3"
like "job retry queues it again" "$(bb job retry $job 2>/dev/null)" "job $job: queued again"
is "a fresh round: its fourth run is queued again after 30 s" \
	"$(claim) $(sql "SELECT state || ' ' || attempts || ' ' || (not_before - started_at BETWEEN 30 AND 31) FROM jobs WHERE id = $job")" \
	"$job queued 4 1"
bb job retry $root >"$TMP/retry.out" 2>&1
is "a verdict is not retried" "$? $(cat "$TMP/retry.out")" \
	"1 bugbridge job: job $root ended 'fail': only an infra-error is tried again (bugbridge job add queues a new run)"
unset BUGBRIDGE_RUNNER_MAX_ATTEMPTS

# --- an mbox over the cap ---
big=$(attach $ADMIN $bb_ big-series.mbox 6)
cycle
is "a 6-patch mbox is a candidate, with no job" \
	"$(sql "SELECT COUNT(*) || ' ' || (SELECT COUNT(*) FROM jobs WHERE candidate_id = c.id) FROM candidates c WHERE source_id = $big")" "1 0"
like "  the bug is told" "$(comments $bb_ "bugbridge-budget: bug $bb_")" \
	"^- attachment $big 'big-series.mbox': not tested \\(6 patches, more than the 5 one mbox or series may have\\)\$"

# --- each account's use, on the queue page and in the API ---
bg web bbd
wait_port "$WEB_PORT" 20 || diag "$(cat "$TMP/web.log")"
page=$(curl -s "http://127.0.0.1:$WEB_PORT/queue" | tr '\n' ' ')
# the runner's infra-errors count against nobody: dev's 3 of today are free again
like "/queue: dev@example.org used 0 of 3 today, 3 waiting" "$page" \
	"<tr><td>dev@example.org</td><td class=\"num\">0 of 3</td><td class=\"num\">0</td><td class=\"num\">3</td>"
like "  the allowed account is not limited" "$(printf '%s' "$page" | grep -o '<tr><td>maint@example.org</td><td class="num">[^<]*<')" \
	'<td class="num">2<$'
like "  a held job says until when and why" "$page" \
	"held until <time[^>]*>$tomorrow 00:00</time> \\(in [0-9hm ]+\\): the sender&#39;s 3 jobs a day are used"
api=$(curl -s "http://127.0.0.1:$WEB_PORT/api/queue")
is "/api/queue: each account's use" "$(printf '%s' "$api" | python3 -c '
import json, sys
d = json.load(sys.stdin)["budgets"]
print(" ".join("%s:%d/%s:%d" % (a["account"], a["today"], a["budget"], a["waiting"]) for a in d["accounts"]))')" \
	"admin@example.com:0/3:0 dev@example.org:0/3:3 maint@example.org:2/None:0 user@example.com:1/3:1"
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
