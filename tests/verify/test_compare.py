"""The numeric layer's own machinery: bounded evaluation, three-way agreement, derived tolerances."""

import math

import pytest
import sympy as sp
import torch
import torch.nn.functional as F

from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison
from mathcheck.numeric.evaluate import Derived
from mathcheck.numeric.bounded import BoundedEvaluator, evaluate_bounded

n = sp.Symbol("n", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True)
x, T, mu = sp.symbols("x T mu", real=True)
z, s = sp.IndexedBase("z"), sp.IndexedBase("s")
SOFTMAX = sp.exp(z[i]) / sp.Sum(sp.exp(z[k]), (k, 1, n))


def test_the_bound_covers_cancellation_and_vanishes_without_it():
    v, err = BoundedEvaluator({x: 1e8}).pair((x + 1) ** 2 - x**2)
    assert abs(float(v) - 200000001) <= float(err) and 1 < float(err) < 100  # 1e16 loses digits
    v, err = BoundedEvaluator({x: 3}).pair(x**2 + 2 * x)  # exact inputs: a few ε of the result
    assert float(v) == 15 and 0 < float(err) < 10 * 15 * 2.3e-16


def test_derivative_by_autograd_matches_the_softmax_jacobian():
    zz = torch.randn(6, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    idx = torch.arange(1, 7, dtype=torch.float64)
    v, err, _ = evaluate_bounded(sp.Derivative(SOFTMAX, z[j]), {n: 6, z: zz, i: idx[:, None], j: idx[None, :]})
    J = torch.autograd.functional.jacobian(lambda t: F.softmax(t, 0), zz)
    assert (v - J).abs().max() <= err.max() and err.max() < 1e-14


def test_limits_at_the_point_and_by_richardson():
    # the limit point in IEEE arithmetic: exp(a − ∞) = 0
    v, _, _ = evaluate_bounded(sp.Limit(sp.exp(x + mu) / (sp.exp(x + mu) + 1), mu, -sp.oo), {x: 2.0})
    assert float(v) == 0.0
    # T·(softmax − 1/2) at T → ∞ is ∞·0 there: extrapolated, with the error it reports
    e = sp.Limit(T * (sp.exp(2 / T) / (sp.exp(2 / T) + sp.exp(1 / T)) - sp.Rational(1, 2)), T, sp.oo)
    v, err, _ = evaluate_bounded(e, {})
    assert abs(float(v) - 0.25) <= float(err) < 1e-6


def test_unique_zero_by_bisection():
    f = sp.Function("UniqueZero")(sp.Derivative(x - sp.log(x) - 1, x), x)
    v, err, _ = evaluate_bounded(f, {})
    assert abs(float(v) - 1) <= float(err) + 1e-15


def test_derived_binding_moves_under_autograd():
    ls, p = sp.IndexedBase("ls"), sp.IndexedBase("p")
    zz = torch.tensor([0.3, -1.0, 2.0], dtype=torch.float64)
    pp = torch.tensor([0.2, 0.5, 0.3], dtype=torch.float64)
    e = sp.Derivative(-sp.Sum(p[j] * ls[j], (j, 1, 3)), z[i])
    env = {
        z: zz,
        p: pp,
        ls: Derived(lambda b: F.log_softmax(b["z"], -1)),
        i: torch.arange(1.0, 4.0, dtype=torch.float64),
    }
    v, _, _ = evaluate_bounded(e, env)
    assert torch.allclose(v, F.softmax(zz, 0) - pp, atol=1e-15)


def _softmax_sum_statement():
    return sp.Eq(sp.Sum(s[j], (j, 1, n)), 1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_three_way_passes_the_truth_and_refutes_a_doubled_left_side(dtype):
    dt = getattr(torch, dtype)
    sv = F.softmax(torch.randn(100, dtype=dt, generator=torch.Generator().manual_seed(2)), 0)
    env = {s: sv, n: 100}
    cmp = Comparison("F.softmax", Options(dtype=dtype))
    assert cmp.agree("sum", sv.sum(), _softmax_sum_statement(), env, part="normalised")
    assert not cmp.agree("twice", sv.sum(), sp.Eq(2 * sp.Sum(s[j], (j, 1, n)), 1), env, part="normalised")
    v = cmp.verdict()
    assert v.status == "refuted" and v.counterexample[0] == ("case", "twice")
    (case, err, tol), _ = v.comparisons
    assert case == "sum" and err <= tol
    # the tolerance follows the dtype: float32's is ~2^29 times float64's
    assert (tol > 1e-7) == (dtype == "float32")


def test_rhs_off_by_one_part_in_a_million_is_caught_in_float64():
    sv = F.softmax(torch.randn(50, dtype=torch.float64, generator=torch.Generator().manual_seed(3)), 0)
    cmp = Comparison("F.softmax", Options())
    assert not cmp.agree("off", sv.sum(), sp.Eq(sp.Sum(s[j], (j, 1, n)), sp.Float("1.000001")), {s: sv, n: 50})


def test_relations_by_sign_with_the_reference_for_the_left_side():
    sv = F.softmax(torch.randn(10, dtype=torch.float64, generator=torch.Generator().manual_seed(4)), 0)
    env = {s: sv, i: torch.arange(1.0, 11.0, dtype=torch.float64)}
    cmp = Comparison("F.softmax", Options())
    assert cmp.agree("positive", sv, sp.StrictGreaterThan(s[i], 0), env, reference_side="lhs")
    assert not cmp.agree("flipped", sv, sp.LessThan(s[i], 0), env, reference_side="lhs")
    assert cmp.verdict().counterexample[-2] == ("relation", "lhs <= rhs")


def test_a_left_side_that_cannot_be_evaluated_is_named_in_the_evidence():
    H = sp.Function("H")
    sv = torch.full((4,), 0.25, dtype=torch.float64)
    cmp = Comparison("Categorical.entropy", Options())
    ref = torch.distributions.Categorical(probs=sv).entropy()
    assert cmp.agree("uniform", ref, sp.Eq(H(s), sp.log(4)), {s: sv}, part="uniform-entropy")
    v = cmp.verdict()
    assert v.status == "passed"
    assert v.unevaluated == (("uniform-entropy", "EvaluationError: no torch function for H"),)


def test_bounds_are_finite_and_math_agrees():
    assert math.isclose(float(evaluate_bounded(sp.log(sp.exp(x)), {x: 0.5})[0]), 0.5)


def test_replay_flags_carry_every_option_that_changes_a_result():
    from mathcheck.engine import replay_options
    from mathcheck.outcome import replay

    assert replay("prove", ["c"], replay_options(Options(seed=7))) == "mathcheck prove c"
    assert (
        replay("prove", ["c"], replay_options(Options(seed=7, dtype="float32", device="cuda:1"), ("my_claims.py",)))
        == "mathcheck prove c --dtype float32 --device cuda:1 --from my_claims.py"
    )
