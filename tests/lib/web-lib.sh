# web-lib.sh: start bugbridged on a seeded database for the web tests
# (tests/t4*.sh).  Source after test-lib.sh.
#
#   web_start [extra config lines on stdin]
#       migrates $TMP/bugbridge.db, loads tests/data/web-seed.sql (with
#       @LOGS@ -> $TMP/logs), writes job logs, starts bugbridged with the
#       dashboard on $WEB_PORT and token $WEB_TOKEN; $WEB is the base URL.
#   get PATH            body on one line (newlines -> spaces, for like/unlike)
#   raw PATH            body as sent
#   status PATH [curl args]   HTTP status code only
#   headers PATH        response headers
#
# The poller points at a closed port and digests/stale marking are off,
# so the service's own cycle leaves the seeded rows alone.

WEB_TOKEN="tok-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"

web_seed() {
	mkdir -p "$TMP/logs/job-1" "$TMP/logs/job-2" "$TMP/logs/job-3" "$TMP/outside"
	# the names the runner writes (runner/apply.c, build.c, kconfig.c,
	# boot.c): <variant>-<stage>.log, <variant>-console-<scenario>[-<test>-<n>].log
	for f in suite-build patched-apply patched-harness patched-configure \
		baseline-apply baseline-harness baseline-configure baseline-build \
		baseline-console-all; do
		echo "$f" >"$TMP/logs/job-1/$f.log"
	done
	printf 'make bzImage\nBUILD-LOG-LINE-1 <ok>\n' >"$TMP/logs/job-1/patched-build.log"
	printf 'Linux version 6.1.119\nKTAP version 1\nnot ok 1 scsi_completion_basic\n' \
		>"$TMP/logs/job-1/patched-console-all.log"
	echo rerun >"$TMP/logs/job-1/patched-console-all-scsi_completion_basic-1.log"
	echo apply >"$TMP/logs/job-3/patched-apply.log"
	echo "OUTSIDE-SECRET-FILE" >"$TMP/outside/secret.log"
	ln -s "$TMP/outside/secret.log" "$TMP/logs/job-1/evil.log"
	bb --config "$TMP/web.conf" db migrate >/dev/null || return 1
	sed "s|@LOGS@|$TMP/logs|g" "$BB_SRC/tests/data/web-seed.sql" | sql
}

web_start() {
	WEB_PORT=$(free_port)
	WEB="http://127.0.0.1:$WEB_PORT"
	{
		cat <<-EOC
		[web]
		listen = 127.0.0.1:$WEB_PORT
		token = $WEB_TOKEN
		threads = 4
		[tracker]
		url = http://127.0.0.1:9
		poll_interval = 3600
		[digest]
		every = never
		[triage]
		stale_days = 0
		EOC
		cat
	} | write_config "$TMP/web.conf"
	web_seed || return 1
	bg bbd bbd --config "$TMP/web.conf"
	wait_port "$WEB_PORT" 20
}

get() { curl -sS --max-time 20 "$WEB$1" | tr '\n' ' '; }
raw() { curl -sS --max-time 20 "$WEB$1"; }
status() { _p=$1; shift; curl -s --max-time 20 -o /dev/null -w '%{http_code}' "$@" "$WEB$_p"; }
headers() { curl -sS --max-time 20 -o /dev/null -D - "$WEB$1" | tr -d '\r'; }
