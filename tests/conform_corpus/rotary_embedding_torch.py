"""rotary-embedding-torch's RotaryEmbedding (language-model frequencies, interleaved pairs), rewritten
short after lucidrains/rotary-embedding-torch, rotary_embedding_torch/rotary_embedding_torch.py
(commit 4b2b86d8a49ba8627b2ac349fad1c8d3c7661a83), with planted bugs.

Frequencies are repeated per pair ('... n -> ... (n r)', r = 2) and ``rotate_half`` rotates
interleaved pairs (x_{2i}, x_{2i+1}) -> (−x_{2i+1}, x_{2i}), RoFormer's layout.
"""

import torch


def rotate_half(x):
    x = x.reshape(*x.shape[:-1], -1, 2)
    x1, x2 = x.unbind(dim=-1)
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def _freqs(dim, positions, theta=10000.0):
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].to(positions.dtype) / dim))
    freqs = torch.einsum("n,f->nf", positions, inv)
    return freqs.repeat_interleave(2, dim=-1)  # '... n -> ... (n r)', r = 2


def rotate_queries_or_keys(t, positions):
    freqs = _freqs(t.shape[-1], positions)
    return t * freqs.cos() + rotate_half(t) * freqs.sin()


def rotate_sign_flipped(t, positions):
    """Planted bug: rotate_half without the minus sign (a reflection, not a rotation)."""
    freqs = _freqs(t.shape[-1], positions)
    x = t.reshape(*t.shape[:-1], -1, 2)
    flipped = torch.stack((x[..., 1], x[..., 0]), dim=-1).flatten(-2)
    return t * freqs.cos() + flipped * freqs.sin()


CASES = [
    ("rotate_queries_or_keys", "rotary", [], None),
    ("rotate_sign_flipped", "rotary", [], "matches-derived"),
]
