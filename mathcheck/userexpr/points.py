"""Seeded sample points for the user's expressions, shared by every evaluator.

A point maps each free scalar symbol to a Python number (an ``int`` for an integer symbol, else a
``float``) and each IndexedBase to nested lists holding the values of ``x[i]`` for
``i = OFFSET .. OFFSET + SPAN − 1``. The same points go to the float64 evaluator, to torch and to
the 50-digit confirmation, so a disagreement found by one is re-evaluated by another at the very
same numbers (a float is used at its exact binary value).

Hypotheses (``given``: SymPy relationals such as ``x > y`` or ``(1 <= j) & (j <= n)``) restrict the
points: candidates are drawn from the assumptions and kept when every hypothesis holds there. An
equation such as ``Sum(y[j], (j, 1, n)) = 1`` is met by almost no random point, so the rest are
drawn by the catalog's constructive sampler, :func:`mathcheck.symbolic.hypotheses.draw` (one sampler for
the catalog and the user: a normalisation rescales the entries, a symbol an equation fixes takes
its value, an order swaps two entries), put on a dyadic grid (multiples of 2^-30, exact in float64)
with a normalised sum's last entry set so the sum is exact, and kept only where every hypothesis
holds *exactly* — so a 50-digit confirmation never sees a point that is off its hypotheses.

    >>> from mathcheck.parser import parse
    >>> pts = sample_points((parse("x*y"),), seed=0, count=3)
    >>> len(pts), sorted(str(s) for s in pts[0])
    (3, ['x', 'y'])
"""

from __future__ import annotations

import random

from mathcheck.lazy import sympy as sp

OFFSET, SPAN = -8, 25    # an indexed name x[i] holds values for i in OFFSET .. OFFSET + SPAN − 1
GIVEN_TRIES = 40         # candidates drawn per point wanted when hypotheses filter them


def variables(*exprs):
    """``(scalars, bases, dims)``: free symbols, IndexedBases with their rank, sum-bound symbols."""
    bases: dict = {}
    for e in exprs:
        for x in e.atoms(sp.Indexed):
            bases[x.base] = max(bases.get(x.base, 0), len(x.indices))
    labels = {b.label for b in bases}
    scalars = sorted({s for e in exprs for s in e.free_symbols
                      if isinstance(s, sp.Symbol) and s not in labels}, key=str)
    dims = set()
    for e in exprs:
        for s in e.atoms(sp.Sum):
            for _, a, b in s.limits:
                dims |= (a.free_symbols | b.free_symbols)
    return scalars, bases, dims


def _real(sym, rng: random.Random, k: int) -> float:
    """Ordinary values mostly; every third point a large one (|x| up to 30), every fifth a small one."""
    if k % 3 == 2:
        v = rng.uniform(5.0, 30.0)
    elif k % 5 == 4:
        v = rng.uniform(1e-3, 0.05)
    else:
        v = rng.uniform(0.05, 3.0)
    if sym.is_positive or (sym.is_nonnegative and not sym.is_zero):
        return v
    if sym.is_negative:
        return -v
    return v if rng.random() < 0.5 else -v


def _integer(sym, rng: random.Random, dim: bool, k: int = 0) -> int:
    """Small values, both signs where the assumptions allow; a sum bound every fourth point a large
    one (20..40): Σ_{i=1}^{n} i² ≥ 0 fails only at negative n (Karr's convention), other
    statements only at large n."""
    hi = 40 if dim and k % 4 == 3 else 5
    if sym.is_positive:
        return rng.randint(1, hi)
    if sym.is_negative:
        return rng.randint(-hi, -1)
    if sym.is_nonnegative:
        return rng.randint(0 if not sym.is_nonzero else 1, hi)
    v = rng.randint(-hi, hi)
    return v if v or not sym.is_nonzero else 1


def _values(base, rank: int, rng: random.Random, k: int):
    if rank == 0:
        return _real(base, rng, k)
    return [_values(base, rank - 1, rng, k) for _ in range(SPAN)]


def exact(v):
    """A sampled number as a SymPy number: an int, or a float at its exact binary value."""
    return sp.Integer(v) if isinstance(v, int) else sp.Rational(v)


def lookup(values, indices):
    """The entry ``x[i, j, ...]`` of a sampled IndexedBase (nested lists starting at OFFSET)."""
    for i in indices:
        j = int(i) - OFFSET
        if not 0 <= j < SPAN:
            raise IndexError(f"index {i} outside {OFFSET}..{OFFSET + SPAN - 1}")
        values = values[j]
    return values


def _draw(scalars, bases, dims, rng, k) -> dict:
    p = {}
    for s in scalars:
        p[s] = _integer(s, rng, s in dims, k) if s.is_integer else _real(s, rng, k)
    for b, rank in sorted(bases.items(), key=lambda kv: str(kv[0])):
        p[b] = _values(b, rank, rng, k)
    return p


def satisfies(given, point: dict) -> bool:
    """Whether every hypothesis holds at ``point`` (decided exactly; undecidable counts as no)."""
    if not given:
        return True
    scalars = {s: exact(v) for s, v in point.items() if isinstance(s, sp.Symbol)}
    bases = {s: v for s, v in point.items() if isinstance(s, sp.IndexedBase)}
    for g in given:
        try:
            c = g.xreplace(scalars).doit()
            c = c.xreplace({x: exact(lookup(bases[x.base], x.indices)) for x in c.atoms(sp.Indexed)})
            if isinstance(c, sp.core.relational.Relational):  # e.g. a comparison SymPy left unevaluated
                c = c.func(sp.N(c.lhs, 30), sp.N(c.rhs, 30))
        except (TypeError, ValueError, ArithmeticError, IndexError, KeyError, AttributeError):
            return False
        if c is not sp.true and c is not True:
            return False
    return True


GRID = 2 ** 30          # constructed values are multiples of 1/GRID: sums of a few stay exact


def _grid(v) -> float:
    return float(round(sp.Rational(v) * GRID)) / GRID


def _set_entry(values, indices, v) -> bool:
    for i in indices[:-1]:
        if not 0 <= i - OFFSET < SPAN:
            return False
        values = values[i - OFFSET]
    j = indices[-1] - OFFSET
    if not 0 <= j < SPAN or not isinstance(values, list):
        return False
    values[j] = v
    return True


def _exact_sums(given, point: dict) -> None:
    """``Σ_{k=a}^{b} y[k] = c``: the last entry set so the sum of the (dyadic) floats is exactly c."""
    for h in given:
        if not isinstance(h, sp.Equality):
            continue
        s, c = (h.lhs, h.rhs) if isinstance(h.lhs, sp.Sum) else (h.rhs, h.lhs)
        if not isinstance(s, sp.Sum) or len(s.limits) != 1 or not isinstance(s.function, sp.Indexed):
            continue
        (v, a, b), = s.limits
        if s.function.indices != (v,) or s.function.base not in point:
            continue
        try:
            scal = {k: exact(x) for k, x in point.items() if isinstance(k, sp.Symbol)}
            lo, hi, target = (x.xreplace(scal) for x in (a, b, c))  # SymPy objects already
            if not (lo.is_Integer and hi.is_Integer and target.is_Rational and hi >= lo):
                continue
            vals = point[s.function.base]
            rest = sum((exact(lookup(vals, [k])) for k in range(int(lo), int(hi))), sp.Integer(0))
            last = target - rest
            if sp.Rational(float(last)) == last and (last > 0 or not s.function.base.is_positive):
                _set_entry(vals, [int(hi)], float(last))
        except (TypeError, ValueError, IndexError, ArithmeticError):
            continue


def _constructed(exprs, given, scalars, bases, dims, rng, k) -> dict | None:
    """A point built by the catalog's constructive sampler, in this module's format (or None)."""
    from mathcheck.claim import Context
    from mathcheck.symbolic.hypotheses import draw

    try:
        drawn = draw(list(exprs), list(given), Context(), rng)
    except Exception:  # noqa: BLE001 - a hypothesis the catalog's sampler cannot handle: no point
        return None
    if drawn is None:
        return None
    p = _draw(scalars, bases, dims, rng, k)
    for key, v in drawn.items():
        try:
            if isinstance(key, sp.Indexed):
                if key.base in p and not _set_entry(p[key.base], [int(i) for i in key.indices], _grid(v)):
                    return None
            elif key in p:
                p[key] = int(v) if key.is_integer else _grid(v)
        except (TypeError, ValueError):
            return None
    _exact_sums(given, p)
    return p


def sample_points(exprs, seed: int, count: int, given=()) -> list[dict]:
    """``count`` points ``{symbol: number, IndexedBase: nested lists over OFFSET..}``, seeded.

    With hypotheses, up to ``GIVEN_TRIES · count`` candidates are drawn and those where every
    hypothesis holds are kept (fewer than ``count`` when the hypotheses are hard to meet)."""
    given = tuple(given)
    scalars, bases, dims = variables(*exprs, *[g for g in given if isinstance(g, sp.Basic)])
    rng = random.Random(seed)
    if not given:
        return [_draw(scalars, bases, dims, rng, k) for k in range(count)]
    points = []
    for k in range(count * GIVEN_TRIES):
        p = _draw(scalars, bases, dims, rng, k)
        if satisfies(given, p):
            points.append(p)
            if len(points) == count:
                break
    if len(points) < count and any(isinstance(g, sp.Equality) for g in given):
        for k in range(count * GIVEN_TRIES // 4):  # the equations random points miss: built to hold
            p = _constructed(exprs, given, scalars, bases, dims, rng, k)
            if p is not None and satisfies(given, p):
                points.append(p)
                if len(points) == count:
                    break
    return points
