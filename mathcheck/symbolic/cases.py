"""Proving strategies that decide a relation by cases, in elementary form or under the hypotheses;
each one sound on its own, each a :class:`~mathcheck.symbolic.decide.Prover` of the one plan
(:data:`mathcheck.symbolic.decide.PROVERS`), so ``prove``, ``check``, ``derive`` and the claim API
all use them (issue 34; they were the user pipeline's own until then).

* **piecewise** (:func:`piecewise_zero`): ``Max``/``Min``/``Abs`` rewritten as a ``Piecewise``,
  folded and simplified to 0.
* **special functions in elementary form** (:func:`special_zero`): ``asinh``/``acosh``/``atanh``
  as logarithms, ``erfc`` as ``1 − erf``, ``loggamma(a)`` as ``log Γ(a)`` where ``a > 0``.

* **case splits** (:func:`by_cases`): ``Max``/``Min``/``Abs``/``Heaviside`` (and so ``relu`` and its
  derivative) are replaced by their branch in each sign region of their arguments — ``Max(a, b)`` is ``a`` where
  ``a − b ≥ 0`` and ``b`` where ``a − b < 0`` — and the relation is proved in *every* region under
  that region's conditions (an argument shared by several functions is split once, so
  ``Max(x, y) + Min(x, y) = x + y`` has two regions, not four). A region is proved when the
  difference there is zero, or, for an inequality, when it is a non-negative multiple of one of
  the region's conditions (or of a ``given:`` hypothesis) or its sign follows from the assumptions.
* **peeling sums and products** (:func:`peel`): sums with the same summand and lower bound whose
  upper bounds differ by a whole number are written over the smallest range plus the peeled terms,
  ``Σ_{k=1}^{j} f(k) = Σ_{k=1}^{j−1} f(k) + f(j)`` (likewise lower bounds, and products by
  factors). Under SymPy's (Karr's) convention for reversed ranges, ``Σ_a^b = −Σ_{b+1}^{a−1}``,
  this holds for every integer bound, so no ``j ≥ 1`` is needed; the float64 side sums by the same
  convention.
* **closed forms under side conditions** (:func:`closed_form`): ``doit()`` gives e.g. the geometric
  sum as ``Piecewise((n + 1, Eq(b, 1)), ((1 − b^{n+1})/(1 − b), True))``; a branch whose condition
  the hypotheses contradict (``given: b != 1`` or ``b > 1`` against ``Eq(b, 1)``) is dropped,
  and only then is the difference tested for zero.

:func:`mathcheck.symbolic.decide.by_provers` runs them in that order, each within its share of
the budget; each returns how the relation was shown, or None: none refutes (the counterexample
searches do that).

    >>> from mathcheck.lazy import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> by_cases(sp.Max(x, y) + sp.Min(x, y), x + y, "=")
    'case split on the sign of x - y (2 regions)'
"""

from __future__ import annotations

import itertools

from mathcheck.lazy import sympy as sp

MAX_SPLITS = 4  # sign conditions split on at once (2^4 regions)
MAX_PEEL = 4  # terms peeled off a sum


# --- in elementary form --------------------------------------------------------------------------


def piecewise_zero(d) -> bool:
    """``Max``/``Min``/``Abs`` rewritten as a ``Piecewise``, folded and simplified to 0.

    >>> x, y = sp.symbols("x y", real=True)
    >>> piecewise_zero(sp.Max(x, y) - (x + y + sp.Abs(x - y)) / 2)
    True
    """
    if not d.has(sp.Max, sp.Min, sp.Abs):
        return False
    return sp.simplify(sp.piecewise_fold(d.rewrite(sp.Piecewise))) == 0


def special_zero(d) -> bool:
    """The functions the rewriting strategies have no rule for, in elementary form, simplified to 0:
    ``asinh``/``acosh``/``atanh`` as logarithms, ``erfc`` as ``1 − erf``, ``loggamma(a)`` as
    ``log Γ(a)`` where ``a > 0``, then ``expand_func`` (Γ(x + 1) = xΓ(x)) and ``expand_log``.

        >>> x = sp.Symbol("x", real=True)
        >>> special_zero(sp.erfc(x) - 1 + sp.erf(x))
        True
    """
    inverse = (sp.asinh, sp.acosh, sp.atanh)
    if not d.has(*inverse, sp.erfc, sp.loggamma, sp.gamma):
        return False
    e = d.replace(lambda t: isinstance(t, inverse), lambda t: t.rewrite(sp.log))
    e = e.replace(lambda t: isinstance(t, sp.erfc), lambda t: 1 - sp.erf(t.args[0]))
    e = e.replace(lambda t: isinstance(t, sp.loggamma) and t.args[0].is_positive, lambda t: sp.log(sp.gamma(t.args[0])))
    e = sp.expand_log(sp.expand_func(e))
    return sp.expand(e) == 0 or sp.simplify(e) == 0


def zero(e) -> bool:
    """``e`` is 0 after ``expand`` or ``simplify`` (the last test of peeling, substituting, closing)."""
    return e is not None and (sp.expand(e) == 0 or sp.simplify(e) == 0)


def given_substituted(e, given) -> bool:
    """``e`` is 0 once the hypotheses' equations are substituted (:func:`substitute_given`)."""
    return zero(substitute_given(e, given))


def peeled(e) -> bool:
    """``e`` is 0 once its sums are peeled to a common range (:func:`peel`)."""
    return zero(peel(e))


def closed(e, given) -> bool:
    """``e`` is 0 in closed form, no ``Piecewise`` left once the hypotheses prune it (:func:`closed_form`)."""
    c = closed_form(e, given)
    return c is not None and not c.has(sp.Piecewise) and zero(c)


# --- case splits --------------------------------------------------------------------------------------


def _splits(e) -> list:
    """The distinct sign conditions ``g`` (split as ``g ≥ 0`` / ``g < 0``) of e's piecewise functions."""
    out: list = []

    def add(g):
        g = sp.expand(g)
        if g.could_extract_minus_sign():
            g = -g  # split on x, not on −x: the same two regions
        if g.is_number or g in out:
            return
        out.append(g)

    for f in e.atoms(sp.Max, sp.Min, sp.Abs, sp.Heaviside):
        if isinstance(f, (sp.Max, sp.Min)):
            args = list(f.args)
            for a, b in itertools.combinations(args, 2):
                add(a - b)
        else:
            add(f.args[0])
    return sorted(out, key=sp.default_sort_key)  # the same regions, in the same order, every run


def _branch(e, signs: dict):
    """``e`` with each ``Max``/``Min``/``Abs`` replaced by its branch where each g has the given sign
    (``signs[g]``: +1 for g ≥ 0, −1 for g < 0). A condition met as −g reads as g ≤ 0; at g = 0 both
    branches agree (Max(a, a) = a, |0| = −0), so the boundary needs no region of its own."""

    def sign_of(g):
        g = sp.expand(g)
        if g in signs:
            return signs[g]
        if -g in signs:
            return -signs[-g]
        return None

    def pick(f):
        if isinstance(f, sp.Abs):
            s = sign_of(f.args[0])
            return f if s is None else (f.args[0] if s > 0 else -f.args[0])
        best = f.args[0]
        for a in f.args[1:]:
            s = sign_of(best - a)
            if s is None:
                return f
            if isinstance(f, sp.Max):
                best = best if s > 0 else a
            else:
                best = best if s < 0 else a
        return best

    return e.replace(lambda t: isinstance(t, (sp.Max, sp.Min, sp.Abs)), pick)


def _nonneg_multiple(d, facts) -> bool:
    """Whether ``d ≥ 0`` follows: d is 0, or a positive constant times a fact ``g ≥ 0``, or
    its sign follows from the symbols' assumptions."""
    d = sp.expand(d)
    if d == 0 or d.is_nonnegative:
        return True
    for g in facts:
        if g == 0:
            continue
        ratio = sp.simplify(d / g)
        if ratio.is_number and ratio.is_positive:
            return True
        rest = sp.expand(d - g)
        if rest == 0 or rest.is_nonnegative:
            return True
    return any(_combination(d, pair) for pair in itertools.combinations(facts, 2))


def _combination(d, facts) -> bool:
    """Whether ``d = Σ c_k g_k + r`` with constants ``c_k ≥ 0`` and ``r ≥ 0`` (each ``g_k ≥ 0``),
    matching the coefficients of d and the facts as polynomials in their symbols."""
    syms = sorted(set().union(d.free_symbols, *[g.free_symbols for g in facts]), key=str)
    if not syms:
        return False
    cs = sp.symbols(f"c0:{len(facts)}")
    try:
        poly = sp.Poly(sp.expand(d - sum(c * g for c, g in zip(cs, facts))), *syms)
    except sp.PolynomialError:
        return False
    eqs = [c for m, c in zip(poly.monoms(), poly.coeffs()) if any(m)]
    sol = sp.solve(eqs, cs, dict=True)
    if len(sol) != 1 or set(sol[0]) != set(cs):
        return False
    vals = [sol[0][c] for c in cs]
    rest = poly.as_expr().subs(sol[0]).xreplace({x: 0 for x in syms})
    return all(v.is_number and v >= 0 for v in vals) and rest.is_number and rest >= 0


def _holds(L, R, relation: str, facts) -> bool:
    """``L REL R`` where every ``g ≥ 0`` in ``facts`` holds (strict relations are not attempted)."""
    if relation == "=":
        d = sp.expand(L - R)
        return d == 0 or sp.simplify(d) == 0
    if relation == ">=":
        return _nonneg_multiple(L - R, facts)
    if relation == "<=":
        return _nonneg_multiple(R - L, facts)
    return False


def _facts(given) -> list:
    """The hypotheses ``a ≥ b``/``a > b``/``a ≤ b``/``a < b`` as expressions ``g ≥ 0``."""
    out = []
    for g in given:
        if isinstance(g, (sp.GreaterThan, sp.StrictGreaterThan)):
            out.append(sp.expand(g.lhs - g.rhs))
        elif isinstance(g, (sp.LessThan, sp.StrictLessThan)):
            out.append(sp.expand(g.rhs - g.lhs))
    return out


def _heaviside(e, signs: dict):
    """Heaviside(g) by the region: 1 where g > 0, 0 where g < 0, SymPy's H(0) = 1/2 where g = 0."""

    def pick(h):
        g = sp.expand(h.args[0])
        s = signs.get(g, None)
        if s is None and -g in signs:
            s = -signs[-g]
        if s is None:
            return h
        at0 = h.args[1] if len(h.args) > 1 else sp.Rational(1, 2)  # SymPy's H(0), 1/2 unless given
        return sp.Integer(1) if s > 0 else sp.Integer(0) if s < 0 else at0

    return e.replace(lambda t: isinstance(t, sp.Heaviside), pick)


def _on_boundary(g):
    """``{symbol: value}`` that makes ``g = 0`` (g linear in that symbol), or None."""
    for sym in sorted(g.free_symbols, key=str):
        if sym.is_integer:
            continue
        try:
            if sp.degree(g, sym) != 1:
                continue
        except sp.PolynomialError:
            continue
        a = g.coeff(sym)
        if a.free_symbols or a == 0:
            continue
        return {sym: sp.expand(-(g - a * sym) / a)}
    return None


def by_cases(L, R, relation: str, given=()) -> str | None:
    """How ``L REL R`` was shown region by region, or None (see the module docstring).

    A ``Heaviside(g)`` adds the boundary ``g = 0`` as a region of its own (H(0) = 1/2 there),
    decided with one symbol of g solved for; Max/Min/Abs need none (both branches agree there)."""
    if relation in ("<", ">"):
        return None
    e = L - R
    splits = _splits(e)
    if not splits or len(splits) > MAX_SPLITS:
        return None
    steps = [sp.expand(h.args[0]) for h in e.atoms(sp.Heaviside)]
    steps = {g if g in splits else -g for g in steps}
    base = _facts(given)
    strict = [f for f, s in (_nonneg_form(g) or (None, False) for g in given) if f is not None and s]
    count, kinks = 0, 0
    choices = [(1, -1, 0) if g in steps else (1, -1) for g in splits]
    for combo in itertools.product(*choices):
        signs = dict(zip(splits, combo))
        # a region the hypotheses exclude: g < 0 there but given g ≥ 0 (or g ≥ 0 but given −g > 0)
        if any((s < 0 and sp.expand(g) in base) or (s >= 0 and sp.expand(-g) in strict) for g, s in signs.items()):
            continue
        if _no_derivative(L, R, signs):
            kinks += 1
            continue
        count += 1
        Lc, Rc = _heaviside(_branch(L, signs), signs), _heaviside(_branch(R, signs), signs)
        if (Lc - Rc).has(sp.Max, sp.Min, sp.Abs, sp.Heaviside):
            return None
        facts = base + [g if s >= 0 else -g for g, s in signs.items()]
        for g, s in signs.items():
            if s == 0:  # on the boundary: one symbol of g solved for
                at = _on_boundary(g)
                if at is None:
                    return None
                Lc, Rc = Lc.xreplace(at), Rc.xreplace(at)
                facts = [sp.expand(f.xreplace(at)) for f in facts]
        if not _holds(Lc, Rc, relation, facts):
            return None
    names = ", ".join(sp.sstr(g) for g in splits)
    excluded = len(list(itertools.product(*choices))) - count - kinks
    out = f"case split on the sign of {names} ({count} region{'s' * (count != 1)}"
    out += f"; {excluded} excluded by the hypotheses" if excluded else ""
    if kinks:
        out += f"; {kinks} boundary left out: a derivative of Max/Min/Abs has no value there"
    return out + ")"


def _no_derivative(L, R, signs: dict) -> bool:
    """Whether this region is a boundary ``g = 0`` where a side is a derivative that does not exist:
    SymPy writes d/dx Max(x, y) as ``Heaviside(x − y)`` with its convention H(0) = 1/2 (the grammar's
    ``step`` is Heaviside(t, 1), so a Heaviside at 1/2 comes only from a derivative at a kink), and a
    side whose limits from either side of the boundary differ jumps there — a derivative never does
    (Darboux), so the function has none at the boundary and the relation claims nothing there
    (cs231n's ∂max(x, y)/∂x = 1(x ≥ y) holds wherever the derivative exists). ``d/dx Max(x, 0)^2 =
    2 Max(x, 0) H(x)`` keeps its boundary: no jump there."""
    zero = [g for g, s in signs.items() if s == 0]
    if not zero:
        return False
    half = sp.Rational(1, 2)

    def limit(e, side):  # each H(±g) at 1/2 as just above (side 1) or just below (side -1) the boundary
        def pick(h):
            g = sp.expand(h.args[0])
            if h.args[1] != half:
                return h
            if g in zero:
                return sp.Integer(1 if side > 0 else 0)
            if -g in zero:
                return sp.Integer(0 if side > 0 else 1)
            return h

        return e.replace(lambda t: isinstance(t, sp.Heaviside), pick)

    for side in (L, R):
        if not any(h.args[1] == half for h in side.atoms(sp.Heaviside)):
            continue
        above, below = (_heaviside(_branch(limit(side, v), signs), signs) for v in (1, -1))
        for g in zero:
            place = _on_boundary(g)
            if place is None:
                return False
            above, below = above.xreplace(place), below.xreplace(place)
        if sp.simplify(above - below) != 0:
            return True
    return False


# --- peeling sums and products ------------------------------------------------------------------


def _key(s):
    """A sum's summand with its index renamed to one fixed name, to group sums over the same terms
    (``k__`` has a double underscore, which the parser refuses in a user's name)."""
    ((k, _a, _b),) = s.limits
    return type(s), s.function.xreplace({k: sp.Symbol("k__", integer=True)})


def _rewrite(s, lo, hi):
    """``s`` over (lo, hi) written as that range plus/times the terms outside it."""
    ((k, a, b),) = s.limits
    core = type(s)(s.function, (k, lo, hi))
    terms = [s.function.xreplace({k: t}) for t in _between(hi, b)] + [
        s.function.xreplace({k: t}) for t in _between_low(a, lo)
    ]
    if isinstance(s, sp.Product):
        return sp.Mul(core, *terms)
    return sp.Add(core, *terms)


def _between(hi, b):
    m = sp.simplify(b - hi)
    return [hi + t for t in range(1, int(m) + 1)]


def _between_low(a, lo):
    m = sp.simplify(lo - a)
    return [a + t for t in range(int(m))]


def peel(e) -> sp.Basic | None:
    """``e`` with every group of sums (products) over the same terms written over one common range."""
    sums = [s for s in e.atoms(sp.Sum, sp.Product) if len(s.limits) == 1]
    groups: dict = {}
    for s in sums:
        groups.setdefault(_key(s), []).append(s)
    repl = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        los = [m.limits[0][1] for m in members]
        his = [m.limits[0][2] for m in members]
        lo, hi = los[0], his[0]
        for x in los[1:]:
            dx = sp.simplify(x - lo)
            if not dx.is_Integer or abs(int(dx)) > MAX_PEEL:
                lo = None
                break
            lo = x if dx > 0 else lo
        for x in his[1:] if lo is not None else []:
            dx = sp.simplify(x - hi)
            if not dx.is_Integer or abs(int(dx)) > MAX_PEEL:
                hi = None
                break
            hi = x if dx < 0 else hi
        if lo is None or hi is None:
            continue
        for m in members:
            repl[m] = _rewrite(m, lo, hi)
    return e.xreplace(repl) if repl else None


# --- closed forms with side conditions -----------------------------------------------------------


def _contradicted(cond, given) -> bool:
    """Whether a hypothesis rules out ``cond`` (an ``Eq(u, v)`` against ``u ≠ v``, ``u > v`` ...)."""
    if not isinstance(cond, sp.Eq):
        return False
    d = sp.expand(cond.lhs - cond.rhs)
    for g in given:
        if isinstance(g, (sp.Ne, sp.StrictGreaterThan, sp.StrictLessThan)):
            h = sp.expand(g.lhs - g.rhs)
            if h == d or h == -d:
                return True
    if d.is_nonzero is True:
        return True
    # Eq(1/b, 1) against b < 1: every real solution for one symbol (solveset: all of them, or no
    # answer) breaks a hypothesis there
    for sym in sorted(d.free_symbols, key=str):
        sols = sp.solveset(d, sym, domain=sp.S.Reals)
        if isinstance(sols, sp.FiniteSet) and all(any(g.xreplace({sym: v}) is sp.false for g in given) for v in sols):
            return True
    return False


def _nonneg_form(r):
    """``a ≥ b`` / ``b ≤ a`` → ``(a − b, False)``; strict → ``(…, True)``; else None."""
    if isinstance(r, (sp.GreaterThan, sp.StrictGreaterThan)):
        return sp.expand(r.lhs - r.rhs), isinstance(r, sp.StrictGreaterThan)
    if isinstance(r, (sp.LessThan, sp.StrictLessThan)):
        return sp.expand(r.rhs - r.lhs), isinstance(r, sp.StrictLessThan)
    return None


def _implied(cond, given) -> bool:
    """Whether the hypotheses state ``cond`` (each part of an ``And`` a hypothesis, or weaker)."""
    if cond is sp.true:
        return True
    if isinstance(cond, sp.And):
        return all(_implied(c, given) for c in cond.args)
    want = _nonneg_form(cond)
    if want is None:
        return False
    for g in given:
        have = _nonneg_form(g)
        if have is None:
            continue
        slack = sp.expand(have[0] - want[0])  # have ≥ 0 and want = have + (−slack)
        if (slack == 0 and (have[1] or not want[1])) or (slack.is_number and slack < 0):
            return True
    return False


def closed_form(e, given=()) -> sp.Basic | None:
    """``e.doit()`` with the Piecewise branches the hypotheses rule out dropped (None if no Sum)."""
    if not e.has(sp.Sum, sp.Product):
        return None
    out = e.doit()

    def prune(p):
        kept = [(v, c) for v, c in p.args if not _contradicted(c, given)]
        if kept and _implied(kept[0][1], given):  # the first branch left is the one that applies
            return kept[0][0]
        return sp.Piecewise(*kept) if kept else p

    return out.replace(lambda t: isinstance(t, sp.Piecewise), prune)


def substitute_given(e, given) -> sp.Basic | None:
    """``e`` with each side of an equation hypothesis that is a sum or a symbol replaced by the
    other side (``given: Sum(y[j], (j, 1, n)) = 1`` turns ``Σ_i y_i`` into 1, whatever its index is
    called); None when no hypothesis applies."""
    repl = {}
    for h in given:
        if not isinstance(h, sp.Equality):
            continue
        for side, other in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
            if isinstance(side, sp.Sum) and len(side.limits) == 1:
                key = _key(side), side.limits[0][1:]
                for s in e.atoms(sp.Sum):
                    if len(s.limits) == 1 and (_key(s), s.limits[0][1:]) == key:
                        repl[s] = other
            elif isinstance(side, sp.Symbol) and not other.has(side) and e.has(side):
                repl[side] = other
    return e.xreplace(repl) if repl else None
