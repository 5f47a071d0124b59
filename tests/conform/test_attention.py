"""conform's declared variants (window, scale, ALiBi, rotary), rotary layouts, inconclusive results
and layering (the command imports torch and SymPy only when it runs)."""

import ast
import subprocess
import sys

import torch
import torch.nn.functional as F

from mathcheck.conform.attention import alibi_slopes
from mathcheck.conform.property import Property
from mathcheck.conform.run import run_property
from mathcheck.conform.spec import Variant
from mathcheck.conform.run import conform
from mathcheck.render.text import conform_report as conform_text
from tests.paths import ROOT

PKG = ROOT / "mathcheck" / "conform"


def windowed(W):
    def fn(q, k, v, attn_mask=None, is_causal=False):
        if is_causal:
            i, j = torch.arange(q.shape[-2])[:, None], torch.arange(q.shape[-2])[None]
            attn_mask = (j <= i) & (j > i - W)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)

    return fn


def alibi(q, k, v, attn_mask=None, is_causal=False):
    H, L = q.shape[1], q.shape[2]
    i, j = torch.arange(L)[:, None], torch.arange(L)[None]
    bias = -alibi_slopes(H)[:, None, None].to(q.dtype) * (i - j).abs().to(q.dtype)  # bidirectional: −m|i − j|
    if is_causal:
        bias = bias.masked_fill(j > i, float("-inf"))
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        bias = bias + torch.where(attn_mask, 0.0, float("-inf")).to(q.dtype)
    elif attn_mask is not None:
        bias = bias + attn_mask
    return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


def scaled(q, k, v, attn_mask=None, is_causal=False):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=is_causal, scale=0.5)


def rope_half(x, positions):
    h = x.shape[-1] // 2
    theta = 10000.0 ** (-torch.arange(0, 2 * h, 2, dtype=x.dtype) / (2 * h))
    ang = positions.to(x.dtype)[:, None] * theta[None, :]
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1)


def pe_cos_first(positions, d):
    ang = positions.to(torch.float64)[:, None] / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.stack([ang.cos(), ang.sin()], -1).flatten(-2)


def test_window_declared_matches_and_a_wrong_window_fails():
    assert conform(windowed(2), "attention", Variant(causal=True, window=2)).status == "holds"
    report = conform(windowed(2), "attention", Variant(causal=True, window=3))
    assert "output" in report.failed


def test_scale_option_is_the_reference():
    assert conform(scaled, "attention", Variant(scale=0.5)).status == "holds"
    assert "scale" in conform(scaled, "attention").failed


def test_alibi_reference_and_expected_break():
    report = conform(alibi, "attention", Variant(causal=True, positions="alibi"))
    assert report.status == "holds", "\n".join(conform_text(report))
    r = next(r for r in report.results if r.name == "permutation-equivariance")
    assert r.status == "not expected to hold" and r.expected == "breaks"


def test_bidirectional_alibi_is_minus_m_abs_distance():
    assert conform(alibi, "attention", Variant(positions="alibi")).status == "holds"

    def signed(q, k, v, attn_mask=None, is_causal=False):  # −m(i − j) without a mask favours future keys
        L = q.shape[2]
        i, j = torch.arange(L)[:, None], torch.arange(L)[None]
        bias = -alibi_slopes(q.shape[1])[:, None, None].to(q.dtype) * (i - j).to(q.dtype)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)

    assert "output" in conform(signed, "attention", Variant(positions="alibi"), only=("output",)).failed


def test_rotary_declared_but_equivariant_fails_and_output_is_not_checked():
    report = conform(F.scaled_dot_product_attention, "attention", Variant(positions="rotary"))
    assert report.failed == ["permutation-equivariance"]
    out = next(r for r in report.results if r.name == "output")
    assert (out.expected, out.status) == ("not checked", "not expected to hold")


def test_rotary_half_layout_conforms_and_a_swapped_table_fails():
    assert conform(rope_half, "rotary").status == "holds"
    assert "matches-derived" in conform(pe_cos_first, "positional").failed


def test_our_side_failing_is_inconclusive_exit_3():
    from mathcheck.numeric.evaluate import EvaluationError

    def broken(fn, sizes, gen, simple, variant):
        raise EvaluationError("no value for symbol n")

    prop = Property("p", "softmax-simplex", "doc", broken, {"N": 2})
    r = run_property(prop, F.softmax, "t", "softmax", Variant(), 0, {}, False)
    assert r.status == "inconclusive" and "could not be evaluated" in r.note


def _imported_at_startup(*args):
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mathcheck", *args], capture_output=True, text=True, check=True
    )
    return {line.split("|")[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}


def test_conform_help_imports_neither_torch_nor_sympy():
    mods = _imported_at_startup("conform", "--help")
    assert "click" in mods and "torch" not in mods and "sympy" not in mods


def test_spec_and_target_import_no_torch():
    for name in ("spec.py", "target.py", "run.py", "__init__.py"):
        tree = ast.parse((PKG / name).read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in top:
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            assert not (mod or "").startswith(("torch", "sympy")), f"{name} imports {mod} at module level"


class WindowMHA(torch.nn.Module):
    def __init__(self, D, H, W):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(D, H, batch_first=True)
        self.W = W

    def forward(self, x):
        L = x.shape[1]
        i, j = torch.arange(L)[:, None], torch.arange(L)[None]
        ignore = (j > i) | (j <= i - self.W)  # nn.MultiheadAttention's bool mask: True = ignore
        return self.mha(x, x, x, attn_mask=ignore, need_weights=False)[0]


def test_mha_window_declared_and_a_too_narrow_declaration_fails():
    assert conform(lambda D, H: WindowMHA(D, H, 2), "mha", Variant(causal=True, window=2)).status == "holds"
    report = conform(lambda D, H: WindowMHA(D, H, 3), "mha", Variant(causal=True, window=2))
    assert report.failed == ["causal-no-future"], "\n".join(conform_text(report))


def test_section_9_kinds_read_their_claims_derived_parts():
    from mathcheck import registry
    from mathcheck.conform import formulas as fm

    rms = registry.get("rmsnorm-statistics")
    assert fm.rmsnorm()["derived_mean_square"] == rms.part("mean-square").rhs
    assert fm.rmsnorm()["jacobian"] == rms.part("jacobian").rhs
    assert fm.rmsnorm()["y"] == rms.part("jacobian").lhs.args[0]
    assert fm.gqa_head() == registry.get("grouped-query-attention").part("head-output").rhs
    assert fm.online_softmax_shifted() == registry.get("online-softmax").part("final").steps[1].expr


def test_gqa_and_online_softmax_references_equal_pytorch():
    from mathcheck.conform import modules

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, h, 3, 8, dtype=torch.float64, generator=g) for h in (6, 2, 2))
    O = modules._gqa_claim_output(q, k, v, {"G": 2, "R": 3, "L": 3, "D": 8}, Variant())
    assert torch.allclose(O, F.scaled_dot_product_attention(q, k, v, enable_gqa=True), atol=1e-13, rtol=0)
    tiled = F.scaled_dot_product_attention(q, k.repeat(1, 3, 1, 1), v.repeat(1, 3, 1, 1))
    assert not torch.allclose(O, tiled, atol=1e-3)  # repeat (tiling) reads the wrong group
    s = torch.randn(3, 12, dtype=torch.float64, generator=g)
    s = s / s.abs().max() * 1e4  # e^{1e4} overflows: the claim's shift m = max s keeps it finite
    vals = torch.randn(12, 5, dtype=torch.float64, generator=g)
    O = modules._online_claim_output(s, vals)
    assert torch.isfinite(O).all() and torch.allclose(O, torch.softmax(s, -1) @ vals, atol=1e-12, rtol=0)
