#!/bin/sh
# bench-runner.sh: the runner's figures, under TCG (and KVM where a probe
# boot works), printed as "name: value" lines:
#   cold build           build stage of a job on an empty cache (no seed, no ccache)
#   incremental build    build stage of a second job with a one-file patch
#                        (kernel-patches/sr-sense-valid), seeded from the first
#   boot to first test   QEMU start to the guest's "KTAP version 1" line
#   whole suite          QEMU start to QEMU exit for the full suite
#   gcov (reach)         the same one-file patch with [runner] coverage on:
#                        configure, build, boot and test stages with gcov for
#                        drivers/scsi, against the figures without it
#   boot+suite per shard count
#                        the boot stage of a job of stock 6.1 (--none: its
#                        sr-capacity fails, so its re-runs are in it) with
#                        [runner] shards = 1, 2, 3, 4, 6 and the runner's own
#                        choice (0): the guests booted at once, the suite
#                        split among them, the results merged
#   floor: boot to /init one bare QEMU of the same kernel whose /init
#                        reboots at once
#
# The cold build is the seed of linux-source-6.1 on an empty cache and
# ccache: what a fresh machine's first job builds.
#
#   BENCH_CACHE   scratch cache dir (default /var/tmp/bugbridge-bench; wiped)
#   BB_BUILD      binaries (default ./build)
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BB_BUILD=${BB_BUILD:-$SRC/build}
CACHE=${BENCH_CACHE:-/var/tmp/bugbridge-bench}
. "$SRC/tools/benchlib.sh"
bench_setup "$CACHE" </dev/null
export BUGBRIDGE_KEEP_TREES=1
bb db migrate >/dev/null 2>&1

stage() { q "SELECT printf('%.1f s', finished_at - started_at) FROM job_stages
	WHERE job_id = $1 AND variant = 'patched' AND stage = '$2' ORDER BY id DESC LIMIT 1"; }

echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
j1=$(bb job add --bug 9370 --none 2>/dev/null)
BUGBRIDGE_RUNNER_COVERAGE=false "$BB_BUILD/bugbridge-runner" --once 2>"$WORK/r1.log"
j2=$(bb job add --bug 9370 --series "$SRC/kernel-patches/sr-sense-valid" 2>/dev/null)
BUGBRIDGE_RUNNER_COVERAGE=false "$BB_BUILD/bugbridge-runner" --once 2>"$WORK/r2.log"

# commentary lines start with '#': bench.sh takes only "name: number unit"
echo "# accel $(q "SELECT accel FROM jobs WHERE id = $j1"), kernel $(q "SELECT kernel_version FROM jobs WHERE id = $j1"), $(nproc) CPUs"
echo "# the unpatched base's verdict: $(q "SELECT verdict FROM jobs WHERE id = $j1") (sr-capacity fails on 6.1: the live bug)"
echo "cold build (the seed of linux-source-6.1, empty cache and ccache): $(stage $j1 build)"
echo "incremental build after a one-file patch: $(stage $j2 build)"
echo "configure, cold: $(stage $j1 configure)"
echo "configure, seeded: $(stage $j2 configure)"
echo "tree from the baseline (apply stage): $(stage $j2 apply)"

# The reach (issue 15): the same patch with gcov for drivers/scsi.
j3=$(bb job add --bug 9370 --series "$SRC/kernel-patches/sr-sense-valid" 2>/dev/null)
BUGBRIDGE_RUNNER_COVERAGE=true "$BB_BUILD/bugbridge-runner" --once 2>"$WORK/r3.log"
echo "# reach of job $j3: $(q "SELECT reach FROM jobs WHERE id = $j3")"
for st in configure build boot test; do
	echo "$st stage without gcov: $(stage $j2 $st)"
	echo "$st stage with gcov (coverage on): $(stage $j3 $st)"
done

# The suite over 1..6 guests at once, and the runner's own choice (0).
for k in 1 2 3 4 6 0; do
	j=$(bb job add --bug 9370 --none 2>/dev/null)
	BUGBRIDGE_RUNNER_COVERAGE=false BUGBRIDGE_RUNNER_SHARDS=$k \
		"$BB_BUILD/bugbridge-runner" --once 2>"$WORK/shards$k.log"
	n=$(grep -c '^\[bugbridge: shard' "$(q "SELECT log_dir FROM jobs WHERE id = $j")/patched-console-all.log" || :)
	echo "# shards=$k: $(q "SELECT verdict FROM jobs WHERE id = $j"), load $(cut -d' ' -f1 /proc/loadavg)"
	if [ "$k" = 0 ]; then
		echo "boot+suite (stock 6.1, its re-runs), the runner's choice: ${n:-0} guests: $(stage $j boot)"
	else
		echo "boot+suite (stock 6.1, its re-runs), $k guests at once: $(stage $j boot)"
	fi
done

dir=$(ls -d "$CACHE"/jobs/$j2-a1-*)
python3 - "$dir" "$SRC/kernel-patches/suite/scenarios" <<'EOF2'
import os, re, subprocess, sys, time
jobdir, scen = sys.argv[1], sys.argv[2]
images = os.path.join(jobdir, "patched", "images")
cmdline, qemu, boots = [], [], 0
for line in open(scen):
    t = line.split()
    if not t or t[0].startswith("#"):
        continue
    # the first boot ("all", the suite) only: the controllers' boots are guests of their own
    boots += t[0] == "boot"
    if boots > 1:
        break
    if t[0] == "cmdline":
        cmdline += t[1:]
    elif t[0] == "qemu":
        # @NAME@ is the job's image NAME, as the runner made it
        qemu += [re.sub(r"@(\w+)@", lambda m: os.path.join(images, m.group(1) + ".img"), a)
                 for a in t[1:]]
argv = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512", "-smp", "1",
        # the runner's machine: no default devices, no network
        "-nodefaults", "-nic", "none", "-display", "none", "-serial", "stdio", "-monitor", "none",
        "-no-reboot", "-kernel", os.path.join(jobdir, "patched/tree/out/arch/x86/boot/bzImage"),
        "-initrd", os.path.join(jobdir, "initramfs.cpio"), "-append",
        " ".join(["console=ttyS0", "panic=-1", "oops=panic", "loglevel=7"] + cmdline)] + qemu
# the floor: the same kernel to /init (an initramfs whose /init reboots at once)
probe = os.path.join(jobdir, "init-only.cpio")
tmp = os.path.join(jobdir, "init-only")
os.makedirs(os.path.join(tmp, "bin"), exist_ok=True)
os.makedirs(os.path.join(tmp, "dev"), exist_ok=True)
subprocess.run(["cp", "/bin/busybox", os.path.join(tmp, "bin/busybox")], check=True)
with open(os.path.join(tmp, "init"), "w") as f:
    f.write("#!/bin/busybox sh\n/bin/busybox reboot -f\n")
os.chmod(os.path.join(tmp, "init"), 0o755)
subprocess.run("cd %s && find . | cpio -o -H newc >%s 2>/dev/null" % (tmp, probe), shell=True, check=True)
a = list(argv)
a[a.index("-initrd") + 1] = probe
start = time.monotonic()
subprocess.run(a, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=300)
print("floor: boot to /init, bare QEMU (tcg): %.1f s" % (time.monotonic() - start))
start = time.monotonic()
p = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
first = None
for line in p.stdout:
    if first is None and b"KTAP version" in line:
        first = time.monotonic() - start
p.wait()
total = time.monotonic() - start
print("boot to first test line (tcg): %.1f s" % (first if first else float("nan")))
print("floor: boot and whole suite, one bare QEMU (tcg): %.1f s" % total)
EOF2
