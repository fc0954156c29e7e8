#!/bin/sh
# check-bases.sh [--build] [TARBALL...]
#
# Does every series of kernel-patches/bases apply, in order with the
# harness last, to each base it names, and (--build) does the harness
# build there?  TARBALLs default to every /usr/src/linux-source-*.tar.xz
# installed.  Each base is extracted once into $KDEV_ROOT/<name> (default
# ${BUGBRIDGE_CACHE:-~/.cache/bugbridge}/bases-check) with kdev-lib.sh's
# undo stack, so a second run costs seconds; --build configures it as the
# runner does (tinyconfig + configs/base.config, every option checked)
# and compiles scsi_bbtest's objects and sr.o only, not a kernel.
#
# Prints one line per base and series ("6.12.118 sr-sense-valid: applies")
# and exits 1 when a series fails on a base the file says it must take,
# or the harness does not build.  Series a base is not listed for are
# tried too and reported ("does not apply (not required)").
set -u
KP=$(cd "$(dirname "$0")/.." && pwd)
build=0
[ "${1:-}" = --build ] && { build=1; shift; }
[ $# -gt 0 ] || set -- /usr/src/linux-source-*.tar.xz
KDEV_ROOT=${KDEV_ROOT:-${BUGBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbridge}/bases-check}
# shellcheck source=kdev-lib.sh
. "$KP/tools/kdev-lib.sh"
rc=0

# required SERIES MAJOR.MINOR: is the base listed for that series?
required() {
	awk -v s="$1" -v b="$2" '$1 == s { for (i = 2; i <= NF; i++) if ($i == b) f = 1 }
		END { exit !f }' "$KP/bases"
}

for tarball in "$@"; do
	[ -r "$tarball" ] || { echo "check-bases: cannot read '$tarball'" >&2; rc=1; continue; }
	name=$(basename "$tarball" .tar.xz)
	# shellcheck disable=SC2034 # both read by kdev-lib.sh
	KDEV=$KDEV_ROOT/$name KSRC_TARBALL=$tarball
	kdev_setup || { echo "check-bases: cannot extract '$tarball'" >&2; rc=1; continue; }
	ver=$(make -s -C "$KDEV/linux" kernelversion)
	series=${ver%.*}
	for s in $(awk '!/^#/ && NF { print $1 }' "$KP/bases"); do
		[ "$s" = harness ] && continue
		if kdev_apply_series "$KP/$s" 2>"$KDEV/apply.log" &&
		   kdev_apply_series "$KP/harness" 2>>"$KDEV/apply.log"; then
			echo "$ver $s: applies"
		elif required "$s" "$series"; then
			echo "$ver $s: does not apply: $(grep 'does not apply' "$KDEV/apply.log" | head -1)"
			rc=1
		else
			echo "$ver $s: does not apply (not required)"
		fi
		kdev_reset
	done
	if ! kdev_apply_series "$KP/harness" 2>"$KDEV/apply.log"; then
		echo "$ver harness: does not apply: $(tail -1 "$KDEV/apply.log")"
		rc=1
	elif [ $build = 1 ]; then
		# the module's parts: built in, a composite is no object of its own
		objs=
		for c in "$KDEV"/linux/drivers/scsi/scsi_bbtest*.c; do
			objs="$objs drivers/scsi/$(basename "$c" .c).o"
		done
		if BUILD_TARGETS="${objs# } drivers/scsi/sr.o" kdev_build; then
			echo "$ver harness: applies, scsi_bbtest.o builds"
		else
			echo "$ver harness: applies, scsi_bbtest.o does not build (see $KDEV/build.log)"
			rc=1
		fi
	else
		echo "$ver harness: applies"
	fi
	kdev_reset
	exec 9>&-	# kdev_setup's lock
done
exit $rc
