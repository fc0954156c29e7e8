#!/bin/sh
# make deb builds bugbridge_<version>_amd64.deb from the tree; lintian finds
# no error in it; installed with dpkg into a throwaway root (an overlay of
# this machine's own, in a mount namespace of the test's: nothing of it
# reaches the host), it creates the bugbridge system user, enables the two
# units, keeps /etc/bugbridge/bugbridge.conf as a conffile (an edit
# survives reinstalling), installs the manual pages, and from it
# `bugbridge --version` and `bugbridge config check --offline` work and the user can
# create the database in its state directory.  Root only (mounts, chroot).
. "$(dirname "$0")/lib/test-lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (overlay mount and chroot)"
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
	skip_all "no dpkg-buildpackage or debhelper (make deps installs them)"
plan 17

version=$(sed -n 's/^#define BUGBRIDGE_VERSION "\(.*\)"/\1/p' "$BB_SRC/lib/app.h")
deb="$TMP/build/deb/bugbridge_${version}_amd64.deb"
make -s -C "$BB_SRC" O="$TMP/build" deb >"$TMP/deb.log" 2>&1
is "make deb succeeds" "$?" 0 || diag "$(tail -20 "$TMP/deb.log")"
test -f "$deb"; is "and builds bugbridge_${version}_amd64.deb" "$?" 0
like "it depends on what the runner runs" "$(dpkg-deb -f "$deb" Depends)" \
	'bubblewrap.*qemu-system-x86|qemu-system-x86.*bubblewrap'

if command -v lintian >/dev/null; then
	lintian "$deb" >"$TMP/lintian.log" 2>&1
	is "lintian reports no error" "$(grep '^E:' "$TMP/lintian.log")" ""
else
	not_ok "lintian reports no error"; diag "no lintian (make deps installs it)"
fi

# The throwaway root: / read-only below, a tmpfs above, in our own mount namespace.
host_passwd=$(sha256sum /etc/passwd)
cat >"$TMP/inroot.sh" <<EOS
set -u
d=$TMP/ovl
mkdir -p \$d && mount -t tmpfs -o size=2g tmpfs \$d || exit 99
mkdir \$d/upper \$d/work \$d/root
mount -t overlay overlay -o lowerdir=/,upperdir=\$d/upper,workdir=\$d/work \$d/root || exit 99
mount --rbind /dev \$d/root/dev && mount -t proc proc \$d/root/proc || exit 99
r=\$d/root
inr() { chroot \$r "\$@"; }
cp "$deb" \$r/tmp/bugbridge.deb
inr dpkg -i /tmp/bugbridge.deb >$TMP/dpkg-i.log 2>&1; echo "install \$?"
inr bugbridge --version >$TMP/version.out 2>&1; echo "version \$?"
inr bugbridge config check --offline >$TMP/check.out 2>&1; echo "check \$?"
inr getent passwd bugbridge >$TMP/passwd.out
inr dpkg-query -W -f='\${Conffiles}\n' bugbridge >$TMP/conffiles.out
ls \$r/etc/systemd/system/multi-user.target.wants/ >$TMP/wants.out
ls \$r/usr/share/man/man1 \$r/usr/share/man/man5 \$r/usr/share/man/man8 | grep bugbridge >$TMP/man.out
chroot --userspec=bugbridge:bugbridge \$r bugbridge db migrate >$TMP/migrate.out 2>&1; echo "migrate \$?"
inr stat -c %U /var/lib/bugbridge/bugbridge.db >$TMP/dbowner.out 2>&1
echo "watch_bugs = 9370" >>\$r/etc/bugbridge/bugbridge.conf
inr dpkg -i /tmp/bugbridge.deb >$TMP/dpkg-i2.log 2>&1; echo "reinstall \$?"
tail -1 \$r/etc/bugbridge/bugbridge.conf >$TMP/kept.out
inr dpkg --purge bugbridge >$TMP/purge.log 2>&1; echo "purge \$?"
ls \$r/usr/bin/bugbridge \$r/etc/bugbridge/bugbridge.conf \$r/var/lib/bugbridge 2>/dev/null >$TMP/left.out
EOS
unshare -m --propagation private sh "$TMP/inroot.sh" >"$TMP/steps" 2>"$TMP/inroot.err"
[ $? -ne 99 ] || skip_all "no overlay mount here: $(cat "$TMP/inroot.err")"
step() { sed -n "s/^$1 //p" "$TMP/steps"; }

is "dpkg -i installs it into the throwaway root" "$(step install)" 0 ||
	diag "$(tail -5 "$TMP/dpkg-i.log")"
is "bugbridge --version runs from it" "$(cat "$TMP/version.out")" "bugbridge $version"
is "bugbridge config check --offline passes on the shipped configuration" "$(step check)" 0
like "and reads /etc/bugbridge/bugbridge.conf" "$(cat "$TMP/check.out")" '/etc/bugbridge/bugbridge\.conf'
like "postinst creates the system user, with no shell" "$(cat "$TMP/passwd.out")" \
	'^bugbridge:x:[0-9]+:[0-9]+:[^:]*:/var/lib/bugbridge:/usr/sbin/nologin$'
like "/etc/bugbridge/bugbridge.conf is a conffile" "$(cat "$TMP/conffiles.out")" \
	'^ /etc/bugbridge/bugbridge\.conf [0-9a-f]{32}$'
is "both units are enabled" \
	"$(grep -c '^\(bugbridged\|bugbridge-runner\)\.service$' "$TMP/wants.out")" 2
is "the four manual pages are installed" "$(tr '\n' ' ' <"$TMP/man.out")" \
	"bugbridge.1.gz bugbridge.conf.5.gz bugbridge-runner.8.gz bugbridged.8.gz "
is "the bugbridge user creates the database in /var/lib/bugbridge" \
	"$(step migrate) $(cat "$TMP/dbowner.out")" "0 bugbridge"
is "reinstalling keeps an edited configuration" "$(step reinstall) $(cat "$TMP/kept.out")" \
	"0 watch_bugs = 9370"
is "purge removes the programs, the configuration and the state" \
	"$(step purge) $(cat "$TMP/left.out")" "0 "
is "the host's own /etc/passwd is untouched" "$(sha256sum /etc/passwd)" "$host_passwd"
unlike "no bugbridge package on the host" "$(dpkg-query -W -f='${Status}' bugbridge 2>&1)" 'installed'
done_testing
