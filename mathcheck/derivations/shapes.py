"""§7 From formulas to code: tensor shapes, multi-head split and merge, masks, and the backward pass.

Shapes follow the seed's table: ``X`` is (B, L, D); each of Q, K, V is split into H heads of width
D_head with D = H·D_head, attended per head, merged back and projected by W_O.
"""

from __future__ import annotations

from mathcheck.symbolic import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


# --- the forward pass's shapes (for `mathcheck shapes`) ---------------------------------------------

MAX_SCORES = 10**7  # entries of the (B, H, L, L) scores: what `mathcheck shapes` will run on a CPU


def shape_symbols() -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol]:
    """B, L, H, D_head as positive integer symbols; D = H·D_head is derived, not a fifth symbol."""
    B, L, H, Dh = sp.symbols("B L H D_head", integer=True, positive=True)
    return B, L, H, Dh


def parse_sizes(**given) -> dict:
    """``{"B": .., "L": .., "D": .., "H": ..}`` from the user's strings; ValueError with one line."""
    sizes = {}
    for name, text in given.items():
        try:
            sizes[name] = int(str(text).strip())
        except ValueError:
            raise ValueError(f"--{name} must be a positive integer, got {text!r}") from None
        if sizes[name] < 1:
            raise ValueError(f"--{name} must be a positive integer, got {sizes[name]}")
    if sizes["D"] % sizes["H"]:
        raise ValueError(f"D = {sizes['D']} is not divisible by H = {sizes['H']}: each head needs D_head = D/H columns")
    scores = sizes["B"] * sizes["H"] * sizes["L"] ** 2
    if scores > MAX_SCORES:
        raise ValueError(f"the scores tensor (B, H, L, L) would have {scores} entries; the limit is {MAX_SCORES}")
    return sizes


def _view(shape, new_shape):
    """A view keeps the number of entries: checked by the zero test, for symbolic sizes."""
    from mathcheck.symbolic.decide import zero_test  # here, not at the top: `mathcheck list` imports this module

    if zero_test(sp.Mul(*shape) - sp.Mul(*new_shape)).value is not True:
        raise ValueError(f"cannot view {shape} as {new_shape}")
    return tuple(new_shape)


def forward_shapes() -> tuple[tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol], tuple[tuple[str, tuple, str], ...]]:
    r"""The shape of every tensor of one multi-head attention forward pass, derived in B, L, H, D_head.

    Products are SymPy matrix products of one sequence (``MatrixSymbol`` checks that the shared axis
    agrees, else ``ShapeError``), with the batch axis in front; views keep the number of entries
    (zero test); transposes swap two axes:

    .. math:: \underbrace{(B, L, D)}_{X} \to (B, L, H, D_h) \to (B, H, L, D_h)
              \to \underbrace{(B, H, L, L)}_{QK^\top} \to (B, H, L, D_h) \to (B, L, D)

    Returns ``((B, L, H, D_head), rows)``, each row ``(name, shape, reason)``.
    """
    B, L, H, Dh = shape_symbols()
    D = H * Dh
    M = sp.MatrixSymbol
    x = (B,) + M("X", L, D).shape
    qkv = (B,) + (M("X", *x[1:]) * M("W_Q", D, D).T).shape
    split = _view(qkv, (B, L, H, Dh))
    heads = (split[0], split[2], split[1], split[3])
    q_h = M("Q_h", *heads[2:])
    scores = heads[:2] + (q_h * M("K_h", *heads[2:]).T).shape
    per_head = heads[:2] + (M("P_h", *scores[2:]) * M("V_h", *heads[2:])).shape
    back = (per_head[0], per_head[2], per_head[1], per_head[3])
    merged = _view(back, (B, L, D))
    out = (B,) + (M("O", *merged[1:]) * M("W_O", D, D).T).shape
    rows = (
        ("X", x, "the input: B sequences of L tokens of width D = H·D_head"),
        ("Q = X W_Q^T (also K, V)", qkv, "(L, D) times (D, D): the shared axis D contracts"),
        ("view (B, L, H, D_head)", split, "D = H·D_head read as H blocks of D_head (same entries)"),
        ("heads: transpose(1, 2)", heads, "swap the token and head axes"),
        ("scores Q_h K_h^T / sqrt(D_head)", scores, "(L, D_head) times (D_head, L): D_head contracts"),
        ("weights softmax(scores, -1)", scores, "softmax over the keys keeps the shape"),
        ("per-head output P_h V_h", per_head, "(L, L) times (L, D_head): L contracts"),
        ("merge: transpose(1, 2), view (B, L, D)", merged, "the inverse of the split (same entries)"),
        ("output X' = merged W_O^T", out, "(L, D) times (D, D)"),
    )
    return (B, L, H, Dh), rows


def show_shape(shape) -> str:
    """``(B, L, D)`` with ``H·D_head`` written as ``D``."""
    B, L, H, Dh = shape_symbols()
    return "(" + ", ".join("D" if s == H * Dh else sp.sstr(s) for s in shape) + ")"


def offset(index, shape) -> sp.Expr | int:
    """The flat position of ``index`` in a contiguous row-major tensor of ``shape`` (Horner form)."""
    out = index[0]
    for i, size in zip(index[1:], shape[1:]):
        out = out * size + i
    return out


# --- multihead-split-merge --------------------------------------------------------------------------


@claim(
    id="multihead-split-merge",
    title="Multi-head split (B,L,D)→(B,H,L,D/H) and merge are inverse; each head attends in its own "
    "D_head-dimensional subspace with scale 1/√D_head",
    section="§7.1",
    zh="X 是 (B, L, D)，乘以 W_Q 后按多头拆分，变成 (B, H, L, D_head)，D = H × D_head。也就是说，"
    "多头注意力不是先算完再复制一份，而是把 D 维空间切成 H 份，每个头分别在不同的子空间里做注意力，最后再拼回去。",
    en="X is (B, L, D); after multiplying by W_Q it is split into heads and becomes (B, H, L, D_head), "
    "D = H × D_head. Multi-head attention does not compute once and copy; it cuts the D-dimensional "
    "space into H parts, each head attends in its own subspace, and the results are put back together.",
    check="mathcheck.verify.shapes:multihead_split_merge",
)
def multihead_split_merge() -> Body:
    r"""Split and merge as index maps, the memory layout of the split, and the per-head scores.

    .. math::
        \text{merge}(h, e) = h D_h + e, \qquad
        \text{split}(c) = (\lfloor c / D_h \rfloor,\ c \bmod D_h), \qquad
        S^{(h)}_{lj} = \frac{1}{\sqrt{D_h}} \sum_{e=0}^{D_h-1} Q_{b,l,hD_h+e} K_{b,j,hD_h+e}

    for :math:`0 \le h < H`, :math:`0 \le e < D_h`, :math:`0 \le c < D = H D_h` (0-based, as in code).
    """
    B, L, H, Dh = shape_symbols()
    b, l, j, h, e, c = sp.symbols("b l j h e c", integer=True, nonnegative=True)
    Q, K = sp.IndexedBase("Q", real=True), sp.IndexedBase("K", real=True)
    Qh, Kh = sp.IndexedBase("Q_h", real=True), sp.IndexedBase("K_h", real=True)
    D = H * Dh
    merge = h * Dh + e

    split_merge = Part(
        "split-merge",
        (
            Step(
                sp.Matrix([sp.floor(merge / Dh), sp.Mod(merge, Dh)]),
                "split the merged column c = h·D_head + e: (⌊c/D_head⌋, c mod D_head)",
            ),
            Step(
                sp.Matrix([h + sp.floor(e / Dh), sp.Mod(e, Dh)]),
                "h is an integer: it leaves the floor and the remainder",
            ),
            Step(
                sp.Matrix([h, e]),
                "e is a column inside a head",
                rules.small_remainder(e, Dh, "0 ≤ e < D_head: ⌊e/D_head⌋ = 0, e mod D_head = e"),
            ),
        ),
    )
    merge_split = Part(
        "merge-split",
        (
            Step(Dh * sp.floor(c / Dh) + sp.Mod(c, Dh), "merge the split of column c"),
            Step(c, "c = D_head⌊c/D_head⌋ + c mod D_head", rules.remainder_as_floor()),
        ),
    )
    layout = Part(
        "split-layout",
        (
            Step(
                offset((b, l, merge), (B, L, D)),
                "flat position of Q[b, l, h·D_head + e] in a contiguous (B, L, D) tensor",
            ),
            Step(
                offset((b, l, h, e), (B, L, H, Dh)),
                "the position of entry (b, l, h, e) of Q.view(B, L, H, D_head); transpose(1, 2) then "
                "names it (b, h, l, e) without moving data",
            ),
        ),
    )
    scale = 1 / sp.sqrt(Dh)
    head_def = rules.unfold_indexed(
        "definition of head h: columns h·D_head … h·D_head + D_head − 1",
        Qh,
        lambda bb, hh, ll, ee: Q[bb, ll, hh * Dh + ee],
    )
    head_def_k = rules.unfold_indexed("the same for K", Kh, lambda bb, hh, ll, ee: K[bb, ll, hh * Dh + ee])
    scores = Part(
        "head-scores",
        (
            Step(
                sp.Sum(Qh[b, h, l, e] * Kh[b, h, j, e], (e, 0, Dh - 1)) * scale,
                "scaled dot-product attention inside head h, whose keys have D_head components",
            ),
            Step(
                sp.Sum(Q[b, l, h * Dh + e] * Kh[b, h, j, e], (e, 0, Dh - 1)) * scale,
                "head h of Q is the block of columns h·D_head + e",
                head_def,
            ),
            Step(
                sp.Sum(Q[b, l, h * Dh + e] * K[b, j, h * Dh + e], (e, 0, Dh - 1)) * scale,
                "the same block of K",
                head_def_k,
            ),
        ),
    )
    return Body(
        assumptions=(
            "B, L, H, D_head positive integers; D = H·D_head",
            "0 ≤ b < B, 0 ≤ l, j < L, 0 ≤ h < H, 0 ≤ e < D_head, 0 ≤ c < D (0-based, as in code)",
            "tensors are contiguous and row-major (PyTorch's default)",
        ),
        parts=(split_merge, merge_split, layout, scores),
        mutants=(
            Mutant(
                "view-without-transpose",
                "split with Q.view(B, H, L, D_head) instead of view(B, L, H, D_head).transpose(1, 2): "
                "a reshape is not a transpose, and the heads mix tokens",
                (("split-layout", sp.Eq(layout.lhs, offset((b, h, l, e), (B, H, L, Dh)), evaluate=False)),),
            ),
            Mutant(
                "scale-by-model-width",
                "scale every head's scores by 1/√D (the model width) instead of 1/√D_head",
                (("head-scores", sp.Eq(scores.lhs, scores.rhs / scale / sp.sqrt(D), evaluate=False)),),
            ),
        ),
        context=Context(
            indices=((b, 0, B - 1), (l, 0, L - 1), (j, 0, L - 1), (h, 0, H - 1), (e, 0, Dh - 1), (c, 0, H * Dh - 1))
        ),
        seed_verdict=(
            "holds-with-conditions",
            "needs D divisible by H; the split is view(B, L, H, D_head) followed by "
            "transpose(1, 2) (not a view to (B, H, L, D_head)), each head scales its scores "
            "by 1/√D_head, and the merged heads are mixed by the output projection W_O.",
        ),
    )


# --- mask-negative-infinity -------------------------------------------------------------------------


def _factor_out_of_limit(mu):
    """Inside a limit over μ: e^{x+μ} = e^x e^μ, and e^μ leaves every sum and cancels."""

    def fn(e):
        from mathcheck.symbolic.sums import pull_sums

        return e.replace(
            lambda x: isinstance(x, sp.Limit),
            lambda x: sp.Limit(sp.cancel(pull_sums(sp.expand(x.args[0], power_exp=True))), *x.args[1:]),
        )

    return rules.Rule("e^{x+μ} = e^x·e^μ; the common factor e^μ leaves the sum and cancels", "sympy", fn)


_LIMIT = rules.Rule(
    "evaluate the limit", "calculus", lambda e: e.replace(lambda x: isinstance(x, sp.Limit), lambda x: x.doit())
)


@claim(
    id="mask-negative-infinity",
    title="An additive mask of −∞ gives a position exactly zero weight; replacing its score by 0 does not (e⁰ = 1)",
    section="§7.2",
    zh="某些实现会在 softmax 前做 mask，把 padding 位置替换成负无穷。你可能看不懂为什么是负无穷而不是零。"
    "答案是：零在指数运算后是 1，不会让概率变成 0，只有负无穷经过指数才是零，这样那些位置的注意力权重才会被完全清零。",
    en="Some implementations mask before the softmax, replacing padding positions by negative infinity. "
    "Why negative infinity and not zero? Zero becomes 1 after exponentiation and does not make the "
    "probability 0; only negative infinity becomes zero, so those positions' attention weights are "
    "cleared completely.",
    check="mathcheck.verify.shapes:mask_negative_infinity",
)
def mask_negative_infinity() -> Body:
    r"""Softmax over n kept scores :math:`z_1..z_n` and one masked position with score :math:`a`.

    .. math::
        \lim_{\mu\to-\infty} \frac{e^{a+\mu}}{\sum_k e^{z_k} + e^{a+\mu}} = 0, \qquad
        \frac{e^{0}}{\sum_k e^{z_k} + e^{0}} = \frac{1}{1 + \sum_k e^{z_k}} > 0, \qquad
        \operatorname{softmax}(z + \log\alpha)_i = \frac{\alpha_i e^{z_i}}{\sum_k \alpha_k e^{z_k}}

    with :math:`\alpha_k = 1` (attend) or :math:`0` (masked: :math:`\log 0 = -\infty`).
    """
    z = sp.IndexedBase("z", real=True)
    alpha = sp.IndexedBase("alpha", nonnegative=True)
    m = sp.IndexedBase("m")  # the additive mask: 0 or −∞, so not declared real
    p = sp.IndexedBase("p", nonnegative=True)
    i, k = sp.symbols("i k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    a, mu = sp.symbols("a mu", real=True)
    x_ = sp.Symbol("x", integer=True)  # the index of a definition "for every x"
    total = sp.Sum(sp.exp(z[k]), (k, 1, n))
    masked = sp.exp(a + mu)

    weight = Part(
        "neg-inf-weight",
        (
            Step(
                sp.Limit(masked / (total + masked), mu, -sp.oo),
                "weight of the masked position as its additive mask μ → −∞",
            ),
            Step(sp.Integer(0), "e^{a+μ} → 0 while the denominator stays ≥ Σ_k e^{z_k} > 0", _LIMIT),
        ),
    )
    rest = Part(
        "neg-inf-rest",
        (
            Step(sp.Limit(sp.exp(z[i]) / (total + masked), mu, -sp.oo), "weight of a kept position i"),
            Step(
                sp.exp(z[i]) / total, "the masked term leaves the denominator: the softmax of the kept scores", _LIMIT
            ),
        ),
    )
    zero = Part(
        "zero-weight",
        (
            Step(sp.exp(a) / (total + sp.exp(a)), "weight of the masked position with score a"),
            Step(1 / (1 + total), "the score replaced by 0: e⁰ = 1", rules.substitute({a: 0}, "a = 0")),
        ),
        given=(sp.Eq(a, 0),),
    )
    full = Part(
        "full-mask-shift",
        (
            Step(
                sp.Limit(sp.exp(z[i] + mu) / sp.Sum(sp.exp(z[k] + mu), (k, 1, n)), mu, -sp.oo),
                "a fully masked row, as the limit of the same mask μ → −∞ on every score",
            ),
            Step(
                sp.Limit(sp.exp(z[i]) / total, mu, -sp.oo),
                "softmax is invariant to a common shift",
                _factor_out_of_limit(mu),
            ),
            Step(sp.exp(z[i]) / total, "nothing depends on μ: the limit is the unmasked softmax, not 0", _LIMIT),
        ),
    )

    def exp_of_mask(e):
        e = sp.expand(e, power_exp=True, mul=False, multinomial=False)
        return e.replace(
            lambda x: isinstance(x, sp.exp) and isinstance(x.args[0], sp.Indexed) and x.args[0].base == m,
            lambda x: alpha[x.args[0].indices],
        )

    boolean = Part(
        "boolean-mask",
        (
            Step(
                sp.exp(z[i] + m[i]) / sp.Sum(sp.exp(z[k] + m[k]), (k, 1, n)),
                "softmax with the additive mask m_k = 0 where the boolean mask α_k = 1 (attend), −∞ where α_k = 0",
            ),
            Step(
                alpha[i] * sp.exp(z[i]) / sp.Sum(alpha[k] * sp.exp(z[k]), (k, 1, n)),
                "e^{z+m} = e^z e^m, and e^m = α: e^0 = 1, e^{−∞} = 0 (part 'neg-inf-weight')",
                rules.Rule(
                    "e^{z+m} = e^z·e^m; e^{m_k} = α_k",
                    "definition",
                    exp_of_mask,
                    statement=sp.Eq(alpha[x_], sp.exp(m[x_]), evaluate=False),
                ),
            ),
        ),
    )
    padding = Part(
        "key-padding-mask",
        (
            Step(boolean.rhs, "the masked softmax with α = 1 on the attended keys"),
            Step(
                (1 - p[i]) * sp.exp(z[i]) / sp.Sum((1 - p[k]) * sp.exp(z[k]), (k, 1, n)),
                "nn.MultiheadAttention's key_padding_mask p is 1 on the keys to ignore: α = 1 − p",
                rules.Rule(
                    "α = 1 − p",
                    "definition",
                    lambda e: e.replace(
                        lambda x: isinstance(x, sp.Indexed) and x.base == alpha, lambda x: 1 - p[x.indices]
                    ),
                    statement=sp.Eq(alpha[x_], 1 - p[x_], evaluate=False),
                ),
            ),
        ),
    )
    eq = lambda part, rhs: sp.Eq(part.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=(
            "z ∈ R^n (kept scores), a ∈ R (the masked position's score), n a positive integer",
            "α_k ∈ {0, 1}: 1 = attend (the boolean mask of F.scaled_dot_product_attention)",
            "p_k ∈ {0, 1}: 1 = ignore (nn.MultiheadAttention's key_padding_mask)",
            "m_k ∈ {0, −∞} is the additive form of α_k: e^{m_k} = α_k",
        ),
        parts=(weight, rest, zero, full, boolean, padding),
        mutants=(
            Mutant(
                "zero-mask-zero-weight",
                "replacing the masked score by 0 clears its weight, as −∞ does",
                (("zero-weight", eq(zero, weight.lhs)),),
            ),
            Mutant(
                "sdpa-true-ignores",
                "in F.scaled_dot_product_attention a boolean mask's True means ignore",
                (
                    (
                        "boolean-mask",
                        eq(boolean, (1 - alpha[i]) * sp.exp(z[i]) / sp.Sum((1 - alpha[k]) * sp.exp(z[k]), (k, 1, n))),
                    ),
                ),
            ),
            Mutant(
                "padding-true-attends",
                "nn.MultiheadAttention's key_padding_mask True means attend, like SDPA",
                (("key-padding-mask", eq(padding, p[i] * sp.exp(z[i]) / sp.Sum(p[k] * sp.exp(z[k]), (k, 1, n)))),),
            ),
            Mutant(
                "full-mask-gives-zeros",
                "a fully masked row has zero weights in the limit μ → −∞ (SDPA's zeros taken for the mathematics)",
                (("full-mask-shift", eq(full, sp.Integer(0))),),
            ),
        ),
        context=Context(indices=((i, 1, n),), sample=((p, (0, 1)), (alpha, (0, 1)))),
        seed_verdict=(
            "holds-with-conditions",
            "holds when the row keeps at least one position: a fully masked row is 0/0 "
            "(F.softmax gives NaN, F.scaled_dot_product_attention returns zeros), and the "
            "mask must be added to (or replace) the score before the softmax, not applied after it.",
        ),
    )


# --- attention-backward -----------------------------------------------------------------------------


def _exchange_sums():
    """Σ_k c_k Σ_a f_ka = Σ_a Σ_k c_k f_ka (finite sums with independent bounds commute); factors
    free of k leave the inner sum (:func:`mathcheck.symbolic.rules.exchange_sums`: a triangular sum is refused)."""
    return rules.exchange_sums()


@claim(
    id="attention-backward",
    title="Backward pass of attention: dV = Pᵀ dO, dP = dO Vᵀ, dS = P ⊙ (dP − rowsum(dO ⊙ O)), "
    "dQ = dS K/√d, dK = dSᵀ Q/√d",
    section="§4.1",
    zh="这个式子看着简单，但放到 Transformer 里会演变成一个很长很长的链：损失对 logits 求导，"
    "logits 对注意力输出求导，注意力输出对 value 求导……",
    en="The formula looks simple, but in a Transformer it becomes a very long chain: the loss with "
    "respect to the logits, the logits with respect to the attention output, the attention output "
    "with respect to the values, ... (beyond the seed: the whole chain through one attention layer)",
    check="mathcheck.verify.shapes:attention_backward",
)
def attention_backward() -> Body:
    r"""Gradients of :math:`O = PV`, :math:`P = \operatorname{softmax}(S)`, :math:`S = QK^\top/\sqrt d`
    for an upstream gradient :math:`dO`, entrywise for symbolic L and d.

    .. math::
        dV = P^\top dO,\quad dP = dO\,V^\top,\quad
        dS_{ij} = P_{ij}\big(dP_{ij} - \textstyle\sum_a dO_{ia} O_{ia}\big),\quad
        dQ = dS\,K/\sqrt d,\quad dK = dS^\top Q/\sqrt d
    """
    L, d = sp.symbols("L d", integer=True, positive=True)
    i, j, k, m, a, b = sp.symbols("i j k m a b", integer=True)
    Q, K, V, dO, P, dP, dS, O, S = (
        sp.IndexedBase(s, real=True) for s in ("Q", "K", "V", "dO", "P", "dP", "dS", "O", "S")
    )
    rs = 1 / sp.sqrt(d)
    # ℓ = Σ dO ⊙ O: its gradient with respect to O is dO, whatever the loss upstream.
    # The two orders of summation are the same finite sum; each part takes the one whose
    # Kronecker delta sits innermost, where deltasummation collapses it.
    loss_V = sp.Sum(dO[m, b] * sp.Sum(P[m, k] * V[k, b], (k, 1, L)), (b, 1, d), (m, 1, L))
    loss_P = sp.Sum(dO[m, b] * sp.Sum(P[m, k] * V[k, b], (k, 1, L)), (m, 1, L), (b, 1, d))
    dV = Part(
        "dV",
        (
            Step(sp.Derivative(loss_V, V[j, a]), "ℓ = Σ_{m,b} dO_mb O_mb with O = PV; differentiate by V_ja"),
            Step(
                sp.Sum(P[m, j] * dO[m, a], (m, 1, L)),
                "∂V_kb/∂V_ja = δ_kj δ_ba: (Pᵀ dO)_ja",
                rules.differentiate(V[j, a]),
            ),
        ),
    )
    dP_part = Part(
        "dP",
        (
            Step(sp.Derivative(loss_P, P[i, j]), "differentiate ℓ by P_ij"),
            Step(
                sp.Sum(dO[i, b] * V[j, b], (b, 1, d)),
                "∂P_mk/∂P_ij = δ_mi δ_kj: (dO Vᵀ)_ij",
                rules.differentiate(P[i, j]),
            ),
        ),
    )
    softmax_row = sp.exp(S[i, k]) / sp.Sum(sp.exp(S[i, m]), (m, 1, L))
    define_P = rules.unfold_indexed(
        "P = softmax of the rows of S", P, lambda r, c: sp.exp(S[r, c]) / sp.Sum(sp.exp(S[r, m]), (m, 1, L))
    )
    define_dP = rules.unfold_indexed("dP = dO Vᵀ (part 'dP')", dP, lambda r, c: sp.Sum(dO[r, b] * V[c, b], (b, 1, d)))
    define_O = rules.unfold_indexed("O = PV", O, lambda r, c: sp.Sum(P[r, k] * V[k, c], (k, 1, L)))
    rowsum = Part(
        "rowsum",
        (
            Step(sp.Sum(P[i, k] * dP[i, k], (k, 1, L)), "Σ_k P_ik dP_ik"),
            Step(sp.Sum(P[i, k] * sp.Sum(dO[i, b] * V[k, b], (b, 1, d)), (k, 1, L)), "part 'dP'", define_dP),
            Step(
                sp.Sum(dO[i, b] * sp.Sum(P[i, k] * V[k, b], (k, 1, L)), (b, 1, d)),
                "exchange the sums",
                _exchange_sums(),
            ),
            Step(sp.Sum(dO[i, b] * O[i, b], (b, 1, d)), "O = PV", define_O),
        ),
    )
    dS_rhs = P[i, j] * (dP[i, j] - sp.Sum(dO[i, b] * O[i, b], (b, 1, d)))
    dS_part = Part(
        "dS",
        (
            Step(
                sp.Sum(dP[i, k] * sp.Derivative(softmax_row, S[i, j]), (k, 1, L)),
                "chain rule within row i: only P_i· depends on S_ij",
            ),
            Step(
                sp.Sum(dP[i, k] * P[i, k] * (sp.KroneckerDelta(k, j) - P[i, j]), (k, 1, L)),
                "the softmax Jacobian ∂P_ik/∂S_ij = P_ik(δ_kj − P_ij), with P_ik = e^{S_ik}/Σ_m e^{S_im}",
                rules.Rule(
                    "differentiate; P = softmax of the rows of S",
                    "definition",
                    lambda e: define_P.apply(rules.differentiate(S[i, j]).apply(e)),
                    both_sides=True,
                ),
            ),
            Step(P[i, j] * dP[i, j] - P[i, j] * sp.Sum(P[i, k] * dP[i, k], (k, 1, L)), "δ_kj keeps k = j"),
            Step(dS_rhs, "part 'rowsum'", rules.lemma("part 'rowsum'", rowsum.lhs, rowsum.rhs)),
        ),
        given=(define_P.statement, define_dP.statement, define_O.statement),
    )
    loss_S = sp.Sum(dS[m, k] * sp.Sum(Q[m, b] * K[k, b], (b, 1, d)) * rs, (k, 1, L), (m, 1, L))
    loss_Q = sp.Sum(dS[m, k] * sp.Sum(Q[m, b] * K[k, b], (b, 1, d)) * rs, (m, 1, L), (k, 1, L))
    dQ = Part(
        "dQ",
        (
            Step(sp.Derivative(loss_Q, Q[i, a]), "chain rule through S_mk = Σ_b Q_mb K_kb/√d; dS = ∂ℓ/∂S"),
            Step(
                sp.Sum(dS[i, k] * K[k, a], (k, 1, L)) * rs,
                "∂Q_mb/∂Q_ia = δ_mi δ_ba: (dS K)_ia/√d",
                rules.differentiate(Q[i, a]),
            ),
        ),
    )
    dK = Part(
        "dK",
        (
            Step(sp.Derivative(loss_S, K[j, a]), "the same chain rule, by K_ja"),
            Step(
                sp.Sum(dS[m, j] * Q[m, a], (m, 1, L)) * rs,
                "∂K_kb/∂K_ja = δ_kj δ_ba: (dSᵀ Q)_ja/√d",
                rules.differentiate(K[j, a]),
            ),
        ),
    )
    eq = lambda part, rhs: sp.Eq(part.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=(
            "Q, K, V, dO ∈ R^{L×d}, L and d positive integers",
            "S = QKᵀ/√d, P = softmax(S) row by row, O = PV",
            "dO = ∂ℓ/∂O is the upstream gradient; dP, dS are ∂ℓ/∂P, ∂ℓ/∂S",
            "i, j, k ∈ {1, …, L}, a, b ∈ {1, …, d}",
        ),
        parts=(dV, dP_part, rowsum, dS_part, dQ, dK),
        mutants=(
            Mutant(
                "forgot-rowsum",
                "dS = P ⊙ dP: the rowsum term of the softmax Jacobian forgotten",
                (("dS", eq(dS_part, P[i, j] * dP[i, j])),),
            ),
            Mutant(
                "dK-missing-transpose",
                "dK = dS Q/√d: the transpose of dS forgotten",
                (("dK", eq(dK, sp.Sum(dS[j, m] * Q[m, a], (m, 1, L)) * rs)),),
            ),
            Mutant(
                "dQ-without-scale",
                "dQ = dS K: the 1/√d of the forward pass forgotten",
                (("dQ", eq(dQ, sp.Sum(dS[i, k] * K[k, a], (k, 1, L)))),),
            ),
        ),
        context=Context(indices=((i, 1, L), (j, 1, L), (a, 1, d))),
        seed_verdict=("exact", "beyond the seed: its chain written out through one attention layer"),
    )
