#!/bin/sh
# A bug made private after a digest went out leaves the digest archive
# (issue 23).  Bug 9370 is public when a digest naming it (a new bug, a
# test result) is sent over SMTP; then an admin puts it in the tracker group
# kernel-security (PUT groups on the stand-in) and bugbridged polls.  From
# then on the archive (/digests) and /api/digests show that digest without
# 9370's items, to anyone without the token, while 9372's stay; the feed
# does not name it either.  The token holder still reads the digest as
# sent, and so does the list (the mail went out before).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
. "$(dirname "$0")/lib/digest-lib.sh"
plan 13

ADMIN_KEY=admkey0123456789abcdefghijABCDEFGHIJ0000
TOKEN="tok-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
WEB_PORT=$(free_port)
WEB=http://127.0.0.1:$WEB_PORT
X_TEXT="v2.6.24-rc2-409-g9418d5d"	# 9370's summary begins so

standin_start || { not_ok "bz-standin starts"; exit 1; }
smtp_start || { not_ok "aiosmtpd starts"; exit 1; }
tracker_config "$TMP/bb.conf" <<EOF
watch_bugs = 9370, 9372
private_bugs = test
[web]
listen = 127.0.0.1:$WEB_PORT
base_url = $WEB
token = $TOKEN
[smtp]
url = smtp://127.0.0.1:$SMTP_PORT
from = bugbridge <bugbridge@example.org>
to = all@example.org
[digest]
every = daily
hour = 0
EOF
sed -i "s/^api_key = .*/api_key = $ADMIN_KEY/; s/^login = .*/login = admin@example.com/" "$TMP/bb.conf"
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
bbd --once --config "$TMP/bb.conf" >"$TMP/poll1.log" 2>&1
sql "INSERT INTO jobs (bug_id, state, verdict, change, started_at, finished_at, reported)
	VALUES (9370, 'done', 'fail', 'FAIL->FAIL', strftime('%s', 'now') - 60,
		strftime('%s', 'now') - 10, 1),
	       (9372, 'done', 'pass', 'FAIL->PASS', strftime('%s', 'now') - 60,
		strftime('%s', 'now') - 10, 1)"
JX=$(sql "SELECT max(id) FROM jobs WHERE bug_id = 9370")
JP=$(sql "SELECT max(id) FROM jobs WHERE bug_id = 9372")
bb --config "$TMP/bb.conf" digest --send-now >"$TMP/digest.out" 2>&1
mail_wait 1 10
is "the digest went out" "$(mail_count)" 1
like "it names 9370 (a new bug, a result) and 9372" "$(sql "SELECT body FROM digests" | tr "\n" " ")" \
	"#9370 .*$X_TEXT.*#9372 .*#9370 job $JX: FAIL.*#9372 job $JP: PASS"

# an admin makes 9370 private; bugbridged's next poll sees it
curl -s -X PUT -H 'Content-Type: application/json' "$STANDIN_URL/rest/bug/9370" \
	-d "{\"api_key\": \"$ADMIN_KEY\", \"groups\": {\"add\": [\"kernel-security\"]}}" >"$TMP/put.out"
like "the tracker took the change" "$(cat "$TMP/put.out")" '"added":"kernel-security"'
bbd --once --config "$TMP/bb.conf" >"$TMP/poll2.log" 2>&1
is "bugbridged stored 9370 as private" "$(sql "SELECT groups FROM bugs WHERE id = 9370")" \
	kernel-security

bg bbd bbd --config "$TMP/bb.conf"
wait_port "$WEB_PORT" 20 || { echo "Bail out! bugbridged did not start"; exit 1; }
page=$(curl -s "$WEB/digests")
api=$(curl -s "$WEB/api/digests")
unlike "the archive page no longer shows 9370's text" "$page" "$X_TEXT|#9370|job $JX:"
like "but still 9372's (the digest is there, filtered)" "$page" "#9372 .*job $JP: PASS"
like "and says items were left out" "$page" "2 items left out here: private since this digest"
unlike "/api/digests neither shows 9370's text" "$api" "$X_TEXT|#9370|job $JX:"
like "... but 9372's" "$api" "#9372"
unlike "nor does the feed" "$(curl -s "$WEB/feed.atom")" "$X_TEXT|9370"
auth="Authorization: Bearer $TOKEN"
like "the token holder reads the digest as sent (API)" "$(curl -s -H "$auth" "$WEB/api/digests")" \
	"#9370 .*$X_TEXT"
like "... and on the archive page" "$(curl -s -H "$auth" "$WEB/digests")" "#9370 .*$X_TEXT"
like "the mail the list got was the digest as sent" \
	"$(cat "$MAILDIR"/new/* "$MAILDIR"/cur/* 2>/dev/null)" "#9370"
done_testing
