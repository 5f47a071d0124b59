"""Limits in closed form, soundly: ``lim_{h→a} f`` (SymPy's ``Limit``, two-sided) settled or left undecided.

A limit is replaced by a value only when one is shown:

* **no unknown function depends on h**: SymPy's ``limit`` from both sides, within its time budget
  (:func:`mathcheck.budget.attempt`); the two must agree and be finite, with no ``Limit``,
  ``AccumBounds`` (``sin(1/h)``) or ``Piecewise`` left — ``lim_{h→0} 1/h`` has no value, never ``zoo``;
* **an unknown function depends on h** (the derivative as a limit, ``(f(x + h) − f(x))/h``): SymPy
  leaves it unevaluated, and replacing ``f(x + h)`` by a free value would make f a constant. Each
  application ``f(u)``, u a polynomial in h with ``u → u₀``, is written by Taylor's theorem,
  ``f(u) = f(u₀) + f'(u₀)·δ + f''(u₀)·δ²/2 + R·δ³`` with ``δ = u − u₀`` and R bounded near h = a (f three
  times continuously differentiable: the functions the text differentiates). The body must then be
  a polynomial in the R's over a denominator free of them, ``B₀(h) + Σ R^α·B_α(h)``: the limit is
  ``lim B₀`` when every ``B_α → 0`` (each remainder term vanishes whatever bounded value R takes) —
  so ``lim_{h→0} (f(x + h) − f(x))/h = f'(x)`` for every smooth f, and a body where a remainder does
  not vanish (a third difference) stays undecided.

Anything else — a time-out, a SymPy exception, an application of several arguments or of a
derivative that moves with h — is :class:`Unsettled`, with the reason; the caller reports it
``inconclusive``, never proved. The numeric side never uses these values: it approaches each limit
itself (:func:`mathcheck.numeric.precise.approach`).

    >>> import sympy as sp
    >>> x, h = sp.symbols("x h", real=True)
    >>> f = sp.Function("f", real=True)
    >>> settle(sp.Limit((f(x + h) - f(x)) / h, h, 0, dir="+-"), 5.0)
    Subs(Derivative(f(_xi), _xi), _xi, x)
    >>> settle(sp.Limit(1 / h, h, 0, dir="+-"), 5.0)
    Traceback (most recent call last):
    ...
    mathcheck.symbolic.limits.Unsettled: lim h→0 of 1/h: the limits from the two sides differ (-oo, oo)
"""

from __future__ import annotations

import time

from mathcheck.budget import attempt_or_why as _attempt
from mathcheck.lazy import sympy as sp

ORDER = 2  # Taylor terms written out before the remainder R·δ³


class Unsettled(Exception):
    """A limit SymPy does not settle soundly: the reason, in one line."""


def settle(e: sp.Basic, seconds: float) -> sp.Basic:
    """``e`` with every ``Limit`` in closed form (innermost first), or :class:`Unsettled`."""
    deadline = time.perf_counter() + seconds
    while True:
        inner = [i for i in e.atoms(sp.Limit) if not i.args[0].has(sp.Limit)]
        if not inner:
            return e
        i = min(inner, key=sp.default_sort_key)  # one order, so the reason reported is reproducible
        e = e.xreplace({i: _one(i, deadline)})


def doit_keeping_limits(e: sp.Basic) -> sp.Basic:
    """``e.doit()`` (derivatives taken, ``Subs`` put in) with every ``Limit`` kept unevaluated, its body
    done too: the numeric side approaches a limit itself, and SymPy's ``doit`` would take it."""
    outer = [i for i in e.atoms(sp.Limit) if not any(o != i and i in o.atoms(sp.Limit) for o in e.atoms(sp.Limit))]
    if not outer:
        return e.doit()
    held = {i: sp.Dummy("limit") for i in outer}
    done = e.xreplace(held).doit()
    return done.xreplace({d: sp.Limit(doit_keeping_limits(i.args[0]), *i.args[1:]) for i, d in held.items()})


def _one(i, deadline: float):
    f, h, a = i.args[:3]
    shown = f"lim {h}→{a} of {_short(f)}"
    left = lambda: max(deadline - time.perf_counter(), 0.05)  # noqa: E731
    body, rests = _taylor(f, h, a, shown)
    if not rests:
        return _limit(body, h, a, shown, left)
    num, den = sp.together(body).as_numer_denom()
    if den.has(*rests):
        raise Unsettled(f"{shown}: an unknown function in a denominator; not settled for every function")
    try:
        poly = sp.Poly(sp.expand(num), *rests)
    except sp.PolynomialError:
        raise Unsettled(f"{shown}: not settled for every function") from None
    value = None
    for powers, coeff in poly.terms():
        v = _limit(coeff / den, h, a, shown, left)
        if any(powers) and v != 0:
            raise Unsettled(f"{shown}: Taylor's remainder does not vanish, so not settled for every function")
        if not any(powers):
            value = v
    return sp.Integer(0) if value is None else value


def _taylor(f, h, a, shown: str):
    """``f`` with each unknown function's application that moves with h written by Taylor's theorem
    (module docstring), and the remainders' symbols."""
    from sympy.core.function import AppliedUndef

    moving = [g for g in f.atoms(AppliedUndef) if h in g.free_symbols]
    if any(isinstance(d, (sp.Derivative, sp.Subs)) and h in d.free_symbols for d in f.atoms(sp.Derivative, sp.Subs)):
        raise Unsettled(f"{shown}: a derivative of an unknown function moves with {h}; not settled for every function")
    table, rests = {}, []
    for g in sorted(moving, key=sp.default_sort_key):
        if len(g.args) != 1 or not g.args[0].is_polynomial(h):
            raise Unsettled(f"{shown}: {g} is read for one argument polynomial in {h} only")
        u = g.args[0]
        u0 = u.subs(h, a)
        delta = sp.expand(u - u0)
        xi = sp.Dummy("xi", real=True)
        terms = [g.func(u0)] + [
            sp.Subs(sp.Derivative(g.func(xi), (xi, k)), xi, u0) * delta**k / sp.factorial(k)
            for k in range(1, ORDER + 1)
        ]
        r = sp.Dummy(f"R_{g.func.__name__}", real=True)
        rests.append(r)
        table[g] = sp.Add(*terms) + r * delta ** (ORDER + 1)
    return f.xreplace(table), rests


def _limit(body, h, a, shown: str, left):
    """SymPy's two-sided limit of ``body`` (no unknown function moving with h), checked."""
    ok, v = _attempt(lambda: (sp.limit(body, h, a, dir="+"), sp.limit(body, h, a, dir="-")), left())
    if not ok or v[0] != v[1] or _no_value(v[0]):
        value = _by_series(body, h, a, left)
        if value is not None:
            return value
    if not ok:
        raise Unsettled(f"{shown}: SymPy's limit {v}")
    right, lft = v
    if right != lft:
        raise Unsettled(f"{shown}: the limits from the two sides differ ({_short(lft)}, {_short(right)})")
    if right.has(sp.Limit, sp.AccumBounds, sp.Piecewise) or right.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        raise Unsettled(f"{shown}: SymPy finds none ({_short(right)})")
    return right


def _no_value(v) -> bool:
    return v.has(sp.Limit, sp.AccumBounds, sp.Piecewise) or v.has(sp.oo, -sp.oo, sp.zoo, sp.nan)


def _by_series(body, h, a, left):
    """The limit as the constant term of SymPy's series of ``body`` at h = a, where the rest is
    O(h − a) — so it vanishes from both sides — and the constant term is finite and free of h: d2l's
    ``(\\sin((x+ε)^{x+ε}) − \\sin(x^x))/ε``, whose SymPy limit comes out as ``oo·sign(…)``. None otherwise."""
    try:  # SymPy's PoleError and friends: no series, no value
        ok, s = _attempt(lambda: body.series(h, a, 1), left())
        if not ok or s.getO() is None:
            return None
        value = s.removeO()
        ok, vanishes = _attempt(lambda: sp.Order(h - a, (h, a)).contains(s.getO()), left())
    except Exception:  # noqa: BLE001 - a SymPy failure is no value, never a crash
        return None
    if not ok or vanishes is not True or h in value.free_symbols or _no_value(value):
        return None
    return value


def _short(e, limit: int = 80) -> str:
    s = sp.sstr(e)
    return s if len(s) <= limit else s[: limit - 3] + "..."
