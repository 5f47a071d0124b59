r"""The density of a random variable at a point, by definition, for the change of variables.

``p_Y(y)`` of Y with a named continuous law is the family's density; of Y = g(X), X of a named
continuous law with density f, it is Σ f(x_i)/|g'(x_i)| over the points x_i of X's support where
g(x_i) = y (the derivative of P(g(X) ≤ y) in y). This module finds the x_i numerically — g evaluated at
mpmath's precision on a grid over the support, each sign change of g − y narrowed by Illinois' method (bisection where it strays), g'
by SymPy's derivative — independently of the symbolic rule, which inverts g by SymPy
(:mod:`mathcheck.symbolic.expectation`). A y that no x reaches is outside Y's support: no value
(the caller does not judge the link there: authors write a density on its support). Where g is not
monotone on the grid, the roots are counted again on a grid twice as fine and must agree, else no
value (two roots inside one cell would be missed, and a density too small would refute a true link).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> float(density("Uniform", (0, 1), 0.5, -sp.log(x), x))  # Y = −log X: Exponential(1) at 0.5
    0.6065306597126334
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable

from mathcheck.lazy import sympy as sp

if TYPE_CHECKING:  # annotations only: mpmath is imported where it is used
    import mpmath

DIGITS = 30
GRID = 48  # cells over X's support
QUAD_DIGITS, QUAD_ERROR = 20, 14  # an expectation's quadrature: its digits, and the error it must beat
STEPS = 64  # bisection steps (the bracket shrinks by 2^-64)


class NoDensity(ValueError):
    """The density is not evaluated at this point (one line: why)."""


def family_density(family: str, params: tuple, t: mpmath.mpf) -> mpmath.mpf:
    """The density of a named continuous family at the mpmath number t (0 outside its support)."""
    return density_function(family, params)(t)


def density_function(family: str, params: tuple) -> Callable[[mpmath.mpf], mpmath.mpf]:
    """The density of a named continuous family as an mpmath function (0 outside its support), its
    parameters converted once (per point, SymPy's N was most of a quadrature's time)."""
    import mpmath

    ps = [mpmath.mpf(sp.N(p, DIGITS)) for p in params]
    if family == "Normal":
        mu, v = ps
        return lambda t: mpmath.exp(-((t - mu) ** 2) / (2 * v)) / mpmath.sqrt(2 * mpmath.pi * v)
    if family == "Laplace":
        mu, b = ps
        return lambda t: mpmath.exp(-abs(t - mu) / b) / (2 * b)
    if family == "Exponential":
        (lam,) = ps
        return lambda t: lam * mpmath.exp(-lam * t) if t > 0 else mpmath.mpf(0)
    if family == "Uniform":
        a, b = ps
        return lambda t: 1 / (b - a) if a < t < b else mpmath.mpf(0)
    raise NoDensity(f"{family} has no density here")


def _grid(family: str, params: tuple, cells: int) -> list:
    """Points strictly inside the support, dense near the centre, reaching far into an infinite tail."""
    import mpmath

    ts = [mpmath.mpf(k) / cells for k in range(1, cells)]
    if family in ("Normal", "Laplace"):
        c, s = mpmath.mpf(sp.N(params[0], DIGITS)), mpmath.sqrt(mpmath.mpf(sp.N(params[1], DIGITS)))
        return [c + s * (2 * t - 1) / (1 - (2 * t - 1) ** 2) for t in ts]
    if family == "Exponential":
        s = 1 / mpmath.mpf(sp.N(params[0], DIGITS))
        return [s * t / (1 - t) for t in ts]
    a, b = (mpmath.mpf(sp.N(p, DIGITS)) for p in params)
    return [a + (b - a) * t for t in ts]


def _roots(g, y, xs) -> list:
    values = [g(x) - y for x in xs]
    out = []
    for (a, fa), (b, fb) in zip(zip(xs, values), zip(xs[1:], values[1:])):
        if fa == 0:
            out.append(a)
        elif fa * fb < 0:
            import mpmath

            try:  # Illinois' bracketing secant: a few steps; bisection where it strays
                r = mpmath.findroot(lambda t: g(t) - y, (a, b), solver="illinois")
                if a <= r <= b:
                    out.append(r)
                    continue
            except (ValueError, ZeroDivisionError):
                pass
            for _ in range(STEPS):
                m = (a + b) / 2
                fm = g(m) - y
                if fm == 0:
                    a = b = m
                    break
                if (fm < 0) == (fa < 0):
                    a, fa = m, fm
                else:
                    b = m
            out.append((a + b) / 2)
    monotone = all(v < w for v, w in zip(values, values[1:])) or all(v > w for v, w in zip(values, values[1:]))
    return out, monotone


@functools.lru_cache(maxsize=256)
def _compiled(g, x, names: tuple):
    """g as an mpmath function of x and ``names`` (compiled once per g: the parameters vary by draw).
    g is a SymPy tree our parser built, never a string."""
    return sp.lambdify((x, *names), g, "mpmath")


def density(family: str, params: tuple, y, g=None, x=None, env=None) -> mpmath.mpf | None:
    """p_Y(y) for Y ~ family(params) (``g`` None) or Y = g(x), x ~ family(params), g's other symbols
    at ``env``; None where y is outside Y's support; :class:`NoDensity` where it is not decided."""
    import mpmath

    from mathcheck.numeric.precise import PreciseEvaluator

    with mpmath.workdps(DIGITS):
        y = mpmath.mpf(sp.N(y, DIGITS))
        if g is None:
            f = family_density(family, params, y)
            return f if f != 0 else None

        env = dict(env or {})
        names = tuple(sorted(env, key=str))
        args = [mpmath.mpf(sp.N(env[n], DIGITS)) for n in names]
        dg = sp.diff(g, x)
        fast = {g: _compiled(g, x, names), dg: _compiled(dg, x, names)}

        def gf(t, g=g):
            try:
                v = fast[g](t, *args)
            except (TypeError, ValueError, ZeroDivisionError):  # the project's own walker where mpmath's fails
                v = PreciseEvaluator({x: t, **env}, DIGITS)(g)
            if not isinstance(v, mpmath.mpf):
                v = mpmath.mpmathify(v)
                if abs(mpmath.im(v)) > mpmath.mpf(10) ** (-DIGITS // 2):
                    raise NoDensity("g is not real on the support")
                v = mpmath.re(v)
            return v

        roots, monotone = _roots(gf, y, _grid(family, params, GRID))
        if not monotone and len(_roots(gf, y, _grid(family, params, 2 * GRID))[0]) != len(roots):
            raise NoDensity("g is not monotone and its roots are not resolved on the grid")
        if not roots:
            return None
        total = mpmath.mpf(0)
        for r in roots:
            slope = gf(r, dg)
            if slope == 0:
                raise NoDensity("g' = 0 at a point g maps to y")
            total += family_density(family, params, r) / abs(slope)
        return total


def expectation(family: str, params: tuple, g, x) -> mpmath.mpf | None:
    """E[g(X)] for X ~ family(params) by mpmath's quadrature of g·p over the support, at QUAD_DIGITS, or
    None where the quadrature's own error estimate is not below 1e-QUAD_ERROR of the value (or the value
    is not real) — far inside the 1e-9 relative the sides are compared within. For an inequality's numeric side (Jensen's E[log X] ≤ log E[X]), where Monte Carlo decides
    equalities only; g built by our parser, compiled (:func:`_compiled`), never a string."""
    import mpmath

    with mpmath.workdps(QUAD_DIGITS):
        gf = _compiled(g, x, ())
        if family in ("Normal", "Laplace"):
            mu = mpmath.mpf(sp.N(params[0], DIGITS))
            pieces = [-mpmath.inf, mu, mpmath.inf]
        elif family == "Exponential":
            pieces = [0, mpmath.inf]
        elif family == "Uniform":
            pieces = [mpmath.mpf(sp.N(p, DIGITS)) for p in params]
        else:
            return None
        try:
            f = density_function(family, params)
            v, err = mpmath.quad(lambda t: gf(t) * f(t), pieces, error=True)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return None
        if (
            not isinstance(v, mpmath.mpf)
            or not mpmath.isfinite(v)
            or err > mpmath.mpf(10) ** -QUAD_ERROR * max(1, abs(v))
        ):
            return None
        return v
