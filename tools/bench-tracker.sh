#!/bin/sh
# bench-tracker.sh: what a poll costs against the stand-in tracker.
#
# Seeds bz-standin with 10,000 bugs in one watched component (a generated
# fixture in the format of tests/data/tracker-seed.json), polls them all
# once, then measures:
#   - a poll with no change (the steady state every poll_interval);
#   - a poll after 100 of the 10,000 bugs got a new comment.
# For each: tracker requests made (the stand-in's request log), wall time
# and CPU time of bugbridged --once (user + system, from rusage).
# Prints "name: value unit" lines for tools/bench.sh.
set -u
SRC=${BB_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BB_BUILD:-$SRC/build}
N=${BENCH_BUGS:-10000}
CHANGED=${BENCH_CHANGED:-100}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-tracker.XXXXXX")
STANDIN_PID=
cleanup() {
	[ -n "$STANDIN_PID" ] && kill "$STANDIN_PID" 2>/dev/null && wait "$STANDIN_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for b in bz-standin bugbridged; do
	[ -x "$BUILD/$b" ] || { echo "bench-tracker: $BUILD/$b not built" >&2; exit 1; }
done

# The fixture: the users of the test seed, N bugs in Linux/Bench, each with
# a description; every tenth has a small patch attachment.
python3 - "$SRC/tests/data/tracker-seed.json" "$N" >"$TMP/seed.json" <<'PYEOF'
import json, sys
seed = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
bugs = []
for i in range(n):
    bug = {"id": 100000 + i, "product": "Linux", "component": "Bench",
           "summary": "bench bug %d: I/O error on sd%d" % (i, i % 26),
           "reporter": "user@example.com", "assigned_to": "admin@example.com",
           "status": "CONFIRMED", "version": "6.1", "op_sys": "Linux", "platform": "PC",
           "priority": "Normal", "severity": "normal", "keywords": [],
           "comments": [{"creator": "user@example.com",
                         "text": "Seen on boot %d.\nsd 0:0:0:0: [sda] tag#%d timing out" % (i, i)}]}
    if i % 10 == 0:
        bug["attachments"] = [{"creator": "user@example.com", "file_name": "fix-%d.patch" % i,
            "summary": "fix", "content_type": "text/plain", "is_patch": 1,
            "text": "--- a/drivers/scsi/sd.c\n+++ b/drivers/scsi/sd.c\n@@ -1,3 +1,3 @@\n a\n-b%d\n+c%d\n d\n" % (i, i)}]
    bugs.append(bug)
print(json.dumps({"users": seed["users"], "products": {"Linux": ["Bench", "SCSI"]},
                  "keywords": seed["keywords"], "bugs": bugs}))
PYEOF

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" --seed "$TMP/seed.json" \
	>"$TMP/standin.log" 2>&1 &
STANDIN_PID=$!
i=0
until curl -s "http://127.0.0.1:$port/rest/version" >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -gt 600 ] && { echo "bench-tracker: stand-in did not start" >&2; exit 1; }
	sleep 0.1
done
# Seeding stamps every bug with the seeding time; let [tracker] overlap (2 s)
# pass, or the steady-state polls below would keep re-reading the whole
# freshly seeded range inside the overlap window (a seeding artefact).
sleep 3

cat >"$TMP/bb.conf" <<EOF
[db]
path = $TMP/bb.db
[log]
level = warn
[tracker]
url = http://127.0.0.1:$port
api_key = botkey0123456789abcdefghijABCDEFGHIJ0001
login = bot@example.com
watch_components = Linux:Bench
EOF

# measure NAME: run one bugbridged --once, print requests, wall ms, CPU ms
measure() {
	curl -s -X POST "http://127.0.0.1:$port/__control/reset" >/dev/null
	python3 - "$BUILD/bugbridged" "$TMP/bb.conf" "$1" "$port" <<'PYEOF'
import json, resource, subprocess, sys, time, urllib.request
prog, conf, name, port = sys.argv[1:5]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t = time.monotonic()
rc = subprocess.run([prog, "--once", "--config", conf]).returncode
wall = (time.monotonic() - t) * 1000
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (ru.ru_utime - before.ru_utime + ru.ru_stime - before.ru_stime) * 1000
reqs = json.load(urllib.request.urlopen("http://127.0.0.1:%s/__control/requests" % port))["requests"]
if rc:
    print("bugbridged exited %d" % rc, file=sys.stderr)
    sys.exit(1)
print("%s requests: %d" % (name, len(reqs)))
print("%s wall: %.0f ms" % (name, wall))
print("%s CPU: %.0f ms" % (name, cpu))
PYEOF
}

echo "# $N bugs watched (Linux:Bench), $CHANGED of them changed"
measure "first poll, $N bugs" || exit 1
echo "# stored: $(sqlite3 "$TMP/bb.db" 'SELECT count(*) FROM bugs') bugs," \
	"$(sqlite3 "$TMP/bb.db" 'SELECT count(*) FROM comments') comments," \
	"$(sqlite3 "$TMP/bb.db" 'SELECT count(*) FROM candidates') candidates"
sleep 1.1
measure "no-change poll" || exit 1
# change CHANGED bugs spread over the range
python3 - "$port" "$N" "$CHANGED" <<'PYEOF'
import json, sys, urllib.request
port, n, k = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
for j in range(k):
    bug = 100000 + j * (n // k)
    req = urllib.request.Request(
        "http://127.0.0.1:%d/rest/bug/%d/comment?api_key=usrkey0123456789abcdefghijABCDEFGHIJ0002" % (port, bug),
        data=json.dumps({"comment": "still there on 6.1.%d" % j}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    urllib.request.urlopen(req).read()
PYEOF
sleep 1.1
measure "poll, $CHANGED of $N changed" || exit 1
echo "# stored: $(sqlite3 "$TMP/bb.db" 'SELECT count(*) FROM comments') comments"
