#!/bin/sh
# Kernel versions, service side, against the stand-in tracker (the
# runner's rows are written here with sqlite3, as in t2500):
# - a bug's base is chosen from what it says: cf_kernel_version 6.12.5 ->
#   linux-source-6.12; version 6.6 -> 6.1 (the nearest kept); no field but
#   "Linux 6.11.2" in the description -> 6.12; 2.6.24 (bug 9370) -> 6.1;
#   the job page says which and why;
# - a fix (FAIL->PASS) on 6.1 is back-tested on 6.12: one job of purpose
#   backtest, and when it is done one comment with the matrix (series:
#   applies? unpatched / patched), also on the bug page; a back-test whose
#   patch does not apply shows "no";
# - the fix's failing baseline starts a release bisection over the
#   archive's real 6.1 releases (apt-cache madison); the steps are played
#   here (a release passes when older than the 3rd): "introduced between
#   X and Y" with "#regzbot introduced: vX..vY", on the tracker once and
#   on the bug page; another bug whose oldest release fails gets "present
#   in every available release since X" after one build; and a bound of
#   [triage] release_bisect_builds stops early with the range it reached.
# The kept series are tarballs of this test's own (kernel_source), so the
# choice does not depend on what the host has installed.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"
[ -x "$BB_BUILD/bz-standin" ] || skip_all "no bz-standin in $BB_BUILD"
command -v apt-cache >/dev/null || skip_all "no apt-cache (the archive's releases)"
older=$(apt-cache madison linux-source-6.1 2>/dev/null | awk '{ print $3 }' |
	sed 's/-[^-]*$//' | sort -u -V | awk -F. '$3 < 192' | wc -l)
[ "$older" -ge 3 ] || skip_all "the archive lists fewer than 3 releases of 6.1 before 6.1.192"
plan 34

ADMIN=admkey0123456789abcdefghijABCDEFGHIJ0000
BOT=$BOT_KEY
standin_start || { diag "$(cat "$TMP/standin.log")"; exit 1; }
B=$STANDIN_URL
mkdir -p "$TMP/src"
: >"$TMP/src/linux-source-6.1.tar.xz"
: >"$TMP/src/linux-source-6.12.tar.xz"

new_bug() {	# SUMMARY VERSION CF_KERNEL_VERSION DESCRIPTION -> id
	python3 - "$ADMIN" "$@" <<'EOF' | curl -s -H 'Content-Type: application/json' -d @- "$B/rest/bug" |
import json, sys
key, summary, version, cf, desc = sys.argv[1:]
print(json.dumps({"api_key": key, "product": "Linux", "component": "SCSI", "summary": summary,
		  "version": version, "cf_kernel_version": cf, "description": desc}))
EOF
	python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}
attach() {	# BUG NAME
	python3 - "$ADMIN" "$@" <<'EOF' | curl -s -H 'Content-Type: application/json' -d @- \
		"$B/rest/bug/$1/attachment" >/dev/null
import base64, json, sys
key, bug, name = sys.argv[1:]
diff = ("--- a/drivers/scsi/sr.c\n+++ b/drivers/scsi/sr.c\n@@ -1,1 +1,1 @@\n-old %s\n+new %s\n"
	% (name, name))
print(json.dumps({"api_key": key, "ids": [int(bug)], "file_name": name + ".patch",
		  "summary": name, "content_type": "text/plain", "is_patch": True,
		  "data": base64.b64encode(diff.encode()).decode()}))
EOF
}
b612=$(new_bug "sr: CD size lost" unspecified 6.12.5 "My CD shrinks.")
b66=$(new_bug "sr: reads fail" 6.6 "" "Reads fail.")
bdesc=$(new_bug "sr: EOD" unspecified "" "Since Linux 6.11.2 my CD reads fail (QEMU 7.2).")
for b in 9370 "$b612" "$b66" "$bdesc"; do attach "$b" "fix-$b"; done

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = $B
api_key = $BOT
login = bot@example.com
watch_bugs = 9370, $b612, $b66, $bdesc
[web]
base_url = http://bugbridge.example/
listen = 127.0.0.1:$(free_port)
[runner]
kernel_source = $TMP/src/linux-source-{series}.tar.xz
[triage]
mirror =
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
cycle() { bbd --once >>"$TMP/bbd.log" 2>&1 || echo "bugbridged --once exited $?" >>"$TMP/cycle.failed"; }
comments() {	# BUG TEXT: the bug's comments containing TEXT, joined
	curl -s "$B/rest/bug/$1/comment" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(c["text"] for c in d["bugs"][sys.argv[1]]["comments"] if sys.argv[2] in c["text"]))' "$1" "$2"
}
count() { comments "$1" "$2" | grep -c "$2"; }
job_of() { sql "SELECT id FROM jobs WHERE bug_id = $1 AND purpose = '' ORDER BY id LIMIT 1"; }

check "database migrates" bb db migrate
cycle
is "cf_kernel_version 6.12.5: linux-source-6.12" "$(sql "SELECT base FROM jobs WHERE id = $(job_of "$b612")")" linux-source-6.12
like "  and why" "$(sql "SELECT base_reason FROM jobs WHERE id = $(job_of "$b612")")" \
	"kernel version field \\(cf_kernel_version\\) says 6.12.5: series 6.12"
is "version 6.6: linux-source-6.1" "$(sql "SELECT base FROM jobs WHERE id = $(job_of "$b66")")" linux-source-6.1
like "  the nearest kept series" "$(sql "SELECT base_reason FROM jobs WHERE id = $(job_of "$b66")")" \
	"version field says 6.6: series 6.1, the nearest kept"
is "Linux 6.11.2 in the description: linux-source-6.12" \
	"$(sql "SELECT base FROM jobs WHERE id = $(job_of "$bdesc")")" linux-source-6.12
like "  and why" "$(sql "SELECT base_reason FROM jobs WHERE id = $(job_of "$bdesc")")" "description says 6.11.2"
is "bug 9370 (2.6.24): linux-source-6.1" "$(sql "SELECT base FROM jobs WHERE id = $(job_of 9370)")" linux-source-6.1

# the dashboard on the same database: a bugbridged whose tracker is away
WEB_PORT=$(free_port)
write_config "$TMP/web.conf" <<EOF
[web]
listen = 127.0.0.1:$WEB_PORT
[tracker]
url = http://127.0.0.1:9
poll_interval = 3600
[digest]
every = never
[runner]
kernel_source = $TMP/src/linux-source-{series}.tar.xz
EOF
# the binary itself, not the bbd function: kill must reach it, or its cycles
# (on a tracker that is away) would go on beside this test's
web_up() { bg web "$BB_BUILD/bugbridged" --config "$TMP/web.conf"; wait_port "$WEB_PORT" 20 || diag "$(cat "$TMP/web.log")"; }
web_down() { kill "$PID_web"; wait "$PID_web" 2>/dev/null; }
web_up
page=$(curl -s "http://127.0.0.1:$WEB_PORT/job/$(job_of "$b612")")
like "the job page shows the base and why" "$page" \
	"linux-source-6.12 <span class=\"note\">\\(why: the bug&#39;s kernel version field \\(cf_kernel_version\\) says 6.12.5: series 6.12\\)"
web_down

# 9370's fix on 6.1: FAIL->PASS, the baseline failing sr-capacity on 6.1.192
# (on 6.12 also a test of a 60-character name, which must move no column)
long=lying-device-a-test-name-of-exactly-sixty-characters-long-xx
fix=$(job_of 9370)
sql "UPDATE jobs SET state = 'cancelled' WHERE state = 'queued' AND id <> $fix;
UPDATE jobs SET state = 'done', verdict = 'pass', change = 'FAIL->PASS', accel = 'tcg',
	kernel_version = '6.1.192' WHERE id = $fix;
INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	($fix, 'baseline', 'sr-capacity', 'fail', NULL), ($fix, 'baseline', 'sr-read', 'pass', NULL),
	($fix, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS'), ($fix, 'patched', 'sr-read', 'pass', 'PASS->PASS');"
cycle
bt=$(sql "SELECT id FROM jobs WHERE purpose = 'backtest' AND parent_id = $fix")
like "the fix is back-tested on 6.12" "$(sql "SELECT base || ' ' || with_baseline || ' ' || candidate_id FROM jobs WHERE id = '$bt'")" \
	"^linux-source-6.12 1 $(sql "SELECT candidate_id FROM jobs WHERE id = $fix")\$"
is "  on no other series (6.1 is the fix's own)" "$(sql "SELECT COUNT(*) FROM jobs WHERE purpose = 'backtest'")" 1
is "no matrix while it runs" "$(count 9370 "bugbridge-backtest: job $fix")" 0
rb_step() { sql "SELECT id || ' ' || base FROM jobs WHERE purpose = 'release' AND state = 'queued' AND parent_id = $1"; }
set -- $(rb_step "$fix")
like "the failing baseline starts a release bisection at the oldest release" "$2" \
	"^linux-source-6.1=$(apt-cache madison linux-source-6.1 | awk '{ print $3 }' | sort -V | head -1)\$"
sql "UPDATE jobs SET state = 'done', verdict = 'pass', change = 'FAIL->PASS', kernel_version = '6.12.118'
	WHERE id = $bt;
INSERT INTO test_results (job_id, variant, name, status, change) VALUES
	($bt, 'baseline', 'sr-capacity', 'fail', NULL), ($bt, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS'),
	($bt, 'baseline', '$long', 'fail', NULL), ($bt, 'patched', '$long', 'pass', 'FAIL->PASS');"

# the runner's part for the release steps: releases older than the 3rd pass
releases=$(sql "SELECT releases FROM release_bisections WHERE root_job = $fix")
third=$(echo "$releases" | cut -d' ' -f3)
steps=0
while :; do
	cycle
	set -- $(rb_step "$fix")
	[ $# = 2 ] || break
	steps=$((steps + 1))
	[ $steps -le 6 ] || break
	v=${2#*=}
	if [ "$(printf '%s\n%s\n' "$v" "$third" | sort -V | head -1)" = "$third" ]; then s=fail; else s=pass; fi
	sql "UPDATE jobs SET state = 'done', verdict = '$s', kernel_version = '${v%-*}' WHERE id = $1;
	INSERT INTO test_results (job_id, variant, name, status) VALUES ($1, 'patched', 'sr-capacity', '$s')"
done
text=$(comments 9370 "bugbridge-backtest: job $fix")
diag "the back-test comment:" "$text"
like "one matrix comment, the verdict first" "$text" "^bugbridge back-test of the fix: works on 6\\.1 and 6\\.12$"
like "  6.1's row" "$text" "^  6\\.1 +6\\.1\\.192 +$fix +yes +FAIL \\(sr-capacity\\) +PASS \\(FAIL->PASS\\)$"
like "  and 6.12's" "$text" "^  6\\.12 +6\\.12\\.118 +$bt +yes +FAIL \\($long, sr-capacity\\) +PASS \\(FAIL->PASS\\)$"
is "  the long name moves no column: Patched starts where its cells do" "$(printf '%s\n' "$text" | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
head = [l for l in lines if l.startswith("  Series ")][0]
rows = [l for l in lines if l.startswith("  6.")]
cols = [head.index(w) for w in ("Kernel", "Job", "Applies", "Unpatched", "Patched")]
print("aligned" if len(rows) == 2 and all(r[c - 1] == " " and r[c] != " " for r in rows for c in cols)
      else "shifted: " + repr(rows))')" aligned
is "  posted once" "$(count 9370 "bugbridge-backtest: job $fix")" 1
second=$(echo "$releases" | cut -d' ' -f2)
text=$(comments 9370 "bugbridge-releases: job $fix")
like "the release bisection names the range" "$text" "sr-capacity was introduced between $second and $third"
like "  offers a regzbot line" "$text" "#regzbot introduced: v${second%-*}\\.\\.v${third%-*}"
like "  names the range of releases, not each" "$text" \
	"^Releases:  [0-9]+ of linux-source-6\\.1 in the archive, [^ ]+ to [^ ]+, then 6\\.1\\.192; $steps built$"
is "  within 1 + log2 of the releases in builds" \
	"$([ $steps -ge 2 ] && [ $steps -le 4 ] && echo yes || echo "no: $steps")" yes
is "  posted once" "$(count 9370 "bugbridge-releases: job $fix")" 1

# another bug on 6.12 whose oldest release fails: one build
j=$(job_of "$b612")
sql "UPDATE jobs SET candidate_id = NULL, state = 'done', verdict = 'fail', kernel_version = '6.12.118'
	WHERE id = $j;
INSERT INTO test_results (job_id, variant, name, status) VALUES ($j, 'patched', 'sr-capacity', 'fail');"
cycle
set -- $(rb_step "$j")
oldest612=$(apt-cache madison linux-source-6.12 | awk '{ print $3 }' | sort -V | head -1)
is "a job without a patch failing on 6.12 starts at 6.12's oldest release" "$2" "linux-source-6.12=$oldest612"
sql "UPDATE jobs SET state = 'done', verdict = 'fail', kernel_version = '${oldest612%-*}' WHERE id = $1;
INSERT INTO test_results (job_id, variant, name, status) VALUES ($1, 'patched', 'sr-capacity', 'fail');"
cycle
like "present in every available release since the oldest" "$(comments "$b612" "bugbridge-releases")" \
	"sr-capacity fails in every available release of 6.12 since $oldest612"
unlike "  with no regzbot line" "$(comments "$b612" "bugbridge-releases")" "#regzbot"
is "  after one build" "$(sql "SELECT builds || ' ' || state FROM release_bisections WHERE root_job = $j")" "1 done"
cycle
is "no step queued afterwards" "$(sql "SELECT COUNT(*) FROM jobs WHERE purpose = 'release' AND state = 'queued'")" 0

# the bug page shows both
web_up
page=$(curl -s "http://127.0.0.1:$WEB_PORT/bug/9370")
like "the bug page has the back-test matrix" "$page" "<h3>Back-test of the fix in <a href=\"/job/$fix\">job $fix</a></h3>"
like "  with 6.12's row" "$page" "<td>6\\.12</td><td>6\\.12\\.118</td><td><a href=\"/job/$bt\">$bt</a></td><td>yes</td><td>FAIL \\($long, sr-capacity\\)</td><td>PASS</td>"
like "  and the release range with its regzbot line" "$page" \
	"<code class=\"regzbot\">#regzbot introduced: v${second%-*}\\.\\.v${third%-*}</code>"

# a back-test whose patch does not apply: "no", nothing run
sql "UPDATE jobs SET verdict = 'apply-failed', change = NULL WHERE id = $bt;
DELETE FROM test_results WHERE job_id = $bt;"
like "a series the patch does not apply to shows 'no'" \
	"$(curl -s "http://127.0.0.1:$WEB_PORT/bug/9370")" \
	"<td><a href=\"/job/$bt\">$bt</a></td><td>no</td><td>-</td><td>-</td>"
web_down

# a bound on the builds
j=$(job_of "$b66")
printf '[triage]\nrelease_bisect_builds = 1\n' >>"$TMP/bb.conf"
sql "UPDATE jobs SET candidate_id = NULL, state = 'done', verdict = 'fail', kernel_version = '6.1.192'
	WHERE id = $j;
INSERT INTO test_results (job_id, variant, name, status) VALUES ($j, 'patched', 'sr-read', 'fail');"
cycle
set -- $(rb_step "$j")
sql "UPDATE jobs SET state = 'done', verdict = 'pass' WHERE id = $1;
INSERT INTO test_results (job_id, variant, name, status) VALUES ($1, 'patched', 'sr-read', 'pass');"
cycle
like "a bound of 1 build stops at the range it reached" "$(comments "$b66" "bugbridge-releases")" \
	"sr-read was introduced between .* and 6\\.1\\.192 \\(not narrowed further: 1 builds"
[ ! -s "$TMP/cycle.failed" ] && ok "every cycle exited 0" || not_ok "every cycle exited 0: $(cat "$TMP/cycle.failed")"
