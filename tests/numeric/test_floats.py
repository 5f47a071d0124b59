"""mathcheck.numeric.floats: the torch-free float64 backend — exact summation, and a point where
the expression has no real value is Undefined (skipped), never a number."""

import math

import pytest
import sympy as sp

from mathcheck.numeric.floats import Undefined, evaluate
from mathcheck.numeric.sampling import OFFSET, SPAN

x = sp.Symbol("x", real=True)
k = sp.Symbol("k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)


def test_a_sum_is_correctly_rounded_whatever_the_order_of_its_terms():
    # 1 + 1e-16 + ... + 1e-16 - 1: naive left-to-right float addition loses every 1e-16
    a = sp.IndexedBase("a")
    terms = [1.0] + [1e-16] * 10 + [-1.0]
    values = [0.0] * SPAN  # a[i] is values[i - OFFSET], as the sampler draws them
    values[1 - OFFSET : 1 - OFFSET + len(terms)] = terms
    got = evaluate(sp.Sum(a[k], (k, 1, n)), {n: len(terms), a: values})
    assert got == pytest.approx(1e-15, rel=1e-12) and sum(terms) != got


def test_no_real_value_is_undefined_not_nan():
    for e, at in ((sp.log(x), -1.0), (1 / x, 0.0), (sp.sqrt(x), -4.0), (sp.exp(x), 1e6)):
        with pytest.raises(Undefined):
            evaluate(e, {x: at})
    assert evaluate(sp.sqrt(x) + sp.log(x), {x: 4.0}) == 2 + math.log(4)


def test_a_series_is_summed_to_convergence_and_a_slow_or_divergent_one_has_no_value():
    # Σ_{k≥0} x^k/k! (the LaTeX reader's \sum_{k=0}^\infty): the partial sums until the terms fall below
    # the precision geometrically; Σ 1/k² falls too slowly and Σ (−1)^k not at all: no value, never a truncation
    assert evaluate(sp.Sum(x**k / sp.factorial(k), (k, 0, sp.oo)), {x: 0.7}) == pytest.approx(math.exp(0.7), rel=1e-15)
    for series in (sp.Sum(1 / k**2, (k, 1, sp.oo)), sp.Sum((-1) ** k, (k, 0, sp.oo))):
        with pytest.raises(Undefined, match="does not converge fast enough"):
            evaluate(series, {x: 0.7})
