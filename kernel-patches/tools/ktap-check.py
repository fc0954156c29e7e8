#!/usr/bin/env python3
"""ktap-check.py: check a KTAP report from bbsuite, and what it says.

  ktap-check.py FILE [--fail NAME[:TEXT]]... [--names] [--parse-only]
               [--kunit DIR]

Parsing follows Documentation/dev-tools/ktap.rst and the kernel's
tools/testing/kunit/kunit_parser.py: a "KTAP version 1" header, a plan
"1..N", result lines "ok|not ok NUMBER NAME [# DIRECTIVE]" numbered 1..N
in order, "# " diagnostic lines; anything else is an error here (bbsuite
prints nothing else after its header).

Expectations: every test must be "ok" except the ones named with --fail,
which must be "not ok" with TEXT (if given) in their result line or in the
diagnostics printed just before it.  --names prints "ok|not ok NAME" per
test.  --parse-only checks the syntax alone.  --kunit DIR also runs the
kernel's own parser (DIR = a tree's tools/testing/kunit) and requires it to
read the same tests with the same ok/not ok.  Exit status 0 when the report parses and meets the expectations;
otherwise 1, with the reasons on stdout as "# " lines.
"""
import re
import sys

RESULT = re.compile(r"^(ok|not ok) ([0-9]+) ([^#]*?)(?: # (.*))?$")


def parse(lines):
    """Return (results, errors); results: [(ok, num, name, directive, diags)]."""
    errors, results, diags = [], [], []
    i = 0
    while i < len(lines) and not lines[i].startswith("KTAP version "):
        i += 1
    if i == len(lines):
        return [], ["no 'KTAP version' line"]
    if lines[i] != "KTAP version 1":
        errors.append("unsupported header '%s'" % lines[i])
    plan = None
    for line in lines[i + 1:]:
        if line.startswith("#"):
            if line != "#" and not line.startswith("# "):
                errors.append("bad diagnostic line '%s'" % line)
            diags.append(line[2:])
            continue
        m = re.match(r"^1\.\.([0-9]+)$", line)
        if m:
            if plan is not None or results:
                errors.append("plan '%s' not directly after the header" % line)
            plan = int(m.group(1))
            continue
        m = RESULT.match(line)
        if not m:
            errors.append("not a KTAP line: '%s'" % line)
            continue
        num = int(m.group(2))
        if num != len(results) + 1:
            errors.append("test number %d out of order" % num)
        name = m.group(3).strip()
        if not name:
            errors.append("test %d has no name" % num)
        results.append((m.group(1) == "ok", num, name, m.group(4) or "", diags))
        diags = []
    if plan is None:
        errors.append("no plan line")
    elif plan != len(results):
        errors.append("plan says %d tests, report has %d" % (plan, len(results)))
    return results, errors


def kunit_compare(kdir, lines, results):
    """Parse with tools/testing/kunit/kunit_parser.py; list disagreements."""
    import io
    import contextlib
    sys.path.insert(0, kdir)
    with contextlib.redirect_stdout(io.StringIO()):
        try:    # its printer binds sys.stdout when imported
            import kunit_parser
        except ImportError as e:
            return ["cannot import kunit_parser from %s: %s" % (kdir, e)]
        test = kunit_parser.parse_run_tests(lines)
    theirs = [(t.name, t.status.name == "SUCCESS") for t in test.subtests]
    ours = [(name, ok) for ok, _, name, _, _ in results]
    if theirs != ours:
        return ["kunit_parser reads %s, we read %s" % (theirs, ours)]
    if test.counts.errors:
        return ["kunit_parser reports %d parse errors" % test.counts.errors]
    return []


def main(argv):
    path, fails, names, parse_only, kunit = None, {}, False, False, None
    args = iter(argv[1:])
    for a in args:
        if a == "--fail":
            spec = next(args)
            name, _, text = spec.partition(":")
            fails[name] = text
        elif a == "--names":
            names = True
        elif a == "--parse-only":
            parse_only = True
        elif a == "--kunit":
            kunit = next(args)
        else:
            path = a
    if not path:
        print("usage: ktap-check.py FILE [--fail NAME[:TEXT]]... [--names]")
        return 2
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f]
    results, errors = parse(lines)
    seen = set()
    for ok, num, name, directive, diags in results:
        seen.add(name)
        if names:
            print("%s %s%s" % ("ok" if ok else "not ok", name,
                               " # " + directive if directive else ""))
        if parse_only:
            continue
        if name in fails:
            text = fails[name]
            if ok:
                errors.append("%s: ok, expected not ok" % name)
            elif text and text not in directive and not any(text in d for d in diags):
                errors.append("%s: not ok, but '%s' is not named" % (name, text))
        elif not ok:
            errors.append("%s: not ok # %s" % (name, directive))
    for name in fails:
        if name not in seen and not parse_only:
            errors.append("%s: missing from the report" % name)
    if kunit:
        errors += kunit_compare(kunit, lines, results)
    for e in errors:
        print("# " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
