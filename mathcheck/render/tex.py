r"""Prose and math as LaTeX: the escaping every LaTeX output shares (the document in
:mod:`mathcheck.render.latex`, MathJax in :mod:`mathcheck.render.notebook`, inline math in
:mod:`mathcheck.render.markdown`).

Every expression is printed by SymPy's LaTeX printer (:class:`Printer` only gives the undefined
functions ``E``, ``Var``, ``KL``, ``CrossEntropy`` their usual notation); every piece of prose goes
through :func:`text`, which escapes LaTeX's specials and maps the Unicode the claims use (``−``,
``Σ``, ``ω``, ``≥``, ``ᵀ``, ...) to commands pdflatex can set.

    >>> text("p_i ≥ 0 for 50% of cases")  # doctest: +SKIP
    '$p_i$ \\ensuremath{\\geq} 0 for 50\\% of cases'
"""

from __future__ import annotations

import functools
import re
import unicodedata

from mathcheck import relations

REL = {r.op: r.tex for r in relations.TABLE}  # mathcheck.relations: the one table


def mark(word: str) -> str:
    """A status word's mark in TeX (:class:`mathcheck.outcome.Status`): ``\\checkmark``, ``\\times``, ..."""
    from mathcheck.outcome import status

    return status(word).tex


# "_", "^" and "~" outside math (code such as F.kl_div) take cmtt's ASCII glyphs: OT1's \_ is a rule
# and \^{} an accent, which a PDF's text layer turns into a space and "ˆ"
_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"{\ttfamily\char95}",
    "^": r"{\ttfamily\char94}",
    "~": r"{\ttfamily\char126}",
    "<": r"\ensuremath{<}",
    ">": r"\ensuremath{>}",
    "|": r"\ensuremath{|}",
}
_UNICODE = {
    "−": "-",
    "–": "--",
    "—": "---",
    "…": r"\dots{}",
    "“": "``",
    "”": "''",
    "‘": "`",
    "’": "'",
    "§": r"\S{}",
    "·": r"\ensuremath{\cdot}",
    "×": r"\ensuremath{\times}",
    "÷": r"\ensuremath{\div}",
    "≥": r"\ensuremath{\geq}",
    "≤": r"\ensuremath{\leq}",
    "≠": r"\ensuremath{\neq}",
    "≈": r"\ensuremath{\approx}",
    "≡": r"\ensuremath{\equiv}",
    "∝": r"\ensuremath{\propto}",
    "→": r"\ensuremath{\to}",
    "←": r"\ensuremath{\leftarrow}",
    "⇒": r"\ensuremath{\Rightarrow}",
    "⇔": r"\ensuremath{\Leftrightarrow}",
    "↦": r"\ensuremath{\mapsto}",
    "∈": r"\ensuremath{\in}",
    "∉": r"\ensuremath{\notin}",
    "⊂": r"\ensuremath{\subset}",
    "⊆": r"\ensuremath{\subseteq}",
    "∞": r"\ensuremath{\infty}",
    "∂": r"\ensuremath{\partial}",
    "∇": r"\ensuremath{\nabla}",
    "∑": r"\ensuremath{\sum}",
    "∏": r"\ensuremath{\prod}",
    "√": r"\ensuremath{\surd}",
    "∫": r"\ensuremath{\int}",
    "±": r"\ensuremath{\pm}",
    "‖": r"\ensuremath{\|}",
    "∣": r"\ensuremath{\mid}",
    "⊙": r"\ensuremath{\odot}",
    "⊗": r"\ensuremath{\otimes}",
    "⊕": r"\ensuremath{\oplus}",
    "∘": r"\ensuremath{\circ}",
    "∀": r"\ensuremath{\forall}",
    "∃": r"\ensuremath{\exists}",
    "∧": r"\ensuremath{\wedge}",
    "∨": r"\ensuremath{\vee}",
    "¬": r"\ensuremath{\neg}",
    "∅": r"\ensuremath{\emptyset}",
    "ℝ": r"\ensuremath{\mathbb{R}}",
    "ℕ": r"\ensuremath{\mathbb{N}}",
    "ℤ": r"\ensuremath{\mathbb{Z}}",
    "𝔼": r"\ensuremath{\mathbb{E}}",
    "⟨": r"\ensuremath{\langle}",
    "⟩": r"\ensuremath{\rangle}",
    "⌈": r"\ensuremath{\lceil}",
    "⌉": r"\ensuremath{\rceil}",
    "⌊": r"\ensuremath{\lfloor}",
    "⌋": r"\ensuremath{\rfloor}",
    "°": r"\ensuremath{^\circ}",
    "′": r"\ensuremath{'}",
    "″": r"\ensuremath{''}",
    "½": r"\ensuremath{\tfrac12}",
    "≪": r"\ensuremath{\ll}",
    "≫": r"\ensuremath{\gg}",
    "∼": r"\ensuremath{\sim}",
    "≃": r"\ensuremath{\simeq}",
    "⊤": r"\ensuremath{\top}",
    "⊥": r"\ensuremath{\perp}",
    "ℓ": r"\ensuremath{\ell}",
    "ℒ": r"\ensuremath{\mathcal{L}}",
    "⋅": r"\ensuremath{\cdot}",
    "∗": r"\ensuremath{\ast}",
    "≔": r"\ensuremath{:=}",
    "∩": r"\ensuremath{\cap}",
    "∪": r"\ensuremath{\cup}",
    "↔": r"\ensuremath{\leftrightarrow}",
    "⟹": r"\ensuremath{\Longrightarrow}",
    "✓": r"\ensuremath{\checkmark}",
    "≲": r"\ensuremath{\lesssim}",
    "≳": r"\ensuremath{\gtrsim}",
    "≅": r"\ensuremath{\cong}",
    "∓": r"\ensuremath{\mp}",
    "∖": r"\ensuremath{\setminus}",
    "⊇": r"\ensuremath{\supseteq}",
    "⊃": r"\ensuremath{\supset}",
    "≜": r"\ensuremath{\triangleq}",
    "⟂": r"\ensuremath{\perp}",
    "ᵀ": r"\ensuremath{^{\top}}",
    "✔": r"\ensuremath{\checkmark}",
    "✘": r"\ensuremath{\times}",
    "\u00a0": "~",
    "\u2009": r"\,",
    "\u202f": r"\,",
}
_COMBINING = {
    "\u0300": r"\grave",
    "\u0301": r"\acute",
    "\u0302": r"\hat",
    "\u0303": r"\tilde",
    "\u0304": r"\bar",
    "\u0305": r"\overline",
    "\u0307": r"\dot",
    "\u0308": r"\ddot",
    "\u20d7": r"\vec",
}
_VARIANTS = {
    "ϵ": r"\epsilon",
    "ε": r"\varepsilon",
    "ϕ": r"\phi",
    "φ": r"\varphi",
    "ϑ": r"\vartheta",
    "ς": r"\varsigma",
    "ϱ": r"\varrho",
}


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (
        0x3000 <= o <= 0x303F
        or 0x3400 <= o <= 0x4DBF
        or 0x4E00 <= o <= 0x9FFF
        or 0xF900 <= o <= 0xFAFF
        or 0xFF00 <= o <= 0xFFEF
    )


def _greek(ch: str) -> str | None:
    if ch in _VARIANTS:
        return _VARIANTS[ch]
    name = unicodedata.name(ch, "")
    m = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER ([A-Z]+)", name)
    if not m:
        return None
    word = m.group(2).lower()
    if m.group(1) == "SMALL":
        return "o" if word == "omicron" else "\\" + word
    latin = {
        "alpha": "A",
        "beta": "B",
        "epsilon": "E",
        "zeta": "Z",
        "eta": "H",
        "iota": "I",
        "kappa": "K",
        "mu": "M",
        "nu": "N",
        "omicron": "O",
        "rho": "P",
        "tau": "T",
        "chi": "X",
    }
    return latin.get(word, "\\" + word.capitalize())


def _char(ch: str) -> str | None:
    """One non-CJK character as LaTeX text, or None when pdflatex has no way to set it."""
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    if ord(ch) < 128:
        return ch
    if ch in _UNICODE:
        return _UNICODE[ch]
    g = _greek(ch)
    if g is not None:
        return rf"\ensuremath{{{g}}}" if g.startswith("\\") else g
    decomposition = unicodedata.decomposition(ch)
    m = re.fullmatch(r"<(sub|super)> ([0-9A-F]+)", decomposition)
    if m:  # ₖ, ², ⁻¹ ... as sub/superscripts of what they decompose to
        inner = _char(chr(int(m.group(2), 16))) or "?"
        inner = inner.removeprefix(r"\ensuremath{").removesuffix("}") if inner.startswith(r"\ensuremath") else inner
        return rf"\ensuremath{{{'_' if m.group(1) == 'sub' else '^'}{{{inner}}}}}"
    if decomposition and not decomposition.startswith("<"):  # é, ü, ...: inputenc maps them to accents
        return ch
    return None


_EMPH = re.compile(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])")  # *word*, as Markdown writes emphasis


# --- math written in prose ------------------------------------------------------------------------
# Claims write math in their prose the way people type it: d_k, R^{d_k}, σ_q², e^{z_i − z_j}, 2^20,
# 10000^(−2i/d), 1e-12. :func:`segments` finds it, so LaTeX and Markdown set it as math, while the
# identifiers of code (F.kl_div, key_padding_mask, __matmul__) stay text.

_MAYBE_MATH = re.compile(r"[_^]|\d[eE][-+−]?\d")
_WORD = re.compile(r"[A-Za-z0-9_.]+")
_BASE = re.compile(r"\d+(?:\.\d+)?|[A-Za-z]+")
_E_NUMBER = re.compile(r"(\d+(?:\.\d+)?)[eE]([-+−]?)(\d+)(?![A-Za-z0-9_])")
_ARG_WORD = re.compile(r"[<>]?(?:[-−]?\d+|[A-Za-z]+)")
_CLOSERS = ")]}|"


def sci(x) -> str:
    r"""A number as LaTeX math, e-notation as a power of ten: ``1e-12`` → ``10^{-12}``,
    ``3.2e-15`` → ``3.2 \cdot 10^{-15}``, ``0.5`` → ``0.5``."""
    s = x if isinstance(x, str) else f"{x:g}"
    m = re.fullmatch(r"([-−]?)(\d+(?:\.\d+)?)[eE]([-+−]?)(\d+)", s)
    if not m:
        return s.replace("−", "-")
    sign, mantissa, esign, exponent = m.groups()
    power = "10^{" + ("-" if esign in "-−" and esign else "") + str(int(exponent)) + "}"
    return ("-" if sign else "") + (power if mantissa == "1" else rf"{mantissa} \cdot {power}")


def _math_char(ch: str) -> str | None:
    """One non-ASCII character as math (no ``\\ensuremath``), or None."""
    if ch == "−":
        return "-"
    if ch == "…":
        return r"\dots "
    tex = _UNICODE.get(ch)
    if tex and tex.startswith(r"\ensuremath{"):
        inner = tex[len(r"\ensuremath{") : -1]
        return inner + " " if inner[-1].isalpha() else inner
    g = _greek(ch)
    if g is not None:
        return g + " " if g.startswith("\\") else g
    return None


def _unicode_script(ch: str) -> tuple[str, str] | None:
    """``²`` → ("^", "2"), ``ₖ`` → ("_", "k"), ``ᵀ`` → ("^", r"\top")."""
    if ch == "ᵀ":
        return "^", r"\top"
    m = re.fullmatch(r"<(sub|super)> ([0-9A-F]+)", unicodedata.decomposition(ch))
    if not m:
        return None
    inner = chr(int(m.group(2), 16))
    inner = inner if inner.isascii() and (inner.isalnum() or inner in "+-=()") else _math_char(inner)
    return None if inner is None else ("_" if m.group(1) == "sub" else "^", inner.strip())


_GREEK_NAMES = {
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
}


def _word(w: str) -> str:
    """A run of letters as math: a Greek letter's name (SymPy prints σ as sigma) as the letter, a
    word of three or more (head, rows, max) upright, else variables."""
    if w in _GREEK_NAMES or w.lower() in _GREEK_NAMES and w[0].isupper() and w[1:].islower():
        return "\\" + w + " "
    return rf"\mathrm{{{w}}}" if len(w) >= 3 and w.isalpha() else w


def _balanced(s: str, i: int) -> int | None:
    """The index just past the bracket that closes ``s[i]``, or None."""
    close = {"{": "}", "(": ")"}[s[i]]
    depth = 0
    for j in range(i, len(s)):
        depth += (s[j] == s[i]) - (s[j] == close)
        if depth == 0:
            return j + 1
    return None


def _arg(s: str, i: int, kind: str) -> tuple[str, int] | None:
    """The argument of a ``_`` or ``^`` at ``s[i]``: {…}, (…) (a superscript drops the
    parentheses: 10000^(−2i/d)), a number, a word, or a Greek letter."""
    if i >= len(s):
        return None
    if s[i] in "{(":
        end = _balanced(s, i)
        inner = None if end is None else _math_run(s[i + 1 : end - 1])
        if inner is None:
            return None
        return (inner if s[i] == "{" or kind == "^" else f"({inner})"), end
    m = _ARG_WORD.match(s, i)
    if m:
        w = m.group().replace("−", "-")
        return (w[0] + _word(w[1:]) if w[0] in "<>" else _word(w)), m.end()
    g = _greek(s[i])
    return (g, i + 1) if g is not None else None


def _scripts(s: str, i: int) -> tuple[str, int, int]:
    """Sub/superscripts from ``s[i]``: their LaTeX, where they end, how many were ASCII."""
    out, ascii_scripts, last = [], 0, None
    while i < len(s):
        if s[i] in "_^" or s.startswith("**", i):  # x**2, as SymPy prints a power
            op = 2 if s[i] == "*" else 1
            a = _arg(s, i + op, "^" if op == 2 else s[i])
            if a is None:
                break
            kind, tex, i = "^" if op == 2 else s[i], a[0], a[1]
            ascii_scripts += 1
        else:
            u = _unicode_script(s[i])
            if u is None:
                break
            kind, tex, i = u[0], u[1], i + 1
            while i < len(s) and (v := _unicode_script(s[i])) is not None and v[0] == kind:  # ⁻¹
                tex, i = tex + v[1], i + 1
        out.append(("{}" if kind == last else "") + f"{kind}{{{tex}}}")  # x^{2}{}^{2}, never a double script
        last = kind
    return "".join(out), i, ascii_scripts


def _math_run(s: str) -> str | None:
    """All of ``s`` (what stood inside braces) as math, or None when it is not math."""
    out, i = [], 0
    while i < len(s):
        ch = s[i]
        if ch in "_^" or _unicode_script(ch) is not None:
            tex, j, _ = _scripts(s, i)
            if j == i:
                return None
            out.append(tex)
            i = j
            continue
        if ch.isascii() and ch.isalpha():
            m = _BASE.match(s, i)
            out.append(_word(m.group()))
            i = m.end()
            continue
        if ch.isascii():
            if ch in '\\$&#%~"':
                return None
            out.append(ch)
        else:
            tex = _math_char(ch)
            if tex is None:
                return None
            out.append(tex)
        i += 1
    return "".join(out).strip()


def _token(s: str, i: int) -> tuple[str, int] | None:
    """Math that starts at ``s[i]``: a base (letters, a number, a Greek letter, a math symbol such
    as ‖ or ∑, or nothing after a closing bracket) with at least one ``_`` or ``^``."""
    m = _BASE.match(s, i)
    if m:
        base, j = m.group(), m.end()
        base = base if len(base) < 2 or not base.isalpha() else _word(base).strip()
    elif s[i] in "_^":
        base, j = "{}", i
    else:
        base = r"\sum" if s[i] == "Σ" else _math_char(s[i])  # Σ_i p_i is a sum
        if base is None or s[i] in "−…":
            return None
        base, j = base.strip(), i + 1
    tex, end, ascii_scripts = _scripts(s, j)
    return (base + tex, end) if ascii_scripts else None


def _is_code(word: str) -> bool:
    """``F.kl_div``, ``key_padding_mask``, ``__matmul__`` are code; ``d_k``, ``W_QK``, ``D_head``,
    ``Var_p`` are math."""
    word = word.rstrip(".")
    head, _, rest = word.partition("_")
    if "_" not in word or not rest and not head:
        return False
    return not head or "." in head or "_" in rest or (len(head) >= 2 and len(rest) >= 2 and not head.isdigit())


def segments(s: str) -> list[tuple[str, str]]:
    """Prose split into ("text", piece) and ("math", LaTeX math without delimiters)::

    >>> segments("q ∈ R^{d_k}, atol 1e-12")
    [('text', 'q ∈ '), ('math', 'R^{d_{k}}'), ('text', ', atol '), ('math', '10^{-12}')]
    """
    if not _MAYBE_MATH.search(s):
        return [("text", s)] if s else []
    out: list[tuple[str, str]] = []

    def emit(kind, piece):
        if out and out[-1][0] == kind == "text":
            out[-1] = ("text", out[-1][1] + piece)
        else:
            out.append((kind, piece))

    i = 0
    while i < len(s):
        ch = s[i]
        boundary = i == 0 or not re.match(r"[A-Za-z0-9_.]", s[i - 1])
        word = ch.isascii() and ch.isalnum() or ch == "_" and s.startswith("__", i)
        if boundary and word and (w := _WORD.match(s, i)) and "_" in w.group() and _is_code(w.group()):
            emit("text", w.group())
            i = w.end()
            continue
        if boundary and (m := _E_NUMBER.match(s, i)):
            emit("math", sci(m.group()))
            i = m.end()
            continue
        # a letter or number starts math only at the start of a word; ‖ and ∑ anywhere; a bare
        # _ or ^ after a closing bracket: (PX)_a, (0, 1]^n
        if (
            boundary
            if not ch.isascii() and ch not in "‖∑" or ch.isalnum()
            else ch in "‖∑" or ch in "_^" and i and s[i - 1] in _CLOSERS
        ):
            t = _token(s, i)
            if t is not None:
                emit("math", t[0])
                i = t[1]
                continue
        emit("text", ch)
        i += 1
    return out


def text(s: str) -> str:
    """Prose as LaTeX: specials escaped, math Unicode mapped, ``*emphasis*`` as ``\\emph``, math
    written in the prose (:func:`segments`) as math, Chinese (and anything else pdflatex cannot
    set by itself) inside a CJK environment, whose font covers the symbols of GB 2312."""
    pieces = _EMPH.split(s)
    if len(pieces) > 1:  # odd pieces were between asterisks
        return "".join(rf"\emph{{{_text(p)}}}" if n % 2 else _text(p) for n, p in enumerate(pieces))
    return _text(s)


def _text(s: str) -> str:
    return "".join(rf"\ensuremath{{{piece}}}" if kind == "math" else _plain(piece) for kind, piece in segments(s))


def _plain(s: str) -> str:
    out, cjk = [], []

    def flush():
        if cjk:
            # \mbox{} starts the paragraph first: a run-in heading (\paragraph) set inside the CJK
            # environment makes CJKutf8 attach its ToUnicode map to the Latin font, and the PDF's
            # text no longer copies or searches
            out.append(r"\mbox{}\begin{CJK}{UTF8}{gbsn}" + "".join(cjk) + r"\end{CJK}")
            cjk.clear()

    for ch in s:
        accent = _COMBINING.get(ch)
        if accent and out and not cjk:  # x̄: the accent goes over what precedes it
            base = out.pop()
            base = base.removeprefix(r"\ensuremath{").removesuffix("}") if base.startswith(r"\ensuremath") else base
            out.append(rf"\ensuremath{{{accent}{{{base}}}}}")
            continue
        tex = None if _is_cjk(ch) else _char(ch)
        if tex is None:
            cjk.append(ch)
        else:
            flush()
            out.append(tex)
    flush()
    return "".join(out)


# --- math ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _printer_class():
    from sympy.printing.latex import LatexPrinter

    class Printer(LatexPrinter):
        """SymPy's printer with the usual notation for the claims' undefined functions."""

        def _print_Function(self, expr, exp=None):
            name = type(expr).__name__
            args = [self._print(a) for a in expr.args]
            if name == "E" and len(args) == 1:
                tex = rf"\mathbb{{E}}\left[{args[0]}\right]"
            elif name == "Var" and len(args) == 1:
                tex = rf"\operatorname{{Var}}\left[{args[0]}\right]"
            elif name == "Cov" and len(args) == 2:
                tex = rf"\operatorname{{Cov}}\left[{args[0]}, {args[1]}\right]"
            elif name == "KL" and len(args) == 2:
                tex = rf"D_{{\mathrm{{KL}}}}\left({args[0]} \,\middle\|\, {args[1]}\right)"
            elif name == "H" and len(args) == 1:
                tex = rf"H\left({args[0]}\right)"
            elif name == "CrossEntropy" and len(args) == 2:
                tex = rf"H\left({args[0]}, {args[1]}\right)"
            else:
                return super()._print_Function(expr, exp)
            return rf"{tex}^{{{exp}}}" if exp is not None else tex

        def _print_Symbol(self, expr, style="plain"):
            out = super()._print_Symbol(expr, style)
            name = expr.name
            if out == name and len(name) > 1 and name.isalpha():  # "pos": a word, not p·o·s
                return rf"\mathrm{{{name}}}"
            return out

    return Printer


def math(expr) -> str:
    """``expr`` as LaTeX math (no delimiters), by SymPy's printer."""
    try:
        return _math_cached(expr)
    except TypeError:  # unhashable (a mutable Matrix)
        return _printer_class()(settings={}).doprint(expr)


@functools.lru_cache(maxsize=8192, typed=True)  # a catalog prints the same symbols and steps many times over
def _math_cached(expr) -> str:
    return _printer_class()(settings={}).doprint(expr)


def statement(stmt) -> str:
    """A relational (Eq, Ge, ...) printed as ``lhs REL rhs``; SymPy relationals print themselves."""
    return math(stmt)
