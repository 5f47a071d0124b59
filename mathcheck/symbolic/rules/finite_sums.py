"""Laws of finite sums: exchanging, splitting, joining and squaring sums, distributivity, a causal
mask, a Kronecker delta outside its range, a product as the exp of a sum of logs; and remainders.

Each checks its side conditions against the part's hypotheses where it applies (``_law``: the same
``work`` rewrites the expression and, given the hypotheses, raises :class:`SideCondition` when they do
not justify a rewrite it makes), e.g. a sum split at ``i`` needs ``a ≤ i ≤ b``.

    >>> from mathcheck.lazy import sympy as sp
    >>> f, k = sp.IndexedBase("f"), sp.Symbol("k", integer=True)
    >>> t = sp.Symbol("t", integer=True, positive=True)
    >>> split_last(t).apply(sp.Sum(f[k], (k, 1, t)))
    f[t] + Sum(f[k], (k, 1, t - 1))
"""

from __future__ import annotations

from typing import Callable

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.holds import ranges
from mathcheck.symbolic.rules.base import Env, Rule, SideCondition


def _bound_symbols(e) -> set:
    out = set()
    for s in e.atoms(sp.Sum, sp.Product):
        out |= {lim[0] for lim in s.limits}
    return out


def square_of_sum(fresh: sp.Symbol) -> Rule:
    """``(Σ_i f(i))² = Σ_i Σ_j f(i) f(j)`` with ``fresh`` as the name of the second index.

    Side condition: ``fresh`` is free nowhere in the expression and bound in none of its sums."""

    def check(e, env: Env):
        if fresh in e.free_symbols or fresh in _bound_symbols(e) or fresh in env.symbols - _bound_symbols(e):
            raise SideCondition(f"the new index {fresh} clashes with a symbol the expression already uses")

    def fn(e):
        def expand_square(x):
            s = x.base
            ((i, a, b),) = s.limits
            return sp.Sum(sp.Sum(s.function * s.function.xreplace({i: fresh}), (fresh, a, b)), (i, a, b))

        return e.replace(
            lambda x: isinstance(x, sp.Pow) and x.exp == 2 and isinstance(x.base, sp.Sum) and len(x.base.limits) == 1,
            expand_square,
        )

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


def split_last(upper: sp.Expr, name: str = "split off the last term of a finite sum") -> Rule:
    """``Σ_{k=a}^{t} f(k) = Σ_{k=a}^{t-1} f(k) + f(t)`` for the sums whose upper bound is ``upper``
    (true for every integer t under SymPy's convention for empty and reversed ranges)."""

    def split(x):
        ((v, a, b),) = x.limits
        return sp.Sum(x.function, (v, a, b - 1)) + x.function.xreplace({v: b})

    return Rule(
        name,
        "law",
        lambda e: e.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1 and x.limits[0][2] == upper, split),
        both_sides=True,
        check=_no_more,
    )


def split_at(i: sp.Symbol, name: str | None = None, where: Callable[[sp.Sum], bool] | None = None) -> Rule:
    """``Σ_{k=a}^{b} f(k) = Σ_{k=a}^{i-1} f(k) + f(i) + Σ_{k=i+1}^{b} f(k)``, which needs ``a ≤ i ≤ b``.

    Side condition: the part's hypotheses give ``i`` a range (the Context's index range, or its
    given) inside ``a..b``. ``where`` selects the sums to split (default: those containing exp)."""
    where = where or (lambda x: x.has(sp.exp))

    def check(e, env: Env):
        r = ranges(env.hypotheses).get(i)
        if r is None:
            raise SideCondition(f"nothing says where {i} lies; splitting a sum at {i} needs a ≤ {i} ≤ b")
        for x in e.atoms(sp.Sum):
            if len(x.limits) == 1 and where(x):
                ((_, a, b),) = x.limits
                if not ((r[0] - a).is_nonnegative and (b - r[1]).is_nonnegative):
                    raise SideCondition(f"{i} ∈ [{r[0]}, {r[1]}] is not known to lie in [{a}, {b}]")

    def split(x):
        ((k, a, b),) = x.limits
        f = x.function
        return sp.Sum(f, (k, a, i - 1)) + f.xreplace({k: i}) + sp.Sum(f, (k, i + 1, b))

    return Rule(
        name or f"split the sum at k = {i}",
        "law",
        lambda e: e.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1 and where(x), split),
        check=check,
    )


def _bounds(v, hyps):
    """``(lows, highs)``: every lower and upper bound the hypotheses (and v's own assumptions) put on
    the integer symbol ``v``, rounded to an integer the way an integer v allows (v > s gives
    v ≥ ⌊s⌋ + 1, v ≤ s gives v ≤ ⌊s⌋). Example: ``v > 1/2`` gives v ≥ 1, not v ≥ 3/2 (v = 1 is > 1/2)."""
    lows, highs = [], []
    if v.is_positive:
        lows.append(sp.Integer(1))
    elif v.is_nonnegative:
        lows.append(sp.Integer(0))
    for h in hyps:
        for c in h.args if isinstance(h, sp.And) else (h,):
            if not isinstance(c, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
                continue
            small, big = (c.lhs, c.rhs) if isinstance(c, (sp.LessThan, sp.StrictLessThan)) else (c.rhs, c.lhs)
            strict = isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan))
            if big == v and not small.has(v):
                lows.append(sp.floor(small) + 1 if strict else sp.ceiling(small))
            if small == v and not big.has(v):
                highs.append(sp.ceiling(big) - 1 if strict else sp.floor(big))
    return lows, highs


def _nonnegative(e, hyps, depth: int = 3) -> bool:
    """Whether ``e ≥ 0`` follows from the symbols' assumptions, or from them after replacing integer
    symbols one after another (at most ``depth``) by their bounds: a lower bound where e grows with
    the symbol, an upper where it falls (e linear in it). Example: from ``t < u`` and ``1 ≤ t``,
    ``u − 1 ≥ 0`` (u by t + 1, then t by 1)."""
    e = sp.expand(e)
    if e.is_nonnegative:
        return True
    if depth == 0:
        return False
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
        if any(not w.has(v) and _nonnegative(e.xreplace({v: w}), hyps, depth - 1) for w in pick):
            return True
    return False


def _sum_parts(x):
    ((k, a, b),) = x.limits
    return x.function, k, a, b


def _law(name, work):
    """A finite-sum law whose side conditions are checked where it applies: ``work(e, hyps)`` rewrites
    ``e`` and raises :class:`SideCondition` when ``hyps`` do not justify a rewrite it makes."""
    return Rule(name, "law", lambda e: work(e, None), check=lambda e, env: work(e, env.hypotheses))


def _require(ok, why):
    if not ok:
        raise SideCondition(why)


def join_ranges(
    name: str = "adjacent ranges join: Σ_{k=a}^{b} f + Σ_{k=b+1}^{c} f = Σ_{k=a}^{c} f (a−1 ≤ b ≤ c)",
) -> Rule:
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
                            _require(
                                _nonnegative(b - a + 1, hyps) and _nonnegative(c - b, hyps),
                                f"joining Σ_{{{k}={a}}}^{{{b}}} and Σ^{{{c}}} needs {a} − 1 ≤ {b} ≤ {c} "
                                f"from the hypotheses",
                            )
                        rest = [t for t in terms if t is not s1 and t is not s2]
                        return sp.Add(*rest, sp.Sum(f, (k, a, c)))
            return x

        return e.replace(lambda x: isinstance(x, sp.Add), join)

    return _law(name, work)


def causal_mask(
    t: sp.Expr, name: str = "causal mask: keys k ≤ t kept (mask 1), keys k > t removed (mask 0); a − 1 ≤ t ≤ b"
) -> Rule:
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
                _require(
                    masks == [mask(t, k)],
                    f"the summand {sp.sstr(f)} is not causal({t}, {k}) times a factor free of the mask",
                )
                _require(
                    _nonnegative(t - a + 1, hyps) and _nonnegative(b - t, hyps),
                    f"nothing places {t} in {a} − 1..{b}: the mask does not split Σ_{{{k}={a}}}^{{{b}}} at {t}",
                )
            if masks != [mask(t, k)]:
                return x
            return sp.Sum(sp.Mul(*keep), (k, a, t))  # the terms t+1..b are all 0

        return e.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1 and x.function.has(mask), split)

    return _law(name, work)


def delta_outside(name: str = "δ_ku = 0 for every k in a..b when u lies outside a..b (and outside b+1..a−1)") -> Rule:
    """``Σ_{k=a}^{b} f(k) δ_{ku} = 0`` when u lies outside a..b, under every convention for the range.

    A reversed range is not empty (Karr's convention, SymPy's and the project's, docs/soundness.md):
    for b < a − 1, Σ_{k=a}^{b} = −Σ_{k=b+1}^{a−1}. So u must avoid both a..b and b+1..a−1, i.e. lie
    above both (u > b and u ≥ a) or below both (u < a and u ≤ b). Example: Σ_{k=5}^{1} f(k) δ_{k3}
    = −f(3) although 3 > 1.

    Side condition: the hypotheses give (u > b and u ≥ a) or (u < a and u ≤ b) (e.g. ``1 ≤ t < u``
    for a sum over 1..t)."""

    def outside(u, a, b, hyps) -> bool:
        above = _nonnegative(u - b - 1, hyps) and _nonnegative(u - a, hyps)
        return above or (_nonnegative(a - u - 1, hyps) and _nonnegative(b - u, hyps))

    def work(e, hyps):
        def vanish(x):
            f, k, a, b = _sum_parts(x)
            deltas = [z for z in sp.Mul.make_args(f) if isinstance(z, sp.KroneckerDelta) and k in z.args]
            if not deltas:
                return x
            if hyps is not None:
                ok = False
                for dlt in deltas:
                    u = dlt.args[1] if dlt.args[0] == k else dlt.args[0]
                    ok = ok or (not u.has(k) and outside(u, a, b, hyps))
                _require(
                    ok,
                    f"nothing places the index of {sp.sstr(deltas[0])} outside {a}..{b} and outside "
                    f"{b + 1}..{a - 1} (a reversed range is not empty: Σ_{{k=a}}^{{b}} = "
                    f"−Σ_{{k=b+1}}^{{a−1}} for b < a − 1)",
                )
            return sp.Integer(0)

        return e.replace(
            lambda x: (
                isinstance(x, sp.Sum)
                and len(x.limits) == 1
                and any(isinstance(z, sp.KroneckerDelta) for z in sp.Mul.make_args(x.function))
            ),
            vanish,
        )

    return _law(name, work)


def factor_in(name: str = "distributivity: c·Σ_k f(k) = Σ_k c·f(k) for c free of k") -> Rule:
    """Move the other factors of a summand into the one inner sum they multiply.

    Side condition: every factor moved is free of the inner sum's index (else it would be captured)."""

    def work(e, hyps):
        def push(x):
            inner = [z for z in sp.Mul.make_args(x.function) if isinstance(z, sp.Sum) and len(z.limits) == 1]
            if len(inner) != 1 or not isinstance(x.function, sp.Mul):
                return x
            (s_,) = inner
            rest = [z for z in x.function.args if z is not s_]
            var = s_.limits[0][0]
            if any(z.has(var) for z in rest):
                if hyps is not None:
                    raise SideCondition(f"a factor of {sp.sstr(x.function)} depends on {var}: it cannot enter Σ_{var}")
                return x
            return sp.Sum(sp.Sum(s_.function * sp.Mul(*rest), *s_.limits), *x.limits)

        return e.replace(lambda x: isinstance(x, sp.Sum), push)

    return _law(name, work)


def factor_out(name: str = "distributivity: Σ_k c·f(k) = c·Σ_k f(k) for c free of k") -> Rule:
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


def product_as_exp_sum(name: str = "Π_t p_t = exp(Σ_t log p_t) for p_t > 0") -> Rule:
    """A finite product of positive factors is exp of the sum of their logs.

    Side condition: each product's factor is positive, by its symbols' assumptions or a hypothesis
    ``f > 0`` of the part (log of a nonpositive factor is not its real log)."""

    def work(e, hyps):
        def rewrite(x):
            f = x.function
            if hyps is not None and f.is_positive is not True and sp.Gt(f, 0) not in hyps and sp.Lt(0, f) not in hyps:
                raise SideCondition(f"nothing says the factor {sp.sstr(f)} is positive")
            return sp.exp(sp.Sum(sp.log(f), *x.limits))

        return e.replace(lambda x: isinstance(x, sp.Product), rewrite)

    return _law(name, work)


def small_remainder(e: sp.Expr, m: sp.Expr, name: str | None = None) -> Rule:
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
            raise SideCondition(
                f"nothing places {e} in 0..{m} − 1 (its assumptions, a given or the "
                f"Context's index range): ⌊{e}/{m}⌋ = 0 needs 0 ≤ {e} < {m}"
            )

    return Rule(
        name or f"0 ≤ {e} < {m}: ⌊{e}/{m}⌋ = 0, {e} mod {m} = {e}",
        "assumption",
        lambda x: x.xreplace({sp.floor(e / m): 0, sp.Mod(e, m): e}),
        check=check,
    )


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
