"""Rules of calculus: derivatives, the limit laws, a limit at +∞ read through ε = 1/T, a difference
quotient, and the one zero of a function on (0, ∞).

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> differentiate(x).apply(sp.Derivative(x ** 2, x))
    2*x
"""

from __future__ import annotations

from mathcheck.lazy import sympy as sp
from mathcheck.symbolic.rules.base import Env, Rule, SideCondition, _is_apply


def differentiate(wrt: sp.Symbol | sp.Indexed, name: str = "differentiate") -> Rule:
    """Evaluate ``Derivative`` objects (``doit`` on derivatives only)."""
    return Rule(
        name, "calculus", lambda e: e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit(deep=False))
    )


def limit_laws(name: str = "limit laws: of a sum, product, quotient (nonzero limit), termwise in a finite sum") -> Rule:
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
            return b**e.exp
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


def reciprocal_limit(T: sp.Symbol, eps: sp.Symbol, name: str = "substitute ε = 1/T") -> Rule:
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
                raise SideCondition(
                    f"the limit of {sp.sstr(L.args[0])} is at {T} → {L.args[2]}, not at +∞: "
                    f"ε = 1/{T} does not tend to 0 there"
                )

    return Rule(
        name,
        "calculus",
        lambda e: e.replace(
            lambda x: isinstance(x, sp.Limit) and x.args[1] == T and x.args[2] == sp.oo,
            lambda x: sp.Limit(x.args[0].xreplace({T: 1 / eps}), eps, 0, "+"),
        ),
        check=check,
    )


def difference_quotient(eps: sp.Symbol, name: str = "lim g(ε)/ε = g′(0) as g(0) = 0") -> Rule:
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
                raise SideCondition(
                    f"g(0) = 0 is not shown for g = {sp.sstr(g)}: the quotient g(ε)/ε is not a difference quotient"
                )
            slope = sp.Subs(sp.Derivative(g, eps), eps, 0).doit()
            if slope.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
                raise SideCondition(f"g′(0) is not finite for g = {sp.sstr(g)}")

    def to_derivative(L):
        g = g_of(L)
        if L.args[2] != 0 or sp.simplify(g.xreplace({eps: 0}).doit()) != 0:
            return L
        return sp.Subs(sp.Derivative(g, eps), eps, 0)

    return Rule(
        name,
        "calculus",
        lambda e: e.replace(lambda x: isinstance(x, sp.Limit) and x.args[1] == eps, to_derivative),
        check=check,
    )


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
