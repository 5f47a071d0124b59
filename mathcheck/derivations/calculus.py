"""§4 Calculus and optimisation: the chain rule, gradient descent, Adam, LayerNorm, residuals."""

from __future__ import annotations

from typing import Callable

from mathcheck.symbolic import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step, relation
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


def softmax_symbols() -> tuple[sp.IndexedBase, sp.IndexedBase, sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol]:
    """The symbols of a softmax over ``n`` logits: z, s, indices i, j, k and n."""
    z, s = sp.IndexedBase("z", real=True), sp.IndexedBase("s", positive=True)
    i, j, k = sp.symbols("i j k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    return z, s, i, j, k, n


def softmax_definition(z, k, n) -> Callable[[sp.Expr], sp.Expr]:
    """``x ↦ exp(z_x) / Σ_k exp(z_k)`` as a rule that unfolds ``s[x]``."""
    return lambda x: sp.exp(z[x]) / sp.Sum(sp.exp(z[k]), (k, 1, n))


@claim(
    id="softmax-jacobian",
    title="The softmax Jacobian is diag(s) − s sᵀ: ∂s_i/∂z_j = s_i(δ_ij − s_j)",
    section="§4.1",
    zh="这个式子看着简单，但放到 Transformer 里会演变成一个很长很长的链：损失对 logits 求导，"
    "logits 对注意力输出求导，注意力输出对 value 求导……",
    en="The formula looks simple, but in a Transformer it becomes a very long chain: the loss is "
    "differentiated with respect to the logits, the logits with respect to the attention output, ...",
    check="mathcheck.verify.calculus:softmax_jacobian",
)
def softmax_jacobian() -> Body:
    r"""The derivative of softmax, for a symbolic number of logits n.

    .. math::
        \frac{\partial s_i}{\partial z_j} = s_i(\delta_{ij} - s_j), \qquad
        \sum_j \frac{\partial s_i}{\partial z_j} = 0, \qquad J = J^\top

    where :math:`s_i = e^{z_i} / \sum_{k=1}^{n} e^{z_k}`.
    """
    z, s, i, j, k, n = softmax_symbols()
    soft = softmax_definition(z, k, n)
    total = sp.Sum(sp.exp(z[k]), (k, 1, n))
    define_s = rules.unfold_indexed("definition of s", s, soft)
    J = s[i] * (sp.KroneckerDelta(i, j) - s[j])

    jacobian = Part(
        "jacobian",
        (
            Step(sp.Derivative(sp.exp(z[i]) / total, z[j]), "∂s_i/∂z_j with s_i = exp(z_i)/Σ_k exp(z_k)"),
            Step(
                sp.exp(z[i]) * sp.KroneckerDelta(i, j) / total
                - sp.exp(z[i]) * sp.Sum(sp.exp(z[k]) * sp.KroneckerDelta(j, k), (k, 1, n)) / total**2,
                "quotient rule; ∂z_i/∂z_j = δ_ij",
                rules.differentiate(z[j]),
            ),
            Step(
                sp.exp(z[i]) * sp.KroneckerDelta(i, j) / total - sp.exp(z[i]) * sp.exp(z[j]) / total**2,
                "the δ_jk keeps the term k = j of the sum",
            ),
            Step(s[i] * sp.KroneckerDelta(i, j) - s[i] * s[j], "write s_i for exp(z_i)/Σ_k exp(z_k)", define_s),
            Step(J, "factor out s_i"),
        ),
    )
    normalised = Part(
        "normalised",
        (
            Step(sp.Sum(s[j], (j, 1, n)), "the softmax outputs sum to one"),
            Step(sp.Sum(sp.exp(z[j]), (j, 1, n)) / total, "definition of s", define_s),
            Step(sp.Integer(1), "the same sum over and under the bar"),
        ),
    )
    rows = Part(
        "rows",
        (
            Step(sp.Sum(J, (j, 1, n)), "a row of the Jacobian, J·1"),
            Step(s[i] - s[i] * sp.Sum(s[j], (j, 1, n)), "the δ_ij keeps s_i; the rest is s_i Σ_j s_j"),
            Step(
                sp.Integer(0), "Σ_j s_j = 1", rules.lemma("part 'normalised'", sp.Sum(s[j], (j, 1, n)), sp.Integer(1))
            ),
        ),
    )
    symmetric = Part(
        "symmetric",
        (
            Step(J - s[j] * (sp.KroneckerDelta(j, i) - s[i]), "J − Jᵀ, entry (i, j)"),
            Step(sp.KroneckerDelta(i, j) * (s[i] - s[j]), "the s_i s_j terms cancel"),
            Step(sp.Integer(0), "δ_ij vanishes unless i = j, where s_i − s_j = 0"),
        ),
    )
    wrong = lambda rhs: sp.Eq(jacobian.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=("z ∈ R^n, n a positive integer", "i, j ∈ {1, …, n}", "s_i = exp(z_i) / Σ_k exp(z_k) (softmax)"),
        parts=(jacobian, normalised, rows, symmetric),
        mutants=(
            Mutant(
                "sign-flip",
                "the sign of the Jacobian flipped: s_i(s_j − δ_ij)",
                (("jacobian", wrong(s[i] * (s[j] - sp.KroneckerDelta(i, j)))),),
            ),
            Mutant(
                "missing-diagonal",
                "the diagonal term forgotten: ∂s_i/∂z_j = −s_i s_j",
                (("jacobian", wrong(-s[i] * s[j])),),
            ),
            Mutant(
                "diagonal-everywhere",
                "the diagonal formula used off the diagonal: s_i(1 − s_j)",
                (("jacobian", wrong(s[i] * (1 - s[j]))),),
            ),
            Mutant(
                "like-exp",
                "softmax differentiated like exp, forgetting the normaliser: s_i δ_ij",
                (("jacobian", wrong(s[i] * sp.KroneckerDelta(i, j))),),
            ),
            Mutant(
                "rows-sum-to-one",
                "the rows of the Jacobian sum to one, like the probabilities",
                (("rows", sp.Eq(rows.lhs, 1, evaluate=False)),),
            ),
        ),
        # s is unfolded before every zero test, so a counterexample is a point z, not a free s.
        context=Context(indices=((i, 1, n), (j, 1, n)), definitions=(define_s,)),
        seed_verdict=("exact", "the seed names the chain through the logits; this is its softmax link"),
    )


# --- helpers for the claims below ----------------------------------------------------------------------


def _exchange_sums(name: str = "exchange the order of two finite sums"):
    """``Σ_a Σ_c f = Σ_c Σ_a f`` for sums with bounds free of each other's variables
    (:func:`mathcheck.symbolic.rules.exchange_sums`, which refuses dependent bounds)."""
    return rules.exchange_sums(name)


def _split_last(upper, name: str = "split off the last term of a finite sum"):
    """``Σ_{k=1}^{t} f(k) = Σ_{k=1}^{t-1} f(k) + f(t)`` for sums whose upper bound is ``upper``."""
    return rules.split_last(upper, name)


# --- chain-rule-linear-layer ------------------------------------------------------------------------


@claim(
    id="chain-rule-linear-layer",
    title="Through y = XW + b: ∂L/∂W = Xᵀ ∂L/∂y, ∂L/∂X = ∂L/∂y Wᵀ, ∂L/∂b = Σ_rows ∂L/∂y",
    section="§4.1",
    zh="假设损失是 L，模型某一层的输出是 y，y 由权重 W 算出来，链式法则告诉我们：dL/dW = (dL/dy) * (dy/dW)",
    en="Suppose the loss is L, a layer's output is y, and y is computed from the weights W; the chain "
    "rule tells us: dL/dW = (dL/dy) * (dy/dW)",
    check="mathcheck.verify.calculus:chain_rule_linear_layer",
)
def chain_rule_linear_layer() -> Body:
    r"""The chain rule through a linear layer, entrywise, for symbolic sizes N × d → N × h.

    .. math::
        y_{ac} = \sum_{k=1}^{d} X_{ak} W_{kc} + b_c,\quad
        \frac{\partial L}{\partial W_{uv}} = \sum_{a,c} g_{ac}\frac{\partial y_{ac}}{\partial W_{uv}}
        = (X^\top g)_{uv},\quad \frac{\partial L}{\partial X_{rs}} = (g W^\top)_{rs},\quad
        \frac{\partial L}{\partial b_v} = \sum_a g_{av}

    with :math:`g = \partial L/\partial y` (N × h), whatever the loss L = f(y).
    """
    X, W, b, g = (sp.IndexedBase(name, real=True) for name in ("X", "W", "b", "g"))
    a, c, k, r, s, u, v = sp.symbols("a c k r s u v", integer=True)
    N, d, h = sp.symbols("N d h", integer=True, positive=True)
    y = sp.Sum(X[a, k] * W[k, c], (k, 1, d)) + b[c]

    def diff(wrt):
        return rules.differentiate(
            wrt,
            f"differentiate with respect to {wrt}; ∂X_ak/∂X_rs = δ_ar δ_ks, ∂W_kc/∂W_uv = δ_ku δ_cv, ∂b_c/∂b_v = δ_cv",
        )

    def chain(wrt):
        return sp.Sum(g[a, c] * sp.Derivative(y, wrt), (c, 1, h), (a, 1, N))

    weight = Part(
        "weight-gradient",
        (
            Step(chain(W[u, v]), "chain rule: ∂L/∂W_uv = Σ_{a,c} (∂L/∂y_ac)(∂y_ac/∂W_uv), g = ∂L/∂y"),
            Step(
                sp.Sum(
                    g[a, c] * sp.Sum(sp.KroneckerDelta(c, v) * sp.KroneckerDelta(k, u) * X[a, k], (k, 1, d)),
                    (c, 1, h),
                    (a, 1, N),
                ),
                "differentiate y_ac = Σ_k X_ak W_kc + b_c",
                diff(W[u, v]),
            ),
            Step(sp.Sum(X[a, u] * g[a, v], (a, 1, N)), "δ_ku keeps k = u, δ_cv keeps c = v"),
        ),
    )
    inputs = Part(
        "input-gradient",
        (
            Step(chain(X[r, s]), "chain rule: ∂L/∂X_rs = Σ_{a,c} (∂L/∂y_ac)(∂y_ac/∂X_rs)"),
            Step(
                sp.Sum(
                    g[a, c] * sp.Sum(sp.KroneckerDelta(a, r) * sp.KroneckerDelta(k, s) * W[k, c], (k, 1, d)),
                    (c, 1, h),
                    (a, 1, N),
                ),
                "differentiate y_ac",
                diff(X[r, s]),
            ),
            Step(sp.Sum(g[a, c] * sp.KroneckerDelta(a, r) * W[s, c], (c, 1, h), (a, 1, N)), "δ_ks keeps k = s"),
            Step(
                sp.Sum(g[a, c] * sp.KroneckerDelta(a, r) * W[s, c], (a, 1, N), (c, 1, h)),
                "sum over a first",
                _exchange_sums(),
            ),
            Step(sp.Sum(g[r, c] * W[s, c], (c, 1, h)), "δ_ar keeps a = r"),
        ),
    )
    bias = Part(
        "bias-gradient",
        (
            Step(chain(b[v]), "chain rule: ∂L/∂b_v = Σ_{a,c} (∂L/∂y_ac)(∂y_ac/∂b_v)"),
            Step(sp.Sum(g[a, c] * sp.KroneckerDelta(c, v), (c, 1, h), (a, 1, N)), "∂b_c/∂b_v = δ_cv", diff(b[v])),
            Step(sp.Sum(g[a, v], (a, 1, N)), "δ_cv keeps c = v: the bias gradient sums over the rows"),
        ),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "X ∈ R^{N×d}, W ∈ R^{d×h}, b ∈ R^h; y = XW + 1bᵀ (nn.Linear stores Wᵀ as its weight)",
            "L = f(y) for any differentiable f; g = ∂L/∂y ∈ R^{N×h}",
            "u ∈ {1..d}, v ∈ {1..h}, r ∈ {1..N}, s ∈ {1..d}",
        ),
        parts=(weight, inputs, bias),
        mutants=(
            Mutant(
                "order-swapped",
                "the scalar chain rule's order copied: ∂L/∂W = (∂L/∂y) Xᵀ",
                (wrong(weight, sp.Sum(g[u, k] * X[v, k], (k, 1, h))),),
            ),
            Mutant(
                "missing-transpose",
                "the transpose of X forgotten: ∂L/∂W = X (∂L/∂y)",
                (wrong(weight, sp.Sum(X[u, k] * g[k, v], (k, 1, d))),),
            ),
            Mutant(
                "input-no-transpose",
                "∂L/∂X = (∂L/∂y) W, without Wᵀ",
                (wrong(inputs, sp.Sum(g[r, c] * W[c, s], (c, 1, h))),),
            ),
            Mutant(
                "bias-mean",
                "the bias gradient is the batch mean of ∂L/∂y, not its sum",
                (wrong(bias, sp.Sum(g[a, v], (a, 1, N)) / N),),
            ),
        ),
        context=Context(indices=((u, 1, d), (v, 1, h), (r, 1, N), (s, 1, d))),
        seed_verdict=(
            "imprecise",
            "for matrices the product has an order and a transpose: ∂L/∂W = Xᵀ(∂L/∂y) and "
            "∂L/∂X = (∂L/∂y)Wᵀ; '(dL/dy)·(dy/dW)' is a contraction over y's entries, not a "
            "matrix product",
        ),
    )


# --- gradient-descent-decrease ------------------------------------------------------------------------


def _smoothness(Lf, w, G, beta, D, i, n):
    """β-smoothness as an equation with a slack: for y = w + c·g (c ≠ 0),
    ``L(y) = L(w) + ∇L(w)·(y − w) + β/2‖y − w‖² − D`` with ``D ≥ 0`` (the upper quadratic bound)."""

    def expand(x):
        (arg,) = x.args
        step = sp.cancel(sp.expand(arg - w) / G)
        if step == 0 or step.has(w, G):
            return x
        return Lf(w) + sp.Sum(G[i] * step * G[i], (i, 1, n)) + beta / 2 * sp.Sum((step * G[i]) ** 2, (i, 1, n)) - D

    return rules.Rule(
        "β-smoothness: L(y) ≤ L(w) + ∇L(w)·(y−w) + β/2‖y−w‖², with slack D ≥ 0",
        "axiom",
        lambda e: e.replace(lambda x: isinstance(x, sp.core.function.AppliedUndef) and x.func == Lf, expand),
        both_sides=True,
    )


@claim(
    id="gradient-descent-decrease",
    title="A step against the gradient decreases L to first order by η‖∇L‖²; for β-smooth L and "
    "η ≤ 1/β by at least (η/2)‖∇L‖²",
    section="§4.2",
    zh="这个式子把参数沿着梯度反方向挪一小步。……“梯度是上升方向，所以减梯度是下降”",
    en="This formula moves the parameters a small step against the gradient. ... 'the gradient is the "
    "ascent direction, so subtracting the gradient descends'",
    check="mathcheck.verify.calculus:gradient_descent_decrease",
)
def gradient_descent_decrease() -> Body:
    r"""Gradient descent decreases the loss: to first order always, with a guarantee for small steps.

    .. math::
        \frac{d}{dt} L(w - t g)\Big|_{t=0} = -\sum_{i=1}^{n} g_i^2, \qquad
        L(w - \eta g) \le L(w) - \Big(\eta - \frac{\beta\eta^2}{2}\Big)\|g\|^2
        \le L(w) - \frac{\eta}{2}\|g\|^2 \quad (0 < \eta \le 1/\beta)

    with :math:`g = \nabla L(w)` and L β-smooth. The step size is written
    :math:`\eta = 1/(\beta(1+s))`, :math:`s \ge 0`, which is exactly :math:`0 < \eta \le 1/\beta`.
    """
    w, G = sp.IndexedBase("w", real=True), sp.IndexedBase("g", real=True)
    i = sp.Symbol("i", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    t = sp.Symbol("t", real=True)
    eta, beta = sp.symbols("eta beta", positive=True)
    s, D = sp.symbols("s D", nonnegative=True)
    Lf = sp.Function("L")
    norm2 = sp.Sum(G[i] ** 2, (i, 1, n))
    smooth = _smoothness(Lf, w, G, beta, D, i, n)
    step_size = rules.Rule(
        "0 < η ≤ 1/β, written η = 1/(β(1+s)) with s ≥ 0",
        "definition",
        lambda e: e.xreplace({eta: 1 / (beta * (1 + s))}),
        both_sides=True,
        statement=sp.Eq(eta, 1 / (beta * (1 + s))),
    )

    def chain_rule(x):
        (arg,) = x.expr.expr.args  # Subs(Derivative(L(w + c(t)·g), t), t, 0)
        c = sp.cancel(sp.expand(arg - w) / G)
        return sp.Sum(G[i] * sp.Derivative(w[i] + c * G[i], t), (i, 1, n))

    chain = rules.Rule(
        "chain rule: d/dt L(w + c(t)g) = Σ_i ∂_iL · d(w_i + c(t)g_i)/dt, ∂_iL = g_i at t = 0",
        "calculus",
        lambda e: e.replace(lambda x: isinstance(x, sp.Subs), chain_rule),
    )

    first = Part(
        "first-order",
        (
            Step(sp.Subs(sp.Derivative(Lf(w - t * G), t), t, 0), "the slope of the loss along the step w − t·g"),
            Step(sp.Sum(G[i] * sp.Derivative(w[i] - t * G[i], t), (i, 1, n)), "chain rule", chain),
            Step(sp.Sum(G[i] * (-G[i]), (i, 1, n)), "d(w_i − t g_i)/dt = −g_i", rules.differentiate(t)),
            Step(-norm2, "−‖g‖²: the loss decreases at rate ‖∇L‖² along −∇L"),
        ),
    )
    descent = Part(
        "descent-lemma",
        (
            Step(Lf(w - eta * G), "the loss after one step of gradient descent"),
            Step(
                Lf(w) + sp.Sum(G[i] * (-eta) * G[i], (i, 1, n)) + beta / 2 * sp.Sum((eta * G[i]) ** 2, (i, 1, n)) - D,
                "β-smoothness at y = w − ηg",
                smooth,
            ),
            Step(Lf(w) - eta * norm2 + beta * eta**2 / 2 * norm2, "drop the slack D ≥ 0", relation="<="),
            Step(Lf(w) - (eta - beta * eta**2 / 2) * norm2, "collect ‖g‖²"),
            Step(Lf(w) - eta / 2 * norm2, "η − βη²/2 ≥ η/2 when η ≤ 1/β (part 'step-factor')", relation="<="),
        ),
    )
    factor = Part(
        "step-factor",
        (
            Step((eta - beta * eta**2 / 2) * norm2, "the decrease the smoothness bound guarantees"),
            Step(eta / 2 * norm2, "(η − βη²/2 − η/2)‖g‖² = (η/2)(1 − βη)‖g‖² ≥ 0 for 0 < η ≤ 1/β", relation=">="),
        ),
    )
    return Body(
        assumptions=(
            "w ∈ R^n, g = ∇L(w)",
            "L is β-smooth: L(y) ≤ L(w) + ∇L(w)·(y−w) + β/2‖y−w‖²",
            "0 < η ≤ 1/β (η = 1/(β(1+s)), s ≥ 0)",
        ),
        parts=(first, descent, factor),
        mutants=(
            Mutant(
                "gradient-is-descent",
                "the gradient taken as the descent direction: the slope of L(w − t∇L) at t = 0 is +‖∇L‖²",
                (("first-order", sp.Eq(first.lhs, norm2, evaluate=False)),),
            ),
            Mutant(
                "ascent-decreases",
                "a step along +∇L (gradient ascent) also decreases the loss by (η/2)‖∇L‖²",
                (("descent-lemma", relation(Lf(w + eta * G), Lf(w) - eta / 2 * norm2, "<=")),),
            ),
            Mutant(
                "any-step-size",
                "any step size decreases the loss: η = 3/β still gains (η/2)‖∇L‖²",
                (("descent-lemma", relation(Lf(w - 3 / beta * G), Lf(w) - 3 / (2 * beta) * norm2, "<=")),),
            ),
        ),
        # The slack of smoothness is at most the bound itself; a counterexample takes it small (the
        # quadratic β/2‖x‖² attains the bound, D = 0).
        context=Context(definitions=(step_size, smooth), sample=((D, (0, 0.01)),)),
        seed_verdict=(
            "holds-with-conditions",
            "−∇L descends only to first order (slope −‖∇L‖²); a finite step decreases L "
            "when L is β-smooth and 0 < η < 2/β, by at least (η/2)‖∇L‖² for η ≤ 1/β",
        ),
    )


# --- adam-update --------------------------------------------------------------------------------------


def adam_symbols() -> tuple[sp.Basic, ...]:
    """g[i, k]: the gradient of parameter i at step k; t the step; β1, β2, lr, ε, c positive."""
    g = sp.IndexedBase("g", real=True)
    i, k = sp.symbols("i k", integer=True)
    n, t = sp.symbols("n t", integer=True, positive=True)
    beta1, beta2, lr, eps, c = sp.symbols("beta1 beta2 lr epsilon c", positive=True)
    return g, i, k, n, t, beta1, beta2, lr, eps, c


def ema(beta, x, k, t) -> sp.Expr:
    """The moving average ``m_t = β m_{t-1} + (1 − β) x_t`` from ``m_0 = 0``, unrolled:
    ``(1 − β) Σ_{k=1}^{t} β^{t−k} x_k``."""
    return (1 - beta) * sp.Sum(beta ** (t - k) * x, (k, 1, t))


@claim(
    id="adam-update",
    title="torch.optim.Adam's step is −lr·m̂/(√v̂ + ε) with bias-corrected moments; the first step is "
    "−lr·g/(|g| + ε), and the step is invariant to rescaling the gradients as ε → 0",
    section="§4.2",
    zh="它不只用当前梯度，还维护了梯度的滑动平均，并且对每个参数做“自动归一化”：梯度大的参数步长被压小，"
    "梯度小的参数步长被放大。",
    en="It uses not only the current gradient but keeps a moving average of gradients, and 'normalises "
    "automatically' per parameter: parameters with large gradients get smaller steps, those with "
    "small gradients larger ones.",
    check="mathcheck.verify.calculus:adam_update",
)
def adam_update() -> Body:
    r"""Adam (Kingma & Ba, Algorithm 1, as ``torch.optim.Adam`` implements it), per parameter i.

    .. math::
        m_t = (1-\beta_1)\sum_{k=1}^{t}\beta_1^{t-k} g_k,\quad
        v_t = (1-\beta_2)\sum_{k=1}^{t}\beta_2^{t-k} g_k^2,\quad
        \Delta_t = -\,\mathrm{lr}\,\frac{m_t/(1-\beta_1^t)}{\sqrt{v_t/(1-\beta_2^t)}+\varepsilon}

    :math:`\Delta_1 = -\mathrm{lr}\, g_1/(|g_1|+\varepsilon) \to -\mathrm{lr}\,\mathrm{sign}(g_1)` and,
    at :math:`\varepsilon = 0`, :math:`\Delta_t(c\,g) = \Delta_t(g)` for every :math:`c > 0`.
    """
    g, i, k, n, t, b1, b2, lr, eps, c = adam_symbols()
    # v_t ≥ 0, but a nonnegative symbol makes SymPy split √(v_t/(1 − β2^t)) into roots of factors of
    # unknown sign; the unrolled sum it stands for is what the step checks.
    m, v = sp.Symbol("m_t", real=True), sp.Symbol("v_t", real=True)
    M, V = ema(b1, g[i, k], k, t), ema(b2, g[i, k] ** 2, k, t)
    split = _split_last(t)

    def moment(name, beta, x):
        return Part(
            name,
            (
                Step(
                    beta * ema(beta, x, k, t - 1) + (1 - beta) * x.xreplace({k: t}),
                    "the update m_t = β m_(t−1) + (1 − β) x_t with m_(t−1) unrolled (induction on t, m_0 = 0)",
                ),
                Step(
                    (1 - beta) * sp.Sum(beta ** (t - k) * x, (k, 1, t - 1)) + (1 - beta) * x.xreplace({k: t}),
                    "β enters the sum: β·β^(t−1−k) = β^(t−k)",
                ),
                Step(ema(beta, x, k, t), "the term k = t of the sum is (1 − β)β⁰x_t", split),
            ),
        )

    update_rhs = -lr * (M / (1 - b1**t)) / (sp.sqrt(V / (1 - b2**t)) + eps)
    update = Part(
        "update",
        (
            Step(
                -lr * (m / (1 - b1**t)) / (sp.sqrt(v / (1 - b2**t)) + eps),
                "Adam's step: −lr·m̂/(√v̂ + ε), m̂ = m_t/(1 − β1^t), v̂ = v_t/(1 − β2^t), ε outside the root",
            ),
            Step(
                update_rhs,
                "m_t, v_t unrolled (parts 'first-moment', 'second-moment')",
                rules.substitute({m: M, v: V}, "m_t, v_t unrolled (parts 'first-moment', 'second-moment')"),
            ),
        ),
        given=(sp.Eq(m, M), sp.Eq(v, V)),
    )
    first_rhs = -lr * g[i, 1] / (sp.Abs(g[i, 1]) + eps)
    first = Part(
        "first-step",
        (
            Step(update_rhs.xreplace({t: 1}), "the step at t = 1"),
            Step(
                first_rhs, "m_1 = (1 − β1)g_1 and v_1 = (1 − β2)g_1²; the bias corrections cancel (1 − β); √(g²) = |g|"
            ),
        ),
    )
    limit = Part(
        "sign-limit",
        (
            Step(sp.Limit(first_rhs, eps, 0, "+"), "the first step as ε → 0⁺"),
            Step(
                -lr * g[i, 1] / sp.Abs(g[i, 1]),
                "continuous at ε = 0 for g ≠ 0: −lr·sign(g_1)",
                rules.Rule(
                    "evaluate the limit",
                    "calculus",
                    lambda e: e.replace(lambda x: isinstance(x, sp.Limit), lambda x: x.doit()),
                ),
            ),
        ),
    )
    at_zero = lambda e: e.xreplace({eps: 0})  # noqa: E731
    Mc, Vc = ema(b1, c * g[i, k], k, t), ema(b2, c**2 * g[i, k] ** 2, k, t)
    scaled = Part(
        "scale-invariance",
        (
            Step(at_zero(update_rhs.xreplace({M: Mc, V: Vc})), "the step at ε = 0 for the gradients c·g"),
            Step(-lr * c * (M / (1 - b1**t)) / sp.sqrt(c**2 * V / (1 - b2**t)), "c and c² leave the sums"),
            Step(at_zero(update_rhs), "√(c²) = c for c > 0: c cancels"),
        ),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "g[i, k] ∈ R: the gradient of parameter i ∈ {1..n} at step k ∈ {1..t}",
            "0 < β1, β2 < 1, lr > 0, ε > 0; m_0 = v_0 = 0 (torch.optim.Adam defaults: "
            "no weight decay, amsgrad off, maximize off)",
            "c > 0",
            "g[i, 1] ≠ 0 for the limit ε → 0",
        ),
        parts=(
            moment("first-moment", b1, g[i, k]),
            moment("second-moment", b2, g[i, k] ** 2),
            update,
            first,
            limit,
            scaled,
        ),
        mutants=(
            Mutant(
                "eps-inside-sqrt",
                "ε added under the root (TensorFlow's epsilon-hat style): −lr·m̂/√(v̂ + ε)",
                (wrong(update, -lr * (M / (1 - b1**t)) / sp.sqrt(V / (1 - b2**t) + eps)),),
            ),
            Mutant(
                "no-bias-correction",
                "the moments used without bias correction: −lr·m_t/(√v_t + ε)",
                (wrong(update, -lr * M / (sp.sqrt(V) + eps)),),
            ),
            Mutant("first-step-sgd", "Adam's first step is plain SGD's: −lr·g_1", (wrong(first, -lr * g[i, 1]),)),
        ),
        # β1, β2 ∈ (0, 1): a counterexample outside that range would show nothing about Adam
        context=Context(indices=((i, 1, n),), sample=((b1, (0, 1)), (b2, (0, 1)))),
        seed_verdict=(
            "holds-with-conditions",
            "Adam's per-parameter step −lr·m̂/(√v̂+ε) has magnitude ≈ lr whatever the gradient's "
            "scale (exactly invariant to g → cg at ε = 0), so small gradients get relatively "
            "larger steps only while √v̂ ≫ ε; for |g| ≲ ε the step shrinks with g",
        ),
    )


# --- layernorm-statistics -----------------------------------------------------------------------------


def layernorm_symbols() -> tuple[sp.Basic, ...]:
    x, y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
    i, j, k, m = sp.symbols("i j k m", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    eps = sp.Symbol("epsilon", positive=True)
    return x, y, i, j, k, m, n, eps


def layernorm_moments(x, k, m, n) -> tuple[sp.Expr, sp.Expr]:
    """μ = Σ_m x_m / n and the biased variance σ² = Σ_k (x_k − μ)² / n, as nn.LayerNorm computes them."""
    mu = sp.Sum(x[m], (m, 1, n)) / n
    return mu, sp.Sum((x[k] - mu) ** 2, (k, 1, n)) / n


@claim(
    id="layernorm-statistics",
    title="LayerNorm's output has mean 0 and biased variance σ²/(σ²+ε) → 1; it is invariant to "
    "x → ax + b (a > 0); its Jacobian is (I − 11ᵀ/n − yyᵀ/n)/√(σ²+ε)",
    section="§4.3",
    zh="LayerNorm 则把每一层的激活值拉回到均值为 0、方差为 1 的范围内，避免数值分布在层层传递中越漂越离谱。",
    en="LayerNorm pulls each layer's activations back to mean 0 and variance 1, keeping the distribution "
    "from drifting further and further as it passes through the layers.",
    check="mathcheck.verify.calculus:layernorm_statistics",
)
def layernorm_statistics() -> Body:
    r"""LayerNorm without its affine part, over a symbolic number of features n.

    .. math::
        y_i = \frac{x_i - \mu}{\sqrt{\sigma^2 + \varepsilon}},\quad \sum_i y_i = 0,\quad
        \frac1n\sum_i (y_i - \bar y)^2 = \frac{\sigma^2}{\sigma^2+\varepsilon}
        \xrightarrow[\varepsilon\to 0]{} 1,\quad
        \frac{\partial y_i}{\partial x_j} = \frac{\delta_{ij} - 1/n - y_i y_j/n}{\sqrt{\sigma^2+\varepsilon}}

    with :math:`\mu = \frac1n\sum_m x_m`, :math:`\sigma^2 = \frac1n\sum_k (x_k-\mu)^2` (biased).
    """
    x, y, i, j, k, m, n, eps = layernorm_symbols()
    mu, var = layernorm_moments(x, k, m, n)
    sd = sp.sqrt(var + eps)
    define_y = rules.unfold_indexed("definition of y = LN(x)", y, lambda a: (x[a] - mu) / sd)
    total = sp.Sum(y[k], (k, 1, n))

    mean = Part(
        "mean",
        (
            Step(sp.Sum(y[i], (i, 1, n)), "the sum of LayerNorm's outputs"),
            Step(sp.Sum((x[i] - mu) / sd, (i, 1, n)), "definition of y", define_y),
            Step((sp.Sum(x[i], (i, 1, n)) - n * mu) / sd, "the root does not depend on i"),
            Step(sp.Integer(0), "nμ = Σ x_m"),
        ),
    )
    variance = Part(
        "variance",
        (
            Step(sp.Sum((y[i] - total / n) ** 2, (i, 1, n)) / n, "the biased variance of the outputs"),
            Step(
                sp.Sum(y[i] ** 2, (i, 1, n)) / n,
                "their mean is 0 (part 'mean')",
                rules.lemma("part 'mean'", total, sp.Integer(0)),
            ),
            Step(sp.Sum((x[i] - mu) ** 2, (i, 1, n)) / (n * (var + eps)), "definition of y", define_y),
            Step(var / (var + eps), "Σ_i (x_i − μ)²/n = σ²"),
        ),
    )
    limit = Part(
        "variance-limit",
        (
            Step(sp.Limit(var / (var + eps), eps, 0, "+"), "the output variance as ε → 0⁺"),
            Step(
                sp.Integer(1),
                "σ²/(σ² + ε) is continuous at ε = 0 when σ² > 0 (x not constant)",
                rules.Rule(
                    "evaluate the limit",
                    "calculus",
                    lambda e: e.replace(lambda z: isinstance(z, sp.Limit), lambda z: z.doit()),
                ),
            ),
        ),
        free_of=(),
        given=(sp.Gt(var, 0),),
    )  # σ² = 0 (x constant) gives 0/(0 + ε) = 0 for every ε
    a, b = sp.Symbol("a", positive=True), sp.Symbol("b", real=True)
    ax = lambda idx: a * x[idx] + b  # noqa: E731
    mu_ax = sp.Sum(ax(m), (m, 1, n)) / n
    affine = Part(
        "affine-invariance",
        (
            Step((ax(i) - mu_ax) / sp.sqrt(sp.Sum((ax(k) - mu_ax) ** 2, (k, 1, n)) / n), "LN(ax + b)_i at ε = 0"),
            Step(a * (x[i] - mu) / sp.sqrt(a**2 * var), "the mean of ax + b is aμ + b: b cancels, a factors out"),
            Step((x[i] - mu) / sp.sqrt(var), "√(a²) = a for a > 0"),
        ),
        given=(sp.Gt(var, 0),),
    )  # at ε = 0 both sides are 0/0 when x is constant
    J = (sp.KroneckerDelta(i, j) - 1 / n - y[i] * y[j] / n) / sd
    delta_sum = sp.Sum(sp.KroneckerDelta(j, m), (m, 1, n))  # n ∂μ/∂x_j, as differentiation leaves it
    var_sum = sp.Sum((2 * sp.KroneckerDelta(j, k) - 2 * delta_sum / n) * (x[k] - mu), (k, 1, n))  # n ∂σ²/∂x_j
    dmean = Part(
        "mean-derivative",
        (
            Step(sp.Derivative(mu, x[j]), "∂μ/∂x_j"),
            Step(delta_sum / n, "∂x_m/∂x_j = δ_mj", rules.differentiate(x[j])),
            Step(1 / n, "δ_mj keeps m = j (j ∈ {1..n})"),
        ),
    )
    dvar = Part(
        "variance-derivative",
        (
            Step(sp.Derivative(var, x[j]), "∂σ²/∂x_j"),
            Step(var_sum / n, "chain rule; ∂(x_k − μ)/∂x_j = δ_jk − 1/n", rules.differentiate(x[j])),
            Step(2 * (x[j] - mu) / n, "δ_jk keeps k = j; Σ_k (x_k − μ) = 0"),
        ),
    )
    jacobian = Part(
        "jacobian",
        (
            Step(sp.Derivative((x[i] - mu) / sd, x[j]), "∂y_i/∂x_j"),
            Step(
                (sp.KroneckerDelta(i, j) - delta_sum / n) / sd
                - (x[i] - mu) * var_sum / (2 * n * (var + eps) ** sp.Rational(3, 2)),
                "quotient and chain rules; ∂x_m/∂x_j = δ_mj",
                rules.differentiate(x[j]),
            ),
            Step(
                (sp.KroneckerDelta(i, j) - 1 / n) / sd
                - (x[i] - mu) * (x[j] - mu) / (n * (var + eps) ** sp.Rational(3, 2)),
                "∂μ/∂x_j = 1/n and ∂σ²/∂x_j = 2(x_j − μ)/n (as in parts 'mean-derivative', "
                "'variance-derivative': δ_mj keeps m = j, j ∈ {1..n}; Σ_k (x_k − μ) = 0)",
            ),
            Step((sp.KroneckerDelta(i, j) - 1 / n) / sd - y[i] * y[j] / (n * sd), "write y_i, y_j", define_y),
            Step(J, "factor out 1/√(σ²+ε)"),
        ),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    unbiased = sp.Sum((x[k] - mu) ** 2, (k, 1, n)) / (n - 1)
    return Body(
        assumptions=(
            "x ∈ R^n, n a positive integer, x not constant",
            "ε > 0 (nn.LayerNorm's eps)",
            "y = LN(x) without the affine part (elementwise_affine=False, or weight 1, bias 0)",
            "a > 0, b real",
        ),
        parts=(mean, variance, limit, affine, dmean, dvar, jacobian),
        mutants=(
            Mutant(
                "unbiased-variance",
                "torch.var(LN(x)) (unbiased, n − 1) is the variance LayerNorm makes σ²/(σ²+ε) ≈ 1",
                (
                    (
                        "variance",
                        sp.Eq(sp.Sum((y[i] - total / n) ** 2, (i, 1, n)) / (n - 1), var / (var + eps), evaluate=False),
                    ),
                ),
            ),
            Mutant(
                "normalise-by-unbiased",
                "LayerNorm divides by the unbiased standard deviation "
                "(like torch.std): output variance s²/(s²+ε) with s² = Σ(x−μ)²/(n−1)",
                (wrong(variance, unbiased / (unbiased + eps)),),
            ),
            Mutant(
                "eps-on-sigma",
                "ε added to σ instead of σ²: y = (x − μ)/(σ + ε), variance σ²/(σ+ε)²",
                (wrong(variance, var / (sp.sqrt(var) + eps) ** 2),),
            ),
            Mutant(
                "jacobian-without-yy",
                "the Jacobian without the yyᵀ/n term: (I − 11ᵀ/n)/√(σ²+ε)",
                (wrong(jacobian, (sp.KroneckerDelta(i, j) - 1 / n) / sd),),
            ),
        ),
        context=Context(indices=((i, 1, n), (j, 1, n)), definitions=(define_y,)),
        seed_verdict=(
            "holds-with-conditions",
            "mean 0 exactly, but the (biased) variance is σ²/(σ²+ε) < 1, near 1 only when "
            "σ² ≫ ε; with the affine part on (the default) the output has mean β and scale γ",
        ),
    )


# --- residual-gradient-path ---------------------------------------------------------------------------


@claim(
    id="residual-gradient-path",
    title="∂(x + f(x))/∂x = I + J_f; through residual blocks the product Π(I + J_l) keeps the identity term",
    section="§4.3",
    zh="网络越深，链式法则乘积越长，梯度要么指数级变大，要么指数级衰减到零。残差连接让梯度有一条“高速公路”可以直接流回浅层",
    en="The deeper the network, the longer the chain-rule product, and the gradient either grows or decays "
    "to zero exponentially. Residual connections give the gradient a 'highway' straight back to the "
    "shallow layers",
    check="mathcheck.verify.calculus:residual_gradient_path",
)
def residual_gradient_path() -> Body:
    r"""The Jacobian of a residual block and of two and three blocks in a row, for a symbolic width n.

    .. math::
        \frac{\partial}{\partial x_j}\big(x_i + \tanh(\textstyle\sum_k W_{ik}x_k)\big)
        = \delta_{ij} + (1 - \tanh^2(\textstyle\sum_k W_{ik}x_k))\,W_{ij},\qquad
        (I + A)(I + B) = I + A + B + AB

    and :math:`(I+C)(I+A)(I+B) = I + A + B + C + CA + CB + AB + CAB`: the identity survives any
    depth, the terms beyond first order do not vanish.
    """
    x, W = sp.IndexedBase("x", real=True), sp.IndexedBase("W", real=True)
    A, B, C = (sp.IndexedBase(name, real=True) for name in ("A", "B", "C"))
    i, j, k, l = sp.symbols("i j k l", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    d = sp.KroneckerDelta
    pre = sp.Sum(W[i, k] * x[k], (k, 1, n))
    one = Part(
        "one-block",
        (
            Step(sp.Derivative(x[i] + sp.tanh(pre), x[j]), "∂(x + f(x))_i/∂x_j for the block f(x) = tanh(Wx)"),
            Step(
                d(i, j) + (1 - sp.tanh(pre) ** 2) * sp.Sum(W[i, k] * d(j, k), (k, 1, n)),
                "∂x_i/∂x_j = δ_ij; tanh' = 1 − tanh²",
                rules.differentiate(x[j]),
            ),
            Step(d(i, j) + (1 - sp.tanh(pre) ** 2) * W[i, j], "δ_jk keeps k = j: I + J_f"),
        ),
    )
    two = Part(
        "two-blocks",
        (
            Step(
                sp.Sum((d(i, k) + A[i, k]) * (d(k, j) + B[k, j]), (k, 1, n)),
                "chain rule through two blocks: (I + A)(I + B), A = J_f2, B = J_f1",
            ),
            Step(d(i, j) + A[i, j] + B[i, j] + sp.Sum(A[i, k] * B[k, j], (k, 1, n)), "expand; δ keeps its index"),
        ),
    )
    three = Part(
        "three-blocks",
        (
            Step(
                sp.Sum((d(i, k) + C[i, k]) * sp.Sum((d(k, l) + A[k, l]) * (d(l, j) + B[l, j]), (l, 1, n)), (k, 1, n)),
                "chain rule through three blocks: (I + C)((I + A)(I + B))",
            ),
            Step(
                sp.Sum(
                    (d(i, k) + C[i, k]) * (d(k, j) + A[k, j] + B[k, j] + sp.Sum(A[k, l] * B[l, j], (l, 1, n))),
                    (k, 1, n),
                ),
                "the inner product as in part 'two-blocks'",
            ),
            Step(
                d(i, j)
                + A[i, j]
                + B[i, j]
                + C[i, j]
                + sp.Sum(C[i, k] * A[k, j], (k, 1, n))
                + sp.Sum(C[i, k] * B[k, j], (k, 1, n))
                + sp.Sum(A[i, k] * B[k, j], (k, 1, n))
                + sp.Sum(C[i, k] * sp.Sum(A[k, l] * B[l, j], (l, 1, n)), (k, 1, n)),
                "expand: the identity, the three first-order terms, and the products",
            ),
        ),
    )
    wrong = lambda part, rhs: (part.name, sp.Eq(part.lhs, rhs, evaluate=False))  # noqa: E731
    return Body(
        assumptions=(
            "x ∈ R^n; each block is x ↦ x + tanh(W_l x) (nn.Linear without bias, then tanh)",
            "A, B, C ∈ R^{n×n}: the Jacobians J_f of the blocks' branches at their inputs",
            "two and three blocks: the depth is fixed (general in n, not in the depth)",
        ),
        parts=(one, two, three),
        mutants=(
            Mutant(
                "drop-identity",
                "the residual's Jacobian is the branch's alone: ∂(x + f(x))/∂x = J_f",
                (wrong(one, (1 - sp.tanh(pre) ** 2) * W[i, j]),),
            ),
            Mutant(
                "first-order-only",
                "through residual blocks the Jacobian is exactly I + ΣJ_l",
                (wrong(two, d(i, j) + A[i, j] + B[i, j]),),
            ),
            Mutant(
                "no-identity-three",
                "the identity drops out after a few blocks: (I+C)(I+A)(I+B) has no I",
                (wrong(three, three.rhs - d(i, j)),),
            ),
        ),
        context=Context(indices=((i, 1, n), (j, 1, n))),
        seed_verdict=(
            "holds-with-conditions",
            "the identity path survives every depth, but Π(I + J_l) is not I + ΣJ_l: with "
            "branch gains ~σ its norm still grows like (1 + σ²)^(L/2); the residual stack "
            "only avoids the plain stack's exponential decay",
        ),
    )
