#!/bin/sh
# t3520: a fixed sample of the mutation campaign (issues 15, 24), so that a
# suite that stops catching the completion path's bugs fails CI.  `make
# mutants` runs the whole campaign; here:
#   - mutagen.py is deterministic (same source, same mutants and schemata,
#     byte for byte) and produces every operator family;
#   - the schemata kernel (every mutant behind bb_mutant=N) is built through
#     the real runner and passes the suite with bb_mutant=0; the mutants in
#     kernel-patches/mutants/sample then run as jobs booting that kernel
#     (tools/mutants.py --only) and each must be killed.
# --live uses kernel-patches itself, whose seed build t3010 and t3020 made.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

SAMPLE=$(grep -v '^#' "$KP/mutants/sample" | awk 'NF { print $1 }')
n=$(echo "$SAMPLE" | wc -w)
plan $((8 + n))

tree=$TMP/src
mkdir -p "$tree"
files=$(grep -v '^#' "$KP/tools/mutant-functions" | awk 'NF { print "linux-source-6.1/" $1 }' | sort -u)
# shellcheck disable=SC2086 # a list of tarball members, split on purpose
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$tree" --strip-components=1 $files
gen() {
	python3 "$KP/tools/mutagen.py" --tree "$tree" --out "$1" --max 440 --schemata \
		--base-patch "$KP"/sr-sense-valid/0001-*.patch >/dev/null
}
gen "$TMP/m1" && gen "$TMP/m2"
check "mutagen.py gives the same mutants and schemata twice, byte for byte" diff -r "$TMP/m1" "$TMP/m2"
is "440 mutants kept (round robin over the functions)" "$(wc -l <"$TMP/m1/manifest")" 440
is "the schemata numbers every one of them" "$(wc -l <"$TMP/m1/schemata")" 440
python3 "$KP/tools/mutagen.py" --tree "$tree" --out "$TMP/all" \
	--base-patch "$KP"/sr-sense-valid/0001-*.patch >/dev/null
is "every operator family is there (all mutants, before the subset)" \
	"$(cut -f5 "$TMP/all/manifest" | sort -u | tr '\n' ' ')" \
	"aor bit cond const del lcr minmax neg ror shift "

# the schemata kernel is built once (its bb_mutant=0 run must pass), then
# each sample mutant is a job that boots it with bb_mutant=N
BUGBRIDGE_MUTANTS_CACHE=$RUNNER_CACHE BB_BUILD=$BB_BUILD \
	python3 "$KP/tools/mutants.py" --live --fresh --report "$TMP/report" \
	--only "$(echo $SAMPLE | tr ' ' ',')" >"$TMP/out" 2>"$TMP/err"
is "the sample campaign ran" "$?" 0
for id in $SAMPLE; do
	st=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' \
		"$RUNNER_CACHE/mutants/results/$id.json" 2>/dev/null)
	is "mutant $id is killed by the suite" "$st" killed
done
is "no sample job built a kernel: each booted the kept schemata kernel" \
	"$(cd "$RUNNER_CACHE/mutants/results" && python3 -c 'import json,sys
print(sum(1 for f in sys.argv[1:] if json.load(open(f + ".json")).get("built", True)))' $SAMPLE)" 0
# sd_sync_cache runs only when a disk with a write cache goes away: its
# mutant gets the tests that ran it in the clean run, not the whole suite,
# and every such selection passed alone without a mutant first
is "a mutant whose function does not run at boot gets only the tests that run it" \
	"$(python3 -c 'import json,sys; print(",".join(json.load(open(sys.argv[1]))["tests"] or ["all"]))' \
		"$RUNNER_CACHE/mutants/results/sd_sync_cache-2cada325.json" 2>/dev/null)" \
	"lying-device-flush,kernel-log-clean"
grep -q 'selections of tests run alone without a mutant: \([0-9]*\) pass' "$TMP/err" &&
	! grep -q 'fails without a mutant' "$TMP/err"
is "each selection passed alone on the kernel without a mutant" "$?" 0
diag "$(cat "$TMP/report" 2>/dev/null)"
diag "$(grep 'mutants:' "$TMP/err" | tail -5)"
done_testing
