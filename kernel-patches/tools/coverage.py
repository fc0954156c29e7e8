#!/usr/bin/env python3
"""coverage.py: line and branch coverage of the completion path by the suite.

    coverage.py [--unreached FUNC,...] [--out FILE]

Runs the base kernel with the sr-sense-valid fix (the campaign's base)
through the real runner with [runner] coverage on, keeps the job's tree,
and asks gcov (branch counts too) about the functions of
mutant-functions.  Prints one table row per function: lines executed of
executable lines, branches taken of branches; then, for --unreached
functions (default: sd_done, sd_completed_bytes, sr_done,
scsi_io_completion), every executable line the suite never ran.

Environment: BB_BUILD (binaries, default ./build), BUGBRIDGE_MUTANTS_CACHE
(cache dir, as mutants.py).
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KP = os.path.dirname(HERE)
SRC = os.path.dirname(KP)
sys.path.insert(0, HERE)
import mutants  # noqa: E402  (cache_dir, Runner)
import mutagen  # noqa: E402  (read_functions)

DEFAULT_UNREACHED = "sd_done,sd_completed_bytes,sr_done,scsi_io_completion"


def run_job(cache, build, work):
    runner = mutants.Runner(work, cache, build, coverage=True)
    runner.env["BUGBRIDGE_KEEP_TREES"] = "1"
    with open(os.path.join(work, "runner.log"), "w") as logf:
        doc = runner.run(mutants.SRFIX, logf)
    db = sqlite3.connect(os.path.join(work, "bb.db"))
    logs = db.execute("SELECT log_dir FROM jobs WHERE id = ?", (doc["id"],)).fetchone()[0]
    return doc, os.path.dirname(logs)


def gcov(tree, path):
    r = subprocess.run(["gcov", "--json-format", "--stdout", "--branch-probabilities",
                        "--object-directory", "out/" + os.path.dirname(path), path],
                       cwd=tree, capture_output=True, text=True, check=True)
    for f in json.loads(r.stdout)["files"]:
        if f["file"].endswith(path):
            return f
    raise SystemExit("coverage: gcov has no %s" % path)


def table(tree, funcs, unreached):
    out = ["%-30s %-16s %-18s %s" % ("function", "lines", "branches", "file")]
    missing = []
    data = {}
    for path, name in funcs:
        if path not in data:
            data[path] = gcov(tree, path)
        f = data[path]
        fn = [x for x in f["functions"] if x["name"] == name]
        if not fn:
            out.append("%-30s (not in the build: inlined or not compiled)" % name)
            continue
        start, end = fn[0]["start_line"], fn[0]["end_line"]
        lines = {}
        for l in f["lines"]:
            if start <= l["line_number"] <= end:
                n = l["line_number"]
                c, b = lines.get(n, (0, []))
                lines[n] = (c + l["count"], b + l.get("branches", []))
        hit = sum(1 for c, _ in lines.values() if c > 0)
        br = [b for _, bs in lines.values() for b in bs]
        taken = sum(1 for b in br if b["count"] > 0)
        out.append("%-30s %4d/%-4d %5.1f%% %4d/%-4d %5.1f%%  %s" % (
            name, hit, len(lines), 100.0 * hit / len(lines) if lines else 0,
            taken, len(br), 100.0 * taken / len(br) if br else 0, os.path.basename(path)))
        if name in unreached:
            text = open(os.path.join(tree, path)).read().splitlines()
            for n in sorted(lines):
                if lines[n][0] == 0:
                    missing.append("  %s %s:%d  %s" % (name, os.path.basename(path), n,
                                                        text[n - 1].strip()))
    return out, missing


def report(rows, missing, args):
    text = "\n".join(rows) + "\n\nlines the suite never ran (%s):\n%s\n" % (
        args.unreached.replace(",", ", "), "\n".join(missing) or "  none")
    sys.stdout.write(text)
    if args.out:
        open(args.out, "w").write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unreached", default=DEFAULT_UNREACHED)
    ap.add_argument("--out")
    ap.add_argument("--tree", help="a kept patched tree of a coverage run (skips the run)")
    args = ap.parse_args()
    funcs = mutagen.read_functions(os.path.join(HERE, "mutant-functions"))
    if args.tree:
        rows, missing = table(args.tree, funcs, set(args.unreached.split(",")))
        report(rows, missing, args)
        return
    build = os.path.abspath(os.environ.get("BB_BUILD", os.path.join(SRC, "build")))
    cache = mutants.cache_dir()
    work = tempfile.mkdtemp(prefix="coverage-", dir=os.path.join(cache))
    jobdir = None
    try:
        doc, jobdir = run_job(cache, build, work)
        tree = os.path.join(jobdir, "patched", "tree")
        if doc.get("verdict") != "pass" or not os.path.isdir(tree):
            raise SystemExit("coverage: the base with the sr fix did not pass: %s: %s" % (
                doc.get("verdict"), doc.get("verdict_detail")))
        rows, missing = table(tree, funcs, set(args.unreached.split(",")))
        report(rows, missing, args)
    finally:
        if jobdir:
            subprocess.run(["rm", "-rf", os.path.join(jobdir, "patched")])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
