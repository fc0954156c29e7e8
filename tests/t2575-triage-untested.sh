#!/bin/sh
# t2575: "untested" is a verdict end to end (issue 32).  Bug 9370's patch
# changes a file the runner's kernel cannot build; the runner (its part
# played here with sqlite3, as t2570 does; t3545 runs it on real kernels)
# ends the job "untested" with one reason per file.  Then: the result
# comment says UNTESTED and why, in known shapes only (a hostile line in
# the detail is left out and counted), and claims no fix; the bug does not
# move (no fix-candidate, no re-run); the job page shows the verdict and
# the reasons; KCIDB exports SKIP (no build, no boot), never PASS; the
# digest lists it as UNTESTED.
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 19

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
port=$(free_port)
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$BB_SRC/tests/data/tracker-seed.json"
wait_port "$port" || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=http://127.0.0.1:$port
WEB_PORT=$(free_port)

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT
login = bot@example.com
watch_bugs = 9370
[web]
base_url = http://bugbridge.example/
listen = 127.0.0.1:$WEB_PORT
[triage]
mirror = whiteboard
[smtp]
to = linux-scsi@vger.kernel.org
from = bugbridge <bugbridge@example.org>
[digest]
every = never
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"

cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
comment_text() {
	curl -s "$B/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"]["9370"]["comments"] if sys.argv[1] in c["text"]))' "$1"
}

check "database migrates" bb db migrate
cycle
job=$(sql "SELECT id FROM jobs WHERE bug_id = 9370 AND state = 'queued' ORDER BY id LIMIT 1")
like "the poller queued a job for 9370's patch" "$job" '^[0-9]+$'

# what the runner writes for a patch to a Power Mac driver (t3545), and a
# line no runner writes: a build could print anything
why="drivers/scsi/mesh.c: needs CONFIG_SCSI_MESH, which depends on SCSI_LOWLEVEL && SCSI && PPC32 && PPC_PMAC && SCSI: CONFIG_PPC32 is an option of arch/powerpc only
drivers/scsi/x.c: visit <http://evil.example/> now"
sql "UPDATE jobs SET state = 'done', verdict = 'untested', fault = NULL,
	verdict_detail = '$why', kernel_version = '6.1.192',
	started_at = strftime('%s', 'now') - 26, finished_at = strftime('%s', 'now') WHERE id = $job;
INSERT INTO job_stages (job_id, variant, stage, started_at, finished_at, status, detail) VALUES
	($job, 'patched', 'apply', 1796256000, 1796256010, 'ok', NULL),
	($job, 'patched', 'configure', 1796256010, 1796256026, 'skipped', 'untested');"
cycle
text=$(comment_text "bugbridge-result: job $job")
like "the comment leads with UNTESTED" "$text" \
	"^bugbridge UNTESTED: this patch changes code the test kernel cannot build, so no test judged it"
like "and gives the reason, file by file" "$text" \
	"^Untested: drivers/scsi/mesh.c: needs CONFIG_SCSI_MESH, which depends on SCSI_LOWLEVEL && SCSI && PPC32 && PPC_PMAC && SCSI: CONFIG_PPC32 is an option of arch/powerpc only$"
unlike "a line of no known shape is not copied" "$text" "evil"
like "it is counted instead" "$text" "1 more line on the job page"
unlike "it claims no fix" "$text" "FAIL->PASS|fixes|PASS"
is "the bug does not move" "$(sql "SELECT triage_state FROM bugs WHERE id = 9370")" new
is "no re-run is queued" "$(sql "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'")" 0

kcidb=$(bb job show "$job" --kcidb)
status() {
	printf '%s' "$kcidb" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if sys.argv[1] == "build":
    print(" ".join(b["status"] for b in d["builds"]))
else:
    print(" ".join(t["status"] for t in d["tests"] if t["path"] == "boot"))' "$1"
}
is "KCIDB: the build was skipped" "$(status build)" SKIP
is "KCIDB: so was the boot" "$(status boot)" SKIP

out=$(BUGBRIDGE_DIGEST_EVERY=daily bb digest --dry-run 2>&1)
like "the digest has it under Not tested" "$out" \
	"^Not tested \\(1\\): infra-errors and untested patches, no results$"
like "as UNTESTED" "$out" "^#9370 job $job: UNTESTED "
unlike "not among the test results" "$out" "^Test results"

bg web bbd
wait_port "$WEB_PORT" 20 || diag "$(cat "$TMP/web.log")"
page=$(curl -s "http://127.0.0.1:$WEB_PORT/job/$job" | tr '\n' ' ')
like "the job page shows the verdict" "$page" '<span class="verdict v-untested">untested</span>'
like "and says what it means" "$page" "no test judged this patch"
like "and why, in its Detail" "$page" "needs CONFIG_SCSI_MESH, which depends on SCSI_LOWLEVEL &amp;&amp; SCSI"
like "and its configure stage was skipped" "$page" '<td>configure</td>.*s-skipped">skipped'
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
