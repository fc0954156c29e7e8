# standin-kernel.sh: a stand-in kernel tarball and a stand-in QEMU, so that a
# runner test of what the runner does with a build's or a guest's output
# runs in seconds instead of a kernel build.  Source after test-lib.sh.
#
#   standin_require   skip_all without busybox (the initramfs) or gcc (the suite)
#   standin_setup [config lines on stdin]
#                     $TMP/linux.tar: a tree whose Makefile answers
#                     kernelversion (6.1.999), tinyconfig, olddefconfig and
#                     bzImage (a 4 KiB "kernel", utsversion.h, sd.o: the
#                     patched sd.c was compiled, sd.gcno) and
#                     whose scripts/kconfig/merge_config.sh appends the
#                     fragments; $TMP/bin/qemu-system-x86_64, which logs its
#                     argv to $TMP/qemu.args and prints a console with one
#                     passing KTAP test and a gcov block for drivers/scsi/sd.gcda;
#                     a copy of kernel-patches with a one-boot scenarios file;
#                     the config ([runner] sandbox = none, unconfined: the
#                     stand-in QEMU must be found on PATH, which bwrap's root
#                     does not hold; build and boot still run as the build
#                     user when the test is root) and the migrated database.
#   standin_patch NAME < Makefile-sed-script
#                     $TMP/NAME.patch: sd.c and Kconfig changed (so the job
#                     configures, not only checks the seed's .config), and the
#                     Makefile changed by the sed script (the attack)
#   standin_run LOG   bugbridge-runner --once (at most 300 s: a hang fails)
#   standin_capped LOG MAX MINCUT FIRST LAST
#                     4 checks of a flood's log under max_build_log = MAX: at
#                     most MAX bytes (and a few), a line saying at least MINCUT
#                     were cut, and the lines starting FIRST and LAST kept

standin_require() {
	[ -x /bin/busybox ] || skip_all "no busybox-static"
	command -v gcc >/dev/null || skip_all "no gcc"
}

_standin_tree() {
	_t=$TMP/src/linux-source-6.1
	mkdir -p "$_t/drivers/scsi" "$_t/scripts/kconfig"
	cat >"$_t/Makefile" <<'MK'
# a stand-in kernel (tests/lib/standin-kernel.sh)
O ?= .
kernelversion:
	@echo 6.1.999
tinyconfig:
	@mkdir -p $(O) && : >$(O)/.config
olddefconfig:
	@echo "olddefconfig: nothing to do"
bzImage:
	@mkdir -p $(O)/arch/x86/boot $(O)/include/generated $(O)/drivers/scsi
	@head -c 4096 /dev/zero >$(O)/arch/x86/boot/bzImage
	@echo '#define UTS_VERSION "#1 bugbridge"' >$(O)/include/generated/utsversion.h
	@: >$(O)/drivers/scsi/sd.gcno
	@: >$(O)/drivers/scsi/sd.o
	@echo "  LD      vmlinux"
	@echo "Kernel: arch/x86/boot/bzImage is ready"
MK
	cat >"$_t/scripts/kconfig/merge_config.sh" <<'SH'
# stand-in: -m -O DIR CONFIG FRAGMENT...: the fragments appended to CONFIG
shift 3
cfg=$1
shift
cat "$@" >>"$cfg"
SH
	printf 'int sd;\n' >"$_t/drivers/scsi/sd.c"
	printf 'config SCSI_SD\n' >"$_t/drivers/scsi/Kconfig"
	tar -C "$TMP/src" -cf "$TMP/linux.tar" linux-source-6.1
}

_standin_qemu() {
	mkdir -p "$TMP/bin"
	: >"$TMP/qemu.args"
	chmod 666 "$TMP/qemu.args"
	cat >"$TMP/bin/qemu-system-x86_64" <<SH
#!/bin/sh
# stand-in QEMU: the guest's console
echo "\$*" >>$TMP/qemu.args
echo "Linux version 6.1.999 (bugbridge@runner) #1 bugbridge"
printf 'KTAP version 1\n1..1\nok 1 standin-test\n'
printf '#bbgcov file drivers/scsi/sd.gcda 4\n#g Z2NkYQ==\n#bbgcov end\n'
SH
	chmod 755 "$TMP/bin/qemu-system-x86_64"
}

standin_setup() {
	chmod 755 "$TMP"	# the build user walks into the job's tree
	_standin_tree
	_standin_qemu
	mkdir -p "$TMP/kp" "$TMP/cache"
	cp -r "$BB_SRC/kernel-patches/configs" "$BB_SRC/kernel-patches/suite" "$TMP/kp/"
	printf 'version 1\nboot all\n  timeout 60\n  test standin-test\n' >"$TMP/kp/suite/scenarios"
	{
		echo "[runner]"
		echo "cache_dir = $TMP/cache"
		echo "patches_dir = $TMP/kp"
		echo "kernel_source = $TMP/linux.tar"
		echo "sandbox = none"
		echo "unconfined = true"
		echo "accel = tcg"
		echo "flake_retries = 0"
		echo "max_attempts = 1"
		cat
	} | write_config "$TMP/bb.conf"
	export BUGBRIDGE_CONFIG="$TMP/bb.conf"
	bb db migrate >/dev/null 2>&1 || { echo "Bail out! cannot migrate"; exit 1; }
}

standin_patch() {
	rm -rf "$TMP/p"
	mkdir -p "$TMP/p/a/drivers/scsi"
	cp "$TMP/src/linux-source-6.1/Makefile" "$TMP/p/a/Makefile"
	cp "$TMP/src/linux-source-6.1/drivers/scsi/sd.c" "$TMP/src/linux-source-6.1/drivers/scsi/Kconfig" \
		"$TMP/p/a/drivers/scsi/"
	cp -r "$TMP/p/a" "$TMP/p/b"
	sed -f /dev/stdin "$TMP/p/a/Makefile" >"$TMP/p/b/Makefile"
	printf 'int patched;\n' >>"$TMP/p/b/drivers/scsi/sd.c"
	printf '\thelp\n\t  changed\n' >>"$TMP/p/b/drivers/scsi/Kconfig"	# so the job configures
	(cd "$TMP/p" && diff -ru a b) >"$TMP/$1.patch"
}

standin_run() {
	PATH="$TMP/bin:$PATH" timeout 300 "$BB_BUILD/bugbridge-runner" --once >"$TMP/$1" 2>&1
}

standin_capped() {
	_size=$(wc -c <"$1")
	check "the log is bounded by max_build_log ($2): $_size bytes" [ "$_size" -le $(($2 + 4096)) ]
	_cut=$(sed -n "s/^\[bugbridge: \([0-9]*\) bytes of output cut here: .*max_build_log keeps the first and last $(($2 / 2))\]\$/\1/p" "$1")
	check "a line says how much was cut: $_cut bytes" [ "${_cut:-0}" -ge "$3" ]
	check "the log keeps the output's start" grep -q "^$4" "$1"
	check "and its end" grep -q "^$5" "$1"
}
