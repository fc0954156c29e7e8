#!/bin/sh
# demo.sh: the main job end to end, on embedded defaults (`make demo`).
#
# Starts the stand-in Bugzilla seeded with bug 9370 (the 2008 revert attached,
# plus kernel-patches/sr-sense-valid as the real candidate), an SMTP server on
# loopback writing to a mailbox, bugbridged on a SQLite database and one
# runner; shows progress; then prints the verdicts, the comment as the tracker
# stores it, the digest as the mailbox holds it, and the dashboard URL.
#
# With a terminal on stdin it keeps everything up until Ctrl-C; otherwise (or
# with ONCE=1) it stops what it started and exits 0, non-zero if a step failed.
# State lives in build/demo (fresh each run); kernel trees and builds live in
# the cache directory and are reused, so a second run is much faster.
set -u

SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BB_BUILD:-$SRC/build}
DEMO=${DEMO_DIR:-$SRC/build/demo}
CACHE=${BUGBRIDGE_RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbridge}
ONCE=${ONCE:-0}
[ -t 0 ] || ONCE=1
BOT_KEY=botkey0123456789abcdefghijABCDEFGHIJ0001
USER_KEY=usrkey0123456789abcdefghijABCDEFGHIJ0002
PIDS=""
failed=0
started=$(date +%s)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
step() { printf '   %s\n' "$*"; }
fail() { printf '   FAILED: %s\n' "$*" >&2; failed=1; }

free_port() {
	python3 - "$1" <<'EOF'
import socket, sys
want = int(sys.argv[1])
s = socket.socket()
try:
    s.bind(("127.0.0.1", want))
except OSError:
    s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
EOF
}

wait_port() {
	i=0
	while [ $i -lt 100 ]; do
		python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1',$1)))" && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

stop_all() {
	for pid in $PIDS; do kill "$pid" 2>/dev/null; done
	for pid in $PIDS; do wait "$pid" 2>/dev/null; done
	PIDS=""
}
trap 'stop_all; exit 130' INT TERM
trap 'stop_all' EXIT

bb() { "$BIN/bugbridge" --config "$DEMO/bugbridge.conf" "$@"; }

rm -rf "$DEMO"
mkdir -p "$DEMO" "$CACHE"
if [ -d "$CACHE/seed" ] && [ -n "$(ls "$CACHE/seed" 2>/dev/null)" ]; then
	warm=1
	say "bugbridge demo (kernel cache in $CACHE is warm: this run reuses it)"
else
	warm=0
	say "bugbridge demo (cold kernel cache in $CACHE: the first build takes a few minutes)"
fi

# --- the stand-in tracker ------------------------------------------------
say "1. stand-in Bugzilla with bug 9370"
BZ_PORT=$(free_port 8091)
"$BIN/bz-standin" --listen "127.0.0.1:$BZ_PORT" --db "$DEMO/tracker.db" \
	--seed "$SRC/tests/data/tracker-seed.json" >"$DEMO/tracker.log" 2>&1 &
PIDS="$PIDS $!"
wait_port "$BZ_PORT" || { fail "stand-in tracker did not start (see $DEMO/tracker.log)"; exit 1; }
BZ="http://127.0.0.1:$BZ_PORT"
step "listening on $BZ"
step "bug 9370: $(curl -s "$BZ/rest/bug/9370?include_fields=summary" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0]["summary"])')"

# The real candidate, attached by the reporter as a maintainer would.
python3 - "$BZ" "$USER_KEY" "$SRC/kernel-patches/sr-sense-valid" >"$DEMO/attach.out" <<'EOF' || fail "could not attach sr-sense-valid"
import base64, json, os, sys, urllib.request
bz, key, series = sys.argv[1:4]
names = [l.strip() for l in open(os.path.join(series, "series")) if l.strip() and not l.startswith("#")]
data = b"".join(open(os.path.join(series, n), "rb").read() for n in names)
body = {"api_key": key, "ids": [9370], "data": base64.b64encode(data).decode(),
        "file_name": "sr-sense-valid.patch", "summary": "sr: check the VALID bit before trusting sense INFORMATION",
        "content_type": "text/plain", "is_patch": True,
        "comment": "Candidate fix: sr_done() must check the VALID bit (0x80)."}
req = urllib.request.Request(bz + "/rest/bug/9370/attachment", data=json.dumps(body).encode(),
                             headers={"Content-Type": "application/json"}, method="POST")
print(json.load(urllib.request.urlopen(req)))
EOF
step "attached kernel-patches/sr-sense-valid as a patch: $(cat "$DEMO/attach.out")"

# --- mail ----------------------------------------------------------------
say "2. SMTP server on loopback (aiosmtpd) writing to $DEMO/mailbox"
SMTP_PORT=$(free_port 2525)
"$SRC/tools/smtp-sink.py" --listen "127.0.0.1:$SMTP_PORT" --mbox "$DEMO/mailbox" \
	>"$DEMO/smtp.log" 2>&1 &
PIDS="$PIDS $!"
wait_port "$SMTP_PORT" || { fail "SMTP server did not start (see $DEMO/smtp.log)"; exit 1; }
step "listening on 127.0.0.1:$SMTP_PORT"

# --- bugbridged and a runner --------------------------------------------
WEB_PORT=$(free_port 8080)
cat >"$DEMO/bugbridge.conf" <<EOF
[db]
path = $DEMO/bugbridge.db
[tracker]
url = $BZ
api_key = $BOT_KEY
login = bot@example.com
watch_bugs = 9370
poll_interval = 5
[web]
listen = 127.0.0.1:$WEB_PORT
base_url = http://127.0.0.1:$WEB_PORT
[smtp]
url = smtp://127.0.0.1:$SMTP_PORT
from = bugbridge@localhost
to = linux-scsi@vger.kernel.org
[digest]
every = never
[triage]
# the demo shows the fix back-tested on 6.12 (when installed); a release
# bisection would fetch 140 MB per release and build each cold
release_bisect = false
[runner]
cache_dir = $CACHE
patches_dir = $SRC/kernel-patches
accel = auto
# two jobs at once: the fix's re-run on 6.1 need not wait behind its
# back-test on 6.12, which may wait for 6.12's seed (built in the background)
parallel = 2
[log]
level = info
EOF
say "3. bugbridged (dashboard on http://127.0.0.1:$WEB_PORT) and the runner"
bb db migrate
"$BIN/bugbridged" --config "$DEMO/bugbridge.conf" >"$DEMO/bugbridged.log" 2>&1 &
PIDS="$PIDS $!"
wait_port "$WEB_PORT" || fail "dashboard did not start (see $DEMO/bugbridged.log)"
# The runner starts at once: bugbridged polls and queues meanwhile, and a
# job that needs the seed waits for --warm's build of it (its progress says
# so) rather than building it beside.  --warm builds 6.1's seed, the base
# built once, saying how long it will take and how far it is; the jobs then
# build only what their patch touches.
"$BIN/bugbridge-runner" --config "$DEMO/bugbridge.conf" >"$DEMO/runner.log" 2>&1 &
RUNNER_PID=$!
PIDS="$PIDS $RUNNER_PID"
step "bugbridge-runner --warm --base 6.1:"
{ "$BIN/bugbridge-runner" --config "$DEMO/bugbridge.conf" --warm --base 6.1 -q 2>&1
  echo $? >"$DEMO/warm.rc"; } | sed 's/^/     /'
[ "$(cat "$DEMO/warm.rc")" = 0 ] || fail "the seed did not build"
# 6.12's seed, for the fix's back-test, in the background and at a lower
# priority than the 6.1 jobs' builds and guests: the back-test then starts
# from it (or waits for it) instead of building 6.12 cold.
if [ -r /usr/src/linux-source-6.12.tar.xz ]; then
	step "bugbridge-runner --warm --base 6.12, in the background (see $DEMO/warm-6.12.log)"
	nice -n 10 "$BIN/bugbridge-runner" --config "$DEMO/bugbridge.conf" --warm --base 6.12 \
		>"$DEMO/warm-6.12.log" 2>&1 &
	PIDS="$PIDS $!"
fi

# --- progress --------------------------------------------------------------
say "4. poll, build, boot, test, post (progress)"
last=""
last_print=$(date +%s)
deadline=$(( $(date +%s) + ${DEMO_TIMEOUT:-2400} ))
while :; do
	now=$(date +%s)
	if [ "$now" -gt "$deadline" ]; then
		fail "timed out waiting for the jobs"
		break
	fi
	line=$(bb job list 2>/dev/null | tr '\n' '|')
	if [ "$line" != "$last" ]; then
		printf '   [%4ds] %s\n' "$((now - started))" "$(bb job list 2>/dev/null | sed '2,$s/^/          /')"
		last=$line
		last_print=$now
	elif [ $((now - last_print)) -ge 30 ]; then
		# A build is minutes of one stage: its progress line says how far.
		printf '   [%4ds] %s\n' "$((now - started))" \
			"$(bb job list --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
print("; ".join("job %d %s" % (j["id"], j["progress"]) for j in json.load(sys.stdin)
                if j["state"] == "running"))')"
		last_print=$now
	fi
	# Done when no job is waiting or running, triage has reported every
	# finished job (it may queue a re-run), and the outbox is empty.
	counts=$(sqlite3 -batch "$DEMO/bugbridge.db" "SELECT
		(SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')),
		(SELECT count(*) FROM jobs WHERE state = 'done' AND reported = 0),
		(SELECT count(*) FROM outbox WHERE state IN ('pending', 'sending')),
		(SELECT count(*) FROM jobs WHERE state = 'done')" 2>/dev/null | tr '|' ' ')
	set -- $counts
	if [ "${1:-1}" = 0 ] && [ "${2:-1}" = 0 ] && [ "${3:-1}" = 0 ] && [ "${4:-0}" -gt 0 ]; then
		break
	fi
	if ! kill -0 "$RUNNER_PID" 2>/dev/null; then
		fail "the runner exited (see $DEMO/runner.log)"
		break
	fi
	sleep 2
done

# --- results ----------------------------------------------------------------
say "5. verdicts"
for id in $(bb job list --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
print(" ".join(str(j["id"]) for j in sorted(json.load(sys.stdin), key=lambda j: j["id"])))'); do
	bb job show "$id" | sed 's/^/   /'
	echo
done

say "6. the comments as the tracker stores them (bug 9370)"
curl -s "$BZ/rest/bug/9370/comment" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["bugs"]["9370"]["comments"]:
    if "bugbridge-" in c["text"]:
        print("   --- comment %d by %s at %s" % (c["count"], c["creator"], c["time"]))
        print("\n".join("   " + l for l in c["text"].splitlines()))' || fail "could not read the comments"
curl -s "$BZ/rest/bug/9370?include_fields=whiteboard" | python3 -c '
import json, sys; print("   whiteboard: %r" % json.load(sys.stdin)["bugs"][0]["whiteboard"])'

say "7. the digest, as the mailbox holds it"
bb digest --send-now >"$DEMO/digest.out" 2>&1 || fail "digest: $(tail -1 "$DEMO/digest.out")"
i=0; while [ $i -lt 50 ] && [ ! -s "$DEMO/mailbox" ]; do sleep 0.2; i=$((i + 1)); done
if [ -s "$DEMO/mailbox" ]; then
	/usr/bin/python3 - "$DEMO/mailbox" <<'PYEOF'
import mailbox, sys
for msg in mailbox.mbox(sys.argv[1]):
    for h in ("Date", "From", "To", "Subject", "Message-ID", "List-Id"):
        print("   %s: %s" % (h, msg[h]))
    print()
    body = msg.get_payload(decode=True).decode(msg.get_content_charset() or "utf-8")
    print("\n".join("   " + l for l in body.splitlines()))
PYEOF
else
	fail "no mail arrived"
fi

took=$(( $(date +%s) - started ))
say "done in ${took}s$( [ $warm = 1 ] && echo ' (warm cache)')"
step "dashboard: http://127.0.0.1:$WEB_PORT/  (bug: /bug/9370)"
step "logs and state: $DEMO"
if [ "$ONCE" = 1 ]; then
	stop_all
	exit $failed
fi
step "everything stays up until Ctrl-C"
wait
