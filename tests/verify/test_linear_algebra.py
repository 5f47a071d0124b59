"""§2 specifics: what the linear-algebra checks distinguish, beyond "proved and mutants refuted"."""

import math

import sympy as sp
import torch
import torch.nn.functional as F

from mathcheck import registry
from mathcheck.symbolic import rules
from mathcheck.derivations.linear_algebra import shape_rule
from mathcheck.verify import Options
from mathcheck.verify import linear_algebra as la
from tests.conftest import proved

CHECKS = {
    "qkv-projection-shapes": la.qkv_projection_shapes,
    "dot-product-cosine": la.dot_product_cosine,
    "scaling-prevents-saturation": la.scaling_prevents_saturation,
}


def test_shape_rule_derives_nothing_for_a_misaligned_product():
    L, D, dk = sp.symbols("L D d_k", integer=True, positive=True)
    X, W = sp.MatrixSymbol("X", L, D), sp.MatrixSymbol("W", D, dk)
    Rows, Cols = sp.Function("Rows"), sp.Function("Cols")
    rule = shape_rule()
    assert (rule.apply(Rows(X * W)), rule.apply(Cols(X * W))) == (L, dk)
    assert (rule.apply(Rows(W.T * X.T)), rule.apply(Cols(W.T * X.T))) == (dk, L)
    # SymPy accepts X·X for L×D with L ≠ D (it becomes X**2); the rule must not give it a shape
    assert rule.apply(Rows(X * X)).has(Rows)
    assert rule.apply(Cols(X * W * X)).has(Cols)


def test_statements_survive_a_parallel_run():
    """Verdicts cross process boundaries pickled; SymPy rebuilds each equation with evaluation on,
    which turns ``Eq(f(M), Matrix(...))`` into ``False``. Scalar size statements stay as they are."""
    import pickle

    for claim_id in CHECKS:
        for part, statement in registry.get(claim_id).statements().items():
            assert pickle.loads(pickle.dumps(statement)) == statement, (claim_id, part)


def test_projection_rows_are_local_but_attention_output_rows_mix():
    """Row-locality is a property of the projection: the same Jacobian test on real attention output
    (F.scaled_dot_product_attention) finds row 0 depending on the other rows of X."""
    g = torch.Generator().manual_seed(0)
    L, D, dk = 10, 512, 64
    X = torch.randn(L, D, generator=g, dtype=torch.float64)
    w_q, w_k, w_v = (la._projection(D, dk, g, torch.float64) for _ in range(3))
    J = torch.func.jacrev(w_q)(X)  # (L, d_k, L, D)
    off_row = torch.ones(L, L, dtype=torch.bool) ^ torch.eye(L, dtype=torch.bool)
    assert J.abs().amax(dim=(1, 3))[off_row].max() == 0  # exactly zero, not merely small
    attention = lambda x: F.scaled_dot_product_attention(w_q(x), w_k(x), w_v(x))  # noqa: E731
    A = torch.func.jacrev(attention)(X)
    assert A[0, :, 1:, :].abs().max() > 1e-3


def test_plane_angle_recovers_built_angles():
    g = torch.Generator().manual_seed(1)
    for n in (2, 64, 4096):
        for theta in la.ANGLES:
            a = torch.randn(n, generator=g, dtype=torch.float64)
            u = a / a.norm()
            v = torch.randn(n, generator=g, dtype=torch.float64)
            v = v - (v @ u) * u
            b = 2.5 * (math.cos(theta) * u + math.sin(theta) * v / v.norm())
            assert abs(float(la.plane_angle(a, b)) - theta) < 1e-7


def test_smaller_angle_does_not_mean_larger_dot_product():
    """The seed's 'the smaller the angle, the larger the dot product' needs equal norms."""
    a = torch.tensor([1.0, 0.0], dtype=torch.float64)
    close_but_short = torch.tensor([0.1, 0.01], dtype=torch.float64)
    wide_but_long = torch.tensor([3.0, 3.0], dtype=torch.float64)
    assert la.plane_angle(a, close_but_short) < la.plane_angle(a, wide_but_long)
    assert torch.dot(a, close_but_short) < torch.dot(a, wide_but_long)
    assert F.cosine_similarity(a, close_but_short, dim=0) > F.cosine_similarity(a, wide_but_long, dim=0)


def test_softmax_jacobian_trace_is_within_a_factor_two_of_one_minus_max():
    """(1 − max s) ≤ tr J ≤ 2(1 − max s) on torch's own Jacobian: the bound is tight up to 2, and the
    constant 1 (mutant bound-constant-one) is too small."""
    g = torch.Generator().manual_seed(2)
    spread = torch.logspace(-1, 1.5, 500, dtype=torch.float64)[:, None]  # from nearly uniform to saturated
    z = torch.randn(500, 10, generator=g, dtype=torch.float64) * spread
    J = torch.vmap(torch.func.jacrev(lambda v: F.softmax(v, dim=-1)))(z)
    tr = J.diagonal(dim1=-2, dim2=-1).sum(-1)
    room = 1 - F.softmax(z, dim=-1).max(-1).values
    assert bool((room <= tr + 1e-15).all()) and bool((tr <= 2 * room + 1e-12).all())
    assert bool((tr > room * 1.01).any())


def test_saturation_check_measures_and_plots_the_trend():
    v = proved("scaling-prevents-saturation")
    plots = {p.name: p for p in v.numeric.plots}
    assert set(plots) == {"max-weight-vs-dk", "jacobian-norm-vs-dk"}
    for p in plots.values():
        assert [label for label, _, _ in p.series][0] == "q·k"
        for _, xs, ys in p.series:
            assert xs == tuple(float(d) for d in la.SAT_DKS) and len(ys) == len(xs)
    (_, _, raw_max), (_, _, scaled_max) = plots["max-weight-vs-dk"].series
    (_, _, raw_norm), (_, _, scaled_norm) = plots["jacobian-norm-vs-dk"].series
    assert raw_max[-1] > 0.95 > raw_max[0] and raw_norm[-1] < raw_norm[0] / 5
    assert max(scaled_max) - min(scaled_max) < 0.05 and max(scaled_norm) / min(scaled_norm) < 1.05
    assert "Bonferroni" in v.numeric.test


def test_saturation_check_fails_without_the_scale():
    """Claim the unscaled logits have variance 1: the variance test and the trend tests (the
    'scaled' series is then the unscaled one) both reject."""
    c = registry.get("scaling-prevents-saturation")
    dot = c.part("scaled").lhs.args[0] * sp.sqrt(sp.Symbol("d_k", integer=True, positive=True))
    statements = c.statements()
    statements["scaled"] = sp.Eq(rules.Var(dot), 1, evaluate=False)
    v = la.scaling_prevents_saturation(statements, Options())
    assert v.status == "refuted"
    failing = [d for d in v.details if d.endswith("(FAILS)")]
    assert any(d.startswith("scaled: mean 1 − max weight") for d in failing)
    assert any(d.startswith("scaled: mean max weight") for d in failing)
    assert any(d.startswith("scaled d_k=4096") for d in failing)


def test_saturation_sample_size_has_the_stated_power():
    assert all(la._sat_power(d) <= la.SAT_TRIALS for d in la.SAT_DKS)
