#!/bin/sh
# A guest that floods its console: a candidate series whose first patch
# leaves a debug print in a loop (100 MiB before /init starts), whose second
# is the sr-sense-valid fix.  With the default [runner] max_console (16 MiB)
# the console log keeps the boot and the suite's end, says how much it cut,
# and the job still gets the fix's verdict from all of its tests.
#
# The guest needs about 4 minutes to push 100 MiB through the emulated UART
# (QEMU writes it a byte at a time), more than the suite's own 300 s boot
# timeout allows on a slow machine: the test runs on a copy of
# kernel-patches with that timeout raised.  That is BUGBRIDGE_SLOW=1; make
# check runs the same at an eighth of the scale (131072 lines, about 13 MiB,
# against a max_console of 2 MiB).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 11
cp -R "$KP" "$TMP/kernel-patches"
sed 's/^  timeout [0-9]*$/  timeout 1200/' "$KP/suite/scenarios" >"$TMP/kernel-patches/suite/scenarios"
KP="$TMP/kernel-patches"
if [ "${BUGBRIDGE_SLOW:-0}" = 1 ]; then
	LINES=1048576 MAX_MIB=16
else
	LINES=131072 MAX_MIB=2
fi
# one guest: its console alone is the subject (the shards of a boot share it, each its part)
runner_setup <<EOF2
boot_timeout = 1200
flake_retries = 0
max_console = $((MAX_MIB * 1048576))
shards = 1
EOF2

mkdir "$TMP/series"
sed "s/i < 1048576/i < $LINES/" "$BB_SRC/tests/data/runner/console-flood.patch" \
	>"$TMP/series/console-flood.patch"
cp "$KP"/sr-sense-valid/0001-*.patch "$TMP/series/"
(cd "$TMP/series" && ls *.patch | sort -r >series)	# the flood first, then the fix
id=$(bb job add --bug 9370 --series "$TMP/series" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the job is done" "$(job_field $id state)" "done"
is "the verdict is the fix's: pass" "$(job_field $id verdict)" "pass"
is "every test of the suite reported" \
	"$(sql "SELECT count(*) FROM test_results WHERE job_id = $id AND variant = 'patched'")" \
	"$(scenario_tests | wc -l)"

log="$(job_field $id log_dir)/patched-console-all.log"
size=$(wc -c <"$log")
check "the console log is capped near max_console ($MAX_MIB MiB): $size bytes" \
	[ "$size" -le $((MAX_MIB * 1048576 + 4096)) ]
cut=$(sed -n 's/^\[bugbridge: \([0-9]*\) bytes of console output cut here.*/\1/p' "$log")
# each flood line is 100 bytes and a time stamp
check "the log says how much it cut: $cut bytes" \
	[ "${cut:-0}" -ge $((LINES * 100 - MAX_MIB * 1048576)) ]
check "it keeps the start of the boot" grep -q "Linux version" "$log"
check "and the suite's end" grep -q "^ok [0-9]* kernel-log-clean" "$log"
check "the guest really flooded: the tail still has flood lines" \
	grep -q "bugbridge flood $(printf %07d $((LINES - 1))): a patch left" "$log"
like "the runner warned about the flood" "$(cat "$TMP/runner.log")" \
	"the guest wrote [0-9]+ bytes to its console; [0-9]+ cut"
is "the database is intact" "$(sql "PRAGMA integrity_check")" "ok"

done_testing
