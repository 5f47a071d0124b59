"""The claims of the seed, one module per branch of its map (§2 linear algebra, §3 probability,
§4 calculus, §5 information theory, §6 combinatorics, §7 shapes).

Each module registers builders with :func:`mathcheck.registry.claim`. Modules here import SymPy
lazily (``from mathcheck.lazy import sympy as sp``) and never import torch: the numeric check of a
claim is named by a string and lives in :mod:`mathcheck.verify`.
"""

# the branches (importing one registers its claims)
__all__ = [
    "attention_variants",
    "calculus",
    "combinatorics",
    "information",
    "linear_algebra",
    "losses",
    "normalisation",
    "probability",
    "shapes",
]
