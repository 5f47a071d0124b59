"""mathcheck.symbolic.rules.calculus: derivatives evaluated and nothing else; a limit law whose
condition fails leaves its Limit unevaluated, so the step is not shown."""

import sympy as sp

from mathcheck.symbolic.rules.calculus import differentiate, limit_laws

x = sp.Symbol("x", positive=True)


def test_differentiate_evaluates_derivatives_only():
    e = sp.Derivative(sp.sin(x) ** 2, x) + sp.Integral(x, (x, 0, 1))
    out = differentiate(x).apply(e)
    assert out == 2 * sp.sin(x) * sp.cos(x) + sp.Integral(x, (x, 0, 1))  # the integral left as written


def test_a_limit_law_applies_only_where_its_condition_holds():
    assert limit_laws().apply(sp.Limit(sp.exp(-x) + 3, x, sp.oo)) == 3  # a sum of two limits
    assert isinstance(limit_laws().apply(sp.Limit(1 / x**2, x, 0, "+")), sp.Limit)  # infinite: left alone
    # the product law needs both limits: sin(1/x) has none at 0, so the step is not shown by it
    # (though the limit is 0) — a rule that fails its condition proves nothing rather than guessing
    assert isinstance(limit_laws().apply(sp.Limit(x * sp.sin(1 / x), x, 0, "+")), sp.Limit)
