#!/bin/sh
# deps.sh [--list] [demo|check]: install the Debian 12 packages that the demo (demo:
# building bugbridge, running it, building and booting kernels, the SMTP
# server it mails) or everything besides (check, the default: the tests,
# the benchmarks and the package) need, and only those that are missing.
# `make demo` runs `deps.sh demo`; `make check`, `make deps` and `make bench`
# run `deps.sh check`.
set -e

DEMO="build-essential pkg-config libcurl4-openssl-dev libjson-c-dev
libsqlite3-dev libmicrohttpd-dev sqlite3 curl git patch
qemu-system-x86 qemu-utils linux-source-6.1 linux-source-6.12 busybox-static
ccache bubblewrap
flex bison bc libelf-dev libssl-dev cpio xz-utils kmod python3
python3-aiosmtpd e2fsprogs"
# the tests (cmocka, Chromium, a LAVA lab on PostgreSQL, libFuzzer, the
# manual pages' lint, the package, the KCIDB schema), the benchmarks (wrk)
CHECK="libcmocka-dev chromium wrk clang libclang-rt-14-dev
postgresql lava-server lava-dispatcher lavacli mandoc
debhelper lintian python3-jsonschema"

list=""
if [ "${1:-}" = --list ]; then	# print the list, install nothing
	list=1
	shift
fi
case "${1:-check}" in
demo) PACKAGES=$DEMO ;;
check) PACKAGES="$DEMO $CHECK" ;;
*) echo "usage: deps.sh [--list] [demo|check]" >&2; exit 2 ;;
esac
if [ -n "$list" ]; then
	echo $PACKAGES | tr ' ' '\n'
	exit 0
fi

missing=""
for p in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "deps: all Debian packages present"
	exit 0
fi
echo "deps: installing$missing"
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "deps: need root to install:$missing" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# lava-server's postinst creates its database role and runs its migrations
# only if PostgreSQL answers then (nothing starts daemons by itself here):
# PostgreSQL first, running while lava-server is installed, stopped after
# unless it was running before.  The LAVA tests start it themselves.
pg_started=""
case "$missing" in
*lava-server*)
	$SUDO apt-get install -y -q --no-install-recommends postgresql
	if ! pg_lsclusters -h 2>/dev/null | grep -q online; then
		$SUDO pg_ctlcluster 15 main start && pg_started=1
	fi
	;;
esac
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
[ -z "$pg_started" ] || $SUDO pg_ctlcluster 15 main stop
