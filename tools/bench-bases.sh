#!/bin/sh
# bench-bases.sh: what a second kernel base and a back-test cost (issue 25),
# printed as "name: value unit" lines:
#   second base, extract      `bugbridge-runner --fetch 6.12`: the installed
#                             linux-source-6.12 extracted into the cache
#   second base, seed         `--warm --base 6.12`: its seed built in full,
#                             on a ccache that has seen 6.1 only
#   second base, seed, warm   the same again with 6.12 in the ccache
#   release, fetch+extract    `--fetch 6.1.176`: a release's package from
#                             the archive (kept in BENCH_DEBS) and extracted
#   back-test                 the fix (sr-sense-valid) on 6.12 with a
#                             baseline, as triage queues it, on a warm
#                             6.12 seed: its job from claim to verdict
#   back-test, baseline cached  a second one (the baseline's results reused)
# and for comparison the same fix on 6.1, warm.
#
#   BENCH_CACHE   scratch cache dir (default /var/tmp/bugbridge-bench-bases; wiped)
#   BENCH_DEBS    where fetched packages are kept (default ~/.cache/bugbridge-bench-debs)
#   BB_BUILD      binaries (default ./build)
#
# It builds three kernels in full (6.1's seed, then 6.12's twice): tens of
# minutes on a 2-core host, more on a loaded one.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BB_BUILD=${BB_BUILD:-$SRC/build}
CACHE=${BENCH_CACHE:-/var/tmp/bugbridge-bench-bases}
DEBS=${BENCH_DEBS:-$HOME/.cache/bugbridge-bench-debs}
[ -r /usr/src/linux-source-6.12.tar.xz ] || { echo "# no linux-source-6.12: nothing to measure"; exit 0; }
. "$SRC/tools/benchlib.sh"
mkdir -p "$DEBS"
bench_setup "$CACHE" <<EOF2
deb_dir = $DEBS
coverage = false
build_timeout = 7200
EOF2
runner() { "$BB_BUILD/bugbridge-runner" "$@"; }
now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{ printf "%.1f s", $1 - $2 }'; }
job_secs() { q "SELECT printf('%.1f s', max(finished_at) - min(started_at)) FROM job_stages WHERE job_id = $1"; }
bb db migrate >/dev/null 2>&1

# the first base, as a runner has it before the second: 6.1's seed and ccache
runner --warm --base 6.1 >"$WORK/w61.log" 2>&1
t=$(now); runner --fetch 6.12 >"$WORK/f612.log" 2>&1
echo "second base, extract (linux-source-6.12): $(since "$t")"
t=$(now); runner --warm --base 6.12 >"$WORK/w612.log" 2>&1
echo "second base, seed, full build on a ccache of 6.1 only: $(since "$t")"
for parts in "$CACHE"/seed/*.parts; do	# 6.12's seed only: 6.1's is the comparison's
	if grep -q '^base	linux-source-6.12$' "$parts"; then rm -rf "${parts%.parts}" "$parts"; fi
done
t=$(now); runner --warm --base 6.12 >"$WORK/w612b.log" 2>&1
echo "second base, seed, full build with 6.12 in the ccache: $(since "$t")"
# a release: its package from the archive (the network, the first time)
t=$(now)
if runner --fetch 6.1.176 >"$WORK/rel.log" 2>&1; then
	echo "release 6.1.176, fetch (package kept in BENCH_DEBS) and extract: $(since "$t")"
else
	echo "# release 6.1.176 not measured: $(tail -1 "$WORK/rel.log")"
fi

# a back-test: the fix on 6.12 with a baseline, then a second one (baseline cached)
for base in 6.12 6.12 6.1; do
	id=$(bb job add --bug 9370 --series "$SRC/kernel-patches/sr-sense-valid" --baseline \
		--base $base 2>/dev/null)
	runner --job "$id" 2>"$WORK/job$id.log"
	echo "# job $id on $base: $(q "SELECT verdict || ' ' || change || ', kernel ' || kernel_version FROM jobs WHERE id = $id")"
	case $id in
	1) echo "back-test on 6.12 (fix and baseline, warm seed): $(job_secs "$id")" ;;
	2) echo "back-test on 6.12, baseline cached: $(job_secs "$id")" ;;
	3) echo "the same fix on 6.1 (fix and baseline, warm seed): $(job_secs "$id")" ;;
	esac
done
echo "# cache after: $(du -sh "$CACHE" | cut -f1) ($(du -sh "$CACHE/base" | cut -f1) of trees)"
