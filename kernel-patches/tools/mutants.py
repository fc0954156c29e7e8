#!/usr/bin/env python3
"""mutants.py: the mutation campaign over the I/O completion stack (issues 15, 24, 32).

    mutants.py [--cap N] [--seed S] [--file F]... [--only ID,...] [--fresh]
               [--report FILE] [--jobs N] [--stop]

Generates the mutants of every function tools/mutant-functions lists (the
code, derived by mutant-scope.py: its --check runs first and the campaign
refuses a list that disagrees with the code), at most --cap per function,
sampled by --seed (mutagen.py), on top of kernel-patches/sr-sense-valid so
that the base passes, as one mutant schemata patch: every mutant compiled
into one kernel, each behind `bb_mutant=N` on the kernel command line
(schemata.py).  Then everything goes through the real runner, with a
scratch database and [runner] reuse_kernels on:

  1. `bugbridge job add --series` of the sr fix plus the schemata patch,
     with `--boot-args bb_mutant=0`: the runner builds that kernel (and
     keeps it) and the whole suite must pass on it, no mutant chosen.
     If the build fails, the mutants whose copies the compiler named are
     dropped (counted as "did not compile") and the schemata made again.
     That run also has `bbsuite.reach=1`: each test says which mutated
     functions ran while it did, and the boot before the first test what
     ran at boot (schemata.py's bb_reached, a bitmap over schemata.funcs).
  2. a job per mutant, the same series with `--boot-args "bb_mutant=N
     bbsuite.timeout=20 bbsuite.tests=..."`: the tests that ran its
     function in the clean run, and kernel-log-clean.  A test that never
     runs the function sees the same kernel as the clean run did, so it
     cannot kill the mutant; a function that runs at boot may have left
     any state behind it, so its mutants get every test (no bbsuite.tests);
     --all-tests gives every mutant every test.  A function that ran
     neither at boot nor in any test cannot be reached by its mutant
     before the suite ends either: the mutant is counted survived
     ("unreached") without a boot, and the report says so.  Each selection first runs
     alone without a mutant and must pass (else its mutants get every
     test).  Every selected test runs, also after a failure: the report
     counts the tests each kill failed (one bug, one failing test; issue
     32); --stop (bbsuite.stop=1) stops at the first failure instead, for a
     quick look, and then the counts say nothing.  --jobs runners at once
     (default 4): each boots the kept kernel, none builds.  A boot under
     TCG keeps one CPU about a third busy (the guest mostly waits on its
     devices' timers), so four at once on 2 CPUs finish sooner than two
     (measured: 22 mutants in 162 s against 228 s).  fail or panic =
     killed, boot-timeout = timed out (detected too), pass = survived.

The report (stdout and --report; mutants_report.py) has per-file kill
rates, a table per function, the failed tests of every kill and the
survivors by area (kernel-patches/mutants/areas) with their triage from
kernel-patches/mutants/triage.  It holds nothing that depends on timing,
so two campaigns on the same tree give the same report; the wall time is
printed after it (and logged).

Results are kept per mutant under <cache>/mutants/results, keyed by the
mutant, the sr fix and every file of kernel-patches the verdict depends
on (suite, harness, configs) and the tests it ran: a campaign that was
interrupted goes on where it stopped, and --fresh runs everything again.
--file and --only run part of the campaign (the same schemata kernel: one
mutant's job boots it with its bb_mutant=N) and report that part; --tests
A,B gives those mutants these tests instead of their selection (a test
written for a survivor, with --live: the checkout's own suite).

Environment: BB_BUILD (binaries, default ./build), BUGBRIDGE_MUTANTS_CACHE
(cache dir, default $XDG_CACHE_HOME/bugbridge), BB_MUTANTS_CAP and
BB_MUTANTS_SEED (defaults for --cap and --seed), BB_MUTANTS_BOOT_TIMEOUT
(a mutant boot's wall clock limit, default 90 s: the whole suite takes
17-40 s, and a mutant that hangs the whole guest, not just a test, is a
kill; it should not cost more).
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

import mutagen
import mutants_report

HERE = os.path.dirname(os.path.abspath(__file__))
KP = os.path.dirname(HERE)
SRC = os.path.dirname(KP)
TARBALL = "/usr/src/linux-source-6.1.tar.xz"
SRFIX = os.path.join(KP, "sr-sense-valid")
TRIAGE = os.path.join(KP, "mutants", "triage")
DEFAULT_CAP = 1
DEFAULT_SEED = "32"
# a stuck test is given 20 s (the slowest takes about 3 s under TCG; 90 s
# by default)
MUTANT_ARGS = "bb_mutant=%d bbsuite.timeout=20"
STOP_ARG = " bbsuite.stop=1"


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
    for f, _ in mutagen.read_functions(os.path.join(HERE, "mutant-functions")):
        files.add(f)
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
    """{id: (kind, why)} of kernel-patches/mutants/triage."""
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
                    "coverage = false\nreuse_kernels = true\nboot_timeout = %s\n"
                    # the suite's own boot only: the controllers' boots test
                    # HBA drivers the campaign does not mutate, and each
                    # would be one more boot per mutant
                    "controllers = none\n" % (
                        os.path.join(work, "bb.db"), cache, patches,
                        os.environ.get("BB_MUTANTS_BOOT_TIMEOUT", "90")))
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


def reach_of(doc, funcs):
    """(set of functions run at boot, [(test, set of functions it ran)] in
    the suite's order) from a bbsuite.reach=1 job's diagnostics; a function
    is (file, name), funcs the bitmap's order (schemata.funcs)."""
    def decode(bits):
        out = set()
        for k, digit in enumerate(bits.strip()):
            for j in range(4):
                if int(digit, 16) >> j & 1 and 4 * k + j < len(funcs):
                    out.add(funcs[4 * k + j])
        return out
    boot, tests = None, []
    for t in doc.get("test_results", []):
        if t["variant"] != "patched":
            continue
        ran = set()
        for line in (t.get("diagnostics") or "").split("\n"):
            if line.startswith("reach at boot:"):
                boot = decode(line.split(":", 1)[1])
            elif line.startswith("reach:"):
                ran = decode(line.split(":", 1)[1])
        tests.append((t["name"], ran))
    if boot is None:
        raise SystemExit("mutants: the clean run printed no reach (bbsuite.reach=1):"
                         " is it a schemata kernel?")
    return boot, tests


MAX_TESTS_ARG = 400     # bugbridge job add takes 512 bytes of boot arguments
# the selection of a function that ran neither at boot nor in any test:
# its mutant would boot a kernel that behaves as the clean one up to the
# suite's end, so it survives without a boot (verdict "unreached")
UNREACHED = ["kernel-log-clean"]


def selection(func, reach):
    """The tests a mutant of func ((file, name)) gets, or None: all of them."""
    boot, tests = reach
    if func in boot:
        return None
    sel = [name for name, ran in tests if func in ran and name != "kernel-log-clean"]
    sel.append("kernel-log-clean")
    return sel if len(",".join(sel)) <= MAX_TESTS_ARG else None


def boot_args(num, tests, stop=False):
    return MUTANT_ARGS % num + (STOP_ARG if stop else "") + \
        (" bbsuite.tests=" + ",".join(tests) if tests else "")


CRASHED = "kernel crashed before the test reported"


def outcome(doc):
    """A mutant job's result: status; failed, the tests the suite reported
    not ok; crashed, the test the kernel died in (the first without a
    result) or "boot" or None; ran, how many tests ran (not skipped)."""
    v = doc.get("verdict") or "none"
    tests = [t for t in doc.get("test_results", []) if t["variant"] == "patched"]
    lost = [t["name"] for t in tests if t["status"] == "fail" and
            (t.get("diagnostics") or "").startswith(CRASHED)]
    failed = [t["name"] for t in tests if t["status"] not in ("pass", "skip") and
              t["name"] not in lost]
    status = {"pass": "survived", "fail": "killed", "panic": "killed",
              "boot-timeout": "timeout", "build-failed": "no-compile",
              "apply-failed": "no-apply"}.get(v, "error")
    crashed = None
    if v in ("panic", "boot-timeout"):
        crashed = lost[0] if lost and len(lost) < len(tests) else "boot"
    built = any(st.get("stage") == "build" and st.get("status") == "ok"
                for st in doc.get("stages", []))
    return dict(status=status, verdict=v, failed=failed, crashed=crashed, built=built,
                ran=sum(1 for t in tests if t["status"] != "skip" and t["name"] not in lost))


def generate(tree, mdir, cap, seed, exclude, check_build=None):
    """mutagen.py into mdir; with check_build (mutant-scope.py's O= dir),
    the ids that did not compile there, left out."""
    subprocess.run([sys.executable, os.path.join(HERE, "mutagen.py"), "--tree", tree,
                    "--out", mdir, "--cap", str(cap), "--seed", seed, "--schemata",
                    "--exclude", ",".join(sorted(exclude))] +
                   (["--check-build", check_build] if check_build else []) +
                   sum((["--base-patch", p] for p in series_patches(SRFIX)), []),
                   check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(mdir, "not-compiled")
    return set(open(path).read().split()) if check_build else set()


def generate_once(tree, mdir, cap, seed, exclude, check_build):
    """generate, unless mdir already holds what it would write (a --file
    or --only run after the campaign: the compile check takes minutes)."""
    h = hashlib.sha256()
    for path in ("mutagen.py", "schemata.py", "mutant-functions"):
        h.update(open(os.path.join(HERE, path), "rb").read())
    h.update(("%s\0%s\0%s\0%s\0%s" % (cap, seed, sorted(exclude), check_build,
                                        tree_key())).encode())
    stamp = os.path.join(mdir, ".bb-key")
    if os.path.exists(stamp) and open(stamp).read() == h.hexdigest():
        path = os.path.join(mdir, "not-compiled")
        return set(open(path).read().split()) if os.path.exists(path) else set()
    if os.path.exists(stamp):
        os.unlink(stamp)
    bad = generate(tree, mdir, cap, seed, exclude, check_build)
    with open(stamp, "w") as f:
        f.write(h.hexdigest())
    return bad


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


def build_schemata(runner, tree, work, mdir, cap, seed, logf):
    """Generate and build the schemata kernel; its clean run must pass.
    The mutants that did not compile, the series directory, and what each
    test of the clean run reached (reach_of)."""
    dropped = set()
    scope = os.path.join(work, "scope", "out")
    for _ in range(8):
        dropped |= generate_once(tree, mdir, cap, seed, dropped,
                                 scope if os.path.exists(os.path.join(scope, ".config"))
                                 else None)
        sdir = schemata_series(work, mdir)
        doc = runner.run(sdir, "bb_mutant=0 bbsuite.reach=1", logf)
        if doc.get("verdict") == "pass":
            funcs = [(f, name) for _, f, name in read_tab(os.path.join(mdir, "schemata.funcs"))]
            return dropped, sdir, reach_of(doc, funcs)
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


def run_all(runner, todo, sdir, nums, jobs, logf, done, stop=False):
    """Each (mutant, key, path, tests) of todo as a job; done(m, res)."""
    def finished(m, key, path, tests):
        def cb(doc, seconds):
            res = outcome(doc)
            res.update(key=key, seconds=seconds, tests=tests, stop=stop)
            if res["status"] != "error":
                with open(path + ".tmp", "w") as f:
                    json.dump(res, f, sort_keys=True)
                os.rename(path + ".tmp", path)
            done(m, res)
        return cb
    run_jobs(runner, sdir, [(boot_args(nums[m["id"]], tests, stop),
                             finished(m, key, path, tests))
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


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cap", type=int, default=int(os.environ.get("BB_MUTANTS_CAP",
                                                                  DEFAULT_CAP)),
                    help="mutants per function, sampled")
    ap.add_argument("--seed", default=os.environ.get("BB_MUTANTS_SEED", DEFAULT_SEED))
    ap.add_argument("--only", default="", help="these mutant ids only")
    ap.add_argument("--file", action="append", default=[],
                    help="the mutants of this file only (drivers/scsi/sd.c or sd.c)")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--report")
    ap.add_argument("--jobs", type=int, default=4, help="runners at once (QEMU boots)")
    ap.add_argument("--all-tests", action="store_true",
                    help="every mutant gets the whole suite, not only the tests that reach it")
    ap.add_argument("--tests", default="",
                    help="these tests (A,B: kernel-log-clean is added) instead of the selection")
    ap.add_argument("--stop", action="store_true",
                    help="stop each boot at its first failure (no failed-test counts)")
    ap.add_argument("--live", action="store_true",
                    help="run on kernel-patches itself, not a snapshot (its seed is the tests')")
    return ap.parse_args()


def check_scope(cache):
    """The campaign's list must be the code's (mutant-scope.py --check)."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "mutant-scope.py")],
                       env=dict(os.environ, BUGBRIDGE_MUTANTS_CACHE=cache),
                       capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stdout[-4000:] + r.stderr[-2000:])
        raise SystemExit("mutants: tools/mutant-functions and the code disagree: no campaign")


def chosen_mutants(mutants, args):
    """The part of the campaign --only and --file ask for."""
    if args.only:
        want = set(args.only.replace(",", " ").split())
        missing = want - {m["id"] for m in mutants}
        if missing:
            raise SystemExit("mutants: no such mutant: %s" % " ".join(sorted(missing)))
        mutants = [m for m in mutants if m["id"] in want]
    if args.file:
        files = {m["file"] for m in mutants}
        want = {f for f in files for a in args.file if f == a or os.path.basename(f) == a}
        if len(want) < len(args.file):
            raise SystemExit("mutants: no mutants in %s" % ", ".join(args.file))
        mutants = [m for m in mutants if m["file"] in want]
    return mutants


def plan(mutants, dropped, chosen, bad_sels, work, key_base, args):
    """({id: kept result}, [(mutant, key, result path, tests)] to run)."""
    res, todo = {}, []
    results = os.path.join(work, "results")
    for m in sorted(mutants, key=lambda m: m["id"].split("-")[-1]):
        if m["id"] in dropped:
            res[m["id"]] = dict(status="no-compile", verdict="build-failed", failed=[])
            continue
        patch = open(os.path.join(work, "all", m["id"] + ".patch")).read()
        tests = chosen[m["id"]]
        if tests == UNREACHED and not args.tests:
            res[m["id"]] = dict(status="survived", verdict="unreached", failed=[], ran=0,
                                crashed=None, tests=tests, built=False)
            continue
        if tests and tuple(tests) in bad_sels:
            tests = None
        key = hashlib.sha256((key_base + "schemata\0" + patch + "\0" +
                              ",".join(tests or ["all"]) + ("\0stop" if args.stop else "")
                              ).encode()).hexdigest()
        path = os.path.join(results, m["id"] + ".json")
        old = json.load(open(path)) if os.path.exists(path) and not args.fresh else {}
        if old.get("key") == key:
            res[m["id"]] = old
        else:
            todo.append((m, key, path, tests))
    return res, todo


def main():
    args = parse_args()
    t_start = time.time()
    build = os.path.abspath(os.environ.get("BB_BUILD", os.path.join(SRC, "build")))
    cache = cache_dir()
    work = os.path.join(cache, "mutants")
    os.makedirs(os.path.join(work, "results"), exist_ok=True)
    if not args.only and not args.file:
        check_scope(cache)
    mdir = os.path.join(work, "generated")
    snapshot, key_base = snapshot_of(work, args.live)
    dbdir = tempfile.mkdtemp(prefix="run-", dir=work)
    runner = Runner(dbdir, cache, build, patches=snapshot)
    logf = open(os.path.join(dbdir, "runner.log"), "a")
    tree = source_tree(cache, work)
    dropped, sdir, reach = build_schemata(runner, tree, work, mdir, args.cap, args.seed, logf)
    log("the schemata kernel (bb_mutant=0) passes the suite; built and run in %.0f s" % (
        time.time() - t_start))
    generate(tree, os.path.join(work, "all"), args.cap, args.seed, set())
    mutants = chosen_mutants(read_manifest(os.path.join(work, "all")), args)
    nums = {mid: int(n) for n, mid in read_tab(os.path.join(mdir, "schemata"))}
    given = [t for t in args.tests.split(",") if t and t != "kernel-log-clean"]
    chosen = {m["id"]: given + ["kernel-log-clean"] if given else None if args.all_tests
              else selection((m["file"], m["func"]), reach) for m in mutants}
    sels = {tuple(t) for t in chosen.values() if t and t != UNREACHED}
    bad_sels = check_selections(runner, sdir, sels, args.jobs, logf)
    log("%d selections of tests run alone without a mutant: %d pass" % (
        len(sels), len(sels) - len(bad_sels)))
    res, todo = plan(mutants, dropped, chosen, bad_sels, work, key_base, args)
    kept, t_runs = len(res), time.time()
    unreached = sum(1 for r in res.values() if r.get("verdict") == "unreached")
    log("%d mutants: %d unreached (no boot), %d kept from earlier runs, %d to run, %d at once"
        % (len(mutants), unreached, kept - unreached, len(todo), args.jobs))

    def done(m, r):
        res[m["id"]] = r
        log("%d/%d %s: %s%s (%.0f s)" % (len(res), len(mutants), m["id"], r["status"],
                                         " (%d failed: %s)" % (len(r["failed"]),
                                                               ", ".join(r["failed"][:3]))
                                         if r["failed"] else "", r["seconds"]))

    run_all(runner, todo, sdir, nums, args.jobs, logf, done, args.stop)
    built = [mid for mid in res if res[mid].get("built")]
    if built:
        log("%d mutant jobs built a kernel instead of booting the kept one: %s" % (
            len(built), " ".join(sorted(built)[:5])))
    text = mutants_report.report(mutants, res, read_triage(), mutants_report.read_areas())
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
