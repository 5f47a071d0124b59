"""Named rules: the transformations a step may cite instead of plain algebra.

The namespace derivations use (``from mathcheck.symbolic import rules; rules.unfold(...)``); each
rule is built by a constructor of one submodule, by topic:

* :mod:`~mathcheck.symbolic.rules.base` — the :class:`Rule` value, its kinds and what the walker
  trusts of each (``TRUSTED_KINDS``, ``CHECKED_KINDS``, ``STATED_KINDS``, :func:`trusted`), who
  vouches for a rule (:func:`vouched`), :class:`SideCondition`, the part's :class:`Env`;
* :mod:`~mathcheck.symbolic.rules.definitions` — definitions, substitutions, witnesses, lemmas;
* :mod:`~mathcheck.symbolic.rules.finite_sums` — laws of finite sums, remainders;
* :mod:`~mathcheck.symbolic.rules.calculus` — derivatives, limits, the zero of a function;
* :mod:`~mathcheck.symbolic.rules.probability` — expectation algebra (``E``, ``Var``, linearity).

A rule is vouched for only when a constructor of this package built it; add a rule as a
constructor in the submodule of its topic, with its side conditions, and name it here.

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> vouched(differentiate(x))
    True
"""

from mathcheck.symbolic.rules.base import (
    CHECKED_KINDS,
    STATED_KINDS,
    TRUSTED_KINDS,
    Env,
    Rule,
    SideCondition,
    follows_from,
    in_range,
    requires,
    trusted,
    vouched,
)
from mathcheck.symbolic.rules.calculus import (
    difference_quotient,
    differentiate,
    limit_laws,
    reciprocal_limit,
    unique_zero,
)
from mathcheck.symbolic.rules.definitions import lemma, substitute, surprisal, unfold, unfold_indexed, witness
from mathcheck.symbolic.rules.finite_sums import (
    causal_mask,
    delta_outside,
    exchange_sums,
    factor_in,
    factor_out,
    join_ranges,
    product_as_exp_sum,
    remainder_as_floor,
    small_remainder,
    split_at,
    split_last,
    square_of_sum,
)
from mathcheck.symbolic.rules.probability import E, Var, linearity, moments, variance_definition, variance_scaling

__all__ = [
    "CHECKED_KINDS",
    "STATED_KINDS",
    "TRUSTED_KINDS",
    "Env",
    "Rule",
    "SideCondition",
    "follows_from",
    "in_range",
    "requires",
    "trusted",
    "vouched",
    "difference_quotient",
    "differentiate",
    "limit_laws",
    "reciprocal_limit",
    "unique_zero",
    "lemma",
    "substitute",
    "surprisal",
    "unfold",
    "unfold_indexed",
    "witness",
    "causal_mask",
    "delta_outside",
    "exchange_sums",
    "factor_in",
    "factor_out",
    "join_ranges",
    "product_as_exp_sum",
    "remainder_as_floor",
    "small_remainder",
    "split_at",
    "split_last",
    "square_of_sum",
    "E",
    "Var",
    "linearity",
    "moments",
    "variance_definition",
    "variance_scaling",
]
