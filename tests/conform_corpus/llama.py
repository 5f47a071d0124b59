"""meta-llama's RMSNorm and complex rotary embedding (``freqs_cis``), rewritten short after
meta-llama/llama, llama/model.py (commit 8580eb9a896bdb82d376b7040d18a2e7b402b10f), with planted bugs.

RMSNorm computes in float32 whatever the input dtype (``self._norm(x.float()).type_as(x)``); the
rotary tables are complex64 (``torch.polar`` of float32 angles): conform measures both as float32.
"""

import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


class RMSNormSum(RMSNorm):
    """Planted bug: the sum of squares instead of their mean."""

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + self.eps)


class RMSNormEpsIgnored(RMSNorm):
    """Planted bug: holds eps but adds a hard-coded 1e-6."""

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def apply_rotary_emb(x, freqs_cis):
    """RoPE on interleaved pairs (x_{2i}, x_{2i+1}) as complex numbers."""
    x_ = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(x_ * freqs_cis).flatten(-2).type_as(x)


def rotary(x, positions):
    """conform's rotary convention fn(x (…, L, d), positions (L,)): the table at those positions."""
    end = int(positions.max()) + 1
    freqs = precompute_freqs_cis(x.shape[-1], end)[positions.long()]
    return apply_rotary_emb(x, freqs)


def rotary_theta_1000(x, positions):
    """Planted bug: base 1000 instead of 10000."""
    end = int(positions.max()) + 1
    freqs = precompute_freqs_cis(x.shape[-1], end, theta=1000.0)[positions.long()]
    return apply_rotary_emb(x, freqs)


CASES = [
    ("RMSNorm", "rmsnorm", [], None),
    ("RMSNormSum", "rmsnorm", [], "matches-derived"),
    ("RMSNormEpsIgnored", "rmsnorm", [], "matches-derived"),
    ("rotary", "rotary", [], None),
    ("rotary_theta_1000", "rotary", [], "matches-derived"),
]
