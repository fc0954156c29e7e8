"""mutants_report.py: the mutation campaign's report (mutants.py, issue 32).

    report(mutants, results, triage, areas) -> text

mutants: the manifest's dicts (id, file, line, func, op, before, after);
results: {id: mutants.py's outcome, with tests (the selection, None for
the whole suite)}; triage: {id: (kind, why)} from mutants/triage; areas:
read_areas().  The text has, in this order:

  - per file: mutants, killed (timeouts among them), survived, equivalent,
    did not compile, and the kill rate of the non-equivalent, so that a
    weak file shows;
  - the totals and the overall kill rate;
  - for every kill, how many tests failed: median and maximum overall and
    per file (a panic or a hang counts the test it happened in; a kernel
    that died before the first test counts none and is named);
  - a table per function;
  - every kill with more than one failed test (one bug, one failing test:
    each is a cascade or a mutant that breaks several things, to explain);
  - the survivors by area (mutants/areas) and file, with file:line, the
    mutation and the triage line.

Nothing in it depends on timing: the same results give the same text.
A survivor's triage is found by its id: an id is a hash of the file, the
function, the place relative to the function's body, the mutation and the
line's text (mutagen.py), not of the sample or the list, so a triage line
follows its mutant into any sample that draws it (all 254 ids of the
triage of issues 15 and 24 are among issue 32's candidates).
"""
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
AREAS = os.path.join(os.path.dirname(HERE), "mutants", "areas")
COLUMNS = ("killed", "timeout", "survived", "equivalent", "no-compile", "error")


def read_areas(path=AREAS):
    """[(area, file base name, regex)] in the file's order."""
    out = []
    for line in open(path):
        words = line.split("#", 1)[0].split()
        if len(words) >= 3:
            out.append((words[0], words[1], re.compile(words[2])))
    return out


def area_of(areas, m):
    base = os.path.basename(m["file"])
    for area, f, rx in areas:
        if f == base and rx.fullmatch(m["func"]):
            return area
    return "other (%s)" % base


def status_of(m, r, triage):
    st = r["status"]
    if st == "survived" and triage_of(m, triage)[0] == "equivalent":
        return "equivalent"
    return "error" if st == "no-apply" else st


def triage_of(m, triage):
    return triage.get(m["id"], ("untriaged", ""))


def unreached(r):
    return r.get("verdict") == "unreached"


def failed_count(r):
    """Tests a kill failed: reported not ok, and the one a panic or hang
    happened in."""
    return len(r.get("failed", [])) + (1 if r.get("crashed") not in (None, "boot") else 0)


def rate(detected, judged):
    return "%5.1f%%" % (100.0 * detected / judged) if judged else "    -"


def file_table(mutants, results, triage):
    rows = {}
    for m in mutants:
        row = rows.setdefault(m["file"], dict.fromkeys(COLUMNS, 0))
        row[status_of(m, results[m["id"]], triage)] += 1
        row.setdefault("funcs", set()).add(m["func"])
    for m in mutants:
        if unreached(results[m["id"]]) and status_of(m, results[m["id"]], triage) == "survived":
            rows[m["file"]]["unreached"] = rows[m["file"]].get("unreached", 0) + 1
    out = ["%-28s %5s %7s %7s %7s %8s %9s %10s %10s %5s %9s" % (
        "file", "funcs", "mutants", "killed", "timeout", "survived", "unreached",
        "equivalent", "no-compile", "error", "kill rate")]
    total = dict.fromkeys(COLUMNS + ("unreached",), 0)
    for f in sorted(rows):
        r = rows[f]
        det = r["killed"] + r["timeout"]
        out.append("%-28s %5d %7d %7d %7d %8d %9d %10d %10d %5d %9s" % (
            f, len(r["funcs"]), sum(r[c] for c in COLUMNS), det, r["timeout"], r["survived"],
            r.get("unreached", 0), r["equivalent"], r["no-compile"], r["error"],
            rate(det, det + r["survived"])))
        for c in COLUMNS:
            total[c] += r[c]
        total["unreached"] += r.get("unreached", 0)
    det = total["killed"] + total["timeout"]
    out.append("%-28s %5d %7d %7d %7d %8d %9d %10d %10d %5d %9s" % (
        "total", len({(m["file"], m["func"]) for m in mutants}), len(mutants), det,
        total["timeout"], total["survived"], total["unreached"], total["equivalent"],
        total["no-compile"], total["error"], rate(det, det + total["survived"])))
    out.append("(killed includes the timeouts; survived includes the unreached: mutants"
               " of functions that ran neither at boot nor in any test of the clean run,"
               " counted without a boot; kill rate = killed / (killed + survived), the"
               " equivalents left out)")
    return out, total


def counts_section(mutants, results, triage):
    kills = [(m, results[m["id"]]) for m in mutants
             if status_of(m, results[m["id"]], triage) in ("killed", "timeout")]
    out = ["failed tests per kill (a panic or hang counts the test it happened in):"]
    if not kills:
        return out + ["  no kills"]

    def line(label, ks):
        n = [failed_count(r) for _, r in ks]
        one = sum(1 for x in n if x == 1)
        boot = sum(1 for _, r in ks if r.get("crashed") == "boot")
        return "  %-28s %5d kills: median %d, max %d; 1 test: %d, more: %d%s" % (
            label, len(ks), statistics.median_low(n), max(n), one,
            sum(1 for x in n if x > 1), ", none (died at boot): %d" % boot if boot else "")
    out.append(line("all", kills))
    for f in sorted({m["file"] for m, _ in kills}):
        out.append(line(f, [(m, r) for m, r in kills if m["file"] == f]))
    hist = {}
    for _, r in kills:
        n = failed_count(r)
        b = "0" if n == 0 else str(n) if n <= 3 else "4-10" if n <= 10 else "11-30" \
            if n <= 30 else ">30"
        hist[b] = hist.get(b, 0) + 1
    order = ["0", "1", "2", "3", "4-10", "11-30", ">30"]
    out.append("  distribution: " + ", ".join("%s: %d" % (b, hist[b]) for b in order
                                                if b in hist))
    return out


def function_table(mutants, results, triage):
    rows = {}
    for m in mutants:
        row = rows.setdefault((m["file"], m["func"]), dict.fromkeys(COLUMNS, 0))
        row[status_of(m, results[m["id"]], triage)] += 1
    out = ["%-36s %-16s %6s %7s %8s %10s %10s %5s" % (
        "function", "file", "killed", "timeout", "survived", "equivalent", "no-compile",
        "error")]
    for f, func in sorted(rows):
        r = rows[(f, func)]
        out.append("%-36s %-16s %6d %7d %8d %10d %10d %5d" % (
            func, os.path.basename(f), r["killed"], r["timeout"], r["survived"],
            r["equivalent"], r["no-compile"], r["error"]))
    return out


def where(m):
    return "%s %s:%d %s: %s  =>  %s" % (m["id"], os.path.basename(m["file"]), m["line"],
                                        m["op"], m["before"], m["after"])


def many_section(mutants, results, triage):
    many = [(m, results[m["id"]]) for m in mutants
            if status_of(m, results[m["id"]], triage) in ("killed", "timeout") and
            failed_count(results[m["id"]]) > 1]
    out = ["kills with more than one failed test: %d (each a cascade or a mutant that breaks"
           " several things, to explain):" % len(many)]
    for m, r in sorted(many, key=lambda x: (x[0]["file"], x[0]["line"], x[0]["id"])):
        crashed = r.get("crashed")
        crash = "; %s in %s, the first test without a result" % (
            "panicked" if r.get("verdict") == "panic" else "hung", crashed) \
            if crashed not in (None, "boot") else ""
        out.append("  %s" % where(m))
        out.append("      %d failed of %d run%s: %s" % (
            failed_count(r), r.get("ran", 0) + (1 if crash else 0), crash,
            ", ".join(r.get("failed", []))))
    return out


def survivors_section(mutants, results, triage, areas):
    surv = [m for m in mutants if results[m["id"]]["status"] == "survived"]
    by_area = {}
    for m in surv:
        by_area.setdefault(area_of(areas, m), []).append(m)
    out = ["survivors by area (%d; unreached: their function ran neither at boot nor in"
           " any test; triage: kernel-patches/mutants/triage):" % len(surv),
           "  %-28s %9s %9s %10s  %s" % ("area", "survivors", "unreached", "equivalent",
                                          "files")]
    order = sorted(by_area, key=lambda a: (-len(by_area[a]), a))
    for area in order:
        ms = by_area[area]
        out.append("  %-28s %9d %9d %10d  %s" % (
            area, len(ms), sum(1 for m in ms if unreached(results[m["id"]])),
            sum(1 for m in ms if triage_of(m, triage)[0] == "equivalent"),
            " ".join(sorted({os.path.basename(m["file"]) for m in ms}))))
    for area in order:
        out.append("")
        out.append("== %s (%d)" % (area, len(by_area[area])))
        for m in sorted(by_area[area], key=lambda m: (m["file"], m["line"], m["id"])):
            kind, why = triage_of(m, triage)
            out.append("  %s" % where(m))
            out.append("      %s%s%s" % ("unreached; " if unreached(results[m["id"]]) else "",
                                         kind, ": " + why if why else ""))
    return out


def report(mutants, results, triage, areas):
    out, total = file_table(mutants, results, triage)
    det = total["killed"] + total["timeout"]
    judged = det + total["survived"]
    out += ["", "generated %d, compiled %d, did not compile %d, errors %d" % (
        len(mutants), len(mutants) - total["no-compile"] - total["error"],
        total["no-compile"], total["error"]),
        "killed %d (of which timed out %d) of %d non-equivalent: %.1f%%; survived %d, "
        "equivalent %d" % (det, total["timeout"], judged,
                           100.0 * det / judged if judged else 0.0, total["survived"],
                           total["equivalent"])]
    booted = [results[m["id"]] for m in mutants
              if results[m["id"]]["status"] not in ("no-compile", "error")]
    ran = [r.get("tests") for r in booted if not unreached(r)]
    some = sorted(len(t) for t in ran if t)
    out.append("tests per mutant: %d got the whole suite (their function runs at boot), %d"
               " only the tests that ran their function (%s), %d none (unreached, no boot)" % (
                   sum(1 for t in ran if not t), len(some),
                   "%d to %d, median %d" % (some[0], some[-1], some[len(some) // 2])
                   if some else "none", sum(1 for r in booted if unreached(r))))
    if any(results[m["id"]].get("stop") for m in mutants):
        out.append("(bbsuite.stop=1: boots stopped at their first failure; the counts below"
                   " are not the tests each kill fails)")
    for section in (counts_section(mutants, results, triage),
                    function_table(mutants, results, triage),
                    many_section(mutants, results, triage),
                    survivors_section(mutants, results, triage, areas)):
        out += [""] + section
    return "\n".join(out) + "\n"
