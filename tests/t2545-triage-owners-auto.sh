#!/bin/sh
# [triage] maintainers = auto: the MAINTAINERS file comes out of the
# kernel source tarball ([runner] kernel_source, extracted once into the
# cache), and a bug whose patch touches drivers/scsi/sd.c is owned by the
# SCSI subsystem's maintainers and linux-scsi, as in the real 6.1 file.
. "$(dirname "$0")/lib/test-lib.sh"
TARBALL=/usr/src/linux-source-6.1.tar.xz
[ -r "$TARBALL" ] || skip_all "no $TARBALL"
plan 5

write_config "$TMP/bb.conf" <<EOF
[tracker]
url = http://127.0.0.1:$(free_port)
retries = 0
[runner]
kernel_source = $TARBALL
[triage]
maintainers = auto
EOF
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
bb db migrate >/dev/null 2>&1
sql "INSERT INTO bugs (id, summary) VALUES (9370, 'sd: capacity');
INSERT INTO candidates (bug_id, source, kind, sha256, content) VALUES (9370, 'manual', 'patch',
	'x', '--- a/drivers/scsi/sd.c' || char(10) || '+++ b/drivers/scsi/sd.c' || char(10));"
bbd --once >"$TMP/bbd.log" 2>&1
is "bugbridged --once exits 0" "$?" 0
owners=$(sql "SELECT group_concat(address, '|') FROM bug_owners WHERE bug_id = 9370 AND kind = 'maintainer'")
like "James E.J. Bottomley owns sd.c" "$owners" "James E.J. Bottomley"
like "so does Martin K. Petersen" "$owners" "Martin K. Petersen"
like "the list is linux-scsi" "$(sql "SELECT group_concat(address) FROM bug_owners WHERE bug_id = 9370 AND kind = 'list'")" \
	"linux-scsi@vger.kernel.org"
unlike "not the catch-all linux-kernel list" \
	"$(sql "SELECT group_concat(address) FROM bug_owners WHERE bug_id = 9370")" "linux-kernel@vger"
done_testing
