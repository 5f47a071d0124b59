"""Numeric checks for §4 (calculus and optimisation)."""

from __future__ import annotations

import numpy as np

import torch
import torch.nn.functional as F

from mathcheck.verdict import NumericVerdict, Plot
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype, generator
from mathcheck.numeric.evaluate import Indexed
from mathcheck.numeric.symbols import bind, by_name

SIZES = (2, 5, 64, 512)
# (name, scale, shift): ordinary logits, large-magnitude logits, and a huge common offset that
# overflows a naive exp but not F.softmax.
LOGITS = (("randn", 1.0, 0.0), ("large x30", 30.0, 0.0), ("offset +1000", 3.0, 1000.0))


def _env(eq, z_values, s_values, n):
    idx = torch.arange(1, n + 1, dtype=z_values.dtype)
    return bind(eq, n=n, i=idx[:, None], j=idx[None, :], z=z_values, s=s_values)


def softmax_jacobian(statements: dict, options: Options) -> NumericVerdict:
    """The statements against the autograd Jacobian of ``F.softmax`` on random float64 logits.

    (``torch.autograd.functional.jacobian``: ``torch.func.jacrev`` gives the same matrix but its
    first call in a process costs ≈ 1 s of set-up here.)

    ``jacobian``: the closed form (s = F.softmax(z)) against the autograd Jacobian, entry (i, j);
    ``rows``: each row sum of the autograd Jacobian against the statement's right-hand side;
    ``symmetric``: J − Jᵀ from autograd against the right-hand side; ``normalised``: Σ F.softmax(z).
    """
    cmp = Comparison("torch.autograd.functional.jacobian(torch.nn.functional.softmax, vectorize=True)", options)
    g = generator(options)
    dt = dtype(options)
    for n in SIZES:
        for name, scale, shift in LOGITS:
            z = (torch.randn(n, generator=g, dtype=dt) * scale + shift).to(options.device)
            s = F.softmax(z, dim=0)
            J = torch.autograd.functional.jacobian(lambda x: F.softmax(x, dim=0), z, vectorize=True)
            where = {"n": n, "logits": name}
            for part, eq in statements.items():
                env = _env(eq, z, s, n)
                if part == "rows":  # one value per row i (j is summed)
                    env.update(bind(eq, i=torch.arange(1, n + 1, dtype=dt)))
                reference = {"jacobian": J, "rows": J.sum(1), "symmetric": J - J.T, "normalised": s.sum()}.get(part)
                if reference is None:
                    raise KeyError(f"softmax_jacobian: no numeric check for part {part!r}")
                cmp.agree(f"{part} n={n} {name}", reference, eq, env, part=part, **where)
    return cmp.verdict()


# --- shared helpers for the §4 checks below -------------------------------------------------------


def _holds(cmp: Comparison, case: str, lhs: torch.Tensor, rhs, rel: str, **where) -> bool:
    """``lhs REL rhs`` for two computed values (see :meth:`Comparison.holds`)."""
    return cmp.holds(case, lhs, rhs, rel, **where)


# --- chain-rule-linear-layer -------------------------------------------------------------------------

# (N, d, h): square sizes first (every index mistake is then a wrong *value*), then rectangular ones.
LINEAR_SIZES = ((4, 4, 4), (7, 5, 3), (16, 32, 8))


def chain_rule_linear_layer(statements: dict, options: Options) -> NumericVerdict:
    """Each gradient formula against autograd through ``nn.Linear`` and a real loss.

    ``nn.Linear`` stores its weight as (out, in) and computes ``x Wᵀ + b``, so the W of
    ``y = XW + b`` is ``linear.weight.T`` and ∂L/∂W is ``linear.weight.grad.T``. g = ∂L/∂y is
    autograd's (``y.retain_grad()``), for F.cross_entropy and F.mse_loss.
    """
    cmp = Comparison("autograd through torch.nn.Linear with F.cross_entropy / F.mse_loss", options)
    g = generator(options, salt=41)
    dt = dtype(options)
    for N, d, h in LINEAR_SIZES:
        for loss_name in ("cross_entropy", "mse_loss"):
            linear = torch.nn.Linear(d, h, dtype=dt)
            with torch.no_grad():
                linear.weight.copy_(torch.randn(h, d, generator=g, dtype=dt))
                linear.bias.copy_(torch.randn(h, generator=g, dtype=dt))
            X = torch.randn(N, d, generator=g, dtype=dt).requires_grad_(True)
            y = linear(X)
            y.retain_grad()
            if loss_name == "cross_entropy":
                loss = F.cross_entropy(y, torch.randint(0, h, (N,), generator=g))
            else:
                loss = F.mse_loss(y, torch.randn(N, h, generator=g, dtype=dt))
            loss.backward()
            G, W = y.grad.detach(), linear.weight.detach().T
            where = {"N": N, "d": d, "h": h, "loss": loss_name}
            grids = {
                "u": torch.arange(1, d + 1, dtype=dt)[:, None],
                "v": torch.arange(1, h + 1, dtype=dt)[None, :],
                "r": torch.arange(1, N + 1, dtype=dt)[:, None],
                "s": torch.arange(1, d + 1, dtype=dt)[None, :],
            }
            expected = {
                "weight-gradient": linear.weight.grad.T,
                "input-gradient": X.grad,
                "bias-gradient": linear.bias.grad,
            }
            for part, eq in statements.items():
                if part not in expected:
                    raise KeyError(f"chain_rule_linear_layer: no numeric check for part {part!r}")
                idx = dict(grids)
                if part == "bias-gradient":
                    idx["v"] = torch.arange(1, h + 1, dtype=dt)
                env = bind(eq, X=X.detach(), W=W, g=G, N=N, d=d, h=h, b=linear.bias.detach(), **idx)
                cmp.agree(f"{part} N={N} d={d} h={h} {loss_name}", expected[part], eq, env, part=part, **where)
    return cmp.verdict()


# --- gradient-descent-decrease ------------------------------------------------------------------------

STEP_FRACTIONS = (0.05, 0.25, 0.5, 1.0)  # η = c/β: inside the claim's range 0 < η ≤ 1/β


def _descent_cases(options: Options):
    """(name, loss of a flat parameter vector, point, β) with β a smoothness constant of the loss:
    λ_max of the Hessian 2AᵀA/m for the mean squared error; λ_max(XᵀX)/(2m) for the mean softmax
    cross-entropy of a linear model (its logit Hessian diag(p) − ppᵀ is at most I/2)."""
    g = generator(options, salt=43)
    dt = dtype(options)
    m, n = 20, 8
    A, b = torch.randn(m, n, generator=g, dtype=dt), torch.randn(m, generator=g, dtype=dt)
    # LAPACK through numpy: MKL's eigh/lstsq (torch's) differ in the last bits from call to call in
    # one process, which would break "same seed, same report"
    evals, evecs = (torch.from_numpy(t).to(dt) for t in np.linalg.eigh((2 * A.T @ A / m).double().numpy()))
    w_star = torch.from_numpy(np.linalg.lstsq(A.double().numpy(), b.double().numpy(), rcond=None)[0]).to(dt)
    mse = lambda w: F.mse_loss(A @ w, b)  # noqa: E731
    yield "F.mse_loss, random w", mse, torch.randn(n, generator=g, dtype=dt), float(evals[-1])
    # at w* + (top eigenvector) the gradient is an eigenvector of the largest curvature: the worst case
    yield "F.mse_loss, w* + top eigenvector", mse, w_star + evecs[:, -1], float(evals[-1])
    k, d, K = 30, 5, 4
    X, labels = torch.randn(k, d, generator=g, dtype=dt), torch.randint(0, K, (k,), generator=g)
    ce = lambda w: F.cross_entropy(X @ w.view(d, K), labels)  # noqa: E731
    beta = float(np.linalg.eigvalsh((X.T @ X).double().numpy())[-1]) / (2 * k)
    yield "F.cross_entropy, linear model", ce, torch.randn(d * K, generator=g, dtype=dt), beta


def gradient_descent_decrease(statements: dict, options: Options) -> NumericVerdict:
    """The slope and the decrease bound on real losses, gradients by autograd.

    ``first-order``: d/dt L(w − t∇L) at t = 0 by autograd against the statement's right-hand side;
    ``descent-lemma``: L(w − η∇L) ≤ the right-hand side at η = c/β, c ∈ STEP_FRACTIONS, with each
    L(·) evaluated by the loss itself; ``step-factor``: both sides at the same η.
    """
    cmp = Comparison("F.mse_loss / F.cross_entropy, torch.autograd, numpy.linalg.eigh (float64)", options)
    dt = dtype(options)

    for name, loss, w0, beta in _descent_cases(options):
        w = w0.clone().requires_grad_(True)
        (grad,) = torch.autograd.grad(loss(w), w)
        t = torch.zeros((), dtype=dt, requires_grad=True)
        (slope,) = torch.autograd.grad(loss(w0 - t * grad), t)
        n = grad.numel()
        for part, eq in statements.items():
            if part not in ("first-order", "descent-lemma", "step-factor"):
                raise KeyError(f"gradient_descent_decrease: no numeric check for part {part!r}")
            funcs = {"L": lambda point: loss(point)}
            if part == "first-order":
                env = bind(eq, g=grad, w=w0, n=n)
                cmp.agree(f"{part} {name}", slope, eq, env, funcs, part=part, loss=name)
                continue
            # a statement with a fixed step (the mutant η = 3/β) is checked once, at its own step
            for c in STEP_FRACTIONS if "eta" in by_name(eq) else (None,):
                env = bind(eq, g=grad, w=w0, n=n, eta=None if c is None else c / beta, beta=beta)
                where = {"loss": name, "eta": "as stated" if c is None else f"{c}/beta", "beta": f"{beta:.6g}"}
                reference = None
                if part == "descent-lemma":  # PyTorch's loss after the step: the left side
                    eta = env.get(by_name(eq).get("eta"), c / beta if c is not None else None)
                    reference = loss(w0 - eta * grad).detach() if eta is not None else None
                cmp.agree(
                    f"{part} {name} eta={where['eta']}",
                    reference,
                    eq,
                    env,
                    funcs,
                    part=part,
                    reference_side="lhs",
                    **where,
                )
    # What a reader should see: the real change of the loss against η, with the two bounds, at the
    # worst-case point (gradient along the top curvature), where the loss rises beyond η = 2/β.
    name, loss, w0, beta = list(_descent_cases(options))[1]
    w = w0.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(loss(w), w)
    cs = tuple(round(0.1 * k, 2) for k in range(1, 31))
    sq, l0 = float(grad @ grad), float(loss(w0))
    actual = tuple(float(loss(w0 - c / beta * grad)) - l0 for c in cs)
    cmp.plots.append(
        Plot(
            "loss-change-vs-step",
            f"L(w − η∇L) − L(w), {name}",
            "η·β",
            "change of the loss",
            (
                ("measured", cs, actual),
                ("smoothness bound −(η − βη²/2)‖∇L‖²", cs, tuple(-(c - c * c / 2) / beta * sq for c in cs)),
                ("guarantee −(η/2)‖∇L‖² (η ≤ 1/β)", cs[:10], tuple(-c / 2 / beta * sq for c in cs[:10])),
            ),
        )
    )
    return cmp.verdict()


# --- adam-update --------------------------------------------------------------------------------------

# (lr, β1, β2, ε, gradient scale): the defaults; a large ε against small gradients (where the place
# of ε matters); other betas. Each parameter's gradients get their own scale, 10^-3 … 10^3.
ADAM_CASES = ((1e-3, 0.9, 0.999, 1e-8, 1.0), (1e-2, 0.9, 0.999, 1e-3, 1e-3), (0.1, 0.5, 0.9, 1e-6, 1.0))
ADAM_PARAMS, ADAM_STEPS = 7, 6
ADAM_SCALES = (1e-4, 1e3)  # c for scale-invariance


def _run_adam(grads: torch.Tensor, p0: torch.Tensor, lr, betas, eps):
    """torch.optim.Adam fed the gradient rows of ``grads`` (steps × params); per step: the change of
    the parameter, exp_avg and exp_avg_sq."""
    p = torch.nn.Parameter(p0.clone())
    opt = torch.optim.Adam([p], lr=lr, betas=betas, eps=eps)
    out = []
    for row in grads:
        before = p.detach().clone()
        p.grad = row.clone()
        opt.step()
        state = opt.state[p]
        # the change is read off as p₁ − p₀: it carries the rounding of both, ε(|p₀| + |p₁|)
        out.append(
            (
                p.detach() - before,
                state["exp_avg"].clone(),
                state["exp_avg_sq"].clone(),
                torch.finfo(p.dtype).eps * (before.abs() + p.detach().abs()),
            )
        )
    return out


def adam_update(statements: dict, options: Options) -> NumericVerdict:
    """Every statement against ``torch.optim.Adam`` run for several steps in float64.

    The moments against its ``exp_avg``/``exp_avg_sq`` state, the update and the first step against
    the change of the parameters, the ε → 0 limit against ``eps=0``, the scale invariance against
    Adam (``eps=0``) fed c·g, with the statement evaluated on g.
    """
    cmp = Comparison("torch.optim.Adam (several steps)", options)
    gen = generator(options, salt=47)
    dt = dtype(options)
    idx = torch.arange(1, ADAM_PARAMS + 1, dtype=dt)
    column_scale = 10.0 ** torch.linspace(-3, 3, ADAM_PARAMS, dtype=dt)
    for lr, b1, b2, eps, scale in ADAM_CASES:
        grads = torch.randn(ADAM_STEPS, ADAM_PARAMS, generator=gen, dtype=dt) * column_scale * scale
        p0 = torch.randn(ADAM_PARAMS, generator=gen, dtype=dt)
        runs = {"eps": _run_adam(grads, p0, lr, (b1, b2), eps), "zero": _run_adam(grads, p0, lr, (b1, b2), 0.0)}
        runs.update({c: _run_adam(grads * c, p0, lr, (b1, b2), 0.0) for c in ADAM_SCALES})
        base = dict(g=grads.T, i=idx, n=ADAM_PARAMS, beta1=b1, beta2=b2, lr=lr)
        for part, eq in statements.items():
            plan = {  # part -> (run, which record, steps, extra bindings)
                "first-moment": [("eps", 1, s, {}) for s in range(1, ADAM_STEPS + 1)],
                "second-moment": [("eps", 2, s, {}) for s in range(1, ADAM_STEPS + 1)],
                "update": [("eps", 0, s, {"epsilon": eps}) for s in range(1, ADAM_STEPS + 1)],
                "first-step": [("eps", 0, 1, {"epsilon": eps})],
                "sign-limit": [("zero", 0, 1, {})],
                "scale-invariance": [(c, 0, s, {"c": c}) for c in ADAM_SCALES for s in range(1, ADAM_STEPS + 1)],
            }.get(part)
            if plan is None:
                raise KeyError(f"adam_update: no numeric check for part {part!r}")
            for run, record, step, extra in plan:
                _, m_t, v_t, read = runs[run][step - 1]  # Adam's own moments: the update's left side uses them
                env = bind(eq, t=step, m_t=m_t, v_t=v_t, **base, **extra)
                where = {
                    "lr": lr,
                    "betas": (b1, b2),
                    "eps": 0.0 if run != "eps" else eps,
                    "step": step,
                    "gradient scale": scale if run in ("eps", "zero") else f"{scale}·c, c={run}",
                }
                cmp.agree(
                    f"{part} lr={lr} eps={where['eps']} step={step} run={run}",
                    runs[run][step - 1][record],
                    eq,
                    env,
                    part=part,
                    reference_bound=read if record == 0 else 0.0,
                    **where,
                )
    if "first-step" in statements:
        _adam_first_step_sweep(cmp, statements["first-step"], options)
    return cmp.verdict()


def _adam_first_step_sweep(cmp: Comparison, eq, options: Options) -> None:
    """The seed's 'per-parameter step size', measured: Adam's first step for one parameter per
    gradient magnitude 10^-12 … 10^2 (ε = 1e-8), each checked against the statement and plotted.
    It is ≈ lr while |g| ≫ ε and ≈ lr·|g|/ε below: the normalisation needs √v̂ ≫ ε."""
    dt = dtype(options)
    lr, eps = 1e-3, 1e-8
    mags = tuple(10.0**e for e in range(-12, 3))
    grads = torch.tensor(mags, dtype=dt) * torch.where(torch.arange(len(mags)) % 2 == 0, 1.0, -1.0).to(dt)
    ((step, _, _, read),) = _run_adam(grads[None, :], torch.zeros(len(mags), dtype=dt), lr, (0.9, 0.999), eps)
    env = bind(
        eq,
        g=grads[:, None],
        i=torch.arange(1, len(mags) + 1, dtype=dt),
        n=len(mags),
        lr=lr,
        epsilon=eps,
        beta1=0.9,
        beta2=0.999,
    )
    cmp.agree(
        "first-step sweep |g| = 1e-12 … 1e2, eps=1e-8",
        step,
        eq,
        env,
        part="first-step",
        reference_bound=read,
        lr=lr,
        eps=eps,
    )
    cmp.plots.append(
        Plot(
            "adam-first-step-vs-gradient",
            "|first Adam step| / lr against |g| (ε = 1e-8)",
            "|g|",
            "|Δ₁| / lr",
            (("torch.optim.Adam", mags, tuple(float(v) / lr for v in step.abs())),),
            logx=True,
            logy=True,
        )
    )


# --- layernorm-statistics -----------------------------------------------------------------------------

LN_SIZES = (2, 8, 64)
LN_EPS = (1e-5, 1e-2)  # nn.LayerNorm's default, and a large one
# (name, scale, shift): σ² ≫ ε, σ² ≪ ε (where ε dominates), and a large offset
LN_INPUTS = (("randn", 1.0, 0.0), ("1e-3·randn", 1e-3, 0.0), ("100·randn + 50", 100.0, 50.0))
LN_AFFINE = ((7.0, -3.0), (0.1, 2.0))  # (a > 0, b); a tiny a·x against a large b loses digits to rounding


def _layernorm_error(x: torch.Tensor, y: torch.Tensor, eps: float) -> torch.Tensor:
    r"""A per-entry bound on |y − y*|, y = ``nn.LayerNorm(eps)(x)`` as computed, y* exact.

    y is an output, not a draw: every entry shares the rounding δμ of the mean, so Σy is off by
    n·δμ/σ̂ (not by n roundings of y that cancel). With ε the dtype's epsilon, μ = mean x, v the
    biased variance and r = (v + eps)^(-1/2) (running error analysis; the bound covers the two-pass
    sum, (n+1)ε·mean|x|, and Welford's update, ≤ 3ε·max|x| per step):

    .. math:: δμ = 3(n+1)ε\max|x|,\quad e_d = 2ε(|x| + |μ|) + δμ\ (x r − μ r \text{ or } (x − μ) r),

    :math:`δv = 2\max|x − μ|\max e_d + (n+2)ε v`, :math:`δr/r = δv / (2(v + eps)) + 3ε` (add, sqrt,
    reciprocal) and :math:`e_y = r\,e_d + |y|(δr/r + ε)`."""
    n, u = x.numel(), torch.finfo(x.dtype).eps
    mu, v = x.mean(), x.var(correction=0)
    d_mu = 3 * (n + 1) * u * x.abs().max()
    e_d = 2 * u * (x.abs() + mu.abs()) + d_mu
    d_v = 2 * (x - mu).abs().max() * e_d.max() + (n + 2) * u * v
    r = (v + eps) ** -0.5
    rel_r = d_v / (2 * (v + eps)) + 3 * u
    return r * e_d + y.abs() * (rel_r + u)


def layernorm_statistics(statements: dict, options: Options) -> NumericVerdict:
    """The statements against ``nn.LayerNorm(n, eps, elementwise_affine=False)`` and autograd.

    ``mean``, ``variance``: the left-hand side (a statistic of the outputs) evaluated on the real
    LayerNorm output, the right-hand side on x; ``variance-limit``: the biased variance of
    ``nn.LayerNorm(eps=0)``'s output; ``mean-derivative``, ``variance-derivative``: autograd's gradient
    of ``torch.mean`` and ``Tensor.var(correction=0)``; ``affine-invariance``: ``nn.LayerNorm(eps=0)(a·x + b)``;
    ``jacobian``: ``torch.autograd.functional.jacobian`` of the module, entry (i, j) (not
    ``torch.func.jacrev``, whose first call costs seconds of set-up here).
    """
    cmp = Comparison("torch.nn.LayerNorm (elementwise_affine=False), torch.autograd.functional.jacobian", options)
    gen = generator(options, salt=53)
    dt = dtype(options)
    for n in LN_SIZES:
        idx = torch.arange(1, n + 1, dtype=dt)
        for name, scale, shift in LN_INPUTS:
            x = torch.randn(n, generator=gen, dtype=dt) * scale + shift
            exact = torch.nn.LayerNorm(n, eps=0.0, elementwise_affine=False, dtype=dt)
            for eps in LN_EPS:
                ln = torch.nn.LayerNorm(n, eps=eps, elementwise_affine=False, dtype=dt)
                y = ln(x).detach()
                where = {"n": n, "x": name, "eps": eps}
                for part, eq in statements.items():
                    case = f"{part} n={n} x={name} eps={eps}"
                    # y is LayerNorm's output: it carries _layernorm_error, not one rounding
                    env = bind(
                        eq, x=x, y=Indexed(y, 1, err=_layernorm_error(x, y, eps)), n=n, epsilon=eps, i=idx, j=idx
                    )
                    if part in ("mean", "variance"):  # statistics of the real output y
                        ref = y.sum() if part == "mean" else y.var(correction=0)
                        cmp.agree(case, ref, eq, env, part=part, **where)
                    elif part == "variance-limit":
                        cmp.agree(case, exact(x).var(correction=0), eq, env, part=part, **where)
                    elif part == "affine-invariance":
                        for a, b in LN_AFFINE:
                            env = bind(eq, x=x, n=n, i=idx, a=a, b=b)
                            cmp.agree(
                                f"{case} a={a} b={b}", exact(a * x + b).detach(), eq, env, part=part, a=a, b=b, **where
                            )
                    elif part in ("mean-derivative", "variance-derivative"):
                        stat = torch.mean if part == "mean-derivative" else lambda z: z.var(correction=0)
                        z = x.clone().requires_grad_(True)
                        (grad,) = torch.autograd.grad(stat(z), z)
                        cmp.agree(case, grad, eq, env, part=part, **where)
                    elif part == "jacobian":
                        env = bind(
                            eq,
                            x=x,
                            y=Indexed(y, 1, err=_layernorm_error(x, y, eps)),
                            n=n,
                            epsilon=eps,
                            i=idx[:, None],
                            j=idx[None, :],
                        )
                        cmp.agree(case, torch.autograd.functional.jacobian(ln, x), eq, env, part=part, **where)
                    else:
                        raise KeyError(f"layernorm_statistics: no numeric check for part {part!r}")
    return cmp.verdict()


# --- residual-gradient-path ---------------------------------------------------------------------------

RESIDUAL_WIDTHS = (3, 16)
RESIDUAL_GAINS = (0.5, 2.0)  # W ~ N(0, gain²/n): small and large branch Jacobians
DEPTHS = (1, 2, 4, 8, 16, 32, 64)
TREND_WIDTH, TREND_GAIN = 32, 0.5
PLAIN_DECAY = 1e-6  # the plain stack's input gradient at depth 64 must fall below this × depth 1
RESIDUAL_FLOOR = 0.5  # the residual stack's must stay above this × ‖∂L/∂x_L‖ at every depth


def _tanh_block(W: torch.Tensor) -> torch.nn.Module:
    linear = torch.nn.Linear(W.shape[1], W.shape[0], bias=False, dtype=W.dtype)
    with torch.no_grad():
        linear.weight.copy_(W)
    return torch.nn.Sequential(linear, torch.nn.Tanh())


def _input_gradient_norms(residual: bool, options: Options) -> tuple:
    """‖∂(u·x_L)/∂x_0‖ / ‖u‖ by autograd for stacks of tanh layers of each depth in DEPTHS."""
    gen = generator(options, salt=61)
    dt = dtype(options)
    n = TREND_WIDTH
    weights = [torch.randn(n, n, generator=gen, dtype=dt) * TREND_GAIN / n**0.5 for _ in range(max(DEPTHS))]
    x0, u = torch.randn(n, generator=gen, dtype=dt), torch.randn(n, generator=gen, dtype=dt)
    blocks = [_tanh_block(W) for W in weights]
    out = []
    for depth in DEPTHS:
        x = x0.clone().requires_grad_(True)
        h = x
        for block in blocks[:depth]:
            h = h + block(h) if residual else block(h)
        (grad,) = torch.autograd.grad(h @ u, x)
        out.append(float(grad.norm() / u.norm()))
    return tuple(out)


def residual_gradient_path(statements: dict, options: Options) -> NumericVerdict:
    """The Jacobians against autograd through ``nn.Linear`` + ``nn.Tanh`` residual blocks, and the
    measured trend of the input gradient against depth.

    ``one-block``: ``torch.autograd.functional.jacobian`` of x ↦ x + f(x) against the statement
    evaluated with the block's weight; ``two-blocks``/``three-blocks``: the Jacobian of the
    composed blocks (autograd's chain rule) against the statement evaluated with each branch's own
    Jacobian at its input. Trend (always checked): the plain stack's gradient at depth 64 is below
    PLAIN_DECAY × its depth-1 value; the residual stack's stays above RESIDUAL_FLOOR at every depth.
    """
    cmp = Comparison("torch.autograd.functional.jacobian through nn.Linear + nn.Tanh blocks", options)
    gen = generator(options, salt=59)
    dt = dtype(options)
    jac = torch.autograd.functional.jacobian
    for n in RESIDUAL_WIDTHS:
        idx = torch.arange(1, n + 1, dtype=dt)
        for gain in RESIDUAL_GAINS:
            Ws = [torch.randn(n, n, generator=gen, dtype=dt) * gain / n**0.5 for _ in range(3)]
            fs = [_tanh_block(W) for W in Ws]
            x = torch.randn(n, generator=gen, dtype=dt)
            hs = [x]
            for f in fs:
                hs.append((hs[-1] + f(hs[-1])).detach())
            branch = [jac(f, h) for f, h in zip(fs, hs)]  # J_f of each branch at its own input
            where = {"n": n, "gain": gain}
            for part, eq in statements.items():
                case = f"{part} n={n} gain={gain}"
                if part == "one-block":
                    env = bind(eq, x=x, W=Ws[0], n=n, i=idx[:, None], j=idx[None, :])
                    expected = jac(lambda z: z + fs[0](z), x)
                elif part in ("two-blocks", "three-blocks"):
                    depth = 2 if part == "two-blocks" else 3
                    # the statement's B, A, C are the first, second and third branch's Jacobians
                    env = bind(eq, B=branch[0], A=branch[1], C=branch[2], n=n, i=idx[:, None], j=idx[None, :])

                    def composed(z, depth=depth):
                        for f in fs[:depth]:
                            z = z + f(z)
                        return z

                    expected = jac(composed, x)
                else:
                    raise KeyError(f"residual_gradient_path: no numeric check for part {part!r}")
                cmp.agree(case, expected, eq, env, part=part, **where)
    plain, residual = _input_gradient_norms(False, options), _input_gradient_norms(True, options)
    _holds(
        cmp,
        f"trend: plain stack, gradient at depth {DEPTHS[-1]} / depth 1 <= {PLAIN_DECAY}",
        torch.tensor(plain[-1] / plain[0], dtype=dt),
        PLAIN_DECAY,
        "<=",
        stack="plain",
    )
    _holds(
        cmp,
        f"trend: residual stack, min over depth of ‖∂L/∂x‖/‖u‖ >= {RESIDUAL_FLOOR}",
        torch.tensor(min(residual), dtype=dt),
        RESIDUAL_FLOOR,
        ">=",
        stack="residual",
    )
    cmp.details.append(
        "input-gradient norm / ‖u‖ by depth "
        + str(DEPTHS)
        + ": plain "
        + ", ".join(f"{v:.3g}" for v in plain)
        + "; residual "
        + ", ".join(f"{v:.3g}" for v in residual)
    )
    cmp.plots.append(
        Plot(
            "input-gradient-vs-depth",
            f"‖∂(u·x_L)/∂x_0‖/‖u‖, tanh layers of width {TREND_WIDTH}, W ~ N(0, {TREND_GAIN}²/n)",
            "depth L",
            "input-gradient norm",
            (("plain x ← tanh(Wx)", DEPTHS, plain), ("residual x ← x + tanh(Wx)", DEPTHS, residual)),
            logx=True,
            logy=True,
        )
    )
    return cmp.verdict()
