"""A correct hand-written causal attention in the style of a small GPT (nanoGPT's CausalSelfAttention),
for ``mathcheck conform``:

    mathcheck conform examples/gpt_attention.py:attention --kind attention --causal
    mathcheck conform examples/gpt_attention.py:make_block --kind mha --causal

``attention`` has the signature and mask conventions of ``F.scaled_dot_product_attention``;
``CausalSelfAttention`` is the module a GPT block calls, with one fused QKV projection.
"""

import math

import torch
import torch.nn as nn


def attention(query, key, value, attn_mask=None, is_causal=False):
    """softmax(QKᵀ/√D_head + mask)·V on (B, H, L, D_head); a bool mask is True = keep."""
    d_head = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_head)  # (B, H, L, L)
    L, S = scores.shape[-2:]
    if is_causal:
        future = torch.ones(L, S, dtype=torch.bool, device=scores.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))  # −∞: exactly zero weight
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    scores = scores - scores.amax(-1, keepdim=True).nan_to_num(neginf=0.0)  # the safe-softmax shift
    weights = scores.exp()
    total = weights.sum(-1, keepdim=True)
    weights = torch.where(total > 0, weights / total, torch.zeros_like(weights))  # fully masked row → 0
    return weights @ value


class CausalSelfAttention(nn.Module):
    def __init__(self, D, H):
        super().__init__()
        assert D % H == 0
        self.n_head = H
        self.c_attn = nn.Linear(D, 3 * D)  # Q, K, V in one projection
        self.c_proj = nn.Linear(D, D)

    def forward(self, x):
        B, L, D = x.size()
        q, k, v = self.c_attn(x).split(D, dim=2)
        # (B, L, D) → (B, L, H, D_head) → (B, H, L, D_head)
        q, k, v = (t.view(B, L, self.n_head, D // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, L, D)  # merge: transpose back first, then view
        return self.c_proj(y)


def make_block(D, H):
    return CausalSelfAttention(D, H)
