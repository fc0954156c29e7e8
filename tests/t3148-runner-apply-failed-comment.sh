#!/bin/sh
# The apply-failed comment as a maintainer reads it (issue 31), end to end:
# patches attached to bug 9370 on the stand-in tracker, polled, applied by
# the runner to the stand-in kernel (tests/lib/standin-kernel.sh: nothing
# is built or booted, the patches do not apply), and the verdicts posted:
# - garbage.patch, svn style ("Index:" and "====" before each file), whose
#   first hunk is rejected: the comment quotes that hunk alone, none of the
#   header lines of the file after it, and names the patch garbage.patch,
#   as it was attached (not "0001-garbage.patch");
# - a patch with a NUL byte in its 7th line: refused, "line 7";
# - an mbox of two messages whose second does not apply: named by its
#   subject as written.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin-kernel.sh"
. "$(dirname "$0")/lib/standin.sh"
standin_require
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
plan 19

standin_start || { diag "$(cat "$TMP/standin.log")"; exit 1; }
standin_setup <<EOF
[tracker]
url = $STANDIN_URL
api_key = $BOT_KEY
login = bot@example.com
watch_bugs = 9370
[web]
base_url = http://bugbridge.example/
[triage]
backtest = false
release_bisect = false
EOF
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
comment_text() {
	curl -s "$STANDIN_URL/rest/bug/9370/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"]["9370"]["comments"] if sys.argv[1] in c["text"]))' "$1"
}

# the stand-in kernel's sd.c is "int sd;", its Kconfig "config SCSI_SD"
cat >"$TMP/garbage.patch" <<'EOF'
Index: drivers/scsi/sd.c
===================================================================
--- a/drivers/scsi/sd.c
+++ b/drivers/scsi/sd.c
@@ -1,1 +1,1 @@
-int nothere;
+int sd2;
Index: drivers/scsi/Kconfig
===================================================================
--- a/drivers/scsi/Kconfig
+++ b/drivers/scsi/Kconfig
@@ -1,1 +1,1 @@
-config SCSI_SD
+config SCSI_SD2
EOF
printf 'A patch with a NUL byte in its seventh line.\n\nSigned-off-by: A <a@example.org>\n--- a/drivers/scsi/sd.c\n+++ b/drivers/scsi/sd.c\n@@ -1,1 +1,1 @@\n-int sd;\000\n+int sd3;\n' \
	>"$TMP/nul.patch"
is "the NUL byte is on line 7" "$(head -7 "$TMP/nul.patch" | tail -1 | od -An -c | grep -c '\\0')" 1
cat >"$TMP/series.mbox" <<'EOF'
From 1 Mon Sep 17 00:00:00 2001
From: A <a@example.org>
Subject: [PATCH 1/2] scsi: sd: the first

---
--- a/drivers/scsi/sd.c
+++ b/drivers/scsi/sd.c
@@ -1,1 +1,1 @@
-int sd;
+int sd4;
From 2 Mon Sep 17 00:00:00 2001
From: A <a@example.org>
Subject: [PATCH 2/2] scsi: sd: the second, which does not apply

---
--- a/drivers/scsi/Kconfig
+++ b/drivers/scsi/Kconfig
@@ -1,1 +1,1 @@
-config SCSI_NOTHERE
+config SCSI_SD5
EOF
for f in garbage.patch nul.patch series.mbox; do
	attach_as "$USER_KEY" 9370 "$TMP/$f" "$f" >/dev/null
done

cycle
cand() { sql "SELECT id FROM candidates WHERE name = '$1'"; }
job_of() { sql "SELECT id FROM jobs WHERE candidate_id = $(cand "$1") AND state = 'queued'"; }
g=$(job_of garbage.patch)
n=$(job_of nul.patch)
m=$(job_of series.mbox)
like "the three attachments are queued" "$g $n $m" '^[0-9]+ [0-9]+ [0-9]+$'
sql "UPDATE jobs SET state = 'cancelled' WHERE state = 'queued' AND id NOT IN ($g, $n, $m)"
for i in 1 2 3; do
	standin_run runner$i.log || diag "runner $i: exit $?: $(tail -5 "$TMP/runner$i.log")"
done
is "all three: apply-failed" \
	"$(sql "SELECT group_concat(verdict, ' ') FROM jobs WHERE id IN ($g, $n, $m)")" \
	"apply-failed apply-failed apply-failed"
cycle

text=$(comment_text "bugbridge-result: job $g")
diag "garbage.patch:" "$text"
like "garbage.patch: apply failed" "$text" "^bugbridge APPLY FAILED: this patch does not apply to linux-source-6\\.1$"
like "  named as attached" "$text" "^Detail:   patch 1/1 'garbage\\.patch' does not apply to 6\\.1\\.999:$"
like "  the file and hunk" "$text" "^          drivers/scsi/sd\\.c: hunk #1 FAILED at 1\\.?$"
like "  the hunk quoted, line by line" "$text" \
	"Rejected hunk:
    @@ -1,1 \\+1,1 @@
    -int nothere;
    \\+int sd2;

Job: "
unlike "  no Index: line" "$text" "Index:"
unlike "  no ==== line" "$text" "===="
unlike "  nothing of the next file" "$text" "Kconfig"
unlike "  no invented number" "$text" "0001-garbage"

text=$(comment_text "bugbridge-result: job $n")
diag "nul.patch:" "$text"
like "nul.patch: refused on the line the NUL byte is on" "$text" \
	"^Detail:   patch 1/1 'nul\\.patch' is refused: line 7: a NUL byte: only text diffs are applied$"
unlike "  not line 0" "$text" "line 0"

text=$(comment_text "bugbridge-result: job $m")
diag "series.mbox:" "$text"
like "the mbox: the series, as attached" "$text" "^Series: +series\\.mbox \\(2 patches\\)$"
like "  its second patch named by its subject" "$text" \
	"^Detail:   patch 2/2 '\\[PATCH 2/2\\] scsi: sd: the second, which does not apply' does not apply to 6\\.1\\.999:$"
unlike "  no file name made up for it" "$text" "0002-"

is "the job's detail names it as attached too" \
	"$(sql "SELECT verdict_detail FROM jobs WHERE id = $g" | head -1)" \
	"patch 1/1 'garbage.patch' does not apply to 6.1.999:"
is "the runner's copy of the hunk ends with it" \
	"$(sql "SELECT verdict_detail FROM jobs WHERE id = $g" | sed '/^$/d' | tail -1)" "+int sd2;"
is "every bugbridged cycle exited 0" "$(cat "$TMP/cycle.failed" 2>/dev/null)" ""
done_testing
