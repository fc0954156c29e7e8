#!/bin/sh
# check-size.sh [ROOT]: fail when a source file outside tests/ has more than
# MAX_FILE lines or a function of more than MAX_FUNC lines, one line per
# offence.  One concept per file and short functions are house rules
# (README, "Architecture"); this keeps them from drifting.  Run by `make check`.
set -eu
root=${1:-.}
MAX_FILE=${MAX_FILE:-700}
MAX_FUNC=${MAX_FUNC:-80}
cd "$root"
status=0
for file in $(git ls-files '*.c' '*.h' | grep -v '^tests/'); do
	awk -v max_file="$MAX_FILE" -v max_func="$MAX_FUNC" '
	# A function: a line at column 0 naming it, then "{" alone at column 0.
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { head = $0; head_line = FNR }
	/^\{/ && head != "" { start = head_line; name = head; head = "" }
	/^\}/ && start {
		if (FNR - start + 1 > max_func) {
			sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
			printf "%s:%d: %s() has %d lines (at most %d)\n", FILENAME, start, name,
			       FNR - start + 1, max_func
			bad = 1
		}
		start = 0
	}
	END {
		if (FNR > max_file) {
			printf "%s: %d lines (at most %d)\n", FILENAME, FNR, max_file
			bad = 1
		}
		exit bad
	}' "$file" || status=1
done
exit $status
