#!/bin/sh
# t4050: every internal link of every page resolves.  A crawler starts at /
# and at each job's and bug's JSON, follows every link that stays on the
# dashboard (pages, logs, JSON links, the feed) and fails on any that does
# not answer 200.  The log directories hold the names the runner writes.
# Two products with a component of the same name ("SCSI") get one overview
# row each, each linking to its own product's page, whose JSON link keeps
# the product.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 6
web_start </dev/null || { not_ok "bugbridged serves the dashboard"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the dashboard"

sql "INSERT INTO bugs (id, product, component, status, is_open, summary, creation_time,
	last_change_time, triage_state) VALUES (9390, 'Linux', 'SCSI', 'NEW', 1,
	'sr: capacity off by one', '2026-11-01T08:00:00Z', '2026-11-30T08:00:00Z', 'new')"

page=$(get /)
like "the overview has a row per product, each linking its product page" "$page" \
	'href="/product/IO%2FStorage/SCSI">SCSI</a></td><td>IO/Storage</td>.*href="/product/Linux/SCSI">SCSI</a></td><td>Linux</td>'
page=$(get /product/Linux/SCSI)
like "the product page lists its own bug" "$page" 'href="/bug/9390"'
unlike "and not the other product's" "$page" 'href="/bug/937[01]"'
json=$(printf '%s\n' "$page" | grep -o 'href="/api/bugs[^"]*">JSON' | head -1 | sed 's/^href="//; s/">JSON$//; s/&amp;/\&/g')
is "its JSON link keeps the product" "$(raw "$json" | jq -c '[.bugs[].id]')" '[9390]'

seeds="/ /stats /digests /feed.atom"
for id in $(sql "SELECT id FROM jobs ORDER BY id"); do seeds="$seeds /api/jobs/$id"; done
for id in $(sql "SELECT id FROM bugs ORDER BY id"); do seeds="$seeds /api/bugs/$id"; done
# shellcheck disable=SC2086
out=$(python3 "$BB_SRC/tests/lib/crawl.py" "$WEB" $seeds 2>&1)
if printf '%s\n' "$out" | grep -q '^visited [0-9]*$' &&
	! printf '%s\n' "$out" | grep -qv '^visited'; then
	ok "every internal link answers 200 ($(printf '%s\n' "$out" | tail -1) URLs)"
else
	not_ok "every internal link answers 200"
	diag "$out"
fi
done_testing
