"""Two GPTs as their authors write them, and the planted bugs of issue 31 each caught at the module
that has it: a missed 1/√d scale, queries scaled twice, RoPE applied to the values, GQA heads tiled,
a future-token leak at one position, a padding mask broadcast from one row. (A cache capped at 8
keys: tests/model/test_load.py.)

Our own code, written in the style of two public GPTs (never their code):
* ``LlmcGPT``, in the style of llm.c's train_gpt2.py (karpathy/llm.c): a fused ``c_attn``, a
  ``bias`` buffer with the causal triangle, the scores ``(q @ kᵀ) * (1/√d)`` masked and softmaxed
  by hand, ``forward(idx, targets=None)`` returning ``(logits, loss)``.
* ``FastGPT``, in the style of gpt-fast's model.py (pytorch-labs/gpt-fast): a fused ``wqkv`` with
  grouped key/value heads (``n_local_heads``), RoPE from a precomputed cos/sin table, a static KV
  cache of ``block_size`` slots written at ``input_pos``, ``F.scaled_dot_product_attention`` with
  a mask row per position, ``forward(idx, input_pos=None)`` returning logits.
"""

import math
from dataclasses import dataclass

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from mathcheck.model.load import from_module
from mathcheck.model.run import check_model


@dataclass
class Config:
    block_size: int = 32
    vocab_size: int = 64
    n_layer: int = 2
    n_head: int = 4
    n_local_heads: int = 2
    n_embd: int = 32


# --- llm.c style ---------------------------------------------------------------------------------


class LlmcAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_head, self.n_embd = c.n_head, c.n_embd
        self.c_attn, self.c_proj = nn.Linear(c.n_embd, 3 * c.n_embd), nn.Linear(c.n_embd, c.n_embd)
        self.register_buffer(
            "bias", torch.tril(torch.ones(c.block_size, c.block_size)).view(1, 1, c.block_size, c.block_size)
        )

    def scores(self, q, k):
        return (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        att = self.scores(q, k)
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class LlmcGPT(nn.Module):
    def __init__(self, c=Config(), attention=LlmcAttention):
        super().__init__()
        self.config = c
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(c.vocab_size, c.n_embd),
                wpe=nn.Embedding(c.block_size, c.n_embd),
                h=nn.ModuleList(
                    nn.ModuleDict(
                        dict(
                            ln_1=nn.LayerNorm(c.n_embd),
                            attn=attention(c),
                            ln_2=nn.LayerNorm(c.n_embd),
                            mlp=nn.Sequential(
                                nn.Linear(c.n_embd, 4 * c.n_embd),
                                nn.GELU(approximate="tanh"),
                                nn.Linear(4 * c.n_embd, c.n_embd),
                            ),
                        )
                    )
                    for _ in range(c.n_layer)
                ),
                ln_f=nn.LayerNorm(c.n_embd),
            )
        )
        self.lm_head = nn.Linear(c.n_embd, c.vocab_size, bias=False)

    def forward(self, idx, targets=None):
        t = self.transformer
        x = t.wte(idx) + t.wpe(torch.arange(idx.size(1)))
        for block in t.h:
            x = x + block["attn"](block["ln_1"](x))
            x = x + block["mlp"](block["ln_2"](x))
        x = t.ln_f(x)
        if targets is None:  # inference: the last position only
            return self.lm_head(x[:, [-1], :]), None
        logits = self.lm_head(x)
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class NoScale(LlmcAttention):  # planted: the 1/√d forgotten
    def scores(self, q, k):
        return q @ k.transpose(-2, -1)


class ScaledTwice(LlmcAttention):  # planted: q pre-scaled, then the scores scaled again
    def scores(self, q, k):
        return super().scores(q / math.sqrt(q.size(-1)), k)


class AlibiAttention(LlmcAttention):
    """MPT style (transformers' MptAttention): the scores plus an ALiBi bias the forward is given as
    ``position_bias`` (made here when none is given), slope 2^−(h+1) per head times the key's place."""

    def forward(self, x, position_bias=None):
        T = x.size(1)
        slopes = 2.0 ** -torch.arange(1, self.n_head + 1)
        self.bias_now = slopes[:, None, None] * (torch.arange(T) - (T - 1)) if position_bias is None else position_bias
        return super().forward(x)

    def scores(self, q, k):
        return super().scores(q, k) + self.bias_now


class AlibiNoScale(AlibiAttention):  # planted: the 1/√d forgotten beside the bias
    def scores(self, q, k):
        return q @ k.transpose(-2, -1) + self.bias_now


class UnscaledByDesign(LlmcAttention):
    """GPT-Neo style: q·k unscaled by design, as its other implementation says with softmax_scale=1.0."""

    def scores(self, q, k):
        return q @ k.transpose(-2, -1)


class UnscaledByDesignSdpa(UnscaledByDesign):  # the same attention through SDPA, its scale written out
    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0)
        return self.c_proj(y.transpose(1, 2).reshape(B, T, C))


class LeakAtOne(LlmcAttention):  # planted: query 2 sees key 3
    def plant(self):
        self.bias[0, 0, 2, 3] = 1


def _llmc_at_layer(bug):
    """An llm.c-style GPT whose layer 1 has the planted attention ``bug``."""

    def make():
        model = LlmcGPT()
        good = model.transformer.h[1]["attn"]
        bad = bug(model.config)
        bad.load_state_dict(good.state_dict())
        getattr(bad, "plant", lambda: None)()  # after the copy: the mask is a buffer in the state dict
        model.transformer.h[1]["attn"] = bad
        return model

    return make


# --- gpt-fast style ------------------------------------------------------------------------------


def rope_table(block_size, d, base=10000.0):
    """(block_size, d/2, 2) cos/sin in float32, as gpt-fast precomputes its table."""
    freqs = 1.0 / (base ** (torch.arange(0, d, 2)[: d // 2].float() / d))
    angles = torch.outer(torch.arange(block_size).float(), freqs)
    return torch.stack([angles.cos(), angles.sin()], dim=-1)


def apply_rope(x, table):
    """x (B, T, H, d): pairs (x_2i, x_2i+1) rotated by the angle of their position."""
    xs = x.reshape(*x.shape[:-1], -1, 2)
    t = table.view(1, xs.size(1), 1, xs.size(3), 2)
    out = torch.stack(
        [xs[..., 0] * t[..., 0] - xs[..., 1] * t[..., 1], xs[..., 1] * t[..., 0] + xs[..., 0] * t[..., 1]], dim=-1
    )
    return out.flatten(3).type_as(x)


class KVCache(nn.Module):
    def __init__(self, c, head_dim):
        super().__init__()
        shape = (1, c.n_local_heads, c.block_size, head_dim)
        self.register_buffer("k_cache", torch.zeros(shape))
        self.register_buffer("v_cache", torch.zeros(shape))

    def update(self, input_pos, k, v):
        B = k.shape[0]
        kc = self.k_cache.expand(B, -1, -1, -1).clone()
        vc = self.v_cache.expand(B, -1, -1, -1).clone()
        kc[:, :, input_pos], vc[:, :, input_pos] = k, v
        return kc, vc


class FastAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_head, self.n_local_heads, self.dim = c.n_head, c.n_local_heads, c.n_embd
        self.head_dim = c.n_embd // c.n_head
        self.wqkv = nn.Linear(c.n_embd, (c.n_head + 2 * c.n_local_heads) * self.head_dim, bias=False)
        self.wo = nn.Linear(c.n_embd, c.n_embd, bias=False)
        self.kv_cache = KVCache(c, self.head_dim)

    def rotate(self, q, k, v, table):
        return apply_rope(q, table), apply_rope(k, table), v

    def group(self, k, v):
        r = self.n_head // self.n_local_heads
        return k.repeat_interleave(r, dim=1), v.repeat_interleave(r, dim=1)

    def attend(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0)

    def forward(self, x, table, mask, input_pos):
        B, T, _ = x.shape
        kv = self.n_local_heads * self.head_dim
        q, k, v = self.wqkv(x).split([self.dim, kv, kv], dim=-1)
        q = q.view(B, T, self.n_head, self.head_dim)
        k, v = (t.view(B, T, self.n_local_heads, self.head_dim) for t in (k, v))
        q, k, v = self.rotate(q, k, v, table)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        k, v = self.kv_cache.update(input_pos, k, v)
        k, v = self.group(k, v)
        y = self.attend(q, k, v, mask)
        return self.wo(y.transpose(1, 2).contiguous().view(B, T, self.dim))


class FastGPT(nn.Module):
    def __init__(self, c=Config(), attention=FastAttention):
        super().__init__()
        self.config = c
        self.tok_embeddings = nn.Embedding(c.vocab_size, c.n_embd)
        self.layers = nn.ModuleList(
            nn.ModuleDict(
                dict(
                    attention_norm=nn.RMSNorm(c.n_embd, eps=1e-5),
                    attention=attention(c),
                    ffn_norm=nn.RMSNorm(c.n_embd, eps=1e-5),
                    w1=nn.Linear(c.n_embd, 2 * c.n_embd, bias=False),
                    w2=nn.Linear(2 * c.n_embd, c.n_embd, bias=False),
                )
            )
            for _ in range(c.n_layer)
        )
        self.norm = nn.RMSNorm(c.n_embd, eps=1e-5)
        self.output = nn.Linear(c.n_embd, c.vocab_size, bias=False)
        self.register_buffer("freqs_cis", rope_table(c.block_size, c.n_embd // c.n_head))
        self.register_buffer("causal_mask", torch.tril(torch.ones(c.block_size, c.block_size, dtype=torch.bool)))

    def forward(self, idx, input_pos=None):
        input_pos = torch.arange(idx.shape[1]) if input_pos is None else input_pos
        mask = self.causal_mask[None, None, input_pos]
        table = self.freqs_cis[input_pos]
        x = self.tok_embeddings(idx)
        for layer in self.layers:
            x = x + layer["attention"](layer["attention_norm"](x), table, mask, input_pos)
            x = x + layer["w2"](F.silu(layer["w1"](layer["ffn_norm"](x))))
        return self.output(self.norm(x))


class RopeOnValues(FastAttention):  # planted: the values rotated too
    def rotate(self, q, k, v, table):
        return apply_rope(q, table), apply_rope(k, table), apply_rope(v, table)


class TiledHeads(FastAttention):  # planted: key/value heads tiled (head i reads group i mod g)
    def group(self, k, v):
        r = self.n_head // self.n_local_heads
        return k.repeat(1, r, 1, 1), v.repeat(1, r, 1, 1)


class StaticKVCache(nn.Module):
    """gpt-fast's KVCache: (max_batch_size, heads, max_seq_length, d) buffers written in place at input_pos."""

    def __init__(self, max_batch_size, max_seq_length, n_heads, head_dim):
        super().__init__()
        shape = (max_batch_size, n_heads, max_seq_length, head_dim)
        self.register_buffer("k_cache", torch.zeros(shape, dtype=torch.float64))
        self.register_buffer("v_cache", torch.zeros(shape, dtype=torch.float64))

    def update(self, input_pos, k, v):
        self.k_cache[:, :, input_pos], self.v_cache[:, :, input_pos] = k, v
        return self.k_cache, self.v_cache


class DroppingKVCache(StaticKVCache):  # planted: keys at positions ≥ 8 are never written
    def update(self, input_pos, k, v):
        keep = input_pos < 8
        self.k_cache[:, :, input_pos[keep]], self.v_cache[:, :, input_pos[keep]] = k[:, :, keep], v[:, :, keep]
        return self.k_cache, self.v_cache


class StaticFastGPT(FastGPT):
    """gpt-fast's calling convention: no cache until ``setup_caches(max_batch_size, max_seq_length)``,
    then ``forward(idx, input_pos)`` writes the tokens at input_pos and attends to every slot, the
    slots past each token masked by a (max_seq_length, max_seq_length) triangle."""

    dropping_layer = None  # planted when set: that layer's cache drops keys past 8

    def setup_caches(self, max_batch_size, max_seq_length):
        c = self.config
        for i, layer in enumerate(self.layers):
            cache = DroppingKVCache if i == self.dropping_layer else StaticKVCache
            layer["attention"].kv_cache = cache(max_batch_size, max_seq_length, c.n_local_heads, c.n_embd // c.n_head)
        self.causal_mask = torch.tril(torch.ones(max_seq_length, max_seq_length, dtype=torch.bool))
        self.ready = True

    def forward(self, idx, input_pos=None):
        assert getattr(self, "ready", False), "Caches must be initialized first"
        return super().forward(idx, input_pos)


class HandAttention(FastAttention):
    """SDPA written out by hand over the static cache's slots (those past each token masked)."""

    def attend(self, q, k, v, mask):
        att = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~mask, float("-inf"))
        return F.softmax(att, dim=-1) @ v


class HandNoScale(HandAttention):  # planted: the 1/√d forgotten
    def attend(self, q, k, v, mask):
        return F.softmax((q @ k.transpose(-2, -1)).masked_fill(~mask, float("-inf")), dim=-1) @ v


def _static(dropping_layer=None, attention=FastAttention, layer_1=None):
    def make():
        model = StaticFastGPT(attention=attention)
        model.dropping_layer = dropping_layer
        if layer_1 is not None:
            model.layers[1]["attention"] = layer_1(model.config)
        return model

    return make


def _fast_at_layer(bug):
    def make():
        model = FastGPT()
        good = model.layers[1]["attention"]
        bad = bug(model.config)
        bad.load_state_dict(good.state_dict())
        model.layers[1]["attention"] = bad
        return model

    return make


def _check(factory, label="m"):
    return check_model(label, loaded=from_module(factory, label))


def _module(report, path):
    return next(m for m in report.modules if m.path == path and m.kind == "attention")


def _named(module, name):
    return next(r for r in module.properties if r.name == name)


# --- the two GPTs hold as written ----------------------------------------------------------------


def test_an_llmc_style_gpt_holds_as_written_with_scale_and_values_checked_per_layer():
    report = _check(LlmcGPT)
    assert report.status == "holds", report.failures()
    attn = _module(report, "transformer.h.0.attn")
    assert _named(attn, "scale").note == "scores = q·k × 0.353553 (1/√d, d = 8)"
    assert _named(attn, "values").status == "holds"


def test_a_gpt_fast_style_gpt_holds_as_written_static_cache_grouped_heads_and_rope():
    report = _check(FastGPT)
    assert report.status == "holds", report.failures()
    attn = _module(report, "layers.0.attention")
    assert _named(attn, "gqa-grouping").note == "4 query heads over 2 key/value heads"
    assert _named(attn, "mask-kind").status == "holds"  # the static cache's slots past L are masked, as expected


def test_a_static_cache_set_up_by_setup_caches_is_driven_by_input_pos_and_decoded():
    report = _check(_static())
    assert report.status == "holds", report.failures()
    assert report.config["cache"] == "static: setup_caches(2, 32), decoded by input_pos"
    kv = next(p for p in report.properties if p.name == "kv-cache")
    assert kv.status == "holds"
    assert kv.note.startswith("tokens 3..15 decoded one at a time after a prefix of 3 (the static cache")


def test_a_static_cache_dropping_keys_past_8_fails_kv_cache_at_the_layer_that_has_it():
    # the full forward goes through the same cache, so it and decoding agree: the values read say it
    kv = next(p for p in _check(_static(dropping_layer=1)).properties if p.name == "kv-cache")
    assert kv.status == "fails"
    assert kv.counterexample["module"] == "layers.1.attention" and kv.counterexample["t"] == 8
    assert "slot 8 does not hold token 8's values (over 6 tokens it does)" in kv.note


def test_scores_written_by_hand_over_a_static_cache_are_held_to_the_scale_its_slots_past_l_aside():
    # the softmax runs over all 32 slots, those past the 6 tokens weighing 0: the first 6 are the scores
    report = _check(_static(attention=HandAttention, layer_1=HandNoScale))
    assert _named(_module(report, "layers.0.attention"), "scale").note == "scores = q·k × 0.353553 (1/√d, d = 8)"
    assert _named(_module(report, "layers.0.attention"), "values").status == "holds"
    scale = _named(_module(report, "layers.1.attention"), "scale")
    assert (scale.status, scale.note) == ("fails", "scores are q·k × 1, not × 1/√d = 0.353553 (d = 8)")


class TunedGPT(FastGPT):
    """A setup_caches of another convention (torchtune's takes (batch_size, dtype, …))."""

    def setup_caches(self, batch_size, dtype, decoder_max_seq_len=None):
        raise AssertionError("not to be called")


def test_a_setup_caches_not_taking_the_batch_and_the_length_is_not_called_and_said():
    loaded = from_module(TunedGPT, "m")
    assert loaded.positions_name == "input_pos" and not loaded.static_cache
    assert loaded.notes == [
        "setup_caches(batch_size, dtype, decoder_max_seq_len=None) does not take (max_batch_size, "
        "max_seq_length) first: its cache is not set up, and kv-cache not checked"
    ]


# --- the planted bugs, each at its module ------------------------------------------------------


@pytest.mark.parametrize(
    "factory, path, prop, note",
    [
        (_llmc_at_layer(NoScale), "transformer.h.1.attn", "scale", "scores are q·k × 1, not × 1/√d = 0.353553 (d = 8)"),
        (
            _llmc_at_layer(ScaledTwice),
            "transformer.h.1.attn",
            "scale",
            "scores are q·k × 0.125, not × 1/√d = 0.353553 (d = 8)",
        ),
        (_fast_at_layer(RopeOnValues), "layers.1.attention", "values", None),
        (
            _fast_at_layer(TiledHeads),
            "layers.1.attention",
            "gqa-grouping",
            "query head i reads key/value head i mod 2 (heads tiled), not i // 2",
        ),
        (_llmc_at_layer(LeakAtOne), "transformer.h.1.attn", "mask-kind", None),
    ],
)
def test_a_planted_attention_bug_fails_at_the_module_that_has_it(factory, path, prop, note):
    report = _check(factory)
    failing = [f for f in report.failures() if not f.startswith(("causality", "kv-cache", "padding"))]
    assert failing and all(f.startswith(path + " ") for f in failing), failing
    result = _named(_module(report, path), prop)
    assert result.status == "fails"
    if note is not None:
        assert result.note == note
    other = path.replace(".1.", ".0.")
    assert _module(report, other).status == "holds"


@pytest.mark.parametrize(
    "attention, status, note",
    [
        (
            AlibiAttention,
            "holds",
            "scores = q·k × 0.353553 (1/√d; plus an additive score bias, its argument position_bias, "
            "the same for every row, d = 8)",
        ),
        (AlibiNoScale, "fails", "scores are q·k × 1, not × 1/√d = 0.353553 (d = 8)"),
        (UnscaledByDesign, "holds", "scores = q·k × 1 (the module's scale=1.0 written in UnscaledByDesignSdpa, d = 8)"),
    ],
)
def test_a_scale_is_held_as_the_module_writes_it_and_a_score_bias_it_is_given_is_set_apart(attention, status, note):
    result = _named(_module(_check(lambda: LlmcGPT(attention=attention)), "transformer.h.0.attn"), "scale")
    assert (result.status, result.note) == (status, note)


def test_a_leak_at_one_position_names_the_query_and_the_key():
    report = _check(_llmc_at_layer(LeakAtOne))
    mask = _named(_module(report, "transformer.h.1.attn"), "mask-kind")
    assert "query 2 attends to key 3" in mask.counterexample["compared"]
    causality = next(p for p in report.properties if p.name == "causality")
    assert causality.status == "fails" and causality.counterexample["module"] == "transformer.h.1.attn"


# --- padding per row ---------------------------------------------------------------------------


class MaskedGPT(LlmcGPT):
    """forward(input_ids, attention_mask=None): padded keys masked per row."""

    row_of_mask = None  # planted when set: every row takes this row's mask

    def forward(self, input_ids, attention_mask=None):
        self._mask = attention_mask
        if attention_mask is not None and self.row_of_mask is not None:
            row = min(self.row_of_mask, len(attention_mask) - 1)
            self._mask = attention_mask[row : row + 1].expand_as(attention_mask)
        return super().forward(input_ids, targets=input_ids)[0]


class PaddedAttention(LlmcAttention):
    owner = None

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        att = self.scores(q, k).masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        mask = self.owner[0]._mask
        if mask is not None:
            att = att.masked_fill(mask[:, None, None, :] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return self.c_proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))


def _padded(row_of_mask=None):
    def make():
        model = MaskedGPT(attention=PaddedAttention)
        model.row_of_mask = row_of_mask
        for block in model.transformer.h:
            block["attn"].owner = [model]  # a list: not registered as a sub-module
        return model

    return make


def test_padding_per_row_holds_right_and_middle_padding():
    padding = next(p for p in _check(_padded()).properties if p.name == "padding")
    assert padding.status == "holds", padding.note
    assert padding.note.startswith("row 0 padded on the right, row 1's token 3 masked")


@pytest.mark.parametrize("row", [0, 1])
def test_a_padding_mask_broadcast_from_one_row_fails(row):
    padding = next(p for p in _check(_padded(row)).properties if p.name == "padding")
    assert padding.status == "fails"
    assert padding.counterexample["row"] == 1 - row
    assert padding.counterexample["module"] == "transformer.h.0.attn"  # the first attention to read the mask


class ConvPaddedAttention(PaddedAttention):
    """A causal depthwise convolution over the sequence before the projections (ConvBERT's
    key_conv_attn_layer, a Mamba-style short conv; our rewrite): it mixes tokens and takes no mask."""

    ignore_mask = False

    def __init__(self, c):
        super().__init__(c)
        self.conv = nn.Conv1d(c.n_embd, c.n_embd, 2, groups=c.n_embd)

    def forward(self, x):
        x = self.conv(F.pad(x.transpose(1, 2), (1, 0))).transpose(1, 2)  # causal: token t sees t − 1 and t
        if self.ignore_mask:  # planted: the padding mask never reaches the scores
            mask, self.owner[0]._mask = self.owner[0]._mask, None
            try:
                return super().forward(x)
            finally:
                self.owner[0]._mask = mask
        return super().forward(x)


def _conv_padded(ignore_mask):
    def make():
        model = _padded()()
        for i, block in enumerate(model.transformer.h):
            conv = ConvPaddedAttention(model.config)
            conv.load_state_dict(block["attn"].state_dict(), strict=False)
            conv.owner, conv.ignore_mask = [model], ignore_mask
            block["attn"] = conv
        return model

    return make


def test_a_token_mixer_outside_attention_is_said_and_a_mask_bug_beside_it_still_fails():
    padding = next(p for p in _check(_conv_padded(False)).properties if p.name == "padding")
    assert padding.status == "not expected to hold", padding.note
    assert (
        "row 1 (middle padding): its masked-out tokens [3] reach its kept tokens through "
        "transformer.h.0.attn.conv (Conv1d)" in padding.note
    )
    assert padding.note.endswith("each row against itself alone holds")
    padding = next(p for p in _check(_conv_padded(True)).properties if p.name == "padding")
    # row 0's padding is on the right, which a causal model never reads; row 1's masked token reaches
    # its later tokens through the conv too, but the attention's own weights on it are not 0: a bug
    assert padding.status == "fails" and padding.counterexample["row"] == 1


# --- --cache-arg: a cache under a name that cannot be detected ------------------------------------


def _kv_gpt(cap=None):
    from tests.model.test_run import _load

    gpt = _load("tiny_gpt")

    class Capped(gpt.CausalSelfAttention):  # planted when cap is set: the cache keeps the last `cap` keys
        def extend(self, cache, k, v):
            k, v, _ = super().extend(cache, k, v)
            return k, v, (k[:, :, -cap:], v[:, :, -cap:])

    class KvGPT(gpt.GPT):
        """forward(idx, kv=None) -> (logits, kv): no use_cache, the cache under its own name."""

        def forward(self, idx, kv=None):
            out = super().forward(idx, past_key_values=kv, use_cache=True)
            return out.logits, out.past_key_values

    return lambda: KvGPT(attention=Capped) if cap else KvGPT()


def test_a_cache_under_its_own_name_is_checked_with_cache_arg_and_not_without():
    kv = next(p for p in _check(_kv_gpt()).properties if p.name == "kv-cache")
    assert (kv.status, kv.note) == (
        "not expected to hold",
        "the forward takes no use_cache with cache/past_key_values; a cache under another name: give --cache-arg NAME",
    )
    report = check_model("kv", loaded=from_module(_kv_gpt(), "kv", cache_arg="kv"))
    kv = next(p for p in report.properties if p.name == "kv-cache")
    assert (kv.status, kv.note) == ("holds", "tokens 3..15 decoded one at a time after a prefix of 3")
    capped = check_model("kv", loaded=from_module(_kv_gpt(cap=8), "kv", cache_arg="kv"))
    kv = next(p for p in capped.properties if p.name == "kv-cache")
    assert kv.status == "fails" and kv.counterexample["t"] == 9


def test_cache_arg_is_bad_input_when_the_forward_has_no_such_parameter_or_for_hf():
    from click.testing import CliRunner

    from mathcheck.cli import main

    out = CliRunner().invoke(main, ["model", "hf:llama", "--cache-arg", "kv"])
    assert (out.exit_code, out.output) == (
        2,
        "error: --cache-arg kv: an hf: model's cache is its past_key_values/cache; drop --cache-arg\n",
    )
    out = CliRunner().invoke(main, ["model", "examples/tiny_gpt.py:factory", "--cache-arg", "1kv"])
    assert out.exit_code == 2 and out.output.startswith("error: --cache-arg '1kv': give the name")
    out = CliRunner().invoke(main, ["model", "tests/model/test_load.py:fast", "--cache-arg", "kv"])
    assert (out.exit_code, out.output) == (
        2,
        "error: --cache-arg kv: tests/model/test_load.py:fast's "
        "forward(idx, input_pos=None) has no parameter 'kv'; give the "
        "parameter that takes the KV cache\n",
    )


# --- a cache kept in float32: held to float32's error model, said ----------------------------------


def _float32_cache(cap=None):
    from tests.model.test_run import _load

    gpt = _load("tiny_gpt")

    class Float32Cache(gpt.CausalSelfAttention):
        """Keeps its cache in float32 (as a memory-saving cache does): decoding rounds K, V to float32."""

        def extend(self, cache, k, v):
            k, v, new = super().extend(cache, k, v)
            k32, v32 = (t.float() for t in new)
            if cap:  # planted: the cache keeps only the last `cap` keys
                k32, v32 = k32[:, :, -cap:], v32[:, :, -cap:]
            return k, v, (k32.to(k.dtype), v32.to(v.dtype))

    return lambda: gpt.GPT(attention=Float32Cache)


def test_a_cache_kept_in_float32_holds_at_float32s_error_model_and_a_cap_still_fails():
    report = _check(_float32_cache())
    kv = next(p for p in report.properties if p.name == "kv-cache")
    assert kv.status == "holds" and kv.max_abs_err > 1e-12  # rounded: a float64 tolerance would fail it
    assert any(n.startswith("the forward computes in float32 inside") for n in report.notes)
    capped = next(p for p in _check(_float32_cache(cap=8)).properties if p.name == "kv-cache")
    assert capped.status == "fails" and capped.counterexample["t"] == 9


# --- a parameter-free child between the projections and the scores --------------------------------


class L2Norm(nn.Module):
    """Llama 4's query/key norm as transformers writes it (Llama4TextL2Norm: x·rsqrt(mean(x²) + ε),
    no weight), our rewrite."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class QKNormAttention(LlmcAttention):  # queries and keys normalised after the projections, as Llama 4's RoPE layers do
    def __init__(self, c):
        super().__init__(c)
        self.qk_norm = L2Norm()

    def scores(self, q, k):
        return super().scores(self.qk_norm(q), self.qk_norm(k))


class DropoutAttention(LlmcAttention):  # nanoGPT's attn_dropout: the identity in eval mode
    def __init__(self, c):
        super().__init__(c)
        self.attn_dropout = nn.Dropout(0.1)

    def scores(self, q, k):
        return self.attn_dropout(super().scores(q, k))


def test_a_parameter_free_qk_norm_is_said_not_checked_and_eval_dropout_is_no_obstacle():
    normed = _check(lambda: LlmcGPT(attention=QKNormAttention))
    assert normed.status == "holds", normed.failures()
    assert not any(r.name == "scale" for m in normed.modules for r in m.properties)
    assert any(
        "not checked at transformer.h.0.attn and 1 more: its child qk_norm (L2Norm) changes a tensor" in n
        for n in normed.notes
    ), normed.notes
    dropped = _check(lambda: LlmcGPT(attention=DropoutAttention).eval())
    assert _named(_module(dropped, "transformer.h.0.attn"), "scale").status == "holds"


# --- permutation: a convolution over the sequence in a bidirectional model -------------------------


class BiAttention(LlmcAttention):  # bidirectional: every key
    def __init__(self, c):
        super().__init__(c)
        self.bias.fill_(1)
        self.conv = None

    def forward(self, x):
        if self.conv is not None:  # ConvBERT-style: a depthwise convolution over the sequence first
            x = self.conv(x.transpose(1, 2)).transpose(1, 2)
        return super().forward(x)


class BiGPT(LlmcGPT):
    """forward(input_ids, position_ids=None): an encoder that takes its positions."""

    def forward(self, input_ids, position_ids=None):
        t = self.transformer
        pos = torch.arange(input_ids.size(1))[None] if position_ids is None else position_ids
        x = t.wte(input_ids) + t.wpe(pos)
        for block in t.h:
            x = x + block["attn"](block["ln_1"](x))
            x = x + block["mlp"](block["ln_2"](x))
        return self.lm_head(t.ln_f(x))


def _bi(conv: bool, scale_bug: bool = False):
    def make():
        model = BiGPT(attention=BiAttention)
        for block in model.transformer.h:
            if conv:
                block["attn"].conv = nn.Conv1d(32, 32, 3, padding=1, groups=32)
            if scale_bug:  # planted: a score that depends on the key's index, not its content
                block["attn"].scores = lambda q, k: q @ k.transpose(-2, -1) + torch.arange(k.size(-2))
        return model

    return make


class RelBiasAttention(BiAttention):
    """MPNet style: a relative-position bias looked up from the tokens' places, not from position_ids."""

    def __init__(self, c):
        super().__init__(c)
        self.rel = nn.Embedding(2 * c.block_size, c.n_head)

    def scores(self, q, k):
        places = torch.arange(q.size(-2))
        bias = self.rel(places[None, :] - places[:, None] + self.rel.num_embeddings // 2)  # (T, T, H)
        return super().scores(q, k) + bias.permute(2, 0, 1)


def test_a_relative_bias_from_the_tokens_places_makes_permutation_not_expected_naming_its_table():
    report = check_model("m", loaded=from_module(lambda: BiGPT(attention=RelBiasAttention), "m", causal=False))
    perm = next(p for p in report.properties if p.name == "permutation-equivariance")
    assert perm.status == "not expected to hold"
    assert perm.note.startswith("transformer.h.0.attn.rel (Embedding) makes a (…, L, L) score bias from the tokens'")


def test_a_convolution_over_the_sequence_makes_permutation_not_expected_and_an_attention_bug_still_fails():
    plain = check_model("m", loaded=from_module(_bi(False), "m", causal=False))
    assert {p.name: p.status for p in plain.properties}["permutation-equivariance"] == "holds"
    conv = check_model("m", loaded=from_module(_bi(True), "m", causal=False))
    perm = next(p for p in conv.properties if p.name == "permutation-equivariance")
    assert perm.status == "not expected to hold"
    assert perm.note.startswith("transformer.h.0.attn.conv (Conv1d) mixes tokens by their order outside attention")
    bug = check_model("m", loaded=from_module(_bi(False, scale_bug=True), "m", causal=False))
    assert {p.name: p.status for p in bug.properties}["permutation-equivariance"] == "fails"


class PackedAttention(BiAttention):
    segments = None  # (B, T): attention stays inside a segment

    def scores(self, q, k):
        s = super().scores(q, k)
        if self.segments is None:
            return s
        same = self.segments[:, None, :, None] == self.segments[:, None, None, :]
        return s.masked_fill(~same, float("-inf"))


class PackedBiGPT(BiGPT):
    """As transformers ≥ 5.25's masks read them: position ids that are not consecutive, given without an
    attention mask, are packed sequences (masking_utils.find_packed_sequence_indices); a mask of ones says
    there is one sequence."""

    def forward(self, input_ids, position_ids=None, attention_mask=None):
        segments = None
        if position_ids is not None and attention_mask is None:
            step = torch.diff(position_ids, prepend=position_ids[:, :1] - 1, dim=-1)
            segments = (step != 1).cumsum(-1)
        for block in self.transformer.h:
            block["attn"].segments = segments
        return super().forward(input_ids, position_ids)


def test_permuted_positions_are_not_read_as_packed_sequences_and_a_bug_still_fails():
    # transformers 5.25's BERT failed permutation-equivariance by 0.02: its permuted position ids, without a
    # mask, became packed sequences; the check now passes a full attention_mask with them
    def make(scale_bug=False):
        model = PackedBiGPT(attention=PackedAttention)
        if scale_bug:  # planted: a score that depends on the key's index, not its content
            for block in model.transformer.h:
                block["attn"].scores = lambda q, k: q @ k.transpose(-2, -1) + torch.arange(k.size(-2))
        return model

    ok = check_model("m", loaded=from_module(make, "m", causal=False))
    assert {p.name: p.status for p in ok.properties}["permutation-equivariance"] == "holds"
    bug = check_model("m", loaded=from_module(lambda: make(True), "m", causal=False))
    assert {p.name: p.status for p in bug.properties}["permutation-equivariance"] == "fails"
