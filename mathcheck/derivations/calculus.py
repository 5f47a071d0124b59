"""§4 Calculus and optimisation: the chain rule, gradient descent, Adam, LayerNorm, residuals."""

from __future__ import annotations

from mathcheck import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


def softmax_symbols():
    """The symbols of a softmax over ``n`` logits: z, s, indices i, j, k and n."""
    z, s = sp.IndexedBase("z", real=True), sp.IndexedBase("s", positive=True)
    i, j, k = sp.symbols("i j k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    return z, s, i, j, k, n


def softmax_definition(z, k, n):
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

    jacobian = Part("jacobian", (
        Step(sp.Derivative(sp.exp(z[i]) / total, z[j]), "∂s_i/∂z_j with s_i = exp(z_i)/Σ_k exp(z_k)"),
        Step(sp.exp(z[i]) * sp.KroneckerDelta(i, j) / total
             - sp.exp(z[i]) * sp.Sum(sp.exp(z[k]) * sp.KroneckerDelta(j, k), (k, 1, n)) / total**2,
             "quotient rule; ∂z_i/∂z_j = δ_ij", rules.differentiate(z[j])),
        Step(sp.exp(z[i]) * sp.KroneckerDelta(i, j) / total - sp.exp(z[i]) * sp.exp(z[j]) / total**2,
             "the δ_jk keeps the term k = j of the sum"),
        Step(s[i] * sp.KroneckerDelta(i, j) - s[i] * s[j], "write s_i for exp(z_i)/Σ_k exp(z_k)", define_s),
        Step(J, "factor out s_i"),
    ))
    normalised = Part("normalised", (
        Step(sp.Sum(s[j], (j, 1, n)), "the softmax outputs sum to one"),
        Step(sp.Sum(sp.exp(z[j]), (j, 1, n)) / total, "definition of s", define_s),
        Step(sp.Integer(1), "the same sum over and under the bar"),
    ))
    rows = Part("rows", (
        Step(sp.Sum(J, (j, 1, n)), "a row of the Jacobian, J·1"),
        Step(s[i] - s[i] * sp.Sum(s[j], (j, 1, n)), "the δ_ij keeps s_i; the rest is s_i Σ_j s_j"),
        Step(sp.Integer(0), "Σ_j s_j = 1",
             rules.lemma("part 'normalised'", sp.Sum(s[j], (j, 1, n)), sp.Integer(1))),
    ))
    symmetric = Part("symmetric", (
        Step(J - s[j] * (sp.KroneckerDelta(j, i) - s[i]), "J − Jᵀ, entry (i, j)"),
        Step(sp.KroneckerDelta(i, j) * (s[i] - s[j]), "the s_i s_j terms cancel"),
        Step(sp.Integer(0), "δ_ij vanishes unless i = j, where s_i − s_j = 0"),
    ))
    wrong = lambda rhs: sp.Eq(jacobian.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=("z ∈ R^n, n a positive integer", "i, j ∈ {1, …, n}",
                     "s_i = exp(z_i) / Σ_k exp(z_k) (softmax)"),
        parts=(jacobian, normalised, rows, symmetric),
        mutants=(
            Mutant("sign-flip", "the sign of the Jacobian flipped: s_i(s_j − δ_ij)",
                   (("jacobian", wrong(s[i] * (s[j] - sp.KroneckerDelta(i, j)))),)),
            Mutant("missing-diagonal", "the diagonal term forgotten: ∂s_i/∂z_j = −s_i s_j",
                   (("jacobian", wrong(-s[i] * s[j])),)),
            Mutant("diagonal-everywhere", "the diagonal formula used off the diagonal: s_i(1 − s_j)",
                   (("jacobian", wrong(s[i] * (1 - s[j]))),)),
            Mutant("like-exp", "softmax differentiated like exp, forgetting the normaliser: s_i δ_ij",
                   (("jacobian", wrong(s[i] * sp.KroneckerDelta(i, j))),)),
            Mutant("rows-sum-to-one", "the rows of the Jacobian sum to one, like the probabilities",
                   (("rows", sp.Eq(rows.lhs, 1, evaluate=False)),)),
        ),
        # s is unfolded before every zero test, so a counterexample is a point z, not a free s.
        context=Context(indices=((i, 1, n), (j, 1, n)), definitions=(define_s,)),
        seed_verdict=("exact", "the seed names the chain through the logits; this is its softmax link"),
    )
