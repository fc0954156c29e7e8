#!/bin/sh
# A patch whose GNU patch output floods (issue 23: apply's output was kept
# in a 4 MiB buffer, head only): the stand-in kernel (tests/lib/standin-
# kernel.sh) with a 3000-line drivers/scsi/sd.c, and a patch of 996 hunks
# against it, each a few lines off, so that GNU patch says "Hunk #N
# succeeded at L (offset -5 lines)." for every one: about as many bytes of
# output as the patch has.  The patch applies, and with the default
# [runner] max_build_log the job passes; with max_build_log = 16 KiB the
# same patch's output is a flood: the apply log keeps its first and last
# halves and a line saying how much was cut, and the flood is the patch's
# verdict (apply-failed, fault patch), never an infra-error.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin-kernel.sh"
standin_require

plan 9
standin_setup </dev/null
# a kernel file of some size (drivers/scsi/sd.c has about 4000 lines)
src=$TMP/src/linux-source-6.1
seq -f 'int l%g;' 1 3000 >"$src/drivers/scsi/sd.c"
tar -C "$TMP/src" -cf "$TMP/linux.tar" linux-source-6.1
{
	echo "--- a/drivers/scsi/sd.c"
	echo "+++ b/drivers/scsi/sd.c"
	i=1
	while [ $i -lt 2990 ]; do
		printf '@@ -%d,1 +%d,1 @@\n-int l%d;\n+int l%d; /* flood */\n' $((i + 5)) $((i + 5)) $i $i
		i=$((i + 3))
	done
} >"$TMP/flood.patch"

id=$(bb job add --bug 9370 --patch "$TMP/flood.patch" 2>/dev/null)
standin_run runner1.log
is "runner --once exits 0" "$?" "0"
is "with the default max_build_log the patch applies and the job passes" \
	"$(sql "SELECT verdict FROM jobs WHERE id = $id")" "pass"

printf 'max_build_log = 16384\n' >>"$TMP/bb.conf"
id=$(bb job add --bug 9370 --patch "$TMP/flood.patch" 2>/dev/null)
standin_run runner2.log
is "runner --once exits 0" "$?" "0"
log=$(sql "SELECT log_dir FROM jobs WHERE id = $id")/patched-apply.log
standin_capped "$log" 16384 25000 "Hunk #1 succeeded at 1 (offset -5 lines)" \
	"Hunk #996 succeeded at 2986 (offset -5 lines)"
is "the flood is the patch's verdict" "$(sql "SELECT verdict || ' ' || fault FROM jobs WHERE id = $id")" \
	"apply-failed patch"
like "saying why" "$(sql "SELECT verdict_detail FROM jobs WHERE id = $id")" \
	"GNU patch wrote [0-9]+ bytes of output, more than \[runner\] max_build_log \(16384\)"

done_testing
