"""§6 specifics: the rules the permutation claim relies on, RoPE conventions, and the PyTorch
behaviours the cost claim records (FLOP counting of the SDPA kernels)."""

import math

import pytest
import sympy as sp
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from mathcheck import registry
from mathcheck.derivations import combinatorics as derive
from mathcheck.verify import combinatorics as check
from tests.conftest import proved

L = sp.Symbol("L", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True)
x = sp.IndexedBase("x")


def test_reindex_applies_only_to_full_sums_that_depend_on_sigma_alone():
    sigma, _, causal, _ = derive.attention_functions()
    rule = derive.reindex(sigma, L)
    full = sp.Sum(sp.exp(x[sigma(j)]), (j, 1, L))
    assert rule.apply(full) == sp.Sum(sp.exp(x[j]), (j, 1, L))
    partial = sp.Sum(sp.exp(x[sigma(j)]), (j, 1, i))  # a causal prefix is not permuted onto itself
    assert rule.apply(partial) == partial
    masked = sp.Sum(causal(i, j) * x[sigma(j)], (j, 1, L))  # the mask depends on j itself
    assert rule.apply(masked) == masked


def test_naming_sigma_i_leaves_bound_occurrences_alone():
    sigma = derive.attention_functions()[0]
    r = sp.Symbol("r", integer=True)
    rule = derive.free_replace(sigma(i), r, i)
    e = x[sigma(i)] + sp.Sum(x[sigma(i)], (i, 1, L))
    assert rule.apply(e) == x[r] + sp.Sum(x[sigma(i)], (i, 1, L))


def test_sinusoidal_function_is_the_table_at_integers_and_a_name_otherwise():
    PE = derive.sinusoidal_function()
    table = check.sinusoidal_table(6, 8)
    for a, ch in ((1, 1), (3, 4), (6, 7), (5, 8)):
        assert float(PE(a, ch, 8)) == pytest.approx(float(table[a - 1, ch - 1]), abs=1e-15)
    assert isinstance(PE(i, 2, 8), PE)


def test_default_cpu_sdpa_kernel_is_not_counted_but_math_backend_is():
    """Pinned: if a torch upgrade gives the CPU flash kernel a FLOP formula, this fails and the
    claim's check starts comparing the default kernel too (it already does once it counts)."""
    from torch.utils.flop_counter import FlopCounterMode

    n, d = 24, 8
    q, k, v = (torch.randn(1, 1, n, d, dtype=torch.float64) for _ in range(3))

    def flops(fn):
        with FlopCounterMode(display=False) as counter:
            fn()
        return counter.get_total_flops()

    assert flops(lambda: F.scaled_dot_product_attention(q, k, v)) == 0
    with sdpa_kernel(SDPBackend.MATH):
        assert flops(lambda: F.scaled_dot_product_attention(q, k, v)) == 4 * n * n * d
    assert flops(lambda: torch.softmax(q @ k.mT / math.sqrt(d), -1) @ v) == 4 * n * n * d
    # nn.MultiheadAttention goes through the uncounted kernel unless it must return the weights
    mha = torch.nn.MultiheadAttention(d, 1, bias=False, batch_first=True, dtype=torch.float64)
    x3 = torch.randn(1, n, d, dtype=torch.float64)
    with torch.no_grad():
        assert flops(lambda: mha(x3, x3, x3, need_weights=False)) == 8 * n * d * d
        assert flops(lambda: mha(x3, x3, x3, need_weights=True)) == 8 * n * d * d + 4 * n * n * d


def test_cost_check_records_the_uncounted_kernel_and_attaches_checked_plots():
    v = proved("attention-complexity")
    assert any("counts 0 FLOPs" in line for line in v.numeric.details)
    names = {p.name for p in v.numeric.plots}
    assert {"attention-flops-vs-length", "window-pairs-vs-length"} <= names
    flops = next(p for p in v.numeric.plots if p.name == "attention-flops-vs-length")
    curves = {label: ys for label, _, ys in flops.series}
    assert curves["F.scaled_dot_product_attention, SDPBackend.MATH"] == curves["the statement's right-hand side"]


def test_window_mask_is_causal_and_w_wide():
    m = check._window_mask(6, 3)
    assert m.sum(1).tolist() == [1, 2, 3, 3, 3, 3]
    assert not m.triu(1).any()


def test_rope_conventions_are_the_same_rotation_on_different_channel_pairs():
    """Interleaved pairs (2b, 2b+1), rotate-half pairs (b, b + d/2): relabelling the channels maps
    one implementation onto the other, and both preserve the norm."""
    d = check.ROPE_DIM
    pos = torch.tensor([0.0, 1.0, 7.0, 1000.0], dtype=torch.float64)
    x = torch.randn(len(pos), d, dtype=torch.float64)
    to_half = torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])  # interleaved -> halves
    a = check.rope_interleaved(x, pos)[:, to_half]
    b = check.rope_rotate_half(x[:, to_half], pos)
    torch.testing.assert_close(a, b, atol=1e-12, rtol=0)
    torch.testing.assert_close(a.norm(dim=-1), x.norm(dim=-1), atol=1e-12, rtol=0)
    assert not torch.allclose(check.rope_interleaved(x, pos), check.rope_rotate_half(x, pos))


def test_permutation_check_uses_non_identity_permutations():
    g = torch.Generator().manual_seed(0)
    for n in check.ATTN_LENGTHS:
        perms = check._permutations("sigma", n, g) + check._permutations("shift", n, g)
        assert any(not torch.equal(p, torch.arange(n)) for p in perms)
        assert all(sorted(p.tolist()) == list(range(n)) for p in perms)


def test_pooled_output_is_invariant_but_rows_are_not_in_pytorch():
    """The seed's "identical representation" is true of a pooled output only."""
    torch.manual_seed(0)
    d, n = 8, 6
    mha = torch.nn.MultiheadAttention(d, 2, batch_first=True, dtype=torch.float64)
    X = torch.randn(1, n, d, dtype=torch.float64)
    p = torch.randperm(n)
    with torch.no_grad():
        out, out_p = mha(X, X, X)[0][0], mha(X[:, p], X[:, p], X[:, p])[0][0]
    torch.testing.assert_close(out_p, out[p], atol=1e-12, rtol=0)
    torch.testing.assert_close(out_p.mean(0), out.mean(0), atol=1e-12, rtol=0)
    assert not torch.allclose(out_p, out)


def test_additive_sinusoidal_scores_depend_on_absolute_position_rope_scores_do_not():
    """The rope claim's seed note: with additive sinusoidal PE and generic projections the score
    between positions m and m + t changes with m; with RoPE it does not."""
    g = torch.Generator().manual_seed(0)
    d, t = check.ROPE_DIM, 5
    pe = check.sinusoidal_table(64, d)
    wq, wk = (torch.randn(d, d, generator=g, dtype=torch.float64) / d**0.5 for _ in range(2))
    m = torch.arange(0, 40)
    additive = ((pe[m] @ wq) * (pe[m + t] @ wk)).sum(-1)
    assert float(additive.max() - additive.min()) > 1e-2
    q, k = torch.randn(d, generator=g, dtype=torch.float64), torch.randn(d, generator=g, dtype=torch.float64)
    mp = m.to(torch.float64)
    rope = (
        check.rope_rotate_half(q.expand(len(m), -1), mp) * check.rope_rotate_half(k.expand(len(m), -1), mp + t)
    ).sum(-1)
    assert float(rope.max() - rope.min()) < 1e-10


@pytest.mark.parametrize(
    "claim_id", ["attention-permutation-equivariance", "rope-relative-position", "attention-complexity"]
)
def test_statements_survive_pickling(claim_id):
    """The cache and -j N pickle statements; PE is a local SymPy class that must rebuild by name."""
    import pickle

    c = registry.get(claim_id)
    for m in (None,) + c.mutants:
        statements = c.statements() if m is None else c.mutated(m)
        for name, st in statements.items():
            assert pickle.loads(pickle.dumps(st)) == st, (m, name)
