"""nanoGPT's LayerNorm and CausalSelfAttention, rewritten short after
karpathy/nanoGPT, model.py (commit 04a1d697ddc57aadb2edbe95816bf86c6b8918b0), with planted bugs.

The LayerNorm takes ``bias`` and hard-codes eps = 1e-5 in its forward (no eps attribute): conform
measures the eps from the outputs. The attention is the manual (non-flash) path: a fused c_attn,
a registered lower-triangular ``bias`` buffer, attention dropout (off in eval mode).
"""

import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias; eps fixed at 1e-5 as in nanoGPT."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


def make_layernorm(D, eps):  # nanoGPT's constructor takes no eps: conform measures it
    return LayerNorm(D, bias=True)


class LayerNormEpsOutside(LayerNorm):
    """Planted bug: (x − μ)/(σ + eps) instead of (x − μ)/√(σ² + eps)."""

    def forward(self, input):
        mu = input.mean(-1, keepdim=True)
        sd = input.var(-1, unbiased=False, keepdim=True).sqrt()
        return (input - mu) / (sd + 1e-5) * self.weight + self.bias


def make_layernorm_eps_outside(D, eps):
    return LayerNormEpsOutside(D, bias=True)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size=256, dropout=0.1, bias=True):
        super().__init__()
        assert n_embd % n_head == 0
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head, self.n_embd = n_head, n_embd
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


def make_attention(D, H):
    return CausalSelfAttention(D, H)


class MaskShiftedAttention(CausalSelfAttention):
    """Planted bug: the mask's triangle is one off (tril(…, 1)): token t sees token t + 1."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.bias = torch.tril(torch.ones_like(self.bias[0, 0]), 1).view_as(self.bias)


def make_attention_mask_shifted(D, H):
    return MaskShiftedAttention(D, H)


class MergeByViewAttention(CausalSelfAttention):
    """Planted bug: heads merged by ``view`` without the transpose back."""

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf")).softmax(-1)
        y = (att @ v).contiguous().view(B, T, C)
        return self.c_proj(y)


def make_attention_merge_by_view(D, H):
    return MergeByViewAttention(D, H)


# (target, kind, flags, the property a planted bug must fail or None for a correct one)
CASES = [
    ("make_layernorm", "layernorm", [], None),
    ("make_layernorm_eps_outside", "layernorm", [], "matches-derived"),
    ("make_attention", "mha", ["--causal"], None),
    ("make_attention_mask_shifted", "mha", ["--causal"], "causal-no-future"),
    ("make_attention_merge_by_view", "mha", ["--causal"], "split-merge"),
]


class ConfigCausalSelfAttention(CausalSelfAttention):
    """As nanoGPT constructs it: ``CausalSelfAttention(config)``, reading config.n_embd, n_head,
    block_size, dropout and bias (conform builds the config: conventions.config_factory)."""

    def __init__(self, config):
        super().__init__(config.n_embd, config.n_head, config.block_size, config.dropout, config.bias)
