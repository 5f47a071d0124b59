"""§4 calculus claims: the PyTorch behaviours their checks rely on, and checks that can fail."""

import torch
import torch.nn.functional as F

from mathcheck import registry
from mathcheck.symbolic import steps
from mathcheck.claim import Context, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.verify import Options
from mathcheck.verify import calculus as checks
from mathcheck.verify._compare import Comparison

IDS = (
    "chain-rule-linear-layer",
    "gradient-descent-decrease",
    "adam-update",
    "layernorm-statistics",
    "residual-gradient-path",
)
CHECKS = {cid: getattr(checks, cid.replace("-", "_")) for cid in IDS}


def test_nn_linear_weight_gradient_is_the_transpose_of_dL_dW():
    """nn.Linear stores W as (out, in): its weight.grad is (XᵀG)ᵀ, and XᵀG differs from it."""
    torch.manual_seed(0)
    linear = torch.nn.Linear(4, 4, dtype=torch.float64)
    X = torch.randn(6, 4, dtype=torch.float64)
    y = linear(X)
    y.retain_grad()
    F.mse_loss(y, torch.randn(6, 4, dtype=torch.float64)).backward()
    dW = X.T @ y.grad
    assert torch.allclose(linear.weight.grad, dW.T, rtol=1e-12, atol=1e-14)
    assert not torch.allclose(linear.weight.grad, dW, rtol=1e-6, atol=1e-9)


def test_rectangular_mistake_is_a_shape_counterexample_not_a_crash():
    claim = registry.get("chain-rule-linear-layer")
    mutant = next(m for m in claim.mutants if m.name == "missing-transpose")
    v = checks.chain_rule_linear_layer(claim.mutated(mutant), Options())
    assert v.status == "refuted"
    assert any("cannot be evaluated" in d for d in v.details)  # the (7, 5, 3) case


def test_descent_beta_bounds_the_hessian():
    """The check's β must be a real smoothness constant: λ_max of the autograd Hessian ≤ β."""
    for name, loss, w0, beta in checks._descent_cases(Options()):
        H = torch.autograd.functional.hessian(loss, w0)
        assert float(torch.linalg.eigvalsh(H)[-1]) <= beta * (1 + 1e-9), name


def test_descent_step_bound_needs_the_step_size_condition():
    """Without η ≤ 1/β the last link of the descent chain is false, and the sign test says so."""
    eta, beta = sp.symbols("eta beta", positive=True)
    part = Part(
        "unconstrained",
        (Step(eta - beta * eta**2 / 2, "factor"), Step(eta / 2, "claimed for every η", relation=">=")),
        general=False,
    )
    assert steps.check_part(part, Context()).status == "refuted"


def test_adam_step_is_not_scale_invariant_when_gradients_are_below_eps():
    """The seed's 'per-parameter step size' needs √v̂ ≫ ε: at |g| ~ ε Adam's step shrinks with g."""

    def first_step(scale):
        p = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
        opt = torch.optim.Adam([p], lr=1.0, eps=1e-8)
        p.grad = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64) * scale
        opt.step()
        return p.detach()

    assert torch.allclose(first_step(1.0), first_step(1e3), rtol=1e-6)  # ≈ −lr·sign(g)
    assert first_step(1e-9).abs().max() < 0.2  # |g| ≈ ε/10: the step is ≈ g/ε, not ≈ lr


def test_layernorm_output_has_unbiased_variance_above_one():
    """nn.LayerNorm normalises with the biased variance; torch.var's default (n − 1) reads > 1."""
    x = torch.randn(5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    y = torch.nn.LayerNorm(5, eps=0.0, elementwise_affine=False, dtype=torch.float64)(x)
    assert torch.isclose(y.var(correction=0), torch.tensor(1.0, dtype=torch.float64), atol=1e-12)
    assert torch.isclose(y.var(), torch.tensor(5 / 4, dtype=torch.float64), atol=1e-12)


def test_residual_trend_is_measured_plotted_and_can_fail():
    v = checks.residual_gradient_path(registry.get("residual-gradient-path").statements(), Options())
    (plot,) = [p for p in v.plots if p.name == "input-gradient-vs-depth"]
    (_, depths, plain), (_, _, residual) = plot.series
    assert depths == checks.DEPTHS
    assert plain[-1] < 1e-6 * plain[0] and min(residual) > checks.RESIDUAL_FLOOR
    cmp = Comparison("test", Options(), atol=0.0, rtol=0.0)  # the trend comparison rejects a violation
    assert not checks._holds(cmp, "trend", torch.tensor(plain[0]), 1e-6, "<=")
    assert cmp.counterexample


def test_descent_check_attaches_the_loss_change_plot():
    v = checks.gradient_descent_decrease(registry.get("gradient-descent-decrease").statements(), Options())
    assert v.status == "passed"
    (plot,) = v.plots
    measured = dict(zip(plot.series[0][1], plot.series[0][2]))
    assert measured[1.0] < 0 < measured[3.0]  # η = 1/β decreases the loss, η = 3/β (worst case) does not


def test_adam_first_step_sweep_shows_where_the_normalisation_stops():
    v = checks.adam_update(registry.get("adam-update").statements(), Options())
    assert v.status == "passed"
    (plot,) = [p for p in v.plots if p.name == "adam-first-step-vs-gradient"]
    ((_, mags, ratio),) = plot.series
    by_mag = dict(zip(mags, ratio))
    assert all(abs(by_mag[m] - 1) < 1e-3 for m in mags if m >= 1e-4)  # |Δ₁| ≈ lr while |g| ≫ ε
    assert by_mag[1e-12] < 1e-3  # |Δ₁| ≈ lr·|g|/ε when |g| ≪ ε
