#!/bin/sh
# The size rule (tools/check-size.sh: 700 lines a file, 80 a function) holds
# on the tree, and it sees the harness as applied: kernel-patches/harness
# leaves drivers/scsi/scsi_bbtest* files that are in no source folder.
# Without the split patch the one file of the series is refused; a patch
# that grows a split file past 700 lines is refused, naming it; the split
# patch is what harness-split.py makes from the patches before it.
. "$(dirname "$0")/lib/test-lib.sh"
command -v patch >/dev/null 2>&1 || skip_all "patch not installed"
plan 7

check "the size check passes on the tree" "$BB_SRC/tools/check-size.sh" "$BB_SRC"
check "the split patch is what harness-split.py makes of the series now" \
	python3 "$BB_SRC/kernel-patches/tools/harness-split.py" --check

# A copy with only the harness series, to break.
copy="$TMP/src"
mkdir -p "$copy/tools" "$copy/kernel-patches"
cp "$BB_SRC/tools/check-size.sh" "$copy/tools/"
cp -r "$BB_SRC/kernel-patches/harness" "$copy/kernel-patches/"
git -C "$copy" init -q && git -C "$copy" add -A
check "the copy passes" "$copy/tools/check-size.sh" "$copy"

sed -i '/split-by-concern/d' "$copy/kernel-patches/harness/series"
out=$("$copy/tools/check-size.sh" "$copy" 2>&1)
is "the series without its split patch fails" "$?" 1
like "naming the one file it leaves" "$out" \
	'^kernel-patches/harness \(applied\): drivers/scsi/scsi_bbtest\.c: [0-9]+ lines \(at most 700\)$'

# A patch after the split that adds 700 lines to the rules file.
cp "$BB_SRC/kernel-patches/harness/series" "$copy/kernel-patches/harness/series"
mkdir -p "$TMP/a/drivers/scsi"
(cd "$copy" && for p in $(cat kernel-patches/harness/series); do
	awk '/^diff --git / { keep = index($0, " a/drivers/scsi/scsi_bbtest") > 0 } keep' \
		"kernel-patches/harness/$p" | patch -s -d "$TMP/a" -p1 -f
done)
cp -r "$TMP/a" "$TMP/b"
i=0
while [ $i -lt 700 ]; do echo "/* more */"; i=$((i + 1)); done >>"$TMP/b/drivers/scsi/scsi_bbtest_rules.c"
(cd "$TMP" && diff -u a/drivers/scsi/scsi_bbtest_rules.c b/drivers/scsi/scsi_bbtest_rules.c |
	sed '1i diff --git a/drivers/scsi/scsi_bbtest_rules.c b/drivers/scsi/scsi_bbtest_rules.c') \
	>"$copy/kernel-patches/harness/9999-grow.patch"
echo 9999-grow.patch >>"$copy/kernel-patches/harness/series"
out=$("$copy/tools/check-size.sh" "$copy" 2>&1)
is "a patch growing a split file past 700 lines fails" "$?" 1
like "naming that file alone" "$out" \
	'^kernel-patches/harness \(applied\): drivers/scsi/scsi_bbtest_rules\.c: [0-9]+ lines \(at most 700\)$'
done_testing
