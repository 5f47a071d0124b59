"""The catalog's rules that cannot pass a zero test are rules.py's checked constructors (issue 21).

Each constructor refuses a misuse by its side condition (the step is then not shown), and a rule
built anywhere else — the catalog's own derivations included — is zero-tested like a transform."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from mathcheck import registry
from mathcheck.symbolic import rules
from mathcheck.symbolic.steps import check_part
from mathcheck.claim import Context, Part, Step
from mathcheck.lazy import sympy as sp

T, eps = sp.Symbol("T", positive=True), sp.Symbol("epsilon", positive=True)
x = sp.Symbol("x", positive=True)
i, k, t = sp.symbols("i k t", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True, positive=True)
e = sp.Symbol("e", integer=True)


def link(start, end, rule, given=(), ctx=Context()):
    """The status of the part start = end citing ``rule``, and the failing step's note."""
    r = check_part(Part("p", (Step(start, "start"), Step(end, "by the rule", rule)), given=given), ctx)
    return r.status, (r.failing.decision.how if r.failing else "")


def refused(start, end, rule, why, given=(), ctx=Context()):
    status, how = link(start, end, rule, given, ctx)
    assert status != "proved" and "side condition not met" in how and why in how, how


MOVED = [
    rules.limit_laws(),
    rules.reciprocal_limit(T, eps),
    rules.difference_quotient(eps),
    rules.unique_zero(),
    rules.small_remainder(e, m),
    rules.remainder_as_floor(),
    rules.surprisal(
        sp.IndexedBase("p", positive=True),
        sp.IndexedBase("s", nonnegative=True),
        sp.Eq(sp.Sum(sp.IndexedBase("p", positive=True)[i], (i, 1, n)), 1),
    ),
    rules.join_ranges(),
    rules.causal_mask(t),
    rules.delta_outside(),
    rules.factor_in(),
    rules.factor_out(),
    rules.product_as_exp_sum(),
]


@pytest.mark.parametrize("rule", MOVED, ids=lambda r: r.name)
def test_the_moved_rules_are_vouched_by_rules_py(rule):
    assert rules.vouched(rule)


def test_a_raw_rule_built_under_mathcheck_derivations_is_not_trusted(tmp_path):
    """A module under mathcheck.derivations no longer vouches for the rules it builds by hand."""
    src = tmp_path / "probe.py"
    src.write_text(
        "from mathcheck.symbolic import rules\nfrom mathcheck.lazy import sympy as sp\n"
        "LIAR = rules.Rule('limits are zero', 'calculus', lambda e: sp.Integer(0))\n"
        "LAW = rules.Rule('a law', 'law', lambda e: sp.Integer(0), check=lambda e, env: None)\n"
    )
    spec = importlib.util.spec_from_file_location("mathcheck.derivations._probe", src)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[spec.name]
    for liar in (mod.LIAR, mod.LAW):
        assert not rules.vouched(liar)
        status, how = link(sp.Limit(sp.exp(-x) + 1, x, sp.oo), sp.Integer(0), liar)
        assert status != "proved" and "changes the expression" in how, how


def test_the_catalogs_own_hand_built_rules_are_not_vouched():
    """e.g. the limit rule built in derivations/calculus.py is zero-tested (and passes it)."""
    registry.get("multihead-split-merge")  # the catalog's modules are loaded
    from mathcheck.derivations import shapes

    assert not rules.vouched(shapes._LIMIT)


def test_limit_laws_leave_an_infinite_limit_alone():
    refused_status, how = link(sp.Limit(1 / x, x, 0, "+"), sp.Integer(0), rules.limit_laws())
    assert refused_status != "proved"
    assert link(sp.Limit(sp.exp(-x) + 1, x, sp.oo), sp.Integer(1), rules.limit_laws())[0] == "proved"


def test_reciprocal_limit_needs_a_limit_at_infinity_and_a_fresh_positive_epsilon():
    rule = rules.reciprocal_limit(T, eps)
    refused(sp.Limit(T * sp.sin(1 / T), T, 0, "+"), sp.Limit(sp.sin(eps) / eps, eps, 0, "+"), rule, "not at +∞")
    refused(sp.Limit(eps * T, T, sp.oo), sp.Limit(eps / eps, eps, 0, "+"), rule, "not fresh")
    free = sp.Symbol("u")
    refused(
        sp.Limit(T * sp.sin(1 / T), T, sp.oo),
        sp.Limit(sp.sin(free) / free, free, 0, "+"),
        rules.reciprocal_limit(T, free),
        "positive",
    )
    assert link(sp.Limit(T * sp.sin(1 / T), T, sp.oo), sp.Limit(sp.sin(eps) / eps, eps, 0, "+"), rule)[0] == "proved"


def test_difference_quotient_needs_g_of_zero_to_vanish_at_zero():
    rule = rules.difference_quotient(eps)
    refused(sp.Limit((1 + eps) / eps, eps, 0, "+"), sp.Subs(sp.Derivative(1 + eps, eps), eps, 0), rule, "g(0) = 0")
    refused(sp.Limit(sp.sin(eps) / eps, eps, 1), sp.Subs(sp.Derivative(sp.sin(eps), eps), eps, 0), rule, "not at 0")
    g = sp.sqrt(eps)
    refused(sp.Limit(g / eps, eps, 0, "+"), sp.Subs(sp.Derivative(g, eps), eps, 0), rule, "not finite")
    assert link(sp.Limit(sp.sin(eps) / eps, eps, 0, "+"), sp.Integer(1), rule)[0] == "proved"


def test_unique_zero_needs_exactly_one_zero():
    two = sp.Function("UniqueZero")((x - 1) * (x - 2), x)
    refused(two, sp.Integer(1), rules.unique_zero(), "exactly one zero")
    assert link(sp.Function("UniqueZero")(1 - 1 / x, x), sp.Integer(1), rules.unique_zero())[0] == "proved"


def test_small_remainder_needs_the_range_and_a_positive_divisor():
    start, end = sp.Matrix([sp.floor(e / m), sp.Mod(e, m)]), sp.Matrix([0, e])
    refused(start, end, rules.small_remainder(e, m), "nothing places e in 0..m − 1")
    refused(start, end, rules.small_remainder(e, m), "nothing places e", given=(sp.Le(e, m),))  # e = m: ⌊1⌋ = 1
    d = sp.Symbol("d", integer=True)
    refused(
        sp.Matrix([sp.floor(e / d), sp.Mod(e, d)]),
        end,
        rules.small_remainder(e, d),
        "positive",
        ctx=Context(indices=((e, 0, d - 1),)),
    )
    assert link(start, end, rules.small_remainder(e, m), ctx=Context(indices=((e, 0, m - 1),)))[0] == "proved"


def test_remainder_as_floor_needs_a_nonzero_divisor():
    c, d = sp.Symbol("c", integer=True), sp.Symbol("d", integer=True)
    refused(d * sp.floor(c / d) + sp.Mod(c, d), c, rules.remainder_as_floor(), "not known to be nonzero")
    assert link(m * sp.floor(c / m) + sp.Mod(c, m), c, rules.remainder_as_floor())[0] == "proved"


def test_surprisal_needs_a_distribution_of_positive_entries_and_a_fresh_nonnegative_s():
    p, s = sp.IndexedBase("p", positive=True), sp.IndexedBase("s", nonnegative=True)
    total = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)
    start = -sp.Sum(p[i] * sp.log(p[i]), (i, 1, n))
    end = sp.Sum(sp.exp(-s[i]) * s[i], (i, 1, n))
    refused(start, end, rules.surprisal(p, s, total), "is not a hypothesis")  # p need not sum to 1
    q = sp.IndexedBase("q", real=True)
    refused(
        -sp.Sum(q[i] * sp.log(q[i]), (i, 1, n)),
        end,
        rules.surprisal(q, s, sp.Eq(sp.Sum(q[i], (i, 1, n)), 1)),
        "positive",
        given=(sp.Eq(sp.Sum(q[i], (i, 1, n)), 1),),
    )
    r = sp.IndexedBase("r", real=True)
    refused(start, sp.Sum(sp.exp(-r[i]) * r[i], (i, 1, n)), rules.surprisal(p, r, total), "nonnegative", given=(total,))
    refused(start + s[1], end + s[1], rules.surprisal(p, s, total), "not fresh", given=(total,))
    # s is fresh only when the statement does not mention it: H(p) ≥ 0, through Σ e^{−s_i} s_i
    part = Part(
        "p",
        (
            Step(start, "H(p)"),
            Step(end, "surprisal", rules.surprisal(p, s, total)),
            Step(sp.Integer(0), "nonnegative terms", relation=">="),
        ),
        given=(total,),
    )
    assert check_part(part).status == "proved"
    refused(start, end, rules.surprisal(p, s, total), "not fresh", given=(total,))  # the statement names s


# --- issue 32: every rule under every convention the project adopts (Karr's: Σ_{k=a}^{b} with
# b < a − 1 is −Σ_{k=b+1}^{a−1}, b = a − 1 empty; docs/soundness.md) --------------------------------

a_, b_, u_ = sp.symbols("a b u", integer=True)
f_ = sp.IndexedBase("f")


def test_delta_outside_refuses_a_reversed_range_that_contains_u():
    # Σ_{k=5}^{1} f_k δ_{k3} = −f_3 although 3 > 1: "u > b" alone is a false proof (issue 32)
    s = sp.Sum(f_[k] * sp.KroneckerDelta(k, u_), (k, a_, t))
    refused(s, sp.Integer(0), rules.delta_outside(), "reversed range", given=(sp.Lt(t, u_),))
    assert sp.Sum(f_[k] * sp.KroneckerDelta(k, 3), (k, 5, 1)).doit() == -f_[3]


def test_delta_outside_still_applies_when_the_range_is_ordered_or_u_avoids_both():
    s = sp.Sum(f_[k] * sp.KroneckerDelta(k, u_), (k, 1, t))
    assert link(s, sp.Integer(0), rules.delta_outside(), given=(sp.Le(1, t), sp.Lt(t, u_)))[0] == "proved"
    # a may exceed t + 1 (reversed), but u lies above both a..t and t+1..a−1
    s2 = sp.Sum(f_[k] * sp.KroneckerDelta(k, u_), (k, a_, t))
    assert link(s2, sp.Integer(0), rules.delta_outside(), given=(sp.Lt(t, u_), sp.Le(a_, u_)))[0] == "proved"


def test_bounds_of_an_integer_from_a_fractional_bound_are_rounded_soundly():
    from mathcheck.symbolic.rules.finite_sums import _bounds, _nonnegative

    v = sp.Symbol("v", integer=True)
    assert _bounds(v, [sp.Gt(v, sp.Rational(1, 2))]) == ([1], [])  # not v ≥ 3/2
    assert _bounds(v, [sp.Lt(v, sp.Rational(1, 2))]) == ([], [0])  # not v ≤ −1/2
    assert not _nonnegative(-2 * v - 1, [sp.Lt(v, sp.Rational(1, 2))])  # false at v = 0
    # the false proof it allowed: Σ_{k=−5}^{2v} f_k δ_{k0} = 0 "as 0 > 2v" from v < 1/2 (v = 0: f_0)
    s = sp.Sum(f_[k] * sp.KroneckerDelta(k, 0), (k, -5, 2 * v))
    refused(s, sp.Integer(0), rules.delta_outside(), "outside", given=(sp.Lt(v, sp.Rational(1, 2)),))


def test_every_finite_sum_rule_holds_wherever_its_side_condition_passes():
    """The rule surface of bench/fuzz.py: random bounds in every convention (ordered, empty,
    reversed, zero sizes), symbolic bounds pinned or left free by the hypotheses; each case's truth
    is settled by our own Karr loop, independently of the rule and of SymPy's doit."""
    from bench.fuzz import rule_case

    bad = [c for c in (rule_case(0, k) for k in range(300)) if c["verdict"] in ("false proof", "crash")]
    assert not bad, bad[:3]


def test_surprisal_needs_each_entry_inside_the_distributions_range():
    # p_u ≤ 1 "from Σ_{i=1}^{n} p_i = 1" was proved: u = n + 1, p_{n+1} = 5 is a counterexample
    p, s = sp.IndexedBase("p", positive=True), sp.IndexedBase("s", nonnegative=True)
    total = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)

    def bound(start, mid, end, given):
        r = check_part(
            Part(
                "p",
                (
                    Step(start, "start"),
                    Step(mid, "surprisal", rules.surprisal(p, s, total)),
                    Step(end, "e^{-s} ≤ 1", relation="<="),
                ),
                given=given,
            ),
            Context(),
        )
        return r.status, (r.failing.decision.how if r.failing else "")

    status, how = bound(p[u_], sp.exp(-s[u_]), 1, (total,))
    assert status != "proved" and "in 1..n" in how, how
    assert bound(p[u_], sp.exp(-s[u_]), 1, (total, sp.Le(1, u_), sp.Le(u_, n)))[0] == "proved"
    # a sum over a range that may leave 1..n (a reversed Σ_{i=a}^{n} runs over n+1..a−1)
    whole = (sp.Sum(p[i], (i, a_, n)), sp.Sum(sp.exp(-s[i]), (i, a_, n)), n - a_ + 1)
    status, how = bound(*whole, (total, sp.Le(1, a_)))
    assert status != "proved" and "in 1..n" in how, how
    assert "in 1..n" not in bound(*whole, (total, sp.Le(1, a_), sp.Le(a_, n)))[1]
