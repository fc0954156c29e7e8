#!/bin/sh
# The poller against the stand-in tracker: a first poll finds bug 9370 and
# its patch, stores them and queues one job; a poll with no change costs one
# request and changes nothing; changes are picked up incrementally; the same
# patch seen again (re-pasted, or inline) is not a second candidate;
# component watches and the candidate rules (obsolete, unflagged text diff).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"

plan 28
standin_start || { not_ok "bz-standin starts"; exit 1; }
# The seed's times are the stand-in's start second; a bug seen in the very
# second of its last change is (rightly) fetched again next cycle, so let
# that second pass to make the request count below deterministic.
sleep 1.1
tracker_config "$TMP/bb.conf" <<EOF2
watch_bugs = 9370
EOF2
SEED=$BB_SRC/tests/data/001-patch-scsi-revert-scsi-get-rid-of-scsi-cmnd-done.patch

bbd --once --config "$TMP/bb.conf" >"$TMP/poll1.log" 2>&1
is "first poll exits 0" "$?" 0
is "bug 9370 stored with its summary" \
	"$(sql "SELECT product || '|' || component || '|' || summary FROM bugs WHERE id = 9370")" \
	"IO/Storage|SCSI|v2.6.24-rc2-409-g9418d5d: attempt to access beyond end of device"
is "its 3 comments stored" "$(sql "SELECT count(*) FROM comments WHERE bug_id = 9370")" 3
is "its patch attachment stored, decoded" \
	"$(sql "SELECT is_patch, size, sha256 FROM attachments WHERE id = 1")" \
	"1|12302|$(sha256sum "$SEED" | cut -d' ' -f1)"
is "one candidate, from the attachment" \
	"$(sql "SELECT count(*), source, source_id, kind FROM candidates")" "1|attachment|1|patch"
sql "SELECT writefile('$TMP/cand.patch', content) FROM candidates" >/dev/null
check "the candidate's content is the patch, byte for byte" cmp "$TMP/cand.patch" "$SEED"
is "one queued job for it, with a baseline run" \
	"$(sql "SELECT count(*), bug_id, state, with_baseline, candidate_id = (SELECT id FROM candidates) FROM jobs")" \
	"1|9370|queued|1|1"
is "the cursor is the tracker's clock" "$(sql "SELECT cursor LIKE '____-__-__T__:__:__Z' FROM poll_state")" 1
unlike "the API key is in no log line" "$(cat "$TMP/poll1.log")" "$BOT_KEY"

# A poll with nothing changed: one request, nothing in the database changes.
data_dump >"$TMP/before.dump"
standin_ctl reset
bbd --once --config "$TMP/bb.conf" >"$TMP/poll2.log" 2>&1
is "quiet poll exits 0" "$?" 0
standin_requests >"$TMP/req2"
is "quiet poll made exactly one request" "$(wc -l <"$TMP/req2")" 1
like "and it was the last_change_time search" "$(cat "$TMP/req2")" \
	'^GET /rest/bug\?last_change_time=[0-9T:-]+Z&.*include_fields=.* 200$'
data_dump >"$TMP/after.dump"
check "quiet poll changed nothing in the database" cmp "$TMP/before.dump" "$TMP/after.dump"
is "poll_state counts the requests (5 + 1)" "$(sql "SELECT requests, last_error IS NULL FROM poll_state")" "6|1"

# A new comment with an inline diff: picked up, one new candidate and job.
cat >"$TMP/inline.txt" <<'EOF2'
This one-liner fixes it for me:

diff --git a/drivers/scsi/sd.c b/drivers/scsi/sd.c
--- a/drivers/scsi/sd.c
+++ b/drivers/scsi/sd.c
@@ -10,3 +10,3 @@
 	int a;
-	old();
+	new();
 	return 0;

Tested on 6.1.
EOF2
as_user /rest/bug/9370/comment "$(comment_json "$TMP/inline.txt")" >/dev/null
standin_ctl reset
bbd --once --config "$TMP/bb.conf" >"$TMP/poll3.log" 2>&1
is "poll after a comment exits 0" "$?" 0
is "the new comment is stored" "$(sql "SELECT count(*) FROM comments WHERE bug_id = 9370")" 4
is "an inline diff is a candidate" \
	"$(sql "SELECT count(*) FROM candidates WHERE source = 'comment'")" 1
like "its content is only the diff" \
	"$(sql "SELECT substr(content, 1, 10) || '|' || (content LIKE '%Tested on%') FROM candidates WHERE source = 'comment'")" \
	'^diff --git\|0$'
is "and it queued a job" "$(sql "SELECT count(*) FROM jobs")" 2
like "only bug 9370's data was fetched" "$(standin_requests | cut -d' ' -f2 | sed 's/?.*//' | sort -u | tr '\n' ' ')" \
	'^/rest/bug /rest/bug/9370/attachment /rest/bug/9370/comment $'

# The same patches again: pasted again inline, and the attachment pasted in a comment.
sleep 1.1
as_user /rest/bug/9370/comment "$(comment_json "$TMP/inline.txt")" >/dev/null
as_user /rest/bug/9370/comment "$(comment_json "$SEED")" >/dev/null
bbd --once --config "$TMP/bb.conf" >"$TMP/poll4.log" 2>&1
is "both comments stored" "$(sql "SELECT count(*) FROM comments WHERE bug_id = 9370")" 6
is "the same patch seen twice is one candidate" "$(sql "SELECT count(*) FROM candidates")" 2
is "no new job" "$(sql "SELECT count(*) FROM jobs")" 2

# Watching a component instead: Linux:SCSI holds 9372 (and private 9373).
mkdir "$TMP/c" && TMP_MAIN=$TMP && TMP=$TMP/c
tracker_config "$TMP/bb.conf" <<EOF2
watch_components = Linux:SCSI
EOF2
bbd --once --config "$TMP/bb.conf" >"$TMP/poll5.log" 2>&1
is "component poll exits 0" "$?" 0
is "it stored the component's visible bug" "$(sql "SELECT group_concat(id) FROM bugs")" 9372
is "the obsolete patch is no candidate, the unflagged text diff is" \
	"$(sql "SELECT group_concat(source_id) FROM candidates")" 3

# A private bug: visible with a key that may see it (api_key in the query,
# which 5.0/5.2 need), silently absent for one that may not.
mkdir "$TMP_MAIN/p" && TMP=$TMP_MAIN/p
tracker_config "$TMP/bb.conf" <<EOF2
watch_bugs = 9373
EOF2
sed "s/^api_key = .*/api_key = admkey0123456789abcdefghijABCDEFGHIJ0000/" "$TMP/bb.conf" >"$TMP/admin.conf"
bbd --once --config "$TMP/bb.conf" >"$TMP/poll6.log" 2>&1
is "the bot cannot see private bug 9373: nothing stored" "$(sql "SELECT count(*) FROM bugs")" 0
bbd --once --config "$TMP/admin.conf" >"$TMP/poll7.log" 2>&1
is "the admin key can: stored" "$(sql "SELECT count(*) FROM bugs WHERE id = 9373")" 1
TMP=$TMP_MAIN
