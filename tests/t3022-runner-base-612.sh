#!/bin/sh
# t3022: the runner builds a job on linux-source-6.12 as on 6.1 (issue 25).
# kernel-patches/sr-sense-valid with --baseline --base 6.12: the unpatched
# 6.12.118 fails exactly sr-capacity (the sr_done `& 0x90` bug is in 6.12
# too, with 9370's symptom), the fix turns it FAIL->PASS and nothing else
# moves; the job says which kernel it built, its seed is 6.12's own (the
# seed key hashes the base), and the 6.1 tree is not touched.  A cold
# cache costs one full 6.12 build (minutes) and an incremental one; later
# runs reuse the 6.12 seed in the shared test cache.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require
[ -r /usr/src/linux-source-6.12.tar.xz ] || skip_all "no /usr/src/linux-source-6.12.tar.xz"

plan 10
runner_setup </dev/null

id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" --baseline --base 6.12 2>/dev/null)
is "the job is on linux-source-6.12, as asked" "$(job_field "$id" base)|$(job_field "$id" base_reason)" \
	"linux-source-6.12|asked for: bugbridge job add --base 6.12"
run_once runner.log
is "runner --once exits 0" "$?" "0"
like "it built 6.12" "$(job_field "$id" kernel_version)" '^6\.12\.[0-9]+$'
is "the patched 6.12 passes" "$(job_field "$id" verdict)" "pass"
is "the job's change is FAIL->PASS" "$(job_field "$id" change)" "FAIL->PASS"
is "the unpatched 6.12 fails exactly sr-capacity" \
	"$(sql "SELECT group_concat(name) FROM test_results WHERE job_id = $id AND variant = 'baseline'
		AND status = 'fail'")" "sr-capacity"
like "  with 9370's symptom" \
	"$(sql "SELECT diagnostics FROM test_results WHERE job_id = $id AND variant = 'baseline'
		AND name = 'sr-capacity'")" "attempt to access beyond end of device"
is "no other test changed" \
	"$(sql "SELECT count(*) FROM test_results WHERE job_id = $id AND variant = 'patched'
		AND change NOT IN ('PASS->PASS', 'FAIL->PASS', 'SKIP')")" "0"
seed=$(grep -o 'seed/[0-9a-f]*' "$TMP/runner.log" | head -1)
like "its seed was made from 6.12 (a key of its own)" \
	"$(cat "$RUNNER_CACHE/$seed.parts" 2>/dev/null)" "^base	linux-source-6.12"
unlike "the pristine 6.12 tree's sr.c is unchanged" \
	"$(grep -c 'sense_buffer\[0\] & 0x80' "$RUNNER_CACHE/base/linux-source-6.12/drivers/scsi/sr.c")" "^[1-9]"
