"""The conventions real code uses, declared (``--layout``, ``--mask``, ``--gqa-grouping``) or
detected (HF's attention interface), turned into conform's own: ``fn(query, key, value,
attn_mask=None, is_causal=False)`` on (B, H, L, D_head) with a boolean keep mask or an additive 0/−inf
one. Nothing here changes the mathematics a property checks: each adapter is a relabelling
(a transpose, a mask encoding, an order of query heads) that the user's code and the derived
formula must agree on.

* HF's attention interface, ``eager_attention_forward(module, query, key, value, attention_mask,
  scaling, dropout)`` returning ``(output (B, L, H, D), weights)`` with ``repeat_kv`` over
  ``module.num_key_value_groups`` (transformers.models.llama.modeling_llama), is detected from its
  signature; masks go in as HF's 4-D additive (B, 1, L, S) 0/finfo.min, causality through the mask.
* ``--layout blhd``: tensors (B, L, H, D) (flash-attention's ``attention_ref``); for ``mha``
  ``--layout lbd``: ``forward(x)`` on (L, B, D) (``nn.MultiheadAttention(batch_first=False)``).
* ``--mask keep|masked-out|additive|finfo-min|keep01``: how ``attn_mask`` encodes a masked key.
* ``--gqa-grouping tiled``: query head h reads K/V head h mod G (``repeat``, x-transformers) rather
  than h // (H/G) (``repeat_interleave``, PyTorch's ``enable_gqa``).
* a callable without ``is_causal`` (GPT-2's ``_attn(query, key, value, attention_mask, head_mask)``)
  takes its mask by position and is always causal when declared ``--causal``, never otherwise; the
  properties that pass their own mask then keep the causal band in it (``Variant.always_causal``).
"""

from __future__ import annotations

import inspect

LAYOUTS = {"attention": ("bhld", "blhd"), "gqa": ("bhld", "blhd"), "mha": ("bld", "lbd")}
MASKS = ("keep", "masked-out", "additive", "finfo-min", "keep01")
GROUPINGS = ("interleaved", "tiled")


def is_hf_interface(fn) -> bool:
    """HF's ``eager_attention_forward(module, query, key, value, attention_mask, scaling, ...)``."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return params[:1] == ["module"] and "attention_mask" in params and "scaling" in params


def takes_is_causal(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return "is_causal" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def needed(fn, kind: str, variant) -> bool:
    return (kind in ("attention", "gqa") and (is_hf_interface(fn) or not takes_is_causal(fn))) \
        or variant.layout not in (None, "bhld", "bld") or variant.mask not in (None, "keep") \
        or variant.gqa_grouping not in (None, "interleaved")


def _keep(attn_mask):
    """conform's mask (boolean keep, or additive 0/−inf) as a boolean keep mask."""
    import torch

    return attn_mask if attn_mask.dtype == torch.bool else attn_mask == 0


def encode_mask(keep, how: str, dtype):
    """A boolean keep mask in the user's encoding."""
    import torch

    if how == "masked-out":
        return ~keep
    if how == "keep01":
        return keep.to(dtype)
    fill = torch.finfo(dtype).min if how == "finfo-min" else -torch.inf
    return torch.zeros(keep.shape, dtype=dtype).masked_fill(~keep, fill)


class _HFModule:
    """What HF's attention interface reads off its module: eval mode, the K/V repetition."""

    training = False

    def __init__(self, groups: int):
        self.num_key_value_groups = groups
        self.is_causal = False


def adapt(fn, kind: str, variant):
    """``fn`` in conform's convention for ``kind``, or ``fn`` itself when nothing needs adapting."""
    if kind == "rotary":
        how = rotary_convention(fn)
        return adapt_rotary(fn, how) if how else fn
    if not needed(fn, kind, variant):
        return fn
    if kind == "mha":
        return _mha_layout(fn) if variant.layout == "lbd" else fn
    hf = is_hf_interface(fn)
    plain = not hf and not takes_is_causal(fn)  # always causal (declared --causal) or never: mask by position
    blhd = variant.layout == "blhd"
    tiled = variant.gqa_grouping == "tiled"
    mask_how = "hf" if hf else (variant.mask or "keep")

    def attention(query, key, value, attn_mask=None, is_causal=False):
        import torch

        from mathcheck.conform.attention import keep_mask

        H, G = query.shape[1], key.shape[1]
        order = None
        if tiled and G < H:  # conform's head g·R + j is the user's head j·G + g: both read group g
            order = torch.arange(H).reshape(G, H // G).T.reshape(-1)
            query = query[:, order]
            if attn_mask is not None and attn_mask.dim() == 4 and attn_mask.shape[1] == H:
                attn_mask = attn_mask[:, order]
        if blhd:
            query, key, value = (t.transpose(1, 2) for t in (query, key, value))
        if hf:  # causal through the mask only; HF's 4-D additive (B, 1|H, L, S) 0/finfo.min
            L, S = query.shape[-2], key.shape[-2]
            keep = None if attn_mask is None else _keep(attn_mask)
            if is_causal:
                band = keep_mask(L, S, variant)
                keep = band if keep is None else keep & band
            mask = None
            if keep is not None:
                mask = encode_mask(keep, "finfo-min", query.dtype)
                mask = mask.reshape((1,) * (4 - mask.dim()) + tuple(mask.shape))
            scaling = variant.scale if variant.scale is not None else query.shape[-1] ** -0.5
            out = fn(_HFModule(H // G), query, key, value, mask, scaling, 0.0)
            out = (out[0] if isinstance(out, (tuple, list)) else out).transpose(1, 2)  # HF returns (B, L, H, D)
        else:
            mask = attn_mask if attn_mask is None or mask_how == "keep" else \
                encode_mask(_keep(attn_mask), mask_how, query.dtype)
            if plain:
                out = fn(query, key, value, mask) if kind == "attention" else fn(query, key, value)
            else:
                kwargs = {"is_causal": is_causal}
                if kind == "attention":
                    kwargs["attn_mask"] = mask
                out = fn(query, key, value, **kwargs)
            out = out[0] if isinstance(out, (tuple, list)) else out
            if blhd:
                out = out.transpose(1, 2)
        if order is not None:
            out = out[:, torch.argsort(order)]
        return out

    attention.__qualname__ = getattr(fn, "__qualname__", "attention")
    return attention


def _mha_layout(make):
    """``make(D, H)`` whose module takes (L, B, D): wrapped so ``forward(x)`` takes (B, L, D)."""
    import torch.nn as nn

    class BatchFirst(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            out = self.inner(x.transpose(0, 1))
            out = out[0] if isinstance(out, (tuple, list)) else out
            return out.transpose(0, 1)

    def factory(D, H):
        return BatchFirst(make(D, H))

    factory.__qualname__ = getattr(make, "__qualname__", "make")
    return factory


# --- rotary as real code writes it: an apply function fed tables ------------------------------------------

ROPE_BASE = 10000.0  # the θ base of the tables conform builds (the rotary kind's derived θ_b)


def _rope_params(fn) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def rotary_convention(fn) -> str | None:
    """Which rotary apply convention ``fn``'s signature is, or None (conform's own ``fn(x, positions)``):

    * ``"cos-sin"``: transformers' ``apply_rotary_pos_emb(q, k, cos, sin, position_ids=None,
      unsqueeze_dim=1)`` (half-split pairs through ``rotate_half``; ``cos``/``sin`` (B, L, d), or
      in older versions an (L_max, d) table indexed by a required ``position_ids``);
    * ``"freqs-cis"``: meta-llama's ``apply_rotary_emb(x, freqs_cis)`` or ``(xq, xk, freqs_cis)``
      (interleaved pairs as complex numbers, x (B, L, H, d), ``freqs_cis`` (L, d/2) complex).

    >>> rotary_convention(lambda q, k, cos, sin, position_ids=None, unsqueeze_dim=1: q)
    'cos-sin'
    >>> rotary_convention(lambda xq, xk, freqs_cis: xq)
    'freqs-cis'
    >>> rotary_convention(lambda x, positions: x) is None
    True
    """
    p = _rope_params(fn)
    if len(p) >= 4 and p[2:4] == ["cos", "sin"]:
        return "cos-sin"
    if "freqs_cis" in p and p.index("freqs_cis") in (1, 2):
        return "freqs-cis"
    return None


def _angles(pos, d: int):
    """(L, d/2): pos·θ_b, θ_b = 10000^(−2b/d) — the standard table, in float64."""
    import torch

    theta = ROPE_BASE ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    return torch.outer(pos.to(torch.float64), theta)


def adapt_rotary(fn, how: str):
    """``fn`` as conform's ``rope(x, positions)`` on x (…, L, d): the tables built here, in float64
    at base 10000, so what is checked is the user's *apply* (pairing, signs, broadcasting)."""
    import torch

    needs_ids = "position_ids" in _rope_params(fn) and \
        inspect.signature(fn).parameters["position_ids"].default is inspect.Parameter.empty
    two = how == "freqs-cis" and _rope_params(fn).index("freqs_cis") == 2

    pairing = {}  # the cos/sin table layout the apply pairs with, found on the first call

    def expand(a, how_pairs):
        return torch.cat([a, a], dim=-1) if how_pairs == "half" else a.repeat_interleave(2, dim=-1)

    def cos_sin(x4, positions, d, how_pairs):
        if needs_ids:  # an (L_max, d) table indexed by integer positions
            ids = positions.round().long()
            emb = expand(_angles(torch.arange(int(ids.max()) + 1), d), how_pairs)
            return fn(x4, x4, emb.cos(), emb.sin(), ids[None])
        emb = expand(_angles(positions, d), how_pairs)[None]     # (1, L, d)
        return fn(x4, x4, emb.cos(), emb.sin())

    def rope(x, positions):
        L, d = x.shape[-2], x.shape[-1]
        ang = _angles(positions, d)
        if how == "cos-sin":
            x4 = x.reshape(-1, 1, L, d)                          # (B, H = 1, L, d)
            if "layout" not in pairing:
                pairing["layout"] = cos_sin_pairing(lambda p: cos_sin(*p), d)
            out = cos_sin(x4, positions, d, pairing["layout"])
        else:
            x4 = x.reshape(-1, L, 1, d)                          # (B, L, H = 1, d)
            freqs = torch.polar(torch.ones_like(ang), ang)       # (L, d/2) complex128
            out = fn(x4, x4, freqs) if two else fn(x4, freqs)
        out = out[0] if isinstance(out, (tuple, list)) else out
        return out.reshape(x.shape)

    rope.__name__ = getattr(fn, "__name__", "rope")
    rope.pairing = pairing
    return rope


def cos_sin_pairing(call, d: int) -> str:
    """Which cos/sin table layout a cos/sin apply pairs with: ``"half"`` (``cat(freqs, freqs)`` with
    ``rotate_half``, transformers' Llama) or ``"interleaved"`` (``repeat_interleave(freqs, 2)`` with
    an interleaved rotate, transformers' Cohere, GPT-J). Fed the matching table the apply is a
    rotation, norm-preserving; fed the other, it is not. Found on one fixed input at positions 1..4;
    half-split when neither (or both) preserve the norm, and what is checked is unchanged: the output
    against the derived RoPE, either pairing."""
    import torch

    x = torch.linspace(-1.0, 1.0, 4 * d, dtype=torch.float64).reshape(1, 1, 4, d).sin() + 0.5
    pos = torch.arange(1, 5, dtype=torch.float64)
    kept = []
    for layout in ("half", "interleaved"):
        try:
            out = call((x, pos, d, layout))
        except Exception:  # this layout does not fit at all: the other one is tried
            continue
        out = out[0] if isinstance(out, (tuple, list)) else out
        if bool(torch.allclose(out.detach().to(torch.float64).norm(dim=-1), x.norm(dim=-1), rtol=1e-4, atol=0.0)):
            kept.append(layout)
    return kept[0] if len(kept) == 1 else "half"


# --- constructors that take a config object ---------------------------------------------------------------

CONFIG_PARAMS = ("config", "cfg", "args", "model_args", "params", "hparams", "conf")
# The attribute names real configs give conform's sizes, each with a source that uses it:
# nanoGPT's GPTConfig (n_embd, n_head, bias, dropout, block_size), transformers' configs (hidden_size,
# num_attention_heads, num_key_value_heads, attention_dropout, max_position_embeddings, rms_norm_eps,
# layer_norm_eps, layer_norm_epsilon), meta-llama's ModelArgs (dim, n_heads, n_kv_heads, norm_eps,
# max_seq_len), litgpt's Config (n_query_groups, head_size), fairseq/OPT (embed_dim, d_model).
CONFIG_NAMES = {
    "D": ("n_embd", "hidden_size", "dim", "d_model", "embed_dim", "n_embed", "emb_dim", "model_dim"),
    "H": ("n_head", "n_heads", "num_heads", "num_attention_heads", "heads"),
    "G": ("n_kv_heads", "num_key_value_heads", "n_query_groups", "num_kv_heads"),  # no grouping: G = H
    "head": ("head_dim", "head_size"),
    "eps": ("eps", "norm_eps", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "layernorm_epsilon"),
    "dropout": ("dropout", "attn_pdrop", "resid_pdrop", "attention_dropout", "attn_dropout", "resid_dropout",
                "hidden_dropout", "attention_probs_dropout_prob", "hidden_dropout_prob"),
    "length": ("block_size", "n_positions", "max_position_embeddings", "max_seq_len", "n_ctx"),
}
CONFIG_DEFAULTS = {"bias": True}  # nanoGPT/litgpt's bias flag: a bias is what nn.Linear has by default


def config_parameter(make) -> str | None:
    """The name of the one required parameter of a constructor that takes a config object
    (``CausalSelfAttention(config)``, ``RMSNorm(args)``), or None.

    >>> config_parameter(lambda config: None), config_parameter(lambda dim, eps: None)
    ('config', None)
    """
    try:
        params = list(inspect.signature(make).parameters.values())
    except (TypeError, ValueError):
        return None
    required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return required[0].name if len(required) == 1 and required[0].name in CONFIG_PARAMS else None


class Config:
    """The config object conform builds: every name of :data:`CONFIG_NAMES` for a size it knows,
    ``--init`` on top; a name it does not know is an ``AttributeError`` saying how to give it."""

    def __init__(self, values: dict):
        self.__dict__.update(values)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"conform's config has no {name!r}: give it with --init {name}=VALUE")

    def __repr__(self):
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


def config_factory(make, kind: str, init: tuple):
    """``make(config)`` as the kind's factory: ``make(D, H)`` for mha, ``make(D, eps)`` for a norm,
    each building a :class:`Config` (dropout 0, a length limit of 2048 ≥ the longest property's
    1025, ``--init`` keys set on the config rather than passed to ``make``)."""
    def values(D, H=None, eps=None):
        sizes = {"D": D, "H": H, "G": H, "head": D // H if H else None, "eps": eps, "dropout": 0.0, "length": 2048}
        out = {name: sizes[size] for size, names in CONFIG_NAMES.items() for name in names if sizes[size] is not None}
        return {**CONFIG_DEFAULTS, **out, **dict(init)}

    if kind == "mha":
        def factory(D, H):
            return make(Config(values(D, H)))
    else:
        def factory(D, eps):
            return make(Config(values(D, eps=eps)))
    factory.__qualname__ = getattr(make, "__qualname__", "make")
    factory.config = True  # said in the report
    return factory
