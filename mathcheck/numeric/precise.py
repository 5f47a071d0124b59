"""The mpmath backend, at ``PRECISION_DIGITS`` (50): high-precision values at a sampled point.

Two routes, one precision: :func:`hp_value` (SymPy's ``evalf``, which simplifies what it can, and
derivatives by SymPy's ``diff``) and :class:`PreciseEvaluator` (the walker of
:mod:`mathcheck.numeric.expressions` with :class:`MpmathBackend`: the expression as written, with the
function table's ``mpmath`` implementations).

This is what confirms a counterexample: a float64 disagreement counts only once the 50-digit
values differ by more than ``HP_REL`` relative, so round-off never refutes a true identity, and a
false identity that agrees to 1e-15 is still caught. A derivative is taken by SymPy's ``diff`` and
the result evaluated to 50 digits; only where SymPy leaves it unevaluated is it taken by
``mpmath.diff``, twice at different steps, and a derivative the two do not agree on is undecided
(``sin(10**60*x)`` needs a step far below mpmath's default), never a refutation. Values are compared
over ℂ with principal branches: ``log(x*y)`` and ``log(x) + log(y)`` differ at ``x = y = −1``.
An order relation (``<=`` …) is about real numbers: a side with an imaginary part beyond ``HP_REL``
violates it, and an imaginary part within ``HP_REL`` is round-off and dropped (``log(x)**2 >= 0``
fails at ``x = −1``, where the left side is −π²).

    >>> from mathcheck.parser import parse_many
    >>> a, b = parse_many(["exp(x)", "exp(x)*(1 + 1e-15)"])
    >>> x = next(iter(a.free_symbols))
    >>> hp_compare(a, b, {x: 0.5})[0]
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, NoReturn

from mathcheck.lazy import sympy as sp
from mathcheck.numeric import PRECISION_DIGITS, functions
from mathcheck.numeric.sampling import exact, lookup
from mathcheck.numeric.tolerance import HP_REL, INTEGRAL_SHARE, INTEGRAL_UNRESOLVED, SCREEN_ATOL, SCREEN_RTOL
from mathcheck.numeric.expressions import Walker, loop_reduce

if TYPE_CHECKING:  # annotations only: mpmath is imported where it is used
    import mpmath
    from mpmath.ctx_mp_python import mpnumeric  # mpf, mpc and the constants (mpmath.pi is not an mpf)

SCREEN_DIGITS = 15  # the float64 screen's quadrature: its integrand is float64, so more digits would never converge


class Diverges(ValueError):
    """A definite integral without a value at this point: it diverges (``∫_1^∞ dx/x``), its integrand
    is undefined or not real on the range, or quadrature cannot resolve it within its tolerance."""


def screen_allowed(v: float | mpmath.mpf) -> float:
    """The error estimate a float64-screened integral may have (tolerance.INTEGRAL_SHARE of the screen)."""
    return INTEGRAL_SHARE * (SCREEN_ATOL + SCREEN_RTOL * abs(float(v)))


def hp_allowed(v: float | mpmath.mpf) -> float:
    """The error estimate a 50-digit integral may have (tolerance.INTEGRAL_SHARE of HP_REL)."""
    return INTEGRAL_SHARE * HP_REL * max(1.0, abs(float(v)))


def quadrature(
    walker: Walker, e: sp.Integral, allowed: Callable[[mpmath.mpf], float], guard: int | None = None
) -> mpmath.mpf:
    """``∫_a^b f dx`` (``e = Integral(f, (x, a, b))``) by mpmath's tanh-sinh quadrature at the working
    precision, the integrand walked by ``walker`` (an :class:`MpmathBackend`'s) with x bound to each
    node (``guard`` digits above the working precision; the float64 screen takes none, its integrand
    carrying no more). The value counts only where the quadrature's error estimate is within ``allowed(value)``;
    otherwise :class:`Diverges` — so a divergent integral never has a value (``∫_1^∞ dx/x``: mpmath
    returns ~44 with an estimate of 0.1–1, which no tolerance allows).

        >>> import mpmath
        >>> x = sp.Symbol("x", real=True)
        >>> mpmath.nstr(PreciseEvaluator({})(sp.Integral(x**2, (x, 0, 1))), 20)
        '0.33333333333333333333'
        >>> PreciseEvaluator({})(sp.Integral(1/x, (x, 1, sp.oo)))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        mathcheck.numeric.precise.Diverges: ∫ 1/x dx over [1, oo]: quadrature's error estimate ... (it diverges, ...)
    """
    import mpmath

    with mpmath.workdps(mpmath.mp.dps + (GUARD_DIGITS if guard is None else guard)):
        v = _quad(walker, e.function, e.limits, allowed)
    return +v  # rounded to the working precision


GUARD_DIGITS = 10  # quadrature's own working digits above the caller's: tanh-sinh loses some at an endpoint singularity


def _quad(walker, f, limits, allowed):
    """∫ over ``limits`` in SymPy's order (the first is the innermost), the last one by mpmath.quad."""
    import mpmath

    if not limits:
        return walker.ev(f)
    if len(limits[-1]) != 3:
        raise Diverges("an integral is evaluated with both limits")
    (var, lo_e, hi_e), inner = limits[-1], limits[:-1]
    lo, hi = (_end(walker, x) for x in (lo_e, hi_e))
    what = f"∫ {sp.sstr(sp.Integral(f, *inner)) if inner else sp.sstr(f)} d{var} over [{lo_e}, {hi_e}]"
    with walker.bind(var, None):

        def g(t):
            walker.env[var] = walker.backend.node(t)
            return _quad(walker, f, inner, allowed)

        try:
            ends = [lo, 0, hi] if lo == -mpmath.inf and hi == mpmath.inf else [lo, hi]  # ℝ: a third fewer nodes
            v, err = mpmath.quad(g, ends, error=True)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError) as exc:
            if isinstance(exc, Diverges):
                raise
            raise Diverges(f"{what}: the integrand has no value on the range ({type(exc).__name__})") from None
    if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
        raise Diverges(f"{what}: not a finite real number")
    if err > allowed(v) or err > INTEGRAL_UNRESOLVED:
        raise Diverges(
            f"{what}: quadrature's error estimate {mpmath.nstr(err, 2)} is above "
            f"{float(min(allowed(v), INTEGRAL_UNRESOLVED)):.1e} (it diverges, or quadrature cannot resolve it)"
        )
    return v


def _end(walker, x):
    import mpmath

    if x == sp.oo or x == -sp.oo:
        return mpmath.inf if x == sp.oo else -mpmath.inf
    v = walker.ev(x)
    v = mpmath.mpf(v) if isinstance(v, (int, float)) else v
    if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
        raise Diverges(f"a limit of integration, {x}, is not a finite real number here")
    return v


class NoLimit(Diverges):
    """A limit without a value at this point: the body's values near the point do not settle (it
    diverges, oscillates, differs from the two sides, or converges too slowly to tell)."""


LIMIT_STEPS = (20, 30, 40)  # the body evaluated at a ± 10^-k
LIMIT_AGREE = 1e-15  # relative: how close the six values must be for the limit to have a value


def approach(env: dict, e: sp.Limit, dps: int = PRECISION_DIGITS) -> mpmath.mpf:
    """``lim_{h→a} f`` (``e = Limit(f, h, a)``, two-sided) at the point ``env``: f evaluated with mpmath
    at ``a ± 10^-k`` for k in ``LIMIT_STEPS``, at ``dps + 60`` digits (so ``f(x + 10^-40) − f(x)`` keeps
    ``dps`` of them); the six values must agree within ``LIMIT_AGREE`` relative, else :class:`NoLimit` (a
    body without a real value there is a ``ValueError``: the point is outside its domain, and skipped).
    The value is the mean of the two closest (``a ± 10^-40``), whose error is O(10^-80) for a body
    smooth in h (the odd terms cancel) and O(10^-40) otherwise — far below any tolerance. Independent
    of SymPy's ``limit``: this is the numeric side's value of a limit.

        >>> import mpmath
        >>> h, x = sp.symbols("h x", real=True)
        >>> mpmath.nstr(approach({x: 0.5}, sp.Limit((sp.sin(x + h) - sp.sin(x)) / h, h, 0)), 15)
        '0.877582561890373'
        >>> approach({}, sp.Limit(sp.sin(1 / h), h, 0))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        mathcheck.numeric.precise.NoLimit: lim h→0 of sin(1/h): ...
    """
    import mpmath

    f, h, a = e.args[:3]
    what = f"lim {h}→{a} of {_short(f)}"
    with mpmath.workdps(dps + 60):
        w = Walker(MpmathBackend(dps + 60), dict(env))
        try:
            at = w.ev(a)
            values = []
            with w.bind(h, None):
                for k in LIMIT_STEPS:
                    for side in (1, -1):
                        w.env[h] = at + side * mpmath.mpf(10) ** (-k)
                        values.append(w.ev(f))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError) as exc:
            if isinstance(exc, Diverges):
                raise
            # outside the body's domain (x^x at x < 0): a point skipped, as any undefined value is
            raise ValueError(f"{what}: the body has no real value near the point ({type(exc).__name__})") from None
        if not all(isinstance(v, mpmath.mpf) and mpmath.isfinite(v) for v in values):
            raise ValueError(f"{what}: not a finite real number near the point")
        v = (values[-2] + values[-1]) / 2
        spread = max(abs(u - v) for u in values)
        if spread > LIMIT_AGREE * max(1, abs(v)):
            raise NoLimit(
                f"{what}: the values at {h} = {a} ± 10^-{LIMIT_STEPS[0]} … 10^-{LIMIT_STEPS[-1]} differ by "
                f"{mpmath.nstr(spread, 2)} (no limit, a one-sided one, or too slow to tell)"
            )
    return v  # at the digits it was computed with (+v would round it to the caller's, 15 by default)


def _short(e, limit: int = 80) -> str:
    s = sp.sstr(e)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _limits_valued(expr, env: dict, dps: int):
    """The outermost limits of ``expr`` replaced by their values at ``env`` (:func:`approach`), so no
    SymPy ``doit`` takes a limit behind our back."""
    outer = [
        i for i in expr.atoms(sp.Limit) if not any(o != i and i in o.atoms(sp.Limit) for o in expr.atoms(sp.Limit))
    ]
    if not outer:
        return expr
    return expr.xreplace({i: sp.Float(approach(env, i, dps), dps) for i in outer})


def _integrals_valued(expr, env: dict, dps: int):
    """The outermost integrals of ``expr`` replaced by their values at ``env`` (quadrature at ``dps``
    digits, within :func:`hp_allowed`), so no SymPy ``doit``/``evalf`` integrates behind our back."""
    outer = [
        i
        for i in expr.atoms(sp.Integral)
        if not any(o != i and i in o.atoms(sp.Integral) for o in expr.atoms(sp.Integral))
    ]
    if not outer:
        return expr
    w = Walker(MpmathBackend(dps), dict(env))
    return expr.xreplace({i: sp.Float(w(i), dps) for i in outer})


def take_derivatives(e: sp.Expr) -> sp.Expr:
    """SymPy's own derivatives taken (the symbolic side's view of ``diff``)."""
    return e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: sp.diff(x.expr, *x.variable_count))


def hp_value(e: sp.Expr, point: dict) -> sp.Expr:
    """``e`` at ``point`` to PRECISION_DIGITS digits; a derivative by ``mpmath.diff`` (not SymPy's ``diff``)."""
    import mpmath

    scalars = {s: exact(v) for s, v in point.items() if isinstance(s, sp.Symbol)}
    bases = {s: v for s, v in point.items() if isinstance(s, sp.IndexedBase)}

    def value(expr, env, dps=PRECISION_DIGITS + 10):
        derivs = list(expr.atoms(sp.Derivative))
        outer = [d for d in derivs if not any(o != d and d in o.atoms(sp.Derivative) for o in derivs)]
        repl = {d: derivative(d, env, dps) for d in outer}
        expr = _integrals_valued(expr.xreplace(repl), {**env, **bases}, dps)
        expr = _limits_valued(expr, {**env, **bases}, dps)
        concrete = expr.xreplace(env).doit()
        concrete = concrete.xreplace({x: exact(lookup(bases[x.base], x.indices)) for x in concrete.atoms(sp.Indexed)})
        return sp.N(concrete, dps)

    def derivative(d, env, dps):
        symbolic = sp.diff(d.expr, *d.variable_count)
        if not symbolic.has(sp.Derivative):  # SymPy's diff, evaluated to dps digits: no step to choose
            return value(symbolic, env, dps)
        if len(d.variable_count) != 1:
            raise ValueError("mixed partial derivatives are confirmed by SymPy only")
        (var, count), f = d.variable_count[0], d.expr

        def fn(t):
            work = mpmath.mp.dps + 10  # mpmath.diff raises the precision; f must keep up with it
            local = dict(env)
            local[var] = sp.Float(t, work)
            v = value(f, local, work)
            if not v.is_number or not v.is_real:
                raise ValueError("not a real number")
            return mpmath.mpf(v._mpf_) if hasattr(v, "_mpf_") else mpmath.mpf(sp.Float(v, work)._mpf_)

        with mpmath.workdps(dps + 10):
            at = mpmath.mpf(sp.Float(env[var], dps + 10)._mpf_)
            r = mpmath.diff(fn, at, int(count))
            finer = mpmath.diff(fn, at, int(count), h=mpmath.mpf(2) ** (-mpmath.mp.prec // 2 - 40))
            if abs(r - finer) > mpmath.mpf(HP_REL) * max(1, abs(r), abs(finer)):
                raise ValueError("the numeric derivative depends on its step: undecided")
        return sp.Float(r, dps)

    return value(e, scalars)


def _finite(v) -> bool:
    return bool(v.is_number) and not v.has(sp.nan, sp.zoo, sp.oo, -sp.oo)


def hp_compare(lhs: sp.Expr, rhs: sp.Expr, point: dict) -> tuple[bool, sp.Expr, sp.Expr] | None:
    """``(differ, L, R)`` at ``point``, or None where a side is undefined there."""
    L, R = hp_value(lhs, point), hp_value(rhs, point)
    differ = decide(L, R, "=")
    return None if differ is None else (differ, L, R)


def hp_violates(lhs: sp.Expr, rhs: sp.Expr, relation: str, point: dict) -> tuple[bool, sp.Expr, sp.Expr] | None:
    """``(violated, L, R)`` for ``lhs REL rhs`` at ``point``, or None (undefined there).

    ``=`` is violated by any difference beyond ``HP_REL``; an order relation by a real difference of
    the wrong sign beyond it (equality within ``HP_REL`` never refutes, even for ``<``), or by a
    side that is not real (see :func:`decide`)."""
    if relation == "=":
        return hp_compare(lhs, rhs, point)
    L, R = hp_value(lhs, point), hp_value(rhs, point)
    violated = decide(L, R, relation)
    return None if violated is None else (violated, L, R)


def decide(L: sp.Expr, R: sp.Expr, relation: str) -> bool | None:
    """Whether ``L REL R`` fails for two PRECISION_DIGITS-digit values, or None where a side is undefined.

    An order relation is a statement about real numbers: a side whose imaginary part exceeds
    ``HP_REL`` of its size makes it false there (issue 21: ``log(x)**2 >= 0`` for real x is false
    at x = −1); a smaller imaginary part is round-off of a real value and is dropped.

        >>> decide(sp.Float(1), sp.I, "<=")
        True
        >>> decide(sp.Float(1), sp.Float(2) + sp.Float("1e-45") * sp.I, "<=")
        False
    """
    if not (_finite(L) and _finite(R)):
        return None
    scale = max(1.0, abs(complex(L)), abs(complex(R)))
    if relation == "=":
        return abs(complex(sp.N(L - R, PRECISION_DIGITS))) > HP_REL * scale
    if any(abs(complex(v).imag) > HP_REL * scale for v in (L, R)):
        return True
    L, R = sp.re(L), sp.re(R)
    d = float(sp.N(L - R, PRECISION_DIGITS) if relation in ("<=", "<") else sp.N(R - L, PRECISION_DIGITS))
    return d > HP_REL * scale


def shown(v: sp.Expr | float) -> float | int | str:
    """A value for the report: a float where real, else SymPy's 15-digit string."""
    if isinstance(v, (int, float)):
        return v
    if getattr(v, "is_real", False):
        return float(v)
    return sp.sstr(sp.N(v, 15))


def report_point(point: dict, exprs: Iterable[sp.Expr]) -> dict:
    """The point as ``{name: value}``: the scalars, and the entries ``x[i]`` the sides read."""
    out = {}
    for s, v in point.items():
        if isinstance(s, sp.Symbol):
            out[str(s)] = v
    used = set()
    for e in exprs:  # the entries of indexed names the sides actually read, at this point
        try:
            e = e.replace(lambda x: isinstance(x, sp.Limit), lambda x: x.args[0])  # never SymPy's limit, here
            concrete = (
                take_derivatives(e).xreplace({s: exact(v) for s, v in point.items() if isinstance(s, sp.Symbol)}).doit()
            )
        except Exception:  # noqa: BLE001 - only for reporting
            continue
        used |= concrete.atoms(sp.Indexed)
    for x in sorted(used, key=str):
        try:
            out[str(x)] = lookup(point[x.base], x.indices)
        except (IndexError, KeyError, TypeError):
            pass
    return out


# --- the mpmath backend of the walker, at PRECISION_DIGITS ----------------------------------------------


class MpmathBackend:
    """mpmath at ``dps`` digits for :class:`~mathcheck.numeric.expressions.Walker`: the function table's
    ``mpmath`` implementations, sums and products written out (``mpmath.fsum``/``fprod``), inputs at
    their exact values (a float at its binary value, a Rational as p/q)."""

    kind = "mpmath"
    error = ValueError
    missing = "no value for {}"

    def __init__(self, dps: int = PRECISION_DIGITS):
        self.dps = dps
        self.table = functions.implementations("mpmath")

    def run(self, walker, e) -> mpnumeric:
        import mpmath

        with mpmath.workdps(self.dps):
            return walker.ev(e)

    def number(self, e) -> mpnumeric:
        import mpmath

        if e in (sp.nan, sp.zoo, sp.oo, -sp.oo):
            raise ValueError(f"{e}")
        return mpmath.pi if e is sp.pi else mpmath.e if e is sp.E else self.value(e)

    def value(self, v) -> mpnumeric:
        import mpmath

        if isinstance(v, (int, float)):
            return mpmath.mpf(v)  # a float at its exact binary value
        if isinstance(v, mpmath.mpf):  # a node of a quadrature
            return v
        if not isinstance(v, sp.Basic):  # never sympify: a value is a number of ours, not a string
            raise TypeError(f"not a number: {type(v).__name__}")
        if v.is_Rational:
            return mpmath.mpf(int(v.p)) / int(v.q)
        return mpmath.mpmathify(sp.N(v, self.dps + 10))

    def index(self, v) -> int:
        return int(v)

    def entry(self, walker, e) -> mpnumeric:
        return self.value(lookup(walker.env[e.base], [self.index(walker.ev(i)) for i in e.indices]))

    def add(self, values) -> mpnumeric:
        import mpmath

        return mpmath.fsum(values)

    def mul(self, values) -> mpnumeric:
        import mpmath

        return mpmath.fprod(values)

    def pow(self, base, ex, e) -> mpnumeric:
        import mpmath

        return mpmath.power(base, ex)

    def call(self, fn, args) -> mpnumeric:
        return fn(*args)

    def reduce(self, walker, e) -> mpnumeric:
        return loop_reduce(walker, e.function, e.limits, isinstance(e, sp.Product))

    def term(self, v) -> mpnumeric:
        return v

    def fsum(self, terms) -> mpnumeric:
        import mpmath

        return mpmath.fsum(terms)

    def prod(self, terms) -> mpnumeric:
        import mpmath

        return mpmath.fprod(terms)

    def delta(self, a, b) -> mpmath.mpf:
        import mpmath

        return mpmath.mpf(a == b)

    def piecewise(self, walker, e) -> mpnumeric:
        return walker.piecewise(e)

    def derivative(self, walker, e) -> NoReturn:  # hp_value takes derivatives (SymPy's diff, or mpmath.diff)
        raise ValueError(f"cannot evaluate {type(e).__name__}")

    def integral(self, walker, e) -> mpmath.mpf:
        return quadrature(walker, e, hp_allowed if self.dps >= PRECISION_DIGITS else screen_allowed)

    def limit(self, walker, e) -> mpmath.mpf:
        return approach(walker.env, e, self.dps)

    def node(self, t) -> mpmath.mpf:  # a quadrature node, as this backend's value
        return t

    matrix = other = derivative


class PreciseEvaluator(Walker):
    """``e`` walked with mpmath at ``dps`` digits (``PRECISION_DIGITS``), ``env`` a point of
    :func:`mathcheck.numeric.sampling.sample_points`. Unlike :func:`hp_value` it never asks SymPy
    to simplify: what it computes is the expression as written, like the float and torch backends.

        >>> from mathcheck.parser import parse
        >>> e = parse("softsign(x) + Sum(1/k, (k, 1, 3))")
        >>> (x,) = e.free_symbols
        >>> import mpmath
        >>> mpmath.nstr(PreciseEvaluator({x: 0.5})(e), 20)
        '2.1666666666666666667'
    """

    def __init__(self, env: dict, dps: int = PRECISION_DIGITS):
        super().__init__(MpmathBackend(dps), dict(env))
