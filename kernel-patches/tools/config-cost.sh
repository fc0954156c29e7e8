#!/bin/sh
# config-cost.sh SRC OUT [FRAGMENT...]
#
# What each option of the runner's kernel config costs to build (issue 16):
# a cold build of bzImage of SRC (a linux-source-6.1 tree with the harness
# applied) in a fresh OUT, configured as the runner configures it
# (tinyconfig + the fragments, default configs/base.config), with every
# compiler and linker run timed (timecc.sh, no ccache), then each object
# charged to the option that brings it in (config-cost.py).  Prints the
# table kernel-patches/README.md carries.  A few minutes on 2 cores.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 SRC OUT [FRAGMENT...]" >&2; exit 2; }
src=$(cd "$1" && pwd -P)
rm -rf "$2"
mkdir -p "$2"
out=$(cd "$2" && pwd -P)
shift 2
[ $# -gt 0 ] || set -- "$here/configs/base.config"
frags=""
for f in "$@"; do
	frags="$frags $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
done
make -s -C "$src" O="$out" ARCH=x86_64 tinyconfig >/dev/null
# shellcheck disable=SC2086 # fragment paths are ours, split on purpose
(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >/dev/null)
make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig >/dev/null
COST_LOG=$out/cost.log
export COST_LOG
: >"$COST_LOG"
echo "config-cost: building bzImage in $out ($(nproc) CPUs, each compile timed)" >&2
t0=$(date +%s%N)
make -s -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" KBUILD_BUILD_TIMESTAMP=bugbridge \
	CC="$here/tools/timecc.sh gcc" LD="$here/tools/timecc.sh ld" bzImage >"$out/build.log" 2>&1 ||
	{ tail -20 "$out/build.log" >&2; exit 1; }
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
wall=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
echo "config-cost: built in $wall s" >&2
python3 "$here/tools/config-cost.py" "$src" "$COST_LOG" "$wall" "$@"
