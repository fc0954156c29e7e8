#!/bin/sh
# The mail server down, then up: the digest waits in the outbox and arrives
# exactly once.  A 4xx keeps it pending with backoff; a 5xx marks it failed
# with the server's own reply.  Both through bugbridged and the CLI.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/digest-lib.sh"

digest_config <<'EOF2'
[tracker]
poll_interval = 1
EOF2
# one list, so that every mail in the maildir is the one digest
export BUGBRIDGE_SMTP_LISTS="SCSI=linux-scsi@vger.kernel.org"
seed_db || { plan 1; not_ok "seed the database"; exit 1; }

# Down: nothing listens on the port.
before=$(date +%s)
out=$(bb --config "$TMP/c.conf" digest --send-now 2>"$TMP/err"); rc=$?
after=$(date +%s)
is "--send-now with the server down exits 1" "$rc" 1
like "and says the mail waits for a retry" "$out" "sent 0, waiting to retry 1"
is "the row stays pending, one attempt" \
	"$(sql "SELECT state, attempts FROM outbox WHERE kind = 'mail'")" "pending|1"
like "with the connection error recorded" "$(sql "SELECT last_error FROM outbox WHERE kind = 'mail'")" "onnect"
next=$(sql "SELECT next_try FROM outbox WHERE kind = 'mail'")
if [ "$next" -ge $((before + 1)) ] && [ "$next" -le $((after + 1)) ]; then ok "next try after [smtp] backoff (1s)"
else not_ok "next try after [smtp] backoff (1s)"; diag "before $before after $after next_try $next"; fi
sleep 1.2
before=$(date +%s)
bb --config "$TMP/c.conf" digest --send-now >/dev/null 2>>"$TMP/err"
after=$(date +%s)
next=$(sql "SELECT next_try FROM outbox WHERE kind = 'mail'")
if [ "$(sql "SELECT attempts FROM outbox WHERE kind = 'mail'")" = 2 ] &&
   [ "$next" -ge $((before + 2)) ] && [ "$next" -le $((after + 2)) ]; then
	ok "the second failure backs off twice as long"
else not_ok "the second failure backs off twice as long"; diag "before $before after $after next_try $next"; fi

# Up, with bugbridged running: it sends the waiting digest, once.
smtp_start || not_ok "start aiosmtpd"
bg bbd "$BB_BUILD/bugbridged" --config "$TMP/c.conf"
mail_wait 1 15
is "bugbridged delivers it once the server is up" "$(mail_count)" 1
i=0; while [ "$(sql "SELECT state FROM outbox WHERE kind = 'mail'")" != sent ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
is "the row is sent" "$(sql "SELECT state, last_error IS NULL FROM outbox WHERE kind = 'mail'")" "sent|1"
sleep 3	# a few more cycles
is "and nothing is sent twice" "$(mail_count)" 1
is "still one digest recorded for linux-scsi" \
	"$(sql "SELECT COUNT(*) FROM digests WHERE list = 'linux-scsi@vger.kernel.org'")" 1
kill "$PID_bbd"; wait "$PID_bbd" 2>/dev/null
mail_checks '
m = messages(MAILDIR)[0]
check("the delivered digest is the recorded one",
      m["Message-ID"] == DB.execute("SELECT message_id FROM digests WHERE list = \"linux-scsi@vger.kernel.org\"").fetchone()[0],
      m["Message-ID"])
'

# 4xx: temporary.  A new list so that a new digest is queued.
sql "DELETE FROM digests; DELETE FROM outbox WHERE kind = 'mail'"
echo "451 4.3.0 mailbox busy, try later" >"$MAILDIR/reply"
out=$(bb --config "$TMP/c.conf" digest --send-now 2>>"$TMP/err"); rc=$?
is "a 451 exits 1" "$rc" 1
is "a 451 keeps the row pending" "$(sql "SELECT state FROM outbox WHERE kind = 'mail'")" pending
is "with the server's reply" "$(sql "SELECT last_error FROM outbox WHERE kind = 'mail'")" "451 4.3.0 mailbox busy, try later"

# 5xx: permanent.
echo "550 5.7.1 this list does not take digests" >"$MAILDIR/reply"
sleep 1.2
out=$(bb --config "$TMP/c.conf" digest --send-now 2>>"$TMP/err"); rc=$?
is "a 550 exits 1" "$rc" 1
like "and is counted as refused" "$out" "refused 1"
is "a 550 marks the row failed with the server's reply" \
	"$(sql "SELECT state, last_error FROM outbox WHERE kind = 'mail'")" "failed|550 5.7.1 this list does not take digests"
rm -f "$MAILDIR/reply"
sleep 1.2
bb --config "$TMP/c.conf" digest --send-now >/dev/null 2>>"$TMP/err"
is "a failed digest is not retried" "$(mail_count)" 1
plan $_tap_n
done_testing
