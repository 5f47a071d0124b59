"""The user pipeline's points: the numeric kernel's sampler, with the step checker's constructive
draw for the equations random points miss (``given: Σ y_j = 1``).

:func:`mathcheck.numeric.sampling.sample_points` sits below both kernels and takes the draw as an
argument; this is where the two meet, one layer above them.

    >>> from mathcheck.parser import parse_many
    >>> from mathcheck.claim import relation
    >>> e, s, one = parse_many(["y[k]*c", "Sum(y[j], (j, 1, n))", "1"], {"y": ("positive",)})
    >>> len(draw_points((e,), 0, 4, (relation(s, one, "="),)))
    4
"""

from __future__ import annotations

from mathcheck.numeric.sampling import sample_points


def constructive(exprs, given, rng):
    """One point meeting ``given``'s equations, by :func:`mathcheck.symbolic.hypotheses.draw`."""
    from mathcheck.claim import Context
    from mathcheck.symbolic.hypotheses import draw

    return draw(exprs, given, Context(), rng)


def draw_points(exprs, seed: int, count: int, given=()) -> list[dict]:
    """``count`` seeded points honouring ``given`` (see :func:`mathcheck.numeric.sampling.sample_points`)."""
    return sample_points(exprs, seed, count, given, construct=constructive)
