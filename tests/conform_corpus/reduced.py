"""Attention computed in bfloat16 or float16 as real code runs it (the inputs cast down, the
matmuls and softmax in the low dtype, the output cast back: the pattern of gpt-fast's and
transformers' eager attention under autocast-free half precision), our own rewrite, with planted
bugs for conform's input-dtypes property (docs/conform.md, "No bug hides under a tolerance").
"""

import math

import torch

_BUFFER = {}


def _mask(s, attn_mask, is_causal):
    """attn_mask (bool True = keep, or additive) and the causal mask, as -inf scores."""
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        s = s.masked_fill(~attn_mask, float("-inf"))
    elif attn_mask is not None:
        s = s + attn_mask.to(s.dtype)
    if is_causal:
        L, S = s.shape[-2:]
        s = s.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    return s


def _attend(q, k, v, is_causal, scale, dtype, attn_mask=None):
    out_dtype = q.dtype
    q, k, v = (t.to(dtype) for t in (q, k, v))
    s = _mask((q @ k.transpose(-2, -1)) * scale, attn_mask, is_causal)
    return (s.softmax(-1) @ v).to(out_dtype)


def bf16_attention(query, key, value, attn_mask=None, is_causal=False):
    """Correct: computes in bfloat16."""
    return _attend(query, key, value, is_causal, 1 / math.sqrt(query.shape[-1]), torch.bfloat16, attn_mask)


def fp16_attention(query, key, value, attn_mask=None, is_causal=False):
    """Correct: computes in float16."""
    return _attend(query, key, value, is_causal, 1 / math.sqrt(query.shape[-1]), torch.float16, attn_mask)


def bf16_scale_d_plus_1(query, key, value, attn_mask=None, is_causal=False):
    """Bug: 1/√(d+1) — in bfloat16, an error of the order of the correct build's rounding."""
    return _attend(query, key, value, is_causal, 1 / math.sqrt(query.shape[-1] + 1), torch.bfloat16, attn_mask)


def fp16_scale_d_plus_1(query, key, value, attn_mask=None, is_causal=False):
    """Bug: 1/√(d+1) in float16."""
    return _attend(query, key, value, is_causal, 1 / math.sqrt(query.shape[-1] + 1), torch.float16, attn_mask)


def fp16_path_bug(query, key, value, attn_mask=None, is_causal=False):
    """Bug only on the float16 input path (a hand-tuned scale for half inputs)."""
    d = query.shape[-1]
    scale = 1 / math.sqrt(d + 1) if query.dtype == torch.float16 else 1 / math.sqrt(d)
    return _attend(query, key, value, is_causal, scale, query.dtype, attn_mask)


def bf16_past_128_keys(query, key, value, attn_mask=None, is_causal=False):
    """Bug only past 128 keys (a block loop whose second block is scaled wrong), in bfloat16."""
    d = query.shape[-1]
    scale = torch.full((key.shape[-2],), 1 / math.sqrt(d), dtype=torch.float64)
    scale[128:] = 1 / math.sqrt(d + 1)
    out_dtype = query.dtype
    q, k, v = (t.to(torch.bfloat16) for t in (query, key, value))
    s = (q @ k.transpose(-2, -1)) * scale.to(torch.bfloat16)
    s = _mask(s, attn_mask, is_causal)
    return (s.softmax(-1) @ v).to(out_dtype)


def bf16_accumulate_low(query, key, value, attn_mask=None, is_causal=False):
    """Precision bug, invisible widened: the softmax denominator summed key by key in bfloat16
    (a running sum stagnates once it is 2⁸ times a term)."""
    out_dtype = query.dtype
    q, k, v = (t.to(torch.bfloat16) for t in (query, key, value))
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    s = _mask(s, attn_mask, is_causal)
    e = (s - s.amax(-1, keepdim=True)).exp()
    total = torch.zeros_like(e[..., :1])
    for j in range(e.shape[-1]):
        total = total + e[..., j:j + 1]
    return ((e / total) @ v).to(out_dtype)


def reused_buffer(query, key, value, attn_mask=None, is_causal=False):
    """Correct values, written into one output buffer per shape that every call reuses: a caller
    that keeps the result sees it overwritten by the next call."""
    out = _attend(query, key, value, is_causal, 1 / math.sqrt(query.shape[-1]), torch.float64, attn_mask)
    buf = _BUFFER.setdefault((out.shape, out.dtype), torch.empty_like(out))
    buf.copy_(out)
    return buf


CASES = [
    ("bf16_attention", "attention", ["--causal"], None),
    ("fp16_attention", "attention", ["--causal"], None),
    ("bf16_scale_d_plus_1", "attention", ["--causal"], "output"),
    ("fp16_scale_d_plus_1", "attention", ["--causal"], "output"),
    ("fp16_path_bug", "attention", ["--causal"], "input-dtypes"),
    ("bf16_past_128_keys", "attention", ["--causal"], "past-1024-keys"),
    ("bf16_accumulate_low", "attention", ["--causal"], "input-dtypes"),
    ("reused_buffer", "attention", ["--causal"], None),
]
