#!/bin/sh
# HTTP limits (issue 14): 64 anonymous clients each POST 64 MiB at once, half
# with Content-Length, half chunked, to the write route (/api/jobs).  Each
# is answered before its body is read (413 over the route's limit; 401 for a
# chunked body, which has no length to refuse it by, since a write route
# wants the token first), and the memory of bugbridged's processes stays
# flat: under 64 MB in all (a plain build), or within 32 MB of where it was
# (a sanitizer build, whose baseline alone is above that).  Before the fix
# the remote runners' route (gone since) buffered 64 MiB per request before
# it looked at the token.  Also: [web] max_per_ip.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"
plan 11

web_start <<EOF || { not_ok "bugbridged starts"; exit 1; }
[web]
max_per_ip = 100
EOF
parent=$(pgrep -f -- "--config $TMP/web.conf" | head -1)
[ -n "$parent" ] || { not_ok "bugbridged is running"; exit 1; }
# a first request opens what the server keeps open (threads' pages, caches)
status / >/dev/null

out=$(python3 "$BB_SRC/tests/lib/http_flood.py" "$WEB_PORT" 64 67108864 "$parent" \
	/api/jobs)
diag "$out"
answers=$(printf '%s\n' "$out" | grep -E '^([0-9]+|none) ' | tr '\n' ' ')
is "every client got an answer before its body was read: 413 or 401" "$answers" \
	"401 32 413 32 "
max=$(printf '%s\n' "$out" | sed -n 's/^max_rss_kb //p')
start=$(printf '%s\n' "$out" | sed -n 's/^start_rss_kb //p')
sent=$(printf '%s\n' "$out" | sed -n 's/^max_sent //p')
if ldd "$BB_BUILD/bugbridged" | grep -q asan; then
	check "bugbridged's processes grew by less than 32 MB (sanitizer build: $start -> $max kB)" \
		test $((max - start)) -lt 32768
else
	check "bugbridged's processes stayed under 64 MB ($start -> $max kB)" test "$max" -lt 65536
fi
# what a client got out includes what the kernel's socket buffers took
check "no client got even 8 MiB of its body out ($sent bytes at most)" test "$sent" -lt 8388608
page=$(python3 "$BB_SRC/tests/lib/http_flood.py" "$WEB_PORT" 2 67108864 "$parent" /api/bugs)
is "a body sent to a page that takes none: 405 at once" \
	"$(printf '%s\n' "$page" | grep -E '^[0-9]+ ' | tr '\n' ' ')" "405 2 "
is "the dashboard still answers" "$(status /healthz)" 200
is "an authenticated job request still works" \
	"$(status /api/jobs -H "Authorization: Bearer $WEB_TOKEN" -d '{"bug_id": 9370}')" 201
is "a token holder's body over the limit: 413" \
	"$(head -c 1100000 /dev/zero | curl -s -o /dev/null -w '%{http_code}' \
		-H "Authorization: Bearer $WEB_TOKEN" --data-binary @- "$WEB/api/jobs")" 413

# [web] max_per_ip: the connections past it from one address are closed unserved
kill "$parent"
i=0; while [ $i -lt 100 ] && kill -0 "$parent" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
sed -i 's/^max_per_ip = 100/max_per_ip = 8/' "$TMP/web.conf"
bg bbd bbd --config "$TMP/web.conf"
wait_port "$WEB_PORT" 20
held=$(python3 - "$WEB_PORT" <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
time.sleep(1.5)
alive = 0
for s in socks:
    s.settimeout(0.3)
    try:
        alive += 0 if s.recv(1) == b"" else 1
    except socket.timeout:
        alive += 1
    except OSError:
        pass
print(alive)
EOF
)
is "of 20 idle connections from one address, 8 are kept" "$held" 8
like "the refusals are logged, not once per connection" \
	"$(grep -c 'connection limit' "$TMP/bbd.log")" '^[1-3]$'

is "and a request still gets through once they are gone" "$(status /healthz)" 200
unlike "no sanitizer report" "$(cat "$TMP"/bbd.log)" "ERROR: [A-Za-z]*Sanitizer|runtime error:"
done_testing
