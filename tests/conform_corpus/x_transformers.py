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


class LayerNorm(nn.Module):
    """x-transformers' bias-less LayerNorm (commit 9252ed7838021ee61e6c5be0930b3a9a88efdf06): its
    second parameter is ``unit_offset``, not an eps. Given eps second, 0.1 landed in ``unit_offset``
    and the gain became 0.9 + 0.1 (1 − 1.5e-8 in float32): a false alarm until conform built it
    ``make(D)`` (issue 30; norms.no_eps_parameter)."""

    def __init__(self, dim, unit_offset=False):
        super().__init__()
        self.unit_offset = unit_offset
        self.ln = nn.LayerNorm(dim, elementwise_affine=False)
        self.gamma = nn.Parameter(torch.ones(dim))
        nn.init.constant_(self.gamma, 1.0 - float(unit_offset))

    def forward(self, x):
        return self.ln(x) * (self.gamma + float(self.unit_offset))


class LayerNormGammaOffByUnit(LayerNorm):
    """Planted bug: the offset added twice (gain 2 at initialisation with unit_offset=True, and
    1 + 1 = 2 here with the default False read as 1)."""

    def forward(self, x):
        return self.ln(x) * (self.gamma + 1.0)


class SimpleRMSNorm(nn.Module):
    """x-transformers' SimpleRMSNorm(dim, **kwargs) (commit 9252ed7): one size parameter, no eps —
    refused as ``(D, eps)`` until issue 30; built ``make(D)`` now."""

    def __init__(self, dim, **kwargs):
        super().__init__()
        self.scale = dim ** 0.5

    def forward(self, x):
        return F.normalize(x, dim=-1) * self.scale


class SimpleRMSNormNoRoot(SimpleRMSNorm):
    """Planted bug: scaled by dim for √dim."""

    def forward(self, x):
        return F.normalize(x, dim=-1) * self.scale ** 2


CASES = [
    ("LayerNorm", "layernorm", [], None),
    ("LayerNormGammaOffByUnit", "layernorm", [], "matches-derived"),
    ("SimpleRMSNorm", "rmsnorm", [], None),
    ("SimpleRMSNormNoRoot", "rmsnorm", [], "matches-derived"),
    ("make_rmsnorm", "rmsnorm", [], None),
    ("make_rmsnorm_scale_by_dim", "rmsnorm", [], "matches-derived"),
    ("gqa", "gqa", ["--gqa-grouping", "tiled"], None),
    ("gqa_repeat_interleave_keys_only", "gqa", ["--gqa-grouping", "tiled"], "matches-derived"),
]
