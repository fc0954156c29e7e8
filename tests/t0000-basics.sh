#!/bin/sh
# The three programs: help, version, and one-line errors with exit 2.
. "$(dirname "$0")/lib/test-lib.sh"
plan 19

for prog in bugbridged bugbridge-runner bugbridge; do
	out=$("$BB_BUILD/$prog" --help 2>&1); rc=$?
	is "$prog --help exits 0" "$rc" 0
	like "$prog --help prints usage" "$out" "^usage: $prog"
done

out=$(bbd --config /nonexistent 2>&1); rc=$?
is "bugbridged with a missing config exits 2" "$rc" 2
is "bugbridged with a missing config prints one line" "$(printf '%s\n' "$out" | wc -l)" 1
like "the line names the file and the problem" "$out" "cannot read config '/nonexistent': No such file"

printf '[db]\npath = %s/x.db\n[trackr]\nurl = x\n' "$TMP" >"$TMP/bad.conf"
out=$(bbd --config "$TMP/bad.conf" 2>&1); rc=$?
is "an invalid config exits 2" "$rc" 2
like "and names file, line and problem" "$out" "bad.conf:3: unknown section \[trackr\]"
test ! -e "$TMP/x.db"; is "nothing was written for an invalid config" "$?" 0

out=$(bb --no-such-option 2>&1); rc=$?
is "an unknown option exits 2" "$rc" 2
like "and is named" "$out" "option '--no-such-option' is unknown"

for sub in db status config job digest; do
	out=$(bb "$sub" --help 2>&1); rc=$?
	if [ "$rc" = 0 ] && printf '%s' "$out" | grep -q "usage: bugbridge $sub"; then
		ok "bugbridge $sub --help prints its usage"
	else
		not_ok "bugbridge $sub --help prints its usage"; diag "rc=$rc: $out"
	fi
done
