"""High precision: both sides at a sampled point to 50 digits (mpmath, through SymPy's ``evalf``).

This is what confirms a counterexample: a float64 disagreement counts only once the 50-digit
values differ by more than ``HP_REL`` relative, so round-off never refutes a true identity, and a
false identity that agrees to 1e-15 is still caught. A derivative is taken by ``mpmath.diff`` of
the evaluated function (not by SymPy's ``diff``). Values are compared over ℂ with principal
branches: ``log(x*y)`` and ``log(x) + log(y)`` differ at ``x = y = −1``.

    >>> from mathcheck.parser import parse_many
    >>> a, b = parse_many(["exp(x)", "exp(x)*(1 + 1e-15)"])
    >>> x = next(iter(a.free_symbols))
    >>> hp_compare(a, b, {x: 0.5})[0]
    True
"""

from __future__ import annotations

from mathcheck.lazy import sympy as sp
from mathcheck.userexpr.points import exact, lookup

DPS = 50                 # digits for the high-precision confirmation
HP_REL = 1e-30           # |lhs − rhs| > HP_REL · max(1, |lhs|, |rhs|) at DPS digits: not round-off


def take_derivatives(e):
    """SymPy's own derivatives taken (the symbolic side's view of ``diff``)."""
    return e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: sp.diff(x.expr, *x.variable_count))


def hp_value(e, point: dict):
    """``e`` at ``point`` to DPS digits; a derivative by ``mpmath.diff`` (not SymPy's ``diff``)."""
    import mpmath

    scalars = {s: exact(v) for s, v in point.items() if isinstance(s, sp.Symbol)}
    bases = {s: v for s, v in point.items() if isinstance(s, sp.IndexedBase)}

    def value(expr, env, dps=DPS + 10):
        derivs = list(expr.atoms(sp.Derivative))
        outer = [d for d in derivs if not any(o != d and d in o.atoms(sp.Derivative) for o in derivs)]
        repl = {d: derivative(d, env, dps) for d in outer}
        concrete = expr.xreplace(repl).xreplace(env).doit()
        concrete = concrete.xreplace({x: exact(lookup(bases[x.base], x.indices))
                                      for x in concrete.atoms(sp.Indexed)})
        return sp.N(concrete, dps)

    def derivative(d, env, dps):
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
            r = mpmath.diff(fn, mpmath.mpf(sp.Float(env[var], dps + 10)._mpf_), int(count))
        return sp.Float(r, dps)

    return value(e, scalars)


def _finite(v) -> bool:
    return bool(v.is_number) and not v.has(sp.nan, sp.zoo, sp.oo, -sp.oo)


def hp_compare(lhs, rhs, point: dict):
    """``(differ, L, R)`` at ``point``, or None where a side is undefined there."""
    L, R = hp_value(lhs, point), hp_value(rhs, point)
    if not (_finite(L) and _finite(R)):
        return None
    diff = abs(complex(sp.N(L - R, DPS)))
    scale = max(1.0, abs(complex(L)), abs(complex(R)))
    return diff > HP_REL * scale, L, R


def hp_violates(lhs, rhs, relation: str, point: dict):
    """``(violated, L, R)`` for ``lhs REL rhs`` at ``point``, or None (undefined or not real there).

    ``=`` is violated by any difference beyond ``HP_REL``; an order relation by a real difference of
    the wrong sign beyond it (equality within ``HP_REL`` never refutes, even for ``<``)."""
    if relation == "=":
        return hp_compare(lhs, rhs, point)
    L, R = hp_value(lhs, point), hp_value(rhs, point)
    if not (_finite(L) and _finite(R)) or not (L.is_real and R.is_real):
        return None
    d = float(sp.N(L - R, DPS) if relation in ("<=", "<") else sp.N(R - L, DPS))
    scale = max(1.0, abs(float(L)), abs(float(R)))
    return d > HP_REL * scale, L, R


def shown(v) -> float | int | str:
    """A value for the report: a float where real, else SymPy's 15-digit string."""
    if isinstance(v, (int, float)):
        return v
    if getattr(v, "is_real", False):
        return float(v)
    return sp.sstr(sp.N(v, 15))


def report_point(point: dict, exprs) -> dict:
    """The point as ``{name: value}``: the scalars, and the entries ``x[i]`` the sides read."""
    out = {}
    for s, v in point.items():
        if isinstance(s, sp.Symbol):
            out[str(s)] = v
    used = set()
    for e in exprs:  # the entries of indexed names the sides actually read, at this point
        try:
            concrete = take_derivatives(e).xreplace(
                {s: exact(v) for s, v in point.items() if isinstance(s, sp.Symbol)}).doit()
        except Exception:  # noqa: BLE001 - only for reporting
            continue
        used |= concrete.atoms(sp.Indexed)
    for x in sorted(used, key=str):
        try:
            out[str(x)] = lookup(point[x.base], x.indices)
        except (IndexError, KeyError, TypeError):
            pass
    return out
