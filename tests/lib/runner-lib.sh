# runner-lib.sh: helpers for the runner's integration tests (t30xx).
# Source after test-lib.sh.  Real kernels, real QEMU: every test shares one
# cache dir (the extracted baseline, the seed build, ccache), so only the
# first test of a run pays for a cold kernel build.
#
#   BUGBRIDGE_TEST_CACHE   the shared cache dir (default
#                          ${XDG_CACHE_HOME:-$HOME/.cache}/bugbridge-test)
#   BB_TEST_PATCHES        the kernel-patches dir (default $BB_SRC/kernel-patches)
#   BB_TEST_ACCEL          [runner] accel (default auto)
#   BB_TEST_COVERAGE       [runner] coverage (default false: a gcov build is
#                          the reach tests' business, t3020 and t3530's)

runner_require() {
	[ -r /usr/src/linux-source-6.1.tar.xz ] || skip_all "no /usr/src/linux-source-6.1.tar.xz"
	command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64"
	[ -x /bin/busybox ] || skip_all "no busybox-static"
	[ -r "$KP/suite/scenarios" ] || skip_all "no kernel-patches suite yet"
}

RUNNER_CACHE=${BUGBRIDGE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbridge-test}
KP=${BB_TEST_PATCHES:-$BB_SRC/kernel-patches}

# runner_setup [extra config lines on stdin]: config + migrated database.
runner_setup() {
	mkdir -p "$RUNNER_CACHE"
	{
		echo "[runner]"
		echo "cache_dir = $RUNNER_CACHE"
		echo "patches_dir = $KP"
		echo "accel = ${BB_TEST_ACCEL:-auto}"
		echo "coverage = ${BB_TEST_COVERAGE:-false}"
		cat
	} | write_config "$TMP/bb.conf"
	export BUGBRIDGE_CONFIG="$TMP/bb.conf"
	bb db migrate >/dev/null 2>&1 || { echo "Bail out! cannot migrate"; exit 1; }
}

# job_field ID COLUMN: one column of a job row.
job_field() { sql "SELECT $2 FROM jobs WHERE id = $1"; }

# wait_stage ID STAGE: wait (up to 20 minutes: a cold build) until the job
# is in that stage; then is "the runner reached the STAGE".
wait_stage() {
	_i=0
	while [ $_i -lt 2400 ] && [ "$(job_field $1 stage)" != "$2" ]; do
		sleep 0.5; _i=$((_i + 1))
	done
	is "the runner reached the $2" "$(job_field $1 stage)" "$2"
}

# test_status ID VARIANT NAME: status of one test case.
test_status() {
	sql "SELECT status FROM test_results WHERE job_id = $1 AND variant = '$2' AND name = '$3'"
}

# scenario_tests: every test name of the boots a core patch (or --none)
# runs: the boots with no controller line or one marked default; another
# controller's boot runs only for a patch that selects it.
scenario_tests() {
	awk '$1 == "boot" { keep = 1 }
	     $1 == "controller" { keep = ($3 == "default") }
	     $1 == "test" && keep { print $2 }' "$KP/suite/scenarios"
}

# run_once LOGNAME: bugbridge-runner --once, output kept in $TMP/LOGNAME.
run_once() {
	bbrunner --once >"$TMP/$1" 2>&1
}
