#!/bin/sh
# t4000: every dashboard page answers with what a maintainer should see,
# from a seeded database (tests/data/web-seed.sql).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 49
web_start </dev/null || { not_ok "bugbridged serves the dashboard"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the dashboard on port $WEB_PORT"

page=$(get /)
is "/ answers 200" "$(status /)" 200
like "/ lists components with open counts, each linking its product's page" "$page" '<a href="/product/IO%2FStorage/SCSI">SCSI</a></td><td>IO/Storage</td><td class="num">2</td>'
like "/ lists USB too" "$page" 'href="/product/Drivers/USB"'
like "/ shows the running job with its stage" "$page" 'href="/job/3">3</a>.*running: build'
like "/ shows elapsed time of the running job" "$page" 'running: build</td><td>[0-9]+m elapsed'
like "/ shows queued jobs with position and estimate" "$page" 'queued #1</td><td>starts ~'
like "/ shows the second queued job" "$page" 'href="/job/5">5</a>.*queued #2'
like "/ lists bugs needing attention" "$page" 'Needs attention.*href="/bug/9371"'
like "/ shows the latest verdicts" "$page" 'v-pass">pass</span></td><td class="change">FAIL-&gt;PASS'

page=$(get /component/SCSI)
is "/component/SCSI answers 200" "$(status /component/SCSI)" 200
like "component page lists open bug 9370" "$page" 'href="/bug/9370"'
like "component page lists open bug 9371 with triage state" "$page" 'href="/bug/9371".*needs-repro'
unlike "component page leaves closed bugs out" "$page" 'href="/bug/9372"'
like "component page shows the latest verdict" "$page" 'fix-candidate</td><td><span class="verdict v-pass">'
first=$(printf '%s\n' "$page" | grep -o 'href="/bug/93[0-9]*"' | head -1)
is "newest change first" "$first" 'href="/bug/9370"'
is "/product/IO%2FStorage/SCSI answers 200" "$(status /product/IO%2FStorage/SCSI)" 200
like "/product/<p>/<c> shows the product" "$(get /product/IO%2FStorage/SCSI)" '<h1>IO/Storage / SCSI</h1>'

page=$(get /bug/9370)
like "bug page links to the tracker" "$page" 'href="http://127.0.0.1:9/show_bug.cgi\?id=9370"'
like "bug page shows the triage state" "$page" '<th>Triage</th><td>fix-candidate'
like "bug page shows owners from MAINTAINERS, escaped" "$page" '<th>Owners</th><td>&quot;James E.J. Bottomley&quot; &lt;jejb@linux.ibm.com&gt;, linux-scsi@vger.kernel.org \(list\)'
like "bug page shows per-test change against baseline" "$page" 'scsi_completion_basic</td><td><span class="verdict v-pass">pass</span></td><td class="num">1</td><td class="num">0</td><td>FAIL-&gt;PASS'
like "bug page shows candidate patches" "$page" '0001-sd-fix-completion.patch'
like "bug page timeline has tracker comments" "$page" 'description #0</span> by reporter@example.org'
like "bug page shows the test-case table" "$page" 'scsi_completion_basic</td><td><span class="verdict v-fail">fail'
like "bug page shows failure signatures" "$page" 'WARNING in scsi_done_internal'
like "bug page shows our posts with their state" "$page" 's-held">held</span>'
like "bug page links the logs the runner wrote" "$page" 'logs: <a href="/job/1/baseline-apply.log">baseline-apply.log</a>.*href="/job/1/patched-console-all.log"'
unlike "bug page hides private comments" "$page" 'PRIVATE-NOTE'

page=$(get /job/1)
like "job page shows stages with durations" "$page" '<td>build</td><td><time datetime="[0-9TZ:-]+">[0-9: -]+</time></td><td class="num">10m</td>'
like "job page lists the logs present" "$page" 'href="/job/1/patched-build.log"'
unlike "job page does not list a symlinked log" "$page" 'evil.log'
unlike "finished job page does not refresh" "$page" 'http-equiv="refresh"'
like "queued job page shows position and estimate" "$(get /job/5)" 'Position 2 in the queue. Estimated start ~<time datetime="[0-9TZ:-]+">[0-9: -]+</time>, estimated finish'
like "running job page refreshes itself" "$(get /job/3)" '<meta http-equiv="refresh" content="5">'
like "a finished job's attempts agree with its stage table" "$(get /job/1)" '<th>Attempts</th><td>1</td>.*<td class="num">1</td><td>patched</td><td>prepare</td>'
like "a running job's page says which attempt it is on" "$(get /job/3)" '<th>Attempt</th><td>1 \(running\)</td>'
is "a log is served" "$(raw /job/1/patched-build.log | sed -n 2p)" "BUILD-LOG-LINE-1 <ok>"
like "a log is text/plain" "$(headers /job/1/patched-build.log)" 'Content-Type: text/plain'

page=$(get /stats)
like "stats has an inline SVG chart" "$page" '<svg class="chart"'
like "stats shows top closers per year" "$page" '<h3>2026</h3>.*alice@example.org</td><td class="num">2</td>'
like "stats shows the median time to post" "$page" 'class="median">1h 30m</strong>'

feed=$(get /feed.atom)
is "feed has one entry per verdict" "$(printf '%s' "$feed" | grep -o '<entry>' | wc -l | tr -d ' ')" 2
like "feed links entries to job pages" "$feed" "<link href=\"http://127.0.0.1:$WEB_PORT/job/2\"/>"
is "feed per component: SCSI" "$(get '/feed.atom?component=SCSI' | grep -o '<entry>' | wc -l | tr -d ' ')" 2
is "feed per component: USB has no verdicts yet" "$(get '/feed.atom?component=USB' | grep -o '<entry>' | wc -l | tr -d ' ')" 0
like "feed is served as Atom" "$(headers /feed.atom)" 'Content-Type: application/atom\+xml'
is "/healthz answers ok" "$(raw /healthz | head -1)" ok
like "digests page shows the sent digest" "$(get /digests)" 'SCSI digest for 2026-12-01.*s-sent'
done_testing
