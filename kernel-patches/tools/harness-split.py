#!/usr/bin/env python3
"""harness-split.py: the harness's last patch, scsi_bbtest split by concern.

    harness-split.py [--check] [--dump]

The harness grew as a series (kernel-patches/harness/0001...), each patch
adding to one file, drivers/scsi/scsi_bbtest.c, that became one of 2,000
lines.  Rewriting the earlier patches would lose their history and their
reasons; instead the series ends with a patch, made by this script, that
replaces the file by a composite module of files by concern (FILES below),
each under the house's 700 lines (tools/check-size.sh holds them to it).

The script applies the series up to that patch (only its scsi_bbtest.c
parts, into a scratch directory), cuts the file into its top-level items
(a function, a declaration, a type, with the comment above it; a module
parameter's macros go with the item before them), gives each item to the
file FILES names for it, and writes the patch:
  - an item used by another file loses its "static" and is declared in
    scsi_bbtest.h (with the types more than one file uses);
  - such a variable that does not start with bbt_ is renamed bbt_<name>
    (the kernel's namespace is shared when the driver is built in); its
    module parameter keeps its name (module_param_named), so
    /sys/module/scsi_bbtest/parameters/ and scsi_bbtest.x= do not change
    (KBUILD_MODNAME of a composite's parts is the composite's name).
An item FILES does not name stops the script: a new item needs a home.
Regenerate after an earlier harness patch changed (--check: exit 1 when
the patch on disk is not what the series makes now).
"""
import os
import re
import subprocess
import sys
import tempfile
import textwrap

KP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.environ.get("HARNESS_DIR") or os.path.join(KP, "harness")
SPLIT = "scsi_bbtest-split-by-concern.patch"
SRC = "drivers/scsi/scsi_bbtest.c"

# file: (what it holds, patterns of the item names it takes); first match wins.
FILES = [
    ("scsi_bbtest_rules.c", "rules: parsing, matching, the rules debugfs file", [
        r"bbt_parse_long", r"bbt_parse_rule", r"bbt_clear_rules", r"bbt_rules_\w+",
        r"bbt_rule_matches", r"bbt_cdb_rule", r"bbt_cdb_apply"]),
    ("scsi_bbtest_sense.c", "sense, REQUEST SENSE, refused and replied commands", [
        r"bbt_set_sense", r"bbt_refuse", r"bbt_reply", r"bbt_request_sense"]),
    ("scsi_bbtest_eh.c", "the error handler's abort and resets, their parameters and counts", [
        r"bbt_eh_\w+", r"reset_fails", r"bus_reset_ms", r"reset_offlines",
        r"bbt_resets_\w+", r"bbt_drop", r"bbt_forget"]),
    ("scsi_bbtest_scan.c", "the scan target: INQUIRY, REPORT LUNS, the scan log", [
        r"BBT_SCAN_\w+", r"scan_\w+", r"bbt_scan_\w+", r"bbt_set_scan_target",
        r"bbt_report_luns"]),
    ("scsi_bbtest_timing.c", "held and twice-completed commands (timing rules)", [
        r"bbt_priv", r"bbt_held\w*", r"bbt_timing\w*", r"bbt_release_held",
        r"bbt_cancel_held"]),
    ("scsi_bbtest_cd.c", "the CD: TOC, GET EVENT STATUS NOTIFICATION, media events", [
        r"bbt_toc_desc", r"cd_gesn", r"cd_event", r"cd_media", r"cd_ms_offset",
        r"bbt_gesn", r"bbt_read_toc\w*"]),
    ("scsi_bbtest_media.c", "the media: stored blocks, READ and WRITE, the media debugfs file", [
        r"bbt_media\w*", r"bbt_pattern", r"bbt_fill", r"bbt_store", r"bbt_rw_decode",
        r"bbt_rw"]),
    ("scsi_bbtest_disk.c", "the disk: quirks, capacity, INQUIRY and VPD, queue depth", [
        r"disk_(?!blocks$)\w+", r"bbt_set_disk_\w+", r"bbt_disk_\w+", r"bbt_vpd", r"bbt_inquiry",
        r"bbt_read_capacity", r"track_queue_depth", r"bbt_set_track_queue_depth",
        r"bbt_track_queue_depth_ops", r"bbt_timeout_ms"]),
    ("scsi_bbtest_debugfs.c", "the counting debugfs files: log, opcodes, timeouts, sdev_flags", [
        r"bbt_log_(show|open|write|fops)", r"bbt_opcodes_\w+", r"bbt_timeouts_\w+",
        r"BBT_CC_UA", r"bbt_flag_names", r"bbt_sdev_flags_\w+"]),
    ("scsi_bbtest_main.c", "the host: parameters of its devices, execute, queuecommand, init and exit", [
        r"#include", r"BBT_\w+", r"bbt_op", r"bbt_rule", r"bbt_log_entry", r"bbt_lock",
        r"bbt_rules", r"bbt_log", r"bbt_seq", r"bbt_pdev", r"bbt_shost", r"bbt_dir",
        r"bbt_opcount", r"bbt_dropped", r"bbt_refused", r"bbt_blksz", r"bbt_capacity",
        r"disk_blocks", r"cd_\w+", r"bbt_template", r"bbt_execute", r"bbt_queuecommand", r"bbt_init",
        r"bbt_exit", r"MODULE_\w+", r"late_initcall", r"module_exit"]),
]
HEADER = "scsi_bbtest.h"
MACROS = re.compile(r"(module_param\w*|MODULE_PARM_DESC|late_initcall|module_init|"
                    r"module_exit|MODULE_\w+)\(")


def die(msg):
    sys.exit("harness-split: " + msg)


def series():
    with open(os.path.join(HARNESS, "series")) as f:
        names = [l.split()[0] for l in f if l.strip() and not l.startswith("#")]
    return names


def scsi_bbtest_parts(text):
    """The parts of a git format-patch that touch drivers/scsi/scsi_bbtest*."""
    out, keep = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git "):
            keep = " a/drivers/scsi/scsi_bbtest" in line
        if keep:
            out.append(line)
    return "".join(out)


def applied_source(upto):
    with tempfile.TemporaryDirectory() as tmp:
        for name in upto:
            with open(os.path.join(HARNESS, name)) as f:
                part = scsi_bbtest_parts(f.read())
            r = subprocess.run(["patch", "-p1", "-s", "-f", "--no-backup-if-mismatch",
                                "-d", tmp], input=part, text=True, capture_output=True)
            if r.returncode:
                die("%s does not apply: %s" % (name, r.stdout + r.stderr))
        with open(os.path.join(tmp, SRC)) as f:
            return f.read()


def code_only(text):
    """text with comments, strings and character constants blanked."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'',
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


class Item:
    def __init__(self, lines, code):
        self.lines, self.code = lines, code
        self.kind, self.name = classify(code)
        self.file = None
        self.macros = []	# module_param() and such that follow it


def classify(code):
    c = code.strip()
    if c.startswith("#"):
        m = re.match(r"#\s*(define)\s+(\w+)", c)
        return ("define", m.group(2)) if m else ("pp", "#include")
    m = MACROS.match(c)
    if m:
        return "macro", m.group(1)
    flat = " ".join(c.split())
    m = re.match(r"(static\s+)?(DEFINE_SPINLOCK|LIST_HEAD)\((\w+)\);$", flat)
    if m:
        return "var", m.group(3)
    if re.match(r"(enum|struct)\s+(\w+\s*)?\{", flat) and "=" not in flat.split("{")[0]:
        m = re.match(r"(enum|struct)\s+(\w+)?\s*\{\s*(\w+)", flat)
        return "type", m.group(2) or m.group(3)
    head = flat.split("=")[0].split("{")[0]
    if flat.endswith("}") and "(" in head:
        return "func", re.search(r"(\w+)\s*\(", head).group(1)
    if flat.endswith(");") and "(" in head and "=" not in flat:
        return "proto", re.search(r"(\w+)\s*\(", head).group(1)
    m = re.search(r"(\w+)\s*(\[[^]]*\]\s*)*(=|;|,)", flat)
    return "var", m.group(1)


def items_of(text):
    """Top-level items, each with the comment and blank lines before it."""
    code = code_only(text)
    lines, clines = text.splitlines(keepends=True), code.splitlines(keepends=True)
    items, cur, ccur, depth, paren = [], [], [], 0, 0
    for line, cl in zip(lines, clines):
        cur.append(line)
        ccur.append(cl)
        depth += cl.count("{") - cl.count("}")
        paren += cl.count("(") - cl.count(")")
        s = cl.strip()
        if depth or paren or not s:
            continue
        if s.startswith("#") or s.endswith(";") or s.endswith("}") or s.endswith(":"):
            if s.endswith("\\"):
                continue
            items.append(Item(cur, "".join(ccur)))
            cur, ccur = [], []
    if "".join(cur).strip():
        die("text after the last item: %r" % "".join(cur)[:200])
    tail = cur
    return items, tail


def place(items):
    """Each item's file; macros and #if blocks go with the item before."""
    out, prev = [], None
    for it in items:
        if it.kind == "macro" and prev is not None and it.name.startswith("module_param") \
           or it.kind == "macro" and it.name == "MODULE_PARM_DESC":
            prev.macros.append(it)
            continue
        for fname, _, pats in FILES:
            if any(re.fullmatch(p, it.name) for p in pats):
                it.file = fname
                break
        else:
            die("no file for %s %s (add it to FILES)" % (it.kind, it.name))
        out.append(it)
        prev = it
    return out



def names_of(it):
    """The identifiers an item defines."""
    if it.kind == "type":
        flat = " ".join(it.code.split())
        m = re.match(r"(enum|struct)\s+(\w+)?", flat)
        names = [m.group(2)] if m.group(2) else []
        if m.group(1) == "enum":
            body = flat[flat.index("{") + 1:flat.rindex("}")]
            names += [e.split("=")[0].strip() for e in body.split(",") if e.strip()]
        return names
    if it.kind == "var":
        flat = " ".join(it.code.split())
        if "=" not in flat and "(" not in flat and "," in flat:
            return [re.search(r"(\w+)\s*(\[[^]]*\]\s*)*$", d.strip().rstrip(";")).group(1)
                    for d in flat.rstrip(";").split(",")]
    return [it.name] if it.kind in ("define", "func", "proto", "var") else []


def tokens(text):
    return set(re.findall(r"[A-Za-z_]\w*", text))


def text_of(it):
    return "".join(it.lines) + "".join("".join(m.lines) for m in it.macros)


def code_of(it):
    return it.code + "".join(m.code for m in it.macros)


def unstatic(text):
    """text without the "static " of its first declaration, its continuation
    lines aligned again under the opening parenthesis."""
    m = re.search(r"^static\s+", text, flags=re.M)
    if not m:
        return text
    text = text[:m.start()] + text[m.end():]
    lines = text[m.start():].split("\n")
    first = lines[0].expandtabs(8)
    col = first.find("(") + 1
    i = 1
    while col > 0 and i < len(lines) and lines[0].rstrip().endswith(",") is not None:
        if not lines[i - 1].rstrip().endswith(","):
            break
        rest = lines[i].lstrip()
        lines[i] = "\t" * (col // 8) + " " * (col % 8) + rest
        i += 1
    return text[:m.start()] + "\n".join(lines)


def decl_head(it):
    """A function's head, as written (without static), for its prototype."""
    head, started = [], False
    for line, cl in zip(it.lines, it.code.splitlines(keepends=True)):
        if not started and not cl.strip():
            continue
        started = True
        if line.startswith("{"):
            break
        head.append(line)
    return unstatic("".join(head).rstrip()) + ";\n"


def extern_of(it):
    flat = " ".join(it.code.split())
    m = re.match(r"(static\s+)?(DEFINE_SPINLOCK|LIST_HEAD)\((\w+)\);$", flat)
    if m:
        typ = "spinlock_t" if m.group(2) == "DEFINE_SPINLOCK" else "struct list_head"
        return "extern %s %s;\n" % (typ, m.group(3))
    decl = re.sub(r"^static\s+", "", flat.split("=")[0].rstrip(" ;"))
    return "extern %s;\n" % decl.strip()


def rename(text, old, new):
    """old -> new in code, not in comments, strings or a parameter's name."""
    code = code_only(text)
    out, last = [], 0
    for m in re.finditer(r"\b%s\b" % re.escape(old), code):
        if re.search(r"(module_param\w*|MODULE_PARM_DESC)\(\s*$", code[:m.start()]):
            continue
        out.append(text[last:m.start()] + new)
        last = m.end()
    return "".join(out) + text[last:]


def param_named(text, old, new):
    text = re.sub(r"\bmodule_param\(%s," % old, "module_param_named(%s, %s," % (old, new), text)
    return re.sub(r"\bmodule_param_array\(%s," % old,
                  "module_param_array_named(%s, %s," % (old, new), text)


def split(items):
    """{file: text}: the composite's sources and its header."""
    owner = {}
    for it in items:
        for n in names_of(it):
            if it.kind != "proto":
                owner.setdefault(n, it.file)
    used = {}
    for it in items:
        used.setdefault(it.file, set()).update(tokens(code_of(it)))
    shared = {n for n, f in owner.items() if any(n in u for g, u in used.items() if g != f)}
    in_header = set()
    header_types, header_decls = [], {}
    # Types and macros the header needs: shared ones and those it names.
    while True:
        need = set(shared)
        for it in items:
            if it.kind in ("var", "func") and set(names_of(it)) & shared:
                need |= tokens(extern_of(it) if it.kind == "var" else decl_head(it))
        for it in items:
            if it.kind in ("pp", "define", "type") and set(names_of(it)) & need:
                in_header.add(id(it))
        grown = False
        for it in items:
            if id(it) in in_header:
                for t in tokens(it.code):
                    if t in owner and t not in shared and owner[t] is not None:
                        shared.add(t)
                        grown = True
        if not grown:
            break
    renames = {n: "bbt_" + n for n in shared if not n.startswith(("bbt_", "BBT_"))
               and any(it.kind == "var" and n in names_of(it) for it in items)}
    files = {}
    seen_extern = set()
    for it in items:
        text = text_of(it)
        for old, new in renames.items():
            text = param_named(rename(text, old, new), old, new)
        names = set(names_of(it))
        if it.kind == "pp" or id(it) in in_header:
            header_types.append(text)
            continue
        if it.kind == "proto" and it.name in shared:
            continue
        if it.kind == "var" and names & shared and "=" not in it.code and \
           sum(1 for j in items if j.kind == "var" and it.name in names_of(j)) > 1:
            continue	# a tentative definition before the real one
        if it.kind in ("func", "var") and names & shared:
            text = unstatic(text)
            decl = decl_head(it) if it.kind == "func" else extern_of(it)
            for old, new in renames.items():
                decl = rename(decl, old, new)
            if it.name not in seen_extern:
                header_decls.setdefault(it.file, []).append(decl)
                seen_extern.add(it.name)
        done = files.setdefault(it.file, [])
        if done and done[-1].endswith("}\n") and not text.startswith("\n"):
            text = "\n" + text	# a function's neighbours keep their distance
        done.append(text)
    return files, header_types, header_decls


def tidy(text):
    return re.sub(r"\n{3,}", "\n\n", text).lstrip("\n")


def sources(items):
    files, header_types, header_decls = split(items)
    out = {}
    for fname, what, _ in FILES:
        if fname not in files:
            continue
        body = tidy("".join(files[fname]))
        what = textwrap.fill("%s: %s (the module: scsi_bbtest.h)." % (fname, what), 75,
                             initial_indent=" * ", subsequent_indent=" * ")
        out[fname] = ("// SPDX-License-Identifier: GPL-2.0\n/*\n%s\n */\n"
                      "#include \"scsi_bbtest.h\"\n\n" % what) + body
    top = tidy("".join(header_types))
    top = top.replace("// SPDX-License-Identifier: GPL-2.0\n", "", 1)
    doc_end = top.index("*/\n") + 3
    hdr = ["/* SPDX-License-Identifier: GPL-2.0 */\n", top[:doc_end],
           "#ifndef SCSI_BBTEST_H\n#define SCSI_BBTEST_H\n\n", top[doc_end:].lstrip("\n")]
    for fname, what, _ in FILES:
        if header_decls.get(fname):
            hdr.append("\n/* %s */\n" % fname)
            hdr.extend(header_decls[fname])
    hdr.append("\n#endif /* SCSI_BBTEST_H */\n")
    out[HEADER] = "".join(hdr)
    return out


PATCH_HEAD = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: bugbridge <bugbridge@localhost>
Date: Mon, 7 Dec 2026 22:00:00 +0000
Subject: [PATCH] scsi_bbtest: split by concern (a composite module)

The harness series made scsi_bbtest.c one file of %(lines)d lines.  This
patch, the series' last, replaces it by a composite module of files by
concern, each under 700 lines.  It is generated by
kernel-patches/tools/harness-split.py from the patches before it: nothing
in a function changes but "static" on what another file uses (declared in
scsi_bbtest.h) and the bbt_ prefix on such variables; module parameters
keep their names (scsi_bbtest.NAME=, /sys/module/scsi_bbtest/parameters).

Signed-off-by: bugbridge <bugbridge@localhost>
---
"""

MAKEFILE_HUNK = """diff --git a/drivers/scsi/Makefile b/drivers/scsi/Makefile
--- a/drivers/scsi/Makefile
+++ b/drivers/scsi/Makefile
@@ -156,4 +156,6 @@ obj-$(CONFIG_SCSI_HISI_SAS) += hisi_sas/
 # This goes last, so that "real" scsi devices probe earlier
 obj-$(CONFIG_SCSI_DEBUG)	+= scsi_debug.o
 obj-$(CONFIG_SCSI_BBTEST)	+= scsi_bbtest.o
+scsi_bbtest-y			:= %s
 # gcov data for this directory when the kernel has CONFIG_GCOV_KERNEL
"""


def make_patch(text, out):
    objs = sorted((f[:-2] + ".o" for f, _, _ in FILES if f in out),
                  key=lambda o: not o.endswith("_main.o"))
    # kbuild style: continued lines under the first object
    line, rows = "", []
    for o in objs:
        if line and len(line) + len(o) > 52:
            rows.append(line + " \\")
            line = ""
        line += (" " if line else "") + o
    rows.append(line)
    mk = MAKEFILE_HUNK % ("\n+\t\t\t\t   ".join(rows))
    mk = mk.replace("@@ -156,4 +156,6 @@", "@@ -156,4 +156,%d @@" % (4 + len(rows)))
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "drivers/scsi")
        os.makedirs(d)
        run = lambda *a: subprocess.run(["git", "-C", tmp] + list(a), check=True,
                                        capture_output=True, text=True).stdout
        run("init", "-q")
        with open(os.path.join(tmp, SRC), "w") as f:
            f.write(text)
        mk_body = mk.splitlines(True)[4:]	# its lines, for the stat
        with open(os.path.join(d, "Makefile"), "w") as f:
            f.write("".join(l[1:] for l in mk_body if l.startswith(" ")))
        run("add", "-A")
        run("-c", "user.name=bb", "-c", "user.email=bb@localhost", "commit", "-qm", "a")
        os.unlink(os.path.join(tmp, SRC))
        for name, body in out.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(body)
        with open(os.path.join(d, "Makefile"), "w") as f:
            f.write("".join(l[1:] for l in mk_body))
        run("add", "-A")
        diff = run("diff", "--cached", "--no-renames", "--no-color", "--full-index",
                   "--", ".", ":!drivers/scsi/Makefile")
        stat = run("diff", "--cached", "--no-renames", "--stat=72")
    diff = re.sub(r"^index ([0-9a-f]{7})[0-9a-f]*\.\.([0-9a-f]{7})[0-9a-f]*",
                  r"index \1..\2", diff, flags=re.M)
    return (PATCH_HEAD % {"lines": text.count("\n")} + stat.replace(
        " files changed", " files changed", 1) + "\n" + mk + diff + "-- \n2.39.5\n\n")


def main():
    names = series()
    mine = [n for n in names if n.endswith(SPLIT)]
    upto = names[:names.index(mine[0])] if mine else names
    text = applied_source(upto)
    items, _ = items_of(text)
    items = place(items)
    if "--dump" in sys.argv:
        for it in items:
            print("%-22s %-7s %-28s %d" % (it.file, it.kind, it.name, len(it.lines)))
        return
    out = sources(items)
    if "--files" in sys.argv:
        d = sys.argv[sys.argv.index("--files") + 1]
        for name, body in out.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(body)
        return
    patch = make_patch(text, out)
    name = mine[0] if mine else "%04d-%s" % (len(upto) + 1, SPLIT)
    path = os.path.join(HARNESS, name)
    if "--check" in sys.argv:
        with open(path) as f:
            if f.read() != patch:
                die("%s is not what the series makes now: run %s" % (name, sys.argv[0]))
        return
    with open(path, "w") as f:
        f.write(patch)
    if not mine:
        with open(os.path.join(HARNESS, "series"), "a") as f:
            f.write(name + "\n")


if __name__ == "__main__":
    main()
