"""§9 Beyond the article: what its claims share (a private module: it registers no claim).

The article closes (§8.2) by sending its reader to the papers: "每读一篇新论文，先用路线图里的数学地图
定位它……". The §9 claims are the next stops on that map — FlashAttention's online softmax, the KV
cache, grouped-query attention, RMSNorm, linear attention, ALiBi, label smoothing, perplexity, the
log-sum-exp shift and the causal mask — split by topic: :mod:`~mathcheck.derivations.attention_variants`,
:mod:`~mathcheck.derivations.normalisation`, :mod:`~mathcheck.derivations.losses`. Each quotes the seed's
pointer to this branch (``ZH``, ``EN``) and cites its paper, is derived for symbolic sizes (n keys, a
block split point b, d, G groups of r heads), and is checked against PyTorch's own implementation.
"""

from __future__ import annotations

from mathcheck.lazy import sympy as sp

# The seed's own pointer to this branch (§8.2): every §9 claim quotes it and cites its paper.
ZH = (
    "之后的三到四周：沿着论文里的 Transformer 变体逐步展开。每读一篇新论文，先用路线图里的数学地图定位它是"
    "对应线性代数改了、概率部分改了、还是位置编码的组合结构改了。"
)
EN = (
    "(§8.2, what comes next) In the following three to four weeks, work through the Transformer "
    "variants in the papers; for each new paper, first use the map to locate whether it changed the "
    "linear algebra, the probability part, or the combinatorial structure of the positions."
)


def attention_row(s, v, k, lo, hi):
    """One query's attention output over keys lo..hi (one value column): Σ e^{s_k} v_k / Σ e^{s_k}."""
    return sp.Sum(sp.exp(s[k]) * v[k], (k, lo, hi)) / sp.Sum(sp.exp(s[k]), (k, lo, hi))


def _scores():
    s, v = sp.IndexedBase("s", real=True), sp.IndexedBase("v", real=True)
    k, t, u = sp.symbols("k t u", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    return s, v, k, t, u, n
