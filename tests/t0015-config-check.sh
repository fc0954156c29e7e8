#!/bin/sh
# `bugbridge config check` checks what the configuration reaches (issue 31),
# a line each, against real servers: the stand-in tracker (its key, whose,
# its groups), aiosmtpd, the runner's directories, tarballs and sandbox.
# A good configuration says ok for each line and exits 0; each failure mode
# gives its line and exit 1; a configuration bugbridged and bugbridge-runner
# cannot work with (LAVA without an artifact base URL, the runner without a
# kernel-patches directory) is refused by `config check` (exit 2) and by the
# programs at start (exit 2, saying why, the queued job untouched).
# --offline checks the file alone.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin.sh"

AIOSMTPD_PY=/usr/bin/python3
$AIOSMTPD_PY -c 'import aiosmtpd' 2>/dev/null || skip_all "python3-aiosmtpd is not installed"
standin_start || { plan 1; not_ok "start the stand-in tracker"; exit 1; }
SMTP_PORT=$(free_port)
bg smtp $AIOSMTPD_PY -m aiosmtpd -n -l 127.0.0.1:$SMTP_PORT
wait_port $SMTP_PORT 10 || { plan 1; not_ok "start aiosmtpd"; exit 1; }

# A kept series' tarball: config check asks only that it is there, a file.
mkdir -p "$TMP/src" "$TMP/cache"
head -c 4096 /dev/zero >"$TMP/src/linux-source-6.1.tar.xz"
good() {
	tracker_config "$TMP/c.conf" <<-EOF
	[smtp]
	url = smtp://127.0.0.1:$SMTP_PORT
	to = linux-scsi@vger.kernel.org
	timeout = 5
	[runner]
	cache_dir = $TMP/cache
	patches_dir = $BB_SRC/kernel-patches
	bases = 6.1
	kernel_source = $TMP/src/linux-source-{series}.tar.xz
	unconfined = true
	$(cat)
	EOF
}
# cc [ENV=VALUE...]: config check of $TMP/c.conf; its stdout in $out, status in $rc
cc() {
	out=$(env "$@" "$BB_BUILD/bugbridge" --config "$TMP/c.conf" config check 2>"$TMP/cc.err")
	rc=$?
}
fails() { printf '%s\n' "$out" | grep -c '^FAIL'; }

# 1. a good configuration: ok for each line
good </dev/null
cc
is "a good configuration: exit 0" "$rc" 0
like "the tracker answers" "$out" "^ok    tracker: $STANDIN_URL answers \(Bugzilla 5\.2\)$"
like "the key is valid, and whose it is" "$out" \
	"^ok    tracker key: valid, bot@example\.com's \(\[tracker\] login; GET /rest/valid_login confirms\)$"
like "with its groups" "$out" "^ok    tracker groups: bot@example\.com is in .*editbugs"
like "SMTP answers (EHLO, NOOP)" "$out" "^ok    smtp: smtp://127\.0\.0\.1:$SMTP_PORT answers \(250 "
like "patches_dir" "$out" "^ok    patches_dir: $BB_SRC/kernel-patches$"
like "the kept series' tarball" "$out" "^ok    kernel source 6\.1: $TMP/src/linux-source-6\.1\.tar\.xz"
like "cache_dir writable" "$out" "^ok    cache_dir: $TMP/cache is writable"
like "the sandbox: bwrap works (or, unconfined, a warning)" "$out" \
	"^(ok    sandbox: bwrap works|warn  sandbox: .*unconfined)"
like "LAVA not in use" "$out" "^skip  lava: \[runner\] backend = local$"
is "no line failed" "$(fails)" 0
like "a database not made yet is a warning" "$out" \
	"^warn  database: '$TMP/bugbridge\.db' does not exist yet: bugbridged creates it at start"
like "and it says so" "$out" "^configuration ok: $TMP/c\.conf \(see the warnings\)$"

# 1b. the database migrated; the bot's account as bugbridged learned it
#     (Bugzilla 5.2 has no /rest/whoami: without [tracker] login it is
#     learned from our own posts, and kept for this url and key, bot.h)
bb --config "$TMP/c.conf" db migrate >/dev/null 2>&1
cc
like "the database: there, of this bugbridge's schema" "$out" \
	"^ok    database: $TMP/bugbridge\.db \(schema [0-9]+\)$"
is "and nothing warns now" "$(printf '%s\n' "$out" | grep -c '^warn')" 0
cc BUGBRIDGE_TRACKER_LOGIN=
like "no [tracker] login and nothing learned: valid, whose unknown (a warning)" "$out" \
	"^warn  tracker key: valid; whose, this tracker does not say .* set \[tracker\] login"
is "a warning is no failure" "$rc" 0
fp=$(printf '%s\n%s' "$STANDIN_URL" "$BOT_KEY" | sha256sum | cut -d' ' -f1)
sql "UPDATE tracker_state SET bot_login = 'bot@example.com', bot_how = 'posted',
	bot_whoami = 0, bot_key = '$fp' WHERE id = 1"
cc BUGBRIDGE_TRACKER_LOGIN=
like "what bugbridged learned is confirmed" "$out" \
	"^ok    tracker key: valid, bot@example\.com's \(learned by bugbridged: posted; GET /rest/valid_login confirms\)$"
sql "UPDATE tracker_state SET bot_login = 'user@example.com' WHERE id = 1"
cc BUGBRIDGE_TRACKER_LOGIN=
is "a key no longer the learned account's: exit 1" "$rc" 1
like "saying so" "$out" \
	"^FAIL  tracker key: valid, but no longer user@example\.com's, whom bugbridged learned for it \(posted\)$"
sql "UPDATE tracker_state SET bot_login = NULL, bot_how = NULL, bot_key = NULL WHERE id = 1"

# 2. the tracker's failures
cc BUGBRIDGE_TRACKER_API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
is "a wrong API key: exit 1" "$rc" 1
like "its line quotes the tracker's refusal" "$out" \
	"^FAIL  tracker key: refused: GET /rest/[a-z_]+: The API key you specified is invalid.*\(code 306, HTTP 400\)$"
is "and only that line failed" "$(fails)" 1
like "standard error counts the failures" "$(cat "$TMP/cc.err")" "^bugbridge: config check: 1 failed$"
cc BUGBRIDGE_TRACKER_LOGIN=user@example.com
is "a key that is not [tracker] login's: exit 1" "$rc" 1
like "saying so" "$out" "^FAIL  tracker key: valid, but not the key of \[tracker\] login 'user@example\.com'"
closed=$(free_port)
cc BUGBRIDGE_TRACKER_URL=http://127.0.0.1:$closed
is "a tracker on a closed port: exit 1" "$rc" 1
like "its line says it could not connect" "$out" \
	"^FAIL  tracker: GET /rest/version: cannot GET 'http://127\.0\.0\.1:$closed/rest/version': Couldn't connect"
like "and the key is not asked" "$out" "^skip  tracker key: the tracker did not answer$"

# 3. the runner's
cc BUGBRIDGE_RUNNER_PATCHES_DIR=$TMP/no-such-kp
is "a missing patches_dir: exit 1" "$rc" 1
like "its line" "$out" "^FAIL  patches_dir: '$TMP/no-such-kp' does not exist \(\[runner\] patches_dir\)"
cc "BUGBRIDGE_RUNNER_BASES=6.1, 6.12"
is "a missing tarball: exit 1" "$rc" 1
like "its line names the path and what to do" "$out" \
	"^FAIL  kernel source 6\.12: '$TMP/src/linux-source-6\.12\.tar\.xz': No such file or directory \(install linux-source-6\.12, or take 6\.12 out of \[runner\] bases\)$"
like "the other series is still ok" "$out" "^ok    kernel source 6\.1: "
printf 'not a directory\n' >"$TMP/afile"
cc BUGBRIDGE_RUNNER_CACHE_DIR=$TMP/afile/cache
is "a cache_dir that cannot be written: exit 1" "$rc" 1
like "its line" "$out" "^FAIL  cache_dir: cannot create '$TMP/afile/cache': Not a directory$"
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
	cc BUGBRIDGE_RUNNER_CACHE_DIR=$TMP/ro
	like "a read-only cache_dir: its line" "$out" "^FAIL  cache_dir: '$TMP/ro' is not writable: Permission denied$"
else
	ok "# SKIP root writes in a read-only directory"
fi

# 4. SMTP down
kill "$PID_smtp" && wait "$PID_smtp" 2>/dev/null
cc
is "SMTP down: exit 1" "$rc" 1
like "its line" "$out" "^FAIL  smtp: smtp://127\.0\.0\.1:$SMTP_PORT: .*[Cc]ouldn't connect"
cc BUGBRIDGE_DIGEST_EVERY=never
is "no digest: SMTP is not asked" "$rc" 0
like "and says why" "$out" "^skip  smtp: \[digest\] every = never: bugbridge sends no mail$"

# 5. --offline: the file alone (the mail server is still down)
out=$(bb --config "$TMP/c.conf" config check --offline 2>&1); rc=$?
is "--offline: exit 0 with SMTP down" "$rc" 0
unlike "--offline asks no server" "$out" "tracker|smtp|sandbox"

# 6. LAVA without an artifact base URL: refused, by config check and at start
good <<EOF
backend = lava
[lava]
url = http://127.0.0.1:$closed
token = lava-token-0123456789
[digest]
every = never
EOF
id=$(bb --config "$TMP/c.conf" job add --bug 9370 --none 2>/dev/null)
why="\[runner\] backend = lava, but neither \[lava\] artifacts_url nor \[web\] base_url is set: LAVA workers would be given relative URLs \(/artifacts/\.\.\.\) for the kernel"
cc
is "config check refuses LAVA without an artifact URL: exit 2" "$rc" 2
like "saying why" "$out" "^FAIL  configuration: $why$"
like "and that the programs refuse it" "$(cat "$TMP/cc.err")" "bugbridged and bugbridge-runner refuse this configuration"
out=$(bb --config "$TMP/c.conf" config check --offline 2>/dev/null); rc=$?
is "--offline too: exit 2" "$rc" 2
like "with the same line" "$out" "^FAIL  configuration: $why$"
err=$(bbrunner --config "$TMP/c.conf" --once 2>&1); rc=$?
is "bugbridge-runner refuses it at start: exit 2" "$rc" 2
like "naming the file and the reason" "$err" "^bugbridge-runner: $TMP/c\.conf: $why$"
is "the queued job is untouched" "$(sql "SELECT state, attempts FROM jobs WHERE id = $id")" "queued|0"
err=$(bbd --config "$TMP/c.conf" --once 2>&1); rc=$?
is "bugbridged refuses it too: exit 2" "$rc" 2
like "saying why" "$err" "^bugbridged: $TMP/c\.conf: $why$"
cc BUGBRIDGE_LAVA_ARTIFACTS_URL=artifacts.example.org/bb
is "a relative artifacts_url: exit 2" "$rc" 2
like "its line" "$out" "^FAIL  configuration: \[lava\] artifacts_url 'artifacts\.example\.org/bb' is not an absolute URL"
cc BUGBRIDGE_WEB_BASE_URL=http://bugbridge.example.org
is "with [web] base_url, LAVA is no longer refused (exit 1: the lab is down)" "$rc" 1
like "its lab's line" "$out" "^FAIL  lava: .*127\.0\.0\.1:$closed"

# 7. the runner without a kernel-patches directory: refused at start, not three
#    attempts in a second
good <<EOF
patches_dir = $TMP/no-such-kp
EOF
err=$(bbrunner --config "$TMP/c.conf" --once 2>&1); rc=$?
is "bugbridge-runner without a kernel-patches directory: exit 2" "$rc" 2
like "saying why" "$err" \
	"^bugbridge-runner: the kernel-patches directory '$TMP/no-such-kp' does not exist \(\[runner\] patches_dir\): every job would end in infra-error$"
is "the queued job is untouched" "$(sql "SELECT state, attempts FROM jobs WHERE id = $id")" "queued|0"

plan $_tap_n
done_testing
