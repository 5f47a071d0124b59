"""mathcheck.symbolic.rules.base: the Rule value, its side-condition checks and who vouches for
it — only a rule built by a constructor of the rules package is taken on its word."""

import pytest
import sympy as sp

from mathcheck.symbolic.rules.base import CHECKED_KINDS, Env, Rule, SideCondition, in_range, requires, trusted
from mathcheck.symbolic.rules.calculus import differentiate

i = sp.Symbol("i", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
p = sp.IndexedBase("p")


def test_requires_accepts_its_hypothesis_under_another_index_name_and_refuses_without_it():
    k = sp.Symbol("k", integer=True)
    check = requires(sp.Eq(sp.Sum(p[i], (i, 1, n)), 1))
    check(None, Env(hypotheses=(sp.Eq(sp.Sum(p[k], (k, 1, n)), 1),)))  # bound variable renamed: the same
    with pytest.raises(SideCondition, match="is not a hypothesis of the part"):
        check(None, Env(hypotheses=()))


def test_in_range_needs_both_bounds():
    check = in_range(i)
    check(None, Env(hypotheses=(i >= 1, i <= n)))
    with pytest.raises(SideCondition, match="nothing says where i lies"):
        check(None, Env(hypotheses=(i >= 1,)))


def test_applied_checks_the_side_condition_before_the_rule_runs():
    ran = []
    rule = Rule("double", "lemma", lambda e: ran.append(e) or 2 * e, check=requires(sp.Eq(n, 3)))
    with pytest.raises(SideCondition):
        rule.applied(n, Env())
    assert ran == [] and rule.applied(n, Env(hypotheses=(sp.Eq(n, 3),))) == 2 * n


def test_a_trusted_kind_built_here_is_not_trusted_and_the_constructors_is():
    x = sp.Symbol("x")
    by_hand = Rule("differentiate", "calculus", lambda e: e.doit())  # built outside the package
    assert not trusted(by_hand) and trusted(differentiate(x))
    assert trusted(Rule("notation", "definition", lambda e: e))  # stated: printed among the hypotheses
    assert "lemma" in CHECKED_KINDS
