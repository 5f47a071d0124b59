"""Computed inputs carry their real error: the bounds of the constructed pair in dot-product-cosine
and of LayerNorm's output in layernorm-statistics hold against a float64 recomputation, and are
small enough to leave the mutants refuted (see the refute tests)."""

import math
import sys

import pytest
import torch

from mathcheck.verify.calculus import _layernorm_error
from mathcheck.verify.linear_algebra import ANGLES, _built
from tests.paths import ROOT


@pytest.mark.parametrize("n", [2, 3, 64, 4096])
def test_built_pair_error_bound_holds_in_float32(n):
    g = torch.Generator().manual_seed(n)
    worst = 0.0
    for _ in range(20):
        for theta in ANGLES:
            a, v0 = torch.randn(n, generator=g) * 3, torch.randn(n, generator=g)
            rho = float(torch.rand((), generator=g)) * 4 + 0.25
            b, e_b = _built(a, v0, theta, rho)
            exact, _ = _built(a.double(), v0.double(), theta, rho)  # float64: ~1e-16, exact at float32 scale
            assert bool(((b.double() - exact).abs() <= e_b.double()).all())
            # what a·b sees: the deviation from a·b* = ρ‖a‖cos θ lies within Σ|a| e_b
            dev = abs(float(a.double() @ b.double()) - rho * float(a.double().norm()) * math.cos(theta))
            worst = max(worst, dev / float(a.abs().double() @ e_b.double()))
            assert dev <= float(a.abs().double() @ e_b.double())
    # not vacuous: the real error reaches a visible part of the bound (worst case nε, typically √n ε)
    assert worst > 1e-4


def test_built_pair_bound_is_rounding_sized_in_float64():
    g = torch.Generator().manual_seed(0)
    a, v0 = torch.randn(64, generator=g, dtype=torch.float64), torch.randn(64, generator=g, dtype=torch.float64)
    b, e_b = _built(a, v0, math.pi / 2, 2.0)
    assert float(e_b.max()) < 1e-12 and float(a.abs() @ e_b) < 1e-11


@pytest.mark.parametrize("n", [2, 8, 64])
@pytest.mark.parametrize("scale,shift", [(1.0, 0.0), (1e-3, 0.0), (100.0, 50.0)])
@pytest.mark.parametrize("eps", [1e-5, 1e-2])
def test_layernorm_output_error_bound_holds_in_float32(n, scale, shift, eps):
    g = torch.Generator().manual_seed(n)
    for _ in range(50):
        x = torch.randn(n, generator=g) * scale + shift
        y = torch.nn.LayerNorm(n, eps=eps, elementwise_affine=False)(x).detach()
        exact = torch.nn.LayerNorm(n, eps=eps, elementwise_affine=False, dtype=torch.float64)(x.double()).detach()
        e_y = _layernorm_error(x, y, eps).double()
        assert bool(((y.double() - exact).abs() <= e_y).all())
        assert abs(float(y.double().sum())) <= float(e_y.sum())  # Σy* = 0: the mean part's error


def test_layernorm_output_bound_is_rounding_sized_in_float64():
    x = torch.randn(64, generator=torch.Generator().manual_seed(1), dtype=torch.float64) * 100 + 50
    y = torch.nn.LayerNorm(64, eps=1e-5, elementwise_affine=False, dtype=torch.float64)(x).detach()
    assert float(_layernorm_error(x, y, 1e-5).max()) < 1e-11  # |y| ≤ 8: ~1e3 ε|y|, far below a 1e-6 mutant


def test_seed_sweep_claims_option(capsys):
    sys.path.insert(0, str(ROOT / "bench"))
    import seeds

    assert seeds.main(["--claims", "dot-product-cosine", "--first", "3", "--last", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("seed   3: 1/1 proved (") and out[0].endswith("all proved")
    assert out[1].startswith("seeds 3..3 × 1 claims (float64): 1 of 1 proved, 0 not; ")
    with pytest.raises(SystemExit) as exc:
        seeds.main(["--claims", "no-such-claim"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == "seeds.py: unknown claim 'no-such-claim'; `mathcheck list` names them\n"


def test_seed_sweep_docs_keep_one_section_per_dtype(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    import seeds

    def report(dtype, bad):
        return {
            "seeds": [1, 2],
            "claims": 1,
            "dtype": dtype,
            "jobs": 1,
            "runs": 2,
            "derive_seconds": 0.1,
            "seconds": 1.0,
            "peak_rss_mb": 300.0,
            "not_proved": [{"seed": 2, "claim": "c", "status": "refuted"}] if bad else [],
        }

    doc = tmp_path / "soundness.md"
    doc.write_text("# Soundness\n\nbefore\n")
    seeds.write_docs(doc, report("float64", False))
    seeds.write_docs(doc, report("float32", True))
    seeds.write_docs(doc, report("float64", False))  # rewriting one section leaves the other alone
    text = doc.read_text()
    assert text.count("## Seed sweep\n") == 1 and text.count("## Seed sweep, float32\n") == 1
    assert "`python bench/seeds.py --last 2 -j 1 --dtype float32`" in text
    assert "2 of 2 proved, 0 not" in text and "1 of 2 proved, 1 not (c at seed 2: refuted)" in text
    assert text.startswith("# Soundness\n\nbefore\n")
