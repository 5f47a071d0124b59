"""Links with unknown functions (``f(x)``, ``L(theta)``, ``g_phi(x)``): proved only for every function.

A link ``lhs REL rhs`` in which undefined functions appear (the LaTeX reader's ``f(x)``; SymPy's
``Function('f')``) holds as its author means it only if it holds whatever the functions are. So:

* **symbolic, for every function**: after SymPy's derivatives are taken (``d/dx f(g(x))`` becomes
  ``f'(g(x))·g'(x)``), every application ``f(u)`` and every derivative ``f^(k)(u)`` is replaced by a
  fresh real symbol (the same application, the same symbol) and the usual pipeline
  (:func:`mathcheck.userexpr.relation.check_relation`) must prove the result. That is sound: what
  holds for independent values holds in particular for the values one function takes;
* **numeric, several functions**: ``DRAWS`` random smooth functions per unknown, drawn from the seed
  (``a·sin(c·t + d) + b·t + q·t²/4`` with small rational coefficients; several arguments: a sum of
  such terms plus a product term), substituted, and the link checked numerically; a failure there is
  a **refutation** with the function that refutes it named — a concrete counterexample.

An unknown function integrated over its own variable (``∫_0^1 f(x) dx``) is not one value: the
symbolised check is not run (:func:`integrated`), and the link is at best ``inconclusive``.

``proved`` = the symbolic side proved *and* every draw passed; ``refuted`` = a draw failed (at 50
digits); anything else ``inconclusive`` — the symbolised check alone never refutes, since
independent values may be ones no function takes.

    >>> from mathcheck.parser import parse_many
    >>> L, R = parse_many(["diff(f(g(x)), x)", "prime(f(g(x)))*diff(g(x), x)"], unknown={"f", "g"})
    >>> check(L, R, "=", {}).status                    # doctest: +SKIP
    'proved'
"""

from __future__ import annotations

import random
import zlib
from typing import TYPE_CHECKING

from mathcheck.lazy import sympy as sp
from mathcheck.relations import INEQUALITIES

if TYPE_CHECKING:
    from collections.abc import Callable

    from mathcheck.userexpr.relation import CheckResult


DRAWS = 3  # random functions per unknown, each a numeric check of its own
SYMBOLIC_SHARE = 0.5  # of the budget, for the symbolised check (the rest: the draws)


def unknowns(*exprs) -> set:
    """The undefined functions applied in ``exprs`` (``{f, g}`` for ``f(g(x))``)."""
    from sympy.core.function import AppliedUndef

    return {a.func for e in exprs for a in e.atoms(AppliedUndef)}


def canonical(expr) -> sp.Basic:
    """``expr`` with its derivatives taken and every derivative of an unknown function written
    ``Subs(Derivative(f(ξ), ξ), ξ, u)``: SymPy writes ``f'(g(x))`` as ``Derivative(f(g(x)), g(x))``,
    which cannot take a concrete f; the ``Subs`` form can, and has one spelling."""
    from sympy.core.function import AppliedUndef

    from mathcheck.symbolic.limits import doit_keeping_limits

    expr = doit_keeping_limits(expr)  # a limit is settled (symbolic) or approached (numeric), never by doit

    def as_subs(d):
        f = d.expr
        if not isinstance(f, AppliedUndef):
            return d
        if all(isinstance(a, sp.Dummy) for a in f.args):
            # the inside of f'(u) = Subs(Derivative(f(ξ), ξ), ξ, u), already canonical: wrapped again it became
            # Subs(Subs(…, ξ0, ξ), ξ, u), which SymPy flattens into ONE simultaneous substitution (ξ0→ξ, ξ→u)
            # that leaves f' at a free ξ — f'(3) = f'(3) was refuted, each side at its own random ξ
            return d
        xis = [sp.Dummy(f"xi{k}", real=True) for k in range(len(f.args))]
        orders = []
        for v, k in d.variable_count:
            at = [p for p, a in enumerate(f.args) if a == v]
            if len(at) != 1 or any(v in a.free_symbols for p, a in enumerate(f.args) if p != at[0] and v.is_Symbol):
                return d  # f(x, x) by x: SymPy's own chain rule is the reading; left as it is
            orders.append((xis[at[0]], k))
        return sp.Subs(sp.Derivative(f.func(*xis), *orders), xis, f.args)

    def flat(s):  # Subs(Subs(f'(ξ), ξ, U), U, g(x)) — Leibniz's dy/du at u = g(x) — is f'(g(x))
        inner = s.expr
        if isinstance(inner, sp.Subs) and tuple(inner.point) == tuple(s.variables):
            return sp.Subs(inner.expr, inner.variables, s.point)
        return _sequential(s)

    expr = expr.replace(lambda e: isinstance(e, sp.Derivative), as_subs)
    return expr.replace(lambda e: isinstance(e, sp.Subs), flat)


def _sequential(s: sp.Subs) -> sp.Basic:
    """SymPy merges ``Subs(Subs(f'(ξ), ξ, U), U, u + b)`` into one substitution ``(ξ, U) → (U, u + b)``,
    which it makes at once: f' was left at a free U — drawn as a value of its own, so Leibniz's
    ∂a/∂z with ``z = u + b``, ``a = f(u + b)`` was refuted, f' taken at a random point. The merged
    substitution is the inner one, then the outer: a point that names a later variable gets that
    variable's point."""
    variables, points = list(s.variables), list(s.point)
    later = [dict(zip(variables[k + 1 :], points[k + 1 :])) for k in range(len(variables))]
    if not any(p.free_symbols & set(later[k]) for k, p in enumerate(points)):
        return s
    for k in reversed(range(len(points))):
        points[k] = points[k].xreplace({v: points[j] for j, v in enumerate(variables) if j > k})
    kept = [(v, p) for v, p in zip(variables, points) if v in s.expr.free_symbols]  # U, now put, is gone
    return sp.Subs(s.expr, tuple(v for v, _ in kept), tuple(p for _, p in kept)) if kept else s.expr


def _key(atom):
    """One key per application or derivative, whatever its dummies are called."""
    if isinstance(atom, sp.Subs):
        d = atom.expr
        pos = {v: k for k, v in enumerate(atom.variables)}
        orders = tuple(sorted((pos.get(v, -1), int(k)) for v, k in d.variable_count))
        return (d.expr.func.__name__, orders, tuple(atom.point))
    if isinstance(atom, sp.Derivative):
        return (sp.srepr(atom),)
    return (atom.func.__name__, (), atom.args)


def symbolised(exprs) -> tuple[list[sp.Basic], dict[sp.Symbol, sp.Basic]]:
    """Each of ``exprs`` (canonical) with every application and derivative of an unknown function a
    fresh real symbol ``f__1``, ``f__2`` … (``__`` is no user's name), and the symbols' meanings."""
    from sympy.core.function import AppliedUndef

    table, names = {}, {}

    def is_atom(e):
        if isinstance(e, AppliedUndef):
            return True
        if isinstance(e, sp.Subs) and isinstance(e.expr, sp.Derivative) and isinstance(e.expr.expr, AppliedUndef):
            return True
        return isinstance(e, sp.Derivative) and bool(unknowns(e))

    def symbol(e):
        k = _key(e)
        if k not in table:
            head = k[0] if len(k) > 1 else "d"
            count = sum(1 for s in table.values() if s.name.startswith(head + "__")) + 1
            table[k] = sp.Symbol(f"{head}__{count}", real=True)
            names[table[k]] = e
        return table[k]

    out = []
    for e in exprs:  # the outermost first: f'(g(x)) is one value, not f' at a symbol for g(x)
        found, walk = [], sp.preorder_traversal(e)
        for node in walk:
            if is_atom(node):
                found.append(node)
                walk.skip()
        out.append(e.xreplace({a: symbol(a) for a in found}))
    return out, names


def draw(func, seed: int, k: int) -> Callable[[int], sp.Lambda]:
    """A random smooth real function of ``func``'s arity, the same for the same seed, draw and name:
    ``a·sin(c·t + d) + b·t + q·t²/4`` per argument (plus ``r·t1·t2`` for two or more)."""
    rng = random.Random(zlib.crc32(f"{func.__name__}/{seed}/{k}".encode()))

    def r(lo=-3, hi=3, den=(1, 2, 3)):
        return sp.Rational(rng.choice([n for n in range(lo, hi + 1) if n]), rng.choice(den))

    def make(arity):
        ts = [sp.Dummy(f"t{j}", real=True) for j in range(arity)]
        body = sum((r() * sp.sin(r(1, 3) * t + r()) + r() * t + r() * t**2 / 4 for t in ts), sp.Integer(0))
        if arity >= 2:
            body += r() * ts[0] * ts[1]
        return sp.Lambda(tuple(ts), body)

    return make


def concrete(exprs, table: dict) -> list[sp.Basic]:
    """``exprs`` (canonical) with each unknown function replaced by ``table[f]`` (a Lambda), derivatives taken."""
    from sympy.core.function import AppliedUndef

    def put(e):
        return table[e.func](*e.args)

    return [_taken(e.replace(lambda a: isinstance(a, AppliedUndef) and a.func in table, put)) for e in exprs]


def _taken(e: sp.Basic) -> sp.Basic:
    """``e.doit()`` but for its sums and products, whose bodies alone are done: a Sum over a symbolic
    range with the drawn functions put in (``\\sum_x p(x) \\log q(x)``) sent SymPy looking for a closed
    form without end; the numeric backends sum it term by term once N_sum is drawn."""
    from mathcheck.symbolic.limits import doit_keeping_limits

    outer = {a: sp.Dummy() for a in e.atoms(sp.Sum, sp.Product)}
    done = doit_keeping_limits(e.xreplace(outer))
    return done.xreplace({v: type(k)(_taken(k.function), *k.limits) for k, v in outer.items()})


def arities(exprs) -> dict:
    """``{f: how many arguments}`` for the unknown functions applied in ``exprs``."""
    from sympy.core.function import AppliedUndef

    return {a.func: len(a.args) for e in exprs for a in e.atoms(AppliedUndef)}


def draws(arity: dict, seed: int) -> list[dict[type[sp.Function], sp.Lambda]]:
    """``DRAWS`` tables ``{f: Lambda}`` for the unknown functions (``arity``: :func:`arities`)."""
    order = sorted(arity, key=lambda f: f.__name__)
    return [{f: draw(f, seed, k)(arity[f]) for f in order} for k in range(DRAWS)]


def shown(table: dict) -> str:
    """``f(t) = sin(2*t + 1) + t`` for a report line."""
    parts = []
    for f, lam in table.items():
        ts = [sp.Symbol(f"t{j + 1}" if len(lam.variables) > 1 else "t") for j in range(len(lam.variables))]
        parts.append(f"{f.__name__}({', '.join(map(str, ts))}) = {sp.sstr(lam(*ts))}")
    return "; ".join(parts)


def check(
    lhs,
    rhs,
    relation: str,
    assumptions: dict,
    given: tuple = (),
    seed: int = 0,
    timeout: float = 30.0,
    *,
    lhs_text: str | None = None,
    rhs_text: str | None = None,
    implicit=(),
) -> CheckResult:
    """``given ⇒ lhs REL rhs`` for every choice of the unknown functions in it (module docstring):
    a :class:`~mathcheck.userexpr.relation.CheckResult`. ``implicit``: names of unknown functions a
    reader inferred (``\\frac{dC}{dx}`` of an undefined C): a link that fails for some such function but
    holds when it is a constant is inconclusive, never refuted (d2l's ``\\frac{d}{dx} C = 0``, C a constant
    the prose names)."""
    from mathcheck.userexpr.relation import CheckResult, NumericSide, SymbolicSide, check_relation, numeric_side

    base = {
        "lhs": lhs_text or sp.sstr(lhs),
        "rhs": rhs_text or sp.sstr(rhs),
        "assumptions": dict(assumptions),
        "seed": seed,
        "relation": relation,
        "given": tuple(sp.sstr(g) for g in given),
    }
    try:
        exprs = [canonical(e) for e in (lhs, rhs, *given)]
        sym_exprs, no_limit = _settled(exprs, timeout * SYMBOLIC_SHARE / 2)
    except Exception as exc:  # noqa: BLE001 - a SymPy failure is inconclusive, never a crash
        return CheckResult("inconclusive", how=f"unknown functions: {type(exc).__name__}: {exc}"[:300], **base)
    per_draw = max(timeout * (1 - SYMBOLIC_SHARE) / DRAWS, 1.0)
    passed, points, skipped = 0, 0, 0
    for k, table in enumerate(draws(arities(exprs), seed)):
        try:
            L, R, *hyps = concrete(exprs, table)
        except Exception as exc:  # noqa: BLE001
            return CheckResult("inconclusive", how=f"a drawn function: {type(exc).__name__}: {exc}"[:300], **base)
        num = numeric_side(L, R, relation, seed + k, tuple(hyps), "auto", per_draw)
        why = _not_refuted(exprs, table, implicit, relation, seed, per_draw) if num["status"] == "refuted" else None
        if why is not None:
            return _unsure(why, base)
        if num["status"] == "refuted":
            side = NumericSide.of({k: v for k, v in num.items() if k not in ("counterexample", "values")})
            return CheckResult(
                "refuted",
                numeric=side,
                counterexample=num.get("counterexample"),
                values=num.get("values"),
                how=f"fails for the function {shown(table)} (float64 at a sampled point, confirmed at 50 digits)",
                **base,
            )
        passed += num["status"] == "passed"
        points, skipped = points + int(num.get("points") or 0), skipped + int(num.get("skipped") or 0)
    if integrated(exprs) or no_limit:  # f(x) under ∫ dx or lim is no one value: a fresh symbol would make f a constant
        how = (
            "not shown for every function: an unknown function integrated over its own variable (∫ f(x) dx) "
            f"depends on all of f, so only the drawn functions were checked ({passed} of {DRAWS} passed)"
            if not no_limit
            else f"not shown for every function: {no_limit}; only the drawn functions were checked "
            f"({passed} of {DRAWS} passed)"
        )
        return CheckResult(
            "inconclusive",
            symbolic=SymbolicSide("inconclusive", how),
            numeric=NumericSide(
                "passed" if passed == DRAWS else "inconclusive",
                points,
                skipped,
                None,
                draws=DRAWS,
                passed=passed,
                evaluator="float64 (Python math)",
            ),
            how=how,
            **base,
        )
    L, R, *hyps = sym_exprs
    r = check_relation(L, R, relation, assumptions, tuple(hyps), seed, max(timeout * SYMBOLIC_SHARE, 1.0))
    limits_in = any(e.has(sp.Limit) for e in exprs)  # settled by Taylor's theorem: f three times differentiable
    if limits_in and r.symbolic is not None:
        from dataclasses import replace

        r = replace(
            r,
            symbolic=replace(
                r.symbolic, how=f"limits by Taylor's theorem, for every smooth function; {r.symbolic.how}"
            ),
        )
    numeric = NumericSide(
        "passed" if passed == DRAWS else "inconclusive",
        points,
        skipped,
        None,
        draws=DRAWS,
        passed=passed,
        evaluator="float64 (Python math)",
        note=f"{passed} of {DRAWS} random functions per unknown passed",
    )
    if r.status == "proved" and passed == DRAWS:
        return CheckResult(
            "proved",
            symbolic=r.symbolic,
            numeric=numeric,
            how=f"for every {'smooth ' * limits_in}function ({r.how}); {numeric.note}",
            **base,
        )
    why = r.how if r.status != "proved" else numeric.note
    return CheckResult(
        "inconclusive", symbolic=r.symbolic, numeric=numeric, how=f"not shown for every function: {why}", **base
    )


def _settled(exprs, seconds: float) -> tuple[list, str]:
    """The symbolised expressions (:func:`symbolised`), every limit first settled for every function
    (:mod:`mathcheck.symbolic.limits`: Taylor's theorem with a remainder, never a free value for
    ``f(x + h)``, which would make f a constant); ``(exprs, why)`` where a limit is not settled —
    then no symbolised check is run."""
    from mathcheck.symbolic.limits import Unsettled, settle

    if not any(e.has(sp.Limit) for e in exprs):
        return symbolised(exprs)[0], ""
    try:
        done = [settle(e, seconds) for e in exprs]
    except Unsettled as exc:
        return [], str(exc)
    return symbolised(done)[0], ""


def integrated(exprs) -> bool:
    """Whether an unknown function is applied to an integral's own variable (``f(x)`` in ``∫_0^1 f(x) dx``).
    The symbolised check replaces each application by one fresh value — sound for values (what holds for
    independent values holds for the ones a function takes), but under ∫ dx it would make f a constant:
    ``∫_0^1 f(x) dx = f(x)`` would come out proved.

        >>> x = sp.Symbol("x", real=True)
        >>> integrated([sp.Integral(sp.Function("f")(x), (x, 0, 1))]), integrated([sp.Function("f")(x)])
        (True, False)
    """
    from sympy.core.function import AppliedUndef

    for e in exprs:
        for i in e.atoms(sp.Integral):
            bound = {lim[0] for lim in i.limits}
            if any(a.free_symbols & bound for a in i.function.atoms(AppliedUndef)):
                return True
    return False


def _unsure(how: str, base: dict):
    """Inconclusive: it fails for some function, but holds for the one its author may mean."""
    from mathcheck.userexpr.relation import CheckResult, NumericSide, SymbolicSide

    return CheckResult(
        "inconclusive",
        symbolic=SymbolicSide("inconclusive", how),
        numeric=NumericSide("inconclusive", 0, 0, None, note="not refuted: see above"),
        how=how,
        **base,
    )


def _holds_for_constants(exprs, table: dict, implicit, relation: str, seed: int, seconds: float) -> bool:
    """Does the link hold when the implicit unknowns (``dC/dx`` of an undefined C) are constants?"""
    from mathcheck.userexpr.relation import numeric_side

    consts = {
        f: sp.Lambda(tuple(sp.Dummy(f"t{j}") for j in range(len(table[f].variables))), sp.Rational(3, 7) + j)
        for j, f in enumerate(sorted(table, key=lambda f: f.__name__))
        if f.__name__ in implicit
    }
    if not consts:
        return False
    L, R, *hyps = concrete(exprs, {**table, **consts})
    return numeric_side(L, R, relation, seed, tuple(hyps), "auto", seconds)["status"] == "passed"


def _holds_for_the_sigmoid(exprs, table: dict, relation: str, seed: int, seconds: float) -> bool:
    """σ(x) is the logistic sigmoid in most of machine learning, an arbitrary activation elsewhere:
    a link that fails for some σ but holds for the sigmoid is never refuted (its author may mean it)."""
    from mathcheck.userexpr.relation import numeric_side

    sigmas = [f for f in table if f.__name__ == "sigma"]
    if not sigmas or table[sigmas[0]].nargs != sp.FiniteSet(1):
        return False
    t = sp.Dummy("t", real=True)
    L, R, *hyps = concrete(exprs, {**table, sigmas[0]: sp.Lambda(t, 1 / (1 + sp.exp(-t)))})
    return numeric_side(L, R, relation, seed, tuple(hyps), "auto", seconds)["status"] == "passed"


def expanded_in_a_step(exprs) -> bool:
    """Whether an unknown function is applied both at a point x and at x shifted by a variable step,
    ``f(x + ε)`` beside ``f(x)`` (or ``g(x)``): the pattern of a Taylor expansion in ε.

        >>> f, x, e = sp.Function("f"), sp.Symbol("x"), sp.Symbol("e")
        >>> expanded_in_a_step([(f(x + e) - f(x)) / e]), expanded_in_a_step([f(x + 1) - f(x)])
        (True, False)
    """
    from sympy.core.function import AppliedUndef

    apps = [a for e in exprs for a in e.atoms(AppliedUndef) if len(a.args) == 1]
    points = {a.args[0] for a in apps}
    for p in points:
        if p.is_Add and any(
            q in points and (p - q).free_symbols and not (p - q).free_symbols & q.free_symbols for q in p.free_symbols
        ):
            return True
    return False


def _holds_for_affine(exprs, table: dict, relation: str, seed: int, seconds: float) -> bool:
    """Does the link hold when every unknown function is affine (its first-order Taylor polynomial)?"""
    from mathcheck.userexpr.relation import numeric_side

    affine = {}
    for j, f in enumerate(sorted(table, key=lambda f: f.__name__)):
        ts = tuple(sp.Dummy(f"t{k}", real=True) for k in range(len(table[f].variables)))
        affine[f] = sp.Lambda(ts, sum((sp.Rational(2 + j + k, 3) * t for k, t in enumerate(ts)), sp.Rational(1, 2 + j)))
    L, R, *hyps = concrete(exprs, affine)
    return numeric_side(L, R, relation, seed, tuple(hyps), "auto", seconds)["status"] == "passed"


def at_numbers_only(exprs) -> bool:
    """Whether the link has no free variable at all: its unknown functions are applied at numbers
    (``L(4)``, or ``L(4 + ε)`` under ``lim_{ε→0}``), so it states a value of one function its author
    names — ``lim (L(4 + ε) − L(4))/ε = 8`` is d2l's L's derivative at 4, never a claim for every L.

        >>> L, e = sp.Function("L"), sp.Symbol("e")
        >>> at_numbers_only([sp.Limit((L(4 + e) - L(4)) / e, e, 0), sp.Integer(8)]), at_numbers_only([L(e)])
        (True, False)
    """
    return bool(unknowns(*exprs)) and not any(e.free_symbols for e in exprs)


def conditional(relation: str) -> bool:
    """An inequality about unknown functions is never refuted by a drawn function: Jensen's
    ``\\sum_i \\alpha_i f(x_i) \\ge f(\\sum_i \\alpha_i x_i)`` fails for a random f (and for any f once
    the weights are free) and holds for the convex f and the weights d2l's prose names. An equality
    is refuted as before: a wrong chain rule fails for every function but a few."""
    return relation in INEQUALITIES


def _not_refuted(exprs, table: dict, implicit, relation: str, seed: int, seconds: float) -> str | None:
    """Why a link that fails for the drawn functions ``table`` is not refuted — its author may mean one
    function the prose names — or None: the one list of these readings, for a link and a chain's statement."""
    if _holds_for_constants(exprs, table, implicit, relation, seed, seconds):
        return f"fails when {', '.join(sorted(implicit))} vary, holds when constant: say which (define it, or % let:)"
    if _implicit_in(exprs, implicit):
        # ∂z^{(i)}/∂w = ∂/∂w (w^t x^{(i)} + b) with z defined by prose ("a's and z's are defined through"):
        # a name read as a function only from its derivative is the author's own quantity, and a random
        # one refuted a true link (statnotes' logistic regression)
        return (
            f"fails for {shown(table)}, but {', '.join(sorted(_implicit_in(exprs, implicit)))} is read as a "
            f"function only from its derivative: the author's quantity, defined where mathcheck does not "
            f"read (prose, or a display not read); define it (% let:) to check the link"
        )
    if _holds_for_the_sigmoid(exprs, table, relation, seed, seconds):
        return (
            "fails for some σ, but holds for the logistic sigmoid: if σ is the sigmoid, say so "
            "(% let: \\sigma = sigmoid)"
        )
    if expanded_in_a_step(exprs) and _holds_for_affine(exprs, table, relation, seed, seconds):
        return (
            f"fails for {shown(table)}, but holds for every affine function: equal up to higher-order terms "
            f"in the step only (a first-order expansion, as d2l writes its ≈ steps), so it is not refuted; "
            f"write ≈ for an approximation"
        )
    if at_numbers_only(exprs):
        return (
            f"fails for {shown(table)}, but its unknown functions are applied at given numbers only "
            f"(L(4), L(4 + ε) in a limit): the link is about one function the prose names, not every "
            f"function; define it (or % let:)"
        )
    if conditional(relation):
        return (
            f"fails for {shown(table)}: an inequality about an unknown function holds only under "
            f"conditions on it and on its arguments (f convex, weights that sum to 1, …) that prose "
            f"states and mathcheck does not read, so it is left undecided (define the function to "
            f"check it for that one)"
        )
    return None


def _implicit_in(exprs, implicit) -> set:
    """The names of ``implicit`` (unknown functions read only from a derivative, dz/dw of an undefined z)
    that ``exprs`` apply."""
    return {f.__name__ for f in arities(exprs)} & set(implicit)


def numeric_statement(lhs, rhs, relation: str, seed: int, given, timeout: float, implicit=()) -> dict:
    """A chain's statement (first REL last) checked numerically over the random functions: the
    ``numeric_side`` dict of the first draw that fails, else of the last."""
    from mathcheck.userexpr.relation import numeric_side

    exprs = [canonical(e) for e in (lhs, rhs, *given)]
    num = {"status": "inconclusive", "points": 0, "skipped": 0, "max_abs_err": None}
    for k, table in enumerate(draws(arities(exprs), seed)):
        L, R, *hyps = concrete(exprs, table)
        num = numeric_side(L, R, relation, seed + k, tuple(hyps), "auto", max(timeout / DRAWS, 1.0))
        if num["status"] == "refuted" and _not_refuted(exprs, table, implicit, relation, seed, timeout / DRAWS):
            return {
                "status": "inconclusive",
                "points": 0,
                "skipped": 0,
                "max_abs_err": None,
                "note": "fails for some function, holds for the one its author may mean",
            }
        if num["status"] == "refuted":
            return {**num, "note": f"fails for the function {shown(table)}"}
        if num["status"] != "passed":
            return num
    return num
