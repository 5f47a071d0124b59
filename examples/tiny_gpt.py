"""A small GPT written the way people write one (after nanoGPT): learned token and position
embeddings, pre-norm blocks, a hand-written LayerNorm, manual causal attention with a KV cache.

    mathcheck model examples/tiny_gpt.py:factory

``forward(input_ids, past_key_values=None, use_cache=False)`` returns the logits (B, L, V), or,
with ``use_cache=True``, an object with ``.logits`` and ``.past_key_values`` (a ``Cache``: the length so far and one (K, V)
per block).
Its bug zoo, each a one-method change, is examples/tiny_gpt_zoo.py.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class LayerNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.eps = eps

    def forward(self, x):
        mu = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return (x - mu) / torch.sqrt(var + self.eps) * self.weight + self.bias


class CausalSelfAttention(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def keep(self, Lq, Lk):
        # the Lq queries are the last Lq of Lk tokens: query i is token i + Lk − Lq
        return torch.ones(Lq, Lk, dtype=torch.bool).tril(Lk - Lq)

    def weights(self, scores):
        Lq, Lk = scores.shape[-2:]
        scores = scores.masked_fill(~self.keep(Lq, Lk), float("-inf"))
        return F.softmax(scores, dim=-1)

    def extend(self, cache, k, v):
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        return k, v, (k, v)

    def forward(self, x, cache=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (t.view(B, L, self.n_head, D // self.n_head).transpose(1, 2) for t in (q, k, v))
        k, v, new_cache = self.extend(cache, k, v)
        att = self.weights(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)))
        y = (att @ v).transpose(1, 2).reshape(B, L, D)
        return self.proj(y), new_cache


class Block(nn.Module):
    def __init__(self, d, n_head, norm=LayerNorm, attention=CausalSelfAttention):
        super().__init__()
        self.ln_1, self.attn = norm(d), attention(d, n_head)
        self.ln_2 = norm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, cache=None):
        a, cache = self.attn(self.ln_1(x), cache)
        x = x + a
        return x + self.mlp(self.ln_2(x)), cache


@dataclass
class Cache:
    length: int  # tokens seen so far: where the next positions start
    layers: list  # one (K, V) per block, (B, H, length, D_head)


@dataclass
class Output:
    logits: torch.Tensor
    past_key_values: Cache


class GPT(nn.Module):
    def __init__(self, vocab=64, d=32, n_head=4, n_layer=2, max_len=32, norm=LayerNorm, attention=CausalSelfAttention):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(Block(d, n_head, norm, attention) for _ in range(n_layer))
        self.ln_f = norm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids, past_key_values=None, use_cache=False):
        past = past_key_values or Cache(0, [None] * len(self.blocks))
        start = past.length
        pos = torch.arange(start, start + input_ids.shape[1])
        x = self.wte(input_ids) + self.wpe(pos)
        caches = []
        for block, cache in zip(self.blocks, past.layers):
            x, cache = block(x, cache)
            caches.append(cache)
        logits = self.lm_head(self.ln_f(x))
        return Output(logits, Cache(start + input_ids.shape[1], caches)) if use_cache else logits


def factory():
    return GPT()
