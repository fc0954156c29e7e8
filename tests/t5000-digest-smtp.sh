#!/bin/sh
# The digest over a real SMTP server (aiosmtpd): it arrives once per list
# and period, parses as a proper MIME mail, holds the seeded sections with
# lines of at most 72 columns, and the next digest threads under it.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/digest-lib.sh"

digest_config </dev/null
seed_db || { plan 1; not_ok "seed the database"; exit 1; }
smtp_start || { plan 1; not_ok "start aiosmtpd"; exit 1; }

out=$(bb --config "$TMP/c.conf" digest --send-now 2>"$TMP/err"); rc=$?
is "digest --send-now exits 0" "$rc" 0
like "it queued the SCSI digest" "$out" "linux-scsi@vger.kernel.org: digest [0-9-]+: queued"
like "and sent both lists' digests" "$out" "sent 2, waiting to retry 0, refused 0"
mail_wait 2 5
is "the server holds two messages" "$(mail_count)" 2
is "outbox rows are sent, with sent_at" \
	"$(sql "SELECT COUNT(*) FROM outbox WHERE kind = 'mail' AND state = 'sent' AND sent_at > 0")" 2

mail_checks '
msgs = messages(MAILDIR)
scsi = to_list(msgs, "linux-scsi@vger.kernel.org")
check("one message to linux-scsi", len(scsi) == 1, [str(m["To"]) for m in msgs])
m = scsi[0]
date = DB.execute("SELECT strftime(\"%Y-%m-%d\", \"now\")").fetchone()[0]
check("Subject names the list, date and counts",
      str(m["Subject"]) == "[bugbridge] SCSI digest %s: 4 new, 2 need attention, 2 results" % date,
      m["Subject"])
check("From is the configured sender", m["From"].addresses[0].addr_spec == "bugbridge@example.org", m["From"])
check("Date parses", m["Date"].datetime is not None, m["Date"])
mid = DB.execute("SELECT message_id FROM digests WHERE list = \"linux-scsi@vger.kernel.org\"").fetchone()[0]
check("Message-ID is the one recorded in digests", m["Message-ID"] == mid, (m["Message-ID"], mid))
check("Message-ID is unique per list",
      len({x["Message-ID"] for x in msgs}) == 2, [x["Message-ID"] for x in msgs])
check("List-Id names the list", "<bugbridge-digest.linux-scsi.vger.kernel.org>" in str(m["List-Id"]), m["List-Id"])
check("first digest has no In-Reply-To", m["In-Reply-To"] is None, m["In-Reply-To"])
check("text/plain; charset=UTF-8", m.get_content_type() == "text/plain" and m.get_content_charset() == "utf-8",
      m["Content-Type"])
check("quoted-printable body (non-ASCII inside)", m["Content-Transfer-Encoding"] == "quoted-printable",
      m["Content-Transfer-Encoding"])
body = body_of(m)
lines = body.splitlines()
wide = [l for l in lines if len(l) > 72 and not l.strip().startswith("http")]
check("every line but URLs is at most 72 columns", not wide, wide)
def section(title):
    try:
        i = next(n for n, l in enumerate(lines) if l.startswith(title))
    except StopIteration:
        return None
    out = []
    for l in lines[i + 2:]:
        if not l:
            break
        out.append(l)
    return out
new = section("New bugs (4)")
check("New bugs lists 9371-9374", new is not None and
      [l.split()[0] for l in new if l.startswith("#")] == ["#9374", "#9371", "#9373", "#9372"], new)
check("each bug line has its tracker URL",
      "    " + TRACKER + "/show_bug.cgi?id=9371" in lines, lines)
att = section("Need attention (2)")
check("Need attention: 9370 then 9378, oldest first, with age",
      att is not None and att[0].startswith("#9370 NEW 49d") and att[2].startswith("#9378 NEW 20d"), att)
check("a bug answered 3 days ago does not need attention", "#9376 NEW" not in body, body)
res = section("Test results (2)")
check("results: bug, job, verdict, change, patch",
      res is not None and res[0] == "#9370 job 1: PASS (FAIL->PASS)  0001-scsi-fix-completion-race.patch", res)
check("results link to the job page", res is not None and res[1] == "    http://127.0.0.1:8080/job/1", res)
check("bisect steps and old results are left out", "job 4" not in body and "job 5" not in body, body)
reg = section("Regressions (1)")
check("regressions hold the PASS->FAIL job",
      reg is not None and reg[0].startswith("#9376 job 2: FAIL (PASS->FAIL)"), reg)
check("stats line", "Stats: 7 open; 4 opened and 1 closed since the last digest." in lines, lines[-6:])
check("Block Layer bugs stay out of the SCSI digest", "#9375" not in body, body)
blk = to_list(msgs, "linux-block@vger.kernel.org")
check("the Block Layer list gets its own digest with 9375",
      len(blk) == 1 and "#9375 NEW 30d, quiet 20d" in body_of(blk[0]), [body_of(b) for b in blk])
check("an empty section is left out", "New bugs" not in body_of(blk[0]), body_of(blk[0]))
'

# Same period again: nothing new is built or sent, from the CLI or the daemon.
out=$(bb --config "$TMP/c.conf" digest --send-now 2>>"$TMP/err"); rc=$?
is "a second --send-now in the same period exits 0" "$rc" 0
like "and says it was built already, and sent" "$out" "linux-scsi@vger.kernel.org: digest [0-9-]+: built already at [0-9 :-]+ UTC, sent; the next period starts [0-9 :-]+ UTC"
bbd --config "$TMP/c.conf" --once >>"$TMP/bbd.log" 2>&1
sleep 0.5
is "neither it nor bugbridged --once sends it again" "$(mail_count)" 2
is "one digests row per list" "$(sql 'SELECT COUNT(*) FROM digests')" 2

# The next period: move the first digest back a day, add a bug, send again.
sql "UPDATE digests SET period = '2000-01-01', created_at = created_at - 60"
sql "INSERT INTO bugs (id, product, component, status, summary, creator, creation_time)
     VALUES (9400, 'IO/Storage', 'SCSI', 'NEW', 'st: tape rewinds twice', 'x@example.org',
     strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"
sleep 1
out=$(bb --config "$TMP/c.conf" digest --send-now --list linux-scsi@vger.kernel.org 2>>"$TMP/err")
like "--list sends only that list's next digest" "$out" "sent 1,"
mail_wait 3 5
mail_checks '
msgs = to_list(messages(MAILDIR), "linux-scsi@vger.kernel.org")
check("two SCSI digests now", len(msgs) == 2, len(msgs))
first, second = sorted(msgs, key=lambda m: m["Date"].datetime)
if "9400" not in body_of(second):
    first, second = second, first
check("the second digest has the new bug only", "#9400" in body_of(second) and "#9371" not in body_of(second),
      body_of(second))
check("In-Reply-To is the previous digest", second["In-Reply-To"] == first["Message-ID"],
      (second["In-Reply-To"], first["Message-ID"]))
check("References names it", first["Message-ID"] in str(second["References"]).split(), second["References"])
row = DB.execute("SELECT in_reply_to FROM digests ORDER BY id DESC LIMIT 1").fetchone()[0]
check("digests records in_reply_to", row == first["Message-ID"], row)
'
unlike "no password or error in the log" "$(cat "$TMP/err")" "error|password"
plan $_tap_n
done_testing
