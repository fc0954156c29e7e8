#!/bin/sh
# build-kernel.sh SRC OUT [FRAGMENT...]
#
# Configure (once per OUT) and build bzImage of the kernel tree SRC in the
# build directory OUT: tinyconfig, the fragments merged with
# merge_config.sh -m, olddefconfig, then a check that every option the
# fragments ask for survived.  Fragments default to configs/base.config.
# Uses ccache when it is installed.  Never run inside the bugbridge repo.
# BUILD_TARGETS (default bzImage) names other make targets, such as single
# objects (tools/check-bases.sh builds drivers/scsi/scsi_bbtest.o alone).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 SRC OUT [FRAGMENT...]" >&2; exit 2; }
src=$(cd "$1" && pwd -P)
mkdir -p "$2"
out=$(cd "$2" && pwd -P)
shift 2
[ $# -gt 0 ] || set -- "$here/configs/base.config"
cc=gcc
command -v ccache >/dev/null 2>&1 && cc="ccache gcc"
# Paths below the tree's parent are hashed relative to it, so trees that
# sit at different places (the test cache, a developer's scratch) share
# ccache entries.
CCACHE_BASEDIR=$(dirname "$src")
# depend mode: the headers from kbuild's -MMD file, no second preprocessor
# run on a miss (runner/build.c says what it saves)
CCACHE_DEPEND=1
export CCACHE_BASEDIR CCACHE_DEPEND
jobs=$(nproc 2>/dev/null || echo 2)

# config_holds FRAGMENT...: every option the fragments set is in .config;
# names the first that is not (quiet with -q).
config_holds() {
	_say=1
	[ "$1" = -q ] && { _say=0; shift; }
	for f in "$@"; do
		grep -E '^CONFIG_[A-Z0-9_]+=' "$f" | while IFS= read -r line; do
			grep -qxF "$line" "$out/.config" && continue
			[ $_say = 0 ] || echo "config: $line did not survive olddefconfig" >&2
			exit 1
		done || return 1
	done
}

# A make run in this tree without the harness applied (by hand, say) lets
# kbuild's syncconfig drop the harness's options from .config for good:
# configure again whenever a requested option is gone.
if [ ! -f "$out/.config" ] || [ "$out/.config" -ot "$1" ] || ! config_holds -q "$@"; then
	make -s -C "$src" O="$out" ARCH=x86_64 tinyconfig
	frags=""
	for f in "$@"; do
		frags="$frags $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
	done
	# shellcheck disable=SC2086 # fragment paths are ours, split on purpose
	(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >/dev/null)
	make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig
	config_holds "$@" || { rm -f "$out/.config"; exit 1; }
fi
# depend mode hashes a source and the headers the compiler names, never
# what it pulls in with .incbin: piggy.S (the compressed vmlinux) is the
# same text for two kernels of one size, and ccache served the other
# kernel's piggy.o (t3500 booted the unfixed sr.c 3 times in 4).  ccache
# refuses to cache a compile with -save-temps, so these always compile.
# runner/build.c passes the same list (INCBIN_UNCACHED).
# shellcheck disable=SC2086 # BUILD_TARGETS is a list of targets, split on purpose
make -s -C "$src" O="$out" ARCH=x86_64 CC="$cc" -j"$jobs" \
	AFLAGS_piggy.o=-save-temps=obj AFLAGS_rmpiggy.o=-save-temps=obj \
	AFLAGS_initramfs_data.o=-save-temps=obj ${BUILD_TARGETS:-bzImage}
[ -n "${BUILD_TARGETS:-}" ] || echo "$out/arch/x86/boot/bzImage"
