"""The constructive draw: points that satisfy a part's hypotheses, equations included.

A point maps every symbol, and every concrete entry ``p[2]`` of an IndexedBase, to a SymPy number.
:func:`draw` builds one: sizes first (small integers, :func:`smallest_size` up to 3), indices
inside their ranges, the rest from the symbols' assumptions (:func:`sample_value`); then,
constructively, a symbol fixed by an equation takes its value, a normalisation ``Σ_i p_i = c``
rescales the entries, an order ``z_i > z_j`` swaps two entries, an equation in one remaining real
symbol is solved for it; finally every hypothesis is decided by
:func:`mathcheck.numeric.holds.hypothesis_holds` and a point that violates one is rejected.
:func:`constructed_points` draws again until it has its count (at most ``tries`` per point).

Read by the step checker's counterexample search, the part-level sampler
(``symbolic.hypotheses.part_points``) and the user pipeline's :func:`~mathcheck.numeric.sampling.sample_points`.

    >>> import random
    >>> from mathcheck.lazy import sympy as sp
    >>> from mathcheck.claim import Context
    >>> p, i = sp.IndexedBase("p", positive=True), sp.Symbol("i", integer=True)
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> norm = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)
    >>> pt = draw([sp.Sum(p[i] ** 2, (i, 1, n))], [norm], Context(), random.Random(0))
    >>> sum(pt[p[k]] for k in range(1, pt[n] + 1))
    1
"""

from __future__ import annotations

import random
from typing import Iterable, Sequence

from mathcheck.claim import Context
from mathcheck.lazy import sympy as sp
from mathcheck.numeric.holds import basic, concrete, hypothesis_holds, is_definition, ranges, unfold_definitions


def size_symbols(exprs: Iterable, ctx: Context = Context()) -> list:
    """Integer symbols that bound a Sum/Product or an index range, or size a MatrixSymbol."""
    index_syms = {lim[0] for lim in ctx.indices}
    dims: set = set()
    for e in exprs:
        if not hasattr(e, "atoms"):
            continue
        for s in e.atoms(sp.Sum, sp.Product):
            bound = {lim[0] for lim in s.limits}
            for _, a, b in s.limits:
                dims |= (basic(a).free_symbols | basic(b).free_symbols) - bound
        for m in e.atoms(sp.MatrixSymbol):
            for x in m.shape:
                dims |= basic(x).free_symbols
    for _, lo, hi in ctx.indices:
        dims |= basic(lo).free_symbols | basic(hi).free_symbols
    return sorted((d for d in dims if d not in index_syms and d.is_integer), key=str)


def sample_value(
    sym: sp.Symbol | sp.Indexed, rng: random.Random, hint: tuple[float, float] | None = None
) -> sp.Rational:
    """A value for ``sym`` (a Symbol or an Indexed entry) that its declared assumptions allow."""
    if hint is not None:
        lo, hi = hint
        return sp.Rational(rng.randint(int(lo * 1000) + 1, int(hi * 1000) - 1), 1000)
    if sym.is_integer:
        if sym.is_positive:
            return sp.Integer(rng.randint(1, 4))
        if sym.is_nonnegative:
            return sp.Integer(rng.randint(0, 4))
        return sp.Integer(rng.randint(-3, 3))
    num = sp.Rational(rng.randint(1, 2999), 1000)
    if sym.is_positive:
        return num
    if sym.is_nonnegative:
        return num - sp.Rational(1, 1000)
    if sym.is_negative:
        return -num
    return num if rng.random() < 0.5 else -num


def smallest_size(d: sp.Symbol) -> int:
    """The smallest size drawn for the dimension ``d``: 1 if it is positive, 0 if nonnegative, else
    −3. An integer that may be negative is drawn negative too: Σ_{i=1}^{n} i² = −5 at n = −3 (Karr's
    convention), so a bound the assumptions leave free is a case the statement must survive."""
    return 1 if d.is_positive else 0 if d.is_nonnegative else -3


def _fix_equations(hyps, point, rng, hints) -> None:
    """Constructive steps: a symbol fixed by an equation, a normalised base, an order of two entries."""
    for h in hyps:
        if isinstance(h, sp.Equality) and not is_definition(h, point):
            for side, other in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
                if isinstance(side, (sp.Symbol, sp.Indexed)) and not isinstance(side, sp.Dummy) and not other.has(side):
                    try:
                        v = concrete(concrete(side, point), point) if isinstance(side, sp.Indexed) else side
                        val = concrete(other, point)
                    except Exception:  # noqa: BLE001
                        continue
                    if not val.free_symbols and not val.atoms(sp.Indexed):
                        point[v] = val
                        break
            # Σ_i b_i = c: rescale the entries of b in the range
            s = h.lhs if isinstance(h.lhs, sp.Sum) else h.rhs if isinstance(h.rhs, sp.Sum) else None
            c = h.rhs if s is h.lhs else h.lhs
            if s is not None and len(s.limits) == 1 and isinstance(s.function, sp.Indexed):
                ((v, a, b),) = s.limits
                try:
                    a_v, b_v, c_v = concrete(a, point), concrete(b, point), concrete(c, point)
                except Exception:  # noqa: BLE001
                    continue
                if not (a_v.is_Integer and b_v.is_Integer and c_v.is_number and c_v > 0):
                    continue
                syms = {x: y for x, y in point.items() if not isinstance(x, sp.Indexed)}
                entries = [s.function.xreplace({v: sp.Integer(k)}).xreplace(syms) for k in range(a_v, b_v + 1)]
                for x in entries:
                    if x not in point:
                        point[x] = sample_value(x, rng, hints.get(x.base))
                total = sum(point[x] for x in entries)
                if total > 0:
                    for x in entries:
                        point[x] = point[x] * c_v / total
    for h in hyps:  # an order between two entries (or symbols): swap their values when reversed
        if isinstance(h, (sp.StrictGreaterThan, sp.StrictLessThan, sp.GreaterThan, sp.LessThan)):
            try:
                a, b = (
                    concrete(h.lhs, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)}),
                    concrete(h.rhs, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)}),
                )
            except Exception:  # noqa: BLE001
                continue
            if a in point and b in point and hypothesis_holds(h, point) is False:
                point[a], point[b] = point[b], point[a]


_FACTS = ("positive", "nonnegative", "negative", "nonpositive", "nonzero", "integer")


def _fits(sym, value) -> bool:
    """Whether ``value`` may stand for ``sym`` as its assumptions say: a value solved from an equation
    (b = (1 − a)/2) is not drawn under them. Undecidable facts do not reject.

        >>> _fits(sp.Symbol("b", positive=True), sp.Rational(-1, 4)), _fits(sp.Symbol("b"), sp.Integer(-1))
        (False, True)
    """
    return not any(
        getattr(sym, f"is_{fact}", None) is True and getattr(value, f"is_{fact}", None) is False for fact in _FACTS
    )


def _solve_remaining(hyps, point, order) -> None:
    """An equation that still fails, in one real symbol of ``order``: solve for it at the point."""
    for h in hyps:
        if not isinstance(h, sp.Equality) or is_definition(h, point) or hypothesis_holds(h, point) is not False:
            continue
        for sym in order:
            if not h.has(sym):
                continue
            rest = {k: v for k, v in point.items() if k != sym}
            try:
                sols = [concrete(x, rest) for x in _solutions(h.lhs - h.rhs, sym)]
                sols = [x for x in sols if x.is_real and _fits(sym, x)]
            except Exception:  # noqa: BLE001
                continue
            if sols:
                point[sym] = sols[0]
                break


_SOLVED: dict = {}


def _solutions(e, sym) -> list:
    """``sympy.solve(e, sym)``, symbolically and once per equation (the point is put in after)."""
    key = (e, sym)
    if key not in _SOLVED:
        try:
            _SOLVED[key] = list(sp.solve(e, sym))
        except Exception:  # noqa: BLE001 — an equation SymPy cannot solve gives no solution
            _SOLVED[key] = []
    return _SOLVED[key]


def draw(
    exprs: Iterable[sp.Expr], hyps: Sequence[sp.Basic], ctx: Context, rng: random.Random, sizes: dict | None = None
) -> dict | None:
    """One point satisfying ``hyps`` for the expressions ``exprs``, or None (rejected). ``ctx``
    gives the index ranges and the sampling hints (``Context.sample``); ``sizes`` fixes size
    symbols (``{"n": 3}`` or ``{n: 3}``)."""
    hints = dict(ctx.sample)
    exprs = [unfold_definitions(e, hyps) for e in exprs]
    every = list(exprs) + [h for h in hyps if not is_definition(h)]
    point: dict = {}
    for d in size_symbols(every, ctx):
        if sizes and d in sizes:
            point[d] = sp.Integer(sizes[d])
        elif sizes and str(d) in sizes:
            point[d] = sp.Integer(sizes[str(d)])
        else:
            point[d] = sp.Integer(rng.randint(smallest_size(d), 3))
    rng_of = dict(ranges(hyps))
    for v, lo, hi in ctx.indices:
        rng_of.setdefault(v, (basic(lo), basic(hi)))
    free = set().union(*[getattr(e, "free_symbols", set()) for e in every])
    labels = set()
    for e in every:
        if hasattr(e, "atoms"):
            labels |= {b.label for b in e.atoms(sp.IndexedBase)}
    for v in sorted(free & set(rng_of), key=str):
        if v in point:
            continue
        lo, hi = (basic(x).xreplace(point) for x in rng_of[v])
        if not (lo.is_Integer and hi.is_Integer) or hi < lo:
            return None
        point[v] = sp.Integer(rng.randint(int(lo), int(hi)))
    fixed = set()
    for h in hyps:  # symbols an equation fixes are set from it, not drawn
        if isinstance(h, sp.Equality) and not is_definition(h):
            for side in (h.lhs, h.rhs):
                if isinstance(side, sp.Symbol):
                    fixed.add(side)
    plain = sorted((s for s in free - set(point) - labels if isinstance(s, sp.Symbol)), key=str)
    for sym in plain:
        if sym not in fixed:
            point[sym] = sample_value(sym, rng, hints.get(sym))
    _fix_equations(hyps, point, rng, hints)
    for sym in plain:
        if sym not in point:
            point[sym] = sample_value(sym, rng, hints.get(sym))
    entries: set = set()
    for e in every:
        try:
            c = concrete(e, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)})
        except Exception:  # noqa: BLE001
            continue
        if hasattr(c, "atoms"):  # an entry at an undefined index (x[σ(1), f]) has no value to draw
            entries |= {x for x in c.atoms(sp.Indexed) if all(ix.is_number for ix in x.indices)}
    for idx in sorted(entries, key=str):
        if idx not in point:
            point[idx] = sample_value(idx, rng, hints.get(idx.base))
    _fix_equations(hyps, point, rng, hints)
    _solve_remaining(hyps, point, [s for s in reversed(plain)])
    for h in hyps:
        if hypothesis_holds(h, point) is False:
            return None
    if not all(_fits(sym, value) for sym, value in point.items()):  # rescaled or solved off its domain
        return None
    return point


def constructed_points(
    exprs: Iterable[sp.Expr],
    hyps: Sequence[sp.Basic],
    ctx: Context = Context(),
    count: int = 40,
    seed: int = 0,
    sizes: dict | None = None,
    tries: int = 20,
) -> list[dict]:
    """Up to ``count`` points satisfying ``hyps`` (rejection after a constructive :func:`draw`, at
    most ``tries`` draws per point), seeded."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        for _ in range(tries):
            pt = draw(exprs, hyps, ctx, rng, sizes)
            if pt is not None:
                out.append(pt)
                break
    return out
