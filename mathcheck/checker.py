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

from mathcheck.budget import attempt
from mathcheck.claim import Context, Part
from mathcheck.lazy import sympy as sp

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


def eval_deltas(e):
    """Collapse every sum over a KroneckerDelta, innermost first, assuming indices lie in range."""
    from sympy.concrete.delta import deltasummation

    def collapse(x):
        if isinstance(x, sp.Sum) and x.has(sp.KroneckerDelta):
            f = x.function
            for lim in x.limits:
                f = deltasummation(sp.expand(f), lim, no_piecewise=True) if f.has(sp.KroneckerDelta) \
                    else sp.Sum(f, lim)
            return f
        return x

    return _bottom_up(e, collapse)


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
    ("structural", lambda e: e),
    ("expand", lambda e: sp.expand(e)),
    ("doit+expand", lambda e: sp.expand(e.doit())),
    ("expand, collapse Kronecker-delta sums, doit, cancel", lambda e: sp.cancel(sp.expand(eval_deltas(sp.expand(e))).doit())),
    ("together+cancel", lambda e: sp.cancel(sp.together(e.doit()))),
    ("Kronecker delta substitution", lambda e: sp.expand(delta_substitute(eval_deltas(sp.expand(e))))),
    ("sums normalised (independent factors out, bound variables renamed)",
     lambda e: sp.cancel(sp.expand(canonical_sums(pull_sums(eval_deltas(e)))))),
    ("expand_log on combined sums", _on_summands(_expand_log)),
    ("trig expansion on combined sums", _on_summands(_trig)),
    ("numerator over a common denominator, expanded", lambda e: sp.expand(sp.numer(sp.together(e)))),
    ("rewrite(exp)+cancel", lambda e: _exp(e.doit())),
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


def plan(e) -> list[tuple[str, Callable | None]]:
    """The order of attempts for ``e``: cheap ones, those its functions call for, the
    counterexample search (``None``), the remaining strategies, ``simplify`` last.

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
    return out + [("simplify", sp.simplify)]


def _is_zero(r) -> bool:
    if isinstance(r, sp.MatrixBase):
        return all(_is_zero(x) for x in r)
    return r == 0


# --- counterexamples ----------------------------------------------------------------------------

def _sample_value(sym, rng: random.Random, hint=None):
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


def _basic(x):
    """Our own numbers and expressions as SymPy objects (no string ever reaches this)."""
    return sp.Integer(x) if isinstance(x, int) else x


def _dimension_symbols(e, ctx: Context) -> list:
    """Integer symbols that bound a Sum or an index range: the dimensions of the claim."""
    index_syms = {lim[0] for lim in ctx.indices}
    dims = set()
    for s in e.atoms(sp.Sum):
        for _, a, b in s.limits:
            dims |= (_basic(a).free_symbols | _basic(b).free_symbols)
    for _, lo, hi in ctx.indices:
        dims |= (_basic(lo).free_symbols | _basic(hi).free_symbols)
    return sorted((d for d in dims if d not in index_syms), key=str)


def _assign(e, ctx: Context, rng: random.Random):
    hints = dict(ctx.sample)
    point: dict = {}
    for d in _dimension_symbols(e, ctx):
        point[d] = sp.Integer(rng.randint(1, 3)) if d.is_positive else sp.Integer(rng.randint(0, 3))
    free = e.free_symbols
    for sym, lo, hi in ctx.indices:
        if sym not in free:  # a bound summation variable of the same name is not ours to set
            continue
        lo_v, hi_v = (_basic(lo).xreplace(point), _basic(hi).xreplace(point))
        if not (lo_v.is_Integer and hi_v.is_Integer) or hi_v < lo_v:
            return None
        point[sym] = sp.Integer(rng.randint(int(lo_v), int(hi_v)))
    # Differentiate before substituting: d/dT at T = 2 is not d/d2. (doit() on the whole expression
    # could try closed forms of symbolic sums for minutes; derivatives alone are cheap.)
    e = e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit())
    labels = {b.label for b in e.atoms(sp.IndexedBase)}
    for sym in sorted(e.free_symbols - set(point) - labels, key=str):
        if isinstance(sym, sp.Symbol):
            point[sym] = _sample_value(sym, rng, hints.get(sym))
    concrete = e.xreplace(point).doit()
    values = {}
    for idx in sorted(concrete.atoms(sp.Indexed), key=str):
        values[idx] = _sample_value(idx, rng, hints.get(idx.base))
    return point, concrete.xreplace(values), values


def _nonzero(v: float, scale: float) -> bool:
    return abs(v) > 1e-12 * scale


def find_counterexample(e, ctx: Context = Context(), tries: int = 8, seed: int = 0, bad=_nonzero):
    """A point where ``bad(value, scale)`` holds beyond doubt (40-digit evaluation), or None.

    By default: where ``e`` is nonzero. :func:`sign_test` passes "is negative"."""
    rng = random.Random(seed)
    for _ in range(tries):
        assigned = _assign(e, ctx, rng)
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
            if not v.is_real:
                if bad is not _nonzero:
                    continue
                value = abs(complex(v))
            else:
                value = float(v)
            scale = max([1.0] + [abs(float(sp.N(t, 20))) for t in sp.Add.make_args(entry)
                                 if sp.N(t, 20).is_number and sp.N(t, 20).is_finite and sp.N(t, 20).is_real])
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
    for definition in ctx.definitions:
        e = definition.apply(e)

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
    for name, strategy in plan(e):
        if strategy is None:  # the counterexample search, placed before the costly strategies
            try:
                ok, cex = run(lambda: find_counterexample(e, ctx))
            except (TypeError, ValueError, NotImplementedError, AttributeError, ZeroDivisionError):
                ok, cex = True, None
            if ok and cex:
                return Decision(False, "counterexample", cex, time.perf_counter() - start)
            continue
        try:
            ok, r = run(lambda: strategy(e))
        except (TypeError, ValueError, NotImplementedError, AttributeError, RecursionError,
                ZeroDivisionError):
            continue  # a strategy that does not apply to this expression
        if ok and r is not None and _is_zero(r):
            return Decision(True, name, seconds=time.perf_counter() - start)
    why = "time budget ran out" if timed_out else "no strategy showed it zero and no counterexample was found"
    return Decision(None, why, seconds=time.perf_counter() - start, timed_out=timed_out)


# --- the sign test (for ≥ and > links) ------------------------------------------------------------

def _domain(sym):
    if sym.is_positive:
        return sp.Interval.open(0, sp.oo)
    if sym.is_nonnegative:
        return sp.Interval(0, sp.oo)
    if sym.is_negative:
        return sp.Interval.open(-sp.oo, 0)
    return sp.S.Reals if sym.is_real else None


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
    x = v if isinstance(v, sp.Symbol) else sp.Dummy("x", positive=bool(v.is_positive), real=True)
    domain = _domain(x if x is not v else v) if isinstance(v, sp.Symbol) else _domain(x)
    if domain is None:
        return None
    try:
        m = minimum(e.xreplace({v: x}), x, domain)
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


def _nonneg(e, strict: bool, divide: bool = True) -> bool:
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
        if all(_nonneg(t, False, divide) for t in e.args):
            return not strict or any(_nonneg(t, True, divide) for t in e.args)
        if divide:  # a positive factor v: e ≥ 0 ⇔ e/v ≥ 0 (p_i(q_i/p_i − 1 − log(q_i/p_i)))
            for v in _positive_atoms(e):
                if _nonneg(sp.logcombine(sp.expand(e / v)), strict, divide=False):
                    return True
    if isinstance(e, sp.Mul):
        negatives = [f for f in e.args if f.is_negative]
        others = [f for f in e.args if not f.is_negative]
        if len(negatives) % 2 == 0 and all(_nonneg(f, strict, divide) for f in others):
            return True
    if isinstance(e, sp.Pow) and e.exp.is_integer and e.exp.is_even and e.base.is_real and not strict:
        return True
    if isinstance(e, sp.Pow) and e.exp.is_real and _nonneg(e.base, strict, divide):
        return True
    if isinstance(e, sp.Sum) and len(e.limits) == 1:
        (_, a, b), = e.limits
        if _nonneg(e.function, strict, divide) and (not strict or (b - a).is_nonnegative):
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
    for definition in ctx.definitions:
        e = definition.apply(e)
    for name, form in SIGN_STRATEGIES:
        budget_left = total_s - (time.perf_counter() - start)
        if budget_left <= 0:
            timed_out = True
            break
        try:
            ok, shown = attempt(lambda: _nonneg(form(e), strict), min(attempt_s, budget_left))
        except (TypeError, ValueError, NotImplementedError, AttributeError, RecursionError, ZeroDivisionError):
            # a rule that does not apply (SymPy's `minimum` raises on log x − x + 1) must not skip
            # the counterexample search below
            ok, shown = True, False
        timed_out |= not ok
        if ok and shown:
            return Decision(True, name, seconds=time.perf_counter() - start)
        if ok and name == "sign from structure":
            bad = (lambda v, scale: v <= 1e-30) if strict else (lambda v, scale: v < -1e-12 * scale)
            try:
                ok, cex = attempt(lambda: find_counterexample(e, ctx, bad=bad), min(attempt_s, budget_left))
            except (TypeError, ValueError, NotImplementedError, AttributeError, ZeroDivisionError):
                ok, cex = True, None
            if ok and cex:
                return Decision(False, "counterexample", cex, time.perf_counter() - start)
    why = "time budget ran out" if timed_out else "no rule showed the sign and no counterexample was found"
    return Decision(None, why, seconds=time.perf_counter() - start, timed_out=timed_out)


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
    general: bool
    status: str
    steps: tuple[StepResult, ...]
    notes: tuple[str, ...] = field(default=())
    relation: str = "="

    @property
    def failing(self) -> StepResult | None:
        for s in self.steps:
            if s.status in ("refuted", "inconclusive"):
                return s
        return None


def _has_symbolic_dimension(statement, ctx: Context) -> bool:
    for definition in ctx.definitions:  # H(p) hides its Σ_{i=1}^{n} until unfolded
        statement = definition.apply(statement)
    return bool(_dimension_symbols(statement, ctx))


def check_part(part: Part, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S,
               step_s: float = DEFAULT_STEP_S) -> PartResult:
    """Check every link of ``part``; the part is proved only if every link is."""
    results = [StepResult(part.name, 0, part.steps[0].expr, part.steps[0].reason, "", None, "")]
    prev = part.steps[0].expr
    for n, step in enumerate(part.steps[1:], start=1):
        target, current = prev, step.expr
        if step.rule is not None:
            ok, target = attempt(lambda: step.rule.apply(prev), attempt_s)
            if ok and step.rule.both_sides:
                ok, current = attempt(lambda: step.rule.apply(step.expr), attempt_s)
            if not ok:
                d = Decision(None, f"applying {step.rule.name} ran out of time", timed_out=True)
                results.append(StepResult(part.name, n, step.expr, step.reason, step.rule.name, d,
                                          step.relation))
                prev = step.expr
                continue
        d = relation_test(target, current, step.relation, ctx, attempt_s, step_s)
        results.append(StepResult(part.name, n, step.expr, step.reason,
                                  step.rule.name if step.rule is not None else "", d, step.relation))
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
    if part.general and not _has_symbolic_dimension(part.statement, ctx):
        status = "inconclusive" if status == "proved" else status
        notes.append("marked general, but the statement has no symbolic dimension")
    return PartResult(part.name, part.statement, part.general, status, tuple(results), tuple(notes),
                      part.relation)


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
