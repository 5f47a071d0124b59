"""The step checker: is ``a - b`` identically zero? Three answers, kept distinct.

:func:`zero_test` answers ``True`` (shown zero by a named strategy), ``False`` (a concrete point where
the difference is nonzero, evaluated to 40 digits) or ``None`` (no strategy succeeded within its
budget). Targeted strategies run first, cheapest first; the counterexample search runs before
``simplify`` so that a false step costs milliseconds, not ``simplify``'s minutes; ``simplify`` runs
last. Every attempt runs under :func:`mathcheck.budget.attempt`, which really stops SymPy.

The strategies encode what is known to work on this kind of mathematics (see
``shared/notes/sympy-torch-facts.md``): KroneckerDelta sums collapse with ``deltasummation(...,
no_piecewise=True)`` (plain ``doit`` leaves a ``Piecewise``), sums over the same range are combined
into one sum before ``expand_log`` or ``expand(trig=True)`` is applied to the summand.

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> zero_test(sp.log(2 * x) - sp.log(2) - sp.log(x)).value
    True
    >>> zero_test(sp.log(2 * x) - sp.log(x)).value
    False
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from mathcheck.symbolic import hypotheses as hyp
from mathcheck.symbolic import rules
from mathcheck.budget import attempt
from mathcheck.claim import Context, Part
from mathcheck.lazy import sympy as sp
from mathcheck.numeric import sampling

DEFAULT_ATTEMPT_S = 5.0  # one strategy on one difference
DEFAULT_STEP_S = 20.0  # all strategies on one difference


@dataclass(frozen=True)
class Decision:
    """The checker's answer: ``value`` is True (zero), False (nonzero, see ``counterexample``) or None."""

    value: bool | None
    how: str
    counterexample: tuple = ()  # ((name, value), ...), both strings, for a False answer
    seconds: float = 0.0
    timed_out: bool = False
    notes: tuple = ()  # strategies that raised (an exception of SymPy's makes them undecided)

    @property
    def status(self) -> str:
        return {True: "proved", False: "refuted", None: "inconclusive"}[self.value]

    def __repr__(self) -> str:
        return f"Decision({self.value}, {self.how!r})"


# --- strategies -------------------------------------------------------------------------------

def _bottom_up(e, fn):
    if not getattr(e, "args", None):
        return e
    new_args = tuple(_bottom_up(a, fn) for a in e.args)
    if new_args != e.args:
        e = e.func(*new_args)
    return fn(e)


def _known(rel, rng: dict) -> bool | None:
    """Whether the relational ``rel`` holds for every value of its symbols in ``rng`` (``{v: (lo, hi)}``)."""
    if rel in (sp.true, True):
        return True
    if rel in (sp.false, False):
        return False
    if isinstance(rel, sp.And):
        vals = [_known(a, rng) for a in rel.args]
        return True if all(v is True for v in vals) else False if False in vals else None
    if not isinstance(rel, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
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


def _collapse(f, lim, rng: dict):
    """Σ over ``lim`` of ``f`` (with a KroneckerDelta): SymPy's answer, a Piecewise on whether the
    index lies in the range, resolved only where ``rng`` shows the condition."""
    from sympy.concrete.delta import deltasummation

    out = deltasummation(f, lim, no_piecewise=False)

    def resolve(pw):
        for expr, cond in pw.args:
            known = _known(cond, rng)
            if known is True:
                return expr
            if known is None:
                return pw
        return pw

    return out.replace(lambda x: isinstance(x, sp.Piecewise), resolve)


def eval_deltas(e, ranges: dict | None = None):
    """Collapse every sum over a KroneckerDelta, innermost first: Σ_{k=a}^{b} δ(j, k) f(k) = f(j)
    only where ``a ≤ j ≤ b`` is known (from ``ranges``, the part's hypotheses, or an enclosing sum's
    bounds); elsewhere the Piecewise SymPy returns stays, and the step is not shown by this."""
    ranges = dict(ranges or {})

    def walk(x, rng):
        if not getattr(x, "args", None):
            return x
        if isinstance(x, sp.Sum):
            inner = dict(rng)
            inner.update({v: (a, b) for v, a, b in x.limits})
            f = walk(x.function, inner)
            if not f.has(sp.KroneckerDelta):
                return sp.Sum(f, *x.limits) if f != x.function else x
            for n, lim in enumerate(x.limits):
                here = dict(rng)
                here.update({v: (a, b) for v, a, b in x.limits[n + 1:]})
                f = _collapse(sp.expand(f), lim, here) if f.has(sp.KroneckerDelta) else sp.Sum(f, lim)
            return f
        new_args = tuple(walk(a, rng) for a in x.args)
        return x.func(*new_args) if new_args != x.args else x

    return walk(e, ranges)


def combine_sums(e):
    """Merge the terms ``c * Sum(f, (v, a, b))`` that share the range ``(a, b)`` into one Sum."""
    e = sp.expand(e)
    groups: dict[tuple, list] = {}
    rest = []
    for term in sp.Add.make_args(e):
        sums = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.Sum) and len(f.limits) == 1]
        if len(sums) != 1:
            rest.append(term)
            continue
        s = sums[0]
        coeff = term / s
        var, a, b = s.limits[0]
        if coeff.has(var):
            rest.append(term)
            continue
        key = (a, b)
        dummy = groups.setdefault(key, [sp.Dummy("k", integer=True)])[0]
        groups[key].append(coeff * s.function.xreplace({var: dummy}))
    merged = [sp.Sum(sp.Add(*terms[1:]), (terms[0], a, b)) for (a, b), terms in groups.items()]
    return sp.Add(*rest, *merged)


def pull_sums(e):
    """Split sums over their terms and pull out the factors free of the summation variable."""

    def pull(x):
        if not (isinstance(x, sp.Sum) and len(x.limits) == 1):
            return x
        var, a, b = x.limits[0]
        out = []
        for t in sp.Add.make_args(sp.expand(x.function)):
            factors = sp.Mul.make_args(t)
            c = sp.Mul(*[f for f in factors if not f.has(var)])
            r = sp.Mul(*[f for f in factors if f.has(var)])
            out.append(c * (sp.Sum(r, (var, a, b)) if r != 1 else (b - a + 1)))
        return sp.Add(*out)

    return _bottom_up(e, pull)


def canonical_sums(e, depth: int = 0):
    """Rename bound summation variables by nesting depth, so equal sums compare equal."""
    if isinstance(e, sp.Sum):
        limits, f = [], e.function
        for n, (var, a, b) in enumerate(e.limits):
            c = sp.Symbol(f"_s{depth + len(e.limits) - 1 - n}", integer=True)
            f = f.xreplace({var: c})
            limits.append((c, a, b))
        return sp.Sum(canonical_sums(f, depth + len(e.limits)), *limits)
    if not getattr(e, "args", None):
        return e
    return e.func(*[canonical_sums(a, depth) for a in e.args])


def delta_substitute(e):
    """In a term with a factor δ(a, b), the rest may take b = a (the term vanishes otherwise)."""
    out = []
    for t in sp.Add.make_args(sp.expand(e)):
        deltas = [f for f in sp.Mul.make_args(t) if isinstance(f, sp.KroneckerDelta)]
        for dlt in deltas:
            a, b = dlt.args
            rest = t / dlt
            if isinstance(b, sp.Symbol):
                t = dlt * rest.xreplace({b: a})
            elif isinstance(a, sp.Symbol):
                t = dlt * rest.xreplace({a: b})
        out.append(t)
    return sp.Add(*out)


def _on_summands(fn):
    def strategy(e):
        e = combine_sums(e)
        e = e.replace(lambda x: isinstance(x, sp.Sum), lambda x: sp.Sum(fn(x.function), *x.limits))
        return fn(e.doit())
    return strategy


def _expand_log(e):
    return sp.expand(sp.expand_log(sp.expand(e), force=False))


def _trig(e):
    return sp.trigsimp(sp.expand(e, trig=True))


def _exp(e):
    return sp.cancel(sp.expand(e.rewrite(sp.exp)))


STRATEGIES: tuple[tuple[str, Callable], ...] = (
    ("structural", lambda e, r: e),
    ("expand", lambda e, r: sp.expand(e)),
    ("doit+expand", lambda e, r: sp.expand(e.doit())),
    ("expand, collapse Kronecker-delta sums, doit, cancel",
     lambda e, r: sp.cancel(sp.expand(eval_deltas(sp.expand(e), r)).doit())),
    ("together+cancel", lambda e, r: sp.cancel(sp.together(e.doit()))),
    ("Kronecker delta substitution", lambda e, r: sp.expand(delta_substitute(eval_deltas(sp.expand(e), r)))),
    ("sums normalised (independent factors out, bound variables renamed)",
     lambda e, r: sp.cancel(sp.expand(canonical_sums(pull_sums(eval_deltas(e, r)))))),
    ("expand_log on combined sums", lambda e, r: _on_summands(_expand_log)(e)),
    ("trig expansion on combined sums", lambda e, r: _on_summands(_trig)(e)),
    ("numerator over a common denominator, expanded", lambda e, r: sp.expand(sp.numer(sp.together(e)))),
    ("rewrite(exp)+cancel", lambda e, r: _exp(e.doit())),
)


_BY_NAME = dict(STRATEGIES)
_CHEAP = ("structural", "expand")
_TARGETED = (
    (lambda e: e.has(sp.sin, sp.cos, sp.tan), ("trig expansion on combined sums",)),
    (lambda e: e.has(sp.log), ("expand_log on combined sums",)),
    (lambda e: e.has(sp.KroneckerDelta) or e.has(sp.Sum),
     ("expand, collapse Kronecker-delta sums, doit, cancel", "Kronecker delta substitution",
      "sums normalised (independent factors out, bound variables renamed)")),
)
_AFTER_HYPOTHESES = ("expand", "doit+expand", "together+cancel",
                     "sums normalised (independent factors out, bound variables renamed)")


def plan(e, hypotheses: tuple = ()) -> list[tuple[str, Callable | None]]:
    """The order of attempts for ``e``: cheap ones, those its functions call for, the
    counterexample search (``None``), the remaining strategies, the same cheap ones after using the
    part's hypotheses (``using the hypotheses``), ``simplify`` last. Each strategy is
    ``fn(e, ranges)``: ``ranges`` are the index ranges the hypotheses give.

    ``doit`` on a Sum of trigonometric terms can run for minutes (it tries closed forms), so the
    strategy that fits the expression runs before the generic ones, and a false step is caught by
    the counterexample search before any costly attempt.
    """
    names = list(_CHEAP)
    for applies, targeted in _TARGETED:
        if applies(e):
            names += [n for n in targeted if n not in names]
    names.append(None)
    names += [n for n, _ in STRATEGIES if n not in names]
    out = [(n, _BY_NAME[n]) if n is not None else ("counterexample", None) for n in names]
    rewritten = use_hypotheses(e, hypotheses)
    if rewritten is not None:
        out += [(f"{n}, using the hypotheses", (lambda e, r, fn=_BY_NAME[n], x=rewritten: fn(x, r)))
                for n in _AFTER_HYPOTHESES]
    return out + [("simplify", lambda e, r: sp.simplify(e))]


def use_hypotheses(e, hypotheses: tuple):
    """``e`` rewritten with the part's hypotheses, or None when none applies: an equation
    ``x = v`` replaces ``x`` (bound variables renamed first, so Σ_j p_j matches Σ_i p_i), and a
    hypothesis ``X > 0`` (``X ≥ 0``) replaces a compound ``X`` by a positive (nonnegative) variable,
    which is sound: what holds for every such variable holds for X."""
    out = canonical_sums(e)
    for h in hypotheses:
        if sampling.is_definition(h):
            continue
        if isinstance(h, sp.Equality):
            lhs, rhs = canonical_sums(h.lhs), canonical_sums(h.rhs)
            if lhs.is_number and not rhs.is_number:
                lhs, rhs = rhs, lhs
            if not lhs.is_number:
                out = out.xreplace({lhs: rhs})
        elif isinstance(h, (sp.StrictGreaterThan, sp.GreaterThan)) and h.rhs == 0 \
                and not isinstance(h.lhs, (sp.Symbol, sp.Indexed)):
            w = sp.Dummy("w", positive=True) if isinstance(h, sp.StrictGreaterThan) else \
                sp.Dummy("w", nonnegative=True)
            out = out.xreplace({canonical_sums(h.lhs): w})
    return None if out == canonical_sums(e) else out


def _is_zero(r) -> bool:
    if isinstance(r, sp.MatrixBase):
        return all(_is_zero(x) for x in r)
    return r == 0


# --- counterexamples ----------------------------------------------------------------------------

_sample_value = sampling.sample_value
_basic = sampling.basic


def _dimension_symbols(e, ctx: Context) -> list:
    """Integer symbols that bound a Sum or an index range: the dimensions of the claim."""
    return sampling.size_symbols([e], ctx)


LARGE_SIZE = 8  # the last try of a counterexample search puts every dimension here


def _assign(e, ctx: Context, rng: random.Random, large: bool = False):
    """A point satisfying the part's hypotheses (``ctx.given``) and ``e`` evaluated there; with
    ``large``, every dimension at ``LARGE_SIZE`` (a statement may fail only beyond small sizes)."""
    sizes = {d: LARGE_SIZE for d in _dimension_symbols(e, ctx)} if large else None
    point = sampling.draw([e], ctx.given, ctx, rng, sizes)
    if point is None:
        return None
    e = e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit())
    syms = {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)}
    concrete = e.xreplace(syms).doit()
    values = {}
    for idx in sorted(concrete.atoms(sp.Indexed), key=str):
        if idx in point:
            values[idx] = point[idx]
        elif all(ix.is_number for ix in idx.indices):
            values[idx] = _sample_value(idx, rng, dict(ctx.sample).get(idx.base))
    return syms, concrete.xreplace(values), values


def _nonzero(v: float, scale: float) -> bool:
    return abs(v) > 1e-12 * scale


def find_counterexample(e, ctx: Context = Context(), tries: int = 8, seed: int = 0, bad=_nonzero):
    """A point where ``bad(value, scale)`` holds beyond doubt (40-digit evaluation), or None.

    By default: where ``e`` is nonzero. :func:`sign_test` passes "is negative"."""
    rng = random.Random(seed)
    for t in range(tries):
        assigned = _assign(e, ctx, rng, large=t == tries - 1)
        if assigned is None:
            continue
        point, concrete, values = assigned
        entries = list(concrete) if isinstance(concrete, sp.MatrixBase) else [concrete]
        for entry in entries:
            if entry.free_symbols or entry.atoms(sp.core.function.AppliedUndef):
                continue
            v = sp.N(entry, 40)
            if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
                continue
            scale = max([1.0] + [abs(complex(sp.N(t, 20))) for t in sp.Add.make_args(entry)
                                 if sp.N(t, 20).is_number and sp.N(t, 20).is_finite])
            z = complex(v)
            if bad is _nonzero:
                value = abs(z)
            elif abs(z.imag) > 1e-30 * scale:
                # a sign is claimed of a real number: a value that is not real refutes it (a side
                # not real on the whole domain, e.g. log(x)² at x = −1, issue 21)
                value = -float("inf")
            else:  # an imaginary part of round-off size: the value is real
                value = z.real
            if bad(value, scale):
                shown = {str(k): str(val) for k, val in point.items()}
                shown.update({str(k): str(val) for k, val in values.items()})
                shown["difference"] = sp.sstr(sp.N(v, 12))
                return tuple(shown.items())
    return None


# --- the zero test ------------------------------------------------------------------------------

def zero_test(e, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S,
              total_s: float = DEFAULT_STEP_S) -> Decision:
    """Decide whether ``e`` is identically zero under the symbols' assumptions and ``ctx``."""
    start = time.perf_counter()
    timed_out = False
    try:
        e = hyp.unfold_context(e, ctx)
    except Exception as exc:  # noqa: BLE001
        return Decision(None, _raised("unfolding the definitions", exc))

    def left() -> float:
        return total_s - (time.perf_counter() - start)

    def run(fn):
        nonlocal timed_out
        if left() <= 0:
            timed_out = True
            return False, None
        ok, value = attempt(fn, min(attempt_s, left()))
        timed_out |= not ok
        return ok, value

    if isinstance(e, sp.MatrixBase) or getattr(e, "is_Matrix", False):
        return _matrix_zero_test(sp.Matrix(e.doit()) if not isinstance(e, sp.MatrixBase) else e,
                                 ctx, attempt_s, total_s)
    rng = index_ranges(ctx)
    notes: list[str] = []
    for name, strategy in plan(e, ctx.given):
        if strategy is None:  # the counterexample search, placed before the costly strategies
            try:
                ok, cex = run(lambda: find_counterexample(e, ctx))
            except Exception as exc:  # noqa: BLE001 — SymPy failing to evaluate decides nothing
                notes.append(_raised("counterexample", exc))
                ok, cex = True, None
            if ok and cex:
                return Decision(False, "counterexample", cex, time.perf_counter() - start, notes=tuple(notes))
            continue
        try:
            ok, r = run(lambda: strategy(e, rng))
        except Exception as exc:  # noqa: BLE001 — any SymPy exception: this strategy is undecided
            notes.append(_raised(name, exc))
            continue
        if ok and r is not None and _is_zero(r):
            return Decision(True, name, seconds=time.perf_counter() - start, notes=tuple(notes))
    why = "time budget ran out" if timed_out else "no strategy showed it zero and no counterexample was found"
    return Decision(None, why, seconds=time.perf_counter() - start, timed_out=timed_out, notes=tuple(notes))


def _raised(name: str, exc: BaseException) -> str:
    return f"{name}: SymPy raised {type(exc).__name__}: {str(exc)[:120]}"


def index_ranges(ctx: Context) -> dict:
    """``{index: (lo, hi)}`` from the part's hypotheses and the Context's index ranges."""
    out = {v: (_basic(lo), _basic(hi)) for v, lo, hi in ctx.indices}
    out.update(sampling.ranges(ctx.given))
    return out


# --- the sign test (for ≥ and > links) ------------------------------------------------------------

def _domain(sym):
    if sym.is_positive:
        return sp.Interval.open(0, sp.oo)
    if sym.is_nonnegative:
        return sp.Interval(0, sp.oo)
    if sym.is_negative:
        return sp.Interval.open(-sp.oo, 0)
    return sp.S.Reals if sym.is_real else None


KNOWN_FACTS = ("real", "integer", "positive", "nonnegative", "negative", "nonpositive", "nonzero")


def stand_in(v, name: str = "x"):
    """A Dummy for ``v`` (an ``x[i]``, a compound quantity) carrying only the facts known of ``v``.

    A fact that is unknown (``v.is_positive is None``) is left out, never set False: in SymPy
    ``positive=False`` on a real symbol means ``≤ 0``, which would turn ``relu(x[i]) ≤ 40`` into a
    statement about nonpositive x (issue 21)."""
    return sp.Dummy(name, **{f: True for f in KNOWN_FACTS if getattr(v, f"is_{f}", None) is True})


def _variables(e) -> set:
    labels = {b.label for b in e.atoms(sp.IndexedBase)}
    indices = set().union(*[set().union(*[i.free_symbols for i in x.indices]) for x in e.atoms(sp.Indexed)]) \
        if e.atoms(sp.Indexed) else set()
    plain = {x for x in e.free_symbols if isinstance(x, sp.Symbol)} - labels - indices
    return plain | e.atoms(sp.Indexed)


def _univariate_minimum(e, strict: bool) -> bool | None:
    """``e`` in one variable with a domain from its assumptions: SymPy's minimum over that domain."""
    from sympy.calculus.util import minimum

    vs = _variables(e)
    if len(vs) != 1:
        return None
    (v,) = vs
    x = v if isinstance(v, sp.Symbol) else stand_in(v)
    domain = _domain(x)
    if domain is None:
        return None
    f = e.xreplace({v: x})
    if f.is_extended_real is not True:
        # SymPy's minimum searches only where f is real: log(x)² over the reals would be "≥ 0",
        # yet log(−1)² = −π². The rule applies only where f is known real on the whole domain.
        return None
    try:
        m = minimum(f, x, domain)
    except (NotImplementedError, ValueError):  # "Unable to find range": this form does not decide
        return None
    if m is None or not m.is_number:
        return None
    return bool(m > 0) if strict else bool(m >= 0)


def _generalisations(e):
    """Replace the argument g of a logarithm (a positive quantity) by a positive variable x:
    ``p(q/p − 1 − log(q/p))`` → ``x − 1 − log x`` for its non-constant factor."""
    for lg in sorted(e.atoms(sp.log), key=sp.default_sort_key):
        g = lg.args[0]
        if g.is_positive:
            x = sp.Dummy("x", positive=True)
            yield e.xreplace({g: x, 1 / g: 1 / x})


def _positive_atoms(e) -> list:
    return sorted((v for v in _variables(e) if v.is_positive), key=sp.default_sort_key)


def _ordered(limit, nonempty: bool, rng: dict) -> bool:
    """Whether Σ over ``limit = (i, a, b)`` adds its terms with a plus sign: ``b ≥ a − 1`` (``b ≥ a``
    when the sum must be nonempty) from the symbols' assumptions or the index ranges ``rng`` (the
    part's hypotheses, the Context's ranges, enclosing sums). Below that, SymPy's (Karr's)
    convention makes Σ_{i=a}^{b} = −Σ_{i=b+1}^{a−1}: Σ_{i=1}^{n} i² = −5 at n = −3."""
    _, a, b = limit
    low = a if nonempty else a - 1
    return bool((b - low).is_nonnegative) or _known(sp.Le(low, b), rng) is True


def _nonneg(e, strict: bool, divide: bool = True, rng: dict | None = None) -> bool:
    """Whether ``e ≥ 0`` (``> 0`` if strict) follows from its structure. Rules of ours, each sound:
    a sum or product of nonnegative terms, an even power, a finite sum of nonnegative terms (each
    term ≥ 0 ⇒ Σ ≥ 0, which SymPy's assumptions do not derive), a one-variable expression whose
    minimum over its domain is ≥ 0, or the same after generalising a logarithm's argument."""
    known = e.is_positive if strict else e.is_nonnegative
    if known:
        return True
    if known is False:
        return False
    if isinstance(e, sp.Add):
        if all(_nonneg(t, False, divide, rng) for t in e.args):
            return not strict or any(_nonneg(t, True, divide, rng) for t in e.args)
        if divide:  # a positive factor v: e ≥ 0 ⇔ e/v ≥ 0 (p_i(q_i/p_i − 1 − log(q_i/p_i)))
            for v in _positive_atoms(e):
                if _nonneg(sp.logcombine(sp.expand(e / v)), strict, False, rng):
                    return True
    if isinstance(e, sp.Mul):
        negatives = [f for f in e.args if f.is_negative]
        others = [f for f in e.args if not f.is_negative]
        if len(negatives) % 2 == 0 and all(_nonneg(f, strict, divide, rng) for f in others):
            return True
    if isinstance(e, sp.Pow) and e.exp.is_integer and e.exp.is_even and e.base.is_real and not strict:
        return True
    if isinstance(e, sp.Pow) and e.exp.is_real and _nonneg(e.base, strict, divide, rng):
        return True
    rng = rng or {}
    if isinstance(e, sp.Sum) and len(e.limits) == 1 and _ordered(e.limits[0], strict, rng):
        var, a, b = e.limits[0]
        if _nonneg(e.function, strict, divide, {**rng, var: (a, b)}):
            return True
    if _univariate_minimum(e, strict):
        return True
    for g in _generalisations(e):
        if _univariate_minimum(sp.together(g), strict) or _univariate_minimum(g, strict):
            return True
    return False


SIGN_STRATEGIES: tuple[tuple[str, Callable], ...] = (
    ("sign from structure", lambda e: e),
    ("sign after expand", lambda e: sp.expand(e)),
    ("sign after factor", lambda e: sp.factor(e)),
    ("sign of the combined sum", lambda e: combine_sums(e)),
    ("sign after cancel", lambda e: sp.cancel(sp.together(e))),
)


def sign_test(e, ctx: Context = Context(), strict: bool = False, attempt_s: float = DEFAULT_ATTEMPT_S,
              total_s: float = DEFAULT_STEP_S) -> Decision:
    """Decide ``e ≥ 0`` (``e > 0`` if ``strict``): True (shown), False (a point where it fails), None."""
    start = time.perf_counter()
    timed_out = False
    try:
        e = hyp.unfold_context(e, ctx)
    except Exception as exc:  # noqa: BLE001
        return Decision(None, _raised("unfolding the definitions", exc))
    notes: list[str] = []
    ranges = index_ranges(ctx)
    rewritten = use_hypotheses(e, ctx.given)
    forms = [(name, form, e) for name, form in SIGN_STRATEGIES]
    if rewritten is not None:
        forms += [(f"{name}, using the hypotheses", form, rewritten) for name, form in SIGN_STRATEGIES]
    for name, form, x in forms:
        budget_left = total_s - (time.perf_counter() - start)
        if budget_left <= 0:
            timed_out = True
            break
        try:
            ok, shown = attempt(lambda: _nonneg(form(x), strict, rng=ranges), min(attempt_s, budget_left))
        except Exception as exc:  # noqa: BLE001
            # a rule that does not apply (SymPy's `minimum` raises on log x − x + 1) must not skip
            # the counterexample search below
            notes.append(_raised(name, exc))
            ok, shown = True, False
        timed_out |= not ok
        if ok and shown:
            return Decision(True, name, seconds=time.perf_counter() - start, notes=tuple(notes))
        if ok and name == "sign from structure":
            bad = (lambda v, scale: v <= 1e-30) if strict else (lambda v, scale: v < -1e-12 * scale)
            try:
                ok, cex = attempt(lambda: find_counterexample(e, ctx, bad=bad), min(attempt_s, budget_left))
            except Exception as exc:  # noqa: BLE001
                notes.append(_raised("counterexample", exc))
                ok, cex = True, None
            if ok and cex:
                return Decision(False, "counterexample", cex, time.perf_counter() - start, notes=tuple(notes))
    why = "time budget ran out" if timed_out else "no rule showed the sign and no counterexample was found"
    return Decision(None, why, seconds=time.perf_counter() - start, timed_out=timed_out, notes=tuple(notes))


def relation_test(lhs, rhs, rel: str, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S,
                  total_s: float = DEFAULT_STEP_S) -> Decision:
    """Decide ``lhs REL rhs`` for REL in ``= >= > <= <``."""
    if rel == "=":
        return zero_test(difference(lhs, rhs), ctx, attempt_s, total_s)
    if rel in (">=", ">"):
        return sign_test(lhs - rhs, ctx, rel == ">", attempt_s, total_s)
    return sign_test(rhs - lhs, ctx, rel == "<", attempt_s, total_s)


def _matrix_zero_test(m, ctx, attempt_s, total_s) -> Decision:
    start = time.perf_counter()
    decisions = []
    for i, x in enumerate(m):
        d = zero_test(x, ctx, attempt_s, max(total_s - (time.perf_counter() - start), 0.0))
        if d.value is False:
            r, c = divmod(i, m.cols)
            return Decision(False, f"counterexample (entry {r},{c})", d.counterexample,
                            time.perf_counter() - start)
        decisions.append(d)
    if all(d.value for d in decisions):
        hows = sorted({d.how for d in decisions})
        return Decision(True, "entrywise: " + ", ".join(hows), seconds=time.perf_counter() - start)
    return Decision(None, "some entries undecided", seconds=time.perf_counter() - start,
                    timed_out=any(d.timed_out for d in decisions))


def difference(a, b):
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase) \
            or getattr(a, "is_Matrix", False) or getattr(b, "is_Matrix", False):
        return sp.Matrix(sp.Matrix(a.doit()) - sp.Matrix(b.doit()))
    return a - b


# --- checking a part ------------------------------------------------------------------------------

@dataclass(frozen=True)
class StepResult:
    part: str
    index: int
    expr: Any
    reason: str
    rule: str
    decision: Decision | None  # None for the first step, which states what is being derived
    relation: str = "="  # how the previous expression relates to this one

    @property
    def status(self) -> str:
        return "given" if self.decision is None else self.decision.status


@dataclass(frozen=True)
class PartResult:
    name: str
    statement: Any
    general: bool | None  # computed: symbolic size kept (True), concrete size (False), no size (None)
    status: str
    steps: tuple[StepResult, ...]
    notes: tuple[str, ...] = field(default=())
    relation: str = "="
    given: tuple = ()  # the hypotheses the statement is proved under (given ⇒ statement)

    @property
    def failing(self) -> StepResult | None:
        for s in self.steps:
            if s.status in ("refuted", "inconclusive"):
                return s
        return None


# definitions of notation; laws the claim lists in its assumptions; SymPy's own calculus and identities
TRUSTED_KINDS = ("definition", "axiom", "calculus", "sympy")
CHECKED_KINDS = ("lemma", "assumption")  # must carry a side-condition check (rules.lemma, substitute, witness)
STATED_KINDS = hyp.STATED_KINDS  # part of what the statement assumes: printed among its hypotheses


def _trusted(rule) -> bool:
    """Whether the checker may use ``rule``'s output without showing it equal to its input: a rule
    built by a constructor of :mod:`mathcheck.symbolic.rules` (trusted kind, or its side condition checked),
    or a definition or an axiom, which the part then prints among its hypotheses."""
    if rule.kind in STATED_KINDS:
        return True
    return rules.vouched(rule) and (rule.kind in TRUSTED_KINDS or rule.check is not None)


def _apply_rule(rule, prev, cur, env, pctx, attempt_s, step_s):
    """``(target, current, None)`` or ``(None, None, Decision)`` when the rule may not be used here.

    Definitions (notation) and axioms are hypotheses of the statement, printed with it; ``calculus``
    and ``sympy`` rules built by :mod:`mathcheck.symbolic.rules` are the trusted base; a rule built there
    with a side-condition check is used once the check passes (a ``lemma``/``assumption`` rule must
    have one); any other rule (a ``transform``, or any rule built by hand with ``Rule(...)``, with
    or without ``check=``) is used only once the checker shows its output equals its input."""
    if rule.kind in CHECKED_KINDS and rule.check is None:
        return None, None, Decision(None, f"side condition not checked: a {rule.kind} rule must cite a "
                                          f"proved part (rules.lemma) or a hypothesis (rules.substitute)")
    try:
        ok, target = attempt(lambda: rule.applied(prev, env), attempt_s)
        new_cur = cur
        if ok and rule.both_sides:
            ok, new_cur = attempt(lambda: rule.apply(cur), attempt_s)
    except rules.SideCondition as exc:
        return None, None, Decision(None, f"side condition not met: {exc}")
    except Exception as exc:  # noqa: BLE001 — a rule SymPy cannot apply here shows nothing
        return None, None, Decision(None, f"applying {rule.name} raised {type(exc).__name__}: {str(exc)[:120]}")
    if not ok:
        return None, None, Decision(None, f"applying {rule.name} ran out of time", timed_out=True)
    if not _trusted(rule):
        for before, after in ((prev, target),) + (((cur, new_cur),) if rule.both_sides else ()):
            if after == before:
                continue
            d = zero_test(difference(before, after), pctx, attempt_s, step_s)
            if d.value is not True:
                return None, None, Decision(d.value if d.value is False else None,
                                            f"the rule {rule.name!r} changes the expression: its output is "
                                            f"not shown equal to its input ({d.how})", d.counterexample,
                                            timed_out=d.timed_out)
    return target, new_cur, None


def check_part(part: Part, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S,
               step_s: float = DEFAULT_STEP_S, proved: tuple = (), names: tuple = ()) -> PartResult:
    """Check every link of ``part`` under its hypotheses; the part is proved only if every link is.

    ``proved`` are the claim's parts proved so far, ``((name, statement, hypotheses), ...)``: the
    only ones a lemma may cite. ``names`` are all the claim's part names (for the error message)."""
    given = hyp.hypotheses(part, ctx)
    pctx = Context(ctx.indices, ctx.sample, ctx.definitions, given)
    symbols = set(getattr(part.lhs, "free_symbols", set())) | set(getattr(part.rhs, "free_symbols", set()))
    for h in given:
        symbols |= getattr(h, "free_symbols", set())
    claim_wide = tuple(hyp.range_hypothesis(v, lo, hi) for v, lo, hi in ctx.indices)
    env = rules.Env(given, tuple(proved), frozenset(symbols), tuple(names), claim_wide)
    results = [StepResult(part.name, 0, part.steps[0].expr, part.steps[0].reason, "", None, "")]
    prev = part.steps[0].expr
    for n, step in enumerate(part.steps[1:], start=1):
        target, current = prev, step.expr
        rule_name = step.rule.name if step.rule is not None else ""
        if step.rule is not None:
            target, current, refusal = _apply_rule(step.rule, prev, step.expr, env, pctx, attempt_s, step_s)
            if refusal is not None:
                results.append(StepResult(part.name, n, step.expr, step.reason, rule_name, refusal, step.relation))
                prev = step.expr
                continue
        d = relation_test(target, current, step.relation, pctx, attempt_s, step_s)
        results.append(StepResult(part.name, n, step.expr, step.reason, rule_name, d, step.relation))
        prev = step.expr
    notes = []
    statuses = [r.status for r in results[1:]]
    status = "refuted" if "refuted" in statuses else "inconclusive" if "inconclusive" in statuses else "proved"
    for sym in part.free_of:
        if part.rhs.has(sym):
            status = "refuted"
            notes.append(f"the result depends on {sym}, but the claim says it does not")
        else:
            notes.append(f"the result does not contain {sym}")
    general, why = hyp.generality(part, ctx)
    notes.append(f"general: {why}")
    if part.general is not None and bool(part.general) != (general is True):
        status = "error"
        notes.append(f"declared general={part.general}, but the computed generality is {general} ({why})")
    return PartResult(part.name, part.statement, general, status, tuple(results), tuple(notes),
                      part.relation, given + hyp.relied_on(part, ctx))


def check_parts(parts, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S,
                step_s: float = DEFAULT_STEP_S) -> tuple[PartResult, ...]:
    """Check the parts of a claim in order; a lemma may cite a part proved before it."""
    names = tuple(p.name for p in parts)
    proved: list = []
    out = []
    for p in parts:
        r = check_part(p, ctx, attempt_s, step_s, tuple(proved), names)
        if r.status == "proved":
            proved.append((p.name, p.statement, r.given))
        out.append(r)
    return tuple(out)


def replay(part: Part, lhs, attempt_s: float = DEFAULT_ATTEMPT_S):
    """Apply the part's rules, in order, to another left-hand side (algebra steps keep it as is).

    This is how a mutant that changes a part's left-hand side is derived with the same machinery.
    """
    e = lhs
    for step in part.steps[1:]:
        if step.rule is not None:
            ok, e = attempt(lambda: step.rule.apply(e), attempt_s)
            if not ok:
                return None
    return e
