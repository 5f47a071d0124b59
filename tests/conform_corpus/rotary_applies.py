"""Rotary apply functions in the call conventions conform detects from parameter names (issue 30),
our own short rewrites, each citing its source, with planted bugs.

* GPT-J: ``apply_rotary_pos_emb(tensor, sin, cos)`` — sin *before* cos, tables d/2 wide expanded by
  ``repeat_interleave`` inside, interleaved pairs (``rotate_every_two``); after huggingface/transformers
  v5.24.0, src/transformers/models/gptj/modeling_gptj.py.
* litgpt: ``apply_rope(x, cos, sin)`` — one tensor, cos/sin (1, L, d), half-split pairs; after
  Lightning-AI/litgpt, litgpt/model.py @ 26857050fe3ff627cd714fe92f5838f51a3d5efa.
* gpt-fast: ``apply_rotary_emb(x, freqs_cis)`` with a *real* freqs_cis (L, d/2, 2) (cos, sin stacked),
  x (B, L, H, d); after pytorch-labs/gpt-fast, model.py @ 32971d3129541c5bfb4f715abc33d1c5f408d204.
* Megatron: ``_apply_rotary_pos_emb_bshd(t, freqs)`` with the angle table pos·θ (L, 1, 1, d), half-split;
  after NVIDIA/Megatron-LM, megatron/core/models/common/embeddings/rope_utils.py
  @ d98e8a64ddf34856e74b24714e3bedb2f5a39553.
* litgpt: ``apply_rope_interleave(x, cos, sin)`` — de-interleaves x ([x_0, x_2, …, x_1, x_3, …]), rotates
  half-split and returns the result in that basis, as transformers' DeepSeek-V3
  ``apply_rotary_pos_emb_interleave``; q and k alike, so every score q·k is RoPE's. A false alarm
  (``matches-derived``) until issue 30: conform now finds the de-interleaved output basis and says so.
  After Lightning-AI/litgpt, litgpt/model.py @ 26857050fe3ff627cd714fe92f5838f51a3d5efa.
* torchtune: ``RotaryPositionalEmbeddings(dim, max_seq_len=4096, base=10000)``, a module class that
  builds its own (max_seq_len, d/2, 2) cache and rotates x (b, s, n_h, h_d) in ``forward(x, *,
  input_pos=None)``; after pytorch/torchtune, torchtune/modules/position_embeddings.py
  @ bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1. Refused until issue 30 (called as fn(x, positions)).
* OpenNMT-py: ``apply_rotary_emb(query, key, rope, interleave)`` with a complex table cat(cis, cis)
  (L, d): no name says which role ``rope`` plays, so it runs with
  ``--init interleave=false --args query=x,key=k,rope=freqs_cis``; after OpenNMT/OpenNMT-py,
  onmt/modules/multi_headed_attn.py @ 97111d97551c24857076a4102eabdb468b35cff4.
"""

import torch
import torch.nn as nn


def _every_two(x):
    return torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).flatten(-2)


def _half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def gptj_apply(tensor, sin, cos):
    sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3)
    cos = torch.repeat_interleave(cos[:, :, None, :], 2, 3)
    return (tensor * cos) + (_every_two(tensor) * sin)


def gptj_apply_sin_for_cos(tensor, sin, cos):
    """Planted bug: the tables used the wrong way round (cos where sin belongs)."""
    return gptj_apply(tensor, cos, sin)


def litgpt_apply_rope(x, cos, sin):
    if cos.dim() != 3:
        raise ValueError(f"cos must be three-dimensional, but shape is {cos.shape}")
    dims = x.dim() - cos.dim()
    if dims > 0:
        shape = cos.shape[0:1] + (1,) * dims + cos.shape[1:]
        cos, sin = cos.view(*shape), sin.view(*shape)
    return (x * cos + _half(x) * sin).to(dtype=x.dtype)


def litgpt_apply_rope_halves_swapped(x, cos, sin):
    """Planted bug: rotate_half as cat(x2, −x1) (the rotation the wrong way)."""
    return litgpt_apply_rope(x, cos, -sin)


def litgpt_apply_rope_interleave(x, cos, sin):
    *batch, d = x.shape
    x = x.view(*batch, d // 2, 2).transpose(-1, -2).reshape(*batch, d)
    return litgpt_apply_rope(x, cos, sin)


def litgpt_apply_rope_interleave_odd_first(x, cos, sin):
    """Planted bug: the odd features taken as the first half (a rotation by −θ in the same basis)."""
    *batch, d = x.shape
    x = x.view(*batch, d // 2, 2).flip(-1).transpose(-1, -2).reshape(*batch, d)
    return litgpt_apply_rope(x, cos, sin)


def gptfast_apply_rotary_emb(x, freqs_cis):
    xs = x.float().reshape(*x.shape[:-1], -1, 2)
    f = freqs_cis.view(1, xs.size(1), 1, xs.size(3), 2)
    out = torch.stack([xs[..., 0] * f[..., 0] - xs[..., 1] * f[..., 1],
                       xs[..., 1] * f[..., 0] + xs[..., 0] * f[..., 1]], -1)
    return out.flatten(3).type_as(x)


def gptfast_apply_one_sign(x, freqs_cis):
    """Planted bug: + for − in the first component (not a rotation)."""
    xs = x.float().reshape(*x.shape[:-1], -1, 2)
    f = freqs_cis.view(1, xs.size(1), 1, xs.size(3), 2)
    out = torch.stack([xs[..., 0] * f[..., 0] + xs[..., 1] * f[..., 1],
                       xs[..., 1] * f[..., 0] + xs[..., 0] * f[..., 1]], -1)
    return out.flatten(3).type_as(x)


def megatron_apply_bshd(t, freqs, rotary_interleaved=False):
    rot_dim = freqs.shape[-1]
    t, t_pass = t[..., :rot_dim], t[..., rot_dim:]
    t = t * torch.cos(freqs) + _half(t) * torch.sin(freqs)
    return torch.cat((t, t_pass), dim=-1)


def megatron_apply_half_angles(t, freqs, rotary_interleaved=False):
    """Planted bug: the angles halved (a θ base of 10000 read as positions/2)."""
    return megatron_apply_bshd(t, freqs / 2)


class TorchtuneRope(nn.Module):
    def __init__(self, dim, max_seq_len=4096, base=10_000):
        super().__init__()
        theta = 1.0 / (base ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
        idx = torch.outer(torch.arange(max_seq_len, dtype=theta.dtype), theta).float()
        self.register_buffer("cache", torch.stack([idx.cos(), idx.sin()], dim=-1), persistent=False)

    def forward(self, x, *, input_pos=None):
        s = x.size(1)
        cache = self.cache[:s] if input_pos is None else self.cache[input_pos]
        xs = x.float().reshape(*x.shape[:-1], -1, 2)
        cache = cache.view(-1, xs.size(1), 1, xs.size(3), 2)
        out = torch.stack([xs[..., 0] * cache[..., 0] - xs[..., 1] * cache[..., 1],
                           xs[..., 1] * cache[..., 0] + xs[..., 0] * cache[..., 1]], -1)
        return out.flatten(3).type_as(x)


class TorchtuneRopeIgnoresPositions(TorchtuneRope):
    """Planted bug: input_pos ignored (positions 0…s−1 always, as a packed sample's would be wrong)."""

    def forward(self, x, *, input_pos=None):
        return super().forward(x)


def onmt_apply_rotary_emb(query, key, rope, interleave):
    if interleave:
        raise NotImplementedError("the rewrite keeps the non-interleaved path")
    cos, sin = rope.real, rope.imag
    return query * cos + _half(query) * sin, key * cos + _half(key) * sin


CASES = [
    ("gptj_apply", "rotary", [], None),
    ("gptj_apply_sin_for_cos", "rotary", [], "matches-derived"),
    ("litgpt_apply_rope", "rotary", [], None),
    ("litgpt_apply_rope_halves_swapped", "rotary", [], "matches-derived"),
    ("litgpt_apply_rope_interleave", "rotary", [], None),
    ("litgpt_apply_rope_interleave_odd_first", "rotary", [], "matches-derived"),
    ("gptfast_apply_rotary_emb", "rotary", [], None),
    ("gptfast_apply_one_sign", "rotary", [], "matches-derived"),
    ("megatron_apply_bshd", "rotary", [], None),
    ("megatron_apply_half_angles", "rotary", [], "matches-derived"),
    ("TorchtuneRope", "rotary", [], None),
    ("TorchtuneRopeIgnoresPositions", "rotary", [], "matches-derived"),
    ("onmt_apply_rotary_emb", "rotary", ["--init", "interleave=false", "--args", "query=x,key=k,rope=freqs_cis"], None),
]
