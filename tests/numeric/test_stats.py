import math

import torch

from mathcheck.numeric import stats


def test_sample_size_follows_the_power_analysis():
    n = stats.sample_size(0.1, tests=1)
    z = stats.z_critical(1e-6, 1) + 4.753424
    assert abs(n - (z * math.sqrt(3) / 0.1) ** 2) < 2


def test_streamed_moments_match_one_shot_moments():
    draw = lambda g, size: torch.randn(size, generator=g, dtype=torch.float64) * 3 + 5  # noqa: E731
    m = stats.stream_moments(draw, 10_000, chunk=777, seed=1)
    g = torch.Generator().manual_seed(1)
    xs = torch.cat(
        [torch.randn(min(777, 10_000 - s), generator=g, dtype=torch.float64) * 3 + 5 for s in range(0, 10_000, 777)]
    )
    assert math.isclose(m.mean, float(xs.mean()), rel_tol=1e-12)
    assert math.isclose(m.var, float(xs.var()), rel_tol=1e-10)


def test_variance_test_accepts_truth_and_rejects_a_10_percent_error():
    draw = lambda g, size: torch.randn(size, generator=g, dtype=torch.float64)  # noqa: E731
    n = stats.sample_size(0.1, tests=2)
    m = stats.stream_moments(draw, n, chunk=4096, seed=3)
    crit = stats.z_critical(1e-6, 2)
    assert not stats.variance_test(m, 1.0, crit).rejected
    assert stats.variance_test(m, 1.1, crit).rejected
    assert stats.variance_test(m, 0.9, crit).rejected
