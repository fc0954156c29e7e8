#!/bin/sh
# bugbridged as a service: SIGHUP re-reads the config and reopens the log,
# SIGTERM stops it with exit 0, and a tracker that is down does not stop it
# (but `--once` says so with exit 1).
. "$(dirname "$0")/lib/test-lib.sh"
plan 7

port=$(free_port)
dead=$(free_port)
write_config "$TMP/c.conf" <<EOF2
[tracker]
url = http://127.0.0.1:$dead
watch_bugs = 9370
poll_interval = 3600
connect_timeout = 1
timeout = 2
retries = 0
[web]
listen = 127.0.0.1:$port
[digest]
every = never
EOF2
sed -i "s|^level = debug|level = info\nfile = $TMP/bbd.log|" "$TMP/c.conf"
bg bbd "$BB_BUILD/bugbridged" --config "$TMP/c.conf"
i=0; while [ $i -lt 50 ] && ! grep -q started "$TMP/bbd.log" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
like "bugbridged starts and logs to the configured file" "$(cat "$TMP/bbd.log" 2>/dev/null)" "bugbridged .* started"
mv "$TMP/bbd.log" "$TMP/bbd.log.1"
kill -HUP "$PID_bbd"
i=0; while [ $i -lt 50 ] && [ ! -s "$TMP/bbd.log" ]; do sleep 0.1; i=$((i+1)); done
like "SIGHUP reopens the log (rotation works)" "$(cat "$TMP/bbd.log" 2>/dev/null)" "reload: configuration re-read"
kill -0 "$PID_bbd" 2>/dev/null
is "still running after SIGHUP and a failed poll" "$?" 0
kill -TERM "$PID_bbd"
wait "$PID_bbd"; rc=$?
BB_PIDS=""
is "SIGTERM exits 0" "$rc" 0
like "and says it is stopping" "$(cat "$TMP/bbd.log")" "stopping"
out=$(bbd --config "$TMP/c.conf" --once 2>&1); rc=$?
is "--once with the tracker down exits 1 (cron and systemd see it)" "$rc" 1
like "and says which step failed" "$out" "bugbridged: the cycle failed: poll \(see the log\)"
