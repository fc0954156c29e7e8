#!/bin/sh
# What a maintainer reads of a result (issue 31), on the stand-in tracker;
# the runner's rows are written here with sqlite3, as in t2500, with the
# suite's N tests (every test kernel-patches/suite/scenarios names):
# - the sr fix's FAIL->PASS is at most 25 lines: the verdict line, kernel,
#   reach, sr-capacity's row, one line counting the N-1 others, the failure
#   signature, the job link; the job page still has all 2N rows;
# - its re-run that agrees says so in a few lines, and one that does not
#   shows the test that changed against the first run;
# - a test name of 60 characters moves no column of the table;
# - a job where every test fails shows 10 rows and counts the others.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
TESTS=$(awk '$1 == "test" { print $2 }' "$BB_SRC/kernel-patches/suite/scenarios")
N=$(echo "$TESTS" | wc -l)
[ "$N" -gt 10 ] || skip_all "the scenarios file names $N tests: too few for a job's 10 rows"
plan 41

standin_start || { diag "$(cat "$TMP/standin.log")"; exit 1; }
tracker_config "$TMP/bb.conf" <<EOF
watch_bugs = 9370
[web]
base_url = http://bugbridge.example/
[triage]
mirror = whiteboard
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"

cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
# the text of the comments on 9370 carrying $1
comment_text() {
	curl -s "$STANDIN_URL/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"]["9370"]["comments"] if sys.argv[1] in c["text"]))' "$1"
}
nlines() { printf '%s\n' "$1" | wc -l; }
# results JOB VARIANT STATUS [CHANGE]: every suite test with that status
results() {
	for t in $TESTS; do
		echo "INSERT INTO test_results (job_id, variant, name, status, change)
			VALUES ($1, '$2', '$t', '$3', ${4:-NULL});"
	done | sql
}
# columns TEXT: "aligned" when every row of the table in TEXT starts each
# column where its header does, else the first row that does not
columns() {
	printf '%s\n' "$1" | python3 -c '
import re, sys
lines = sys.stdin.read().split("\n")
head = [i for i, l in enumerate(lines) if re.match(r"  (Baseline|Result|Job [0-9]+)  ", l)]
if len(head) != 1:
    sys.exit(print("no table header"))
h = lines[head[0]]
starts = [m.start() for m in re.finditer(r"(?<=  )\S", h)]
rows = 0
for l in lines[head[0] + 1:]:
    if not re.match(r"  (PASS|FAIL|SKIP|FLAKY|-) ", l):
        break
    rows += 1
    for s in starts:
        if len(l) <= s or l[s - 1] != " " or l[s] == " ":
            sys.exit(print("shifted: " + l))
print("aligned" if rows else "no rows")'
}

check "database migrates" bb db migrate
cycle
job=$(sql "SELECT id FROM jobs WHERE bug_id = 9370 AND state = 'queued' ORDER BY id LIMIT 1")
like "the poller queued a job for 9370's patch" "$job" '^[0-9]+$'

# The sr fix: the baseline fails sr-capacity, the patched kernel passes all $N.
results "$job" baseline pass
results "$job" patched pass "'PASS->PASS'"
sql "UPDATE test_results SET status = 'fail', runs = 2, failures = 2
	WHERE job_id = $job AND variant = 'baseline' AND name = 'sr-capacity';
UPDATE test_results SET change = 'FAIL->PASS' WHERE job_id = $job AND variant = 'patched'
	AND name = 'sr-capacity';
UPDATE jobs SET state = 'done', verdict = 'pass', change = 'FAIL->PASS', accel = 'kvm',
	kernel_version = '6.1.158', started_at = 1796256000, finished_at = 1796256432,
	reach_changed = 3, reach_reached = 3, reach = 'reached 3 of 3 changed lines',
	verdict_detail = '$N tests: 0 failed' || char(10) || 'baseline: fail: $N tests: 1 failed'
		|| char(10) || 'sr-capacity: failed 2 of 2 runs (size 0 after the medium error)'
	WHERE id = $job;
INSERT INTO signatures (job_id, variant, kind, title, frames, hash) VALUES
	($job, 'baseline', 'eod', 'attempt to access beyond end of device sr1: rw=0, want=N, limit=N', '',
	 'e2e0000000000000000000000000000000000000000000000000000000000001');"
cycle
text=$(comment_text "bugbridge-result: job $job")
n=$(nlines "$text")
check "the sr fix's FAIL->PASS comment is at most 25 lines ($n)" [ "$n" -le 25 ]
like "it leads with the verdict" "$text" "^bugbridge FAIL->PASS: this patch fixes sr-capacity$"
like "  names the kernel" "$text" "^Kernel: +linux-source-6\\.1, 6\\.1\\.158$"
like "  the reach" "$text" "^Reach: +reached 3 of 3 changed lines$"
like "  sr-capacity's row: FAIL on the baseline, PASS patched" "$text" "^  FAIL +PASS +sr-capacity$"
like "  one line for the $((N - 1)) others" "$text" "^  $((N - 1)) more tests pass on both\\.$"
unlike "  and no row of them" "$text" "PASS +PASS"
like "  the failure signature, in one line" "$text" \
	"^  \\[baseline\\] eod: attempt to access beyond end of device sr1: rw=0, want=N, limit=N$"
like "  the job link" "$text" "^Job: +http://bugbridge\\.example/job/$job$"
unlike "  no detail line restating the counts" "$text" "Detail:|$N tests: 0 failed|more line"
diag "the sr fix's comment:" "$text"

# The job page keeps the whole table.
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
# the binary itself, not the bbd function: kill must reach it, or its
# cycles (on a tracker that is away) would go on beside this test's
bg web "$BB_BUILD/bugbridged" --config "$TMP/web.conf"
wait_port "$WEB_PORT" 20 || diag "$(cat "$TMP/web.log")"
page=$(curl -s "http://127.0.0.1:$WEB_PORT/job/$job")
is "the job page has all $((2 * N)) rows ($N tests, two kernels)" \
	"$(printf '%s\n' "$page" | grep -cE '^<tr><td>(baseline|patched)</td><td>[a-z0-9-]+</td>')" $((2 * N))
is "  every test by name, twice" \
	"$(for t in $TESTS; do printf '%s\n' "$page" | grep -c "^<tr><td>[a-z]*</td><td>$t</td>"; done | sort -u)" 2
kill "$PID_web"; wait "$PID_web" 2>/dev/null

# Its re-run agrees.
retest=$(sql "SELECT id FROM jobs WHERE kind = 'retest' AND parent_id = $job AND state = 'queued'")
like "a re-run of the fix is queued" "$retest" '^[0-9]+$'
results "$retest" patched pass
sql "UPDATE jobs SET state = 'done', verdict = 'pass', accel = 'tcg', kernel_version = '6.1.158',
	started_at = 1796257000, finished_at = 1796257418 WHERE id = $retest"
cycle
is "the bug is fix-verified" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" fix-verified
text=$(comment_text "bugbridge-result: job $retest")
n=$(nlines "$text")
check "a re-run that agrees says so in a few lines ($n)" [ "$n" -le 10 ]
like "  the fix holds" "$text" "^bugbridge PASS again on a re-run: the fix holds$"
like "  every test as in the first run" "$text" "^All $N tests pass, as in job $job\\.$"
like "  which it re-ran, on TCG" "$text" "^Run: +TCG, 6m58s \\(re-run of job $job\\)$"
like "  the patch by name" "$text" "^Patch: +0001-scsi-revert-get-rid-of-scsi_cmnd-done\\.patch, as in job $job$"
unlike "  no table" "$text" "sr-capacity"
diag "the re-run's comment:" "$text"

# A re-run that does not agree shows what changed against the first run.
sql "INSERT INTO jobs (bug_id, candidate_id, parent_id, kind, base, state, verdict, accel, kernel_version)
	SELECT bug_id, candidate_id, id, 'retest', base, 'done', 'fail', 'tcg', '6.1.158'
	FROM jobs WHERE id = $job"
rerun2=$(sql "SELECT MAX(id) FROM jobs")
results "$rerun2" patched pass
sql "UPDATE test_results SET status = 'fail' WHERE job_id = $rerun2 AND name = 'sr-capacity'"
cycle
text=$(comment_text "bugbridge-result: job $rerun2")
like "a re-run that fails says the fix does not hold" "$text" \
	"^bugbridge FAIL on a re-run: the fix does not hold, failing sr-capacity$"
like "  the first run and the re-run side by side" "$text" "^  Job $job  Re-run  Test$"
like "  sr-capacity passed then, fails now" "$text" "^  PASS +FAIL +sr-capacity$"
like "  the others counted" "$text" "^  $((N - 1)) more tests pass, as in job $job\\.$"
is "  columns aligned" "$(columns "$text")" aligned

# A test name of 60 characters moves no column.
long=lying-device-a-test-name-of-exactly-sixty-characters-long-xx
is "the long name has 60 characters" "${#long}" 60
j3=$(bb job add --bug 9370 --none 2>/dev/null)
sql "UPDATE jobs SET candidate_id = (SELECT candidate_id FROM jobs WHERE id = $job), state = 'done',
	verdict = 'fail', change = 'PASS->FAIL', accel = 'tcg', kernel_version = '6.1.158'
	WHERE id = $j3;"
results "$j3" baseline pass
results "$j3" patched pass "'PASS->PASS'"
sql "INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	($j3, 'baseline', '$long', 'pass', NULL), ($j3, 'patched', '$long', 'fail', 'PASS->FAIL');
UPDATE test_results SET status = 'fail' WHERE job_id = $j3 AND variant = 'baseline'
	AND name IN ('sr-capacity', 'sd-medium-error');
UPDATE test_results SET change = 'FAIL->PASS' WHERE job_id = $j3 AND variant = 'patched'
	AND name = 'sr-capacity';
UPDATE test_results SET status = 'fail', change = 'FAIL->FAIL' WHERE job_id = $j3
	AND variant = 'patched' AND name = 'sd-medium-error';
UPDATE test_results SET status = 'flaky', runs = 3, failures = 1 WHERE job_id = $j3
	AND variant = 'patched' AND name = 'lying-device-send-command-faults';"
cycle
text=$(comment_text "bugbridge-result: job $j3")
like "a regression leads, naming the long test whole" "$text" \
	"^bugbridge PASS->FAIL: this patch breaks $long \\(it fixes sr-capacity\\)$"
like "  its row" "$text" "^  PASS +FAIL +$long$"
like "  the still failing test's" "$text" "^  FAIL +FAIL +sd-medium-error$"
like "  the flaky one, with its runs" "$text" \
	"^  PASS +FLAKY +lying-device-send-command-faults \\(1 of 3 runs failed\\)$"
is "  every column starts where its header does" "$(columns "$text")" aligned
like "  the rest counted" "$text" "^  $((N - 3)) more tests pass on both\\.$"
diag "the long-name comment:" "$text"

# Every test fails on an unpatched kernel: 10 rows, the rest counted.
j4=$(bb job add --bug 9370 --none 2>/dev/null)
results "$j4" patched fail
sql "UPDATE jobs SET state = 'done', verdict = 'fail', accel = 'tcg', kernel_version = '6.1.158'
	WHERE id = $j4"
cycle
text=$(comment_text "bugbridge-result: job $j4")
n=$(nlines "$text")
check "$N failures still make a short comment ($n lines)" [ "$n" -le 25 ]
like "  it says the unpatched kernel fails" "$text" \
	"^bugbridge FAIL: the unpatched linux-source-6\\.1 fails [a-z0-9-]+(, [a-z0-9-]+){7} and $((N - 8)) more$"
is "  ten rows" "$(printf '%s\n' "$text" | grep -c '^  FAIL  ')" 10
like "  the others counted" "$text" "^  $((N - 10)) more that differ or fail \\(the job page lists every test\\)\\.$"
is "  columns aligned" "$(columns "$text")" aligned

is "nothing failed in the outbox" "$(sql "SELECT COUNT(*) FROM outbox WHERE state <> 'sent'")" 0
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
