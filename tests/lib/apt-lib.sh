# apt-lib.sh: a local apt archive of small linux-source packages, so that
# the fetch path (apt-cache madison, apt-get download, dpkg-deb) runs for
# real without the network or 140 MB packages.  Source after test-lib.sh.
#
#   apt_fake_tarball SERIES VERSION OUT   a tarball shaped like Debian's:
#       linux-source-SERIES/ with a Makefile whose `make -s kernelversion`
#       prints VERSION and 1 MiB of random bytes (so sizes count)
#   apt_fake_package SERIES DEBVERSION    linux-source-SERIES=DEBVERSION
#       (its kernel: DEBVERSION without the Debian revision) in the archive
#   apt_fake_publish                      index the archive, point apt at it
#       (APT_CONFIG, exported: apt-get and apt-cache in this test and the
#       programs it starts see this archive only) and read its index
APT_ROOT=$TMP/apt

apt_fake_tarball() {
	_d=$TMP/apt-src.$$
	rm -rf "$_d"
	mkdir -p "$_d/linux-source-$1" "$(dirname "$3")"
	printf 'kernelversion:\n\t@echo %s\n' "$2" >"$_d/linux-source-$1/Makefile"
	head -c 1048576 /dev/urandom >"$_d/linux-source-$1/filler"
	tar -C "$_d" -cJf "$3" "linux-source-$1"
	rm -rf "$_d"
}

apt_fake_package() {
	_p=$TMP/apt-pkg.$$
	rm -rf "$_p"
	mkdir -p "$_p/DEBIAN" "$APT_ROOT/repo"
	apt_fake_tarball "$1" "${2%-*}" "$_p/usr/src/linux-source-$1.tar.xz"
	printf 'Package: linux-source-%s\nVersion: %s\nArchitecture: all\nMaintainer: t <t@example.com>\nDescription: a stand-in\n' \
		"$1" "$2" >"$_p/DEBIAN/control"
	dpkg-deb -b -Zgzip "$_p" "$APT_ROOT/repo/linux-source-$1_$2_all.deb" >/dev/null
	rm -rf "$_p"
}

apt_fake_publish() {
	mkdir -p "$APT_ROOT/state/lists/partial" "$APT_ROOT/cache/archives/partial" \
		"$APT_ROOT/etc"
	: >"$APT_ROOT/status"
	(cd "$APT_ROOT/repo" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null)
	echo "deb [trusted=yes] file:$APT_ROOT/repo ./" >"$APT_ROOT/etc/sources.list"
	cat >"$APT_ROOT/apt.conf" <<EOF
Dir::Etc::sourcelist "$APT_ROOT/etc/sources.list";
Dir::Etc::sourceparts "$APT_ROOT/etc";
Dir::State "$APT_ROOT/state";
Dir::State::status "$APT_ROOT/status";
Dir::Cache "$APT_ROOT/cache";
Debug::NoLocking "true";
APT::Sandbox::User "$(id -un)";
EOF
	export APT_CONFIG="$APT_ROOT/apt.conf"
	apt-get update -q >"$APT_ROOT/update.log" 2>&1
}
