"""flash-attention's test reference ``attention_ref``, rewritten short after Dao-AILab/flash-attention,
tests/test_flash_attn.py (commit 765fbd928364e298a38a5e4b5c540d30daa1aecb), with planted bugs.

Tensors are (B, L, H, D) (``--layout blhd``); it upcasts to float32 and casts back (conform measures
float32); the mask is an additive bias (``--mask additive``); causality is a band mask built from
the row and column indices.
"""

import math

import torch


def attention_ref(q, k, v, attn_bias=None, causal=False, upcast=True, window=None):
    dtype_og = q.dtype
    if upcast:
        q, k, v = q.float(), k.float(), v.float()
    d = q.shape[-1]
    scores = torch.einsum("bthd,bshd->bhts", q / math.sqrt(d), k)
    if attn_bias is not None:
        scores = scores + attn_bias.to(scores.dtype)
    if causal:
        row = torch.arange(scores.shape[-2])[:, None]
        col = torch.arange(scores.shape[-1])[None, :]
        hidden = col > row if window is None else (col > row) | (col <= row - window)
        scores = scores.masked_fill(hidden, float("-inf"))
    attention = torch.softmax(scores, dim=-1).to(v.dtype)
    output = torch.einsum("bhts,bshd->bthd", attention, v)
    return output.to(dtype=dtype_og), attention.to(dtype=dtype_og)


def attention(query, key, value, attn_mask=None, is_causal=False):
    """conform's convention on top of ``attention_ref`` (layout and mask declared on the command line)."""
    return attention_ref(query, key, value, attn_bias=attn_mask, causal=is_causal)[0]


def attention_einsum_transposed(query, key, value, attn_mask=None, is_causal=False):
    """Planted bug: the output einsum reads V with the query's position ('bhts,bthd'): each output
    position weights the values by its own row — wrong as soon as L > 1."""
    q, k, v = query.float(), key.float(), value.float()
    scores = torch.einsum("bthd,bshd->bhts", q / math.sqrt(q.shape[-1]), k)
    if attn_mask is not None:
        scores = scores + attn_mask
    if is_causal:
        L = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
    a = torch.softmax(scores, dim=-1)
    return torch.einsum("bhts,bshd->bthd", a.transpose(-2, -1), v).to(query.dtype)


CASES = [
    ("attention", "attention", ["--layout", "blhd", "--mask", "additive"], None),
    ("attention", "attention", ["--layout", "blhd", "--mask", "additive", "--causal"], None),
    ("attention_einsum_transposed", "attention", ["--layout", "blhd", "--mask", "additive"], "output"),
]
