"""§6 Combinatorics and positions: permutation invariance, sinusoidal encodings, the n² cost."""

from __future__ import annotations

from functools import lru_cache

from mathcheck.symbolic import rules
from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


def sinusoidal_symbols() -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol, sp.Expr]:
    """pos, k (real), frequency index i ∈ {0, …, m−1}, d = 2m, ω_i = 10000^(−2i/d)."""
    pos, k = sp.symbols("pos k", real=True)
    i = sp.Symbol("i", integer=True, nonnegative=True)
    m = sp.Symbol("m", integer=True, positive=True)
    d = 2 * m
    omega = sp.Integer(10000) ** (-2 * i / d)
    return pos, k, i, m, omega


def pe_pair(omega, x) -> sp.Matrix:
    """Channels (2i, 2i+1) of PE(x): (sin(x ω_i), cos(x ω_i))."""
    return sp.Matrix([sp.sin(omega * x), sp.cos(omega * x)])


def derive_rotation(omega, pos, k) -> sp.Matrix:
    """Solve M·PE(pos) = PE(pos+k) for a 2×2 matrix M whose entries may not depend on pos.

    The angle-addition expansion is linear in S = sin(ω pos), C = cos(ω pos); matching the
    coefficients of S and C gives M. Returns M (it is derived here, not written down).
    """
    S, C = sp.symbols("S C")
    a = sp.symbols("a0:4")
    M = sp.Matrix(2, 2, a)
    target = sp.expand(pe_pair(omega, pos + k), trig=True).xreplace({sp.sin(omega * pos): S, sp.cos(omega * pos): C})
    equations = []
    for row in range(2):
        diff = sp.Poly(sp.expand((M * sp.Matrix([S, C]))[row] - target[row]), S, C)
        equations += diff.coeffs()
    solution = sp.solve(equations, a, dict=True)[0]
    return M.xreplace(solution)


@claim(
    id="sinusoidal-relative-position",
    title="PE(pos+k) is a rotation of PE(pos) that depends on k only; PE(pos)·PE(pos+k) depends on k only",
    section="§6.2",
    zh="sin(a+b) 可以写成 sin(a)cos(b) + cos(a)sin(b)，这意味着位置 pos+k 的编码，"
    "可以由位置 pos 的编码通过一个线性变换计算出来。也就是说，模型不需要额外学习，"
    "就能从 pos 的编码推算出“往前 k 个位置会是什么样”。",
    en="sin(a+b) = sin(a)cos(b) + cos(a)sin(b), which means the encoding of position pos+k can be "
    "computed from the encoding of position pos by a linear transformation. That is, without extra "
    "learning the model can work out from the encoding of pos 'what k positions ahead looks like'.",
    check="mathcheck.verify.combinatorics:sinusoidal_relative_position",
)
def sinusoidal_relative_position() -> Body:
    r"""With :math:`\omega_i = 10000^{-2i/d}`, for every frequency i and any d = 2m,

    .. math::
        \begin{pmatrix}\sin\omega_i(p+k)\\ \cos\omega_i(p+k)\end{pmatrix}
        = \begin{pmatrix}\cos\omega_i k & \sin\omega_i k\\ -\sin\omega_i k & \cos\omega_i k\end{pmatrix}
          \begin{pmatrix}\sin\omega_i p\\ \cos\omega_i p\end{pmatrix},
        \qquad PE(p)\cdot PE(p+k) = \sum_{i=0}^{m-1} \cos(\omega_i k).
    """
    pos, k, i, m, omega = sinusoidal_symbols()
    M = derive_rotation(omega, pos, k)
    v = pe_pair(omega, pos)
    shift = Part(
        "shift",
        (
            Step(pe_pair(omega, pos + k), "channels 2i, 2i+1 of PE(pos+k)"),
            Step(
                sp.Matrix(
                    [
                        sp.sin(omega * pos) * sp.cos(omega * k) + sp.cos(omega * pos) * sp.sin(omega * k),
                        sp.cos(omega * pos) * sp.cos(omega * k) - sp.sin(omega * pos) * sp.sin(omega * k),
                    ]
                ),
                "angle addition: sin(a+b) = sin a cos b + cos a sin b, cos(a+b) = cos a cos b − sin a sin b",
            ),
            Step(sp.MatMul(M, v, evaluate=False), "collect the coefficients of sin(ω_i pos) and cos(ω_i pos)"),
        ),
    )
    rotation = Part(
        "rotation",
        (
            Step(sp.MatMul(M.T, M, evaluate=False), "MᵀM for the matrix M(k) of part 'shift'"),
            Step(sp.eye(2), "cos² + sin² = 1: M(k) is a rotation (by the angle −ω_i k)"),
        ),
        free_of=(pos,),
    )
    dot_terms = sp.sin(omega * pos) * sp.sin(omega * (pos + k)) + sp.cos(omega * pos) * sp.cos(omega * (pos + k))
    dot = Part(
        "dot",
        (
            Step(sp.Sum(dot_terms, (i, 0, m - 1)), "PE(pos)·PE(pos+k), the channels taken in pairs"),
            Step(sp.Sum(sp.cos(omega * k), (i, 0, m - 1)), "cos a cos b + sin a sin b = cos(b − a)"),
        ),
        free_of=(pos,),
    )
    return Body(
        assumptions=(
            "d = 2m, m a positive integer; i ∈ {0, …, m−1}; ω_i = 10000^(−2i/d)",
            "PE(pos, 2i) = sin(pos ω_i), PE(pos, 2i+1) = cos(pos ω_i); pos, k real",
        ),
        parts=(shift, rotation, dot),
        mutants=(
            Mutant(
                "transposed-rotation",
                "the rotation written the other way round: M(k)ᵀ",
                (("shift", sp.Eq(shift.lhs, sp.MatMul(M.T, v, evaluate=False), evaluate=False)),),
            ),
            Mutant(
                "dot-depends-on-pos",
                "the dot product depends on pos (only the sine channels counted: Σ sin(ω_i pos) sin(ω_i (pos+k)))",
                (
                    (
                        "dot",
                        sp.Eq(
                            dot.lhs,
                            sp.Sum(sp.sin(omega * pos) * sp.sin(omega * (pos + k)), (i, 0, m - 1)),
                            evaluate=False,
                        ),
                    ),
                ),
            ),
            Mutant(
                "additive-positions",
                "encodings add like positions: PE(pos+k) = PE(pos) + PE(k)",
                (("shift", sp.Eq(shift.lhs, v + pe_pair(omega, k), evaluate=False)),),
            ),
        ),
        context=Context(indices=((i, 0, m - 1),)),
        seed_verdict=(
            "holds-with-conditions",
            "the linear map is a fixed rotation per frequency pair, the same for every pos; "
            "'the model needs no extra learning' to use it is a hope, not a theorem",
        ),
    )


# --- §6.1 permutation equivariance -------------------------------------------------------------


def attention_symbols() -> tuple[
    sp.Symbol, sp.Symbol, sp.IndexedBase, dict[str, sp.IndexedBase], tuple[sp.Symbol, ...]
]:
    """L tokens of width d; X = x[a, f]; the head's bilinear form W_QK = W_Q W_Kᵀ and its output
    map W_VO = W_V W_O (d×d each); indices."""
    L = sp.Symbol("L", integer=True, positive=True)
    d = sp.Symbol("d", integer=True, positive=True)
    x = sp.IndexedBase("x", real=True)
    W = {name: sp.IndexedBase(name, real=True) for name in ("W_QK", "W_VO")}
    i, j, k, c, f, g, r = sp.symbols("i j k c f g r", integer=True)
    return L, d, x, W, (i, j, k, c, f, g, r)


def attention_functions() -> tuple[type[sp.Function], type[sp.Function], type[sp.Function], type[sp.Function]]:
    """σ (any permutation of {1..L}), the cyclic shift, the causal mask and the sinusoidal table,
    as named functions: statements name them, checks bind them to tensors."""
    return (sp.Function("sigma"), sp.Function("shift"), sp.Function("causal"), sinusoidal_function())


def score(a, b, y) -> sp.Expr:
    """s_ab = (Y W_Q)_a · (Y W_K)_b / √d = Σ_f Σ_g y_af (W_Q W_Kᵀ)_fg y_bg / √d."""
    L, d, x, W, (_, _, _, _, f, g, _) = attention_symbols()
    return sp.Sum(sp.Sum(y(a, f) * W["W_QK"][f, g] * y(b, g), (g, 1, d)), (f, 1, d)) / sp.sqrt(d)


def value(a, c, y) -> sp.Expr:
    """v_ac = (Y W_V W_O)_ac: the value of token a after the output projection."""
    L, d, x, W, (_, _, _, _, f, _, _) = attention_symbols()
    return sp.Sum(y(a, f) * W["W_VO"][f, c], (f, 1, d))


def attention_row(i, c, token, *, mask=None, positions=None) -> sp.Expr:
    r"""Row ``i``, channel ``c`` of one-head self-attention with output projection,

    .. math:: \sum_j \frac{m_{ij} e^{s_{ij}}}{\sum_k m_{ik} e^{s_{ik}}} v_{jc},\quad
              s_{ab} = \frac{(Y W_Q)_a \cdot (Y W_K)_b}{\sqrt d},\quad v_{ac} = (Y W_V W_O)_{ac}

    where row ``a`` of the input Y is ``x[token(a), :]`` (plus ``positions(a, f)`` when given) and
    the mask ``m_ij = mask(i, j)`` is 1 when none is given.
    """
    L, d, x, W, (_, j, k, _, _, _, _) = attention_symbols()

    def y(a, ch):
        return x[token(a), ch] + (positions(a, ch, d) if positions is not None else 0)

    m = (lambda b: mask(i, b)) if mask is not None else (lambda b: 1)
    return sp.Sum(m(j) * sp.exp(score(i, j, y)) * value(j, c, y), (j, 1, L)) / sp.Sum(
        m(k) * sp.exp(score(i, k, y)), (k, 1, L)
    )


def reindex(sigma, L) -> rules.Rule:
    """Σ_{j=1}^{L} F(σ(j)) = Σ_{j=1}^{L} F(j) for a bijection σ of {1, …, L}; applied only to sums
    over the whole range whose summand depends on j through σ(j) alone."""

    def applies(s):
        if not (isinstance(s, sp.Sum) and len(s.limits) == 1):
            return False
        v, a, b = s.limits[0]
        body = s.function
        return a == 1 and b == L and body.has(sigma(v)) and not body.xreplace({sigma(v): sp.Dummy()}).has(v)

    def fn(e):
        return e.replace(
            applies, lambda s: sp.Sum(s.function.xreplace({sigma(s.limits[0][0]): s.limits[0][0]}), s.limits[0])
        )

    return rules.Rule("reindex a sum over {1..L} by the bijection σ", "axiom", fn)


def free_replace(old, new, bound) -> rules.Rule:
    """Replace ``old`` by ``new`` outside the sums that bind ``bound`` (an index named in ``old``)."""

    def walk(e):
        if isinstance(e, sp.Sum) and any(lim[0] == bound for lim in e.limits):
            return e
        if e == old:
            return new
        if not getattr(e, "args", None):
            return e
        args = tuple(walk(a) for a in e.args)
        return e.func(*args) if args != e.args else e

    return rules.Rule(f"name {old} as {new}", "definition", walk)


def sinusoidal_entry(a, ch, d) -> sp.Expr:
    """PE at 1-based position a, 1-based channel ch (0-based: pos = a − 1, channel ch − 1):
    sin(pos ω) on even channels 2i, cos(pos ω) on odd ones, ω = 10000^(−2i/d), 2i = ch − 1 − odd."""
    odd = (1 - (-1) ** (ch - 1)) / 2  # 1 on the cosine channels 2i + 1
    angle = (a - 1) * sp.Integer(10000) ** (-(ch - 1 - odd) / d)
    return (1 - odd) * sp.sin(angle) + odd * sp.cos(angle)


@lru_cache(maxsize=None)
def sinusoidal_function() -> type[sp.Function]:
    """``PE(a, ch, d)``: the sinusoidal table as a SymPy function that takes its value once its
    arguments are integers, and stays a name otherwise (so algebra on it stays cheap)."""

    class PE(sp.Function):
        @classmethod
        def eval(cls, a, ch, d):
            if a.is_Integer and ch.is_Integer and d.is_Integer:
                return sinusoidal_entry(a, ch, d)
            return None

        def __reduce_ex__(self, protocol):  # a local class: pickle (cache, -j N) rebuilds it by name
            return (_pe, self.args)

    return PE


def _pe(a, ch, d):
    return sinusoidal_function()(a, ch, d)


@claim(
    id="attention-permutation-equivariance",
    title="Without positions, attention is permutation-equivariant: Attn(PX) = P·Attn(X); pooled outputs are invariant",
    section="§6.1",
    zh="把“我爱吃苹果”换成“苹果爱吃我”，如果不加位置信息，Transformer 算出来的表示一模一样。",
    en="Swap 'I love eating apples' for 'apples love eating me': without position information the "
    "Transformer computes exactly the same representation.",
    check="mathcheck.verify.combinatorics:attention_permutation_equivariance",
)
def attention_permutation_equivariance() -> Body:
    r"""For any permutation σ of the L positions, (PX)_a = X_{σ(a)}, and one-head attention
    (no mask, no positions; any L, d):

    .. math::
        \mathrm{Attn}(PX)_{ic} = \mathrm{Attn}(X)_{\sigma(i)c},\qquad
        \sum_i \mathrm{Attn}(PX)_{ic} = \sum_i \mathrm{Attn}(X)_{ic}.
    """
    L, d, x, W, (i, j, k, c, f, g, r) = attention_symbols()
    sigma, shift, causal, PE = attention_functions()
    S, V = sp.IndexedBase("S"), sp.IndexedBase("V")
    ident = lambda a: a  # noqa: E731
    rows = lambda a, ch: x[a, ch]  # noqa: E731
    define_S = rules.unfold_indexed("definition of the scores S = XW_Q(XW_K)ᵀ/√d", S, lambda a, b: score(a, b, rows))
    define_V = rules.unfold_indexed("definition of the values V = XW_VW_O", V, lambda a, ch: value(a, ch, rows))
    by_sigma = reindex(sigma, L)

    permuted = attention_row(i, c, sigma)
    image = attention_row(sigma(i), c, ident)
    equivariance = Part(
        "equivariance",
        (
            Step(permuted, "row i, channel c of Attn(PX): row a of PX is row σ(a) of X"),
            Step(
                sp.Sum(sp.exp(S[sigma(i), sigma(j)]) * V[sigma(j), c], (j, 1, L))
                / sp.Sum(sp.exp(S[sigma(i), sigma(k)]), (k, 1, L)),
                "the scores of PX are P S Pᵀ and its values P V: entry (i, j) is S_{σ(i)σ(j)}",
            ),
            Step(
                sp.Sum(sp.exp(S[sigma(i), j]) * V[j, c], (j, 1, L)) / sp.Sum(sp.exp(S[sigma(i), k]), (k, 1, L)),
                "σ is a bijection of {1..L}: both sums (softmax's numerator and normaliser) run over all keys",
                by_sigma,
            ),
            Step(image, "row σ(i) of Attn(X)"),
        ),
    )
    pooled = Part(
        "pooled",
        (
            Step(sp.Sum(permuted, (i, 1, L)), "sum-pooling of Attn(PX) over positions"),
            Step(
                sp.Sum(image, (i, 1, L)),
                "part 'equivariance', row by row",
                rules.lemma("part 'equivariance'", permuted, image),
            ),
            Step(sp.Sum(attention_row(i, c, ident), (i, 1, L)), "σ is a bijection: reindex the sum over i", by_sigma),
        ),
    )
    name_r = free_replace(sigma(i), r, i)
    definitions = (
        define_S,
        define_V,
        name_r,
        rules.unfold("the cyclic shift σ(a) = a mod L + 1", "shift", lambda a: sp.Mod(a, L) + 1),
        rules.unfold(
            "the causal mask: key b is visible from query a iff b ≤ a",
            "causal",
            lambda a, b: sp.Piecewise((1, b <= a), (0, True)),
        ),
    )
    wrong = lambda lhs, rhs: sp.Eq(lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=(
            "L, d positive integers; X ∈ R^{L×d}; one head with W_QK = W_Q W_Kᵀ, W_VO = W_V W_O ∈ R^{d×d}",
            "σ is a permutation of {1, …, L} and (PX)_a = X_{σ(a)}; no mask, no position encoding",
            "i ∈ {1..L}, c ∈ {1..d}; r names σ(i): every pair (i, r) is realised by a permutation",
        ),
        parts=(equivariance, pooled),
        mutants=(
            Mutant(
                "invariant-per-token",
                "each token's output is unchanged: Attn(PX) = Attn(X)",
                (("equivariance", wrong(permuted, attention_row(i, c, ident))),),
            ),
            Mutant(
                "equivariant-with-causal-mask",
                "equivariance survives a causal mask (refuted at the cyclic shift σ(a) = a mod L + 1)",
                (
                    (
                        "equivariance",
                        wrong(attention_row(i, c, shift, mask=causal), attention_row(shift(i), c, ident, mask=causal)),
                    ),
                ),
            ),
            Mutant(
                "equivariant-with-positions",
                "equivariance survives adding sinusoidal position encodings to the input (refuted at the cyclic shift)",
                (
                    (
                        "equivariance",
                        wrong(
                            attention_row(i, c, shift, positions=PE), attention_row(shift(i), c, ident, positions=PE)
                        ),
                    ),
                ),
            ),
        ),
        # moderate inputs keep the softmax unsaturated, so a counterexample shows beyond rounding
        context=Context(
            indices=((i, 1, L), (r, 1, L), (c, 1, d)),
            definitions=definitions,
            sample=tuple((b, (-1, 1)) for b in (x, *W.values())),
        ),
        seed_verdict=(
            "imprecise",
            "without positions, permuting the tokens permutes each token's output the same "
            "way (Attn(PX) = P·Attn(X), equivariance); only a pooled (sum/mean) representation "
            "is identical, and a causal mask already breaks the symmetry",
        ),
    )


# --- rotary position embeddings ------------------------------------------------------------------


def rope_symbols() -> tuple[sp.Basic, ...]:
    """h blocks (d = 2h), block index b ∈ {1..h}, angles θ_b, positions m, n, offset t, vectors q, k
    with block b = (q[b, 1], q[b, 2])."""
    h = sp.Symbol("h", integer=True, positive=True)
    b = sp.Symbol("b", integer=True)
    theta = sp.IndexedBase("theta", real=True)
    q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
    m, n, t = sp.symbols("m n t", real=True)
    return h, b, theta, q, k, m, n, t


def rotate(u, b, angle) -> tuple[sp.Expr, sp.Expr]:
    """Block b of R u: the 2×2 rotation by ``angle`` of (u[b, 1], u[b, 2])."""
    return (u[b, 1] * sp.cos(angle) - u[b, 2] * sp.sin(angle), u[b, 1] * sp.sin(angle) + u[b, 2] * sp.cos(angle))


def block_dot(u, v) -> sp.Expr:
    return u[0] * v[0] + u[1] * v[1]


@claim(
    id="rope-relative-position",
    title="Rotary embeddings: ⟨R_m q, R_n k⟩ = ⟨q, R_{n−m} k⟩, the score depends on n − m only",
    section="§6.2",
    zh="这种“相对位置”信息被编码进了位置向量的线性结构中。",
    en="This 'relative position' information is encoded into the linear structure of the position vectors.",
    check="mathcheck.verify.combinatorics:rope_relative_position",
)
def rope_relative_position() -> Body:
    r"""Beyond the seed: rotary position embeddings (RoFormer). With :math:`R_p` the block-diagonal
    rotation by the angles :math:`p\theta_b`, :math:`b = 1..h` (d = 2h, any h, any angles),

    .. math::
        \langle R_m q, R_n k\rangle = \sum_{b=1}^{h} \big[(q_{b1}k_{b1} + q_{b2}k_{b2})\cos((n-m)\theta_b)
        + (q_{b2}k_{b1} - q_{b1}k_{b2})\sin((n-m)\theta_b)\big] = \langle q, R_{n-m} k\rangle.
    """
    h, b, theta, q, k, m, n, t = rope_symbols()

    def dot(p_q, p_k):
        return sp.Sum(block_dot(rotate(q, b, p_q * theta[b]), rotate(k, b, p_k * theta[b])), (b, 1, h))

    def against_q(p):
        return sp.Sum(block_dot((q[b, 1], q[b, 2]), rotate(k, b, p * theta[b])), (b, 1, h))

    same = q[b, 1] * k[b, 1] + q[b, 2] * k[b, 2]
    cross = q[b, 2] * k[b, 1] - q[b, 1] * k[b, 2]
    a_m, a_n = m * theta[b], n * theta[b]
    inner = Part(
        "inner",
        (
            Step(dot(m, n), "⟨R_m q, R_n k⟩, block by block"),
            Step(
                sp.Sum(
                    same * (sp.cos(a_m) * sp.cos(a_n) + sp.sin(a_m) * sp.sin(a_n))
                    + cross * (sp.cos(a_m) * sp.sin(a_n) - sp.sin(a_m) * sp.cos(a_n)),
                    (b, 1, h),
                ),
                "multiply out; group the terms in q·k and in the cross products",
            ),
            Step(
                sp.Sum(same * sp.cos((n - m) * theta[b]) + cross * sp.sin((n - m) * theta[b]), (b, 1, h)),
                "cos a cos b + sin a sin b = cos(b − a), cos a sin b − sin a cos b = sin(b − a)",
            ),
            Step(against_q(n - m), "the same sum, read as ⟨q, R_{n−m} k⟩"),
        ),
    )
    relative = Part(
        "relative",
        (
            Step(dot(m, m + t), "the score of a query at m and a key t positions later"),
            Step(against_q(t), "part 'inner' with n = m + t: (m + t) − m = t"),
        ),
        free_of=(m,),
    )
    wrong = lambda rhs: sp.Eq(inner.lhs, rhs, evaluate=False)  # noqa: E731
    return Body(
        assumptions=(
            "d = 2h, h a positive integer; block b ∈ {1..h} holds components (b, 1), (b, 2)",
            "θ_b real (RoPE uses θ_b = 10000^(−2(b−1)/d)); positions m, n and offset t real",
        ),
        parts=(inner, relative),
        mutants=(
            Mutant(
                "offset-sum",
                "the rotations add up: ⟨R_m q, R_n k⟩ = ⟨q, R_{m+n} k⟩",
                (("inner", wrong(against_q(m + n))),),
            ),
            Mutant(
                "offset-sign",
                "the offset's sign flipped: ⟨R_m q, R_n k⟩ = ⟨q, R_{m−n} k⟩",
                (("inner", wrong(against_q(m - n))),),
            ),
        ),
        context=Context(indices=((b, 1, h),)),
        seed_verdict=(
            "holds-with-conditions",
            "relative position reaches the attention score exactly when the encoding rotates q "
            "and k (RoPE: ⟨R_m q, R_n k⟩ = ⟨q, R_{n−m} k⟩); with the seed's additive sinusoidal "
            "code only PE(pos)·PE(pos+k) depends on k alone, the projected score "
            "(PE_m W_Q)·(PE_{m+k} W_K) changes with m for generic W_Q, W_K",
        ),
    )


# --- §6.3 the cost of attention ------------------------------------------------------------------


def binomial_definition() -> rules.Rule:
    """C(n, k) written out (``expand_func``: C(n, 2) = n(n − 1)/2)."""
    return rules.Rule("definition of C(n, k)", "definition", lambda e: sp.expand_func(e), both_sides=True)


@claim(
    id="attention-complexity",
    title="Attention scores n² ordered pairs = 2·C(n,2) + n; QKᵀ and AV cost 2n²d FLOPs each, the "
    "projections 8nd²; a causal window of w keeps n·w − w(w−1)/2 pairs",
    section="§6.3",
    zh="如果把两两配对写成组合数，就是 C(n, 2) 级别，约等于 n(n-1)/2，用大 O 表示就是 n²。",
    en="Written as a combination count, the pairwise pairings are of order C(n, 2), about n(n-1)/2, "
    "which in big-O notation is n².",
    check="mathcheck.verify.combinatorics:attention_complexity",
)
def attention_complexity() -> Body:
    r"""For n tokens of width d (any n, d, and a window 1 ≤ w ≤ n), counting a multiply-add as two
    FLOPs (as FLOP counters do: a (p×q)(q×r) product costs 2pqr):

    .. math::
        \sum_{i,j=1}^{n} 1 = n^2 = 2\binom n2 + n,\qquad
        F(QK^\top) = F(AV) = 2n^2d,\qquad F(\text{Q, K, V, O}) = 8nd^2,

    the causal sliding window :math:`i - w < j \le i` keeps :math:`nw - \binom w2` pairs, and the
    centred window :math:`|i - j| \le r` (w = 2r + 1) keeps :math:`nw - r(r+1)`.
    """
    n = sp.Symbol("n", integer=True, positive=True)
    d = sp.Symbol("d", integer=True, positive=True)
    w = sp.Symbol("w", integer=True, positive=True)
    r = sp.Symbol("r", integer=True, nonnegative=True)
    i, j, e = sp.symbols("i j e", integer=True)
    C = sp.binomial(n, 2)
    by_binomial = binomial_definition()
    unordered = Part(
        "unordered",
        (
            Step(sp.Sum(sp.Sum(1, (j, i + 1, n)), (i, 1, n)), "unordered pairs {i, j} of distinct tokens, i < j"),
            Step(sp.Sum(n - i, (i, 1, n)), "token i pairs with the n − i tokens after it"),
            Step(n * (n - 1) / 2, "Σ_{i=1}^{n} (n − i) = 0 + 1 + … + (n − 1)"),
            Step(C, "that is C(n, 2), exactly", by_binomial),
        ),
    )
    ordered = Part(
        "ordered",
        (
            Step(
                sp.Sum(sp.Sum(1, (j, 1, n)), (i, 1, n)),
                "ordered (query i, key j) pairs, i = j included: the entries of QKᵀ",
            ),
            Step(n**2, "n rows of n"),
            Step(2 * C + n, "each unordered pair twice (i < j and i > j), plus the n pairs i = j", by_binomial),
        ),
    )
    qk = Part(
        "qk",
        (
            Step(
                sp.Sum(sp.Sum(sp.Sum(2, (e, 1, d)), (j, 1, n)), (i, 1, n)),
                "QKᵀ: n² scores, each a d-term dot product of d multiply-adds (2 FLOPs each)",
            ),
            Step(2 * n**2 * d, "sum the constant"),
        ),
    )
    av = Part(
        "av",
        (
            Step(
                sp.Sum(sp.Sum(sp.Sum(2, (j, 1, n)), (e, 1, d)), (i, 1, n)),
                "AV: n × d outputs, each a weighted sum of n values (n multiply-adds)",
            ),
            Step(2 * n**2 * d, "sum the constant"),
        ),
    )
    projections = Part(
        "projections",
        (
            Step(
                4 * sp.Sum(sp.Sum(sp.Sum(2, (e, 1, d)), (j, 1, d)), (i, 1, n)),
                "XW_Q, XW_K, XW_V and the output projection: four (n×d)(d×d) products",
            ),
            Step(8 * n * d**2, "sum the constant"),
        ),
    )
    attention = Part(
        "attention",
        (
            Step(
                qk.lhs + av.lhs,
                "softmax(QKᵀ/√d)V: the two products (scaling and softmax are O(n²), not counted as matrix FLOPs)",
            ),
            Step(4 * n**2 * d, "2n²d + 2n²d"),
        ),
    )
    window = Part(
        "window",
        (
            Step(
                sp.Sum(sp.Sum(1, (j, 1, i)), (i, 1, w - 1)) + sp.Sum(sp.Sum(1, (j, i - w + 1, i)), (i, w, n)),
                "causal window i − w < j ≤ i: rows i < w are cut at the start (keys 1..i), the others keep w keys",
            ),
            Step(sp.Sum(i, (i, 1, w - 1)) + sp.Sum(w, (i, w, n)), "count the keys of each row"),
            Step(w * (w - 1) / 2 + w * (n - w + 1), "1 + … + (w − 1), and n − w + 1 full rows"),
            Step(n * w - sp.binomial(w, 2), "n·w minus the C(w, 2) keys missing at the start", by_binomial),
        ),
    )
    centred = Part(
        "window-centred",
        (
            Step(
                sp.Sum(2 * r + 1, (i, 1, n)) - sp.Sum(r + 1 - i, (i, 1, r)) - sp.Sum(i + r - n, (i, n - r + 1, n)),
                "window |i − j| ≤ r (w = 2r + 1 keys around i): each row's 2r + 1 slots, minus the r + 1 − i "
                "hanging over the start (i ≤ r) and the i + r − n over the end (i > n − r)",
            ),
            Step(n * (2 * r + 1) - r * (r + 1) / 2 - r * (r + 1) / 2, "1 + … + r at each end"),
            Step(n * (2 * r + 1) - r * (r + 1), "n·w minus r(r + 1) = (w² − 1)/4 keys cut at the two ends"),
        ),
    )
    return Body(
        assumptions=(
            "n, d positive integers; 1 ≤ w ≤ n; 0 ≤ r ≤ n (centred window of w = 2r + 1)",
            "a multiply-add counts as 2 FLOPs; softmax, scaling and masking are not matrix FLOPs",
            "one head of width d (h heads of width d/h give the same totals)",
        ),
        parts=(unordered, ordered, qk, av, projections, attention, window, centred),
        mutants=(
            Mutant(
                "qk-without-multiply-add",
                "QKᵀ costs n²d FLOPs (one per multiply-add, not two)",
                (("qk", sp.Eq(qk.lhs, n**2 * d, evaluate=False)),),
            ),
            Mutant(
                "window-exactly-nw",
                "a window of w keeps exactly n·w pairs",
                (("window", sp.Eq(window.lhs, n * w, evaluate=False)),),
            ),
            Mutant(
                "pairs-forget-the-diagonal",
                "n² = 2·C(n, 2): the pairs i = j forgotten",
                (("ordered", sp.Eq(ordered.lhs, 2 * C, evaluate=False)),),
            ),
        ),
        context=Context(indices=((w, 1, n), (r, 0, n))),
        seed_verdict=(
            "imprecise",
            "attention scores all n² ordered (query, key) pairs, self-pairs included: "
            "n² = 2·C(n, 2) + n, where C(n, 2) = n(n−1)/2 exactly counts unordered distinct "
            "pairs; both are Θ(n²), and a window of w keeps n·w − C(w, 2) ≤ n·w pairs",
        ),
    )


@claim(
    id="sinusoidal-wavelengths",
    title="PE(pos) has d = 2h entries (2i is an index, not a dimension); pair i has period 2π·10000^{2i/d} in pos, "
    "the longest 2π·10000^{1−2/d} < 20000π for every d",
    section="§6.2",
    zh="组合数学在这里的作用，是为如何“摆放”离散的位置提供结构化思路：每个位置都是一个 2i 维的坐标，维度越高，周期的取值范围越大，"
    "模型越能区分长远距离。",
    en="Combinatorics structures how discrete positions are placed: each position is a 2i-dimensional coordinate; "
    "the higher the dimension, the wider the range of periods, and the better the model tells long distances apart.",
)
def sinusoidal_wavelengths() -> Body:
    r"""The sinusoidal code of width d = 2h (h frequency pairs, i = 0, …, h − 1, ω_i = 10000^{−2i/d}):

    .. math::
        \sum_{m=0}^{h-1} 2 = 2h = d,\qquad
        \sin\frac{pos + 2\pi\cdot 10000^{2i/d}}{10000^{2i/d}} = \sin\frac{pos}{10000^{2i/d}},\qquad
        2\pi\cdot 10000^{2(h-1)/d} = 20000\pi\cdot 10000^{-2/d} < 20000\pi.

    So the periods run from 2π (i = 0) to 2π·10000^{1−2/d}: for d = 512 that is 2π to ≈ 6.06·10⁴, for
    d = 4 it is 2π to 200π; a larger d adds frequencies inside [2π, 20000π), it never passes 20000π.
    """
    pos = sp.Symbol("pos", real=True)
    h = sp.Symbol("h", integer=True, positive=True)  # frequency pairs: d = 2h
    i, m = sp.symbols("i m", integer=True)
    d = 2 * h
    wavelength = sp.Integer(10000) ** (2 * i / d)  # 10000^{2i/d}: pos is divided by it
    period = 2 * sp.pi * wavelength
    width = Part(
        "width",
        (
            Step(
                sp.Sum(2, (m, 0, h - 1)), "PE(pos) holds a sin and a cos for each of the h frequencies m = 0, …, h − 1"
            ),
            Step(d, "2h = d entries: every position is a d-dimensional vector, 2i and 2i + 1 index its entries"),
        ),
    )
    shifted = sp.Add(pos / wavelength, 2 * sp.pi, evaluate=False)
    periods = []
    for name, f in (("period-sin", sp.sin), ("period-cos", sp.cos)):
        periods.append(
            Part(
                name,
                (
                    Step(
                        f((pos + period) / wavelength),
                        f"PE(pos + P_i, ·) with P_i = 2π·10000^{{2i/d}}: the {f.__name__} entry",
                    ),
                    Step(f(shifted, evaluate=False), "(pos + P_i)/10000^{2i/d} = pos/10000^{2i/d} + 2π"),
                    Step(f(pos / wavelength), f"{f.__name__} has period 2π: pair i repeats every P_i positions"),
                ),
            )
        )
    longest = Part(
        "longest",
        (
            Step(period.subs(i, h - 1), "the longest period, at the last pair i = h − 1 = d/2 − 1"),
            Step(
                20000 * sp.pi * sp.Integer(10000) ** (-1 / h),
                "10000^{(h−1)/h} = 10000 · 10000^{−1/h} = 10000^{1 − 2/d}",
            ),
        ),
    )
    # 10000^x is increasing in x, so the longest period stays below 2π·10000^1 = 20000π exactly when
    # its exponent stays below 1 (SymPy cannot sign 1 − 10000^{−1/h} itself; it can sign 1/h)
    exponent = Part(
        "longest-exponent",
        (
            Step(2 * (h - 1) / d, "the exponent of the longest period, 2i/d at i = h − 1"),
            Step(1 - 1 / h, "(h − 1)/h"),
            Step(
                sp.Integer(1),
                "1/h > 0: the exponent is below 1 for every d, so the period is below 20000π",
                relation="<",
            ),
        ),
    )
    return Body(
        assumptions=(
            "d = 2h, h a positive integer (the number of frequency pairs); pos ∈ R",
            "i ∈ {0, …, h − 1}: PE(pos, 2i) = sin(pos/10000^{2i/d}), PE(pos, 2i+1) = cos(pos/10000^{2i/d})",
        ),
        parts=(width, *periods, longest, exponent),
        mutants=(
            Mutant(
                "position-is-2i-dimensional",
                "each position is a 2i-dimensional coordinate",
                (("width", sp.Eq(width.lhs, 2 * i, evaluate=False)),),
            ),
            Mutant(
                "period-without-2pi",
                "pair i repeats every 10000^{2i/d} positions (the 2π forgotten)",
                (
                    (
                        "period-sin",
                        sp.Eq(sp.sin((pos + wavelength) / wavelength), sp.sin(pos / wavelength), evaluate=False),
                    ),
                ),
            ),
            Mutant(
                "exponent-reaches-one",
                "the longest period's exponent 2i/d reaches 1 (period 20000π) at some d",
                (("longest-exponent", sp.Ge(exponent.lhs, 1, evaluate=False)),),
            ),
        ),
        context=Context(indices=((i, 0, h - 1),)),
        seed_verdict=(
            "wrong",
            "each position is a d-dimensional vector; 2i only indexes its entries. The periods "
            "2π·10000^{2i/d} run from 2π to 2π·10000^{1−2/d}: that range grows with d (d = 4: up to "
            "200π; d = 512: ≈ 6.06·10⁴) but never reaches 20000π, a larger d adds frequencies inside it",
        ),
    )
