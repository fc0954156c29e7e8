#!/bin/sh
# A short libFuzzer run of every fuzz target (seconds each); `make fuzz` runs
# them longer.  Inputs that once crashed live in tests/fuzz/corpus/ and are
# replayed here first, as regression tests.
. "$(dirname "$0")/lib/test-lib.sh"
DIR=${BB_FUZZ_DIR:-$BB_SRC/build/fuzzlib/fuzz}
set --
for f in "$DIR"/fuzz_*; do
	case "$f" in *.d) continue ;; esac
	[ -x "$f" ] && set -- "$@" "$f"
done
[ $# -gt 0 ] || skip_all "no fuzz targets built in $DIR (make fuzzers SAN=fuzz)"
plan $#
for bin in "$@"; do
	name=$(basename "$bin" | sed 's/^fuzz_//')
	mkdir -p "$TMP/$name"
	[ -d "$BB_SRC/tests/fuzz/corpus/$name" ] && cp -r "$BB_SRC/tests/fuzz/corpus/$name"/. "$TMP/$name/"
	if "$bin" -max_total_time="${FUZZ_SMOKE_TIME:-3}" -max_len=65536 \
		-artifact_prefix="$TMP/" "$TMP/$name" >"$TMP/$name.log" 2>&1; then
		ok "fuzz $name: $(grep -Eo 'Done [0-9]+ runs' "$TMP/$name.log" | tail -1), no crash"
	else
		not_ok "fuzz $name crashed"
		diag "$(grep -E 'ERROR|SUMMARY|==' "$TMP/$name.log" | head -10)"
	fi
done
