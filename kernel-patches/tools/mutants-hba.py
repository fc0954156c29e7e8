#!/usr/bin/env python3
"""mutants-hba.py: the mutation campaign over the host adapters' completion
functions (issue 34).

    mutants-hba.py [--cap N] [--seed S] [--controllers NAME,...] [--only ID,...]
                   [--fresh] [--report FILE] [--jobs N]

For each controller of tools/mutant-functions-hba (or --controllers), the
mutants of its completion functions (mutagen.py: at most --cap per
function, sampled by --seed; --cap 0: all) go into one schemata
kernel (schemata.py: bb_mutant=N on the command line picks one).  Then
everything goes through the real runner, as mutants.py does for the core,
with a scratch database, [runner] reuse_kernels on and [runner]
controllers = NAME, on a copy of kernel-patches whose scenarios keep that
controller's boot only (the core's boots do not run a host adapter's
driver):

  1. a job of the schemata patch with bb_mutant=0: the runner grows the
     config by the controller's fragment, builds that kernel on the
     standard seed (and keeps it), and every hba-NAME test must pass.
     If the build fails, the mutants whose copies the compiler named are
     dropped ("did not compile") and the schemata made again.
  2. a job per mutant, `bb_mutant=N bbsuite.timeout=20`: the boot runs
     all of its five tests (the completion function runs at boot, in the
     scan, so every test may see what a mutant left).  fail or panic =
     killed, boot-timeout = timed out (detected too), pass = survived.

The report is a table per function and one line per survivor with its
triage from kernel-patches/mutants/triage-hba (equivalent, or
missing-test: what no test here does, and why).  Results are kept per
mutant under <cache>/mutants-hba/results, keyed by the mutation (its id,
place and text) and every file of kernel-patches a verdict depends on: a
mutant keeps its result when the sample around it changes; --fresh runs
them again.

Environment: as mutants.py (BB_BUILD, BUGBRIDGE_MUTANTS_CACHE);
BB_MUTANTS_BOOT_TIMEOUT, a boot's wall clock limit (default 150 s, the
controllers' boots' own).
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import mutants

HERE = mutants.HERE
KP = mutants.KP
FUNCTIONS = os.path.join(HERE, "mutant-functions-hba")
TRIAGE = os.path.join(KP, "mutants", "triage-hba")
MUTANT_ARGS = "bb_mutant=%d bbsuite.timeout=20"


def log(msg):
    print("# mutants-hba: " + msg, file=sys.stderr, flush=True)


def read_controllers():
    """{controller: [(file, function)]} in the list's order."""
    out = {}
    for line in open(FUNCTIONS):
        words = line.split("#", 1)[0].split()
        if len(words) >= 3:
            out.setdefault(words[0], []).extend((words[1], f) for f in words[2:])
    return out


def read_triage():
    tri = {}
    if os.path.exists(TRIAGE):
        for line in open(TRIAGE):
            if line.strip() and not line.startswith("#"):
                mid, kind, why = (line.rstrip("\n").split(None, 2) + ["", ""])[:3]
                tri[mid] = (kind, why)
    return tri


def tree_key():
    """Everything under kernel-patches a verdict depends on."""
    h = hashlib.sha256()
    for sub in ("suite", "harness", "configs"):
        for name in sorted(os.listdir(os.path.join(KP, sub))):
            path = os.path.join(KP, sub, name)
            if os.path.isfile(path):
                h.update(("%s/%s\0" % (sub, name)).encode())
                h.update(open(path, "rb").read())
    return h.hexdigest()


def keep_boot(text, ctl):
    """suite/scenarios with controller ctl's boot alone."""
    out, block, keep, inboot = [], [], False, False

    def flush():
        if inboot and keep:
            out.extend(block)
    for line in text.splitlines(True):
        words = line.split()
        if words[:1] == ["boot"]:
            flush()
            block, keep, inboot = [], False, True
        if not inboot:
            out.append(line)
            continue
        block.append(line)
        if words[:2] == ["controller", ctl]:
            keep = True
    flush()
    return "".join(out)


def snapshot(work, ctl, key):
    """kernel-patches with controller ctl's boot alone, at a fixed path."""
    snap = os.path.join(work, "kernel-patches")
    stamp = os.path.join(snap, ".bb-key")
    if os.path.exists(stamp) and open(stamp).read() == key:
        return snap
    shutil.rmtree(snap, ignore_errors=True)
    shutil.copytree(KP, snap)
    path = os.path.join(snap, "suite", "scenarios")
    text = keep_boot(open(path).read(), ctl)
    if not re.search(r"^\s*controller %s\b" % re.escape(ctl), text, re.M):
        raise SystemExit("mutants-hba: no boot of controller '%s' in suite/scenarios" % ctl)
    with open(path, "w") as f:
        f.write(text)
    with open(stamp, "w") as f:
        f.write(key)
    return snap


class Runner(mutants.Runner):
    """mutants.py's scratch runner, for one controller's boot."""

    def __init__(self, work, cache, build, patches, ctl):
        super().__init__(work, cache, build, patches)
        lines = [l for l in open(self.conf) if not re.match(r"(controllers|boot_timeout)\s*=", l)]
        lines.append("controllers = %s\nboot_timeout = %s\n" % (
            ctl, os.environ.get("BB_MUTANTS_BOOT_TIMEOUT", "150")))
        with open(self.conf, "w") as f:
            f.writelines(lines)


def source_tree(cache, work, funcs):
    """A tree holding the files mutagen reads: the runner's extracted base
    when it has them, else those files from the tarball."""
    files = sorted({f for f, _ in funcs} | {"drivers/scsi/scsi.c"})
    for tree in (os.path.join(cache, "base", "linux-source-6.1"), os.path.join(work, "src")):
        if all(os.path.isfile(os.path.join(tree, f)) for f in files):
            return tree
    os.makedirs(tree, exist_ok=True)
    subprocess.run(["tar", "-xJf", mutants.TARBALL, "-C", tree, "--strip-components=1"] +
                   ["linux-source-6.1/" + f for f in files], check=True)
    return tree


def generate(tree, mdir, funcs, cap, seed, exclude):
    fl = os.path.join(mdir + ".functions")
    with open(fl, "w") as f:
        for file, name in funcs:
            f.write("%s %s\n" % (file, name))
    subprocess.run([sys.executable, os.path.join(HERE, "mutagen.py"), "--tree", tree,
                    "--functions", fl, "--out", mdir, "--schemata", "--cap", str(cap),
                    "--seed", seed, "--exclude", ",".join(sorted(exclude))],
                   check=True, stdout=subprocess.DEVNULL)


def series(work, mdir):
    sdir = os.path.join(work, "series-schemata")
    shutil.rmtree(sdir, ignore_errors=True)
    os.makedirs(sdir)
    shutil.copy(os.path.join(mdir, "schemata.patch"),
                os.path.join(sdir, "0001-mutant-schemata.patch"))
    with open(os.path.join(sdir, "series"), "w") as f:
        f.write("0001-mutant-schemata.patch\n")
    return sdir


def not_compiled(detail, mdir):
    """Mutant ids whose copies the compiler's errors name."""
    spans = mutants.read_tab(os.path.join(mdir, "schemata.lines"))
    ids = dict(mutants.read_tab(os.path.join(mdir, "schemata")))
    bad = set()
    for f, line in re.findall(r"([\w/.-]+\.c):(\d+):\d+: error", detail or ""):
        for n, sf, first, last in spans:
            if f.endswith(sf) and int(first) <= int(line) <= int(last):
                bad.add(ids[n])
    return bad


def build(runner, tree, work, funcs, args, logf):
    """The schemata kernel, its clean run passing: (dropped, series, mdir)."""
    mdir = os.path.join(work, "generated")
    dropped = set()
    for _ in range(8):
        generate(tree, mdir, funcs, args.cap, args.seed, dropped)
        sdir = series(work, mdir)
        doc = runner.run(sdir, "bb_mutant=0", logf)
        if doc.get("verdict") == "pass":
            return dropped, sdir, mdir
        bad = not_compiled(doc.get("verdict_detail"), mdir) \
            if doc.get("verdict") == "build-failed" else set()
        if not bad:
            raise SystemExit("mutants-hba: the schemata kernel with bb_mutant=0 does not"
                             " pass (%s: %s)" % (doc.get("verdict"), doc.get("verdict_detail")))
        log("did not compile, dropped: %s" % " ".join(sorted(bad)))
        dropped |= bad
    raise SystemExit("mutants-hba: the schemata kernel still does not build")


COLUMNS = ("killed", "timeout", "survived", "equivalent", "no-compile", "error")


def report(rows_of, results, triage):
    """The table per function, the totals, the survivors."""
    rows, survivors, total = {}, [], dict.fromkeys(COLUMNS, 0)
    for m in rows_of:
        r = results[m["id"]]
        st = {"no-apply": "error"}.get(r["status"], r["status"])
        if st == "survived" and triage.get(m["id"], ("",))[0] == "equivalent":
            st = "equivalent"
        rows.setdefault(m["func"], dict.fromkeys(COLUMNS, 0))[st] += 1
        total[st] += 1
        if r["status"] == "survived":
            survivors.append((m, triage.get(m["id"], ("untriaged", ""))))
    fmt = "%-26s" + " %10s" * len(COLUMNS)
    out = [fmt % (("function",) + COLUMNS)]
    for func in sorted(rows):
        out.append(fmt % ((func,) + tuple(rows[func][c] for c in COLUMNS)))
    out.append(fmt % (("total",) + tuple(total[c] for c in COLUMNS)))
    judged = sum(total[c] for c in ("killed", "timeout", "survived"))
    detected = total["killed"] + total["timeout"]
    out += ["", "mutants %d; killed %d (of which timed out %d) of %d non-equivalent: %.1f%%;"
            " survived %d, equivalent %d, did not compile %d, errors %d" % (
                len(rows_of), detected, total["timeout"], judged,
                100.0 * detected / judged if judged else 0.0, total["survived"],
                total["equivalent"], total["no-compile"], total["error"]),
            "", "survivors (triage: kernel-patches/mutants/triage-hba):"]
    for m, (kind, why) in survivors:
        out.append("  %s %s:%d %s: %s  =>  %s" % (m["id"], os.path.basename(m["file"]),
                                                  m["line"], m["op"], m["before"], m["after"]))
        out.append("      %s%s" % (kind, ": " + why if why else ""))
    return "\n".join(out) + "\n"


def campaign(ctl, funcs, args, cache, bld, key, res, everything):
    """One controller's mutants, into res; its manifest rows into everything."""
    t0 = time.time()
    work = os.path.join(cache, "mutants-hba", ctl)
    results = os.path.join(cache, "mutants-hba", "results")
    os.makedirs(results, exist_ok=True)
    snap = snapshot(work, ctl, key)
    dbdir = tempfile.mkdtemp(prefix="run-", dir=work)
    runner = Runner(dbdir, cache, bld, snap, ctl)
    logf = open(os.path.join(dbdir, "runner.log"), "a")
    tree = source_tree(cache, work, funcs)
    dropped, sdir, mdir = build(runner, tree, work, funcs, args, logf)
    log("%s: the schemata kernel (bb_mutant=0) passes its hba-%s tests; %.0f s" % (
        ctl, ctl, time.time() - t0))
    rows = mutants.read_manifest(mdir)
    if args.only:
        rows = [m for m in rows if m["id"] in args.only]
    nums = {mid: int(n) for n, mid in mutants.read_tab(os.path.join(mdir, "schemata"))}
    todo = []
    for m in rows:
        everything.append(m)
        if m["id"] in dropped:
            res[m["id"]] = dict(status="no-compile", verdict="build-failed", failed=[])
            continue
        mkey = hashlib.sha256("\0".join([key, ctl, m["id"], m["file"], str(m["line"]), m["op"],
                                          m["before"], m["after"]]).encode()).hexdigest()
        path = os.path.join(results, m["id"] + ".json")
        old = json.load(open(path)) if os.path.exists(path) and not args.fresh else {}
        if old.get("key") == mkey:
            res[m["id"]] = old
        else:
            todo.append((m, mkey, path))
    log("%s: %d mutants, %d kept from earlier runs, %d to run, %d at once" % (
        ctl, len(rows), len(rows) - len(todo), len(todo), args.jobs))

    def finished(m, mkey, path):
        def cb(doc, seconds):
            r = mutants.outcome(doc)
            r.update(key=mkey, seconds=seconds)
            if r["status"] != "error":
                with open(path + ".tmp", "w") as f:
                    json.dump(r, f, sort_keys=True)
                os.rename(path + ".tmp", path)
            res[m["id"]] = r
            log("%s: %s: %s%s (%.0f s)" % (ctl, m["id"], r["status"], " (%s)" % ", ".join(
                r["failed"][:3]) if r["failed"] else "", seconds))
        return cb
    mutants.run_jobs(runner, sdir, [(MUTANT_ARGS % nums[m["id"]], finished(m, k, p))
                                    for m, k, p in todo], args.jobs, logf)
    built = [m["id"] for m, _, _ in todo if res[m["id"]].get("built")]
    if built:
        log("%s: %d mutant jobs built a kernel instead of booting the kept one" % (
            ctl, len(built)))
    logf.close()
    shutil.rmtree(dbdir, ignore_errors=True)
    log("%s: %.0f s" % (ctl, time.time() - t0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cap", type=int, default=25, help="mutants per function (0: all)")
    ap.add_argument("--seed", default=mutants.DEFAULT_SEED, help="the sample's seed")
    ap.add_argument("--controllers", default="", help="NAME,... (default: every one listed)")
    ap.add_argument("--only", default="")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--report")
    ap.add_argument("--jobs", type=int, default=4, help="runners at once (QEMU boots)")
    args = ap.parse_args()
    args.only = set(args.only.replace(",", " ").split())

    t0 = time.time()
    bld = os.path.abspath(os.environ.get("BB_BUILD", os.path.join(mutants.SRC, "build")))
    cache = mutants.cache_dir()
    ctls = read_controllers()
    want = args.controllers.replace(",", " ").split() or list(ctls)
    unknown = [c for c in want if c not in ctls]
    if unknown:
        raise SystemExit("mutants-hba: no controller %s in %s" % (" ".join(unknown), FUNCTIONS))
    key, res, everything = tree_key(), {}, []
    for ctl in want:
        campaign(ctl, ctls[ctl], args, cache, bld, key, res, everything)
    missing = args.only - {m["id"] for m in everything}
    if missing:
        raise SystemExit("mutants-hba: no such mutant: %s" % " ".join(sorted(missing)))
    text = report(everything, res, read_triage())
    sys.stdout.write(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    print("wall time %.0f s (%.1f min), %d at once" % (time.time() - t0,
                                                       (time.time() - t0) / 60, args.jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
