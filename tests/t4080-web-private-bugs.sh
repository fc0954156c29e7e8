#!/bin/sh
# Private bugs (issue 14): bug 9373 is in the tracker group kernel-security,
# and bugbridge watches it with a key that sees it (admin's).  With
# [tracker] private_bugs = test it is tested, its result is posted as a
# private comment, and nothing of it (summary, jobs, results, logs) reaches
# an anonymous caller: no page, API answer, feed, log URL or digest.  The
# token holder sees it through the API.  A private comment and a private
# attachment on the public bug 9370 are never candidates and never shown.
# A public attachment that turns private after its job ran makes the job
# private: its result is posted private and the dashboard hides it.
# With private_bugs = skip (the default) nobody sees it and nothing of it runs.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
plan 29

ADMIN_KEY=admkey0123456789abcdefghijABCDEFGHIJ0000
TOKEN="tok-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
WEB_PORT=$(free_port)
WEB=http://127.0.0.1:$WEB_PORT
PATCH=$BB_SRC/tests/data/001-patch-scsi-revert-scsi-get-rid-of-scsi-cmnd-done.patch

attach() { attach_as "$ADMIN_KEY" "$@"; }
# admin_comments BUG: "is_private first-line" of each comment, as admin sees them
admin_comments() {
	curl -s "$STANDIN_URL/rest/bug/$1/comment?api_key=$ADMIN_KEY" | python3 -c '
import json, sys
for c in list(json.load(sys.stdin)["bugs"].values())[0]["comments"]:
    print(c["is_private"], c["text"].splitlines()[-1] if c["text"] else "")'
}
# finish JOB LOGMARK SIGTITLE: the runner's part, as t2510 does it
finish() {
	mkdir -p "$TMP/logs/$1"
	printf 'make bzImage\n%s\n' "$2" >"$TMP/logs/$1/patched-build.log"
	sql "UPDATE jobs SET state = 'done', verdict = 'fail', change = 'FAIL->FAIL',
		started_at = strftime('%s', 'now') - 60, finished_at = strftime('%s', 'now'),
		log_dir = '$TMP/logs/$1' WHERE id = $1;
	INSERT INTO test_results (job_id, variant, name, status) VALUES
		($1, 'patched', 'sr-capacity', 'fail'), ($1, 'baseline', 'sr-capacity', 'fail');
	INSERT INTO signatures (job_id, variant, kind, title, frames, hash) VALUES
		($1, 'baseline', 'oops', '$3', 'sr_done', 'h$1')"
}

standin_start || { not_ok "bz-standin starts"; exit 1; }
attach 9373 "$PATCH" embargo-fix.patch false >/dev/null
sed 's/^ \*/ * PRIVATE-ATTACHMENT-MARK/' "$PATCH" >"$TMP/private.patch"
PRIV_ATT=$(attach 9370 "$TMP/private.patch" private-fix.patch true)
sed 's/^Subject: .*/Subject: [PATCH] LATER-PRIVATE-MARK/' "$BB_SRC/tests/data/sd-pr-clear.patch" \
	>"$TMP/later.patch"
LATER_ATT=$(attach 9370 "$TMP/later.patch" later-fix.patch false)
curl -s -X POST -H 'Content-Type: application/json' "$STANDIN_URL/rest/bug/9370/comment" \
	-d "{\"api_key\": \"$ADMIN_KEY\", \"is_private\": true, \"comment\":
	\"PRIVATE-COMMENT-MARK\\n\\ndiff --git a/x b/x\\n--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n-a\\n+b\\n\"}" >/dev/null

tracker_config "$TMP/bb.conf" <<EOF
watch_bugs = 9370, 9373
private_bugs = test
[web]
listen = 127.0.0.1:$WEB_PORT
token = $TOKEN
[smtp]
to = all@example.org
[digest]
every = never
EOF
sed -i "s/^api_key = .*/api_key = $ADMIN_KEY/; s/^login = .*/login = admin@example.com/" "$TMP/bb.conf"
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
bbd --once --config "$TMP/bb.conf" >"$TMP/poll.log" 2>&1

is "the private bug is stored with its group" "$(sql "SELECT groups FROM bugs WHERE id = 9373")" \
	kernel-security
is "its patch is a candidate with a job (private_bugs = test)" \
	"$(sql "SELECT count(*) FROM jobs j JOIN candidates c ON c.id = j.candidate_id
		WHERE c.bug_id = 9373")" 1
is "the private attachment and comment of 9370 are no candidates" \
	"$(sql "SELECT count(*) FROM candidates WHERE bug_id = 9370 AND
		((source = 'attachment' AND source_id = $PRIV_ATT) OR source = 'comment')")" 0
J=$(sql "SELECT id FROM jobs WHERE bug_id = 9373")
P=$(sql "SELECT min(id) FROM jobs WHERE bug_id = 9370")
L=$(sql "SELECT j.id FROM jobs j JOIN candidates c ON c.id = j.candidate_id
	WHERE c.source = 'attachment' AND c.source_id = $LATER_ATT")
finish "$J" PRIVATE-LOG-MARK EMBARGO-SIGNATURE
finish "$P" PUBLIC-LOG-MARK public-signature
finish "$L" LATER-LOG-MARK later-signature
# the insider hides the public attachment after its job ran, before the post
curl -s -X PUT -H 'Content-Type: application/json' "$STANDIN_URL/rest/bug/attachment/$LATER_ATT" \
	-d "{\"api_key\": \"$ADMIN_KEY\", \"is_private\": true}" >/dev/null
bbd --once --config "$TMP/bb.conf" >"$TMP/post.log" 2>&1
is "the attachment's turn is seen" \
	"$(sql "SELECT is_private FROM attachments WHERE id = $LATER_ATT")" 1
is "the private bug's result comment is private on the tracker" \
	"$(admin_comments 9373 | grep "bugbridge-result: job $J")" "True bugbridge-result: job $J"
is "the public bug's result comment is public" \
	"$(admin_comments 9370 | grep "bugbridge-result: job $P")" "False bugbridge-result: job $P"
is "... but the result of the attachment that turned private is private" \
	"$(admin_comments 9370 | grep "bugbridge-result: job $L")" "True bugbridge-result: job $L"
is "nothing failed in the outbox" "$(sql "SELECT count(*) FROM outbox WHERE state <> 'sent'")" 0

bg bbd bbd --config "$TMP/bb.conf"
wait_port "$WEB_PORT" 20 || { not_ok "bugbridged serves"; exit 1; }
anon=""
for p in / /component/SCSI /product/Linux/SCSI /bug/9370 /api/bugs "/api/bugs?status=all" \
	/api/bugs/9370 /api/jobs /api/queue /feed.atom \
	"/feed.atom?component=SCSI" /stats /api/stats /api/components /digests /api/digests; do
	anon="$anon
== $p $(curl -s "$WEB$p" | tr '\n' ' ')"
done
unlike "no anonymous page, API answer or feed names the private bug's summary" "$anon" \
	"embargoed"
unlike "... nor its number" "$anon" "9373"
unlike "... nor its signature, its log or its job" "$anon" \
	"EMBARGO-SIGNATURE|PRIVATE-LOG-MARK|/job/$J\"|\"id\":$J,\"bug_id\""
# (the tracker's own "Created attachment N later-fix.patch" comment stays public)
unlike "... nor anything of the job whose attachment turned private" "$anon" \
	"LATER-PRIVATE-MARK|LATER-LOG-MARK|later-signature|/job/$L\"|\"id\":$L,\"bug_id\""
is "/api/jobs?bug=9373 is empty" "$(curl -s "$WEB/api/jobs?bug=9373")" '{"count":0,"jobs":[]}'
unlike "no private comment or attachment of the public bug shows" "$anon" \
	"PRIVATE-COMMENT-MARK|PRIVATE-ATTACHMENT-MARK|private-fix.patch"
is "the private bug's pages and logs are 404 for anyone without the token" \
	"$(for p in /bug/9373 /api/bugs/9373 /api/jobs/$J /job/$J /job/$J/patched-build.log \
		/api/jobs/$J/kcidb; do curl -s -o /dev/null -w '%{http_code} ' "$WEB$p"; done)" \
	"404 404 404 404 404 404 "
like "the public bug and its log are there (the filter is not blanket)" \
	"$( (curl -s "$WEB/api/bugs"; curl -s "$WEB/job/$P/patched-build.log") | tr '\n' ' ')" \
	'"id":9370.*PUBLIC-LOG-MARK'
is "a wrong token sees no more than anyone" \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer x$TOKEN" "$WEB/api/bugs/9373")" 404

auth="Authorization: Bearer $TOKEN"
like "the token holder finds it in /api/bugs" "$(curl -s -H "$auth" "$WEB/api/bugs")" '"id":9373'
like "... and /api/bugs/9373, with its job" \
	"$(curl -s -H "$auth" "$WEB/api/bugs/9373")" "embargoed.*\"id\":$J"
like "... and its job with its log" \
	"$( (curl -s -H "$auth" "$WEB/api/jobs/$J"; curl -s -H "$auth" "$WEB/job/$J/patched-build.log") \
		| tr '\n' ' ')" \
	"EMBARGO-SIGNATURE.*PRIVATE-LOG-MARK"
unlike "... but never a private comment" "$(curl -s -H "$auth" "$WEB/api/bugs/9370")" \
	"PRIVATE-COMMENT-MARK"

digest=$(bb --config "$TMP/bb.conf" digest --dry-run 2>&1)
like "the digest has the public bug" "$digest" "9370"
unlike "the digest has nothing of the private one" "$digest" "9373|embargoed|EMBARGO"

# private_bugs = skip (the default): nobody sees it, nothing of it runs
server=$(pgrep -f -- "bugbridged --config $TMP/bb.conf")
kill $server
i=0; while [ $i -lt 100 ] && kill -0 $server 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
sed -i "s/^private_bugs = test/private_bugs = skip/" "$TMP/bb.conf"
sql "INSERT INTO jobs (bug_id, kind, state) VALUES (9373, 'retest', 'queued')"
attach 9373 "$TMP/private.patch" second-embargo-fix.patch false >/dev/null
bbd --once --config "$TMP/bb.conf" >"$TMP/skip.log" 2>&1
is "skip: no new candidate or job for the private bug; the queued one is cancelled" \
	"$(sql "SELECT count(*) FROM candidates WHERE bug_id = 9373"; \
	   sql "SELECT count(*) FROM jobs WHERE bug_id = 9373 AND state = 'queued'")" "1
0"
bg bbd bbd --config "$TMP/bb.conf"
wait_port "$WEB_PORT" 20 || { not_ok "bugbridged serves again"; exit 1; }
is "skip: even the token holder does not see it" \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "$auth" "$WEB/api/bugs/9373")" 404
unlike "skip: nor in /api/bugs" "$(curl -s -H "$auth" "$WEB/api/bugs")" '"id":9373'
is "skip: POST /api/jobs for it is refused" \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "$auth" -d '{"bug_id": 9373}' "$WEB/api/jobs")" 409
unlike "no key or token in any log" "$(cat "$TMP"/*.log)" "$ADMIN_KEY|$TOKEN"
unlike "no sanitizer report from any process" "$(cat "$TMP"/*.log)" \
	"ERROR: [A-Za-z]*Sanitizer|runtime error:"
done_testing
