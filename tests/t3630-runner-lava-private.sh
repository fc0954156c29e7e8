#!/bin/sh
# A private bug's job never reaches a LAVA lab as public ([tracker]
# private_bugs = test, [runner] backend = lava): with the default
# private_visibility = personal the lab holds it as the token user's own
# job, which an anonymous visitor of the lab cannot read (the attack: read
# the patch's kernel log without an account); with private_visibility =
# refuse it is not sent at all and the job says why.  The public
# visibility of public bugs' jobs is t3600's.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/lava-lib.sh"
runner_require
lava_require

plan 9
lava_up || { echo "Bail out! no LAVA lab"; exit 1; }
lava_runner_up <<EOF2
max_attempts = 1
[tracker]
private_bugs = test
EOF2
sql "INSERT INTO bugs (id, product, component, summary, groups) VALUES
	(9380, 'IO/Storage', 'SCSI', 'embargoed: sr eats the sense buffer', 'security')"

id=$(bb job add --bug 9380 --series "$KP/sr-sense-valid" 2>/dev/null)
run_once runner.log
is "the private job ran in the lab" "$(job_field $id verdict)" "pass"
lid=$(sql "SELECT lava_id FROM lava_jobs WHERE job_id = $id AND variant = 'patched' AND boot = 'all'")
like "as a LAVA job" "$lid" '^[0-9]+$'
is "which the lab holds as personal" \
	"$(lava_json "jobs/$lid/" '__import__("yaml").safe_load(d["definition"])["visibility"]')" "personal"
code=$(curl -s -o "$TMP/anon.json" -w '%{http_code}' "$LAVA/api/v0.2/jobs/$lid/")
like "an anonymous visitor of the lab gets no such job" "$code" '^(403|404)$'
code=$(curl -s -o /dev/null -w '%{http_code}' "$LAVA/api/v0.2/jobs/$lid/logs/")
like "nor its log" "$code" '^(403|404)$'

# private_visibility = refuse: not sent at all
printf '[lava]\nprivate_visibility = refuse\n' >>"$TMP/bb.conf"
before=$(lava_json "jobs/?limit=1" 'd["count"]')
id2=$(bb job add --bug 9380 --series "$KP/sr-sense-valid" 2>/dev/null)
run_once runner2.log
is "refused: the job is an infra-error" "$(job_field $id2 verdict)" "infra-error"
like "saying why" "$(job_field $id2 verdict_detail)" "private bug.*private_visibility = refuse"
is "and the lab got no job" "$(lava_json "jobs/?limit=1" 'd["count"]')" "$before"
is "no LAVA row for it" "$(sql "SELECT count(*) FROM lava_jobs WHERE job_id = $id2")" "0"
done_testing
