#!/bin/sh
# t2565: one JSON document for a job.  `bugbridge job show N --json` and
# GET /api/jobs/N come from the same loader and encoder (lib/job_record.h),
# so for the same job they print the same document: the API's field names,
# stages, test results, signatures, and the logs as URLs (a symlink planted
# in the log directory is not listed; the server path is not shown).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 12
web_start </dev/null || { not_ok "bugbridged serves the API"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the API"

cli() { bb --config "$TMP/web.conf" job show "$1" --json 2>&1 | jq -S . 2>&1; }
api() { raw "/api/jobs/$1" | jq -S . 2>&1; }

cli 1 >"$TMP/cli.json"
api 1 >"$TMP/api.json"
j=$(cat "$TMP/cli.json")
is "job 1 has stages, test results and signatures" \
	"$(printf '%s' "$j" | jq -c '[(.stages | length), (.test_results | length), (.signatures | length)]')" \
	'[6,3,1]'
is "logs are URLs, the symlink is not listed" "$(printf '%s' "$j" | jq -c '.logs')" \
	"$(cd "$TMP/logs/job-1" && LC_ALL=C ls -- *.log | grep -v '^evil' |
		jq -R -c '"/job/1/" + .' | jq -s -c .)"
is "the API's names, no server path" \
	"$(printf '%s' "$j" | jq -c '[.bug_id, .candidate_id, .verdict_detail, has("log_dir"), has("tests")]')" \
	'[9370,12,"scsi_completion_basic failed",false,false]'
is "the candidate's facts" "$(printf '%s' "$j" | jq -c '.candidate | [.name, .kind, .patch_count]')" \
	'["0001-sd-fix-completion.patch","patch",1]'
if cmp -s "$TMP/cli.json" "$TMP/api.json"; then
	ok "job show 1 --json and /api/jobs/1 are the same document"
else
	not_ok "job show 1 --json and /api/jobs/1 are the same document"
	diag "$(diff "$TMP/cli.json" "$TMP/api.json" | head -30)"
fi
for id in 2 3 4; do
	is "job $id: the same document from both" "$(cli $id)" "$(api $id)"
done
is "a running stage has no finished_at" "$(cli 3 | jq -c '[.stages[] | .finished_at == null]')" \
	'[false,false,false,true]'

like "the text still names the log directory" "$(bb --config "$TMP/web.conf" job show 1)" \
	"^logs: $TMP/logs/job-1$"
bb --config "$TMP/web.conf" job show 99 --json >"$TMP/out" 2>&1
is "no such job: exit 1 (the API: 404)" "$? $(status /api/jobs/99)" "1 404"
done_testing
