"""The one sampler: points that honour a statement's hypotheses, in the formats each evaluator reads.

A statement ``given ⇒ lhs REL rhs`` is checked at points where every hypothesis holds. Three
drawing schemes share the helpers below, each kept because the verdicts depend on its stream of
random numbers (the same seed gives the same points as before the kernel was one package):

* :func:`draw` — constructive, exact (SymPy numbers): sizes first (small integers), indices inside
  their ranges, the rest from the symbols' assumptions; then a symbol fixed by an equation takes its
  value, a normalisation ``Σ_i p_i = c`` rescales the entries, an order ``z_i > z_j`` swaps two
  entries, an equation in one remaining real symbol is solved for it; a point that still violates
  a hypothesis is rejected (None). The step checker's counterexample search and the catalog's
  independent evaluation (:func:`holds_at`) use it.
* :func:`sample_points` — the user's pipeline (``check``, ``derive``): a point maps each scalar to a
  Python number and each IndexedBase to nested lists over ``OFFSET .. OFFSET + SPAN − 1``; candidates
  are drawn from the assumptions and kept where :func:`satisfies` says every hypothesis holds; an
  equation random points miss (``Σ_j y_j = 1``) is met by :func:`draw`, put on a dyadic grid so the
  kept points satisfy it exactly in float64.
* :func:`tensor_values` / :func:`tensor_integer` — the generic numeric check's seeded torch draws
  (a whole index grid at once; hypotheses are applied there as a mask).

:func:`holds_at` evaluates a statement at a point with mpmath at ``PRECISION_DIGITS``: sums expanded
at the concrete sizes, derivatives by ``sympy.diff``, none of the step checker's strategies.

    >>> from mathcheck.lazy import sympy as sp
    >>> y, j = sp.IndexedBase("y", positive=True), sp.Symbol("j", integer=True)
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> given = (sp.Eq(sp.Sum(y[j], (j, 1, n)), 1),)
    >>> pts = sample_points((sp.Sum(y[j] ** 2, (j, 1, n)),), seed=0, count=3, given=given)
    >>> len(pts), all(satisfies(given, p) for p in pts)
    (3, True)
"""

from __future__ import annotations

import random

from mathcheck.lazy import sympy as sp
from mathcheck.numeric import PRECISION_DIGITS
from mathcheck.numeric.tolerance import HOLD_GUARD_DIGITS

OFFSET, SPAN = -8, 25    # an indexed name x[i] holds values for i in OFFSET .. OFFSET + SPAN − 1


GIVEN_TRIES = 40         # candidates drawn per point wanted when hypotheses filter them
GRID = 2 ** 30          # constructed values are multiples of 1/GRID: sums of a few stay exact


# --- the point format of the user's pipeline ----------------------------------------------------------

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


# --- the shape of a hypothesis ------------------------------------------------------------------------

def basic(x):
    return sp.Integer(x) if isinstance(x, int) else x


def _conjuncts(h):
    return h.args if isinstance(h, sp.And) else (h,)


def ranges(hypotheses) -> dict:
    """``{v: (lo, hi)}`` for every integer symbol the hypotheses bound on both sides."""
    lo: dict = {}
    hi: dict = {}
    for h in hypotheses:
        for c in _conjuncts(h):
            if not isinstance(c, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
                continue
            small, big = (c.lhs, c.rhs) if isinstance(c, (sp.LessThan, sp.StrictLessThan)) else (c.rhs, c.lhs)
            strict = isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan))
            if isinstance(big, sp.Symbol) and big.is_integer and not small.has(big):
                lo.setdefault(big, small + 1 if strict else small)
            if isinstance(small, sp.Symbol) and small.is_integer and not big.has(small):
                hi.setdefault(small, big - 1 if strict else big)
    return {v: (lo[v], hi[v]) for v in lo if v in hi}


def is_definition(h, point=()) -> bool:
    """``base[x] = f(x)`` for every x: an equation whose left side is an entry of an IndexedBase at
    indices that are not set at the point (they are quantified)."""
    return (isinstance(h, sp.Equality) and isinstance(h.lhs, sp.Indexed)
            and all(isinstance(x, sp.Symbol) and x not in point for x in h.lhs.indices)
            and not any(x.is_number for x in h.lhs.indices))


def unfold_definitions(e, hyps):
    """``e`` with every entry of a defined base replaced by its definition (repeatedly: O = PV
    brings in P, which has its own definition)."""
    defs = [h for h in hyps if is_definition(h)]
    for _ in range(len(defs) + 1):
        before = e
        for h in defs:
            base, xs = h.lhs.base, h.lhs.indices
            e = e.replace(lambda x, b=base: isinstance(x, sp.Indexed) and x.base == b,
                          lambda x, xs=xs, rhs=h.rhs: rhs.xreplace(dict(zip(xs, x.indices))))
        if e == before:
            break
    return e


# --- a statement at a point, at PRECISION_DIGITS ---------------------------------------------------------

def concrete(e, point: dict):
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


def expand_sums(e):
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


def _holds(h, point: dict, dps: int = PRECISION_DIGITS) -> bool | None:
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
        vals = [_holds(a, {}, dps) for a in c.args]
        return False if False in vals else None if None in vals else True
    if isinstance(c, sp.Or):
        vals = [_holds(a, {}, dps) for a in c.args]
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


def _compare(lhs, rhs, op: str, dps: int) -> bool | None:
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        if op != "==" or sp.Matrix(lhs).shape != sp.Matrix(rhs).shape:
            return None
        vals = [_compare(a, b, op, dps) for a, b in zip(sp.Matrix(lhs), sp.Matrix(rhs))]
        return False if False in vals else None if None in vals else True
    l, r = _value(lhs, dps), _value(rhs, dps)
    if l is None or r is None:
        return None
    if l.has(sp.oo, -sp.oo) or r.has(sp.oo, -sp.oo):
        return {"==": bool(l == r), ">=": bool(l >= r), ">": bool(l > r), "<=": bool(l <= r),
                "<": bool(l < r)}.get(op)
    tol = sp.Float(10, dps) ** (-(dps - HOLD_GUARD_DIGITS)) * max(1, abs(l), abs(r))
    d = l - r
    # SymPy's comparisons answer BooleanTrue/BooleanFalse, which are not the singletons True/False:
    # callers test `is False`, so hand back plain bools (a SymPy false would read as "not refuted").
    out = {"==": abs(d) <= tol, ">=": d >= -tol, ">": d > -tol, "<=": d <= tol, "<": d < tol,
           "!=": abs(d) > tol}.get(op)
    return None if out is None else bool(out)


def holds_at(statement, given, point: dict, dps: int = PRECISION_DIGITS) -> bool | None:
    """Whether ``given ⇒ statement`` holds at ``point``: True or False, None when the point does
    not satisfy the hypotheses or a side cannot be evaluated (an undefined function, 0/0).

    Evaluation is independent of the step checker: definitions unfolded, sums expanded at the
    point's sizes, ``sympy.diff`` for derivatives, mpmath at ``dps`` digits (``PRECISION_DIGITS``)."""
    given = tuple(given)
    for h in given:
        if _holds(h, point, dps) is not True:
            return None
    if statement in (sp.true, sp.false):  # SymPy evaluated it when it was built
        return bool(statement)
    try:
        lhs = concrete(unfold_definitions(statement.lhs, given), point)
        rhs = concrete(unfold_definitions(statement.rhs, given), point)
    except Exception:  # noqa: BLE001
        return None
    return _compare(lhs, rhs, statement.rel_op, dps)


# --- the constructive draw -----------------------------------------------------------------------------

def size_symbols(exprs, ctx=None) -> list:
    """Integer symbols that bound a Sum/Product or an index range (of ``ctx``, a ``claim.Context``,
    if given), or size a MatrixSymbol."""
    indices = ctx.indices if ctx is not None else ()
    index_syms = {lim[0] for lim in indices}
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
    for _, lo, hi in indices:
        dims |= (basic(lo).free_symbols | basic(hi).free_symbols)
    return sorted((d for d in dims if d not in index_syms and d.is_integer), key=str)


def sample_value(sym, rng: random.Random, hint=None):
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


def _fix_equations(hyps, point, exprs_entries: set, rng, hints) -> None:
    """Constructive steps: a symbol fixed by an equation, a normalised base, an order of two entries."""
    for h in hyps:
        if isinstance(h, sp.Equality) and not is_definition(h, point):
            for side, other in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
                if isinstance(side, (sp.Symbol, sp.Indexed)) and not isinstance(side, sp.Dummy) \
                        and not other.has(side):
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
                (v, a, b), = s.limits
                try:
                    a_v, b_v, c_v = concrete(a, point), concrete(b, point), concrete(c, point)
                except Exception:  # noqa: BLE001
                    continue
                if not (a_v.is_Integer and b_v.is_Integer and c_v.is_number and c_v > 0):
                    continue
                syms = {x: y for x, y in point.items() if not isinstance(x, sp.Indexed)}
                entries = [s.function.xreplace({v: sp.Integer(k)}).xreplace(syms)
                           for k in range(a_v, b_v + 1)]
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
                a, b = concrete(h.lhs, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)}), \
                    concrete(h.rhs, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)})
            except Exception:  # noqa: BLE001
                continue
            if a in point and b in point and _holds(h, point) is False:
                point[a], point[b] = point[b], point[a]


def _solve_remaining(hyps, point, order) -> None:
    """An equation that still fails, in one real symbol of ``order``: solve for it at the point."""
    for h in hyps:
        if not isinstance(h, sp.Equality) or is_definition(h, point) or _holds(h, point) is not False:
            continue
        for sym in order:
            if not h.has(sym):
                continue
            rest = {k: v for k, v in point.items() if k != sym}
            try:
                sols = [concrete(x, rest) for x in _solutions(h.lhs - h.rhs, sym)]
                sols = [x for x in sols if x.is_real]
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


def smallest_size(d) -> int:
    """The smallest size drawn for the dimension ``d``: 1 if it is positive, 0 if nonnegative, else
    −3. An integer that may be negative is drawn negative too: Σ_{i=1}^{n} i² = −5 at n = −3 (Karr's
    convention), so a bound the assumptions leave free is a case the statement must survive."""
    return 1 if d.is_positive else 0 if d.is_nonnegative else -3


def draw(exprs, hyps, ctx, rng: random.Random, sizes: dict | None = None):
    """One point satisfying ``hyps`` for the expressions ``exprs``, or None (rejected). ``ctx`` (a
    ``claim.Context``, or None) gives index ranges and sampling hints."""
    hints = dict(ctx.sample) if ctx is not None else {}
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
    for v, lo, hi in (ctx.indices if ctx is not None else ()):
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
    _fix_equations(hyps, point, set(), rng, hints)
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
    _fix_equations(hyps, point, entries, rng, hints)
    _solve_remaining(hyps, point, [s for s in reversed(plain)])
    for h in hyps:
        if _holds(h, point) is False:
            return None
    return point


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
    """A point built by :func:`draw`, in the user's format (or None)."""
    try:
        drawn = draw(list(exprs), list(given), None, rng)
    except Exception:  # noqa: BLE001 - a hypothesis the catalog's sampler cannot handle: no point
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


def sample_points(exprs, seed: int, count: int, given=()) -> list[dict]:
    """``count`` points ``{symbol: number, IndexedBase: nested lists over OFFSET..}``, seeded.

    With hypotheses, up to ``GIVEN_TRIES · count`` candidates are drawn and those where every
    hypothesis holds are kept (fewer than ``count`` when the hypotheses are hard to meet)."""
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

def tensor_values(sym, g, shape=()):
    """Values a symbol's assumptions allow: positive in (0.1, 3), negative in (−3, −0.1), real
    normal with scale 1.5 (both signs)."""
    import torch

    u = torch.rand(shape, generator=g, dtype=torch.float64)
    if sym.is_positive or (sym.is_nonnegative and not sym.is_zero):
        return 0.1 + 2.9 * u
    if sym.is_negative:
        return -(0.1 + 2.9 * u)
    return 1.5 * torch.randn(shape, generator=g, dtype=torch.float64)


def tensor_integer(sym, g) -> int:
    """An integer its assumptions allow, in −5..5."""
    import torch

    lo, hi = (1, 5) if sym.is_positive else (-5, -1) if sym.is_negative else (0, 5) if sym.is_nonnegative else (-5, 5)
    return int(torch.randint(lo, hi + 1, (), generator=g))
