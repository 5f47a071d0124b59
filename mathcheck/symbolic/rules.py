"""Named rules: the transformations a step may cite instead of plain algebra.

A rule is a value with a name, a kind and a function. The step checker *applies* the rule to the
previous expression and then shows, with its zero test, that the result equals the step's
expression; so a step that cites a rule wrongly is caught like any other false step.

Kinds, and what the checker trusts of each (docs/soundness.md):

* ``definition`` with ``both_sides``: unfold a notation (H, KL, E, s = softmax(z)) on both sides of
  the step; the definition is part of what the statement means and is printed with it.
* ``calculus``: SymPy evaluates a derivative or a limit (``differentiate``, ``limit``).
* ``axiom``: a law the claim lists in its assumptions (linearity of expectation, independence,
  the moments of i.i.d. components); each checks its own side conditions (``linearity`` splits only
  factors whose random variables lie in one group).
* ``lemma``: an equation proved by an earlier part of the same claim; the checker confirms that the
  cited part exists, is proved, that the rule's equation is that part's statement (instantiated),
  and that the cited part's hypotheses are among the current part's.
* ``assumption``: a substitution that must follow from a hypothesis of the part (``substitute``) or a
  fresh witness of one (``witness``).
* ``transform`` (any other rule, e.g. exchanging two sums): the checker shows that the rule's output
  equals its input before it uses it, and the rule may check side conditions of its own.

A rule whose side condition fails raises :class:`SideCondition`; the step is then not shown.

Expectation algebra. ``E(X)`` and ``Var(X)`` are undefined SymPy functions; random variables are
the entries of the IndexedBases named as random. Example::

    >>> from mathcheck.lazy import sympy as sp
    >>> q, k = sp.IndexedBase("q"), sp.IndexedBase("k")
    >>> i = sp.Symbol("i", integer=True)
    >>> linearity((q,), (k,)).apply(E(q[i] * k[i] + 2))
    E(k[i])*E(q[i]) + 2
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass
from typing import Any, Callable

from mathcheck.lazy import sympy as sp


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

    def proved_part(self, name):
        for n, stmt, hyps in self.proved:
            if n == name:
                return stmt, hyps
        return None


_VOUCHED: "weakref.WeakValueDictionary[int, Rule]" = weakref.WeakValueDictionary()


def vouched(rule) -> bool:
    """Whether ``rule`` was built by a constructor of this module, each of which checks its own side
    conditions (reviewed and mutation-tested). A rule built anywhere else — ``Rule("mine", "law", fn,
    check=lambda e, env: None)`` in a claim module, in the catalog's own derivations, or
    ``dataclasses.replace`` of a rule built here — is not: the checker uses it only once its output
    is shown equal to its input (an axiom or a definition: once it is printed among the part's
    hypotheses).

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
        # who built this rule: only this module's constructors vouch for its side conditions; a rule
        # built anywhere else (the catalog's derivations included) is not trusted
        if sys._getframe(2).f_globals.get("__name__", "") == __name__:
            _VOUCHED[id(self)] = self

    def apply(self, expr):
        return self.fn(expr)

    def applied(self, expr, env: Env):
        """Check the side conditions in ``env`` (raising :class:`SideCondition`), then apply."""
        if self.check is not None:
            self.check(expr, env)
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

def canonical(e):
    """``e`` with bound summation variables renamed by depth, so that ``Σ_i p_i`` and ``Σ_k p_k``
    compare equal (the form hypotheses and lemmas are matched in)."""
    from mathcheck.symbolic.checker import canonical_sums

    return canonical_sums(e)


def follows_from(lhs, rhs, hypotheses) -> bool:
    """Whether ``lhs = rhs`` is one of ``hypotheses`` (either way round, bound variables renamed)."""
    want = {(canonical(lhs), canonical(rhs)), (canonical(rhs), canonical(lhs))}
    for h in hypotheses:
        if isinstance(h, sp.Equality) and (canonical(h.lhs), canonical(h.rhs)) in want:
            return True
    return False


def substitute(mapping: dict, name: str, kind: str = "assumption", both_sides: bool = False) -> Rule:
    """Replace expressions by values (``xreplace``: exact, touches bound variables never).

    Side condition: each ``x ↦ v`` is a hypothesis ``Eq(x, v)`` of the part (its ``given``)."""
    mapping = dict(mapping)

    def check(e, env: Env):
        for k, v in mapping.items():
            if not follows_from(k, v, env.hypotheses):
                raise SideCondition(f"substitution {sp.sstr(k)} = {sp.sstr(v)} does not follow from a "
                                    f"hypothesis of the part (add Eq({sp.sstr(k)}, {sp.sstr(v)}) to its given)")

    return Rule(name, kind, lambda e: e.xreplace(mapping), both_sides=both_sides, check=check)


def requires(*hyps) -> Callable:
    """A side-condition check: each of ``hyps`` is a hypothesis of the part."""

    def check(e, env: Env):
        mine = {canonical(h) for h in env.hypotheses}
        for h in hyps:
            if canonical(h) not in mine:
                raise SideCondition(f"{sp.sstr(h)} is not a hypothesis of the part")

    return check


def in_range(var) -> Callable:
    """A side-condition check: the part's hypotheses bound ``var`` on both sides."""

    def check(e, env: Env):
        from mathcheck.numeric.sampling import ranges

        if var not in ranges(env.hypotheses):
            raise SideCondition(f"nothing says where {var} lies: the rule needs its range among the hypotheses")

    return check


def witness(hypothesis, var, name: str | None = None) -> Rule:
    """From a hypothesis ``a > b`` (``a ≥ b``) write ``a = b + w`` with ``w`` positive (nonnegative)
    in fresh symbols (``v`` or ``log(1 + v)`` with ``v > 0``): whatever is then shown for every
    such ``w`` holds for the one equal to ``a − b`` (which exists when ``w`` covers (0, ∞)).

    Side conditions: the hypothesis is the part's; ``w`` is positive (nonnegative) by its symbols'
    assumptions; its symbols occur nowhere in the part's statement or hypotheses."""
    a, b = hypothesis.lhs, hypothesis.rhs
    if isinstance(hypothesis, (sp.LessThan, sp.StrictLessThan)):
        a, b = b, a
    strict = isinstance(hypothesis, (sp.StrictGreaterThan, sp.StrictLessThan))

    def check(e, env: Env):
        if not any(canonical(h) == canonical(hypothesis) for h in env.hypotheses):
            raise SideCondition(f"{sp.sstr(hypothesis)} is not a hypothesis of the part")
        if not (var.is_positive if strict else var.is_nonnegative):
            raise SideCondition(f"{var} must be {'positive' if strict else 'nonnegative'} by its assumptions")
        if var.free_symbols & env.symbols:
            raise SideCondition(f"{var} is not fresh: the part's statement or hypotheses use its symbols")

    return Rule(name or f"{sp.sstr(hypothesis)}: write {sp.sstr(a)} = {sp.sstr(b)} + {var}", "assumption",
                lambda e: e.xreplace({a: b + var}), check=check)


def unfold(name: str, func_name: str, definition: Callable) -> Rule:
    """Replace every application ``func_name(args)`` by ``definition(*args)``."""
    return Rule(name, "definition", lambda e: e.replace(
        lambda x: _is_apply(x, func_name), lambda x: definition(*x.args)), both_sides=True)


def unfold_indexed(name: str, base, definition: Callable) -> Rule:
    """Replace every ``base[x]`` by ``definition(x)``, on both sides of the step (a definition).

    The definition is a hypothesis of every part that uses it, printed as ``base[x] = definition(x)``."""
    import inspect

    arity = len(inspect.signature(definition).parameters)
    xs = sp.symbols(f"x1:{arity + 1}", integer=True) if arity > 1 else (sp.Symbol("x", integer=True),)
    try:
        statement = sp.Eq(base[xs], definition(*xs), evaluate=False)
    except (TypeError, ValueError):  # a definition taking *args: printed by name only
        statement = None
    return Rule(name, "definition", lambda e: e.replace(
        lambda x: isinstance(x, sp.Indexed) and x.base == base, lambda x: definition(*x.indices)),
        both_sides=True, statement=statement)


def _instance(pattern_lhs, pattern_rhs, lhs, rhs, fixed) -> dict | None:
    """The substitution of free symbols (those not in ``fixed``) that makes ``pattern_lhs =
    pattern_rhs`` into ``lhs = rhs`` ({} when they are the same), or None: SymPy's structural
    ``match`` with every such symbol a Wild."""
    pl, pr = canonical(pattern_lhs), canonical(pattern_rhs)
    l, r = canonical(lhs), canonical(rhs)
    if (pl, pr) == (l, r):
        return {}
    free = sorted((pl.free_symbols | pr.free_symbols) - set(fixed), key=str)
    wilds = {s: sp.Wild(f"w_{n}") for n, s in enumerate(free)}
    pair = sp.Tuple(pl, pr).xreplace(wilds)
    m = pair.matches(sp.Tuple(l, r)) if wilds else None
    if not m:
        return None
    back = {s: m.get(w, s) for s, w in wilds.items()}
    for s, v in back.items():  # a lemma proved for positive σ says nothing at σ = −1
        for fact, holds in s.assumptions0.items():
            if holds and getattr(v, f"is_{fact}", None) is not True:
                return None
    return back if sp.Tuple(pl, pr).xreplace(back) == sp.Tuple(l, r) else None


def _rearranged(a, b) -> bool:
    """``a = 0`` and ``b = 0`` are the same equation up to sign (``KL = log n − H`` read as
    ``H = log n − KL``): ``a ∓ b`` expands to zero."""
    a, b = canonical(a), canonical(b)
    return sp.expand(a - b) == 0 or sp.expand(a + b) == 0


def lemma(name: str, lhs, rhs, part: str | None = None) -> Rule:
    """Use an equation proved by an earlier part: replace ``lhs`` by ``rhs``.

    ``part`` names the cited part (read from ``name`` when it has the form "part 'x'"). Side
    conditions, checked in the claim: the part exists and is proved, ``lhs = rhs`` is its statement
    (up to renaming bound variables and instantiating its free symbols other than the sizes), and
    its hypotheses, so instantiated, are hypotheses of the current part."""
    import re

    cited = part
    if cited is None:
        found = re.findall(r"part '([^']+)'", name)
        cited = found[0] if len(found) == 1 else None

    def check(e, env: Env):
        if cited is None:
            raise SideCondition(f"lemma {name!r} names no part of this claim")
        got = env.proved_part(cited)
        if got is None:
            why = "is not proved" if cited in env.names else "is not a part of this claim"
            raise SideCondition(f"the cited part {cited!r} {why} (before this step)")
        stmt, hyps = got
        if not isinstance(stmt, sp.Equality):
            raise SideCondition(f"part {cited!r} is not an equation; it cannot replace {sp.sstr(lhs)}")
        at = _instance(stmt.lhs, stmt.rhs, lhs, rhs, ())
        if at is None:
            at = _instance(stmt.rhs, stmt.lhs, lhs, rhs, ())
        if at is None and _rearranged(stmt.lhs - stmt.rhs, lhs - rhs):
            at = {}
        if at is None:
            raise SideCondition(f"{sp.sstr(lhs)} = {sp.sstr(rhs)} is not an instance of part {cited!r}: "
                                f"{sp.sstr(stmt)}")
        # the cited hypotheses, instantiated the same way; the axioms and definitions it relies on
        # (printed as text) are the claim's, like its notation
        hyps = tuple(h.xreplace(at) for h in hyps if isinstance(h, sp.Basic))
        from mathcheck.numeric.sampling import is_definition

        mine = {canonical(h) for h in env.hypotheses + env.claim_wide}
        # definitions of notation are the claim's (every part reads a symbol the same way)
        missing = [h for h in hyps if canonical(h) not in mine and not is_definition(h)]
        if missing:
            raise SideCondition(f"part {cited!r} assumes {', '.join(sp.sstr(h) for h in missing)}, "
                                f"which this part does not")

    return Rule(name, "lemma", lambda e: e.xreplace({lhs: rhs}), check=check)


def differentiate(wrt, name: str = "differentiate") -> Rule:
    """Evaluate ``Derivative`` objects (``doit`` on derivatives only)."""
    return Rule(name, "calculus", lambda e: e.replace(
        lambda x: isinstance(x, sp.Derivative), lambda x: x.doit(deep=False)))


def _bound_symbols(e) -> set:
    out = set()
    for s in e.atoms(sp.Sum, sp.Product):
        out |= {lim[0] for lim in s.limits}
    return out


def square_of_sum(fresh) -> Rule:
    """``(Σ_i f(i))² = Σ_i Σ_j f(i) f(j)`` with ``fresh`` as the name of the second index.

    Side condition: ``fresh`` is free nowhere in the expression and bound in none of its sums."""

    def check(e, env: Env):
        if fresh in e.free_symbols or fresh in _bound_symbols(e) or fresh in env.symbols - _bound_symbols(e):
            raise SideCondition(f"the new index {fresh} clashes with a symbol the expression already uses")

    def fn(e):
        def expand_square(x):
            s = x.base
            (i, a, b), = s.limits
            return sp.Sum(sp.Sum(s.function * s.function.xreplace({i: fresh}), (fresh, a, b)), (i, a, b))

        return e.replace(lambda x: isinstance(x, sp.Pow) and x.exp == 2 and isinstance(x.base, sp.Sum)
                         and len(x.base.limits) == 1, expand_square)

    return Rule("square of a finite sum", "law", fn, check=check)


def exchange_sums(name: str = "exchange two finite sums") -> Rule:
    """``Σ_k c_k Σ_a f_ka = Σ_a Σ_k c_k f_ka``; factors free of k leave the inner sum.

    Side condition: the bounds are independent (the inner bounds do not mention k, the outer ones
    not a); a triangular sum Σ_{k≤L} Σ_{a≤k} is refused, not swapped as if it were rectangular."""

    def swap(x):
        if len(x.limits) == 2:  # Σ_a Σ_c f written as one Sum: swap the two limits
            (v1, a1, b1), (v2, a2, b2) = x.limits
            if {v1, v2} & (a1.free_symbols | b1.free_symbols | a2.free_symbols | b2.free_symbols):
                raise SideCondition("the bounds of one sum depend on the other's variable")
            return sp.Sum(x.function, x.limits[1], x.limits[0])
        if len(x.limits) != 1:
            return x
        var, lo, hi = x.limits[0]
        inner = [f for f in sp.Mul.make_args(x.function) if isinstance(f, sp.Sum)]
        if len(inner) != 1 or len(inner[0].limits) != 1:
            return x
        ivar, ilo, ihi = inner[0].limits[0]
        if ilo.has(var) or ihi.has(var) or lo.has(ivar) or hi.has(ivar):
            raise SideCondition(f"the bounds of Σ_{ivar} depend on {var}: the sums are not independent")
        rest = x.function / inner[0]
        if rest.has(ivar):
            raise SideCondition(f"{ivar} occurs outside its own sum")
        factors = sp.Mul.make_args(sp.expand(rest * inner[0].function))
        free = sp.Mul(*[f for f in factors if not f.has(var)])
        dep = sp.Mul(*[f for f in factors if f.has(var)])
        return sp.Sum(free * sp.Sum(dep, (var, lo, hi)), inner[0].limits[0])

    return Rule(name, "law", lambda e: e.replace(lambda x: isinstance(x, sp.Sum), swap), check=_no_more)


def _no_more(e, env: Env):
    """The laws below check their side conditions while they apply (raising SideCondition)."""


def split_last(upper, name: str = "split off the last term of a finite sum") -> Rule:
    """``Σ_{k=a}^{t} f(k) = Σ_{k=a}^{t-1} f(k) + f(t)`` for the sums whose upper bound is ``upper``
    (true for every integer t under SymPy's convention for empty and reversed ranges)."""

    def split(x):
        (v, a, b), = x.limits
        return sp.Sum(x.function, (v, a, b - 1)) + x.function.xreplace({v: b})

    return Rule(name, "law", lambda e: e.replace(
        lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1 and x.limits[0][2] == upper, split),
        both_sides=True, check=_no_more)


def split_at(i, name: str | None = None, where=None) -> Rule:
    """``Σ_{k=a}^{b} f(k) = Σ_{k=a}^{i-1} f(k) + f(i) + Σ_{k=i+1}^{b} f(k)``, which needs ``a ≤ i ≤ b``.

    Side condition: the part's hypotheses give ``i`` a range (the Context's index range, or its
    given) inside ``a..b``. ``where`` selects the sums to split (default: those containing exp)."""
    where = where or (lambda x: x.has(sp.exp))

    def check(e, env: Env):
        from mathcheck.numeric.sampling import ranges

        r = ranges(env.hypotheses).get(i)
        if r is None:
            raise SideCondition(f"nothing says where {i} lies; splitting a sum at {i} needs a ≤ {i} ≤ b")
        for x in e.atoms(sp.Sum):
            if len(x.limits) == 1 and where(x):
                (_, a, b), = x.limits
                if not ((r[0] - a).is_nonnegative and (b - r[1]).is_nonnegative):
                    raise SideCondition(f"{i} ∈ [{r[0]}, {r[1]}] is not known to lie in [{a}, {b}]")

    def split(x):
        (k, a, b), = x.limits
        f = x.function
        return sp.Sum(f, (k, a, i - 1)) + f.xreplace({k: i}) + sp.Sum(f, (k, i + 1, b))

    return Rule(name or f"split the sum at k = {i}", "law", lambda e: e.replace(
        lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1 and where(x), split), check=check)


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
            touched = [n for n, g in enumerate(groups) if _random(f, g)]
            if len(touched) > 1:  # a factor mixing independent groups cannot be split off
                raise SideCondition(f"{sp.sstr(f)} depends on more than one independent group; "
                                    f"E[XY] = E[X]E[Y] needs each factor in one group")
            if touched:
                by_group.setdefault(touched[0], []).append(f)
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


# --- finite-sum laws (each checks its side conditions against the part's hypotheses where it applies) ---

def _bounds(v, hyps):
    """``(lows, highs)``: every lower and upper bound the hypotheses (and v's own assumptions) put on
    the integer symbol ``v`` (a strict bound moved by one)."""
    lows, highs = [], []
    if v.is_positive:
        lows.append(sp.Integer(1))
    elif v.is_nonnegative:
        lows.append(sp.Integer(0))
    for h in hyps:
        for c in (h.args if isinstance(h, sp.And) else (h,)):
            if not isinstance(c, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
                continue
            small, big = (c.lhs, c.rhs) if isinstance(c, (sp.LessThan, sp.StrictLessThan)) else (c.rhs, c.lhs)
            step = 1 if isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan)) else 0
            if big == v and not small.has(v):
                lows.append(small + step)
            if small == v and not big.has(v):
                highs.append(big - step)
    return lows, highs


def _nonnegative(e, hyps) -> bool:
    """Whether ``e ≥ 0`` follows from the symbols' assumptions, or from them after replacing one
    integer symbol by one of its bounds (a lower bound where e grows with it, an upper where it falls)."""
    e = sp.expand(e)
    if e.is_nonnegative:
        return True
    for v in sorted(e.free_symbols, key=str):
        coeff = e.coeff(v)
        if not v.is_integer or coeff.has(v) or sp.expand(e - coeff * v).has(v):
            continue  # only e linear in v
        if coeff.is_positive:
            pick = _bounds(v, hyps)[0]
        elif coeff.is_negative:
            pick = _bounds(v, hyps)[1]
        else:
            continue
        if any(sp.expand(e.xreplace({v: w})).is_nonnegative for w in pick):
            return True
    return False


def _sum_parts(x):
    (k, a, b), = x.limits
    return x.function, k, a, b


def _law(name, work):
    """A finite-sum law whose side conditions are checked where it applies: ``work(e, hyps)`` rewrites
    ``e`` and raises :class:`SideCondition` when ``hyps`` do not justify a rewrite it makes."""
    return Rule(name, "law", lambda e: work(e, None), check=lambda e, env: work(e, env.hypotheses))


def _require(ok, why):
    if not ok:
        raise SideCondition(why)


def join_ranges(name="adjacent ranges join: Σ_{k=a}^{b} f + Σ_{k=b+1}^{c} f = Σ_{k=a}^{c} f (a−1 ≤ b ≤ c)"):
    """Join two sums of the same summand over adjacent ranges into one (a law of finite sums).

    Side condition: the hypotheses give a − 1 ≤ b ≤ c (both ranges are ranges, possibly empty)."""

    def work(e, hyps):
        def join(x):
            terms = list(x.args)
            for s1 in terms:
                for s2 in terms:
                    if s1 is s2 or not (isinstance(s1, sp.Sum) and isinstance(s2, sp.Sum)):
                        continue
                    if len(s1.limits) != 1 or len(s2.limits) != 1:
                        continue
                    f, k, a, b = _sum_parts(s1)
                    g, k2, a2, c = _sum_parts(s2)
                    if sp.expand(a2 - (b + 1)) == 0 and sp.expand(g.xreplace({k2: k}) - f) == 0:
                        if hyps is not None:
                            _require(_nonnegative(b - a + 1, hyps) and _nonnegative(c - b, hyps),
                                     f"joining Σ_{{{k}={a}}}^{{{b}}} and Σ^{{{c}}} needs {a} − 1 ≤ {b} ≤ {c} "
                                     f"from the hypotheses")
                        rest = [t for t in terms if t is not s1 and t is not s2]
                        return sp.Add(*rest, sp.Sum(f, (k, a, c)))
            return x

        return e.replace(lambda x: isinstance(x, sp.Add), join)

    return _law(name, work)


def causal_mask(t, name="causal mask: keys k ≤ t kept (mask 1), keys k > t removed (mask 0); a − 1 ≤ t ≤ b"):
    """``Σ_{k=a}^{b} causal(t, k) f(k) = Σ_{k=a}^{t} f(k)``: the mask is 1 for k ≤ t and 0 after
    (its definition), so the terms t+1..b vanish.

    Side conditions: the summand is ``causal(t, k)`` times a factor free of the mask, and the
    hypotheses give a − 1 ≤ t ≤ b (t splits the range)."""
    mask = sp.Function("causal")

    def work(e, hyps):
        def split(x):
            f, k, a, b = _sum_parts(x)
            factors = sp.Mul.make_args(f)
            keep = [z for z in factors if not z.has(mask)]
            masks = [z for z in factors if z.has(mask)]
            if hyps is not None:
                _require(masks == [mask(t, k)], f"the summand {sp.sstr(f)} is not causal({t}, {k}) times a "
                                                f"factor free of the mask")
                _require(_nonnegative(t - a + 1, hyps) and _nonnegative(b - t, hyps),
                         f"nothing places {t} in {a} − 1..{b}: the mask does not split Σ_{{{k}={a}}}^{{{b}}} at {t}")
            if masks != [mask(t, k)]:
                return x
            return sp.Sum(sp.Mul(*keep), (k, a, t))  # the terms t+1..b are all 0

        return e.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1 and x.function.has(mask), split)

    return _law(name, work)


def delta_outside(name="δ_{ku} = 0 for every k in a..b when u lies outside a..b"):
    """``Σ_{k=a}^{b} f(k) δ_{ku} = 0`` when u lies outside a..b.

    Side condition: the hypotheses give u > b or u < a (e.g. ``t < u`` for a sum over 1..t)."""

    def work(e, hyps):
        def vanish(x):
            f, k, a, b = _sum_parts(x)
            deltas = [z for z in sp.Mul.make_args(f) if isinstance(z, sp.KroneckerDelta) and k in z.args]
            if not deltas:
                return x
            if hyps is not None:
                outside = False
                for dlt in deltas:
                    u = dlt.args[1] if dlt.args[0] == k else dlt.args[0]
                    if not u.has(k) and (_nonnegative(u - b - 1, hyps) or _nonnegative(a - u - 1, hyps)):
                        outside = True
                _require(outside, f"nothing places the index of {sp.sstr(deltas[0])} outside {a}..{b}")
            return sp.Integer(0)

        return e.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1
                         and any(isinstance(z, sp.KroneckerDelta) for z in sp.Mul.make_args(x.function)), vanish)

    return _law(name, work)



def factor_in(name: str = "distributivity: c·Σ_k f(k) = Σ_k c·f(k) for c free of k"):
    """Move the other factors of a summand into the one inner sum they multiply.

    Side condition: every factor moved is free of the inner sum's index (else it would be captured)."""

    def work(e, hyps):
        def push(x):
            inner = [z for z in sp.Mul.make_args(x.function) if isinstance(z, sp.Sum) and len(z.limits) == 1]
            if len(inner) != 1 or not isinstance(x.function, sp.Mul):
                return x
            s_, = inner
            rest = [z for z in x.function.args if z is not s_]
            var = s_.limits[0][0]
            if any(z.has(var) for z in rest):
                if hyps is not None:
                    raise SideCondition(f"a factor of {sp.sstr(x.function)} depends on {var}: it cannot "
                                              f"enter Σ_{var}")
                return x
            return sp.Sum(sp.Sum(s_.function * sp.Mul(*rest), *s_.limits), *x.limits)

        return e.replace(lambda x: isinstance(x, sp.Sum), push)

    return _law(name, work)


def factor_out(name: str = "distributivity: Σ_k c·f(k) = c·Σ_k f(k) for c free of k"):
    """Pull the factors of a summand that are free of the (innermost) sum's index out of that sum.

    Side condition: what leaves is free of the index and the bounds are free of it too (a sum whose
    bounds mention its own variable is refused)."""

    def work(e, hyps):
        def pull(x):  # the innermost index is the first limit (SymPy flattens nested sums)
            f = x.function
            if not isinstance(f, sp.Mul):
                return x
            var, lo, hi = x.limits[0]
            const = [z for z in f.args if not z.has(var)]
            if not const:
                return x
            if hyps is not None and (lo.has(var) or hi.has(var) or any(var in z.free_symbols for z in const)):
                raise SideCondition(f"Σ_{var} is not a sum over {var} with bounds free of it")
            inner = sp.Mul(*const) * sp.Sum(sp.Mul(*[z for z in f.args if z.has(var)]), x.limits[0])
            return sp.Sum(inner, *x.limits[1:]) if len(x.limits) > 1 else inner

        return e.replace(lambda x: isinstance(x, sp.Sum), pull)

    return _law(name, work)


def product_as_exp_sum(name: str = "Π_t p_t = exp(Σ_t log p_t) for p_t > 0"):
    """A finite product of positive factors is exp of the sum of their logs.

    Side condition: each product's factor is positive, by its symbols' assumptions or a hypothesis
    ``f > 0`` of the part (log of a nonpositive factor is not its real log)."""

    def work(e, hyps):
        def rewrite(x):
            f = x.function
            if hyps is not None and f.is_positive is not True and sp.Gt(f, 0) not in hyps \
                    and sp.Lt(0, f) not in hyps:
                raise SideCondition(f"nothing says the factor {sp.sstr(f)} is positive")
            return sp.exp(sp.Sum(sp.log(f), *x.limits))

        return e.replace(lambda x: isinstance(x, sp.Product), rewrite)

    return _law(name, work)


# --- limits -----------------------------------------------------------------------------------------

def limit_laws(name="limit laws: of a sum, product, quotient (nonzero limit), termwise in a finite sum"):
    r"""Evaluate every ``Limit`` by the limit laws, recursing through ``+``, ``·``, powers with a
    constant exponent and finite sums (whose bounds do not move with the variable); the leaves go to
    :func:`sympy.limit`. A law whose condition fails (an infinite limit, a zero denominator) leaves
    the ``Limit`` unevaluated, so the step is not shown.

        >>> x, z = sp.Symbol("x", positive=True), sp.Symbol("z", real=True)
        >>> limit_laws().apply(sp.Limit(sp.exp(z / x) + sp.exp(-x), x, sp.oo))
        1
        >>> limit_laws().apply(sp.Limit(1 / x, x, 0, "+"))  # an infinite limit: left alone
        Limit(1/x, x, 0, dir='+')
    """

    class Fails(Exception):
        pass

    def lim(e, x, x0, d):
        if not e.has(x):
            return e
        if isinstance(e, (sp.Add, sp.Mul)):
            parts = [lim(a, x, x0, d) for a in e.args]
            return sp.Add(*parts) if isinstance(e, sp.Add) else sp.Mul(*parts)
        if isinstance(e, sp.Pow) and not e.exp.has(x):
            b = lim(e.base, x, x0, d)
            if (e.exp.is_negative or not e.exp.is_integer) and b.is_zero is not False:
                raise Fails(e)
            return b ** e.exp
        if isinstance(e, sp.Sum):
            if any(lo.has(x) or hi.has(x) for _, lo, hi in e.limits):
                raise Fails(e)
            return sp.Sum(lim(e.function, x, x0, d), *e.limits).doit()
        try:
            out = sp.limit(e, x, x0, d)
        except (NotImplementedError, ValueError, TypeError) as exc:  # gruntz cannot decide it
            raise Fails(e) from exc
        if out.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.Limit, sp.AccumBounds):
            raise Fails(e)
        return out

    def fn(e):
        def one(L):
            f, x, x0, d = L.args
            try:
                return lim(f, x, x0, str(d))
            except Fails:
                return L
        return e.replace(lambda a: isinstance(a, sp.Limit), one)

    return Rule(name, "calculus", fn)


# --- §3.1 softmax maps scores onto the simplex ------------------------------------------------------


def reciprocal_limit(T, eps, name: str = "substitute ε = 1/T") -> Rule:
    """``lim_{T→∞} f(T) = lim_{ε→0⁺} f(1/ε)``: the limit at +∞ read through ε = 1/T.

    Side conditions: every ``Limit`` in ``T`` is at +∞ (near a finite point 1/T is not small);
    ``eps`` is positive by its assumptions and fresh (in neither the expression nor the part).

        >>> T, eps = sp.Symbol("T", positive=True), sp.Symbol("epsilon", positive=True)
        >>> reciprocal_limit(T, eps).apply(sp.Limit(T * sp.sin(1 / T), T, sp.oo))
        Limit(sin(epsilon)/epsilon, epsilon, 0, dir='+')
    """

    def check(e, env: Env):
        if not eps.is_positive:
            raise SideCondition(f"{eps} must be positive by its assumptions (ε = 1/T → 0⁺)")
        if eps in e.free_symbols or eps in env.symbols:
            raise SideCondition(f"{eps} is not fresh: the expression or the part already uses it")
        for L in e.atoms(sp.Limit):
            if L.args[1] == T and L.args[2] != sp.oo:
                raise SideCondition(f"the limit of {sp.sstr(L.args[0])} is at {T} → {L.args[2]}, not at +∞: "
                                    f"ε = 1/{T} does not tend to 0 there")

    return Rule(name, "calculus", lambda e: e.replace(
        lambda x: isinstance(x, sp.Limit) and x.args[1] == T and x.args[2] == sp.oo,
        lambda x: sp.Limit(x.args[0].xreplace({T: 1 / eps}), eps, 0, "+")), check=check)


def difference_quotient(eps, name: str = "lim g(ε)/ε = g′(0) as g(0) = 0") -> Rule:
    """``lim_{ε→0⁺} g(ε)/ε = g′(0)`` when ``g(0) = 0`` (the definition of the derivative at 0).

    Side conditions: each ``Limit`` in ``eps`` is at 0; ``g(0)`` simplifies to 0; ``g′(0)`` (SymPy's
    derivative evaluated at 0) is finite.

        >>> eps = sp.Symbol("epsilon", positive=True)
        >>> difference_quotient(eps).apply(sp.Limit(sp.sin(eps) / eps, eps, 0, "+")).doit()
        1
    """

    def g_of(L):
        return sp.expand(L.args[0] * eps)

    def check(e, env: Env):
        for L in e.atoms(sp.Limit):
            if L.args[1] != eps:
                continue
            if L.args[2] != 0:
                raise SideCondition(f"the limit is at {eps} → {L.args[2]}, not at 0")
            g = g_of(L)
            if sp.simplify(g.xreplace({eps: 0}).doit()) != 0:
                raise SideCondition(f"g(0) = 0 is not shown for g = {sp.sstr(g)}: the quotient g(ε)/ε "
                                    f"is not a difference quotient")
            slope = sp.Subs(sp.Derivative(g, eps), eps, 0).doit()
            if slope.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
                raise SideCondition(f"g′(0) is not finite for g = {sp.sstr(g)}")

    def to_derivative(L):
        g = g_of(L)
        if L.args[2] != 0 or sp.simplify(g.xreplace({eps: 0}).doit()) != 0:
            return L
        return sp.Subs(sp.Derivative(g, eps), eps, 0)

    return Rule(name, "calculus", lambda e: e.replace(
        lambda x: isinstance(x, sp.Limit) and x.args[1] == eps, to_derivative), check=check)


# --- solving, remainders, witnesses -----------------------------------------------------------------

def unique_zero(name: str = "the zeros on (0, ∞) (solveset)") -> Rule:
    """``UniqueZero(g, x)`` → the one solution of ``g = 0`` on ``x > 0``.

    Side condition: SymPy's ``solveset`` on (0, ∞) returns exactly one point, and ``g`` there
    simplifies to 0 (otherwise the call is refused, not evaluated).

        >>> x = sp.Symbol("x", positive=True)
        >>> unique_zero().apply(sp.Function("UniqueZero")(1 - 1 / x, x))
        1
    """

    def zero(call):
        g, var = call.args
        found = sp.solveset(g, var, sp.Interval.open(0, sp.oo))
        if isinstance(found, sp.FiniteSet) and len(found) == 1:
            return next(iter(found))
        return None

    def calls(e):
        return [a for a in sp.preorder_traversal(e) if _is_apply(a, "UniqueZero")]

    def check(e, env: Env):
        for call in calls(e):
            g, var = call.args
            root = zero(call)
            if root is None:
                raise SideCondition(f"solveset does not find exactly one zero of {sp.sstr(g)} for {var} > 0")
            if sp.simplify(g.xreplace({var: root})) != 0:
                raise SideCondition(f"{sp.sstr(g)} is not 0 at {var} = {sp.sstr(root)}")

    def fn(e):
        return e.replace(lambda a: _is_apply(a, "UniqueZero"), lambda a: zero(a) if zero(a) is not None else a)

    return Rule(name, "sympy", fn, check=check)


def small_remainder(e, m, name: str | None = None) -> Rule:
    """``0 ≤ e < m``: ``⌊e/m⌋ = 0`` and ``e mod m = e``.

    Side conditions: ``m`` is positive by its assumptions; ``e``'s assumptions and the part's
    hypotheses (a given, the Context's index range) place it in ``0..m−1``.

        >>> e, m = sp.Symbol("e", integer=True), sp.Symbol("m", integer=True, positive=True)
        >>> small_remainder(e, m).apply(sp.Matrix([sp.floor(e / m), sp.Mod(e, m)])).T
        Matrix([[0, e]])
    """

    def check(x, env: Env):
        if not m.is_positive:
            raise SideCondition(f"{m} must be positive by its assumptions")
        if not (_nonnegative(e, env.hypotheses) and _nonnegative(m - 1 - e, env.hypotheses)):
            raise SideCondition(f"nothing places {e} in 0..{m} − 1 (its assumptions, a given or the "
                                f"Context's index range): ⌊{e}/{m}⌋ = 0 needs 0 ≤ {e} < {m}")

    return Rule(name or f"0 ≤ {e} < {m}: ⌊{e}/{m}⌋ = 0, {e} mod {m} = {e}", "assumption",
                lambda x: x.xreplace({sp.floor(e / m): 0, sp.Mod(e, m): e}), check=check)


def remainder_as_floor(name: str = "definition of the remainder: c mod m = c − m⌊c/m⌋") -> Rule:
    """``c mod m = c − m⌊c/m⌋`` (the remainder's definition, SymPy's ``rewrite(floor)``).

    Side condition: every divisor ``m`` is nonzero by its symbols' assumptions.

        >>> c, m = sp.Symbol("c", integer=True), sp.Symbol("m", integer=True, positive=True)
        >>> remainder_as_floor().apply(m * sp.floor(c / m) + sp.Mod(c, m))
        c
    """

    def check(e, env: Env):
        for x in e.atoms(sp.Mod):
            if x.args[1].is_nonzero is not True:
                raise SideCondition(f"the divisor of {sp.sstr(x)} is not known to be nonzero")

    return Rule(name, "sympy", lambda x: x.rewrite(sp.floor), check=check)


def surprisal(p, s, total, name: str = "p_i = exp(−s_i), s_i ≥ 0: 0 < p_i ≤ Σ_j p_j = 1") -> Rule:
    """Write every ``p_i`` as ``e^{−s_i}`` with ``s_i = −log p_i ≥ 0`` fresh: a positive ``p_i`` in a
    distribution is at most ``Σ_j p_j = 1``; whatever is then shown for every such ``s`` holds for
    the one with ``s_i = −log p_i``.

    Side conditions: ``total`` (``Σ_j p_j = 1``) is a hypothesis of the part; the entries of ``p`` are
    positive and those of ``s`` nonnegative by their assumptions; ``s`` is fresh.

        >>> p, s = sp.IndexedBase("p", positive=True), sp.IndexedBase("s", nonnegative=True)
        >>> i, n = sp.Symbol("i", integer=True), sp.Symbol("n", integer=True, positive=True)
        >>> surprisal(p, s, sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)).apply(p[i] * sp.log(p[i]))
        -exp(-s[i])*s[i]
    """
    probe = sp.Dummy("j", integer=True)

    def check(e, env: Env):
        requires(total)(e, env)
        if not (isinstance(total, sp.Equality) and total.rhs == 1 and isinstance(total.lhs, sp.Sum)
                and total.lhs.function == p[total.lhs.limits[0][0]]):
            raise SideCondition(f"{sp.sstr(total)} does not say that the entries of {p} sum to 1")
        if not p[probe].is_positive:
            raise SideCondition(f"the entries of {p} must be positive by their assumptions (log p_i is real)")
        if not s[probe].is_nonnegative:
            raise SideCondition(f"the entries of {s} must be nonnegative by their assumptions")
        if s in e.free_symbols or s in env.symbols or any(isinstance(a, sp.Indexed) and a.base == s
                                                          for a in env.symbols):
            raise SideCondition(f"{s} is not fresh: the expression or the part already uses it")

    return Rule(name, "assumption", lambda e: e.replace(
        lambda x: isinstance(x, sp.Indexed) and x.base == p, lambda x: sp.exp(-s[x.indices[0]])), check=check)
