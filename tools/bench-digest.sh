#!/bin/sh
# bench-digest.sh: how long building a digest takes over 10,000 bugs.
#
# A scratch database with 10,000 open and closed bugs over 20 components,
# 5 comments each, 2,000 finished jobs; then `bugbridge digest --dry-run`
# (route, query, compose, print: everything but SMTP) for one catch-all
# list and for 20 per-component lists, timed over several runs.
# Prints "name: value unit" lines for tools/bench.sh.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BB_BUILD=${BB_BUILD:-$SRC/build}
BUGS=${BENCH_DIGEST_BUGS:-10000}
RUNS=${BENCH_DIGEST_RUNS:-5}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-digest.XXXXXX")
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$TMP"' EXIT

lists=""
i=0
while [ $i -lt 20 ]; do
	lists="$lists${lists:+, }Comp$i=list$i@example.org"
	i=$((i + 1))
done
cat >"$TMP/all.conf" <<CONF
[db]
path = $TMP/bench.db
[log]
level = error
[tracker]
url = https://bugzilla.example.org
[smtp]
to = everything@example.org
CONF
sed "s/^to = .*/lists = $lists/" "$TMP/all.conf" >"$TMP/lists.conf"

"$BB_BUILD/bugbridge" --config "$TMP/all.conf" db migrate >/dev/null
sqlite3 "$TMP/bench.db" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $BUGS)
INSERT INTO bugs (id, product, component, status, is_open, summary, creator,
	creation_time, closed_time, first_seen)
SELECT i, 'IO/Storage', 'Comp' || (i % 20), CASE WHEN i % 7 = 0 THEN 'RESOLVED' ELSE 'NEW' END,
	i % 7 <> 0,
	'scsi: bug number ' || i || ' with a summary long enough to be cut: ' || hex(randomblob(30)),
	'reporter' || (i % 300) || '@example.org',
	strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || (i % 400) || ' days', '-' || (i % 24) || ' hours'),
	CASE WHEN i % 7 = 0 THEN strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || (i % 3) || ' days') END,
	CAST(strftime('%s', 'now', '-' || (i % 400) || ' days') AS INTEGER)
FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $BUGS * 5)
INSERT INTO comments (id, bug_id, count, author, time, text)
SELECT i, (i - 1) / 5 + 1, (i - 1) % 5,
	CASE WHEN i % 3 = 0 THEN 'dev' || (i % 50) || '@example.org'
	     ELSE 'reporter' || (((i - 1) / 5 + 1) % 300) || '@example.org' END,
	strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || (i % 300) || ' days'), 'comment text'
FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $BUGS / 5)
INSERT INTO candidates (id, bug_id, source, kind, name, sha256)
SELECT i, i * 5, 'attachment', 'patch', '0001-fix-for-bug-' || (i * 5) || '.patch', hex(randomblob(16))
FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $BUGS / 5)
INSERT INTO jobs (id, bug_id, candidate_id, state, verdict, change, finished_at)
SELECT i, i * 5, i, 'done', CASE WHEN i % 4 = 0 THEN 'fail' ELSE 'pass' END,
	CASE WHEN i % 4 = 0 THEN 'PASS->FAIL' ELSE 'FAIL->PASS' END,
	CAST(strftime('%s', 'now', '-' || (i % 48) || ' hours') AS INTEGER)
FROM n;
COMMIT;
ANALYZE;
SQL

# run RUNS times; print the median wall and CPU (user + sys) seconds
median() {
	r=0
	while [ $r -lt "$RUNS" ]; do
		/usr/bin/time -f "%e %U %S" -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" ||
			{ cat "$TMP/err" >&2; exit 1; }
		cat "$TMP/time"
		r=$((r + 1))
	done | awk '{ print $1, $2 + $3 }' | sort -n |
		awk '{ w[NR] = $1; c[NR] = $2 } END { m = int((NR + 1) / 2); printf "%.3f %.3f", w[m], c[m] }'
}

set -- $(median "$BB_BUILD/bugbridge" --config "$TMP/all.conf" digest --dry-run)
echo "# one catch-all list: $(grep -m1 '^Subject:' "$TMP/out")"
echo "digest build, $BUGS bugs, one list, wall: $1 s"
echo "digest build, $BUGS bugs, one list, cpu: $2 s"
set -- $(median "$BB_BUILD/bugbridge" --config "$TMP/lists.conf" digest --dry-run)
echo "# 20 component lists: $(grep -c '^Subject:' "$TMP/out") digests"
echo "digest build, $BUGS bugs, 20 component lists, wall: $1 s"
echo "digest build, $BUGS bugs, 20 component lists, cpu: $2 s"
