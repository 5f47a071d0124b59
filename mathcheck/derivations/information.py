"""§5 Information theory: information content, entropy, cross-entropy, KL divergence."""

from __future__ import annotations

from mathcheck import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


def distributions():
    """Two positive distributions p, q over n outcomes, the index i and n."""
    p, q = sp.IndexedBase("p", positive=True), sp.IndexedBase("q", positive=True)
    i = sp.Symbol("i", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    return p, q, i, n


def information_functions(i, n):
    """``H``, ``CrossEntropy`` and ``KL`` as named functions with the rules that unfold them."""
    H, CE, KL = sp.Function("H"), sp.Function("CrossEntropy"), sp.Function("KL")
    defs = (
        rules.unfold("definition of H", "H", lambda a: -sp.Sum(a[i] * sp.log(a[i]), (i, 1, n))),
        rules.unfold("definition of cross-entropy", "CrossEntropy",
                     lambda a, b: -sp.Sum(a[i] * sp.log(b[i]), (i, 1, n))),
        rules.unfold("definition of KL", "KL",
                     lambda a, b: sp.Sum(a[i] * sp.log(a[i] / b[i]), (i, 1, n))),
    )
    return H, CE, KL, defs


@claim(
    id="cross-entropy-decomposition",
    title="Cross-entropy is entropy plus KL divergence: H(p, q) = H(p) + KL(p‖q)",
    section="§5.2",
    zh="交叉熵等于真实分布的熵加上真实分布到预测分布的 KL 散度。H(p, q) = H(p) + D_KL(p || q)",
    en="The cross-entropy equals the entropy of the true distribution plus the KL divergence from the "
       "true distribution to the predicted one: H(p, q) = H(p) + D_KL(p || q).",
    check="mathcheck.verify.information:cross_entropy_decomposition",
)
def cross_entropy_decomposition() -> Body:
    r"""For positive p, q over a symbolic number n of outcomes,

    .. math::
        -\sum_{i=1}^{n} p_i \log q_i = -\sum_{i=1}^{n} p_i \log p_i + \sum_{i=1}^{n} p_i \log\frac{p_i}{q_i}.
    """
    p, q, i, n = distributions()
    H, CE, KL, defs = information_functions(i, n)
    decomposition = Part("decomposition", (
        Step(CE(p, q), "the cross-entropy of q relative to p"),
        Step(-sp.Sum(p[i] * sp.log(q[i]), (i, 1, n)), "definition: −Σ p_i log q_i", defs[1]),
        Step(-sp.Sum(p[i] * sp.log(p[i]), (i, 1, n)) + sp.Sum(p[i] * sp.log(p[i] / q[i]), (i, 1, n)),
             "add and subtract Σ p_i log p_i; log p_i − log q_i = log(p_i/q_i) as p, q > 0"),
        Step(H(p) + KL(p, q), "definitions of H(p) and KL(p‖q)", _unfold_all(defs)),
    ))
    return Body(
        assumptions=("p, q ∈ (0, ∞)^n, n a positive integer (the identity needs no normalisation; "
                     "the numeric check uses distributions)",),
        parts=(decomposition,),
        mutants=(
            Mutant("minus-kl", "cross-entropy is the entropy *minus* the KL divergence",
                   (("decomposition", sp.Eq(CE(p, q), H(p) - KL(p, q), evaluate=False)),)),
            Mutant("reversed-kl", "the KL divergence taken the other way round, KL(q‖p)",
                   (("decomposition", sp.Eq(CE(p, q), H(p) + KL(q, p), evaluate=False)),)),
            Mutant("entropy-of-prediction", "the entropy of the prediction q in place of the data's p",
                   (("decomposition", sp.Eq(CE(p, q), H(q) + KL(p, q), evaluate=False)),)),
        ),
        context=Context(definitions=defs),
        seed_verdict=("exact", "H(p) is constant in q, so minimising H(p, q) over q minimises KL(p‖q)"),
    )


def _unfold_all(defs):
    def fn(e):
        for d in defs:
            e = d.apply(e)
        return e

    return rules.Rule("definitions of H and KL", "definition", fn, both_sides=True)
