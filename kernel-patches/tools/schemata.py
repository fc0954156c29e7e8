"""schemata.py: every mutant in one kernel, chosen at boot (issue 24).

A mutant schema: for each mutated function F, each of its mutants N gets a
copy of F with the mutation, named F__bbmN, placed just before F; F itself
starts with

    switch (bb_mutant) { case N: return F__bbmN(args); ... default: break; }

and bb_mutant is a core parameter of scsi_mod (drivers/scsi/scsi.c), set
with `bb_mutant=N` on the kernel command line: 0 (the default) is the
kernel without any mutant, N the one mutant numbered N.  One build serves
the whole campaign; a boot per mutant.

F's dispatch also marks F reached (bb_reached[i] = 1, i its index): the
core parameter bb_reached (/sys/module/scsi_mod/parameters/bb_reached)
reads as the names of the mutated functions that ran since it was last
written, and any write clears it.  The suite's bbsuite.reach=1 prints
what each test reached, so the campaign gives each mutant only the tests
that run its function (mutants.py).

Inside a copy, __func__ is still F (a message naming its function reads
the same), and each file gets `-Wdeclaration-after-statement` switched
off (the dispatch comes before F's declarations).  A copy's static local
variables are its own.
"""
import difflib
import re

DEF = """
/* bugbridge mutant schemata (kernel-patches/tools/schemata.py): the mutant
 * the functions below dispatch to, 0 for none; bb_mutant=N at boot */
int bb_mutant;
EXPORT_SYMBOL(bb_mutant);
core_param(bb_mutant, bb_mutant, int, 0444);

/* which mutated functions ran since bb_reached was last written (any write
 * clears it): the names, space-separated; one byte each, no lock (a store
 * of 1 from any context, a clear from the one writer) */
static const char *const bb_reach_names[] = { %s };
unsigned char bb_reached[%d];
EXPORT_SYMBOL(bb_reached);

static int bb_reached_get(char *buf, const struct kernel_param *kp)
{
\tint len = 0;

\tfor (size_t i = 0; i < ARRAY_SIZE(bb_reach_names); i++)
\t\tif (READ_ONCE(bb_reached[i]))
\t\t\tlen += scnprintf(buf + len, PAGE_SIZE - len, "%%s%%s", len ? " " : "",
\t\t\t\t\t bb_reach_names[i]);
\treturn len + scnprintf(buf + len, PAGE_SIZE - len, "\\n");
}

static int bb_reached_set(const char *val, const struct kernel_param *kp)
{
\tmemset(bb_reached, 0, sizeof(bb_reached));
\treturn 0;
}

static const struct kernel_param_ops bb_reached_ops = {
\t.get = bb_reached_get,
\t.set = bb_reached_set,
};
core_param_cb(bb_reached, &bb_reached_ops, NULL, 0644);
"""
PRELUDE = ("#pragma GCC diagnostic ignored \"-Wdeclaration-after-statement\"\n"
           "extern int bb_mutant;\t/* drivers/scsi/scsi.c: the mutant this boot runs */\n"
           "extern unsigned char bb_reached[];\t/* drivers/scsi/scsi.c: which mutated functions ran */\n")


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


def _dispatch(header, name, nums, index):
    args = ", ".join(_params(header, name))
    void = _returns_void(header, name)
    out = ["\tWRITE_ONCE(bb_reached[%d], 1);" % index, "\tswitch (bb_mutant) {"]
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
    out, lines, names = {}, {}, []
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
            names.append(name)
            pieces.append(text[hs:bs + 1] + "\n" + _dispatch(header, name, [n for n, _ in ms],
                                                             len(names) - 1))
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
    out[scsi] = out.get(scsi, texts.get(scsi, "")) + DEF % (
        ", ".join('"%s"' % n for n in names), max(len(names), 1))
    return out, numbered, lines


def patch(texts, new_texts):
    """One unified diff of every file from texts to new_texts."""
    out = []
    for f in sorted(new_texts):
        out += difflib.unified_diff(texts[f].splitlines(True), new_texts[f].splitlines(True),
                                    "a/" + f, "b/" + f, n=3)
    return "".join(out)
