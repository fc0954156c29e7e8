#!/bin/sh
# [triage] set_status = true against the stand-in tracker: a reproduced bug
# is confirmed (UNCONFIRMED -> CONFIRMED), a fix candidate changes no
# status, and only a verified fix resolves it (RESOLVED FIXED).  With
# mirror = keywords the state is also a keyword (the admin created them).
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 9

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
port=$(free_port)
# the seed plus the keywords an admin would create for the mirror
python3 - "$BB_SRC/tests/data/tracker-seed.json" "$BB_SRC/tests/data" >"$TMP/seed.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["keywords"] += ["bugbridge-%s" % s for s in ("new", "needs-repro", "reproduced",
	"fix-candidate", "fix-verified", "not-reproducible", "duplicate")]
print(json.dumps(d))
EOF
cp "$BB_SRC"/tests/data/*.patch "$TMP/"	# attachments are named relative to the seed
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$TMP/seed.json"
wait_port "$port" || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=http://127.0.0.1:$port

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT
login = bot@example.com
watch_bugs = 9370
[triage]
mirror = whiteboard, keywords
set_status = true
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
# one service cycle; a non-zero exit (a sanitizer report, a crash) is remembered
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
field() {
	curl -s "$B/rest/bug/9370?include_fields=$1" | python3 -c '
import json, sys
v = json.load(sys.stdin)["bugs"][0][sys.argv[1]]
print(", ".join(sorted(v)) if isinstance(v, list) else v)' "$1"
}
finish() {	# JOB VERDICT CHANGE BASELINE-STATUS PATCHED-STATUS
	sql "UPDATE jobs SET state = 'done', verdict = '$2', change = $3, accel = 'kvm' WHERE id = $1;
	INSERT INTO test_results (job_id, variant, name, status) VALUES
		($1, 'baseline', 'sr-capacity', '$4'), ($1, 'patched', 'sr-capacity', '$5');"
}

bb db migrate >/dev/null 2>&1
cycle
job=$(sql "SELECT id FROM jobs WHERE bug_id = 9370 AND state = 'queued' ORDER BY id LIMIT 1")
is "the bug starts UNCONFIRMED" "$(field status)" UNCONFIRMED

# A first patch does not help: the baseline's failure reproduces the bug.
finish "$job" fail "'FAIL->FAIL'" fail fail
cycle
is "reproduced" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" reproduced
is "a reproduced bug is confirmed" "$(field status)" CONFIRMED
like "the state is a keyword, the other keywords stay" "$(field keywords)" "^bugbridge-reproduced, regression$"

# A fixing job (as `bugbridge: test` would queue) and its re-run.
sql "INSERT INTO jobs (bug_id, candidate_id, kind, with_baseline, state)
	SELECT 9370, candidate_id, 'test', 1, 'queued' FROM jobs WHERE id = $job"
fix=$(sql "SELECT MAX(id) FROM jobs")
finish "$fix" pass "'FAIL->PASS'" fail pass
cycle
is "fix-candidate changes no status" "$(field status)" CONFIRMED
retest=$(sql "SELECT id FROM jobs WHERE kind = 'retest' AND parent_id = $fix")
finish "$retest" pass NULL pass pass
cycle
is "fix-verified" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" fix-verified
is "a verified fix resolves the bug" "$(field status) $(field resolution)" "RESOLVED FIXED"
is "the keyword follows the state" "$(field keywords)" "bugbridge-fix-verified, regression"
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
