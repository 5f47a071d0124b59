"""mathcheck model: tiny transformers models and the example GPT hold; every bug of the example's zoo
fails, named by module path and property; bad input is one line and exit 2; JSON; the testing helper;
the pieces (norm discovery, the attention-call check, the failure's localisation) on their own."""

import importlib.util
import json
import sys

import pytest
import torch
import torch.nn.functional as F
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.conform.spec import BadInput
from mathcheck.model import sublayers as sl
from mathcheck.numeric.tolerance import dtype_tolerance
from mathcheck.testing import ClaimFailed, assert_model_conforms
from tests.paths import ROOT


def _load(name):
    sys.path.insert(0, str(ROOT / "examples"))  # the zoo imports tiny_gpt as its sibling
    try:
        spec = importlib.util.spec_from_file_location(f"model_example_{name}", ROOT / "examples" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "examples"))


def run(*args):
    return CliRunner().invoke(main, ["model", *args])


def _module_lines(output):
    return [
        line.split()
        for line in output.splitlines()
        if line.startswith("  ") and not line.startswith("   ") and "config:" not in line and "model-level" not in line
    ]


def _property(data, name):
    return next(p for p in data["properties"] if p["name"] == name)


# --- the must-shows ------------------------------------------------------------------------------


def test_gpt2_holds_listing_norms_and_attention_per_layer():
    out = run("hf:gpt2")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == "model hf:gpt2  seed 0"
    assert "attn_implementation sdpa" in out.output.splitlines()[1]
    assert _module_lines(out.output) == [
        ["transformer.h.0.ln_1", "layernorm", "holds", "6/6"],
        ["transformer.h.0.attn", "attention", "holds", "8/8"],
        ["transformer.h.0.ln_2", "layernorm", "holds", "6/6"],
        ["transformer.h.1.ln_1", "layernorm", "holds", "6/6"],
        ["transformer.h.1.attn", "attention", "holds", "8/8"],
        ["transformer.h.1.ln_2", "layernorm", "holds", "6/6"],
        ["transformer.ln_f", "layernorm", "holds", "6/6"],
    ]
    props = [
        line.split()[:3]
        for line in out.output.splitlines()
        if line.startswith("    ") and "  " in line[4:6] + "  " and line.split()[0] in ("holds", "FAILS", "not")
    ]
    assert ["holds", "causality", "causal-mask-autoregressive"] in props
    assert ["holds", "kv-cache", "kv-cache-equivalence"] in props
    assert out.output.splitlines()[-1] == "status: holds (every expected property holds)"


@pytest.mark.parametrize(
    "model_type",
    ["llama", pytest.param("mistral", marks=pytest.mark.slow), pytest.param("qwen2", marks=pytest.mark.slow)],
)
def test_llama_like_models_hold_with_rmsnorm_at_float32_and_gqa(model_type):
    out = run(f"hf:{model_type}", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["status"] == "holds" and data["config"]["num_key_value_heads"] == 2
    kinds = [(m["path"], m["kind"], m["status"]) for m in data["modules"]]
    for layer in (0, 1):
        assert (f"model.layers.{layer}.input_layernorm", "rmsnorm", "holds") in kinds
        assert (f"model.layers.{layer}.self_attn", "attention", "holds") in kinds
    assert ("model.norm", "rmsnorm", "holds") in kinds
    assert [p for p, *_ in kinds[:4]] == [
        "model.rotary_emb",
        "model.layers.0.input_layernorm",  # forward order
        "model.layers.0.self_attn",
        "model.layers.0.post_attention_layernorm",
    ]
    assert ("model.rotary_emb", "rotary", "holds") in kinds
    attn = next(m for m in data["modules"] if m["path"] == "model.layers.0.self_attn")
    assert _prop_of(attn, "output")["claim"] == "grouped-query-attention"
    norm = next(m for m in data["modules"] if m["path"] == "model.norm")
    assert norm["setting"][0].startswith("computes in float32")  # the RMSNorm's upcast, measured by conform
    assert "eps 1e-06" in norm["setting"][1]  # at its own variance_epsilon
    assert _property(data, "causality")["status"] == "holds"
    assert _property(data, "kv-cache")["status"] == "holds"
    assert _property(data, "padding")["status"] == "holds"


def _prop_of(module, name):
    return next(p for p in module["properties"] if p["name"] == name)


def test_bert_holds_with_causality_not_expected():
    out = run("hf:bert", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["model"] == "hf:bert" and data["status"] == "holds"
    assert {"model", "config", "modules", "properties", "status"} <= set(data)
    assert all({"path", "kind", "properties", "status"} <= set(m) for m in data["modules"])
    assert all({"name", "claim", "status", "counterexample"} <= set(p) for p in data["properties"])
    assert _property(data, "causality")["status"] == "not expected to hold"
    assert _property(data, "permutation-equivariance")["status"] == "holds"
    assert _property(data, "padding")["status"] == "holds"
    kinds = {(m["path"], m["kind"]) for m in data["modules"]}
    assert ("bert.encoder.layer.0.attention.self", "attention") in kinds
    assert ("bert.embeddings.LayerNorm", "layernorm") in kinds


def test_the_example_gpt_holds():
    out = run("examples/tiny_gpt.py:factory")
    assert out.exit_code == 0, out.output
    assert ["blocks.0.attn", "attention", "holds", "8/8"] in _module_lines(out.output)
    assert ["ln_f", "layernorm", "holds", "6/6"] in _module_lines(out.output)


ZOO = {  # factory -> (module path, property that must fail there, model-level properties that must fail)
    "sees_next_token": ("blocks.0.attn", "mask-kind", {"causality", "kv-cache"}),
    "softmax_over_queries": ("blocks.0.attn", "weights-on-simplex", {"causality", "kv-cache"}),
    "eps_outside_sqrt": ("blocks.0.ln_1", "matches-derived", set()),
    "cache_drops_last_key": (None, None, {"kv-cache"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted(ZOO))
def test_every_bug_of_the_zoo_fails_named_by_module_and_property(bug):
    path, prop, model_level = ZOO[bug]
    out = run(f"examples/tiny_gpt_zoo.py:{bug}", "--json")
    assert out.exit_code == 1, out.output
    data = json.loads(out.output)
    failing = {(m["path"], p["name"]) for m in data["modules"] for p in m["properties"] if p["status"] == "fails"}
    if path:
        assert (path, prop) in failing
    assert {p["name"] for p in data["properties"] if p["status"] == "fails"} == model_level
    for p in data["properties"]:
        if p["status"] == "fails":
            assert p["counterexample"]["replay"] == f"mathcheck model examples/tiny_gpt_zoo.py:{bug} --seed 0"
            assert p["counterexample"]["module"] == "blocks.0.attn"


def test_causality_failure_is_shrunk_to_one_pair_in_the_text():
    out = run("examples/tiny_gpt_zoo.py:sees_next_token")
    assert out.exit_code == 1
    assert "        the logits at 0 change when token 1 > 0 changes; first at module blocks.0.attn" in out.output
    assert "        replay: mathcheck model examples/tiny_gpt_zoo.py:sees_next_token --seed 0" in out.output
    assert "compared: query 0 attends to key 1; the causal mask says it must not" in out.output


def test_same_seed_same_report():
    a, b = run("examples/tiny_gpt_zoo.py:cache_drops_last_key"), run("examples/tiny_gpt_zoo.py:cache_drops_last_key")
    assert a.output == b.output


# --- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["nope"], "error: SPEC 'nope': write hf:<model_type> or FILE.py:factory or package.module:factory\n"),
        (["hf:Llama!"], "error: SPEC 'hf:Llama!': write hf:<model_type>, e.g. hf:llama, hf:gpt2, hf:bert\n"),
        (["hf:llama", "--heads", "3"], "error: --hidden 64 --heads 3: the heads must divide the hidden size\n"),
        (["hf:llama", "--kv-heads", "3"], "error: --kv-heads 3: give a divisor of --heads 4\n"),
        (
            ["examples/tiny_gpt.py:factory", "--layers", "3"],
            "error: --hidden/--layers/--heads/--kv-heads/--attn-implementation size an hf: model; "
            "examples/tiny_gpt.py:factory builds its own: drop them\n",
        ),
        (["examples/tiny_gpt.py:nothere"], None),
        (["examples/nothere.py:factory"], "error: target 'examples/nothere.py:factory': no file examples/nothere.py\n"),
        (["hf:gpt2", "--length", "1"], "error: --length 1: causality and the KV cache need at least 2 tokens\n"),
        (
            ["hf:gpt2", "--attn-implementation", "flash"],
            "error: --attn-implementation 'flash': choose one of sdpa, eager\n",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    out = run(*args)
    assert out.exit_code == 2
    assert out.output.count("\n") == 1 and out.output.startswith("error: ")
    if message:
        assert out.output == message


def test_unknown_hf_type_and_missing_kv_heads():
    out = run("hf:nope")
    assert out.exit_code == 2 and out.output.startswith("error: SPEC 'hf:nope': transformers ")
    assert out.output.endswith(
        "has no language model of type 'nope'; give a model_type such as llama, mistral, qwen2, gpt2 or bert\n"
    )
    out = run("hf:gpt2", "--kv-heads", "2")
    assert out.output == "error: --kv-heads 2: hf:gpt2 has no separate key/value heads\n"


# --- the testing helper --------------------------------------------------------------------------------


def test_assert_model_conforms_on_a_factory_and_a_module():
    gpt, zoo = _load("tiny_gpt"), _load("tiny_gpt_zoo")
    assert assert_model_conforms(gpt.factory).status == "holds"
    with pytest.raises(ClaimFailed) as err:
        assert_model_conforms(zoo.cache_drops_last_key())
    text = str(err.value)
    assert "kv-cache" in text and "first at module blocks.0.attn" in text
    assert "replay: assert_model_conforms(GPT, causal=None, seed=0, length=6)" in text


# --- the pieces --------------------------------------------------------------------------------------


def test_norms_are_found_by_class_and_behaviour():
    class Plain(torch.nn.Module):  # no Norm in its name: an RMSNorm by behaviour
        def __init__(self, d):
            super().__init__()
            self.weight, self.eps = torch.nn.Parameter(torch.ones(d)), 1e-6

        def forward(self, x):
            return self.weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    assert sl.norm_kind(torch.nn.LayerNorm(4)) == "layernorm"
    assert sl.norm_kind(torch.nn.RMSNorm(4)) == "rmsnorm"
    assert sl.norm_kind(Plain(4)) == "rmsnorm"
    assert sl.norm_kind(torch.nn.Linear(4, 4)) is None


def _sdpa_inputs(causal, mask=None, gqa=False):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, 4, 5, 8, generator=g, dtype=torch.float64)
    k, v = (torch.randn(1, 2 if gqa else 4, 5, 8, generator=g, dtype=torch.float64) for _ in range(2))
    return {"query": q, "key": k, "value": v, "attn_mask": mask, "is_causal": causal, "scale": None, "enable_gqa": gqa}


@pytest.mark.parametrize("gqa", [False, True])
def test_sdpa_call_holds_and_a_wrong_output_or_mask_fails(gqa):
    inp = _sdpa_inputs(True, gqa=gqa)
    out = F.scaled_dot_product_attention(inp["query"], inp["key"], inp["value"], is_causal=True, enable_gqa=gqa)
    res = {r.name: r for r in sl.check_sdpa(inp, out, causal=True, where="test")}
    assert [res[n].status for n in ("output", "mask-kind", "scale")] == ["holds"] * 3
    assert res["output"].claim == ("grouped-query-attention" if gqa else "attention-backward")
    assert 0 < res["output"].tolerance < 1e-12  # float64: the error model's bound, not a loose constant
    wrong = out.clone()
    wrong[0, 0, 2, 0] += 1e-9
    assert {r.name: r.status for r in sl.check_sdpa(inp, wrong, True, "test")}["output"] == "fails"
    res = {r.name: r for r in sl.check_sdpa(inp, out, causal=False, where="test")}
    assert res["mask-kind"].status == "fails"  # a causal call in a model declared bidirectional


def test_sdpa_call_with_multi_query_keys_broadcast_holds_and_a_wrong_output_fails():
    """Falcon's multi-query attention: keys and values (B, 1, L, D), broadcast by SDPA over the query
    heads without enable_gqa (it crashed the sweep: "index 1 is out of bounds")."""
    inp = _sdpa_inputs(True)
    inp["key"], inp["value"] = inp["key"][:, :1], inp["value"][:, :1]
    out = F.scaled_dot_product_attention(inp["query"], inp["key"], inp["value"], is_causal=True)
    assert {r.name: r.status for r in sl.check_sdpa(inp, out, True, "t")} == {
        "output": "holds",
        "mask-kind": "holds",
        "scale": "holds",
    }
    wrong = out.clone()
    wrong[0, 3, 4, 0] += 1e-9
    assert {r.name: r.status for r in sl.check_sdpa(inp, wrong, True, "t")}["output"] == "fails"


def test_sdpa_additive_mask_with_finfo_min_counts_as_masked():
    keep = torch.ones(5, 5, dtype=torch.bool).tril()
    add = torch.zeros(5, 5, dtype=torch.float64).masked_fill(~keep, torch.finfo(torch.float64).min)
    inp = _sdpa_inputs(False, mask=add)
    out = F.scaled_dot_product_attention(inp["query"], inp["key"], inp["value"], attn_mask=add)
    assert {r.name: r.status for r in sl.check_sdpa(inp, out, True, "t")} == {
        "output": "holds",
        "mask-kind": "holds",
        "scale": "holds",
    }


def test_softmax_tolerance_follows_the_precision_computed_in():
    x = torch.randn(1, 2, 4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    y32 = F.softmax(x, dim=-1, dtype=torch.float32).to(torch.float64)  # HF eager's upcast pattern
    inp = {"input": x, "dim": -1, "dtype": torch.float32}
    res = {r.name: r for r in sl.check_softmax(inp, y32, True, False, "t")}
    assert all(r.status == "holds" for r in res.values())
    assert res["matches-derived"].tolerance > 1e-7 > dtype_tolerance(4, 1.0, torch.float64)
    as64 = {r.name: r for r in sl.check_softmax({**inp, "dtype": None}, y32.to(torch.float64), True, False, "t")}
    assert as64["matches-derived"].status == "fails"  # float32 rounding is not float64's


def test_model_help_imports_neither_transformers_nor_torch():
    from tests.system.test_layering import _imported_at_startup

    mods = _imported_at_startup("model", "--help")
    assert "click" in mods and "transformers" not in mods and "torch" not in mods


def test_a_rotary_applied_with_the_wrong_sign_fails_matches_derived():
    from mathcheck.conform.run import conform
    from mathcheck.model.load import load_model

    model = load_model("hf:llama").model
    apply, d, base = sl.rotary_parts(model.model.rotary_emb)
    assert d == 16 and abs(base - 10000) < 1e-2

    def backwards(q, k, cos, sin):  # rotates by −θ·pos
        return apply(q, k, cos, -sin)

    def half_wrong(q, k, cos, sin):  # half the pairs turned back: no rotation either way
        s = sin.clone()
        s[..., : d // 4] *= -1
        return apply(q, k, cos, s)

    rot = model.model.rotary_emb
    good = conform(sl.rotary_fn(rot, apply), "rotary", sizes={"m": 8})
    bad = conform(sl.rotary_fn(rot, backwards), "rotary", sizes={"m": 8})
    assert good.status == "holds"
    assert {r.name: r.status for r in bad.results}["matches-derived"] == "fails"
    # the whole rotation by −θ·pos, q and k alike, is a convention (NanoChat's rotate_half): check_rotary
    # reads it and holds it as R at −pos; half the pairs turned back is neither
    assert [sl._rotates_backwards(sl.rotary_fn(rot, f), d) for f in (apply, backwards, half_wrong)] == [0, 1, 0]
    held = conform(sl._at_negated_positions(sl.rotary_fn(rot, backwards)), "rotary", sizes={"m": 8})
    assert held.status == "holds"


def test_a_fully_masked_softmax_row_is_not_judged_and_a_wrong_row_still_fails():
    x = torch.randn(1, 2, 3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    x[0, 0, 1] = -torch.inf  # a padded query (Longformer pads to its window): every entry masked, softmax NaN
    y = F.softmax(x, dim=-1)
    res = sl.check_softmax({"input": x, "dim": -1, "dtype": None}, y, False, False, "t")[0]
    assert res.status == "holds" and res.note.endswith("1 fully masked rows not judged")
    y[0, 1, 0] = y[0, 1, 0].flip(-1)
    assert sl.check_softmax({"input": x, "dim": -1, "dtype": None}, y, False, False, "t")[0].status == "fails"


class _MHAModel(torch.nn.Module):
    """Attention by nn.MultiheadAttention: its fused eval path is invisible to the trace."""

    def __init__(self):
        super().__init__()
        self.emb, self.ln = torch.nn.Embedding(50, 16), torch.nn.LayerNorm(16)
        self.mha = torch.nn.MultiheadAttention(16, 2, batch_first=True)
        self.head = torch.nn.Linear(16, 50)

    def forward(self, input_ids):
        x = self.ln(self.emb(input_ids))
        L = x.shape[1]
        y, _ = self.mha(x, x, x, attn_mask=torch.ones(L, L, dtype=torch.bool).triu(1), need_weights=False)
        return self.head(y)


def test_a_fused_attention_is_said_to_be_unseen_and_the_trace_does_not_break_determinism():
    report = assert_model_conforms(_MHAModel)
    assert report.notes and report.notes[0].startswith("no attention call was intercepted")
    assert {r.name: r.status for r in report.properties}["determinism"] == "holds"
    assert [(m.path, m.kind) for m in report.modules] == [("ln", "layernorm")]
    from mathcheck.model.properties import PROPERTIES

    assert [(r.name, r.claim) for r in report.properties] == [
        (p.name, p.claim) for p in PROPERTIES
    ]  # the one table, in order


def test_a_factory_that_returns_no_module_or_no_logits_is_bad_input(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(
        "import torch\n"
        "def three():\n    return 3\n"
        "class Flat(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.e = torch.nn.Embedding(5, 2)\n"
        "    def forward(self, input_ids):\n        return self.e(input_ids).sum()\n"
        "def flat():\n    return Flat()\n"
    )
    out = run(f"{f}:three")
    assert (
        out.exit_code == 2 and out.output == f"error: SPEC '{f}:three': the factory returned a int, not an nn.Module\n"
    )
    out = run(f"{f}:flat")
    assert out.exit_code == 2 and out.output == (
        f"error: SPEC '{f}:flat': forward(input_ids=<ids (2, 6)>) must return logits (B, L, V) = (2, 6, 'V'), "
        "a tuple/list holding them, or an object with .logits; it returned ()\n"
    )


def test_a_gemma_style_norm_is_held_at_its_own_identity_weight():
    class OnePlus(torch.nn.Module):  # Gemma: y·(1 + w), w initialised to 0
        def __init__(self, d, eps=1e-6):
            super().__init__()
            self.weight, self.eps = torch.nn.Parameter(torch.zeros(d)), eps

        def forward(self, x):
            return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * (1.0 + self.weight)

    assert sl.identity_fill(OnePlus(8)) == 0.0 and sl.identity_fill(torch.nn.RMSNorm(8)) == 1.0
    assert sl.norm_kind(OnePlus(8)) == "rmsnorm"
    results, setting = sl.check_norm("norm", OnePlus(8), "rmsnorm", 0, "replay")
    assert {r.status for r in results} == {"holds", "not expected to hold"}
    assert "eps 1e-06" in setting[-1]


def test_a_cache_path_that_raises_fails_kv_cache_and_does_not_crash():
    gpt = _load("tiny_gpt")

    class Broken(gpt.CausalSelfAttention):
        def extend(self, cache, k, v):
            if cache is not None:
                raise RuntimeError("no cache here")
            return super().extend(cache, k, v)

    with pytest.raises(ClaimFailed) as err:
        assert_model_conforms(lambda: gpt.GPT(attention=Broken))
    assert "the forward with use_cache/past_key_values raised RuntimeError: no cache here" in str(err.value)


def test_eager_attention_is_held_through_its_float32_softmax():
    out = run("hf:llama", "--attn-implementation", "eager", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["config"]["attn_implementation"] == "eager"
    attn = next(m for m in data["modules"] if m["path"] == "model.layers.0.self_attn")
    assert attn["kind"] == "attention" and attn["status"] == "holds"
    derived = _prop_of(attn, "matches-derived")
    assert derived["note"] == "full forward; computed in float32" and derived["tolerance"] > 1e-8
    assert {p["name"] for p in attn["properties"]} >= {"weights-on-simplex", "mask-kind", "mask-kind [cached step]"}


def test_a_tolerance_that_is_not_finite_is_never_a_pass():
    r = sl._result("output", "attention-backward", "doc", True, 0.0, float("inf"))
    assert r.status == "inconclusive" and r.tolerance is None


def test_other_sizes_hold_rotary_included_at_head_size_64():
    out = run("hf:llama", "--hidden", "128", "--heads", "2", "--kv-heads", "1", "--layers", "1", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["config"]["head_dim"] == 64 and data["config"]["num_key_value_heads"] == 1
    rotary = next(m for m in data["modules"] if m["kind"] == "rotary")
    assert rotary["status"] == "holds" and len(rotary["properties"]) == 4  # input-dtypes included
    assert rotary["setting"][0].startswith("computes in float32")  # its float32 table, measured


def test_a_forward_that_ignores_its_attention_mask_fails_padding():
    gpt = _load("tiny_gpt")

    class IgnoresMask(gpt.GPT):
        def forward(self, input_ids, attention_mask=None):  # takes the mask, never applies it
            return super().forward(input_ids)

    with pytest.raises(ClaimFailed) as err:
        assert_model_conforms(IgnoresMask)
    text = str(err.value)
    assert "FAILS                 padding                   mask-negative-infinity" in text
    assert "row 1 (middle padding): changing its masked-out tokens [3] moves its kept logits by" in text
    assert text.splitlines()[-1] == "status: fails (1 failing: padding)"


class _MaskInDefaultDtype(torch.nn.Module):
    """ProphetNet style (transformers' ProphetNetDecoder.prepare_attention_mask): the additive mask made
    as (1.0 − mask)·finfo(the model's dtype).min, whose (1.0 − mask) is in torch's default dtype."""

    def __init__(self):
        super().__init__()
        self.emb, self.head = torch.nn.Embedding(16, 8), torch.nn.Linear(8, 16)

    def forward(self, input_ids, attention_mask=None):
        x = self.emb(input_ids)
        z = x @ x.transpose(1, 2)
        if attention_mask is not None:
            z = z + (1.0 - attention_mask[:, None, :]) * torch.finfo(x.dtype).min
        return self.head(torch.softmax(z, dim=-1) @ x)


def test_the_forward_runs_under_the_models_dtype_as_its_default():
    from mathcheck.model import properties as mp
    from mathcheck.model.load import from_module

    loaded = from_module(_MaskInDefaultDtype, "m", causal=False)
    ids = mp.draw_ids(0, 16, 6)
    result = mp.padding(loaded, ids, 1e-12, "replay")
    assert result.status == "holds", result.note  # under float32's default: 0·(−∞) = NaN in every row
    assert torch.get_default_dtype() == torch.float32


@pytest.mark.parametrize("where", ["factory", "forward"])
def test_a_model_that_calls_sys_exit_is_an_error_never_a_success(tmp_path, where):
    """sys.exit(0) in the user's factory or forward used to leave `model` through click with exit 0."""
    f = tmp_path / "m.py"
    f.write_text(
        "import sys, torch\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__(); self.emb = torch.nn.Embedding(11, 8); self.out = torch.nn.Linear(8, 11)\n"
        "    def forward(self, input_ids, **kw):\n"
        + ("        sys.exit(0)\n" if where == "forward" else "")
        + "        return self.out(self.emb(input_ids))\n"
        "def make():\n" + ("    sys.exit(0)\n" if where == "factory" else "") + "    return M()\n"
    )
    result = CliRunner().invoke(main, ["model", f"{f}:make"])
    assert result.exit_code == 4, result.output
    assert "SystemExit(0)" in result.output and "Traceback" not in result.output


class WidthCheckingRMSNorm(torch.nn.Module):
    """Our rewrite of transformers' CpmAntLayerNorm (models/cpmant/modeling_cpmant.py, 5.24): an
    RMSNorm that refuses an input whose width is not its ``dim_norm``."""

    def __init__(self, D):
        super().__init__()
        self.eps, self.dim_norm, self.weight = 1e-6, D, torch.nn.Parameter(torch.ones(D))

    def forward(self, x):
        if x.size(-1) != self.dim_norm:
            raise AssertionError("hidden_states.size(-1) != self.dim_norm")
        v = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return (x * torch.rsqrt(v + self.eps)).to(x.dtype) * self.weight


def test_a_norm_that_checks_its_width_is_resized_with_its_weight_and_holds():
    # the sweep's hf:cpmant: every property "failed" with the norm's own AssertionError at D = 2
    m = WidthCheckingRMSNorm(16).double()
    assert sl.norm_kind(m) == "rmsnorm"
    results, _ = sl.check_norm("n", m, "rmsnorm", 0, "replay")
    assert {r.name: r.status for r in results if r.expected == "holds"} == dict.fromkeys(
        ("matches-derived", "mean-square", "jacobian", "float32-vs-float64", "input-dtypes"), "holds"
    )


def test_a_rotary_module_with_an_attention_scaling_is_held_with_it_divided_out():
    """gpt-oss's YaRN rotary multiplies cos and sin by attention_scaling (the sweep's false alarm on
    norm-preserving); the factor is said, and a factor the module does not declare still fails."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    rope = LlamaRotaryEmbedding(LlamaConfig(hidden_size=64, num_attention_heads=4, max_position_embeddings=64))
    rope.attention_scaling = 1.2
    results, setting = sl.check_rotary("rope", rope, 0, "replay")
    assert {r.name: r.status for r in results} == dict.fromkeys(
        ("matches-derived", "relative-position", "norm-preserving", "input-dtypes"), "holds"
    )
    assert any("attention_scaling 1.2" in line for line in setting)
    rope.forward = lambda x, pos, _f=rope.forward: tuple(1.2 * t for t in _f(x, pos))  # undeclared: a scaled rotation
    rope.attention_scaling = 1.0
    results, _ = sl.check_rotary("rope", rope, 0, "replay")
    assert {r.name: r.status for r in results}["norm-preserving"] == "fails"


def _restarting_gpt(attention=None):
    """The example GPT taking ``position_ids``; without them its positions restart at 0 on every call,
    the cache's length ignored (Bamba's convention: transformers' generate always passes them)."""
    gpt = _load("tiny_gpt")

    class PositionsGPT(gpt.GPT):
        def forward(self, input_ids, past_key_values=None, use_cache=False, position_ids=None):
            past = past_key_values or gpt.Cache(0, [None] * len(self.blocks))
            pos = position_ids[0] if position_ids is not None else torch.arange(input_ids.shape[1])
            x = self.wte(input_ids) + self.wpe(pos)
            caches = []
            for block, cache in zip(self.blocks, past.layers):
                x, cache = block(x, cache)
                caches.append(cache)
            logits = self.lm_head(self.ln_f(x))
            return gpt.Output(logits, gpt.Cache(past.length + input_ids.shape[1], caches)) if use_cache else logits

    return PositionsGPT(attention=attention or gpt.CausalSelfAttention)


def _kv(label, model):
    from mathcheck.model import properties as mp
    from mathcheck.model.load import from_module

    loaded = from_module(model, label)
    ids = mp.draw_ids(0, loaded.vocab, 6)
    return mp.kv_cache(loaded, ids, mp.logits(loaded, ids), 0.0, "replay")  # 16 tokens, their own tolerance


def test_an_hf_cache_is_held_with_generates_position_ids_and_a_real_cache_bug_still_fails():
    kv = _kv("hf:toy", _restarting_gpt())  # an hf: model: held as generate calls it, and said
    assert kv.status == "holds" and "position ids 0, 1, … passed as transformers' generate does" in kv.note
    assert "without them: token 3 decoded with the cache differs" in kv.note
    zoo = _load("tiny_gpt_zoo")
    assert _kv("hf:toy", _restarting_gpt(zoo.CacheDropsLastKey)).status == "fails"  # positions do not hide it
    assert _kv("toy.py:factory", _restarting_gpt()).status == "fails"  # a user's model is held as written


def test_an_inconclusive_report_names_each_inconclusive_property_and_why():
    from mathcheck.conform.run import Result
    from mathcheck.model.report import ModelReport

    report = ModelReport("hf:x", {}, 0, "replay")
    report.properties = [
        Result("kv-cache", "c", "", "holds", "inconclusive", note="the forward without a cache raised X"),
        Result("padding", "c", "", "holds", "holds"),
        Result("causality", "c", "", "holds", "inconclusive"),
    ]
    assert report.status == "inconclusive"
    assert report.inconclusive() == ["kv-cache: the forward without a cache raised X", "causality: no reason given"]


class _Embeddings(torch.nn.Module):
    """Token embeddings (B, L, 3d) from the ids alone; ``trigram``: each token's concatenated with its
    neighbours' (MobileBERT's trigram input, rewritten), else repeated."""

    def __init__(self, trigram, vocab, d):
        super().__init__()
        self.trigram, self.emb = trigram, torch.nn.Embedding(vocab, d)

    def forward(self, input_ids):
        e = self.emb(input_ids)
        if not self.trigram:
            return torch.cat([e, e, e], -1)
        zero = torch.zeros_like(e[:, :1])
        return torch.cat([torch.cat([e[:, 1:], zero], 1), e, torch.cat([zero, e[:, :-1]], 1)], -1)


class _TrigramEncoder(torch.nn.Module):
    """A bidirectional one-head encoder over those embeddings. ``scramble``: its scores also get a
    bias by the tokens' places, not by position_ids (a real permutation bug)."""

    def __init__(self, trigram=True, scramble=False, vocab=32, d=16):
        super().__init__()
        self.scramble, self.embeddings = scramble, _Embeddings(trigram, vocab, d)
        self.pos, self.mix = torch.nn.Embedding(16, 3 * d), torch.nn.Linear(3 * d, 3 * d)
        self.qkv, self.head = torch.nn.Linear(3 * d, 9 * d), torch.nn.Linear(3 * d, vocab)

    def forward(self, input_ids, position_ids=None, attention_mask=None):
        L = input_ids.shape[1]
        pos = position_ids if position_ids is not None else torch.arange(L).expand_as(input_ids)
        x = self.mix(self.embeddings(input_ids)) + self.pos(pos)
        q, k, v = self.qkv(x).chunk(3, -1)
        scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        if self.scramble:
            scores = scores + torch.arange(L, dtype=scores.dtype)
        if attention_mask is not None:
            scores = scores.masked_fill(attention_mask[:, None, :] == 0, float("-inf"))
        return self.head(torch.softmax(scores, -1) @ v)


def _permutation(model):
    from mathcheck.model import properties as mp
    from mathcheck.model.load import from_module

    loaded = from_module(model, "toy.py:factory", causal=False)
    ids = mp.draw_ids(0, loaded.vocab, 6)
    return mp.permutation(loaded, ids, mp.logits(loaded, ids), 1e-9, 0, "replay")


def test_an_embedding_that_mixes_neighbouring_ids_is_said_and_a_plain_one_still_held():
    said = _permutation(_TrigramEncoder())
    assert said.status == "not expected to hold"
    assert said.note.startswith("embeddings (_Embeddings) mixes neighbouring tokens' embeddings from the token ids")
    assert _permutation(_TrigramEncoder(trigram=False)).status == "holds"
    assert _permutation(_TrigramEncoder(trigram=False, scramble=True)).status == "fails"  # a real bug still fails
    assert _permutation(_TrigramEncoder(scramble=True)).status == "fails"  # ... and behind the mixer too


class _QueryDecoder(torch.nn.Module):
    """One decoder query per position up to ``max_len`` (Perceiver's masked LM, rewritten): the
    logits come back (B, max_len, V) whatever the input's length."""

    def __init__(self, vocab=32, max_len=16):
        super().__init__()
        self.emb, self.queries = torch.nn.Embedding(vocab, 8), torch.nn.Parameter(torch.randn(max_len, 8))
        self.head = torch.nn.Linear(8, vocab)

    def forward(self, input_ids):
        from types import SimpleNamespace

        memory = self.emb(input_ids).mean(1, keepdim=True)  # (B, 1, 8): what every query reads
        return SimpleNamespace(logits=self.head(self.queries + memory))


@pytest.mark.parametrize("label, read", [("hf:toy", True), ("toy.py:factory", False)])
def test_an_hf_model_decoding_one_query_per_max_position_is_read_at_its_first_l(label, read):
    from mathcheck.model import properties as mp
    from mathcheck.model.load import from_module
    from mathcheck.model.run import _logits

    loaded = from_module(_QueryDecoder(), label)
    loaded.max_positions = 16
    ids = mp.draw_ids(0, loaded.vocab, 6)
    if not read:  # a user's model is taken as written: its (2, 16, V) is not (B, L, V)
        with pytest.raises(BadInput, match=r"it returned \(2, 16, 32\)"):
            _logits(loaded, label, ids)
        return
    assert _logits(loaded, label, ids).shape == (2, 6, 32)
    assert mp.logits(loaded, ids[:, :4]).shape == (2, 4, 32)  # every later forward too
    assert loaded.notes[-1].startswith("logits read at the first L of its 16 output positions")


def test_perceivers_latents_and_blocks_are_cut():
    transformers = pytest.importorskip("transformers")
    from mathcheck.model.tiny import aliases, shrink

    f = transformers.AutoConfig.for_model("perceiver")
    d = shrink(f.to_dict(), 64, 2, 4, None, names=aliases(f))
    assert (d["d_latents"], d["num_latents"], d["num_self_attends_per_block"]) == (64, 16, 2)
    assert d["num_self_attention_heads"] == d["num_cross_attention_heads"] == 4
