"""Rules a part may cite for what it assumes or has proved: definitions, substitutions from its
hypotheses, fresh witnesses of its inequalities, and lemmas (earlier parts of the same claim).

Each checks its side condition against the part (:class:`~mathcheck.symbolic.rules.base.Env`):

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x")
    >>> substitute({x: 2}, "x is 2").apply(x + 1)
    3
"""

from __future__ import annotations

import inspect
import re
from typing import Callable

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.holds import is_definition
from mathcheck.symbolic.rules.base import Env, Rule, SideCondition, _is_apply, follows_from, requires
from mathcheck.symbolic.sums import canonical_sums


def substitute(mapping: dict, name: str, kind: str = "assumption", both_sides: bool = False) -> Rule:
    """Replace expressions by values (``xreplace``: exact, touches bound variables never).

    Side condition: each ``x ↦ v`` is a hypothesis ``Eq(x, v)`` of the part (its ``given``)."""
    mapping = dict(mapping)

    def check(e, env: Env):
        for k, v in mapping.items():
            if not follows_from(k, v, env.hypotheses):
                raise SideCondition(
                    f"substitution {sp.sstr(k)} = {sp.sstr(v)} does not follow from a "
                    f"hypothesis of the part (add Eq({sp.sstr(k)}, {sp.sstr(v)}) to its given)"
                )

    return Rule(name, kind, lambda e: e.xreplace(mapping), both_sides=both_sides, check=check)


def witness(hypothesis: sp.Rel, var: sp.Expr, name: str | None = None) -> Rule:
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
        if not any(canonical_sums(h) == canonical_sums(hypothesis) for h in env.hypotheses):
            raise SideCondition(f"{sp.sstr(hypothesis)} is not a hypothesis of the part")
        if not (var.is_positive if strict else var.is_nonnegative):
            raise SideCondition(f"{var} must be {'positive' if strict else 'nonnegative'} by its assumptions")
        if var.free_symbols & env.symbols:
            raise SideCondition(f"{var} is not fresh: the part's statement or hypotheses use its symbols")

    return Rule(
        name or f"{sp.sstr(hypothesis)}: write {sp.sstr(a)} = {sp.sstr(b)} + {var}",
        "assumption",
        lambda e: e.xreplace({a: b + var}),
        check=check,
    )


def unfold(name: str, func_name: str, definition: Callable) -> Rule:
    """Replace every application ``func_name(args)`` by ``definition(*args)``."""
    return Rule(
        name,
        "definition",
        lambda e: e.replace(lambda x: _is_apply(x, func_name), lambda x: definition(*x.args)),
        both_sides=True,
    )


def unfold_indexed(name: str, base: sp.IndexedBase, definition: Callable) -> Rule:
    """Replace every ``base[x]`` by ``definition(x)``, on both sides of the step (a definition).

    The definition is a hypothesis of every part that uses it, printed as ``base[x] = definition(x)``."""
    arity = len(inspect.signature(definition).parameters)
    xs = sp.symbols(f"x1:{arity + 1}", integer=True) if arity > 1 else (sp.Symbol("x", integer=True),)
    try:
        statement = sp.Eq(base[xs], definition(*xs), evaluate=False)
    except (TypeError, ValueError):  # a definition taking *args: printed by name only
        statement = None
    return Rule(
        name,
        "definition",
        lambda e: e.replace(lambda x: isinstance(x, sp.Indexed) and x.base == base, lambda x: definition(*x.indices)),
        both_sides=True,
        statement=statement,
    )


def _instance(pattern_lhs, pattern_rhs, lhs, rhs, fixed) -> dict | None:
    """The substitution of free symbols (those not in ``fixed``) that makes ``pattern_lhs =
    pattern_rhs`` into ``lhs = rhs`` ({} when they are the same), or None: SymPy's structural
    ``match`` with every such symbol a Wild."""
    pl, pr = canonical_sums(pattern_lhs), canonical_sums(pattern_rhs)
    l, r = canonical_sums(lhs), canonical_sums(rhs)
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
    a, b = canonical_sums(a), canonical_sums(b)
    return sp.expand(a - b) == 0 or sp.expand(a + b) == 0


def lemma(name: str, lhs: sp.Basic, rhs: sp.Basic, part: str | None = None) -> Rule:
    """Use an equation proved by an earlier part: replace ``lhs`` by ``rhs``.

    ``part`` names the cited part (read from ``name`` when it has the form "part 'x'"). Side
    conditions, checked in the claim: the part exists and is proved, ``lhs = rhs`` is its statement
    (up to renaming bound variables and instantiating its free symbols other than the sizes), and
    its hypotheses, so instantiated, are hypotheses of the current part."""
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
            raise SideCondition(
                f"{sp.sstr(lhs)} = {sp.sstr(rhs)} is not an instance of part {cited!r}: {sp.sstr(stmt)}"
            )
        # the cited hypotheses, instantiated the same way; the axioms and definitions it relies on
        # (printed as text) are the claim's, like its notation
        hyps = tuple(h.xreplace(at) for h in hyps if isinstance(h, sp.Basic))
        mine = {canonical_sums(h) for h in env.hypotheses + env.claim_wide}
        # definitions of notation are the claim's (every part reads a symbol the same way)
        missing = [h for h in hyps if canonical_sums(h) not in mine and not is_definition(h)]
        if missing:
            raise SideCondition(
                f"part {cited!r} assumes {', '.join(sp.sstr(h) for h in missing)}, which this part does not"
            )

    return Rule(name, "lemma", lambda e: e.xreplace({lhs: rhs}), check=check)


def _entries(e, base, enclosing=()):
    """Each entry ``base[x]`` of ``e`` as ``(x, the limits of the sums around it)``."""
    if isinstance(e, sp.Indexed) and e.base == base:
        yield e.indices[0], enclosing
        return
    if isinstance(e, sp.Sum):
        yield from _entries(e.function, base, enclosing + tuple(e.limits))
        return
    for a in e.args:
        yield from _entries(a, base, enclosing)


def _inside(x, enclosing, lo, hi, hyps) -> bool:
    """Whether the index ``x`` lies in lo..hi: a free index by the hypotheses; the variable of an
    enclosing Σ_{x=a}^{b} whether its range is ordered or reversed (Karr: then x runs over
    b+1..a−1), i.e. a ≥ lo, b + 1 ≥ lo, b ≤ hi, a − 1 ≤ hi."""
    from mathcheck.symbolic.rules.finite_sums import _nonnegative

    bound = {v: (a, b) for v, a, b in enclosing}
    if x in bound:
        a, b = bound[x]
        return all(_nonnegative(d, hyps) for d in (a - lo, b + 1 - lo, hi - b, hi - a + 1))
    if x.free_symbols & set(bound):
        return False  # an index computed from a summation variable: not followed here
    return _nonnegative(x - lo, hyps) and _nonnegative(hi - x, hyps)


def surprisal(
    p: sp.IndexedBase, s: sp.IndexedBase, total: sp.Basic, name: str = "p_i = exp(−s_i), s_i ≥ 0: 0 < p_i ≤ Σ_j p_j = 1"
) -> Rule:
    """Write every ``p_i`` as ``e^{−s_i}`` with ``s_i = −log p_i ≥ 0`` fresh: a positive ``p_i`` in a
    distribution is at most ``Σ_j p_j = 1``; whatever is then shown for every such ``s`` holds for
    the one with ``s_i = −log p_i``.

    Side conditions: ``total`` (``Σ_j p_j = 1``) is a hypothesis of the part; the entries of ``p`` are
    positive and those of ``s`` nonnegative by their assumptions; ``s`` is fresh; every entry rewritten
    lies in the total's range (a free index by the hypotheses, a summation index by its sum's bounds
    in either orientation): p_{n+1} is not bounded by Σ_{i=1}^{n} p_i = 1.

        >>> p, s = sp.IndexedBase("p", positive=True), sp.IndexedBase("s", nonnegative=True)
        >>> i, n = sp.Symbol("i", integer=True), sp.Symbol("n", integer=True, positive=True)
        >>> surprisal(p, s, sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)).apply(p[i] * sp.log(p[i]))
        -exp(-s[i])*s[i]
    """
    probe = sp.Dummy("j", integer=True)

    def check(e, env: Env):
        requires(total)(e, env)
        if not (
            isinstance(total, sp.Equality)
            and total.rhs == 1
            and isinstance(total.lhs, sp.Sum)
            and total.lhs.function == p[total.lhs.limits[0][0]]
        ):
            raise SideCondition(f"{sp.sstr(total)} does not say that the entries of {p} sum to 1")
        if not p[probe].is_positive:
            raise SideCondition(f"the entries of {p} must be positive by their assumptions (log p_i is real)")
        if not s[probe].is_nonnegative:
            raise SideCondition(f"the entries of {s} must be nonnegative by their assumptions")
        if (
            s in e.free_symbols
            or s in env.symbols
            or any(isinstance(a, sp.Indexed) and a.base == s for a in env.symbols)
        ):
            raise SideCondition(f"{s} is not fresh: the expression or the part already uses it")
        _, lo, hi = total.lhs.limits[0]
        for x, enclosing in _entries(e, p):
            if not _inside(x, enclosing, lo, hi, env.hypotheses):
                raise SideCondition(
                    f"nothing places the index of {sp.sstr(p[x])} in {lo}..{hi}: Σ p = 1 over "
                    f"{lo}..{hi} bounds only the entries in that range (p_{{n+1}} may be 5)"
                )

    return Rule(
        name,
        "assumption",
        lambda e: e.replace(lambda x: isinstance(x, sp.Indexed) and x.base == p, lambda x: sp.exp(-s[x.indices[0]])),
        check=check,
    )
