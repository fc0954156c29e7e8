#!/bin/sh
# An infra-error is no test result (issue 31): alone, it does not release
# a list's first digest; in a digest with results it is listed apart, under
# "Not tested", and counted apart from the results (the subject's too).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/digest-lib.sh"

digest_config </dev/null
export BUGBRIDGE_SMTP_LISTS="SCSI=linux-scsi@vger.kernel.org"
L=linux-scsi@vger.kernel.org
seed_db || { plan 1; not_ok "seed the database"; exit 1; }
smtp_start || { plan 1; not_ok "start aiosmtpd"; exit 1; }
bb_digest() { bb --config "$TMP/c.conf" digest "$@"; }

# A fresh install whose only finished job in the window is an infra-error
# on a SCSI bug (a kernel-patches directory that did not exist, say).
sql "CREATE TABLE finished AS SELECT id, finished_at FROM jobs"
sql "UPDATE jobs SET finished_at = 1"
sql "INSERT INTO jobs (id, bug_id, candidate_id, kind, state, verdict, fault, verdict_detail,
	finished_at) VALUES (6, 9370, 1, 'test', 'done', 'infra-error', 'infra',
	'no kernel-patches directory', CAST(strftime('%s', 'now', '-30 minutes') AS INTEGER))"
out=$(bb_digest --dry-run 2>&1)
like "--dry-run: an infra-error alone does not release the first digest" "$out" \
	"^$L: digest [0-9W-]*: --send-now would send nothing \(a list's first digest waits for its first test result\)"
bbd --config "$TMP/c.conf" --once >"$TMP/once.log" 2>&1
is "bugbridged --once mails nothing" "$(mail_count)" 0
is "and records no digest" "$(sql "SELECT COUNT(*) FROM digests")" 0
like "the log says the first digest waits for a test result" "$(cat "$TMP/once.log")" \
	"the first digest waits for a first test result"

# The results arrive: the digest goes, with the infra-error apart.
sql "UPDATE jobs SET finished_at = (SELECT f.finished_at FROM finished f WHERE f.id = jobs.id)
	WHERE id <> 6"
out=$(bb_digest --send-now 2>&1)
like "with test results the first digest is queued" "$out" "$L: digest [0-9W-]*: queued"
mail_wait 1 5
is "one mail" "$(mail_count)" 1

mail_checks '
m = to_list(messages(MAILDIR), "linux-scsi@vger.kernel.org")[0]
check("the subject counts 2 results, not the infra-error",
      str(m["Subject"]).endswith(": 4 new, 2 need attention, 2 results"), m["Subject"])
lines = body_of(m).splitlines()
def section(prefix):
    i = next((n for n, l in enumerate(lines) if l.startswith(prefix)), None)
    if i is None:
        return None, None
    out = []
    for l in lines[i + 2:]:
        if not l:
            break
        out.append(l)
    return lines[i], out
title, results = section("Test results (")
check("Test results holds the two results", title == "Test results (2)", title)
check("and not the infra-error", results is not None and
      not [l for l in results if "job 6:" in l or "INFRA" in l], results)
title, infra = section("Not tested (")
check("Not tested lists the infra-error apart, counted apart",
      title == "Not tested (1): infra-errors and untested patches, no results", title)
check("with its job line and link", infra is not None and len(infra) == 2 and
      infra[0].startswith("#9370 job 6: INFRA-ERROR") and infra[1].strip().endswith("/job/6"), infra)
'
plan $_tap_n
done_testing
