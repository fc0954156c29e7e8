#!/bin/sh
# Privilege separation, attacked (issue 35), as code that took the
# dashboard's process over would attack it:
#   - it takes the dashboard's end of its socket to bugbridged out of the
#     running process (pidfd_getfd) and asks what an anonymous client must
#     not get: a private job's log and its list of logs, a job queued
#     without the API token or with a wrong one.  bugbridged refuses each,
#     checking the caller and the job's privacy itself; with the right
#     token the same requests work;
#   - it reads every file the dashboard holds open, as that process could:
#     no private bug, private comment, attachment data, mail text, private
#     post, artifact token or API token is in any of them (the same scan
#     finds each in bugbridged's), and a bug made private is gone from them
#     after the next request;
#   - the dashboard's memory holds the API token only as its SHA-256.
# Root only (pidfd_getfd of a process that is not dumpable, memory reads).
. "$(dirname "$0")/lib/test-lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (pidfd_getfd, /proc/PID/mem)"
plan 21

TOKEN="tok-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
ARTIFACT=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
PORT=$(free_port)
write_config "$TMP/c.conf" <<EOF2
[tracker]
url = http://127.0.0.1:9
poll_interval = 3600
private_bugs = test
[web]
listen = 127.0.0.1:$PORT
token = $TOKEN
[digest]
every = never
EOF2
bb --config "$TMP/c.conf" db migrate >/dev/null 2>&1
mkdir -p "$TMP/logs/1" "$TMP/logs/2"
echo "public build log" >"$TMP/logs/1/patched-build.log"
echo "PRIVATE-LOG-CANARY of the security bug" >"$TMP/logs/2/patched-build.log"
sql "INSERT INTO bugs (id, product, component, summary, groups) VALUES
	(9370, 'IO/Storage', 'SCSI', 'sr: capacity', ''),
	(9373, 'IO/Storage', 'SCSI', 'PRIVATE-BUG-CANARY', 'kernel-security');
INSERT INTO bugs (id, product, component, summary) VALUES
	(9371, 'IO/Storage', 'SCSI', 'LATER-PRIVATE-CANARY');
INSERT INTO jobs (id, bug_id, state, verdict, log_dir) VALUES
	(1, 9370, 'running', NULL, '$TMP/logs/1'), (2, 9373, 'done', 'fail', '$TMP/logs/2');
INSERT INTO comments (id, bug_id, count, text, is_private) VALUES
	(1, 9370, 0, 'PUBLIC-COMMENT-MARK', 0), (2, 9370, 1, 'PRIVATE-COMMENT-CANARY', 1),
	(3, 9373, 0, 'PRIVATE-BUG-COMMENT-CANARY', 0), (4, 9371, 0, 'LATER-PRIVATE-CANARY too', 0);
INSERT INTO attachments (id, bug_id, file_name, data) VALUES
	(1, 9370, 'fix.patch', 'ATTACHMENT-DATA-CANARY');
INSERT INTO outbox (kind, bug_id, marker, payload) VALUES
	('mail', NULL, 'm1', 'Subject: digest\n\nMAIL-TEXT-CANARY'),
	('comment', 9373, 'c1', '{\"comment\": \"PRIVATE-POST-CANARY\"}');
INSERT INTO artifacts (token, job_id, dir, expires_at) VALUES
	('$ARTIFACT', 1, '$TMP/art', strftime('%s', 'now') + 3600);"

"$BB_BUILD/bugbridged" --config "$TMP/c.conf" >"$TMP/bbd.log" 2>&1 &
parent=$!
BB_PIDS="$BB_PIDS $parent"
wait_port "$PORT" 20
child=$(pgrep -P "$parent" -f -- --web-child)
[ -n "$child" ] || { not_ok "the dashboard runs in a process of its own"; exit 1; }
attack() { python3 "$BB_SRC/tests/lib/ps_attack.py" "$child" "$@" 2>&1; }

out=$(attack log-open 2 patched-build.log)
like "a private job's log, asked anonymously: bugbridged refuses it" "$out" '^404 0 no job 2$'
unlike "and no file comes with the answer" "$out" 'CANARY'
like "its list of logs: refused too" "$(attack log-list 2)" '^404 0 no job 2$'
out=$(attack log-open 2 patched-build.log "tok-wrong")
like "with a made-up token: refused" "$out" '^404 0 no job 2$'
like "a public job's log is served to anyone" "$(attack log-open 1 patched-build.log)" \
	'file: public build log'
like "the token holder gets the private log" "$(attack log-open 2 patched-build.log "$TOKEN")" \
	'file: PRIVATE-LOG-CANARY'

like "a job queued anonymously: refused" "$(attack job-add 9370)" \
	'^401 0 queueing a job needs the API token$'
like "with a made-up token: refused" "$(attack job-add 9370 "tok-wrong")" '^401 0 '
is "and no job was queued" "$(sql "SELECT count(*) FROM jobs")" 2
like "the token holder's job is queued" "$(attack job-add 9370 "$TOKEN")" '^201 3 queued$'

# The token: bugbridged's memory has it (the scan can see it), the dashboard's does not.
hash=$(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)
is "the dashboard's memory does not hold the API token" \
	"$(python3 "$BB_SRC/tests/lib/memscan.py" "$child" "$TOKEN")" "$TOKEN 0"
like "(bugbridged's does)" "$(python3 "$BB_SRC/tests/lib/memscan.py" "$parent" "$TOKEN")" \
	"^$TOKEN [1-9]"
like "the dashboard holds its SHA-256 instead" \
	"$(python3 "$BB_SRC/tests/lib/memscan.py" "$child" "$hash")" "^$hash [1-9]"
like "and checks requests with it: the token holder's API request works" \
	"$(curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/bugs/9373")" \
	'PRIVATE-BUG-CANARY'

# What the dashboard's files hold.
secrets="PRIVATE-BUG-CANARY PRIVATE-COMMENT-CANARY PRIVATE-BUG-COMMENT-CANARY
ATTACHMENT-DATA-CANARY MAIL-TEXT-CANARY PRIVATE-POST-CANARY $ARTIFACT $TOKEN"
curl -s "http://127.0.0.1:$PORT/bug/9370" >/dev/null
# shellcheck disable=SC2086
child_scan=$(python3 "$BB_SRC/tests/lib/fdscan.py" "$child" $secrets PUBLIC-COMMENT-MARK)
# shellcheck disable=SC2086
parent_scan=$(python3 "$BB_SRC/tests/lib/fdscan.py" "$parent" ${secrets% *})
diag "the dashboard's files: $(printf '%s\n' "$child_scan" | sed -n 's/^files: //p')"
unlike "the dashboard holds no descriptor on bugbridged's database" \
	"$(printf '%s\n' "$child_scan" | sed -n 's/^files: //p' | tr ' ' '\n')" \
	"^$TMP/bugbridge\.db(-wal|-shm)?$"
is "no private bug, comment, post, attachment data, mail text, artifact or API token in them" \
	"$(printf '%s\n' "$child_scan" | grep -v '^files:\|^PUBLIC' | grep -cv ' 0$')" 0 ||
	diag "$child_scan"
like "(what anyone may see is: a public comment)" "$child_scan" '^PUBLIC-COMMENT-MARK [1-9]'
is "(the same scan finds every one but the API token in bugbridged's files)" \
	"$(printf '%s\n' "$parent_scan" | grep -v '^files:' | grep -c ' 0$')" 0 ||
	diag "$parent_scan"

like "bug 9371 is public: the dashboard's files have it and its comment" \
	"$(python3 "$BB_SRC/tests/lib/fdscan.py" "$child" LATER-PRIVATE-CANARY)" '^LATER-PRIVATE-CANARY [2-9]'
sql "UPDATE bugs SET groups = 'kernel-security' WHERE id = 9371"
is "made private, it answers 404 at once" \
	"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/bug/9371")" 404
is "and nothing of it is left in the dashboard's files, not in a free page or a WAL frame" \
	"$(python3 "$BB_SRC/tests/lib/fdscan.py" "$child" LATER-PRIVATE-CANARY | sed -n 1p)" \
	"LATER-PRIVATE-CANARY 0"
done_testing
