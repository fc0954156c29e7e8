#!/bin/sh
# bench-scale.sh: scaling out, printed as "name: value" lines:
#   jobs/hour at parallel 1 and 2   the same two jobs (stock 6.1 and the
#                        sr-sense-valid fix, no baseline) run one at a time,
#                        then at once by one runner with [runner] parallel = 2;
#                        on a warm cache (a warm-up job first, not counted)
#   LAVA added latency   one boot of the same kernel (flake_retries = 0)
#                        locally and as a LAVA job in a lab brought up here
#                        (tests/lib/lava-lib.sh; root and the LAVA packages,
#                        else skipped): the boot stage's time against the
#                        local one, and LAVA's own submit-to-finished
#
#   BENCH_CACHE   cache dir (default /var/tmp/bugbridge-bench, as
#                 bench-runner.sh leaves it; not wiped)
#   BB_BUILD      binaries (default ./build)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BB_BUILD=${BB_BUILD:-$SRC/build}
CACHE=${BENCH_CACHE:-/var/tmp/bugbridge-bench}
BB_SRC=$SRC
. "$SRC/tests/lib/test-lib.sh"
mkdir -p "$CACHE"
write_config "$TMP/bb.conf" <<EOF
[runner]
cache_dir = $CACHE
patches_dir = $SRC/kernel-patches
coverage = false
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
q() { sqlite3 -batch -noheader "$TMP/bugbridge.db" "$@"; }
bb db migrate >/dev/null 2>&1
run() { bbrunner --once 2>>"$TMP/runner.log"; }
add2() {
	bb job add --bug 9370 --none >/dev/null 2>&1
	bb job add --bug 9370 --series "$SRC/kernel-patches/sr-sense-valid" >/dev/null 2>&1
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", n * 3600 / s }'; }

bb job add --bug 9370 --series "$SRC/kernel-patches/sr-sense-valid" >/dev/null 2>&1
run					# warm-up: seed, suite, ccache, accel probe
add2
t0=$(date +%s.%N); BUGBRIDGE_RUNNER_PARALLEL=1 run; BUGBRIDGE_RUNNER_PARALLEL=1 run
t1=$(date +%s.%N)
add2
BUGBRIDGE_RUNNER_PARALLEL=2 run
t2=$(date +%s.%N)
s1=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
s2=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')
echo "# $(nproc) CPUs, accel $(q "SELECT accel FROM jobs ORDER BY id DESC LIMIT 1");" \
	"verdicts: $(q "SELECT group_concat(verdict, ' ') FROM jobs")"
echo "jobs/hour at parallel 1: $(rate 2 "$s1") jobs/h"
echo "jobs/hour at parallel 2: $(rate 2 "$s2") jobs/h"

. "$SRC/tests/lib/lava-lib.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v lava-worker >/dev/null || ! lava_up >/dev/null 2>&1; then
	echo "# LAVA latency: skipped (needs root and a lab: lava-server, lava-dispatcher)"
	exit 0
fi
boot_stage() { q "SELECT finished_at - started_at FROM job_stages WHERE job_id = $1
	AND stage = 'boot' ORDER BY id DESC LIMIT 1"; }
export BUGBRIDGE_RUNNER_FLAKE_RETRIES=0
id=$(bb job add --bug 9370 --none 2>/dev/null); run; local_s=$(boot_stage "$id")
id=$(bb job add --bug 9370 --none 2>/dev/null)
BUGBRIDGE_RUNNER_BACKEND=lava BUGBRIDGE_LAVA_URL=$LAVA BUGBRIDGE_LAVA_TOKEN_FILE=$LAVA_TOKEN_FILE \
	BUGBRIDGE_LAVA_POLL_INTERVAL=1 BUGBRIDGE_LAVA_ARTIFACTS_DIR=$TMP \
	BUGBRIDGE_LAVA_ARTIFACTS_URL=file://$TMP run
lava_s=$(boot_stage "$id")
echo "# one boot of stock 6.1: local $local_s s, through LAVA $lava_s s" \
	"($(q "SELECT outcome FROM lava_jobs WHERE job_id = $id"))"
echo "local boot: $(printf '%.1f' "$local_s") s"
echo "LAVA boot (publish, submit, queue, boot, log read back): $(printf '%.1f' "$lava_s") s"
echo "LAVA added latency per job: $(awk -v a="$local_s" -v b="$lava_s" 'BEGIN { printf "%.1f", b - a }') s"
echo "LAVA submit to finished: $(q "SELECT printf('%.1f', finished_at - submitted_at) FROM lava_jobs
	WHERE job_id = $id") s"
