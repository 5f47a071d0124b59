"""conform contains the user's code: a time limit on every call, and no exit but a return or an
Exception (docs/conform.md, *User code is contained*)."""

import os
import subprocess
import sys
import textwrap
import time

import pytest
import torch
import torch.nn.functional as F
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.conform.contain import DEFAULT_TIMEOUT, TargetAborted, guarded
from mathcheck.conform.run import conform
from mathcheck.conform.spec import BadInput, Variant
from mathcheck.testing import ClaimFailed, assert_conforms
from tests.paths import TESTS


def exits(query, key, value, attn_mask=None, is_causal=False):
    sys.exit(0)


def interrupted(query, key, value, attn_mask=None, is_causal=False):
    raise KeyboardInterrupt


def sleeps_forever(query, key, value, attn_mask=None, is_causal=False):
    while True:
        time.sleep(0.05)


def exits_at_second_call():
    """Runs at first (the precision probe), then calls sys.exit(0): the run still ends as an error."""
    calls = []

    def attn(query, key, value, attn_mask=None, is_causal=False):
        calls.append(1)
        if len(calls) > 3:
            sys.exit(0)
        return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, is_causal=is_causal)

    return attn


def exiting_factory(D, eps):
    raise SystemExit("bye")


@pytest.mark.parametrize(
    "fn, kind, said",
    [
        (exits, "attention", "raised SystemExit(0)"),
        (interrupted, "attention", "raised KeyboardInterrupt()"),
        (exits_at_second_call(), "attention", "raised SystemExit(0)"),
        (exiting_factory, "rmsnorm", "raised SystemExit('bye')"),
    ],
)
def test_an_exit_from_the_target_is_an_error_naming_it(fn, kind, said):
    with pytest.raises(TargetAborted) as info:
        conform(fn, kind, target="my_target")
    assert str(info.value).startswith("my_target: " + said), str(info.value)


def test_a_target_that_never_returns_ends_within_the_limit():
    start = time.monotonic()
    with pytest.raises(TargetAborted, match=r"sleeps_forever: did not return within 1 s \(--timeout 1\)"):
        conform(sleeps_forever, "attention", Variant(timeout=1.0))
    assert time.monotonic() - start < 1.0 + 5.0  # one call's limit, plus the setup before it


def test_the_limit_is_per_call_and_an_exception_passes_through():
    assert guarded(lambda: 3) == 3
    with pytest.raises(ZeroDivisionError):  # an Exception is the property's to report, not an abort
        guarded(lambda: 1 / 0)


def test_timeout_is_validated_and_carried_in_the_replay_line():
    with pytest.raises(BadInput, match="--timeout"):
        conform(F.softmax, "softmax", Variant(timeout=0.0))
    assert "--timeout 30" in Variant(timeout=30.0).flags()
    assert not any("timeout" in f for f in Variant().flags())  # the default is not printed

    def wrong_softmax(x, dim):
        return torch.softmax(x * 1.5, dim)

    report = conform(wrong_softmax, "softmax", Variant(timeout=30.0))
    replays = [r.counterexample["replay"] for r in report.results if r.counterexample]
    assert replays and all("--timeout 30" in line for line in replays)


def test_assert_conforms_reports_an_exit_as_an_error_not_a_pass():
    with pytest.raises(ClaimFailed, match=r"^error: .*raised SystemExit\(0\)"):
        assert_conforms(exits, kind="attention")
    with pytest.raises(ClaimFailed, match=r"^error: .*did not return within 1 s"):
        assert_conforms(sleeps_forever, kind="attention", timeout=1.0)


def test_cli_sys_exit_is_exit_4_with_one_line(tmp_path):
    target = tmp_path / "exits_at_import.py"
    target.write_text("import sys\nsys.exit(0)\ndef attn(q, k, v, attn_mask=None, is_causal=False):\n    return q\n")
    r = CliRunner().invoke(main, ["conform", f"{target}:attn", "--kind", "attention"])
    assert r.exit_code == 4, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "raised SystemExit(0)" in lines[0] and "exits_at_import.py:attn" in lines[0]


def test_cli_target_that_swallows_the_alarm_is_stopped_by_the_watchdog(tmp_path):
    """A loop that catches BaseException outlives SIGALRM; the command's watchdog ends the process."""
    target = tmp_path / "spin.py"
    target.write_text(
        textwrap.dedent("""
        def attn(q, k, v, attn_mask=None, is_causal=False):
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass
    """)
    )
    env = dict(os.environ)
    start = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "mathcheck", "conform", f"{target}:attn", "--kind", "attention", "--timeout", "2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 4, (r.stdout, r.stderr)
    assert r.stderr.strip().splitlines() == [f"error: {target}:attn: did not return within 2 s (--timeout 2); stopped"]
    assert time.monotonic() - start < 120
    assert DEFAULT_TIMEOUT == 60.0  # the documented default


# --- NaN or inf never holds; outputs are copied ------------------------------------------------------


class NaNMHA(torch.nn.Module):
    """An mha module whose output is all NaN: it once held four of six properties ("max |err| inf,
    tolerance nan": the tolerance scaled with its own NaN output)."""

    def __init__(self, D, H, value=float("nan")):
        super().__init__()
        self.lin = torch.nn.Linear(D, D)
        self.value = value

    def forward(self, x):
        return self.lin(x) * self.value


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_module_whose_output_is_not_finite_fails_every_checked_property(value):
    report = conform(lambda D, H: NaNMHA(D, H, value), "mha")
    checked = [r for r in report.results if r.expected == "holds"]
    assert checked and all(r.status == "fails" for r in checked), [(r.name, r.status) for r in checked]
    assert all(
        r.tolerance is not None and r.tolerance == r.tolerance for r in report.results if r.tolerance is not None
    )
    assert report.exit_code == 1


def test_compare_never_passes_under_a_tolerance_that_is_not_finite():
    from mathcheck.conform.property import compare

    nan = torch.full((3,), float("nan"))
    assert not compare(nan, nan, float("nan"), "x").ok
    inf = torch.full((3,), float("inf"))
    assert not compare(inf, inf, float("inf"), "x").ok  # equal infinities, but scaled by them
    assert compare(inf, inf, 1e-12, "x").ok  # an infinite formula value, met exactly
    assert not compare(torch.ones(3), inf, 1e-12, "x", rtol=1e-3).ok  # rtol·|inf| allows nothing finite


class BufferedAttention:
    """Returns one output buffer per shape, overwritten by each call (an allocation-free serving
    kernel does this; written here after the pattern, not copied). A comparison of two outputs
    without a copy compares the buffer with itself."""

    def __init__(self):
        self.buf = {}

    def __call__(self, query, key, value, attn_mask=None, is_causal=False):
        out = F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, is_causal=is_causal)
        if out.requires_grad:  # the inference path only: training keeps its graph
            return out
        slot = self.buf.setdefault((out.shape, out.dtype), torch.empty_like(out))
        return slot.copy_(out)


def test_an_output_buffer_reused_between_calls_is_copied_before_use():
    report = conform(BufferedAttention(), "attention", target="buffered")
    assert report.status == "holds", [(r.name, r.status, r.note) for r in report.results]


# --- call-shape problems are bad input, not math failures ---------------------------------------------


def takes_freqs_cis(x, freqs_cis, attn_mask=None, is_causal=False):
    """A rotary apply (after Meta's llama ``apply_rotary_emb(x, freqs_cis)``, our rewrite) handed to
    the attention kind: its first call raises on conform's real q/k/v."""
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(pairs * freqs_cis).flatten(-2)


class TakesConfig(torch.nn.Module):
    """A norm whose constructor takes (dim, eps) but whose forward wants a dict (a wrong kind of call)."""

    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps

    def forward(self, batch):
        return batch.hidden_states


def test_a_first_call_that_raises_is_bad_input_with_the_call_and_the_fix():
    with pytest.raises(BadInput) as info:
        conform(takes_freqs_cis, "attention", target="rope.py:apply")
    msg = str(info.value)
    assert msg.startswith("rope.py:apply: the first call raised RuntimeError")
    assert "conform called fn(query (" in msg and "is_causal=False)" in msg
    assert "kind attention expects fn(query, key, value" in msg and "--layout blhd" in msg
    with pytest.raises(BadInput, match=r"conform called make\(64, eps=0\.1\) then module\(x \(2, 4, 64\) float64\)"):
        conform(TakesConfig, "layernorm")


def test_a_factory_that_raises_is_bad_input():
    def factory(D, H):
        raise TypeError("__init__() missing 1 required positional argument: 'config'")

    with pytest.raises(
        BadInput,
        match=r"the first call raised TypeError: __init__\(\) missing .* conform called "
        r"make\(12, 3\); kind mha expects make\(D, H\)",
    ):
        conform(factory, "mha")


def test_a_target_that_raises_later_fails_that_property_with_the_exception(conform_full):
    def short_kernel(query, key, value, attn_mask=None, is_causal=False):
        if query.shape[-2] > 20:
            raise RuntimeError("kernel supports at most 20 keys")
        return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, is_causal=is_causal)

    report = conform(short_kernel, "attention")
    # it raises past L = 20: long-sequence and past-1024-keys reach it (input-dtypes says it, stops there)
    assert report.failed == ["long-sequence", "past-1024-keys"]
    assert "float64 inputs raised at L = 33" in next(r for r in report.results if r.name == "input-dtypes").note
    res = next(r for r in report.results if r.name == "long-sequence")
    assert res.note == "the callable raised RuntimeError: kernel supports at most 20 keys"
    assert res.counterexample["sizes"]["L"] > 20  # a length where it raises (the shrinker keeps the exception)


def test_cli_first_call_raising_is_exit_2_one_line(tmp_path):
    target = tmp_path / "rope.py"
    target.write_text("def apply(x, freqs_cis, attn_mask=None, is_causal=False):\n    return x * freqs_cis.imag\n")
    r = CliRunner().invoke(main, ["conform", f"{target}:apply", "--kind", "attention"])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and "the first call raised" in r.output


# --- meet the call where it is: eps by name, norms on (B, L, D) -----------------------------------------


class PartialRMSNorm(torch.nn.Module):
    """gpt-neox's constructor convention ``RMSNorm(dim, p=-1., eps=1e-8, bias=False)`` (p: the fraction
    of features for a partial RMSNorm; our rewrite, with eps inside the root as rmsnorm-statistics
    derives it). Given (D, 0.1) by position, p = 0.1 normalised by 10% of the features."""

    def __init__(self, dim, p=-1.0, eps=1e-8, bias=False):
        super().__init__()
        self.d, self.p, self.eps = dim, p, eps
        self.scale = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        k = self.d if not 0.0 <= self.p <= 1.0 else int(self.d * self.p)
        ms = x[..., :k].pow(2).mean(-1, keepdim=True)
        return self.scale * x * torch.rsqrt(ms + self.eps)


class UnpacksBLD(torch.nn.Module):
    """A norm that unpacks its (B, L, D) input, as real code does (``b, l, d = x.shape``)."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        b, l, d = x.shape
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def test_eps_is_bound_by_name_never_by_position():
    from mathcheck.conform.norms import eps_parameter

    assert eps_parameter(PartialRMSNorm) == "eps" and eps_parameter(lambda D, e: None) is None
    report = conform(PartialRMSNorm, "rmsnorm")
    assert report.status == "holds", "\n".join(r.name + " " + r.status for r in report.results)
    assert "constructor: eps passed by name, make(D, eps=…)" in report.setting


def test_the_jacobian_feeds_a_norm_its_documented_B_L_D_shape():
    report = conform(UnpacksBLD, "rmsnorm")
    assert report.status == "holds", [(r.name, r.status, r.note) for r in report.results]


# --- losses: settings given as the loss is written ----------------------------------------------------


def ce_ignoring_smoothing(logits, target, label_smoothing=0.0):
    """A planted bug: takes label_smoothing and drops it."""
    return F.cross_entropy(logits, target)


def test_label_smoothing_is_read_from_a_partial_or_an_instance_and_carried_in_the_replay():
    import functools

    for fn, where in (
        (functools.partial(F.cross_entropy, label_smoothing=0.1), "functools.partial"),
        (torch.nn.CrossEntropyLoss(label_smoothing=0.1), "CrossEntropyLoss.label_smoothing"),
    ):
        report = conform(fn, "cross-entropy", target="ce")
        assert report.status == "holds", [(r.name, r.status) for r in report.results]
        assert report.variant.label_smoothing == 0.1
        assert any(line.startswith("label smoothing 0.1: detected from " + where) for line in report.setting)
    bug = conform(functools.partial(ce_ignoring_smoothing, label_smoothing=0.1), "cross-entropy", target="ce")
    assert "matches-derived" in bug.failed
    cx = next(r for r in bug.results if r.name == "matches-derived").counterexample
    assert "--label-smoothing 0.1" in cx["replay"]


# --- rotary as real code writes it (our rewrites, in each source's conventions) -----------------------


def rotate_half(x):
    """transformers' Llama ``rotate_half`` convention (half-split pairs)."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def hf_apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    """After transformers.models.llama.modeling_llama.apply_rotary_pos_emb (v4.4x+): cos/sin (B, L, d)."""
    cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def hf_legacy_apply_rotary_pos_emb(q, k, cos, sin, position_ids):
    """After transformers v4.3x: an (L_max, d) table indexed by the required position_ids."""
    cos, sin = cos[position_ids].unsqueeze(1), sin[position_ids].unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def hf_apply_sign_flipped(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    """A planted bug: q·cos − rotate_half(q)·sin (the rotation the wrong way)."""
    cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
    return q * cos - rotate_half(q) * sin, k * cos - rotate_half(k) * sin


def meta_apply_rotary_emb(xq, xk, freqs_cis):
    """After meta-llama/llama llama/model.py apply_rotary_emb: interleaved pairs as complex numbers,
    x (B, L, H, d), freqs_cis (L, d/2) broadcast by reshape_for_broadcast."""
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    assert freqs_cis.shape == (xq_.shape[1], xq_.shape[-1])
    f = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
    return torch.view_as_real(xq_ * f).flatten(3).type_as(xq), torch.view_as_real(xk_ * f).flatten(3).type_as(xk)


def meta_apply_conjugated(x, freqs_cis):
    """A planted bug: multiplies by the conjugate (rotates by −θ)."""
    x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(x_ * freqs_cis.conj().view(1, x_.shape[1], 1, x_.shape[-1])).flatten(3)


@pytest.mark.parametrize(
    "fn, convention",
    [
        (hf_apply_rotary_pos_emb, "apply(q, k, cos, sin)"),
        (hf_legacy_apply_rotary_pos_emb, "apply(q, k, cos, sin, position_ids)"),
        (meta_apply_rotary_emb, "apply(xq, xk, freqs_cis)"),
    ],
)
def test_rotary_apply_functions_run_as_written(fn, convention):
    report = conform(fn, "rotary")
    assert report.status == "holds", [(r.name, r.status, r.note) for r in report.results]
    assert any(line.startswith(f"convention: {convention}") for line in report.setting)


@pytest.mark.parametrize("fn", [hf_apply_sign_flipped, meta_apply_conjugated])
def test_rotary_apply_bugs_still_fail(fn):
    assert "matches-derived" in conform(fn, "rotary").failed


def ce_index_targets_only(logits, targets):
    """nanoGPT's model.py convention (our rewrite): class indices flattened, ignore_index=-1; a
    (B, C) probability target makes it raise."""
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def ce_index_only_off_by_one(logits, targets):
    """A planted bug in the same convention: the target shifted by one class."""
    return F.cross_entropy(logits.view(-1, logits.size(-1)), (targets.view(-1) + 1) % logits.size(-1))


def test_a_cross_entropy_on_class_indices_only_is_said_not_failed():
    report = conform(ce_index_targets_only, "cross-entropy")
    assert report.status == "holds", [(r.name, r.status, r.note) for r in report.results]
    probs = next(r for r in report.results if r.name == "probability-targets")
    assert probs.status == "not expected to hold" and "class indices only" in probs.note
    assert any(line.startswith("targets: class indices only") for line in report.setting)
    assert "matches-derived" in conform(ce_index_only_off_by_one, "cross-entropy").failed


# --- ALiBi in its causal slope·j form ------------------------------------------------------------------


def alibi_slope_times_key(query, key, value, attn_mask=None, is_causal=False, sign=1.0):
    """BLOOM/MPT/gpt-neox's causal ALiBi (our rewrite): the bias slope_h·j on the key position only,
    equal to −m_h(i − j) up to the row constant −m_h·i, which softmax cancels."""
    B, H, L, D = query.shape
    m = torch.tensor([2.0 ** (-8.0 * h / H) for h in range(1, H + 1)], dtype=query.dtype)
    z = query @ key.transpose(-1, -2) / D**0.5 + sign * m[:, None, None] * torch.arange(key.shape[2], dtype=query.dtype)
    if is_causal:
        z = z.masked_fill(torch.ones(L, key.shape[2], dtype=torch.bool).triu(1), float("-inf"))
    if attn_mask is not None:
        z = z.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else z + attn_mask
    return torch.softmax(z, -1) @ value


def test_causal_alibi_as_slope_times_key_position_holds_and_its_sign_bug_fails():
    causal_alibi = Variant(causal=True, positions="alibi")
    report = conform(alibi_slope_times_key, "attention", causal_alibi)
    assert report.status == "holds", [(r.name, r.status, r.note) for r in report.results]

    def wrong_sign(query, key, value, attn_mask=None, is_causal=False):
        return alibi_slope_times_key(query, key, value, attn_mask, is_causal, sign=-1.0)

    assert "output" in conform(wrong_sign, "attention", causal_alibi).failed


def cohere_rotate_half(x):
    """transformers' Cohere convention (our rewrite): an interleaved rotate_half."""
    return torch.stack([-x[..., 1::2], x[..., ::2]], dim=-1).flatten(-2)


def cohere_apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    """After transformers.models.cohere.modeling_cohere.apply_rotary_pos_emb: interleaved pairs, its
    cos/sin tables repeat_interleave'd (not cat(freqs, freqs))."""
    cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
    return q * cos + cohere_rotate_half(q) * sin, k * cos + cohere_rotate_half(k) * sin


def test_a_cos_sin_apply_on_interleaved_pairs_is_fed_interleaved_tables():
    report = conform(cohere_apply_rotary_pos_emb, "rotary")
    assert report.status == "holds", [(r.name, r.status, r.note) for r in report.results]
    assert any("interleaved tables repeat_interleave(freqs, 2)" in line for line in report.setting)
    hf = conform(hf_apply_rotary_pos_emb, "rotary")
    assert any("half-split tables cat(freqs, freqs)" in line for line in hf.setting)


# --- --init KEY=VALUE: what conform cannot detect, said by the user ------------------------------------

NORM_WITH_A_REQUIRED_KEYWORD = '''
import torch
from torch import nn


class RMSNorm(nn.Module):
    """A correct RMSNorm whose constructor needs a keyword conform cannot guess (its own choice of
    gain initialisation), eps keyword-only as in torchtune's and gpt-neox's norms."""

    def __init__(self, dim, *, gain, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.full((dim,), float(gain)))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
'''


def test_init_binds_a_keyword_the_constructor_needs_and_the_replay_carries_it(tmp_path):
    target = tmp_path / "norm.py"
    target.write_text(NORM_WITH_A_REQUIRED_KEYWORD)
    r = CliRunner()
    bare = r.invoke(main, ["conform", f"{target}:RMSNorm", "--kind", "rmsnorm"])
    assert bare.exit_code == 2 and "missing a required argument: 'gain'" in bare.output, bare.output
    ok = r.invoke(main, ["conform", f"{target}:RMSNorm", "--kind", "rmsnorm", "--init", "gain=1.0"])
    assert ok.exit_code == 0, ok.output
    assert "--init gain=1.0" in ok.output.splitlines()[0]
    # gain 2 scales y: the wrong module for the derived RMSNorm (weight 1), and every replay says how it was built
    bad = r.invoke(main, ["conform", f"{target}:RMSNorm", "--kind", "rmsnorm", "--init", "gain=2"])
    assert bad.exit_code == 1, bad.output
    replays = [line.split("replay: ")[1] for line in bad.output.splitlines() if "replay: " in line]
    assert replays and all("--init gain=2" in line for line in replays)


@pytest.mark.parametrize(
    "flag,message",
    [
        ("gian=1.0", "--init gian=…: {t} takes no keyword 'gian' (its keywords: dim, gain, eps)"),
        ("gain", "--init 'gain': write KEY=VALUE with KEY a parameter name, e.g. --init eps=1e-6"),
    ],
)
def test_init_of_a_name_the_target_does_not_take_is_one_line_before_any_call(tmp_path, flag, message):
    target = tmp_path / "norm.py"
    target.write_text(NORM_WITH_A_REQUIRED_KEYWORD)
    out = CliRunner().invoke(main, ["conform", f"{target}:RMSNorm", "--kind", "rmsnorm", "--init", flag])
    assert (out.exit_code, out.output) == (2, "error: " + message.format(t=f"{target}:RMSNorm") + "\n")


def test_init_values_are_read_by_a_whitelist_never_evaluated():
    from mathcheck.conform.spec import init_word, parse_init

    assert parse_init("p=-1.0") == ("p", -1.0) and parse_init("n=3") == ("n", 3)
    assert parse_init("bias=false") == ("bias", False) and parse_init("mask=none") == ("mask", None)
    assert parse_init("reduction=mean") == ("reduction", "mean")
    assert parse_init("x=__import__('os')") == ("x", "__import__('os')")  # a string, as typed
    for text in ("p=-1.0", "eps=1e-06", "bias=true", "reduction=mean"):  # the replay reads back the same
        key, value = parse_init(text)
        assert parse_init(f"{key}={init_word(value)}") == (key, value)


def test_init_label_smoothing_on_a_loss_is_read_as_the_loss_setting():
    # --init binds like functools.partial(F.cross_entropy, label_smoothing=0.1): detected as the setting
    r = conform(F.cross_entropy, "cross-entropy", Variant(init=(("label_smoothing", 0.1),)))
    assert r.status == "holds" and r.variant.label_smoothing == 0.1


# --- constructors that take a config object ----------------------------------------------------------------

CORPUS = str(TESTS / "conform_corpus")


def test_a_config_constructor_is_built_from_conform_s_sizes_and_holds():
    r = CliRunner().invoke(
        main, ["conform", f"{CORPUS}/nanogpt.py:ConfigCausalSelfAttention", "--kind", "mha", "--causal"]
    )
    assert r.exit_code == 0, r.output
    assert "constructor: takes a config object (config)" in r.output


def test_a_config_norm_reads_its_eps_from_the_config_and_init_sets_a_field():
    class Args:  # meta-llama's RMSNorm(dim, eps) built from ModelArgs (dim, norm_eps), our rewrite
        pass

    class RMSNorm(torch.nn.Module):
        def __init__(self, args):
            super().__init__()
            self.eps, self.weight = args.norm_eps, torch.nn.Parameter(torch.full((args.dim,), args.gain))

        def forward(self, x):
            return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    with pytest.raises(BadInput, match="conform's config has no 'gain': give it with --init gain=VALUE"):
        conform(RMSNorm, "rmsnorm")
    r = conform(RMSNorm, "rmsnorm", Variant(init=(("gain", 1.0),)))
    assert r.status == "holds", [(x.name, x.status, x.note) for x in r.results]
    assert any("takes a config object (args)" in line for line in r.setting)
