#!/bin/sh
# make install honours PREFIX and DESTDIR and installs what a packager needs.
. "$(dirname "$0")/lib/test-lib.sh"
plan 8
root="$TMP/root"
if make -s -C "$BB_SRC" install DESTDIR="$root" PREFIX=/usr >"$TMP/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr succeeds"
else
	not_ok "make install DESTDIR=... PREFIX=/usr succeeds"; diag "$(tail -5 "$TMP/install.log")"
fi
for f in bin/bugbridged bin/bugbridge bin/bugbridge-runner; do
	test -x "$root/usr/$f"; is "installs $f" "$?" 0
done
n=$(ls "$root/usr/share/bugbridge/schema/"*.sql 2>/dev/null | wc -l)
is "installs the schema migrations" "$n" "$(ls "$BB_SRC"/schema/[0-9]*.sql | wc -l)"
test -f "$root/usr/share/bugbridge/bugbridge.conf.example"; is "installs the example config" "$?" 0
is "installs the stylesheet and no program source (the guest suite's is data)" \
	"$(cd "$root/usr/share/bugbridge" && find . -path ./kernel-patches -prune -o \( -name '*.[ch]' -o -name style.css \) -print | sort)" "./web/style.css"
units=$(cat "$root/usr/lib/systemd/system/bugbridged.service" "$root/usr/lib/systemd/system/bugbridge-runner.service" 2>/dev/null)
like "installs a systemd unit per daemon, pointing at PREFIX" "$units" "ExecStart=/usr/bin/bugbridge-runner"
