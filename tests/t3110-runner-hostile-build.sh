#!/bin/sh
# A hostile build, the attacks of issue 14 in one job (a kernel build is
# dear): the patch adds a script that kbuild runs while it reads
# drivers/scsi/Makefile, and the script (tests/data/attack/hostile-build.patch.in,
# told the real paths) tries to
#   - print the configuration (a unique secret planted in a config at
#     etc/bugbridge/bugbridge.conf, and in the runner's environment), the
#     database and every process's environment into the build log;
#   - write the database, the configuration, the pristine base tree, the
#     seed builds and the ccache;
#   - leave a setsid daemon behind.
# The job must end normally (stock 6.1 fails sr-capacity: verdict fail),
# the attack must have run, and: no secret anywhere (logs, job dir,
# database, job show), every write refused, the base, seeds and ccache
# unchanged, nothing of the build uid alive after the job.  QEMU ran with
# -nodefaults and -nic none inside the sandbox, and the guest saw no NIC.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require
command -v bwrap >/dev/null || skip_all "no bwrap"
[ "$(id -u)" = 0 ] || skip_all "needs root (a build uid of its own)"

plan 30
# a uid of the build's own, so that "nothing of it runs" means something
BUID=$((60000 + $$ % 4000))
SECRET=bbsecret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
CANARY=bbcanary-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
ENVCANARY=bbenvcanary-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
WEB_PORT=$(free_port)
runner_setup <<EOF2
build_user = $BUID
flake_retries = 0
[tracker]
api_key = $SECRET-key
url = http://127.0.0.1:9
poll_interval = 3600
# $CANARY: a line no redaction knows of
[smtp]
password = $SECRET-smtp
to = list@example.org
[web]
token = $SECRET-token
listen = 127.0.0.1:$WEB_PORT
base_url = http://bugbridge.example/
[digest]
every = never
EOF2
CONF=$TMP/etc/bugbridge/bugbridge.conf
mkdir -p "$(dirname "$CONF")"
mv "$TMP/bb.conf" "$CONF"
chmod 600 "$CONF"
export BUGBRIDGE_CONFIG="$CONF"
export BUGBRIDGE_LAVA_TOKEN="$SECRET-envtoken" BB_TEST_CANARY="$ENVCANARY"
DB=$TMP/bugbridge.db
BASE=$RUNNER_CACHE/base/linux-source-6.1
sed -e "s|@CONF@|$CONF|g" -e "s|@DB@|$DB|g" -e "s|@BASE@|$BASE|g" \
	-e "s|@CACHE@|$RUNNER_CACHE|g" "$BB_SRC/tests/data/attack/hostile-build.patch.in" \
	>"$TMP/hostile-build.patch"

id=$(bb job add --bug 9370 --patch "$TMP/hostile-build.patch" 2>/dev/null)
touch "$TMP/marker"
sleep 1
run_once runner.log
is "runner --once exits 0" "$?" "0"
is "the job ended normally: stock 6.1 fails sr-capacity" "$(job_field $id verdict)" "fail"
logs=$(job_field $id log_dir)
blog=$logs/patched-build.log
check "the attack ran in the build, as the build uid" grep -q "bbattack: begin uid=$BUID " "$blog"
check "and ran to its end" grep -q "bbattack: end" "$blog"
check "it saw no bugbridge config: the one at /etc/bugbridge" \
	grep -q "bbattack: reading /etc/bugbridge/bugbridge.conf head: cannot open" "$blog"
check "nor the planted one" grep -q "bbattack: reading $CONF head: cannot open" "$blog"
check "nor the database" grep -q "bbattack: reading $DB head: cannot open" "$blog"
unlike "no database page reached the log" "$(cat "$blog")" "SQLite format 3"
for what in "$CONF" "$DB" "$BASE/Makefile" "$RUNNER_CACHE/ccache/bbattack" \
	"/bb/ccache/bbattack" "/bb/src/Makefile"; do
	check "writing $what was refused" grep -q "bbattack: refused $what" "$blog"
done
unlike "no write of the attack succeeded" "$(cat "$blog")" "bbattack: WROTE"
leaks=$( { cat "$TMP/runner.log"; bb job show $id; bb job show $id --json; sqlite3 "$DB" .dump;
	   cat "$DB"* ; find "$logs" "$(dirname "$logs")" -type f -exec cat {} +; } 2>/dev/null |
	 grep -a -c -e "$SECRET" -e "$CANARY" -e "$ENVCANARY")
is "no secret or canary in any log, the job dir, the database or job show" "$leaks" "0"
# (the runner itself records a seed's key parts beside it: <key>.parts)
is "the base tree, the seeds and the ccache are unchanged" \
	"$(find "$BASE" "$RUNNER_CACHE/seed" "$RUNNER_CACHE/ccache" -newer "$TMP/marker" \
		! -path "$RUNNER_CACHE/seed" ! -path "$RUNNER_CACHE/seed/*.parts" | head -5)" ""
# (the patch itself, in the candidates table, holds the string: look at the end)
is "the database was not written by the build" "$(tail -c 64 "$DB" | grep -a -c bbattack-pwned)" "0"
is "and is whole" "$(sql "PRAGMA integrity_check")" "ok"
is "nor the configuration" "$(grep -c bbattack-pwned "$CONF")" "0"
check "the daemon was started" grep -q "bbattack: daemon [0-9]* started" "$blog"
# (zombies run nothing: this host's PID 1 reaps orphans lazily)
is "nothing of the build uid runs after the job" "$(ps -u "$BUID" -o stat= -o pid= -o args= | grep -v '^Z' | head -3)" ""

qline=$(grep "runner: qemu: " "$TMP/runner.log" | head -1)
like "QEMU runs in the sandbox as the build uid" "$qline" "bwrap .*--unshare-net.* setpriv --reuid=$BUID "
like "QEMU has -nodefaults and -nic none" "$qline" " -nodefaults -nic none "
like "QEMU has its seccomp sandbox" "$qline" \
	" -sandbox on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny"
is "the guest saw no network device" "$(test_status $id patched guest-no-network)" "pass"

# bugbridged's side: the result comment, the pages, the API, the feed, the
# digest (the tracker is down: the comment stays in the outbox)
sql "INSERT OR IGNORE INTO bugs (id, product, component, status, summary)
	VALUES (9370, 'Linux', 'SCSI', 'NEW', 'sr: capacity')"
bg bbd bbd
wait_port "$WEB_PORT" 20 || diag "bugbridged: $(cat "$TMP/bbd.log")"
i=0
while [ $i -lt 100 ] && [ "$(sql "SELECT count(*) FROM outbox WHERE kind = 'comment' AND job_id = $id")" = 0 ]; do
	sleep 0.3; i=$((i + 1))
done
comment=$(sql "SELECT payload FROM outbox WHERE kind = 'comment' AND job_id = $id")
like "the result comment was written" "$comment" "bugbridge-result: job $id"
pages=$(for p in / /bug/9370 /job/$id /job/$id/patched-build.log /api/jobs/$id /api/bugs/9370 \
		/feed.atom; do curl -s "http://127.0.0.1:$WEB_PORT$p"; done)
like "the pages were served, the build log with the attack's output" "$pages" "bbattack: refused"
digest=$(bb digest --dry-run 2>&1)
like "the digest has the result" "$digest" "/job/$id"
is "no secret or canary in the comment, the pages, the API, the feed or the digest" \
	"$(printf '%s\n' "$comment" "$pages" "$digest" | grep -a -c -e "$SECRET" -e "$CANARY" -e "$ENVCANARY")" "0"

done_testing
