"""The oracles: derived SymPy results taken out of the catalog's claims, evaluated with torch.

Every formula here is *read* from a claim built by :func:`mathcheck.registry.get` (a part's derived
right-hand side, or a sub-expression of a derived step), never typed again, so a conform property
holds the user's code to exactly what the step checker showed. Each function names its claim,
part and step; the §9 kinds (``rmsnorm``, ``gqa``, ``online-softmax``) read rmsnorm-statistics,
grouped-query-attention and online-softmax the same way.

    >>> import torch
    >>> e = softmax()                          # exp(c + z_i)/Σ_k exp(c + z_k)  (softmax-simplex)
    >>> z = torch.tensor([0.0, 1.0], dtype=torch.float64)
    >>> ev(e, {"z": z, "c": -z.max(), "n": 2}, grid={"i": 2})
    tensor([0.2689, 0.7311], dtype=torch.float64)
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
import torch

from mathcheck.numeric.evaluate import Indexed, evaluate
from mathcheck.numeric.symbols import by_name


def _claim(claim_id: str):
    from mathcheck import registry

    return registry.get(claim_id)


def _step(claim_id: str, part: str, n: int):
    return _claim(claim_id).part(part).steps[n].expr


def _find(expr, test):
    found = [a for a in sp.preorder_traversal(expr) if test(a)]
    if not found:
        raise LookupError(f"no sub-expression of {expr} matches")
    return found[0]


def names(expr) -> dict:
    """The symbols and IndexedBases of ``expr`` by name (:func:`mathcheck.numeric.symbols.by_name`)."""
    return by_name(expr)


def ev(expr, values: dict, grid: dict | None = None, base: int = 1, funcs=None) -> torch.Tensor:
    """Evaluate ``expr``: ``values`` binds names (symbols to numbers/tensors, IndexedBases to
    tensors indexed from ``base``), ``grid`` binds free indices to ``arange(base, base + n)`` on
    trailing broadcast axes, in ``grid``'s order, after any leading batch axes of the tensors."""
    nm = names(expr)
    env = {}
    grid = grid or {}
    for k, v in values.items():
        if k not in nm:
            continue
        env[nm[k]] = Indexed(v, base) if isinstance(nm[k], sp.IndexedBase) else v
    order = list(grid)
    for axis, k in enumerate(order):
        if k in nm:
            shape = [1] * len(order)
            shape[axis] = grid[k]
            env[nm[k]] = torch.arange(base, base + grid[k], dtype=torch.float64).reshape(shape)
    return evaluate(expr, env, funcs=funcs)


# --- softmax (softmax-simplex, softmax-jacobian) ------------------------------------------------------


@lru_cache(maxsize=None)
def softmax() -> sp.Expr:
    """softmax-simplex, part ``shift-invariant``, step 0: exp(c + z_i)/Σ_k exp(c + z_k), which the
    part shows equals s_i for every c; with c = −max z no exponential overflows (the safe shift)."""
    return _step("softmax-simplex", "shift-invariant", 0)


@lru_cache(maxsize=None)
def softmax_ratio() -> sp.Expr:
    """softmax-simplex, part ``ratio``: s_i/s_j = exp(z_i − z_j) (the derived right-hand side)."""
    return _claim("softmax-simplex").part("ratio").rhs


@lru_cache(maxsize=None)
def softmax_jacobian() -> sp.Expr:
    """softmax-jacobian, part ``jacobian``: ∂s_i/∂z_j = s_i(δ_ij − s_j)."""
    return _claim("softmax-jacobian").part("jacobian").rhs


@lru_cache(maxsize=None)
def softmax_normalised() -> sp.Expr:
    """softmax-simplex, part ``normalised``: Σ_j s_j = 1 (the derived right-hand side)."""
    return _claim("softmax-simplex").part("normalised").rhs


# --- attention (multihead-split-merge, mask-negative-infinity, attention-backward) -------------------


@lru_cache(maxsize=None)
def head_scores() -> sp.Expr:
    """multihead-split-merge, part ``head-scores``: Σ_e K_h[b,h,j,e] Q_h[b,h,l,e]/√D_head (indices from 0)."""
    return _claim("multihead-split-merge").part("head-scores").lhs


@lru_cache(maxsize=None)
def masked_softmax() -> sp.Expr:
    """mask-negative-infinity, part ``boolean-mask``: exp(z_i)α_i/Σ_k exp(z_k)α_k, α = keep (0/1), the
    derived right-hand side of exp(m_i + z_i)/Σ_k exp(m_k + z_k) with m ∈ {0, −∞}."""
    return _claim("mask-negative-infinity").part("boolean-mask").rhs


@lru_cache(maxsize=None)
def additive_masked_softmax() -> sp.Expr:
    """mask-negative-infinity, part ``boolean-mask``, step 0: exp(m_i + z_i)/Σ_k exp(m_k + z_k)."""
    return _claim("mask-negative-infinity").part("boolean-mask").lhs


@lru_cache(maxsize=None)
def masked_weight_limit() -> sp.Expr:
    """mask-negative-infinity, part ``neg-inf-weight``: the weight of a key whose score → −∞ is 0."""
    return _claim("mask-negative-infinity").part("neg-inf-weight").rhs


@lru_cache(maxsize=None)
def attention_output() -> sp.Expr:
    """attention-backward, part ``dP``, step 0: the O_mb = Σ_k P_mk V_kb inside ℓ = Σ dO ⊙ O."""
    return _find(
        _step("attention-backward", "dP", 0),
        lambda a: isinstance(a, sp.Sum) and {b.label.name for b in a.atoms(sp.IndexedBase)} == {"P", "V"},
    )


@lru_cache(maxsize=None)
def attention_gradients() -> dict:
    """attention-backward: the derived right-hand sides of parts dV, dP, dS, dQ and dK."""
    c = _claim("attention-backward")
    return {p: c.part(p).rhs for p in ("dV", "dP", "dS", "dQ", "dK")}


# --- losses (cross-entropy-softmax-gradient, cross-entropy-decomposition, kl-distillation) -----------


@lru_cache(maxsize=None)
def ce_gradient() -> sp.Expr:
    """cross-entropy-softmax-gradient, part ``gradient``: ∂(−log s_y)/∂z_j = s_j − δ_jy."""
    return _claim("cross-entropy-softmax-gradient").part("gradient").rhs


@lru_cache(maxsize=None)
def log_softmax() -> sp.Expr:
    """cross-entropy-softmax-gradient, part ``gradient``, step 0: the log(exp(z_y)/Σ_k exp(z_k))
    differentiated there (the negative of the loss)."""
    d = _step("cross-entropy-softmax-gradient", "gradient", 0)
    return _find(d, lambda a: isinstance(a, sp.log))


@lru_cache(maxsize=None)
def log_softmax_expanded() -> sp.Expr:
    """``expand_log`` of :func:`log_softmax`: z_y − log Σ_k exp(z_k) (z real), which stays finite at
    logits up to ±1e4 once z is shifted by its maximum."""
    return sp.expand_log(log_softmax(), force=True)


@lru_cache(maxsize=None)
def cross_entropy() -> sp.Expr:
    """cross-entropy-decomposition, part ``decomposition``, step 1: H(p, q) = −Σ_i p_i log q_i."""
    return _step("cross-entropy-decomposition", "decomposition", 1)


@lru_cache(maxsize=None)
def entropy_plus_kl() -> sp.Expr:
    """cross-entropy-decomposition, part ``decomposition``, step 2: Σ p log(p/q) − Σ p log p,
    i.e. KL(p‖q) + H(p), which the part shows equals the cross-entropy."""
    return _step("cross-entropy-decomposition", "decomposition", 2)


@lru_cache(maxsize=None)
def kl_batchmean() -> sp.Expr:
    """kl-distillation, part ``batchmean``: Σ_{b,i} p_bi log(p_bi/q_bi)/B (= F.kl_div(log q, p, 'batchmean'))."""
    return _claim("kl-distillation").part("batchmean").rhs


@lru_cache(maxsize=None)
def soft_ce_gradient() -> sp.Expr:
    """kl-distillation, part ``soft-ce-gradient``: ∂(−Σ_j p_j log softmax(z/T)_j)/∂z_i = (q_i − p_i)/T,
    q = softmax(z/T), for any target distribution p (a smoothed label, a teacher's softmax)."""
    return _claim("kl-distillation").part("soft-ce-gradient").rhs


@lru_cache(maxsize=None)
def kl_asymmetric_pair() -> tuple[list[float], ...]:
    """kl-distillation, part ``asymmetry``: the pair (p, q) = ((1/2, 1/2), (9/10, 1/10)) whose two
    KL divergences the part shows differ, as float lists."""
    term = _find(
        _claim("kl-distillation").part("asymmetry").lhs,
        lambda a: (
            isinstance(a, sp.core.function.AppliedUndef)
            and a.func.__name__ == "KL"
            and a.args[0][0] == sp.Rational(1, 2)
        ),
    )
    return tuple([float(x) for x in m] for m in term.args)


# --- LayerNorm (layernorm-statistics) -----------------------------------------------------------------


@lru_cache(maxsize=None)
def layernorm() -> sp.Expr:
    """layernorm-statistics, part ``jacobian``, step 0: y_i = (x_i − μ)/√(σ² + ε), the function differentiated."""
    return _step("layernorm-statistics", "jacobian", 0).args[0]


@lru_cache(maxsize=None)
def layernorm_variance() -> sp.Expr:
    """layernorm-statistics, part ``variance``: the biased variance of y is σ²/(σ² + ε)."""
    return _claim("layernorm-statistics").part("variance").rhs


@lru_cache(maxsize=None)
def layernorm_mean() -> sp.Expr:
    """layernorm-statistics, part ``mean``: Σ_i y_i = 0."""
    return _claim("layernorm-statistics").part("mean").rhs


@lru_cache(maxsize=None)
def layernorm_jacobian() -> sp.Expr:
    """layernorm-statistics, part ``jacobian``: (δ_ij − 1/n − y_i y_j/n)/√(σ² + ε)."""
    return _claim("layernorm-statistics").part("jacobian").rhs


# --- RMSNorm (rmsnorm-statistics) -------------------------------------------------------------------------


@lru_cache(maxsize=None)
def rmsnorm() -> dict:
    """rmsnorm-statistics: ``y`` (the ``jacobian`` part's step 0, y_i = x_i/√(m + ε), m = Σ_k x_k²/n,
    the function differentiated), ``mean_square`` and ``derived_mean_square`` (the ``mean-square``
    part: Σ_i y_i²/n = m/(m + ε)), ``mean`` (the ``mean`` part's rhs: Σ_i x_i/n/√(m + ε), not 0) and
    ``jacobian`` (the ``jacobian`` part's rhs: (δ_ij − y_i y_j/n)/√(m + ε))."""
    c = _claim("rmsnorm-statistics")
    square = c.part("mean-square")
    return {
        "y": c.part("jacobian").lhs.args[0],
        "mean_square": square.lhs,
        "derived_mean_square": square.rhs,
        "mean": c.part("mean").rhs,
        "jacobian": c.part("jacobian").rhs,
    }


# --- §9 attention variants (grouped-query-attention, online-softmax) ---------------------------------------


@lru_cache(maxsize=None)
def gqa_head() -> sp.Expr:
    """grouped-query-attention, part ``head-output``: the derived rhs, query head j of group g reading
    its group's K_g, V_g: Σ_k e^{Σ_c Q_gjc K_gkc/√d} V_gke / Σ_k e^{Σ_c Q_gjc K_gkc/√d}, which the part
    shows equals multi-head attention on K, V repeated r times by repeat_interleave (head (g−1)r + j)."""
    return _claim("grouped-query-attention").part("head-output").rhs


@lru_cache(maxsize=None)
def online_softmax_shifted() -> sp.Expr:
    """online-softmax, part ``final``, step 1: Σ_k e^{s_k−m} v_k / Σ_k e^{s_k−m}, the state after the
    last block (o(1, n, m), which the ``merge-*`` parts show any split reaches), shown equal to
    softmax(s)·v for every shift m; at m = max s no exponential exceeds 1."""
    return _step("online-softmax", "final", 1)


# --- positions (sinusoidal-relative-position, rope-relative-position) ----------------------------------


@lru_cache(maxsize=None)
def sinusoidal_pair() -> sp.Matrix:
    """sinusoidal-relative-position, part ``shift``, step 0 at k = 0: (sin(pos ω_i), cos(pos ω_i)),
    ω_i = 10000^(−i/m), d = 2m: columns 2i and 2i + 1 of the table (i from 0)."""
    lhs = _claim("sinusoidal-relative-position").part("shift").lhs
    return lhs.subs(names(lhs)["k"], 0)


@lru_cache(maxsize=None)
def sinusoidal_rotation() -> sp.ImmutableMatrix:
    """sinusoidal-relative-position, part ``shift``: the derived M(k) with PE(pos + k) = M(k)·PE(pos)
    (the first factor of the right-hand side)."""
    return _claim("sinusoidal-relative-position").part("shift").rhs.args[0]


@lru_cache(maxsize=None)
def sinusoidal_dot() -> sp.Expr:
    """sinusoidal-relative-position, part ``dot``: PE(pos)·PE(pos + k) = Σ_i cos(k ω_i)."""
    return _claim("sinusoidal-relative-position").part("dot").rhs


@lru_cache(maxsize=None)
def rope_rotated() -> tuple[sp.Expr, sp.Expr]:
    """rope-relative-position, part ``inner``, step 0 at n = 0: ∂/∂k_{b,1} and ∂/∂k_{b,2} of the
    summand give the two components of R_m q for the pair b (RoFormer's interleaved pairs)."""
    lhs = _claim("rope-relative-position").part("inner").lhs
    nm = names(lhs)
    summand = lhs.function.subs(nm["n"], 0)
    b, kb = lhs.limits[0][0], nm["k"]
    return sp.diff(summand, kb[b, 1]), sp.diff(summand, kb[b, 2])
