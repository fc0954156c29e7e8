# test-lib.sh: shared helpers for the integration tests (tests/tNNNN-*.sh).
#
# Source it first thing:   . "$(dirname "$0")/lib/test-lib.sh"
# It gives each test a scratch directory ($TMP, removed at exit unless
# BB_KEEP=1), TAP helpers, free ports, a config writer, and start/stop of the
# real binaries.  Binaries come from $BB_BUILD (make check points it at the
# sanitizer build), sources from $BB_SRC.
#
# Test families by first digit: 0 basics, 1 database, 2 tracker, 3 runner
# and kernel, 4 web, 5 mail, 6 faults.

set -u
BB_SRC=${BB_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BB_BUILD=${BB_BUILD:-$BB_SRC/build}
# the recorded Bugzilla exchanges and the seed patch (copies of ../shared's,
# so that a clone alone runs every test; BB_SHARED=../shared uses the originals)
BB_SHARED=${BB_SHARED:-$BB_SRC/tests/data/shared}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bbtest.XXXXXX")
BB_PIDS=""
_tap_n=0
_tap_fail=0

bb_cleanup() {
	for pid in $BB_PIDS; do
		# bg of a shell function (bbd, bbrunner) runs the program as a
		# child of a subshell: stop the children too, or they outlive us
		pkill -TERM -P "$pid" 2>/dev/null
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	if [ "${BB_KEEP:-0}" = 1 ] || { [ $_tap_fail -ne 0 ] && [ "${BB_KEEP_FAILED:-0}" = 1 ]; }; then
		echo "# kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}
trap bb_cleanup EXIT
trap 'exit 130' INT TERM

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_fail=$((_tap_fail + 1)); echo "not ok $_tap_n - $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /' >&2; }

# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
	_d=$1; shift
	if "$@" >"$TMP/.check.out" 2>&1; then ok "$_d"; else
		not_ok "$_d"; diag "command: $*"; diag "$(tail -20 "$TMP/.check.out")"; fi
}
# is DESCRIPTION GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		not_ok "$1"; diag "got:  '$2'" "want: '$3'"; fi
}
# like DESCRIPTION TEXT PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else
		not_ok "$1"; diag "no match for /$3/ in:" "$(printf '%s\n' "$2" | head -20)"; fi
}
unlike() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		not_ok "$1"; diag "unexpected match for /$3/ in:" "$(printf '%s\n' "$2" | head -20)"
	else ok "$1"; fi
}
done_testing() { [ $_tap_fail -eq 0 ]; }

# free_port: a TCP port nobody listens on right now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_port PORT [SECONDS]: until something accepts on 127.0.0.1:PORT.
wait_port() {
	_i=0; _max=$(( ${2:-10} * 10 ))
	while [ $_i -lt $_max ]; do
		python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1',$1)))" && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

# bg NAME COMMAND...: start a process in the background, log to $TMP/NAME.log.
bg() {
	_name=$1; shift
	"$@" >"$TMP/$_name.log" 2>&1 9>&- &	# fd 9: lava-lib.sh's lock, never inherited
	BB_PIDS="$BB_PIDS $!"
	eval "PID_$_name=$!"
}

# write_config FILE [extra lines on stdin]: a config on a scratch database.
write_config() {
	{
		echo "[db]"; echo "path = $TMP/bugbridge.db"
		echo "[log]"; echo "level = debug"
		cat
	} >"$1"
}

bb() { "$BB_BUILD/bugbridge" "$@"; }
bbd() { "$BB_BUILD/bugbridged" "$@"; }
bbrunner() { "$BB_BUILD/bugbridge-runner" "$@"; }

# sql QUERY: run a query on the scratch database.
sql() { sqlite3 -batch -noheader "$TMP/bugbridge.db" "$@"; }
