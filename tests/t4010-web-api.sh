#!/bin/sh
# t4010: the JSON API answers with the seeded data, and the one write
# endpoint (POST /api/jobs) insists on the bearer token: 401 without,
# 403 with a wrong one, 201 and a queued job row with the right one.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 38
web_start </dev/null || { not_ok "bugbridged serves the API"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the API"

j=$(raw '/api/bugs?component=SCSI&status=open')
is "/api/bugs?component=SCSI&status=open lists the open SCSI bugs" \
	"$(printf '%s' "$j" | jq -c '[.bugs[].id]')" '[9370,9371]'
is "bugs carry triage state and latest verdict" \
	"$(printf '%s' "$j" | jq -r '.bugs[0] | "\(.triage_state) \(.latest_verdict)"')" 'fix-candidate pass'
is "summary comes back verbatim in JSON" "$(printf '%s' "$j" | jq -r '.bugs[0].summary')" \
	"sd: lost completion <script>alert(1)</script> & \"quoted\" 'single' timeout"
like "API answers application/json" "$(headers '/api/bugs?component=SCSI')" 'Content-Type: application/json'
is "status=closed" "$(raw '/api/bugs?component=SCSI&status=closed' | jq -c '[.bugs[].id] | sort')" '[9372,9373,9374]'
is "status=all without component" "$(raw '/api/bugs?status=all' | jq '.count')" 7
j=$(raw '/api/bugs?status=all&limit=2')
is "limit pages the list" "$(printf '%s' "$j" | jq -c '[.count, .next_offset]')" '[2,2]'
is "offset continues it" "$(raw '/api/bugs?status=all&limit=2&offset=2' | jq '.bugs | length')" 2

j=$(raw /api/bugs/9370)
is "/api/bugs/9370 has the bug" "$(printf '%s' "$j" | jq -r '.id')" 9370
is "public comments only" "$(printf '%s' "$j" | jq -c '[.comments[].count]')" '[0,1,3]'
is "candidates without content" "$(printf '%s' "$j" | jq -c '[.candidates[] | .id, has("content")]')" '[12,false,13,false]'
is "jobs of the bug" "$(printf '%s' "$j" | jq -c '[.jobs[] | .verdict]')" '["fail","pass"]'
is "posts with their state" "$(printf '%s' "$j" | jq -c '[.posts[] | .state]')" '["sent","sent","held"]'

is "/api/jobs?state=running" "$(raw '/api/jobs?state=running' | jq -c '[.jobs[] | [.id, .stage]]')" '[[3,"build"]]'
is "/api/jobs?state=queued" "$(raw '/api/jobs?state=queued' | jq -c '[.jobs[].id] | sort')" '[4,5]'
j=$(raw /api/jobs/1)
is "/api/jobs/1 stages" "$(printf '%s' "$j" | jq '.stages | length')" 6
is "/api/jobs/1 test results" "$(printf '%s' "$j" | jq -r '[.test_results[] | select(.status == "fail") | .name] | join(",")')" scsi_completion_basic
is "/api/jobs/1 signatures" "$(printf '%s' "$j" | jq -r '.signatures[0].title')" 'WARNING in scsi_done_internal'
is "/api/jobs/1 log URLs, not server paths" "$(printf '%s' "$j" | jq -c '[.logs[]], has("log_dir")')" \
	"$(cd "$TMP/logs/job-1" && LC_ALL=C ls -- *.log | grep -v '^evil' |
		jq -R -c '"/job/1/" + .' | jq -s -c .; echo false)"
like "/api/jobs/1 logs are the runner's names" "$(printf '%s' "$j" | jq -c '.logs')" \
	'"/job/1/patched-build.log".*"/job/1/patched-console-all.log"'
j=$(raw /api/jobs/1/kcidb)
is "/api/jobs/1/kcidb is a KCIDB v5 document" "$(printf '%s' "$j" | jq -c '[.version.major, .checkouts[0].id]')" '[5,"bugbridge:job1-patched"]'
like "/api/jobs/1/kcidb carries the failed test case" "$(printf '%s' "$j" | jq -r '[.tests[] | select(.status == "FAIL") | .path] | join(",")')" 'scsi_completion_basic'
is "/api/jobs/4/kcidb: not finished yet, 409" "$(status /api/jobs/4/kcidb)" 409
j=$(raw /api/queue)
is "/api/queue: running then queued in order" "$(printf '%s' "$j" | jq -c '[.jobs[] | [.job_id, .state, .position]]')" \
	'[[3,"running",null],[4,"queued",1],[5,"queued",2]]'
like "/api/queue: estimates from stage history" "$(printf '%s' "$j" | jq -r '.jobs[1].est_start > 0 and .jobs[1].est_finish > .jobs[1].est_start')" true

j=$(raw /api/stats)
is "/api/stats verdict counts" "$(printf '%s' "$j" | jq -c '.verdicts')" '{"fail":1,"pass":1}'
is "/api/stats median seconds to post" "$(printf '%s' "$j" | jq '.median_seconds_to_post')" 5400
is "/api/stats top closers" "$(printf '%s' "$j" | jq -c '[.top_closers[] | select(.year == "2026") | [.closed_by, .count]]')" \
	'[["alice@example.org",2],["carol@example.org",1]]'
is "/api/stats months" "$(printf '%s' "$j" | jq -c '.months[] | select(.month == "2026-10") | [.opened, .closed]')" '[2,2]'
is "/api/components" "$(raw /api/components | jq -c '[.components[] | [.component, .open]]')" '[["SCSI",2],["USB",1]]'

body='{"bug_id": 9370, "candidate_id": 13, "kind": "retest", "with_baseline": true}'
is "POST /api/jobs without a token: 401" \
	"$(status /api/jobs -X POST -H 'Content-Type: application/json' -d "$body")" 401
is "POST /api/jobs with a wrong token: 403" \
	"$(status /api/jobs -X POST -H "Authorization: Bearer wrong-$WEB_TOKEN" -d "$body")" 403
is "no job was queued by refused requests" "$(sql 'SELECT count(*) FROM jobs')" 5
out=$(curl -s -X POST -H "Authorization: Bearer $WEB_TOKEN" -d "$body" -w '\n%{http_code}' "$WEB/api/jobs")
is "POST /api/jobs with the token: 201" "$(printf '%s' "$out" | tail -1)" 201
id=$(printf '%s' "$out" | head -n -1 | jq -r '.id')
is "the job is queued through job_enqueue" "$(sql "SELECT bug_id, candidate_id, kind, state, with_baseline FROM jobs WHERE id = $id")" \
	'9370|13|retest|queued|1'
is "a candidate of another bug is refused" \
	"$(status /api/jobs -X POST -H "Authorization: Bearer $WEB_TOKEN" -d '{"bug_id": 9380, "candidate_id": 13}')" 404
is "a body that is not JSON is a 400" \
	"$(status /api/jobs -X POST -H "Authorization: Bearer $WEB_TOKEN" -d 'kind=test')" 400
done_testing
