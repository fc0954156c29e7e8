#!/bin/sh
# Nothing the build leaves in the job's tree is trusted by the runner
# (issue 23): every file it reads or writes there after a sandboxed step
# goes through lib/safefile.  Four patched builds of a stand-in kernel
# (tests/lib/standin-kernel.sh: seconds, no kernel build), each an attack
# in the patch's Makefile:
#   1. after vmlinux links, out/drivers/scsi/sd.gcda becomes a symlink to
#      a file outside the job's tree; the guest hands back sd.gcda: the
#      runner writes nothing outside and says why in the job's log (a
#      link over the directory itself hides sd.o too: the job is then
#      "untested", sd.c not seen compiled, before any boot);
#   2. olddefconfig leaves out/.config as a FIFO: refused, no hang;
#   3. or as a 2 GiB (sparse) file: refused, not read;
#   4. the build's bzImage is a symlink to the database: refused, never
#      booted nor published.
# 2-4 are the patch's verdict (build-failed), never an infra-error.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin-kernel.sh"
standin_require

plan 17
standin_setup <<EOF
coverage = true
EOF
OUTSIDE=$TMP/outside
mkdir -p "$OUTSIDE"
chmod 777 "$OUTSIDE"

# 1. the symlink after vmlinux: out/drivers/scsi/sd.gcda -> $OUTSIDE/sd.gcda
standin_patch scsi-link <<SED
/LD      vmlinux/a\\
	@ln -sf $OUTSIDE/sd.gcda \$(O)/drivers/scsi/sd.gcda && echo "attack: scsi linked"
SED
id=$(bb job add --bug 9370 --patch "$TMP/scsi-link.patch" 2>/dev/null)
standin_run runner1.log
is "runner --once exits 0" "$?" "0"
logs=$(sql "SELECT log_dir FROM jobs WHERE id = $id")
check "the attack ran after vmlinux linked" grep -q "attack: scsi linked" "$logs/patched-build.log"
check "the stand-in QEMU booted the kernel (its console hands back sd.gcda)" [ -s "$TMP/qemu.args" ]
is "nothing was written outside the job's tree" "$(ls -A "$OUTSIDE")" ""
like "the job's coverage log says why" "$(cat "$logs/patched-coverage.log" 2>/dev/null)" \
	"refused to write the guest's drivers/scsi/sd.gcda to '.*/out/drivers/scsi/sd.gcda': a symbolic link is on its path"
is "the job still has its verdict" "$(sql "SELECT verdict FROM jobs WHERE id = $id")" "pass"

# 2. a FIFO as out/.config
standin_patch config-fifo <<'SED'
s|@echo "olddefconfig: nothing to do"|@rm -f $(O)/.config \&\& mkfifo $(O)/.config \&\& echo "attack: fifo"|
SED
id=$(bb job add --bug 9370 --patch "$TMP/config-fifo.patch" 2>/dev/null)
start=$(date +%s)
standin_run runner2.log
is "runner --once exits 0, no hang" "$?" "0"
check "within a minute" [ $(( $(date +%s) - start )) -lt 60 ]
is "a FIFO .config is the patch's verdict" "$(sql "SELECT verdict || ' ' || fault FROM jobs WHERE id = $id")" \
	"build-failed patch"
like "saying why" "$(sql "SELECT verdict_detail FROM jobs WHERE id = $id")" \
	"refused to read out/.config: not a regular file"

# 3. a huge out/.config
standin_patch config-huge <<'SED'
s|@echo "olddefconfig: nothing to do"|@truncate -s 2G $(O)/.config \&\& echo "attack: huge"|
SED
id=$(bb job add --bug 9370 --patch "$TMP/config-huge.patch" 2>/dev/null)
standin_run runner3.log
is "runner --once exits 0" "$?" "0"
is "a 2 GiB .config is refused: the patch's verdict" \
	"$(sql "SELECT verdict || ' ' || fault FROM jobs WHERE id = $id")" "build-failed patch"
like "saying why" "$(sql "SELECT verdict_detail FROM jobs WHERE id = $id")" \
	"refused to read out/.config: larger than bugbridge reads"

# 4. the kernel is a symlink to the database
: >"$TMP/qemu.args"
standin_patch kernel-link <<SED
/LD      vmlinux/a\\
	@ln -sf $TMP/bugbridge.db \$(O)/arch/x86/boot/bzImage
SED
id=$(bb job add --bug 9370 --patch "$TMP/kernel-link.patch" 2>/dev/null)
standin_run runner4.log
is "runner --once exits 0" "$?" "0"
is "a linked kernel is the patch's verdict" "$(sql "SELECT verdict || ' ' || fault FROM jobs WHERE id = $id")" \
	"build-failed patch"
like "saying why" "$(sql "SELECT verdict_detail FROM jobs WHERE id = $id")" \
	"refused the built kernel out/arch/x86/boot/bzImage: a symbolic link is on its path"
is "and QEMU never ran" "$(cat "$TMP/qemu.args")" ""

done_testing
