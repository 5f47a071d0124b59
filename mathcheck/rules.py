"""Named rules: the transformations a step may cite instead of plain algebra.

A rule is a value with a name, a kind and a function. The step checker *applies* the rule to the
previous expression and then shows, with its zero test, that the result equals the step's
expression; so a step that cites a rule wrongly is caught like any other false step.

Kinds: ``definition`` (unfold a name into what it stands for), ``axiom`` (a law of probability the
claim assumes, such as linearity of expectation or independence; listed in the claim's assumptions),
``lemma`` (a statement proved by an earlier part of the same claim), ``assumption`` (specialise to
the values the claim assumes).

Expectation algebra. ``E(X)`` and ``Var(X)`` are undefined SymPy functions; random variables are
the entries of the IndexedBases named as random. Example::

    >>> from mathcheck.lazy import sympy as sp
    >>> q, k = sp.IndexedBase("q"), sp.IndexedBase("k")
    >>> i = sp.Symbol("i", integer=True)
    >>> linearity((q, k)).apply(E(q[i] * k[i] + 2))
    E(k[i])*E(q[i]) + 2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from mathcheck.lazy import sympy as sp


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str
    fn: Callable[[Any], Any]
    both_sides: bool = False  # definitions: unfold in the previous step *and* in this one

    def apply(self, expr):
        return self.fn(expr)

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, {self.kind})"


def E(x):
    """The expectation operator, unevaluated."""
    return sp.Function("E")(x)


def Var(x):
    """The variance operator, unevaluated."""
    return sp.Function("Var")(x)


def _is_apply(e, name: str) -> bool:
    return isinstance(e, sp.core.function.AppliedUndef) and e.func.__name__ == name


def _random(e, bases) -> bool:
    return any(isinstance(a, sp.Indexed) and a.base in bases for a in sp.preorder_traversal(e))


def _group(e, groups) -> int | None:
    for n, g in enumerate(groups):
        if _random(e, g):
            return n
    return None


# --- general rules --------------------------------------------------------------------------------

def substitute(mapping: dict, name: str, kind: str = "assumption") -> Rule:
    """Replace symbols by values (``xreplace``: exact, touches bound variables never)."""
    return Rule(name, kind, lambda e: e.xreplace(mapping))


def unfold(name: str, func_name: str, definition: Callable) -> Rule:
    """Replace every application ``func_name(args)`` by ``definition(*args)``."""
    return Rule(name, "definition", lambda e: e.replace(
        lambda x: _is_apply(x, func_name), lambda x: definition(*x.args)), both_sides=True)


def unfold_indexed(name: str, base, definition: Callable) -> Rule:
    """Replace every ``base[x]`` by ``definition(x)``, on both sides of the step (a definition)."""
    return Rule(name, "definition", lambda e: e.replace(
        lambda x: isinstance(x, sp.Indexed) and x.base == base, lambda x: definition(*x.indices)),
        both_sides=True)


def lemma(name: str, lhs, rhs) -> Rule:
    """Use an equation proved by an earlier part: replace ``lhs`` by ``rhs``."""
    return Rule(name, "lemma", lambda e: e.xreplace({lhs: rhs}))


def differentiate(wrt, name: str = "differentiate") -> Rule:
    """Evaluate ``Derivative`` objects (``doit`` on derivatives only)."""
    return Rule(name, "definition", lambda e: e.replace(
        lambda x: isinstance(x, sp.Derivative), lambda x: x.doit(deep=False)))


def square_of_sum(fresh) -> Rule:
    """``(Σ_i f(i))² = Σ_i Σ_j f(i) f(j)`` with ``fresh`` as the name of the second index."""

    def fn(e):
        def expand_square(x):
            s = x.base
            (i, a, b), = s.limits
            return sp.Sum(sp.Sum(s.function * s.function.xreplace({i: fresh}), (fresh, a, b)), (i, a, b))

        return e.replace(lambda x: isinstance(x, sp.Pow) and x.exp == 2 and isinstance(x.base, sp.Sum)
                         and len(x.base.limits) == 1, expand_square)

    return Rule("square of a finite sum", "definition", fn)


# --- probability rules ------------------------------------------------------------------------------

def variance_definition() -> Rule:
    """``Var(X) = E[X²] − E[X]²``."""
    return Rule("definition of variance", "definition", lambda e: e.replace(
        lambda x: _is_apply(x, "Var"), lambda x: E(x.args[0] ** 2) - E(x.args[0]) ** 2))


def variance_scaling(random_bases) -> Rule:
    """``Var(cX) = c² Var(X)`` for a constant ``c``."""
    bases = set(random_bases)

    def scale(x):
        arg = x.args[0]
        const = [f for f in sp.Mul.make_args(arg) if not _random(f, bases)]
        rand = [f for f in sp.Mul.make_args(arg) if _random(f, bases)]
        c = sp.Mul(*const)
        return c ** 2 * Var(sp.Mul(*rand))

    return Rule("Var(cX) = c² Var(X)", "axiom", lambda e: e.replace(lambda x: _is_apply(x, "Var"), scale))


def linearity(*groups) -> Rule:
    """Linearity of expectation over sums, and ``E[XY] = E[X]E[Y]`` for independent groups.

    ``groups`` are tuples of IndexedBases; variables of different groups are independent, variables
    of one group are not assumed independent here (their joint moments come from :func:`moments`).
    """
    groups = [set(g) for g in groups]
    every = set().union(*groups)

    def lin(x):
        x = sp.expand(x)
        if isinstance(x, sp.Add):
            return sp.Add(*[lin(t) for t in x.args])
        if isinstance(x, sp.Sum):
            return sp.Sum(lin(x.function), *x.limits)
        if not _random(x, every):
            return x
        factors = sp.Mul.make_args(x)
        const = sp.Mul(*[f for f in factors if not _random(f, every)])
        sums = [f for f in factors if isinstance(f, sp.Sum)]
        if sums:  # E[c Σ f] with the random part under one sum: move E inside
            if len(sums) == 1 and len(factors) == 1 + (const != 1):
                return const * lin(sums[0])
            return const * E(sp.Mul(*[f for f in factors if _random(f, every)]))
        by_group: dict[int, list] = {}
        for f in factors:
            g = _group(f, groups)
            if g is not None:
                by_group.setdefault(g, []).append(f)
        return const * sp.Mul(*[E(sp.Mul(*fs)) for _, fs in sorted(by_group.items())])

    name = "linearity of expectation; independence of " + " and ".join(
        "{" + ", ".join(sorted(str(b) for b in g)) + "}" for g in groups)
    return Rule(name, "axiom", lambda e: e.replace(lambda x: _is_apply(x, "E"), lambda x: lin(x.args[0])))


def moments(table: dict) -> Rule:
    """The first two moments of i.i.d. components: ``E[x_a] = μ``, ``E[x_a x_b] = μ² + σ² δ_ab``.

    ``table`` maps an IndexedBase to ``(μ, σ)``.
    """

    def moment(x):
        arg = x.args[0]
        powers: list = []
        for f in sp.Mul.make_args(arg):
            base, exp = f.as_base_exp()
            if not (isinstance(base, sp.Indexed) and base.base in table and exp.is_Integer and exp > 0):
                return x
            powers += [base] * int(exp)
        if not powers or len({p.base for p in powers}) != 1 or len(powers) > 2:
            return x
        mu, sigma = table[powers[0].base]
        if len(powers) == 1:
            return mu
        a, b = powers[0].indices[0], powers[1].indices[0]
        return mu ** 2 + sigma ** 2 * sp.KroneckerDelta(a, b)

    names = ", ".join(f"{b}: mean {m}, variance {s**2}" for b, (m, s) in table.items())
    return Rule(f"moments of i.i.d. components ({names})", "axiom",
                lambda e: e.replace(lambda x: _is_apply(x, "E"), moment))
