#!/bin/sh
# Without a working sandbox the runner builds nothing from the tracker: the
# job ends in infra-error saying why, unless the operator sets [runner]
# unconfined = true.  `sandbox = none` stands in for a host without bwrap.
# Nor, as root, under a build_user that is root.  Cheap: the jobs' patches
# are refused, so nothing is built.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 8
runner_setup <<EOF
sandbox = none
max_attempts = 1
EOF

id=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/runner/build-breaks.patch" 2>/dev/null)
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "no sandbox: infra-error" "$(job_field $id verdict)" "infra-error"
like "saying why and what to do" "$(job_field $id verdict_detail)" \
	"no sandbox for untrusted patches: \[runner\] sandbox = none; install bubblewrap, or set \[runner\] unconfined = true"
is "nothing was applied or built" \
	"$(sql "SELECT count(*) FROM job_stages WHERE job_id = $id AND stage IN ('apply', 'build')")" "0"

printf 'unconfined = true\n' >>"$TMP/bb.conf"
id2=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/attack/dotdot.patch" 2>/dev/null)
run_once runner2.log
is "unconfined = true: the job runs (its patch is still refused)" "$(job_field $id2 verdict)" "apply-failed"
check "and the runner says it runs unconfined" grep -q "UNCONFINED" "$TMP/runner2.log"

# as root, untrusted code never runs as root: a build user that is not one stops the job
if [ "$(id -u)" = 0 ]; then
	printf 'build_user = root\n' >>"$TMP/bb.conf"
	id3=$(bb job add --bug 9370 --patch "$BB_SRC/tests/data/attack/dotdot.patch" 2>/dev/null)
	run_once runner3.log
	is "build_user = root: infra-error" "$(job_field $id3 verdict)" "infra-error"
	like "saying why" "$(job_field $id3 verdict_detail)" \
		"build_user 'root' is no unprivileged user: untrusted code never runs as root"
else
	ok "# SKIP not root"
	ok "# SKIP not root"
fi

done_testing
