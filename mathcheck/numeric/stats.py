r"""Streaming Monte Carlo and the test that judges it.

Moments are accumulated chunk by chunk (memory is bounded by the chunk, at any dimension or sample
size) as power sums about a shift close to the mean, so that the central moments do not suffer
catastrophic cancellation.

**The variance test.** For i.i.d. draws with sample variance :math:`s^2` and fourth central moment
:math:`\mu_4`, :math:`s^2` is asymptotically normal with variance
:math:`(\mu_4 - \frac{n-3}{n-1}\sigma^4)/n` (Cramér). A claimed variance :math:`v_0` is rejected when

.. math:: |z| = \frac{|s^2 - v_0|}{\widehat{\mathrm{se}}} > z_{1-\alpha/(2m)}

with :math:`m` the number of tests run together (Bonferroni), so the family's false-alarm rate is at
most :math:`\alpha = 10^{-6}` (to the accuracy of the normal approximation).

**Sample size.** To reject a claim that is off by a relative amount :math:`\delta` with power
:math:`1-\beta`, :math:`n \ge \big((z_{1-\alpha/(2m)} + z_{1-\beta})\sqrt{\kappa - 1}/\delta\big)^2`,
:math:`\kappa` the kurtosis of one draw (:math:`3 + 6/d` for a dot product of standard normal
vectors, so :math:`\kappa - 1 \le 3` for :math:`d \ge 6`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Callable

import torch

FAMILY_ALPHA = 1e-6
BETA = 1e-6
CHUNK_ELEMENTS = 1 << 20  # numbers per drawn tensor: 8 MiB in float64


def z_critical(alpha: float, tests: int) -> float:
    """Two-sided critical value with a Bonferroni split of ``alpha`` over ``tests``."""
    return NormalDist().inv_cdf(1 - alpha / (2 * tests))


def sample_size(
    delta: float, tests: int, kurtosis_minus_one: float = 3.0, alpha: float = FAMILY_ALPHA, beta: float = BETA
) -> int:
    """Draws needed to reject a relative error ``delta`` with power ``1 − beta``."""
    z = z_critical(alpha, tests) + NormalDist().inv_cdf(1 - beta)
    return math.ceil((z * math.sqrt(kurtosis_minus_one) / delta) ** 2)


@dataclass(frozen=True)
class Moments:
    n: int
    mean: float
    var: float  # unbiased sample variance
    mu4: float  # fourth central moment (plug-in)

    @property
    def se_var(self) -> float:
        n = self.n
        return math.sqrt(max(self.mu4 - (n - 3) / (n - 1) * self.var**2, 0.0) / n)

    @property
    def kurtosis(self) -> float:
        return self.mu4 / self.var**2 if self.var > 0 else float("nan")


def stream_moments(
    draw: Callable[[torch.Generator, int], torch.Tensor], n: int, chunk: int, seed: int, device: str = "cpu"
) -> Moments:
    """Moments of ``n`` values drawn ``chunk`` at a time by ``draw(generator, size)``."""
    g = torch.Generator(device=device).manual_seed(seed)
    s = [0.0, 0.0, 0.0, 0.0]
    shift = None
    done = 0
    while done < n:
        size = min(chunk, n - done)
        x = draw(g, size).to(torch.float64)
        if shift is None:
            shift = float(x.mean())
        y = x - shift
        y2 = y * y
        s[0] += float(y.sum())
        s[1] += float(y2.sum())
        s[2] += float((y2 * y).sum())
        s[3] += float((y2 * y2).sum())
        done += size
    m1, m2, m3, m4 = (v / n for v in s)
    mu2 = m2 - m1**2
    mu4 = m4 - 4 * m1 * m3 + 6 * m1**2 * m2 - 3 * m1**4
    return Moments(n, shift + m1, mu2 * n / (n - 1), mu4)


@dataclass(frozen=True)
class VarianceTest:
    estimate: float
    claimed: float
    z: float
    critical: float

    @property
    def rejected(self) -> bool:
        return not math.isfinite(self.z) or abs(self.z) > self.critical


def variance_test(m: Moments, claimed: float, critical: float, scale: float = 1.0) -> VarianceTest:
    """Test ``Var(scale·X) = claimed`` from the moments of X."""
    est = scale**2 * m.var
    se = scale**2 * m.se_var
    z = (est - claimed) / se if se > 0 else (0.0 if est == claimed else math.inf)
    return VarianceTest(est, claimed, z, critical)
