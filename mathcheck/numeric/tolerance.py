r"""The one tolerance model: derived from the precision actually computed in.

A value computed in a dtype with machine epsilon ε by a reduction of N terms of magnitude ≤ M
carries at most the first-order rounding bound

.. math:: e = (N + 1)\,(ε\,M + \mathrm{tiny})

(``tiny`` the smallest normal: an absolute floor for underflow). Two values a and b of the same
quantity agree when :math:`|a - b| \le S\,(e_a + e_b)`, with the safety factor S = 4 for what a
first-order bound leaves out. Every numeric comparison in mathcheck uses this with the ε of the
dtype each side was computed in — the catalog's three-way agreement (``verify/_compare.py``),
conform (ε of the precision a target was *measured* to compute in) and ``mathcheck model``.

    >>> f"{derived_tolerance(8, 1.0, 2 ** -52, 2 ** -52):.3g}"   # float64 against float64
    '1.6e-14'
    >>> f"{derived_tolerance(8, 1.0, 2 ** -23, 2 ** -52):.3g}"   # float32 code against a float64 reference
    '4.29e-06'

Fixed tolerances are the exceptions, each a named constant below with the reason it is not derived.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

SAFETY = 4.0
TOLERANCE_MODEL = (
    "per entry and pair of sides: 4·(e_a + e_b), e = first-order rounding bounds propagated "
    "through each side (machine epsilon of the dtype, reduction lengths, magnitudes of the "
    "terms that cancel, conditioning of exp/log)"
)

# --- the named exceptions: fixed tolerances, each with its reason ---------------------------------

# 50-digit confirmation (numeric.precise): |lhs − rhs| > HP_REL·max(1, |lhs|, |rhs|) is not round-off.
# At PRECISION_DIGITS = 50 the evaluation's own error is ~1e-48; 1e-30 leaves 18 digits of margin and
# still separates a false identity that float64 cannot see (agreeing to 1e-16).
# The same threshold says when the step checker's sign search (symbolic/decide) reads an imaginary
# part as round-off. It does not say when a value refutes a strict ``e > 0``: only a value below
# −STEP_REL·scale or exactly 0 does (50 digits are relative: exp(−100·x²) at x ≈ 1.6 is 7e-109, which
# an absolute 1e-30 once read as 0, refuting a true ``exp(−100·x²) > 0``).
HP_REL = 1e-30
# The step checker's counterexample search (symbolic/decide.find_counterexample) evaluates at
# PRECISION_DIGITS too, but calls a difference nonzero (a value negative, for ``≥``) only beyond
# STEP_REL·scale, scale the largest term's size. Looser than HP_REL on purpose: a step may carry Float
# constants (a user's 0.1, a claim's 1e-8) whose 15–17 digits bound the 50-digit value's accuracy near
# 1e-16 relative, and 1e-12 leaves four digits of margin; a false step differs at order one (every
# mutant of the catalog is refuted beyond it). A smaller difference is no counterexample: the
# strategies decide, and none proves a false step, so the looser threshold costs a refutation, never
# a false proof.
STEP_REL = 1e-12
# The other side of the same line: two values *hold* equal (a hypothesis at a drawn point, numeric/
# holds.hypothesis_holds; the independent evaluator holds_at) when they agree to 10^-(digits −
# HOLDS_MARGIN_DIGITS) relative — 1e-42 at PRECISION_DIGITS, eight digits above the evaluation's own
# round-off. It must be far tighter than HP_REL: a point counts as satisfying an equation hypothesis
# only when it surely does (a counterexample must lie where the hypotheses hold), as a difference
# counts as real only beyond HP_REL; a difference between the two is neither.
HOLDS_MARGIN_DIGITS = 8
# A probability link's numeric side (numeric.distributions) with a continuous family replaced by its
# 24-node Gauss rule: nodes and weights come from float64 (numpy), so a moment is exact only to
# ~1e-14 relative; 1e-9 leaves five digits of margin and still separates a wrong closed form (a
# missing 1/2, a swapped σ₁/σ₂ differs at order 1).
QUADRATURE_REL = 1e-9
# A definite integral in a user's link (numeric.precise.quadrature, mpmath's tanh-sinh): its value
# counts only when the quadrature's own error estimate is at most INTEGRAL_SHARE of the tolerance the
# value is then compared within — SCREEN_ATOL + SCREEN_RTOL·|v| in the float64 screen, HP_REL·max(1, |v|)
# at PRECISION_DIGITS — so quadrature error never flags, refutes or passes a point. An estimate above
# that is an integral that diverges (∫_1^∞ dx/x: estimate ~1) or that quadrature cannot resolve: no
# value, and the link is never proved (docs/latex.md, "Integrals").
INTEGRAL_SHARE = 0.1
# mpmath's error estimate is not an absolute bound once the levels of tanh-sinh disagree: it reports
# ~0.1–1 for a divergent integral whatever its value (∫_0^∞ e^{0.7x} dx comes back as 7e3033 ± 1.0,
# which 1% of a relative tolerance would allow). An estimate above INTEGRAL_UNRESOLVED is an integral
# quadrature did not settle, at any size (a convergent one's estimate is below 1e-15 at 25 digits).
INTEGRAL_UNRESOLVED = 1e-6
# float64 screening of a user's identity (userexpr.float_side): a point is *flagged* beyond
# SCREEN_ATOL + SCREEN_RTOL·max(|lhs|, |rhs|). Not a verdict: every flagged point is confirmed at
# PRECISION_DIGITS, so these only trade screening work for missed flags (1e-9 relative is ~10^7 ε,
# above the round-off of the cancellations users write; a wrong identity differs by far more).
SCREEN_ATOL, SCREEN_RTOL = 1e-12, 1e-9
# The generic numeric check (verify/generic.py) screens float64 values of both sides at
# |lhs − rhs| ≤ GENERIC_ATOL + GENERIC_RTOL·max(|lhs|, |rhs|): ~1e-13 relative round-off in a 33-term
# sum of exps, with margin; a flagged value is confirmed at PRECISION_DIGITS before it refutes.
GENERIC_ATOL, GENERIC_RTOL = 1e-10, 1e-9
# An equation among the generic check's hypotheses holds where |a − b| ≤ HYPOTHESIS_REL·max(1, |a|, |b|)
# in float64 (a normalisation Σ p = 1 summed in float64 is off by a few ε, never by 1e-12).
HYPOTHESIS_REL = 1e-12
# An implementation compared with a library function (a blockwise loop with SDPA, a cache with causal
# SDPA: §9): the two round differently inside a reduction neither exposes, so atol = rtol =
# LIBRARY_FACTOR·N·ε (N the longest reduction) instead of propagated bounds.
LIBRARY_FACTOR = 16


# The input dtypes conform exercises (conform/dtypes.py), widest first: float64 and the reduced
# precisions real code runs in. Their ε and tiny are torch.finfo's (unit, tiny below); a reduced
# precision is held to a *measured* correct build's error (measured_tolerance), not to the first-order
# bound, which for bfloat16 (ε = 2⁻⁷) over 64 terms exceeds the values compared.
INPUT_DTYPES = ("float64", "float32", "bfloat16", "float16")


def measured_tolerance(correct_error: float, scale: float, eps: float, terms: int = 1) -> float:
    """The tolerance of code computing with machine epsilon ``eps`` against its float64 (widened)
    self, given ``correct_error``, the max |error| a correct build of the same code makes at that
    precision (measured: each op rounded once): S·max(C, (ε + ε_acc·√N)·scale). The floor is one
    rounding of the largest output plus what a fused op's own reduction of N terms adds inside,
    which per-op rounding cannot see (SDPA is one op): CPU kernels accumulate bfloat16/float16 in
    float32, so ε_acc = min(ε, 2⁻²³), growing as √N (the probabilistic bound). An error S = 4 times
    a correct build's fails.

    >>> f"{measured_tolerance(0.01, 2.0, 2 ** -7):.4g}"   # bfloat16, a correct build off by 0.01 at |y| ≤ 2
    '0.0625'
    """
    acc = min(eps, 2.0**-23)
    return SAFETY * max(correct_error, (eps + acc * terms**0.5) * scale)


def unit(dtype) -> float:
    """Machine epsilon ε of a torch ``dtype`` (2^-52 for float64, 2^-23 for float32)."""
    import torch

    return float(torch.finfo(dtype).eps)


def tiny(dtype) -> float:
    """The smallest normal number of a torch ``dtype`` (the absolute floor of a rounding bound)."""
    import torch

    return float(torch.finfo(dtype).tiny)


def rounding_bound(eps: float, terms: int, magnitude, tiny: float = 0.0) -> float | torch.Tensor:
    """The first-order rounding bound of a reduction of ``terms`` terms of magnitude ≤ ``magnitude``
    computed with machine epsilon ``eps``: (terms + 1)·(ε·magnitude + tiny). ``magnitude`` may be a
    tensor (a bound per entry).

    >>> rounding_bound(2 ** -52, 3, 1.0) == 4 * 2 ** -52
    True
    """
    return (terms + 1) * (eps * magnitude + tiny)


def derived_tolerance(terms: int, magnitude: float, eps_a: float, eps_b: float) -> float:
    """The tolerance of a pair of values each computed by a reduction of ``terms`` terms of magnitude
    ≤ ``magnitude``, one with machine epsilon ``eps_a`` and the other with ``eps_b``: S·(e_a + e_b)
    (S = SAFETY = 4), the pair tolerance of the catalog's ``Comparison.agree``."""
    return SAFETY * (rounding_bound(eps_a, terms, magnitude) + rounding_bound(eps_b, terms, magnitude))


def dtype_tolerance(terms: int, magnitude: float, dtype, reference=None) -> float:
    """:func:`derived_tolerance` for torch dtypes, with the underflow floor: a value computed in
    ``dtype`` against one computed in ``reference`` (float64 by default), each by a reduction of
    ``terms`` terms of magnitude ≤ ``magnitude`` — S·((N+1)(ε_d·M + tiny_d) + (N+1)(ε_r·M + tiny_r)).
    conform and ``mathcheck model`` compare an implementation with a derived formula through this.

    >>> import torch
    >>> f"{dtype_tolerance(8, 1.0, torch.float32):.3g}"
    '4.29e-06'
    """
    import torch

    reference = torch.float64 if reference is None else reference
    return SAFETY * (
        rounding_bound(unit(dtype), terms, magnitude, tiny(dtype))
        + rounding_bound(unit(reference), terms, magnitude, tiny(reference))
    )


def library_tolerance(terms: int, dtype) -> float:
    """atol = rtol = LIBRARY_FACTOR·N·ε for an implementation against a library function (see above)."""
    return LIBRARY_FACTOR * terms * unit(dtype)
