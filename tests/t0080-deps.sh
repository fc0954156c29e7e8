#!/bin/sh
# make demo installs what the demo needs and nothing of the tests' (issue
# 35): tools/deps.sh has two lists.  The demo's has the build, the kernel
# tools, QEMU, the sandbox and the SMTP server the demo mails, and none of
# the test-only extras (a LAVA lab and its PostgreSQL, Chromium, cmocka,
# wrk, libFuzzer, the manual pages' lint, the packaging tools); nor does
# anything those packages depend on, as apt sees it.  make check's list
# is the demo's and the extras.  The Makefile runs the right one.
. "$(dirname "$0")/lib/test-lib.sh"
plan 7

extras='^(chromium|postgresql|lava-server|lava-dispatcher|lavacli|wrk|clang|libcmocka-dev|mandoc|debhelper|lintian)$'
demo=$("$BB_SRC/tools/deps.sh" --list demo)
check=$("$BB_SRC/tools/deps.sh" --list check)
unlike "the demo's list has no test-only extra" "$demo" "$extras"
for p in qemu-system-x86 bubblewrap busybox-static linux-source-6.1 python3-aiosmtpd; do
	printf '%s\n' "$demo" | grep -qx "$p" || missing="${missing:-} $p"
done
is "it has what the demo runs (QEMU, bwrap, busybox, the kernel, the SMTP server)" "${missing:-}" ""
is "make check's list is the demo's and more" \
	"$(printf '%s\n' "$demo" | grep -vxF "$check" | tr '\n' ' ')" ""
is "with every extra" "$(printf '%s\n' "$check" | grep -cE "$extras")" 11
if command -v apt-cache >/dev/null; then
	# shellcheck disable=SC2086
	closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $demo 2>/dev/null | grep -v '^ ' | sort -u)
	like "(apt knows the demo's packages)" "$closure" '^qemu-system-x86$'
	unlike "and none of what they depend on is an extra" "$closure" "$extras"
else
	ok "# SKIP no apt-cache"
	ok "# SKIP no apt-cache"
fi
like "make demo installs the demo's list, make check the whole" \
	"$(make -s -n -C "$BB_SRC" demo check 2>/dev/null | grep deps.sh | tr '\n' ' ')" \
	'tools/deps.sh demo .*tools/deps.sh check'
done_testing
