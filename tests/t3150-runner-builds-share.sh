#!/bin/sh
# Builds share the CPUs, and a seed is built once (issue 33), on a stand-in
# kernel whose bzImage is eight jobs of 2 s, each noting how many of them
# run at once:
#   - a build alone gets every CPU, also with [runner] parallel = 2: its
#     log's first line says make runs up to $(nproc) jobs (a jobserver of
#     its own), and that many ran at once;
#   - a build that starts while another runs shares them: its line says
#     two builds, and the first's share shrinks (the runner says so);
#   - two runners whose jobs need the same missing seed build it once: the
#     second waits, says so in its job's progress and on its build stage,
#     then starts from the seed the first built.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/standin-kernel.sh"
standin_require

plan 12
NCPU=$(nproc)
# [runner] parallel = 2 gave every build make -j of half the CPUs, alone or not
standin_setup <<EOF
parallel = 2
EOF
# bzImage after eight jobs; each job marks itself running, counts the marks, sleeps;
# sd.o: the patched sd.c was compiled (else the job is untested)
T=$TMP/src/linux-source-6.1
cat >"$T/Makefile" <<'MK'
# a stand-in kernel (t3150): eight jobs of 2 s before the image
O ?= .
JOBS := j1 j2 j3 j4 j5 j6 j7 j8
kernelversion:
	@echo 6.1.999
tinyconfig:
	@mkdir -p $(O) && : >$(O)/.config
olddefconfig:
	@echo "olddefconfig: nothing to do"
$(JOBS):
	@mkdir -p $(O)/running && touch $(O)/running/$@ && \
	 echo "  CC      $@.o ($$(ls $(O)/running | wc -l) at once)" && \
	 sleep 2 && rm -f $(O)/running/$@
bzImage: $(JOBS)
	@mkdir -p $(O)/arch/x86/boot $(O)/include/generated $(O)/drivers/scsi
	@head -c 4096 /dev/zero >$(O)/arch/x86/boot/bzImage
	@echo '#define UTS_VERSION "#1 bugbridge"' >$(O)/include/generated/utsversion.h
	@: >$(O)/drivers/scsi/sd.o
	@echo "  LD      vmlinux"
MK
tar -C "$TMP/src" -cf "$TMP/linux.tar" linux-source-6.1
standin_patch one </dev/null
job_field() { sql "SELECT $2 FROM jobs WHERE id = $1"; }
peak() { sed -n 's/^  CC .*(\([0-9]*\) at once)$/\1/p' "$1" | sort -n | tail -1; }

# 1. alone: the base's seed (the job of --none) and its build log
id=$(bb job add --bug 9370 --none 2>/dev/null)
standin_run alone.log
log=$(job_field $id log_dir)/patched-build.log
like "a build alone: its log says make runs up to $NCPU jobs" "$(head -1 "$log")" \
	"^bugbridge: make runs up to $NCPU jobs at a time: this build's share of $NCPU CPUs \(1 build on this cache\)"
is "and that many ran at once" "$(peak "$log")" "$NCPU"

# 2. a build that starts while another runs: two builds share the CPUs
a=$(bb job add --bug 9370 --patch "$TMP/one.patch" 2>/dev/null)
b=$(bb job add --bug 9370 --patch "$TMP/one.patch" 2>/dev/null)
PATH="$TMP/bin:$PATH" timeout 300 "$BB_BUILD/bugbridge-runner" -v --job $a >"$TMP/a.log" 2>&1 &
pa=$!
i=0
while [ $i -lt 600 ] && ! grep -q "^  CC " "$(job_field $a log_dir)/patched-build.log" 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
PATH="$TMP/bin:$PATH" timeout 300 "$BB_BUILD/bugbridge-runner" --job $b >"$TMP/b.log" 2>&1
wait $pa
share=$(( (NCPU + 1) / 2 ))
like "the second build's log says two builds share the CPUs" \
	"$(head -1 "$(job_field $b log_dir)/patched-build.log")" \
	"^bugbridge: make runs up to $share jobs at a time: this build's share of $NCPU CPUs \(2 builds on this cache\)"
like "the first build's share followed" "$(cat "$TMP/a.log")" \
	"2 builds on this cache now: this one's share is $share of $NCPU CPUs"
is "both passed" "$(job_field $a verdict) $(job_field $b verdict)" "pass pass"

# 3. two runners, one missing seed: built once, the second waits for it
rm -rf "$TMP/cache/seed"
c=$(bb job add --bug 9370 --patch "$TMP/one.patch" 2>/dev/null)
d=$(bb job add --bug 9370 --patch "$TMP/one.patch" 2>/dev/null)
PATH="$TMP/bin:$PATH" timeout 300 "$BB_BUILD/bugbridge-runner" --job $c >"$TMP/c.log" 2>&1 &
pc=$!
i=0
while [ $i -lt 600 ] && [ ! -s "$(job_field $c log_dir)/seed-build.log" ]; do
	sleep 0.1; i=$((i + 1))
done
PATH="$TMP/bin:$PATH" timeout 300 "$BB_BUILD/bugbridge-runner" --job $d >"$TMP/d.log" 2>&1 &
pd=$!
seen=""
while kill -0 $pd 2>/dev/null; do
	p=$(job_field $d progress)
	case $p in *waiting*) seen=$p ;; esac
	sleep 0.2
done
wait $pc $pd
like "the second runner's progress said it waits for the seed" "$seen" \
	"^seed: build: waiting for the seed of linux-source-6.1 \(key [0-9a-f]+\) that job $c is building, [0-9]+ s so far"
like "and a note on its build stage says so" \
	"$(sql "SELECT group_concat(detail) FROM job_stages WHERE job_id = $d AND stage = 'build'")" \
	"waiting for the seed of linux-source-6.1 .* that job $c is building"
check "the first built the seed" test -s "$(job_field $c log_dir)/seed-build.log"
check "the second did not" test ! -e "$(job_field $d log_dir)/seed-build.log"
is "one seed was kept" "$(find "$TMP/cache/seed" -mindepth 1 -maxdepth 1 -type d | wc -l)" "1"
like "the second started from it" "$(cat "$TMP/d.log")" "patched: out/ seeded from"
is "both passed" "$(job_field $c verdict) $(job_field $d verdict)" "pass pass"

done_testing
