"""The bug zoo of examples/tiny_gpt.py: each factory changes one method, as a real bug would.

mathcheck model examples/tiny_gpt_zoo.py:sees_next_token       # exit 1: blocks.0.attn mask-kind, causality
mathcheck model examples/tiny_gpt_zoo.py:softmax_over_queries  # exit 1: blocks.0.attn weights-on-simplex
mathcheck model examples/tiny_gpt_zoo.py:eps_outside_sqrt      # exit 1: blocks.0.ln_1 layernorm matches-derived
mathcheck model examples/tiny_gpt_zoo.py:cache_drops_last_key  # exit 1: kv-cache, first at blocks.0.attn
"""

import torch
import torch.nn.functional as F
from tiny_gpt import GPT, CausalSelfAttention, LayerNorm


class SeesNextToken(CausalSelfAttention):
    def keep(self, Lq, Lk):  # tril(+1): query i also sees token i + 1
        return torch.ones(Lq, Lk, dtype=torch.bool).tril(Lk - Lq + 1)


class SoftmaxOverQueries(CausalSelfAttention):
    def weights(self, scores):
        Lq, Lk = scores.shape[-2:]
        scores = scores.masked_fill(~self.keep(Lq, Lk), float("-inf"))
        return F.softmax(scores, dim=-2)  # normalises each key's column, not each query's row


class EpsOutsideSqrt(LayerNorm):
    def forward(self, x):
        mu = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return (x - mu) / (torch.sqrt(var) + self.eps) * self.weight + self.bias


class CacheDropsLastKey(CausalSelfAttention):
    def extend(self, cache, k, v):
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        return k, v, (k[:, :, :-1], v[:, :, :-1])  # the cache keeps all but the newest key and value


def sees_next_token():
    return GPT(attention=SeesNextToken)


def softmax_over_queries():
    return GPT(attention=SoftmaxOverQueries)


def eps_outside_sqrt():
    return GPT(norm=EpsOutsideSqrt)


def cache_drops_last_key():
    return GPT(attention=CacheDropsLastKey)
