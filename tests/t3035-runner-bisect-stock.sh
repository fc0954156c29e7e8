#!/bin/sh
# Bisection on stock 6.1, end to end with real kernels: the 5-patch
# completion-regression series (kernel-patches/README.md) turns
# lying-device-short-resid from PASS to FAIL at patch 3, on a base that
# always fails sr-capacity (the live sr bug).  The root job's baseline is
# not clean, yet bugbridged bisects on the tests the series broke and names
# patch 3/5 after two steps.  Small: flake re-runs off, builds seeded.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require
[ "${BUGBRIDGE_SLOW:-0}" = 1 ] || skip_all "BUGBRIDGE_SLOW=1: builds and boots a kernel per bisection step (t2530 is make check's sample)"

plan 9
runner_setup <<EOF2
flake_retries = 0
[tracker]
url = http://127.0.0.1:9
retries = 0
[digest]
every = never
[triage]
release_bisect = false
backtest = false
EOF2

# a watched bug (as the poller stores it): its jobs are triaged, not only reported
sql "INSERT INTO bugs (id, product, component, summary) VALUES
	(9370, 'IO/Storage', 'SCSI', 'short transfers reach user space whole')"
id=$(bb job add --bug 9370 --series "$KP/completion-regression" --baseline 2>/dev/null)
run_once root.log
is "the series' job is done" "$(job_field $id state)" done
is "the base fails sr-capacity, as stock 6.1 does" "$(test_status $id baseline sr-capacity)" fail
is "lying-device-short-resid passes on the base" \
	"$(test_status $id baseline lying-device-short-resid)" pass
is "and fails with the whole series" "$(test_status $id patched lying-device-short-resid)" fail

# bugbridged triages; the runner plays each step it queues.
steps=0
bbd --once >>"$TMP/bbd.log" 2>&1
while [ -n "$(sql "SELECT id FROM jobs WHERE kind = 'bisect-step' AND state = 'queued'")" ] &&
      [ $steps -lt 4 ]; do
	steps=$((steps + 1))
	run_once step$steps.log
	bbd --once >>"$TMP/bbd.log" 2>&1
done
is "the bisection ran 1 to 3 steps" "$([ $steps -ge 1 ] && [ $steps -le 3 ] && echo yes || echo "no: $steps")" yes
is "each step ran the suite" \
	"$(sql "SELECT COUNT(*) FROM jobs j WHERE kind = 'bisect-step' AND NOT EXISTS
		(SELECT 1 FROM test_results t WHERE t.job_id = j.id AND t.name = 'lying-device-short-resid')")" 0
text=$(sql "SELECT payload FROM outbox WHERE marker = 'bugbridge-bisect: job $id'")
like "it names patch 3/5" "$text" "patch 3/5 introduces the failure"
like "judged on the tests the series broke, sr-capacity not among them" "$text" \
	"Judged on: [^(]*lying-device-short-resid"
unlike "sr-capacity is not judged on" "$text" "Judged on: [^(]*sr-capacity"
done_testing
