#!/bin/sh
# [runner] parallel = 2 on one host: one runner runs two jobs at once (two
# workers, each its own job directory and QEMU, the cache shared), and
# their verdicts and per-test results equal those of the same two jobs run
# one at a time.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 7
runner_setup <<EOF
parallel = 2
EOF

a=$(bb job add --bug 9370 --none 2>/dev/null)
b=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" 2>/dev/null)
run_once runner.log
is "runner --once with parallel = 2 exits 0" "$?" "0"
is "both jobs are done" "$(sql "SELECT count(*) FROM jobs WHERE id IN ($a, $b) AND state = 'done'")" "2"
is "claimed by two workers" "$(sed -n 's/.*claimed job [0-9]* (attempt 1) as //p' "$TMP/runner.log" |
	sort -u | wc -l)" "2"
is "and they overlapped in time" \
	"$(sql "SELECT x.started_at < y.finished_at AND y.started_at < x.finished_at
		FROM jobs x, jobs y WHERE x.id = $a AND y.id = $b")" "1"
# each make had its share of the CPUs for the builds running when it started
# (t3150 follows the shares as builds come and go)
shares=""
for j in $a $b; do
	shares="$shares$(head -1 "$(job_field $j log_dir)/patched-build.log" | sed -n \
		's/^bugbridge: make runs up to \([0-9]*\) jobs at a time: this build.s share of \([0-9]*\) CPUs (\([0-9]*\) builds\{0,1\} on this cache).*/\1 \2 \3/p' |
		awk '{ print ($1 == int(($2 + $3 - 1) / $3)) ? "ok" : "off" }') "
done
is "each build's make ran its share of the CPUs" "$shares" "ok ok "

# the same two jobs, one at a time
a1=$(bb job add --bug 9370 --none 2>/dev/null)
BUGBRIDGE_RUNNER_PARALLEL=1 run_once runner-a1.log
b1=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" 2>/dev/null)
BUGBRIDGE_RUNNER_PARALLEL=1 run_once runner-b1.log
outcome() {
	sql "SELECT verdict FROM jobs WHERE id = $1"
	sql "SELECT name, status, runs, failures FROM test_results WHERE job_id = $1 ORDER BY name"
}
is "stock 6.1: the same verdict and results as run alone" "$(outcome $a)" "$(outcome $a1)"
is "the fix: the same verdict and results as run alone" "$(outcome $b)" "$(outcome $b1)"

done_testing
