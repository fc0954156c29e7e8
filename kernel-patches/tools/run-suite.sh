#!/bin/sh
# run-suite.sh SRC OUT [bbsuite.only-NAME]
#
# Developer tool: build the kernel tree SRC (already patched, harness
# included) in OUT with configs/base.config, boot it in QEMU (TCG) with the
# suite, print the KTAP report.  Work files go to OUT/bbrun.  Arguments are
# passed as argv elements, never through a shell string.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 SRC OUT [TEST]" >&2; exit 2; }
src=$1 out=$2
"$here/build-kernel.sh" "$src" "$out" >/dev/null
if [ $# -ge 3 ]; then
	exec python3 "$here/bbrun.py" --kernel "$out/arch/x86/boot/bzImage" --work "$out/bbrun" --only "$3"
fi
exec python3 "$here/bbrun.py" --kernel "$out/arch/x86/boot/bzImage" --work "$out/bbrun"
