"""§2 Linear algebra: QKV projections, dot products, and why the scores are divided by √d_k."""

from __future__ import annotations

from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim
from mathcheck.symbolic import rules


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
    general = Part(
        "general",
        (
            Step(Var(dot), "variance of the dot product q·k"),
            Step(rules.E(dot**2) - rules.E(dot) ** 2, "Var(X) = E[X²] − E[X]²", rules.variance_definition()),
            Step(
                rules.E(sp.Sum(q[i] * k[i] * q[j] * k[j], (j, 1, d), (i, 1, d))) - rules.E(dot) ** 2,
                "write the square of the sum as a double sum",
                rules.square_of_sum(j),
            ),
            Step(
                sp.Sum(rules.E(q[i] * q[j]) * rules.E(k[i] * k[j]), (j, 1, d), (i, 1, d))
                - sp.Sum(rules.E(q[i]) * rules.E(k[i]), (i, 1, d)) ** 2,
                "linearity of expectation; q and k are independent",
                rules.linearity((q,), (k,)),
            ),
            Step(
                sp.Sum(
                    (mq**2 + sq**2 * sp.KroneckerDelta(i, j)) * (mk**2 + sk**2 * sp.KroneckerDelta(i, j)),
                    (j, 1, d),
                    (i, 1, d),
                )
                - sp.Sum(mq * mk, (i, 1, d)) ** 2,
                "components are i.i.d.: E[x_i x_j] = μ² + σ² δ_ij",
                rules.moments({q: (mq, sq), k: (mk, sk)}),
            ),
            Step(
                sp.Sum(d * mq**2 * mk**2 + mq**2 * sk**2 + sq**2 * mk**2 + sq**2 * sk**2, (i, 1, d))
                - d**2 * mq**2 * mk**2,
                "sum over j: the Kronecker delta keeps the term j = i",
            ),
            Step(general_rhs, "sum over i; the d²μ_q²μ_k² terms cancel"),
        ),
    )
    seed_case = (sp.Eq(mq, 0), sp.Eq(mk, 0), sp.Eq(sq, 1), sp.Eq(sk, 1))
    standard = Part(
        "standard",
        (
            Step(Var(dot), "the seed's case: every component has mean 0 and variance 1"),
            Step(general_rhs, "the general result", rules.lemma("part 'general'", Var(dot), general_rhs)),
            Step(
                d,
                "put μ = 0 and σ = 1 (the seed's assumption)",
                rules.substitute({mq: 0, mk: 0, sq: 1, sk: 1}, "μ = 0, σ = 1"),
            ),
        ),
        given=seed_case,
    )
    scaled = Part(
        "scaled",
        (
            Step(Var(dot / sp.sqrt(d)), "the scaled score q·k/√d_k"),
            Step(Var(dot) / d, "Var(cX) = c² Var(X) with c = 1/√d_k", rules.variance_scaling((q, k))),
            Step(d / d, "the standard case", rules.lemma("part 'standard'", Var(dot), d)),
            Step(sp.Integer(1), "cancel"),
        ),
        given=seed_case,
    )
    return Body(
        assumptions=(
            "q and k are independent random vectors in R^{d_k}, d_k a positive integer",
            "the components of q are i.i.d. with mean μ_q and variance σ_q²; those of k with μ_k, σ_k²",
            "the seed's case is μ_q = μ_k = 0, σ_q = σ_k = 1",
        ),
        parts=(general, standard, scaled),
        mutants=(
            Mutant(
                "variance-dk-squared",
                "the variance of the dot product grows like d_k², not d_k",
                (("standard", sp.Eq(Var(dot), d**2, evaluate=False)),),
            ),
            Mutant(
                "divide-by-dk",
                "dividing the scores by d_k (not √d_k) gives variance 1",
                (("scaled", sp.Eq(Var(dot / d), 1, evaluate=False)),),
            ),
            Mutant(
                "forget-the-means",
                "Var(q·k) = d_k σ_q² σ_k² whatever the means",
                (("general", sp.Eq(Var(dot), d * sq**2 * sk**2, evaluate=False)),),
            ),
        ),
        context=Context(),
        seed_verdict=(
            "holds-with-conditions",
            "needs q and k independent, with independent components; the seed says only "
            "'each component has mean 0 and variance 1'. With nonzero means the variance is "
            "d_k(σ_q²σ_k² + μ_q²σ_k² + μ_k²σ_q²).",
        ),
    )


# --- qkv-projection-shapes ------------------------------------------------------------------------


def matrix_shape(M) -> tuple | None:
    """``(rows, cols)`` of a matrix expression, or None when a product's inner sizes are not the same
    symbol (SymPy itself accepts ``X·X`` for an L×D matrix X with symbolic L ≠ D)."""
    if isinstance(M, sp.MatMul):
        shapes = [matrix_shape(a) for a in M.args if getattr(a, "is_Matrix", False)]
        if any(x is None for x in shapes) or any(a[1] != b[0] for a, b in zip(shapes, shapes[1:])):
            return None
        return shapes[0][0], shapes[-1][1]
    if isinstance(M, sp.Transpose):
        inner = matrix_shape(M.arg)
        return None if inner is None else (inner[1], inner[0])
    if isinstance(M, sp.MatPow):  # SymPy writes X·X as X**2: square matrices only
        inner = matrix_shape(M.base)
        return inner if inner is not None and inner[0] == inner[1] else None
    return M.shape


_AXES = {"Rows": 0, "Cols": 1}


def shape_rule() -> rules.Rule:
    """``Rows(M)``, ``Cols(M)`` → the sizes: the definition of a product's shape, (m×p)(p×n) is m×n,
    and of a transpose's; a product whose inner sizes differ keeps them (nothing is derived).

    Sizes are scalars, one statement each: ``Eq(f, Matrix)`` would be rebuilt as ``False`` when a
    verdict is unpickled (a parallel run), as SymPy evaluates the equation then."""

    def unfold(x):
        shape = matrix_shape(x.args[0])
        return x if shape is None else shape[_AXES[x.func.__name__]]

    return rules.Rule(
        "shape of a matrix expression: (m×p)(p×n) is m×n, (m×n)ᵀ is n×m",
        "definition",
        lambda e: e.replace(
            lambda x: isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ in _AXES, unfold
        ),
    )


@claim(
    id="qkv-projection-shapes",
    title="X(L×D)·W(D×d_k) is L×d_k, QKᵀ is L×L, and row r of Q depends on row r of X alone",
    section="§2.1",
    zh="QKV 变换本质上就是三次矩阵乘法：X (10, 512) @ W_Q (512, 64) -> Q (10, 64) "
    "X (10, 512) @ W_K (512, 64) -> K (10, 64) X (10, 512) @ W_V (512, 64) -> V (10, 64)",
    en="The QKV transform is in essence three matrix products: X (10, 512) @ W_Q (512, 64) -> Q (10, 64), "
    "and likewise for K and V.",
    check="mathcheck.verify.linear_algebra:qkv_projection_shapes",
)
def qkv_projection_shapes() -> Body:
    r"""Shapes and row-locality of the projections, for symbolic L, D, d_k.

    .. math::
        X \in \mathbb{R}^{L\times D},\ W_Q, W_K \in \mathbb{R}^{D\times d_k}:\quad
        XW_Q \in \mathbb{R}^{L\times d_k},\quad (XW_Q)(XW_K)^\top \in \mathbb{R}^{L\times L},\quad
        \frac{\partial Q_{rc}}{\partial X_{st}} = \delta_{rs} W_{tc}.
    """
    L, D, dk = sp.symbols("L D d_k", integer=True, positive=True)
    X = sp.MatrixSymbol("X", L, D)
    WQ, WK = sp.MatrixSymbol("W_Q", D, dk), sp.MatrixSymbol("W_K", D, dk)
    Rows, Cols = sp.Function("Rows"), sp.Function("Cols")
    shape = shape_rule()
    Q, K = X * WQ, X * WK

    Xe, W = sp.IndexedBase("X", real=True), sp.IndexedBase("W", real=True)
    r, c, s, t, m = sp.symbols("r c s t m", integer=True)
    q_rc = sp.Sum(Xe[r, m] * W[m, c], (m, 1, D))

    q_rows = Part(
        "q-rows",
        (
            Step(Rows(Q), "the rows of Q = X W_Q"),
            Step(L, "(L×D)(D×d_k) is L×d_k: one row per token", shape),
        ),
    )
    q_cols = Part(
        "q-cols",
        (
            Step(Cols(Q), "the columns of Q = X W_Q"),
            Step(dk, "(L×D)(D×d_k) is L×d_k", shape),
        ),
    )
    scores_rows = Part(
        "scores-rows",
        (
            Step(Rows(Q * K.T), "the rows of the scores Q Kᵀ"),
            Step(L, "(L×d_k)(d_k×L) is L×L: one score per (query, key) pair", shape),
        ),
    )
    scores_cols = Part(
        "scores-cols",
        (
            Step(Cols(Q * K.T), "the columns of the scores Q Kᵀ"),
            Step(L, "(L×d_k)(d_k×L) is L×L", shape),
        ),
    )
    rows = Part(
        "row-locality",
        (
            Step(sp.Derivative(q_rc, Xe[s, t]), "∂Q_rc/∂X_st with Q_rc = Σ_m X_rm W_mc"),
            Step(
                sp.Sum(sp.KroneckerDelta(r, s) * sp.KroneckerDelta(m, t) * W[m, c], (m, 1, D)),
                "∂X_rm/∂X_st = δ_rs δ_mt",
                rules.differentiate(Xe[s, t]),
            ),
            Step(sp.KroneckerDelta(r, s) * W[t, c], "the δ_mt keeps the term m = t"),
        ),
    )
    return Body(
        assumptions=(
            "L, D, d_k positive integers; X is L×D (one row per token), W_Q, W_K are D×d_k",
            "r, s ∈ {1, …, L}, t ∈ {1, …, D}, c ∈ {1, …, d_k}",
        ),
        parts=(q_rows, q_cols, scores_rows, scores_cols, rows),
        mutants=(
            Mutant(
                "scores-d-by-d",
                "QKᵀ is D×D, a matrix over the model's features (confusing it with XᵀX)",
                (
                    ("scores-rows", sp.Eq(scores_rows.lhs, D, evaluate=False)),
                    ("scores-cols", sp.Eq(scores_cols.lhs, D, evaluate=False)),
                ),
            ),
            Mutant(
                "scores-dk-by-dk",
                "the scores are d_k×d_k: QᵀK computed in place of QKᵀ",
                (
                    ("scores-rows", sp.Eq(scores_rows.lhs, dk, evaluate=False)),
                    ("scores-cols", sp.Eq(scores_cols.lhs, dk, evaluate=False)),
                ),
            ),
            Mutant(
                "rows-mix",
                "a row of Q mixes all rows of X: ∂Q_rc/∂X_st = W_tc for every s",
                (("row-locality", sp.Eq(rows.lhs, W[t, c], evaluate=False)),),
            ),
        ),
        context=Context(indices=((r, 1, L), (s, 1, L), (t, 1, D), (c, 1, dk))),
        seed_verdict=(
            "exact",
            "the shapes hold for any L, D, d_k, and each row of Q, K, V is its own "
            "token's projection: tokens first interact in QKᵀ (L×L)",
        ),
    )


# --- dot-product-cosine -------------------------------------------------------------------------


@claim(
    id="dot-product-cosine",
    title="a·b = ‖a‖‖b‖cos θ in any dimension, so the sign of a·b is the sign of cos θ",
    section="§2.2",
    zh="点积的数学意义是两个向量在方向上有多一致：夹角越小，点积越大；夹角接近 90 度，点积趋近于零；"
    "夹角为钝角，点积为负。",
    en="The dot product measures how far two vectors agree in direction: the smaller the angle, the "
    "larger the dot product; near 90 degrees it tends to zero; for an obtuse angle it is negative.",
    check="mathcheck.verify.linear_algebra:dot_product_cosine",
)
def dot_product_cosine() -> Body:
    r"""For a, b ∈ ℝⁿ with symbolic n, θ the angle at 0 of the triangle (0, a, b):

    .. math::
        \|a-b\|^2 = \|a\|^2 + \|b\|^2 - 2\,a\cdot b, \qquad a\cdot b = \|a\|\|b\|\cos\theta, \qquad
        \operatorname{sign}(a\cdot b) = \operatorname{sign}(\cos\theta)\ (a, b \ne 0).
    """
    a, b = sp.IndexedBase("a", real=True), sp.IndexedBase("b", real=True)
    i = sp.Symbol("i", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    theta = sp.Symbol("theta", real=True)

    def S(f):
        return sp.Sum(f, (i, 1, n))

    dot, aa, bb, diff = S(a[i] * b[i]), S(a[i] ** 2), S(b[i] ** 2), S((a[i] - b[i]) ** 2)
    norms_cos = sp.sqrt(aa) * sp.sqrt(bb) * sp.cos(theta)
    # θ is the angle at 0 of the triangle (0, a, b): the law of cosines is what defines it here
    angle = sp.Eq(diff, aa + bb - 2 * sp.sqrt(aa) * sp.sqrt(bb) * sp.cos(theta))
    law_of_cosines = rules.substitute(
        {diff: angle.rhs}, "law of cosines in the plane through 0, a, b: ‖a−b‖² = ‖a‖² + ‖b‖² − 2‖a‖‖b‖cos θ"
    )
    nonzero = (sp.Gt(aa, 0), sp.Gt(bb, 0))  # a ≠ 0, b ≠ 0

    expansion = Part(
        "expansion",
        (
            Step(diff, "‖a − b‖² = Σ_i (a_i − b_i)²"),
            Step(aa + bb - 2 * dot, "expand the square and split the sum"),
        ),
    )
    cosine = Part(
        "cosine",
        (
            Step(dot, "a·b = Σ_i a_i b_i"),
            Step((aa + bb - diff) / 2, "solve part 'expansion' for a·b"),
            Step(norms_cos, "the law of cosines", law_of_cosines),
        ),
        given=(angle,),
    )
    sign = Part(
        "sign",
        (
            Step(sp.sign(dot), "the sign of a·b"),
            Step(sp.sign(norms_cos), "part 'cosine'", rules.lemma("part 'cosine'", dot, norms_cos)),
            Step(sp.sign(sp.cos(theta)), "‖a‖‖b‖ > 0 (a, b ≠ 0): a positive factor does not change the sign"),
        ),
        given=(angle,) + nonzero,
    )
    return Body(
        assumptions=(
            "a, b ∈ R^n, n a positive integer, a ≠ 0, b ≠ 0",
            "θ ∈ [0, π] is the angle at 0 of the triangle (0, a, b), in the plane that contains "
            "it (Euclidean geometry: the law of cosines)",
        ),
        parts=(expansion, cosine, sign),
        mutants=(
            Mutant(
                "cosine-only",
                "the dot product is the cosine: a·b = cos θ (it measures direction alone)",
                (("cosine", sp.Eq(dot, sp.cos(theta), evaluate=False)),),
            ),
            Mutant(
                "sine",
                "a·b = ‖a‖‖b‖ sin θ (the cross product's magnitude)",
                (("cosine", sp.Eq(dot, sp.sqrt(aa) * sp.sqrt(bb) * sp.sin(theta), evaluate=False)),),
            ),
            Mutant(
                "plus-2ab",
                "‖a − b‖² = ‖a‖² + ‖b‖² + 2a·b (the sign of the cross term)",
                (("expansion", sp.Eq(diff, aa + bb + 2 * dot, evaluate=False)),),
            ),
            Mutant(
                "never-negative",
                "scores are similarities, so a·b > 0 for every pair (the score confused with its softmax weight)",
                (("sign", sp.Eq(sp.sign(dot), 1, evaluate=False)),),
            ),
        ),
        context=Context(sample=((theta, (0, 3.14)),)),
        seed_verdict=(
            "imprecise",
            "a·b = ‖a‖‖b‖cos θ: the sign follows the angle (acute > 0, right = 0, "
            "obtuse < 0) for all nonzero a, b, but 'smaller angle, larger dot product' "
            "holds only at fixed norms; direction alone is the cosine a·b/(‖a‖‖b‖)",
        ),
    )


# --- scaling-prevents-saturation ------------------------------------------------------------------


@claim(
    id="scaling-prevents-saturation",
    title="Unscaled logits saturate softmax as d_k grows; ‖J‖ ≤ tr J = 1 − Σ s_i² ≤ 2(1 − max s) vanishes",
    section="§2.2",
    zh="当向量维度 d_k 比较大时，点积的结果会随着维度增大而变得非常大。多个大的数值同时进入 softmax，"
    "会直接把 softmax 推向极端：最大的那个数概率接近 1，其他数概率接近 0，梯度几乎消失。",
    en="When d_k is large, the dot products grow with the dimension. Several large values entering "
    "softmax push it to the extreme: the largest gets probability close to 1, the others close to 0, "
    "and the gradient almost vanishes.",
    check="mathcheck.verify.linear_algebra:scaling_prevents_saturation",
)
def scaling_prevents_saturation() -> Body:
    r"""The softmax Jacobian :math:`J = \operatorname{diag}(s) - ss^\top` (claim softmax-jacobian) is
    positive semidefinite, so its trace is its nuclear norm and bounds its Frobenius and spectral
    norms; the trace vanishes as the largest weight goes to 1. For every r, with symbolic n:

    .. math::
        x^\top J x = \sum_i s_i (x_i - \bar x)^2 \ge 0, \qquad
        \|J\|_2 \le \|J\|_F \le \operatorname{tr} J = 1 - \sum_{i=1}^{n} s_i^2 \le 1 - s_r^2 \le 2(1 - s_r),

    and :math:`\operatorname{Var}(q\cdot k/\sqrt{d_k}) = 1` (claim qk-variance) keeps the logits'
    spread, hence the saturation, from growing with :math:`d_k`.
    """
    z, s, x = sp.IndexedBase("z", real=True), sp.IndexedBase("s", positive=True), sp.IndexedBase("x", real=True)
    i, j, l, r = sp.symbols("i j l r", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    define_s = rules.unfold_indexed(
        "definition of s (softmax)", s, lambda a: sp.exp(z[a]) / sp.Sum(sp.exp(z[l]), (l, 1, n))
    )
    delta = sp.KroneckerDelta
    J = s[i] * (delta(i, j) - s[j])  # claim softmax-jacobian
    xbar = sp.Sum(s[j] * x[j], (j, 1, n))

    def S(f, v=i):
        return sp.Sum(f, (v, 1, n))

    psd = Part(
        "psd",
        (
            Step(S(S(x[i] * J * x[j], j)), "xᵀJx with J_ij = s_i(δ_ij − s_j)"),
            Step(S(s[i] * x[i] ** 2) - xbar**2, "the δ_ij keeps j = i; the rest factors into a square"),
            Step(S(s[i] * (x[i] - xbar) ** 2), "complete the square about x̄ = Σ_j s_j x_j, using Σ_i s_i = 1"),
            Step(sp.Integer(0), "a sum of s_i > 0 times squares", relation=">="),
        ),
    )
    bound = Part(
        "bound",
        (
            Step(S(s[i] * (1 - s[i])), "tr J = Σ_i J_ii, J_ii = s_i(1 − s_i)"),
            Step(1 - S(s[i] ** 2), "Σ_i s_i = 1"),
            Step(1 - s[r] ** 2 - S((1 - delta(i, r)) ** 2 * s[i] ** 2), "take the term i = r out of the sum"),
            Step(1 - s[r] ** 2, "drop a sum of squares", relation="<="),
            Step(2 * (1 - s[r]), "2(1 − s_r) − (1 − s_r²) = (1 − s_r)² ≥ 0", relation="<="),
        ),
    )
    q, k = sp.IndexedBase("q"), sp.IndexedBase("k")
    d = sp.Symbol("d_k", integer=True, positive=True)
    dot = sp.Sum(q[i] * k[i], (i, 1, d))
    scaled = Part(
        "scaled",
        (
            Step(rules.Var(dot / sp.sqrt(d)), "the variance of a scaled logit q·k/√d_k"),
            Step(rules.Var(dot) / d, "Var(cX) = c² Var(X)", rules.variance_scaling((q, k))),
            Step(
                sp.Integer(1),
                "Var(q·k) = d_k (claim qk-variance, part 'standard'), and d_k/d_k = 1",
                rules.substitute({rules.Var(dot): d}, "Var(q·k) = d_k (claim qk-variance)"),
            ),
        ),
        given=(sp.Eq(rules.Var(dot), d),),
    )
    wrong = lambda rhs: sp.Le(bound.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=(
            "z ∈ R^n, n a positive integer, s = softmax(z), r ∈ {1, …, n}",
            "J = diag(s) − s sᵀ, the softmax Jacobian (claim softmax-jacobian)",
            "for a positive semidefinite J, ‖J‖_2 ≤ ‖J‖_F ≤ tr J (its eigenvalues are ≥ 0)",
            "q, k independent with i.i.d. components of mean 0 and variance 1 (claim qk-variance)",
        ),
        parts=(psd, bound, scaled),
        mutants=(
            Mutant(
                "divide-by-dk",
                "dividing the scores by d_k (not √d_k) keeps their variance at 1",
                (("scaled", sp.Eq(rules.Var(dot / d), 1, evaluate=False)),),
            ),
            Mutant("bound-constant-one", "tr J ≤ 1 − max s: the constant 2 dropped", (("bound", wrong(1 - s[r])),)),
            Mutant(
                "bound-quadratic",
                "the gradient dies quadratically: tr J ≤ (1 − max s)²",
                (("bound", wrong((1 - s[r]) ** 2)),),
            ),
        ),
        context=Context(indices=((i, 1, n), (j, 1, n), (r, 1, n)), definitions=(define_s,)),
        seed_verdict=(
            "holds-with-conditions",
            "for q, k with independent zero-mean unit-variance components the logits' spread grows "
            "like √d_k, so E[max s] → 1 and ‖J‖ ≤ tr J ≤ 2(1 − max s) → 0; dividing by √d_k keeps "
            "Var = 1 at every d_k, which removes the growth with d_k, not saturation in general",
        ),
    )
