#!/bin/sh
# t3520: a fixed sample of the mutation campaign (issue 15), so that a suite
# that stops catching the completion path's bugs fails CI.  `make mutants`
# runs the whole campaign (hours); here:
#   - mutagen.py is deterministic (same source, same mutants, byte for byte)
#     and produces every operator family over the listed functions;
#   - the mutants in kernel-patches/mutants/sample run through the real
#     runner (tools/mutants.py --only, on top of the sr fix) and each must be
#     killed, and the report says so.
# The campaign's base runs (seed, sr fix passes) are t3010's and t3020's;
# --live uses kernel-patches itself, whose seed build those tests made.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

SAMPLE=$(grep -v '^#' "$KP/mutants/sample" | awk 'NF { print $1 }')
n=$(echo "$SAMPLE" | wc -w)
plan $((4 + n))

tree=$TMP/src
mkdir -p "$tree"
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$tree" --strip-components=1 \
	linux-source-6.1/drivers/scsi/scsi.c linux-source-6.1/drivers/scsi/scsi_lib.c \
	linux-source-6.1/drivers/scsi/scsi_error.c linux-source-6.1/drivers/scsi/sd.c \
	linux-source-6.1/drivers/scsi/sr.c
gen() {
	python3 "$KP/tools/mutagen.py" --tree "$tree" --out "$1" --max 170 \
		--base-patch "$KP"/sr-sense-valid/0001-*.patch >/dev/null
}
gen "$TMP/m1" && gen "$TMP/m2"
check "mutagen.py gives the same mutants twice, byte for byte" diff -r "$TMP/m1" "$TMP/m2"
is "170 mutants kept (round robin over the functions)" "$(wc -l <"$TMP/m1/manifest")" 170
python3 "$KP/tools/mutagen.py" --tree "$tree" --out "$TMP/all" \
	--base-patch "$KP"/sr-sense-valid/0001-*.patch >/dev/null
is "every operator family is there (all mutants, before the subset)" \
	"$(cut -f5 "$TMP/all/manifest" | sort -u | tr '\n' ' ')" \
	"aor bit cond const del lcr minmax neg ror shift "

BUGBRIDGE_MUTANTS_CACHE=$RUNNER_CACHE BB_BUILD=$BB_BUILD \
	python3 "$KP/tools/mutants.py" --live --no-base --fresh --report "$TMP/report" \
	--only "$(echo $SAMPLE | tr ' ' ',')" >"$TMP/out" 2>"$TMP/err"
is "the sample campaign ran" "$?" 0
for id in $SAMPLE; do
	st=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' \
		"$RUNNER_CACHE/mutants/results/$id.json" 2>/dev/null)
	is "mutant $id is killed by the suite" "$st" killed
done
diag "$(cat "$TMP/report" 2>/dev/null)"
diag "$(grep 'mutants:' "$TMP/err" | tail -5)"
done_testing
