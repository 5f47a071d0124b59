"""Numeric checks for §3 (probability): softmax, cross-entropy, maximum likelihood, temperature.

Each check computes the mathematics with PyTorch's own functions (``F.softmax``, ``F.cross_entropy``,
``F.nll_loss``, ``torch.distributions.Categorical``, autograd) and evaluates the statement's
right-hand side from the derived SymPy expression. Relations (``>``, ``≤`` ...) are checked entry
by entry: the comparison is then "holds everywhere" (1) against what was found (0 where it fails).
Some cases pin floating-point facts the seed's wording glosses over (overflow, underflow); they are
comparisons like any other and fail the check if PyTorch changes.
"""

from __future__ import annotations

import math

import sympy as sp
import torch
import torch.nn.functional as F

from mathcheck import relations
from mathcheck.verdict import NumericVerdict, Plot
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype, generator
from mathcheck.numeric.evaluate import Indexed, evaluate
from mathcheck.numeric.symbols import bind


def _softmax_read(z: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    r"""A bound on ``F.softmax``'s rounding in :math:`s_i`, relative :math:`\varepsilon(|z_i - \max z| + n)`:
    the shifted argument is rounded (exp carries its absolute error as a relative one) and the sum
    of n terms adds :math:`n\varepsilon` — not one rounding, which at logits ×30 in float32 is 100× too
    small. The same bound serves any PyTorch function that computes the softmax inside
    (``F.cross_entropy``'s gradient :math:`s - e_y`)."""
    return s * torch.finfo(s.dtype).eps * ((z - z.max(dim=-1, keepdim=True).values).abs() + z.shape[-1])


def _relation(cmp: Comparison, case: str, eq, lhs, rhs, mask=None, slack: float = 0.0, **where) -> bool:
    """``lhs REL rhs`` entrywise (where ``mask``), REL the statement's; 1 = holds. ``slack`` widens
    ≥/≤ by a rounding allowance, never a strict relation."""
    rel = eq.rel_op
    lhs, rhs = torch.broadcast_tensors(torch.as_tensor(lhs), torch.as_tensor(rhs, dtype=torch.as_tensor(lhs).dtype))
    if rel in (">=", "<="):
        rhs = rhs - slack if rel == ">=" else rhs + slack
    holds = relations.of(rel).holds(lhs, rhs)
    if mask is not None:
        holds = holds | ~mask
    return cmp.compare(f"{case} ({rel} holds)", torch.ones_like(lhs), holds.to(lhs.dtype), **where)


def _fact(cmp: Comparison, case: str, holds: bool) -> bool:
    """A checked fact: 1 when it holds."""
    return cmp.compare(
        f"fact: {case}", torch.tensor(1.0, dtype=torch.float64), torch.tensor(float(bool(holds)), dtype=torch.float64)
    )


# --- softmax-simplex ---------------------------------------------------------------------------------

SIZES = (1, 2, 7, 100)
# (name, scale, shift): ordinary logits, large gaps (still no underflow: gaps < 745), and a common
# offset that overflows a naive exp but not F.softmax.
LOGITS = (("randn", 1.0, 0.0), ("large x30", 30.0, 0.0), ("offset +1000", 3.0, 1000.0))


def softmax_simplex(statements: dict, options: Options) -> NumericVerdict:
    """The statements against ``F.softmax`` on random float64 logits, plus float facts.

    ``normalised``: Σ F.softmax(z); ``positive`` / ``at-most-one``: the relation on every output;
    ``shift-invariant``: F.softmax(z + c) against the right-hand side (s = F.softmax(z)), and the
    derived left-hand side itself as a formula: naive (c = 0) it overflows to nan at z ≈ 1000 in
    float64 (z ≈ 100 in float32), with c = −max z it is finite and equals F.softmax;
    ``ratio``: F.softmax(z)_i / F.softmax(z)_j, and the seed's e³/e² ≈ 2.72;
    ``order-preserving``: s_i − s_j > 0 on every pair with z_i > z_j.
    """
    cmp = Comparison("torch.nn.functional.softmax", options)
    g = generator(options, salt=31)
    dt = dtype(options)
    for n in SIZES:
        idx = torch.arange(1, n + 1, dtype=dt)
        for name, scale, shift in LOGITS:
            z = torch.randn(n, generator=g, dtype=dt) * scale + shift
            s = F.softmax(z, dim=0)
            case, where = f"n={n} {name}", {"n": n, "logits": name}
            for part, eq in statements.items():
                if part == "normalised":
                    cmp.agree(f"{part} {case}", s.sum(), eq, bind(eq, n=n, z=z, s=s), part=part, **where)
                elif part in ("positive", "at-most-one"):
                    cmp.agree(
                        f"{part} {case}",
                        s,
                        eq,
                        bind(eq, n=n, z=z, s=s, i=idx),
                        part=part,
                        reference_side="lhs",
                        **where,
                    )
                    if part == "at-most-one" and scale == 1:  # strict below one when there is another
                        # class (at gaps > 37, 1 + e^{−gap} rounds to 1 in float64: hence scale 1)
                        _fact(
                            cmp,
                            f"max F.softmax(z) {'< 1' if n > 1 else '= 1'} at {case}",
                            bool(s.max() < 1) if n > 1 else bool(s[0] == 1),
                        )
                elif part == "shift-invariant":
                    for c in (-float(z.max()), 2.5, -7.0):
                        env = bind(eq, n=n, z=z, s=s, i=idx, c=c)
                        cmp.agree(f"{part} {case} c={c:.4g}", F.softmax(z + c, dim=0), eq, env, part=part, c=c, **where)
                    if shift:
                        _max_subtraction(cmp, eq, n, z, idx, s, case)
                elif part == "ratio":
                    s_known = Indexed(s, 1, _softmax_read(z, s))
                    env = bind(eq, n=n, z=z, s=s_known, i=idx[:, None], j=idx[None, :])
                    # the ratios span e^{±180} at scale 30: the bounds are relative, so that is fine;
                    # each s_i carries ε·(|z_i − max z| + n) relatively: the ratio, the sum of two
                    gap = (z - z.max()).abs() + n
                    read = (s[:, None] / s[None, :]) * torch.finfo(dt).eps * (gap[:, None] + gap[None, :])
                    cmp.agree(
                        f"{part} {case}", s[:, None] / s[None, :], eq, env, part=part, reference_bound=read, **where
                    )
                elif part == "order-preserving":  # every pair with z_i > z_j
                    I, J = torch.nonzero(z[:, None] > z[None, :], as_tuple=True)
                    if I.numel():
                        env = bind(eq, n=n, z=z, s=s, i=(I + 1).to(dt), j=(J + 1).to(dt))
                        cmp.agree(f"{part} {case}", s[I] - s[J], eq, env, part=part, reference_side="lhs", **where)
                else:
                    raise KeyError(f"softmax_simplex: no numeric check for part {part!r}")
    for part, eq in statements.items():
        if part == "ratio":  # the seed's number: scores 2 and 3, "e^3 is about 2.72 times e^2"
            z = torch.tensor([2.0, 3.0], dtype=dt)
            s = F.softmax(z, dim=0)
            cmp.agree(
                f"{part} seed's scores (2, 3)",
                s[1] / s[0],
                eq,
                bind(eq, n=2, z=z, s=s, i=2, j=1),
                part=part,
                n=2,
                logits="(2, 3)",
            )
            _fact(
                cmp, "F.softmax([2, 3]) ratio rounds to the seed's 2.72", torch.round(s[1] / s[0] * 100) / 100 == 2.72
            )
        if part == "positive":  # the open interval is exact arithmetic only
            _fact(
                cmp,
                "float64 F.softmax([0, −1000]) is exactly [1, 0] (e^{−1000} underflows)",
                torch.equal(F.softmax(torch.tensor([0.0, -1000.0], dtype=dt), 0), torch.tensor([1.0, 0.0], dtype=dt)),
            )
    return cmp.verdict()


def _max_subtraction(cmp, eq, n, z, idx, s, case):
    """The derived left-hand side, exp(z_i + c)/Σ exp(z_k + c), as a formula in floating point."""
    naive = evaluate(eq.lhs, bind(eq, n=n, z=z, i=idx, c=0.0), dtype=z.dtype)
    _fact(cmp, f"naive exp(z)/Σ exp(z) is not finite at {case} (float64)", not bool(torch.isfinite(naive).all()))
    shifted = sp.Eq(eq.lhs, eq.lhs, evaluate=False)  # the left side alone, against F.softmax
    cmp.agree(
        f"max-subtraction trick {case}: F.softmax(z) vs the shifted formula",
        s,
        shifted,
        bind(eq, n=n, z=z, i=idx, c=-float(z.max())),
        n=n,
        logits=case,
    )
    z32 = (z - 900).float()  # z ≈ 100: exp overflows float32 (max ≈ 3.4e38 = e^88.7)
    naive32 = evaluate(eq.lhs, bind(eq, n=n, z=z32, i=idx.float(), c=0.0), dtype=torch.float32)
    s32 = F.softmax(z32, dim=0)
    _fact(
        cmp,
        f"naive formula is not finite at {case} − 900 (float32) while F.softmax is",
        not bool(torch.isfinite(naive32).all())
        and bool(torch.isfinite(s32).all())
        and abs(float(s32.double().sum()) - 1) < 1e-5,
    )


# --- cross-entropy-softmax-gradient --------------------------------------------------------------

GRAD_SIZES = (2, 10, 1000)
BATCH = 4


def cross_entropy_softmax_gradient(statements: dict, options: Options) -> NumericVerdict:
    """The statements against autograd of ``F.cross_entropy`` (class-index targets).

    Each row of a batch of float64 logits gets a random target. ``gradient``: the autograd
    gradient of ``F.cross_entropy(Z, y, reduction='sum')`` row by row, and of ``reduction='mean'``
    times the batch size (the mean divides every row's gradient by B), against the right-hand side
    with s = F.softmax(z); ``sums-to-zero``: each row's gradient sum against the right-hand side.
    """
    cmp = Comparison("autograd of torch.nn.functional.cross_entropy (class-index targets)", options)
    g = generator(options, salt=37)
    dt = dtype(options)
    for n in GRAD_SIZES:
        idx = torch.arange(1, n + 1, dtype=dt)
        for name, scale, shift in LOGITS:
            Z = (torch.randn(BATCH, n, generator=g, dtype=dt) * scale + shift).requires_grad_()
            Y = torch.randint(0, n, (BATCH,), generator=g)
            (sum_grad,) = torch.autograd.grad(F.cross_entropy(Z, Y, reduction="sum"), Z)
            (mean_grad,) = torch.autograd.grad(F.cross_entropy(Z, Y), Z)
            Z = Z.detach()
            for b in range(BATCH):
                z, y = Z[b], int(Y[b]) + 1
                s = F.softmax(z, dim=0)
                read = _softmax_read(z, s)  # of s, and of autograd's s − e_y (the same softmax inside)
                s = Indexed(s, 1, read)
                case, where = f"n={n} {name} row {b} target {y}", {"n": n, "logits": name, "y": y}
                for part, eq in statements.items():
                    if part not in ("gradient", "sums-to-zero"):
                        raise KeyError(f"cross_entropy_softmax_gradient: no numeric check for part {part!r}")
                    env = bind(eq, n=n, z=z, s=s, j=idx, y=y)
                    if part == "gradient":
                        cmp.agree(
                            f"{part} {case} reduction='sum'",
                            sum_grad[b],
                            eq,
                            env,
                            part=part,
                            reference_bound=read,
                            **where,
                        )
                        cmp.agree(
                            f"{part} {case} reduction='mean' × B",
                            mean_grad[b] * BATCH,
                            eq,
                            env,
                            part=part,
                            reference_bound=read,
                            **where,
                        )
                    else:
                        cmp.agree(
                            f"{part} {case}",
                            sum_grad[b].sum(),
                            eq,
                            env,
                            part=part,
                            reference_bound=cmp.bound(sum_grad[b].abs().sum(), n),
                            **where,
                        )
    return cmp.verdict()


# --- mle-equals-cross-entropy --------------------------------------------------------------------

# (vocabulary n, tokens T, logit scale); the likelihood Π p_t is representable in float64 here
SEQUENCES = ((5, 4, 1.0), (50, 32, 1.0), (1000, 16, 4.0))
LONG = (1000, 1000)  # here Π p_t underflows to 0.0 in float64, the loss does not
FUNCTIONS = {"Likelihood": lambda p: torch.prod(p)}


def _sequence(g, dt, n, T, scale):
    logits = torch.randn(T, n, generator=g, dtype=dt) * scale
    w = torch.randint(0, n, (T,), generator=g)
    return logits, w, F.softmax(logits, dim=-1)


def mle_equals_cross_entropy(statements: dict, options: Options) -> NumericVerdict:
    """The statements against ``F.cross_entropy`` and ``F.nll_loss`` on random sequences.

    ``log-likelihood``: ``F.cross_entropy(reduction='sum')`` and ``F.nll_loss(log_softmax,
    reduction='sum')`` against both sides (Π by ``torch.prod``); the argmax over 16 candidate models
    of Π p against the argmin of the loss; and, for 1000 tokens, Π p = 0.0 in float64 while the
    loss is finite. ``strictly-decreasing``: autograd of −torch.log at L = Π p; ``decreasing``:
    autograd of ``F.nll_loss(log P)`` in each target's probability.
    ``per-token``: ``F.cross_entropy`` with a class-index and with a one-hot probability target.
    ``mean-reduction``: the default ``reduction='mean'`` against both sides.
    """
    cmp = Comparison("torch.nn.functional.cross_entropy / nll_loss", options)
    g = generator(options, salt=41)
    dt = dtype(options)
    for n, T, scale in SEQUENCES:
        logits, w, q = _sequence(g, dt, n, T, scale)
        p = q[torch.arange(T), w]
        case, where = f"n={n} T={T}", {"n": n, "T": T}
        total = F.cross_entropy(logits, w, reduction="sum")
        for part, eq in statements.items():
            if part == "log-likelihood":
                env = bind(eq, p=p, T=T)
                cmp.agree(f"{part} {case} F.cross_entropy sum", total, eq, env, FUNCTIONS, part=part, **where)
                cmp.agree(
                    f"{part} {case} F.nll_loss sum",
                    F.nll_loss(F.log_softmax(logits, -1), w, reduction="sum"),
                    eq,
                    env,
                    FUNCTIONS,
                    part=part,
                    **where,
                )
            elif part == "strictly-decreasing":  # the slope of −log at L = Π p, by autograd
                lik = torch.prod(p).detach().requires_grad_()
                (grad,) = torch.autograd.grad(-torch.log(lik), lik)
                cmp.agree(
                    f"{part} {case} at L = Π p",
                    grad,
                    eq,
                    bind(eq, p=p, T=T),
                    FUNCTIONS,
                    part=part,
                    reference_side="lhs",
                    **where,
                )
            elif part == "decreasing":
                P = q.detach().clone().requires_grad_()
                (grad,) = torch.autograd.grad(F.nll_loss(P.log(), w, reduction="sum"), P)
                cmp.agree(
                    f"{part} {case}",
                    grad[torch.arange(T), w],
                    eq,
                    bind(eq, p=p, T=T, u=torch.arange(1, T + 1, dtype=dt)),
                    part=part,
                    reference_side="lhs",
                    **where,
                )
            elif part == "per-token":
                onehot = F.one_hot(w, n).to(dt)
                by_index = F.cross_entropy(logits, w, reduction="none")
                by_probs = F.cross_entropy(logits, onehot, reduction="none")
                for t in range(min(T, 8)):
                    env = bind(eq, q=q[t], w=int(w[t]) + 1, n=n)
                    cmp.agree(f"{part} {case} token {t} class index", by_index[t], eq, env, part=part, token=t, **where)
                    cmp.agree(
                        f"{part} {case} token {t} one-hot target", by_probs[t], eq, env, part=part, token=t, **where
                    )
            elif part == "mean-reduction":
                env = bind(eq, p=p, T=T)
                cmp.agree(
                    f"{part} {case} F.cross_entropy mean",
                    F.cross_entropy(logits, w),
                    eq,
                    env,
                    FUNCTIONS,
                    part=part,
                    **where,
                )
                cmp.agree(
                    f"{part} {case} F.nll_loss mean",
                    F.nll_loss(F.log_softmax(logits, -1), w),
                    eq,
                    env,
                    FUNCTIONS,
                    part=part,
                    **where,
                )
            else:
                raise KeyError(f"mle_equals_cross_entropy: no numeric check for part {part!r}")
    if "log-likelihood" in statements:
        _argmax_is_argmin(cmp, g, dt)
        n, T = LONG
        logits, w, q = _sequence(g, dt, n, T, 1.0)
        likelihood = torch.prod(q[torch.arange(T), w])
        loss = F.cross_entropy(logits, w, reduction="sum")
        _fact(
            cmp,
            f"Π p underflows to 0.0 at n={n}, T={T} (float64) while F.cross_entropy is finite ({float(loss):.1f})",
            float(likelihood) == 0.0 and math.isfinite(float(loss)),
        )
    return cmp.verdict()


def _argmax_is_argmin(cmp, g, dt, models: int = 16, n: int = 5, T: int = 8):
    """Candidate models for one sequence: the likelihood's argmax is the loss's argmin."""
    logits = torch.randn(models, T, n, generator=g, dtype=dt) * 2
    w = torch.randint(0, n, (T,), generator=g)
    q = F.softmax(logits, dim=-1)
    likelihood = torch.prod(q[:, torch.arange(T), w], dim=1)
    loss = torch.stack([F.cross_entropy(logits[m], w, reduction="sum") for m in range(models)])
    mean = torch.stack([F.cross_entropy(logits[m], w) for m in range(models)])
    _fact(
        cmp,
        f"argmax of Π p over {models} models = argmin of F.cross_entropy (sum and mean)",
        int(likelihood.argmax()) == int(loss.argmin()) == int(mean.argmin()),
    )
    _fact(
        cmp,
        "−log Π p is strictly decreasing: the likelihood and the loss order the models oppositely",
        torch.equal(likelihood.argsort(), loss.argsort(descending=True)),
    )


# --- temperature-sharpness -----------------------------------------------------------------------

TEMPS = tuple(10 ** (-1 + 0.1 * k) for k in range(26))  # 0.1 … 31.6
TEMP_SIZES = (2, 8, 64)


def _entropy(z, T):
    return torch.distributions.Categorical(logits=z / T).entropy()


def temperature_sharpness(statements: dict, options: Options) -> NumericVerdict:
    """The statements against ``torch.distributions.Categorical(logits=z/T).entropy()`` and autograd.

    On a grid of 26 temperatures (0.1 … 31.6) for random logits: ``entropy``: PyTorch's entropy
    against the right-hand side (p = F.softmax(z/T)); ``derivative``: autograd dH/dT against it;
    ``sharpness``: autograd dH/dT ≥ 0 at every T, and H non-decreasing along the grid (a Plot of
    H against T is attached); ``hot-limit``: F.softmax(z/T) at T = 10¹⁴ against the right-hand side,
    the distance shrinking along T = 1, 10², …, 10¹⁴; ``argmax-weight``: F.softmax(z/T) at the
    largest logit; ``cold-limit``: the same at T = 10⁻³, the distance shrinking along T = 1 … 10⁻³.
    """
    cmp = Comparison("torch.distributions.Categorical(logits=z/T).entropy(), F.softmax, autograd", options)
    g = generator(options, salt=43)
    dt = dtype(options)
    series = []
    for n in TEMP_SIZES:
        z = torch.randn(n, generator=g, dtype=dt) * 2
        idx = torch.arange(1, n + 1, dtype=dt)
        where = {"n": n}
        for part, eq in statements.items():
            if part in ("entropy", "derivative", "sharpness"):
                H = []
                for T in TEMPS:
                    Tt = torch.tensor(T, dtype=dt, requires_grad=True)
                    h = _entropy(z, Tt)
                    (dH,) = torch.autograd.grad(h, Tt)
                    H.append(float(h.detach()))
                    env = bind(eq, n=n, z=z, p=F.softmax(z / T, dim=0), T=T, i=idx)
                    case = f"{part} n={n} T={T:.3g}"
                    ref = h.detach() if part == "entropy" else dH
                    # autograd's dH/dT cancels terms of size E_p[z²]/T³ (H itself: log-sum-exp ~ max|z|/T)
                    p_T = F.softmax(z / T, dim=0)
                    scale = float((p_T * z * z).sum()) / T**3 if part != "entropy" else float(z.abs().max()) / T
                    cmp.agree(
                        case,
                        ref,
                        eq,
                        env,
                        part=part,
                        reference_side="lhs" if part == "sharpness" else "both",
                        reference_bound=cmp.bound(ref, n, scale),
                        T=T,
                        **where,
                    )
                if part == "sharpness":
                    Hs = torch.tensor(H, dtype=dt)
                    # each H carries the rounding of its n-term sum of |p log p| ≤ log-terms of size |z|/T
                    cmp.holds(
                        f"H(softmax(z/T)) is non-decreasing along the T grid, n={n}",
                        Hs[1:],
                        Hs[:-1],
                        ">=",
                        bound=cmp.bound(Hs[1:], n, float(z.abs().max()) / TEMPS[0]),
                        **where,
                    )
                    series.append((f"n={n}", TEMPS, tuple(H)))
            elif part == "hot-limit":
                rhs = evaluate(eq.rhs, bind(eq, n=n, z=z, i=idx), dtype=dt)
                dist = [float((F.softmax(z / T, 0) - rhs).abs().max()) for T in (1.0, 1e2, 1e4, 1e8, 1e14)]
                # the reference at T = 1e14 is the limit up to |p − 1/n| ≤ 2 max|z| / T
                cmp.agree(
                    f"{part} n={n} T=1e14",
                    F.softmax(z / 1e14, 0),
                    eq,
                    bind(eq, n=n, z=z, i=idx),
                    part=part,
                    reference_bound=2 * float(z.abs().max()) / 1e14,
                    T=1e14,
                    **where,
                )
                floor = 4 * n * torch.finfo(dt).eps  # once the distance is rounding, it cannot shrink further
                _fact(
                    cmp,
                    f"max |softmax(z/T) − limit| shrinks as T grows, n={n}: {dist[0]:.2g} → {dist[-1]:.2g}",
                    all(a > b or a <= floor for a, b in zip(dist, dist[1:])) or dist[0] == 0,
                )
            elif part in ("argmax-weight", "cold-limit"):
                gaps = 0.05 + torch.rand(n - 1, generator=g, dtype=dt) * 3  # a unique maximum
                zm = float(z.max())
                logits = torch.cat([torch.tensor([zm], dtype=dt), zm - gaps])  # the argmax first (m = 1)
                env = dict(n=n, r=n - 1, g=gaps, z=logits, m=1)
                if part == "argmax-weight":
                    for T in (0.1, 1.0, 10.0):
                        cmp.agree(
                            f"{part} n={n} T={T}",
                            F.softmax(logits / T, 0)[0],
                            eq,
                            bind(eq, T=T, **env),
                            part=part,
                            T=T,
                            **where,
                        )
                else:
                    rhs = evaluate(eq.rhs, bind(eq, **env), dtype=dt)
                    dist = [float((F.softmax(logits / T, 0)[0] - rhs).abs()) for T in (1.0, 0.1, 0.01, 1e-3)]
                    # the reference at T = 1e-3 is the limit up to Σ e^{−gap/T} ≤ n e^{−min gap/T}
                    cmp.agree(
                        f"{part} n={n} T=1e-3",
                        F.softmax(logits / 1e-3, 0)[0],
                        eq,
                        bind(eq, **env),
                        part=part,
                        reference_bound=n * math.exp(-float(gaps.min()) / 1e-3) if n > 1 else 0.0,
                        T=1e-3,
                        **where,
                    )
                    floor = 4 * n * torch.finfo(dt).eps
                    _fact(
                        cmp,
                        f"|p_max(T) − limit| shrinks as T → 0⁺, n={n}: {dist[0]:.2g} → {dist[-1]:.2g}",
                        all(a > b or a <= floor for a, b in zip(dist, dist[1:]) if a > 0) and n > 1 or n == 1,
                    )
            else:
                raise KeyError(f"temperature_sharpness: no numeric check for part {part!r}")
    if series:
        cmp.plots.append(
            Plot(
                "entropy-vs-temperature",
                "Entropy of softmax(z/T) rises with T",
                "temperature T",
                "H (nats)",
                tuple(series),
                logx=True,
            )
        )
    return cmp.verdict()


def softmax_weight_ratio(z, n, i, j) -> torch.Tensor:
    """torch.softmax's weight ratio s_j/s_i on the (i, j) grid.

    One row of scores z (entries 1..n); the reference of softmax-weight-ratio's part 'ratio'."""
    s = torch.softmax(z, dim=-1)
    return s[None, :] / s[:, None]  # entry (i, j) is s_j / s_i
