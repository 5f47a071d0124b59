"""The relations a statement, a step or a link asserts: one table, every spelling of each.

A claim's step, a derivation file's link, a LaTeX display and every renderer name a relation; each
reads and prints it through :data:`TABLE`, so a spelling added here is read and printed everywhere.
SymPy is not imported here (``sympy_class`` is a name; :func:`build` imports it when asked).

    >>> of("≥").op, of(">=").tex, of("==").text
    ('>=', '\\\\geq', '=')
    >>> of(">").holds(2.0, 1.0), of("<=").direction, of("=").strict
    (True, -1, False)
    >>> of("≠").op in STEP
    False
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # annotations only: SymPy is imported where a relational is built
    from mathcheck.lazy import sympy as sp


@dataclass(frozen=True)
class Relation:
    """One relation: ``op`` its name in code and the text grammar; ``rel_op`` SymPy's; ``text`` and
    ``tex`` how it prints; ``spellings`` what else reads as it (text grammar, Unicode, LaTeX words
    without the backslash); ``direction`` +1 for ≥ >, −1 for ≤ <, 0 otherwise; ``holds`` the exact
    comparison of two numbers (None for ≈: a bound decides it, not the relation)."""

    op: str
    rel_op: str | None
    sympy_class: str | None
    text: str
    tex: str
    strict: bool = False
    direction: int = 0
    holds: Callable | None = None
    spellings: tuple[str, ...] = field(default=())

    def within(self, d: Any, tol: Any) -> Any:  # a bool, SymPy Boolean or bool tensor, as d is
        """Whether ``lhs − rhs = d`` satisfies the relation up to ``tol`` ≥ 0, the rounding a
        comparison allows: a difference inside it never refutes (so ``>`` reads as ``≥`` there, and a
        strict relation is refuted only by a violation beyond ``tol``); ``≠`` needs more than ``tol``.
        Floats, SymPy Floats and tensors (elementwise) alike.

            >>> of(">").within(-1e-13, 1e-12), of("<=").within(2e-12, 1e-12), of("!=").within(0.0, 1e-12)
            (True, False, False)
        """
        if self.op == "=":
            return abs(d) <= tol
        if self.op == "!=":
            return abs(d) > tol
        if not self.direction:
            raise ValueError(f"{self.text} is decided by its bound, not by a tolerance")
        x = d * self.direction  # ≥, >: d itself; ≤, <: −d
        return x > -tol if self.strict else x >= -tol


TABLE: tuple[Relation, ...] = (
    Relation("=", "==", "Eq", "=", "=", holds=operator.eq, spellings=("==",)),
    Relation(">=", ">=", "Ge", "≥", r"\geq", direction=1, holds=operator.ge, spellings=("≥", "ge", "geq", "geqslant")),
    Relation(">", ">", "Gt", ">", ">", strict=True, direction=1, holds=operator.gt, spellings=("gt",)),
    Relation("<=", "<=", "Le", "≤", r"\leq", direction=-1, holds=operator.le, spellings=("≤", "le", "leq", "leqslant")),
    Relation("<", "<", "Lt", "<", "<", strict=True, direction=-1, holds=operator.lt, spellings=("lt",)),
    # a measured bound (derive's ≈ links), never proved; and ≠, which hypotheses and printing use
    Relation("≈", None, None, "≈", r"\approx", spellings=("~=", "approx")),
    Relation("!=", "!=", "Ne", "≠", r"\neq", holds=operator.ne, spellings=("≠", "ne", "neq")),
)

STEP: tuple[str, ...] = ("=", ">=", ">", "<=", "<")  # what a step, a claim's statement or `check` asserts
INEQUALITIES: tuple[str, ...] = tuple(op for op in STEP if op != "=")
APPROX = "≈"

_BY_SPELLING = {s: r for r in TABLE for s in (r.op, r.rel_op, *r.spellings) if s}


def of(spelling: str) -> Relation:
    """The relation spelled ``spelling`` (``">="``, ``"≥"``, ``"=="``, SymPy's ``rel_op``, a LaTeX
    word such as ``"leq"``); ValueError naming the spellings otherwise."""
    try:
        return _BY_SPELLING[spelling]
    except (KeyError, TypeError):
        raise ValueError(f"relation {spelling!r} is not one of {' '.join(r.op for r in TABLE)}") from None


def build(lhs, rhs, op: str) -> sp.Rel:
    """``lhs OP rhs`` as an unevaluated SymPy relational (Eq, Ge, Gt, Le, Lt, Ne)."""
    from mathcheck.lazy import sympy as sp

    r = of(op)
    if r.sympy_class is None:
        raise ValueError(f"relation {op!r} has no SymPy relational")
    return getattr(sp, r.sympy_class)(lhs, rhs, evaluate=False)


__all__ = ["APPROX", "INEQUALITIES", "STEP", "TABLE", "Relation", "build", "of"]
