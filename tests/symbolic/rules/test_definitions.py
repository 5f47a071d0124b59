"""mathcheck.symbolic.rules.definitions: a substitution needs its equation among the part's
hypotheses; a witness needs its hypothesis, the right sign and a fresh symbol."""

import pytest
import sympy as sp

from mathcheck.symbolic.rules.base import Env, SideCondition
from mathcheck.symbolic.rules.definitions import substitute, unfold, witness

a, b = sp.symbols("a b", real=True)
w = sp.Symbol("w", positive=True)


def test_substitute_needs_the_equation_as_a_hypothesis():
    rule = substitute({a: 2}, "a = 2")
    with pytest.raises(SideCondition, match=r"add Eq\(a, 2\) to its given"):
        rule.applied(a + b, Env())
    assert rule.applied(a + b, Env(hypotheses=(sp.Eq(a, 2),))) == b + 2


def test_a_witness_is_fresh_and_as_strict_as_its_hypothesis():
    h = sp.Gt(a, b)
    rule = witness(h, w)
    assert rule.applied(a - b, Env(hypotheses=(h,), symbols=frozenset({a, b}))) == w
    with pytest.raises(SideCondition, match="not fresh"):
        rule.applied(a - b, Env(hypotheses=(h,), symbols=frozenset({a, b, w})))
    with pytest.raises(SideCondition, match="must be positive"):
        witness(h, sp.Symbol("v", nonnegative=True)).applied(a, Env(hypotheses=(h,)))


def test_unfold_replaces_every_application_by_its_definition():
    f = sp.Function("f")
    assert unfold("f(t) = t²", "f", lambda t: t**2).apply(f(a) + f(b + 1)) == a**2 + (b + 1) ** 2
