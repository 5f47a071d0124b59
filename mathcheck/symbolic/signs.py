"""The sign rules: when ``e ≥ 0`` (``e > 0``) follows from the structure of ``e``.

:func:`by_structure` is the sign test's one source of "shown". Rules of ours, each sound: SymPy's
assumptions; a sum or product of nonnegative terms; an even power of a real; a finite sum of
nonnegative terms whose bounds are ordered (SymPy does not derive this, and under its (Karr's)
convention Σ_{i=1}^{n} i² = −5 at n = −3); a positive factor divided out; a one-variable expression
whose SymPy ``minimum`` over the domain its assumptions give is ≥ 0 (only where the expression is
real on the whole domain); the same after generalising a logarithm's argument to a positive variable
(``p(q/p − 1 − log(q/p))`` → ``x − 1 − log x``).

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> by_structure(x - 1 - sp.log(x), strict=False)
    True
    >>> by_structure(sp.log(x) ** 2 - 1, strict=False)
    False
"""

from __future__ import annotations

from mathcheck.lazy import sympy as sp
from mathcheck.symbolic.context import known


def _domain(sym):
    if sym.is_positive:
        return sp.Interval.open(0, sp.oo)
    if sym.is_nonnegative:
        return sp.Interval(0, sp.oo)
    if sym.is_negative:
        return sp.Interval.open(-sp.oo, 0)
    return sp.S.Reals if sym.is_real else None


KNOWN_FACTS = ("real", "integer", "positive", "nonnegative", "negative", "nonpositive", "nonzero")


def stand_in(v: sp.Basic, name: str = "x") -> sp.Dummy:
    """A Dummy for ``v`` (an ``x[i]``, a compound quantity) carrying only the facts known of ``v``.

    A fact that is unknown (``v.is_positive is None``) is left out, never set False: in SymPy
    ``positive=False`` on a real symbol means ``≤ 0``, which would turn ``relu(x[i]) ≤ 40`` into a
    statement about nonpositive x (issue 21)."""
    return sp.Dummy(name, **{f: True for f in KNOWN_FACTS if getattr(v, f"is_{f}", None) is True})


def _variables(e) -> set:
    labels = {b.label for b in e.atoms(sp.IndexedBase)}
    indices = (
        set().union(*[set().union(*[i.free_symbols for i in x.indices]) for x in e.atoms(sp.Indexed)])
        if e.atoms(sp.Indexed)
        else set()
    )
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
    return bool((b - low).is_nonnegative) or known(sp.Le(low, b), rng) is True


def by_structure(e: sp.Expr, strict: bool, divide: bool = True, rng: dict | None = None) -> bool:
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
        if all(by_structure(t, False, divide, rng) for t in e.args):
            return not strict or any(by_structure(t, True, divide, rng) for t in e.args)
        if divide:  # a positive factor v: e ≥ 0 ⇔ e/v ≥ 0 (p_i(q_i/p_i − 1 − log(q_i/p_i)))
            for v in _positive_atoms(e):
                if by_structure(sp.logcombine(sp.expand(e / v)), strict, False, rng):
                    return True
    if isinstance(e, sp.Mul):
        negatives = [f for f in e.args if f.is_negative]
        others = [f for f in e.args if not f.is_negative]
        if len(negatives) % 2 == 0 and all(by_structure(f, strict, divide, rng) for f in others):
            return True
    if isinstance(e, sp.Pow) and e.exp.is_integer and e.exp.is_even and e.base.is_real and not strict:
        return True
    if isinstance(e, sp.Pow) and e.exp.is_real and by_structure(e.base, strict, divide, rng):
        return True
    rng = rng or {}
    if isinstance(e, sp.Sum) and len(e.limits) == 1 and _ordered(e.limits[0], strict, rng):
        var, a, b = e.limits[0]
        if by_structure(e.function, strict, divide, {**rng, var: (a, b)}):
            return True
    if _univariate_minimum(e, strict):
        return True
    for g in _generalisations(e):
        if _univariate_minimum(sp.together(g), strict) or _univariate_minimum(g, strict):
            return True
    return False
