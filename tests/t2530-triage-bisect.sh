#!/bin/sh
# Series bisection end to end against the stand-in tracker: a 6-patch
# series (git format-patch --stdout shape) is attached to bug 9372 and
# polled; its job shows the baseline passing and the whole series failing.
# bugbridged then queues bisect-step jobs (the runner's part is played
# here: prefixes of 4 or more patches fail), and reports "patch 4/6
# introduces the failure" as one comment, after at most 3 runs beyond the
# two ends.  Then stock 6.1's case: on a base that always fails sr-capacity
# (the live sr bug) a 5-patch series turns lying-device-short-resid from
# PASS to FAIL; the bisection judges each step on that test alone (good when
# it passes, whatever sr-capacity does) and names patch 3/5.
. "$(dirname "$0")/lib/test-lib.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 19

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
ADMIN=admkey0123456789abcdefghijABCDEFGHIJ0000
port=$(free_port)
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$BB_SRC/tests/data/tracker-seed.json"
wait_port "$port" || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=http://127.0.0.1:$port

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT
login = bot@example.com
watch_bugs = 9372
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"

# one service cycle; a non-zero exit (a sanitizer report, a crash) is remembered
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
count_comments() {
	curl -s "$B/rest/bug/9372/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(sys.argv[1] in c["text"] for c in d["bugs"]["9372"]["comments"]))' "$1"
}

# A series of six patches, each a complete hunk of its own.
python3 - "$ADMIN" >"$TMP/attach.json" <<'EOF'
import base64, json, sys
subjects = ["sd: tidy sd_read_capacity", "sd: pass the disk to sd_print_result",
	    "sd: split sd_done", "sd: complete partial writes twice",
	    "sd: comment the completion path", "sd: rename a local"]
mbox = ""
for i, s in enumerate(subjects, 1):
	mbox += ("From %040x Mon Sep 17 00:00:00 2001\n" % i +
		 "From: Dev <dev@example.org>\n"
		 "Date: Thu, 3 Dec 2026 08:00:0%d +0000\n" % i +
		 "Subject: [PATCH %d/6] %s\n\n" % (i, s) +
		 "Change %d.\n---\n" % i +
		 "diff --git a/drivers/scsi/sd.c b/drivers/scsi/sd.c\n"
		 "--- a/drivers/scsi/sd.c\n+++ b/drivers/scsi/sd.c\n"
		 "@@ -%d,1 +%d,1 @@\n-old %d\n+new %d\n-- \n2.39.5\n\n" % (i * 10, i * 10, i, i))
print(json.dumps({"api_key": sys.argv[1], "ids": [9372], "file_name": "sd-series.mbox",
		  "summary": "sd completion rework, v3", "content_type": "text/plain",
		  "is_patch": False, "data": base64.b64encode(mbox.encode()).decode()}))
EOF
curl -s -H 'Content-Type: application/json' -d @"$TMP/attach.json" \
	"$B/rest/bug/9372/attachment" >"$TMP/attach.out"
like "the series is attached" "$(cat "$TMP/attach.out")" '"ids"'

bb db migrate >/dev/null 2>&1
cycle
cand=$(sql "SELECT id FROM candidates WHERE kind = 'mbox' AND patch_count = 6")
like "the poller took it as a 6-patch series" "$cand" '^[0-9]+$'
root=$(sql "SELECT id FROM jobs WHERE candidate_id = $cand AND kind = 'test'")
like "and queued its job" "$root" '^[0-9]+$'
sql "UPDATE jobs SET state = 'cancelled' WHERE id <> $root"

# The two ends: the baseline passes, all six patches fail.
sql "UPDATE jobs SET state = 'done', verdict = 'fail', change = 'PASS->FAIL', accel = 'kvm'
	WHERE id = $root;
INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	($root, 'baseline', 'sd-partial-completion', 'pass', NULL),
	($root, 'patched', 'sd-partial-completion', 'fail', 'PASS->FAIL');"
runs=0
cycle
while :; do
	step=$(sql "SELECT id || ' ' || patch_count FROM jobs WHERE kind = 'bisect-step' AND state = 'queued'")
	[ -n "$step" ] || break
	set -- $step
	runs=$((runs + 1))
	[ $runs -le 6 ] || break
	if [ "$2" -ge 4 ]; then v=fail; else v=pass; fi
	sql "UPDATE jobs SET state = 'done', verdict = '$v', accel = 'kvm' WHERE id = $1"
	cycle
done

is "1 to 3 runs beyond the two ends" "$([ $runs -ge 1 ] && [ $runs -le 3 ] && echo yes || echo "no: $runs")" yes
is "every step was a prefix of the series under the root job" \
	"$(sql "SELECT COUNT(*) FROM jobs WHERE kind = 'bisect-step' AND (parent_id <> $root OR candidate_id <> $cand OR patch_count NOT BETWEEN 1 AND 5)")" 0
is "one bisection comment on the tracker" "$(count_comments "bugbridge-bisect: job $root")" 1
text=$(curl -s "$B/rest/bug/9372/comment")
like "it names the first bad patch" "$text" "patch 4/6 introduces the failure"
like "and its subject" "$text" "sd: complete partial writes twice"
is "the root job's result says the series breaks the test" \
	"$(count_comments "PASS->FAIL: this series breaks sd-partial-completion")" 1
cycle
is "no further steps afterwards" "$(sql "SELECT COUNT(*) FROM jobs WHERE state = 'queued'")" 0
is "still one bisection comment" "$(count_comments "bugbridge-bisect:")" 1

# Stock 6.1: sr-capacity fails on every kernel, the base included, and a
# 5-patch series turns lying-device-short-resid from PASS to FAIL.
python3 - "$ADMIN" >"$TMP/attach2.json" <<'PYEOF'
import base64, json, sys
subjects = ["sd: count short residuals", "sd: tidy sd_done",
	    "sd: trust the device's residual", "sd: comment it", "sd: rename it"]
mbox = ""
for i, s in enumerate(subjects, 1):
	mbox += ("From %040x Mon Sep 17 00:00:00 2001\n" % (i + 10) +
		 "From: Dev <dev@example.org>\n"
		 "Date: Thu, 3 Dec 2026 09:00:0%d +0000\n" % i +
		 "Subject: [PATCH %d/5] %s\n\n" % (i, s) +
		 "Resid change %d.\n---\n" % i +
		 "diff --git a/drivers/scsi/sd.c b/drivers/scsi/sd.c\n"
		 "--- a/drivers/scsi/sd.c\n+++ b/drivers/scsi/sd.c\n"
		 "@@ -%d,1 +%d,1 @@\n-resid %d\n+resid %d\n-- \n2.39.5\n\n" % (i * 7, i * 7, i, i))
print(json.dumps({"api_key": sys.argv[1], "ids": [9372], "file_name": "resid-series.mbox",
		  "summary": "sd residual rework", "content_type": "text/plain",
		  "is_patch": False, "data": base64.b64encode(mbox.encode()).decode()}))
PYEOF
curl -s -H 'Content-Type: application/json' -d @"$TMP/attach2.json" \
	"$B/rest/bug/9372/attachment" >"$TMP/attach2.out"
cycle
cand2=$(sql "SELECT id FROM candidates WHERE kind = 'mbox' AND patch_count = 5")
root2=$(sql "SELECT id FROM jobs WHERE candidate_id = '$cand2' AND kind = 'test'")
like "the second series has its job" "$root2" '^[0-9]+$'
sql "UPDATE jobs SET state = 'cancelled' WHERE state = 'queued' AND id <> '$root2'"
results() {	# JOB VARIANT SR-CAPACITY SHORT-RESID
	sql "INSERT INTO test_results (job_id, variant, name, status) VALUES
		($1, '$2', 'sr-capacity', '$3'), ($1, '$2', 'lying-device-short-resid', '$4')"
}
sql "UPDATE jobs SET state = 'done', verdict = 'fail', change = 'PASS->FAIL', accel = 'kvm'
	WHERE id = $root2"
results "$root2" baseline fail pass
results "$root2" patched fail fail
runs=0
cycle
while :; do
	step=$(sql "SELECT id || ' ' || patch_count FROM jobs WHERE kind = 'bisect-step' AND state = 'queued'")
	[ -n "$step" ] || break
	set -- $step
	runs=$((runs + 1))
	[ $runs -le 5 ] || break
	# every step fails as a whole (sr-capacity); short-resid breaks at patch 3
	if [ "$2" -ge 3 ]; then v=fail; else v=pass; fi
	sql "UPDATE jobs SET state = 'done', verdict = 'fail', accel = 'kvm' WHERE id = $1"
	results "$1" patched fail "$v"
	cycle
done
is "a base that fails sr-capacity does not stop the bisection: 1 to 3 runs" \
	"$([ $runs -ge 1 ] && [ $runs -le 3 ] && echo yes || echo "no: $runs")" yes
is "one bisection comment for the second series" "$(count_comments "bugbridge-bisect: job $root2")" 1
text=$(curl -s "$B/rest/bug/9372/comment")
like "it names patch 3/5" "$text" "patch 3/5 introduces the failure"
like "and its subject" "$text" "sd: trust the device's residual"
like "and says which test it judged on" "$text" \
	"Judged on: lying-device-short-resid \(the tests the series broke; failures the unpatched kernel has already are not counted\)"
unlike "sr-capacity is not among them" "$text" "Judged on: [^(]*sr-capacity"
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
