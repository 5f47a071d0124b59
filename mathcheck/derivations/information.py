"""§5 Information theory: information content, entropy bounds, cross-entropy, Gibbs' inequality,
KL divergence in distillation."""

from __future__ import annotations

from mathcheck.symbolic import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


def distributions() -> tuple[sp.IndexedBase, sp.IndexedBase, sp.Symbol, sp.Symbol]:
    """Two positive distributions p, q over n outcomes, the index i and n."""
    p, q = sp.IndexedBase("p", positive=True), sp.IndexedBase("q", positive=True)
    i = sp.Symbol("i", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    return p, q, i, n


def information_functions(
    i, n
) -> tuple[type[sp.Function], type[sp.Function], type[sp.Function], tuple[rules.Rule, ...]]:
    """``H``, ``CrossEntropy`` and ``KL`` as named functions with the rules that unfold them."""
    H, CE, KL = sp.Function("H"), sp.Function("CrossEntropy"), sp.Function("KL")
    defs = (
        rules.unfold("definition of H", "H", lambda a: -sp.Sum(a[i] * sp.log(a[i]), (i, 1, n))),
        rules.unfold(
            "definition of cross-entropy", "CrossEntropy", lambda a, b: -sp.Sum(a[i] * sp.log(b[i]), (i, 1, n))
        ),
        rules.unfold("definition of KL", "KL", lambda a, b: sp.Sum(a[i] * sp.log(a[i] / b[i]), (i, 1, n))),
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
    decomposition = Part(
        "decomposition",
        (
            Step(CE(p, q), "the cross-entropy of q relative to p"),
            Step(-sp.Sum(p[i] * sp.log(q[i]), (i, 1, n)), "definition: −Σ p_i log q_i", defs[1]),
            Step(
                -sp.Sum(p[i] * sp.log(p[i]), (i, 1, n)) + sp.Sum(p[i] * sp.log(p[i] / q[i]), (i, 1, n)),
                "add and subtract Σ p_i log p_i; log p_i − log q_i = log(p_i/q_i) as p, q > 0",
            ),
            Step(H(p) + KL(p, q), "definitions of H(p) and KL(p‖q)", _unfold_all(defs)),
        ),
    )
    return Body(
        assumptions=(
            "p, q ∈ (0, ∞)^n, n a positive integer (the identity needs no normalisation; "
            "the numeric check uses distributions)",
        ),
        parts=(decomposition,),
        mutants=(
            Mutant(
                "minus-kl",
                "cross-entropy is the entropy *minus* the KL divergence",
                (("decomposition", sp.Eq(CE(p, q), H(p) - KL(p, q), evaluate=False)),),
            ),
            Mutant(
                "reversed-kl",
                "the KL divergence taken the other way round, KL(q‖p)",
                (("decomposition", sp.Eq(CE(p, q), H(p) + KL(q, p), evaluate=False)),),
            ),
            Mutant(
                "entropy-of-prediction",
                "the entropy of the prediction q in place of the data's p",
                (("decomposition", sp.Eq(CE(p, q), H(q) + KL(p, q), evaluate=False)),),
            ),
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


# --- helpers of the claims below ----------------------------------------------------------------


def normalisation(n, *bases, index=None) -> rules.Rule:
    """``Σ_i a_i = 1`` for each base: the assumption that makes positive vectors distributions.
    A substitution, so the part using it must state ``normalised(n, *bases)`` in its ``given``."""
    i = index if index is not None else sp.Symbol("i", integer=True)
    names = " = ".join(f"Σ{b}" for b in bases)
    return rules.substitute({sp.Sum(b[i], (i, 1, n)): sp.Integer(1) for b in bases}, f"normalisation {names} = 1")


def normalised(n, *bases, index=None) -> tuple:
    """The hypotheses ``Σ_i b_i = 1``, one per base."""
    i = index if index is not None else sp.Symbol("i", integer=True)
    return tuple(sp.Eq(sp.Sum(b[i], (i, 1, n)), 1) for b in bases)


def _gibbs_chain(KL, a, b, i, n, defs, b_sum):
    """KL(a‖b) ≥ Σ_i a_i − Σ_i b_i, termwise from log y ≤ y − 1 with y = b_i / a_i."""
    return (
        Step(KL(a, b), "the KL divergence of b from a"),
        Step(sp.Sum(a[i] * sp.log(a[i] / b[i]), (i, 1, n)), "definition: Σ a_i log(a_i/b_i)", defs[2]),
        Step(
            sp.Sum(a[i] * sp.log(a[i] / b[i]) - a[i] + b[i], (i, 1, n)) + sp.Sum(a[i] - b[i], (i, 1, n)),
            "add and subtract Σ (a_i − b_i)",
        ),
        Step(
            sp.Sum(a[i] - b[i], (i, 1, n)),
            "each a_i log(a_i/b_i) − a_i + b_i = a_i (y − 1 − log y) ≥ 0 with y = b_i/a_i "
            "(log y ≤ y − 1, part 'lemma')",
            relation=">=",
        ),
        Step(sp.Sum(a[i], (i, 1, n)) - b_sum, "split the sum"),
    )


# --- information content --------------------------------------------------------------------------


@claim(
    id="information-content",
    title="Information content I(p) = −log p: zero for a certain event, decreasing, additive",
    section="§5.1",
    zh="信息论告诉你：一个词携带的信息量，和它出现的概率成反比。概率为 1 的词（一定会出现）携带信息量是 0",
    en="Information theory tells you that the information a word carries is inversely proportional "
    "to its probability. A word of probability 1 (certain to appear) carries zero information.",
    check="mathcheck.verify.information:information_content",
)
def information_content() -> Body:
    r"""The self-information of an event of probability :math:`p \in (0, 1]`,

    .. math::
        I(p) = -\log p,\quad I(1) = 0,\quad \frac{dI}{dp} = -\frac{1}{p} < 0,\quad
        I(pq) = I(p) + I(q) \text{ for independent events}.
    """
    p, q = sp.symbols("p q", positive=True)
    I = sp.Function("I")
    define = rules.unfold("definition of I", "I", lambda a: -sp.log(a))
    definition = Part(
        "definition",
        (
            Step(I(p), "the information of an event of probability p"),
            Step(-sp.log(p), "I(p) = −log p (the seed's formula)", define),
        ),
        general=False,
    )
    certain = Part(
        "certain-event",
        (
            Step(I(sp.Integer(1)), "a certain event"),
            Step(-sp.log(sp.Integer(1)), "definition", define),
            Step(sp.Integer(0), "log 1 = 0"),
        ),
        general=False,
    )
    decreasing = Part(
        "decreasing",
        (
            Step(sp.Derivative(I(p), p), "how I changes with p"),
            Step(sp.Derivative(-sp.log(p), p), "definition", define),
            Step(-1 / p, "d log p / dp = 1/p", rules.differentiate(p)),
            Step(sp.Integer(0), "−1/p < 0 for p > 0", relation="<"),
        ),
        general=False,
    )
    additive = Part(
        "additive",
        (
            Step(I(p * q), "two independent events: the joint probability is pq"),
            Step(-sp.log(p * q), "definition", define),
            Step(-sp.log(p) - sp.log(q), "log(pq) = log p + log q for p, q > 0"),
            Step(I(p) + I(q), "definition, read backwards", define),
        ),
        general=False,
    )
    c = sp.Symbol("c", positive=True)
    return Body(
        assumptions=(
            "p, q ∈ (0, 1] (probabilities; the algebra needs only p, q > 0)",
            "the events of p and q are independent (the joint probability is pq)",
            "log is the natural logarithm (nats); another base scales I by a constant",
        ),
        parts=(definition, certain, decreasing, additive),
        mutants=(
            Mutant(
                "inverse-proportional",
                "the seed's wording read literally: I(p) = c/p for some constant c > 0 "
                "(then I(1) = c ≠ 0 and I(pq) ≠ I(p) + I(q))",
                (
                    ("definition", sp.Eq(I(p), c / p, evaluate=False)),
                    ("certain-event", sp.Eq(I(sp.Integer(1)), c, evaluate=False)),
                ),
            ),
            Mutant(
                "multiplicative",
                "information of independent events multiplies: I(pq) = I(p)·I(q)",
                (("additive", sp.Eq(I(p * q), I(p) * I(q), evaluate=False)),),
            ),
            Mutant(
                "sign-dropped",
                "the minus sign dropped: I(p) = log p (negative, increasing in p)",
                (("definition", sp.Eq(I(p), sp.log(p), evaluate=False)),),
            ),
        ),
        context=Context(sample=((p, (0, 1)), (q, (0, 1))), definitions=(define,)),
        seed_verdict=(
            "imprecise",
            "information is not inversely proportional to p (c/p) but logarithmic, "
            "I(p) = −log p = log(1/p): zero at p = 1, decreasing in p, additive over "
            "independent events (the seed's own formula −log p(x) is right)",
        ),
    )


# --- entropy bounds -------------------------------------------------------------------------------


@claim(
    id="entropy-bounds",
    title="0 ≤ H(p) ≤ log n, with H = log n (perplexity n) exactly at the uniform distribution",
    section="§5.1",
    zh="一个均匀分布熵最大，因为它“说不准下一个到底是谁”；一个集中分布熵最小，因为结果几乎确定。",
    en="A uniform distribution has the largest entropy, because it 'cannot say who comes next'; a "
    "concentrated distribution has the smallest entropy, because the outcome is almost certain.",
    check="mathcheck.verify.information:entropy_bounds",
)
def entropy_bounds() -> Body:
    r"""For a distribution p over a symbolic number n of outcomes and the uniform u_i = 1/n,

    .. math::
        \mathrm{KL}(p\,\|\,u) = \log n - H(p),\qquad 0 \le H(p) \le \log n,\qquad
        H(u) = \log n,\qquad e^{H(u)} = n.

    The upper bound is Gibbs' inequality for q = u; the lower bound holds because every
    p_i ≤ 1, so every surprisal s_i = −log p_i ≥ 0.
    """
    p, _, i, n = distributions()
    H, _, KL, defs = information_functions(i, n)
    u = sp.IndexedBase("u", positive=True)
    s = sp.IndexedBase("s", nonnegative=True)
    uniform = rules.unfold_indexed("u_i = 1/n (uniform)", u, lambda x: 1 / n)
    norm = normalisation(n, p, index=i)
    dist = normalised(n, p, index=i)
    kl_u = Part(
        "kl-to-uniform",
        (
            Step(KL(p, u), "the divergence of the uniform distribution from p"),
            Step(sp.Sum(p[i] * sp.log(p[i] / u[i]), (i, 1, n)), "definition of KL", defs[2]),
            Step(sp.Sum(p[i] * sp.log(n * p[i]), (i, 1, n)), "u_i = 1/n", uniform),
            Step(
                sp.log(n) * sp.Sum(p[i], (i, 1, n)) + sp.Sum(p[i] * sp.log(p[i]), (i, 1, n)),
                "log(n p_i) = log n + log p_i",
            ),
            Step(sp.log(n) + sp.Sum(p[i] * sp.log(p[i]), (i, 1, n)), "Σ p_i = 1", norm),
            Step(sp.log(n) - H(p), "definition of H", defs[0]),
        ),
        given=dist,
    )
    upper = Part(
        "upper-bound",
        (
            Step(H(p), "the entropy of p"),
            Step(
                sp.log(n) - KL(p, u),
                "part 'kl-to-uniform'",
                rules.lemma("part 'kl-to-uniform'", H(p), sp.log(n) - KL(p, u)),
            ),
            Step(
                sp.log(n) - sp.Sum(p[i] * sp.log(n * p[i]), (i, 1, n)),
                "definitions of KL and u",
                _definitions("definitions of KL and u", defs[2], uniform),
            ),
            Step(
                sp.log(n) - sp.Sum(p[i] * sp.log(n * p[i]) - p[i] + 1 / n, (i, 1, n)) - sp.Sum(p[i] - 1 / n, (i, 1, n)),
                "add and subtract Σ (p_i − 1/n)",
            ),
            Step(
                sp.log(n) - sp.Sum(p[i] - 1 / n, (i, 1, n)),
                "Gibbs termwise: p_i log(n p_i) − p_i + 1/n = p_i (y − 1 − log y) ≥ 0 with y = 1/(n p_i)",
                relation="<=",
            ),
            Step(sp.log(n) - sp.Sum(p[i], (i, 1, n)) + 1, "Σ_i 1/n = 1"),
            Step(sp.log(n), "Σ p_i = 1", norm),
        ),
        given=dist,
    )
    lower = Part(
        "lower-bound",
        (
            Step(H(p), "the entropy of p"),
            Step(-sp.Sum(p[i] * sp.log(p[i]), (i, 1, n)), "definition of H", defs[0]),
            Step(
                sp.Sum(sp.exp(-s[i]) * s[i], (i, 1, n)),
                "write p_i = e^{−s_i} with the surprisal s_i = −log p_i ≥ 0 (p_i ≤ Σ_j p_j = 1)",
                rules.surprisal(p, s, *dist),
            ),
            Step(sp.Integer(0), "a sum of products of nonnegative terms", relation=">="),
        ),
        given=dist,
    )
    at_uniform = Part(
        "uniform-entropy",
        (
            Step(H(u), "the entropy of the uniform distribution"),
            Step(-sp.Sum(u[i] * sp.log(u[i]), (i, 1, n)), "definition of H", defs[0]),
            Step(-sp.Sum(sp.log(1 / n) / n, (i, 1, n)), "u_i = 1/n", uniform),
            Step(sp.log(n), "n equal terms log(n)/n"),
        ),
    )
    perplexity = Part(
        "uniform-perplexity",
        (
            Step(sp.exp(H(u)), "the perplexity of the uniform distribution"),
            Step(sp.exp(sp.log(n)), "part 'uniform-entropy'", rules.lemma("part 'uniform-entropy'", H(u), sp.log(n))),
            Step(n, "exp ∘ log = id"),
        ),
    )
    return Body(
        assumptions=(
            "p ∈ (0, 1]^n with Σ_i p_i = 1 (a distribution with full support; zero "
            "probabilities contribute 0·log 0 = 0 and change nothing)",
            "u_i = 1/n, n a positive integer",
            "natural logarithm (nats)",
        ),
        parts=(kl_u, upper, lower, at_uniform, perplexity),
        mutants=(
            Mutant(
                "bound-is-n",
                "the maximum entropy is the number of outcomes: H(uniform) = n "
                "(H ≤ n holds but is loose and never attained)",
                (("uniform-entropy", sp.Eq(H(u), n, evaluate=False)),),
            ),
            Mutant(
                "uniform-is-1/n",
                "the entropy of the uniform distribution is its probability 1/n",
                (("uniform-entropy", sp.Eq(H(u), 1 / n, evaluate=False)),),
            ),
            Mutant(
                "perplexity-log-n",
                "the perplexity of the uniform model is log n (perplexity confused with entropy)",
                (("uniform-perplexity", sp.Eq(sp.exp(H(u)), sp.log(n), evaluate=False)),),
            ),
            Mutant(
                "negative-entropy",
                "a sharply peaked distribution has negative entropy (the "
                "discrete H confused with differential entropy)",
                (("lower-bound", sp.Lt(H(p), 0, evaluate=False)),),
            ),
        ),
        context=Context(sample=((p, (0, 1)),), definitions=defs + (uniform,)),
        seed_verdict=(
            "holds-with-conditions",
            "among distributions on the same n outcomes: H ≤ log n with equality only at "
            "the uniform one (perplexity n), H ≥ 0 with equality only at a one-hot one "
            "(perplexity 1); 'concentrated' means close to one-hot",
        ),
    )


def _definitions(name, *defs):
    def fn(e):
        for d in defs:
            e = d.apply(e)
        return e

    return rules.Rule(name, "definition", fn, both_sides=True)


# --- Gibbs' inequality ----------------------------------------------------------------------------


@claim(
    id="gibbs-inequality",
    title="Gibbs' inequality: KL(p‖q) ≥ 0 for distributions, = 0 when q = p (from log x ≤ x − 1)",
    section="§5.2",
    zh="因此，最小化交叉熵，等价于最小化 KL 散度，等价于让模型输出分布尽可能逼近真实分布。",
    en="Hence minimising the cross-entropy is equivalent to minimising the KL divergence, which is "
    "equivalent to making the model's output distribution approach the true distribution.",
    check="mathcheck.verify.information:gibbs_inequality",
)
def gibbs_inequality() -> Body:
    r"""The lemma and the inequality, for a symbolic number n of outcomes:

    .. math::
        \log x \le x - 1 \;(x > 0),\qquad
        \mathrm{KL}(p\,\|\,q) \ge \sum_i p_i - \sum_i q_i \;(p, q > 0),\qquad
        \mathrm{KL}(p\,\|\,q) \ge 0 \text{ when } \textstyle\sum p = \sum q = 1,\qquad
        \mathrm{KL}(p\,\|\,p) = 0.

    f(x) = x − 1 − log x has f″ = 1/x² > 0 and its only critical point at x = 1, where f = 0: so
    f ≥ 0 with equality only at x = 1, and KL(p‖q) = 0 forces q_i/p_i = 1 for every i.
    """
    p, q, i, n = distributions()
    _, _, KL, defs = information_functions(i, n)
    x = sp.Symbol("x", positive=True)
    f = x - 1 - sp.log(x)
    zero = sp.Function("UniqueZero")
    lemma = Part(
        "lemma",
        (
            Step(sp.log(x), "log x for x > 0"),
            Step(
                x - 1,
                "f = x − 1 − log x has its minimum 0 at x = 1 (parts 'critical-point', "
                "'convex'; the sign test computes the minimum over (0, ∞))",
                relation="<=",
            ),
        ),
    )
    critical = Part(
        "critical-point",
        (
            Step(zero(sp.Derivative(f, x), x), "the critical points of f(x) = x − 1 − log x on x > 0"),
            Step(zero(1 - 1 / x, x), "f′(x) = 1 − 1/x", rules.differentiate(x)),
            Step(sp.Integer(1), "1 − 1/x = 0 only at x = 1", rules.unique_zero()),
        ),
    )
    convex = Part(
        "convex",
        (
            Step(sp.Derivative(f, (x, 2)), "the curvature of f"),
            Step(x**-2, "f″(x) = 1/x²", rules.differentiate(x)),
            Step(sp.Integer(0), "1/x² > 0", relation=">"),
        ),
    )
    link = Part("link", _gibbs_chain(KL, p, q, i, n, defs, sp.Sum(q[i], (i, 1, n))))
    gibbs = Part(
        "gibbs",
        link.steps + (Step(sp.Integer(0), "Σ p_i = Σ q_i = 1", normalisation(n, p, q, index=i)),),
        given=normalised(n, p, q, index=i),
    )
    equality = Part(
        "equality",
        (
            Step(KL(p, p), "the divergence of p from itself"),
            Step(sp.Sum(p[i] * sp.log(p[i] / p[i]), (i, 1, n)), "definition", defs[2]),
            Step(sp.Integer(0), "log 1 = 0"),
        ),
    )
    return Body(
        assumptions=(
            "x > 0",
            "p, q ∈ (0, ∞)^n, n a positive integer (parts 'link', 'equality')",
            "Σ p_i = Σ q_i = 1 (part 'gibbs' only)",
        ),
        parts=(lemma, critical, convex, link, gibbs, equality),
        mutants=(
            Mutant(
                "no-normalisation",
                "KL(p‖q) ≥ 0 for any positive vectors, normalised or not "
                "(an unnormalised q = c·p with c > 1 makes it negative)",
                (("link", sp.Ge(KL(p, q), 0, evaluate=False)),),
            ),
            Mutant(
                "log-above-chord",
                "the tangent line below the logarithm: log x ≥ x − 1",
                (("lemma", sp.Ge(sp.log(x), x - 1, evaluate=False)),),
            ),
            Mutant(
                "kl-nonpositive",
                "the ratio flipped, Σ p log(q/p) taken as KL, so KL(p‖q) ≤ 0",
                (("gibbs", sp.Le(KL(p, q), 0, evaluate=False)),),
            ),
        ),
        context=Context(indices=((i, 1, n),), definitions=defs),
        seed_verdict=(
            "holds-with-conditions",
            "p and q normalised, with q_i > 0 wherever p_i > 0: then KL(p‖q) ≥ 0 with "
            "equality iff q = p, so H(p, q) = H(p) + KL(p‖q) is minimised over q "
            "exactly at q = p",
        ),
    )


# --- knowledge distillation -------------------------------------------------------------------------


def _concrete_kl(KL):
    """KL(a, b) for two concrete column vectors: Σ_k a_k log(a_k/b_k), written out."""

    def unfold(call):
        a, b = call.args
        if not (isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase)):
            return call
        return sp.Add(*[a[k] * sp.log(a[k] / b[k]) for k in range(a.rows)])

    return rules.Rule(
        "definition of KL at a point",
        "definition",
        lambda e: e.replace(
            lambda x: (
                isinstance(x, sp.core.function.AppliedUndef)
                and x.func.__name__ == "KL"
                and isinstance(x.args[0], sp.MatrixBase)
            ),
            unfold,
        ),
        both_sides=True,
    )


@claim(
    id="kl-distillation",
    title="Distillation: KL is asymmetric, F.kl_div(log q, p) = KL(p‖q) with 'batchmean' per "
    "sample, ∂/∂z of the soft cross-entropy is (q − p)/T and T²·(q − p)/T has a finite limit",
    section="§5.3",
    zh="这个“分布形态对齐”的目标，用的就是 KL 散度：L = KL(学生分布 || 教师分布)",
    en="This 'distribution shape alignment' objective is exactly the KL divergence: "
    "L = KL(student distribution || teacher distribution).",
    check="mathcheck.verify.information:kl_distillation",
)
def kl_distillation() -> Body:
    r"""Teacher p = softmax(v/T), student q = softmax(z/T), n classes (symbolic), batch size B.

    .. math::
        \mathrm{KL}(P\|Q) \ne \mathrm{KL}(Q\|P),\qquad
        \texttt{kl\_div}(\log q, p) = \sum_i p_i(\log p_i - \log q_i) = \mathrm{KL}(p\|q),

    with ``'batchmean'`` = Σ/B (the KL per sample) and ``'mean'`` = Σ/(Bn);

    .. math::
        \frac{\partial}{\partial z_i}\Big(-\sum_j p_j \log q_j\Big) = \frac{q_i - p_i}{T},\qquad
        \lim_{T\to\infty} T^2\,\frac{q_i - p_i}{T}
          = \frac{(z_i - \bar z) - (v_i - \bar v)}{n},

    so the soft-target gradient shrinks like 1/T² at high T (Hinton et al. 2015 multiply the soft
    loss by T² to compensate), and equals (z_i − v_i)/(nT²) only for zero-mean logits.
    """
    p, q, i, n = distributions()
    _, _, KL, defs = information_functions(i, n)
    j, k, b = sp.symbols("j k b", integer=True)
    B = sp.Symbol("B", integer=True, positive=True)
    T, eps = sp.Symbol("T", positive=True), sp.Symbol("epsilon", positive=True)
    z, v = sp.IndexedBase("z", real=True), sp.IndexedBase("v", real=True)
    l, ls = sp.IndexedBase("l", real=True), sp.IndexedBase("ls", real=True)
    KLDiv, Batchmean, Mean = (sp.Function(f) for f in ("KLDiv", "KLDivBatchmean", "KLDivMean"))

    # asymmetry at a concrete point: a uniform teacher and a confident student
    P, Q = sp.ImmutableMatrix([sp.Rational(1, 2)] * 2), sp.ImmutableMatrix([sp.Rational(9, 10), sp.Rational(1, 10)])
    concrete = _concrete_kl(KL)
    asymmetry = Part(
        "asymmetry",
        (
            Step(KL(P, Q) - KL(Q, P), "both directions at P = (1/2, 1/2), Q = (9/10, 1/10)"),
            Step(
                sp.log(sp.Rational(5, 9)) / 2
                + sp.log(5) / 2
                - sp.Rational(9, 10) * sp.log(sp.Rational(9, 5))
                - sp.log(sp.Rational(1, 5)) / 10,
                "definition of KL at the point",
                concrete,
            ),
            Step(
                sp.log(sp.Rational(5, 3)) - sp.Rational(9, 10) * sp.log(sp.Rational(9, 5)) + sp.log(5) / 10,
                "½ log(5/9) + ½ log 5 = log(5/3)",
            ),
            Step(sp.Integer(0), "≈ 0.5108 − 0.3681 = 0.1427 > 0", relation=">"),
        ),
        general=False,
    )

    # what F.kl_div computes: its documented pointwise loss target·(log target − input)
    pointwise = rules.unfold(
        "F.kl_div(input, target, 'sum') = Σ target·(log target − input)",
        "KLDiv",
        lambda x, t: sp.Sum(t[i] * (sp.log(t[i]) - x[i]), (i, 1, n)),
    )
    log_q = rules.unfold_indexed("input = log q", l, lambda *ix: sp.log(q[ix]))
    convention = Part(
        "kl-div-convention",
        (
            Step(KLDiv(l, p), "F.kl_div(input = log q, target = p, reduction='sum')"),
            Step(sp.Sum(p[i] * (sp.log(p[i]) - l[i]), (i, 1, n)), "PyTorch's pointwise loss", pointwise),
            Step(sp.Sum(p[i] * (sp.log(p[i]) - sp.log(q[i])), (i, 1, n)), "input = log q", log_q),
            Step(KL(p, q), "log p_i − log q_i = log(p_i/q_i); definition of KL(p‖q)", defs[2]),
        ),
    )
    per_sample = sp.Sum(sp.Sum(p[b, i] * sp.log(p[b, i] / q[b, i]), (i, 1, n)), (b, 1, B))
    pointwise_sum = lambda x, t: sp.Sum(sp.Sum(t[b, i] * (sp.log(t[b, i]) - x[b, i]), (i, 1, n)), (b, 1, B))  # noqa: E731
    summed = pointwise_sum(l, p)
    batchmean = Part(
        "batchmean",
        (
            Step(Batchmean(l, p), "F.kl_div(log q, p, reduction='batchmean') on a batch of B rows"),
            Step(
                summed / B,
                "'batchmean': the summed pointwise loss over the batch size",
                rules.unfold("'batchmean' = Σ / B", "KLDivBatchmean", lambda x, t: pointwise_sum(x, t) / B),
            ),
            Step(per_sample / B, "input = log q; log p − log q = log(p/q)", log_q),
        ),
    )
    mean = Part(
        "mean",
        (
            Step(Mean(l, p), "F.kl_div(log q, p, reduction='mean') on a batch of B rows"),
            Step(
                summed / (B * n),
                "'mean': the summed pointwise loss over the number of elements B·n",
                rules.unfold("'mean' = Σ / (B n)", "KLDivMean", lambda x, t: pointwise_sum(x, t) / (B * n)),
            ),
            Step(per_sample / (B * n), "input = log q; log p − log q = log(p/q)", log_q),
        ),
    )

    # the soft cross-entropy's gradient: L = −Σ_j p_j log softmax(z/T)_j
    S = sp.Sum(sp.exp(z[k] / T), (k, 1, n))
    log_softmax = rules.unfold_indexed(
        "log softmax(z/T)_j = z_j/T − log Σ_k exp(z_k/T)", ls, lambda x: z[x] / T - sp.log(S)
    )
    student = rules.unfold_indexed("q = softmax(z/T)", q, lambda x: sp.exp(z[x] / T) / S)
    gradient = Part(
        "soft-ce-gradient",
        (
            Step(
                sp.Derivative(-sp.Sum(p[j] * ls[j], (j, 1, n)), z[i]),
                "∂L/∂z_i for L = −Σ_j p_j log softmax(z/T)_j (soft targets p)",
            ),
            Step(sp.Derivative(-sp.Sum(p[j] * (z[j] / T - sp.log(S)), (j, 1, n)), z[i]), "log-softmax", log_softmax),
            Step(
                -p[i] / T + sp.Sum(p[j], (j, 1, n)) * sp.exp(z[i] / T) / (T * S),
                "differentiate; ∂z_j/∂z_i = δ_ij",
                rules.differentiate(z[i]),
            ),
            Step(-p[i] / T + sp.Sum(p[j], (j, 1, n)) * q[i] / T, "q = softmax(z/T)", student),
            Step((q[i] - p[i]) / T, "Σ_j p_j = 1", normalisation(n, p, index=j)),
        ),
        given=normalised(n, p, index=j),
    )

    # high temperature: T² · (q_i − p_i)/T with both softmaxes at temperature T
    soft = lambda w, t: sp.exp(w[i] / t) / sp.Sum(sp.exp(w[k] / t), (k, 1, n))  # noqa: E731
    soft_e = lambda w: sp.exp(eps * w[i]) / sp.Sum(sp.exp(eps * w[k]), (k, 1, n))  # noqa: E731
    mean_z, mean_v = sp.Sum(z[k], (k, 1, n)) / n, sp.Sum(v[k], (k, 1, n)) / n
    limit = Part(
        "high-temperature",
        (
            Step(
                sp.Limit(T**2 * (soft(z, T) - soft(v, T)) / T, T, sp.oo),
                "T² × the gradient (q_i − p_i)/T, teacher p = softmax(v/T), student q = softmax(z/T)",
            ),
            Step(sp.Limit((soft_e(z) - soft_e(v)) / eps, eps, 0, "+"), "ε = 1/T", rules.reciprocal_limit(T, eps)),
            Step(
                sp.Subs(sp.Derivative(soft_e(z) - soft_e(v), eps), eps, 0),
                "both softmaxes are 1/n at ε = 0: the limit is the derivative there",
                rules.difference_quotient(eps),
            ),
            Step(
                ((z[i] - mean_z) - (v[i] - mean_v)) / n,
                "differentiate at ε = 0 (e⁰ = 1, Σ_k 1 = n)",
                rules.Rule(
                    "evaluate the derivative at ε = 0",
                    "calculus",
                    lambda e: e.replace(lambda x: isinstance(x, sp.Subs), lambda x: x.doit()),
                ),
            ),
        ),
    )
    return Body(
        assumptions=(
            "p, q ∈ (0, 1]^n with Σ p = Σ q = 1 (rows of a batch likewise), n, B positive integers",
            "z, v ∈ R^n (student and teacher logits), T > 0",
            "F.kl_div's documented pointwise loss target·(log target − input) and its "
            "reductions: 'sum' Σ, 'batchmean' Σ/B, 'mean' Σ/(B n)",
        ),
        parts=(asymmetry, convention, batchmean, mean, gradient, limit),
        mutants=(
            Mutant(
                "symmetric",
                "KL is a distance, so the direction does not matter: KL(P‖Q) = KL(Q‖P)",
                (("asymmetry", sp.Eq(KL(P, Q), KL(Q, P), evaluate=False)),),
            ),
            Mutant(
                "swapped-kl-div-arguments",
                "F.kl_div(log q, p) read as KL(q‖p), the arguments in the order KL(input‖target)",
                (("kl-div-convention", sp.Eq(KLDiv(l, p), KL(q, p), evaluate=False)),),
            ),
            Mutant(
                "mean-is-per-sample",
                "reduction='mean' taken as the KL per sample (it also "
                "divides by the n classes; 'batchmean' is per sample)",
                (("mean", sp.Eq(Mean(l, p), per_sample / B, evaluate=False)),),
            ),
            Mutant(
                "gradient-p-minus-q",
                "the gradient's sign reversed: (p − q)/T",
                (("soft-ce-gradient", sp.Eq(gradient.lhs, (p[i] - q[i]) / T, evaluate=False)),),
            ),
            Mutant(
                "gradient-times-T",
                "the temperature multiplied instead of divided: T(q − p)",
                (("soft-ce-gradient", sp.Eq(gradient.lhs, T * (q[i] - p[i]), evaluate=False)),),
            ),
            Mutant(
                "zero-mean-dropped",
                "Hinton's high-temperature form (z_i − v_i)/(nT²) used for logits that are not zero-mean",
                (("high-temperature", sp.Eq(limit.lhs, (z[i] - v[i]) / n, evaluate=False)),),
            ),
        ),
        context=Context(indices=((i, 1, n),), definitions=(concrete,) + defs + (pointwise, log_q)),
        seed_verdict=(
            "imprecise",
            "KL is asymmetric and standard distillation (Hinton et al. 2015) minimises "
            "KL(teacher‖student) = soft cross-entropy − H(teacher), scaled by T², i.e. "
            "F.kl_div(log_softmax(z/T), softmax(v/T), reduction='batchmean')·T²; the seed's "
            "KL(student‖teacher) is the reverse (mode-seeking) objective of reverse-KL "
            "distillation variants, not the standard one",
        ),
    )
