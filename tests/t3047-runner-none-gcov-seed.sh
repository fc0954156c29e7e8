#!/bin/sh
# A job of the unpatched base (`job add --none`) on a cache that holds only
# the gcov seed (the one every job of a patch uses, [runner] coverage) starts
# from that seed and builds almost nothing: it is built with gcov too, like
# the seed and every baseline, and measures nothing (issue 33: it built all
# 851 objects, its config differing from the seed's by the gcov fragment).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 7
# the shared cache's gcov seed (made once), alone in a cache of this test's
BB_TEST_COVERAGE=true runner_setup </dev/null
bbrunner --warm --base 6.1 >"$TMP/warm.log" 2>&1
seed=$(sed -n 's/.*the seed of 6\.1\.[0-9]* is built (\(.*\)): jobs build incrementally$/\1/p; s/.*seed built in [0-9]* s: //p' \
	"$TMP/warm.log" | tail -1)
OWN=$TMP/cache
mkdir -p "$OWN/base" "$OWN/seed"
cp -al "$RUNNER_CACHE/base/linux-source-6.1" "$OWN/base/"
cp "$RUNNER_CACHE/base/linux-source-6.1.version" "$OWN/base/"
ln -s "$RUNNER_CACHE/ccache" "$OWN/ccache"
[ -n "$seed" ] && cp -al "$seed" "$OWN/seed/" && cp "$seed.parts" "$OWN/seed/"
is "the cache holds one seed, the gcov one" \
	"$(grep -l '^configs/gcov.config' "$OWN"/seed/*.parts 2>/dev/null | wc -l) $(find "$OWN/seed" -mindepth 1 -maxdepth 1 -type d | wc -l)" "1 1"
RUNNER_CACHE=$OWN
BB_TEST_COVERAGE=true runner_setup </dev/null

id=$(bb job add --bug 9370 --none 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "stock 6.1 fails the suite, as ever" "$(job_field $id verdict)" "fail"
like "the job started from the gcov seed" "$(cat "$TMP/runner.log")" \
	"patched: out/ seeded from $OWN/seed/"
n=$(grep -cE '^  (CC|AS) ' "$(job_field $id log_dir)/patched-build.log")
check "and compiled almost nothing ($n objects)" test "$n" -le 12
is "no full build was noted" \
	"$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id AND detail LIKE 'full build%'")" "0"
is "it measured no reach (nothing of a patch to measure)" "$(job_field $id "coalesce(reach, '')")" ""

done_testing
