#!/bin/sh
# bench-web.sh: how fast the dashboard serves with 10,000 bugs.
#
# A scratch database with 10,000 bugs (4,000 of them SCSI, 60% open), one
# finished job with a verdict for every fifth bug and comments, then
# bugbridged with [web] threads = 4 and wrk (--latency) against
# /component/SCSI (the HTML page: first 100 open bugs, newest change
# first, each with its latest verdict) and /api/bugs?component=SCSI (the
# same as JSON).  Prints "name: value unit" lines for tools/bench.sh.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BB_BUILD=${BB_BUILD:-$SRC/build}
BUGS=${BENCH_WEB_BUGS:-10000}
SECS=${BENCH_WEB_SECONDS:-10}
CONNS=${BENCH_WEB_CONNECTIONS:-8}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-web.XXXXXX")
PID=""
cleanup() {
	[ -z "$PID" ] || { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; }
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

command -v wrk >/dev/null || { echo "bench-web: wrk is not installed" >&2; exit 1; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TMP/bench.conf" <<CONF
[db]
path = $TMP/bench.db
[log]
level = error
[web]
listen = 127.0.0.1:$PORT
threads = 4
[tracker]
url = http://127.0.0.1:9
poll_interval = 86400
[digest]
every = never
[triage]
stale_days = 0
CONF
"$BB_BUILD/bugbridge" --config "$TMP/bench.conf" db migrate >/dev/null
sqlite3 "$TMP/bench.db" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $BUGS)
INSERT INTO bugs (id, product, component, status, is_open, summary, creator,
	creation_time, last_change_time, closed_time, closed_by, triage_state)
SELECT 100000 + i, 'IO/Storage',
	CASE WHEN i % 5 < 2 THEN 'SCSI' ELSE 'Comp' || (i % 13) END,
	CASE WHEN i % 5 < 3 THEN 'NEW' ELSE 'RESOLVED' END, i % 5 < 3,
	'bench bug ' || i || ': lost completion <after> reset & "retry"', 'u' || i || '@example.org',
	strftime('%Y-%m-%dT%H:%M:%SZ', 1700000000 + i * 3000, 'unixepoch'),
	strftime('%Y-%m-%dT%H:%M:%SZ', 1700000000 + i * 3000 + (i % 97) * 3600, 'unixepoch'),
	CASE WHEN i % 5 < 3 THEN NULL
	     ELSE strftime('%Y-%m-%dT%H:%M:%SZ', 1700000000 + i * 3100, 'unixepoch') END,
	CASE WHEN i % 5 < 3 THEN NULL ELSE 'closer' || (i % 7) || '@example.org' END,
	'new'
FROM n;
INSERT INTO comments (id, bug_id, count, author, time, text)
SELECT id * 10, id, 0, creator, creation_time, 'description of ' || summary FROM bugs;
INSERT INTO jobs (bug_id, kind, state, verdict, created_at, started_at, finished_at, reported)
SELECT id, 'test', 'done', CASE WHEN id % 3 = 0 THEN 'pass' ELSE 'fail' END,
	1700000000 + id, 1700000100 + id, 1700001000 + id, 1
FROM bugs WHERE id % 5 = 0;
COMMIT;
SQL
"$BB_BUILD/bugbridged" --config "$TMP/bench.conf" >"$TMP/bbd.log" 2>&1 &
PID=$!
i=0
until curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "bench-web: bugbridged did not start" >&2; cat "$TMP/bbd.log" >&2; exit 1; }
	sleep 0.1
done
open=$(sqlite3 "$TMP/bench.db" "SELECT count(*) FROM bugs WHERE component = 'SCSI' AND is_open")
echo "database: $BUGS bugs, $open open in SCSI; wrk ${SECS}s, $CONNS connections, 4 server threads"

# run NAME PATH: wrk, then the figures.
run() {
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$2")
	[ "$code" = 200 ] || { echo "bench-web: $2 answered $code" >&2; exit 1; }
	wrk -t 2 -c "$CONNS" -d "${SECS}s" --latency "http://127.0.0.1:$PORT$2" >"$TMP/wrk.out"
	sed 's/^/  # /' "$TMP/wrk.out" | grep -E 'Requests/sec|99%|Non-2xx|Socket errors' || true
	python3 - "$1" "$TMP/wrk.out" <<'PY'
import re, sys
name, text = sys.argv[1], open(sys.argv[2]).read()
def ms(v, unit):
    return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]
rps = re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1)
p99 = re.search(r"^\s*99%\s+([0-9.]+)(us|ms|s|m)\s*$", text, re.M)
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
print("%s requests/s: %s req/s" % (name, rps))
print("%s p99 latency: %.2f ms" % (name, ms(p99.group(1), p99.group(2))))
print("%s non-2xx: %d responses" % (name, int(bad.group(1)) if bad else 0))
PY
}
run "web /component/SCSI" /component/SCSI
run "web /api/bugs (component=SCSI)" '/api/bugs?component=SCSI'
