#!/bin/sh
# The dashboard holds no secret (issue 14): bugbridged serves the dashboard
# and API from a process of its own.  With a tracker key (from a key file)
# and an SMTP password (from the environment) planted, that process's
# environment and every readable page of its memory hold neither; the same
# scan finds both in bugbridged itself, so the scan can see.  It holds no
# descriptor on bugbridged's database, only on its export (issue 35), and
# those are read-only (no write through its connection can reach the file) and it runs as [web] user when started as
# root, with no new privileges.  The one write, POST /api/jobs, still works
# (bugbridged does it); the process dies with bugbridged and comes back when
# it dies alone.
. "$(dirname "$0")/lib/test-lib.sh"
plan 15

KEY="BBKEY-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
PASS="BBSMTP-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
TOKEN="tok-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
PORT=$(free_port)
echo "$KEY" >"$TMP/api-key"
write_config "$TMP/c.conf" <<EOF
[tracker]
url = http://127.0.0.1:9
api_key_file = $TMP/api-key
poll_interval = 3600
[web]
listen = 127.0.0.1:$PORT
token = $TOKEN
[smtp]
user = bot
[digest]
every = never
EOF
bb --config "$TMP/c.conf" db migrate >/dev/null 2>&1
BUGBRIDGE_SMTP_PASSWORD=$PASS "$BB_BUILD/bugbridged" --config "$TMP/c.conf" >"$TMP/bbd.log" 2>&1 &
parent=$!
BB_PIDS="$BB_PIDS $parent"
wait_port "$PORT" 20
curl -s "http://127.0.0.1:$PORT/healthz" >/dev/null
child=$(pgrep -P "$parent" -f -- --web-child)
[ -n "$child" ] || { not_ok "the dashboard runs in a process of its own"; exit 1; }
ok "the dashboard runs in a process of its own (pid $child, under bugbridged $parent)"

environ() { tr '\0' '\n' <"/proc/$1/environ"; }
unlike "its environment holds neither secret" "$(environ "$child")" "$KEY|$PASS|BUGBRIDGE_"
like "(bugbridged's does: the password came that way)" "$(environ "$parent")" "$PASS"
scan_child=$(python3 "$BB_SRC/tests/lib/memscan.py" "$child" "$KEY" "$PASS")
scan_parent=$(python3 "$BB_SRC/tests/lib/memscan.py" "$parent" "$KEY" "$PASS")
is "its memory holds neither the tracker key nor the SMTP password" "$scan_child" "$KEY 0
$PASS 0"
like "(the same scan finds both in bugbridged)" "$(printf '%s\n' "$scan_parent" | tr '\n' ' ')" \
	"^$KEY [1-9][0-9]* $PASS [1-9][0-9]* $"

# every descriptor the dashboard holds on its database file (bugbridged's
# export of it, privsep_export.c) is read-only, and it holds none on
# bugbridged's database itself
dbfds=""
mainfds=""
for fd in /proc/"$child"/fd/*; do
	case "$(readlink "$fd")" in
	"$TMP/bugbridge.db-web"|"$TMP/bugbridge.db-web-wal")
		dbfds="$dbfds $(sed -n 's/^flags:\t*//p' "/proc/$child/fdinfo/${fd##*/}")";;
	"$TMP/bugbridge.db"|"$TMP/bugbridge.db-wal"|"$TMP/bugbridge.db-shm")
		mainfds="$mainfds ${fd##*/}";;
	esac
done
is "it holds no descriptor on bugbridged's database" "$mainfds" ""
diag "the dashboard's database descriptors (flags): $dbfds"
like "it has its database open" "$dbfds" "[0-9]"
is "and every such descriptor is read-only (O_RDONLY: a write cannot reach the file)" \
	"$(for f in $dbfds; do echo $(( 0$f & 3 )); done | sort -u | tr -d '\n')" 0
if [ "$(id -u)" = 0 ]; then
	like "started as root, it runs as nobody" "$(grep '^Uid:' /proc/"$child"/status)" \
		"^Uid:[[:space:]]+65534[[:space:]]"
else
	ok "# SKIP not root: no user to change to"
fi
like "with no new privileges" "$(grep '^NoNewPrivs:' /proc/"$child"/status)" "1"

out=$(curl -s -H "Authorization: Bearer $TOKEN" -d '{"bug_id": 9370, "with_baseline": true}' \
	"http://127.0.0.1:$PORT/api/jobs")
like "POST /api/jobs queues a job (bugbridged writes it)" "$out" '"id":1,"state":"queued"'
is "the row is there" "$(sql "SELECT bug_id, with_baseline, state FROM jobs")" "9370|1|queued"

# it comes back when it dies alone, and dies with bugbridged
kill -9 "$child"
i=0; new=""
while [ $i -lt 100 ] && { [ -z "$new" ] || [ "$new" = "$child" ]; }; do
	sleep 0.1; i=$((i + 1)); new=$(pgrep -P "$parent" -f -- --web-child)
done
i=0; while [ $i -lt 50 ] && [ "$(curl -s "http://127.0.0.1:$PORT/healthz" | head -1)" != ok ]; do
	sleep 0.1; i=$((i + 1)); done
is "killed, it is started again and serves" \
	"$(curl -s "http://127.0.0.1:$PORT/healthz" | head -1)" ok
kill -9 "$parent"; wait "$parent" 2>/dev/null
i=0; while [ $i -lt 50 ] && kill -0 "$new" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
check "it dies with bugbridged (kill -9 of bugbridged)" sh -c "! kill -0 $new 2>/dev/null"
unlike "no secret in the log" "$(cat "$TMP/bbd.log")" "$KEY|$PASS|$TOKEN"
done_testing
