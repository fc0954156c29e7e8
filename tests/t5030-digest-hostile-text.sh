#!/bin/sh
# Tracker text is attacker-controlled: a summary with CR/LF cannot add a
# header or end the header block, non-ASCII arrives intact, a 500-character
# title is cut on a character boundary with an ellipsis, invalid UTF-8 and
# terminal escapes are neutralised; a non-ASCII subject is RFC 2047-encoded.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/digest-lib.sh"

export BUGBRIDGE_SMTP_LISTS="Périphériques SCSI=linux-scsi@vger.kernel.org"
digest_config </dev/null
seed_db || { plan 1; not_ok "seed the database"; exit 1; }
sql "UPDATE bugs SET component = 'Périphériques SCSI' WHERE component = 'SCSI'"
sql "INSERT INTO bugs (id, product, component, status, summary, creator, creation_time, first_seen)
     VALUES (9390, 'IO/Storage', 'Périphériques SCSI', 'NEW' || char(13) || char(10) || 'X-Evil: 1',
     'bad bytes ' || CAST(x'fffe41c3' AS TEXT) || ' and ' || char(27) || '[31mred' || char(9) || 'tab',
     'x@example.org', strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-10 minutes'), strftime('%s', 'now'))"
smtp_start || { plan 1; not_ok "start aiosmtpd"; exit 1; }

dry=$(bb --config "$TMP/c.conf" digest --dry-run 2>&1)
is "--dry-run exits 0" "$?" 0
like "--dry-run shows the 500-character title cut with an ellipsis" "$dry" "#9374 NEW 4h  scsi: très long résumé .*…$"
is "--dry-run sends nothing" "$(ls "$MAILDIR/new" 2>/dev/null | wc -l)" 0

bb --config "$TMP/c.conf" digest --send-now >/dev/null 2>"$TMP/err"
mail_wait 1 5
mail_checks '
raw = raw_messages(MAILDIR)[0]
m = messages(MAILDIR)[0]
head = raw.split(b"\n\n", 1)[0] if b"\r\n\r\n" not in raw else raw.split(b"\r\n\r\n", 1)[0]
check("the whole message is 7-bit ASCII", all(b < 128 for b in raw), [b for b in raw if b >= 128][:5])
names = [k.lower() for k in m.keys()]
check("no injected headers", "bcc" not in names and "x-evil" not in names and names.count("subject") == 1, names)
check("the header block has no bare CR or LF", b"\r\r" not in head and b"\n\n" not in head)
check("Subject is RFC 2047-encoded", b"Subject: =?UTF-8?B?" in head, head[:400])
check("and decodes to the component name",
      str(m["Subject"]).startswith("[bugbridge] Périphériques SCSI digest "), m["Subject"])
body = body_of(m)
lines = body.splitlines()
evil = [l for l in lines if l.startswith("#9372")]
check("the CR/LF summary is one line, its line breaks turned to spaces",
      len(evil) == 1 and "evil Bcc: victim@example.com Subject: injected body" in evil[0], evil)
check("nothing from it starts a line of the body", not any(l.startswith(("Bcc:", "Subject: injected", "body injected")) for l in lines))
uni = [l for l in lines if l.startswith("#9373")]
check("non-ASCII text arrives intact", uni and uni[0].endswith("Ünïcødé: périphérique SCSI bloqué — 日本語のテスト"), uni)
long = [l for l in lines if l.startswith("#9374")]
check("the 500-character title is cut to 72 columns with an ellipsis",
      long and len(long[0]) == 72 and long[0].endswith("…"), long)
check("the cut falls on a character boundary (the body decoded as UTF-8)", "\ufffd" not in (long[0] if long else "\ufffd"))
bad = [l for l in lines if l.startswith("#9390")]
check("invalid UTF-8 becomes U+FFFD, escapes and tabs become spaces",
      bad and "bad bytes \ufffd\ufffdA\ufffd and [31mred tab" in bad[0] and "\x1b" not in body and "\t" not in body, bad)
check("a status with CR/LF is cleaned too", bad and bad[0].startswith("#9390 NEW X-Evil: 1 "), bad)
wide = [l for l in lines if len(l) > 72 and not l.strip().startswith("http")]
check("every line but URLs is at most 72 columns", not wide, wide)
'
plan $_tap_n
done_testing
