"""What a part's hypotheses say about its indices: ranges, definitions, relations known on ranges.

The lowest module of the kernel (SymPy and the values only): the rules, the sum algebra, the
decision procedures and the hypotheses all read index ranges the same way, from here.

* :func:`range_hypothesis` writes ``lo ≤ v ≤ hi`` as one predicate; :func:`ranges` reads every such
  pair of bounds back (``{v: (lo, hi)}``, a strict bound moved by one);
* :func:`index_ranges` adds the Context's index ranges to those of the part's hypotheses;
* :func:`known` decides a relation over ranges by taking each ranged symbol at its worst end;
* :func:`is_definition` tells a quantified definition ``s[x] = f(x)`` from a fact about one entry.

    >>> from mathcheck.lazy import sympy as sp
    >>> j, n = sp.Symbol("j", integer=True), sp.Symbol("n", integer=True, positive=True)
    >>> ranges((range_hypothesis(j, 1, n),))
    {j: (1, n)}
    >>> known(sp.Le(1, j + 1), ranges((range_hypothesis(j, 1, n),)))
    True
"""

from __future__ import annotations

from mathcheck.claim import Context
from mathcheck.lazy import sympy as sp

def basic(x):
    """A Python int as a SymPy Integer (a range's bound may be either)."""
    return sp.Integer(x) if isinstance(x, int) else x


def range_hypothesis(v, lo, hi):
    """``lo ≤ v ≤ hi`` as one SymPy predicate."""
    return sp.And(sp.Le(basic(lo), v), sp.Le(v, basic(hi)))


def _conjuncts(h):
    return h.args if isinstance(h, sp.And) else (h,)


def _order(c) -> bool:
    return isinstance(c, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan))


def ranges(hypotheses) -> dict:
    """``{v: (lo, hi)}`` for every integer symbol the hypotheses bound on both sides."""
    lo: dict = {}
    hi: dict = {}
    for h in hypotheses:
        for c in _conjuncts(h):
            if not _order(c):
                continue
            small, big = (c.lhs, c.rhs) if isinstance(c, (sp.LessThan, sp.StrictLessThan)) else (c.rhs, c.lhs)
            strict = isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan))
            if isinstance(big, sp.Symbol) and big.is_integer and not small.has(big):
                lo.setdefault(big, small + 1 if strict else small)
            if isinstance(small, sp.Symbol) and small.is_integer and not big.has(small):
                hi.setdefault(small, big - 1 if strict else big)
    return {v: (lo[v], hi[v]) for v in lo if v in hi}


def index_ranges(ctx: Context) -> dict:
    """``{index: (lo, hi)}`` from the part's hypotheses (``ctx.given``) and the Context's index
    ranges; a hypothesis wins over the Context's range of the same index."""
    out = {v: (basic(lo), basic(hi)) for v, lo, hi in ctx.indices}
    out.update(ranges(ctx.given))
    return out


def is_definition(h, point=()) -> bool:
    """``base[x] = f(x)`` for every x: an equation whose left side is an entry of an IndexedBase at
    indices that are not set at the point (they are quantified)."""
    return (isinstance(h, sp.Equality) and isinstance(h.lhs, sp.Indexed)
            and all(isinstance(x, sp.Symbol) and x not in point for x in h.lhs.indices)
            and not any(x.is_number for x in h.lhs.indices))


def known(rel, rng: dict) -> bool | None:
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
    if not _order(rel):
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
