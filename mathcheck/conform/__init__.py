"""``mathcheck conform``: a user's implementation held to the derived formulas of its kind
(docs/conform.md; the kinds in one table, :data:`.spec.KINDS`)."""

# the public modules (`from mathcheck.conform import *` imports them, torch included)
__all__ = [
    "attention",
    "contain",
    "conventions",
    "dtypes",
    "formulas",
    "losses",
    "modules",
    "norms",
    "positions",
    "precision",
    "property",
    "run",
    "shrink",
    "spec",
    "target",
]
