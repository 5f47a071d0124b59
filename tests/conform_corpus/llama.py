"""meta-llama's RMSNorm and complex rotary embedding (``freqs_cis``), rewritten short after
meta-llama/llama, llama/model.py (commit 8580eb9a896bdb82d376b7040d18a2e7b402b10f), with planted bugs.

RMSNorm computes in float32 whatever the input dtype (``self._norm(x.float()).type_as(x)``); the
rotary tables are complex64 (``torch.polar`` of float32 angles): conform measures both as float32.
The attention's core takes (B, L, H, D) tensors and repeats KV heads in place (``repeat_kv``).
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


def repeat_kv(x, n_rep: int):
    """(bs, slen, n_kv_heads, head_dim) -> (bs, slen, n_kv_heads·n_rep, head_dim), each KV head repeated
    n_rep times in place (torch.repeat_interleave(x, dim=2, repeats=n_rep))."""
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim).reshape(bs, slen, n_kv_heads * n_rep,
                                                                                    head_dim)


def _gqa(xq, keys, values, is_causal=False, repeat=repeat_kv):
    """Attention.forward's core on (B, L, H, D) tensors (``--layout blhd``), softmax in float32."""
    n_rep = xq.shape[2] // keys.shape[2]
    keys, values = repeat(keys, n_rep), repeat(values, n_rep)
    xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
    scores = torch.matmul(xq, keys.transpose(2, 3)) / xq.shape[-1] ** 0.5
    if is_causal:
        L = scores.shape[-1]
        scores = scores + torch.triu(torch.full((L, L), float("-inf")), diagonal=1)
    scores = torch.softmax(scores.float(), dim=-1).type_as(xq)
    return torch.matmul(scores, values).transpose(1, 2)


def gqa(xq, keys, values, is_causal=False):
    return _gqa(xq, keys, values, is_causal)


def gqa_tiled_repeat(xq, keys, values, is_causal=False):
    """Planted bug: KV heads tiled (``x.repeat(1, 1, n_rep, 1)``) where the query heads expect them in place."""
    return _gqa(xq, keys, values, is_causal, repeat=lambda x, r: x.repeat(1, 1, r, 1))


CASES = [
    ("RMSNorm", "rmsnorm", [], None),
    ("RMSNormSum", "rmsnorm", [], "matches-derived"),
    ("RMSNormEpsIgnored", "rmsnorm", [], "matches-derived"),
    ("rotary", "rotary", [], None),
    ("rotary_theta_1000", "rotary", [], "matches-derived"),
    ("gqa", "gqa", ["--layout", "blhd", "--causal"], None),
    ("gqa_tiled_repeat", "gqa", ["--layout", "blhd", "--causal"], "matches-derived"),
]
