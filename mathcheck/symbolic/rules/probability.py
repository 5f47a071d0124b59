"""Expectation algebra: the axioms of probability a claim lists in its assumptions.

``E(X)`` and ``Var(X)`` are undefined SymPy functions; random variables are the entries of the
IndexedBases named as random. Example::

    >>> from mathcheck.lazy import sympy as sp
    >>> q, k = sp.IndexedBase("q"), sp.IndexedBase("k")
    >>> i = sp.Symbol("i", integer=True)
    >>> linearity((q,), (k,)).apply(E(q[i] * k[i] + 2))
    E(k[i])*E(q[i]) + 2
"""

from __future__ import annotations

from typing import Iterable

from mathcheck.lazy import sympy as sp
from mathcheck.symbolic.rules.base import Rule, SideCondition, _is_apply


def E(x: sp.Expr) -> sp.Expr:
    """The expectation operator, unevaluated."""
    return sp.Function("E")(x)


def Var(x: sp.Expr) -> sp.Expr:
    """The variance operator, unevaluated."""
    return sp.Function("Var")(x)


def _random(e, bases) -> bool:
    return any(isinstance(a, sp.Indexed) and a.base in bases for a in sp.preorder_traversal(e))


def variance_definition() -> Rule:
    """``Var(X) = E[X²] − E[X]²``."""
    return Rule(
        "definition of variance",
        "definition",
        lambda e: e.replace(lambda x: _is_apply(x, "Var"), lambda x: E(x.args[0] ** 2) - E(x.args[0]) ** 2),
    )


def variance_scaling(random_bases: Iterable[sp.IndexedBase]) -> Rule:
    """``Var(cX) = c² Var(X)`` for a constant ``c``."""
    bases = set(random_bases)

    def scale(x):
        arg = x.args[0]
        const = [f for f in sp.Mul.make_args(arg) if not _random(f, bases)]
        rand = [f for f in sp.Mul.make_args(arg) if _random(f, bases)]
        c = sp.Mul(*const)
        return c**2 * Var(sp.Mul(*rand))

    return Rule("Var(cX) = c² Var(X)", "axiom", lambda e: e.replace(lambda x: _is_apply(x, "Var"), scale))


def linearity(*groups: Iterable[sp.IndexedBase]) -> Rule:
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
            touched = [n for n, g in enumerate(groups) if _random(f, g)]
            if len(touched) > 1:  # a factor mixing independent groups cannot be split off
                raise SideCondition(
                    f"{sp.sstr(f)} depends on more than one independent group; "
                    f"E[XY] = E[X]E[Y] needs each factor in one group"
                )
            if touched:
                by_group.setdefault(touched[0], []).append(f)
        return const * sp.Mul(*[E(sp.Mul(*fs)) for _, fs in sorted(by_group.items())])

    name = "linearity of expectation; independence of " + " and ".join(
        "{" + ", ".join(sorted(str(b) for b in g)) + "}" for g in groups
    )
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
        return mu**2 + sigma**2 * sp.KroneckerDelta(a, b)

    names = ", ".join(f"{b}: mean {m}, variance {s**2}" for b, (m, s) in table.items())
    return Rule(
        f"moments of i.i.d. components ({names})", "axiom", lambda e: e.replace(lambda x: _is_apply(x, "E"), moment)
    )
