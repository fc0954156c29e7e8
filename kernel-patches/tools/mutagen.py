#!/usr/bin/env python3
"""mutagen.py: deterministic mutants of the 6.1 SCSI completion path (issue 15).

    mutagen.py --tree SRC [--base-patch P]... [--functions FILE] --out DIR [--max N]

Reads the functions named in FILE (default: mutant-functions beside this
script) from the kernel tree SRC, after applying the --base-patch patches
to a scratch copy of the files involved (the campaign runs on top of the
sr-sense-valid fix, so sr_done is mutated as fixed).  Writes one patch per
mutant to DIR/<id>.patch and DIR/manifest (tab-separated: id, file, line,
function, operator, before, after), both sorted by file and line.

Operators, each applied to one place at a time:
  ror     relational operator: < <=, <= <, > >=, >= >, == !=, != ==
  aor     arithmetic: + -, - +, * /, / *, += -=, -= +=
  lcr     logical connector: && ||, || &&
  bit     bitwise: & |, | &
  shift   a shift removed: "x << n" -> "x"
  const   integer constant plus or minus one
  cond    an if condition forced true or false
  neg     a logical negation dropped
  minmax  min/max swapped, or replaced by one of its arguments
  del     a statement deleted (replaced by an empty statement)

Never mutated: comments, strings, preprocessor lines and #if blocks, the
type part of declarations, logging statements (printk and friends, which
are not the completion path's behaviour); never deleted: return, break,
goto, fallthrough, WARN/BUG statements.  Same input, same mutants: ids are a hash of the file, function,
the place relative to the function and the replacement; --max keeps a
fixed subset (round robin over the functions in id order), so that small
functions are kept whole and large ones sampled.
"""
import argparse
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import schemata

HERE = os.path.dirname(os.path.abspath(__file__))

TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\n]+)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+[uUlL]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|[-+*/%<>=!&|^~?:;,.(){}\[\]])
  | (?P<other>.)
""", re.X | re.S)

TYPE_WORDS = {
    "int", "unsigned", "signed", "long", "short", "char", "bool", "void", "const",
    "struct", "enum", "union", "static", "u8", "u16", "u32", "u64", "s8", "s16",
    "s32", "s64", "sector_t", "size_t", "ssize_t", "blk_status_t", "blk_opf_t",
    "__be32", "__be64", "uint8_t", "uint32_t", "uint64_t", "volatile",
}
LOGGING = re.compile(r"^(printk|pr_\w+|dev_\w+|sdev_printk|scmd_printk|sd_printk|"
                     r"sr_printk|SCSI_LOG_\w+|scsi_print_\w+|trace_\w+|"
                     r"sd_print_\w+|scsi_log_\w+)$")
# deleting a warning only hides a bug the mutant would otherwise report
WARNING = re.compile(r"^(WARN\w*|BUG\w*)$")
NO_DELETE = {"return", "break", "continue", "goto", "case", "default", "else", "do",
             "if", "for", "while", "switch", "fallthrough"}
ROR = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
AOR = {"+": "-", "-": "+", "*": "/", "/": "*", "+=": "-=", "-=": "+="}
LCR = {"&&": "||", "||": "&&"}
BIT = {"&": "|", "|": "&"}


class Tok:
    __slots__ = ("kind", "text", "pos", "line")

    def __init__(self, kind, text, pos, line):
        self.kind, self.text, self.pos, self.line = kind, text, pos, line


def tokenize(text, start, end, first_line):
    """Tokens of text[start:end] without blanks, comments and preprocessor
    lines; code inside #if blocks is dropped too (it may not be compiled)."""
    toks, line, depth_if, pos = [], first_line, 0, start
    at_line_start = True
    while pos < end:
        if at_line_start:
            m = re.compile(r"[ \t]*#[ \t]*(\w+)").match(text, pos)
            if m:
                word = m.group(1)
                if word.startswith("if"):
                    depth_if += 1
                elif word == "endif":
                    depth_if = max(0, depth_if - 1)
                nl = text.find("\n", pos)
                while nl > 0 and text[nl - 1] == "\\":
                    nl = text.find("\n", nl + 1)
                nl = end if nl < 0 else nl
                line += text.count("\n", pos, nl)
                pos = nl
                continue
        m = TOKEN_RE.match(text, pos)
        kind = m.lastgroup
        tok = m.group(kind)
        if kind not in ("ws", "comment") and not depth_if:
            toks.append(Tok(kind, tok, pos, line))
        nls = tok.count("\n")
        line += nls
        if nls:
            at_line_start = True
        elif kind != "ws":
            at_line_start = False
        pos = m.end()
    return toks


def find_function(text, name, header=False):
    """(start of body '{', end after '}', line of '{') of a definition;
    with header, the start of the definition's first line comes first."""
    for m in re.finditer(r"^[A-Za-z_][^\n;#=]*\b%s\(" % re.escape(name), text, re.M):
        brace = re.compile(r"\n\{\n").search(text, m.end())
        semi = text.find(";", m.end())
        if not brace or (0 <= semi < brace.start()):
            continue
        close = re.compile(r"\n\}\n").search(text, brace.end())
        body_start = brace.start() + 1
        found = (body_start, close.end() - 1, text.count("\n", 0, body_start) + 1)
        return (m.start(),) + found if header else found
    raise SystemExit("mutagen: function %s not found" % name)


def binary_context(toks, i):
    """Is toks[i] a binary operator (not unary, not part of a type)?"""
    if i == 0:
        return False
    p = toks[i - 1]
    if p.kind in ("number", "ident") and p.text not in TYPE_WORDS and p.text not in (
            "return", "case", "sizeof"):
        return not (toks[i].text == "*" and i + 1 < len(toks) and
                    toks[i + 1].text in (")", ","))
    return p.text in (")", "]")


def statements(toks):
    """Per token: is it in the type part of a declaration; and the statements
    that start a line: (first index, index of the closing ';')."""
    in_decl = [False] * len(toks)
    stmts = []
    i, n = 0, len(toks)
    while i < n:
        start = i
        depth, j, decl = 0, i, toks[i].text in TYPE_WORDS
        eq_seen = False
        while j < n:
            t = toks[j].text
            if depth == 0 and t in (";", "{", "}"):
                break
            if t in ("(", "["):
                depth += 1
            elif t in (")", "]"):
                depth -= 1
            if depth == 0 and t == "=":
                eq_seen = True
            if decl and not eq_seen:
                in_decl[j] = True
            if depth == 0 and t == ":" and toks[start].text in ("case", "default"):
                break
            if depth == 0 and t == ")" and toks[start].text in ("if", "while", "for", "switch"):
                break
            j += 1
        if j < n and toks[j].text == ";" and not decl:
            first = toks[start]
            prev_line = toks[start - 1].line if start else -1
            if first.line != prev_line:
                stmts.append((start, j))
        i = max(j + 1, start + 1)
    return in_decl, stmts


def paren_close(toks, i):
    """Index of the ')' matching toks[i] == '('."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def call_args(toks, i):
    """Argument token ranges of the call whose '(' is toks[i]."""
    close = paren_close(toks, i)
    if close is None:
        return None, None
    args, depth, start = [], 0, i + 1
    for j in range(i + 1, close):
        t = toks[j].text
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif t == "," and depth == 0:
            args.append((start, j))
            start = j + 1
    args.append((start, close))
    return args, close


def mutations(text, toks):
    """(op, first token, last token (exclusive), replacement text)."""
    in_decl, stmts = statements(toks)
    for a, b in stmts:		# logging is not the completion path's behaviour
        if LOGGING.match(toks[a].text):
            for k in range(a, b + 1):
                in_decl[k] = True
    out = []
    for i, t in enumerate(toks):
        if in_decl[i]:
            continue
        x = t.text
        if t.kind == "op" and x in ROR and binary_context(toks, i):
            out.append(("ror", i, i + 1, ROR[x]))
        elif t.kind == "op" and x in AOR and (x.endswith("=") or binary_context(toks, i)):
            out.append(("aor", i, i + 1, AOR[x]))
        elif t.kind == "op" and x in LCR:
            out.append(("lcr", i, i + 1, LCR[x]))
        elif t.kind == "op" and x in BIT and binary_context(toks, i):
            out.append(("bit", i, i + 1, BIT[x]))
        elif t.kind == "op" and x in ("<<", ">>") and i + 1 < len(toks) and \
                toks[i + 1].kind in ("number", "ident") and binary_context(toks, i) and \
                (i + 2 >= len(toks) or toks[i + 2].text not in ("(", "->", ".", "[")):
            out.append(("shift", i, i + 2, ""))
        elif t.kind == "op" and x == "!" and i + 1 < len(toks):
            out.append(("neg", i, i + 1, ""))
        elif t.kind == "number" and (i == 0 or toks[i - 1].text != "case"):
            v = int(re.sub(r"[uUlL]+$", "", x), 0)
            suffix = re.search(r"[uUlL]*$", x).group(0)
            fmt = (lambda n: "0x%x%s" % (n, suffix)) if x[:2] in ("0x", "0X") else \
                (lambda n: "%d%s" % (n, suffix))
            out.append(("const", i, i + 1, fmt(v + 1)))
            if v > 0:
                out.append(("const", i, i + 1, fmt(v - 1)))
        elif t.kind == "ident" and x == "if" and i + 1 < len(toks) and toks[i + 1].text == "(":
            close = paren_close(toks, i + 1)
            if close:
                out.append(("cond", i + 1, close + 1, "(1)"))
                out.append(("cond", i + 1, close + 1, "(0)"))
        elif t.kind == "ident" and x in ("min", "max", "min_t", "max_t") and \
                i + 1 < len(toks) and toks[i + 1].text == "(":
            args, close = call_args(toks, i + 1)
            typed = x.endswith("_t")
            if args and len(args) == (3 if typed else 2):
                other = ("max" if x.startswith("min") else "min") + ("_t" if typed else "")
                out.append(("minmax", i, i + 1, other))
                cast = "(%s)" % arg_text(text, toks, *args[0]) if typed else ""
                for a, b in args[1:] if typed else args:
                    out.append(("minmax", i, close + 1,
                                "(%s(%s))" % (cast, arg_text(text, toks, a, b))))
    for a, b in stmts:
        first = toks[a].text
        if first in NO_DELETE or first in TYPE_WORDS or LOGGING.match(first) or \
                WARNING.match(first) or toks[a + 1].text == ":":
            continue
        out.append(("del", a, b + 1, ";"))
    return out


def render(text, toks, a, b, repl):
    """text with the source of toks[a:b] replaced by repl."""
    start, end = toks[a].pos, toks[b - 1].pos + len(toks[b - 1].text)
    return text[:start] + repl + text[end:]


def arg_text(text, toks, a, b):
    return text[toks[a].pos:toks[b - 1].pos + len(toks[b - 1].text)]


def load_files(tree, files, base_patches):
    """{file: text} after applying base_patches (patch -p1) to copies."""
    tmp = tempfile.mkdtemp(prefix="mutagen-")
    try:
        for f in files:
            os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
            shutil.copy(os.path.join(tree, f), os.path.join(tmp, f))
        for p in base_patches:
            r = subprocess.run(["patch", "-p1", "-s", "-f", "-d", tmp, "-i", os.path.abspath(p)],
                               capture_output=True, text=True)
            if r.returncode:
                raise SystemExit("mutagen: %s does not apply: %s" % (p, r.stdout + r.stderr))
        return {f: open(os.path.join(tmp, f)).read() for f in files}
    finally:
        shutil.rmtree(tmp)


def read_functions(path):
    funcs = []
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if line:
            funcs += [(line[0], name) for name in line[1:]]
    return funcs


def generate(texts, funcs):
    mutants = []
    for f, name in funcs:
        text = texts[f]
        start, end, first_line = find_function(text, name)
        toks = tokenize(text, start, end, first_line)
        seen = set()
        for op, a, b, repl in mutations(text, toks):
            new_text = render(text, toks, a, b, repl)
            if new_text == text or new_text in seen:
                continue
            seen.add(new_text)
            line = toks[a].line
            before = " ".join(text.splitlines()[line - 1].split())
            after = " ".join(new_text.splitlines()[line - 1].split()) if op != "del" or \
                toks[a].line == toks[b - 1].line else ";"
            key = "%s\0%s\0%d\0%d\0%s\0%s\0%s" % (
                f, name, line - first_line, toks[a].pos - text.rfind("\n", 0, toks[a].pos),
                op, repl, before)
            mid = "%s-%s" % (name, hashlib.sha256(key.encode()).hexdigest()[:8])
            mutants.append(dict(id=mid, file=f, func=name, line=line, op=op,
                                before=before, after=after, text=new_text,
                                delta=len(new_text) - len(text)))
    return mutants


def select(mutants, limit):
    if not limit or len(mutants) <= limit:
        return mutants
    by_func = {}
    for m in sorted(mutants, key=lambda m: m["id"]):
        by_func.setdefault((m["file"], m["func"]), []).append(m)
    keep, queues = [], [by_func[k] for k in sorted(by_func)]
    while len(keep) < limit:
        for q in queues:
            if q and len(keep) < limit:
                keep.append(q.pop(0))
    return keep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--base-patch", action="append", default=[])
    ap.add_argument("--functions", default=os.path.join(HERE, "mutant-functions"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--max", type=int, default=0)
    ap.add_argument("--exclude", default="",
                    help="mutant ids left out (after --max: those that did not compile)")
    ap.add_argument("--schemata", action="store_true",
                    help="also every mutant in one patch, chosen by bb_mutant=N (schemata.py)")
    args = ap.parse_args()

    funcs = read_functions(args.functions)
    files = sorted({f for f, _ in funcs} | {"drivers/scsi/scsi.c"})
    texts = load_files(args.tree, files, args.base_patch)
    mutants = select(generate(texts, funcs), args.max)
    drop = set(args.exclude.replace(",", " ").split())
    mutants = [m for m in mutants if m["id"] not in drop]
    mutants.sort(key=lambda m: (m["file"], m["line"], m["id"]))
    os.makedirs(args.out, exist_ok=True)
    for old in os.listdir(args.out):
        if old.endswith(".patch") or old in ("manifest", "schemata", "schemata.lines"):
            os.unlink(os.path.join(args.out, old))
    with open(os.path.join(args.out, "manifest"), "w") as man:
        for m in mutants:
            diff = difflib.unified_diff(texts[m["file"]].splitlines(True),
                                        m["text"].splitlines(True),
                                        "a/" + m["file"], "b/" + m["file"], n=3)
            with open(os.path.join(args.out, m["id"] + ".patch"), "w") as p:
                p.write("From: bugbridge mutagen <bugbridge@localhost>\n")
                p.write("Subject: [MUTANT %s] %s:%d %s: %s\n\n" % (
                    m["id"], os.path.basename(m["file"]), m["line"], m["func"], m["op"]))
                p.write("A mutant of the completion path (kernel-patches/tools/mutagen.py):\n"
                        "    %s\nbecomes\n    %s\n---\n" % (m["before"], m["after"]))
                p.writelines(diff)
            man.write("\t".join([m["id"], m["file"], str(m["line"]), m["func"], m["op"],
                                 m["before"], m["after"]]) + "\n")
    if args.schemata:
        write_schemata(args.out, texts, mutants)
    print("mutagen: %d mutants in %s" % (len(mutants), args.out))


def write_schemata(out, texts, mutants):
    """DIR/schemata.patch (every mutant, chosen at boot), DIR/schemata (the
    number of each id: bb_mutant=N) and DIR/schemata.lines (where each
    mutant's copy of its function is in the patched file)."""
    new, numbered, lines = schemata.build(texts, mutants, find_function)
    with open(os.path.join(out, "schemata.patch"), "w") as p:
        p.write("From: bugbridge mutagen <bugbridge@localhost>\n")
        p.write("Subject: [MUTANT SCHEMATA] %d mutants, bb_mutant=N picks one\n\n" %
                len(numbered))
        p.write("Every mutant of the manifest in one kernel (kernel-patches/tools/"
                "schemata.py);\nbb_mutant=0, the default, is the kernel without any.\n---\n")
        p.write(schemata.patch(texts, new))
    with open(os.path.join(out, "schemata"), "w") as f:
        for n, m in numbered:
            f.write("%d\t%s\n" % (n, m["id"]))
    with open(os.path.join(out, "schemata.lines"), "w") as f:
        for n in sorted(lines):
            f.write("%d\t%s\t%d\t%d\n" % ((n,) + lines[n]))


if __name__ == "__main__":
    main()
