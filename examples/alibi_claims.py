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

The module has the same skeleton as the built-in claims (docs/design.md, "Writing a claim"): the
derivation imports SymPy lazily and never torch; the numeric check imports torch inside the
function, so ``mathcheck list --from`` stays fast.
"""

from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


@claim(id="alibi-query-term-cancels", title="ALiBi: the query-position term of the bias drops out of softmax",
       section="§9.1", zh="（用户示例）ALiBi 的偏置 −m(i−j) 中只与查询位置 i 有关的部分不影响注意力权重",
       en="(user example) the part of ALiBi's bias −m(i−j) that depends only on the query position i "
          "does not change the attention weights",
       check=f"{__name__}:alibi_weights")  # this module, under whatever name --from gave it
def alibi_query_term_cancels() -> Body:
    r"""Softmax over keys j of :math:`s_j - m(i - j)` equals softmax of :math:`s_j + m j`, for any n."""
    s = sp.IndexedBase("s", real=True)          # the row's scores q_i·k_j/√d
    m = sp.Symbol("m", real=True)               # the head's slope
    i, j, k = sp.symbols("i j k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    row = lambda f: sp.Sum(f(k), (k, 1, n))     # noqa: E731 - Σ over the keys

    weights = Part("weights", (
        Step(sp.exp(s[j] - m * (i - j)) / row(lambda k: sp.exp(s[k] - m * (i - k))),
             "ALiBi attention weight of key j for query i"),
        Step(sp.exp(-m * i) * sp.exp(s[j] + m * j) / (sp.exp(-m * i) * row(lambda k: sp.exp(s[k] + m * k))),
             "e^{a+b} = e^a e^b; the factor e^{−m i} does not depend on k, so it leaves the sum"),
        Step(sp.exp(s[j] + m * j) / row(lambda k: sp.exp(s[k] + m * k)),
             "the common factor e^{−m i} cancels"),
    ))
    wrong = lambda rhs: sp.Eq(weights.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=("s ∈ R^n (one query's scores), m ∈ R, n a positive integer", "i, j ∈ {1, …, n}"),
        parts=(weights,),
        mutants=(
            Mutant("query-term-survives", "the query term is kept as a factor e^{−m i} on the weights",
                   (("weights", wrong(sp.exp(-m * i) * weights.rhs)),)),
            Mutant("slope-sign", "the bias's sign flipped: far keys favoured instead of penalised",
                   (("weights", wrong(sp.exp(s[j] - m * j) / row(lambda k: sp.exp(s[k] - m * k)))),)),
            Mutant("bias-after-softmax", "the bias added to the weights instead of the logits",
                   (("weights", wrong(sp.exp(s[j]) / row(lambda k: sp.exp(s[k])) - m * (i - j))),)),
        ),
        context=Context(indices=((i, 1, n), (j, 1, n))),
        seed_verdict=("exact", "a user's claim; the 'seed' is the ALiBi paper's bias"),
    )


def alibi_weights(statements: dict, options):
    """The statement's right-hand side against ``F.scaled_dot_product_attention`` with the ALiBi bias
    as a float mask and V = I, so that PyTorch's output *is* the matrix of attention weights."""
    import sympy
    import torch
    import torch.nn.functional as F

    from mathcheck.verify import symbol
    from mathcheck.verify._compare import Comparison, generator
    from mathcheck.verify.evaluate import evaluate

    cmp = Comparison("torch.nn.functional.scaled_dot_product_attention (attn_mask = ALiBi bias)",
                     options, atol=1e-12, rtol=1e-9)
    g = generator(options)
    for n, slope in ((4, 0.5), (16, 0.0625), (33, 1.0)):
        d = 8
        q, kk = (torch.randn(n, d, generator=g, dtype=torch.float64) for _ in range(2))
        pos = torch.arange(1, n + 1, dtype=torch.float64)
        bias = -slope * (pos[:, None] - pos[None, :])
        weights = F.scaled_dot_product_attention(q[None], kk[None], torch.eye(n, dtype=torch.float64)[None],
                                                 attn_mask=bias[None])[0]
        scores = q @ kk.T / d ** 0.5
        for part, eq in statements.items():
            if part != "weights":
                raise KeyError(f"alibi_weights: no numeric check for part {part!r}")
            names = {str(x) for x in eq.rhs.free_symbols}
            for row in range(n):
                env = {symbol(eq, "n"): n, symbol(eq, "j"): pos, symbol(eq, "m"): slope,
                       next(iter(eq.atoms(sympy.IndexedBase))): scores[row]}
                if "i" in names:
                    env[symbol(eq, "i")] = float(row + 1)
                got = evaluate(eq.rhs, env)
                cmp.compare(f"n={n} m={slope} query {row + 1}", weights[row], got, n=n, query=row + 1)
    return cmp.verdict()
