#!/bin/sh
# t3505: the harness, the configs and the guest suite are one source for
# every kept base.  On each installed linux-source tarball (6.1 and 6.12
# on Debian 12), kernel-patches/tools/check-bases.sh applies every series
# that kernel-patches/bases lists for it (the harness last) and compiles
# scsi_bbtest.c and sr.c configured as the runner configures (tinyconfig +
# configs/base.config, every option checked): a change to scsi_bbtest that
# uses an API one series lacks fails here in a minute, not in a runner job
# on that base.  A cold cache extracts each tarball once (tens of seconds);
# later runs rebuild only what changed.  Cache: the test cache's
# bases-check/.
. "$(dirname "$0")/lib/test-lib.sh"
KP=$BB_SRC/kernel-patches
[ "${BUGBRIDGE_SLOW:-0}" = 1 ] || skip_all "BUGBRIDGE_SLOW=1: builds the harness on every base (t3022 builds it on 6.12 through the runner)"
for need in patch flock gcc make; do
	command -v "$need" >/dev/null 2>&1 || skip_all "$need not installed"
done
set -- /usr/src/linux-source-6.1.tar.xz /usr/src/linux-source-6.12.tar.xz
for t in "$@"; do
	[ -r "$t" ] || skip_all "no $t (make deps installs linux-source-6.1 and -6.12)"
done
plan 6

cache=${BUGBRIDGE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbridge-test}
KDEV_ROOT=$cache/bases-check nice -n 10 "$KP/tools/check-bases.sh" --build "$@" \
	>"$TMP/check.out" 2>&1
rc=$?
diag "$(cat "$TMP/check.out")"
is "check-bases.sh passes on both bases" "$rc" 0
like "6.1: the harness applies and scsi_bbtest.o builds" "$(cat "$TMP/check.out")" \
	'6\.1\.[0-9]* harness: applies, scsi_bbtest.o builds'
like "6.12: the harness applies and scsi_bbtest.o builds" "$(cat "$TMP/check.out")" \
	'6\.12\.[0-9]* harness: applies, scsi_bbtest.o builds'
like "6.12: the sr fix applies" "$(cat "$TMP/check.out")" '6\.12\.[0-9]* sr-sense-valid: applies'
like "6.1: every series applies" "$(grep -c '^6\.1\.[0-9]* .*: applies' "$TMP/check.out")" '^4$'

# the check fails when a required series does not apply: a copy of
# kernel-patches whose sr fix removes a line no tree has
cp -R "$KP" "$TMP/kp"
sed -i 's/^-\(.*sense_buffer\[0\] & 0x\)90/-\1a0/' "$TMP"/kp/sr-sense-valid/0001-*.patch
KDEV_ROOT=$cache/bases-check "$TMP/kp/tools/check-bases.sh" /usr/src/linux-source-6.12.tar.xz \
	>"$TMP/broken.out" 2>&1
rc=$?
is "and fails, naming the series, when a required one does not apply" \
	"$rc:$(grep -c 'sr-sense-valid: does not apply' "$TMP/broken.out")" "1:1"
