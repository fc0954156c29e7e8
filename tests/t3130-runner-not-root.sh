#!/bin/sh
# A runner that is not root still confines what it runs: bwrap maps its
# uid to 65534 in a user namespace.  The runner runs as a uid of its own
# (no passwd entry) on a small stand-in kernel tarball whose `make
# tinyconfig` recipe (the code every configure runs) probes the sandbox:
# it must run as 65534, without the database, with the tree read-only.
# The candidate patch applies in the sandbox first.  Nothing is built: the
# recipe fails on purpose, so the job is an infra-error.
. "$(dirname "$0")/lib/test-lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root to start the runner as another uid"
command -v bwrap >/dev/null || skip_all "no bwrap"
RUID=$((56000 + $$ % 4000))
setpriv --reuid=$RUID --regid=$RUID --clear-groups -- bwrap --unshare-user --unshare-net \
	--ro-bind / / true 2>/dev/null || skip_all "no user namespaces for an unprivileged uid"

plan 8
mkdir -p "$TMP/src/linux-source-6.1/drivers/scsi" "$TMP/kp" "$TMP/cache"
DB=$TMP/bugbridge.db
tab=$(printf '\t')
cat >"$TMP/src/linux-source-6.1/Makefile" <<MK
# a stand-in kernel (t3130)
kernelversion:
${tab}@echo 6.1.999
tinyconfig:
${tab}@echo "probe: uid=\$\$(id -u)"
${tab}@cat $DB >/dev/null 2>&1 && echo "probe: READ the database" || echo "probe: no database"
${tab}@echo x >>$DB 2>/dev/null && echo "probe: WROTE the database" || echo "probe: database not writable"
${tab}@echo x >>/bb/src/Makefile 2>/dev/null && echo "probe: WROTE the tree" || echo "probe: tree read-only"
${tab}@false
MK
printf 'int sd;\n' >"$TMP/src/linux-source-6.1/drivers/scsi/sd.c"
tar -C "$TMP/src" -cf "$TMP/linux.tar" linux-source-6.1
cp -r "$BB_SRC/kernel-patches/configs" "$BB_SRC/kernel-patches/suite" "$TMP/kp/"
cat >"$TMP/probe.patch" <<PATCH
--- a/drivers/scsi/sd.c
+++ b/drivers/scsi/sd.c
@@ -1 +1,2 @@
 int sd;
+int patched;
PATCH
write_config "$TMP/bb.conf" <<CONF
[runner]
cache_dir = $TMP/cache
patches_dir = $TMP/kp
kernel_source = $TMP/linux.tar
coverage = false
max_attempts = 1
CONF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
bb db migrate >/dev/null 2>&1
id=$(bb job add --bug 9370 --patch "$TMP/probe.patch" 2>/dev/null)
chown -R $RUID:$RUID "$TMP"
setpriv --reuid=$RUID --regid=$RUID --clear-groups -- env HOME="$TMP" \
	"$BB_BUILD/bugbridge-runner" --once >"$TMP/runner.log" 2>&1
is "the runner ran as uid $RUID and exited 0" "$?" "0"
logs=$(sql "SELECT log_dir FROM jobs WHERE id = $id")
check "the patch applied, in the sandbox" grep -q "patching file drivers/scsi/sd.c" "$logs/patched-apply.log"
clog=$(ls "$logs"/*-configure.log | head -1)
check "the recipe ran as 65534, not as the runner's uid" grep -q "probe: uid=65534" "$clog"
check "it saw no database" grep -q "probe: no database" "$clog"
check "nor wrote it" grep -q "probe: database not writable" "$clog"
check "and the tree was read-only" grep -q "probe: tree read-only" "$clog"
is "the job is an infra-error (configure failed), as the recipe made it" \
	"$(sql "SELECT verdict FROM jobs WHERE id = $id")" "infra-error"
# (zombies run nothing: this host's PID 1 reaps orphans lazily)
is "nothing of the runner's uid is left" "$(ps -u "$RUID" -o stat= -o pid= -o args= | grep -v '^Z' | head -3)" ""

done_testing
