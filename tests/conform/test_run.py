"""conform: PyTorch's own implementations and the hand-written example conform; every member of
the bug zoo fails, with a counterexample naming the broken property; the CLI's output and exit codes."""

import importlib.util
import json
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.conform.run import conform
from mathcheck.conform.spec import BadInput, Variant
from mathcheck.testing import ClaimFailed, assert_conforms
from mathcheck.render.json import conform_report as conform_json
from mathcheck.render.text import conform_report as conform_text
from tests.paths import ROOT


def _load(name):
    spec = importlib.util.spec_from_file_location(f"conform_example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


zoo = _load("bug_zoo")
gpt = _load("gpt_attention")


class MHA(nn.Module):
    def __init__(self, D, H, causal=False):
        super().__init__()
        self.mha = nn.MultiheadAttention(D, H, batch_first=True)
        self.causal = causal

    def forward(self, x):
        L = x.shape[1]
        mask = torch.ones(L, L, dtype=torch.bool).triu(1) if self.causal else None  # True = ignore here
        return self.mha(x, x, x, attn_mask=mask, need_weights=False)[0]


def kl_div(log_q, p):
    return F.kl_div(log_q, p, reduction="batchmean")


def rope_interleaved(x, positions):
    d = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    ang = positions.to(x.dtype)[:, None] * theta[None, :]
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1)
    return out.flatten(-2)


def sinusoidal(positions, d):
    i = torch.arange(0, d, 2, dtype=torch.float64)
    ang = positions.to(torch.float64)[:, None] / 10000 ** (i / d)
    return torch.stack([ang.sin(), ang.cos()], -1).flatten(-2)


def gqa_sdpa(query, key, value, is_causal=False):
    return F.scaled_dot_product_attention(query, key, value, is_causal=is_causal, enable_gqa=True)


def online_softmax(score_blocks, value_blocks):
    m = torch.full(score_blocks[0].shape[:-1] + (1,), -math.inf, dtype=score_blocks[0].dtype)
    l = torch.zeros_like(m)
    o = torch.zeros(score_blocks[0].shape[:-1] + value_blocks[0].shape[-1:], dtype=score_blocks[0].dtype)
    for s, v in zip(score_blocks, value_blocks):
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(-1, keepdim=True)
        o = o * alpha + p @ v
        m = m_new
    return o / l


CONFORMING = [
    (F.scaled_dot_product_attention, "attention", Variant()),
    (F.scaled_dot_product_attention, "attention", Variant(causal=True)),
    (gpt.attention, "attention", Variant(causal=True)),
    (gpt.attention, "attention", Variant()),
    (lambda D, H: MHA(D, H), "mha", Variant()),
    (lambda D, H: MHA(D, H, causal=True), "mha", Variant(causal=True)),
    (gpt.make_block, "mha", Variant(causal=True)),
    (F.softmax, "softmax", Variant()),
    (F.log_softmax, "log-softmax", Variant()),
    (F.cross_entropy, "cross-entropy", Variant()),
    (kl_div, "kl", Variant()),
    (lambda D, eps: nn.LayerNorm(D, eps=eps), "layernorm", Variant()),
    (lambda D, eps: nn.RMSNorm(D, eps=eps), "rmsnorm", Variant()),
    (sinusoidal, "positional", Variant()),
    (rope_interleaved, "rotary", Variant()),
    (gqa_sdpa, "gqa", Variant()),
    (gqa_sdpa, "gqa", Variant(causal=True)),
    (online_softmax, "online-softmax", Variant()),
]


@pytest.mark.parametrize("fn, kind, variant", CONFORMING, ids=[f"{k}-{i}" for i, (_, k, _) in enumerate(CONFORMING)])
def test_reference_implementations_conform(fn, kind, variant):
    report = conform(fn, kind, variant)
    assert report.status == "holds", "\n".join(conform_text(report))
    assert report.exit_code == 0
    assert any(r.status == "holds" for r in report.results)


@pytest.mark.parametrize("name", sorted(zoo.ZOO))
def test_every_zoo_member_fails_naming_its_property(name):
    kind, flags, prop = zoo.ZOO[name]
    report = conform(getattr(zoo, name), kind, Variant(causal="--causal" in flags), target=name)
    assert report.exit_code == 1
    assert prop in report.failed, "\n".join(conform_text(report))
    result = next(r for r in report.results if r.name == prop)
    cx = result.counterexample
    assert cx["claim"] == result.claim
    assert f"--property {prop}" in cx["replay"]
    text = "\n".join(conform_text(report))
    assert f"FAILS                 {prop}" in text and "replay: mathcheck conform" in text


def test_counterexample_is_shrunk_and_replays():
    report = conform(zoo.mask_filled_with_zero, "attention", only=("masked-keys-zero-weight",), target="z")
    cx = report.results[0].counterexample
    assert cx["sizes"] == {"B": 1, "H": 1, "L": 2}
    assert cx["derived"] == 0.0 and cx["user"] != 0.0
    replay = conform(
        zoo.mask_filled_with_zero,
        "attention",
        only=("masked-keys-zero-weight",),
        sizes=cx["sizes"],
        simple=cx["values"] == "small-integer",
        target="z",
    )
    assert replay.results[0].counterexample["user"] == cx["user"]


def test_declared_causal_but_equivariant_is_a_failure():
    report = conform(zoo.causal_flag_ignored, "attention", Variant(causal=True))
    r = next(r for r in report.results if r.name == "permutation-equivariance")
    assert (r.expected, r.status) == ("breaks", "fails")
    assert "expected to break" in r.note


def test_same_seed_same_report_and_json_fields():
    a = conform_json(conform(zoo.scale_by_d, "attention", seed=3, target="t"))
    b = conform_json(conform(zoo.scale_by_d, "attention", seed=3, target="t"))
    assert a == b
    assert set(a) >= {"target", "kind", "properties", "status"}
    assert set(a["properties"][0]) >= {
        "name",
        "claim",
        "expected",
        "status",
        "max_abs_err",
        "tolerance",
        "counterexample",
    }


def test_assert_conforms():
    assert assert_conforms(F.scaled_dot_product_attention, kind="attention", causal=True).status == "holds"
    with pytest.raises(ClaimFailed) as exc:
        assert_conforms(zoo.scale_by_d, kind="attention")
    assert "FAILS                 scale" in str(exc.value) and "replay: mathcheck conform" in str(exc.value)
    with pytest.raises(ClaimFailed, match="bad input: unknown kind"):
        assert_conforms(F.softmax, kind="softmx")


def test_bad_input_is_checked_before_work():
    with pytest.raises(BadInput, match="needs a callable taking"):
        conform(lambda x: x, "attention")
    with pytest.raises(BadInput, match="--property 'nope'"):
        conform(F.softmax, "softmax", only=("nope",))


def test_cli_exit_codes_and_output(conform_full):
    r = CliRunner()
    ok = r.invoke(main, ["conform", "examples/gpt_attention.py:attention", "--kind", "attention", "--causal"])
    assert ok.exit_code == 0, ok.output
    assert ok.output.splitlines()[0] == "conform examples/gpt_attention.py:attention  kind attention  --causal  seed 0"
    assert ok.output.splitlines()[-1] == "status: holds (every expected property holds)"
    bad = r.invoke(main, ["conform", "examples/bug_zoo.py:softmax_without_shift", "--kind", "softmax", "--json"])
    assert bad.exit_code == 1
    data = json.loads(bad.output)
    assert data["status"] == "fails"
    # without the shift, exp overflows float16 at 129 classes of N(0, 3²) logits: input-dtypes fails too
    assert [p["name"] for p in data["properties"] if p["status"] == "fails"] == ["finite-large-logits", "input-dtypes"]
    missing = r.invoke(main, ["conform", "examples/nothere.py:f", "--kind", "kl"])
    assert missing.exit_code == 2
    assert missing.output == "error: target 'examples/nothere.py:f': no file examples/nothere.py\n"
    sig = r.invoke(main, ["conform", "examples/bug_zoo.py:scale_by_d", "--kind", "softmax"])
    assert sig.exit_code == 2 and sig.output.count("\n") == 1 and "needs a callable taking (x, dim)" in sig.output
    kind = r.invoke(main, ["conform", "examples/bug_zoo.py:kl_swapped", "--kind", "attn"])
    assert kind.exit_code == 2 and kind.output.startswith("error: unknown kind 'attn'")


def test_cli_replay_prints_exactly_the_counterexample(conform_full):
    args = [
        "conform",
        "examples/bug_zoo.py:scale_by_d",
        "--kind",
        "attention",
        "--property",
        "scale",
        "--sizes",
        "B=1,H=1,D=2",
    ]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 1
    assert out.output == (
        "conform examples/bug_zoo.py:scale_by_d  kind attention  seed 0\n"
        "  computes in float64 (output float64): tolerances from float64 ε = 2.22e-16; resolution: relative errors "
        "above 5.9e-14 are detected (reductions of 32 terms)\n"
        "  FAILS                 scale  multihead-split-merge  max |err| 0.621, tolerance 1.67e-14\n"
        "      property: two keys: log(p₁/p₂) = (q·k₁ − q·k₂)/√D_head (the score scale)\n"
        "      smallest input found: B=1 H=1 D=2 (standard normal values)\n"
        "      compared: log(p₁/p₂) = z₁ − z₂ with z = q·k·scale (scale 1/√D_head unless --scale)\n"
        "      worst entry (0, 0) (largest |err|/tol): derived -2.12, yours -1.5\n"
        "      claim: multihead-split-merge (mathcheck show multihead-split-merge)\n"
        "      replay: mathcheck conform examples/bug_zoo.py:scale_by_d --kind attention --seed 0 --property scale "
        "--sizes B=1,H=1,D=2\n"
        "status: fails (1 property fails: scale)\n"
    )
    bad = CliRunner().invoke(main, args[:-2] + ["--sizes", "B=0"])
    assert (bad.exit_code, bad.output) == (
        2,
        "error: --sizes 'B=0': write NAME=N pairs with N ≥ 1, e.g. --sizes B=1,L=2\n",
    )
