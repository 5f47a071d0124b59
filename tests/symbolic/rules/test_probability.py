"""mathcheck.symbolic.rules.probability: the variance unfolded by its definition, a constant pulled
out squared, and E linear — a product split only across independent groups."""

import sympy as sp

from mathcheck.symbolic.rules.probability import E, Var, linearity, variance_definition, variance_scaling

X, Y = sp.IndexedBase("X"), sp.IndexedBase("Y")
c = sp.Symbol("c", positive=True)


def test_the_variance_is_its_definition():
    assert variance_definition().apply(Var(X[1])) == E(X[1] ** 2) - E(X[1]) ** 2


def test_a_constant_comes_out_of_the_variance_squared():
    assert variance_scaling([X]).apply(Var(c * X[1])) == c**2 * Var(X[1])


def test_expectation_splits_a_product_across_groups_only():
    independent = linearity((X,), (Y,)).apply(E(X[1] * Y[1] + 2 * X[1]))
    assert independent == E(X[1]) * E(Y[1]) + 2 * E(X[1])
    one_group = linearity((X, Y)).apply(E(X[1] * Y[1]))
    assert one_group == E(X[1] * Y[1])  # not assumed independent within a group
