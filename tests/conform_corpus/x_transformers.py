"""x-transformers' RMSNorm and grouped-query attention with tiled K/V heads, rewritten short after
lucidrains/x-transformers, x_transformers/x_transformers.py (commit
b8a9add6bb5eb6099e0755869d0caeeda4b1eb31), with planted bugs.

Its RMSNorm takes no eps: ``F.normalize(x, dim=-1) * √dim * g`` (eps 0 measured from the outputs).
Its GQA repeats K/V heads by tiling (``repeat``: query head h reads K/V head h mod G,
``--gqa-grouping tiled``).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = dim ** 0.5
        self.g = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.normalize(x, dim=-1) * self.scale * self.g


def make_rmsnorm(D, eps):  # no eps argument in x-transformers
    return RMSNorm(D)


class RMSNormScaleByDim(RMSNorm):
    """Planted bug: scaled by dim instead of √dim."""

    def __init__(self, dim):
        super().__init__(dim)
        self.scale = float(dim)


def make_rmsnorm_scale_by_dim(D, eps):
    return RMSNormScaleByDim(D)


def gqa(query, key, value, is_causal=False):
    """K/V heads tiled to the query heads (``repeat``), then ordinary attention."""
    r = query.shape[1] // key.shape[1]
    key, value = key.repeat(1, r, 1, 1), value.repeat(1, r, 1, 1)
    return F.scaled_dot_product_attention(query, key, value, is_causal=is_causal)


def gqa_repeat_interleave_keys_only(query, key, value, is_causal=False):
    """Planted bug: keys interleaved, values tiled: query head h reads K of group h // R and V of
    group h mod G."""
    r = query.shape[1] // key.shape[1]
    key, value = key.repeat_interleave(r, dim=1), value.repeat(1, r, 1, 1)
    return F.scaled_dot_product_attention(query, key, value, is_causal=is_causal)


CASES = [
    ("make_rmsnorm", "rmsnorm", [], None),
    ("make_rmsnorm_scale_by_dim", "rmsnorm", [], "matches-derived"),
    ("gqa", "gqa", ["--gqa-grouping", "tiled"], None),
    ("gqa_repeat_interleave_keys_only", "gqa", ["--gqa-grouping", "tiled"], "matches-derived"),
]
