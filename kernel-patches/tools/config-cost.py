#!/usr/bin/env python3
"""config-cost.py [--all] SRC COST_LOG BUILD_SECONDS FRAGMENT...

What each option of a kernel config costs to build: every object the
build compiled (COST_LOG, written by timecc.sh: "milliseconds output" per
compiler or linker run) is charged to the option that brings it into the
build, read from the kbuild Makefiles the way kbuild reads them:

  obj-$(CONFIG_X) += foo.o      foo.o is X's
  foo-y += a.o / foo-objs       a.o is foo.o's, and so whoever has foo.o
  foo-$(CONFIG_Y) += b.o        b.o is Y's (an option inside a driver)
  obj-y += sub/                 sub/'s objects go to whoever has sub/
  obj-$(CONFIG_X) += sub/       ... here, to X

Objects that no option gates (obj-y up to the top) are the core every
config pays for.  The final links of vmlinux that exist only for kallsyms
(.tmp_vmlinux.kallsyms*) are CONFIG_KALLSYMS's.  Prints one table row per
option: objects, CPU seconds (the sum of the runs' wall times, so with
-jN the build's wall time is about CPU / N), and that share of the
measured BUILD_SECONDS; options the fragments ask for are marked, the rest
came in through select or default (with --all each of those gets a row;
without, the largest few and one row for the rest).
"""
import os
import re
import sys

ASSIGN = re.compile(r"^([A-Za-z0-9_.-]+?)-(\$\((CONFIG_[A-Z0-9_]+)\)|y|objs)\s*[:+]?=\s*(.*)$")


def logical_lines(path):
    """The Makefile's lines with backslash continuations joined."""
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return []
    text = re.sub(r"\\\n", " ", text)
    return [line.split("#", 1)[0].strip() for line in text.splitlines()]


class Kbuild:
    def __init__(self, src):
        self.src = src
        self.rules = {}

    def dir_rules(self, d):
        """(owner, condition or None, member) for each assignment in d."""
        if d not in self.rules:
            rules = []
            for name in ("Kbuild", "Makefile"):
                for line in logical_lines(os.path.join(self.src, d, name)):
                    m = ASSIGN.match(line)
                    if not m:
                        continue
                    owner, cond, members = m.group(1), m.group(3), m.group(4)
                    for member in members.split():
                        rules.append((owner, cond, member))
            self.rules[d] = rules
        return self.rules[d]

    def gate(self, d, member, depth=0):
        """The option that brings `member` (foo.o or sub/) of dir d in, or None."""
        if depth > 12:
            return None
        for owner, cond, m in self.dir_rules(d):
            if m != member:
                continue
            if cond:
                return cond
            if owner in ("obj", "lib", "core", "drivers", "libs", "head"):
                return self.gate_dir(d, depth + 1)
            return self.gate(d, owner + ".o", depth + 1)
        return self.gate_dir(d, depth + 1)

    def gate_dir(self, d, depth):
        if not d or d == ".":
            return None
        parent, base = os.path.split(d)
        # arch/x86/Makefile and the top Kbuild name top-level dirs by path
        for top in ("arch/x86", ""):
            for owner, cond, m in self.dir_rules(top):
                if m.rstrip("/") == d and m.endswith("/"):
                    return cond if cond else None
        return self.gate(parent, base + "/", depth)


SHOWN_IMPLIED = 6


def main():
    args = sys.argv[1:]
    show_all = args[:1] == ["--all"]
    if show_all:
        args = args[1:]
    src, log, wall = args[0], args[1], float(args[2])
    asked = set()
    for frag in args[3:]:
        for line in open(frag):
            m = re.match(r"^(CONFIG_[A-Z0-9_]+)=", line)
            if m:
                asked.add(m.group(1))
    kb = Kbuild(src)
    cost, count = {}, {}
    total = 0.0
    for line in open(log):
        ms, out = line.split(None, 1)
        out = out.strip()
        sec = int(ms) / 1000.0
        base = os.path.basename(out)
        if base.startswith(".tmp_vmlinux.kallsyms"):
            opt = "CONFIG_KALLSYMS"
        elif out.endswith(".o") and not base.startswith(".tmp"):
            opt = kb.gate(os.path.dirname(out), base)
        else:
            opt = None
        opt = opt or "(core: no option gates it)"
        cost[opt] = cost.get(opt, 0.0) + sec
        count[opt] = count.get(opt, 0) + 1
        total += sec
    share = lambda c: wall * c / total if total else 0
    print("| option | asked | runs | CPU s | share of the %.0f s build |" % wall)
    print("|--------|-------|------|-------|------|")
    implied_shown, rest_runs, rest_cost, rest_n = 0, 0, 0.0, 0
    for opt in sorted(cost, key=lambda o: -cost[o]):
        mark = "yes" if opt in asked else ("" if opt.startswith("(") else "implied")
        if mark == "implied" and not show_all:
            if implied_shown >= SHOWN_IMPLIED:
                rest_runs, rest_cost, rest_n = rest_runs + count[opt], rest_cost + cost[opt], rest_n + 1
                continue
            implied_shown += 1
        print("| %s | %s | %d | %.1f | %.1f s |" % (opt, mark, count[opt], cost[opt], share(cost[opt])))
    if rest_n:
        print("| %d other options | implied | %d | %.1f | %.1f s |" % (rest_n, rest_runs, rest_cost, share(rest_cost)))
    print("| total | | %d | %.1f | %.1f s |" % (sum(count.values()), total, wall))


if __name__ == "__main__":
    main()
