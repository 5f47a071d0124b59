"""Numeric checks for §9, the normalisers: RMSNorm (§9.4) and the log-sum-exp shift (§9.9).

Each statement's left side AND right side is compared with PyTorch's own implementation of the
variant, three-way, as set out in :mod:`mathcheck.verify._beyond` (float64 by default, seeded,
tolerances derived per entry).
"""

from __future__ import annotations

import random

import sympy as sp
import torch

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options
from mathcheck.verify._beyond import _comparison, _sides, _one_derivative
from mathcheck.verify._compare import dtype, generator
from mathcheck.numeric.evaluate import evaluate
from mathcheck.numeric.symbols import bind, by_name
from mathcheck.verify.probability import _fact, _relation


# --- rmsnorm-statistics ---------------------------------------------------------------------------------

RMS_CASES = ((1, 1e-6), (4, 0.5), (64, 1e-5))


def rmsnorm_statistics(statements: dict, options: Options) -> NumericVerdict:
    """The statements against ``torch.nn.RMSNorm(n, eps, elementwise_affine=False)`` and autograd.

    ``mean-square`` / ``mean``: the left side with y = RMSNorm(x), the right side in x, against the
    mean square / mean of PyTorch's output; ``jacobian``: the left side by autograd through the
    evaluated expression, the right side evaluated, against ``autograd.functional.jacobian`` of
    ``nn.RMSNorm``. Inputs have mean 1 (so RMSNorm visibly does not centre) and small scale at ε = 0.5.
    """
    dt = dtype(options)
    cmp = _comparison("torch.nn.RMSNorm(elementwise_affine=False) and autograd", options, 64)
    g = generator(options, salt=904)
    for n, eps in RMS_CASES:
        norm = torch.nn.RMSNorm(n, eps=eps, elementwise_affine=False, dtype=dt)
        for trial in range(2):
            x = torch.randn(n, generator=g, dtype=dt) * (0.3 if eps > 0.1 else 2.0) + 1.0
            y = norm(x)
            idx = torch.arange(1, n + 1, dtype=dt)
            where = {"n": n, "eps": eps, "trial": trial}
            for part, eq in statements.items():
                if part == "mean-square":
                    env = bind(eq, x=x, y=y, n=n, epsilon=eps)
                    _sides(cmp, f"{part} n={n} eps={eps}", eq, (y**2).mean(), env, None, dt, **where)
                elif part == "mean":
                    env = bind(eq, x=x, y=y, n=n, epsilon=eps)
                    _sides(cmp, f"{part} n={n} eps={eps}", eq, y.mean(), env, None, dt, **where)
                elif part == "jacobian":
                    ref = torch.autograd.functional.jacobian(norm, x)
                    d, outer, slot = _one_derivative(eq.lhs, part)
                    base = by_name(d.expr, kind=sp.IndexedBase)["x"]

                    def f(xx, eq=eq, base=base, d=d):
                        env = bind(eq, n=n, epsilon=eps, i=idx)
                        env[base] = xx
                        return evaluate(d.expr, env, dtype=dt)

                    jac = torch.autograd.functional.jacobian(f, x)
                    env = bind(eq, x=x, y=y, n=n, epsilon=eps, i=idx[:, None], j=idx[None, :])
                    lhs = evaluate(outer, {**env, slot: jac}, dtype=dt)
                    cmp.compare(f"{part} n={n} eps={eps} lhs (autograd)", ref, lhs, **where)
                    env = bind(eq, x=x, y=y, n=n, epsilon=eps, i=idx[:, None], j=idx[None, :])
                    cmp.compare(f"{part} n={n} eps={eps} rhs", ref, evaluate(eq.rhs, env, dtype=dt), **where)
                else:
                    raise KeyError(f"rmsnorm_statistics: no numeric check for part {part!r}")
    return cmp.verdict()


# --- logsumexp-shift --------------------------------------------------------------------------------

LSE_SIZES = (1, 5, 100)


def logsumexp_shift(statements: dict, options: Options) -> NumericVerdict:
    """Both sides against ``torch.logsumexp``. ``shift``: at moderate logits for c ∈ {0, max x, −7.3,
    a random c}; at logits ±1e4 the right side with c = max x (the naive left side overflows there to
    ±inf — a checked fact); ``no-overflow``: the left side with c = max x against
    ``exp(logsumexp(x) − max x)``, the relation ≤ n, and every term ≤ 1 at ±1e4."""
    dt = dtype(options)
    cmp = _comparison("torch.logsumexp", options, max(LSE_SIZES))
    g = generator(options, salt=909)
    rng = random.Random(options.seed)
    for n in LSE_SIZES:
        for name, scale in (("randn x3", 3.0), ("±1e4", 1e4)):
            # ±1e4: from +1e4 down to −1e4, so e^x overflows at the top and underflows at the bottom
            x = (
                (torch.rand(n, generator=g, dtype=dt) * 2 - 1) * scale
                if scale < 100
                else torch.linspace(1, -1, n, dtype=dt) * scale
            )
            ref = torch.logsumexp(x, 0)
            mx = float(x.max())
            where = {"n": n, "logits": name}
            for part, eq in statements.items():
                if part == "shift":
                    shifts = (mx,) if scale > 100 else (0.0, mx, -7.3, rng.uniform(-10, 10))
                    for c in shifts:
                        env = bind(eq, x=x, c=c, n=n)
                        case = f"{part} n={n} {name} c={c:.4g}"
                        if scale > 100:  # the naive left side is not computable here: that is the point
                            naive = evaluate(eq.lhs, env, dtype=dt)
                            _fact(
                                cmp,
                                f"naive log Σ e^x is not finite at n={n} {name} (torch.logsumexp {float(ref):.6g})",
                                not bool(torch.isfinite(naive)),
                            )
                            cmp.compare(f"{case} rhs", ref, evaluate(eq.rhs, env, dtype=dt), **where)
                        else:
                            _sides(cmp, case, eq, ref, env, None, dt, **where)
                elif part == "no-overflow":
                    env = bind(eq, x=x, c=mx, n=n)
                    lhs = evaluate(eq.lhs, env, dtype=dt)
                    cmp.compare(f"{part} n={n} {name} lhs", torch.exp(ref - mx), lhs, **where)
                    _relation(cmp, f"{part} n={n} {name}", eq, lhs, evaluate(eq.rhs, env, dtype=dt), **where)
                    _fact(
                        cmp,
                        f"every e^(x_i − max x) ≤ 1 and finite at n={n} {name}",
                        bool((torch.exp(x - mx) <= 1).all()),
                    )
                else:
                    raise KeyError(f"logsumexp_shift: no numeric check for part {part!r}")
    return cmp.verdict()
