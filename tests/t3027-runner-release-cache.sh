#!/bin/sh
# t3027: releases of the archive are fetched on demand and kept in a
# size-bounded cache that drops the least recently used.  The fetch path
# runs for real (apt-cache madison, apt-get download, dpkg-deb, tar, make
# kernelversion) against a local apt archive of small linux-source-6.1
# packages (tests/lib/apt-lib.sh: about 2 MiB each, tree and package) and
# a kept series that is a tarball of this test's own: no network, no
# 140 MB package, no 1.5 GB tree, and /usr/src is never read or written.
# With release_cache_mb = 3 one release fits and two do not: fetching
# 6.1.176 drops 6.1.170 (its tree and its package in the cache's debs/),
# fetching 6.1.170 again drops 6.1.176; a release a job holds (a shared
# flock on its .lock, as a running job has) stays, with a warning; the
# kept series is never counted or dropped.  [runner] bases is left at its
# default (6.1, 6.12): 6.12 is kept once its tarball is there.  No kernel
# is built.  A deb_dir outside the cache (never deleted) is t3028's, with
# real packages.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/apt-lib.sh"
for need in apt-get apt-cache dpkg-deb dpkg-scanpackages python3; do
	command -v "$need" >/dev/null || skip_all "no $need"
done
apt_fake_package 6.1 6.1.170-2
apt_fake_package 6.1 6.1.170-3
apt_fake_package 6.1 6.1.176-1
apt_fake_tarball 6.1 6.1.192 "$TMP/src/linux-source-6.1.tar.xz"
apt_fake_publish || { diag "$(cat "$APT_ROOT/update.log")"; skip_all "apt does not read a local archive"; }
plan 18

write_config "$TMP/bb.conf" <<EOF
[runner]
cache_dir = $TMP/cache
kernel_source = $TMP/src/linux-source-{series}.tar.xz
release_cache_mb = 3
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
bb db migrate >/dev/null 2>&1
src_before=$(ls -l --time-style=+%s /usr/src 2>&1)
R170='linux-source-6.1=6.1.170-3' R176='linux-source-6.1=6.1.176-1'
fetch() { "$BB_BUILD/bugbridge-runner" --fetch "$1" >"$TMP/fetch.out" 2>&1; }
trees() { ls "$TMP/cache/base" | grep -v '\.lock$' | sort | tr '\n' ' '; }

fetch 6.1.170
is "--fetch 6.1.170 resolves to the archive's latest revision and extracts it" "$?" 0
like "  kernel 6.1.170" "$(cat "$TMP/fetch.out")" "$R170 \\(kernel 6\\.1\\.170\\) is in $TMP/cache/base/$R170"
is "  a tree of the release, its version read with make kernelversion" \
	"$(cat "$TMP/cache/base/$R170.version")" 6.1.170
is "  the package apt-get downloaded is in the cache's own debs/" "$(ls "$TMP/cache/debs")" \
	"linux-source-6.1_6.1.170-3_all.deb"
fetch 6.1.176
like "fetching 6.1.176 past the bound drops the least recently used, 6.1.170" \
	"$(cat "$TMP/fetch.out")" "dropped the release $R170 \\([0-9]+ MiB, least recently used\\)"
is "  its tree is gone, 6.1.176's is there" "$(trees)" "$R176 $R176.used $R176.version "
is "  and its package with it" "$(ls "$TMP/cache/debs")" "linux-source-6.1_6.1.176-1_all.deb"
fetch 6.1.170
like "fetching 6.1.170 again drops 6.1.176" "$(cat "$TMP/fetch.out")" "dropped the release $R176"
is "  6.1.170 is back" "$(trees)" "$R170 $R170.used $R170.version "

# a release a job holds is never dropped
# one process that holds the lock (flock(1) would leave it to its child)
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_SH); print(flush=True); time.sleep(600)' \
	"$TMP/cache/base/$R170.lock" >"$TMP/held" &
holder=$!
while [ ! -s "$TMP/held" ]; do sleep 0.1; done
fetch 6.1.176
like "a held release stays: the cache goes over the bound, saying so" "$(cat "$TMP/fetch.out")" \
	"over \\[runner\\] release_cache_mb 3: the rest are in use"
is "  both trees are there" "$(ls "$TMP/cache/base/" | grep -c '^linux-source-6.1=.*\.version$')" 2
kill $holder; wait $holder 2>/dev/null

# the kept series is not a release: never counted or dropped; its
# extraction is a fetch too, which drops what no longer fits
fetch 6.1
like "--fetch 6.1 extracts the kept series' tarball" "$(cat "$TMP/fetch.out")" \
	"linux-source-6.1 \\(kernel 6\\.1\\.192\\) is in $TMP/cache/base/linux-source-6.1"
like "  and drops the least recently used release (the held one is free now)" \
	"$(cat "$TMP/fetch.out")" "dropped the release $R170"
[ -d "$TMP/cache/base/linux-source-6.1" ] && [ -d "$TMP/cache/base/$R176" ] &&
	ok "  the series and 6.1.176 stay" || not_ok "  the series and 6.1.176 stay"
is "/usr/src was not touched" "$(ls -l --time-style=+%s /usr/src 2>&1)" "$src_before"
fetch 6.1.999
like "a release the archive lacks is refused, naming what it has" "$(cat "$TMP/fetch.out")" \
	"the archive has no release 6.1.999 of linux-source-6.1 \\(it has 6.1.170-3, 6.1.176-1\\)"

# [runner] bases' default keeps 6.1 and 6.12, each when its tarball is installed
fetch 6.12
like "[runner] bases defaults to 6.1, 6.12; without its tarball 6.12 is not kept" \
	"$(cat "$TMP/fetch.out")" "series 6.12 is not kept here \\(the installed ones of \\[runner\\] bases '6.1, 6.12' are\\)"
apt_fake_tarball 6.12 6.12.118 "$TMP/src/linux-source-6.12.tar.xz"
fetch 6.12
like "  with it, 6.12 is kept and extracted" "$(cat "$TMP/fetch.out")" \
	"linux-source-6.12 \\(kernel 6\\.12\\.118\\) is in $TMP/cache/base/linux-source-6.12"
