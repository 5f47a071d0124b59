"""Numeric checks for §2 (linear algebra)."""

from __future__ import annotations

import math
import time
import zlib
from functools import lru_cache

import numpy as np
import sympy as sp
import torch
import torch.nn.functional as F

from mathcheck.numeric import stats
from mathcheck.verdict import NumericVerdict, Plot
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype, generator
from mathcheck.numeric.evaluate import Indexed, evaluate
from mathcheck.numeric.symbols import bind, by_name

# (distribution, d_k, mu_q, sigma_q, mu_k, sigma_k): the seed's case at d_k from 16 to 4096, a
# non-Gaussian case (Rademacher components have the same first two moments), and nonzero means.
STANDARD = tuple(("normal", d, 0.0, 1.0, 0.0, 1.0) for d in (16, 64, 512, 4096)) + (
    ("rademacher", 64, 0.0, 1.0, 0.0, 1.0),
)
SHIFTED = (("normal", 16, 0.5, 2.0, -1.0, 0.5), ("normal", 64, 0.5, 2.0, -1.0, 0.5))
DELTA = 0.10  # smallest relative error the test must catch at d_k > 512, with power 1 - 1e-6
DELTA_SMALL = 0.05  # ... and at d_k <= 512 (more pairs, each cheaper)


def _delta(d: int) -> float:
    return DELTA_SMALL if d <= 512 else DELTA


def _draw(dist: str, d: int, mq: float, sq: float, mk: float, sk: float, dtype):
    def affine(x: torch.Tensor, mu: float, sigma: float) -> torch.Tensor:
        # the seed's case (μ = 0, σ = 1) skips two passes over the chunk: drawing is the cost
        if sigma != 1.0:
            x.mul_(sigma)
        if mu != 0.0:
            x.add_(mu)
        return x

    buffers: list = []  # q and k, reused chunk after chunk: fresh 2^20-number tensors cost page faults

    def draw(g: torch.Generator, size: int) -> torch.Tensor:
        dev = g.device  # draws happen where the generator lives (--device)
        if dist == "normal":
            if not buffers or buffers[0].shape[0] != size or buffers[0].device != dev:
                buffers[:] = [torch.empty(size, d, dtype=dtype, device=dev) for _ in range(2)]
            q = torch.randn(size, d, generator=g, dtype=dtype, device=dev, out=buffers[0])
            k = torch.randn(size, d, generator=g, dtype=dtype, device=dev, out=buffers[1])
        else:
            q = torch.randint(0, 2, (size, d), generator=g, device=dev).to(dtype).mul_(2).sub_(1)
            k = torch.randint(0, 2, (size, d), generator=g, device=dev).to(dtype).mul_(2).sub_(1)
        return torch.linalg.vecdot(affine(q, mq, sq), affine(k, mk, sk))

    return draw


@lru_cache(maxsize=64)
def _moments(setting: tuple, n: int, seed: int, dtype_name: str, device: str = "cpu") -> stats.Moments:
    dist, d, mq, sq, mk, sk = setting
    chunk = max(1, stats.CHUNK_ELEMENTS // d)
    return stats.stream_moments(
        _draw(dist, d, mq, sq, mk, sk, getattr(torch, dtype_name)),
        n,
        chunk,
        seed=seed * 1_000_003 + zlib.crc32(repr(setting).encode()) % 1_000_003,
        device=device,
    )


def _var_atom(lhs):
    """The one Var(...) of a left-hand side (the statement may scale it, e.g. a mutant's 2·Var(...))."""
    atoms = [a for a in lhs.atoms(sp.Function) if a.func.__name__ == "Var"]
    if len(atoms) != 1:
        raise ValueError(f"expected one Var(c * Sum(q[i]*k[i], ...)) in {lhs}")
    return atoms[0]


def _lhs_value(lhs, var_atom, estimate: float, values: dict) -> float:
    """The left side with its Var(...) replaced by the Monte Carlo estimate."""
    return float(lhs.xreplace({var_atom: sp.Float(estimate, 30)}).xreplace(values))


def _scale(lhs) -> tuple:
    """Var(c · Σ q_i k_i) -> (c, d): the scale and the dimension symbol of the statement."""
    if lhs.func.__name__ != "Var":
        lhs = _var_atom(lhs)
    (arg,) = lhs.args
    sums = [f for f in sp.Mul.make_args(arg) if isinstance(f, sp.Sum)]
    if lhs.func.__name__ != "Var" or len(sums) != 1:
        raise ValueError(f"expected Var(c * Sum(q[i]*k[i], ...)), got {lhs}")
    ((_, lo, hi),) = sums[0].limits
    return arg / sums[0], hi


def qk_plan(statements: dict) -> list[tuple]:
    """(part, statement, setting) for every z-test: the general part at every setting, shifted
    means included; the others at the standard ones. Its length sizes the Bonferroni family."""
    return [
        (part, eq, s)
        for part, eq in statements.items()
        for s in (STANDARD + SHIFTED if part == "general" else STANDARD)
    ]


def qk_variance(statements: dict, options: Options) -> NumericVerdict:
    """Monte Carlo estimate of Var(c·q·k) at each setting, z-tested against each statement.

    The left side is evaluated by the estimator: its Var(c·Σ q_i k_i) is the sample variance of
    c·q·k over n pairs (streamed in chunks of 2^20 numbers, moments accumulated in float64 about a
    shift), the rest of the left side as written. The statistic z = (lhs − rhs)/se, se the
    fourth-moment standard error carried through the left side; rejected beyond the Bonferroni
    critical value (family false-alarm rate 1e-6). n is chosen so that a relative error of 5% at
    d_k ≤ 512 (10% above) is rejected with power 1 − 1e-6 (kurtosis − 1 ≤ 3); the detectable error
    reported is recomputed from the measured kurtosis.
    """
    start = time.perf_counter()
    for part in set(statements) - {"general", "standard", "scaled"}:  # no z-test planned for it: refused
        raise KeyError(f"qk_variance: no numeric check for part {part!r}")
    plan = qk_plan(statements)
    critical = stats.z_critical(stats.FAMILY_ALPHA, len(plan))
    z_power = critical + stats.NormalDist().inv_cdf(1 - stats.BETA)
    worst, max_err, details, cex = 0.0, 0.0, [], ()
    detectable: dict = {}  # d_k -> largest detectable relative error over its settings
    trials = {}
    for part, eq, setting in plan:
        dist, d, mq, sq, mk, sk = setting
        n = stats.sample_size(_delta(d), len(plan))
        var_atom = _var_atom(eq.lhs)
        c_expr, d_sym = _scale(var_atom)
        names = {"mu_q": mq, "sigma_q": sq, "mu_k": mk, "sigma_k": sk}
        values = {d_sym: d}
        values.update({s: v for s, v in bind(eq, c_expr, **names).items() if isinstance(s, sp.Symbol)})
        claimed = float(eq.rhs.subs(values))  # subs: a bound variable stays bound (numeric/symbols.py)
        scale = float(c_expr.subs(values))
        m = _moments(setting, n, options.seed, options.dtype, options.device)
        trials[setting] = n
        est = scale**2 * m.var
        se_var = scale**2 * m.se_var
        lhs = _lhs_value(eq.lhs, var_atom, est, values)
        se = abs(_lhs_value(eq.lhs, var_atom, est + se_var, values) - lhs)  # the left side is linear in Var
        z = (lhs - claimed) / se if se > 0 else (0.0 if lhs == claimed else math.inf)
        rel = z_power * math.sqrt(max(m.kurtosis - 1, 0.0) / n)  # smallest error rejected with power 1 − β
        detectable[d] = max(detectable.get(d, 0.0), rel)
        max_err = max(max_err, abs(lhs - claimed))
        line = (
            f"{part}: {dist} d_k={d} mu=({mq},{mk}) sigma=({sq},{sk}), n={n}: left side {lhs:.6g} "
            f"(Var estimate {est:.6g}), right side {claimed:.6g}, z={z:+.2f}; detects a relative error "
            f"≥ {rel:.2%} (kurtosis {m.kurtosis:.3g})"
        )
        details.append(line)
        if (not math.isfinite(z) or abs(z) > critical) and (abs(z) > worst or not math.isfinite(z)):
            worst = abs(z) if math.isfinite(z) else math.inf
            cex = (
                ("part", part),
                ("distribution", dist),
                ("d_k", str(d)),
                ("mu_q", str(mq)),
                ("sigma_q", str(sq)),
                ("mu_k", str(mk)),
                ("sigma_k", str(sk)),
                ("left side (Monte Carlo)", f"{lhs:.6g}"),
                ("right side", f"{claimed:.6g}"),
                ("z", f"{z:+.2f}"),
                ("critical", f"{critical:.2f}"),
            )
    small = max((v for d, v in detectable.items() if d <= 512), default=0.0)
    large = max((v for d, v in detectable.items() if d > 512), default=0.0)
    power = (
        f"smallest relative error detected with power >= 1 - 1e-6: {small:.2%} at d_k <= 512"
        + (f", {large:.2%} at d_k = {max(detectable)}" if large else "")
        + " (measured kurtosis)"
    )
    test = (
        f"z-test of the left side's Monte Carlo estimate (sample variance, fourth-moment standard error), "
        f"{len(plan)} tests, Bonferroni |z| > {critical:.2f}: family false-alarm rate <= 1e-6; "
        f"n = {min(trials.values())}…{max(trials.values())} pairs per setting; {power}"
    )
    return NumericVerdict(
        status="refuted" if cex else "passed",
        reference="torch.randn / torch.randint Monte Carlo, streamed in chunks of 2^20 numbers",
        trials=sum(trials.values()),
        max_abs_err=max_err,
        seed=options.seed,
        counterexample=cex,
        details=tuple(details),
        test=test,
        dtype=options.dtype,
        device=options.device,
        seconds=time.perf_counter() - start,
        tolerance=f"statistical: |z| > {critical:.2f} rejects (family false-alarm rate 1e-6)",
        power=power,
    )


# --- qkv-projection-shapes ------------------------------------------------------------------------

QKV_SIZES = ((10, 512, 64), (7, 48, 16))  # (L, D, d_k): the seed's sizes, and another


def _projection(d_in: int, d_out: int, g: torch.Generator, dt) -> torch.nn.Linear:
    """An ``nn.Linear`` without bias (the seed's ``X @ W``), its weight drawn from ``g`` (deterministic)."""
    lin = torch.nn.Linear(d_in, d_out, bias=False, dtype=dt)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(d_out, d_in, generator=g, dtype=dt) / math.sqrt(d_in))
    return lin.requires_grad_(False)  # derivatives are taken with respect to X only


def _named(eq) -> tuple[dict, dict]:
    """The statement's plain symbols and IndexedBases, by name."""
    return by_name(eq, kind=sp.Symbol), by_name(eq, kind=sp.IndexedBase)


def qkv_projection_shapes(statements: dict, options: Options) -> NumericVerdict:
    """The statements against real ``nn.Linear`` projections at the seed's sizes (L, D, d_k) = (10, 512, 64).

    ``q-rows``, ``q-cols``: the sizes of ``W_Q(X)``; ``scores-rows``, ``scores-cols``: those of
    ``Q @ K.transpose(-2, -1)``, against the statement; ``row-locality``: ``torch.func.jacrev`` of the
    projection, entry ∂Q[r, c]/∂X[s, t] for every (r, c, s, t), against the statement with W the
    layer's weight (transposed to D×d_k).
    """
    cmp = Comparison("torch.nn.Linear(bias=False), Tensor.__matmul__, torch.func.jacrev", options)
    g = generator(options, salt=1)
    dt, dev = dtype(options), options.device
    for L, D, dk in QKV_SIZES:
        X = torch.randn(L, D, generator=g, dtype=dt).to(dev)  # drawn on the CPU: the same numbers anywhere
        w_q, w_k = _projection(D, dk, g, dt).to(dev), _projection(D, dk, g, dt).to(dev)
        Q, K = w_q(X), w_k(X)
        where = dims = {"L": L, "D": D, "d_k": dk}
        for part, eq in statements.items():
            syms, bases = _named(eq)
            env = {syms[k]: v for k, v in dims.items() if k in syms}
            case = f"{part} L={L} D={D} d_k={dk}"
            if part in ("q-rows", "q-cols", "scores-rows", "scores-cols"):
                observed = Q if part.startswith("q-") else Q @ K.transpose(-2, -1)
                size = observed.shape[0 if part.endswith("rows") else 1]
                # the left side's matrix product, computed: X, W_Q, W_K bound to the layers' tensors
                env.update(
                    {
                        m: t
                        for m in eq.lhs.atoms(sp.MatrixSymbol)
                        for name, t in (("X", X), ("W_Q", w_q.weight.T), ("W_K", w_k.weight.T))
                        if m.name == name
                    }
                )
                shape_of = {
                    "Rows": lambda m: torch.tensor(float(m.shape[0]), dtype=dt, device=dev),
                    "Cols": lambda m: torch.tensor(float(m.shape[1]), dtype=dt, device=dev),
                }
                cmp.agree(
                    case,
                    torch.tensor(float(size), dtype=dt, device=dev),
                    eq,
                    env,
                    {k: (lambda m, f=f: (f(m), 0.0)) for k, f in shape_of.items()},
                    part=part,
                    device=dev,
                    **where,
                )
            elif part == "row-locality":
                J = torch.func.jacrev(w_q)(X)  # (L, d_k, L, D): ∂Q[r, c]/∂X[s, t]
                axes = {"r": (L, 0), "c": (dk, 1), "s": (L, 2), "t": (D, 3)}
                for name, (size, axis) in axes.items():
                    if name in syms:
                        shape = [1, 1, 1, 1]
                        shape[axis] = size
                        env[syms[name]] = torch.arange(1, size + 1, dtype=dt, device=dev).reshape(shape)
                if "W" in bases:
                    env[bases["W"]] = w_q.weight.detach().T  # X @ W with W = weight.T, D×d_k
                if "X" in bases:
                    env[bases["X"]] = X
                # the left side's Jacobian by autograd at the smaller size (at L·d_k·L·D = 3.3M entries it
                # takes tens of seconds); the right side at both
                cmp.agree(case, J, eq, env, part=part, device=dev, evaluate_lhs=D <= 64, **where)
            else:
                raise KeyError(f"qkv_projection_shapes: no numeric check for part {part!r}")
    return cmp.verdict()


# --- dot-product-cosine ---------------------------------------------------------------------------

DOT_SIZES = (2, 3, 64, 4096)
ANGLES = tuple(math.pi * k / 6 for k in range(7))  # 0°, 30°, …, 180°: acute, right and obtuse


def plane_angle(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The angle at 0 of the triangle (0, a, b), read off in the plane of a and b.

    A Householder QR of [a b] rotates that plane onto the first two axes: a = (R00, 0),
    b = (R01, R11) there, and ``atan2`` gives the angle with no dot product formula involved.
    """
    R = torch.from_numpy(np.linalg.qr(torch.stack([a, b], 1).double().cpu().numpy(), mode="r"))  # numpy: reproducible
    return torch.atan2(R[1, 1].abs(), R[0, 1] * torch.sign(R[0, 0])).to(a.dtype)


def _built(a: torch.Tensor, v0: torch.Tensor, theta: float, rho: float) -> tuple[torch.Tensor, torch.Tensor]:
    r"""b = ρ(cos θ u + sin θ v) at the exact angle θ to a (u = a/‖a‖, v = v₀ Gram–Schmidt'ed against u
    and normalised), and a per-entry bound on |b − b*|, b* the exactly computed vector.

    b is computed, not drawn: it is one rounding away from b* only entrywise, while what a·b sees is
    its component along a, which Gram–Schmidt leaves at the rounding of c = v₀·u (n terms) divided by
    ‖w‖ — large where v₀ is nearly parallel to a. Running error analysis (ε of the dtype; a norm of n
    terms has relative error ≤ (n/2 + 1)ε ≤ (n + 2)ε):

    .. math:: e_u = (n+3)ε|u|,\quad e_c = (n+1)ε\textstyle\sum|v_0 u| + \sum|v_0| e_u,\quad
              e_w = ε(|w| + |c u|) + e_c|u| + |c| e_u,

    :math:`e_v = e_w/‖w‖ + |v|(‖e_w‖/‖w‖ + (n+3)ε)` (v's norm is off by ‖e_w‖ too), and
    :math:`e_b = ρ(|\cos θ| e_u + |\sin θ| e_v + 2ε(|\cos θ\,u| + |\sin θ\,v|) + ε|s|) + ε|b|`
    (each product rounds, and so does cos θ, sin θ in float32)."""
    n, eps = a.numel(), torch.finfo(a.dtype).eps
    u = a / torch.linalg.vector_norm(a)
    e_u = (n + 3) * eps * u.abs()
    c = v0 @ u
    e_c = (n + 1) * eps * (v0 * u).abs().sum() + (v0.abs() * e_u).sum()
    w = v0 - c * u
    e_w = eps * (w.abs() + (c * u).abs()) + e_c * u.abs() + c.abs() * e_u
    norm_w = torch.linalg.vector_norm(w)
    v = w / norm_w
    e_v = e_w / norm_w + v.abs() * (torch.linalg.vector_norm(e_w) / norm_w + (n + 3) * eps)
    cs, sn = math.cos(theta), math.sin(theta)
    s = cs * u + sn * v
    b = rho * s
    e_b = (
        rho * (abs(cs) * e_u + abs(sn) * e_v + 2 * eps * ((cs * u).abs() + (sn * v).abs()) + eps * s.abs())
        + eps * b.abs()
    )
    return b, e_b


def _pairs(g: torch.Generator, dt):
    """(n, a, b, θ, how, e_b): random pairs (θ measured by :func:`plane_angle`; b drawn, e_b None: one
    rounding) and pairs built by :func:`_built` at the exact angles of ``ANGLES`` with random norms
    (e_b its error bound)."""
    for n in DOT_SIZES:
        for m in range(3):
            a, b = torch.randn(n, generator=g, dtype=dt), torch.randn(n, generator=g, dtype=dt)
            if n <= 3:  # low dimensions: shift b towards a or -a so that acute and obtuse pairs both occur
                b = b + (1 if m % 2 else -1) * a
            yield n, a, b, float(plane_angle(a, b)), "random", None
        for theta in ANGLES:
            a = torch.randn(n, generator=g, dtype=dt) * 3
            v = torch.randn(n, generator=g, dtype=dt)
            rho = float(torch.rand((), generator=g, dtype=dt)) * 4 + 0.25
            b, e_b = _built(a, v, theta, rho)
            yield n, a, b, theta, "built", e_b


def dot_product_cosine(statements: dict, options: Options) -> NumericVerdict:
    """The statements against ``torch.dot``, ``F.cosine_similarity`` and ``torch.linalg.vector_norm``.

    θ comes from :func:`plane_angle` (random pairs) or from the construction (pairs at 0°, 30°, …, 180°).
    ``expansion``: ‖a − b‖² (vector_norm) against the statement; ``cosine``: ``torch.dot(a, b)`` and
    ``F.cosine_similarity(a, b)`` against the statement and the statement / (‖a‖‖b‖); ``sign``: the
    sign of ``torch.dot`` against the statement's sign; where |a·b| is within its rounding,
    4(n + 1)·ε·Σ|a_i b_i|, the sign is uncertain and a difference of up to 2 is allowed (a right
    angle is not lost to rounding).
    """
    cmp = Comparison("torch.dot, torch.nn.functional.cosine_similarity, torch.linalg.vector_norm", options)
    g = generator(options, salt=2)
    dt, dev = dtype(options), options.device
    named = {part: _named(eq) for part, eq in statements.items()}
    for n, a, b, theta, how, e_b in _pairs(g, dt):
        a, b = a.to(dev), b.to(dev)
        norm_a, norm_b = torch.linalg.vector_norm(a), torch.linalg.vector_norm(b)
        where = {"n": n, "pair": how, "theta": f"{theta:.6g}"}
        for part, eq in statements.items():
            syms, bases = named[part]
            # a built b carries its construction's error (see _built), not one rounding
            bound_b = b if e_b is None else Indexed(b, 1, err=e_b.to(dev))
            env = {bases[k]: v for k, v in (("a", a), ("b", bound_b)) if k in bases}
            env.update({syms[k]: v for k, v in (("n", n), ("theta", theta)) if k in syms})
            case = f"{part} n={n} {how} θ={theta:.4f}"
            # θ of a built pair is exact, of a random pair measured (QR): ε·n of rounding in cos θ
            cos_read = 4 * (n + 1) * torch.finfo(dt).eps * float(norm_a * norm_b)
            # a·b of a built pair is off from a·b* by up to Σ|a| e_b: known error of the dot reference
            built = 0.0 if e_b is None else float(a.abs() @ e_b.to(dev))
            if part == "expansion":
                cmp.agree(case, torch.linalg.vector_norm(a - b) ** 2, eq, env, part=part, device=dev, **where)
            elif part == "cosine":
                cmp.agree(
                    case + " dot", torch.dot(a, b), eq, env, part=part, device=dev, reference_bound=cos_read, **where
                )
                rhs = evaluate(eq.rhs, env, dtype=dt, device=dev)
                cmp.compare(
                    case + " cosine_similarity",
                    F.cosine_similarity(a, b, dim=0),
                    rhs / (norm_a * norm_b),
                    bound=(cos_read + built) / float(norm_a * norm_b),
                    **where,
                )
            elif part == "sign":
                dot = torch.dot(a, b)
                # a sign is uncertain (error 2) where |a·b| is within its rounding, n·ε·Σ|a_i b_i|
                unsure = float(dot.abs()) <= 4 * (n + 1) * torch.finfo(dt).eps * float((a * b).abs().sum()) + 4 * built
                cmp.agree(
                    case,
                    torch.sign(dot),
                    eq,
                    env,
                    part=part,
                    device=dev,
                    reference_bound=2.0 if unsure else 0.0,
                    **where,
                )
            else:
                raise KeyError(f"dot_product_cosine: no numeric check for part {part!r}")
    return cmp.verdict()


# --- scaling-prevents-saturation ------------------------------------------------------------------

SAT_DKS = (16, 64, 256, 1024, 4096)
SAT_KEYS = 10  # the seed's sentence of 10 tokens: each query meets 10 keys
SAT_TRIALS = 400  # queries per d_k (see the power statement in the verdict's ``test``)
FLAT = 0.20  # "roughly flat": within ±20% of the value at the smallest d_k
SATURATED = 0.95  # unscaled, the mean largest weight at the largest d_k exceeds this
UNSATURATED = 0.5  # scaled, it stays below this
VAR_DELTA = 0.5  # relative error of a claimed logit variance the test must catch
PSD_SAMPLES = 4  # samples whose xᵀJx is also computed from the statement's double sum


@lru_cache(maxsize=16)
def _scores(d: int, seed: int, dtype_name: str) -> torch.Tensor:
    """(SAT_TRIALS, SAT_KEYS) unscaled scores q·k_j, q and k_j with i.i.d. N(0, 1) components, drawn
    in chunks of about 2^20 numbers. Cached: the claim and each mutant see the same draws (read only)."""
    g, dt = generator(Options(seed=seed), salt=100 + d), getattr(torch, dtype_name)
    per = max(1, stats.CHUNK_ELEMENTS // (SAT_KEYS * d))
    out, done = [], 0
    while done < SAT_TRIALS:
        m = min(per, SAT_TRIALS - done)
        q = torch.randn(m, d, 1, generator=g, dtype=dt)
        keys = torch.randn(m, SAT_KEYS, d, generator=g, dtype=dt)
        out.append((keys @ q).squeeze(-1))
        done += m
    return torch.cat(out)


def _holds(small: torch.Tensor, big: torch.Tensor, rel: str, atol: float) -> torch.Tensor:
    """Elementwise ``small REL big`` with slack ``atol`` (ties within ``atol`` count as equal)."""
    if rel in ("<=", "<"):
        return small <= big + atol
    if rel in (">=", ">"):
        return small >= big - atol
    return (small - big).abs() <= atol


def _mean_se(x: torch.Tensor) -> tuple[float, float]:
    return float(x.mean()), float(x.std() / math.sqrt(x.numel()))


def scaling_prevents_saturation(statements: dict, options: Options) -> NumericVerdict:
    """Softmax saturation measured against d_k, with and without the statement's scale, in float64.

    For each d_k in 16…4096: 400 queries q, each against 10 keys k_j (i.i.d. N(0, 1) components); the
    unscaled scores z = q·k_j and the scaled ones c·z with c read from part ``scaled`` (1/√d_k as
    derived). On every sample, with ``F.softmax`` and the Jacobian ``torch.func.jacrev(F.softmax)``:

    * ``bound``: tr J (torch) equals the statement's left-hand side, and tr J ≤ its right-hand side at
      every r; ‖J‖_2 ≤ ‖J‖_F ≤ tr J (``torch.linalg.matrix_norm``), the consequence of ``psd``;
    * ``psd``: xᵀJx (torch, random x) against the statement (≥ 0) on every sample, its left-hand side
      evaluated on the first samples; the least eigenvalue (``eigvalsh``) ≥ −1e-15;
    * ``scaled``: E[(c·q·k)²] (mean 0) z-tested against the claimed variance at every d_k;
    * the trend, z-tested: unscaled, the mean largest weight rises from d_k = 16 to 4096 and exceeds
      0.95, the mean ‖J‖_F falls; scaled, the mean of 1 − max weight and of ‖J‖_F stay within ±20% of
      their values at d_k = 16 and the largest weight stays below 0.5.
    """
    for part in statements:
        if part not in ("bound", "psd", "scaled"):
            raise KeyError(f"scaling_prevents_saturation: no numeric check for part {part!r}")
    cmp = Comparison(
        "torch.nn.functional.softmax, torch.func.jacrev, torch.linalg.matrix_norm / eigvalsh (float64)", options
    )
    dt, dev = dtype(options), options.device
    n = SAT_KEYS
    tests = 6 + len(SAT_DKS)
    critical = stats.z_critical(stats.FAMILY_ALPHA, tests)
    scale = None
    if "scaled" in statements:
        c_expr, d_sym = _scale(statements["scaled"].lhs)
        scale = lambda d: float(c_expr.xreplace({d_sym: d}))  # noqa: E731
    else:
        scale = lambda d: d**-0.5  # noqa: E731
    jac = torch.vmap(torch.func.jacrev(lambda v: F.softmax(v, dim=-1)))
    measured: dict = {}  # (series, d) -> ((mean, se) of max weight, (mean, se) of ‖J‖_F)
    zs: list = []  # (test, z, passed)
    for d in SAT_DKS:
        raw = _scores(d, options.seed, options.dtype).to(dev)  # drawn on the CPU: same numbers anywhere
        for series, c in (("unscaled", 1.0), ("scaled", scale(d))):
            z = raw * c
            s = F.softmax(z, dim=-1)
            J = jac(z)  # (T, n, n)
            tr = J.diagonal(dim1=-2, dim2=-1).sum(-1)
            # norms and eigenvalues are iterative (SVD, eigh): in float64 whatever --dtype, whose
            # float32 eigh fails to converge on these nearly singular matrices
            # (through numpy's LAPACK: MKL's differ in the last bits between calls in one process)
            J64 = J.double()
            fro = torch.linalg.matrix_norm(J64, "fro")
            spec = torch.from_numpy(np.linalg.norm(J64.cpu().numpy(), 2, axis=(-2, -1)))
            # J's entries s_i(δ_ij − s_j) carry ε(|s_i|δ_ij + |s_i s_j|) in --dtype: ‖ΔJ‖_F ≤ ε(‖s‖ + ‖s‖²)
            s_norm = s.double().norm(dim=-1)
            norm_bound = (n + 1) * torch.finfo(dt).eps * (s_norm + s_norm**2) + cmp.bound(tr, n).double()
            where = {"d_k": d, "series": series}
            measured[series, d] = (_mean_se(s.max(-1).values), _mean_se(fro))
            if "bound" in statements:
                eq = statements["bound"]
                syms, bases = _named(eq)
                env = {bases["s"]: s.T} if "s" in bases else {}
                if "n" in syms:
                    env[syms["n"]] = n
                if "r" in syms:
                    env[syms["r"]] = torch.arange(1, n + 1, dtype=dt, device=dev)[:, None]  # rows: r, columns: samples
                # tr J (autograd) is PyTorch's value of the left side; the relation at every r
                cmp.agree(
                    f"bound d_k={d} {series}: tr J, left side, right side at every r",
                    tr,
                    eq,
                    env,
                    part="bound",
                    reference_side="lhs",
                    device=dev,
                    **where,
                )
                cmp.holds(f"bound d_k={d} {series}: ‖J‖_2 ≤ ‖J‖_F", spec, fro, "<=", bound=norm_bound, **where)
                cmp.holds(f"bound d_k={d} {series}: ‖J‖_F ≤ tr J", fro, tr.double(), "<=", bound=norm_bound, **where)
            if "psd" in statements:
                eq = statements["psd"]
                syms, bases = _named(eq)
                x = torch.randn(SAT_TRIALS, n, generator=generator(options, salt=200 + d), dtype=dt).to(dev)
                quad = torch.einsum("ti,tij,tj->t", x, J, x)
                for t in range(PSD_SAMPLES):  # the left side's double sum, sample by sample
                    env = {bases[k]: v for k, v in (("s", s[t]), ("x", x[t])) if k in bases}
                    env.update({syms[k]: n for k in ("n",) if k in syms})
                    cmp.agree(
                        f"psd d_k={d} {series} sample {t}: xᵀJx, left side, right side",
                        quad[t],
                        eq,
                        env,
                        part="psd",
                        reference_side="lhs",
                        device=dev,
                        **where,
                    )
                cmp.holds(
                    f"psd d_k={d} {series}: xᵀJx >= 0 on all {SAT_TRIALS} samples",
                    quad,
                    torch.zeros_like(quad),
                    ">=",
                    bound=cmp.bound(quad, n * n, (x * x).sum(-1)),
                    **where,
                )
                least = torch.from_numpy(np.linalg.eigvalsh(J64.cpu().numpy()).min(-1))
                cmp.holds(
                    f"psd d_k={d} {series}: least eigenvalue of J ≥ 0 (eigvalsh, float64)",
                    least,
                    # J's entries s_i(δ_ij − s_j) carry ε(|s_i|δ_ij + |s_i s_j|): ‖ΔJ‖_F ≤ ε(‖s‖ + ‖s‖²)
                    torch.zeros_like(least),
                    ">=",
                    bound=(n + 1) * torch.finfo(dt).eps * (s.double().norm(dim=-1) + s.double().norm(dim=-1) ** 2),
                    **where,
                )
        if "scaled" in statements:
            eq = statements["scaled"]
            var_atom = _var_atom(eq.lhs)
            c_expr, d_sym = _scale(var_atom)
            c = float(c_expr.xreplace({d_sym: d}))
            claimed = float(eq.rhs.xreplace({d_sym: d}))
            second = ((raw.double() * c) ** 2).mean(-1)  # one value per query: its keys share q
            mean, se = _mean_se(second)
            # the left side with its Var(c q·k) estimated by E[(c q·k)²] (mean 0), the rest as written
            lhs = _lhs_value(eq.lhs, var_atom, mean, {d_sym: d})
            se_lhs = abs(_lhs_value(eq.lhs, var_atom, mean + se, {d_sym: d}) - lhs)
            zv = (lhs - claimed) / se_lhs
            zs.append(
                (
                    f"scaled d_k={d}: left side {lhs:.4g} (Var estimate E[(c q·k)²] = {mean:.4g}, c = {c:.4g}), "
                    f"right side {claimed:.4g}",
                    zv,
                    abs(zv) <= critical,
                )
            )
    first, last = SAT_DKS[0], SAT_DKS[-1]

    def diff(series, which, sign):
        (m0, s0), (m1, s1) = measured[series, first][which], measured[series, last][which]
        return sign * (m1 - m0), math.hypot(s0, s1), m0

    up, se_up, _ = diff("unscaled", 0, +1)
    down, se_down, _ = diff("unscaled", 1, -1)
    (top, se_top), _ = measured["unscaled", last]
    zs += [
        (f"unscaled: mean max weight rises by {up:.4f} from d_k={first} to {last}", up / se_up, up / se_up > critical),
        (
            f"unscaled: mean ‖J‖_F falls by {down:.4f} from d_k={first} to {last}",
            down / se_down,
            down / se_down > critical,
        ),
        (
            f"unscaled: mean max weight {top:.4f} > {SATURATED} at d_k={last}",
            (top - SATURATED) / se_top,
            (top - SATURATED) / se_top > critical,
        ),
    ]
    # flat: the room left to the other keys, 1 − max s (what the bound ties J to), and ‖J‖_F itself
    for which, label in ((0, "1 − max weight"), (1, "‖J‖_F")):
        change, se_change, base = diff("scaled", which, +1)
        base = 1 - base if which == 0 else base
        zv = (FLAT * abs(base) - abs(change)) / se_change
        zs.append(
            (f"scaled: mean {label} changes by {abs(change):.4f} (within ±{FLAT:.0%} of {base:.4f})", zv, zv > critical)
        )
    (top_s, se_s), _ = measured["scaled", last]
    zs.append(
        (
            f"scaled: mean max weight {top_s:.4f} < {UNSATURATED} at d_k={last}",
            (UNSATURATED - top_s) / se_s,
            (UNSATURATED - top_s) / se_s > critical,
        )
    )
    for line, zv, passed in zs:
        cmp.trials += 1
        cmp.details.append(f"{line}: z = {zv:+.2f} ({'passes' if passed else 'FAILS'})")
        if not passed and not cmp.counterexample:
            cmp.counterexample = (("test", line), ("z", f"{zv:+.2f}"), ("critical", f"{critical:.2f}"))
    dks = tuple(float(d) for d in SAT_DKS)
    for which, name, title, ylabel in (
        (
            0,
            "max-weight-vs-dk",
            "Largest softmax weight against d_k (10 keys; q, k with N(0, 1) components)",
            "mean max_j s_j",
        ),
        (
            1,
            "jacobian-norm-vs-dk",
            "Softmax Jacobian norm against d_k (10 keys; q, k with N(0, 1) components)",
            "mean ‖J‖_F",
        ),
    ):
        cmp.plots.append(
            Plot(
                name,
                title,
                "d_k",
                ylabel,
                tuple(
                    (label, dks, tuple(measured[series, d][which][0] for d in SAT_DKS))
                    for series, label in (("unscaled", "q·k"), ("scaled", "c·q·k (c from part 'scaled')"))
                ),
                logx=True,
                logy=which == 1,
            )
        )
    worst = max(_sat_power(d) for d in SAT_DKS)
    detect = (
        (critical + stats.NormalDist().inv_cdf(1 - stats.BETA))
        * max(math.sqrt((1 + 2 / d) * (1 + 2 / SAT_KEYS) - 1) for d in SAT_DKS)
        / math.sqrt(SAT_TRIALS)
    )
    verdict = cmp.verdict(
        power=f"smallest relative error in the scaled variance detected with power >= 1 - 1e-6: "
        f"{detect:.0%} ({SAT_TRIALS} queries)"
    )
    test = (
        f"{tests} one- or two-sided z-tests on means over {SAT_TRIALS} queries (trend: difference of means; "
        f"flatness: equivalence within ±{FLAT:.0%}; scaled variance: E[(c q·k)²] from each query's "
        f"{SAT_KEYS} keys), Bonferroni |z| > {critical:.2f}: family false-alarm rate <= 1e-6; "
        f"{worst} queries reject a {VAR_DELTA:.0%} relative error in the variance with power 1 - 1e-6"
    )
    return NumericVerdict(**{**verdict.__dict__, "test": test})


def _sat_power(d: int) -> int:
    """Queries the variance test needs: one query's E[z²] over n keys has relative variance
    (1 + 2/d)(1 + 2/n) − 1 for Gaussian components (E‖q‖⁴ = d² + 2d, E[(χ²_n/n)²] = 1 + 2/n)."""
    rel_var = (1 + 2 / d) * (1 + 2 / SAT_KEYS) - 1
    return stats.sample_size(VAR_DELTA, 6 + len(SAT_DKS), kurtosis_minus_one=rel_var)
