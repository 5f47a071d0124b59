"""LaTeX tokens: the tokenizer, the TeX primitives it refuses, and bounded ``\\newcommand`` expansion."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mathcheck import relations as _relations
from mathcheck.chains import DeriveError

MAX_CHARS = 1_000_000  # a file
MAX_TOKENS = 20_000  # a block, after macro expansion
MAX_EXPANSIONS = 500  # macro expansions in one block
MAX_DEPTH = 40  # nesting of groups, brackets and the reader's recursion
MAX_MACROS = 200

REFUSED = (
    "input",
    "include",
    "includeonly",
    "InputIfFileExists",
    "write",
    "immediate",
    "openout",
    "openin",
    "read",
    "readline",
    "closeout",
    "closein",
    "newwrite",
    "newread",
    "def",
    "edef",
    "gdef",
    "xdef",
    "let",
    "futurelet",
    "catcode",
    "csname",
    "expandafter",
    "special",
    "directlua",
    "luaexec",
    "ShellEscape",
    "lstinputlisting",
    "verbatiminput",
    "loop",
    "usepackage",
    "documentclass",
    "file",
    "jobname",
    "scantokens",
    "everymath",
    "everyjob",
)
ENVIRONMENTS = (
    "align",
    "align*",
    "equation",
    "equation*",
    "multline",
    "multline*",
    "gather",
    "gather*",
    "flalign",
    "flalign*",
    "eqnarray",
    "eqnarray*",
    "alignat",
    "alignat*",
    "displaymath",
)
# inside a display: aligned and friends, and (as KaTeX and MathJax read them) the display environments
# themselves, \begin{align} inside $$
INNER_ENVIRONMENTS = ("aligned", "split", "gathered", "alignedat") + ENVIRONMENTS
# the links of a chain, read from the one table of relations (mathcheck.relations): "=", "<", ">" as
# characters, the rest by their LaTeX words (\le, \leq, \leqslant, \lt, \ge, …, \approx); ≠ is a
# condition, never a link
RELATIONS = {
    w: r.op
    for r in _relations.TABLE
    if r.op != "!="
    for w in (r.op, *r.spellings)
    if w in ("=", "<", ">") or w.isascii() and w.isalpha()
}
NOT_LINKS = (
    *(w for w in _relations.of("!=").spellings if w.isascii()),
    "equiv",
    "sim",
    "simeq",
    "propto",
    "to",
    "mapsto",
    "iff",
    "implies",
    "Rightarrow",
    "Leftarrow",
    "Leftrightarrow",
    "rightarrow",
    "leftarrow",
    "in",
    "notin",
    "subset",
    "subseteq",
    "ll",
    "gg",
    "cong",
    "coloneqq",
    "triangleq",
    "doteq",
)
GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split()
# variants are one symbol with their letter (the text grammar reads σ and sigma alike)
_GREEK_NAME = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho", "varsigma": "sigma"}
# a styled letter is its command over the letter: ℝ, ℕ, ℤ (sets in conditions), 𝔼, bold 𝐱 𝐖 (a bold
# capital is then refused as a matrix, as \mathbf{W} is)
UNICODE_STYLED = {
    "ℝ": ("mathbb", "R"),
    "ℕ": ("mathbb", "N"),
    "ℤ": ("mathbb", "Z"),
    "𝔼": ("mathbb", "E"),
    **{chr(0x1D400 + k): ("mathbf", chr(65 + k)) for k in range(26)},
    **{chr(0x1D41A + k): ("mathbf", chr(97 + k)) for k in range(26)},
}
UNICODE = {
    "−": "-",
    "≤": "\\le",
    "≥": "\\ge",
    "≈": "\\approx",
    "·": "\\cdot",
    "×": "\\times",
    "⋅": "\\cdot",
    "∙": "\\cdot",
    "ℓ": "\\ell",
    "∈": "\\in",
    "’": "'",
    "′": "'",
    "ℎ": "h",
    # mathematical italic letters (𝑥, 𝑊: what a PDF or a Unicode-math editor pastes) are the letters
    **{chr(0x1D434 + k): chr(65 + k) for k in range(26)},
    **{chr(0x1D44E + k): chr(97 + k) for k in range(26) if k != 7},
    "≠": "\\ne",
    "∑": "\\sum",
    "∏": "\\prod",
    "∂": "\\partial",
    "√": "\\sqrt",
    "∞": "\\infty",
    **{
        c: "\\" + n
        for c, n in zip(
            "αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΥΦΨΩ",
            "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu "
            "nu xi pi rho sigma tau upsilon phi chi psi omega Gamma Delta Theta "
            "Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split(),
        )
    },
}
STYLE = (
    "mathbf",
    "mathit",
    "mathsf",
    "boldsymbol",
    "bm",
    "mathnormal",
    "mathrm",
    "text",
    "textrm",
    "textit",
    "mathtt",
    "operatorname",
    "mbox",
)
ACCENTS = {
    "hat": "hat",
    "widehat": "hat",
    "bar": "bar",
    "overline": "bar",
    "tilde": "tilde",
    "widetilde": "tilde",
    "vec": "vec",
    "underline": "under",  # backprop notes mark the next layer's quantities: \underline{\delta}_l, \underline{w}_{jl}
}
OUT = {
    "iint": "double integrals over a region (write nested \\int_a^b … \\,dx with limits)",
    "iiint": "triple integrals over a region (write nested \\int_a^b … \\,dx with limits)",
    "oint": "contour integrals",
    "nabla": "\\nabla (a gradient)",
    "lim": "limits",
    "infty": "infinity",
    "cdots": "elided terms (\\cdots)",
    "ldots": "elided terms",
    "dots": "elided terms",
    "vdots": "elided terms",
    "top": "transposes",
    "intercal": "transposes",
    "mathcal": "calligraphic sets and operators",
    "det": "determinants",
    "operatorname*": "starred operators (argmax, argmin: the index where a maximum or minimum is attained)",
    "begin": "a nested environment",
    "sqrt*": "",
    "binom*": "",
    "pmatrix": "matrices",
    "bmatrix": "matrices",
    "otimes": "tensor products",
    "odot": "elementwise products",
    "circ": "composition",
    "mid": "conditionals",
    "E": "expectations",
    "Pr": "probabilities",
    "sup": "suprema",
    "inf": "infima",
    "arg": "arg",
    "lfloor": "floors",
    "lceil": "ceilings",
}


class LatexRefused(DeriveError):
    """Hostile input (a TeX primitive, a bound exceeded): the whole file is refused, where a merely
    unreadable block fails only its own chain."""


@dataclass(frozen=True)
class Tok:
    kind: str  # "cmd" (text: the name, no backslash), "num", "ch" (one character), "row" (\\)
    text: str
    pos: int  # offsets in the file, for line:col and the link's source
    end: int


class _Source:
    """The file's text and path: turns an offset into ``path:line:col`` for errors."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path
        self.quantity_e: int | None = None  # where the document defines a quantity E (E = …): E is that from there
        # where the prose says a plain \log is \log_2 (d2l's information theory): from there \log x is log(x, 2)
        self.log2_from: int | None = None
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        import bisect

        return bisect.bisect_right(self._starts, pos)

    def where(self, pos: int) -> str:
        n = self.line(pos)
        return f"{self.path}:{n}:{pos - self._starts[n - 1] + 1}"

    def fail(self, pos: int, message: str, refuse: bool = False):
        raise (LatexRefused if refuse else DeriveError)(f"{self.where(pos)}: {message}")

    def refuse(self, pos: int, message: str):
        self.fail(pos, message, refuse=True)


# --- tokens ----------------------------------------------------------------------------------------

_CMD = re.compile(r"\\([A-Za-z]+\*?|.)", re.S)
_NUM = re.compile(r"[0-9]+(?:\.[0-9]+)?|\.[0-9]+")


def tokenize(src: _Source, start: int, end: int) -> list[Tok]:
    """The tokens of ``src.text[start:end]``; comments (``%`` to the end of the line) dropped."""
    text, out, i, depth = src.text, [], start, 0
    while i < end:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "%":
            nl = text.find("\n", i, end)
            i = end if nl < 0 else nl + 1
        elif c == "\\":
            m = _CMD.match(text, i, end)
            if m is None:
                src.fail(i, "a lone backslash at the end of the block")
            name = m.group(1)
            if name == "\\":
                out.append(Tok("row", "\\\\", i, m.end()))
            else:
                if name.rstrip("*") in REFUSED and not (name == "def" and simple_def(text, i)):
                    src.refuse(
                        i,
                        f"\\{name} is refused: mathcheck reads one self-contained file and never runs "
                        f"TeX; inline the mathematics and use \\newcommand for notation",
                    )
                out.append(Tok("cmd", name, i, m.end()))
            i = m.end()
        elif c in "0123456789" or (c == "." and i + 1 < end and text[i + 1] in "0123456789"):
            m = _NUM.match(text, i, end)
            out.append(Tok("num", m.group(0), i, m.end()))
            i = m.end()
        elif c in UNICODE:
            u = UNICODE[c]
            out.append(Tok("cmd", u[1:], i, i + 1) if u.startswith("\\") else Tok("ch", u, i, i + 1))
            i += 1
        elif c in UNICODE_STYLED:  # ℝ is \mathbb{R}, 𝐱 is \mathbf{x}: four tokens at one character
            style, letter = UNICODE_STYLED[c]
            out += [
                Tok("cmd", style, i, i + 1),
                Tok("ch", "{", i, i + 1),
                Tok("ch", letter, i, i + 1),
                Tok("ch", "}", i, i + 1),
            ]
            i += 1
        elif c.isascii() and c.isprintable():
            depth += c == "{"
            depth -= c == "}"
            if depth > MAX_DEPTH:
                src.refuse(i, f"braces nested too deeply (over {MAX_DEPTH} levels)")
            out.append(Tok("ch", c, i, i + 1))
            i += 1
        else:
            src.fail(i, f"character {c!r} is not read in math; write it as a LaTeX command")
        if len(out) > MAX_TOKENS:
            src.refuse(start, f"block too long (over {MAX_TOKENS} tokens)")
    return out


def _group(toks: list[Tok], i: int, src: _Source, what: str) -> tuple[list[Tok], int]:
    """The argument at ``toks[i]``: a ``{…}`` group's contents or one token; and the index after it."""
    if i >= len(toks):
        src.fail(toks[-1].end if toks else 0, f"{what} needs an argument in braces")
    t = toks[i]
    if t.kind == "ch" and t.text == "{":
        depth, j = 0, i
        while j < len(toks):
            if toks[j].kind == "ch" and toks[j].text in "{}":
                depth += 1 if toks[j].text == "{" else -1
                if depth == 0:
                    return toks[i + 1 : j], j + 1
            j += 1
        src.fail(t.pos, f"{what}: this brace is not closed")
    if t.kind == "ch" and t.text == "}":
        src.fail(t.pos, f"{what} needs an argument in braces")
    if t.kind == "num" and len(t.text) > 1:  # \frac12: TeX takes one digit
        _split_num(toks, i)
        return [toks[i]], i + 1
    return [t], i + 1


def _split_num(toks: list[Tok], i: int):
    t = toks[i]
    toks[i : i + 1] = [Tok("num", t.text[0], t.pos, t.pos + 1), Tok("num", t.text[1:], t.pos + 1, t.end)]
    return i + 1


def _bracket(toks: list[Tok], i: int) -> tuple[list[Tok] | None, int]:
    """An optional ``[…]`` argument at ``toks[i]``."""
    if i < len(toks) and toks[i].kind == "ch" and toks[i].text == "[":
        for j in range(i + 1, len(toks)):
            if toks[j].kind == "ch" and toks[j].text == "]":
                return toks[i + 1 : j], j + 1
    return None, i


# --- macros ----------------------------------------------------------------------------------------

_NEWCOMMAND = re.compile(r"\\(?:re)?(?:newcommand|providecommand|DeclareMathOperator)\*?")
_SIMPLE_DEF = re.compile(r"\\def\s*\\([A-Za-z]+)\s*\{")


def simple_def(text: str, i: int) -> bool:
    """``\\def\\R{\\mathbb{R}}`` at ``i``: a \\def without parameters, read as ``\\newcommand`` (TeX's
    other \\def forms — parameter text, delimiters — stay refused)."""
    m = _SIMPLE_DEF.match(text, i)
    return m is not None and m.group(1) not in REFUSED


def macros(src: _Source, regions) -> dict:
    """``{name: (nargs, body tokens, kind)}`` from every ``\\newcommand`` in ``regions`` ((start, end)
    spans of the file): ``\\newcommand{\\name}[n]{body}`` or ``\\newcommand\\name{body}``;
    ``\\DeclareMathOperator{\\name}{text}`` is a function named ``text``."""
    out: dict = {}
    for start, end in regions:
        for m in _NEWCOMMAND.finditer(src.text, start, end):
            if _in_comment(src.text, m.start()):
                continue
            what = m.group(0)
            i = _skip(src.text, m.end(), end)
            name, i = _definition_name(src, i, end, what)
            i = _skip(src.text, i, end)
            nargs = 0
            if "DeclareMathOperator" not in what and src.text.startswith("[", i):
                n = re.match(r"\[\s*([1-9])\s*\]", src.text[i:end])
                if not n:
                    src.fail(i, f"\\{name}: the number of arguments is one digit 1..9, e.g. [2]")
                nargs, i = int(n.group(1)), _skip(src.text, i + n.end(), end)
                if src.text.startswith("[", i):
                    src.fail(i, f"\\{name}: an optional argument's default is not read; use plain #1..#9")
            if not src.text.startswith("{", i):
                src.fail(i, f"\\{name}: the definition's body goes in braces, e.g. {what}{{\\R}}{{\\mathbb{{R}}}}")
            stop = _close(src, i, end)
            body = tokenize(src, i + 1, stop - 1)
            out[name] = (nargs, body, "operator" if "DeclareMathOperator" in what else "macro")
            if len(out) > MAX_MACROS:
                src.refuse(m.start(), f"more than {MAX_MACROS} macros")
        for m in _SIMPLE_DEF.finditer(src.text, start, end):  # \def\R{\mathbb{R}}: a \newcommand
            if _in_comment(src.text, m.start()) or not simple_def(src.text, m.start()):
                continue
            stop = _close(src, m.end() - 1, end)
            body = tokenize(src, m.end(), stop - 1)
            if any(t.kind == "ch" and t.text == "#" for t in body):
                src.refuse(m.start(), f"\\def\\{m.group(1)} with parameters is refused; write \\newcommand")
            out[m.group(1)] = (0, body, "macro")
    return out


def _skip(text: str, i: int, end: int) -> int:
    while i < end and text[i] in " \t\r\n":
        i += 1
    return i


def _definition_name(src: _Source, i: int, end: int, what: str) -> tuple[str, int]:
    m = re.match(r"\{\s*\\([A-Za-z]+)\s*\}|\\([A-Za-z]+)", src.text[i:end])
    if not m:
        src.fail(i, f"{what}: the first argument is one command, e.g. {what}{{\\R}}{{\\mathbb{{R}}}}")
    name = m.group(1) or m.group(2)
    if name in REFUSED:
        src.refuse(i, f"\\{name} cannot be redefined")
    return name, i + m.end()


def _close(src: _Source, i: int, end: int) -> int:
    """The offset after the ``}`` that closes the ``{`` at ``i`` (escaped braces and comments skipped)."""
    depth, j, text = 0, i, src.text
    while j < end:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "%":
            nl = text.find("\n", j, end)
            j = end if nl < 0 else nl + 1
            continue
        depth += c == "{"
        depth -= c == "}"
        if depth > MAX_DEPTH:
            src.refuse(j, f"braces nested too deeply (over {MAX_DEPTH} levels)")
        j += 1
        if depth == 0:
            return j
    src.fail(i, "this brace is not closed")


def _in_comment(text: str, pos: int) -> bool:
    line_start = text.rfind("\n", 0, pos) + 1
    return bool(re.search(r"(?<!\\)%", text[line_start:pos]))


def expand(toks: list[Tok], defs: dict, src: _Source) -> list[Tok]:
    """``toks`` with every macro of ``defs`` replaced by its body (arguments substituted), at most
    ``MAX_EXPANSIONS`` times and ``MAX_TOKENS`` tokens: a macro that expands forever is refused."""
    out, stack, count = [], list(reversed(toks)), 0
    while stack:
        t = stack.pop()
        if t.kind != "cmd" or t.text not in defs:
            out.append(t)
            if len(out) > MAX_TOKENS:
                src.refuse(t.pos, f"macros expand to more than {MAX_TOKENS} tokens")
            continue
        count += 1
        if count > MAX_EXPANSIONS:
            src.refuse(t.pos, f"\\{t.text}: more than {MAX_EXPANSIONS} macro expansions (does a macro use itself?)")
        nargs, body, kind = defs[t.text]
        if kind == "operator":
            name = "".join(b.text for b in body if b.kind in ("ch", "num"))
            stack.append(Tok("op", name, t.pos, t.end))
            continue
        rest = list(reversed(stack))
        args, i = [], 0
        for k in range(nargs):
            a, i = _group(rest, i, src, f"\\{t.text} (argument {k + 1})")
            args.append(a)
        stack = list(reversed(rest[i:]))
        if i:  # the expansion stands where the call and its arguments stood
            t = Tok(t.kind, t.text, t.pos, max(t.end, rest[i - 1].end))
        new, j = [], 0
        while j < len(body):
            b = body[j]
            if b.kind == "ch" and b.text == "#" and j + 1 < len(body) and body[j + 1].kind == "num":
                k = int(body[j + 1].text[0])
                if not 1 <= k <= nargs:
                    src.fail(t.pos, f"\\{t.text} uses #{k} but takes {nargs} arguments")
                new += [Tok(a.kind, a.text, t.pos, t.end) for a in args[k - 1]]
                if len(body[j + 1].text) > 1:
                    new.append(Tok("num", body[j + 1].text[1:], t.pos, t.end))
                j += 2
                continue
            new.append(Tok(b.kind, b.text, t.pos, t.end))
            j += 1
        if len(new) + len(stack) > MAX_TOKENS:
            src.refuse(t.pos, f"macros expand to more than {MAX_TOKENS} tokens")
        stack.extend(reversed(new))
    return out
