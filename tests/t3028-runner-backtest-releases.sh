#!/bin/sh
# t3028 (BUGBRIDGE_SLOW=1): back-test and release bisection end to end,
# real runner, real kernels, the stand-in tracker (issue 25).
#
# Bug 9370 is watched; kernel-patches/sr-sense-valid is queued for it on 6.1
# with a baseline.  The runner builds it (FAIL->PASS), bugbridged triages
# it: a back-test of the fix on 6.12 and the first step of a release
# bisection of sr-capacity over the archive's 6.1 releases (6.1.170-3, the
# oldest, fetched with apt into the shared test cache's debs/) are queued.
# The runner builds both: the fix applies to 6.12 and turns sr-capacity
# FAIL->PASS there too; 6.1.170 fails sr-capacity, so after one build the
# answer is "present in every available release since 6.1.170-3".  The
# tracker gets one matrix comment and one release comment; the bug page
# shows both.  Cost: the fix and the back-test build incrementally on warm
# seeds; 6.1.170 is a cold build (about 3 minutes on an idle 2-core host,
# much longer on a loaded one) plus a 140 MB package the first time.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
[ "${BUGBRIDGE_SLOW:-0}" = 1 ] || skip_all "BUGBRIDGE_SLOW=1: builds a release of the archive cold"
runner_require
[ -r /usr/src/linux-source-6.12.tar.xz ] || skip_all "no /usr/src/linux-source-6.12.tar.xz"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
apt-cache madison linux-source-6.1 | grep -q ' 6\.1\.170-3 ' || skip_all "the archive has no 6.1.170-3"
plan 18

standin_start || { not_ok "bz-standin starts"; exit 1; }
WEB_PORT=$(free_port)
runner_setup <<EOF
deb_dir = $RUNNER_CACHE/debs
build_timeout = 7200
[tracker]
url = $STANDIN_URL
api_key = $BOT_KEY
login = bot@example.com
watch_bugs = 9370
[web]
listen = 127.0.0.1:$WEB_PORT
[triage]
mirror =
EOF
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1; }
comments() {
	curl -s "$STANDIN_URL/rest/bug/9370/comment" | python3 -c '
import json, sys
print("\n".join(c["text"] for c in json.load(sys.stdin)["bugs"]["9370"]["comments"] if sys.argv[1] in c["text"]))' "$1"
}

cycle	# 9370 known; its seeded attachment's job is not this test's
sql "UPDATE jobs SET state = 'cancelled' WHERE state = 'queued'"
fix=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline --base 6.1 2>/dev/null)
bbrunner --job "$fix" >"$TMP/fix.log" 2>&1
is "the fix on 6.1: FAIL->PASS" "$(job_field "$fix" verdict) $(job_field "$fix" change)" "pass FAIL->PASS"
cycle
bt=$(sql "SELECT id FROM jobs WHERE purpose = 'backtest' AND parent_id = $fix")
is "triage queued the back-test on 6.12" "$(job_field "$bt" base)" linux-source-6.12
step=$(sql "SELECT id FROM jobs WHERE purpose = 'release' AND parent_id = $fix")
is "and the release bisection's first step, 6.1's oldest release" "$(job_field "$step" base)" \
	"linux-source-6.1=6.1.170-3"
sql "UPDATE jobs SET state = 'cancelled' WHERE kind = 'retest'"	# t2500's business

bbrunner --job "$bt" >"$TMP/bt.log" 2>&1
is "the back-test: the fix applies to 6.12 and passes" "$(job_field "$bt" verdict) $(job_field "$bt" change)" \
	"pass FAIL->PASS"
like "  on 6.12's kernel" "$(job_field "$bt" kernel_version)" '^6\.12\.'
bbrunner --job "$step" >"$TMP/step.log" 2>&1
is "the release step built 6.1.170" "$(job_field "$step" kernel_version)" 6.1.170
is "  which fails sr-capacity" \
	"$(sql "SELECT status FROM test_results WHERE job_id = $step AND name = 'sr-capacity'")" fail
like "  fetched from the archive" "$(cat "$(job_field "$step" log_dir)/base-fetch.log" 2>/dev/null; ls "$RUNNER_CACHE/debs")" \
	"linux-source-6.1_6.1.170-3_all.deb"
cycle

text=$(comments "bugbridge-backtest: job $fix")
like "the tracker got the matrix, its verdict first" "$text" "^bugbridge back-test of the fix: works on 6\\.1 and 6\\.12$"
like "the tracker got the matrix: 6.1" "$text" "6\\.1 +6\\.1\\.[0-9]+ +$fix +yes +FAIL \\(sr-capacity\\) +PASS"
like "  and 6.12" "$text" "6\\.12 +6\\.12\\.[0-9]+ +$bt +yes +FAIL \\(sr-capacity\\) +PASS"
text=$(comments "bugbridge-releases: job $fix")
like "and the releases: present since the oldest" "$text" \
	"sr-capacity fails in every available release of 6.1 since 6.1.170-3"
like "  after one build" "$text" "^Releases:  .*; 1 built$"
is "no step is queued after the answer" "$(sql "SELECT COUNT(*) FROM jobs WHERE purpose = 'release' AND state = 'queued'")" 0

bg web bbd
wait_port "$WEB_PORT" 20 || diag "$(cat "$TMP/web.log")"
page=$(curl -s "http://127.0.0.1:$WEB_PORT/bug/9370")
like "the bug page shows the matrix" "$page" "<td>6\\.12</td><td>6\\.12\\.[0-9]+</td><td><a href=\"/job/$bt\">$bt</a></td><td>yes</td>"
like "  and the releases" "$page" "sr-capacity fails in every available release of 6.1 since 6.1.170-3"
page=$(curl -s "http://127.0.0.1:$WEB_PORT/job/$step")
like "the step's page says what it is part of" "$page" \
	"release bisection of <a href=\"/job/$fix\">job $fix</a>"
like "  and why it has its base" "$page" "why: release bisection of job $fix \\(sr-capacity\\)"
