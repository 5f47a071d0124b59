"""GPT-2's attention core before HF's attention interface, rewritten short after
huggingface/transformers v4.30.0, src/transformers/models/gpt2/modeling_gpt2.py
(``GPT2Attention._attn``), with a planted bug.

``_attn(query, key, value, attention_mask=None, head_mask=None)`` takes no ``is_causal``: it is
always causal (a registered boolean ``bias`` triangle, masked with ``finfo(dtype).min``); the
padding mask is HF's additive one (``--mask finfo-min``).
"""

import torch

MAX_POSITIONS = 1024
BIAS = torch.tril(torch.ones((MAX_POSITIONS, MAX_POSITIONS), dtype=torch.bool)).view(1, 1, MAX_POSITIONS, MAX_POSITIONS)


def _attn(query, key, value, attention_mask=None, head_mask=None, flip=False):
    attn_weights = torch.matmul(query, key.transpose(-1, -2))
    attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
    query_length, key_length = query.size(-2), key.size(-2)
    causal_mask = BIAS[:, :, key_length - query_length: key_length, :key_length]
    if flip:
        causal_mask = causal_mask.transpose(-2, -1)
    mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
    attn_weights = torch.where(causal_mask, attn_weights, mask_value)
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask
    attn_weights = torch.nn.functional.softmax(attn_weights, dim=-1).type(value.dtype)
    if head_mask is not None:
        attn_weights = attn_weights * head_mask
    return torch.matmul(attn_weights, value), attn_weights


def attn(query, key, value, attention_mask=None, head_mask=None):
    return _attn(query, key, value, attention_mask, head_mask)


def attn_triangle_transposed(query, key, value, attention_mask=None, head_mask=None):
    """Planted bug: the causal triangle transposed (each query sees the future, not the past)."""
    return _attn(query, key, value, attention_mask, head_mask, flip=True)


CASES = [
    ("attn", "attention", ["--causal", "--mask", "finfo-min"], None),
    ("attn_triangle_transposed", "attention", ["--causal", "--mask", "finfo-min"], "causal-future-zero-weight"),
]
