"""§9 Beyond the article, the losses: label smoothing (§9.7) and perplexity (§9.8).

Each claim cites its paper (``Source.paper``) instead of a sentence of the seed, is derived for symbolic
sizes, and is checked against PyTorch's own implementation (:mod:`mathcheck.verify.losses`). Hypotheses a
part needs are in its ``given``; the finite-sum laws it cites are rules.py's checked constructors.
"""

from __future__ import annotations

from mathcheck.symbolic import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.derivations._beyond import EN, ZH
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


# --- §9.7 label smoothing -----------------------------------------------------------------------------------


@claim(
    id="label-smoothing-decomposition",
    title="Cross-entropy with smoothed targets (1−ε)·onehot(y) + ε/C = (1−ε)·CE(onehot) + ε·CE(uniform), "
    "PyTorch's convention",
    section="§9.7",
    zh=ZH,
    en=EN,
    paper="Szegedy et al. 2016, Rethinking the Inception Architecture for Computer Vision (label smoothing); "
    "Müller, Kornblith & Hinton 2019, When Does Label Smoothing Help?",
    check="mathcheck.verify.losses:label_smoothing_decomposition",
)
def label_smoothing_decomposition() -> Body:
    r"""For C classes, target y, predictions p ∈ (0, 1]^C and ε ∈ R:

    .. math::
        -\sum_{i=1}^{C}\Bigl((1-\varepsilon)\delta_{iy} + \frac{\varepsilon}{C}\Bigr)\log p_i
        = (1-\varepsilon)(-\log p_y) + \varepsilon\Bigl(-\frac1C\sum_{i=1}^{C}\log p_i\Bigr)

    Example: C = 2, p = (1/2, 1/2): both sides are log 2 for every ε.
    """
    p = sp.IndexedBase("p", positive=True)
    i, y = sp.symbols("i y", integer=True)
    C = sp.Symbol("C", integer=True, positive=True)
    eps = sp.Symbol("epsilon", real=True)
    target = (1 - eps) * sp.KroneckerDelta(i, y) + eps / C
    uniform = -sp.Sum(sp.log(p[i]), (i, 1, C)) / C
    decomposition = Part(
        "decomposition",
        (
            Step(-sp.Sum(target * sp.log(p[i]), (i, 1, C)), "cross-entropy against the smoothed target"),
            Step(
                -(1 - eps) * sp.Sum(sp.KroneckerDelta(i, y) * sp.log(p[i]), (i, 1, C))
                - eps * sp.Sum(sp.log(p[i]), (i, 1, C)) / C,
                "linearity of the finite sum",
            ),
            Step((1 - eps) * (-sp.log(p[y])) + eps * uniform, "δ_iy keeps i = y (1 ≤ y ≤ C)"),
        ),
        given=(sp.Le(1, y), sp.Le(y, C)),
    )
    wrong = lambda rhs: (decomposition.name, sp.Eq(decomposition.lhs, rhs, evaluate=False))  # noqa: E731
    other = -sp.Sum(sp.log(p[i]), (i, 1, C)) + sp.log(p[y])  # Σ_{i≠y} −log p_i
    return Body(
        assumptions=(
            "C classes, a positive integer; target y ∈ {1, …, C}; p_i > 0 the predicted probabilities",
            "ε ∈ [0, 1] (label_smoothing); the smoothed target (1−ε)·onehot(y) + ε/C sums to 1",
        ),
        parts=(decomposition,),
        mutants=(
            Mutant(
                "eps-over-c-minus-1",
                "the other classes get ε/(C−1) and the true class 1−ε (a convention "
                "other libraries use, not F.cross_entropy's)",
                (wrong((1 - eps) * (-sp.log(p[y])) + eps * other / (C - 1)),),
            ),
            Mutant(
                "no-one-minus-eps",
                "the true class keeps weight 1: CE(onehot) + ε·CE(uniform)",
                (wrong(-sp.log(p[y]) + eps * uniform),),
            ),
            Mutant(
                "smoothing-scales-loss",
                "label smoothing just scales the loss: (1−ε)·CE(onehot)",
                (wrong((1 - eps) * (-sp.log(p[y]))),),
            ),
        ),
        context=Context(indices=((y, 1, C),), sample=((eps, (0, 1)),)),
        seed_verdict=(
            "exact",
            "PyTorch's label_smoothing=ε puts ε/C on every class, the true one included "
            "(its weight is 1 − ε + ε/C), as in Szegedy et al.; the ε/(C−1) convention differs",
        ),
    )


# --- §9.8 perplexity ---------------------------------------------------------------------------------------


@claim(
    id="perplexity-exp-cross-entropy",
    title="Perplexity (Π p_t)^{−1/T} = exp(mean token cross-entropy); a uniform model over V tokens has "
    "perplexity V; perplexity ≥ 1",
    section="§9.8",
    zh=ZH,
    en=EN,
    paper="Jelinek et al. 1977, Perplexity — a measure of the difficulty of speech recognition tasks; "
    "Jurafsky & Martin, Speech and Language Processing, §3.3",
    check="mathcheck.verify.losses:perplexity_exp_cross_entropy",
)
def perplexity_exp_cross_entropy() -> Body:
    r"""For T tokens with model probabilities :math:`p_t \in (0, 1]`:

    .. math::
        \Bigl(\prod_{t=1}^{T} p_t\Bigr)^{-1/T} = \exp\Bigl(-\frac1T\sum_{t=1}^{T}\log p_t\Bigr),\qquad
        \exp\Bigl(-\frac1T\sum_{t=1}^{T}\log\frac1V\Bigr) = V

    and with every token's loss :math:`u_t = -\log p_t \ge 0`, perplexity :math:`e^{\frac1T\sum u_t} \ge 1`.
    Example: T = 2, p = (1/2, 1/8): (1/16)^{−1/2} = 4 = exp((log 2 + log 8)/2).
    """
    p = sp.IndexedBase("p", positive=True)
    uu = sp.IndexedBase("u", nonnegative=True)
    t = sp.Symbol("t", integer=True)
    T, V = sp.symbols("T V", integer=True, positive=True)
    product_as_sum = rules.product_as_exp_sum()
    mean_ce = -sp.Sum(sp.log(p[t]), (t, 1, T)) / T
    definition = Part(
        "exp-cross-entropy",
        (
            Step(sp.Product(p[t], (t, 1, T)) ** (-1 / T), "perplexity: the inverse geometric mean of the p_t"),
            Step(
                sp.exp(sp.Sum(sp.log(p[t]), (t, 1, T))) ** (-1 / T),
                "a product of positive numbers is exp of the sum of their logs",
                product_as_sum,
            ),
            Step(sp.exp(mean_ce), "(e^a)^b = e^{ab} for real a, b"),
        ),
    )
    uniform = Part(
        "uniform",
        (
            Step(sp.exp(-sp.Sum(sp.log(1 / V), (t, 1, T)) / T), "perplexity of the uniform model p_t = 1/V"),
            Step(sp.exp(T * sp.log(V) / T), "log(1/V) = −log V; the sum has T equal terms"),
            Step(V, "e^{log V} = V"),
        ),
    )
    lower = Part(
        "at-least-one",
        (
            Step(
                sp.log(sp.exp(sp.Sum(uu[t], (t, 1, T)) / T)),
                "log of the perplexity, with token losses u_t = −log p_t ≥ 0 (p_t ≤ 1)",
            ),
            Step(sp.Sum(uu[t], (t, 1, T)) / T, "log ∘ exp = id on the reals"),
            Step(sp.Integer(0), "a mean of nonnegative numbers is ≥ 0; so perplexity = e^{≥ 0} ≥ 1", relation=">="),
        ),
        given=(sp.Ge(uu[t], 0, evaluate=False),),
    )  # unevaluated: u's assumption would print it as True
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "T tokens, a positive integer; p_t ∈ (0, 1] the model's probability of token t",
            "V ≥ 1 vocabulary entries; u_t = −log p_t ≥ 0 the token's cross-entropy",
        ),
        parts=(definition, uniform, lower),
        mutants=(
            Mutant(
                "exp-of-sum",
                "exp of the summed loss (reduction='sum') instead of the mean",
                (wrong(definition, sp.exp(-sp.Sum(sp.log(p[t]), (t, 1, T)))),),
            ),
            Mutant("base-two", "2 to the power of a loss measured in nats", (wrong(definition, 2**mean_ce),)),
            Mutant(
                "mean-inverse-probability",
                "the mean of 1/p_t (arithmetic instead of geometric mean)",
                (wrong(definition, sp.Sum(1 / p[t], (t, 1, T)) / T),),
            ),
            Mutant(
                "uniform-log-v",
                "the uniform model's perplexity is log V (its cross-entropy)",
                (wrong(uniform, sp.log(V)),),
            ),
        ),
        context=Context(sample=((p, (0.05, 1)),)),
        seed_verdict=(
            "exact",
            "with the natural log of F.cross_entropy; 1 ≤ PPL always, PPL = V for the uniform "
            "model, and PPL ≤ V is not a law: a confidently wrong model exceeds V",
        ),
    )
