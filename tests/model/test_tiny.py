"""Every architecture builds small (issue 31, item 1) and sub-layers are found by what they compute
(item 3): tiny configs derived from the type's own config, SDPA or eager and float64 or float32 as
the model allows (said), norms by a one-input probe."""

import pytest
import torch
from torch import nn

from mathcheck.conform.spec import BadInput
from mathcheck.model import sublayers as sl
from mathcheck.model.load import Sizes, load_hf
from mathcheck.model.tiny import VOCAB, aliases, attention_layer, complete, shrink

transformers = pytest.importorskip("transformers")


def _full(model_type):
    return transformers.AutoConfig.for_model(model_type).to_dict()


def test_mla_dims_expert_counts_and_token_ids_are_cut_under_the_configs_constraints():
    d = shrink(_full("deepseek_v3"), 64, 2, 4, None)
    assert (d["hidden_size"], d["num_hidden_layers"], d["num_attention_heads"]) == (64, 2, 4)
    assert (d["kv_lora_rank"], d["q_lora_rank"], d["qk_rope_head_dim"], d["qk_nope_head_dim"]) == (32, 32, 8, 8)
    assert d["head_dim"] == d["qk_rope_head_dim"] and d["qk_head_dim"] == 16
    assert d["num_key_value_heads"] == 4  # MLA decompresses keys and values per query head
    assert (d["n_routed_experts"], d["num_experts_per_tok"], d["n_group"], d["topk_group"]) == (4, 2, 1, 1)
    assert d["vocab_size"] == VOCAB and all(d[k] < VOCAB for k in ("bos_token_id", "eos_token_id"))


def test_a_hybrid_keeps_one_layer_of_each_kind_in_order():
    full = _full("qwen3_next")
    d = shrink(full, 64, 2, 4, None)
    assert set(d["layer_types"]) == set(full["layer_types"])  # linear and full attention both kept
    assert d["num_hidden_layers"] == len(d["layer_types"]) == 2
    assert d["layer_types"] == ["linear_attention", "full_attention"]


def _cut(model_type):
    full = transformers.AutoConfig.for_model(model_type)
    return full.to_dict(), shrink(full.to_dict(), 64, 2, 4, None, names=aliases(full))


def test_sizes_are_cut_by_what_they_stand_for_and_an_unset_top_k_over_experts_is_set():
    full, d = _cut("ernie4_5_moe")  # num_experts_per_tok is stored as moe_k (6 of 64)
    assert (full["moe_k"], d["moe_k"], d["moe_num_experts"]) == (6, 2, 4)
    full, d = _cut("kimi_linear")  # ... as num_experts_per_token (8 of 256)
    assert (full["num_experts_per_token"], d["num_experts_per_token"], d["num_experts"]) == (8, 2, 4)
    full, d = _cut("deepseek_v2")  # no top-k by default: its MoE's torch.topk(k=None) raises
    assert (full["num_experts_per_tok"], d["num_experts_per_tok"]) == (None, 2)
    assert _cut("llama")[1].get("num_experts_per_tok") is None  # no experts: nothing set


def test_layer_counts_keep_each_kind_a_pattern_or_stack_needs():
    d = _cut("recurrent_gemma")[1]  # (recurrent, recurrent, attention) cycled: 3 layers hold one of each
    assert d["num_hidden_layers"] == 3 and d["block_types"] == ["recurrent", "recurrent", "attention"]
    d = _cut("hrm_text")[1]  # one stack of layers run H·(L + 1) times: the layer count is its slots
    assert d["num_hidden_layers"] == d["num_layers_per_stack"] * d["H_cycles"] * (d["L_cycles"] + 1)
    assert d["num_layers_per_stack"] == 2
    full, d = _cut("zamba2")  # the hybrid layers' indices follow the layers kept; shared attention 2x hidden
    assert d["layers_block_type"] == ["linear_attention", "hybrid"] and d["hybrid_layer_ids"] == [1]
    assert (full["attention_hidden_size"] // full["hidden_size"], d["attention_hidden_size"]) == (2, 128)
    assert d["attention_head_dim"] == 128 // 4
    d = _cut("zamba")[1]  # its hybrid layers' shared transformer is tied to the first's: two of them
    assert d["layers_block_type"] == ["linear_attention", "hybrid"] * 2 and d["num_hidden_layers"] == 4


@pytest.mark.parametrize(
    "model_type, key, value",
    [("granitemoehybrid", "layer_types", ["linear_attention", "full_attention"])],
)
def test_a_hybrid_whose_default_places_no_attention_layer_gets_one_and_says_so(model_type, key, value):
    d = _cut(model_type)[1]
    note = attention_layer(d)
    assert d[key] == value and "places no attention layer" in note
    assert attention_layer(_cut("mamba2")[1]) is None  # a pure SSM sizes no attention: left as it is
    assert attention_layer(_cut("qwen3_next")[1]) is None  # already has one


def test_what_the_forward_needs_and_the_default_leaves_unset_is_set_and_said():
    d = _cut("xmod")[1]  # its forward raises without a language
    assert complete(d) == ["default_language en_XX: the first of the config's languages ['en_XX']"]
    assert d["default_language"] == "en_XX" and complete(_cut("llama")[1]) == []


def test_reformers_axial_positions_sum_to_the_hidden_size_and_span_the_positions():
    d = _cut("reformer")[1]  # (64, 192) summing to 256 over (64, 64) positions
    assert (
        d["axial_pos_embds_dim"] == [16, 48] and d["axial_pos_shape"] == [8, 8] and d["max_position_embeddings"] == 64
    )


def test_a_sliding_window_of_zero_or_turned_off_is_no_window():
    from mathcheck.model.load import _window

    assert _window(transformers.AutoConfig.for_model("qwen2_moe")) is None  # 0, use_sliding_window False
    assert _window(transformers.AutoConfig.for_model("mistral")) == 4096


def test_sub_configs_are_cut_too():
    d = shrink(_full("gemma3"), 64, 2, 4, None)
    assert d["text_config"]["hidden_size"] == 64 and d["text_config"]["vocab_size"] == VOCAB


def test_the_derived_cut_meets_the_constraints_the_plain_cut_misses():
    full = {  # a config in the style of transformers' defaults (nemotron, dots1, falcon_h1, gemma3n, dory, dbrx)
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": None,
        "head_dim": None,
        "num_hidden_layers": 8,
        "layer_types": ["sliding_attention", "full_attention"] * 4,
        "activation_sparsity_pattern": [0.95] * 4 + [0.0] * 4,
        "num_kv_shared_layers": 2,
        "n_input_layers": 2,
        "n_recurrent_layers": 4,
        "n_output_layers": 2,
        "moe_intermediate_size": 1408,
        "n_routed_experts": None,
        "num_experts_per_tok": None,
        "mamba_n_heads": 128,
        "mamba_d_head": 8,
        "mamba_d_ssm": 1024,
        "rope_parameters": {"rope_theta": 5e5},
        "attn_config": {"kv_n_heads": 8},
    }
    plain = shrink(full, 64, 2, 4, None)
    assert plain["head_dim"] is None and plain["activation_sparsity_pattern"] == full["activation_sparsity_pattern"]
    d = shrink(full, 64, 2, 4, None, derive=True)
    assert (d["head_dim"], d["num_key_value_heads"], d["n_routed_experts"], d["num_experts_per_tok"]) == (16, 4, 4, 2)
    # layers 0, 1, 2, 3, 6, 7: each (layer type, part, shared tail) once; the sparsity follows the layers kept
    assert d["num_hidden_layers"] == 6 and d["layer_types"] == ["sliding_attention", "full_attention"] * 3
    assert d["activation_sparsity_pattern"] == [0.95] * 4 + [0.0] * 2
    assert d["num_kv_shared_layers"] == 2
    assert (d["n_input_layers"], d["n_recurrent_layers"], d["n_output_layers"]) == (2, 2, 2)
    assert d["mamba_n_heads"] * d["mamba_d_head"] == d["mamba_d_ssm"]
    assert d["attn_config"]["rope_theta"] == 5e5


def test_the_derived_cut_keeps_layer_pairs_and_a_per_layer_mla_head_of_both_parts():
    full = {  # Dory serialises each layer as an (attention, mlp) pair; Dots3's sliding layers' head is nope + rope
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_hidden_layers": 8,
        "layer_types": ["sliding_attention", "mlp", "full_attention", "mlp"] * 2,
        "head_dim": 256,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "per_layer_config": {"00": {"qk_nope_head_dim": 192}, "04": {"qk_nope_head_dim": 192}},
    }
    d = shrink(full, 64, 2, 4, None, derive=True)
    assert d["layer_types"] == ["sliding_attention", "mlp", "full_attention", "mlp"]
    assert d["head_dim"] == d["qk_rope_head_dim"] == 8  # the other layers: deepseek's rotary head, as in the plain cut
    assert d["per_layer_config"] == {"00": {"head_dim": 16, "qk_nope_head_dim": 8}}
    assert shrink(full, 64, 2, 4, None)["per_layer_config"] == {"00": {"qk_nope_head_dim": 8}}


def test_a_type_whose_plain_cut_is_rejected_is_built_from_the_derived_cut_and_says_so():
    loaded = load_hf("nemotron", Sizes(), "sdpa", 0, None)  # its default leaves num_key_value_heads None
    assert loaded.config["num_key_value_heads"] == 4
    assert loaded.notes[0].startswith("tiny config: the plain cut was rejected (TypeError: unsupported operand")


@pytest.mark.parametrize("shared, refused", [(2, True), (1, False), (0, False)])
def test_a_model_whose_every_layer_reuses_a_target_models_kv_is_refused_with_that_line(shared, refused):
    from types import SimpleNamespace

    from mathcheck.conform.spec import BadInput
    from mathcheck.model.load import _not_an_assistant

    config = SimpleNamespace(num_kv_shared_layers=shared, num_hidden_layers=2)  # gemma4_unified_assistant: 2 of 2
    if not refused:
        assert _not_an_assistant("x", config) is None
        return
    with pytest.raises(BadInput, match="every layer reuses the KV states of a target model .* cannot be checked alone"):
        _not_an_assistant("x", config)


@pytest.mark.parametrize(
    "model_type, attn, dtype, note",
    [
        ("gemma2", "eager", torch.float64, "attention eager: sdpa refused"),
        ("aria_text", "sdpa", torch.float32, "float32: the forward refuses float64"),
        ("llama", "sdpa", torch.float64, None),
    ],
)
def test_sdpa_where_the_model_has_it_float64_where_it_runs_in_it_and_each_choice_said(model_type, attn, dtype, note):
    loaded = load_hf(model_type, Sizes(), "sdpa", 0, None)
    assert (loaded.attn_implementation, loaded.dtype) == (attn, dtype)
    assert (note is None and loaded.notes == []) or loaded.notes[0].startswith(note)


def test_bert_generation_is_bidirectional_as_built_and_bart_is_checked_as_its_causal_decoder():
    loaded = load_hf("bert-generation", Sizes(), "sdpa", 0, None)
    assert (loaded.causal, loaded.causal_source) == (
        False,
        "built: every attention module has is_causal False, as an encoder's (is_decoder False)",
    )
    # is_causal False alone says nothing: GIT's text attention takes its causal mask from the model
    git = load_hf("git", Sizes(), "sdpa", 0, None)
    assert (git.causal, git.causal_source) == (True, "config")
    bart = load_hf("bart", Sizes(), "sdpa", 0, None)
    assert (type(bart.model).__name__, bart.causal) == ("BartForCausalLM", True)


# --- norms by what they compute --------------------------------------------------------------------


class GatedRMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x, gate):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight * torch.sigmoid(gate)


class NoWeightRMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class TinyPreLayerNormForMaskedLM(nn.Module):
    """Named like a LayerNorm, takes token ids: a whole model, never a norm."""

    def __init__(self):
        super().__init__()
        self.emb, self.weight, self.eps = nn.Embedding(10, 8), nn.Parameter(torch.ones(8)), 1e-5

    def forward(self, input_ids):
        return self.emb(input_ids)


@pytest.mark.parametrize(
    "module, kind",
    [
        (nn.LayerNorm(8), "layernorm"),
        (nn.LayerNorm(8, elementwise_affine=False), "layernorm"),
        (nn.RMSNorm(8, eps=1e-6), "rmsnorm"),
        (NoWeightRMSNorm(8), "rmsnorm"),
        (GatedRMSNorm(8), None),
        (TinyPreLayerNormForMaskedLM(), None),
        (nn.Linear(8, 8), None),
    ],
)
def test_norms_are_found_by_a_one_input_probe_never_by_name(module, kind):
    assert sl.norm_kind(module) == kind


def test_a_gated_norm_in_a_model_is_said_not_checked_and_never_a_crash():
    from mathcheck.model.load import from_module
    from mathcheck.model.run import check_model
    from tests.model.test_run_gpts import LlmcGPT

    def make():
        model = LlmcGPT()
        model.gate_norm = GatedRMSNorm(32)  # never called: only found
        return model

    report = check_model("g", loaded=from_module(make, "g"))
    assert report.status == "holds", report.failures()
    assert any(n.startswith("gate_norm (GatedRMSNorm): named a norm, but called with one tensor") for n in report.notes)
    assert all(m.path != "gate_norm" for m in report.modules)


def test_cpmant_is_refused_with_its_fact_and_the_fact_holds_in_transformers():
    """hf:cpmant was the sweep's last false alarm (causality, kv-cache, padding): its forward makes
    every token context. Refused, saying so; the fact is checked here so the refusal goes stale loudly:
    the first position's logits move when only the last token changes."""
    with pytest.raises(BadInput, match="prefix LM"):
        load_hf("cpmant", Sizes(), "sdpa", 0, None)
    full = transformers.AutoConfig.for_model("cpmant")
    config = type(full).from_dict(shrink(full.to_dict(), 64, 2, 4, None))
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config).eval()
    ids = torch.randint(1, config.vocab_size, (1, 6))
    moved = ids.clone()
    moved[0, -1] = 1 + ids[0, -1] % (config.vocab_size - 1)
    with torch.no_grad():
        a, b = model(input_ids=ids).logits[0, 0], model(input_ids=moved).logits[0, 0]
    assert not torch.allclose(a, b), "cpmant's first position no longer sees the last token: drop UNDECLARED['cpmant']"


def test_a_clip_qkv_left_none_is_no_clipping_and_a_set_one_is_kept():
    import math

    d = _cut("dbrx")[1]  # DBRX's forward calls clamp(min=None, max=None) on its default None
    (note,) = complete(d)
    assert d["attn_config"]["clip_qkv"] == math.inf and note.startswith("attn_config.clip_qkv inf for None")
    d = {"attn_config": {"clip_qkv": 8.0}}
    assert complete(d) == [] and d["attn_config"]["clip_qkv"] == 8.0
    x = torch.randn(50, dtype=torch.float64) * 1e300
    assert torch.equal(x.clamp(min=-math.inf, max=math.inf), x)  # the identity "no clipping" means


def test_a_size_stored_under_its_own_name_is_cut_even_where_an_alias_renames_it():
    # inkling2 maps model_max_length onto max_position_embeddings (1048576, its 1024 window's KV check
    # ran to 2048 tokens); XLM maps n_words onto vocab_size
    assert _cut("inkling2_text")[1]["max_position_embeddings"] == 64
    assert _cut("xlm")[1]["vocab_size"] == VOCAB


def test_xlnets_head_width_is_derived_and_its_bidirectional_attention_read_from_attn_type():
    from types import SimpleNamespace

    from mathcheck.model.load import built_causal

    full = _full("xlnet")  # d_head 64 = 1024 / 16, which the config validates
    d = shrink(full, 64, 2, 4, None, derive=True, names=aliases(transformers.AutoConfig.for_model("xlnet")))
    assert d["d_head"] == 16 and shrink(full, 64, 2, 4, None)["d_head"] == 64  # the plain cut is unchanged
    model = nn.Linear(2, 2)
    assert built_causal(model, SimpleNamespace(attn_type="bi"), False)[0] is False
    assert built_causal(model, SimpleNamespace(attn_type="uni"), False)[0] is True  # Transformer-XL's: causal


def test_a_hybrid_whose_attention_layer_indices_are_unset_gets_its_last_layer_as_attention():
    d = _cut("bamba")[1]  # attn_layer_indices None: every layer Mamba, and its cached forward raises
    assert attention_layer(d) == "attn_layer_indices [1]: the default config places no attention layer in this hybrid"
    assert d["attn_layer_indices"] == [1]
    d = {"num_hidden_layers": 2, "num_key_value_heads": 2, "attn_layer_indices": [0]}
    assert attention_layer(d) is None and d["attn_layer_indices"] == [0]  # one placed: kept


def test_a_plain_cut_whose_forward_raises_is_derived_mobilebert_keeping_its_widths_below_the_hidden():
    loaded = load_hf("mobilebert", Sizes(), "sdpa", 0, None)  # plain: embeddings 64 of hidden 64 -> 0-wide head
    assert loaded.notes[0].startswith("tiny config: the plain cut was rejected (RuntimeError: mat1 and mat2 shapes")
    config = loaded.model.config
    assert (config.hidden_size, config.embedding_size, config.true_hidden_size) == (64, 16, 16)  # 128 of 512 kept 1/4


def test_xlstms_derived_cut_keeps_its_state_widths_and_layer_counts_agreeing():
    f = transformers.AutoConfig.for_model("xlstm")
    d = shrink(f.to_dict(), 64, 2, 4, None, derive=True, names=aliases(f))
    assert (d["hidden_size"], d["embedding_dim"], d["num_blocks"], d["num_hidden_layers"]) == (128, 128, 2, 2)
    config = type(f).from_dict(d)  # the config's rounded widths are the model's hidden × factor
    assert config.qk_dim == int(config.hidden_size * config.qk_dim_factor) == 64
    assert config.v_dim == int(config.hidden_size * config.v_dim_factor) == 128
    assert shrink(f.to_dict(), 64, 2, 4, None)["hidden_size"] == 64  # the plain cut is unchanged


def test_blts_hash_table_and_global_width_are_cut():
    f = transformers.AutoConfig.for_model("blt")  # 500002 rows per hash function: 1.5 GB at the tiny width
    d = shrink(f.to_dict(), 64, 2, 4, None, names=aliases(f))
    assert d["encoder_hash_byte_group_vocab"] == VOCAB
    assert d["encoder_config"]["hidden_size_global"] == d["decoder_config"]["hidden_size_global"] == 64


def test_a_layer_kind_without_its_per_kind_setting_is_refused_naming_what_the_config_lacks():
    from mathcheck.model.load import _unset_layer_kind

    d = {"layer_types": ["full_attention", "full_attention"], "rope_parameters": {}}  # cohere_compass_text's default
    line = _unset_layer_kind(KeyError("full_attention"), d)
    assert line.startswith("its default config gives its 'full_attention' layers no entry in rope_parameters")
    d["rope_parameters"] = {"full_attention": None}  # NoPE said: not this refusal
    assert _unset_layer_kind(KeyError("full_attention"), d) is None
    assert _unset_layer_kind(KeyError("other"), {"layer_types": ["full_attention"], "rope_parameters": {}}) is None
    with pytest.raises(BadInput, match="no entry in rope_parameters .* not guessed; not checked"):
        load_hf("cohere_compass_text", Sizes(), "sdpa", 0, None)
    none = TypeError("'NoneType' object is not subscriptable")  # lfm2_moe: layer_types None, read per layer
    assert _unset_layer_kind(none, {"layer_types": None}).startswith("its default config leaves layer_types None")
    assert _unset_layer_kind(none, {"layer_types": ["full_attention"]}) is None
