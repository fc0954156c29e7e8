#!/bin/sh
# t4030: bad paths and parameters give 400/404 with a short message and
# never a crash; log file names cannot escape the job's log directory.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 35
web_start </dev/null || { not_ok "bugbridged serves the dashboard"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the dashboard"

is "unknown path: 404" "$(status /nope)" 404
like "404 says what was not found" "$(get /nope)" '<p class="error">no such page: /nope</p>'
is "unknown component: 404" "$(status /component/NOPE)" 404
like "unknown component page lists the known ones" "$(get /component/NOPE)" \
	'Unknown component.*href="/component/SCSI">SCSI</a> \(2 open\).*href="/component/USB"'
is "unknown component in a product: 404" "$(status /product/Drivers/SCSI)" 404
is "bug id not a number: 400" "$(status /bug/abc)" 400
is "bug id with junk: 400" "$(status '/bug/9370abc')" 400
is "bug id zero: 400" "$(status /bug/0)" 400
is "huge bug id: 400" "$(status /bug/99999999999999999999999)" 400
is "unknown bug: 404" "$(status /bug/424242)" 404
is "unknown job: 404" "$(status /job/4242)" 404
is "job id negative: 400" "$(status /job/-1)" 400
is "bad page number: 400" "$(status '/component/SCSI?page=x')" 400
is "bad status filter: 400" "$(status '/api/bugs?status=bogus')" 400
like "API errors are JSON" "$(get '/api/bugs?status=bogus')" '"error": ?"bad status'
is "bad limit: 400" "$(status '/api/bugs?limit=-5')" 400
is "limit too large: 400" "$(status '/api/bugs?limit=100000')" 400
is "bad job state: 400" "$(status '/api/jobs?state=exploded')" 400
is "unknown feed component: 404" "$(status '/feed.atom?component=NOPE')" 404
is "POST to a page: 405" "$(status / -X POST -d x)" 405
is "oversized POST body: 413" \
	"$(head -c 200000 /dev/zero | tr '\0' a | curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $WEB_TOKEN" --data-binary @- "$WEB/api/jobs")" 413

is "log traversal with ..: 404" "$(status '/job/1/..%2F..%2F..%2Fetc%2Fpasswd')" 404
is "log traversal, dotted name: 404" "$(status '/job/1/..log')" 404
is "log name must end in .log: 404" "$(status '/job/1/build.txt')" 404
is "symlinked log pointing outside: 404" "$(status /job/1/evil.log)" 404
unlike "symlink target is not served" "$(get /job/1/evil.log)" OUTSIDE-SECRET
is "missing log: 404" "$(status /job/2/patched-build.log)" 404
is "job without a log dir: 404" "$(status /job/4/build.log)" 404
is "control characters in the path: 400" "$(status '/bug/%0a9370')" 400
is "no remote runner API (remote runners are gone): 404" \
	"$(status /api/runner/claim -X POST -H "Authorization: Bearer $WEB_TOKEN" -d '{}')" 404
is "HEAD works like GET, without a body" "$(curl -s -I -o /dev/null -w '%{http_code} %{size_download}' "$WEB/bug/9370")" "200 0"
out=$(bbd --config "$TMP/web.conf" 2>&1); rc=$?
is "a second bugbridged on a taken port exits 1" "$rc" 1
like "and says why" "$out" "cannot listen on '127.0.0.1:$WEB_PORT': Address already in use"
is "still serving after all that" "$(raw /healthz | head -1)" ok
done_testing
