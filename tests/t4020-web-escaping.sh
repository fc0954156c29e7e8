#!/bin/sh
# t4020: attacker-controlled tracker text (<script>, quotes, &) comes out
# escaped on every page and in the feed; every response carries the
# security headers; the API token never appears in any response.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 23
web_start </dev/null || { not_ok "bugbridged serves the dashboard"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the dashboard"

for p in / /component/SCSI /bug/9370 /digests /feed.atom; do
	body=$(get "$p")
	unlike "$p has no raw <script> or <img> from the tracker" "$body" '<script|<img'
done
body=$(get /bug/9370)
like "summary is escaped (<, >, &, quotes)" "$body" \
	'sd: lost completion &lt;script&gt;alert\(1\)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39; timeout'
like "comment text is escaped" "$body" '&lt;img src=x onerror=alert\(2\)&gt; &#39;quotes&#39; &amp; ampersands'
like "our posted text is escaped" "$body" 'Verdict: fail. &lt;script&gt;alert\(3\)&lt;/script&gt;'
like "candidate names are escaped" "$body" 'completion-v2 &lt;b&gt;.patch'
like "the title element is escaped" "$body" '<title>Bug 9370: sd: lost completion &lt;script&gt;'
like "test diagnostics are escaped" "$(get /job/1)" 'expected 0 got -5 &lt;b&gt;EIO&lt;/b&gt;'
like "feed text is escaped XML" "$(get /feed.atom)" '<title>Bug 9370: pass \(FAIL-&gt;PASS\) — sd: lost completion &lt;script&gt;'
like "the feed is well-formed XML" "$(raw /feed.atom | python3 -c 'import sys, xml.dom.minidom as m; m.parseString(sys.stdin.buffer.read()); print("ok")' 2>&1)" '^ok$'

h=$(headers /bug/9370)
like "Content-Security-Policy default-src 'self'" "$h" "^Content-Security-Policy: default-src 'self';.*script-src 'none'"
like "X-Content-Type-Options nosniff" "$h" '^X-Content-Type-Options: nosniff'
like "X-Frame-Options" "$h" '^X-Frame-Options: DENY'
like "HTML is declared UTF-8" "$h" '^Content-Type: text/html; charset=utf-8'
like "logs are sandboxed plain text" "$(headers /job/1/patched-console-all.log)" "Content-Security-Policy: default-src 'none'; sandbox"
like "errors carry the headers too" "$(headers /no/such/page)" '^X-Content-Type-Options: nosniff'
like "API carries the headers too" "$(headers /api/bugs)" "^Content-Security-Policy: default-src 'self'"

all=""
for p in / /component/SCSI /bug/9370 /job/1 /job/3 /stats /digests /feed.atom /healthz \
	/api/bugs /api/bugs/9370 /api/jobs /api/jobs/1 /api/stats /api/queue /api/digests; do
	all="$all $(raw "$p")"
done
all="$all $(curl -s -H "Authorization: Bearer nope" -X POST -d '{}' "$WEB/api/jobs")"
unlike "the token appears in no response" "$all" "$WEB_TOKEN"
unlike "private comments appear in no response" "$all" 'PRIVATE-NOTE|hunter2'
done_testing
