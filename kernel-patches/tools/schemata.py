"""schemata.py: every mutant in one kernel, chosen at boot (issue 24).

A mutant schema: for each mutated function F, each of its mutants N gets a
copy of F with the mutation, named F__bbmN, placed just before F; F itself
starts with

    switch (bb_mutant) { case N: return F__bbmN(args); ... default: break; }

and bb_mutant is a core parameter of scsi_mod (drivers/scsi/scsi.c), set
with `bb_mutant=N` on the kernel command line: 0 (the default) is the
kernel without any mutant, N the one mutant numbered N.  One build serves
the whole campaign; a boot per mutant.

F's dispatch also marks F reached (bb_reached[i] = 1, i its index in
schemata.funcs): the core parameter bb_reached
(/sys/module/scsi_mod/parameters/bb_reached) reads as a bitmap of the
mutated functions that ran since it was last written, in hex digits
(function 4k+j is bit j of digit k: 600 functions take 150 characters, a
list of names would not fit the page a parameter may print), and any
write clears it.  The suite's bbsuite.reach=1 prints
what each test reached, so the campaign gives each mutant only the tests
that run its function (mutants.py).

Inside a copy, __func__ is still F (a message naming its function reads
the same), and each file gets `-Wdeclaration-after-statement` switched
off (the dispatch comes before F's declarations).  A copy's static local
variables are its own.
"""
import difflib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time

DEF = """
/* bugbridge mutant schemata (kernel-patches/tools/schemata.py): the mutant
 * the functions below dispatch to, 0 for none; bb_mutant=N at boot */
int bb_mutant;
EXPORT_SYMBOL(bb_mutant);
core_param(bb_mutant, bb_mutant, int, 0444);

/* which mutated functions ran since bb_reached was last written (any write
 * clears it), one byte each, no lock (a store of 1 from any context, a
 * clear from the one writer); read as hex digits, function 4k+j being bit
 * j of digit k (schemata.funcs numbers them): %d functions take %d digits
 * of the page a parameter may print */
unsigned char bb_reached[%d];
EXPORT_SYMBOL(bb_reached);

static int bb_reached_get(char *buf, const struct kernel_param *kp)
{
\tint len = 0;

\tfor (size_t i = 0; i < ARRAY_SIZE(bb_reached); i += 4) {
\t\tunsigned int digit = 0;

\t\tfor (size_t j = 0; j < 4 && i + j < ARRAY_SIZE(bb_reached); j++)
\t\t\tif (READ_ONCE(bb_reached[i + j]))
\t\t\t\tdigit |= 1u << j;
\t\tlen += scnprintf(buf + len, PAGE_SIZE - len, "%%x", digit);
\t}
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


def _copy(text, m, header_start, end, name, n):
    """The mutated function m as a static copy named name__bbmN."""
    start, stop, repl = m["span"]
    body = text[header_start:start] + repl + text[stop:end]
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


def build(texts, mutants, find_function, mutant_text=None):
    """{file: schemata text}, [(number, mutant)], {number: (file, first,
    last line)}, [(file, function)] in the order of bb_reached's bits."""
    numbered = list(enumerate(mutants, 1))
    by_file = {}
    for n, m in numbered:
        by_file.setdefault(m["file"], {}).setdefault(m["func"], []).append((n, m))
    out, lines, funcs = {}, {}, []
    for f in sorted(by_file):
        text = texts[f]
        spans = []
        for name, ms in by_file[f].items():
            hs, bs, end, _ = find_function(text, name, header=True, line=ms[0][1].get("fline"))
            spans.append((hs, bs, end, name, ms))
        pieces, pos = [], 0
        for hs, bs, end, name, ms in sorted(spans, key=lambda x: x[0]):
            pieces.append(text[pos:hs])
            for n, m in ms:
                pieces.append((n, _copy(text, m, hs, end, name, n)))
            funcs.append((f, name))
            pieces.append(text[hs:bs + 1] + "\n" + _dispatch(text[hs:bs], name,
                                                             [n for n, _ in ms], len(funcs) - 1))
            pos = bs + 2 if text[bs + 1:bs + 2] == "\n" else bs + 1
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
    n = max(len(funcs), 1)
    out[scsi] = out.get(scsi, texts.get(scsi, "")) + DEF % (n, (n + 3) // 4, n)
    return out, numbered, lines, funcs


def patch(texts, new_texts):
    """One unified diff of every file from texts to new_texts."""
    out = []
    for f in sorted(new_texts):
        out += difflib.unified_diff(texts[f].splitlines(True), new_texts[f].splitlines(True),
                                    "a/" + f, "b/" + f, n=3)
    return "".join(out)


def compile_errors(build, new_texts, jobs=2):
    """{file: [error line, ...]} of the files of new_texts ({file: text})
    that gcc does not compile as Kbuild compiles them in build (an O= dir
    where each file's object was built: its .cmd file has the command);
    {} when all compile.  The errors of every file at once, where the
    runner's build stops at the first file that fails."""
    tmp = tempfile.mkdtemp(prefix="schemata-")
    try:
        procs = []
        for f, text in sorted(new_texts.items()):
            path = os.path.join(tmp, f.replace("/", "__"))
            with open(path, "w") as out:
                out.write(text)
            argv = _kbuild_argv(build, f, path)
            while len([p for p in procs if p[1].poll() is None]) >= jobs:
                time.sleep(0.2)
            procs.append((f, subprocess.Popen(argv, cwd=build, stdout=subprocess.PIPE,
                                              stderr=subprocess.STDOUT, text=True), path))
        errors = {}
        for f, p, path in procs:
            out = p.communicate()[0]
            lines = [int(n) for n in re.findall(r"^%s:(\d+):\d+: error" % re.escape(path),
                                                out, re.M)]
            if p.returncode and not lines:
                raise SystemExit("schemata: %s does not compile, and gcc names no line: %s"
                                 % (f, out[-2000:]))
            if lines:
                errors[f] = lines
        return errors
    finally:
        shutil.rmtree(tmp)


def _kbuild_argv(build, f, path):
    """Kbuild's command for f's object (build/DIR/.NAME.o.cmd), compiling
    path instead, to a scratch object, with f's own directory searched for
    its quoted includes."""
    cmdfile = os.path.join(build, os.path.dirname(f), ".%s.o.cmd" % os.path.basename(f)[:-2])
    cmd = open(cmdfile).readline().split(":=", 1)[1].split(" ; ")[0]
    argv = [a for a in shlex.split(cmd) if not a.startswith("-Wp,-MMD")]
    src = argv[-1]
    if not src.endswith("/" + f):
        raise SystemExit("schemata: %s: no %s at the end of its command" % (cmdfile, f))
    argv[-1] = path
    argv[argv.index("-o") + 1] = path + ".o"
    return argv[:1] + ["-iquote", os.path.dirname(src),
                       "-iquote", os.path.join(build, os.path.dirname(f))] + argv[1:]
