"""Definite integrals in closed form, soundly: SymPy's ``integrate`` where its answer is one (docs/latex.md, "Integrals").

An integral ``∫_a^b f dx`` (innermost first) is replaced by SymPy's value only when

* the integrand has no unknown function (``∫_0^1 f(x) dx`` is a number that depends on f: no closed form);
* SymPy shows the integrand has no real singularity strictly between the limits
  (``sympy.singularities``): SymPy's antiderivative is blind to an interior pole, and
  ``∫_a^b dx/x`` would come out as ``log(b) − log(a)``, false wherever a < 0 < b — so a singularity
  that may lie inside (a symbolic one, or symbolic limits around a numeric one) leaves it unsettled;
  one at an end is SymPy's to judge (``∫_0^1 dx/√x = 2``, ``∫_0^1 dx/x = ∞``);
* ``doit`` returns, within its time budget (:func:`mathcheck.budget.attempt`), an expression with no
  ``Integral`` left and no ``Piecewise`` (a condition such as ``|arg a| < π/2`` it could not settle
  under the symbols' assumptions), and finite: ``∞``, ``−∞``, ``zoo`` or ``nan`` is an integral that
  diverges, which is never equal to a number.

Anything else — a time-out, a SymPy exception included — is :class:`Unsettled`, with the reason; the
caller reports it ``inconclusive``, never proved.

    >>> import sympy as sp
    >>> x, a, b = sp.symbols("x a b", real=True)
    >>> settle(sp.Integral(2*x, (x, a, b)), 5.0)
    -a**2 + b**2
    >>> settle(sp.Integral(1/x, (x, 1, sp.oo)), 5.0)
    Traceback (most recent call last):
    ...
    mathcheck.symbolic.integrals.Unsettled: ∫ 1/x dx over [1, oo] diverges (SymPy: oo)
"""

from __future__ import annotations

import time

from mathcheck.budget import attempt_or_why as _attempt
from mathcheck.lazy import sympy as sp


class Unsettled(Exception):
    """An integral SymPy does not settle soundly: the reason, in one line."""


def settle(e: sp.Basic, seconds: float) -> sp.Basic:
    """``e`` with every ``Integral`` in closed form, or :class:`Unsettled` (the first that is not)."""
    deadline = time.perf_counter() + seconds
    while True:
        inner = [i for i in e.atoms(sp.Integral) if not i.function.has(sp.Integral)]
        if not inner:
            return e
        i = min(inner, key=sp.default_sort_key)  # one order, so the reason reported is reproducible
        e = e.xreplace({i: _one(i, deadline)})


def _one(i, deadline: float):
    left = lambda: max(deadline - time.perf_counter(), 0.05)  # noqa: E731
    f = i.function
    shown = _shown(i)
    if f.atoms(sp.core.function.AppliedUndef):
        raise Unsettled(f"{shown}: the integrand has an unknown function, so the integral has no closed form")
    for x, lo, hi in reversed(i.limits):  # SymPy's order: the first limit is the innermost
        _no_interior_singularity(f, x, lo, hi, shown, left)
    ok, v = _attempt(lambda: i.doit(), left())
    if not ok:
        raise Unsettled(f"{shown}: SymPy's integrate {v}")
    if v.has(sp.Piecewise):
        raise Unsettled(
            f"{shown}: SymPy's value holds only under conditions it cannot settle "
            f"({_short(v)}); state them, e.g. % assume: a > 0"
        )
    if v.has(sp.Integral):
        raise Unsettled(f"{shown}: SymPy finds no closed form")
    if v.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        raise Unsettled(f"{shown} diverges (SymPy: {_short(v)})")
    return v


def _no_interior_singularity(f, x, lo, hi, shown, left):
    ok, sing = _attempt(lambda: sp.singularities(f, x, sp.S.Reals), left())
    if not ok:
        raise Unsettled(f"{shown}: its singularities are not known (SymPy {sing})")
    if sing is sp.S.EmptySet:
        return
    if not isinstance(sing, sp.FiniteSet):
        raise Unsettled(f"{shown}: the integrand is singular at {_short(sing)}")
    for s in sing:
        inside = sp.And(sp.true if lo == -sp.oo else s > lo, sp.true if hi == sp.oo else s < hi)
        if inside is not sp.false:
            raise Unsettled(
                f"{shown}: the integrand is singular at {x} = {s}, which may lie between the limits "
                f"(SymPy's antiderivative does not see it)"
            )


def _shown(i) -> str:
    return "∫ " + " ".join([_short(i.function)] + [f"d{x} over [{lo}, {hi}]" for x, lo, hi in i.limits])


def _short(e, limit: int = 120) -> str:
    s = sp.sstr(e)
    return s if len(s) <= limit else s[: limit - 3] + "..."
