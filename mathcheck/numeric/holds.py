"""Reading hypotheses, and the independent evaluator :func:`holds_at`.

What a part's hypotheses say, read the same way by the sampler and by the step checker above it:

* :func:`ranges` — ``{v: (lo, hi)}`` for every integer symbol bounded on both sides (a strict bound
  moved by one), from predicates such as ``(1 ≤ j) ∧ (j ≤ n)``;
* :func:`is_definition` — a quantified definition ``s[x] = f(x)`` (used by unfolding, never sampled
  against) told from a fact about one entry ``s[1] = 2``; :func:`unfold_definitions` applies them.

:func:`holds_at` decides ``given ⇒ lhs REL rhs`` at a point ``{Symbol or concrete entry: SymPy
number}`` without any of the step checker's strategies: definitions unfolded, sums and products
written out at the point's sizes, derivatives by ``sympy.diff``, both sides evaluated by mpmath at
``numeric.PRECISION_DIGITS`` (50) digits, equal when they agree to 10^-(digits − ``tolerance.HOLDS_MARGIN_DIGITS``) = 1e-42 relative.

    >>> from mathcheck.lazy import sympy as sp
    >>> p, i = sp.IndexedBase("p", positive=True), sp.Symbol("i", integer=True)
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> norm = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)
    >>> point = {n: sp.Integer(2), p[1]: sp.Rational(1, 4), p[2]: sp.Rational(3, 4)}
    >>> holds_at(sp.Le(p[1] ** 2 + p[2] ** 2, 1), (norm,), point)
    True
    >>> ranges((sp.Lt(0, i), sp.Le(i, n)))
    {i: (1, n)}
"""

from __future__ import annotations

from typing import Container, Iterable

from mathcheck.lazy import sympy as sp
from mathcheck.numeric import PRECISION_DIGITS
from mathcheck.numeric.tolerance import HOLDS_MARGIN_DIGITS
from mathcheck.relations import TABLE, of


# --- reading hypotheses --------------------------------------------------------------------------------


def basic(x: int | sp.Basic) -> sp.Basic:
    """A Python int as a SymPy Integer (a range's bound may be either)."""
    return sp.Integer(x) if isinstance(x, int) else x


def conjuncts(h: sp.Basic) -> tuple[sp.Basic, ...]:
    """The conjuncts of ``h`` (``h`` itself when it is not an ``And``)."""
    return h.args if isinstance(h, sp.And) else (h,)


def is_order(c: sp.Basic) -> bool:
    """Whether ``c`` is one of ``<``, ``≤``, ``>``, ``≥``."""
    return isinstance(c, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan))


def ranges(hypotheses: Iterable[sp.Basic]) -> dict:
    """``{v: (lo, hi)}`` for every integer symbol the hypotheses bound on both sides."""
    lo: dict = {}
    hi: dict = {}
    for h in hypotheses:
        for c in conjuncts(h):
            if not is_order(c):
                continue
            small, big = (c.lhs, c.rhs) if isinstance(c, (sp.LessThan, sp.StrictLessThan)) else (c.rhs, c.lhs)
            strict = isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan))
            if isinstance(big, sp.Symbol) and big.is_integer and not small.has(big):
                lo.setdefault(big, small + 1 if strict else small)
            if isinstance(small, sp.Symbol) and small.is_integer and not big.has(small):
                hi.setdefault(small, big - 1 if strict else big)
    return {v: (lo[v], hi[v]) for v in lo if v in hi}


def is_definition(h: sp.Basic, point: Container = ()) -> bool:
    """``base[x] = f(x)`` for every x: an equation whose left side is an entry of an IndexedBase at
    indices that are not set at the point (they are quantified)."""
    return (
        isinstance(h, sp.Equality)
        and isinstance(h.lhs, sp.Indexed)
        and all(isinstance(x, sp.Symbol) and x not in point for x in h.lhs.indices)
        and not any(x.is_number for x in h.lhs.indices)
    )


def unfold_definitions(e: sp.Basic, hyps: Iterable[sp.Basic]) -> sp.Basic:
    """``e`` with every entry of a defined base replaced by its definition (repeatedly: O = PV
    brings in P, which has its own definition)."""
    defs = [h for h in hyps if is_definition(h)]
    for _ in range(len(defs) + 1):
        before = e
        for h in defs:
            base, xs = h.lhs.base, h.lhs.indices
            e = e.replace(
                lambda x, b=base: isinstance(x, sp.Indexed) and x.base == b,
                lambda x, xs=xs, rhs=h.rhs: rhs.xreplace(dict(zip(xs, x.indices))),
            )
        if e == before:
            break
    return e


# --- an expression at a point --------------------------------------------------------------------------


def concrete(e: sp.Basic, point: dict) -> sp.Basic:
    """``e`` at the point: symbols first, then sums and products expanded at the concrete sizes
    (derivatives are taken before anything is substituted: d/dT at T = 2 is not d/d2), then entries."""
    syms = {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)}
    entries = {k: v for k, v in point.items() if isinstance(k, sp.Indexed)}
    if hasattr(e, "has") and e.has(sp.Derivative):
        e = _differentiated(e)
    e = expand_sums(e.xreplace(syms)).xreplace(entries)
    if hasattr(e, "has") and e.has(sp.Sum, sp.Product, sp.Limit, sp.Subs, sp.Derivative, sp.Piecewise):
        e = e.doit()
    return e


_DIFFERENTIATED: dict = {}


def _differentiated(e):
    """``e`` with its derivatives taken by ``sympy.diff`` (once per expression: points reuse it)."""
    if e not in _DIFFERENTIATED:
        if len(_DIFFERENTIATED) > 256:
            _DIFFERENTIATED.clear()
        _DIFFERENTIATED[e] = e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit(deep=False))
    return _DIFFERENTIATED[e]


def expand_sums(e: sp.Basic) -> sp.Basic:
    """Every Sum and Product with integer bounds written out term by term (no closed forms tried)."""
    if not getattr(e, "args", None) or isinstance(e, (sp.Indexed, sp.IndexedBase)):
        return e
    if isinstance(e, (sp.Sum, sp.Product)):
        f = expand_sums(e.function)
        for v, a, b in e.limits:
            a, b = basic(a), basic(b)
            if not (a.is_Integer and b.is_Integer) or b - a > 10000:
                return e.func(f, *e.limits)
            terms = [f.xreplace({v: sp.Integer(k)}) for k in range(int(a), int(b) + 1)]
            if b < a - 1:  # SymPy's (Karr's) convention for reversed ranges
                return e.doit()
            f = sp.Add(*terms) if isinstance(e, sp.Sum) else sp.Mul(*terms)
        return expand_sums(f)
    args = tuple(expand_sums(a) for a in e.args)
    return e.func(*args) if args != e.args else e


# --- deciding a relation at a point ----------------------------------------------------------------------


def hypothesis_holds(h: sp.Basic, point: dict, dps: int = PRECISION_DIGITS) -> bool | None:
    """Whether hypothesis ``h`` holds at the point (None: cannot be evaluated)."""
    if is_definition(h, point):
        return True  # a definition is used by unfolding, never sampled against
    try:
        c = concrete(h, point)
    except Exception:  # noqa: BLE001 — an expression SymPy cannot evaluate here decides nothing
        return None
    if c in (sp.true, True):
        return True
    if c in (sp.false, False):
        return False
    if isinstance(c, sp.And):
        vals = [hypothesis_holds(a, {}, dps) for a in c.args]
        return False if False in vals else None if None in vals else True
    if isinstance(c, sp.Or):
        vals = [hypothesis_holds(a, {}, dps) for a in c.args]
        return True if True in vals else None if None in vals else False
    if isinstance(c, sp.Rel):
        return _compare(c.lhs, c.rhs, c.rel_op, dps)
    return None


def _value(x, dps: int):
    if x.free_symbols or x.atoms(sp.Indexed) or x.atoms(sp.core.function.AppliedUndef):
        return None
    v = sp.N(x, dps)
    if not v.is_number or v.has(sp.nan, sp.zoo) or v.is_real is False:
        return None
    return v


_RELATIONS = {r.rel_op for r in TABLE if r.rel_op}  # SymPy's spellings a statement may carry


def _compare(lhs, rhs, op: str, dps: int) -> bool | None:
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        if op != "==" or sp.Matrix(lhs).shape != sp.Matrix(rhs).shape:
            return None
        vals = [_compare(a, b, op, dps) for a, b in zip(sp.Matrix(lhs), sp.Matrix(rhs))]
        return False if False in vals else None if None in vals else True
    l, r = _value(lhs, dps), _value(rhs, dps)
    if l is None or r is None or op not in _RELATIONS:
        return None
    rel = of(op)
    if l.has(sp.oo, -sp.oo) or r.has(sp.oo, -sp.oo):
        return bool(rel.holds(l, r))
    tol = sp.Float(10, dps) ** (-(dps - HOLDS_MARGIN_DIGITS)) * max(1, abs(l), abs(r))
    d = l - r
    # SymPy's comparisons answer BooleanTrue/BooleanFalse, which are not the singletons True/False:
    # callers test `is False`, so hand back plain bools (a SymPy false would read as "not refuted").
    return bool(rel.within(d, tol))


def holds_at(statement: sp.Basic, given: Iterable[sp.Basic], point: dict, dps: int = PRECISION_DIGITS) -> bool | None:
    """Whether ``given ⇒ statement`` holds at ``point``: True or False, None when the point does
    not satisfy the hypotheses or a side cannot be evaluated (an undefined function, 0/0).

    Evaluation is independent of the step checker: definitions unfolded, sums expanded at the
    point's sizes, ``sympy.diff`` for derivatives, mpmath at ``dps`` digits."""
    given = tuple(given)
    for h in given:
        if hypothesis_holds(h, point, dps) is not True:
            return None
    if statement in (sp.true, sp.false):  # SymPy evaluated it when it was built
        return bool(statement)
    try:
        lhs = concrete(unfold_definitions(statement.lhs, given), point)
        rhs = concrete(unfold_definitions(statement.rhs, given), point)
    except Exception:  # noqa: BLE001
        return None
    return _compare(lhs, rhs, statement.rel_op, dps)
