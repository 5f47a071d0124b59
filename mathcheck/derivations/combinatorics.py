"""§6 Combinatorics and positions: permutation invariance, sinusoidal encodings, the n² cost."""

from __future__ import annotations

from mathcheck.claim import Body, Context, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


def sinusoidal_symbols():
    """pos, k (real), frequency index i ∈ {0, …, m−1}, d = 2m, ω_i = 10000^(−2i/d)."""
    pos, k = sp.symbols("pos k", real=True)
    i = sp.Symbol("i", integer=True, nonnegative=True)
    m = sp.Symbol("m", integer=True, positive=True)
    d = 2 * m
    omega = sp.Integer(10000) ** (-2 * i / d)
    return pos, k, i, m, omega


def pe_pair(omega, x):
    """Channels (2i, 2i+1) of PE(x): (sin(x ω_i), cos(x ω_i))."""
    return sp.Matrix([sp.sin(omega * x), sp.cos(omega * x)])


def derive_rotation(omega, pos, k):
    """Solve M·PE(pos) = PE(pos+k) for a 2×2 matrix M whose entries may not depend on pos.

    The angle-addition expansion is linear in S = sin(ω pos), C = cos(ω pos); matching the
    coefficients of S and C gives M. Returns M (it is derived here, not written down).
    """
    S, C = sp.symbols("S C")
    a = sp.symbols("a0:4")
    M = sp.Matrix(2, 2, a)
    target = sp.expand(pe_pair(omega, pos + k), trig=True).xreplace(
        {sp.sin(omega * pos): S, sp.cos(omega * pos): C})
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
       "可以由位置 pos 的编码通过一个线性变换计算出来。",
    en="sin(a+b) = sin(a)cos(b) + cos(a)sin(b), which means the encoding of position pos+k can be "
       "computed from the encoding of position pos by a linear transformation.",
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
    shift = Part("shift", (
        Step(pe_pair(omega, pos + k), "channels 2i, 2i+1 of PE(pos+k)"),
        Step(sp.Matrix([sp.sin(omega * pos) * sp.cos(omega * k) + sp.cos(omega * pos) * sp.sin(omega * k),
                        sp.cos(omega * pos) * sp.cos(omega * k) - sp.sin(omega * pos) * sp.sin(omega * k)]),
             "angle addition: sin(a+b) = sin a cos b + cos a sin b, cos(a+b) = cos a cos b − sin a sin b"),
        Step(sp.MatMul(M, v, evaluate=False), "collect the coefficients of sin(ω_i pos) and cos(ω_i pos)"),
    ))
    rotation = Part("rotation", (
        Step(sp.MatMul(M.T, M, evaluate=False), "MᵀM for the matrix M(k) of part 'shift'"),
        Step(sp.eye(2), "cos² + sin² = 1: M(k) is a rotation (by the angle −ω_i k)"),
    ), free_of=(pos,))
    dot_terms = sp.sin(omega * pos) * sp.sin(omega * (pos + k)) + sp.cos(omega * pos) * sp.cos(omega * (pos + k))
    dot = Part("dot", (
        Step(sp.Sum(dot_terms, (i, 0, m - 1)), "PE(pos)·PE(pos+k), the channels taken in pairs"),
        Step(sp.Sum(sp.cos(omega * k), (i, 0, m - 1)), "cos a cos b + sin a sin b = cos(b − a)"),
    ), free_of=(pos,))
    return Body(
        assumptions=("d = 2m, m a positive integer; i ∈ {0, …, m−1}; ω_i = 10000^(−2i/d)",
                     "PE(pos, 2i) = sin(pos ω_i), PE(pos, 2i+1) = cos(pos ω_i); pos, k real"),
        parts=(shift, rotation, dot),
        mutants=(
            Mutant("transposed-rotation", "the rotation written the other way round: M(k)ᵀ",
                   (("shift", sp.Eq(shift.lhs, sp.MatMul(M.T, v, evaluate=False), evaluate=False)),)),
            Mutant("dot-depends-on-pos",
                   "the dot product depends on pos (only the sine channels counted: Σ sin(ω_i pos) sin(ω_i (pos+k)))",
                   (("dot", sp.Eq(dot.lhs, sp.Sum(sp.sin(omega * pos) * sp.sin(omega * (pos + k)), (i, 0, m - 1)),
                                  evaluate=False)),)),
            Mutant("additive-positions", "encodings add like positions: PE(pos+k) = PE(pos) + PE(k)",
                   (("shift", sp.Eq(shift.lhs, v + pe_pair(omega, k), evaluate=False)),)),
        ),
        context=Context(indices=((i, 0, m - 1),)),
        seed_verdict=("holds-with-conditions",
                      "the linear map is a fixed rotation per frequency pair, the same for every pos; "
                      "'the model needs no extra learning' to use it is a hope, not a theorem"),
    )
