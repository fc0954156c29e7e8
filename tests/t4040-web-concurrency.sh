#!/bin/sh
# t4040: the dashboard keeps answering while another process writes the
# database (WAL: readers on their own connections never wait for the
# writer), and pages show committed writes right away.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 9
web_start </dev/null || { not_ok "bugbridged serves the dashboard"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the dashboard"

# A writer that holds write transactions open while readers hammer the pages.
cat >"$TMP/writer.py" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
for batch in range(40):
    db.execute("BEGIN IMMEDIATE")
    for i in range(50):
        n = 100000 + batch * 50 + i
        db.execute("INSERT INTO bugs (id, product, component, status, summary, creation_time,"
                   " last_change_time) VALUES (?, 'IO/Storage', 'SCSI', 'NEW', ?, "
                   "'2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z')", (n, "load bug %d" % n))
    time.sleep(0.02)   # keep the write lock a while
    db.execute("COMMIT")
print("wrote 2000")
PY
python3 "$TMP/writer.py" "$TMP/bugbridge.db" >"$TMP/writer.out" 2>&1 &
writer=$!
for i in $(seq 1 300); do
	case $((i % 3)) in
	0) echo "$WEB/component/SCSI" ;;
	1) echo "$WEB/api/bugs?component=SCSI" ;;
	2) echo "$WEB/" ;;
	esac
done | xargs -P 8 -n 1 curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 >"$TMP/codes"
wait $writer
is "the writer finished" "$(cat "$TMP/writer.out")" "wrote 2000"
is "300 concurrent reads during writes" "$(wc -l <"$TMP/codes" | tr -d ' ')" 300
is "every read answered 200" "$(sort -u "$TMP/codes" | tr '\n' ' ')" "200 "
like "committed bugs show on the component page" "$(get /component/SCSI)" '2002 open bugs'
like "long lists are paged" "$(get /component/SCSI)" 'class="pager"><strong>1</strong> <a href="/component/SCSI\?page=2">2</a>'
is "page 21 holds the last 2 bugs" "$(get '/component/SCSI?page=21' | grep -o 'href="/bug/[0-9]*"' | wc -l | tr -d ' ')" 2
is "and in the API" "$(raw '/api/bugs?component=SCSI&limit=1000' | jq '.bugs | length')" 1000

# A job that finishes stops its page's refresh.
sql "UPDATE jobs SET state = 'done', verdict = 'pass', finished_at = strftime('%s', 'now') WHERE id = 3"
unlike "a job page stops refreshing once the job is done" "$(get /job/3)" 'http-equiv="refresh"'
done_testing
