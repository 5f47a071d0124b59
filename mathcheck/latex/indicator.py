r"""The indicator of a comparison read into the text grammar (docs/latex.md, "Notation"); the reader's
hook for ``\mathbb{1}``.

``\mathbb{1}(x \ge y)`` (also ``\mathbf{1}``, ``\mathds{1}``, ``\mathbbm{1}``, the condition in
``(…)``, ``[…]``, ``\{…\}`` or a subscript ``_{x \ge y}``) is 1 where the comparison holds, else 0:
``step(x - y)``, the grammar's Heaviside step with step(0) = 1. ``>`` is ``1 - step(y - x)``, ``\le``
is ``step(y - x)``, ``<`` is ``1 - step(x - y)`` — each exact at the tie too. cs231n writes ``>=``
(TeX prints it as ``>=``, its author means ≥): read as ``\ge``. One comparison only; ``=``, ``\ne``,
a chain of comparisons or a set membership are refused with one line.

    >>> from mathcheck.latex import chains
    >>> [s.text for s in chains("$$\\mathbb{1}(x >= y) + \\mathbb{1}(y > x) = 1$$", "n.md", markdown=True)[0].steps]
    ['step(x - y) + (1 - step(x - y))', '1']
"""

from __future__ import annotations

from mathcheck.latex.tokens import Tok, _group

FONTS = ("mathbb", "mathbf", "mathds", "mathbbm", "bm", "boldsymbol")
_OPEN = {"(": ")", "[": "]", "{": "}", "lbrace": "rbrace"}
_GE, _LE = ("ge", "geq", "geqslant", "gt"), ("le", "leq", "leqslant", "lt")
_USAGE = "\\mathbb{1} is read over one comparison: \\mathbb{1}(x \\ge y), \\mathbb{1}_{x > 0}"


def starts(toks: list[Tok], i: int) -> bool:
    """Whether ``toks[i]`` starts an indicator: ``\\mathbb{1}`` (or ``\\mathbb 1``) in one of the fonts."""
    t = toks[i]
    if t.kind != "cmd" or t.text not in FONTS:
        return False
    if i + 1 < len(toks) and toks[i + 1].kind == "num" and toks[i + 1].text == "1":
        return True
    return (
        i + 3 < len(toks)
        and toks[i + 1].kind == "ch"
        and toks[i + 1].text == "{"
        and toks[i + 2].kind == "num"
        and toks[i + 2].text == "1"
        and toks[i + 3].kind == "ch"
        and toks[i + 3].text == "}"
    )


def end(toks: list[Tok], i: int) -> int:
    """The index after the indicator starting at ``toks[i]`` and its bracketed condition (so the block's
    splitter does not take the comparison inside for a link); ``i`` where there is no bracket after it."""
    j = i + (2 if toks[i + 1].kind == "num" else 4)
    if j >= len(toks) or toks[j].kind not in ("ch", "cmd") or toks[j].text not in _OPEN:
        return i
    opener, closer, depth = toks[j].text, _OPEN[toks[j].text], 0
    for k in range(j + 1, len(toks)):
        x = toks[k]
        if x.kind in ("ch", "cmd") and x.text == opener:
            depth += 1
        elif x.kind in ("ch", "cmd") and x.text == closer:
            if depth == 0:
                return k + 1
            depth -= 1
    return i


def indicator(reader, t) -> str:
    """``\\mathbb{1}`` at ``t`` (not yet taken) with its condition: ``step(…)`` or ``1 - step(…)``."""
    reader.take()
    _, reader.i = _group(reader.t, reader.i, reader.src, f"\\{t.text}")
    if reader.at("ch", "_"):
        reader.take()
        cond, reader.i = _group(reader.t, reader.i, reader.src, f"\\{t.text}{{1}}_")
    elif reader.at("ch", "(", "[") or reader.at("cmd", "{", "lbrace"):
        opener = reader.take()
        cond = reader.until(_OPEN[opener.text], opener)
    else:
        reader.fail(t, _USAGE)
    rel, k, width = _comparison(reader, t, cond)
    left, right = cond[:k], cond[k + width :]
    if not left or not right:
        reader.fail(t, _USAGE)
    a, b = reader.sub(left).read(), reader.sub(right).read()
    if rel in ("<", "<="):
        a, b = b, a  # x < y is y > x
    if rel in (">=", "<="):
        return f"step({_minus(a, b)})"
    return f"(1 - step({_minus(b, a)}))"


def _minus(p: str, q: str) -> str:
    if q == "0":
        return p
    q = f"({q})" if _compound(q) else q
    return f"-{q}" if p == "0" else f"{p} - {q}"


def _compound(s: str) -> bool:
    return any(c in s for c in "+- ")


def _comparison(reader, t, cond: list[Tok]) -> tuple:
    """The one comparison at the top level of ``cond``: (``">="``/``">"``/``"<="``/``"<"``, its index,
    its width in tokens — ``>=`` is two)."""
    found, depth = [], 0
    for k, x in enumerate(cond):
        if x.kind in ("ch", "cmd") and x.text in ("(", "[", "{", "lbrace"):
            depth += 1
        elif x.kind in ("ch", "cmd") and x.text in (")", "]", "}", "rbrace"):
            depth -= 1
        if depth:
            continue
        if x.kind == "ch" and x.text in "<>":
            two = k + 1 < len(cond) and cond[k + 1].kind == "ch" and cond[k + 1].text == "="
            found.append((x.text + "=" * two, k, 1 + two))
        elif x.kind == "cmd" and x.text in _GE + _LE:
            strict = x.text in ("gt", "lt")
            found.append(((">" if x.text in _GE else "<") + ("" if strict else "="), k, 1))
        elif (x.kind == "ch" and x.text == "=") or (x.kind == "cmd" and x.text in ("ne", "neq", "in", "notin")):
            if not any(f[1] == k - 1 and f[2] == 2 for f in found):
                reader.fail(t, f"{_USAGE}; an indicator of '=', '\\ne' or a set is not read")
    if len(found) != 1:
        reader.fail(t, _USAGE)
    return found[0]
