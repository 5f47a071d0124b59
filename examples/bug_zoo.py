"""A bug zoo for ``mathcheck conform``: each member is a mistake people really ship, and each must
fail with the property that names it. ``ZOO`` maps a member to (kind, flags, the failing property).

    mathcheck conform examples/bug_zoo.py:mask_filled_with_zero --kind attention
    mathcheck conform examples/bug_zoo.py:make_view_merge --kind mha
"""

import math

import torch
import torch.nn as nn


def _attention(
    q, k, v, attn_mask=None, is_causal=False, *, scale=None, fill=float("-inf"), dim=-1, flip=False, shift=True
):
    scores = q @ k.transpose(-2, -1) * (scale if scale is not None else 1 / math.sqrt(q.size(-1)))
    L, S = scores.shape[-2:]
    if is_causal:
        hidden = torch.ones(L, S, dtype=torch.bool).tril(-1) if flip else torch.ones(L, S, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(hidden, fill)
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, fill) if attn_mask.dtype == torch.bool else scores + attn_mask
    if shift:
        scores = scores - scores.amax(dim, keepdim=True)
    w = scores.exp()
    return (w / w.sum(dim, keepdim=True)) @ v


def mask_filled_with_zero(query, key, value, attn_mask=None, is_causal=False):
    """masked_fill(~mask, 0): a masked key keeps e⁰ = 1 of weight."""
    return _attention(query, key, value, attn_mask, is_causal, fill=0.0)


def scale_by_d(query, key, value, attn_mask=None, is_causal=False):
    """scores / d instead of / √d."""
    return _attention(query, key, value, attn_mask, is_causal, scale=1 / query.size(-1))


def softmax_over_queries(query, key, value, attn_mask=None, is_causal=False):
    """softmax(dim=-2): each key's weights over the queries sum to 1, not each query's over the keys."""
    return _attention(query, key, value, attn_mask, is_causal, dim=-2)


def causal_triangle_flipped(query, key, value, attn_mask=None, is_causal=False):
    """tril instead of triu: the query sees the future and not the past."""
    return _attention(query, key, value, attn_mask, is_causal, flip=True)


def causal_flag_ignored(query, key, value, attn_mask=None, is_causal=False):
    """is_causal is accepted and ignored: declared causal, still permutation-equivariant."""
    return _attention(query, key, value, attn_mask, False)


def drop_keys_after_16(query, key, value, attn_mask=None, is_causal=False):
    """A fixed key budget: attends to the first 16 keys only (a cache or block loop that stops early);
    right at every L ≤ 16."""
    key, value = key[..., :16, :], value[..., :16, :]
    if attn_mask is not None:
        attn_mask = attn_mask[..., :16]
    return _attention(query, key, value, attn_mask, is_causal)


class DropKeysAttention(nn.Module):
    """Self-attention whose keys and values are the first 16 tokens only (a fixed key budget)."""

    def __init__(self, D, H):
        super().__init__()
        self.mha = nn.MultiheadAttention(D, H, batch_first=True)

    def forward(self, x):
        kv = x[:, :16]
        return self.mha(x, kv, kv)[0]


def make_drop_keys_after_16(D, H):
    return DropKeysAttention(D, H)


def softmax_without_shift(x, dim):
    """exp(x)/Σ exp(x) without subtracting the maximum: exp(1e4) = inf."""
    e = x.exp()
    return e / e.sum(dim, keepdim=True)


def kl_swapped(log_q, p):
    """KL(q‖p) where KL(p‖q) was meant (F.kl_div(log_q, p) is KL(p‖q))."""
    q = log_q.exp()
    return (q * (log_q - p.log())).sum(-1).mean()


class UnbiasedLayerNorm(nn.Module):
    """Divides by the unbiased standard deviation (torch.var's default, n − 1)."""

    def __init__(self, D, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        mu = x.mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(x.var(-1, keepdim=True) + self.eps)  # unbiased=True by default


def make_unbiased_layernorm(D, eps):
    return UnbiasedLayerNorm(D, eps)


class ViewMergeAttention(nn.Module):
    """Multi-head self-attention whose merge is `.view(B, L, D)` on (B, H, L, D_head) with no transpose."""

    def __init__(self, D, H):
        super().__init__()
        self.H = H
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, D)

    def forward(self, x):
        B, L, D = x.shape
        q, k, v = (t.view(B, L, self.H, D // self.H).transpose(1, 2) for t in self.qkv(x).split(D, -1))
        y = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D // self.H), -1) @ v  # (B, H, L, D_head)
        return self.out(y.contiguous().view(B, L, D))  # the bug: transpose(1, 2) missing


def make_view_merge(D, H):
    return ViewMergeAttention(D, H)


class CentredRMSNorm(nn.Module):
    """An "RMSNorm" that subtracts the mean first (that is LayerNorm without the bias)."""

    def __init__(self, D, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        x = x - x.mean(-1, keepdim=True)
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + self.eps)


def make_centred_rmsnorm(D, eps):
    return CentredRMSNorm(D, eps)


def cross_entropy_sum(logits, target):
    """Sums over the batch where F.cross_entropy averages."""
    return -torch.log_softmax(logits, -1).gather(-1, target[:, None]).sum()


def gqa_tiled(query, key, value, is_causal=False):
    """K, V heads repeated with `repeat` (tiled: head h reads group h mod G) instead of
    `repeat_interleave` (head h reads group h // (H/G))."""
    r = query.size(1) // key.size(1)
    key, value = key.repeat(1, r, 1, 1), value.repeat(1, r, 1, 1)
    return torch.nn.functional.scaled_dot_product_attention(query, key, value, is_causal=is_causal)


def online_softmax_no_rescale(score_blocks, value_blocks):
    """FlashAttention's loop that rescales the running sum but forgets to rescale the output."""
    m = torch.full(score_blocks[0].shape[:-1] + (1,), float("-inf"), dtype=score_blocks[0].dtype)
    total = torch.zeros_like(m)
    o = torch.zeros(score_blocks[0].shape[:-1] + value_blocks[0].shape[-1:], dtype=score_blocks[0].dtype)
    for s, v in zip(score_blocks, value_blocks):
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = (s - m_new).exp()
        total = total * (m - m_new).exp() + p.sum(-1, keepdim=True)
        o = o + p @ v  # the bug: o * exp(m − m_new) + p @ v
        m = m_new
    return o / total


ZOO = {
    "mask_filled_with_zero": ("attention", (), "masked-keys-zero-weight"),
    "scale_by_d": ("attention", (), "scale"),
    "softmax_over_queries": ("attention", (), "weights-on-simplex"),
    "causal_triangle_flipped": ("attention", ("--causal",), "causal-future-zero-weight"),
    "causal_flag_ignored": ("attention", ("--causal",), "permutation-equivariance"),
    "drop_keys_after_16": ("attention", (), "long-sequence"),
    "make_drop_keys_after_16": ("mha", (), "long-sequence"),
    "make_view_merge": ("mha", (), "split-merge"),
    "make_unbiased_layernorm": ("layernorm", (), "variance"),
    "kl_swapped": ("kl", (), "direction"),
    "softmax_without_shift": ("softmax", (), "finite-large-logits"),
    "make_centred_rmsnorm": ("rmsnorm", (), "not-mean-centred"),
    "cross_entropy_sum": ("cross-entropy", (), "matches-derived"),
    "gqa_tiled": ("gqa", (), "matches-derived"),
    "online_softmax_no_rescale": ("online-softmax", (), "matches-derived"),
}
