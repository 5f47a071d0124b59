"""The one sampler of the numeric kernel: seeded points that honour hypotheses, in the formats the
evaluators read.

* :func:`sample_points` — the user's pipeline (``check``, ``derive``): a point maps each scalar to a
  Python number (an ``int`` for an integer symbol) and each IndexedBase to nested lists over
  ``OFFSET .. OFFSET + SPAN − 1``; the same point goes to the float64, torch and 50-digit backends
  (a float at its exact binary value). Candidates are drawn from the assumptions and kept where
  :func:`satisfies` says every hypothesis holds, decided exactly. An equation random points miss
  (``Σ_j y_j = 1``) is met by the constructive draw (:func:`mathcheck.numeric.construct.draw`,
  the one the step checker's counterexample search uses), put on a dyadic grid (multiples of
  2^-30, exact in float64) with a normalised sum's last entry set so the sum is exact, and kept
  only where every hypothesis holds *exactly*.
* :func:`tensor_values` / :func:`tensor_integer` — the generic numeric check's seeded torch draws
  (a whole index grid at once; hypotheses are applied there as a mask).

Each scheme keeps its stream of random numbers: the same seed gives the same points as before the
kernel was one package (the catalog's verdicts depend on them).

    >>> from mathcheck.lazy import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> pts = sample_points((x - y,), seed=0, count=3, given=(x > y,))
    >>> len(pts), all(p[x] > p[y] for p in pts)
    (3, True)
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Iterable, Sequence

from mathcheck.claim import Context
from mathcheck.lazy import sympy as sp
from mathcheck.numeric import PRECISION_DIGITS
from mathcheck.numeric.construct import draw

if TYPE_CHECKING:  # annotations only: torch is imported where a tensor is drawn
    import torch

OFFSET, SPAN = -8, 25  # an indexed name x[i] holds values for i in OFFSET .. OFFSET + SPAN − 1


GIVEN_TRIES = 40  # candidates drawn per point wanted when hypotheses filter them
GRID = 2**30  # constructed values are multiples of 1/GRID: sums of a few stay exact


# --- the point format of the user's pipeline ----------------------------------------------------------


def variables(*exprs: sp.Basic) -> tuple[list[sp.Symbol], dict[sp.IndexedBase, int], set[sp.Symbol]]:
    """``(scalars, bases, dims)``: free symbols, IndexedBases with their rank, sum-bound symbols."""
    bases: dict = {}
    for e in exprs:
        for x in e.atoms(sp.Indexed):
            bases[x.base] = max(bases.get(x.base, 0), len(x.indices))
    labels = {b.label for b in bases}
    scalars = sorted(
        {s for e in exprs for s in e.free_symbols if isinstance(s, sp.Symbol) and s not in labels}, key=str
    )
    dims = set()
    for e in exprs:
        for s in e.atoms(sp.Sum):
            for _, a, b in s.limits:
                dims |= a.free_symbols | b.free_symbols
    return scalars, bases, dims


def exact(v: int | float) -> sp.Rational:
    """A sampled number as a SymPy number: an int, or a float at its exact binary value."""
    return sp.Integer(v) if isinstance(v, int) else sp.Rational(v)


def lookup(values: list, indices: Iterable) -> float:
    """The entry ``x[i, j, ...]`` of a sampled IndexedBase (nested lists starting at OFFSET)."""
    for i in indices:
        j = int(i) - OFFSET
        if not 0 <= j < SPAN:
            raise IndexError(f"index {i} outside {OFFSET}..{OFFSET + SPAN - 1}")
        values = values[j]
    return values


# --- the user's points ---------------------------------------------------------------------------------


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


def _random_point(scalars, bases, dims, rng, k) -> dict:
    p = {}
    for s in scalars:
        p[s] = _integer(s, rng, s in dims, k) if s.is_integer else _real(s, rng, k)
    for b, rank in sorted(bases.items(), key=lambda kv: str(kv[0])):
        p[b] = _values(b, rank, rng, k)
    return p


def satisfies(given: Iterable[sp.Basic], point: dict) -> bool:
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
                c = c.func(sp.N(c.lhs, PRECISION_DIGITS), sp.N(c.rhs, PRECISION_DIGITS))
        except (TypeError, ValueError, ArithmeticError, IndexError, KeyError, AttributeError):
            return False
        if c is not sp.true and c is not True:
            return False
    return True


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
        ((v, a, b),) = s.limits
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
    """A point built by the constructive :func:`~mathcheck.numeric.construct.draw`, in the user's
    format (or None)."""
    try:
        drawn = draw(list(exprs), list(given), Context(), rng)
    except Exception:  # noqa: BLE001 - a hypothesis the constructive draw cannot handle: no point
        return None
    if drawn is None:
        return None
    p = _random_point(scalars, bases, dims, rng, k)
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


def sample_points(exprs: Sequence[sp.Expr], seed: int, count: int, given: Iterable = ()) -> list[dict]:
    """``count`` points ``{symbol: number, IndexedBase: nested lists over OFFSET..}``, seeded.

    With hypotheses, up to ``GIVEN_TRIES · count`` candidates are drawn and those where every
    hypothesis holds are kept; when an equation leaves too few, constructed points follow (see the
    module's docstring). Fewer than ``count`` when the hypotheses are hard to meet."""
    given = tuple(given)
    scalars, bases, dims = variables(*exprs, *[g for g in given if isinstance(g, sp.Basic)])
    rng = random.Random(seed)
    if not given:
        return [_random_point(scalars, bases, dims, rng, k) for k in range(count)]
    points = []
    for k in range(count * GIVEN_TRIES):
        p = _random_point(scalars, bases, dims, rng, k)
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


# --- the generic check's torch draws ------------------------------------------------------------------


def tensor_values(sym: sp.Symbol, g: torch.Generator, shape: tuple[int, ...] = ()) -> torch.Tensor:
    """Values a symbol's assumptions allow: positive in (0.1, 3), negative in (−3, −0.1), real
    normal with scale 1.5 (both signs)."""
    import torch

    u = torch.rand(shape, generator=g, dtype=torch.float64)
    if sym.is_positive or (sym.is_nonnegative and not sym.is_zero):
        return 0.1 + 2.9 * u
    if sym.is_negative:
        return -(0.1 + 2.9 * u)
    return 1.5 * torch.randn(shape, generator=g, dtype=torch.float64)


#: large integers the generic check also tries (a side condition may fail only far out)
LARGE_INTEGERS = (40, 1000)


def allowed(sym: sp.Symbol, n: int) -> bool:
    """Whether the integer ``n`` is a value ``sym``'s sign assumptions allow."""
    return not (
        (sym.is_positive and n <= 0)
        or (sym.is_negative and n >= 0)
        or (sym.is_nonnegative and n < 0)
        or (sym.is_nonpositive and n > 0)
    )


def named_integers(sym: sp.Symbol, ends: Iterable[int] = ()) -> list[int]:
    """The integers a side condition names, as ``sym``'s assumptions allow: each of ``ends`` (the
    hypotheses' integer constants, the range ends at this point) and its neighbours ±1, and the
    large values ±40, ±1000. Example: ends (3,) for a nonnegative sym → [2, 3, 4, 40, 1000]."""
    out = {e + d for e in ends for d in (-1, 0, 1)} | {s * n for n in LARGE_INTEGERS for s in (1, -1)}
    return sorted(n for n in out if allowed(sym, n))


def tensor_integer(sym: sp.Symbol, g: torch.Generator, ends: Iterable[int] = ()) -> int:
    """An integer its assumptions allow: half the draws in −5..5, the other half one of
    :func:`named_integers` (the hypotheses' constants and range ends ±1, large values), so a point
    where a side condition just fails — u = t + 1, a bound at 1000 — is reached, not only −5..5."""
    import torch

    lo, hi = (1, 5) if sym.is_positive else (-5, -1) if sym.is_negative else (0, 5) if sym.is_nonnegative else (-5, 5)
    named = named_integers(sym, ends)
    if named and int(torch.randint(0, 2, (), generator=g)):
        return named[int(torch.randint(0, len(named), (), generator=g))]
    return int(torch.randint(lo, hi + 1, (), generator=g))
