#!/bin/sh
# check-size.sh [ROOT]: fail when a source file outside tests/ has more than
# MAX_FILE lines or a function of more than MAX_FUNC lines, one line per
# offence.  One concept per file and short functions are house rules
# (README, "Architecture"); this keeps them from drifting.  Run by `make check`.
#
# The guest's lying SCSI device exists only as the patch series
# kernel-patches/harness, each patch adding to drivers/scsi/scsi_bbtest*:
# the series is applied (those parts only, into an empty directory: the
# Makefile and Kconfig hunks need a kernel tree) and the files it leaves are
# held to MAX_FILE too, their functions to HARNESS_MAX_FUNC (two, the
# command switch and the rule parser, were longer than 80 lines before the
# module was split by kernel-patches/tools/harness-split.py).
set -eu
root=${1:-.}
MAX_FILE=${MAX_FILE:-700}
MAX_FUNC=${MAX_FUNC:-80}
HARNESS_MAX_FUNC=${HARNESS_MAX_FUNC:-120}
cd "$root"
status=0

# size FILE MAX_FUNC NAME: the file's offences, NAME for FILE in them.
size() {
	awk -v max_file="$MAX_FILE" -v max_func="$2" -v name="$3" '
	# A function: a line at column 0 naming it, then "{" alone at column 0.
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { head = $0; head_line = FNR }
	/^\{/ && head != "" { start = head_line; fn = head; head = "" }
	/^\}/ && start {
		if (FNR - start + 1 > max_func) {
			sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn)
			printf "%s:%d: %s() has %d lines (at most %d)\n", name, start, fn,
			       FNR - start + 1, max_func
			bad = 1
		}
		start = 0
	}
	END {
		if (FNR > max_file) {
			printf "%s: %d lines (at most %d)\n", name, FNR, max_file
			bad = 1
		}
		exit bad
	}' "$1"
}

for file in $(git ls-files '*.c' '*.h' | grep -v '^tests/'); do
	size "$file" "$MAX_FUNC" "$file" || status=1
done

harness=kernel-patches/harness
if [ -f "$harness/series" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	while IFS= read -r p || [ -n "$p" ]; do
		case $p in ''|'#'*) continue ;; esac
		p=${p%% *}
		awk '/^diff --git / { keep = index($0, " a/drivers/scsi/scsi_bbtest") > 0 }
		     keep' "$harness/$p" >"$tmp/part"
		if ! patch -d "$tmp" -p1 -s -f --no-backup-if-mismatch -i "$tmp/part" \
			>"$tmp/log" 2>&1; then
			echo "$harness/$p: does not apply: $(head -1 "$tmp/log")"
			status=1
			break
		fi
	done <"$harness/series"
	for file in "$tmp"/drivers/scsi/*.[ch]; do
		[ -f "$file" ] || continue
		size "$file" "$HARNESS_MAX_FUNC" \
			"$harness (applied): drivers/scsi/${file##*/}" || status=1
	done
fi
exit $status
