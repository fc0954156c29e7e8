#!/bin/sh
# t3530: the suite is deterministic (issue 15: a mutation report is only as
# good as a suite that gives the same answer every time).  The base with the
# sr-sense-valid fix is built once by the real runner, then booted
# BB_REPEAT (default 20) times with the whole suite; every boot must pass
# every test, and the result lines (name and verdict, in order) must be the
# same each time.  About 20 s of TCG per boot: opt-in, BUGBRIDGE_SLOW=1.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
[ "${BUGBRIDGE_SLOW:-0}" = 1 ] || skip_all "slow (20 boots of the suite): set BUGBRIDGE_SLOW=1"
runner_require

N=${BB_REPEAT:-20}
plan $((N + 2))
runner_setup <<EOF
flake_retries = 0
coverage = false
EOF

id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" 2>/dev/null)
export BUGBRIDGE_KEEP_TREES=1
run_once runner.log
unset BUGBRIDGE_KEEP_TREES
is "the base with the sr fix passes in the runner" "$(job_field $id verdict)" pass
kernel=$(dirname "$(job_field $id log_dir)")/patched/tree/out/arch/x86/boot/bzImage

first=
same=0
for i in $(seq 1 "$N"); do
	python3 "$KP/tools/bbrun.py" --kernel "$kernel" --work "$TMP/run$i" >"$TMP/run$i.out" 2>&1
	grep -E '^(not )?ok [0-9]+ ' "$TMP/run$i/ktap.txt" | sed 's/ #.*//' >"$TMP/res$i"
	fails=$(grep -c '^not ok' "$TMP/res$i")
	is "boot $i: $(wc -l <"$TMP/res$i") results, none not ok" "$fails" 0
	[ -z "$first" ] && first=$TMP/res$i
	cmp -s "$first" "$TMP/res$i" && same=$((same + 1))
	grep '^# bbrun: wall' "$TMP/run$i.out" | sed "s/^# /boot $i: /" >&2
done
is "all $N boots gave identical results" "$same" "$N"
rm -rf "$(dirname "$(job_field $id log_dir)")/patched"
done_testing
