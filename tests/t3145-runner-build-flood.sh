#!/bin/sh
# A build that floods its output (issue 23: a patch whose Makefile printed
# 1.2 GB kept a 1.2 GB build log): a stand-in kernel (tests/lib/
# standin-kernel.sh) whose patched bzImage recipe prints 50 MB between a
# first and a last line.  The build log keeps [runner] max_build_log (16 MiB
# by default): its first and last halves and a line saying how much was
# cut; the flood is the patch's verdict (build-failed, fault patch), never
# an infra-error.  A second job floods configure the same way.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin-kernel.sh"
standin_require

plan 11
standin_setup </dev/null
standin_patch build-flood <<'SED'
/LD      vmlinux/i\
	@echo "flood: first line" && head -c 50000000 /dev/zero | tr '\\0' x | fold -w 99 && echo && echo "flood: last line"
SED
id=$(bb job add --bug 9370 --patch "$TMP/build-flood.patch" 2>/dev/null)
standin_run runner1.log
is "runner --once exits 0" "$?" "0"
log=$(sql "SELECT log_dir FROM jobs WHERE id = $id")/patched-build.log
standin_capped "$log" $((16 * 1048576)) $((33 * 1000000)) "flood: first line" "flood: last line"
is "the flood is the patch's verdict" "$(sql "SELECT verdict || ' ' || fault FROM jobs WHERE id = $id")" \
	"build-failed patch"
like "saying why" "$(sql "SELECT verdict_detail FROM jobs WHERE id = $id")" \
	"the build wrote 50[0-9]* bytes of output, more than \[runner\] max_build_log"

standin_patch configure-flood <<'SED'
s|@echo "olddefconfig: nothing to do"|@head -c 30000000 /dev/zero \| tr '\\0' y \| fold -w 99|
SED
printf 'max_build_log = 1048576\n' >>"$TMP/bb.conf"
id=$(bb job add --bug 9370 --patch "$TMP/configure-flood.patch" 2>/dev/null)
standin_run runner2.log
is "runner --once exits 0" "$?" "0"
clog=$(sql "SELECT log_dir FROM jobs WHERE id = $id")/patched-configure.log
check "with max_build_log = 1 MiB the configure log is 1 MiB" [ "$(wc -c <"$clog")" -le $((1048576 + 4096)) ]
is "a configure flood is the patch's verdict too" \
	"$(sql "SELECT verdict || ' ' || fault FROM jobs WHERE id = $id")" "build-failed patch"
like "saying why" "$(sql "SELECT verdict_detail FROM jobs WHERE id = $id")" \
	"configuring the kernel wrote [0-9]+ bytes of output, more than \[runner\] max_build_log \(1048576\)"

done_testing
