#!/bin/sh
# check-suite-list.sh: the tests kernel-patches/suite/scenarios lists are
# bbsuite's test table, in its order.  The runner reads the list to report
# every test a crashed boot never reached, and to tell a board which tests
# need QEMU's devices: a test missing from it goes unreported.
set -eu
kp=$(dirname "$0")/../kernel-patches/suite
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n 's/^[[:space:]]*{ "\([a-z0-9-]*\)", t_[a-z0-9_]*, [A-Z]* },.*/\1/p' "$kp/bbsuite.c" >"$tmp/bbsuite.c"
[ -s "$tmp/bbsuite.c" ] || { echo "check-suite-list: no test table in $kp/bbsuite.c" >&2; exit 1; }
awk '$1 == "test" { print $2 }' "$kp/scenarios" >"$tmp/scenarios"
if ! cmp -s "$tmp/bbsuite.c" "$tmp/scenarios"; then
	echo "check-suite-list: kernel-patches/suite/scenarios does not list bbsuite.c's tests in order:" >&2
	(cd "$tmp" && diff -u bbsuite.c scenarios >&2) || true
	exit 1
fi
