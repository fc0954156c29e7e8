#!/bin/sh
# bugbridge digest: --help, usage errors, --dry-run (prints, records
# nothing), and routing by [smtp] lists and by MAINTAINERS lists
# ([smtp] use_maintainers, from the bug_owners triage keeps).
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/digest-lib.sh"

digest_config <<'EOF2'
[smtp]
use_maintainers = true
EOF2
seed_db || { plan 1; not_ok "seed the database"; exit 1; }

out=$(bb --config "$TMP/c.conf" digest --help); rc=$?
is "--help exits 0" "$rc" 0
like "--help shows both modes" "$out" "--dry-run.*"
like "--help names --send-now" "$out" "--send-now"
bb --config "$TMP/c.conf" digest >/dev/null 2>&1
is "no mode is a usage error" "$?" 2
bb --config "$TMP/c.conf" digest --dry-run --send-now >/dev/null 2>&1
is "both modes is a usage error" "$?" 2
bb --config "$TMP/c.conf" digest --bogus >/dev/null 2>&1
is "an unknown option is a usage error" "$?" 2
out=$(bb --config "$TMP/c.conf" digest --dry-run --list nobody@example.org 2>&1); rc=$?
is "an unknown --list fails" "$rc" 1
like "and says so" "$out" "no digest goes to 'nobody@example.org'"

# MAINTAINERS routing: triage found that 9376's patch touches files whose
# entry lists linux-pm.
sql "INSERT INTO bug_owners (bug_id, kind, address, entry) VALUES
     (9376, 'list', 'linux-pm@vger.kernel.org', 'SUSPEND TO RAM'),
     (9376, 'maintainer', 'Pat Doe <pat@example.org>', 'SUSPEND TO RAM')"
out=$(bb --config "$TMP/c.conf" digest --dry-run 2>"$TMP/err"); rc=$?
is "--dry-run exits 0" "$rc" 0
like "it prints the SCSI digest" "$out" "Subject: \[bugbridge\] SCSI digest [0-9-]+: 4 new, 2 need"
like "and the Block Layer digest" "$out" "To: linux-block@vger.kernel.org"
like "and one for the MAINTAINERS list" "$out" "To: linux-pm@vger.kernel.org"
pm=$(printf '%s\n' "$out" | sed -n '/^To: linux-pm/,$p')
like "the MAINTAINERS list hears about its bug's results" "$pm" "#9376 job 2: FAIL \(PASS->FAIL\)"
unlike "and nothing else" "$pm" "#9370|#9371|#9375"
unlike "a maintainer is not a list" "$out" "To: .*pat@example.org"
like "the body is shown readable (8-bit), not quoted-printable" "$out" "日本語のテスト"
is "--dry-run records nothing" "$(sql 'SELECT COUNT(*) FROM digests') $(sql 'SELECT COUNT(*) FROM outbox')" "0 0"

sql "UPDATE bugs SET ignored = 1 WHERE id = 9378"
out=$(bb --config "$TMP/c.conf" digest --dry-run --list linux-scsi@vger.kernel.org 2>&1)
like "an ignored bug does not need attention" "$out" "4 new, 1 need attention"
unlike "and is not listed" "$out" "#9378"

out=$(BUGBRIDGE_SMTP_USE_MAINTAINERS=false bb --config "$TMP/c.conf" digest --dry-run 2>&1)
unlike "without use_maintainers no MAINTAINERS list" "$out" "linux-pm"
out=$(BUGBRIDGE_SMTP_LISTS="SCSI" bb --config "$TMP/c.conf" digest --dry-run 2>&1); rc=$?
is "a malformed [smtp] lists fails" "$rc" 1
like "naming the entry" "$out" "'SCSI' is not COMPONENT=address"
out=$(BUGBRIDGE_SMTP_LISTS= BUGBRIDGE_SMTP_USE_MAINTAINERS=false bb --config "$TMP/c.conf" digest --dry-run 2>&1); rc=$?
is "no recipients at all fails" "$rc" 1
like "and says which keys to set" "$out" "set \[smtp\] to or \[smtp\] lists"
plan $_tap_n
done_testing
