"""§5 information theory: what the claims' checks rely on about PyTorch, and what they must catch."""

import math

import pytest
import torch
import torch.nn.functional as F

from mathcheck import registry
from mathcheck.lazy import sympy as sp
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison
from mathcheck.verify.information import relate
from tests.conftest import proved, refuted

IDS = ("information-content", "entropy-bounds", "gibbs-inequality", "kl-distillation")
dt = torch.float64


def _dist(n, seed, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    return F.softmax(torch.randn(n, generator=g, dtype=dt) * scale, 0)


# --- PyTorch behaviours the claims pin ------------------------------------------------------------


def test_kl_div_is_kl_of_target_from_exp_input():
    p, q = _dist(7, 1), _dist(7, 2)
    cat = torch.distributions.Categorical
    ours = F.kl_div(q.log(), p, reduction="sum")
    assert torch.isclose(ours, torch.distributions.kl_divergence(cat(probs=p), cat(probs=q)), atol=1e-14)
    reverse = torch.distributions.kl_divergence(cat(probs=q), cat(probs=p))
    assert abs(float(ours - reverse)) > 1e-3  # the other order is a different number


def test_kl_div_mean_divides_by_classes_too_and_pytorch_warns():
    g = torch.Generator().manual_seed(3)
    B, n = 4, 5
    p = F.softmax(torch.randn(B, n, generator=g, dtype=dt), -1)
    q = F.softmax(torch.randn(B, n, generator=g, dtype=dt), -1)
    per_sample = sum(float(F.kl_div(q[b].log(), p[b], reduction="sum")) for b in range(B)) / B
    assert math.isclose(float(F.kl_div(q.log(), p, reduction="batchmean")), per_sample, rel_tol=1e-12)
    with pytest.warns(UserWarning, match="batchmean"):
        mean = float(F.kl_div(q.log(), p, reduction="mean"))
    assert math.isclose(mean, per_sample / n, rel_tol=1e-12)


def test_categorical_clamps_probabilities_so_autograd_misses_dI_dp_at_p_1():
    """Why the 'decreasing' check uses p < 1: at p = 1 the derivative −1/p = −1, autograd says 0."""
    p = torch.tensor(1.0, dtype=dt, requires_grad=True)
    info = -torch.distributions.Categorical(probs=torch.stack([p, 1 - p])).log_prob(torch.tensor(0))
    (grad,) = torch.autograd.grad(info, p)
    assert float(grad) == 0.0
    x = torch.tensor(0.25, dtype=dt, requires_grad=True)
    info = -torch.distributions.Categorical(probs=torch.stack([x, 1 - x])).log_prob(torch.tensor(0))
    (grad,) = torch.autograd.grad(info, x)
    assert math.isclose(float(grad), -4.0, rel_tol=1e-12)


# --- the claims -----------------------------------------------------------------------------------


def test_seed_verdicts():
    kinds = {cid: registry.get(cid).seed_verdict[0] for cid in IDS}
    assert kinds == {
        "information-content": "imprecise",
        "entropy-bounds": "holds-with-conditions",
        "gibbs-inequality": "holds-with-conditions",
        "kl-distillation": "imprecise",
    }
    assert "KL(teacher‖student)" in registry.get("kl-distillation").seed_verdict[1]


def test_general_where_the_mathematics_allows():
    assert proved("entropy-bounds").symbolic.general is True
    assert proved("gibbs-inequality").symbolic.general is True
    assert proved("information-content").symbolic.general is False  # a scalar statement
    parts = {p.name: p.general for p in proved("kl-distillation").symbolic.parts}  # computed
    assert parts.pop("asymmetry") is None and all(parts.values())  # an example on two outcomes: no size


def test_inverse_proportional_reading_fails_even_with_its_best_constant():
    m = {x.name: x for x in refuted("information-content").mutants}["inverse-proportional"]
    assert m.numeric.status == "refuted"
    assert any("fitted" in d for d in m.numeric.details)


def test_kl_without_normalisation_is_refuted_by_an_unnormalised_pair():
    m = {x.name: x for x in refuted("gibbs-inequality").mutants}["no-normalisation"]
    case = dict(m.numeric.counterexample)["case"]
    assert case.startswith("link")
    assert float(dict(m.numeric.counterexample)["pytorch"]) < 0  # F.kl_div itself went negative


def test_plots_are_attached_and_their_trends_hold():
    (plot,) = proved("entropy-bounds").numeric.plots
    T, H = plot.series[0][1], plot.series[0][2]
    assert all(b >= a - 1e-12 for a, b in zip(H, H[1:]))  # dH/dT = Var_q(z)/T³ ≥ 0
    assert H[0] < 1e-2 and abs(H[-1] - math.log(10)) < 1e-3
    (grad,) = proved("kl-distillation").numeric.plots
    T, norm = grad.series[0][1], grad.series[0][2]
    slope = math.log(norm[-1] / norm[-2]) / math.log(T[-1] / T[-2])
    assert abs(slope + 2) < 1e-2


def test_hinton_zero_mean_form_holds_for_zero_mean_logits():
    g = torch.Generator().manual_seed(4)
    n, T = 6, 1e4
    z, v = torch.randn(n, generator=g, dtype=dt), torch.randn(n, generator=g, dtype=dt)
    z, v = z - z.mean(), v - v.mean()
    zz = z.clone().requires_grad_(True)
    loss = F.cross_entropy((zz / T).unsqueeze(0), F.softmax(v / T, -1).unsqueeze(0))
    (grad,) = torch.autograd.grad(loss, zz)
    assert torch.allclose(grad * T**2, (z - v) / n, atol=1e-4)


def test_relate_inequalities():
    cmp = Comparison("test", Options(), atol=1e-12, rtol=1e-10)
    one = torch.tensor([1e-16, 1.0], dtype=dt)
    assert relate(cmp, "strict", ">", one, 0.0)  # 1e-16 > 0 counts
    assert relate(cmp, "weak", ">=", torch.tensor(-1e-13, dtype=dt), 0.0)  # rounding
    assert not relate(cmp, "fails", "<", one, 0.0)
    assert dict(cmp.counterexample)["relation"] == "<"


def test_sign_test_refutes_log_above_chord_and_proves_lemma():
    from mathcheck.symbolic.decide import sign_test

    x = sp.Symbol("x", positive=True)
    bad = sign_test(sp.log(x) - (x - 1))  # SymPy's minimum raises on this form
    assert bad.value is False and float(dict(bad.counterexample)["difference"]) < 0
    assert sign_test(x - 1 - sp.log(x)).value is True
