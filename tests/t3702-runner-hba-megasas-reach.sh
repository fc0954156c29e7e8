#!/bin/sh
# A controller's driver is built the way a patch's files are (issues 32 and
# 34): a one-line change in megaraid_sas's megasas_complete_cmd picks the
# megasas boot, whose fragment (CONFIG_MEGARAID_SAS) grows the config on
# top of the standard gcov seed, not a seed of its own; gcov profiles the
# driver's object and the reach counts the changed line, which every
# successful I/O through QEMU's megasas runs.  Then the sr fix with
# [runner] controllers = megasas: the controller alone asks for its driver.
# The runner gets the controllers' boots only (tests/lib/hba-revert.sh).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/hba-revert.sh"
runner_require

plan 17
hba_revert_prepare
KP=$HR_KP
BB_TEST_COVERAGE=true runner_setup <<EOF
build_timeout = 3600
EOF
stage() {
	sql "SELECT detail FROM job_stages WHERE job_id = $1 AND variant = '$2' AND stage = '$3'"
}

id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/reach/megasas-complete-cmd.patch" \
	2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" 0
like "the patch's path picks megasas alone" "$(cat "$TMP/runner.log")" \
	"job $id: controllers: megasas \\(the patch changes only their drivers\\)"
is "its kernel passes the megasas tests" "$(job_field $id verdict)" pass
is "  all five of them" "$(sql "SELECT count(*) FROM test_results WHERE job_id = $id
	AND name LIKE 'hba-megasas-%' AND status = 'pass'")" 5
like "the config grows by the driver the patch's file needs" \
	"$(stage $id patched configure)" \
	"^the config grows by CONFIG_MEGARAID_SAS \\(drivers/scsi/megaraid/megaraid_sas_base.c\\)"
b=$(stage $id patched build)
diag "build: $b"
like "built on the standard seed's objects" "$b" \
	"^config grown by [0-9]+ options? beyond the standard one \\(.*\\): built from the standard seed, [0-9]+ objects compiled in [0-9]+ s$"
is "the changed line of megaraid_sas was reached" "$(job_field $id reach)" \
	"reached 1 of 1 changed lines"
like "the coverage log names it, executed" \
	"$(cat "$(job_field $id log_dir)/patched-coverage.log")" \
	"drivers/scsi/megaraid/megaraid_sas_base.c:3662 executed [1-9]"
is "no seed was kept with the driver" \
	"$(grep -l MEGARAID_SAS=y "$RUNNER_CACHE"/seed/*/.config 2>/dev/null | wc -l)" 0
like "the megasas boot ran: its console is there" \
	"$(grep -c 'megaraid_sas' "$(job_field $id log_dir)/patched-console-hba-megasas.log")" "^[1-9]"

# The controller alone asks for its driver: the sr fix (a core file, built
# by the standard config) with [runner] controllers = megasas.
id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" 2>/dev/null)
BUGBRIDGE_RUNNER_CONTROLLERS=megasas bbrunner --once >"$TMP/runner-ctl.log" 2>&1
is "runner --once exits 0" "$?" 0
like "[runner] controllers chose megasas" "$(cat "$TMP/runner-ctl.log")" \
	"job $id: controllers: megasas \\(\\[runner\\] controllers\\)"
is "the controller's fragment grows the config, and says so" "$(stage $id patched configure)" \
	"the config grows by CONFIG_MEGARAID_SAS (controller megasas)"
like "  on the standard seed" "$(stage $id patched build)" \
	"^config grown by [0-9]+ options? .*: built from the standard seed, [0-9]+ objects compiled"
is "its megasas tests pass" "$(sql "SELECT count(*) FROM test_results WHERE job_id = $id
	AND name LIKE 'hba-megasas-%' AND status = 'pass'")" 5

# A fragment line the runner cannot ask for is ours to fix, before any build.
printf '# a module: not what a fragment may say\nCONFIG_MEGARAID_SAS=m\n' \
	>"$KP/configs/hba-megasas.config"
id=$(bb job add --bug 9370 --series "$KP/sr-sense-valid" 2>/dev/null)
BUGBRIDGE_RUNNER_CONTROLLERS=megasas bbrunner --once >"$TMP/runner-bad.log" 2>&1
is "a fragment line that is not CONFIG_NAME=y: infra-error, ours" \
	"$(job_field $id verdict) $(job_field $id fault)" "infra-error ours"
like "  naming the fragment and the line" "$(job_field $id verdict_detail)" \
	"hba-megasas.config': 'CONFIG_MEGARAID_SAS=m' is not CONFIG_NAME=y"
done_testing
