"""mathcheck.numeric.construct: the constructive draw — the dimensions a statement has, values its
symbols' assumptions allow, and points that meet an equation random points would miss."""

import random

import sympy as sp

from mathcheck.claim import Context
from mathcheck.numeric import construct

i = sp.Symbol("i", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)


def test_size_symbols_are_the_bounds_and_shapes_not_the_indices():
    x = sp.IndexedBase("x")
    W = sp.MatrixSymbol("W", n, m)
    assert construct.size_symbols([sp.Sum(x[i], (i, 1, n)) + sp.Trace(W.T * W)]) == [m, n]
    assert construct.size_symbols([sp.Symbol("t", real=True) ** 2]) == []


def test_sample_values_keep_their_symbols_assumptions():
    rng = random.Random(0)
    pos, nonneg, neg = sp.Symbol("p", positive=True), sp.Symbol("q", nonnegative=True), sp.Symbol("r", negative=True)
    for _ in range(200):
        assert 1 <= construct.sample_value(n, rng) <= 4 and 0 <= construct.sample_value(m, rng) <= 4
        assert construct.sample_value(pos, rng) > 0 and construct.sample_value(nonneg, rng) >= 0
        assert construct.sample_value(neg, rng) < 0
    assert (construct.smallest_size(n), construct.smallest_size(m)) == (1, 0)


def test_an_equation_is_met_exactly_and_the_draw_is_seeded():
    a, b = sp.symbols("a b", real=True)
    hyps = (sp.Eq(a + 2 * b, 1),)
    pts = construct.constructed_points([a * b], hyps, Context(), count=5, seed=3)
    assert len(pts) == 5 and all(pt[a] + 2 * pt[b] == 1 for pt in pts)
    assert construct.constructed_points([a * b], hyps, Context(), count=5, seed=3) == pts


def test_a_symbol_solved_from_an_equation_keeps_its_assumptions():
    """Found by this test (issue 34): b = (1 − a)/2 was solved from a + 2b = 1 for a positive b and
    kept when negative; a point off a symbol's domain is a counterexample no one asked about."""
    a, b = sp.symbols("a b", positive=True)
    pts = construct.constructed_points([a * b], (sp.Eq(a + 2 * b, 1),), Context(), count=5, seed=3)
    assert pts and all(pt[a] > 0 and pt[b] > 0 for pt in pts)
