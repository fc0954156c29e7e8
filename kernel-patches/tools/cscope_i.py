"""cscope_i.py: the file-scope definitions of one C file, read from its
preprocessed text (a `.i` that Kbuild makes under the real .config).

Why the preprocessed text: it holds exactly the code the config compiles
(#if blocks already decided, macros expanded), and its line markers say
which definitions come from the .c itself and on which line, so each maps
back to the text mutagen.py mutates.

    defs = definitions(open("sd.i").read(), "drivers/scsi/sd.c")

gives {name: Def}: each function and each object with an initializer that
the .c defines, with the identifiers its body or initializer uses.  That
is enough for a reference graph (which static functions any compiled code
uses at all: live(); which ones a set of entry points can reach) without
building or disassembling anything.
"""
import re

TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<marker>(?<![^\n])\#[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<number>\.?[0-9](?:[eEpP][-+]|[0-9A-Za-z_.])*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>=!&|^~?:;,.(){}\[\]])
  | (?P<other>.)
""", re.X | re.S)
MARKER_RE = re.compile(r'#\s*(\d+)\s+"([^"]*)"')


class Def:
    """One file-scope definition of the .c: a function or an object."""
    __slots__ = ("name", "kind", "line", "static", "used", "variadic", "exit", "refs", "body")

    def __init__(self, name, kind, line):
        self.name, self.kind, self.line = name, kind, line
        self.static = self.used = self.variadic = self.exit = False
        self.refs = set()
        self.body = ()		# a function's body, token texts

def tokens(text, cfile):
    """(kind, text, line, in_cfile) of every token, blanks and markers out."""
    out, line, cur = [], 1, None
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind == "nl":
            line += 1
        elif kind == "marker":
            mk = MARKER_RE.match(m.group())
            if mk:
                line, cur = int(mk.group(1)) - 1, mk.group(2)
        elif kind != "ws":
            out.append((kind, m.group(), line, cur is not None and cur.endswith(cfile)))
    return out


def _match(toks, i, opening, closing):
    """Index of the token closing the bracket toks[i] opens."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j][1]
        if t == opening:
            depth += 1
        elif t == closing:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced %s at line %d" % (opening, toks[i][2]))


def _back_paren(toks, j):
    """Index of the '(' matching the ')' at toks[j]."""
    depth = 0
    for k in range(j, -1, -1):
        t = toks[k][1]
        if t == ")":
            depth += 1
        elif t == "(":
            depth -= 1
            if depth == 0:
                return k
    raise ValueError("unbalanced ) at line %d" % toks[j][2])


def _declarator_end(toks, start, j):
    """Last token of a declarator before toks[j] ('{'): trailing
    __attribute__((...)) and asm("...") groups skipped."""
    k = j - 1
    while k > start and toks[k][1] == ")":
        o = _back_paren(toks, k)
        if o - 1 >= start and toks[o - 1][1] in ("__attribute__", "asm", "__asm__"):
            k = o - 2
            continue
        break
    return k


def _function(toks, start, j):
    """(name token index, parameter '(' index) if toks[start:j] before the
    '{' at j is a function's declarator, else None."""
    k = _declarator_end(toks, start, j)
    if toks[k][1] != ")":
        return None
    o = _back_paren(toks, k)
    if o - 1 < start or toks[o - 1][0] != "ident":
        return None
    return o - 1, o


def _idents(toks, a, b):
    return {t[1] for t in toks[a:b] if t[0] == "ident"}


def definitions(text, cfile):
    """{name: Def} of the file-scope definitions whose name is in cfile."""
    toks = tokens(text, cfile)
    defs, i, n = {}, 0, len(toks)
    while i < n:
        start, j = i, i
        while j < n and toks[j][1] not in (";", "{", "="):
            if toks[j][1] == "(":
                j = _match(toks, j, "(", ")")
            j += 1
        if j >= n:
            break
        t = toks[j][1]
        head = [x[1] for x in toks[start:j]]
        if t == "{" and head and (fn := _function(toks, start, j)):
            close = _match(toks, j, "{", "}")
            name_at, paren = fn
            if toks[name_at][3]:
                d = Def(toks[name_at][1], "function", toks[name_at][2])
                d.static = "static" in head
                d.used = "__used__" in head or "used" in head
                d.exit = ".exit.text" in " ".join(head)
                d.variadic = "..." in [x[1] for x in toks[paren:j]]
                d.refs = _idents(toks, j, close)
                d.body = tuple(x[1] for x in toks[j:close + 1])
                defs[d.name] = d
            i = close + 1
            continue
        if t == "{":		# a struct, union or enum type at file scope
            j = _match(toks, j, "{", "}")
        end = j
        while end < n and toks[end][1] != ";":
            if toks[end][1] in ("(", "{"):
                end = _match(toks, end, toks[end][1], {"(": ")", "{": "}"}[toks[end][1]])
            end += 1
        if t == "=" and toks[start][3]:
            name = _object_name(toks, start, j)
            if name:
                d = Def(name, "object", toks[start][2])
                d.static = "static" in head
                d.used = "__used__" in head or "used" in head
                d.refs = _idents(toks, j, end)
                defs.setdefault(name, d)
        i = end + 1
    return defs


def _object_name(toks, start, j):
    """The name an initialized declaration toks[start:j] ('=' at j) defines."""
    k = j - 1
    while k > start and toks[k][1] == "]":
        k = _back_bracket(toks, k) - 1
    while k > start and toks[k][1] == ")":		# attributes after the name
        o = _back_paren(toks, k)
        k = o - 2 if toks[o - 1][1] == "__attribute__" else o - 1
    return toks[k][1] if toks[k][0] == "ident" else None


def _back_bracket(toks, j):
    depth = 0
    for k in range(j, -1, -1):
        if toks[k][1] == "]":
            depth += 1
        elif toks[k][1] == "[":
            depth -= 1
            if depth == 0:
                return k
    return j


def live(defs):
    """Names of the definitions whose code the compiler keeps: every one with
    external linkage or marked used, and what those refer to (a static
    function nothing compiled refers to is dropped, so it has no code)."""
    todo = [d.name for d in defs.values() if not d.static or d.used]
    seen = set(todo)
    while todo:
        for r in defs[todo.pop()].refs:
            if r in defs and r not in seen:
                seen.add(r)
                todo.append(r)
    return seen


def reached(defs, roots, through=("function",)):
    """Names reachable from roots through the bodies of the definitions of
    the given kinds (functions only: a function stored in a table another
    path uses is not on these roots' path)."""
    todo = [r for r in roots if r in defs]
    seen = set(todo)
    while todo:
        d = defs[todo.pop()]
        if d.kind not in through:
            continue
        for r in d.refs:
            if r in defs and r not in seen and defs[r].kind == "function":
                seen.add(r)
                todo.append(r)
    return seen
