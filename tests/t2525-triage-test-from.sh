#!/bin/sh
# [triage] test_from (issue 14): whose attachments are built as soon as they
# are seen.  With test_from = editbugs, a patch by an editbugs member (asked
# of GET /rest/user) gets a job; a patch by anyone else is a candidate that
# waits, until an account in allow_commands writes "bugbridge: test N".  A
# bot that may not see other accounts' groups (Bugzilla shows them only to
# editusers or those who may bless) counts nobody as a member.  A list of
# accounts works without asking.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
plan 8

ADMIN_KEY=admkey0123456789abcdefghijABCDEFGHIJ0000
PATCH=$BB_SRC/tests/data/001-patch-scsi-revert-scsi-get-rid-of-scsi-cmnd-done.patch
standin_start || { not_ok "bz-standin starts"; exit 1; }
# variant N: the patch with one more comment line, so each is a candidate of its own
variant() {
	sed "s|^+\tcmd->done(cmd);|+\tcmd->done(cmd); /* variant $1 */|" "$PATCH" >"$TMP/v$1.patch"
	echo "$TMP/v$1.patch"
}
jobs_of() {	# jobs of the candidate made from attachment $1
	sql "SELECT count(*) FROM jobs j JOIN candidates c ON c.id = j.candidate_id
		WHERE c.source = 'attachment' AND c.source_id = $1"
}

A_USER=$(attach_as "$USER_KEY" 9371 "$(variant 1)" user.patch)
A_ADMIN=$(attach_as "$ADMIN_KEY" 9371 "$(variant 2)" admin.patch)
tracker_config "$TMP/bb.conf" <<EOF
watch_bugs = 9371
[triage]
test_from = editbugs
allow_commands = user@example.com
EOF
sed -i "s/^api_key = .*/api_key = $ADMIN_KEY/; s/^login = .*/login = admin@example.com/" "$TMP/bb.conf"
bb --config "$TMP/bb.conf" db migrate >/dev/null 2>&1
bbd --once --config "$TMP/bb.conf" >"$TMP/run1.log" 2>&1
is "an editbugs member's patch has a job" "$(jobs_of "$A_ADMIN")" 1
is "a patch by someone outside editbugs is a candidate without one" \
	"$(sql "SELECT count(*) FROM candidates WHERE source_id = $A_USER") $(jobs_of "$A_USER")" "1 0"
like "the log says it waits" "$(cat "$TMP/run1.log")" "by user@example.com waits for 'bugbridge: test'"
like "bugbridge asked the tracker about the authors" "$(standin_requests)" \
	"GET /rest/user\?.*names=user%40example.com|GET /rest/user\?.*names=user@example.com"

# (the bot runs with admin's key here, so admin's comments are its own: the
# allowed account is the reporter)
as_user /rest/bug/9371/comment "{\"comment\": \"bugbridge: test $A_USER\"}" >/dev/null
bbd --once --config "$TMP/bb.conf" >"$TMP/run2.log" 2>&1
is "'bugbridge: test N' from an allowed account queues it" "$(jobs_of "$A_USER")" 1

# the bot's key may not see anyone's groups but its own: nobody else counts
sed -i "s/^api_key = .*/api_key = $BOT_KEY/; s/^login = .*/login = bot@example.com/" "$TMP/bb.conf"
A_ADMIN2=$(attach_as "$ADMIN_KEY" 9371 "$(variant 3)" admin2.patch)
bbd --once --config "$TMP/bb.conf" >"$TMP/run3.log" 2>&1
is "with a key that cannot see others' groups, even admin's patch waits" "$(jobs_of "$A_ADMIN2")" 0
like "and the log says why" "$(cat "$TMP/run3.log")" "does not show us the groups of admin@example.com"

# a list of accounts needs no question
sed -i "s/^test_from = editbugs/test_from = user@example.com/" "$TMP/bb.conf"
A_USER2=$(attach_as "$USER_KEY" 9371 "$(variant 4)" user2.patch)
bbd --once --config "$TMP/bb.conf" >"$TMP/run4.log" 2>&1
is "test_from = an account: that account's patch has a job" "$(jobs_of "$A_USER2")" 1
done_testing
