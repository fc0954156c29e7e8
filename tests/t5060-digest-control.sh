#!/bin/sh
# The digest under an operator's hands: --dry-run and --send-now name the
# same period and agree on what happens; a fresh install sends no first
# digest before there is a test result to report; a digest the mail server
# refused makes --send-now exit 1, saying so, every time until
# `bugbridge digest --resend` sends it again; bugbridged --once exits 1
# when a digest was refused.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/digest-lib.sh"

# [digest] hour one hour ahead: before today's hour, as an operator may be
digest_config <<EOF2
hour = $(( ($(date -u +%H | sed 's/^0//') + 1) % 24 ))
EOF2
export BUGBRIDGE_SMTP_LISTS="SCSI=linux-scsi@vger.kernel.org"
L=linux-scsi@vger.kernel.org
seed_db || { plan 1; not_ok "seed the database"; exit 1; }
smtp_start || { plan 1; not_ok "start aiosmtpd"; exit 1; }
bb_digest() { bb --config "$TMP/c.conf" digest "$@"; }

# A fresh install: the first poll's bugs, no test result yet.
results_at=$(sql "SELECT MAX(finished_at) FROM jobs")
sql "UPDATE jobs SET finished_at = 1"
bbd --config "$TMP/c.conf" --once >"$TMP/fresh.log" 2>&1
is "a fresh install's first cycle mails nothing" "$(mail_count)" 0
is "and records no digest" "$(sql "SELECT COUNT(*) FROM digests")" 0
like "the log says why" "$(cat "$TMP/fresh.log")" "the first digest waits for a first test result"
out=$(bb_digest --dry-run 2>&1)
period=$(printf '%s\n' "$out" | sed -n "s/^$L: digest \([0-9W-]*\): .*/\1/p")
like "--dry-run names the period and says nothing would be sent" "$out" \
	"^$L: digest $period: --send-now would send nothing \(a list's first digest waits for its first test result\)"
out=$(bb_digest --send-now 2>&1); rc=$?
is "--send-now agrees: nothing sent, exit 0" "$rc" 0
like "and says why, for the same period" "$out" \
	"$L: digest $period: not sent \(a list's first digest waits for its first test result\)"

# The first result: preview and send agree.
sql "UPDATE jobs SET finished_at = $results_at"
out=$(bb_digest --dry-run 2>&1)
like "--dry-run says --send-now would send it now" "$out" \
	"^$L: digest $period: --send-now would build and send this now:"
echo "550 5.7.1 this list does not take digests" >"$MAILDIR/reply"
out=$(bb_digest --send-now 2>"$TMP/err"); rc=$?
like "--send-now queues that period's digest" "$out" "$L: digest $period: queued"
is "a refused mail exits 1" "$rc" 1
like "and says what failed, on stderr" "$(cat "$TMP/err")" \
	"bugbridge: digest $period for $L not sent: built already at .* UTC, refused by the mail server \(550 5.7.1 this list does not take digests\): --resend sends it again"

# The day's digest is not silently lost: every later run says so.
out=$(bb_digest --send-now 2>"$TMP/err"); rc=$?
is "a later --send-now still exits 1" "$rc" 1
like "and still names the refused digest" "$(cat "$TMP/err")" "digest $period for $L not sent: .*550"
out=$(bb_digest --dry-run 2>&1)
like "--dry-run says the same" "$out" \
	"^$L: digest $period: built already at .* UTC, refused by the mail server \(550 5.7.1 this list does not take digests\): --resend sends it again. --send-now sends no new digest before the next period, from [0-9-]+ [0-9:]+ UTC"
# (the tracker here answers nobody, so --once names the post step as failed: not the digest)
bbd --config "$TMP/c.conf" --once >"$TMP/once.log" 2>&1
like "bugbridged --once names the steps that failed" "$(cat "$TMP/once.log")" "the cycle failed: post \\("
unlike "  not the digest again, for a refusal already reported" "$(cat "$TMP/once.log")" \
	"the cycle failed: .*digest"

# --resend: the same message, once the server takes it.
rm -f "$MAILDIR/reply"
out=$(bb_digest --resend 2>"$TMP/err"); rc=$?
is "--resend exits 0 once the mail went" "$rc" 0
like "it says what it requeued" "$out" "requeued digest $period for $L \(refused: 550 5.7.1"
is "the list got it once" "$(mail_count)" 1
is "the row is sent" "$(sql "SELECT state FROM outbox WHERE kind = 'mail'")" sent
out=$(bb_digest --resend 2>&1); rc=$?
like "a second --resend has nothing to do" "$out" "no refused digest to send again"
out=$(bb_digest --send-now 2>&1); rc=$?
is "--send-now is content again" "$rc" 0
is "and sends nothing twice" "$(mail_count)" 1

# bugbridged --once sees a refused digest: a new period's, refused now.
sql "DELETE FROM digests"
echo "554 5.7.1 no" >"$MAILDIR/reply"
bbd --config "$TMP/c.conf" --once >"$TMP/once2.log" 2>&1
is "bugbridged --once exits 1 when a digest is refused" "$?" 1
like "naming the step" "$(cat "$TMP/once2.log")" "the cycle failed: (post, )?digest"
plan $_tap_n
done_testing
