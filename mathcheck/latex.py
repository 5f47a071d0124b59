"""Derivations typeset in LaTeX: display math read into :mod:`mathcheck.derive` chains.

A researcher's own chain of ``&=`` is checked link by link, as it stands in the paper::

    % assume: x \\in \\mathbb{R}
    \\begin{align}
      \\frac{d}{dx} \\log(1 + e^{x}) &= \\frac{e^{x}}{1 + e^{x}} \\quad\\text{(chain rule)} \\\\
                                  &= \\frac{1}{1 + e^{-x}}
    \\end{align}

becomes the chain ``diff(log(1 + exp(x)), x) = (exp(x))/(1 + exp(x)) = 1/(1 + exp(-x))`` with the
reason ``chain rule`` on its first link, each link carrying its source line and its LaTeX.

The reader is ours, small and closed: a tokenizer, a bounded ``\\newcommand`` expander, and a
recursive-descent reader that *writes text in the grammar of* :mod:`mathcheck.parser`. Nothing is
evaluated; the SymPy objects are built later by the parser's whitelist, under its limits. TeX's
file and shell primitives (``\\input``, ``\\write18``, ``\\def`` …) are refused, macro expansion,
nesting and input size are bounded, and every error is one line ``path:line:col: what is wrong``.

    >>> [c.steps[1].text for c in chains("$$ \\\\frac{x^2 - 1}{x - 1} = x + 1 $$", "n.md", markdown=True)]
    ['x + 1']

docs/latex.md lists what is read and what is out (integrals, ``\\nabla``, matrices, ``\\cdots``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mathcheck.derive import Chain, DeriveError, Line

MAX_CHARS = 1_000_000      # a file
MAX_TOKENS = 20_000        # a block, after macro expansion
MAX_EXPANSIONS = 500       # macro expansions in one block
MAX_DEPTH = 40             # nesting of groups, brackets and the reader's recursion
MAX_MACROS = 200

REFUSED = ("input", "include", "includeonly", "InputIfFileExists", "write", "immediate", "openout",
           "openin", "read", "readline", "closeout", "closein", "newwrite", "newread", "def", "edef",
           "gdef", "xdef", "let", "futurelet", "catcode", "csname", "expandafter", "special",
           "directlua", "luaexec", "ShellEscape", "lstinputlisting", "verbatiminput", "loop",
           "usepackage", "documentclass", "file", "jobname", "scantokens", "everymath", "everyjob")
ENVIRONMENTS = ("align", "align*", "equation", "equation*", "multline", "multline*", "gather",
                "gather*", "flalign", "flalign*", "eqnarray", "eqnarray*")
INNER_ENVIRONMENTS = ("aligned", "split", "gathered", "alignedat")
RELATIONS = {"=": "=", "<": "<", ">": ">", "le": "<=", "leq": "<=", "leqslant": "<=", "lt": "<",
             "ge": ">=", "geq": ">=", "geqslant": ">=", "gt": ">", "approx": "≈"}
NOT_LINKS = ("ne", "neq", "equiv", "sim", "simeq", "propto", "to", "mapsto", "iff", "implies",
             "Rightarrow", "Leftarrow", "Leftrightarrow", "rightarrow", "leftarrow", "in", "notin",
             "subset", "subseteq", "ll", "gg", "cong", "coloneqq", "triangleq", "doteq")
GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
         "xi omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
         "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega").split()
# variants are one symbol with their letter (the text grammar reads σ and sigma alike)
_GREEK_NAME = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho",
               "varsigma": "sigma"}
UNICODE = {"−": "-", "≤": "\\le", "≥": "\\ge", "≈": "\\approx", "·": "\\cdot", "×": "\\times",
           "≠": "\\ne", "∑": "\\sum", "∏": "\\prod", "∂": "\\partial", "√": "\\sqrt", "∞": "\\infty",
           **{c: "\\" + n for c, n in zip("αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΥΦΨΩ",
                                         "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu "
                                         "nu xi pi rho sigma tau upsilon phi chi psi omega Gamma Delta Theta "
                                         "Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split())}}
FUNCTIONS = {"exp": "exp", "log": "log", "ln": "log", "sin": "sin", "cos": "cos", "tan": "tan",
             "cot": "cot", "sec": "sec", "csc": "csc", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
             "arcsin": "asin", "arccos": "acos", "arctan": "atan", "operatorname": None}
VARIADIC = {"max": "Max", "min": "Min"}
IGNORED = ("label", "nonumber", "notag", "displaystyle", "textstyle", "limits", "nolimits", "left",
           "right", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "big", "Big",
           "bigg", "Bigg", "middle", ",", ";", ":", "!", " ", "quad", "qquad", "thinspace", "medspace",
           "thickspace", "allowbreak", "mathstrut", "strut", "lefteqn")
STYLE = ("mathbf", "mathit", "mathsf", "boldsymbol", "bm", "mathnormal", "mathrm", "text", "textrm",
         "textit", "mathtt", "operatorname", "mbox")
ACCENTS = {"hat": "hat", "widehat": "hat", "bar": "bar", "overline": "bar", "tilde": "tilde",
           "widetilde": "tilde", "dot": "dot", "vec": "vec"}
OUT = {"int": "integrals", "iint": "integrals", "oint": "integrals", "nabla": "\\nabla (a gradient)",
       "lim": "limits", "infty": "infinity", "cdots": "elided terms (\\cdots)", "ldots": "elided terms",
       "dots": "elided terms", "vdots": "elided terms", "top": "transposes", "intercal": "transposes",
       "mathcal": "calligraphic sets and operators", "det": "determinants", "operatorname*": "starred operators",
       "begin": "a nested environment", "sqrt*": "", "binom*": "", "pmatrix": "matrices",
       "bmatrix": "matrices", "otimes": "tensor products", "odot": "elementwise products",
       "circ": "composition", "mid": "conditionals", "E": "expectations", "Pr": "probabilities",
       "sup": "suprema", "inf": "infima", "arg": "arg", "lfloor": "floors", "lceil": "ceilings"}


class LatexRefused(DeriveError):
    """Hostile input (a TeX primitive, a bound exceeded): the whole file is refused, where a merely
    unreadable block fails only its own chain."""


@dataclass(frozen=True)
class Tok:
    kind: str    # "cmd" (text: the name, no backslash), "num", "ch" (one character), "row" (\\)
    text: str
    pos: int     # offsets in the file, for line:col and the link's source
    end: int


class _Source:
    """The file's text and path: turns an offset into ``path:line:col`` for errors."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path
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
                if name.rstrip("*") in REFUSED:
                    src.refuse(i, f"\\{name} is refused: mathcheck reads one self-contained file and never runs "
                                f"TeX; inline the mathematics and use \\newcommand for notation")
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
                    return toks[i + 1:j], j + 1
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
    toks[i:i + 1] = [Tok("num", t.text[0], t.pos, t.pos + 1), Tok("num", t.text[1:], t.pos + 1, t.end)]
    return i + 1


def _bracket(toks: list[Tok], i: int) -> tuple[list[Tok] | None, int]:
    """An optional ``[…]`` argument at ``toks[i]``."""
    if i < len(toks) and toks[i].kind == "ch" and toks[i].text == "[":
        for j in range(i + 1, len(toks)):
            if toks[j].kind == "ch" and toks[j].text == "]":
                return toks[i + 1:j], j + 1
    return None, i


# --- macros ----------------------------------------------------------------------------------------

_NEWCOMMAND = re.compile(r"\\(?:re)?(?:newcommand|providecommand|DeclareMathOperator)\*?")


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
            src.refuse(t.pos, f"\\{t.text}: more than {MAX_EXPANSIONS} macro expansions (does a macro "
                            f"use itself?)")
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


# --- reading one expression ------------------------------------------------------------------------

_SPACING = {"quad", "qquad", ",", ";", ":", "!", " ", "displaystyle", "textstyle", "limits", "nolimits",
            "left", "right", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "big",
            "Big", "bigg", "Bigg", "thinspace", "medspace", "thickspace", "allowbreak", "mathstrut",
            "strut", "middle"}
# letters that name functions (densities, losses, activations) as often as numbers: p(x) is not read
# as p·x, which would "prove" p(x + y) = p(x) + p(y), unless % assume: or % let: says what it is
_FUNCTION_LIKE = {"f", "g", "h", "p", "q", "ell", "sigma", "phi", "varphi", "psi", "Phi", "Psi", "Gamma"} | \
    set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_OPEN = {"(": ")", "[": "]", "{": "}", "lbrace": "rbrace", "lbrack": "rbrack"}
_FUNCTION_STARTS = set(FUNCTIONS) | set(VARIADIC) | {"sum", "prod", "operatorname"}


@dataclass
class Notation:
    """What a chain's symbols are: indices (bound by a sum, or declared integers), the bases indexed
    by them, functions by another name (``% let: \\sigma = sigmoid``), variables that shadow ``e``."""

    indices: set
    indexed: set
    functions: dict
    variables: set


class Reader:
    """Recursive descent over one expression's tokens, writing the text grammar of
    :mod:`mathcheck.parser` (a string; nothing is evaluated). ``read()`` is the whole expression."""

    def __init__(self, toks: list[Tok], src: _Source, notation: Notation, bound=frozenset()):
        self.t = [t for t in toks if not (t.kind == "cmd" and t.text in _SPACING)
                  and not (t.kind == "ch" and t.text == "~")]
        self.i, self.src, self.n, self.depth, self.abs = 0, src, notation, 0, 0
        self.bound = set(bound)

    # tokens
    def peek(self, k: int = 0):
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def at(self, kind: str, *texts, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == kind and (not texts or t.text in texts)

    def fail(self, tok, message: str):
        pos = tok.pos if tok is not None else (self.t[-1].end if self.t else 0)
        self.src.fail(pos, message)

    def sub(self, toks, bound=()):
        r = Reader(toks, self.src, self.n, self.bound | set(bound))
        r.depth = self.depth
        return r

    def enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            t = self.peek() or (self.t[-1] if self.t else None)
            self.src.refuse(t.pos if t else 0, f"expression nested too deeply (over {MAX_DEPTH} levels)")

    # grammar
    def read(self) -> str:
        if not self.t:
            self.fail(None, "an empty expression")
        out = self.expr()
        if self.peek() is not None:
            t = self.peek()
            self.fail(t, f"cannot read {self._show(t)!r} here")
        return out

    def expr(self) -> str:
        self.enter()
        out = ""
        if self.at("ch", "+", "-"):
            out = "-" if self.take().text == "-" else ""
            out += self.term()
        else:
            out = self.term()
        while self.at("ch", "+", "-") or self.at("cmd", "pm", "mp"):
            t = self.take()
            if t.kind == "cmd":
                self.fail(t, "\\pm and \\mp are two formulas; write each one")
            out += f" {t.text} {self.term()}"
        self.depth -= 1
        return out

    def term(self, argument: bool = False) -> str:
        """Factors multiplied, explicitly or by juxtaposition. As a function's argument without
        parentheses (``\\log 2\\pi\\sigma^2``) it stops at an explicit operator or another function."""
        self.enter()
        out = self.signed()
        while True:
            t = self.peek()
            if t is None:
                break
            if (t.kind == "cmd" and t.text in ("cdot", "times", "ast")) or (t.kind == "ch" and t.text == "*"):
                if argument:
                    break
                self.take()
                out = f"{out}*{self.signed()}"
            elif (t.kind == "cmd" and t.text == "div") or (t.kind == "ch" and t.text == "/"):
                if argument:
                    break
                self.take()
                out = f"{out}/{self.factor()}"
                if self.peek() is not None and self.starts_factor(self.peek()):
                    self.fail(t, "a/bc is ambiguous (a/(bc) or (a/b)c); write \\frac{a}{bc} or \\frac{a}{b} c")
            elif self.starts_factor(t):
                if argument and self.function_start(t):
                    break
                out = f"{out}*{self.factor()}"
            else:
                break
        self.depth -= 1
        return out

    def signed(self) -> str:
        if self.at("ch", "-"):
            self.take()
            return f"(-{self.factor()})"
        if self.at("ch", "+"):
            self.take()
        return self.factor()

    def starts_factor(self, t) -> bool:
        if t.kind in ("num", "op"):
            return True
        if t.kind == "ch":
            return (t.text.isascii() and t.text.isalpha()) or t.text in "([{" or (t.text == "|" and self.abs == 0)
        if t.kind == "cmd":
            return t.text not in ("cdot", "times", "div", "ast", "pm", "mp", "rvert", "rbrace", "rbrack",
                                  "}", "right", "text", "textrm", "mbox", "tag") \
                and t.text not in RELATIONS and t.text not in NOT_LINKS and t.text != "\\"
        return False

    def function_start(self, t) -> bool:
        return t.kind == "op" or (t.kind == "cmd" and (t.text in _FUNCTION_STARTS or t.text in self.n.functions))

    def factor(self) -> str:
        self.enter()
        out, powered = self.atom(), False
        while True:
            if self.at("ch", "^"):
                t = self.take()
                if powered:
                    self.fail(t, "a double superscript (a^b^c); write a^{b^c} or {a^b}^c")
                out, powered = self.power(out, self.script(t, "^"), t), True
            elif self.at("ch", "!"):
                self.take()
                out = f"factorial({out})"
            elif self.at("ch", "'"):
                self.fail(self.peek(), "primes are not read; name the quantity, e.g. f_1, or write the "
                                       "derivative as \\frac{d}{dx}")
            else:
                break
        self.depth -= 1
        return out

    def power(self, base: str, exponent: str, tok) -> str:
        if base == "e" and "e" not in self.n.variables:
            return f"exp({exponent})"
        return f"{base}^{_wrap(exponent)}"

    def script(self, tok, what: str) -> str:
        """The argument of ``^`` (or of another one-argument command): a group or one token."""
        toks, self.i = _group(self.t, self.i, self.src, what)
        if not toks:
            self.fail(tok, f"{what} has an empty argument")
        return self.sub(toks).read()

    def arg_tokens(self, tok, what: str) -> list[Tok]:
        toks, self.i = _group(self.t, self.i, self.src, what)
        return toks

    # atoms
    def atom(self) -> str:
        t = self.peek()
        if t is None:
            self.fail(None, "an expression ends too early")
        if t.kind == "num":
            self.take()
            return t.text
        if t.kind == "op":
            self.take()
            return self.apply(self.function_name(t.text, t), t)
        if t.kind == "ch":
            if t.text.isalpha():
                self.take()
                return self.named(t.text, t)
            if t.text in "([":
                return self.parens()
            if t.text == "{":
                toks, self.i = _group(self.t, self.i, self.src, "a group")
                return f"({self.sub(toks).read()})"
            if t.text == "|":
                return self.absolute("|", "|")
            self.fail(t, f"cannot read {t.text!r} here")
        name = t.text
        if name in GREEK:
            self.take()
            return self.named(_GREEK_NAME.get(name, name), t)
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            return self.fraction()
        if name == "sqrt":
            self.take()
            root, self.i = _bracket(self.t, self.i)
            arg = self.script(t, "\\sqrt")
            if root is None:
                return f"sqrt({arg})"
            return f"{_wrap(arg)}^(1/{_wrap(self.sub(root).read())})"
        if name in ("binom", "dbinom", "tbinom"):
            self.take()
            top, bottom = self.script(t, "\\binom"), self.script(t, "\\binom")
            return f"binomial({top}, {bottom})"
        if name in FUNCTIONS or name in self.n.functions:
            self.take()
            return self.apply(self.function_name(name, t), t)
        if name in VARIADIC:
            self.take()
            if not self.at("ch", "(", "["):
                self.fail(t, f"\\{name} takes its arguments in parentheses: \\{name}(a, b)")
            return f"{VARIADIC[name]}({', '.join(self.arguments())})"
        if name in ("sum", "prod"):
            return self.big()
        if name in ("lvert", "vert"):
            return self.absolute(name, "rvert" if name == "lvert" else "vert")
        if name in ("lbrace", "lbrack", "{"):
            return self.parens()
        if name in STYLE:
            self.take()
            toks = self.arg_tokens(t, f"\\{name}")
            word = _word(toks)
            if word is None:
                return f"({self.sub(toks).read()})"
            if word in _PARSER_FUNCTIONS:
                return self.apply(word, t)
            if len(word) > 1 and (self.at("ch", "(", "[") or name == "operatorname"):
                self.fail(t, f"\\{name}{{{word}}} is not a function mathcheck knows (complex parts, expectations "
                             f"and the like are out); allowed: {', '.join(sorted(_PARSER_FUNCTIONS))}")
            return self.named(word, t)
        if name in ACCENTS:
            self.take()
            toks = self.arg_tokens(t, f"\\{name}")
            word = _word(toks)
            if word is None:
                self.fail(t, f"\\{name}{{…}} is read over one name only, e.g. \\{name}{{x}}")
            return self.named(f"{word}_{ACCENTS[name]}", t)
        if name == "partial":
            self.fail(t, "a derivative is read as \\frac{\\partial f}{\\partial x} or \\frac{d}{dx} f")
        if name in OUT or name.rstrip("*") in OUT:
            self.fail(t, f"\\{name}: {OUT.get(name) or OUT.get(name.rstrip('*')) or name} not read "
                         f"(docs/latex.md lists what is)")
        if name in RELATIONS or name in NOT_LINKS:
            self.fail(t, f"\\{name} inside an expression; a link's relation stands between two expressions")
        self.fail(t, f"unknown command \\{name}; define it with \\newcommand or see docs/latex.md for "
                     f"what is read")

    def named(self, base: str, tok) -> str:
        """A name, with its subscript: ``x_i`` is x[i] when x is indexed, else the name x_i."""
        if base in self.n.functions and self.at("ch", "("):
            return self.apply(self.n.functions[base], tok)
        if base in _FUNCTION_LIKE and base not in self.n.variables and self.at("ch", "("):
            self.fail(tok, f"{self._show(tok)}(…) reads as a function; say which, e.g. % let: "
                           f"{self._show(tok)} = sigmoid or % let: {base}(t) = …, or write {self._show(tok)} \\cdot (…)")
        if not self.at("ch", "_"):
            return base
        t = self.take()
        toks = self.arg_tokens(t, "_")
        if base in self.n.indexed:
            return f"{base}[{', '.join(self.indices(toks, t))}]"
        word = _word(toks)
        if word is None:
            self.fail(t, f"the subscript of {base} is not a name; if {base} is indexed, sum over the index or "
                         f"declare it: % assume: i \\in \\mathbb{{Z}}")
        return _checked_name(f"{base}_{word}", self, t)

    def indices(self, toks, tok) -> list[str]:
        parts, cur = [], []
        for x in toks:
            if x.kind == "ch" and x.text == ",":
                parts.append(cur)
                cur = []
            else:
                cur.append(x)
        parts.append(cur)
        if len(parts) == 1 and len(toks) > 1 and all(
                (x.kind == "ch" and x.text.isalpha() and x.text in self.n.indices) or x.kind == "num" for x in toks):
            parts = [[x] for x in toks]  # W_{ij}: one index a letter
        if any(not p for p in parts):
            self.fail(tok, "an empty index")
        return [self.sub(p).read() for p in parts]

    def parens(self) -> str:
        t = self.take()
        close = _OPEN[t.text]
        inner = self.until(close, t)
        return f"({self.sub(inner).read()})"

    def until(self, close: str, t) -> list[Tok]:
        """The tokens up to the bracket that closes ``t`` (which was just taken)."""
        depth, start = 0, self.i
        opens = {"(", "[", "lbrace", "lbrack", "{"}
        while self.i < len(self.t):
            x = self.t[self.i]
            if x.kind in ("ch", "cmd") and x.text in opens:
                depth += 1
            elif x.kind in ("ch", "cmd") and x.text in (")", "]", "rbrace", "rbrack", "}"):
                if depth == 0:
                    if x.text != close and not (close in (")", "]") and x.text in (")", "]")):
                        self.fail(x, f"{x.text!r} closes {t.text!r}")
                    self.i += 1
                    return self.t[start:self.i - 1]
                depth -= 1
            self.i += 1
        self.fail(t, f"{self._show(t)!r} is not closed")

    def arguments(self) -> list[str]:
        t = self.take()
        inner = self.until(_OPEN[t.text], t)
        parts, cur, depth = [], [], 0
        for x in inner:
            if x.kind in ("ch", "cmd") and x.text in ("(", "[", "{", "lbrace"):
                depth += 1
            elif x.kind in ("ch", "cmd") and x.text in (")", "]", "}", "rbrace"):
                depth -= 1
            if depth == 0 and x.kind == "ch" and x.text == ",":
                parts.append(cur)
                cur = []
            else:
                cur.append(x)
        parts.append(cur)
        if any(not p for p in parts):
            self.fail(t, "an empty argument")
        return [self.sub(p).read() for p in parts]

    def absolute(self, opener: str, closer: str) -> str:
        t = self.take()
        if opener == "|":
            self.abs += 1
            inner = self.expr()
            self.abs -= 1
            if not self.at("ch", "|"):
                self.fail(t, "this | is not closed")
            self.take()
            return f"Abs({inner})"
        inner = self.until_cmd(closer, t)
        return f"Abs({self.sub(inner).read()})"

    def until_cmd(self, closer: str, t) -> list[Tok]:
        start = self.i
        while self.i < len(self.t):
            if self.at("cmd", closer):
                self.i += 1
                return self.t[start:self.i - 1]
            self.i += 1
        self.fail(t, f"\\{t.text} is not closed by \\{closer}")

    def function_name(self, name: str, tok) -> str:
        if tok.kind == "op":
            if name in _PARSER_FUNCTIONS:
                return name
            self.fail(tok, f"the operator {name!r} is not a function mathcheck knows; allowed: "
                           f"{', '.join(sorted(_PARSER_FUNCTIONS))}")
        if name in self.n.functions:
            return self.n.functions[name]
        if name == "operatorname":
            toks = self.arg_tokens(tok, "\\operatorname")
            word = _word(toks)
            if word not in _PARSER_FUNCTIONS:
                self.fail(tok, f"\\operatorname{{{word}}} is not a function mathcheck knows; allowed: "
                               f"{', '.join(sorted(_PARSER_FUNCTIONS))} (or % let: \\f = sigmoid)")
            return word
        return FUNCTIONS[name]

    def apply(self, fname: str, tok) -> str:
        """``\\sin^2 x``, ``\\log_2 x``, ``\\log(1 + x)``, ``\\sin m\\theta`` (the argument runs over the
        juxtaposed factors, as TeX is read), ``\\exp\\left(…\\right)``."""
        power = base = None
        for _ in range(2):
            if self.at("ch", "^") and power is None:
                t = self.take()
                power = self.script(t, "^")
                if power.replace(" ", "") in ("-1", "(-1)"):
                    self.fail(t, f"{fname}^{{-1}} is ambiguous (inverse or reciprocal); write \\arc… or "
                                 f"1/{fname}(x)")
            elif self.at("ch", "_") and base is None and fname == "log":
                t = self.take()
                base = self.script(t, "_")
        if self.at("ch", "(", "["):
            args = self.arguments()
            arg = ", ".join(args)
        elif self.at("ch", "{"):
            arg = self.script(tok, f"\\{fname}")
        else:
            if self.peek() is None or not self.starts_factor(self.peek()):
                self.fail(tok, f"{fname} needs an argument")
            arg = self.term(argument=True)
        out = f"{fname}({arg})" if base is None else f"log({arg}, {base})"
        return out if power is None else f"{out}^{_wrap(power)}"

    def fraction(self) -> str:
        t = self.take()
        num, self.i = _group(self.t, self.i, self.src, "\\frac")
        den, self.i = _group(self.t, self.i, self.src, "\\frac")
        d = _derivative(num, den)
        if d is None:
            if not num or not den:
                self.fail(t, "\\frac{…}{…} needs a numerator and a denominator")
            return f"{_wrap(self.sub(num).read())}/{_wrap(self.sub(den).read())}"
        top, var, order = d
        if not var:
            self.fail(t, "\\frac{d}{d?}: write the variable, e.g. \\frac{d}{dx}")
        x = self.sub(var).read()
        if top:
            f = self.sub(top).read()
        else:
            if self.peek() is None:
                self.fail(t, f"\\frac{{d}}{{d{x}}} needs something to differentiate after it")
            f = self.term(argument=True)
        return f"diff({f}, {x}" + (f", {order})" if order != "1" else ")")

    def big(self) -> str:
        """``\\sum_{i=1}^{n} body`` (and ``\\prod``): the body is the term after it."""
        t = self.take()
        what = "Sum" if t.text == "sum" else "Product"
        if not self.at("ch", "_"):
            self.fail(t, f"\\{t.text} needs its range: \\{t.text}_{{i=1}}^{{n}}")
        self.take()
        low, self.i = _group(self.t, self.i, self.src, f"\\{t.text}_")
        eq = next((k for k, x in enumerate(low) if x.kind == "ch" and x.text == "="), None)
        if eq is None or not self.at("ch", "^"):
            self.fail(t, f"\\{t.text} is read with both bounds: \\{t.text}_{{i=1}}^{{n}}")
        self.take()
        high, self.i = _group(self.t, self.i, self.src, f"\\{t.text}^")
        var = _word(low[:eq])
        if var is None or not low[eq + 1:] or not high:
            self.fail(t, f"\\{t.text}: write the range as \\{t.text}_{{i=1}}^{{n}}")
        lo, hi = self.sub(low[eq + 1:]).read(), self.sub(high).read()
        if self.peek() is None or not self.starts_factor(self.peek()):
            self.fail(t, f"\\{t.text} has nothing after its range")
        saved = self.bound
        self.bound = self.bound | {var}
        body = self.term()
        self.bound = saved
        return f"{what}({body}, ({var}, {lo}, {hi}))"

    def _show(self, t) -> str:
        return "\\" + t.text if t.kind == "cmd" else t.text


_ATOM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9.]+")


def _wrap(s: str) -> str:
    """``s`` as one operand: a name, number or call as it is, anything else in parentheses."""
    if _ATOM.fullmatch(s):
        return s
    m = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\(.*\)|\[.*\])", s)
    if m or (s.startswith("(") and s.endswith(")")):
        inner = m.group(1) if m else s
        depth = 0
        for k, c in enumerate(inner):  # the brackets must close only at the end
            depth += c in "(["
            depth -= c in ")]"
            if depth == 0 and k < len(inner) - 1:
                return f"({s})"
        return s
    return f"({s})"


def _parser_functions() -> set:
    from mathcheck.parser import FUNCTIONS as F, VARIADIC as V

    return set(F) | set(V) | {"logsumexp"}


_PARSER_FUNCTIONS = _parser_functions()


def _word(toks) -> str | None:
    """The name a run of tokens spells (``model`` in ``\\text{model}``, ``beta`` in ``\\beta``), or None."""
    out = ""
    i = 0
    while i < len(toks):
        x = toks[i]
        if x.kind == "ch" and (x.text.isalnum() or x.text in "_-"):
            out += "_" if x.text == "-" else x.text
        elif x.kind == "num" and x.text.isdigit():
            out += x.text
        elif x.kind == "cmd" and x.text in GREEK:
            out += _GREEK_NAME.get(x.text, x.text)
        elif x.kind == "cmd" and x.text in STYLE:
            j = i + 1
            if j >= len(toks) or toks[j].text != "{":
                return None
            inner, j = toks[j + 1:], len(toks)
            depth = 0
            for k in range(i + 1, len(toks)):
                depth += toks[k].text == "{"
                depth -= toks[k].text == "}"
                if depth == 0:
                    inner, j = toks[i + 2:k], k + 1
                    break
            w = _word(inner)
            if w is None:
                return None
            out += w
            i = j
            continue
        elif x.kind == "ch" and x.text in "{}":
            pass
        else:
            return None
        i += 1
    return out or None


def _checked_name(name: str, reader: Reader, tok) -> str:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,30}", name) or "__" in name:
        reader.fail(tok, f"{name!r} is not a name mathcheck reads (a letter, then letters, digits, single _)")
    return name


def _derivative(num: list[Tok], den: list[Tok]):
    """``(f tokens, x tokens, order)`` for ``\\frac{\\partial^k f}{\\partial x^k}`` or ``\\frac{d}{dx}``."""
    def d_head(toks):
        if toks and toks[0].kind == "cmd" and toks[0].text == "partial":
            return 1
        if toks and toks[0].kind == "ch" and toks[0].text == "d" and (len(toks) == 1 or toks[1].kind != "ch"
                                                                       or toks[1].text != "_"):
            return 1
        if len(toks) >= 4 and toks[0].kind == "cmd" and toks[0].text in ("mathrm", "operatorname", "text") \
                and [x.text for x in toks[1:4]] == ["{", "d", "}"]:
            return 4
        return 0

    hn, hd = d_head(num), d_head(den)
    if not hn or not hd:
        return None
    top, order = num[hn:], "1"
    if len(top) >= 2 and top[0].kind == "ch" and top[0].text == "^":
        if top[1].text == "{":
            k = next((k for k, x in enumerate(top) if x.text == "}"), len(top) - 1)
            order, top = "".join(x.text for x in top[2:k]), top[k + 1:]
        else:
            order, top = top[1].text, top[2:]
    var = den[hd:]
    if var and var[-1].kind in ("num", "ch") and len(var) >= 2 and var[-2].kind == "ch" and var[-2].text == "^":
        var = var[:-2]
    elif len(var) >= 4 and var[-1].text == "}" and any(x.text == "^" for x in var):
        var = var[:max(k for k, x in enumerate(var) if x.text == "^")]
    if any(x.kind == "cmd" and x.text == "partial" for x in var):
        return None
    return top, var, order


# --- blocks ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Block:
    start: int          # the opening delimiter
    body: int           # the math between the delimiters
    body_end: int
    end: int            # after the closing delimiter
    opener: str


_ENV = "|".join(re.escape(e) for e in ENVIRONMENTS)
_OPENERS = re.compile(r"\$\$|\\\[|\\begin\{(" + _ENV + r")\}")
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_DIRECTIVE = re.compile(r"^[ \t]*%+[ \t]*(?:(mathcheck[ \t]*:[ \t]*skip)|(assume|given|let)[ \t]*:)(.*)$", re.M)


def _masked(text: str, markdown: bool) -> str:
    """``text`` with what holds no display math blanked (offsets kept): code in Markdown, comments
    and ``\\$`` in LaTeX."""
    chars = list(text)

    def blank(a, b):
        for k in range(a, b):
            if chars[k] != "\n":
                chars[k] = " "

    if markdown:
        pos, fence = 0, None
        for line in text.splitlines(keepends=True):
            m = _FENCE_LINE.match(line)
            if fence is None and m:
                fence = m.group(1)
                blank(pos, pos + len(line))
            elif fence is not None:
                blank(pos, pos + len(line))
                if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
                    fence = None
            pos += len(line)
        for m in re.finditer(r"\\\$|\$`[^`\n]*`\$", "".join(chars)):  # \$, and GitHub's inline math $`…`$
            blank(m.start(), m.end())
        for m in re.finditer(r"(`+)(?:[^`\n]|\n(?![ \t]*\n))*?\1", "".join(chars)):  # spans may wrap
            blank(m.start(), m.end())
    else:
        for m in re.finditer(r"\\[$%]|(?<!\\)%[^\n]*", text):
            blank(m.start(), m.end())
    return "".join(chars)


def blocks(src: _Source, markdown: bool) -> list[Block]:
    """Every display block of the file, in order."""
    masked = _masked(src.text, markdown)
    out, i = [], 0
    while True:
        m = _OPENERS.search(masked, i)
        if m is None:
            return out
        if markdown and m.group(0) == "\\[":  # in Markdown \[ is an escaped bracket: only $$ and environments
            i = m.end()
            continue
        if m.group(0) == "$$":
            close = masked.find("$$", m.end())
            tail = "$$"
        elif m.group(0) == "\\[":
            close = masked.find("\\]", m.end())
            tail = "\\]"
        else:
            tail = "\\end{" + m.group(1) + "}"
            close = masked.find(tail, m.end())
        if close < 0:
            src.fail(m.start(), f"{m.group(0)} is not closed by {tail}")
        out.append(Block(m.start(), m.end(), close, close + len(tail), m.group(0)))
        i = close + len(tail)


def _refused_anywhere(src: _Source) -> None:
    """A ``.tex`` file may not use TeX's file, shell or catcode primitives anywhere (outside comments)."""
    masked = _masked(src.text, False)
    m = re.search(r"\\(" + "|".join(sorted(REFUSED, key=len, reverse=True)) + r")(?![A-Za-z])", masked)
    if m and m.group(1) not in ("usepackage", "documentclass"):
        src.refuse(m.start(), f"\\{m.group(1)} is refused: mathcheck reads one self-contained file and never runs "
                            f"TeX; inline the mathematics and use \\newcommand for notation")


def _directives(src: _Source, blk: Block, markdown: bool):
    """``(skip, [(kind, start, end)])``: the directive comments right before the block (LaTeX) and
    inside it."""
    spans = [(blk.body, blk.body_end)]
    if not markdown:
        line_start = src.text.rfind("\n", 0, blk.start) + 1
        k = line_start
        while k > 0:  # the run of comment or blank lines right above the block
            prev = src.text.rfind("\n", 0, k - 1) + 1
            line = src.text[prev:k - 1]
            if line.strip() and not line.lstrip().startswith("%"):
                break
            k = prev
        spans.insert(0, (k, line_start))
    skip, found = False, []
    for a, b in spans:
        for m in _DIRECTIVE.finditer(src.text, a, b):
            if m.group(1):
                skip = True
            else:
                found.append((m.group(2), m.start(3), m.end(3)))
    return skip, found


# --- a block as a chain ----------------------------------------------------------------------------

@dataclass
class _Link:
    relation: str | None
    at: Tok | None
    toks: list
    reason: str = ""


def _drop_structure(toks: list[Tok], src: _Source):
    """Remove ``\\begin{aligned}``, ``\\label{…}``, ``\\nonumber``; return (tokens, label)."""
    out, label, i = [], None, 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "cmd" and t.text in ("begin", "end"):
            name_toks, j = _group(toks, i + 1, src, f"\\{t.text}")
            name = "".join(x.text for x in name_toks)
            if name not in INNER_ENVIRONMENTS:
                src.fail(t.pos, f"\\{t.text}{{{name}}} inside display math is not read (matrices, cases: "
                                f"see docs/latex.md)")
            if t.text == "begin":  # \begin{aligned}[t], \begin{alignedat}{2}
                _, j = _bracket(toks, j)
                if name == "alignedat":
                    _, j = _group(toks, j, src, name)
            i = j
        elif t.kind == "cmd" and t.text == "label":
            name_toks, i = _group(toks, i + 1, src, "\\label")
            label = label or src.text[name_toks[0].pos:name_toks[-1].end] if name_toks else label
        elif t.kind == "cmd" and t.text in ("nonumber", "notag"):
            i += 1
        else:
            out.append(t)
            i += 1
    return out, label


def _plain(src: _Source, toks: list[Tok]) -> str:
    """A reason as text: ``\\quad\\text{(chain rule)}`` → ``chain rule``."""
    if not toks:
        return ""
    raw = src.text[toks[0].pos:toks[-1].end]
    raw = _unwrap(raw)
    # 5\times 10^{-4} as the number it is, so a ≈ link's stated bound reads as derive's does
    raw = re.sub(r"(\d+(?:\.\d+)?)\s*\\(?:times|cdot)\s*10\^\{?\s*(-?\d+)\s*\}?", r"\1e\2", raw)
    raw = re.sub(r"(?<![\w.])10\^\{?\s*(-?\d+)\s*\}?", r"1e\1", raw)
    raw = raw.replace("\\%", "%")
    raw = re.sub(r"\\(?:quad|qquad)\b|\\[,;:! ]|&", " ", raw)
    raw = " ".join(raw.replace("$", "").split()).strip()
    while len(raw) > 1 and raw[0] + raw[-1] in ("()", "[]"):
        raw = raw[1:-1].strip()
    return raw.rstrip(".,;").strip()


_WRAPPER = re.compile(r"\\(?:text[a-z]*|mbox|mathrm|emph|intertext|tag\*?)\s*\{")


def _unwrap(raw: str) -> str:
    """``\text{since $a = b$}`` → ``since $a = b$``: the wrappers of a reason removed, braces matched."""
    out, i = [], 0
    while True:
        m = _WRAPPER.search(raw, i)
        if m is None:
            return "".join(out) + raw[i:]
        depth, j = 1, m.end()
        while j < len(raw) and depth:
            depth += raw[j] == "{"
            depth -= raw[j] == "}"
            j += 1
        out += [raw[i:m.start()], " ", _unwrap(raw[m.end():j - 1]), " "]
        i = j


def _links(toks: list[Tok], src: _Source) -> list[_Link]:
    """Split a block at its top-level relations: the first expression, then one link per relation.
    Rows (``\\\\``) and alignment (``&``) only lay the chain out; a row starting with + or − goes on
    with the expression above. ``\\quad\\text{…}``, ``&& …``, ``\\tag{…}`` end a row with its reason;
    ``\\intertext{…}`` is the reason of the next link."""
    links = [_Link(None, None, [])]
    pending, depth, i, reason_from = "", 0, 0, None
    row_start = 0  # how many tokens the current link had when this row began
    def close_reason(j):
        nonlocal reason_from
        if reason_from is not None:
            text = _plain(src, toks[reason_from:j])
            if text:
                links[-1].reason = (links[-1].reason + "; " + text).strip("; ")
            reason_from = None

    while i < len(toks):
        t = toks[i]
        if t.kind == "ch" and t.text in "{}":
            depth += 1 if t.text == "{" else -1
        if depth > 0 or (t.kind == "ch" and t.text == "}"):
            if reason_from is None:
                links[-1].toks.append(t)
            i += 1
            continue
        if t.kind == "row":
            close_reason(i)
            row_start = len(links[-1].toks)
            i += 1
            if i < len(toks) and toks[i].kind == "ch" and toks[i].text == "[":  # \\[4pt]
                _, i = _bracket(toks, i)
            continue
        if reason_from is not None:
            i += 1
            continue
        if t.kind == "cmd" and t.text in ("intertext", "text", "textrm", "mbox", "tag", "tag*") \
                and t.text in ("intertext", "tag", "tag*"):
            arg, j = _group(toks, i + 1, src, f"\\{t.text}")
            text = _plain(src, arg)
            if t.text == "intertext":
                pending = text
            elif re.search("[A-Za-z]", text):
                links[-1].reason = (links[-1].reason + "; " + text).strip("; ")
            i = j
            continue
        starts_reason = (t.kind == "cmd" and t.text in ("quad", "qquad", "text", "textrm", "mbox")) or \
            (t.kind == "ch" and t.text == "&" and i + 1 < len(toks) and toks[i + 1].kind == "ch" and toks[i + 1].text == "&")
        if starts_reason and _expression(links[-1].toks[row_start:]):
            j = _text_run(toks, i, src) if t.kind == "cmd" else i
            if j > i and j < len(toks) and _relation_of(toks[j]) is not None:
                text = _plain(src, toks[i:j])  # a = b \quad\text{(why)} = c: the chain goes on
                links[-1].reason = (links[-1].reason + "; " + text).strip("; ")
                i = j
                continue
            reason_from = i  # to the end of the row: && commentary, or \quad x > 0 (a condition)
            i += 1
            continue
        if t.kind == "ch" and t.text == "&":
            i += 1
            continue
        rel = RELATIONS.get(t.text) if t.kind in ("ch", "cmd") else None
        if t.kind == "ch" and t.text in "<>=" and rel:
            pass
        if rel and (t.kind == "cmd" or t.text in "<>="):
            row_start = 0
            links.append(_Link(rel, t, [], pending))
            pending = ""
            i += 1
            continue
        if t.kind == "cmd" and t.text in NOT_LINKS:
            src.fail(t.pos, f"\\{t.text} is not a link mathcheck checks; a chain's links are =, \\le, <, \\ge, "
                            f">, \\approx (put % mathcheck: skip before a block that is not a chain)")
        links[-1].toks.append(t)
        i += 1
    close_reason(len(toks))
    for link in links:
        while link.toks and link.toks[-1].kind == "ch" and link.toks[-1].text in ".,;":
            link.toks.pop()
    return links


def _text_run(toks: list[Tok], i: int, src: _Source) -> int:
    """Where a run of spacing and ``\text{…}`` groups (parentheses around them too) starting at
    ``i`` ends; ``i`` itself if no text group is in it."""
    j, texts = i, 0
    while j < len(toks):
        t = toks[j]
        if t.kind == "cmd" and t.text in ("quad", "qquad", ",", ";", " ", "!", ":"):
            j += 1
        elif t.kind == "cmd" and t.text in ("text", "textrm", "textit", "mbox"):
            j = _group(toks, j + 1, src, "\\text")[1] if j + 1 < len(toks) and toks[j + 1].text == "{" else j + 1
            texts += 1
        elif t.kind == "ch" and t.text in "()":
            j += 1
        else:
            break
    return j if texts else i


def _expression(toks) -> bool:
    return any(not (t.kind == "ch" and t.text == "&") for t in toks)


def _notation(toks_lists, declared_int: set, functions: dict, variables: set) -> Notation:
    """Pass one: the indices (bound by a sum or product, or declared integers) and the bases that
    carry them as subscripts (``x_i`` with i an index makes x indexed, so ``x_1`` is x[1] too)."""
    indices = set(declared_int)
    for toks in toks_lists:
        for k, t in enumerate(toks):
            if t.kind == "cmd" and t.text in ("sum", "prod") and k + 2 < len(toks) and toks[k + 1].text == "_":
                low = toks[k + 3:] if toks[k + 2].text == "{" else toks[k + 2:k + 3]
                eq = next((j for j, x in enumerate(low) if x.text in ("=", "}")), None)
                if eq is not None:
                    w = _word(low[:eq])
                    if w:
                        indices.add(w)
    indexed = set()
    for toks in toks_lists:
        for k, t in enumerate(toks):
            if not (t.kind == "ch" and t.text == "_") or k == 0:
                continue
            base = toks[k - 1]
            if base.kind == "ch" and base.text.isalpha():
                name = base.text
            elif base.kind == "cmd" and base.text in GREEK:
                name = _GREEK_NAME.get(base.text, base.text)
            else:
                continue
            if k >= 2 and toks[k - 2].kind == "cmd" and toks[k - 2].text in ("sum", "prod", "log"):
                continue
            sub = toks[k + 2:] if k + 1 < len(toks) and toks[k + 1].text == "{" else toks[k + 1:k + 2]
            depth, letters = 0, []
            for x in sub:
                if x.text == "{":
                    depth += 1
                if x.text == "}":
                    if depth == 0:
                        break
                    depth -= 1
                if x.kind == "ch" and x.text.isalpha():
                    letters.append(x.text)
                elif x.kind == "cmd" and x.text in GREEK:
                    letters.append(x.text)
                if not (toks[k + 1].text == "{"):
                    break
            if letters and all(x in indices for x in letters) and "".join(letters) not in (name,):
                indexed.add(name)
            elif letters and "".join(letters) in indices:
                indexed.add(name)
    return Notation(indices, indexed, dict(functions), set(variables))


# --- directives: % assume:, % given:, % let: ----------------------------------------------------------

def _sets() -> dict:
    """``\\mathbb{R}_{>0}`` and friends (spelled without braces or spaces) → properties."""
    out = {"mathbbR": ("real",), "mathbbZ": ("integer",), "mathbbN": ("nonnegative", "integer")}
    for s in "_^":
        for tail in (">0", "+"):
            out[f"mathbbR{s}{tail}"] = ("positive",)
            out[f"mathbbZ{s}{tail}"] = ("positive", "integer")
            out[f"mathbbN{s}{tail}"] = ("positive", "integer")
        for ge in ("ge", "geq", "geqslant"):
            out[f"mathbbR{s}{ge}0"] = ("nonnegative",)
            out[f"mathbbZ{s}{ge}0"] = ("nonnegative", "integer")
            out[f"mathbbZ{s}{ge}1"] = ("positive", "integer")
            out[f"mathbbN{s}{ge}1"] = ("positive", "integer")
        for tail in ("<0", "-"):
            out[f"mathbbR{s}{tail}"] = ("negative",)
            out[f"mathbbZ{s}{tail}"] = ("negative", "integer")
    return out


_SET_PROPERTIES = _sets()
_SIGN_PROPERTIES = {(">", "0"): "positive", (">=", "0"): "nonnegative", ("<", "0"): "negative"}


def _split(toks: list[Tok], sep) -> list[list[Tok]]:
    """``toks`` split at the top-level tokens for which ``sep(tok)`` holds."""
    parts, cur, depth = [], [], 0
    for t in toks:
        if t.kind == "ch" and t.text in "{(":
            depth += 1
        elif t.kind == "ch" and t.text in "})":
            depth -= 1
        if depth == 0 and sep(t):
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    return parts


def _relation_of(t) -> str | None:
    if t.kind == "ch" and t.text in "<>=":
        return RELATIONS[t.text]
    if t.kind == "cmd" and t.text in RELATIONS or (t.kind == "cmd" and t.text in ("ne", "neq")):
        return RELATIONS.get(t.text, "!=")
    return None


@dataclass
class _Directive:
    kind: str           # assume, given, let
    at: int             # offset, for errors and the line
    toks: list


def _assume_items(src: _Source, d: _Directive):
    """``x, z \\in \\mathbb{R}`` / ``\\sigma > 0`` / ``p_i > 0`` → [(name tokens, properties)]."""
    out = []
    ins = [k for k, t in enumerate(d.toks) if t.kind == "cmd" and t.text == "in"]
    if ins:
        k = ins[0]
        spelled = "".join(t.text for t in d.toks[k + 1:] if t.text not in "{}")
        props = _SET_PROPERTIES.get(spelled)
        if props is None:
            src.fail(d.toks[k].pos, f"assume: {src.text[d.toks[k].pos:d.toks[-1].end]!r}: the sets read are "
                                    f"\\mathbb{{R}}, \\mathbb{{Z}}, \\mathbb{{N}}, with _{{>0}}, _{{\\ge 0}}, _{{<0}}")
        names = d.toks[:k]
    else:
        rels = [k for k, t in enumerate(d.toks) if _relation_of(t)]
        if len(rels) != 1:
            src.fail(d.at, "assume: write 'x \\in \\mathbb{R}', 'x > 0', 'x \\ge 0', 'x < 0' or 'x \\neq 0'; "
                           "for other hypotheses use % given:")
        k = rels[0]
        rel = _relation_of(d.toks[k])
        rhs = "".join(t.text for t in d.toks[k + 1:])
        props = ("nonzero",) if rel == "!=" and rhs == "0" else (
            (_SIGN_PROPERTIES[(rel, rhs)],) if (rel, rhs) in _SIGN_PROPERTIES else None)
        if props is None:
            src.fail(d.toks[k].pos, f"assume: {src.text[d.toks[0].pos:d.toks[-1].end]!r} is not a property (> 0, "
                                    f"\\ge 0, < 0, \\neq 0); write it as % given: … to make it a hypothesis")
        names = d.toks[:k]
    for part in _split(names, lambda t: t.kind == "ch" and t.text == ","):
        if not part:
            src.fail(d.at, "assume: a name is missing before ','")
        out.append((part, props))
    return out


def _assumed_name(src: _Source, part: list[Tok], notation: Notation) -> str:
    """The symbol an assumption is about: ``p_i`` is every entry of an indexed p, else a name."""
    base = part[0]
    if len(part) >= 2 and part[1].text == "_":
        b = _word([base])
        if b in notation.indexed:
            return b
    r = Reader(part, src, Notation(notation.indices, set(), {}, notation.variables))
    name = r.read()
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        src.fail(base.pos, f"assume: {src.text[part[0].pos:part[-1].end]!r} is not a name")
    return name


def _lets(src: _Source, d: _Directive, notation_functions: dict, lets: list):
    """``\\sigma = sigmoid`` names a function; ``\\mu = …`` defines a symbol (expanded where used)."""
    top = {id(t) for t in _top(d.toks)}
    eq = [k for k, t in enumerate(d.toks) if t.kind == "ch" and t.text == "=" and id(t) in top]
    if len(eq) != 1 or eq[0] == 0 or eq[0] == len(d.toks) - 1:
        src.fail(d.at, "let: write '\\mu = expression' or '\\sigma = sigmoid'")
    lhs, rhs = d.toks[:eq[0]], d.toks[eq[0] + 1:]
    params = ""
    if len(lhs) > 3 and lhs[1].text == "(" and lhs[-1].text == ")":  # f(t, u) = ...
        words = [_word(p) for p in _split(lhs[2:-1], lambda t: t.text == ",")]
        if None in words:
            src.fail(lhs[0].pos, "let: the parameters are names, e.g. % let: f(t) = t^2")
        params, lhs = f"({', '.join(words)})", lhs[:1]
        notation_functions[lhs[0].text] = _word(lhs)
    name = _word(lhs)
    if name is None:
        src.fail(lhs[0].pos, f"let: {src.text[lhs[0].pos:lhs[-1].end]!r} is not a name (one symbol, e.g. \\mu)")
    word = _word(rhs[2:-1] if len(rhs) > 3 and rhs[0].text in ("operatorname", "mathrm") else rhs)
    if word in _PARSER_FUNCTIONS:
        key = lhs[0].text if len(lhs) == 1 else name
        notation_functions[key] = word
        notation_functions[name] = word
        return
    lets.append((name + params, rhs, d))


# --- the file --------------------------------------------------------------------------------------

def chains(text: str, path: str, markdown: bool = False) -> list:
    """The chains in the display math of a ``.tex`` file (or of a Markdown file's ``$$`` and
    ``\\begin{align}`` blocks): :class:`mathcheck.derive.Chain` values, as derive reads them."""
    src = _Source(text, path)
    if len(text) > MAX_CHARS:
        raise LatexRefused(f"{path}: file too large ({len(text)} characters, at most {MAX_CHARS})")
    if not markdown:
        _refused_anywhere(src)
    found = blocks(src, markdown)
    regions = [(0, len(text))] if not markdown else [(b.body, b.body_end) for b in found]
    defs = macros(src, regions)
    out = []
    for blk in found:
        try:
            chain = _block_chain(src, blk, defs, markdown)
        except LatexRefused:
            raise
        except DeriveError as exc:  # an unreadable block fails its own chain; the others are checked
            n = src.line(blk.start)
            chain = Chain(f"line {n}", path, n, error=str(exc))
        if chain is not None:
            out.append(chain)
    return out


def _block_chain(src: _Source, blk: Block, defs: dict, markdown: bool):
    skip, directives = _directives(src, blk, markdown)
    if skip:
        return None
    body = tokenize(src, blk.body, blk.body_end)
    if any(t.kind == "cmd" and t.text in ("newcommand", "renewcommand", "providecommand", "DeclareMathOperator")
           for t in body):
        return None  # a block of macro definitions (KaTeX and MathJax keep them for later blocks)
    toks, label = _drop_structure(expand(body, defs, src), src)
    links = _links(toks, src)
    if len(links) == 1:
        return None  # display math without a relation is not a chain
    for link in links:
        if not link.toks:
            at = link.at.pos if link.at is not None else blk.body
            what = f"nothing after {src.text[link.at.pos:link.at.end]!r}" if link.at is not None else \
                "the chain has no first expression"
            src.fail(at, what)
    # the directives, split at ';'
    items = []
    for kind, a, b in directives:
        dtoks = expand(tokenize(src, a, b), defs, src)
        for part in _split(dtoks, lambda t: t.kind == "ch" and t.text == ";"):
            if part:
                items.append(_Directive(kind, part[0].pos, part))
            elif kind != "let" or dtoks:
                src.fail(a, f"{kind}: an empty item")
    functions: dict = {}
    lets: list = []
    assumed = []
    for d in items:
        if d.kind == "assume":
            assumed += _assume_items(src, d)
        elif d.kind == "let":
            _lets(src, d, functions, lets)
    declared_int = {_word(p[:1]) for p, props in assumed if "integer" in props and len(p) == 1}
    variables = {_word(p) for p, _ in assumed} - {None}  # declared: p(1 - p) is a product
    notation = _notation([link.toks for link in links] + [d.toks for d in items], declared_int - {None},
                         functions, variables)
    assumptions: dict = {}
    for part, props in assumed:
        name = _assumed_name(src, part, notation)
        assumptions[name] = tuple(dict.fromkeys(assumptions.get(name, ()) + props))
    chain_lets = tuple((src.line(d.at), f"{name} = {Reader(rhs, src, notation).read()}") for name, rhs, d in lets)
    given = []
    for d in items:
        if d.kind != "given":
            continue
        sides = _split(d.toks, lambda t: _relation_of(t) is not None)
        top = {id(t) for t in _top(d.toks)}
        rels = [_relation_of(t) for t in d.toks if _relation_of(t) is not None and id(t) in top]
        if len(sides) < 2 or any(not s for s in sides) or any(r in ("≈", "!=") for r in rels):
            src.fail(d.at, "given: write a relation, e.g. % given: \\sum_{j=1}^{n} y_j = 1 or 1 \\le j \\le n")
        text = Reader(sides[0], src, notation).read()
        for rel, side in zip(rels, sides[1:]):
            text += f" {rel} {Reader(side, src, notation).read()}"
        given.append((src.line(d.at), text))
    steps = []
    for link in links:
        while link.toks and (link.toks[-1].kind == "ch" and link.toks[-1].text in "&~"
                             or link.toks[-1].kind == "cmd" and link.toks[-1].text in _SPACING):
            link.toks.pop()  # the next row's alignment and indentation are not this link's
        text = Reader(link.toks, src, notation).read()
        first = link.at or link.toks[0]
        source = re.sub(r"\\label\{[^{}]*\}|\\nonumber\b|\\notag\b", "", src.text[first.pos:link.toks[-1].end])
        source = " ".join(source.split())
        line = src.line(first.pos)
        steps.append(Line(line, link.relation, text, link.reason, source))
    name = label or f"line {src.line(blk.start)}"
    return Chain(name, src.path, src.line(blk.start), assumptions, tuple(given), tuple(steps), chain_lets)


def _top(toks):
    """The tokens of ``toks`` outside braces and parentheses."""
    out, depth = [], 0
    for t in toks:
        if t.kind == "ch" and t.text in "{(":
            depth += 1
        elif t.kind == "ch" and t.text in "})":
            depth -= 1
        elif depth == 0:
            out.append(t)
    return out


def translate(tex: str, path: str = "<latex>") -> str:
    """One LaTeX expression in the text grammar (indices: the ones its sums bind).

        >>> translate(r"\\frac{1}{n}\\sum_{i=1}^{n} (x_i - \\mu)^2")
        '1/n*Sum((x[i] - mu)^2, (i, 1, n))'
    """
    src = _Source(tex, path)
    toks = tokenize(src, 0, len(tex))
    return Reader(toks, src, _notation([toks], set(), {}, set())).read()
