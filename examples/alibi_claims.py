"""A worked example: a claim of your own, about a new attention variant (ALiBi), kept as a test.

ALiBi (Press et al., 2022) adds a linear bias to the attention logits instead of position
embeddings: query ``i`` attends to key ``j`` with logit ``s_j − m·(i − j)``. The bias has a term in
the query position ``i`` that looks as if it should matter; it does not. Softmax is invariant to a
term that is constant along the row, so the weights depend on the keys' positions only:

.. math::
    \\frac{e^{s_j - m(i-j)}}{\\sum_{k=1}^{n} e^{s_k - m(i-k)}}
    = \\frac{e^{s_j + m j}}{\\sum_{k=1}^{n} e^{s_k + m k}}

Prove it, refute the mistakes, and keep it green::

    mathcheck prove  --from examples/alibi_claims.py
    mathcheck refute --from examples/alibi_claims.py
    pytest --mathcheck-from examples/alibi_claims.py

There is no hand-written numeric loop: the claim names no ``check=``, so mathcheck's generic check
evaluates both sides with torch at n ∈ {1, 2, 3, 8, 33}, every query i and key j, on seeded scores
and slopes, and compares the left-hand side with ``reference``: PyTorch's own
``F.scaled_dot_product_attention`` with the ALiBi bias as its float mask. The derivation imports
SymPy lazily and never torch; the reference imports torch when it runs, so ``mathcheck list
--from`` stays fast.
"""

from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


def sdpa_weights(s, m, n):
    """torch.nn.functional.scaled_dot_product_attention with the ALiBi bias as attn_mask.

    One query's scores ``s`` (entries 1..n) as the logits of every query row: Q = 1 (n×1),
    K = s (n×1), so Q Kᵀ/√1 has row i equal to s; V = I, so the output *is* the weight matrix,
    entry (i, j) the weight of key j for query i.
    """
    import torch
    import torch.nn.functional as F

    pos = torch.arange(1, n + 1, dtype=s.dtype)
    bias = -m * (pos[:, None] - pos[None, :])
    ones, eye = torch.ones(n, 1, dtype=s.dtype), torch.eye(n, dtype=s.dtype)
    return F.scaled_dot_product_attention(ones[None], s[None, :, None], eye[None], attn_mask=bias[None])[0]


@claim(
    id="alibi-query-term-cancels",
    title="ALiBi: the query-position term of the bias drops out of softmax",
    section="§9.1",
    zh="（用户示例）ALiBi 的偏置 −m(i−j) 中只与查询位置 i 有关的部分不影响注意力权重",
    en="(user example) the part of ALiBi's bias −m(i−j) that depends only on the query position i "
    "does not change the attention weights",
    reference=sdpa_weights,
)  # no check=: the generic check, against PyTorch's attention
def alibi_query_term_cancels() -> Body:
    r"""Softmax over keys j of :math:`s_j - m(i - j)` equals softmax of :math:`s_j + m j`, for any n."""
    s = sp.IndexedBase("s", real=True)  # the row's scores q_i·k_j/√d
    m = sp.Symbol("m", real=True)  # the head's slope
    i, j, k = sp.symbols("i j k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    row = lambda f: sp.Sum(f(k), (k, 1, n))  # noqa: E731 - Σ over the keys
    # The middle step as written: SymPy would merge e^{−mi}·e^{s_j+mj} and cancel e^{−mi}/e^{−mi}
    # on construction, so the factored form is built unevaluated and the cancellation is a real step.
    factor = sp.exp(-m * i)
    factored = sp.Mul(
        sp.Mul(factor, sp.exp(s[j] + m * j), evaluate=False),
        sp.Pow(sp.Mul(factor, row(lambda k: sp.exp(s[k] + m * k)), evaluate=False), -1, evaluate=False),
        evaluate=False,
    )

    weights = Part(
        "weights",
        (
            Step(
                sp.exp(s[j] - m * (i - j)) / row(lambda k: sp.exp(s[k] - m * (i - k))),
                "ALiBi attention weight of key j for query i",
            ),
            Step(factored, "e^{a+b} = e^a e^b; the factor e^{−m i} does not depend on k, so it leaves the sum"),
            Step(sp.exp(s[j] + m * j) / row(lambda k: sp.exp(s[k] + m * k)), "the common factor e^{−m i} cancels"),
        ),
    )
    wrong = lambda rhs: sp.Eq(weights.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=("s ∈ R^n (one query's scores), m ∈ R, n a positive integer", "i, j ∈ {1, …, n}"),
        parts=(weights,),
        mutants=(
            Mutant(
                "query-term-survives",
                "the query term is kept as a factor e^{−m i} on the weights",
                (("weights", wrong(sp.exp(-m * i) * weights.rhs)),),
            ),
            Mutant(
                "slope-sign",
                "the bias's sign flipped: far keys favoured instead of penalised",
                (("weights", wrong(sp.exp(s[j] - m * j) / row(lambda k: sp.exp(s[k] - m * k)))),),
            ),
            Mutant(
                "bias-after-softmax",
                "the bias added to the weights instead of the logits",
                (("weights", wrong(sp.exp(s[j]) / row(lambda k: sp.exp(s[k])) - m * (i - j))),),
            ),
        ),
        context=Context(indices=((i, 1, n), (j, 1, n))),
        seed_verdict=("exact", "a user's claim; the 'seed' is the ALiBi paper's bias"),
    )
