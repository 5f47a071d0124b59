"""§2 Linear algebra: QKV projections, dot products, and why the scores are divided by √d_k."""

from __future__ import annotations

from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim
from mathcheck import rules


@claim(
    id="qk-variance",
    title="The dot product of two random d_k-vectors has variance d_k; dividing by √d_k restores 1",
    section="§2.2",
    zh="如果 Q 里的每个分量都是均值为 0、方差为 1 的随机变量，那么两个 d_k 维向量的点积方差就是 d_k。"
       "除以 sqrt(d_k) 后方差就回到 1。",
    en="If every component of Q is a random variable with mean 0 and variance 1, the dot product of "
       "two d_k-dimensional vectors has variance d_k; divided by sqrt(d_k) the variance returns to 1.",
    check="mathcheck.verify.linear_algebra:qk_variance",
)
def qk_variance() -> Body:
    r"""Var(q·k) for independent q, k with i.i.d. components, for symbolic d.

    .. math::
        \operatorname{Var}\Big(\sum_{i=1}^{d} q_i k_i\Big)
        = d\,(\sigma_q^2\sigma_k^2 + \mu_q^2\sigma_k^2 + \mu_k^2\sigma_q^2)

    which is :math:`d` at :math:`\mu = 0, \sigma = 1`, so :math:`\operatorname{Var}(q\cdot k/\sqrt d) = 1`.
    """
    q, k = sp.IndexedBase("q"), sp.IndexedBase("k")
    i, j = sp.symbols("i j", integer=True)
    d = sp.Symbol("d_k", integer=True, positive=True)
    mq, mk = sp.symbols("mu_q mu_k", real=True)
    sq, sk = sp.symbols("sigma_q sigma_k", positive=True)
    Var = rules.Var
    dot = sp.Sum(q[i] * k[i], (i, 1, d))

    general_rhs = d * (sq**2 * sk**2 + mq**2 * sk**2 + mk**2 * sq**2)
    general = Part("general", (
        Step(Var(dot), "variance of the dot product q·k"),
        Step(rules.E(dot**2) - rules.E(dot)**2, "Var(X) = E[X²] − E[X]²", rules.variance_definition()),
        Step(rules.E(sp.Sum(q[i] * k[i] * q[j] * k[j], (j, 1, d), (i, 1, d))) - rules.E(dot)**2,
             "write the square of the sum as a double sum", rules.square_of_sum(j)),
        Step(sp.Sum(rules.E(q[i] * q[j]) * rules.E(k[i] * k[j]), (j, 1, d), (i, 1, d))
             - sp.Sum(rules.E(q[i]) * rules.E(k[i]), (i, 1, d))**2,
             "linearity of expectation; q and k are independent", rules.linearity((q,), (k,))),
        Step(sp.Sum((mq**2 + sq**2 * sp.KroneckerDelta(i, j)) * (mk**2 + sk**2 * sp.KroneckerDelta(i, j)),
                    (j, 1, d), (i, 1, d)) - sp.Sum(mq * mk, (i, 1, d))**2,
             "components are i.i.d.: E[x_i x_j] = μ² + σ² δ_ij",
             rules.moments({q: (mq, sq), k: (mk, sk)})),
        Step(sp.Sum(d * mq**2 * mk**2 + mq**2 * sk**2 + sq**2 * mk**2 + sq**2 * sk**2, (i, 1, d))
             - d**2 * mq**2 * mk**2,
             "sum over j: the Kronecker delta keeps the term j = i"),
        Step(general_rhs, "sum over i; the d²μ_q²μ_k² terms cancel"),
    ))
    standard = Part("standard", (
        Step(Var(dot), "the seed's case: every component has mean 0 and variance 1"),
        Step(general_rhs, "the general result", rules.lemma("part 'general'", Var(dot), general_rhs)),
        Step(d, "put μ = 0 and σ = 1 (the seed's assumption)",
             rules.substitute({mq: 0, mk: 0, sq: 1, sk: 1}, "μ = 0, σ = 1")),
    ))
    scaled = Part("scaled", (
        Step(Var(dot / sp.sqrt(d)), "the scaled score q·k/√d_k"),
        Step(Var(dot) / d, "Var(cX) = c² Var(X) with c = 1/√d_k", rules.variance_scaling((q, k))),
        Step(d / d, "the standard case", rules.lemma("part 'standard'", Var(dot), d)),
        Step(sp.Integer(1), "cancel"),
    ))
    return Body(
        assumptions=(
            "q and k are independent random vectors in R^{d_k}, d_k a positive integer",
            "the components of q are i.i.d. with mean μ_q and variance σ_q²; those of k with μ_k, σ_k²",
            "the seed's case is μ_q = μ_k = 0, σ_q = σ_k = 1",
        ),
        parts=(general, standard, scaled),
        mutants=(
            Mutant("variance-dk-squared", "the variance of the dot product grows like d_k², not d_k",
                   (("standard", sp.Eq(Var(dot), d**2, evaluate=False)),)),
            Mutant("divide-by-dk", "dividing the scores by d_k (not √d_k) gives variance 1",
                   (("scaled", sp.Eq(Var(dot / d), 1, evaluate=False)),)),
            Mutant("forget-the-means", "Var(q·k) = d_k σ_q² σ_k² whatever the means",
                   (("general", sp.Eq(Var(dot), d * sq**2 * sk**2, evaluate=False)),)),
        ),
        context=Context(),
        seed_verdict=("holds-with-conditions",
                      "needs q and k independent, with independent components; the seed says only "
                      "'each component has mean 0 and variance 1'. With nonzero means the variance is "
                      "d_k(σ_q²σ_k² + μ_q²σ_k² + μ_k²σ_q²)."),
    )
