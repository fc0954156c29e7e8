#!/usr/bin/env python3
"""mutant-scope.py: the campaign's list of functions, derived (issue 32).

    mutant-scope.py [--src TREE] [--build DIR] [--write | --check] [--out FILE]

The rules in tools/mutant-scope name files and entry points; this tool
finds every function they cover in the kernel the runner builds and
writes tools/mutant-functions, one line per function, so that the list is
the code, not a choice:

  1. It configures TREE (a pristine linux-source-6.1, read only: the build
     goes to DIR, O=) as the runner does: tinyconfig, configs/base.config
     merged, olddefconfig.  It compiles the listed files' objects and has
     Kbuild write their preprocessed text (FILE.i).
  2. A function is compiled when its definition is in FILE.i and its line
     marker says FILE (code under a false #if is not there) and the
     compiler keeps its code: it has external linkage, or is marked used,
     or something kept refers to it (cscope_i.live).  That set is checked
     against `nm` of the object: every function of the file with a symbol
     must be in it (the others were inlined into their callers; their code
     runs there, so they are mutated too).
  3. Each file's rule picks from that set (mutant-scope says how).
  4. Each picked function is looked up in the text mutagen.py mutates (the
     file with the sr fix applied) and its mutants counted.  A function is
     listed as not mutated, with the reason, when it has no mutable
     operator, when it is __exit (never runs in a built-in kernel), when
     it is variadic (the schemata cannot pass its arguments on) or when
     its definition is written by a macro (no text of its own to mutate).
     Functions the compiler drops (static, referred to by nothing
     compiled) are listed too, as having no code.

--check (the default) compares the result with tools/mutant-functions and
exits 1 with a diff when they disagree; --write rewrites it.
"""
import argparse
import difflib
import fcntl
import os
import re
import subprocess
import sys

import cscope_i
import mutagen

HERE = os.path.dirname(os.path.abspath(__file__))
KP = os.path.dirname(HERE)
TARBALL = "/usr/src/linux-source-6.1.tar.xz"
LIST = os.path.join(HERE, "mutant-functions")
STATE_CALLS = ("scsi_host_set_state", "scsi_device_set_state")


def log(msg):
    print("# mutant-scope: " + msg, file=sys.stderr, flush=True)


def read_rules(path):
    """[(file, rule, [args])] in the file's order."""
    rules = []
    for line in open(path):
        words = line.split("#", 1)[0].split()
        if words:
            rules.append((words[0], words[1], words[2:]))
    return rules


def make(src, out, *targets):
    subprocess.run(["nice", "make", "-s", "-C", src, "O=" + out, "ARCH=x86_64",
                    "-j%d" % (os.cpu_count() or 2)] + list(targets), check=True,
                   stdout=subprocess.DEVNULL)


def configure(src, out, fragments):
    """out/.config as the runner makes it (runner/kconfig.c)."""
    cfg = os.path.join(out, ".config")
    if os.path.exists(cfg) and all(os.path.getmtime(cfg) > os.path.getmtime(f)
                                   for f in fragments):
        return
    make(src, out, "tinyconfig")
    subprocess.run([os.path.join(src, "scripts/kconfig/merge_config.sh"), "-m", "-O", out,
                    cfg] + fragments, cwd=out, check=True, stdout=subprocess.DEVNULL)
    make(src, out, "olddefconfig")


def preprocess(src, out, files):
    """{file: its .i text}; the objects are built first (Kbuild prepares
    the tree for them, and scsi_sysfs.c includes a table it generates for
    its object)."""
    make(src, out, *[f[:-2] + ".o" for f in files])
    make(src, out, *[f[:-2] + ".i" for f in files])
    return {f: open(os.path.join(out, f[:-2] + ".i")).read() for f in files}


def nm_functions(out, f):
    r = subprocess.run(["nm", os.path.join(out, f[:-2] + ".o")], capture_output=True,
                       text=True, check=True)
    return {w[2].split(".")[0] for w in (l.split() for l in r.stdout.splitlines())
            if len(w) == 3 and w[1] in "tT"}


def writes_state(d):
    """Does function d assign a host's, target's or device's state?"""
    b = d.body
    for i, t in enumerate(b[:-1]):
        if t in STATE_CALLS and b[i + 1] == "(":
            return True
        if b[i + 1] == "=" and i >= 2 and b[i - 1] == "->" and (
                t in ("sdev_state", "shost_state") or (t == "state" and b[i - 2] == "starget")):
            return True
    return False


def state_changers(defs):
    """(file, name) of every function in defs ({file: {name: Def}}) from
    which a state write is reached by calls (a static function only from
    its file, an external one from any)."""
    ext = {n: f for f, d in defs.items() for n, x in d.items()
           if x.kind == "function" and not x.static}
    funcs = [(f, x) for f, d in defs.items() for x in d.values() if x.kind == "function"]
    found = {(f, x.name) for f, x in funcs if writes_state(x)}
    grew = True
    while grew:
        grew = False
        for f, x in funcs:
            if (f, x.name) in found:
                continue
            callees = {(f, r) if r in defs[f] else (ext.get(r), r) for r in x.refs}
            if callees & found:
                found.add((f, x.name))
                grew = True
    return found


def pick(rules, defs, lives):
    """{file: set of names} the rules cover."""
    picked, changers = {}, None
    for f, rule, args in rules:
        funcs = {n for n in lives[f] if defs[f][n].kind == "function"}
        if rule == "all":
            picked[f] = funcs
        elif rule == "state":
            changers = changers or state_changers(defs)
            picked[f] = {n for n in funcs if (f, n) in changers}
        elif rule == "called-from":
            roots = set()
            for other in args:
                for n in lives[other]:
                    roots |= defs[other][n].refs
            picked[f] = cscope_i.reached(defs[f], sorted(roots & funcs))
        elif rule == "reached-from":
            missing = [a for a in args if a not in funcs]
            if missing:
                raise SystemExit("mutant-scope: %s: no compiled function %s" % (
                    f, ", ".join(missing)))
            picked[f] = cscope_i.reached(defs[f], args)
        else:
            raise SystemExit("mutant-scope: unknown rule %r for %s" % (rule, f))
    return picked


def why_not(d, text, n_mutants):
    """Why function d is not mutated, or None."""
    if d.exit:
        return "__exit: never runs in a built-in kernel"
    if d.variadic:
        return "variadic: the schemata cannot pass its arguments on"
    if text is None:
        return "its definition is written by a macro: no text of its own"
    if not n_mutants:
        return "no mutable operator"
    return None


def entries(rules, defs, lives, texts):
    """[(file, name, line, why)] of every compiled function of the files,
    the picked ones first per file, then those with no code."""
    picked = pick(rules, defs, lives)
    out = []
    for f, _, _ in rules:
        for name in sorted(picked[f], key=lambda n: defs[f][n].line):
            try:
                mutagen.find_function(texts[f], name)
                n = len(mutagen.generate(texts, [(f, name)]))
                found = texts[f]
            except LookupError:
                n, found = 0, None
            out.append((f, name, defs[f][name].line, why_not(defs[f][name], found, n)))
        for d in sorted(defs[f].values(), key=lambda d: d.line):
            if d.kind == "function" and d.name not in lives[f]:
                out.append((f, d.name, d.line, "no code: static, and nothing compiled uses it"))
    return out


def render(rules, defs, lives, picked_entries, version):
    lines = ["# mutant-functions: the functions the mutation campaign mutates (issue 32).",
             "# Generated by tools/mutant-scope.py from the rules in tools/mutant-scope,",
             "# linux-source-6.1 %s with the sr fix and configs/base.config: do not edit," % version,
             "# run `python3 kernel-patches/tools/mutant-scope.py --write` (make check's",
             "# t3520 fails when this list and the code disagree).",
             "#   FILE FUNCTION LINE            mutated (LINE: of its name, in the fixed source)",
             "#   FILE FUNCTION LINE -- WHY     compiled, not mutated, and why",
             "# Per file: compiled functions / picked by its rule / mutated."]
    for f, rule, args in rules:
        mine = [e for e in picked_entries if e[0] == f]
        funcs = [n for n in lives[f] if defs[f][n].kind == "function"]
        lines.append("#   %-26s %3d / %3d / %3d  (%s)" % (
            f, len(funcs), sum(1 for e in mine if not e[3] or not e[3].startswith("no code")),
            sum(1 for e in mine if not e[3]), " ".join([rule] + args[:2] +
                                                          (["..."] if len(args) > 2 else []))))
    for f, name, line, why in picked_entries:
        lines.append("%s %s %d%s" % (f, name, line, " -- " + why if why else ""))
    return "\n".join(lines) + "\n"


def source_tree(cache):
    """A full linux-source-6.1 tree to configure with O=: the runner's
    extracted base when there is one (read only), else our own copy."""
    base = os.path.join(cache, "base", "linux-source-6.1")
    if os.path.isfile(os.path.join(base, "Makefile")):
        return base
    tree = os.path.join(cache, "mutants", "scope", "src")
    if not os.path.isfile(os.path.join(tree, ".bb-extracted")):
        os.makedirs(tree, exist_ok=True)
        subprocess.run(["tar", "-xJf", TARBALL, "-C", tree, "--strip-components=1"], check=True)
        open(os.path.join(tree, ".bb-extracted"), "w").close()
    return tree


def kernel_version(src):
    mk = open(os.path.join(src, "Makefile")).read()
    v = [re.search(r"^%s = (\S*)" % k, mk, re.M).group(1)
         for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL")]
    return ".".join(v)


def derive(src, out, rules_path):
    rules = read_rules(rules_path)
    files = sorted({f for f, _, _ in rules} |
                   {a for _, r, args in rules if r == "called-from" for a in args})
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, ".bb-lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        configure(src, out, [os.path.join(KP, "configs", "base.config")])
        texts_i = preprocess(src, out, files)
        defs = {f: cscope_i.definitions(texts_i[f], f) for f in files}
        lives = {f: cscope_i.live(defs[f]) for f in files}
        for f in files:
            lost = {n for n in nm_functions(out, f) if n in defs[f]} - lives[f]
            if lost:
                raise SystemExit("mutant-scope: %s: functions with code that the reading of %s"
                                 " missed: %s" % (f, f[:-2] + ".i", " ".join(sorted(lost))))
    srfix = [os.path.join(KP, "sr-sense-valid", l.split()[0])
             for l in open(os.path.join(KP, "sr-sense-valid", "series")) if l.strip()]
    texts = mutagen.load_files(src, files, srfix)
    return render(rules, defs, lives, entries(rules, defs, lives, texts), kernel_version(src))


def cache_dir():
    d = os.environ.get("BUGBRIDGE_MUTANTS_CACHE")
    if not d:
        d = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                         os.path.expanduser("~/.cache"), "bugbridge")
    return os.path.abspath(d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", help="a pristine linux-source-6.1 tree (read only)")
    ap.add_argument("--build", help="its O= directory (default: in the mutants cache)")
    ap.add_argument("--rules", default=os.path.join(HERE, "mutant-scope"))
    ap.add_argument("--list", default=LIST, help="the list to check or write")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    cache = cache_dir()
    src = os.path.abspath(args.src or source_tree(cache))
    out = os.path.abspath(args.build or os.path.join(cache, "mutants", "scope", "out"))
    text = derive(src, out, args.rules)
    if args.write:
        with open(args.list, "w") as f:
            f.write(text)
        log("wrote %s" % args.list)
        return 0
    old = open(args.list).read() if os.path.exists(args.list) else ""
    if old == text:
        log("%s agrees with the code" % args.list)
        return 0
    sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                               args.list, "derived from the code"))
    log("%s and the code disagree: run mutant-scope.py --write" % args.list)
    return 1


if __name__ == "__main__":
    sys.exit(main())
