#!/bin/sh
# fuzz.sh: run every libFuzzer target in $BB_FUZZ_DIR for $FUZZ_TIME seconds,
# starting from tests/fuzz/corpus/<name>/.  A crash input is copied to
# build/fuzz-crashes/ (turn it into a regression test: add it to the corpus
# and fix the bug).  Exit non-zero if any target crashed.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
DIR=${BB_FUZZ_DIR:-$SRC/build/fuzzlib/fuzz}
TIME=${FUZZ_TIME:-60}
CRASHES=$SRC/build/fuzz-crashes
status=0
mkdir -p "$CRASHES"
for bin in "$DIR"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin" | sed 's/^fuzz_//')
	work=$(mktemp -d)
	corpus="$SRC/tests/fuzz/corpus/$name"
	mkdir -p "$work/corpus"
	[ -d "$corpus" ] && cp -r "$corpus"/. "$work/corpus/" 2>/dev/null
	if "$bin" -max_total_time="$TIME" -artifact_prefix="$work/" -max_len=65536 \
		"$work/corpus" >"$work/log" 2>&1; then
		echo "fuzz $name: $(grep -Eo 'Done [0-9]+ runs' "$work/log" | tail -1) in ${TIME}s, no crash"
	else
		status=1
		echo "fuzz $name: CRASH"; grep -E 'ERROR|SUMMARY' "$work/log" | head -5
		cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$CRASHES/" 2>/dev/null
	fi
	rm -rf "$work"
done
exit $status
