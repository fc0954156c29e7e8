#!/bin/sh
# bench-controllers.sh: what each host adapter of kernel-patches/suite/
# scenarios costs a job (issue 34), as "name: value unit" lines:
#   kernel with every controller, build   one kernel, base.config and every
#                        controller's fragment, from a fresh tree (ccache as set)
#   NAME driver build    wall seconds (make, two jobs) to compile the
#                        controller's driver again (the objects of its
#                        "selects" paths: drivers/scsi/megaraid/ for megasas),
#                        ccache off
#   NAME boot            QEMU start to exit for the controller's boot (its
#                        hba-NAME-* tests), TCG, kernel-patches/tools/bbrun.py
#
#   BENCH_TREE   scratch dir for the kernel tree (default /var/tmp/bugbridge-bench-hba;
#                wiped); the 6.1 tarball is extracted there, the harness applied
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
KP=$SRC/kernel-patches
DIR=${BENCH_TREE:-/var/tmp/bugbridge-bench-hba}
TARBALL=/usr/src/linux-source-6.1.tar.xz
rm -rf "$DIR"
mkdir -p "$DIR"
tar -C "$DIR" -xf "$TARBALL"
tree=$DIR/linux-source-6.1
for p in $(cat "$KP/harness/series"); do
	patch -s -p1 -d "$tree" <"$KP/harness/$p"
done

# the controllers' boots: NAME FRAGMENT SELECTS...
ctls=$(awk '$1 == "boot" { b = $2 } $1 == "controller" { c[b] = $2 }
	$1 == "config" { f[b] = $2 } $1 == "selects" { s[b] = substr($0, index($0, "selects") + 8) }
	END { for (b in c) print c[b], (f[b] ? f[b] : "-"), s[b] }' "$KP/suite/scenarios" | sort)

# one kernel with every controller's fragment (the boots need their drivers)
set -- "$KP/configs/base.config"
for f in $(echo "$ctls" | awk '$2 != "-" { print $2 }'); do
	set -- "$@" "$KP/configs/$f.config"
done
out=$DIR/out
t0=$(date +%s.%N)
"$KP/tools/build-kernel.sh" "$tree" "$out" "$@" >"$DIR/build.log" 2>&1
t1=$(date +%s.%N)
echo "kernel with every controller, build: $(echo "$t1 - $t0" | bc | awk '{ printf "%.1f", $1 }') s"

echo "$ctls" | while read -r name frag sel; do
	objs=""
	for s in $sel; do
		case $s in
		*/) objs="$objs $s" ;;
		*.c) objs="$objs ${s%.c}.o" ;;
		esac
	done
	# the driver's objects again, alone, without ccache: what it adds to a build
	for o in $objs; do
		case $o in */) find "$out/$o" -name '*.o' -delete ;; *) rm -f "$out/$o" ;; esac
	done
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # object names, split on purpose
	CCACHE_DISABLE=1 make -s -j"$(nproc)" -C "$tree" O="$out" ARCH=x86_64 $objs >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo "$name driver build: $(echo "$t1 - $t0" | bc | awk '{ printf "%.1f", $1 }') s"
	work=$DIR/boot-$name
	t0=$(date +%s.%N)
	python3 "$KP/tools/bbrun.py" --kernel "$out/arch/x86/boot/bzImage" --work "$work" \
		--boot "hba-$name" >"$work.ktap" 2>/dev/null || true
	t1=$(date +%s.%N)
	echo "# $name: $(grep -c '^ok' "$work.ktap" || true) ok, $(grep -c '^not ok' "$work.ktap" || true) not ok"
	echo "$name boot: $(echo "$t1 - $t0" | bc | awk '{ printf "%.1f", $1 }') s"
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (figures are upper bounds on a loaded machine)"
rm -rf "$DIR"
