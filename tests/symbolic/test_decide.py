import sympy as sp

from mathcheck.symbolic import decide, rules
from mathcheck.symbolic.decide import zero_test
from mathcheck.symbolic.steps import check_part
from mathcheck.claim import Context, Part, Step

x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", real=True)
n = sp.Symbol("n", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True)
z = sp.IndexedBase("z")


def test_true_identities_are_proved():
    assert zero_test(sp.log(2 * x) - sp.log(2) - sp.log(x)).value is True
    assert zero_test(sp.sin(x + y) - sp.sin(x) * sp.cos(y) - sp.cos(x) * sp.sin(y)).value is True
    assert (
        zero_test(sp.Sum(sp.KroneckerDelta(i, k) * z[k], (k, 1, n)) - z[i], Context(indices=((i, 1, n),))).value is True
    )


def test_false_identity_is_refuted_with_a_counterexample():
    d = zero_test(sp.log(2 * x) - sp.log(x))
    assert d.value is False
    assert d.status == "refuted"
    assert dict(d.counterexample)["difference"].startswith("0.693")


def test_a_difference_of_1e_minus_9_is_still_refuted():
    d = zero_test(sp.sin(x) - sp.sin(x) - sp.Rational(1, 10**9))
    assert d.value is False


def test_sum_counterexample_uses_concrete_dimensions_and_index_ranges():
    d = zero_test(sp.Sum(z[k], (k, 1, n)) - n * z[1])
    assert d.value is False
    point = dict(d.counterexample)
    assert "n" in point and "z[1]" in point


def test_budget_overrun_is_inconclusive(monkeypatch):
    def hang(e, ranges):
        while True:
            pass

    monkeypatch.setattr(decide, "plan", lambda e, hypotheses=(): [("hang", hang), ("simplify", hang)])
    d = zero_test(x - x + 1, attempt_s=0.1, total_s=0.3)
    assert d.value is None
    assert d.timed_out
    assert d.status == "inconclusive"


def test_part_with_a_false_step_is_refuted():
    part = Part("p", (Step(sp.log(2 * x), "start"), Step(sp.log(x) + 2, "wrong: log 2 is not 2")), general=False)
    r = check_part(part)
    assert r.status == "refuted"
    assert r.failing.index == 1
    assert r.failing.decision.counterexample


def test_part_whose_step_runs_out_of_budget_is_inconclusive(monkeypatch):
    def hang(e, ranges):
        while True:
            pass

    monkeypatch.setattr(decide, "plan", lambda e, hypotheses=(): [("hang", hang)])
    part = Part("p", (Step(x, "start"), Step(x + 0 * y, "same")), general=False)
    r = check_part(part, attempt_s=0.1, step_s=0.2)
    assert r.status == "inconclusive"


def test_rule_misapplied_is_never_proved():
    q, kk = sp.IndexedBase("q"), sp.IndexedBase("k")
    d = sp.Symbol("d", integer=True, positive=True)
    dot = sp.Sum(q[i] * kk[i], (i, 1, d))
    # E is uninterpreted: 2·E(q·k)² is not shown zero, and no point can refute it either.
    part = Part(
        "p",
        (
            Step(rules.Var(dot), "start"),
            Step(rules.E(dot**2) + rules.E(dot) ** 2, "wrong sign", rules.variance_definition()),
        ),
    )
    assert check_part(part).status == "inconclusive"
    # Once the moments make it concrete, a wrong moment is refuted with a counterexample.
    mu = sp.Symbol("mu", real=True)
    part = Part(
        "p",
        (Step(rules.E(q[i]), "start"), Step(mu**2, "wrong first moment", rules.moments({q: (mu, sp.Integer(1))}))),
        general=False,
    )
    assert check_part(part).status == "refuted"


def test_declared_general_part_without_symbolic_dimension_is_an_error():
    part = Part("p", (Step(x + x, "start"), Step(2 * x, "collect")), general=True)
    r = check_part(part)
    assert r.status == "error"
    assert r.general is None  # computed: the statement has no size
    assert any("declared general=True, but the computed generality is None" in note for note in r.notes)
    assert check_part(Part("p", part.steps)).status == "proved"  # no expectation declared


def test_free_of_is_enforced():
    part = Part("p", (Step(x + y - y, "start"), Step(x, "cancel")), general=False, free_of=(x,))
    assert check_part(part).status == "refuted"


p = sp.IndexedBase("p", positive=True)
q = sp.IndexedBase("q", positive=True)


def test_gibbs_inequality_link_is_proved_for_symbolic_n():
    kl = -sp.Sum(p[i] * sp.log(q[i] / p[i]), (i, 1, n))
    part = Part(
        "gibbs",
        (
            Step(kl, "KL(p‖q)"),
            Step(-sp.Sum(p[i] * (q[i] / p[i] - 1), (i, 1, n)), "log y ≤ y − 1", relation=">="),
            Step(sp.Sum(p[i], (i, 1, n)) - sp.Sum(q[i], (i, 1, n)), "expand"),
        ),
    )
    r = check_part(part)
    assert r.status == "proved"
    assert part.relation == ">="
    assert isinstance(part.statement, sp.GreaterThan)


def test_false_inequality_link_is_refuted():
    kl = -sp.Sum(p[i] * sp.log(q[i] / p[i]), (i, 1, n))
    part = Part("bad", (Step(kl, "KL"), Step(sp.Sum(p[i] * (q[i] / p[i] - 1), (i, 1, n)), "wrong", relation=">=")))
    r = check_part(part)
    assert r.status == "refuted"
    assert float(dict(r.failing.decision.counterexample)["difference"]) < 0


def test_sign_test_three_values():
    from mathcheck.symbolic.decide import sign_test

    assert sign_test(x**2 - 2 * x + 1).value is True
    assert sign_test(y**2 - 3 * y + 1).value is False
    assert sign_test(y**2 + 1, strict=True).value is True
    assert sign_test(sp.Symbol("a", real=True) * sp.Symbol("b", real=True) + sp.sin(y), strict=True).value is not True


def test_chain_may_not_mix_directions():
    import pytest

    with pytest.raises(ValueError):
        Part("p", (Step(x, "a"), Step(x, "b", relation=">="), Step(x, "c", relation="<=")))


def test_derivatives_are_taken_before_the_counterexample_point_is_substituted():
    T = sp.Symbol("T", positive=True)
    d = zero_test(sp.Derivative(T * sp.log(T), T) - sp.log(T))  # the derivative is log T + 1
    assert d.value is False
    assert float(dict(d.counterexample)["difference"]) == 1.0


def test_a_positive_value_however_small_never_refutes_a_strict_inequality():
    """50 digits are relative: exp(−100·x²) at x = −789/500 is 7.2e-109 and exp(−1000·x⁴) there is
    1.4e-2693 (a float underflows to 0). Both once read as "≤ 1e-30, so not > 0" and refuted a true
    statement; a value refutes ``e > 0`` only when it is surely negative or exactly zero."""
    x = sp.Symbol("x", real=True)
    for e in (sp.exp(-100 * x**2), sp.exp(-1000 * x**4)):
        assert decide.relation_test(e, sp.Integer(0), ">").status != "refuted"
    zero = decide.relation_test(x - x, sp.Integer(0), ">")
    assert zero.status == "refuted" and dict(zero.counterexample)["difference"] == "0"
    assert decide.relation_test(-sp.exp(-100 * x**2), sp.Integer(0), ">").status == "refuted"
