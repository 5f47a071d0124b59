"""The decision procedures: is ``a − b`` identically zero, is ``e ≥ 0``? Three answers, kept distinct.

:func:`zero_test` answers ``True`` (shown zero by a named strategy), ``False`` (a concrete point
satisfying the part's hypotheses where the difference is nonzero, evaluated to 50 digits, relative
threshold ``tolerance.STEP_REL`` = 1e-12) or ``None`` (no strategy succeeded within its budget; a SymPy exception makes that
strategy undecided and is recorded in the decision's ``notes``). :func:`sign_test` does the same for
``e ≥ 0`` (``e > 0``) with the sign rules of :mod:`mathcheck.symbolic.signs`; :func:`relation_test`
dispatches on ``= >= > <= <``.

The strategies (:class:`Strategy`, in the order :func:`plan` gives) encode what is known to work on
this kind of mathematics: targeted strategies run first, cheapest first; KroneckerDelta sums collapse
with ``deltasummation`` (plain ``doit`` leaves a ``Piecewise``); sums over the same range are combined
into one before ``expand_log`` or ``expand(trig=True)`` is applied to the summand; the counterexample
search runs before ``simplify``, so a false step costs milliseconds, not ``simplify``'s minutes. Every
attempt runs under :func:`mathcheck.budget.attempt`, which really stops SymPy.

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> zero_test(sp.log(2 * x) - sp.log(2) - sp.log(x)).value
    True
    >>> zero_test(sp.log(2 * x) - sp.log(x)).value
    False
    >>> sign_test(x - 1 - sp.log(x)).value
    True
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from enum import Enum
from typing import Callable

from mathcheck.budget import attempt
from mathcheck.claim import Context
from mathcheck.lazy import sympy as sp
from mathcheck.numeric import PRECISION_DIGITS
from mathcheck.numeric.construct import draw, sample_value, size_symbols
from mathcheck.numeric.holds import is_definition
from mathcheck.numeric.tolerance import HP_REL, STEP_REL
from mathcheck.symbolic import cases
from mathcheck.symbolic import hypotheses as hyp
from mathcheck.symbolic.context import index_ranges
from mathcheck.symbolic.signs import by_structure
from mathcheck.symbolic.sums import canonical_sums, combine_sums, delta_substitute, eval_deltas, pull_sums

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


# --- the strategy table -------------------------------------------------------------------------


class Strategy(Enum):
    """A rewriting the zero test tries on a difference; its value is the ``how`` a Decision prints."""

    STRUCTURAL = "structural"
    EXPAND = "expand"
    DOIT_EXPAND = "doit+expand"
    COLLAPSE_DELTAS = "expand, collapse Kronecker-delta sums, doit, cancel"
    TOGETHER_CANCEL = "together+cancel"
    DELTA_SUBSTITUTION = "Kronecker delta substitution"
    SUMS_NORMALISED = "sums normalised (independent factors out, bound variables renamed)"
    EXPAND_LOG = "expand_log on combined sums"
    TRIG = "trig expansion on combined sums"
    COMMON_DENOMINATOR = "numerator over a common denominator, expanded"
    REWRITE_EXP = "rewrite(exp)+cancel"


COUNTEREXAMPLE = "counterexample"  # the ``how`` of a refutation, and the search's place in a plan
SIMPLIFY = "simplify"  # the last attempt of every plan
USING_HYPOTHESES = ", using the hypotheses"  # appended to a strategy run on the rewritten difference
PROVED_BY = "provers"  # the place of the PROVERS in a plan (their Decision names the one that showed it)


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


#: Each strategy as ``fn(e, ranges)``: ``ranges`` are the index ranges the hypotheses give.
REWRITE: dict[Strategy, Callable] = {
    Strategy.STRUCTURAL: lambda e, r: e,
    Strategy.EXPAND: lambda e, r: sp.expand(e),
    Strategy.DOIT_EXPAND: lambda e, r: sp.expand(e.doit()),
    Strategy.COLLAPSE_DELTAS: lambda e, r: sp.cancel(sp.expand(eval_deltas(sp.expand(e), r)).doit()),
    Strategy.TOGETHER_CANCEL: lambda e, r: sp.cancel(sp.together(e.doit())),
    Strategy.DELTA_SUBSTITUTION: lambda e, r: sp.expand(delta_substitute(eval_deltas(sp.expand(e), r))),
    Strategy.SUMS_NORMALISED: lambda e, r: sp.cancel(sp.expand(canonical_sums(pull_sums(eval_deltas(e, r))))),
    Strategy.EXPAND_LOG: lambda e, r: _on_summands(_expand_log)(e),
    Strategy.TRIG: lambda e, r: _on_summands(_trig)(e),
    Strategy.COMMON_DENOMINATOR: lambda e, r: sp.expand(sp.numer(sp.together(e))),
    Strategy.REWRITE_EXP: lambda e, r: _exp(e.doit()),
}

_CHEAP = (Strategy.STRUCTURAL, Strategy.EXPAND)
_TARGETED = (  # (does e call for them, the strategies), in this order
    (lambda e: e.has(sp.sin, sp.cos, sp.tan), (Strategy.TRIG,)),
    (lambda e: e.has(sp.log), (Strategy.EXPAND_LOG,)),
    (
        lambda e: e.has(sp.KroneckerDelta) or e.has(sp.Sum),
        (Strategy.COLLAPSE_DELTAS, Strategy.DELTA_SUBSTITUTION, Strategy.SUMS_NORMALISED),
    ),
)
_AFTER_HYPOTHESES = (Strategy.EXPAND, Strategy.DOIT_EXPAND, Strategy.TOGETHER_CANCEL, Strategy.SUMS_NORMALISED)


def plan(e, hypotheses: tuple = ()) -> list[tuple[str, Callable | None]]:
    """The order of attempts for ``e`` as ``(how, fn)``: cheap ones, those its functions call for,
    the counterexample search (``fn`` None), the remaining strategies, the same cheap ones after
    using the part's hypotheses (``…, using the hypotheses``), ``simplify``, then the
    :data:`PROVERS` (:func:`by_provers`, ``how`` :data:`PROVED_BY`).

    ``doit`` on a Sum of trigonometric terms can run for minutes (it tries closed forms), so the
    strategy that fits the expression runs before the generic ones, and a false step is caught by
    the counterexample search before any costly attempt.

        >>> [how for how, _ in plan(sp.Symbol("x"))][:3]
        ['structural', 'expand', 'counterexample']
    """
    chosen = list(_CHEAP)
    for applies, targeted in _TARGETED:
        if applies(e):
            chosen += [s for s in targeted if s not in chosen]
    out: list = [(s.value, REWRITE[s]) for s in chosen]
    out.append((COUNTEREXAMPLE, None))
    out += [(s.value, REWRITE[s]) for s in Strategy if s not in chosen]
    rewritten = use_hypotheses(e, hypotheses)
    if rewritten is not None:
        out += [
            (s.value + USING_HYPOTHESES, (lambda e, r, fn=REWRITE[s], x=rewritten: fn(x, r))) for s in _AFTER_HYPOTHESES
        ]
    return out + [(SIMPLIFY, lambda e, r: sp.simplify(e)), (PROVED_BY, None)]


# --- the provers: strategies that decide the relation themselves ---------------------------------


@dataclass(frozen=True)
class Prover:
    """A strategy that shows ``e = 0`` (``rel`` "=") or ``e ≥ 0`` (">=") itself, rather than
    rewriting ``e`` for the zero test: ``fn(e, rel, hypotheses)`` returns how it showed it (a
    string, e.g. the regions of a case split), True (then ``name`` says how) or a falsy value.
    It runs only where ``applies(e, hypotheses)``, within ``share`` of the budget left.

        >>> x, y = sp.symbols("x y", real=True)
        >>> by_provers(sp.Max(x, y) + sp.Min(x, y) - x - y, "=").how
        'piecewise (Max/Min/Abs by cases)'
    """

    name: str
    relations: tuple  # of "=" and ">="
    applies: Callable
    fn: Callable
    share: float = 1.0


_PIECEWISE = (sp.Max, sp.Min, sp.Abs, sp.Heaviside)

#: THE list of provers, in the order they run: after ``simplify`` in :func:`plan`, after the sign
#: rules in :func:`sign_test` (symbolic/cases.py has their code). A new proving strategy is one
#: entry here (or, for a rewriting, a ``Strategy`` member with its ``REWRITE`` entry).
PROVERS: list[Prover] = [
    Prover(
        "piecewise (Max/Min/Abs by cases)",
        ("=",),
        lambda e, h: e.has(sp.Max, sp.Min, sp.Abs),
        lambda e, rel, h: cases.piecewise_zero(e),
    ),
    Prover(
        "special functions in elementary form",
        ("=",),
        lambda e, h: e.has(sp.asinh, sp.acosh, sp.atanh, sp.erfc, sp.loggamma, sp.gamma),
        lambda e, rel, h: cases.special_zero(e),
    ),
    Prover(
        "case split",
        ("=", ">="),
        lambda e, h: e.has(*_PIECEWISE),
        lambda e, rel, h: cases.by_cases(e, sp.Integer(0), rel, h),
        share=0.5,
    ),
    Prover(
        "the given equations substituted",
        ("=",),
        lambda e, h: any(isinstance(g, sp.Equality) for g in h),
        lambda e, rel, h: cases.given_substituted(e, h),
        share=0.3,
    ),
    Prover(
        "sums peeled to a common range (Karr's convention)",
        ("=",),
        lambda e, h: e.has(sp.Sum, sp.Product),
        lambda e, rel, h: cases.peeled(e),
        share=0.5,
    ),
    Prover(
        "closed form under the hypotheses",
        ("=",),
        lambda e, h: e.has(sp.Sum, sp.Product),
        lambda e, rel, h: cases.closed(e, h),
    ),
]


def by_provers(e, rel: str = "=", hypotheses: tuple = (), seconds: float = DEFAULT_STEP_S, provers=None) -> Decision:
    """``e = 0`` (``rel`` "=") or ``e ≥ 0`` (">=") shown by the first of ``provers`` (default
    :data:`PROVERS`) that applies and succeeds, each within its ``share`` of the time left: True, or
    None (a prover never refutes). A SymPy exception makes that prover undecided (in ``notes``)."""
    start = time.perf_counter()
    notes: list[str] = []
    timed_out = False
    hypotheses = tuple(hypotheses)
    for p in PROVERS if provers is None else provers:
        left = seconds - (time.perf_counter() - start)
        if rel not in p.relations or not p.applies(e, hypotheses):
            continue
        if left <= 0:
            timed_out = True
            break
        try:
            ok, how = attempt(lambda: p.fn(e, rel, hypotheses), max(left * p.share, 0.1))
        except Exception as exc:  # noqa: BLE001 — SymPy failing inside a prover shows nothing
            notes.append(_raised(p.name, exc))
            continue
        timed_out |= not ok
        if ok and how:
            return Decision(
                True, how if isinstance(how, str) else p.name, seconds=time.perf_counter() - start, notes=tuple(notes)
            )
    return Decision(
        None, "no prover showed it", seconds=time.perf_counter() - start, timed_out=timed_out, notes=tuple(notes)
    )


def use_hypotheses(e, hypotheses: tuple) -> sp.Basic | None:
    """``e`` rewritten with the part's hypotheses, or None when none applies: an equation
    ``x = v`` replaces ``x`` (bound variables renamed first, so Σ_j p_j matches Σ_i p_i), and a
    hypothesis ``X > 0`` (``X ≥ 0``) replaces a compound ``X`` by a positive (nonnegative) variable,
    which is sound: what holds for every such variable holds for X."""
    out = canonical_sums(e)
    for h in hypotheses:
        if is_definition(h):
            continue
        if isinstance(h, sp.Equality):
            lhs, rhs = canonical_sums(h.lhs), canonical_sums(h.rhs)
            if lhs.is_number and not rhs.is_number:
                lhs, rhs = rhs, lhs
            if isinstance(lhs, sp.Sum) and not out.has(lhs):
                # given Σ_j y_j = 1, the difference holds Σ_j y_j·c, or the sum under a derivative: the
                # derivative taken and each sum split over its terms, the factors free of its index pulled
                # out (identities), so Σ_j y_j stands alone where it is there (d2l's one-hot y:
                # Σ_j y_j log Σ_k e^{o_k} = log Σ_k e^{o_k}, and ∂/∂o_j of the cross-entropy)
                out = canonical_sums(pull_sums(out.doit() if out.has(sp.Derivative) else out))
            if not lhs.is_number:
                out = out.xreplace({lhs: rhs})
        elif (
            isinstance(h, (sp.StrictGreaterThan, sp.GreaterThan))
            and h.rhs == 0
            and not isinstance(h.lhs, (sp.Symbol, sp.Indexed))
        ):
            w = sp.Dummy("w", positive=True) if isinstance(h, sp.StrictGreaterThan) else sp.Dummy("w", nonnegative=True)
            out = out.xreplace({canonical_sums(h.lhs): w})
        elif isinstance(h, sp.Ne) and all(isinstance(x, sp.Symbol) and x.is_integer for x in (h.lhs, h.rhs)):
            # i != j of two integer indices: δ_ij = 0 (∂a_j/∂z_i = -a_i a_j, i ≠ j, of a softmax a)
            pair = {sp.KroneckerDelta(h.lhs, h.rhs), sp.KroneckerDelta(h.rhs, h.lhs)}
            out = (out.doit() if out.has(sp.Derivative) else out).replace(lambda x: x in pair, lambda x: sp.S.Zero)
    return None if out == canonical_sums(e) else out


def _is_zero(r) -> bool:
    if isinstance(r, sp.MatrixBase):
        return all(_is_zero(x) for x in r)
    return r == 0


# --- counterexamples ----------------------------------------------------------------------------

LARGE_SIZE = 8  # the last try of a counterexample search puts every dimension here


def _assign(e, ctx: Context, rng: random.Random, large: bool = False):
    """A point satisfying the part's hypotheses (``ctx.given``) and ``e`` evaluated there; with
    ``large``, every dimension at ``LARGE_SIZE`` (a statement may fail only beyond small sizes)."""
    sizes = {d: LARGE_SIZE for d in size_symbols([e], ctx)} if large else None
    point = draw([e], ctx.given, ctx, rng, sizes)
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
            values[idx] = sample_value(idx, rng, dict(ctx.sample).get(idx.base))
    return syms, concrete.xreplace(values), values


def _nonzero(v: float, scale: float) -> bool:
    return abs(v) > STEP_REL * scale


def find_counterexample(
    e, ctx: Context = Context(), tries: int = 8, seed: int = 0, bad=_nonzero
) -> tuple[tuple[str, str], ...] | None:
    """A point where ``bad(value, scale)`` holds beyond doubt (evaluated to ``numeric.PRECISION_DIGITS``
    = 50 digits), or None. The point is the numeric kernel's constructive draw.

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
            v = sp.N(entry, PRECISION_DIGITS)
            if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
                continue
            scale = max(
                [1.0]
                + [
                    abs(complex(sp.N(t, 20)))
                    for t in sp.Add.make_args(entry)
                    if sp.N(t, 20).is_number and sp.N(t, 20).is_finite
                ]
            )
            z = complex(v)
            if bad is _nonzero:
                value = abs(z)
            elif abs(z.imag) > HP_REL * scale:
                # a sign is claimed of a real number: a value that is not real refutes it (a side
                # not real on the whole domain, e.g. log(x)² at x = −1, issue 21)
                value = -float("inf")
            else:  # an imaginary part of round-off size: the value is real, kept at 50 digits (a float
                # underflows: exp(-1000·x⁴) at x ≈ 1.6 is 1.4e-2693, not 0)
                value = sp.re(v)
            if bad(value, scale):
                shown = {str(k): str(val) for k, val in point.items()}
                shown.update({str(k): str(val) for k, val in values.items()})
                shown["difference"] = sp.sstr(sp.N(v, 12))
                return tuple(shown.items())
    return None


# --- the zero test ------------------------------------------------------------------------------


def zero_test(
    e, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S, total_s: float = DEFAULT_STEP_S
) -> Decision:
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
        return _matrix_zero_test(
            sp.Matrix(e.doit()) if not isinstance(e, sp.MatrixBase) else e, ctx, attempt_s, total_s
        )
    rng = index_ranges(ctx)
    notes: list[str] = []
    for name, strategy in plan(e, ctx.given):
        if name == PROVED_BY:  # the provers, last: each decides the relation itself
            if left() <= 0:
                timed_out = True
                break
            d = by_provers(e, "=", ctx.given, left())
            notes += d.notes
            timed_out |= d.timed_out
            if d.value:
                return Decision(True, d.how, seconds=time.perf_counter() - start, notes=tuple(notes))
            continue
        if strategy is None:  # the counterexample search, placed before the costly strategies
            try:
                ok, cex = run(lambda: find_counterexample(e, ctx))
            except Exception as exc:  # noqa: BLE001 — SymPy failing to evaluate decides nothing
                notes.append(_raised(COUNTEREXAMPLE, exc))
                ok, cex = True, None
            if ok and cex:
                return Decision(False, COUNTEREXAMPLE, cex, time.perf_counter() - start, notes=tuple(notes))
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


# --- the sign test (for ≥ and > links) ------------------------------------------------------------


class SignForm(Enum):
    """A form of ``e`` the sign rules are tried on; its value is the ``how`` a Decision prints."""

    STRUCTURE = "sign from structure"
    EXPAND = "sign after expand"
    FACTOR = "sign after factor"
    COMBINED_SUM = "sign of the combined sum"
    CANCEL = "sign after cancel"


FORM: dict[SignForm, Callable] = {
    SignForm.STRUCTURE: lambda e: e,
    SignForm.EXPAND: lambda e: sp.expand(e),
    SignForm.FACTOR: lambda e: sp.factor(e),
    SignForm.COMBINED_SUM: lambda e: combine_sums(e),
    SignForm.CANCEL: lambda e: sp.cancel(sp.together(e)),
}


def sign_test(
    e,
    ctx: Context = Context(),
    strict: bool = False,
    attempt_s: float = DEFAULT_ATTEMPT_S,
    total_s: float = DEFAULT_STEP_S,
) -> Decision:
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
    forms = [(f.value, f, e) for f in SignForm]
    if rewritten is not None:
        forms += [(f.value + USING_HYPOTHESES, f, rewritten) for f in SignForm]
    tried: set = set()

    def shown_by(form, x) -> bool:
        # forms often coincide (a product is its own expansion and factoring): the structural rules,
        # SymPy's `minimum` above all (~1 s each), run once per distinct expression
        f = FORM[form](x)
        if f in tried:
            return False
        tried.add(f)
        return by_structure(f, strict, rng=ranges)

    # the counterexample search first: it is cheap beside the structural rules (SymPy's `minimum`
    # above all), and a false statement needs none of them
    # refuted only where the value surely breaks the relation: negative beyond the search's threshold,
    # or (strict) exactly zero. A positive value however small is no counterexample to ``e > 0``:
    # 50 digits are relative, so exp(-100·x²) at x ≈ 1.6 evaluates to 7e-109, not to zero
    bad = (lambda v, scale: v < -STEP_REL * scale or v == 0) if strict else (lambda v, scale: v < -STEP_REL * scale)
    try:
        ok, cex = attempt(lambda: find_counterexample(e, ctx, bad=bad), min(attempt_s, total_s))
    except Exception as exc:  # noqa: BLE001
        notes.append(_raised(COUNTEREXAMPLE, exc))
        ok, cex = True, None
    timed_out |= not ok
    if ok and cex:
        return Decision(False, COUNTEREXAMPLE, cex, time.perf_counter() - start, notes=tuple(notes))
    for name, form, x in forms:
        budget_left = total_s - (time.perf_counter() - start)
        if budget_left <= 0:
            timed_out = True
            break
        try:
            ok, shown = attempt(lambda: shown_by(form, x), min(attempt_s, budget_left))
        except Exception as exc:  # noqa: BLE001
            # a rule that does not apply (SymPy's `minimum` raises on log x − x + 1) must not end
            # the search: the next form may show it
            notes.append(_raised(name, exc))
            ok, shown = True, False
        timed_out |= not ok
        if ok and shown:
            return Decision(True, name, seconds=time.perf_counter() - start, notes=tuple(notes))
    budget_left = total_s - (time.perf_counter() - start)
    if not strict and budget_left > 0:  # the provers, last (none decides a strict relation)
        d = by_provers(e, ">=", ctx.given, budget_left)
        notes += d.notes
        timed_out |= d.timed_out
        if d.value:
            return Decision(True, d.how, seconds=time.perf_counter() - start, notes=tuple(notes))
    elif not strict:
        timed_out = True
    why = "time budget ran out" if timed_out else "no rule showed the sign and no counterexample was found"
    return Decision(None, why, seconds=time.perf_counter() - start, timed_out=timed_out, notes=tuple(notes))


def relation_test(
    lhs, rhs, rel: str, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S, total_s: float = DEFAULT_STEP_S
) -> Decision:
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
            return Decision(False, f"counterexample (entry {r},{c})", d.counterexample, time.perf_counter() - start)
        decisions.append(d)
    if all(d.value for d in decisions):
        hows = sorted({d.how for d in decisions})
        return Decision(True, "entrywise: " + ", ".join(hows), seconds=time.perf_counter() - start)
    return Decision(
        None,
        "some entries undecided",
        seconds=time.perf_counter() - start,
        timed_out=any(d.timed_out for d in decisions),
    )


def difference(a, b) -> sp.Expr | sp.Matrix:
    if (
        isinstance(a, sp.MatrixBase)
        or isinstance(b, sp.MatrixBase)
        or getattr(a, "is_Matrix", False)
        or getattr(b, "is_Matrix", False)
    ):
        return sp.Matrix(sp.Matrix(a.doit()) - sp.Matrix(b.doit()))
    return a - b
