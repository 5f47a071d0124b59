"""The numeric layer: each claim's statements checked against PyTorch in float64, seeded.

A check is a function ``check(statements, options) -> NumericVerdict`` where ``statements`` maps a
part name to its SymPy equation, as derived, or as a mutant states it. The check evaluates the
side that *is* the mathematics with PyTorch's own functions and autograd, the derived side with
:mod:`mathcheck.numeric.evaluate`, and compares. Checks are named by ``"module:function"`` strings
in the claims, so importing a derivation never imports torch.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mathcheck.lazy import sympy as sp


@dataclass(frozen=True)
class Options:
    """How to run numeric checks. Same options, same seed: same verdict."""

    seed: int = 0
    device: str = "cpu"
    dtype: str = "float64"


def resolve(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def symbol(expr, name: str) -> sp.Basic:
    """The symbol of ``expr`` called ``name``, bound ones included (checks find a statement's
    symbols by name: :func:`mathcheck.numeric.symbols.by_name`)."""
    from mathcheck.numeric.symbols import by_name

    try:
        return by_name(expr)[name]
    except KeyError:
        raise KeyError(f"no symbol {name!r} in {expr}") from None


# the values every check takes, then the checks by branch
__all__ = [
    "Options",
    "resolve",
    "symbol",
    "attention_variants",
    "calculus",
    "combinatorics",
    "generic",
    "information",
    "linear_algebra",
    "losses",
    "normalisation",
    "probability",
    "shapes",
]
