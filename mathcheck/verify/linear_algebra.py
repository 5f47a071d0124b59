"""Numeric checks for §2 (linear algebra)."""

from __future__ import annotations

import time
import zlib
from functools import lru_cache

import sympy as sp
import torch

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options
from mathcheck.verify import stats

# (distribution, d_k, mu_q, sigma_q, mu_k, sigma_k): the seed's case at d_k from 16 to 4096, a
# non-Gaussian case (Rademacher components have the same first two moments), and nonzero means.
STANDARD = tuple(("normal", d, 0.0, 1.0, 0.0, 1.0) for d in (16, 64, 512, 4096)) + (
    ("rademacher", 64, 0.0, 1.0, 0.0, 1.0),)
SHIFTED = (("normal", 16, 0.5, 2.0, -1.0, 0.5), ("normal", 64, 0.5, 2.0, -1.0, 0.5))
DELTA = 0.10  # smallest relative error the test must catch, with power 1 - 1e-6


def _draw(dist: str, d: int, mq: float, sq: float, mk: float, sk: float, dtype):
    def draw(g: torch.Generator, size: int) -> torch.Tensor:
        if dist == "normal":
            q = torch.randn(size, d, generator=g, dtype=dtype).mul_(sq).add_(mq)
            k = torch.randn(size, d, generator=g, dtype=dtype).mul_(sk).add_(mk)
        else:
            q = (torch.randint(0, 2, (size, d), generator=g).to(dtype) * 2 - 1).mul_(sq).add_(mq)
            k = (torch.randint(0, 2, (size, d), generator=g).to(dtype) * 2 - 1).mul_(sk).add_(mk)
        return (q * k).sum(-1)
    return draw


@lru_cache(maxsize=64)
def _moments(setting: tuple, n: int, seed: int, dtype_name: str) -> stats.Moments:
    dist, d, mq, sq, mk, sk = setting
    chunk = max(1, stats.CHUNK_ELEMENTS // d)
    return stats.stream_moments(_draw(dist, d, mq, sq, mk, sk, getattr(torch, dtype_name)), n, chunk,
                                seed=seed * 1_000_003 + zlib.crc32(repr(setting).encode()) % 1_000_003)


def _scale(lhs) -> tuple:
    """Var(c · Σ q_i k_i) -> (c, d): the scale and the dimension symbol of the statement."""
    (arg,) = lhs.args
    sums = [f for f in sp.Mul.make_args(arg) if isinstance(f, sp.Sum)]
    if lhs.func.__name__ != "Var" or len(sums) != 1:
        raise ValueError(f"expected Var(c * Sum(q[i]*k[i], ...)), got {lhs}")
    (_, lo, hi), = sums[0].limits
    return arg / sums[0], hi


def qk_variance(statements: dict, options: Options) -> NumericVerdict:
    """Monte Carlo estimate of Var(c·q·k) at each setting, z-tested against each statement."""
    start = time.perf_counter()
    plan = []
    for part, eq in statements.items():
        settings = STANDARD + SHIFTED if part == "general" else STANDARD
        plan += [(part, eq, s) for s in settings]
    critical = stats.z_critical(stats.FAMILY_ALPHA, len(plan))
    n = stats.sample_size(DELTA, len(plan))
    worst, max_err, details, cex = 0.0, 0.0, [], ()
    for part, eq, setting in plan:
        dist, d, mq, sq, mk, sk = setting
        c_expr, d_sym = _scale(eq.lhs)
        names = {"mu_q": mq, "sigma_q": sq, "mu_k": mk, "sigma_k": sk}
        values = {d_sym: d}
        values.update({s: names[s.name] for s in eq.rhs.free_symbols | c_expr.free_symbols
                       if s.name in names})
        claimed = float(eq.rhs.xreplace(values))
        scale = float(c_expr.xreplace(values))
        m = _moments(setting, n, options.seed, options.dtype)
        t = stats.variance_test(m, claimed, critical, scale)
        max_err = max(max_err, abs(t.estimate - t.claimed))
        line = (f"{part}: {dist} d_k={d} mu=({mq},{mk}) sigma=({sq},{sk}): estimate {t.estimate:.6g}, "
                f"claimed {claimed:.6g}, z={t.z:+.2f}")
        details.append(line)
        if t.rejected and abs(t.z) > worst:
            worst = abs(t.z)
            cex = (("part", part), ("distribution", dist), ("d_k", str(d)), ("mu_q", str(mq)),
                   ("sigma_q", str(sq)), ("mu_k", str(mk)), ("sigma_k", str(sk)),
                   ("estimate", f"{t.estimate:.6g}"), ("claimed", f"{claimed:.6g}"), ("z", f"{t.z:+.2f}"))
    test = (f"z-test of the sample variance (fourth-moment standard error), {len(plan)} tests, "
            f"Bonferroni |z| > {critical:.2f}: family false-alarm rate <= 1e-6; n = {n} pairs per "
            f"setting, enough to reject a {DELTA:.0%} relative error with power 1 - 1e-6 "
            f"(kurtosis - 1 <= 3)")
    return NumericVerdict(
        status="refuted" if cex else "passed",
        reference="torch.randn / torch.randint Monte Carlo, streamed in chunks of 2^20 numbers",
        trials=n * len({s for _, _, s in plan}),
        max_abs_err=max_err,
        seed=options.seed,
        counterexample=cex,
        details=tuple(details),
        test=test,
        dtype=options.dtype,
        device=options.device,
        seconds=time.perf_counter() - start,
    )
