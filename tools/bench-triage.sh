#!/bin/sh
# bench-triage.sh: how fast finished jobs become triage states and outbox
# rows, and what MAINTAINERS costs.
#
# A scratch database with N bugs, each with one finished job (a failing
# baseline and a fixing patch over 20 test cases, one failure signature,
# every signature shared by two bugs so half the bugs are duplicates).
# `bugbridged --once` with nothing to poll and no tracker to post to is
# timed with and without those jobs; the difference is triage.  Then the
# same with [triage] maintainers set to the real 6.1 MAINTAINERS (if it can
# be extracted), which adds owners for every bug.
# Prints "name: value unit" lines for tools/bench.sh.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BB_BUILD=${BB_BUILD:-$SRC/build}
N=${BENCH_TRIAGE_JOBS:-1000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-triage.XXXXXX")
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$TMP"' EXIT
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/bugbridge/maintainers-linux-source-6.1
MAINT=$CACHE/linux-source-6.1/MAINTAINERS

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
conf() {
	cat >"$TMP/bb.conf" <<CONF
[db]
path = $TMP/bench.db
[log]
level = error
[tracker]
url = http://127.0.0.1:$port
retries = 0
[triage]
maintainers = $1
CONF
}
seed() {
	rm -f "$TMP"/bench.db*
	"$BB_BUILD/bugbridge" --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
	[ "$1" -gt 0 ] || return 0
	sqlite3 "$TMP/bench.db" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1)
INSERT INTO bugs (id, summary, creator, creation_time) SELECT 100000 + i,
	'sd: bug number ' || i, 'r@example.org', '2026-12-01T00:00:00Z' FROM n;
INSERT INTO candidates (id, bug_id, source, kind, name, sha256, content)
	SELECT id - 100000, id, 'manual', 'patch', 'fix-' || id || '.patch', 'h' || id,
	'--- a/drivers/scsi/sd.c' || char(10) || '+++ b/drivers/scsi/sd.c' || char(10)
	FROM bugs;
INSERT INTO jobs (id, bug_id, candidate_id, with_baseline, state, verdict, change, accel,
	started_at, finished_at)
	SELECT id - 100000, id, id - 100000, 1, 'done', 'pass', 'FAIL->PASS', 'kvm', 0, 400
	FROM bugs;
WITH RECURSIVE t(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM t WHERE k < 20)
INSERT INTO test_results (job_id, variant, name, status, change)
	SELECT j.id, v.variant, 'case-' || t.k,
		CASE WHEN t.k = 1 AND v.variant = 'baseline' THEN 'fail' ELSE 'pass' END,
		CASE WHEN v.variant = 'patched' THEN
			CASE WHEN t.k = 1 THEN 'FAIL->PASS' ELSE 'PASS->PASS' END END
	FROM jobs j, t, (SELECT 'baseline' AS variant UNION ALL SELECT 'patched') v;
INSERT INTO signatures (job_id, variant, kind, title, frames, hash)
	SELECT id, 'baseline', 'warning', 'WARNING in sd_done ' || ((id + 1) / 2),
	'sd_done' || char(10) || 'scsi_finish_command', 'sig' || ((id + 1) / 2) FROM jobs;
COMMIT;
SQL
}
once() {
	start=$(date +%s.%N)
	"$BB_BUILD/bugbridged" --config "$TMP/bb.conf" --once >>"$TMP/bbd.log" 2>&1 || true
	end=$(date +%s.%N)
	echo "$end - $start" | bc
}

conf ""
seed 0
empty=$(once)
seed "$N"
full=$(once)
done_jobs=$(sqlite3 "$TMP/bench.db" "SELECT COUNT(*) FROM jobs WHERE reported = 1 AND kind = 'test'")
rows=$(sqlite3 "$TMP/bench.db" "SELECT COUNT(*) FROM outbox")
t=$(echo "$full - $empty" | bc)
echo "# $done_jobs of $N jobs reported, $rows outbox rows queued"
echo "triage of $N finished jobs: $(printf '%.3f' "$t") s"
echo "triage rate: $(echo "scale=0; $done_jobs / ($t + 0.0001)" | bc) jobs/s"

if [ ! -r "$MAINT" ] && [ -r /usr/src/linux-source-6.1.tar.xz ]; then
	mkdir -p "$CACHE"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$CACHE" linux-source-6.1/MAINTAINERS
fi
if [ -r "$MAINT" ]; then
	conf "$MAINT"
	seed 0
	"$BB_BUILD/bugbridge" --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
	sqlite3 "$TMP/bench.db" "INSERT INTO bugs (id) VALUES (1);
		INSERT INTO candidates (bug_id, source, kind, sha256, content) VALUES (1, 'manual',
		'patch', 'x', '+++ b/drivers/scsi/sd.c')"
	one=$(once)
	echo "owners of one bug, real 6.1 MAINTAINERS parsed: $(echo "($one - $empty) * 1000" | bc | cut -d. -f1) ms"
	seed "$N"
	withm=$(once)
	owners=$(sqlite3 "$TMP/bench.db" "SELECT COUNT(DISTINCT bug_id) FROM bug_owners")
	echo "# owners found for $owners of $N bugs"
	echo "triage and owners of $N bugs: $(printf '%.3f' "$(echo "$withm - $empty" | bc)") s"
else
	echo "# no MAINTAINERS (no linux-source-6.1 tarball): owners not measured"
fi
