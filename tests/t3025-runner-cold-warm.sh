#!/bin/sh
# The cold path (issue 16).  On a cache with no seed, a --baseline job
# applies its patch before anything is built, then builds the base in full
# (the seed, as its baseline) and the patched kernel incrementally from it;
# while make runs, the job's progress counts the objects compiled.  Failing
# tests are re-run inside the same boot.  `bugbridge-runner --warm` then
# says the seed is there; with the seed gone, it says how long the build
# will take (the median of the base's full builds on this host, from the
# build stage rows, which say each build's kind and the objects it
# compiled) and builds it.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 16
# A cache of its own, without a seed; the shared base and ccache keep the
# two full builds to compiler cache hits.
COLD=$TMP/cache
mkdir -p "$COLD/base" "$RUNNER_CACHE/ccache"
if [ -f "$RUNNER_CACHE/base/linux-source-6.1.version" ]; then
	cp -al "$RUNNER_CACHE/base/linux-source-6.1" "$COLD/base/"
	cp "$RUNNER_CACHE/base/linux-source-6.1.version" "$COLD/base/"
fi
ln -s "$RUNNER_CACHE/ccache" "$COLD/ccache"
RUNNER_CACHE=$COLD
runner_setup </dev/null

id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline 2>/dev/null)
bg runner "$BB_BUILD/bugbridge-runner" --once
# The progress line while the base builds (polled; the build takes minutes).
seen=""
while kill -0 "$PID_runner" 2>/dev/null; do
	p=$(job_field $id progress)
	case $p in *"objects compiled"*) seen=$p; break ;; esac
	sleep 0.5
done
wait "$PID_runner"
is "runner --once exits 0" "$?" "0"
like "while the base built, the progress counted its objects" "$seen" \
	"^baseline: build: [0-9]+ objects compiled"
is "the fix passes, and the change is FAIL->PASS" "$(job_field $id "verdict || ' ' || change")" \
	"pass FAIL->PASS"
is "the patch was applied before anything was built" \
	"$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id AND stage = 'build' AND id <
		(SELECT id FROM job_stages WHERE job_id = $id AND variant = 'patched' AND stage = 'apply')")" "0"
is "the base (the seed) was built first" \
	"$(sql "SELECT variant FROM job_stages WHERE job_id = $id AND stage = 'build' ORDER BY id LIMIT 1")" \
	"baseline"
logs=$(job_field $id log_dir)
full=$(grep -cE '^  (CC|AS) ' "$logs/baseline-build.log")
incr=$(grep -cE '^  (CC|AS) ' "$logs/patched-build.log")
check "the base's build was a full one ($full objects)" test "$full" -gt 500
# sr.o, and the objects every link makes again (version, kallsyms, bzImage's)
check "the patched build was incremental ($incr objects)" test "$incr" -le 12
is "the base's build row says so, with its objects (what estimates measure)" \
	"$(sql "SELECT build_kind, objects FROM job_stages WHERE job_id = $id AND variant = 'baseline'
		AND stage = 'build'")" "full|$full"
is "and the patched build's" \
	"$(sql "SELECT build_kind, objects FROM job_stages WHERE job_id = $id AND variant = 'patched'
		AND stage = 'build'")" "incremental|$incr"
is "the baseline's sr-capacity failed every run" \
	"$(sql "SELECT status, runs, failures FROM test_results WHERE job_id = $id
		AND variant = 'baseline' AND name = 'sr-capacity'")" "fail|3|3"
like "its re-runs were in the same boot" "$(cat "$logs/baseline-console-all.log")" \
	"# rerun sr-capacity 2/2: not ok"
# (the default controller's boot, hba-virtio, is a boot of its own: issue 34)
is "so the baseline booted the suite once" "$(ls "$logs" | grep -c '^baseline-console-all')" "1"

out=$(bbrunner --warm --base 6.1 2>&1)
like "--warm: the seed is there" "$out" "the seed of 6\.1\.[0-9]+ is built"
for s in "$COLD"/seed/*; do [ -d "$s" ] && rm -rf "$s"; done
out=$(bbrunner --warm --base 6.1 2>&1)
like "--warm without it says how long, from the base's full builds measured here" "$out" \
	"building the seed of 6\.1\.[0-9]+ \(base config\): about [0-9]+ min [0-9]+ s \(the median of its last full builds on this host\)"
like "and builds it" "$out" "seed built in [0-9]+ s"
check "the seed is kept" test -n "$(find "$COLD/seed" -mindepth 1 -maxdepth 1 -type d)"

done_testing
