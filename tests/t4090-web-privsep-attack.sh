#!/bin/sh
# Privilege separation, attacked (issue 35): the test takes the dashboard's
# end of its socket to bugbridged out of the running dashboard process
# (pidfd_getfd, as code that took that process over would hold it) and
# asks bugbridged what the dashboard must not get for an anonymous client:
# a private job's log and its list of logs, a job queued without the API
# token or with a wrong one.  bugbridged refuses each, checking the caller
# and the job's privacy itself; with the right token the same requests
# work.  The dashboard holds the API token only as its SHA-256: neither its
# memory nor its configuration has the token.  Root only (pidfd_getfd of
# a process that is not dumpable, memory reads).
. "$(dirname "$0")/lib/test-lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (pidfd_getfd, /proc/PID/mem)"
plan 14

TOKEN="tok-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
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
INSERT INTO jobs (id, bug_id, state, verdict, log_dir) VALUES
	(1, 9370, 'done', 'pass', '$TMP/logs/1'), (2, 9373, 'done', 'fail', '$TMP/logs/2');"

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
done_testing
