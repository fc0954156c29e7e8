#!/bin/sh
# Hostile patches against the apply step: a git diff that makes a symlink
# out of the tree and then writes through it, an ed script, a file name
# climbing out with "..".  Each is refused before GNU patch sees it: the
# verdict is apply-failed saying why, nothing is written outside the tree,
# and nothing is built.  Cheap: no kernel is built or booted.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 13
runner_setup </dev/null
OUT=$TMP/outside
mkdir -p "$OUT"
A=$BB_SRC/tests/data/attack
sed "s|@OUTSIDE@|$OUT|g" "$A/symlink-escape.mbox.in" >"$TMP/symlink-escape.mbox"
sed "s|@OUTSIDE@|$OUT|g" "$A/ed-script.patch.in" >"$TMP/ed-script.patch"

sl=$(bb job add --bug 9370 --patch "$TMP/symlink-escape.mbox" 2>/dev/null)
ed=$(bb job add --bug 9370 --patch "$TMP/ed-script.patch" 2>/dev/null)
dd=$(bb job add --bug 9370 --patch "$A/dotdot.patch" 2>/dev/null)
for j in 1 2 3; do
	run_once runner-$j.log || diag "runner $j: exit $?"
done

is "symlink diff: apply-failed" "$(job_field $sl verdict)" "apply-failed"
like "symlink diff: the detail says why" "$(job_field $sl verdict_detail)" \
	"patch 1/2 '\\[PATCH 1/2\\] scsi: add a link to the documentation' is refused: line [0-9]+: a symbolic link \(mode 120000\)"
is "ed script: apply-failed" "$(job_field $ed verdict)" "apply-failed"
like "ed script: the detail says why" "$(job_field $ed verdict_detail)" \
	"is refused: line 2: an ed script"
is "dotdot: apply-failed" "$(job_field $dd verdict)" "apply-failed"
like "dotdot: the detail says why" "$(job_field $dd verdict_detail)" \
	"is refused: line 1: a file name out of the tree"
is "nothing was written outside the tree" "$(ls -A "$OUT")" ""
is "nothing was built" \
	"$(sql "SELECT count(*) FROM job_stages WHERE stage IN ('configure', 'build')")" "0"
check "the apply log says why" grep -q "is refused: line [0-9]*: a symbolic link" \
	"$(job_field $sl log_dir)/patched-apply.log"
check "GNU patch never ran on the refused patch" \
	sh -c "! grep -q '^\\\$ patch' '$(job_field $sl log_dir)/patched-apply.log'"
base=$RUNNER_CACHE/base/linux-source-6.1
is "the base tree has no symlink from the patch" \
	"$(find "$base/drivers/scsi" -maxdepth 1 -name bbdoc | wc -l)" "0"
unlike "the base's sd.c was not edited by ed" "$(head -1 "$base/drivers/scsi/sd.c")" "written by ed"
is "every job is done" "$(sql "SELECT count(*) FROM jobs WHERE state = 'done'")" "3"

done_testing
