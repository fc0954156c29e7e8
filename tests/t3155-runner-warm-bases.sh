#!/bin/sh
# `bugbridge-runner --warm` seeds every kept base (issue 33), so that a
# back-test on the other series never builds cold: on stand-in 6.1 and 6.12
# tarballs, one --warm builds both seeds, each announced with an estimate
# (the first from the processors, the second from this host's rate on the
# first); run again it says both are built; with one seed gone it builds
# that one, as long as its last full build; a job on 6.12 then starts from
# its seed.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin-kernel.sh"
standin_require

plan 11
standin_setup <<EOF
kernel_source = $TMP/linux-{series}.tar
bases = 6.1, 6.12
EOF
# a build of a few objects that takes a second: something to measure
sed -i 's/^\t@echo "  LD      vmlinux"$/\t@for o in a b c; do echo "  CC      $$o.o"; done; sleep 1\n&/' \
	"$TMP/src/linux-source-6.1/Makefile"
tar -C "$TMP/src" -cf "$TMP/linux-6.1.tar" linux-source-6.1
cp -R "$TMP/src/linux-source-6.1" "$TMP/src/linux-source-6.12"
sed -i 's/@echo 6\.1\.999/@echo 6.12.999/' "$TMP/src/linux-source-6.12/Makefile"
tar -C "$TMP/src" -cf "$TMP/linux-6.12.tar" linux-source-6.12
warm() { PATH="$TMP/bin:$PATH" timeout 300 "$BB_BUILD/bugbridge-runner" --warm 2>&1; }
seeds() { find "$TMP/cache/seed" -mindepth 1 -maxdepth 1 -type d | wc -l; }

out=$(warm)
is "--warm exits 0" "$?" "0"
like "it builds 6.1's seed, its estimate from the processors" "$out" \
	"building the seed of 6\.1\.999 \(base config with gcov\): about [0-9]+ min [0-9]+ s \(estimated from the number of processors\)"
like "then 6.12's, from this host's rate on 6.1" "$out" \
	"building the seed of 6\.12\.999 \(base config with gcov\): about [0-9]+ min [0-9]+ s \(from this host's rate: [0-9]+ objects of linux-source-6\.1 in [0-9]+ s\)"
is "two seeds are kept" "$(seeds)" "2"

out=$(warm)
like "again: 6.1's is built" "$out" "the seed of 6\.1\.999 is built"
like "and 6.12's" "$out" "the seed of 6\.12\.999 is built"
unlike "nothing was built" "$out" "building the seed"

for s in "$TMP"/cache/seed/*; do
	[ -d "$s" ] && grep -q "6\.12\.999" "$s.parts" && rm -rf "$s"
done
out=$(warm)
like "one gone: it is built again, as long as its last full build" "$out" \
	"building the seed of 6\.12\.999 \(base config with gcov\): about [0-9]+ min [0-9]+ s \(as long as the last full build on this cache\)"
is "both are kept again" "$(seeds)" "2"

id=$(bb job add --bug 9370 --none --base 6.12 2>/dev/null)
standin_run job.log
is "a job on 6.12 then passes" "$(sql "SELECT verdict FROM jobs WHERE id = $id")" "pass"
like "from 6.12's seed" "$(cat "$TMP/job.log")" "patched: out/ seeded from"

done_testing
