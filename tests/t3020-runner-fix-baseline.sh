#!/bin/sh
# kernel-patches/sr-sense-valid with --baseline: the runner runs the
# unpatched base and the patched tree and says what the patch changed:
# sr-capacity FAIL->PASS, nothing else moves.  A second job on the same base
# takes the baseline from the cache instead of building it again, and the
# patched tree's build is incremental.  The pristine baseline is never
# touched by a job's patches.  bugbridged posts the result on the stand-in
# tracker as a maintainer reads it (issue 31): at most 25 lines, naming
# sr-capacity, the kernel, the reach and the job page.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
runner_require
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"

plan 21
standin_start || { not_ok "bz-standin starts"; exit 1; }
# no bug is watched: the job's result is posted to 9370 all the same
BB_TEST_COVERAGE=true runner_setup <<EOF
[tracker]
url = $STANDIN_URL
api_key = $BOT_KEY
login = bot@example.com
[web]
base_url = http://bugbridge.example/
EOF

id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the patched kernel passes" "$(job_field $id verdict)" "pass"
is "the job's change is FAIL->PASS" "$(job_field $id change)" "FAIL->PASS"
is "sr-capacity: FAIL->PASS" \
	"$(sql "SELECT change FROM test_results WHERE job_id = $id AND variant = 'patched'
		AND name = 'sr-capacity'")" "FAIL->PASS"
is "the baseline's sr-capacity failed every run" \
	"$(sql "SELECT status, failures FROM test_results WHERE job_id = $id AND variant = 'baseline'
		AND name = 'sr-capacity'")" "fail|3"
is "no other test changed" \
	"$(sql "SELECT count(*) FROM test_results WHERE job_id = $id AND variant = 'patched'
		AND change NOT IN ('PASS->PASS', 'FAIL->PASS', 'SKIP')")" "0"
is "the patched variant went through every stage" \
	"$(sql "SELECT count(DISTINCT stage) FROM job_stages WHERE job_id = $id AND variant = 'patched'")" "7"
# the baseline builds in full on a cold cache; with a seed it is the seed's own kernel
is "the baseline was built (or is the seed), booted and tested" \
	"$(sql "SELECT group_concat(stage, ' ') FROM (SELECT DISTINCT stage FROM job_stages
		WHERE job_id = $id AND variant = 'baseline' AND stage IN ('build', 'boot', 'test')
		ORDER BY id)")" "build boot test"
is "the fix's changed line ran: the verdict says so" "$(job_field $id reach)" \
	"reached 1 of 1 changed lines"
like "the coverage log names it" "$(cat "$(job_field $id log_dir)/patched-coverage.log")" \
	"drivers/scsi/sr.c:[0-9]+ executed [1-9]"

bbd --once >"$TMP/bbd.log" 2>&1
is "bugbridged --once posts the result" "$?" 0
text=$(curl -s "$STANDIN_URL/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"]["9370"]["comments"] if sys.argv[1] in c["text"]))' \
	"bugbridge-result: job $id")
diag "the result comment:" "$text"
n=$(printf '%s\n' "$text" | wc -l)
check "the sr fix's FAIL->PASS comment is at most 25 lines ($n)" [ "$n" -le 25 ]
like "  it says the series fixes sr-capacity" "$text" "^bugbridge FAIL->PASS: this series fixes sr-capacity$"
like "  the kernel" "$text" "^Kernel: +linux-source-6\\.1, 6\\.1\\.[0-9]+"
like "  the reach" "$text" "^Reach: +reached 1 of 1 changed lines$"
like "  sr-capacity's row and a count of the others" "$text" \
	"^  FAIL +PASS +sr-capacity
  [0-9]+ more tests pass on both\\.$"
like "  the job page" "$text" "^Job: +http://bugbridge\\.example/job/$id$"

base=$RUNNER_CACHE/base/linux-source-6.1
unlike "the pristine baseline's sr.c is unchanged" \
	"$(grep -c 'sense_buffer\[0\] & 0x80' "$base/drivers/scsi/sr.c")" "^[1-9]"

id2=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline 2>/dev/null)
run_once runner2.log
is "a second job gives the same change" "$(job_field $id2 change)" "FAIL->PASS"
like "its baseline came from the cache" "$(job_field $id2 verdict_detail)" "baseline \(cached\)"
is "so it built one kernel, not two" \
	"$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id2 AND stage = 'build'")" "1"

done_testing
