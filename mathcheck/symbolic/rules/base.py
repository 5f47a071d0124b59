"""The Rule value, its kinds, what the step checker trusts of each, and who vouches for a rule.

A rule is a value with a name, a kind and a function. The part walker (:mod:`mathcheck.symbolic.steps`)
*applies* the rule to the previous expression and then shows, with its zero test, that the result
equals the step's expression; so a step that cites a rule wrongly is caught like any other false step.

Kinds, and what the walker trusts of each (docs/soundness.md):

* ``definition`` with ``both_sides``: unfold a notation (H, KL, E, s = softmax(z)) on both sides of
  the step; the definition is part of what the statement means and is printed with it.
* ``calculus``: SymPy evaluates a derivative or a limit (``differentiate``, ``limit``).
* ``axiom``: a law the claim lists in its assumptions (linearity of expectation, independence,
  the moments of i.i.d. components); each checks its own side conditions (``linearity`` splits only
  factors whose random variables lie in one group).
* ``lemma``: an equation proved by an earlier part of the same claim; the walker confirms that the
  cited part exists, is proved, that the rule's equation is that part's statement (instantiated),
  and that the cited part's hypotheses are among the current part's.
* ``assumption``: a substitution that must follow from a hypothesis of the part (``substitute``) or a
  fresh witness of one (``witness``).
* ``law``, ``transform`` (any other rule, e.g. exchanging two sums): the walker shows that the rule's
  output equals its input before it uses it, unless this package built it with a side-condition check.

A rule whose side condition fails raises :class:`SideCondition`; the step is then not shown.

    >>> trusted(Rule("H(p) = −Σ p log p", "definition", lambda e: e))  # printed among the hypotheses
    True
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.holds import ranges
from mathcheck.symbolic.sums import canonical_sums


class SideCondition(Exception):
    """A rule's side condition does not hold here; the message says which (the step is not shown)."""


@dataclass(frozen=True)
class Env:
    """What a rule may rely on when it is applied inside a part: the part's hypotheses (its
    ``given``, the Context's index ranges, the definitions), the statements of the parts of the
    claim proved so far (name → (statement, hypotheses)), and every symbol the part mentions."""

    hypotheses: tuple = ()
    proved: tuple = ()  # ((name, statement, hypotheses), ...)
    symbols: frozenset = frozenset()  # the free symbols of the part's statement and hypotheses
    names: tuple = ()  # every part of the claim, proved or not
    claim_wide: tuple = ()  # facts of the whole claim: the Context's index ranges

    def proved_part(self, name) -> tuple[sp.Basic, tuple] | None:
        for n, stmt, hyps in self.proved:
            if n == name:
                return stmt, hyps
        return None


_PACKAGE = __name__.rpartition(".")[0]  # mathcheck.symbolic.rules


def _ours(module: str) -> bool:
    return module == _PACKAGE or module.startswith(_PACKAGE + ".")


_VOUCHED: "weakref.WeakValueDictionary[int, Rule]" = weakref.WeakValueDictionary()


def vouched(rule: Rule) -> bool:
    """Whether ``rule`` was built by a constructor of this package, each of which checks its own side
    conditions (reviewed and mutation-tested). A rule built anywhere else — ``Rule("mine", "law", fn,
    check=lambda e, env: None)`` in a claim module, in the catalog's own derivations, or
    ``dataclasses.replace`` of a rule built here — is not: the checker uses it only once its output
    is shown equal to its input (an axiom or a definition: once it is printed among the part's
    hypotheses).

        >>> from mathcheck.symbolic.rules import differentiate
        >>> vouched(differentiate(None))
        True
        >>> import dataclasses
        >>> vouched(dataclasses.replace(differentiate(None), name="mine"))  # rebuilt elsewhere
        False
    """
    return _VOUCHED.get(id(rule)) is rule


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str
    fn: Callable[[Any], Any]
    both_sides: bool = False  # definitions: unfold in the previous step *and* in this one
    check: Callable[[Any, Env], None] | None = None  # raises SideCondition
    statement: Any = None  # a definition as an equation, printed among the part's hypotheses

    def __post_init__(self):
        # who built this rule: only this package's constructors vouch for its side conditions; a rule
        # built anywhere else (the catalog's derivations included) is not trusted
        if _ours(sys._getframe(2).f_globals.get("__name__", "")):
            _VOUCHED[id(self)] = self

    def apply(self, expr) -> Any:
        return self.fn(expr)

    def applied(self, expr, env: Env) -> Any:
        """Check the side conditions in ``env`` (raising :class:`SideCondition`), then apply."""
        if self.check is not None:
            self.check(expr, env)
        return self.fn(expr)

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, {self.kind})"


# --- the trust classes: what the walker takes on a rule's word, by kind ------------------------------

#: Part of what a statement assumes: printed among its hypotheses (definitions of notation, axioms).
STATED_KINDS = ("definition", "axiom")
#: Definitions; laws the claim lists in its assumptions; SymPy's own calculus and identities.
TRUSTED_KINDS = ("definition", "axiom", "calculus", "sympy")
#: Must carry a side-condition check (``lemma``, ``substitute``, ``witness``): used once it passes.
CHECKED_KINDS = ("lemma", "assumption")


def trusted(rule: Rule) -> bool:
    """Whether the walker may use ``rule``'s output without showing it equal to its input: a rule
    built by a constructor of this package (trusted kind, or its side condition checked), or a
    definition or an axiom, which the part then prints among its hypotheses."""
    if rule.kind in STATED_KINDS:
        return True
    return vouched(rule) and (rule.kind in TRUSTED_KINDS or rule.check is not None)


def _is_apply(e, name: str) -> bool:
    return isinstance(e, sp.core.function.AppliedUndef) and e.func.__name__ == name


def follows_from(lhs: sp.Expr, rhs: sp.Expr, hypotheses: Iterable[sp.Basic]) -> bool:
    """Whether ``lhs = rhs`` is one of ``hypotheses`` (either way round, bound variables renamed)."""
    want = {(canonical_sums(lhs), canonical_sums(rhs)), (canonical_sums(rhs), canonical_sums(lhs))}
    for h in hypotheses:
        if isinstance(h, sp.Equality) and (canonical_sums(h.lhs), canonical_sums(h.rhs)) in want:
            return True
    return False


def requires(*hyps: sp.Basic) -> Callable:
    """A side-condition check: each of ``hyps`` is a hypothesis of the part."""

    def check(e, env: Env):
        mine = {canonical_sums(h) for h in env.hypotheses}
        for h in hyps:
            if canonical_sums(h) not in mine:
                raise SideCondition(f"{sp.sstr(h)} is not a hypothesis of the part")

    return check


def in_range(var: sp.Symbol) -> Callable:
    """A side-condition check: the part's hypotheses bound ``var`` on both sides."""

    def check(e, env: Env):
        if var not in ranges(env.hypotheses):
            raise SideCondition(f"nothing says where {var} lies: the rule needs its range among the hypotheses")

    return check
