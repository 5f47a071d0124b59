r"""A ``cases`` display of two branches read into the text grammar (docs/latex.md, "Notation"); the
block reader's hook for ``\begin{cases}``.

``\begin{cases} a & x \ge 0 \\ b & \text{otherwise} \end{cases}`` (the second condition ``otherwise``,
``else``, or the first one's complement, ``x < 0``; words ``if``, ``for``, ``when`` and trailing
punctuation dropped) is ``(a)·1(x ≥ 0) + (b)·(1 − 1(x ≥ 0))`` — the indicator of
:mod:`mathcheck.latex.indicator`, so ``(a)*step(x) + (b)*(1 - step(x))``. That sum is the piecewise
function only where both branches have a value at every point (0·a must be 0 where a's condition
fails), so a branch that may have none — a fraction, a root, a logarithm, a negative or fractional
power, tan — is refused with one line, as are more than two branches, conditions that do not split
the line in two (``x \ge 0`` and ``x \le 0`` overlap at 0) and a condition other than one comparison
(``j \in J``).

    >>> from mathcheck.latex import chains
    >>> note = "$$\\max(x, 0) = \\begin{cases} x & x \\ge 0 \\\\ 0 & \\text{otherwise} \\end{cases}$$"
    >>> chains(note, "n.md", markdown=True)[0].steps[1].text
    '(x)*step(x) + (0)*(1 - step(x))'
"""

from __future__ import annotations

from mathcheck.latex.tokens import Tok, _group

_WORDS = {"if", "for", "when", "whenever", "where"}
_OTHERWISE = {"otherwise", "else", "elsewhere"}
_NEGATION = {"ge": "lt", "gt": "le", "le": "gt", "lt": "ge"}
_FLIP = {"ge": "le", "gt": "lt", "le": "ge", "lt": "gt"}
_RELATION = {"ge": "ge", "geq": "ge", "geqslant": "ge", ">": "gt", "gt": "gt"}
_RELATION |= {"le": "le", "leq": "le", "leqslant": "le", "<": "lt", "lt": "lt"}
# a branch with one of these may have no value where its condition fails: 0·(it) is not 0 there
_PARTIAL = {"frac", "dfrac", "tfrac", "cfrac", "sqrt", "log", "ln", "tan", "cot", "sec", "csc", "arcsin", "arccos"}


def read(toks: list[Tok], i: int, src) -> tuple[list[Tok], int]:
    """The ``cases`` environment whose ``\\begin`` is ``toks[i]``: the tokens that stand for it and the
    index after its ``\\end{cases}``."""
    begin = toks[i]
    _, j = _group(toks, i + 1, src, "\\begin")
    start, depth = j, 0
    while j < len(toks):
        t = toks[j]
        if t.kind == "cmd" and t.text in ("begin", "end"):
            name, after = _group(toks, j + 1, src, f"\\{t.text}")
            if "".join(x.text for x in name) == "cases":
                if t.text == "begin":
                    depth += 1
                elif depth == 0:
                    return _branches(toks[start:j], begin, src), after
                else:
                    depth -= 1
        j += 1
    src.fail(begin.pos, "\\begin{cases} is not closed by \\end{cases}")


def _branches(body: list[Tok], begin: Tok, src) -> list[Tok]:
    rows = [r for r in _split(body, lambda t: t.kind == "row") if any(t.kind != "row" for t in r)]
    if len(rows) != 2:
        src.fail(begin.pos, _usage("a cases display of two branches is read; this one has " + str(len(rows))))
    parts = []
    for row in rows:
        cells = _split(row, lambda t: t.kind == "ch" and t.text == "&")
        if len(cells) != 2 or not _trim(cells[0]):
            src.fail(begin.pos, _usage("each branch is a value & its condition"))
        parts.append((_trim(cells[0]), _condition(cells[1])))
    (a, first), (b, second) = parts
    if first is None or first == "otherwise" or _comparison(first) is None:
        src.fail(begin.pos, _usage("the first branch needs its condition, one comparison"))
    if second != "otherwise" and not _complement(first, second):
        src.fail(begin.pos, _usage("the second condition must be 'otherwise' or the first one's complement"))
    for value in (a, b):
        bad = next((t for t in value if _partial(value, t)), None)
        if bad is not None:
            src.fail(
                bad.pos,
                _usage("a branch that may have no value where its condition fails (a fraction, root, log, "
                       "negative or fractional power) is not read"),
            )  # fmt: skip
    at = begin.pos

    def ch(c):
        return Tok("ch", c, at, at)

    indicator = [Tok("cmd", "mathbb", at, at), ch("{"), Tok("num", "1", at, at), ch("}"), ch("(")]
    indicator += first + [ch(")")]
    return (
        [ch("("), *a, ch(")"), *indicator, ch("+"), ch("("), *b, ch(")")]
        + [ch("("), Tok("num", "1", at, at), ch("-"), *indicator, ch(")")]
    )  # fmt: skip


def _usage(why: str) -> str:
    return f"\\begin{{cases}}: {why} (a value & x \\ge 0 \\\\ another & \\text{{otherwise}}; docs/latex.md)"


def _split(toks, sep) -> list:
    out, cur, depth = [], [], 0
    for t in toks:
        if t.kind == "ch" and t.text in "{}":
            depth += 1 if t.text == "{" else -1
        if depth == 0 and sep(t):
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    out.append(cur)
    return out


def _trim(toks: list[Tok]) -> list[Tok]:
    """Without the punctuation at its ends (``x \\ge 0,``)."""
    while toks and toks[-1].kind == "ch" and toks[-1].text in ",.;":
        toks = toks[:-1]
    return toks


def _condition(cell: list[Tok]):
    """The condition's tokens (words ``if``, ``for`` dropped), ``"otherwise"``, or None (none there)."""
    out, k = [], 0
    while k < len(cell):
        t = cell[k]
        if t.kind == "cmd" and t.text in ("text", "textrm", "mbox", "mathrm"):
            word = []
            inner = k + 2
            while inner < len(cell) and not (cell[inner].kind == "ch" and cell[inner].text == "}"):
                word.append(cell[inner].text)
                inner += 1
            words = "".join(word).replace(".", " ").replace(",", " ").split()
            if words and all(w in _OTHERWISE for w in words):
                return "otherwise" if not _trim(out) else None
            if not all(w in _WORDS for w in words):
                return None
            k = inner + 1
            continue
        out.append(t)
        k += 1
    out = _trim(out)
    return out or None


def _comparison(cond: list[Tok]):
    found = [(k, _RELATION[t.text]) for k, t in enumerate(cond) if t.kind in ("ch", "cmd") and t.text in _RELATION]
    if len(found) != 1:
        return None
    k, rel = found[0]
    return tuple((t.kind, t.text) for t in cond[:k]), rel, tuple((t.kind, t.text) for t in cond[k + 1 :])


def _complement(first, second) -> bool:
    """Whether ``second`` holds exactly where ``first`` fails (x ≥ 0 and x < 0, or 0 > x)."""
    if not isinstance(second, list):
        return False
    one, two = _comparison(first), _comparison(second)
    if one is None or two is None or not one[0] or not one[2]:
        return False
    return two == (one[0], _NEGATION[one[1]], one[2]) or two == (one[2], _FLIP[_NEGATION[one[1]]], one[0])


def _partial(value: list[Tok], t: Tok) -> bool:
    if t.kind == "cmd" and t.text in _PARTIAL or t.kind == "ch" and t.text == "/":
        return True
    if t.kind == "ch" and t.text == "^":
        k = value.index(t) + 1
        exponent = value[k : k + 1]
        if exponent and exponent[0].kind == "ch" and exponent[0].text == "{":
            exponent, _ = _group(value, k, None, "^")
        return not exponent or any(x.kind != "num" or not x.text.isdigit() for x in exponent)
    return False
