#!/bin/sh
# bench-demo.sh: `make demo` on a fresh machine once its packages are in
# (issue 33): tools/demo.sh with an empty cache dir (no extracted tree, no
# seed, no ccache), printed as "name: value unit" lines:
#   demo, cold first verdict   from the demo's start until the sr fix's
#                              result comment on bug 9370 was posted (6.1,
#                              with its baseline)
#   demo, whole                until the demo ended: every job done and
#                              reported, the fix's back-test on 6.12
#                              included (6.12's seed built in the
#                              background meanwhile), the digest sent
# and, as commentary, each job's verdict and the seeds' build times.
#
#   BENCH_DEMO_CACHE  scratch cache dir (default /var/tmp/bugbridge-bench-demo; wiped)
#   BB_BUILD          binaries (default ./build)
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BB_BUILD=${BB_BUILD:-$SRC/build}
CACHE=${BENCH_DEMO_CACHE:-/var/tmp/bugbridge-bench-demo}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bbdemo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
rm -rf "$CACHE"
# written back before the clock starts (see bench-speed.sh: discard)
sync
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
start=$(date +%s)
rc=0
BB_BUILD=$BB_BUILD BUGBRIDGE_RUNNER_CACHE_DIR=$CACHE DEMO_DIR=$WORK/demo ONCE=1 \
	"$SRC/tools/demo.sh" </dev/null >"$WORK/demo.out" 2>&1 || rc=$?
end=$(date +%s)
db=$WORK/demo/bugbridge.db
q() { sqlite3 -batch -noheader "$db" "$@"; }
if [ "$rc" != 0 ]; then
	echo "# the demo failed ($rc):"
	tail -20 "$WORK/demo.out" | sed 's/^/#   /'
	exit 1
fi
first=$(q "SELECT min(o.sent_at) FROM outbox o JOIN jobs j ON j.id = o.job_id
	JOIN candidates c ON c.id = j.candidate_id
	WHERE o.kind = 'comment' AND o.state = 'sent' AND c.name = 'sr-sense-valid.patch'
	AND j.base = 'linux-source-6.1'")
for j in $(q "SELECT id FROM jobs ORDER BY id"); do
	echo "# job $j: $(q "SELECT base || ', ' || coalesce(verdict, state) || ' ' ||
		coalesce(change, '') || ', ' || printf('%.0f s', max(s.finished_at) - min(s.started_at))
		FROM jobs j JOIN job_stages s ON s.job_id = j.id WHERE j.id = $j")"
done
grep -h "seed built in\|building the seed" "$WORK/demo.out" "$WORK/demo/warm-6.12.log" 2>/dev/null |
	sed 's/^ */# /'
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$first" ] && echo "demo, cold first verdict (the sr fix on 6.1, with its baseline): $((first - start)) s"
echo "demo, whole (the back-test on 6.12 included): $((end - start)) s"
