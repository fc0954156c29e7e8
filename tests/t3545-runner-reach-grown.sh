#!/bin/sh
# t3545: no pass for code that was not built (issue 32).  Four jobs in a row
# on one warm gcov seed, through the real runner with real kernels:
#   - a one-line change in drivers/scsi/sg.c, which the standard config
#     does not build (CHR_DEV_SG is off), with a baseline: the job's config
#     grows by CONFIG_CHR_DEV_SG, the baseline's too (like with like), both
#     built from the standard seed and neither kept as a seed; sg.c is
#     compiled and profiled, and its line is reached (sg_add_device runs
#     for every SCSI device at boot);
#   - a change in drivers/scsi/mesh.c, a Power Mac driver whose option
#     depends on PPC32: "untested", with the reason, and nothing built;
#   - the sg.c change again with [runner] grow_max = 0: untested, the
#     config would grow too much;
#   - the sr fix plus a line of virtio_scsi.c as a series, with a baseline
#     (the standard one: the grown baseline's results are not its own):
#     FAIL->PASS, 2 changed lines, both files named with their counts;
#   - one line each in block/blk-mq.c, block/blk-mq.h (an inline function:
#     measured through the block objects that include it) and
#     drivers/cdrom/cdrom.c: all three measured.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 30
BB_TEST_COVERAGE=true runner_setup <<EOF2
flake_retries = 0
EOF2
D=$BB_SRC/tests/data/reach

# --- sg.c: the config grows, for the baseline too; the line is measured ---
id=$(bb job add --bug 9370 --patch "$D/sg-add-device.patch" --baseline 2>/dev/null)
run_once runner-sg.log
is "runner --once exits 0" "$?" 0
# stock 6.1 fails sr-capacity with or without the patch
is "the sg.c job ran the suite against its baseline" \
	"$(job_field $id verdict) $(job_field $id change)" "fail FAIL->FAIL"
stage() {
	sql "SELECT detail FROM job_stages WHERE job_id = $1 AND variant = '$2' AND stage = '$3'"
}
like "its configure stage says what grew and why" "$(stage $id patched configure)" \
	"^the config grows by CONFIG_CHR_DEV_SG \(drivers/scsi/sg.c\)"
like "its build stage says what the grown config cost" "$(stage $id patched build)" \
	"^config grown by [0-9]+ options? beyond the standard one \(CONFIG_CHR_DEV_SG .*\): built from the standard seed, [0-9]+ objects compiled in [0-9]+ s$"
logs=$(job_field $id log_dir)
like "the baseline was configured with the same option" "$(stage $id baseline configure)" \
	"^the config grows by CONFIG_CHR_DEV_SG \(drivers/scsi/sg.c\)"
like "so the unpatched kernel had sg too (like with like)" \
	"$(grep -c 'Attached scsi generic sg' "$logs/baseline-console-all.log")" "^[1-9]"
like "and built from the standard seed too" "$(stage $id baseline build)" \
	"^config grown by [0-9]+ options? .*: built from the standard seed"
is "sg.c's changed line was reached" "$(job_field $id reach)" "reached 1 of 1 changed lines"
like "the coverage log has it, executed" \
	"$(cat "$logs/patched-coverage.log")" "drivers/scsi/sg.c:1506 executed [1-9]"
is "no grown build is kept as a seed" \
	"$(grep -l CHR_DEV_SG=y "$RUNNER_CACHE"/seed/*/.config 2>/dev/null | wc -l)" 0

# --- mesh.c: its option cannot be turned on ---
id=$(bb job add --bug 9370 --patch "$D/mesh.patch" 2>/dev/null)
run_once runner-mesh.log
is "runner --once exits 0" "$?" 0
is "the mesh.c job is untested" "$(job_field $id verdict)" "untested"
is "nobody's fault" "$(job_field $id "IFNULL(fault, 'none')")" "none"
is "its detail says why" "$(job_field $id verdict_detail)" \
	"drivers/scsi/mesh.c: needs CONFIG_SCSI_MESH, which depends on SCSI_LOWLEVEL && SCSI && PPC32 && PPC_PMAC && SCSI: CONFIG_PPC32 is an option of arch/powerpc only"
is "nothing was built" \
	"$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id AND stage = 'build'")" 0
like "bugbridge job show says it" "$(bb job show $id 2>&1)" "untested"

# --- sg.c again, where no option may be added: too much for the config ---
id=$(bb job add --bug 9370 --patch "$D/sg-add-device.patch" 2>/dev/null)
BUGBRIDGE_RUNNER_GROW_MAX=0 bbrunner --once >"$TMP/runner-max.log" 2>&1
is "with [runner] grow_max = 0 the sg.c job is untested" "$(job_field $id verdict)" untested
is "saying how much it would turn on" "$(job_field $id verdict_detail)" \
	"drivers/scsi/sg.c: needs CONFIG_CHR_DEV_SG, which turns on 1 option more than the standard config (at most 0: [runner] grow_max)"

# --- the sr fix + virtio_scsi.c: both files counted and named ---
id=$(bb job add --bug 9370 --series "$D/sr-virtio" --baseline 2>/dev/null)
run_once runner-virtio.log
is "runner --once exits 0" "$?" 0
is "the series fixes sr-capacity" "$(job_field $id verdict) $(job_field $id change)" \
	"pass FAIL->PASS"
unlike "the grown sg.c baseline was not taken for its own" "$(job_field $id verdict_detail)" \
	"baseline \(cached\)"
is "each kept its baseline's results under its own key" \
	"$(sql "SELECT count(DISTINCT key) FROM baseline_runs")" 2
is "two changed lines, both files named" "$(job_field $id reach)" \
	"reached 2 of 2 changed lines (sr.c 1 of 1, virtio_scsi.c 1 of 1)"
is "reach_changed counts both" "$(job_field $id reach_changed)" 2

# --- the block and cdrom layers ---
id=$(bb job add --bug 9370 --patch "$D/block-cdrom.patch" 2>/dev/null)
run_once runner-block.log
is "runner --once exits 0" "$?" 0
like "the block and cdrom job ran the suite" "$(job_field $id verdict)" "^(pass|fail)$"
like "blk-mq.c, blk-mq.h and cdrom.c are each measured" "$(job_field $id reach)" \
	"^reached [23] of 3 changed lines \(blk-mq.c 1 of 1, blk-mq.h [01] of 1, cdrom.c 1 of 1\)(; never executed: line 199 \(blk-mq.h\))?$"
log=$(cat "$(job_field $id log_dir)/patched-coverage.log")
like "the coverage log has blk-mq.c's line" "$log" "block/blk-mq.c:1052 executed [1-9]"
like "and cdrom.c's" "$log" "drivers/cdrom/cdrom.c:1190 executed [1-9]"
like "and blk-mq.h's, over the objects that include it" "$log" "block/blk-mq.h:199 "

done_testing
