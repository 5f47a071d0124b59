"""A tiny config for any transformers model type, derived from the type's own default config.

The default (full-size) config is read, every size it names is cut to the tiny one under the
config's own constraints, and the result is handed back to the config class (which validates it):

* widths: hidden H (64), heads h (4), KV heads 2 (1 where the model is multi-query), head dims
  H/h = 16, MLA/latent ranks (q/kv LoRA 32, rope/nope parts 8 + 8, values 16), rotary dims ≤ half
  a head, linear-attention and state-space heads at 16;
* experts: at most 4, top-k ≤ 2, one group; the first dense layers ≤ 1;
* layers: the full config's per-layer lists (``layer_types``, ``mlp_layer_types``, any list as long
  as its layer count) are cut to one layer of each kind, in order, and at least ``layers`` — a
  hybrid keeps one attention layer and one linear/recurrent layer; periodic hybrids (Jamba's
  ``attn_layer_period``) get period 2;
* vocabulary 128 (a hash table's ``…_vocab`` too: BLT's n-gram table, 500002 rows a hash), positions
  64, and every special token id moved inside the vocabulary; BLT's ``hidden_size_global`` the hidden size.

Sub-configs (``text_config``, …, any dict naming a ``model_type``: musicgen's ``decoder``) are cut the same way. Example: deepseek_v3's hidden 7168, 61
layers, 256 experts, kv_lora_rank 512 -> hidden 64, 2 layers, 4 experts, kv_lora_rank 32.

Where transformers rejects that cut, the loader cuts again with ``derive=True``: the config's further
constraints derived from the full config's own values (the plain cut stays what every type that
builds with it is checked with):

* fields the default leaves None that the model then uses: ``head_dim`` H/h (and a ``d_head`` the
  full config makes its hidden size over its heads, XLNet's), KV heads = heads
  (transformers' convention), the vocabulary (and then a pad id, the lowest free one), the expert
  counts of a config with expert widths, the QSA indexer's sizes (budget 8, blocks of 4);
* a full config whose KV heads equal its heads (a model without grouped-query attention) keeps
  KV heads = heads;
* per-layer float lists (``activation_sparsity_pattern``) cut to the layers kept; the KV-sharing
  tail (``num_kv_shared_layers``, the last layers reusing earlier layers' KV) kept as a kind of
  layer and recounted; layer-count parts (``n_input_layers`` + ``n_recurrent_layers`` +
  ``n_output_layers`` = the layers) kept as kinds and recounted; a layer list serialised in
  (attention, mlp) pairs (Dory) cut in pairs;
* widths below the hidden size kept in ratio to it, where that leaves at least 8 (MobileBERT's
  embeddings and bottleneck, 1/4);
* xLSTM's hidden size one where hidden × ``qk_dim_factor`` and × ``v_dim_factor`` are multiples of 64
  (its config rounds them so for the cache, its projections do not): 128; its ``num_blocks`` the layers;

* an adapter's widths (``adapter_in_dim``, ``adapter_out_dim``: dots3_note's encoders to its text
  model) the hidden size, as both widths it joins are;
* Mamba heads that span the SSM width (``mamba_n_heads`` · ``mamba_d_head`` = ``mamba_d_ssm``);
* a sub-config (``attn_config``) that lacks the ``rope_theta`` its model reads takes the parent's.
"""

from __future__ import annotations

import math
import re

VOCAB = 128
POSITIONS = 64

HIDDEN = (
    "hidden_size",
    "d_model",
    "n_embd",
    "hidden_dim",
    "emb_dim",
    "embedding_dim",
    "true_hidden_size",
    "word_embed_proj_dim",
    "embedding_size",
    "input_embedding_size",
    "output_embedding_size",
    "d_latents",
)
LAYERS = (
    "num_hidden_layers",
    "n_layer",
    "num_layers",
    "n_layers",
    "decoder_layers",
    "encoder_layers",
    "num_self_attends_per_block",
)
HEADS = (
    "num_attention_heads",
    "n_head",
    "num_heads",
    "decoder_attention_heads",
    "encoder_attention_heads",
    "num_self_attention_heads",
    "num_cross_attention_heads",
)
KV_HEADS = ("num_key_value_heads", "num_kv_heads", "multi_query_group_num")
HEAD_DIMS = (
    "head_dim",
    "kv_channels",
    "attention_head_dim",
    "dim_head",
    "swa_head_dim",
    "qk_head_dim",
    "index_head_dim",
    "query_pre_attn_scalar",
)
FFN = (
    "intermediate_size",
    "ffn_dim",
    "decoder_ffn_dim",
    "encoder_ffn_dim",
    "n_inner",
    "ffn_hidden_size",
    "d_ff",
    "dim_ff",
    "dff",
    "intermediate_size_mlp",
    "feed_forward_size",
    "dense_intermediate_size",
    "shared_intermediate_size",
    "d_inner",
)
EXPERT_FFN = (
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "shared_experts_intermediate_size",
    "expert_ffn_hidden_size",
    "moe_shared_expert_intermediate_size",
)
EXPERTS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
TOP_K = ("num_experts_per_tok", "moe_topk", "top_k", "num_selected_experts")
FIXED = {
    "kv_lora_rank": 32,
    "q_lora_rank": 32,
    "o_lora_rank": 32,
    "qk_rope_head_dim": 8,
    "qk_nope_head_dim": 8,
    "v_head_dim": 16,
    "linear_key_head_dim": 16,
    "linear_value_head_dim": 16,
    "linear_head_dim": 16,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "mamba_d_state": 16,
    "ssm_state_size": 16,
    "state_size": 16,
    "mamba_n_heads": 8,
    "mamba_num_heads": 8,
    "mamba_d_head": 16,
    "mamba_headdim": 16,
    "mamba_d_ssm": 128,
    "mamba_dt_rank": 8,
    "time_step_rank": 8,
    "mamba_chunk_size": 16,
    "n_group": 1,
    "topk_group": 1,
    "attn_layer_period": 2,
    "attn_layer_offset": 1,
    "expert_layer_period": 2,
    "expert_layer_offset": 1,
    "lru_width": 64,
    "attention_hidden_size": 64,
    "router_hidden_size": 32,
    "pooler_hidden_size": 64,
    "intra_bottleneck_size": 32,
    "vocab_size_per_layer_input": VOCAB,
    "hidden_size_per_layer_input": 16,
    "ple_embed_dim": 16,
    "prediction_head_size": 64,
    "num_latents": 16,
    "attention_window_size": 8,  # RecurrentGemma's local attention (2048): the KV check goes past it at 16 tokens
}
AT_MOST_ONE = ("n_shared_experts", "first_k_dense_replace", "num_nextn_predict_layers")
VOCABS = ("vocab_size", "decoder_vocab_size", "unpadded_vocab_size")
POSITION_NAMES = (
    "max_position_embeddings",
    "n_positions",
    "n_ctx",
    "max_seq_len",
    "max_target_positions",
    "context_length",
    "original_max_position_embeddings",
    "max_source_positions",
)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v) -> bool:
    return isinstance(v, float) or _is_int(v)


def _token_ids(d: dict) -> None:
    """Special token ids at or past the vocabulary moved inside it, distinct from each other: the
    large ones from the top (127, 126, …), pad kept at 0 where it was out of range."""
    free = iter(range(VOCAB - 1, 2, -1))
    for k in sorted(d):
        v = d[k]
        if not k.endswith(("token_id", "token_index", "token_ids")):
            continue
        if _is_int(v) and v >= VOCAB:
            d[k] = 0 if k == "pad_token_id" else next(free)
        elif isinstance(v, list) and v and all(_is_int(x) for x in v):
            d[k] = [x if x < VOCAB else next(free) for x in v]


def _per_layer(v, n: int) -> bool:
    """A dict of per-layer overrides keyed by layer index (``per_layer_config``: {"02": {…}})."""
    return (
        isinstance(v, dict)
        and bool(v)
        and all(str(k).isdigit() and int(k) < n and isinstance(x, dict) for k, x in v.items())
    )


def _layer_entry(v: dict, i: int):
    return next((x for k, x in v.items() if int(k) == i), None)


def _layer_count(d: dict):
    return next(((k, d[k]) for k in LAYERS if _is_int(d.get(k))), (None, None))


def _parts(d: dict, n: int) -> list[str]:
    """Layer-count parts that add up to the layer count, in the config's order (Dory's
    ``n_input_layers`` + ``n_recurrent_layers`` + ``n_output_layers``): consecutive ranges of layers."""
    parts = [k for k, v in d.items() if re.fullmatch(r"n_\w+_layers", k) and _is_int(v) and v > 0]
    return parts if len(parts) > 1 and sum(d[k] for k in parts) == n else []


def _paired(v: list) -> bool:
    """Every second entry one constant value that no other entry has: [a, "mlp", b, "mlp", …]."""
    return (
        len(v) % 2 == 0 and len(v) > 2 and len(set(map(str, v[1::2]))) == 1 and str(v[1]) not in set(map(str, v[0::2]))
    )


def _part_of(d: dict, parts: list[str], i: int) -> int:
    end = 0
    for j, k in enumerate(parts):
        end += d[k]
        if i < end:
            return j
    return len(parts)


def _one_of_each(d: dict, layers: int, derive: bool = False) -> bool:
    """Per-layer lists (as long as the layer count) cut to the first layer of each distinct kind
    (a tuple over all the lists), topped up to ``layers`` from the start; the count set to match.
    A hybrid string pattern (``hybrid_override_pattern``, one character a layer) likewise.
    ``derive``: float lists follow the layers kept; the KV-sharing tail and layer-count parts are kinds."""
    name, n = _layer_count(d)
    if name is None:
        return False
    shared = d.get("num_kv_shared_layers") if derive and _is_int(d.get("num_kv_shared_layers")) else 0
    shared = shared if 0 < shared <= n else 0
    parts = _parts(d, n) if derive else []
    lists = [
        k
        for k, v in d.items()
        if isinstance(v, list)
        and len(v) == n
        and n > 1
        and all(isinstance(x, (str, int, bool)) or x is None for x in v)
    ]
    patterns = [k for k, v in d.items() if k.endswith("pattern") and isinstance(v, str) and len(v) == n]
    overrides = [k for k, v in d.items() if _per_layer(v, n)]
    # lists of layer indices (Bamba's attn_layer_indices: the attention layers among Mamba ones)
    indices = [
        k
        for k, v in d.items()
        if k not in lists
        and isinstance(v, list)
        and v
        and any(w in k for w in ("indices", "idx", "_layers", "layer_ids"))
        and all(_is_int(x) and 0 <= x < n for x in v)
    ]
    follow = [
        k
        for k, v in d.items()
        if derive and k not in lists and isinstance(v, list) and len(v) == n and n > 1 and all(_is_num(x) for x in v)
    ]
    if not lists and not patterns and not overrides and not indices and not shared and not parts:
        return False
    # a list that follows each layer's entry with one constant block (Dory serialises each layer as an
    # (attention, mlp) pair) is cut in those pairs
    step = 2 if derive and any(_paired(d[k]) for k in lists) else 1
    keep, seen = [], set()
    for i in range(0, n, step):
        kind = (
            tuple(str(d[k][i]) for k in lists)
            + tuple(d[k][i] for k in patterns)
            + tuple(str(_layer_entry(d[k], i)) for k in overrides)
            + tuple(i in d[k] for k in indices)
            + ((i >= n - shared,) if shared else ())
            + ((_part_of(d, parts, i),) if parts else ())
        )
        if kind not in seen:
            seen.add(kind)
            keep.append(i)
    for i in range(0, n, step):  # at least `layers` layers
        if len(keep) * step >= min(layers, n):
            break
        if i not in keep:
            keep.append(i)
    keep = sorted(i + j for i in keep for j in range(step))
    for k in lists + follow:
        d[k] = [d[k][i] for i in keep]
    if shared:
        d["num_kv_shared_layers"] = sum(i >= n - shared for i in keep)
    counts = [sum(_part_of(d, parts, i) == j for i in keep) for j in range(len(parts))]
    for k, c in zip(parts, counts):
        d[k] = c
    for k in patterns:
        d[k] = "".join(d[k][i] for i in keep)
    for k in indices:
        d[k] = [new for new, old in enumerate(keep) if old in d[k]]
    for k in overrides:  # per-layer overrides keyed by layer index ("02": {…}): renumbered to the layers kept
        width = max(len(str(key)) for key in d[k])
        d[k] = {
            str(new).zfill(width): _layer_entry(d[k], old)
            for new, old in enumerate(keep)
            if _layer_entry(d[k], old) is not None
        }
    for k in LAYERS:
        if _is_int(d.get(k)):
            d[k] = len(keep)
    return True


def _derived(d: dict, full: dict, hidden: int, heads: int, kv_heads: int | None) -> None:
    """The cut ``d`` made to meet the constraints the plain cut misses (``shrink(derive=True)``),
    read from the full config ``full``: fields left None that the model uses, MHA kept, Mamba heads
    spanning the SSM width, a sub-config's missing ``rope_theta``."""
    head_dim = hidden // heads
    if "head_dim" in d and d["head_dim"] is None and _is_int(d.get("hidden_size")):
        d["head_dim"] = head_dim
    full_heads = next((full[k] for k in HEADS if _is_int(full.get(k))), None)
    full_hidden = next((full[k] for k in HIDDEN if _is_int(full.get(k))), None)
    for k in ("embedding_size", "intra_bottleneck_size", "true_hidden_size"):
        # a width the full config keeps below the hidden size, in ratio (MobileBERT: embeddings and bottleneck
        # 128 of 512; its head splits the hidden size into embedding_size + hidden − embedding_size)
        v = full.get(k)
        if (
            _is_int(v)
            and full_hidden
            and 0 < v < full_hidden
            and full_hidden % v == 0
            and hidden * v // full_hidden >= 8
        ):
            d[k] = hidden * v // full_hidden
    factors = [full[k] for k in ("qk_dim_factor", "v_dim_factor") if _is_num(full.get(k))]
    if factors and _is_int(d.get("hidden_size")) and _is_int(d.get("embedding_dim")):
        # xLSTM: the config rounds hidden × factor up to a multiple of 64 (its cache's state widths), the
        # model's projections do not: the hidden size is the least multiple of 64 where both agree (128)
        h = next(h for h in range(64, 64 * 64 + 1, 64) if all(h * f % 64 == 0 for f in factors))
        d["hidden_size"] = d["embedding_dim"] = max(h, d["hidden_size"])
    name, n = _layer_count(full)
    if name is not None and _is_int(full.get("num_blocks")) and full["num_blocks"] == n:  # xLSTM's second layer count
        d["num_blocks"] = d[name]
    for k, v in full.items():  # a head width the full config makes hidden/heads (XLNet's d_head 1024/16 = 64)
        if k.endswith("d_head") and _is_int(v) and full_heads and full_hidden and v * full_heads == full_hidden:
            d[k] = head_dim
    for k in KV_HEADS:
        if k in d and d[k] is None:  # transformers' convention: no KV heads given -> one per query head
            d[k] = kv_heads or heads
        elif _is_int(full.get(k)) and full[k] == full_heads and not kv_heads:  # MHA stays MHA
            d[k] = heads
    if any(k in d and d[k] is None for k in VOCABS):  # a default without a vocabulary (ESM's is its tokenizer's)
        for k in VOCABS:
            d[k] = VOCAB if k in d and d[k] is None else d.get(k)
        if "pad_token_id" in d and d["pad_token_id"] is None:  # nor a pad id: the lowest id no special token has
            taken = {v for k, v in d.items() if k.endswith("token_id") and _is_int(v)}
            d["pad_token_id"] = min(set(range(VOCAB)) - taken)
    if any(_is_int(d.get(k)) for k in EXPERT_FFN):  # a MoE config: its expert counts are needed
        for names, value in ((EXPERTS, 4), (TOP_K, 2), (("n_shared_experts",), 1)):
            for k in names:
                if k in d and d[k] is None:
                    d[k] = value
    if "indexed_attention" in (d.get("layer_types") or ()):  # an indexer the default leaves unsized
        sizes = {"n_heads": heads, "kv_heads": 1, "head_dim": head_dim, "budget": 8, "compress_ratio": 4}
        for k, value in sizes.items():
            if f"indexer_{k}" in d and d[f"indexer_{k}"] is None:
                d[f"indexer_{k}"] = value
    for k, v in list(d.items()):  # an adapter maps one width to another: both are cut to the hidden size
        if "adapter" in k and k.endswith(("_dim", "_size")) and "merge" not in k and _is_int(v):
            d[k] = hidden
    names = ("mamba_n_heads", "mamba_d_head", "mamba_d_ssm")
    if all(_is_int(full.get(k)) for k in names) and full[names[0]] * full[names[1]] == full[names[2]]:
        d["mamba_n_heads"] = d["mamba_d_ssm"] // d["mamba_d_head"]  # the SSM heads span its width
    rope = d.get("rope_parameters")
    theta = rope.get("rope_theta") if isinstance(rope, dict) else d.get("rope_theta")
    for k, v in list(d.items()):
        if isinstance(v, dict) and k.endswith("attn_config") and "rope_theta" not in v and theta is not None:
            d[k] = {**v, "rope_theta": theta}


def _override(base: dict, o: dict, plain: dict, sizes: tuple, derive: bool, names: dict) -> dict:
    """A layer's override ``o`` cut as its whole config ``base`` + ``o`` would be; ``derive``: with
    any size that then differs from the cut ``plain`` of ``base`` alone (a head dim the layer's own
    nope + rope parts make) added to the override."""
    cut = shrink({**base, **o}, *sizes, derive, names)
    keys = set(o) | {k for k, v in cut.items() if derive and _is_int(v) and _is_int(plain.get(k)) and v != plain[k]}
    return {key: cut[key] for key in sorted(keys, key=list(cut).index)}


def aliases(config) -> dict:
    """{stored name: standard name} from the ``attribute_map`` of a config and its sub-configs
    (ernie4_5_moe stores ``num_experts_per_tok`` as ``moe_k``, kimi_linear as ``num_experts_per_token``),
    so that a size is cut by what it is, whatever the type calls it."""
    found, todo = {}, [config]
    while todo:
        c = todo.pop()
        found.update({stored: std for std, stored in getattr(type(c), "attribute_map", {}).items()})
        todo += [v for v in vars(c).values() if hasattr(type(v), "attribute_map") and hasattr(v, "to_dict")]
    return found


def _shared_attention_width(full: dict, d: dict, heads: int) -> None:
    """Zamba's shared attention reads the hidden state concatenated with the embeddings: its width
    ``attention_hidden_size`` is a multiple of the hidden size (2×); the multiple is kept, and its
    head dim is that width over the heads."""
    width, hidden = full.get("attention_hidden_size"), full.get("hidden_size")
    if not (_is_int(width) and _is_int(hidden) and hidden and _is_int(d.get("hidden_size"))):
        return
    d["attention_hidden_size"] = max(1, width // hidden) * d["hidden_size"] if width % hidden == 0 else d["hidden_size"]
    if _is_int(d.get("attention_head_dim")):
        d["attention_head_dim"] = d["attention_hidden_size"] // heads


def _axial_positions(d: dict) -> None:
    """Reformer's axial position embeddings: their widths sum to the hidden size (kept in ratio,
    64 + 192 = 256 -> 16 + 48 = 64) and their shape's product is the positions (64 × 64 = 4096 -> 8 × 8 = 64)."""
    dims, shape, hidden = d.get("axial_pos_embds_dim"), d.get("axial_pos_shape"), d.get("hidden_size")
    if not (isinstance(dims, (list, tuple)) and isinstance(shape, (list, tuple)) and _is_int(hidden)):
        return
    if len(dims) == 2 and all(_is_int(x) and x > 0 for x in dims) and hidden * dims[0] % sum(dims) == 0:
        first = hidden * dims[0] // sum(dims)
        d["axial_pos_embds_dim"] = [first, hidden - first]
    side = math.isqrt(POSITIONS)
    if len(shape) == 2 and side * side == POSITIONS:
        d["axial_pos_shape"] = [side, side]


def _tied_hybrids(full: dict, d: dict) -> None:
    """Zamba ties every hybrid layer's shared transformer to the first one's (``tie_weights_keys``
    matches the other hybrid layers, and transformers rejects a model with none): the kept layer
    pattern is repeated until it holds two hybrid layers, where the full config has two or more.
    (Zamba2 names its hybrid layers by ``hybrid_layer_ids`` and builds with one.)"""
    kinds, name = d.get("layers_block_type"), _layer_count(d)[0]
    if not isinstance(kinds, list) or name is None or "hybrid_layer_ids" in d or kinds.count("hybrid") != 1:
        return
    if list(full.get("layers_block_type") or []).count("hybrid") >= 2:
        d["layers_block_type"] = kinds * 2
        d[name] = len(d["layers_block_type"])


def _cyclic_blocks(d: dict, n: int | None) -> None:
    """A block pattern repeated over the layers (RecurrentGemma's ``block_types`` = recurrent, recurrent,
    attention, cycled over 26 layers): the layer count is the fewest that hold one block of each kind."""
    name = _layer_count(d)[0]
    pattern = d.get("block_types")
    if name is None or not n or not isinstance(pattern, (list, tuple)) or not pattern or len(pattern) >= n:
        return
    needed = max(list(pattern).index(kind) for kind in set(pattern)) + 1
    d[name] = min(n, max(d[name], needed))


def attention_layer(d: dict) -> str | None:
    """A hybrid whose default config places no attention layer though it sizes attention (KV heads):
    GraniteMoeHybrid's ``layer_types`` all linear. Its checkpoints place attention layers, and
    transformers cannot run a cached forward of the config as it stands (a cache with no attention
    layer); the last layer is made attention. Returns what was done (said in the report), None when
    nothing was. Bamba's ``attn_layer_indices`` (None) likewise: its last layer is made attention. Its
    cached forward, called without position_ids, restarts RoPE at 0 (generate passes them), so the KV
    check passes an hf: model's own position ids where the cached forward without them differs."""
    name, n = _layer_count(d)
    if name is None or not any(_is_int(d.get(k)) for k in KV_HEADS):
        return None
    types = d.get("layer_types")
    if isinstance(types, list) and len(types) == n and n > 1 and set(types) == {"linear_attention"}:
        d["layer_types"] = types[:-1] + ["full_attention"]
        return f"layer_types[{n - 1}] full_attention: the default config places no attention layer in this hybrid"
    if "attn_layer_indices" in d and not d["attn_layer_indices"] and n > 1:
        d["attn_layer_indices"] = [n - 1]
        return f"attn_layer_indices [{n - 1}]: the default config places no attention layer in this hybrid"
    return None


def default_language(d: dict) -> str | None:
    """X-MOD's forward raises without a language (``lang_ids`` or ``default_language``): its first
    configured language is made the default (the default config has one, en_XX)."""
    languages = d.get("languages")
    if d.get("default_language") is not None or not isinstance(languages, (list, tuple)) or not languages:
        return None
    d["default_language"] = languages[0]
    return f"default_language {languages[0]}: the first of the config's languages {list(languages)}"


def unclipped(d: dict) -> str | None:
    """DBRX's ``attn_config.clip_qkv`` None means no clipping (its config's doc: "If set, clip the
    queries, keys, and values"), but its forward calls ``clamp(min=None, max=None)``, which torch
    rejects. It is set to infinity: ``clamp(−∞, ∞)`` is the identity, the "not set" its config means
    (MPT, which skips the clamp on None, computes the same). A ``clip_qkv`` that the config sets is kept."""
    sub = d.get("attn_config")
    if not isinstance(sub, dict) or "clip_qkv" not in sub or sub["clip_qkv"] is not None:
        return None
    d["attn_config"] = {**sub, "clip_qkv": math.inf}
    return "attn_config.clip_qkv inf for None (no clipping, as the config documents): clamp(−∞, ∞) is the identity"


def complete(d: dict) -> list[str]:
    """What the default config leaves unset and the forward needs, set in ``d``; each said."""
    return [note for note in (attention_layer(d), default_language(d), unclipped(d)) if note]


def _sized(name: str) -> bool:
    """Whether the cut has a tiny size for a field of this name."""
    groups = (HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIMS, FFN, EXPERT_FFN, EXPERTS, TOP_K, AT_MOST_ONE, VOCABS)
    return name in FIXED or name in POSITION_NAMES or name == "rotary_dim" or any(name in g for g in groups)


def shrink(
    d: dict, hidden: int, layers: int, heads: int, kv_heads: int | None, derive: bool = False, names: dict | None = None
) -> dict:
    """The config dict ``d`` (a full-size default) at the tiny sizes; sub-configs recursively.
    ``derive``: with the constraints of ``_derived`` met too. ``names``: {stored name: standard name}
    (``aliases``), each key cut as the size it stands for."""
    full, d = d, dict(d)
    names = names or {}
    head_dim = hidden // heads
    n = _layer_count(d)[1]
    overrides = {k for k, v in d.items() if n and _per_layer(v, n)}
    for k, v in list(d.items()):
        # a sub-config: named …config, or any dict that names its model_type (musicgen's decoder)
        if isinstance(v, dict) and (k.endswith("config") or "model_type" in v) and k not in overrides:
            d[k] = shrink(v, hidden, layers, heads, kv_heads, derive, names)
    per_layer = _one_of_each(d, layers, derive)
    for k in overrides:  # each layer's override cut as the whole config would be (MLA's rules included)
        base = {key: val for key, val in d.items() if key not in overrides}
        plain = shrink(base, hidden, layers, heads, kv_heads, derive, names) if derive else {}
        sizes = (hidden, layers, heads, kv_heads)
        d[k] = {i: _override(base, o, plain, sizes, derive, names) for i, o in d[k].items()}
    experts = next((d[k] for k in d if names.get(k, k) in EXPERTS and _is_int(d[k]) and d[k] > 1), None)
    for k, v in list(d.items()):
        if v is None and names.get(k, k) in TOP_K and experts:  # routed experts, top-k left unset: 2 of them
            d[k] = min(experts, 4, 2)
        if not _is_int(v):
            continue
        k_std = names.get(k, k)
        if not _sized(k_std) and _sized(k):  # inkling2 stores max_position_embeddings as model_max_length's
            k_std = k
        if k_std in HIDDEN:
            d[k] = hidden
        elif k_std in HEADS:
            d[k] = heads
        elif k_std in KV_HEADS:
            d[k] = kv_heads or (1 if v == 1 else min(2, heads))
        elif k_std in HEAD_DIMS:
            d[k] = head_dim
        elif k_std in FFN:
            d[k] = 2 * hidden
        elif k_std in EXPERT_FFN:
            d[k] = hidden
        elif k_std in EXPERTS:
            d[k] = min(v, 4)
        elif k_std in TOP_K:
            d[k] = min(v, 2)
        elif k_std in AT_MOST_ONE:
            d[k] = min(v, 1)
        elif k_std in FIXED:
            d[k] = min(v, FIXED[k_std]) if k_std not in ("attn_layer_offset", "expert_layer_offset") else FIXED[k_std]
        elif k_std == "rotary_dim":
            d[k] = head_dim // 2
        elif k_std in VOCABS:
            d[k] = VOCAB
        elif k_std in POSITION_NAMES:
            d[k] = POSITIONS
    for k, v in list(d.items()):
        if k.endswith("_vocab") and _is_int(v) and v > VOCAB:  # BLT's hash n-gram table (500002 rows a hash: 1.5 GB)
            d[k] = VOCAB
        elif k == "hidden_size_global" and _is_int(v):  # BLT's global model's width, which its patches meet
            d[k] = hidden
    if not per_layer:
        for k in LAYERS:
            if _is_int(d.get(k)) and d[k] > 0:
                d[k] = min(d[k], layers)
    _cyclic_blocks(d, n)  # n: the full config's layer count
    _shared_attention_width(full, d, heads)
    _axial_positions(d)
    _tied_hybrids(full, d)
    if all(_is_int(d.get(k)) for k in ("num_layers_per_stack", "H_cycles", "L_cycles", "num_hidden_layers")):
        # HRM: one stack of layers run H·(L + 1) times; the layer count is the slots, derived from the stack
        d["num_layers_per_stack"] = min(d["num_layers_per_stack"], layers)
        d["num_hidden_layers"] = d["num_layers_per_stack"] * d["H_cycles"] * (d["L_cycles"] + 1)
    if derive:
        _derived(d, full, hidden, heads, kv_heads)
    if all(_is_int(d.get(k)) for k in ("expand", "num_heads", "head_dim", "hidden_size")):
        # Mamba-2: the SSM heads span expand·hidden; groups divide the heads
        d["num_heads"] = d["expand"] * d["hidden_size"] // d["head_dim"]
        if _is_int(d.get("n_groups")):
            d["n_groups"] = min(d["n_groups"], d["num_heads"])
    if _is_int(d.get("qk_rope_head_dim")):  # MLA: the rotary head is the rope part, a q/k head both parts
        # derive: a head dim that the full config makes of both parts (Dots3's SWA layers) keeps both
        whole = ("head_dim", "qk_nope_head_dim", "qk_rope_head_dim")
        if derive and all(_is_int(full.get(k)) for k in whole) and full[whole[0]] == full[whole[1]] + full[whole[2]]:
            d["head_dim"] = d["qk_nope_head_dim"] + d["qk_rope_head_dim"]
        elif _is_int(d.get("head_dim")):
            d["head_dim"] = d["qk_rope_head_dim"]
        for k in KV_HEADS:  # keys and values are decompressed per query head
            if _is_int(d.get(k)) and not kv_heads:
                d[k] = heads
        if _is_int(d.get("qk_head_dim")) and _is_int(d.get("qk_nope_head_dim")):
            d["qk_head_dim"] = d["qk_rope_head_dim"] + d["qk_nope_head_dim"]
    _token_ids(d)
    return d
