#!/bin/sh
# t3520: the mutation campaign in make check (issues 15, 24, 32), so that a
# list that drifts from the code, or a suite that stops catching the
# completion stack's bugs, fails CI.  `make mutants` runs the whole
# campaign; here:
#   - the campaign's list is the code: tools/mutant-scope.py derives it
#     again from the runner's base tree under configs/base.config and it
#     must equal tools/mutant-functions; a list missing one function, or
#     with one more, fails that check;
#   - mutagen.py is deterministic (same source and seed, same mutants and
#     schemata, byte for byte), keeps at most --cap mutants per function
#     (all of a smaller function's), draws another sample from another
#     seed, and produces every operator family;
#   - the schemata kernel (every mutant behind bb_mutant=N) is built through
#     the real runner and passes the suite with bb_mutant=0; the mutants in
#     kernel-patches/mutants/sample then run as jobs booting that kernel
#     (tools/mutants.py --only) and each must be killed, with the tests it
#     failed counted (no bbsuite.stop: every selected test runs).
# --live uses kernel-patches itself, whose seed build t3010 and t3020 made.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

SAMPLE=$(grep -v '^#' "$KP/mutants/sample" | awk 'NF { print $1 }')
n=$(echo "$SAMPLE" | wc -w)
plan $((13 + 2 * n))
CAP=$(sed -n 's/^DEFAULT_CAP = \([0-9]*\)$/\1/p' "$KP/tools/mutants.py")
SEED=$(sed -n 's/^DEFAULT_SEED = "\(.*\)"$/\1/p' "$KP/tools/mutants.py")
export BUGBRIDGE_MUTANTS_CACHE="$RUNNER_CACHE"

# the list: derived again (its kernel build is kept in the cache), then a
# list that lost a line and one that gained one must both disagree
python3 "$KP/tools/mutant-scope.py" >"$TMP/scope.out" 2>"$TMP/scope.err"
is "mutant-scope.py: tools/mutant-functions is the code's list" "$?" 0
grep -v ' sd_done ' "$KP/tools/mutant-functions" >"$TMP/list-short"
python3 "$KP/tools/mutant-scope.py" --list "$TMP/list-short" >"$TMP/short.out" 2>&1
st=$?
like "a list without sd_done disagrees with the code, and the diff names it" \
	"$st $(grep '^+' "$TMP/short.out" | grep sd_done)" '^1 \+drivers/scsi/sd.c sd_done '
{ cat "$KP/tools/mutant-functions"; echo "drivers/scsi/sd.c sd_invented 1"; } >"$TMP/list-long"
python3 "$KP/tools/mutant-scope.py" --list "$TMP/list-long" >"$TMP/long.out" 2>&1
is "a list with a function the code lacks disagrees too" "$?" 1

tree=$TMP/src
mkdir -p "$tree"
files=$(grep -v '^#' "$KP/tools/mutant-functions" | awk 'NF { print "linux-source-6.1/" $1 }' | sort -u)
# shellcheck disable=SC2086 # a list of tarball members, split on purpose
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$tree" --strip-components=1 $files
gen() {
	python3 "$KP/tools/mutagen.py" --tree "$tree" --out "$1" --cap "$2" --seed "$3" \
		--schemata --base-patch "$KP"/sr-sense-valid/0001-*.patch >/dev/null
}
gen "$TMP/m1" "$CAP" "$SEED" && gen "$TMP/m2" "$CAP" "$SEED"
check "mutagen.py gives the same mutants and schemata twice, byte for byte" diff -r "$TMP/m1" "$TMP/m2"
is "the schemata numbers every one of them" "$(wc -l <"$TMP/m1/schemata")" \
	"$(wc -l <"$TMP/m1/manifest")"
gen "$TMP/m3" "$CAP" "$SEED-other"
unlike "another seed draws another sample" "$(cmp "$TMP/m1/manifest" "$TMP/m3/manifest" 2>&1)" '^$'
# every candidate, counted per function, against the sample
python3 - "$KP/tools" "$tree" "$KP"/sr-sense-valid/0001-*.patch "$TMP/m1/manifest" "$CAP" \
	>"$TMP/cap.out" <<'EOF'
import collections, sys
sys.path.insert(0, sys.argv[1])
import mutagen
tools, tree, fix, manifest, cap = sys.argv[1:6]
funcs = mutagen.read_functions(tools + "/mutant-functions", with_lines=True)
texts = mutagen.load_files(tree, sorted({f for f, _, _ in funcs}), [fix])
every = mutagen.generate(texts, funcs)
cand = collections.Counter(m["func"] for m in every)
kept = collections.Counter(l.split("\t")[3] for l in open(manifest))
wrong = [f for _, f, _ in funcs if kept[f] != min(int(cap), cand[f])]
print("families:", " ".join(sorted({m["op"] for m in every})))
print("functions:", len(funcs), "without a mutant:", sum(1 for _, f, _ in funcs if not cand[f]))
print("wrong:", " ".join(wrong[:5]) or "none")
EOF
is "each listed function keeps min(cap, its candidates) mutants" \
	"$(sed -n 's/^wrong: //p' "$TMP/cap.out")" none
is "every function the list says is mutated has a candidate" \
	"$(sed -n 's/.*without a mutant: //p' "$TMP/cap.out")" 0
is "every operator family is there (all candidates, before the sample)" \
	"$(sed -n 's/^families: //p' "$TMP/cap.out")" \
	"aor bit bool compl cond const del incdec lcr minmax neg ror shift"

# the schemata kernel is built once (its bb_mutant=0 run must pass), then
# each sample mutant is a job that boots it with bb_mutant=N; a result left
# by an earlier run must not stand in for one this run did not write
for id in $SAMPLE; do rm -f "$RUNNER_CACHE/mutants/results/$id.json"; done
BB_BUILD=$BB_BUILD python3 "$KP/tools/mutants.py" --live --fresh --report "$TMP/report" \
	--only "$(echo "$SAMPLE" | paste -sd, -)" >"$TMP/out" 2>"$TMP/err"
is "the sample campaign ran" "$?" 0
result() {	# result ID FIELD: one field of a kept result, as JSON
	python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' \
		"$RUNNER_CACHE/mutants/results/$1.json" "$2" 2>/dev/null
}
for id in $SAMPLE; do
	is "mutant $id is killed by the suite" "$(result "$id" status)" '"killed"'
	like "mutant $id: the tests it failed are counted, every selected test ran" \
		"$(result "$id" failed) $(result "$id" stop)" '^\[".*"\] false$'
done
# shellcheck disable=SC2086 # the sample's ids, split on purpose
is "no sample job built a kernel: each booted the kept schemata kernel" \
	"$(cd "$RUNNER_CACHE/mutants/results" && python3 -c 'import json,sys
print(sum(1 for f in sys.argv[1:] if json.load(open(f + ".json")).get("built", True)))' $SAMPLE)" 0
grep -q 'selections of tests run alone without a mutant: \([0-9]*\) pass' "$TMP/err" &&
	! grep -q 'fails without a mutant' "$TMP/err"
is "each selection passed alone on the kernel without a mutant" "$?" 0
like "the report gives the kill rate of each file and the failed tests of each kill" \
	"$(grep -c '%$' "$TMP/report") $(grep -c '^  all .* kills: median' "$TMP/report")" '^[1-9][0-9]* 1$'
diag "$(head -40 "$TMP/report" 2>/dev/null)"
diag "$(grep 'mutants:' "$TMP/err" | tail -5)"
done_testing
