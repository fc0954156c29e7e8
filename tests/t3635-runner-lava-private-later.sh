#!/bin/sh
# A bug that becomes private after its job went to a LAVA lab (issue 35).
# Its job was submitted public, with an artifact token that the LAVA job's
# definition shows to anyone who visits the lab.  Once the bug is private,
# /artifacts refuses that token at once (the attack: an anonymous client
# fetches the kernel with the token the lab showed it), and at the next
# poll bugbridged revokes the token and removes the public LAVA job from
# the lab, so that neither an anonymous visitor nor anyone else reads its
# definition or log there any more.  (The worker is stopped, so the LAVA
# job waits in the lab's queue while this happens.)
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/lava-lib.sh"
runner_require
lava_require

plan 13
lava_up || { echo "Bail out! no LAVA lab"; exit 1; }
lava_runner_up <<EOF2
max_attempts = 1
[tracker]
private_bugs = test
EOF2
sql "INSERT INTO bugs (id, product, component, summary, groups) VALUES
	(9390, 'IO/Storage', 'SCSI', 'sr: public for now', '')"

wait_for() {
	_n=$(($1 * 2)); shift
	while [ $_n -gt 0 ] && [ -z "$("$@" 2>/dev/null)" ]; do sleep 0.5; _n=$((_n - 1)); done
	"$@"
}
lava_row() { sql "SELECT $2 FROM lava_jobs WHERE job_id = $1 ${3:-} ORDER BY id DESC LIMIT 1"; }

lava_worker_stop
id=$(bb job add --bug 9390 --none 2>/dev/null)
bg runner bbrunner --job "$id"
lid=$(wait_for 900 lava_row "$id" lava_id "AND lava_id > 0")
like "the public bug's boot is a LAVA job" "$lid" '^[0-9]+$'
is "submitted public" "$(lava_row "$id" visibility)/$(lava_json "jobs/$lid/" \
	'__import__("yaml").safe_load(d["definition"])["visibility"]')" "public/public"
token=$(sql "SELECT token FROM artifacts WHERE job_id = $id")
like "whose definition shows the artifact token" \
	"$(lava_json "jobs/$lid/" 'd["definition"]')" "/artifacts/$token/bzImage"
art() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$WEB_PORT/artifacts/$token/bzImage"; }
is "anyone with the token gets the kernel while the bug is public" "$(art)" 200
is "and an anonymous visitor of the lab reads the LAVA job" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$LAVA/api/v0.2/jobs/$lid/")" 200

sql "UPDATE bugs SET groups = 'security' WHERE id = 9390"
is "the bug turns private: /artifacts refuses the token at once" "$(art)" 404

# the next poll (no tracker here: the poll fails, the lab's step runs all the same)
bbd --config "$TMP/bb.conf" --once >"$TMP/once.log" 2>&1
is "at the next poll the token is revoked" "$(sql "SELECT count(*) FROM artifacts WHERE job_id = $id")" 0
is "and the LAVA job is removed from the lab" "$(lava_row "$id" visibility)" "removed"
is "an anonymous visitor of the lab finds no such job" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$LAVA/api/v0.2/jobs/$lid/")" 404
is "nor its log" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$LAVA/api/v0.2/jobs/$lid/logs/")" 404
is "nor does the lab's admin" \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" \
		"$LAVA/api/v0.2/jobs/$lid/")" 404
like "bugbridged says so" "$(cat "$TMP/once.log")" \
	"lab: removed LAVA job $lid of job $id, now private, from the lab"
lava_worker_start
wait "$PID_runner"
is "the runner, its LAVA job gone, ends the try as an infra-error" "$(job_field "$id" verdict)" \
	"infra-error"
done_testing
