#!/bin/sh
# The KVM probe boots a kernel bugbridge built itself (the seed), never a
# job's patched kernel (issue 23): a patch must not decide how every later
# guest runs.  A stand-in kernel (tests/lib/standin-kernel.sh) whose patch
# makes its bzImage say "patched"; [runner] accel = auto with no answer
# kept from an earlier probe.  With a /dev/kvm the stand-in QEMU shows the
# probe boot's command line (no marker comes back: TCG); without one the
# probe stops before QEMU: what the runner logs and records is asserted.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin-kernel.sh"
standin_require

plan 7
standin_setup </dev/null
sed -i 's/^accel = tcg$/accel = auto/' "$TMP/bb.conf"
standin_patch patched-kernel <<'SED'
/LD      vmlinux/i\
	@echo "a patched kernel" >$(O)/arch/x86/boot/bzImage
SED
id=$(bb job add --bug 9370 --patch "$TMP/patched-kernel.patch" 2>/dev/null)
BUGBRIDGE_KEEP_TREES=1 standin_run runner.log
is "runner --once exits 0" "$?" "0"
probed=$(sed -n "s/.*runner: KVM probe: the seed's kernel //p" "$TMP/runner.log")
like "the probe took the seed's bzImage" "$probed" "^$TMP/cache/seed/[0-9a-f]+/arch/x86/boot/bzImage$"
check "which is the base's kernel, as bugbridge built it" cmp -s "$probed" /dev/zero -n 4096
jobdir=$(sql "SELECT log_dir FROM jobs WHERE id = $id" | sed 's|/logs$||')
check "while the job's patched kernel was there" grep -q "a patched kernel" "$jobdir/patched/bzImage"
unlike "and never the job's" "$(grep "KVM probe" "$TMP/runner.log")" "/jobs/"
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	like "QEMU's probe boot (the stand-in's argv) got -accel kvm and the seed's kernel" \
		"$(grep -e '-accel kvm' "$TMP/qemu.args")" "-accel kvm .*-kernel $probed "
else
	check "no usable /dev/kvm: the runner says so" grep -q "KVM probe: no usable /dev/kvm" "$TMP/runner.log"
fi
is "and the job records TCG" "$(sql "SELECT accel FROM jobs WHERE id = $id")" "tcg"

done_testing
