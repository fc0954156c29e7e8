#!/usr/bin/env python3
"""mutants.py: the mutation campaign over the completion path (issue 15).

    mutants.py [--max N] [--only ID,...] [--fresh] [--report FILE]

Generates the mutants (mutagen.py, on top of kernel-patches/sr-sense-valid
so that the base passes), then runs each one through the real runner: a
scratch database, `bugbridge job add --series` of the sr fix plus the
mutant, `bugbridge-runner --job`, `bugbridge job show --json`.  The verdict
decides: fail or panic = killed, boot-timeout = timed out (detected too),
pass = survived, build-failed = did not compile (dropped, counted).

The report (stdout and --report) is a table per function and one line per
survivor with its triage from kernel-patches/mutants/triage (equivalent,
with the argument why no device can observe it, or missing-test).  It
holds nothing that depends on timing, so two campaigns on the same tree
give the same report; wall times go to the end of the log only.

Results are kept per mutant under <cache>/mutants/results, keyed by the
mutant, the sr fix and every file of kernel-patches the verdict depends
on (suite, harness, configs): a campaign that was interrupted goes on
where it stopped, and --fresh runs everything again.

Environment: BB_BUILD (binaries, default ./build), BUGBRIDGE_MUTANTS_CACHE
(cache dir, default $XDG_CACHE_HOME/bugbridge), BB_MUTANTS_MAX (default
for --max).
"""
import argparse
import glob
import hashlib
import json
import os
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
DEFAULT_MAX = 170


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


def source_tree(cache, work):
    """A tree holding the files mutagen reads: the runner's extracted base
    when there is one, else just those files from the tarball."""
    base = os.path.join(cache, "base", "linux-source-6.1")
    if os.path.isfile(os.path.join(base, "drivers/scsi/sd.c")):
        return base
    tree = os.path.join(work, "src")
    if not os.path.isfile(os.path.join(tree, "drivers/scsi/sd.c")):
        files = ["linux-source-6.1/drivers/scsi/" + f for f in
                 ("scsi.c", "scsi_lib.c", "scsi_error.c", "sd.c", "sr.c")]
        os.makedirs(tree, exist_ok=True)
        subprocess.run(["tar", "-xJf", TARBALL, "-C", tree, "--strip-components=1"] + files,
                       check=True)
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

    def __init__(self, work, cache, build, coverage=False, patches=KP):
        self.work, self.build = work, build
        self.conf = os.path.join(work, "bb.conf")
        with open(self.conf, "w") as f:
            f.write("[db]\npath = %s\n[log]\nlevel = warn\n[runner]\n"
                    "cache_dir = %s\npatches_dir = %s\nflake_retries = 0\n"
                    "coverage = %s\n" % (os.path.join(work, "bb.db"), cache, patches,
                                          "true" if coverage else "false"))
        self.env = dict(os.environ, BUGBRIDGE_CONFIG=self.conf)
        self.bb("db", "migrate")

    def bb(self, *args):
        r = subprocess.run([os.path.join(self.build, "bugbridge")] + list(args),
                           env=self.env, capture_output=True, text=True)
        if r.returncode:
            raise SystemExit("mutants: bugbridge %s: %s" % (" ".join(args), r.stderr))
        return r.stdout

    def run(self, series_dir, logf):
        # the binaries may have been rebuilt (and gained a migration) since the start
        self.bb("db", "migrate")
        what = ["--series", series_dir] if series_dir else ["--none"]
        job = self.bb("job", "add", "--bug", "1", *what).strip()
        subprocess.run(["nice", os.path.join(self.build, "bugbridge-runner"), "--job", job],
                       env=self.env, stdout=logf, stderr=logf)
        return json.loads(self.bb("job", "show", job, "--json"))


def outcome(doc):
    v = doc.get("verdict") or "none"
    failed = sorted(t["name"] for t in doc.get("test_results", [])
                    if t["variant"] == "patched" and t["status"] != "pass")
    status = {"pass": "survived", "fail": "killed", "panic": "killed",
              "boot-timeout": "timeout", "build-failed": "no-compile",
              "apply-failed": "no-apply"}.get(v, "error")
    return dict(status=status, verdict=v, failed=failed)


def run_one(m, mdir, runner, results, key, fresh):
    res_path = os.path.join(results, m["id"] + ".json")
    if not fresh and os.path.exists(res_path):
        old = json.load(open(res_path))
        if old.get("key") == key:
            return old, False
    sdir = tempfile.mkdtemp(prefix="series-", dir=runner.work)
    names = []
    for i, p in enumerate(series_patches(SRFIX) + [os.path.join(mdir, m["id"] + ".patch")]):
        names.append("%04d-%s" % (i + 1, os.path.basename(p)[5:] if i < 1 else m["id"] + ".patch"))
        shutil.copy(p, os.path.join(sdir, names[-1]))
    with open(os.path.join(sdir, "series"), "w") as f:
        f.write("\n".join(names) + "\n")
    t0 = time.time()
    with open(os.path.join(runner.work, "runner.log"), "a") as logf:
        for attempt in range(2):
            res = outcome(runner.run(sdir, logf))
            if res["status"] != "error":
                break
    res.update(key=key, seconds=round(time.time() - t0, 1))
    shutil.rmtree(sdir)
    if res["status"] != "error":
        with open(res_path + ".tmp", "w") as f:
            json.dump(res, f, sort_keys=True)
        os.rename(res_path + ".tmp", res_path)
    return res, True


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
    out.append("")
    out.append("survivors (triage: kernel-patches/mutants/triage):")
    for m, (kind, why) in survivors:
        out.append("  %s %s:%d %s: %s  =>  %s" % (m["id"], os.path.basename(m["file"]),
                                                  m["line"], m["op"], m["before"], m["after"]))
        out.append("      %s%s" % (kind, ": " + why if why else ""))
    return "\n".join(out) + "\n", total, judged, detected


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=int(os.environ.get("BB_MUTANTS_MAX",
                                                                  DEFAULT_MAX)))
    ap.add_argument("--only", default="")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--report")
    ap.add_argument("--live", action="store_true",
                    help="run on kernel-patches itself, not a snapshot (its seed is the tests')")
    ap.add_argument("--no-base", action="store_true",
                    help="skip the base runs (the caller knows the seed exists and the fix passes)")
    args = ap.parse_args()

    build = os.path.abspath(os.environ.get("BB_BUILD", os.path.join(SRC, "build")))
    cache = cache_dir()
    work = os.path.join(cache, "mutants")
    results = os.path.join(work, "results")
    os.makedirs(results, exist_ok=True)
    mdir = os.path.join(work, "generated")
    subprocess.run([sys.executable, os.path.join(HERE, "mutagen.py"), "--tree",
                    source_tree(cache, work), "--out", mdir, "--max", str(args.max)] +
                   sum((["--base-patch", p] for p in series_patches(SRFIX)), []), check=True)
    mutants = read_manifest(mdir)
    if args.only:
        want = set(args.only.replace(",", " ").split())
        mutants = [m for m in mutants if m["id"] in want]
        missing = want - {m["id"] for m in mutants}
        if missing:
            raise SystemExit("mutants: no such mutant: %s" % " ".join(sorted(missing)))
    dbdir = tempfile.mkdtemp(prefix="run-", dir=work)
    key_base = tree_key()
    # the campaign judges one version of the suite, even if the tree moves
    # on; at one fixed path, because the runner's seed key hashes the paths
    # of the config fragments and the harness (a new path: a cold build)
    snapshot = KP if args.live else os.path.join(work, "kernel-patches")
    stamp = os.path.join(snapshot, ".bb-key")
    if not args.live and (not os.path.exists(stamp) or open(stamp).read() != key_base):
        subprocess.run(["rm", "-rf", snapshot], check=True)
        shutil.copytree(KP, snapshot)
        with open(stamp, "w") as f:
            f.write(key_base)
    runner = Runner(dbdir, cache, build, patches=snapshot)
    t0 = time.time()
    if not args.no_base:
        with open(os.path.join(runner.work, "runner.log"), "a") as logf:
            # the unpatched base first: it makes the seed every mutant builds on
            base = runner.run(None, logf)
            log("the unpatched base: %s (%s)" % (base.get("verdict"), ", ".join(
                outcome(base)["failed"]) or "no test failed"))
            fixed = runner.run(SRFIX, logf)
        if fixed.get("verdict") != "pass":
            raise SystemExit("mutants: the base with the sr fix does not pass (%s: %s): "
                             "no campaign" % (fixed.get("verdict"), fixed.get("verdict_detail")))
        log("the base with the sr fix passes; %d mutants" % len(mutants))
    res, ran = {}, 0
    # in id order (a hash): an interrupted campaign has sampled every function
    for i, m in enumerate(sorted(mutants, key=lambda m: m["id"].split("-")[-1])):
        key = hashlib.sha256((key_base + open(os.path.join(mdir, m["id"] + ".patch")).read())
                             .encode()).hexdigest()
        res[m["id"]], fresh_run = run_one(m, mdir, runner, results, key, args.fresh)
        ran += fresh_run
        log("%d/%d %s: %s%s%s" % (i + 1, len(mutants), m["id"], res[m["id"]]["status"],
                                  " (%s)" % ", ".join(res[m["id"]]["failed"][:4])
                                  if res[m["id"]]["failed"] else "",
                                  "" if fresh_run else " [kept]"))
    text, total, judged, detected = report(mutants, res, read_triage())
    sys.stdout.write(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    shutil.rmtree(dbdir, ignore_errors=True)
    log("%d mutants run now, %d kept from earlier runs; wall %.0f s (%.0f s per mutant run)" % (
        ran, len(mutants) - ran, time.time() - t0, (time.time() - t0) / ran if ran else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
