# hba-revert.sh: a real host adapter fix, reverted, caught by the hba-*
# tests through the runner (issue 34).  Source after runner-lib.sh.
#
# kernel-patches/NAME holds 0001, the revert of a completion fix that
# linux-source-6.1 already has (its series names 0001 alone), and 0002, the
# fix again.  hba_revert NAME CONTROLLER FILE VERDICT "TESTS" queues and runs
#   1. the revert with --baseline: the job picks CONTROLLER from the patch's
#      path FILE (and no other controller); its verdict is VERDICT (fail, or
#      boot-timeout for a revert that hangs the boot) and exactly TESTS
#      fail; with "fail", the job says PASS->FAIL for each of them against
#      the stock base;
#   2. the revert and the fix on top (a series of 0001 and 0002), with
#      --baseline: it passes, and each of TESTS passed on the stock base
#      (this job's baseline), failed on the revert (job 1) and passes with
#      the fix on top: the revert is PASS->FAIL, the fix FAIL->PASS on the
#      reverted tree.  Revert and fix are the stock code again: PASS->PASS.
# 11 + (number of TESTS) assertions; 2 + (number of TESTS) more for "fail".
#
# The copy of kernel-patches the runner gets keeps only the controllers'
# boots of the scenarios: the other boots do not reach a host adapter
# driver (t3020 and t3500 run them), and three runs of the whole suite
# would cost this shared machine half an hour more for nothing this test
# asserts.  Everything else (the harness, the configs, the suite) is the
# same bytes, so the seed is the standard one every job builds on.

hba_revert_prepare() {
	HR_KP=$TMP/kp
	mkdir -p "$HR_KP"
	cp -r "$KP"/. "$HR_KP"/
	awk '
		/^boot / { flush(); inboot = 1; keep = 0; block = "" }
		inboot { block = block $0 "\n"; if ($1 == "controller") keep = 1; next }
		{ print }
		function flush() { if (inboot && keep) printf "%s", block }
		END { flush() }
	' "$KP/suite/scenarios" >"$HR_KP/suite/scenarios"
}

# hr_status JOB VARIANT TEST: "status|failures" of one test.
hr_status() {
	sql "SELECT status || '|' || failures FROM test_results WHERE job_id = $1
		AND variant = '$2' AND name = '$3'"
}

hba_revert() {
	_name=$1 _ctl=$2 _file=$3 _verdict=$4 _tests=$5
	_dir=$HR_KP/$_name

	_id=$(bb job add --bug 9370 --series "$_dir" --baseline 2>"$TMP/add.err")
	is "the revert is queued" "$?" 0
	run_once runner-$_name.log
	is "runner --once exits 0" "$?" 0
	like "the runner picked $_ctl alone, from $_file" "$(cat "$TMP/runner-$_name.log")" \
		"job $_id: controllers: $_ctl \\(the patch changes only their drivers\\)"
	is "the reverted kernel: $_verdict" "$(job_field $_id verdict)" "$_verdict"
	diag "$_name: $(job_field $_id verdict_detail)"
	is "only $_ctl's boot ran: every test is hba-$_ctl-*" \
		"$(sql "SELECT count(*) FROM test_results WHERE job_id = $_id
			AND name NOT LIKE 'hba-$_ctl-%'")" "0"
	_failed=$(sql "SELECT name FROM test_results WHERE job_id = $_id AND variant = 'patched'
		AND status = 'fail' ORDER BY name" | tr '\n' ' ')
	is "the tests that fail on the revert" "$_failed" "$(printf '%s\n' $_tests | sort | tr '\n' ' ')"
	if [ "$_verdict" = fail ]; then
		is "the job's change is PASS->FAIL" "$(job_field $_id change)" "PASS->FAIL"
		for _t in $_tests; do
			is "$_t: PASS->FAIL, failing every run" \
				"$(sql "SELECT change || ' ' || failures FROM test_results
					WHERE job_id = $_id AND variant = 'patched' AND name = '$_t'")" \
				"PASS->FAIL 3"
		done
		is "and nothing improved" "$(sql "SELECT count(*) FROM test_results
			WHERE job_id = $_id AND variant = 'patched' AND change = 'FAIL->PASS'")" "0"
	fi

	# The fix on the reverted tree: 0001 then 0002.
	mkdir -p "$TMP/$_name-fix"
	cp "$_dir"/0001-*.patch "$_dir"/0002-*.patch "$TMP/$_name-fix/"
	(cd "$TMP/$_name-fix" && ls 0001-*.patch 0002-*.patch) >"$TMP/$_name-fix/series"
	_id2=$(bb job add --bug 9370 --series "$TMP/$_name-fix" --baseline 2>>"$TMP/add.err")
	is "the revert and the fix are queued" "$?" 0
	run_once runner-$_name-fix.log
	is "the revert with the fix on top passes" "$(job_field $_id2 verdict)" "pass"
	like "  on $_ctl's boot again" "$(cat "$TMP/runner-$_name-fix.log")" \
		"job $_id2: controllers: $_ctl "
	is "  and gives what the stock base gives (it is its code)" \
		"$(job_field $_id2 change)" "PASS->PASS"
	for _t in $_tests; do
		is "$_t: stock, revert, revert and fix" \
			"$(hr_status $_id2 baseline $_t) $(hr_status $_id patched $_t | cut -d'|' -f1) $(
			   hr_status $_id2 patched $_t)" "pass|0 fail pass|0"
	done
	is "every hba-$_ctl test passes with the fix" \
		"$(sql "SELECT count(*) FROM test_results WHERE job_id = $_id2 AND variant = 'patched'
			AND name LIKE 'hba-$_ctl-%' AND status = 'pass'")" \
		"$(awk -v b="hba-$_ctl" '$1 == "boot" { in_b = $2 == b } in_b && $1 == "test"' \
			"$HR_KP/suite/scenarios" | wc -l)"
}
