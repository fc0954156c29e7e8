#!/bin/sh
# Owners, stale bugs and acknowledgements against the stand-in tracker.
#  - Owners: 9370's patch touches drivers/scsi/, 9371's report names
#    block/blk-mq.c in a trace; MAINTAINERS maps them to their maintainers
#    and lists (the catch-all entry only where nothing else matches), and
#    with [triage] cc_maintainers the maintainers are added to the Cc.
#  - Stale: an open bug that nobody but its reporter and bugbridge answered
#    for [triage] stale_days needs attention; a fresh human answer clears it.
#  - Acknowledgement: off by default (no comment); when on, one short
#    comment per queued request, once.
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 16

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
ADMIN=admkey0123456789abcdefghijABCDEFGHIJ0000
port=$(free_port)
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$BB_SRC/tests/data/tracker-seed.json"
wait_port "$port" || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=http://127.0.0.1:$port

cat >"$TMP/MAINTAINERS" <<'EOF'
List of maintainers
===================

SCSI SUBSYSTEM
M:	"Admin Example" <admin@example.com>
L:	linux-scsi@vger.kernel.org
S:	Maintained
F:	drivers/scsi/
F:	include/scsi/
X:	drivers/scsi/legacy/

BLOCK LAYER
M:	User Example <user@example.com>
L:	linux-block@vger.kernel.org
S:	Maintained
F:	block/

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
EOF

conf() {
	write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT
login = bot@example.com
watch_bugs = 9370, 9371
[triage]
maintainers = $TMP/MAINTAINERS
cc_maintainers = true
stale_days = 14
acknowledge = $1
EOF
}
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
# one service cycle; a non-zero exit (a sanitizer report, a crash) is remembered
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
say() {	# BUG KEY TEXT
	python3 -c 'import json,sys; print(json.dumps({"api_key": sys.argv[1], "comment": sys.argv[2]}))' \
		"$2" "$3" | curl -s -H 'Content-Type: application/json' -d @- "$B/rest/bug/$1/comment" \
		>/dev/null
}
count_comments() {	# BUG TEXT
	curl -s "$B/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[2] in c["text"] for c in d["bugs"][sys.argv[1]]["comments"]))' "$1" "$2"
}
owners() {	# BUG KIND
	sql "SELECT group_concat(address, ' | ') FROM (SELECT address FROM bug_owners
		WHERE bug_id = $1 AND kind = '$2' ORDER BY rank, address)"
}

conf false
bb db migrate >/dev/null 2>&1
say 9371 "$ADMIN" "Same here:
WARNING: CPU: 1 PID: 77 at block/blk-mq.c:181 blk_mq_freeze_queue_wait+0x8e/0xb0"
cycle
is "acknowledgements are off by default" "$(count_comments 9370 "bugbridge-ack:")" 0

is "9370's patch files give the SCSI maintainer" "$(owners 9370 maintainer)" \
	'"Admin Example" <admin@example.com>'
is "and linux-scsi, without the catch-all list" "$(owners 9370 list)" "linux-scsi@vger.kernel.org"
is "9371's trace gives the block maintainer" "$(owners 9371 maintainer)" \
	"User Example <user@example.com>"
is "and linux-block" "$(owners 9371 list)" "linux-block@vger.kernel.org"
cc=$(curl -s "$B/rest/bug/9370?include_fields=cc" | python3 -c 'import json,sys; print(",".join(json.load(sys.stdin)["bugs"][0]["cc"]))')
like "the SCSI maintainer is now on 9370's Cc" "$cc" "admin@example.com"
cycle
is "one Cc update per bug, not one per cycle" \
	"$(sql "SELECT COUNT(*) FROM outbox WHERE marker LIKE 'bugbridge-cc: bug 9370 %'")" 1

# Stale: make the bugs and their comments old, as if weeks had passed.
sql "UPDATE bugs SET creation_time = '2026-01-01T00:00:00Z';
	UPDATE comments SET time = '2026-01-02T00:00:00Z' WHERE author <> 'bot@example.com';"
cycle
is "9370 (no human answer but its reporter's for weeks) needs attention" \
	"$(sql "SELECT needs_attention FROM bugs WHERE id = 9370")" 1
is "so does 9371" "$(sql "SELECT needs_attention FROM bugs WHERE id = 9371")" 1
say 9371 "$ADMIN" "Looking at it."
cycle
is "a maintainer's answer clears 9371" "$(sql "SELECT needs_attention FROM bugs WHERE id = 9371")" 0
is "9370 still needs attention" "$(sql "SELECT needs_attention FROM bugs WHERE id = 9370")" 1
is "a new comment with the same owners adds no second Cc update" \
	"$(sql "SELECT COUNT(*) FROM outbox WHERE marker LIKE 'bugbridge-cc: bug 9371 %'")" 1

# Acknowledgements on: one per queued request, once.
conf true
cycle
cycle
queued=$(sql "SELECT COUNT(*) FROM jobs WHERE bug_id = 9370 AND state = 'queued'")
like "9370 has a queued request" "$queued" '^[1-9]'
is "each queued request is acknowledged once" "$(count_comments 9370 "bugbridge-ack: job")" "$queued"
like "the acknowledgement gives the queue position and the job page" \
	"$(curl -s "$B/rest/bug/9370/comment")" "number [0-9]+ in the queue.*/job/[0-9]+"
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
