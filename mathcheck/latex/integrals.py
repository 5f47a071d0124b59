r"""Definite integrals read into the text grammar (docs/latex.md, "Integrals"); the reader's hook for ``\int``.

``\int_a^b f(x)\,dx`` → ``Integral(f(x), (x, a, b))``. The limits are a group or one token each, in
either order (``\int^b_a``); ``\infty``, ``+\infty``, ``-\infty`` are ``oo``, ``-oo``. The
differential closes the integrand: ``dx``, ``d x``, ``\mathrm{d}x``, ``\operatorname{d}x``,
``\text{d}x``, ``d\theta``, ``dx_1`` (the spacing ``\, \; \!`` is dropped before). The variable is
*bound*: ``x`` inside is not the free ``x`` of the rest of the link, which SymPy's ``Integral`` keeps
apart. Nested integrals pair their differentials from the inside out, as TeX is read:
``\int_0^1 \int_0^2 x y \, dx \, dy`` is ``Integral(Integral(x*y, (x, 0, 2)), (y, 0, 1))``.

Refused with one line: an integral without both limits (an antiderivative is known only up to a
constant, so no equation with one is true as printed, and "over ℝ" is not knowable from the notation);
``\iint``/``\oint`` (regions and contours); a missing or doubled differential; a differential first
(``\int dx\, f(x)``).

    >>> from mathcheck.latex import chains
    >>> [s.text for s in chains("$$\\int_0^1 x^2 \\, dx = \\frac{1}{3}$$", "n.md", markdown=True)[0].steps]
    ['Integral(x^2, (x, 0, 1))', '1/3']
"""

from __future__ import annotations

from mathcheck.latex.tokens import GREEK, _GREEK_NAME, _group

_UPRIGHT = ("mathrm", "operatorname", "text", "textrm", "mathit")
_LIMITS_ONLY = "give limits: \\int_a^b f(x)\\,dx (\\infty for ∞); an indefinite integral is read only with limits"


def integral(reader, t) -> str:
    """``\\int`` at ``t`` (not yet taken) read to its differential: ``Integral(body, (x, lo, hi))``."""
    reader.take()
    lo, hi = _limits(reader, t)
    start = reader.i
    found = _differential(reader, start)
    if found is None:
        reader.fail(t, "\\int needs its differential after the integrand: \\int_a^b f(x)\\,dx")
    at, after, var = found
    if at == start:
        reader.fail(t, "write the differential after the integrand: \\int_a^b f(x)\\,dx, not \\int_a^b dx\\, f(x)")
    if var in reader.n.indexed or var in reader.n.indices:
        reader.fail(reader.t[at], f"d{var}: {var} is an index or indexed elsewhere; integrate over a plain name")
    body = reader.sub(reader.t[start:at], bound={var}).read()
    reader.i = after
    if _differential_at(reader, after) is not None:
        reader.fail(reader.t[after], "two differentials for one \\int; nest one \\int per differential")
    return f"Integral({body}, ({var}, {lo}, {hi}))"


def _limits(reader, t) -> tuple[str, str]:
    """``_a^b`` or ``^b_a``: both limits, read (``\\infty`` as ``oo``)."""
    got = {}
    while reader.at("ch", "_", "^") and reader.peek().text not in got:
        which = reader.take().text
        toks, reader.i = _group(reader.t, reader.i, reader.src, f"\\int{which}")
        if not toks:
            reader.fail(t, f"\\int{which} has an empty limit")
        got[which] = _limit(reader, toks)
    if len(got) != 2:
        reader.fail(t, _LIMITS_ONLY)
    return got["_"], got["^"]


def _limit(reader, toks) -> str:
    signs = [x.text for x in toks[:-1]]
    if toks[-1].kind == "cmd" and toks[-1].text == "infty" and signs in ([], ["+"], ["-"]):
        return "-oo" if signs == ["-"] else "oo"
    return reader.sub(toks).read()


def _differential_at(reader, k: int):
    """``(index after, variable)`` when a differential starts at token ``k``, else None."""
    t = reader.t
    if k >= len(t):
        return None
    x = t[k]
    if x.kind == "ch" and x.text == "d":
        j = k + 1
    elif x.kind == "cmd" and x.text in _UPRIGHT and [y.text for y in t[k + 1 : k + 4]] == ["{", "d", "}"]:
        j = k + 4
    else:
        return None
    if j >= len(t):
        return None
    v = t[j]
    if v.kind == "ch" and v.text.isascii() and v.text.isalpha():
        name = v.text
    elif v.kind == "cmd" and v.text in GREEK:
        name = _GREEK_NAME.get(v.text, v.text)
    else:
        return None
    j += 1
    if j < len(t) and t[j].kind == "ch" and t[j].text == "_":  # dx_1, d\theta_{k}
        toks, j2 = _group(t, j + 1, reader.src, "_")
        if not toks or not all(y.kind in ("ch", "num") and y.text.isalnum() for y in toks):
            return None
        name, j = f"{name}_{''.join(y.text for y in toks)}", j2
    return j, name


def _differential(reader, start: int):
    """``(index, index after, variable)`` of this integral's differential: the first one at brace
    depth 0 not taken by an ``\\int`` inside the integrand (each inner one takes the next)."""
    pending, depth, k = 1, 0, start
    t = reader.t
    while k < len(t):
        x = t[k]
        if x.kind in ("ch", "cmd") and x.text in ("(", "[", "{", "lbrace", "lbrack"):
            depth += 1
        elif x.kind in ("ch", "cmd") and x.text in (")", "]", "}", "rbrace", "rbrack"):
            depth -= 1
        elif depth == 0 and x.kind == "cmd" and x.text == "int":
            pending += 1
        elif depth == 0:
            found = _differential_at(reader, k)
            if found is not None:
                pending -= 1
                if pending == 0:
                    return k, found[0], found[1]
                k = found[0]
                continue
        k += 1
    return None
