"""What a part's hypotheses say about its indices, symbolically: ranges written and relations known on them.

The lowest module of the kernel (SymPy, the values and the numeric kernel's reader of hypotheses,
:mod:`mathcheck.numeric.holds`, which owns ``ranges`` and ``is_definition``: the sampler below reads
them too):

* :func:`range_hypothesis` writes ``lo ≤ v ≤ hi`` as one predicate (``holds.ranges`` reads it back);
* :func:`index_ranges` adds the Context's index ranges to those of the part's hypotheses;
* :func:`known` decides a relation over ranges by taking each ranged symbol at its worst end.

    >>> from mathcheck.lazy import sympy as sp
    >>> j, n = sp.Symbol("j", integer=True), sp.Symbol("n", integer=True, positive=True)
    >>> index_ranges(Context(given=(range_hypothesis(j, 1, n),)))
    {j: (1, n)}
    >>> known(sp.Le(1, j + 1), ranges((range_hypothesis(j, 1, n),)))
    True
"""

from __future__ import annotations

from mathcheck.claim import Context
from mathcheck.lazy import sympy as sp
from mathcheck.numeric.holds import basic, is_order, ranges


def range_hypothesis(v: sp.Symbol, lo: int | sp.Expr, hi: int | sp.Expr) -> sp.logic.boolalg.Boolean:
    """``lo ≤ v ≤ hi`` as one SymPy predicate."""
    return sp.And(sp.Le(basic(lo), v), sp.Le(v, basic(hi)))


def index_ranges(ctx: Context) -> dict:
    """``{index: (lo, hi)}`` from the part's hypotheses (``ctx.given``) and the Context's index
    ranges; a hypothesis wins over the Context's range of the same index."""
    out = {v: (basic(lo), basic(hi)) for v, lo, hi in ctx.indices}
    out.update(ranges(ctx.given))
    return out


def known(rel: sp.Basic | bool, rng: dict) -> bool | None:
    """Whether the relational ``rel`` holds for every value of its symbols in ``rng`` (``{v: (lo, hi)}``):
    True when shown, False only for a relation that is false outright, None otherwise.

    ``rel`` is linear enough when each ranged symbol's slope has a known sign: the symbol is then
    replaced by the end of its range where the relation is hardest (Σ_{k=1}^{n} δ(j, k) needs
    ``1 ≤ j ≤ n``, which holds on ``j ∈ [1, n]``)."""
    if rel in (sp.true, True):
        return True
    if rel in (sp.false, False):
        return False
    if isinstance(rel, sp.And):
        vals = [known(a, rng) for a in rel.args]
        return True if all(v is True for v in vals) else False if False in vals else None
    if not is_order(rel):
        return None
    small, big = (rel.lhs, rel.rhs) if isinstance(rel, (sp.LessThan, sp.StrictLessThan)) else (rel.rhs, rel.lhs)
    d = big - small  # rel holds iff d ≥ 0 (d > 0 if strict); take each ranged symbol at its worst end
    for v in sorted(d.free_symbols & set(rng), key=str):
        slope = sp.diff(d, v)
        lo, hi = rng[v]
        if slope.is_nonnegative:
            d = d.xreplace({v: lo})
        elif slope.is_nonpositive:
            d = d.xreplace({v: hi})
        else:
            return None
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    ok = d.is_positive if strict else d.is_nonnegative
    return True if ok else None
