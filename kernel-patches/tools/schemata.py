"""schemata.py: every mutant in one kernel, chosen at boot (issue 24).

A mutant schema: for each mutated function F, each of its mutants N gets a
copy of F with the mutation, named F__bbmN, placed just before F; F itself
starts with

    switch (bb_mutant) { case N: return F__bbmN(args); ... default: break; }

and bb_mutant is a core parameter of scsi_mod (drivers/scsi/scsi.c), set
with `bb_mutant=N` on the kernel command line: 0 (the default) is the
kernel without any mutant, N the one mutant numbered N.  One build serves
the whole campaign; a boot per mutant.

Inside a copy, __func__ is still F (a message naming its function reads
the same), and each file gets `-Wdeclaration-after-statement` switched
off (the dispatch comes before F's declarations).  A copy's static local
variables are its own.
"""
import difflib
import re

DEF = ("\n/* bugbridge mutant schemata (kernel-patches/tools/schemata.py): the mutant\n"
       " * the functions below dispatch to, 0 for none; bb_mutant=N at boot */\n"
       "int bb_mutant;\nEXPORT_SYMBOL(bb_mutant);\ncore_param(bb_mutant, bb_mutant, int, 0444);\n")
PRELUDE = ("#pragma GCC diagnostic ignored \"-Wdeclaration-after-statement\"\n"
           "extern int bb_mutant;\t/* drivers/scsi/scsi.c: the mutant this boot runs */\n")


def _params(header, name):
    """Argument names of the definition header of name, in order."""
    start = re.search(r"\b%s\s*\(" % re.escape(name), header).end()
    depth, cur, parts = 1, "", []
    for ch in header[start:]:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
        if ch == "," and depth == 1:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    names = []
    for p in parts:
        p = p.strip()
        if not p or p == "void":
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", p)	# a function pointer
        names.append(fp.group(1) if fp else re.findall(r"\w+", re.sub(r"\[.*\]", "", p))[-1])
    return names


def _returns_void(header, name):
    before = header[:re.search(r"\b%s\s*\(" % re.escape(name), header).start()]
    return re.search(r"\bvoid\b", before) is not None and "*" not in before


def _copy(m, header_start, end, name, n):
    """The mutated function m as a static copy named name__bbmN."""
    body = m["text"][header_start:end + m["delta"]]
    body = re.sub(r"\b%s(\s*\()" % re.escape(name), r"%s__bbm%d\1" % (name, n), body, count=1)
    if not body.startswith("static"):
        body = "static " + body
    return ('#define __func__ "%s"\n%s\n#undef __func__\n\n' % (name, body))


def _dispatch(header, name, nums):
    args = ", ".join(_params(header, name))
    void = _returns_void(header, name)
    out = ["\tswitch (bb_mutant) {"]
    for n in nums:
        call = "%s__bbm%d(%s)" % (name, n, args)
        out.append("\tcase %d: %s" % (n, call + "; return;" if void else "return " + call + ";"))
    out += ["\tdefault: break;", "\t}"]
    return "\n".join(out) + "\n"


def build(texts, mutants, find_function):
    """{file: schemata text}, [(number, mutant)], {number: (file, first, last line)}."""
    numbered = list(enumerate(mutants, 1))
    by_file = {}
    for n, m in numbered:
        by_file.setdefault(m["file"], {}).setdefault(m["func"], []).append((n, m))
    out, lines = {}, {}
    for f, funcs in by_file.items():
        text = texts[f]
        spans = []
        for name, ms in funcs.items():
            hs, bs, end, _ = find_function(text, name, header=True)
            spans.append((hs, bs, end, name, ms))
        pieces, pos = [], 0
        for hs, bs, end, name, ms in sorted(spans, key=lambda x: x[0]):
            pieces.append(text[pos:hs])
            for n, m in ms:
                pieces.append((n, _copy(m, hs, end, name, n)))
            header = text[hs:bs]
            pieces.append(text[hs:bs + 1] + "\n" + _dispatch(header, name, [n for n, _ in ms]))
            pos = bs + 2		# past "{\n"
        pieces.append(text[pos:])
        new, line = PRELUDE, PRELUDE.count("\n") + 1
        for p in pieces:
            if isinstance(p, tuple):
                n, p = p
                lines[n] = (f, line, line + p.count("\n"))
            new += p
            line += p.count("\n")
        out[f] = new
    scsi = "drivers/scsi/scsi.c"
    out[scsi] = out.get(scsi, texts.get(scsi, "")) + DEF
    return out, numbered, lines


def patch(texts, new_texts):
    """One unified diff of every file from texts to new_texts."""
    out = []
    for f in sorted(new_texts):
        out += difflib.unified_diff(texts[f].splitlines(True), new_texts[f].splitlines(True),
                                    "a/" + f, "b/" + f, n=3)
    return "".join(out)
