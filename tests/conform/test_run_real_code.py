"""conform on real code: the precision a target computes in is measured, a module runs at its own
eps and in eval mode, and a corpus of third-party implementations (tests/conform_corpus/) holds
while every bug planted in it fails, naming its property, on a baseline that holds."""

import importlib.util
import math

import pytest
import torch
import torch.nn as nn
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.conform.run import conform
from mathcheck.conform.spec import Variant, parse_args, parse_init
from mathcheck.conform.target import load
from mathcheck.render.text import conform_report as conform_text
from tests.paths import TESTS

CORPUS = TESTS / "conform_corpus"


def _cli(*args):
    return CliRunner().invoke(main, ["conform", *args])


# --- precision, measured ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    ["transformers.models.llama.modeling_llama:LlamaRMSNorm", "transformers.models.t5.modeling_t5:T5LayerNorm"],
)
def test_hf_norms_that_compute_in_float32_hold_and_say_so(target):
    pytest.importorskip("transformers")
    out = _cli(target, "--kind", "rmsnorm")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[1].startswith(
        "  computes in float32 (output float64): tolerances from float32 ε = 1.19e-07; "
        "measured: widening its ops to float64 moves the output by "
    )
    # the properties hold it widened, at float64's tolerance; as written per dtype by input-dtypes
    assert lines[1].endswith(
        "the properties run it widened to float64 (float64 tolerance, resolution 1.2e-13); "
        "as written it is held per input dtype and size by input-dtypes"
    )
    assert lines[2] == "  eps 0.1 (asked of the factory; the module's variance_epsilon)"
    assert lines[-1] == "status: holds (every expected property holds)"


def test_torch_layernorm_holds_in_float64():
    out = _cli("torch.nn:LayerNorm", "--kind", "layernorm")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[1] == (
        "  computes in float64 (output float64): tolerances from float64 ε = 2.22e-16; resolution: relative errors "
        "above 1.2e-13 are detected (reductions of 64 terms)"
    )


class Float32Norm(nn.Module):
    """RMSNorm in float32 inside, times ``1 + bug`` (a relative error of ``bug``)."""

    def __init__(self, D, eps, bug=0.0):
        super().__init__()
        self.eps, self.bug = eps, bug

    def forward(self, x):
        y = x.float()
        return (y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps) * (1 + self.bug)).to(x.dtype)


def test_float32_tolerances_still_catch_a_bug_above_the_resolution():
    ok = conform(lambda D, eps: Float32Norm(D, eps), "rmsnorm")
    assert ok.status == "holds" and ok.precision == "float32"
    bad = conform(lambda D, eps: Float32Norm(D, eps, bug=1e-4), "rmsnorm")  # above the stated 3.1e-05
    assert bad.status == "fails" and "matches-derived" in bad.failed


def test_exact_float32_constants_do_not_loosen_float64_tolerances():
    def attention(q, k, v, attn_mask=None, is_causal=False):
        keep = torch.ones(q.shape[-2], k.shape[-2]).tril() if is_causal else None  # float32, exact 0/1
        s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if keep is not None:
            s = s.masked_fill(keep == 0, float("-inf"))
        if attn_mask is not None:
            s = s.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else s + attn_mask
        return s.softmax(-1) @ v

    r = conform(attention, "attention", Variant(causal=True))
    assert r.status == "holds" and r.precision == "float64"
    assert "its float32 ops do not change the output" in r.setting[0]


# --- the module's own configuration -------------------------------------------------------------------


def test_eps_measured_when_the_factory_ignores_it():
    out = _cli(f"{CORPUS}/nanogpt.py:make_layernorm", "--kind", "layernorm")
    assert out.exit_code == 0, out.output
    assert (
        "  eps 1e-05: measured from the outputs (the module holds no numeric eps and ignores its eps "
        "argument: asked of the factory 0.1); tested at 1e-05"
    ) in out.output.splitlines()
    assert "--eps 1e-05" in out.output.splitlines()[0]


def test_eps_held_by_the_module_wins_over_the_argument_and_eps_option():
    make = lambda D, eps: nn.RMSNorm(D, eps=1e-6)  # noqa: E731
    r = conform(make, "rmsnorm")
    assert r.status == "holds" and r.variant.eps == 1e-6
    assert r.setting[1] == (
        "eps 1e-06: the module's eps (the factory ignores its eps argument: asked of the factory 0.1); tested at 1e-06"
    )
    r = conform(lambda D, eps: nn.RMSNorm(D, eps=eps), "rmsnorm", Variant(eps=1e-3))
    assert r.status == "holds" and r.setting[1] == "eps 0.001 (--eps; the module's eps)"
    bad = _cli("torch.nn.functional:softmax", "--kind", "softmax", "--eps", "1e-5")
    assert (bad.exit_code, bad.output) == (
        2,
        "error: --eps: kind 'softmax' has no eps; it is for layernorm and rmsnorm\n",
    )


class DropoutAlwaysOn(nn.Module):
    def __init__(self, D, eps):
        super().__init__()
        self.norm = nn.LayerNorm(D, eps=eps)

    def forward(self, x):
        return nn.functional.dropout(self.norm(x), p=0.5, training=True)  # ignores eval mode


def test_eval_mode_and_a_module_still_random_in_eval_mode():
    r = conform(lambda D, H: load(f"{CORPUS}/nanogpt.py:make_attention")(D, H), "mha", Variant(causal=True))
    assert r.status == "holds"  # its dropout (p = 0.1) is off: eval mode
    out = _cli("tests/conform/test_run_real_code.py:DropoutAlwaysOn", "--kind", "layernorm")
    assert out.exit_code == 3
    assert out.output.splitlines()[1].startswith(
        "  nondeterministic: two calls in eval mode on the same input differ by "
    )
    assert out.output.splitlines()[-1].startswith("status: inconclusive (nondeterministic: ")


def test_a_module_that_keeps_its_graph_is_not_deep_copied():
    r = conform(load(f"{CORPUS}/annotated.py:make_mha"), "mha", only=("float32-vs-float64",))
    assert [x.status for x in r.results] == ["holds"]


# --- the corpus: every correct one holds, every planted bug fails naming its property ------------------


def _cases():
    for f in sorted(CORPUS.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"corpus_{f.stem}", f)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        for name, kind, flags, prop in m.CASES:
            yield pytest.param(f, name, kind, flags, prop, id=f"{f.stem}:{name}{''.join(flags)}")


def _variant(flags):
    """The corpus's command-line flags as a Variant (--causal, --layout/--mask/--gqa-grouping VALUE,
    --init KEY=VALUE, --args NAME=ROLE,…)."""
    opts = {"causal": "--causal" in flags}
    for flag, field in (("--layout", "layout"), ("--mask", "mask"), ("--gqa-grouping", "gqa_grouping")):
        if flag in flags:
            opts[field] = flags[flags.index(flag) + 1]
    opts["init"] = tuple(parse_init(flags[i + 1]) for i, f in enumerate(flags) if f == "--init")
    if "--args" in flags:
        opts["args"] = parse_args(flags[flags.index("--args") + 1])
    return Variant(**opts)


@pytest.mark.slow
@pytest.mark.parametrize("file,name,kind,flags,prop", list(_cases()))
def test_corpus(file, name, kind, flags, prop):
    target = f"{file}:{name}"
    r = conform(load(target), kind, _variant(flags), target=target)
    if prop is None:
        assert r.status == "holds", "\n".join(conform_text(r))
        return
    assert r.status == "fails" and prop in r.failed, "\n".join(conform_text(r))
    res = next(x for x in r.results if x.name == prop)
    cx = res.counterexample
    if cx["entry"] is not None:  # the entry shown differs beyond the tolerance: it shows the bug
        assert abs(cx["derived"] - cx["user"]) > res.tolerance
    assert cx["replay"].startswith(f"mathcheck conform {target} --kind {kind}")


# --- real sizes and reports that locate the bug -------------------------------------------------------


def test_an_attention_that_drops_keys_after_16_fails_and_shrinks_to_17():
    from examples import bug_zoo as zoo

    r = conform(zoo.drop_keys_after_16, "attention", only=("long-sequence",))
    res = r.results[0]
    assert res.status == "fails"
    cx = res.counterexample
    assert cx["sizes"]["L"] == 17  # the first length where a key is dropped
    assert abs(cx["derived"] - cx["user"]) > res.tolerance


def test_shrinking_keeps_the_same_exception_type():
    def picky(query, key, value, attn_mask=None, is_causal=False):
        L = query.shape[-2]
        if L == 1:
            raise TypeError("a different failure")
        if 3 <= L <= 8:  # runs at the precision probe's L = 16: a first call that raised would be bad input
            raise RuntimeError("the bug")
        return nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, is_causal=is_causal)

    res = conform(picky, "attention", only=("output",)).results[0]
    assert res.status == "fails" and res.counterexample["sizes"]["L"] == 3
    assert res.note.startswith("the callable raised RuntimeError: the bug")


def test_the_worst_entry_is_shown_not_the_first():
    from mathcheck.conform.property import compare

    derived = torch.zeros(4, dtype=torch.float64)
    o = compare(derived + torch.tensor([1e-9, 0.0, 4.26, 1e-3], dtype=torch.float64), derived, 1e-12, "x")
    assert (o.entry, o.user) == ((2,), 4.26)


def test_unstable_is_told_from_a_wrong_formula_and_rounding_level_is_said(conform_full):
    out = _cli("examples/bug_zoo.py:softmax_without_shift", "--kind", "softmax")
    assert out.exit_code == 1
    # exp without the shift also overflows float16 at 129 classes: input-dtypes fails with it (issue 30 item 4);
    # render/text.py's "numerically unstable" summary covers finite-large-logits alone
    assert out.output.splitlines()[-1] == "status: fails (2 properties fail: finite-large-logits, input-dtypes)"
    from mathcheck.conform.property import Outcome, Property
    from mathcheck.conform.run import run_property

    near = Property("p", "softmax-simplex", "doc", lambda *a: Outcome(False, 2.0, 1.0, (0,), 0.0, 2.0, "x"), {"N": 1})
    res = run_property(near, None, "t", "softmax", Variant(), 0, {"N": 1}, False)
    assert res.status == "fails" and res.note.startswith(
        "within 4× the tolerance from float64 ε (2×): a rounding-level"
    )


# --- HF's own modules and attention interface ---------------------------------------------------------

HF_EAGER = "transformers.models.llama.modeling_llama:eager_attention_forward"


@pytest.mark.parametrize(
    "target,args",
    [
        (HF_EAGER, ["--kind", "attention"]),
        (HF_EAGER, ["--kind", "attention", "--causal"]),
        (HF_EAGER, ["--kind", "gqa", "--causal"]),  # repeat_kv over module.num_key_value_groups
        ("transformers.models.gpt2.modeling_gpt2:eager_attention_forward", ["--kind", "attention", "--causal"]),
    ],
)
def test_hf_attention_interface_is_detected_and_holds(target, args):
    pytest.importorskip("transformers")
    out = _cli(target, *args)
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[-1] == "status: holds (every expected property holds)"


def test_hf_llama_eager_softmax_is_measured_float32():
    pytest.importorskip("transformers")
    out = _cli(HF_EAGER, "--kind", "attention")
    assert out.output.splitlines()[1].startswith("  computes in float32 (output float64)")


def hf_llama_rotary(x, positions):
    """Llama's rotary path: LlamaRotaryEmbedding's cos/sin and apply_rotary_pos_emb (rotate_half)."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    d = x.shape[-1]
    cos, sin = LlamaRotaryEmbedding(LlamaConfig(hidden_size=d, num_attention_heads=1, head_dim=d))(
        x, positions.long()[None]
    )
    q = x.reshape(-1, 1, *x.shape[-2:])
    return apply_rotary_pos_emb(q, q, cos, sin)[0].reshape(x.shape)


def test_hf_llama_rotary_path_holds_in_float32():
    pytest.importorskip("transformers")
    r = conform(hf_llama_rotary, "rotary")
    assert r.status == "holds", "\n".join(conform_text(r))
    assert r.precision == "float32"


def test_convention_options_are_checked_before_work():
    bad = _cli("torch.nn.functional:softmax", "--kind", "softmax", "--layout", "blhd")
    assert (bad.exit_code, bad.output) == (
        2,
        "error: --layout 'blhd': kind 'softmax' takes none (it is for attention, gqa and mha)\n",
    )
    bad = _cli("examples/bug_zoo.py:gqa_tiled", "--kind", "gqa", "--gqa-grouping", "round-robin")
    assert (bad.exit_code, bad.output) == (
        2,
        "error: --gqa-grouping 'round-robin': kind gqa takes interleaved or tiled\n",
    )
    bad = _cli("torch.nn.functional:scaled_dot_product_attention", "--kind", "attention", "--mask", "0/1")
    assert bad.exit_code == 2 and bad.output.startswith("error: --mask '0/1': kind attention takes one of keep, ")


def test_gqa_grouping_is_a_declared_convention():
    from examples import bug_zoo as zoo

    assert conform(zoo.gqa_tiled, "gqa", Variant(gqa_grouping="tiled")).status == "holds"
    assert "matches-derived" in conform(zoo.gqa_tiled, "gqa").failed  # the default: interleaved


def test_mask_conventions_and_sequence_first_mha():
    def masked_out(q, k, v, attn_mask=None, is_causal=False):  # True = masked (the opposite of SDPA)
        return nn.functional.scaled_dot_product_attention(
            q, k, v, None if attn_mask is None else ~attn_mask, is_causal=is_causal
        )

    def keep01(q, k, v, attn_mask=None, is_causal=False):  # 0/1 keep, filled with finfo.min
        s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if attn_mask is not None:
            s = s.masked_fill(attn_mask == 0, torch.finfo(s.dtype).min)
        if is_causal:
            s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), -torch.inf)
        return s.softmax(-1) @ v

    assert conform(masked_out, "attention", Variant(mask="masked-out")).status == "holds"
    assert "masked-keys-zero-weight" in conform(masked_out, "attention").failed
    assert conform(keep01, "attention", Variant(mask="keep01", causal=True)).status == "holds"
    assert conform(SeqFirst, "mha", Variant(layout="lbd")).status == "holds"
    assert conform(SeqFirst, "mha").failed == ["shapes"]  # (L, B, D) read as (B, L, D): the traced table differs


class SeqFirst(nn.Module):
    """Self-attention on (L, B, D): nn.MultiheadAttention's default batch_first=False."""

    def __init__(self, D, H):
        super().__init__()
        self.mha = nn.MultiheadAttention(D, H)

    def forward(self, x):
        return self.mha(x, x, x)[0]


# --- loss conventions: label smoothing, distillation temperature -------------------------------------


def ce_smoothed(z, y):
    return nn.functional.cross_entropy(z, y, label_smoothing=0.1)


def ce_smoothed_over_other_classes(z, y):
    """ε/(C − 1) on the other classes: a common hand-written smoothing, not PyTorch's ε/C."""
    C, eps = z.shape[-1], 0.1
    p = y if y.dtype.is_floating_point else nn.functional.one_hot(y, C).to(z.dtype)
    p = p * (1 - eps) + (1 - p) * eps / (C - 1)
    return -(p * nn.functional.log_softmax(z, -1)).sum(-1).mean()


def distill(z, v, T=2.0):
    return (
        nn.functional.kl_div(
            nn.functional.log_softmax(z / T, -1), nn.functional.softmax(v / T, -1), reduction="batchmean"
        )
        * T
        * T
    )


def test_label_smoothing_is_pytorchs_eps_over_c():
    assert conform(ce_smoothed, "cross-entropy", Variant(label_smoothing=0.1)).status == "holds"
    assert "matches-derived" in conform(ce_smoothed, "cross-entropy").failed  # smoothing not declared
    assert (
        "matches-derived"
        in conform(ce_smoothed_over_other_classes, "cross-entropy", Variant(label_smoothing=0.1)).failed
    )


def test_distillation_temperature_states_the_t_squared_factor():
    assert conform(distill, "kl", Variant(temperature=2.0)).status == "holds"
    no_t2 = conform(lambda z, v: distill(z, v) / 4, "kl", Variant(temperature=2.0))
    assert {"matches-derived", "gradient"} <= set(no_t2.failed)
    bad = _cli("torch.nn.functional:softmax", "--kind", "softmax", "--temperature", "2")
    assert (bad.exit_code, bad.output) == (
        2,
        "error: --temperature 2.0: it is for kind kl (distillation), not 'softmax'\n",
    )
    bad = _cli("tests/conform/test_run_real_code.py:ce_smoothed", "--kind", "cross-entropy", "--label-smoothing", "1.5")
    assert (bad.exit_code, bad.output) == (
        2,
        "error: --label-smoothing 1.5: give ε in [0, 1], e.g. --label-smoothing 0.1\n",
    )


class BFloat16Norm(nn.Module):
    def __init__(self, D, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        y = x.to(torch.bfloat16)
        return (y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype)


def test_bfloat16_is_measured_by_the_same_table_and_held_widened():
    r = conform(BFloat16Norm, "rmsnorm")
    assert r.precision == "bfloat16"
    assert r.setting[0].startswith("computes in bfloat16 (output float64): tolerances from bfloat16 ε = 0.00781")
    # no longer "too coarse": the properties hold it widened at float64's tolerance (issue 30 item 4)
    assert r.setting[0].endswith("as written it is held per input dtype and size by input-dtypes")
    assert r.status == "holds"


class GPT2Self(nn.Module):
    """HF's GPT2Attention module as self-attention (forward(x)), with a chosen attention implementation."""

    def __init__(self, D, H, impl="sdpa"):
        super().__init__()
        from transformers import GPT2Config
        from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

        cfg = GPT2Config(n_embd=D, n_head=H)
        cfg._attn_implementation = impl
        self.attn = GPT2Attention(cfg, layer_idx=0)

    def forward(self, x):
        return self.attn(x)[0]


def test_hf_gpt2_attention_module():
    """Called alone (no mask), GPT2Attention is causal through SDPA's is_causal, but bidirectional with
    the eager implementation, whose causality lives in the model's mask: conform says so."""
    pytest.importorskip("transformers")
    assert conform(lambda D, H: GPT2Self(D, H, "sdpa"), "mha", Variant(causal=True)).status == "holds"
    eager = lambda D, H: GPT2Self(D, H, "eager")  # noqa: E731
    assert conform(eager, "mha").status == "holds"
    assert "causal-no-future" in conform(eager, "mha", Variant(causal=True)).failed


# --- issue 30: call conventions detected from parameter names, --args for the rest ---------------------

ONMT = f"{CORPUS}/rotary_applies.py:onmt_apply_rotary_emb"


def test_an_apply_whose_roles_no_name_tells_is_refused_with_the_way_to_say_them():
    out = _cli(ONMT, "--kind", "rotary", "--init", "interleave=false", "--quick")
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1, out.output
    assert "say which with --args NAME=ROLE" in out.output and "freqs_cis" in out.output


def test_args_declare_the_roles_and_travel_in_every_replay_line():
    out = _cli(
        ONMT, "--kind", "rotary", "--init", "interleave=false", "--args", "query=x,key=k,rope=freqs_cis", "--quick"
    )
    assert out.exit_code == 0, out.output
    assert "convention: apply(query, key, rope) (declared by --args: query=x, key=k, rope=freqs_cis)" in out.output
    assert "complex freqs_cis cat(cis, cis) (L, d)" in out.output
    bug = f"{CORPUS}/rotary_applies.py:gptj_apply_sin_for_cos"
    out = _cli(bug, "--kind", "rotary", "--args", "tensor=x,sin=sin,cos=cos", "--quick")
    assert out.exit_code == 1
    replays = [ln.strip() for ln in out.output.splitlines() if ln.strip().startswith("replay:")]
    assert replays and all("--args tensor=x,sin=sin,cos=cos" in r for r in replays)


@pytest.mark.parametrize(
    "args, said",
    [
        ("query", "write NAME=ROLE pairs"),
        ("query=x,query=k", "parameter 'query' given twice"),
        ("query=x,key=k,rope=cosine", "'cosine' is not a role of kind rotary"),
        ("query=x,key=k,table=freqs_cis", "has no parameter 'table'"),
        ("query=x,key=x,rope=freqs_cis", "role 'x' given twice"),
        ("query=x,key=k", "required parameter 'rope' has no role"),
        ("1=x", "write NAME=ROLE pairs"),
    ],
)
def test_a_bad_args_is_one_line_exit_2(args, said):
    out = _cli(ONMT, "--kind", "rotary", "--init", "interleave=false", "--args", args, "--quick")
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "Traceback" not in out.output, out.output


def loss_target_first(target, logits):
    """A loss that takes its target first (our own example: the order of sklearn-style metrics)."""
    return torch.nn.functional.cross_entropy(logits, target)


def test_args_reorder_a_kind_s_own_parameters():
    target = "tests/conform/test_run_real_code.py:loss_target_first"
    plain = _cli(target, "--kind", "cross-entropy", "--quick")  # called (logits, target) by position: it raises
    assert plain.exit_code == 2 and "--args NAME=ROLE" in plain.output, plain.output
    out = _cli(target, "--kind", "cross-entropy", "--args", "target=target,logits=logits", "--quick")
    assert out.exit_code == 0, out.output
    assert "arguments: target=target, logits=logits (declared by --args)" in out.output
    missing = _cli(target, "--kind", "cross-entropy", "--args", "target=target", "--quick")
    assert missing.exit_code == 2 and "required parameter 'logits' has no role" in missing.output


@pytest.mark.parametrize(
    "target, words",
    [
        ("transformers.models.gptj.modeling_gptj:apply_rotary_pos_emb", "apply(tensor, sin, cos)"),
        (f"{CORPUS}/rotary_applies.py:litgpt_apply_rope", "apply(x, cos, sin)"),
        (f"{CORPUS}/rotary_applies.py:gptfast_apply_rotary_emb", "real freqs_cis (L, d/2, 2)"),
        (
            f"{CORPUS}/rotary_applies.py:megatron_apply_bshd",
            "apply(t, freqs) (detected from the parameter names, as --args: t=x, freqs=freqs)",
        ),
    ],
)
def test_rotary_conventions_are_detected_and_said(target, words):
    out = _cli(target, "--kind", "rotary", "--quick")
    assert out.exit_code == 0, out.output
    assert words in out.output
    assert " --args " in out.output.splitlines()[0]  # the detected roles, in the header as every replay carries them


def test_a_de_interleaved_output_basis_is_found_said_and_its_bug_still_fails():
    out = _cli(
        "transformers.models.deepseek_v3.modeling_deepseek_v3:apply_rotary_pos_emb_interleave",
        "--kind",
        "rotary",
        "--quick",
    )
    assert out.exit_code == 0, out.output
    assert "its output in the de-interleaved basis" in out.output
    bug = _cli(f"{CORPUS}/rotary_applies.py:litgpt_apply_rope_interleave_odd_first", "--kind", "rotary", "--quick")
    assert bug.exit_code == 1 and "FAILS                 matches-derived" in bug.output


class GemmaRMSNormWeightOnes(nn.Module):
    """Liger-Kernel's test reference GemmaRMSNorm (linkedin/Liger-Kernel, test/transformers/test_rms_norm.py
    @ ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c), our rewrite: Gemma's (1 + weight) gain, but the weight
    built at ones, so the module computes 2·RMSNorm(x) as built (transformers' Gemma builds it at zeros)."""

    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(hidden_size))

    def forward(self, x):
        y = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * (1.0 + self.weight.float())).type_as(x)


def test_a_gain_other_than_one_as_built_fails_and_says_it_is_a_constant_factor():
    r = conform(GemmaRMSNormWeightOnes, "rmsnorm", Variant(quick=True), only=("matches-derived",))
    res = r.results[0]
    assert res.status == "fails"  # never allowed: a sum for a mean at eps 0 is a constant factor too
    assert "yours is 2× the derived at every entry" in res.note


# --- an attention that takes no mask at all: attn(q, k, v), as tutorials write it -----------------


def _qkv_attention(q, k, v):
    """Our rewrite of the unmasked attention of tutorials (e.g. d2l-en's DotProductAttention without
    valid_lens, the annotated transformer's `attention` called with mask=None): softmax(qkᵀ/√d)v."""
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), -1) @ v


def _qkv_causal(q, k, v):  # masks the future by position, no mask parameter
    L = q.size(-2)
    z = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(
        torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")
    )
    return torch.softmax(z, -1) @ v


def _qkv_no_scale(q, k, v):  # planted: the 1/√d forgotten
    return torch.softmax(q @ k.transpose(-2, -1), -1) @ v


def test_an_attention_taking_q_k_v_only_runs_as_written_and_the_mask_properties_are_said():
    report = conform(_qkv_attention, "attention", only=("output", "masked-keys-zero-weight", "scale"))
    got = {r.name: r.status for r in report.results}
    assert got == {"output": "holds", "masked-keys-zero-weight": "not expected to hold", "scale": "holds"}
    assert any("arguments: query, key, value only, no mask" in line for line in report.setting)
    causal = conform(_qkv_causal, "attention", Variant(causal=True), only=("causal-future-zero-weight", "output"))
    assert {r.name: r.status for r in causal.results} == {"causal-future-zero-weight": "holds", "output": "holds"}
    bad = conform(_qkv_no_scale, "attention", only=("scale",))
    assert [r.status for r in bad.results] == ["fails"]


# --- ALiBi as a bias builder (issue 30 item 3) ------------------------------------------------------


def _mpt_alibi(n_heads, seq_len, full=False, alibi_bias_max=8, device=None, dtype=None):
    """Our rewrite of MPT's build_alibi_bias (mosaicml/llm-foundry, llmfoundry/models/layers/attention.py):
    slope·j over the keys, or −m|i − j| with full=True."""
    bias = torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, 1, seq_len)
    if full:
        bias = (bias - torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, seq_len, 1)).abs().mul(-1)
    slopes = 1.0 / torch.pow(2, torch.arange(1, n_heads + 1, dtype=torch.float32).mul(alibi_bias_max / n_heads))
    return (bias * slopes.view(1, n_heads, 1, 1)).to(dtype)


def _bloom_alibi(attention_mask, num_heads, dtype):
    """Our rewrite of BLOOM's build_alibi_tensor (transformers, models/bloom/modeling_bloom.py), for a
    power-of-two head count: (B·H, 1, L), slope·j with j read off the mask's cumulative sum."""
    batch, L = attention_mask.shape
    base = 2 ** (-(2 ** -(math.log2(num_heads) - 3)))
    slopes = torch.pow(torch.tensor(base), torch.arange(1, 1 + num_heads, dtype=torch.int32))
    arange = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
    return (slopes[..., None] * arange).reshape(batch * num_heads, 1, L).to(dtype)


@pytest.mark.parametrize(
    "builder, above",
    [
        (_mpt_alibi, "the slope·j form"),
        (
            lambda n_heads, seq_len, dtype=None: _mpt_alibi(n_heads, seq_len, full=True, dtype=dtype),
            "bidirectional ALiBi",
        ),
        (_bloom_alibi, "the slope·j form"),
    ],
)
def test_alibi_bias_builders_hold_as_written_and_say_what_they_are_above_the_band(builder, above):
    report = conform(builder, "alibi")
    got = {r.name: r for r in report.results}
    assert got["matches-derived"].status == "holds" and got["off-band"].status == "reported"
    assert above in got["off-band"].note


@pytest.mark.parametrize(
    "bug",
    [
        lambda n_heads, seq_len, dtype=None: -_mpt_alibi(n_heads, seq_len, full=True, dtype=dtype),  # +m(i − j)
        lambda n_heads, seq_len, dtype=None: _mpt_alibi(n_heads, seq_len, dtype=dtype) / 2,  # slopes halved
        lambda n_heads, seq_len, dtype=None: _mpt_alibi(n_heads, seq_len, alibi_bias_max=4, dtype=dtype),  # 2^(−4h/H)
    ],
)
def test_a_wrong_alibi_builder_fails_matches_derived(bug):
    assert {r.name: r.status for r in conform(bug, "alibi").results}["matches-derived"] == "fails"


def test_transformers_own_alibi_builders_hold():
    for target in (
        "transformers.models.bloom.modeling_bloom:build_alibi_tensor",
        "transformers.models.mpt.modeling_mpt:build_mpt_alibi_tensor",
    ):
        r = CliRunner().invoke(main, ["conform", target, "--kind", "alibi"])
        assert r.exit_code == 0 and "holds                 matches-derived" in r.output, r.output
