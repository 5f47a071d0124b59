"""§9 Beyond the article, the normalisers: RMSNorm (§9.4) and the log-sum-exp shift (§9.9).

Each claim cites its paper (``Source.paper``) instead of a sentence of the seed, is derived for symbolic
sizes, and is checked against PyTorch's own implementation (:mod:`mathcheck.verify.normalisation`). Hypotheses a
part needs are in its ``given``; the finite-sum laws it cites are rules.py's checked constructors.
"""

from __future__ import annotations

from mathcheck.symbolic import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.derivations._beyond import EN, ZH
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


# --- §9.4 RMSNorm ---------------------------------------------------------------------------------------------


@claim(
    id="rmsnorm-statistics",
    title="RMSNorm y = x/√(mean(x²)+ε): mean(y²) = m/(m+ε), mean(y) = mean(x)/√(m+ε) (not centred), "
    "∂y_i/∂x_j = (δ_ij − y_i y_j/n)/√(m+ε)",
    section="§9.4",
    zh=ZH,
    en=EN,
    paper="Zhang & Sennrich 2019, Root Mean Square Layer Normalization (NeurIPS)",
    check="mathcheck.verify.normalisation:rmsnorm_statistics",
)
def rmsnorm_statistics() -> Body:
    r"""For :math:`x \in \mathbb{R}^n`, :math:`m = \frac1n \sum_k x_k^2`, :math:`y_i = x_i/\sqrt{m+\varepsilon}`:

    .. math::
        \frac1n\sum_i y_i^2 = \frac{m}{m+\varepsilon},\quad
        \frac1n\sum_i y_i = \frac{\frac1n\sum_i x_i}{\sqrt{m+\varepsilon}},\quad
        \frac{\partial y_i}{\partial x_j} = \frac{\delta_{ij} - y_i y_j / n}{\sqrt{m+\varepsilon}}

    Example: x = (1, 1), ε = 0: m = 1, y = x, mean(y) = 1 ≠ 0 — RMSNorm does not centre.
    """
    x, y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
    i, j, k = sp.symbols("i j k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    eps = sp.Symbol("epsilon", positive=True)
    ms = sp.Sum(x[k] ** 2, (k, 1, n)) / n
    rms = sp.sqrt(ms + eps)
    define_y = rules.unfold_indexed("definition of y = RMSNorm(x)", y, lambda a: x[a] / rms)
    square = Part(
        "mean-square",
        (
            Step(sp.Sum(y[i] ** 2, (i, 1, n)) / n, "the mean square of the outputs"),
            Step(sp.Sum(x[i] ** 2 / (ms + eps), (i, 1, n)) / n, "definition of y", define_y),
            Step(ms / (ms + eps), "1/(m + ε) does not depend on i: Σ_i x_i²/n = m"),
        ),
    )
    mean = Part(
        "mean",
        (
            Step(sp.Sum(y[i], (i, 1, n)) / n, "the mean of the outputs"),
            Step(sp.Sum(x[i] / rms, (i, 1, n)) / n, "definition of y", define_y),
            Step((sp.Sum(x[i], (i, 1, n)) / n) / rms, "the root does not depend on i"),
        ),
    )
    dsum = sp.Sum(2 * x[k] * sp.KroneckerDelta(j, k), (k, 1, n))
    jac = Part(
        "jacobian",
        (
            Step(sp.Derivative(x[i] / rms, x[j]), "∂y_i/∂x_j"),
            Step(
                sp.KroneckerDelta(i, j) / rms - x[i] * dsum / (2 * n * (ms + eps) ** sp.Rational(3, 2)),
                "quotient and chain rules; ∂x_k/∂x_j = δ_kj",
                rules.differentiate(x[j]),
            ),
            Step(
                sp.KroneckerDelta(i, j) / rms - x[i] * x[j] / (n * (ms + eps) ** sp.Rational(3, 2)),
                "δ_kj keeps k = j (1 ≤ j ≤ n)",
            ),
            Step((sp.KroneckerDelta(i, j) - y[i] * y[j] / n) / rms, "write y_i, y_j; factor out 1/√(m+ε)", define_y),
        ),
        given=(sp.Le(1, i), sp.Le(i, n), sp.Le(1, j), sp.Le(j, n)),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "x ∈ R^n, n a positive integer; i, j ∈ {1, …, n}",
            "ε > 0 (nn.RMSNorm's eps)",
            "y = RMSNorm(x) with weight 1 (elementwise_affine=False)",
        ),
        parts=(square, mean, jac),
        mutants=(
            Mutant("unit-mean-square", "RMSNorm makes mean(y²) exactly 1 (ε forgotten)", (wrong(square, 1),)),
            Mutant("centred", "RMSNorm centres like LayerNorm: mean(y) = 0", (wrong(mean, 0),)),
            Mutant(
                "jacobian-diagonal",
                "the Jacobian is diagonal, δ_ij/√(m+ε) (the rms treated as a constant)",
                (wrong(jac, sp.KroneckerDelta(i, j) / rms),),
            ),
            Mutant(
                "jacobian-layernorm",
                "LayerNorm's Jacobian with its −1/n centring term",
                (wrong(jac, (sp.KroneckerDelta(i, j) - 1 / n - y[i] * y[j] / n) / rms),),
            ),
        ),
        context=Context(indices=((i, 1, n), (j, 1, n)), definitions=(define_y,)),
        seed_verdict=(
            "holds-with-conditions",
            "mean(y²) = m/(m+ε) < 1, near 1 only when m ≫ ε; RMSNorm "
            "rescales but does not centre (mean(y) = mean(x)/rms), which is the paper's point",
        ),
    )


# --- §9.9 the log-sum-exp shift -------------------------------------------------------------------------------


@claim(
    id="logsumexp-shift",
    title="log Σ e^{x_i} = c + log Σ e^{x_i − c} for every real c; with c = max x every term e^{x_i − c} ≤ 1",
    section="§9.9",
    zh=ZH,
    en=EN,
    paper="Blanchard, Higham & Higham 2021, Accurately computing the log-sum-exp and softmax functions "
    "(IMA J. Numer. Anal.)",
    check="mathcheck.verify.normalisation:logsumexp_shift",
)
def logsumexp_shift() -> Body:
    r"""For :math:`x \in \mathbb{R}^n` and any real c:

    .. math::
        \log\sum_{i=1}^{n} e^{x_i} = c + \log\sum_{i=1}^{n} e^{x_i - c},\qquad
        x_i = c - g_i^2 \Rightarrow \sum_{i=1}^{n} e^{x_i - c} = \sum_{i=1}^{n} e^{-g_i^2} \le n

    Example: x = (1000, 1000): e^{1000} overflows float64, but 1000 + log(1 + 1) = 1000.693….
    """
    x, g = sp.IndexedBase("x", real=True), sp.IndexedBase("g", real=True)
    i = sp.Symbol("i", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    c = sp.Symbol("c", real=True)
    lse = sp.log(sp.Sum(sp.exp(x[i]), (i, 1, n)))
    shift = Part(
        "shift",
        (
            Step(lse, "log-sum-exp of n logits"),
            Step(
                sp.log(sp.exp(c) * sp.Sum(sp.exp(x[i] - c), (i, 1, n))), "e^{x_i} = e^c e^{x_i−c}; e^c leaves the sum"
            ),
            Step(c + sp.log(sp.Sum(sp.exp(x[i] - c), (i, 1, n))), "log(ab) = log a + log b for a, b > 0; log e^c = c"),
        ),
    )
    bounded = Part(
        "no-overflow",
        (
            Step(sp.Sum(sp.exp(x[i] - c), (i, 1, n)), "the shifted terms, with c = max x"),
            Step(
                sp.Sum(sp.exp(-(g[i] ** 2)), (i, 1, n)),
                "every gap c − x_i ≥ 0 is a square: x_i = c − g_i² (given); c cancels",
                rules.substitute({x[i]: c - g[i] ** 2}, "given x_i = c − g_i²"),
            ),
            Step(sp.Sum(1, (i, 1, n)), "each term e^{−g_i²} ≤ 1", relation="<="),
            Step(n, "n terms of 1"),
        ),
        given=(sp.Eq(x[i], c - g[i] ** 2),),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "x ∈ R^n, n a positive integer; c ∈ R",
            "no-overflow: c = max_i x_i, so every gap c − x_i ≥ 0, written g_i² with g_i real",
        ),
        parts=(shift, bounded),
        mutants=(
            Mutant(
                "shift-dropped",
                "the shift is subtracted but never added back",
                (wrong(shift, sp.log(sp.Sum(sp.exp(x[i] - c), (i, 1, n)))),),
            ),
            Mutant(
                "shift-sign",
                "the shift added back with the wrong sign: −c + log Σ e^{x_i−c}",
                (wrong(shift, -c + sp.log(sp.Sum(sp.exp(x[i] - c), (i, 1, n)))),),
            ),
            Mutant(
                "shift-inside-log",
                "c added inside the log: log(c + Σ e^{x_i−c})",
                (wrong(shift, sp.log(c + sp.Sum(sp.exp(x[i] - c), (i, 1, n)))),),
            ),
        ),
        context=Context(),
        seed_verdict=(
            "exact",
            "exact for every c; c = max x makes every term ≤ 1 and one term = 1, so the sum "
            "lies in [1, n] and neither overflows nor underflows to log 0",
        ),
    )
