"""The values a claim is made of: Source, Step, Part, Mutant, Claim.

A claim is data, not a procedure. Its mathematics is a tuple of *parts*; each part is a chain of
steps ``e0 = e1 = ... = en`` whose every link the step checker must show, so the part states
``Eq(e0, en)``. Mutants replace a part's statement with a mistake people really make; the same
symbolic and numeric machinery must refute every one of them.

Nothing here imports SymPy at module level (``mathcheck list`` reads claim metadata without it);
the fields hold SymPy objects once a claim is built.

Example (a two-step chain)::

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> part = Part("log-product", (Step(sp.log(2 * x), "start"),
    ...                             Step(sp.log(2) + sp.log(x), "log of a product")))
    >>> part.statement
    Eq(log(2*x), log(x) + log(2))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from mathcheck.lazy import sympy as sp
from mathcheck.relations import STEP, build, of

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

#: The verdicts on the seed's wording, mildest first: a claim's ``seed_verdict`` and every entry of
#: the sentence audit (:mod:`mathcheck.audit`) use these words and no others.
SEED_VERDICTS = ("exact", "holds-with-conditions", "imprecise", "wrong", "not-mathematics")


@dataclass(frozen=True)
class Source:
    """Where a claim comes from: the seed's section, its sentence in Chinese, an English gloss.

    ``paper`` cites the paper a claim beyond the article (§9) checks; "" for the seed's own claims."""

    section: str
    zh: str
    en: str
    paper: str = ""


@dataclass(frozen=True)
class Step:
    """One link of a chain: an expression and why it equals the previous one.

    ``rule`` names a transformation (see :mod:`mathcheck.symbolic.rules`); when given, the checker applies
    it to the previous expression and shows the result equals ``expr``. Without a rule the step
    must follow by algebra alone.

    ``relation`` is how the previous expression relates to this one: ``"="`` (the default),
    ``">="``, ``">"``, ``"<="`` or ``"<"``; e.g. ``Step(0, "...", relation=">=")`` after
    ``KL(p‖q)`` states ``KL(p‖q) ≥ 0``. The checker shows ``prev − expr ≥ 0`` for ``">="``.
    """

    expr: Any
    reason: str
    rule: Any = None
    relation: str = "="

    def __post_init__(self):
        if self.relation not in RELATIONS:
            raise ValueError(f"relation {self.relation!r} not in {RELATIONS}")

    def __repr__(self) -> str:
        how = f", rule={self.rule!r}" if self.rule is not None else ""
        rel = f", relation={self.relation!r}" if self.relation != "=" else ""
        return f"Step({sp.sstr(self.expr)}, {self.reason!r}{how}{rel})"


RELATIONS = STEP  # mathcheck.relations: the one table of relations


def compose_relations(relations) -> str:
    """The relation of a chain: ``=`` and ``>=`` compose to ``>=``; ``>`` wins over ``>=``;
    a chain may not mix the two directions."""
    rels = {of(r) for r in relations} - {of("=")}
    if not rels:
        return "="
    if {r.direction for r in rels} in ({1}, {-1}):
        strict = [r for r in rels if r.strict]
        return (strict or list(rels))[0].op
    raise ValueError(f"a chain mixes ≥ and ≤: {sorted(r.op for r in rels)}")


@dataclass(frozen=True)
class Part:
    """A named chain of steps proving ``given ⇒ steps[0].expr REL steps[-1].expr``.

    ``given`` are the part's hypotheses (SymPy relationals and predicates such as
    ``Eq(Sum(p[i], (i, 1, n)), 1)``, ``z[i] > z[j]``, ``(1 <= j) & (j <= n)``): they are part of
    the statement, printed with it, and the only facts beyond the symbols' declared assumptions
    that the checker and the counterexample search may use.
    ``general`` is what the author expects the checker to compute (True: a symbolic size kept
    through every step; False: a concrete size; None, the default: no expectation); a mismatch
    makes the claim an ``error``. ``free_of`` names symbols the final expression must not contain
    (e.g. "depends on k only" is ``free_of=(pos,)``).
    """

    name: str
    steps: tuple[Step, ...]
    general: bool | None = None
    free_of: tuple = ()
    given: tuple = ()

    def __post_init__(self):
        if len(self.steps) < 1:
            raise ValueError(f"part {self.name!r} has no steps")
        compose_relations(s.relation for s in self.steps[1:])

    @property
    def relation(self) -> str:
        return compose_relations(s.relation for s in self.steps[1:])

    @property
    def lhs(self) -> sp.Basic:
        return self.steps[0].expr

    @property
    def rhs(self) -> sp.Basic:
        return self.steps[-1].expr

    @property
    def statement(self) -> sp.Rel:
        return relation(self.lhs, self.rhs, self.relation)

    def __repr__(self) -> str:
        return f"Part({self.name!r}: {sp.sstr(self.lhs)} {self.relation} {sp.sstr(self.rhs)}, {len(self.steps)} steps)"


def relation(lhs, rhs, rel: str = "=") -> sp.Rel:
    """``lhs REL rhs`` as an unevaluated SymPy relational (Eq, Ge, Gt, Le, Lt)."""
    return build(lhs, rhs, rel)


def relation_of(statement) -> str:
    """The relation symbol of a SymPy relational."""
    return of(statement.rel_op).op


@dataclass(frozen=True)
class Mutant:
    """A mistake people make, as a replacement statement for one or more parts.

    ``replace`` maps a part name to the wrong equation ``Eq(lhs, rhs)``.
    """

    name: str
    mistake: str
    replace: tuple[tuple[str, Any], ...]

    def __repr__(self) -> str:
        return f"Mutant({self.name!r}: {self.mistake})"


@dataclass(frozen=True)
class Context:
    """What the checker may assume about the claim's symbols beyond their SymPy assumptions.

    ``indices`` gives each free index symbol its range, e.g. ``((i, 1, n), (j, 1, n))``;
    ``sample`` overrides how the counterexample search draws a symbol, e.g. ``((p, (0.1, 1)),)``;
    ``definitions`` are unfolded before every zero test (so ``KL(p, q)`` can be compared with a sum).
    """

    indices: tuple = ()
    sample: tuple = ()
    definitions: tuple = ()  # rules.Rule values unfolded before every zero test
    given: tuple = ()  # the hypotheses of the part being checked (set by the checker, per part)


@dataclass(frozen=True)
class Claim:
    """A statement of the seed, its derivation, its mutants and the numeric check that tests it."""

    id: str
    title: str
    source: Source
    assumptions: tuple[str, ...]
    parts: tuple[Part, ...]
    mutants: tuple[Mutant, ...]
    check: str  # "module:function" in mathcheck.verify (torch stays out of derivations/)
    context: Context = field(default_factory=Context)
    seed_verdict: tuple[str, str] = ("exact", "")

    def __post_init__(self):
        if not _ID.match(self.id):
            raise ValueError(f"claim id {self.id!r} is not kebab-case")
        names = [p.name for p in self.parts]
        if len(set(names)) != len(names):
            raise ValueError(f"claim {self.id}: part names repeat: {names}")
        if self.seed_verdict[0] not in SEED_VERDICTS:
            raise ValueError(
                f"claim {self.id}: seed verdict {self.seed_verdict[0]!r} is not one of {', '.join(SEED_VERDICTS)}"
            )
        if len(self.mutants) < 2:
            raise ValueError(f"claim {self.id}: needs at least two mutants, has {len(self.mutants)}")
        for m in self.mutants:
            for name, _ in m.replace:
                if name not in names:
                    raise ValueError(f"claim {self.id}: mutant {m.name!r} replaces unknown part {name!r}")

    def part(self, name: str) -> Part:
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(name)

    def statements(self) -> dict[str, Any]:
        """The statement of every part, by name: what the numeric check tests."""
        return {p.name: p.statement for p in self.parts}

    def mutated(self, mutant: Mutant) -> dict[str, Any]:
        out = self.statements()
        out.update(dict(mutant.replace))
        return out

    def __repr__(self) -> str:
        return f"Claim({self.id!r}, {self.source.section}, {len(self.parts)} parts, {len(self.mutants)} mutants)"


@dataclass(frozen=True)
class Body:
    """What a derivation module's builder returns; the registry adds the metadata to make a Claim."""

    assumptions: tuple[str, ...]
    parts: tuple[Part, ...]
    mutants: tuple[Mutant, ...]
    context: Context = field(default_factory=Context)
    seed_verdict: tuple[str, str] = ("exact", "")


Builder = Callable[[], Body]
