#!/bin/sh
# bugbridge job add/show/list/cancel and the runner's own exit codes, on a
# scratch database; no kernel is built here.
. "$(dirname "$0")/lib/test-lib.sh"

plan 21

write_config "$TMP/bb.conf" </dev/null
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
bb db migrate >/dev/null 2>&1

id=$(bb job add --bug 9370 --none)
is "job add --none prints the new job's id" "$id" "1"
is "the job is queued on bug 9370 without a candidate" \
	"$(sql "SELECT state, bug_id, coalesce(candidate_id, 'none') FROM jobs WHERE id = $id")" \
	"queued|9370|none"

printf -- '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n' >"$TMP/one.patch"
id2=$(bb job add --bug 9370 --patch "$TMP/one.patch" --baseline)
is "job add --patch queues job 2" "$id2" "2"
is "the patch became a manual candidate with its content" \
	"$(sql "SELECT c.source, c.kind, c.name, length(c.content), j.with_baseline FROM jobs j
		JOIN candidates c ON c.id = j.candidate_id WHERE j.id = 2")" \
	"manual|patch|one.patch|34|1"
id3=$(bb job add --bug 9370 --patch "$TMP/one.patch")
is "the same patch on the same bug reuses its candidate" \
	"$(sql "SELECT count(DISTINCT candidate_id) FROM jobs WHERE id IN (2, 3)")" "1"

id4=$(bb job add --bug 9370 --series "$BB_SRC/kernel-patches/sr-sense-valid" 2>/dev/null)
like "job add --series names the series directory" \
	"$(sql "SELECT kind, path, patch_count >= 1 FROM candidates WHERE id =
		(SELECT candidate_id FROM jobs WHERE id = ${id4:-0})")" \
	"^series\|.*/kernel-patches/sr-sense-valid\|1$"

id5=$(bb job add --bug 9370 --none --boot-args "bb_mutant=12 bbsuite.stop=1")
is "job add --boot-args keeps the tokens for every boot of the job" \
	"$(sql "SELECT boot_args FROM jobs WHERE id = ${id5:-0}")" "bb_mutant=12 bbsuite.stop=1"
bb job show "${id5:-0}" >"$TMP/show" 2>&1
grep -q '^boot args: bb_mutant=12 bbsuite.stop=1$' "$TMP/show"
is "job show prints the job's boot arguments" "$?" 0
bb job show "${id5:-0}" --json >"$TMP/show.json" 2>&1
is "job show --json has them" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["boot_args"])' "$TMP/show.json")" \
	"bb_mutant=12 bbsuite.stop=1"
bb job add --bug 9370 --none --boot-args 'init=/bin/sh;reboot' >"$TMP/out" 2>&1
is "boot arguments with other characters are a usage error" "$?" "2"
bb job add --bug 9370 >"$TMP/out" 2>&1
is "job add without a patch choice is a usage error" "$?" "2"
bb job add --bug 9370 --series "$TMP/nonexistent" >"$TMP/out" 2>&1
is "job add with a missing series fails" "$?" "1"

out=$(bb job show 2)
like "job show prints state and baseline" "$out" "^job 2: queued"
like "job show names the candidate" "$out" "candidate 1, patch 'one.patch'"
unlike "and no boot arguments line when it has none" "$out" "boot args"
json=$(bb job show 2 --json)
is "job show --json is JSON with the job's state" \
	"$(printf '%s' "$json" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["state"], j["with_baseline"], len(j["test_results"]))')" \
	"queued 1 0"
like "job list shows every job" "$(bb job list)" "^3 +9370 +queued"

out=$(bb job cancel 3)
is "a queued job is cancelled at once" "$(job_state=$(sql 'SELECT state FROM jobs WHERE id = 3'); echo $job_state)" "cancelled"
bb job cancel 3 >"$TMP/out" 2>&1
is "cancelling a finished job fails" "$?" "1"

bbrunner --job 3 >"$TMP/runner.log" 2>&1
is "runner --job on a job that is not queued exits 1" "$?" "1"
sql "UPDATE jobs SET state = 'cancelled' WHERE state = 'queued'"
bbrunner --once >"$TMP/runner.log" 2>&1
is "runner --once with an empty queue exits 0" "$?" "0"

done_testing
