"""§9 Beyond the article, the attention variants: online softmax (§9.1), the KV cache (§9.2),
grouped-query attention (§9.3), linear attention (§9.5), ALiBi (§9.6) and the causal mask (§9.10).

Each claim cites its paper (``Source.paper``) instead of a sentence of the seed, is derived for symbolic
sizes, and is checked against PyTorch's own implementation (:mod:`mathcheck.verify.attention_variants`). Hypotheses a
part needs are in its ``given``; the finite-sum laws it cites are rules.py's checked constructors.
"""

from __future__ import annotations

from mathcheck.symbolic import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.derivations._beyond import EN, ZH, attention_row, _scores
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim
from mathcheck.symbolic.rules import causal_mask, delta_outside, factor_in, factor_out, join_ranges


# --- §9.1 online softmax (FlashAttention) ----------------------------------------------------------------


@claim(
    id="online-softmax",
    title="Online softmax: merging two blocks' running (m, ℓ, o) with the e^{m_A−m}, e^{m_B−m} rescaling "
    "gives the state of their union, so any split of the keys ends at softmax(s)·v",
    section="§9.1",
    zh=ZH,
    en=EN,
    paper="Milakov & Gimelshein 2018, Online normalizer calculation for softmax; Dao et al. 2022, "
    "FlashAttention (NeurIPS), Algorithm 1",
    check="mathcheck.verify.attention_variants:online_softmax",
)
def online_softmax() -> Body:
    r"""Block states over keys a..b at a shift μ: :math:`\ell(a,b,\mu) = \sum_{k=a}^{b} e^{s_k-\mu}`,
    :math:`o(a,b,\mu) = \sum_{k=a}^{b} e^{s_k-\mu} v_k / \ell(a,b,\mu)`. For blocks 1..b and b+1..c,

    .. math::
        e^{m_A-m}\ell_A + e^{m_B-m}\ell_B = \ell(1,c,m),\qquad
        \frac{e^{m_A-m}\ell_A o_A + e^{m_B-m}\ell_B o_B}{e^{m_A-m}\ell_A + e^{m_B-m}\ell_B} = o(1,c,m),
        \qquad o(1,n,m) = \frac{\sum_k e^{s_k} v_k}{\sum_k e^{s_k}}

    for any shifts (FlashAttention takes the running maxima, so no e^x overflows). By induction over
    the blocks, any split of 1..n ends at softmax(s)·v. Example: s = (0, 1), v = (1, 3), blocks {1}, {2}:
    (e^{−1}·1·1 + 1·1·3)/(e^{−1} + 1) = (1 + 3e)/(1 + e) = softmax(s)·v.
    """
    s, v, k, _, _, n = _scores()
    b, c = sp.symbols("b c", integer=True, positive=True)
    m, mA, mB = sp.symbols("m m_A m_B", real=True)
    ell, o = sp.Function("ell"), sp.Function("o")

    def ell_def(a, z, w):
        return sp.Sum(sp.exp(s[k] - w), (k, a, z))

    def o_def(a, z, w):
        return sp.Sum(sp.exp(s[k] - w) * v[k], (k, a, z)) / ell(a, z, w)

    unfold_o = rules.Rule(
        "definition of o(a, b, μ) = Σ_{k=a}^{b} e^{s_k−μ} v_k / ℓ(a, b, μ)",
        "definition",
        lambda e: e.replace(
            lambda x: isinstance(x, sp.core.function.AppliedUndef) and x.func == o, lambda x: o_def(*x.args)
        ),
        both_sides=True,
    )
    unfold_ell = rules.unfold("definition of ℓ(a, b, μ) = Σ_{k=a}^{b} e^{s_k−μ}", "ell", ell_def)

    eA, eB = sp.exp(mA - m), sp.exp(mB - m)
    lA, lB = ell(1, b, mA), ell(b + 1, c, mB)
    oA, oB = o(1, b, mA), o(b + 1, c, mB)
    block = lambda f, a, z: sp.Sum(f, (k, a, z))  # noqa: E731
    # both blocks nonempty (o of an empty block is 0/0); unevaluated, or b's positivity would print 1 ≤ b as True
    given = (sp.Le(1, b, evaluate=False), sp.Lt(b, c))

    merge_sum = Part(
        "merge-sum",
        (
            Step(eA * lA + eB * lB, "FlashAttention's running sum after merging block b+1..c into block 1..b"),
            Step(
                eA * block(sp.exp(s[k] - mA), 1, b) + eB * block(sp.exp(s[k] - mB), b + 1, c),
                "definition of ℓ",
                unfold_ell,
            ),
            Step(
                block(sp.exp(s[k] - m), 1, b) + block(sp.exp(s[k] - m), b + 1, c),
                "e^{m_A−m} e^{s_k−m_A} = e^{s_k−m}: a factor free of k enters the sum",
            ),
            Step(block(sp.exp(s[k] - m), 1, c), "the ranges 1..b and b+1..c are adjacent (1 ≤ b < c)", join_ranges()),
            Step(ell(1, c, m), "definition of ℓ", unfold_ell),
        ),
        given=given,
    )
    merged = (eA * lA * oA + eB * lB * oB) / (eA * lA + eB * lB)
    merge_out = Part(
        "merge-output",
        (
            Step(merged, "FlashAttention's rescaled output after merging block b+1..c into block 1..b"),
            Step(
                (eA * block(sp.exp(s[k] - mA) * v[k], 1, b) + eB * block(sp.exp(s[k] - mB) * v[k], b + 1, c))
                / (eA * lA + eB * lB),
                "definition of o: ℓ·o is the block's weighted sum",
                unfold_o,
            ),
            Step(
                (block(sp.exp(s[k] - m) * v[k], 1, b) + block(sp.exp(s[k] - m) * v[k], b + 1, c)) / (eA * lA + eB * lB),
                "e^{m_A−m} e^{s_k−m_A} = e^{s_k−m}: a factor free of k enters the sum",
            ),
            Step(
                block(sp.exp(s[k] - m) * v[k], 1, c) / (eA * lA + eB * lB),
                "the ranges 1..b and b+1..c are adjacent (1 ≤ b < c)",
                join_ranges(),
            ),
            Step(
                block(sp.exp(s[k] - m) * v[k], 1, c) / ell(1, c, m),
                "part 'merge-sum'",
                rules.lemma("part 'merge-sum'", merge_sum.lhs, merge_sum.rhs),
            ),
            Step(o(1, c, m), "definition of o", unfold_o),
        ),
        given=given,
    )
    final = Part(
        "final",
        (
            Step(o(1, n, m), "the state after the last block, at any shift m"),
            Step(
                block(sp.exp(s[k] - m) * v[k], 1, n) / block(sp.exp(s[k] - m), 1, n), "definitions of o and ℓ", unfold_o
            ),
            Step(attention_row(s, v, k, 1, n), "e^{−m} leaves both sums and cancels: softmax(s)·v"),
        ),
    )
    plain = (lA * oA + lB * oB) / (lA + lB)
    inverted = (sp.exp(m - mA) * lA * oA + sp.exp(m - mB) * lB * oB) / (sp.exp(m - mA) * lA + sp.exp(m - mB) * lB)
    return Body(
        assumptions=(
            "s ∈ R^n (one query's scores q·k_j/√d), v ∈ R^n (one value column), n ≥ 1",
            "blocks 1..b and b+1..c with 1 ≤ b < c ≤ n; m_A, m_B, m any real shifts "
            "(FlashAttention: the block maxima and their maximum)",
            "ℓ(a, b, μ) = Σ_{k=a}^{b} e^{s_k−μ}, o(a, b, μ) = Σ_{k=a}^{b} e^{s_k−μ} v_k / ℓ(a, b, μ)",
        ),
        parts=(merge_sum, merge_out, final),
        mutants=(
            Mutant(
                "no-rescale",
                "blocks merged without the e^{m_A−m}, e^{m_B−m} factors: each block's ℓ, o kept at its own maximum",
                (("merge-output", sp.Eq(plain, merge_out.rhs, evaluate=False)),),
            ),
            Mutant(
                "inverted-rescale",
                "the rescaling factor inverted: e^{m−m_A} instead of e^{m_A−m}",
                (("merge-output", sp.Eq(inverted, merge_out.rhs, evaluate=False)),),
            ),
            Mutant(
                "mean-of-blocks",
                "the blocks' outputs averaged: (o_A + o_B)/2",
                (("merge-output", sp.Eq((oA + oB) / 2, merge_out.rhs, evaluate=False)),),
            ),
        ),
        context=Context(indices=((b, 1, c - 1),), definitions=(unfold_o, unfold_ell)),  # o unfolds into ℓ
        seed_verdict=(
            "exact",
            "the merge is exact for any shifts; the running maximum only keeps every "
            "e^{s_k−m} ≤ 1, and the output is divided by ℓ once at the end in FlashAttention-2",
        ),
    )


# --- §9.2 the KV cache -------------------------------------------------------------------------------------


@claim(
    id="kv-cache-equivalence",
    title="Decoding token t against the cached keys and values of tokens 1..t−1 plus its own equals row t "
    "of full causal attention",
    section="§9.2",
    zh=ZH,
    en=EN,
    paper="Pope et al. 2023, Efficiently Scaling Transformer Inference (KV cache); Vaswani et al. 2017 "
    "(causal decoder)",
    check="mathcheck.verify.attention_variants:kv_cache_equivalence",
)
def kv_cache_equivalence() -> Body:
    r"""With scores :math:`s_k = q_t\cdot k_k/\sqrt d` and one value column v:

    .. math::
        \frac{\sum_{k=1}^{t-1} e^{s_k} v_k + e^{s_t} v_t}{\sum_{k=1}^{t-1} e^{s_k} + e^{s_t}}
        = \frac{\sum_{k=1}^{t} e^{s_k} v_k}{\sum_{k=1}^{t} e^{s_k}}
        = \frac{\sum_{k=1}^{n} \mathrm{causal}(t,k) e^{s_k} v_k}{\sum_{k=1}^{n} \mathrm{causal}(t,k) e^{s_k}}

    for 1 ≤ t ≤ n. Example: t = 1 reads only its own value: e^{s_1} v_1 / e^{s_1} = v_1.
    """
    s, v, k, t, _, n = _scores()
    causal = sp.Function("causal")
    given = (sp.Le(1, t), sp.Le(t, n))
    cached = (sp.Sum(sp.exp(s[k]) * v[k], (k, 1, t - 1)) + sp.exp(s[t]) * v[t]) / (
        sp.Sum(sp.exp(s[k]), (k, 1, t - 1)) + sp.exp(s[t])
    )
    decode = Part(
        "decode-step",
        (
            Step(cached, "token t attends to the cache (keys, values of 1..t−1) with its own key and value appended"),
            Step(
                attention_row(s, v, k, 1, t),
                "the cache's t−1 terms and the new one are the terms 1..t",
                rules.split_last(t, "split off the last term: Σ_{k=1}^{t} f(k) = Σ_{k=1}^{t−1} f(k) + f(t)"),
            ),
        ),
        given=given,
    )
    masked = sp.Sum(causal(t, k) * sp.exp(s[k]) * v[k], (k, 1, n)) / sp.Sum(causal(t, k) * sp.exp(s[k]), (k, 1, n))
    row = Part(
        "causal-row",
        (
            Step(masked, "row t of full attention over n keys with the causal mask (is_causal=True)"),
            Step(attention_row(s, v, k, 1, t), "the mask keeps keys 1..t and removes t+1..n", causal_mask(t)),
        ),
        given=given,
    )
    return Body(
        assumptions=(
            "s ∈ R^n: token t's scores q_t·k_k/√d against every key; v ∈ R^n: one value column",
            "1 ≤ t ≤ n; causal(t, k) = 1 if k ≤ t else 0 (e^{−∞} = 0 of the additive mask)",
        ),
        parts=(decode, row),
        mutants=(
            Mutant(
                "attend-before-append",
                "the new token attends to the cache before its own key and value are appended",
                (("decode-step", sp.Eq(attention_row(s, v, k, 1, t - 1), decode.rhs, evaluate=False)),),
            ),
            Mutant(
                "no-causal-mask",
                "row t of full attention without the mask (is_causal forgotten at prefill)",
                (("causal-row", sp.Eq(masked, attention_row(s, v, k, 1, n), evaluate=False)),),
            ),
            Mutant(
                "diagonal-masked",
                "the mask also hides the token itself (k < t instead of k ≤ t)",
                (("causal-row", sp.Eq(masked, attention_row(s, v, k, 1, t - 1), evaluate=False)),),
            ),
        ),
        context=Context(indices=((t, 1, n),)),
        seed_verdict=(
            "exact",
            "exact in exact arithmetic; in floating point the cached and full paths sum "
            "in different orders and agree to rounding",
        ),
    )


# --- §9.3 grouped-query attention ---------------------------------------------------------------------------


@claim(
    id="grouped-query-attention",
    title="GQA with G key/value heads equals multi-head attention with each K, V head repeated r = H/G times "
    "(repeat_interleave); MQA is G = 1; the KV cache shrinks by G/H",
    section="§9.3",
    zh=ZH,
    en=EN,
    paper="Ainslie et al. 2023, GQA: Training Generalized Multi-Query Transformer Models; Shazeer 2019, "
    "Fast Transformer Decoding: One Write-Head is All You Need (MQA)",
    check="mathcheck.verify.attention_variants:grouped_query_attention",
)
def grouped_query_attention() -> Body:
    r"""Query head j of group g (head h = (g−1)r + j of H = G·r) with keys K_g, values V_g over n keys:

    .. math::
        \frac{\sum_k e^{\sum_c Q_{gjc} \tilde K_{gjkc}/\sqrt d}\, \tilde V_{gjke}}{\sum_k e^{\sum_c Q_{gjc}
        \tilde K_{gjkc}/\sqrt d}}
        = \frac{\sum_k e^{\sum_c Q_{gjc} K_{gkc}/\sqrt d}\, V_{gke}}{\sum_k e^{\sum_c Q_{gjc} K_{gkc}/\sqrt d}},
        \qquad \frac{2 n G d}{2 n H d} = \frac{G}{H}

    where :math:`\tilde K_{gj} = K_g` is K repeated r times along the heads (``repeat_interleave``).
    Example: Llama-2-70B, H = 64, G = 8: the cache is 1/8 of multi-head attention's.
    """
    Q, K, V = (sp.IndexedBase(x, real=True) for x in "QKV")
    Kr, Vr = sp.IndexedBase("Kt", real=True), sp.IndexedBase("Vt", real=True)
    g, j, k, c, e = sp.symbols("g j k c e", integer=True)
    n, d, G, r, H = sp.symbols("n d G r H", integer=True, positive=True)
    tile = sp.Function("tile")

    def head(KK, VV):  # softmax over the n keys of the scaled scores, times one value column e
        w = sp.exp(sp.Sum(Q[g, j, c] * KK, (c, 1, d)) / sp.sqrt(d))
        return sp.Sum(w * VV, (k, 1, n)) / sp.Sum(w, (k, 1, n))

    repeat = rules.Rule(
        "definition of repeat_interleave: K_rep[g, j] = K[g], V_rep[g, j] = V[g] for j = 1..r",
        "definition",
        lambda x: x.replace(
            lambda z: isinstance(z, sp.Indexed) and z.base in (Kr, Vr),
            lambda z: (K if z.base == Kr else V)[z.indices[0], z.indices[2], z.indices[3]],
        ),
        both_sides=True,
    )
    mha = head(Kr[g, j, k, c], Vr[g, j, k, e])
    gqa = head(K[g, k, c], V[g, k, e])
    heads = Part(
        "head-output",
        (
            Step(mha, "multi-head attention, head h = (g−1)r + j, on K, V repeated r times along the heads"),
            Step(gqa, "definition of repeat_interleave: the repeated head is K_g, V_g", repeat),
        ),
        given=(sp.Le(1, g), sp.Le(g, G), sp.Le(1, j), sp.Le(j, r)),
    )
    cache = sp.Function("cache")
    define_cache = rules.unfold(
        "definition: cache(heads) = 2·n·heads·d numbers (K and V, n tokens)", "cache", lambda a: 2 * n * a * d
    )
    ratio = Part(
        "cache-ratio",
        (
            Step(cache(G) / cache(H), "KV-cache size of G key/value heads over that of H (multi-head)"),
            Step(2 * n * G * d / (2 * n * H * d), "definition of the cache size", define_cache),
            Step(G / H, "n, d and the factor 2 (K and V) cancel"),
        ),
    )
    tiled = head(K[tile((g - 1) * r + j), k, c], V[tile((g - 1) * r + j), k, e])
    i = sp.Symbol("i", integer=True)
    pooled = head(K[g, k, c], V[g, k, e]).xreplace({Q[g, j, c]: sp.Sum(Q[g, i, c], (i, 1, r)) / r})
    return Body(
        assumptions=(
            "H = G·r query heads in G groups of r; query head h = (g−1)r + j, 1 ≤ g ≤ G, 1 ≤ j ≤ r",
            "Q ∈ R^{G×r×d}, K, V ∈ R^{G×n×d}; K_rep = K.repeat_interleave(r, dim=head)",
            "cache(heads) = 2·n·heads·d: keys and values of n tokens (per layer, per batch row)",
        ),
        parts=(heads, ratio),
        mutants=(
            Mutant(
                "tiled-heads",
                "K, V expanded with repeat (tiling) instead of repeat_interleave: head h reads group ((h−1) mod G) + 1",
                (("head-output", sp.Eq(mha, tiled, evaluate=False)),),
            ),
            Mutant(
                "pooled-queries",
                "GQA read as pooling the queries of a group (the paper mean-pools K, V heads when uptraining, never Q)",
                (("head-output", sp.Eq(mha, pooled, evaluate=False)),),
            ),
            Mutant(
                "cache-inverse",
                "the cache grows by H/G instead of shrinking by G/H",
                (("cache-ratio", sp.Eq(ratio.lhs, H / G, evaluate=False)),),
            ),
            Mutant(
                "keys-only",
                "only the keys counted in the cache: n·G·d against 2·n·H·d",
                (("cache-ratio", sp.Eq(ratio.lhs, G / (2 * H), evaluate=False)),),
            ),
        ),
        context=Context(
            indices=((g, 1, G), (j, 1, r)),
            definitions=(
                repeat,
                define_cache,
                rules.unfold(
                    "definition: tile(h) = ((h − 1) mod G) + 1, the group torch.Tensor.repeat gives head h",
                    "tile",
                    lambda h: sp.Mod(h - 1, G) + 1,
                ),
            ),
        ),
        seed_verdict=(
            "exact",
            "GQA is multi-head attention on repeated K, V heads, exactly; MQA (G = 1) and "
            "MHA (G = H) are its ends; the saving is in the cache and its bandwidth, not in FLOPs",
        ),
    )


# --- §9.5 linear attention ------------------------------------------------------------------------------------


@claim(
    id="linear-attention-associativity",
    title="Linear attention: (φ(Q)φ(K)ᵀ)V = φ(Q)(φ(K)ᵀV), costing 4n²d against 4nd² FLOPs; the causal form "
    "is a prefix sum S_i = Σ_{k≤i} φ(k_k)v_kᵀ",
    section="§9.5",
    zh=ZH,
    en=EN,
    paper="Katharopoulos et al. 2020, Transformers are RNNs: Fast Autoregressive Transformers with Linear "
    "Attention (ICML)",
    check="mathcheck.verify.attention_variants:linear_attention_associativity",
)
def linear_attention_associativity() -> Body:
    r"""With a = φ(Q) ∈ R^{n×d}, b = φ(K) ∈ R^{n×d}, V ∈ R^{n×d}:

    .. math::
        \sum_{k=1}^{n} \Bigl(\sum_{c=1}^{d} a_{ic} b_{kc}\Bigr) V_{ke}
        = \sum_{c=1}^{d} a_{ic} \sum_{k=1}^{n} b_{kc} V_{ke},\qquad
        \frac{\mathrm{mm}(n,d,n) + \mathrm{mm}(n,n,d)}{\mathrm{mm}(d,n,d) + \mathrm{mm}(n,d,d)} = \frac{n}{d}

    with mm(p, q, r) = 2pqr the FLOPs of a p×q by q×r product; the causal sum runs to k = i.
    Example: n = 4096, d = 64: the quadratic order costs 64 times more.
    """
    a, b, V = sp.IndexedBase("a", real=True), sp.IndexedBase("b", real=True), sp.IndexedBase("V", real=True)
    i, k, c, e = sp.symbols("i k c e", integer=True)
    n, d = sp.symbols("n d", integer=True, positive=True)

    def assoc(upper, name, what):
        return Part(
            name,
            (
                Step(sp.Sum(sp.Sum(a[i, c] * b[k, c], (c, 1, d)) * V[k, e], (k, 1, upper)), what),
                Step(
                    sp.Sum(sp.Sum(a[i, c] * b[k, c] * V[k, e], (c, 1, d)), (k, 1, upper)),
                    "V_ke does not depend on c: it enters the inner sum",
                    factor_in(),
                ),
                Step(
                    sp.Sum(sp.Sum(a[i, c] * b[k, c] * V[k, e], (k, 1, upper)), (c, 1, d)),
                    "exchange the two finite sums (bounds independent of each other's index)",
                    rules.exchange_sums(),
                ),
                Step(
                    sp.Sum(a[i, c] * sp.Sum(b[k, c] * V[k, e], (k, 1, upper)), (c, 1, d)),
                    "a_ic does not depend on k: it leaves the inner sum",
                    factor_out(),
                ),
            ),
            given=(sp.Le(1, i), sp.Le(i, n)),
        )

    full = assoc(n, "associativity", "row i, column e of (φ(Q)φ(K)ᵀ)V")
    causal = assoc(i, "causal-prefix", "row i of causal linear attention: keys 1..i")
    mm = sp.Function("mm")
    define_mm = rules.unfold(
        "definition: mm(p, q, r) = 2pqr FLOPs (a p×q by q×r product)", "mm", lambda x, y, z: 2 * x * y * z
    )
    cost = Part(
        "cost",
        (
            Step(
                (mm(n, d, n) + mm(n, n, d)) / (mm(d, n, d) + mm(n, d, d)),
                "FLOPs of (φ(Q)φ(K)ᵀ)V over those of φ(Q)(φ(K)ᵀV)",
            ),
            Step((2 * n * d * n + 2 * n * n * d) / (2 * d * n * d + 2 * n * d * d), "definition of mm", define_mm),
            Step(n / d, "4n²d / 4nd²"),
        ),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "a = φ(Q), b = φ(K), V ∈ R^{n×d} (a feature map φ ≥ 0, e.g. elu + 1); n, d positive",
            "mm(p, q, r) = 2pqr: the multiply-adds of a p×q by q×r product, as FlopCounterMode counts",
        ),
        parts=(full, causal, cost),
        mutants=(
            Mutant("cost-inverted", "the linear order is the expensive one: ratio d/n", (wrong(cost, d / n),)),
            Mutant("cost-squared", "the quadratic order costs (n/d)² times more", (wrong(cost, (n / d) ** 2),)),
            Mutant(
                "prefix-includes-future",
                "the causal prefix sum taken over all n keys",
                (wrong(causal, sp.Sum(a[i, c] * sp.Sum(b[k, c] * V[k, e], (k, 1, n)), (c, 1, d))),),
            ),
            Mutant(
                "prefix-excludes-self",
                "the prefix sum stops at i − 1 (the state read before the update)",
                (wrong(causal, sp.Sum(a[i, c] * sp.Sum(b[k, c] * V[k, e], (k, 1, i - 1)), (c, 1, d))),),
            ),
        ),
        context=Context(indices=((i, 1, n), (e, 1, d))),
        seed_verdict=(
            "holds-with-conditions",
            "exact without the softmax (a kernel feature map φ); softmax "
            "attention itself is not associative, and the normaliser needs the same prefix sum of φ(k)",
        ),
    )


# --- §9.6 ALiBi ---------------------------------------------------------------------------------------------


@claim(
    id="alibi-distance-bias",
    title="ALiBi: the query-position term of the bias −m(i − j) cancels in softmax; the weights depend on the "
    "keys' positions (and so on the distance) only",
    section="§9.6",
    zh=ZH,
    en=EN,
    paper="Press, Smith & Lewis 2022, Train Short, Test Long: Attention with Linear Biases (ALiBi, ICLR)",
    check="mathcheck.verify.attention_variants:alibi_distance_bias",
)
def alibi_distance_bias() -> Body:
    r"""Softmax over keys j of :math:`s_j - m(i - j)` equals softmax of :math:`s_j + m j`, for any n:

    .. math::
        \frac{e^{s_j - m(i-j)}}{\sum_{k=1}^{n} e^{s_k - m(i-k)}} = \frac{e^{s_j + m j}}{\sum_{k=1}^{n} e^{s_k + m k}},
        \qquad \frac{w_{ij}}{w_{ik}} = e^{s_j - s_k - m(k - j)}

    Example: equal scores, m = 1: the weight ratio of keys one apart is e, whatever the query.
    """
    s = sp.IndexedBase("s", real=True)
    m = sp.Symbol("m", real=True)
    i, j, k, l = sp.symbols("i j k l", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    row = lambda f: sp.Sum(f(k), (k, 1, n))  # noqa: E731
    given = (sp.Le(1, i), sp.Le(i, n), sp.Le(1, j), sp.Le(j, n))
    weights = Part(
        "weights",
        (
            Step(
                sp.exp(s[j] - m * (i - j)) / row(lambda k: sp.exp(s[k] - m * (i - k))),
                "ALiBi attention weight of key j for query i (slope m)",
            ),
            Step(
                sp.exp(-m * i) * sp.exp(s[j] + m * j) / (sp.exp(-m * i) * row(lambda k: sp.exp(s[k] + m * k))),
                "e^{a+b} = e^a e^b; e^{−m i} does not depend on k, so it leaves the sum",
            ),
            Step(sp.exp(s[j] + m * j) / row(lambda k: sp.exp(s[k] + m * k)), "the common factor e^{−m i} cancels"),
        ),
        free_of=(i,),
        given=given,
    )
    w = lambda jj: sp.exp(s[jj] - m * (i - jj)) / row(lambda k: sp.exp(s[k] - m * (i - k)))  # noqa: E731
    ratio = Part(
        "distance-ratio",
        (
            Step(w(j) / w(l), "the ratio of two keys' weights for query i"),
            Step(sp.exp(s[j] - m * (i - j)) / sp.exp(s[l] - m * (i - l)), "the normaliser cancels"),
            Step(sp.exp(s[j] - s[l] - m * (l - j)), "e^a/e^b = e^{a−b}: only the keys' distance l − j remains"),
        ),
        free_of=(i,),
        given=given + (sp.Le(1, l), sp.Le(l, n)),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "s ∈ R^n (query i's scores q_i·k_j/√d), m ∈ R (the head's slope), n a positive integer",
            "i, j, l ∈ {1, …, n}",
        ),
        parts=(weights, ratio),
        mutants=(
            Mutant(
                "query-term-survives",
                "the query term kept as a factor e^{−m i} on the weights",
                (wrong(weights, sp.exp(-m * i) * weights.rhs),),
            ),
            Mutant(
                "slope-sign",
                "the bias's sign flipped: far keys favoured instead of penalised",
                (wrong(weights, sp.exp(s[j] - m * j) / row(lambda k: sp.exp(s[k] - m * k))),),
            ),
            Mutant(
                "bias-after-softmax",
                "the bias added to the weights instead of the logits",
                (wrong(weights, sp.exp(s[j]) / row(lambda k: sp.exp(s[k])) - m * (i - j)),),
            ),
            Mutant(
                "absolute-distance",
                "the ratio depends on |i − j| − |i − l| — true only for keys on one side",
                (wrong(ratio, sp.exp(s[j] - s[l] - m * (sp.Abs(i - j) - sp.Abs(i - l)))),),
            ),
        ),
        context=Context(indices=((i, 1, n), (j, 1, n), (l, 1, n))),
        seed_verdict=(
            "exact",
            "exact for the causal form the paper uses (keys j ≤ i, bias −m(i−j) ≤ 0); a "
            "symmetric −m|i−j| bias is a different model whose query term does not cancel",
        ),
    )


# --- §9.10 the causal mask -------------------------------------------------------------------------------


@claim(
    id="causal-mask-autoregressive",
    title="With a causal mask, output t does not depend on tokens after t: ∂out_t/∂v_u = ∂out_t/∂s_u = 0 for u > t",
    section="§9.10",
    zh=ZH,
    en=EN,
    paper="Vaswani et al. 2017, Attention Is All You Need (§3.2.3, masked decoder self-attention)",
    check="mathcheck.verify.attention_variants:causal_mask_autoregressive",
)
def causal_mask_autoregressive() -> Body:
    r"""Row t of causal attention over n keys (scores s_k = q_t·k_k/√d, one value column v):

    .. math::
        \mathrm{out}_t = \frac{\sum_{k=1}^{n} \mathrm{causal}(t,k) e^{s_k} v_k}{\sum_{k=1}^{n}
        \mathrm{causal}(t,k) e^{s_k}} = \frac{\sum_{k=1}^{t} e^{s_k} v_k}{\sum_{k=1}^{t} e^{s_k}},\qquad
        u > t \Rightarrow \frac{\partial\,\mathrm{out}_t}{\partial v_u} = 0

    Example: out_1 = v_1 whatever the later tokens are.
    """
    s, v, k, t, u, n = _scores()
    causal = sp.Function("causal")
    masked = sp.Sum(causal(t, k) * sp.exp(s[k]) * v[k], (k, 1, n)) / sp.Sum(causal(t, k) * sp.exp(s[k]), (k, 1, n))
    row = Part(
        "masked-row",
        (
            Step(masked, "row t of attention with the causal mask"),
            Step(attention_row(s, v, k, 1, t), "the mask keeps keys 1..t and removes t+1..n", causal_mask(t)),
        ),
        given=(sp.Le(1, t), sp.Le(t, n)),
    )
    out = attention_row(s, v, k, 1, t)
    # t ≤ n stated before t < u: points are drawn index by index (t first), each from its first bounds
    future = (sp.Le(1, t), sp.Le(t, n), sp.Lt(t, u), sp.Le(u, n))
    dv = Part(
        "future-value",
        (
            Step(sp.Derivative(out, v[u]), "how output t moves with the value of a later token u > t"),
            Step(
                sp.Sum(sp.exp(s[k]) * sp.KroneckerDelta(k, u), (k, 1, t)) / sp.Sum(sp.exp(s[k]), (k, 1, t)),
                "∂v_k/∂v_u = δ_ku",
                rules.differentiate(v[u]),
            ),
            Step(sp.Integer(0), "δ_ku = 0 for every k ≤ t < u", delta_outside()),
        ),
        given=future,
    )
    ds = Part(
        "future-score",
        (
            Step(sp.Derivative(out, s[u]), "how output t moves with its score against a later key u > t"),
            Step(
                sp.Sum(sp.exp(s[k]) * sp.KroneckerDelta(k, u) * v[k], (k, 1, t)) / sp.Sum(sp.exp(s[k]), (k, 1, t))
                - sp.Sum(sp.exp(s[k]) * v[k], (k, 1, t))
                * sp.Sum(sp.exp(s[k]) * sp.KroneckerDelta(k, u), (k, 1, t))
                / sp.Sum(sp.exp(s[k]), (k, 1, t)) ** 2,
                "quotient rule; ∂s_k/∂s_u = δ_ku",
                rules.differentiate(s[u]),
            ),
            Step(sp.Integer(0), "δ_ku = 0 for every k ≤ t < u", delta_outside()),
        ),
        given=future,
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "s ∈ R^n: token t's scores against every key; v ∈ R^n: one value column",
            "1 ≤ t ≤ n; causal(t, k) = 1 if k ≤ t else 0; u > t a later position",
        ),
        parts=(row, dv, ds),
        mutants=(
            Mutant(
                "mask-transposed",
                "the mask built with triu instead of tril: token t sees keys t..n",
                (wrong(row, attention_row(s, v, k, t, n)),),
            ),
            Mutant(
                "diagonal-masked",
                "the mask also hides the token itself (k < t)",
                (wrong(row, attention_row(s, v, k, 1, t - 1)),),
            ),
            Mutant(
                "future-leaks",
                "output t moves with a later value as with its own: ∂out_t/∂v_u = softmax weight",
                (("future-value", sp.Eq(dv.lhs, sp.exp(s[u]) / sp.Sum(sp.exp(s[k]), (k, 1, t)), evaluate=False)),),
            ),
        ),
        context=Context(indices=((t, 1, n), (u, 1, n))),
        seed_verdict=(
            "exact",
            "holds for every input; SDPA's is_causal=True is the upper-left aligned mask, "
            "which for a square L×L attention is the tril mask this claim uses",
        ),
    )
