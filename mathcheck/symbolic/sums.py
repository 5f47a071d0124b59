"""Sum algebra: the normal forms of finite sums the decision procedures compare in.

* :func:`canonical_sums` renames bound variables by nesting depth (``Σ_i p_i`` and ``Σ_k p_k`` become
  the same object), the form hypotheses and lemmas are matched in;
* :func:`combine_sums` merges ``c·Σ_{k=a}^{b} f + d·Σ_{j=a}^{b} g`` into ``Σ_{k=a}^{b} (c f + d g)``;
* :func:`pull_sums` splits a sum over its terms and pulls out the factors free of its index;
* :func:`eval_deltas` collapses ``Σ_{k=a}^{b} δ(j, k) f(k) = f(j)`` where ``a ≤ j ≤ b`` is known, and
  :func:`delta_substitute` lets the rest of a term with a factor ``δ(a, b)`` take ``b = a``.

Each is an identity of finite sums (SymPy's convention for empty and reversed ranges included); the
zero test still has to show the rewritten difference is 0.

    >>> from mathcheck.lazy import sympy as sp
    >>> p, i, k = sp.IndexedBase("p"), sp.Symbol("i", integer=True), sp.Symbol("k", integer=True)
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> canonical_sums(sp.Sum(p[i], (i, 1, n))) == canonical_sums(sp.Sum(p[k], (k, 1, n)))
    True
    >>> sp.expand(pull_sums(sp.Sum(2 * p[k] + 1, (k, 1, n))))
    n + 2*Sum(p[k], (k, 1, n))
"""

from __future__ import annotations

from mathcheck.lazy import sympy as sp
from mathcheck.symbolic.context import known


def _bottom_up(e, fn):
    if not getattr(e, "args", None):
        return e
    new_args = tuple(_bottom_up(a, fn) for a in e.args)
    if new_args != e.args:
        e = e.func(*new_args)
    return fn(e)


def _collapse(f, lim, rng: dict):
    """Σ over ``lim`` of ``f`` (with a KroneckerDelta): SymPy's answer, a Piecewise on whether the
    index lies in the range, resolved only where ``rng`` shows the condition."""
    from sympy.concrete.delta import deltasummation

    out = deltasummation(f, lim, no_piecewise=False)

    def resolve(pw):
        for expr, cond in pw.args:
            shown = known(cond, rng)
            if shown is True:
                return expr
            if shown is None:
                return pw
        return pw

    return out.replace(lambda x: isinstance(x, sp.Piecewise), resolve)


def eval_deltas(e: sp.Basic, ranges: dict | None = None) -> sp.Basic:
    """Collapse every sum over a KroneckerDelta, innermost first: Σ_{k=a}^{b} δ(j, k) f(k) = f(j)
    only where ``a ≤ j ≤ b`` is known (from ``ranges``, the part's hypotheses, or an enclosing sum's
    bounds); elsewhere the Piecewise SymPy returns stays, and the step is not shown by this."""
    ranges = dict(ranges or {})

    def walk(x, rng):
        if not getattr(x, "args", None):
            return x
        if isinstance(x, sp.Sum):
            inner = dict(rng)
            inner.update({v: (a, b) for v, a, b in x.limits})
            f = walk(x.function, inner)
            if not f.has(sp.KroneckerDelta):
                return sp.Sum(f, *x.limits) if f != x.function else x
            for n, lim in enumerate(x.limits):
                here = dict(rng)
                here.update({v: (a, b) for v, a, b in x.limits[n + 1 :]})
                f = _collapse(sp.expand(f), lim, here) if f.has(sp.KroneckerDelta) else sp.Sum(f, lim)
            return f
        new_args = tuple(walk(a, rng) for a in x.args)
        return x.func(*new_args) if new_args != x.args else x

    return walk(e, ranges)


def combine_sums(e: sp.Expr) -> sp.Expr:
    """Merge the terms ``c * Sum(f, (v, a, b))`` that share the range ``(a, b)`` into one Sum."""
    e = sp.expand(e)
    groups: dict[tuple, list] = {}
    rest = []
    for term in sp.Add.make_args(e):
        sums = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.Sum) and len(f.limits) == 1]
        if len(sums) != 1:
            rest.append(term)
            continue
        s = sums[0]
        coeff = term / s
        var, a, b = s.limits[0]
        if coeff.has(var):
            rest.append(term)
            continue
        key = (a, b)
        dummy = groups.setdefault(key, [sp.Dummy("k", integer=True)])[0]
        groups[key].append(coeff * s.function.xreplace({var: dummy}))
    merged = [sp.Sum(sp.Add(*terms[1:]), (terms[0], a, b)) for (a, b), terms in groups.items()]
    return sp.Add(*rest, *merged)


def pull_sums(e: sp.Basic) -> sp.Basic:
    """Split sums over their terms and pull out the factors free of the summation variable."""

    def pull(x):
        if not (isinstance(x, sp.Sum) and len(x.limits) == 1):
            return x
        var, a, b = x.limits[0]
        out = []
        for t in sp.Add.make_args(sp.expand(x.function)):
            factors = sp.Mul.make_args(t)
            c = sp.Mul(*[f for f in factors if not f.has(var)])
            r = sp.Mul(*[f for f in factors if f.has(var)])
            out.append(c * (sp.Sum(r, (var, a, b)) if r != 1 else (b - a + 1)))
        return sp.Add(*out)

    return _bottom_up(e, pull)


def canonical_sums(e: sp.Basic, depth: int = 0) -> sp.Basic:
    """Rename bound summation variables by nesting depth, so equal sums compare equal."""
    if isinstance(e, sp.Sum):
        limits, f = [], e.function
        for n, (var, a, b) in enumerate(e.limits):
            c = sp.Symbol(f"_s{depth + len(e.limits) - 1 - n}", integer=True)
            f = f.xreplace({var: c})
            limits.append((c, a, b))
        return sp.Sum(canonical_sums(f, depth + len(e.limits)), *limits)
    if not getattr(e, "args", None):
        return e
    return e.func(*[canonical_sums(a, depth) for a in e.args])


def delta_substitute(e: sp.Expr) -> sp.Expr:
    """In a term with a factor δ(a, b), the rest may take b = a (the term vanishes otherwise)."""
    out = []
    for t in sp.Add.make_args(sp.expand(e)):
        deltas = [f for f in sp.Mul.make_args(t) if isinstance(f, sp.KroneckerDelta)]
        for dlt in deltas:
            a, b = dlt.args
            rest = t / dlt
            if isinstance(b, sp.Symbol):
                t = dlt * rest.xreplace({b: a})
            elif isinstance(a, sp.Symbol):
                t = dlt * rest.xreplace({a: b})
        out.append(t)
    return sp.Add(*out)
