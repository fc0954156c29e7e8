#!/usr/bin/env python3
"""mutants.py: the mutation campaign over the I/O completion stack (issues 15, 24).

    mutants.py [--max N] [--only ID,...] [--fresh] [--report FILE] [--jobs N]

Generates the mutants (mutagen.py on top of kernel-patches/sr-sense-valid,
so that the base passes) as one mutant schemata patch: every mutant
compiled into one kernel, each behind `bb_mutant=N` on the kernel command
line (schemata.py).  Then everything goes through the real runner, with a
scratch database and [runner] reuse_kernels on:

  1. `bugbridge job add --series` of the sr fix plus the schemata patch,
     with `--boot-args bb_mutant=0`: the runner builds that kernel (and
     keeps it) and the whole suite must pass on it, no mutant chosen.
     If the build fails, the mutants whose copies the compiler named are
     dropped (counted as "did not compile") and the schemata made again.
     That run also has `bbsuite.reach=1`: each test says which mutated
     functions ran while it did, and the boot before the first test what
     ran at boot (schemata.py's bb_reached).
  2. a job per mutant, the same series with `--boot-args "bb_mutant=N
     bbsuite.stop=1 bbsuite.timeout=20 bbsuite.tests=..."`: the tests that
     ran its function in the clean run, and kernel-log-clean.  A test that
     never runs the function sees the same kernel as the clean run did, so
     it cannot kill the mutant; a function that runs at boot may have left
     any state behind it, so its mutants get every test (no bbsuite.tests).
     --all-tests gives every mutant every test. (the suite stops at its first
     failure: a kill needs one; a test stuck 20 s is one), --jobs runners
     at once (default 4): each boots the kept kernel, none builds.  A boot
     under TCG keeps one CPU about a third busy (the guest mostly waits on
     its devices' timers), so four at once on 2 CPUs finish sooner than
     two (measured: 22 mutants in 162 s against 228 s).  fail or panic = killed, boot-timeout = timed out
     (detected too), pass = survived.

The report (stdout and --report) is a table per function and one line per
survivor with its triage from kernel-patches/mutants/triage (equivalent,
with the argument why no device can observe it, or missing-test).  It
holds nothing that depends on timing, so two campaigns on the same tree
give the same report; the wall time is printed after it (and logged).

Results are kept per mutant under <cache>/mutants/results, keyed by the
mutant, the sr fix and every file of kernel-patches the verdict depends
on (suite, harness, configs): a campaign that was interrupted goes on
where it stopped, and --fresh runs everything again.

Environment: BB_BUILD (binaries, default ./build), BUGBRIDGE_MUTANTS_CACHE
(cache dir, default $XDG_CACHE_HOME/bugbridge), BB_MUTANTS_MAX (default
for --max), BB_MUTANTS_BOOT_TIMEOUT (a mutant boot's wall clock limit,
default 60 s: the whole suite takes 11-25 s, and a mutant that hangs the
whole guest, not just a test, is a kill; it should not cost two minutes).
"""
import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KP = os.path.dirname(HERE)
SRC = os.path.dirname(KP)
TARBALL = "/usr/src/linux-source-6.1.tar.xz"
SRFIX = os.path.join(KP, "sr-sense-valid")
TRIAGE = os.path.join(KP, "mutants", "triage")
DEFAULT_MAX = 440
# the suite stops at its first failure, and gives a stuck test 20 s (its
# slowest takes about 3 s under TCG; 90 s by default)
MUTANT_ARGS = "bb_mutant=%d bbsuite.stop=1 bbsuite.timeout=20"


def log(msg):
    print("# mutants: " + msg, file=sys.stderr, flush=True)


def cache_dir():
    d = os.environ.get("BUGBRIDGE_MUTANTS_CACHE")
    if not d:
        d = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                         os.path.expanduser("~/.cache"), "bugbridge")
    return os.path.abspath(d)


def series_patches(d):
    names = [l.split()[0] for l in open(os.path.join(d, "series")) if l.strip() and
             not l.startswith("#")]
    return [os.path.join(d, n) for n in names]


def mutated_files():
    files = {"drivers/scsi/scsi.c"}
    for line in open(os.path.join(HERE, "mutant-functions")):
        line = line.split("#", 1)[0].split()
        if line:
            files.add(line[0])
    return sorted(files)


def source_tree(cache, work):
    """A tree holding the files mutagen reads: the runner's extracted base
    when there is one, else just those files from the tarball."""
    files = mutated_files()
    base = os.path.join(cache, "base", "linux-source-6.1")
    if all(os.path.isfile(os.path.join(base, f)) for f in files):
        return base
    tree = os.path.join(work, "src")
    if not all(os.path.isfile(os.path.join(tree, f)) for f in files):
        os.makedirs(tree, exist_ok=True)
        subprocess.run(["tar", "-xJf", TARBALL, "-C", tree, "--strip-components=1"] +
                       ["linux-source-6.1/" + f for f in files], check=True)
    return tree


def tree_key():
    """Everything under kernel-patches a verdict depends on."""
    h = hashlib.sha256()
    for sub in ("suite", "harness", "configs", "sr-sense-valid"):
        for path in sorted(glob.glob(os.path.join(KP, sub, "*"))):
            h.update(os.path.relpath(path, KP).encode() + b"\0")
            h.update(open(path, "rb").read())
    return h.hexdigest()


def read_manifest(d):
    out = []
    for line in open(os.path.join(d, "manifest")):
        f = line.rstrip("\n").split("\t")
        out.append(dict(id=f[0], file=f[1], line=int(f[2]), func=f[3], op=f[4],
                        before=f[5], after=f[6]))
    return out


def read_tab(path):
    return [line.rstrip("\n").split("\t") for line in open(path)]


def read_triage():
    tri = {}
    if not os.path.exists(TRIAGE):
        return tri
    for line in open(TRIAGE):
        if not line.strip() or line.startswith("#"):
            continue
        mid, kind, why = (line.rstrip("\n").split(None, 2) + ["", ""])[:3]
        tri[mid] = (kind, why)
    return tri


class Runner:
    """A scratch database and configuration for bugbridge-runner."""

    def __init__(self, work, cache, build, patches=KP):
        self.work, self.build = work, build
        self.conf = os.path.join(work, "bb.conf")
        with open(self.conf, "w") as f:
            f.write("[db]\npath = %s\n[log]\nlevel = warn\n[runner]\n"
                    "cache_dir = %s\npatches_dir = %s\nflake_retries = 0\n"
                    "coverage = false\nreuse_kernels = true\nboot_timeout = %s\n" % (
                        os.path.join(work, "bb.db"), cache, patches,
                        os.environ.get("BB_MUTANTS_BOOT_TIMEOUT", "60")))
        self.env = dict(os.environ, BUGBRIDGE_CONFIG=self.conf)
        self.bb("db", "migrate")

    def bb(self, *args):
        r = subprocess.run([os.path.join(self.build, "bugbridge")] + list(args),
                           env=self.env, capture_output=True, text=True)
        if r.returncode:
            raise SystemExit("mutants: bugbridge %s: %s" % (" ".join(args), r.stderr))
        return r.stdout

    def add(self, series_dir, boot_args):
        return self.bb("job", "add", "--bug", "1", "--series", series_dir,
                       "--boot-args", boot_args).strip()

    def start(self, job, logf):
        return subprocess.Popen(["nice", os.path.join(self.build, "bugbridge-runner"),
                                 "--job", job], env=self.env, stdout=logf, stderr=logf)

    def show(self, job):
        return json.loads(self.bb("job", "show", job, "--json"))

    def run(self, series_dir, boot_args, logf):
        job = self.add(series_dir, boot_args)
        self.start(job, logf).wait()
        return self.show(job)


def reach_of(doc):
    """(set of functions run at boot, [(test, set of functions it ran)] in
    the suite's order) from a bbsuite.reach=1 job's diagnostics."""
    boot, tests = None, []
    for t in doc.get("test_results", []):
        if t["variant"] != "patched":
            continue
        ran = set()
        for line in (t.get("diagnostics") or "").split("\n"):
            if line.startswith("reach at boot:"):
                boot = set(line.split(":", 1)[1].split())
            elif line.startswith("reach:"):
                ran = set(line.split(":", 1)[1].split())
        tests.append((t["name"], ran))
    if boot is None:
        raise SystemExit("mutants: the clean run printed no reach (bbsuite.reach=1):"
                         " is it a schemata kernel?")
    return boot, tests


MAX_TESTS_ARG = 400     # bugbridge job add takes 512 bytes of boot arguments


def selection(func, reach):
    """The tests a mutant of func gets, or None: all of them."""
    boot, tests = reach
    if func in boot:
        return None
    sel = [name for name, ran in tests if func in ran and name != "kernel-log-clean"]
    sel.append("kernel-log-clean")
    return sel if len(",".join(sel)) <= MAX_TESTS_ARG else None


def boot_args(num, tests):
    return MUTANT_ARGS % num + (" bbsuite.tests=" + ",".join(tests) if tests else "")


def outcome(doc):
    v = doc.get("verdict") or "none"
    failed = sorted(t["name"] for t in doc.get("test_results", [])
                    if t["variant"] == "patched" and t["status"] not in ("pass", "skip"))
    status = {"pass": "survived", "fail": "killed", "panic": "killed",
              "boot-timeout": "timeout", "build-failed": "no-compile",
              "apply-failed": "no-apply"}.get(v, "error")
    built = any(st.get("stage") == "build" and st.get("status") == "ok"
                for st in doc.get("stages", []))
    return dict(status=status, verdict=v, failed=failed, built=built)


def generate(tree, mdir, limit, exclude):
    subprocess.run([sys.executable, os.path.join(HERE, "mutagen.py"), "--tree", tree,
                    "--out", mdir, "--max", str(limit), "--schemata",
                    "--exclude", ",".join(sorted(exclude))] +
                   sum((["--base-patch", p] for p in series_patches(SRFIX)), []),
                   check=True, stdout=subprocess.DEVNULL)


def schemata_series(work, mdir):
    """A series directory: the sr fix, then the schemata patch."""
    sdir = os.path.join(work, "series-schemata")
    shutil.rmtree(sdir, ignore_errors=True)
    os.makedirs(sdir)
    names = []
    for i, p in enumerate(series_patches(SRFIX) + [os.path.join(mdir, "schemata.patch")]):
        names.append("%04d-%s" % (i + 1, os.path.basename(p)[5:] if i < 1 else
                                  "mutant-schemata.patch"))
        shutil.copy(p, os.path.join(sdir, names[-1]))
    with open(os.path.join(sdir, "series"), "w") as f:
        f.write("\n".join(names) + "\n")
    return sdir


def not_compiled(detail, mdir):
    """Mutant ids whose copies the compiler's errors name."""
    spans = read_tab(os.path.join(mdir, "schemata.lines"))
    ids = dict(read_tab(os.path.join(mdir, "schemata")))
    bad = set()
    for f, line in re.findall(r"(drivers/scsi/[\w.]+\.c):(\d+):\d+: error", detail or ""):
        for n, sf, first, last in spans:
            if sf == f and int(first) <= int(line) <= int(last):
                bad.add(ids[n])
    return bad


def build_schemata(runner, tree, work, mdir, limit, logf):
    """Generate and build the schemata kernel; its clean run must pass.
    The mutants that did not compile, the series directory, and what each
    test of the clean run reached (reach_of)."""
    dropped = set()
    for _ in range(8):
        generate(tree, mdir, limit, dropped)
        sdir = schemata_series(work, mdir)
        doc = runner.run(sdir, "bb_mutant=0 bbsuite.reach=1", logf)
        if doc.get("verdict") == "pass":
            return dropped, sdir, reach_of(doc)
        bad = not_compiled(doc.get("verdict_detail"), mdir) \
            if doc.get("verdict") == "build-failed" else set()
        if not bad:
            raise SystemExit("mutants: the schemata kernel with bb_mutant=0 does not pass"
                             " (%s: %s): no campaign" % (doc.get("verdict"),
                                                       doc.get("verdict_detail")))
        log("did not compile, dropped: %s" % " ".join(sorted(bad)))
        dropped |= bad
    raise SystemExit("mutants: the schemata kernel still does not build")


def run_jobs(runner, sdir, items, jobs, logf):
    """Each (boot_args, done) of items as a job of the series sdir, jobs at
    once; done(the job's `job show`, seconds) as each ends."""
    running = []
    while items or running:
        while items and len(running) < jobs:
            args, done = items.pop(0)
            job = runner.add(sdir, args)
            running.append((job, done, runner.start(job, logf), time.time()))
        time.sleep(0.5)
        for item in list(running):
            job, done, proc, t0 = item
            if proc.poll() is None:
                continue
            running.remove(item)
            done(runner.show(job), round(time.time() - t0, 1))


def run_all(runner, todo, sdir, nums, jobs, logf, done):
    """Each (mutant, key, path, tests) of todo as a job; done(m, res)."""
    def finished(m, key, path, tests):
        def cb(doc, seconds):
            res = outcome(doc)
            res.update(key=key, seconds=seconds, tests=tests)
            if res["status"] != "error":
                with open(path + ".tmp", "w") as f:
                    json.dump(res, f, sort_keys=True)
                os.rename(path + ".tmp", path)
            done(m, res)
        return cb
    run_jobs(runner, sdir, [(boot_args(nums[m["id"]], tests), finished(m, key, path, tests))
                            for m, key, path, tests in todo], jobs, logf)


def check_selections(runner, sdir, sels, jobs, logf):
    """The selections (tuples of test names) whose tests, run alone on the
    kernel without a mutant, do not all pass: a test that needs what an
    earlier one left behind would fail alone, and that must not count as a
    kill.  Their mutants get the whole suite instead."""
    bad = set()

    def finished(sel):
        def cb(doc, seconds):
            if doc.get("verdict") != "pass":
                log("selection %s fails without a mutant (%s): its mutants get every test"
                    % (",".join(sel), ", ".join(outcome(doc)["failed"]) or doc.get("verdict")))
                bad.add(sel)
        return cb
    run_jobs(runner, sdir, [(boot_args(0, list(sel)), finished(sel)) for sel in sorted(sels)],
             jobs, logf)
    return bad


COLUMNS = ("killed", "timeout", "survived", "equivalent", "no-compile", "error")


def report(mutants, results, triage):
    rows, survivors = {}, []
    for m in mutants:
        r = results[m["id"]]
        st = r["status"]
        if st == "survived" and triage.get(m["id"], ("",))[0] == "equivalent":
            st = "equivalent"
        if st == "no-apply":
            st = "error"
        row = rows.setdefault(m["func"], dict.fromkeys(COLUMNS, 0))
        row[st] += 1
        if r["status"] == "survived":
            survivors.append((m, triage.get(m["id"], ("untriaged", ""))))
    out = ["%-30s %7s %7s %8s %10s %10s %5s" % (("function",) + COLUMNS)]
    total = dict.fromkeys(COLUMNS, 0)
    for func in sorted(rows):
        out.append("%-30s %7d %7d %8d %10d %10d %5d" % ((func,) + tuple(rows[func][c]
                                                                     for c in COLUMNS)))
        for c in COLUMNS:
            total[c] += rows[func][c]
    out.append("%-30s %7d %7d %8d %10d %10d %5d" % (("total",) + tuple(total[c]
                                                                    for c in COLUMNS)))
    compiled = sum(total[c] for c in ("killed", "timeout", "survived", "equivalent"))
    judged = compiled - total["equivalent"]
    detected = total["killed"] + total["timeout"]
    out.append("")
    out.append("generated %d, compiled %d, did not compile %d, errors %d" % (
        len(mutants), compiled, total["no-compile"], total["error"]))
    out.append("killed %d (of which timed out %d) of %d non-equivalent: %.1f%%; "
               "survived %d, equivalent %d" % (
                   detected, total["timeout"], judged,
                   100.0 * detected / judged if judged else 0.0,
                   total["survived"], total["equivalent"]))
    ran = [r.get("tests") for r in (results[m["id"]] for m in mutants)
           if r["status"] != "no-compile"]
    some = sorted(len(t) for t in ran if t)
    out.append("tests per mutant: %d got the whole suite (their function runs at boot),"
               " %d only the tests that run their function (%s)" % (
                   sum(1 for t in ran if not t), len(some),
                   "%d to %d, median %d" % (some[0], some[-1], some[len(some) // 2])
                   if some else "none"))
    out.append("")
    out.append("survivors (triage: kernel-patches/mutants/triage):")
    for m, (kind, why) in survivors:
        out.append("  %s %s:%d %s: %s  =>  %s" % (m["id"], os.path.basename(m["file"]),
                                                  m["line"], m["op"], m["before"], m["after"]))
        out.append("      %s%s" % (kind, ": " + why if why else ""))
    return "\n".join(out) + "\n", total, judged, detected


def snapshot_of(work, live):
    """The kernel-patches the campaign judges: one version of the suite even
    if the tree moves on, at one fixed path (the runner's seed key hashes
    the paths of the config fragments and the harness: a new path would be
    a cold build)."""
    key = tree_key()
    if live:
        return KP, key
    snapshot = os.path.join(work, "kernel-patches")
    stamp = os.path.join(snapshot, ".bb-key")
    if not os.path.exists(stamp) or open(stamp).read() != key:
        subprocess.run(["rm", "-rf", snapshot], check=True)
        shutil.copytree(KP, snapshot)
        with open(stamp, "w") as f:
            f.write(key)
    return snapshot, key


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=int(os.environ.get("BB_MUTANTS_MAX",
                                                                  DEFAULT_MAX)))
    ap.add_argument("--only", default="")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--report")
    ap.add_argument("--jobs", type=int, default=4, help="runners at once (QEMU boots)")
    ap.add_argument("--all-tests", action="store_true",
                    help="every mutant gets the whole suite, not only the tests that reach it")
    ap.add_argument("--live", action="store_true",
                    help="run on kernel-patches itself, not a snapshot (its seed is the tests')")
    args = ap.parse_args()

    t_start = time.time()
    build = os.path.abspath(os.environ.get("BB_BUILD", os.path.join(SRC, "build")))
    cache = cache_dir()
    work = os.path.join(cache, "mutants")
    results = os.path.join(work, "results")
    os.makedirs(results, exist_ok=True)
    mdir = os.path.join(work, "generated")
    snapshot, key_base = snapshot_of(work, args.live)
    dbdir = tempfile.mkdtemp(prefix="run-", dir=work)
    runner = Runner(dbdir, cache, build, patches=snapshot)
    logf = open(os.path.join(dbdir, "runner.log"), "a")
    tree = source_tree(cache, work)
    dropped, sdir, reach = build_schemata(runner, tree, work, mdir, args.max, logf)
    log("the schemata kernel (bb_mutant=0) passes the suite; built and run in %.0f s" % (
        time.time() - t_start))
    generate(tree, os.path.join(work, "all"), args.max, set())
    mutants = read_manifest(os.path.join(work, "all"))
    nums = {mid: int(n) for n, mid in read_tab(os.path.join(mdir, "schemata"))}
    if args.only:
        want = set(args.only.replace(",", " ").split())
        mutants = [m for m in mutants if m["id"] in want]
        missing = want - {m["id"] for m in mutants}
        if missing:
            raise SystemExit("mutants: no such mutant: %s" % " ".join(sorted(missing)))
    chosen = {m["id"]: None if args.all_tests else selection(m["func"], reach)
              for m in mutants}
    sels = {tuple(t) for t in chosen.values() if t}
    bad_sels = check_selections(runner, sdir, sels, args.jobs, logf)
    log("%d selections of tests run alone without a mutant: %d pass" % (
        len(sels), len(sels) - len(bad_sels)))
    res, todo = {}, []
    for m in sorted(mutants, key=lambda m: m["id"].split("-")[-1]):
        if m["id"] in dropped:
            res[m["id"]] = dict(status="no-compile", verdict="build-failed", failed=[])
            continue
        patch = open(os.path.join(work, "all", m["id"] + ".patch")).read()
        tests = chosen[m["id"]]
        if tests and tuple(tests) in bad_sels:
            tests = None
        key = hashlib.sha256((key_base + "schemata\0" + patch + "\0" +
                              ",".join(tests or ["all"])).encode()).hexdigest()
        path = os.path.join(results, m["id"] + ".json")
        old = json.load(open(path)) if os.path.exists(path) and not args.fresh else {}
        if old.get("key") == key:
            res[m["id"]] = old
        else:
            todo.append((m, key, path, tests))
    kept, t_runs = len(res), time.time()
    log("%d mutants, %d kept from earlier runs, %d to run, %d at once" % (
        len(mutants), kept, len(todo), args.jobs))

    def done(m, r):
        res[m["id"]] = r
        log("%d/%d %s: %s%s (%.0f s)" % (len(res), len(mutants), m["id"], r["status"],
                                         " (%s)" % ", ".join(r["failed"][:3])
                                         if r["failed"] else "", r["seconds"]))

    run_all(runner, todo, sdir, nums, args.jobs, logf, done)
    built = [mid for mid in res if res[mid].get("built")]
    if built:
        log("%d mutant jobs built a kernel instead of booting the kept one: %s" % (
            len(built), " ".join(sorted(built)[:5])))
    text, total, judged, detected = report(mutants, res, read_triage())
    sys.stdout.write(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    wall = time.time() - t_start
    print("wall time %.0f s (%.1f min): the schemata kernel and its clean run %.0f s, "
          "%d mutant runs %.0f s with %d at once" % (
              wall, wall / 60, t_runs - t_start, len(mutants) - kept, time.time() - t_runs,
              args.jobs))
    logf.close()
    shutil.rmtree(dbdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
