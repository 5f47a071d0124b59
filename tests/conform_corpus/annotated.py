"""The Annotated Transformer's attention and MultiHeadedAttention, rewritten short after
harvardnlp/annotated-transformer, the_annotated_transformer.py (commit
0a91a254735c07532e23733dce8a693e504f3a08), with planted bugs.

The module keeps ``self.attn`` (a tensor of the autograd graph) after a forward pass, so it cannot
be deep-copied once it has run; it applies dropout to the weights (off in eval mode). Its mask is
0/1 keep (``masked_fill(mask == 0, -1e9)``, a finite fill).
"""

import math

import torch
import torch.nn as nn


def attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def subsequent_mask(size):
    return torch.triu(torch.ones((1, size, size)), diagonal=1).type(torch.uint8) == 0


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1, causal=False):
        super().__init__()
        assert d_model % h == 0
        self.d_k, self.h = d_model // h, h
        self.linears = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(4)])
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)
        self.causal = causal

    def forward(self, x):  # self-attention: query = key = value = x
        nbatches, L = x.size(0), x.size(1)
        mask = subsequent_mask(L).unsqueeze(1) if self.causal else None
        query, key, value = [lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
                             for lin in self.linears[:3]]
        x, self.attn = attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        return self.linears[-1](x)


def make_mha(D, H):
    return MultiHeadedAttention(H, D)


def make_causal_mha(D, H):
    return MultiHeadedAttention(H, D, causal=True)


def sdpa(query, key, value, attn_mask=None, is_causal=False):
    """conform's attention convention on top of ``attention``: a boolean keep mask, is_causal."""
    L = query.shape[-2]
    mask = attn_mask
    if is_causal:
        mask = subsequent_mask(L).unsqueeze(1)
    elif mask is not None and mask.dtype != torch.bool:  # additive 0/−inf: keep where finite
        mask = mask == 0
    return attention(query, key, value, mask=mask)[0]


def sdpa_no_scale(query, key, value, attn_mask=None, is_causal=False):
    """Planted bug: the 1/√d_k scale forgotten."""
    return sdpa(query * math.sqrt(query.shape[-1]), key, value, attn_mask, is_causal)


CASES = [
    ("make_mha", "mha", [], None),
    ("make_causal_mha", "mha", ["--causal"], None),
    ("sdpa", "attention", [], None),
    ("sdpa_no_scale", "attention", [], "scale"),
]
