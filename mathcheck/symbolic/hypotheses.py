"""Hypotheses: what a part assumes, points that satisfy it, and an independent evaluation.

A part states ``given ⇒ lhs REL rhs``. Its hypotheses are

* its own ``given`` (``Eq(Sum(p[i], (i, 1, n)), 1)``, ``z[i] > z[j]``, ``Eq(a, 0)``, …);
* the Context's index ranges of the indices free in the part (``(1 <= j) & (j <= n)``);
* the definitions it relies on, as equations (``s[x] = exp(z[x]) / Σ_k exp(z[k])``, for every x).

:func:`sample_points` draws points (every symbol, and every concrete entry ``p[2]`` of an
IndexedBase, a number) that satisfy them: sizes first (small integers), indices inside their
ranges, the rest from the symbols' assumptions; then, constructively, a symbol fixed by an
equation takes its value, a normalisation ``Σ_i p_i = c`` rescales the entries, an order
``z_i > z_j`` swaps two entries, an equation in one remaining real symbol is solved for it; finally
every hypothesis is evaluated and a point that violates one is rejected (drawn again).

:func:`holds_at` evaluates a statement at such a point with mpmath (30 digits by default): sums
expanded at the concrete sizes, derivatives by ``sympy.diff``, none of the checker's strategies.

    >>> from mathcheck.lazy import sympy as sp
    >>> from mathcheck.claim import Part, Step, Context
    >>> p, i = sp.IndexedBase("p", positive=True), sp.Symbol("i", integer=True)
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> norm = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)
    >>> part = Part("x", (Step(sp.Sum(p[i], (i, 1, n)), ""), Step(sp.Integer(1), "")), given=(norm,))
    >>> all(holds_at(part.statement, hypotheses(part, Context()), pt) for pt in sample_points(part, Context(), 5, 0))
    True
"""

from __future__ import annotations

import random

from mathcheck.claim import Context, Part
from mathcheck.lazy import sympy as sp
from mathcheck.symbolic.context import basic as _basic, is_definition, range_hypothesis, ranges
from mathcheck.symbolic.rules import STATED_KINDS, vouched


# --- the hypotheses of a part ---------------------------------------------------------------------

def part_symbols(part: Part) -> set:
    """Every symbol the part's steps mention free (index symbols inside ``p[i]`` included)."""
    out: set = set()
    for s in part.steps:
        e = s.expr
        out |= getattr(e, "free_symbols", set())
    return out


def _mentions(part: Part, lhs) -> bool:
    key = lhs.base if isinstance(lhs, sp.Indexed) else lhs
    for s in part.steps:
        e = s.expr
        if isinstance(key, sp.IndexedBase):
            if any(x.base == key for x in getattr(e, "atoms", lambda *a: set())(sp.Indexed)):
                return True
        elif hasattr(e, "has") and e.has(key):
            return True
    return False


def _definition_statements(ctx: Context, part: Part) -> list:
    """The definitions (as equations) of the notation the part's steps use."""
    out = []
    used = [s.rule for s in part.steps[1:] if s.rule is not None]
    for r in list(ctx.definitions) + used:
        st = getattr(r, "statement", None)
        if st is None or getattr(r, "kind", "") != "definition" or st in out:
            continue
        if r in used or _mentions(part, st.lhs):
            out.append(st)
    return out


def hypotheses(part: Part, ctx: Context = Context()) -> tuple:
    """The part's hypotheses: its ``given``, the Context ranges of its free indices (unless the
    given bounds them already), and the indexed definitions it uses."""
    out = list(part.given)
    bounded = set(ranges(out))
    free = part_symbols(part) | set().union(*[getattr(h, "free_symbols", set()) for h in part.given])
    for v, lo, hi in ctx.indices:
        if v in free and v not in bounded:
            out.append(range_hypothesis(v, lo, hi))
    for st in _definition_statements(ctx, part):
        if st not in out:
            out.append(st)
    return tuple(out)


def stated(rule) -> str | None:
    """How a definition or an axiom a part relies on is printed among its hypotheses (None: not
    one, or an indexed definition :func:`hypotheses` prints as an equation already)."""
    if rule.kind == "axiom":
        return f"axiom: {rule.name}"
    if rule.kind == "definition" and getattr(rule, "statement", None) is None:
        return f"definition: {rule.name}"
    return None


def relied_on(part: Part, ctx: Context = Context()) -> tuple:
    """What else the part assumes, as text printed after its hypotheses (``show``, ``prove``, the
    JSON's ``given``): the axioms and definitions its steps cite, and the Context's definitions
    that rewrite one of its expressions (the checker applies those before every zero test), e.g.
    ``("axiom: linearity of expectation; independence of {k} and {q}",)``.

    A lemma citing the part does not inherit these: like notation, they are the claim's."""
    out = []
    for step in part.steps[1:]:
        if step.rule is not None and stated(step.rule):
            out.append(stated(step.rule))
    for d in context_rewrites(ctx):
        line = stated(d) if d.kind in STATED_KINDS else f"rewrite: {d.name}"
        if line is None or line in out:
            continue
        try:
            if any(d.apply(s.expr) != s.expr for s in part.steps):
                out.append(line)
        except Exception:  # noqa: BLE001 — a definition that cannot apply here rewrites nothing here
            continue
    return tuple(dict.fromkeys(out))


def unfold_definitions(e, hyps):
    """``e`` with every entry of a defined base replaced by its definition (repeatedly: O = PV
    brings in P, which has its own definition)."""
    defs = [h for h in hyps if is_definition(h)]
    for _ in range(len(defs) + 1):
        before = e
        for h in defs:
            base, xs = h.lhs.base, h.lhs.indices
            e = e.replace(lambda x, b=base: isinstance(x, sp.Indexed) and x.base == b,
                          lambda x, xs=xs, rhs=h.rhs: rhs.xreplace(dict(zip(xs, x.indices))))
        if e == before:
            break
    return e


# --- drawing points ---------------------------------------------------------------------------------

def size_symbols(exprs, ctx: Context = Context()) -> list:
    """Integer symbols that bound a Sum/Product or an index range, or size a MatrixSymbol."""
    index_syms = {lim[0] for lim in ctx.indices}
    dims: set = set()
    for e in exprs:
        if not hasattr(e, "atoms"):
            continue
        for s in e.atoms(sp.Sum, sp.Product):
            bound = {lim[0] for lim in s.limits}
            for _, a, b in s.limits:
                dims |= (_basic(a).free_symbols | _basic(b).free_symbols) - bound
        for m in e.atoms(sp.MatrixSymbol):
            for x in m.shape:
                dims |= _basic(x).free_symbols
    for _, lo, hi in ctx.indices:
        dims |= (_basic(lo).free_symbols | _basic(hi).free_symbols)
    return sorted((d for d in dims if d not in index_syms and d.is_integer), key=str)


def sample_value(sym, rng: random.Random, hint=None):
    """A value for ``sym`` (a Symbol or an Indexed entry) that its declared assumptions allow."""
    if hint is not None:
        lo, hi = hint
        return sp.Rational(rng.randint(int(lo * 1000) + 1, int(hi * 1000) - 1), 1000)
    if sym.is_integer:
        if sym.is_positive:
            return sp.Integer(rng.randint(1, 4))
        if sym.is_nonnegative:
            return sp.Integer(rng.randint(0, 4))
        return sp.Integer(rng.randint(-3, 3))
    num = sp.Rational(rng.randint(1, 2999), 1000)
    if sym.is_positive:
        return num
    if sym.is_nonnegative:
        return num - sp.Rational(1, 1000)
    if sym.is_negative:
        return -num
    return num if rng.random() < 0.5 else -num


def concrete(e, point: dict):
    """``e`` at the point: symbols first, then sums and products expanded at the concrete sizes
    (derivatives are taken before anything is substituted: d/dT at T = 2 is not d/d2), then entries."""
    syms = {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)}
    entries = {k: v for k, v in point.items() if isinstance(k, sp.Indexed)}
    if hasattr(e, "has") and e.has(sp.Derivative):
        e = _differentiated(e)
    e = expand_sums(e.xreplace(syms)).xreplace(entries)
    if hasattr(e, "has") and e.has(sp.Sum, sp.Product, sp.Limit, sp.Subs, sp.Derivative, sp.Piecewise):
        e = e.doit()
    return e


_DIFFERENTIATED: dict = {}


def _differentiated(e):
    """``e`` with its derivatives taken by ``sympy.diff`` (once per expression: points reuse it)."""
    if e not in _DIFFERENTIATED:
        if len(_DIFFERENTIATED) > 256:
            _DIFFERENTIATED.clear()
        _DIFFERENTIATED[e] = e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit(deep=False))
    return _DIFFERENTIATED[e]


def expand_sums(e):
    """Every Sum and Product with integer bounds written out term by term (no closed forms tried)."""
    if not getattr(e, "args", None) or isinstance(e, (sp.Indexed, sp.IndexedBase)):
        return e
    if isinstance(e, (sp.Sum, sp.Product)):
        f = expand_sums(e.function)
        for v, a, b in e.limits:
            a, b = _basic(a), _basic(b)
            if not (a.is_Integer and b.is_Integer) or b - a > 10000:
                return e.func(f, *e.limits)
            terms = [f.xreplace({v: sp.Integer(k)}) for k in range(int(a), int(b) + 1)]
            if b < a - 1:  # SymPy's (Karr's) convention for reversed ranges
                return e.doit()
            f = sp.Add(*terms) if isinstance(e, sp.Sum) else sp.Mul(*terms)
        return expand_sums(f)
    args = tuple(expand_sums(a) for a in e.args)
    return e.func(*args) if args != e.args else e


def _holds(h, point: dict, dps: int = 30) -> bool | None:
    """Whether hypothesis ``h`` holds at the point (None: cannot be evaluated)."""
    if is_definition(h, point):
        return True  # a definition is used by unfolding, never sampled against
    try:
        c = concrete(h, point)
    except Exception:  # noqa: BLE001 — an expression SymPy cannot evaluate here decides nothing
        return None
    if c in (sp.true, True):
        return True
    if c in (sp.false, False):
        return False
    if isinstance(c, sp.And):
        vals = [_holds(a, {}, dps) for a in c.args]
        return False if False in vals else None if None in vals else True
    if isinstance(c, sp.Or):
        vals = [_holds(a, {}, dps) for a in c.args]
        return True if True in vals else None if None in vals else False
    if isinstance(c, sp.Rel):
        return _compare(c.lhs, c.rhs, c.rel_op, dps)
    return None


def _value(x, dps: int):
    if x.free_symbols or x.atoms(sp.Indexed) or x.atoms(sp.core.function.AppliedUndef):
        return None
    v = sp.N(x, dps)
    if not v.is_number or v.has(sp.nan, sp.zoo) or v.is_real is False:
        return None
    return v


def _compare(lhs, rhs, op: str, dps: int) -> bool | None:
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        if op != "==" or sp.Matrix(lhs).shape != sp.Matrix(rhs).shape:
            return None
        vals = [_compare(a, b, op, dps) for a, b in zip(sp.Matrix(lhs), sp.Matrix(rhs))]
        return False if False in vals else None if None in vals else True
    l, r = _value(lhs, dps), _value(rhs, dps)
    if l is None or r is None:
        return None
    if l.has(sp.oo, -sp.oo) or r.has(sp.oo, -sp.oo):
        return {"==": bool(l == r), ">=": bool(l >= r), ">": bool(l > r), "<=": bool(l <= r),
                "<": bool(l < r)}.get(op)
    tol = sp.Float(10, dps) ** (-(dps - 8)) * max(1, abs(l), abs(r))
    d = l - r
    # SymPy's comparisons answer BooleanTrue/BooleanFalse, which are not the singletons True/False:
    # callers test `is False`, so hand back plain bools (a SymPy false would read as "not refuted").
    out = {"==": abs(d) <= tol, ">=": d >= -tol, ">": d > -tol, "<=": d <= tol, "<": d < tol,
           "!=": abs(d) > tol}.get(op)
    return None if out is None else bool(out)


def _fix_equations(hyps, point, exprs_entries: set, rng, hints) -> None:
    """Constructive steps: a symbol fixed by an equation, a normalised base, an order of two entries."""
    for h in hyps:
        if isinstance(h, sp.Equality) and not is_definition(h, point):
            for side, other in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
                if isinstance(side, (sp.Symbol, sp.Indexed)) and not isinstance(side, sp.Dummy) \
                        and not other.has(side):
                    try:
                        v = concrete(concrete(side, point), point) if isinstance(side, sp.Indexed) else side
                        val = concrete(other, point)
                    except Exception:  # noqa: BLE001
                        continue
                    if not val.free_symbols and not val.atoms(sp.Indexed):
                        point[v] = val
                        break
            # Σ_i b_i = c: rescale the entries of b in the range
            s = h.lhs if isinstance(h.lhs, sp.Sum) else h.rhs if isinstance(h.rhs, sp.Sum) else None
            c = h.rhs if s is h.lhs else h.lhs
            if s is not None and len(s.limits) == 1 and isinstance(s.function, sp.Indexed):
                (v, a, b), = s.limits
                try:
                    a_v, b_v, c_v = concrete(a, point), concrete(b, point), concrete(c, point)
                except Exception:  # noqa: BLE001
                    continue
                if not (a_v.is_Integer and b_v.is_Integer and c_v.is_number and c_v > 0):
                    continue
                syms = {x: y for x, y in point.items() if not isinstance(x, sp.Indexed)}
                entries = [s.function.xreplace({v: sp.Integer(k)}).xreplace(syms)
                           for k in range(a_v, b_v + 1)]
                for x in entries:
                    if x not in point:
                        point[x] = sample_value(x, rng, hints.get(x.base))
                total = sum(point[x] for x in entries)
                if total > 0:
                    for x in entries:
                        point[x] = point[x] * c_v / total
    for h in hyps:  # an order between two entries (or symbols): swap their values when reversed
        if isinstance(h, (sp.StrictGreaterThan, sp.StrictLessThan, sp.GreaterThan, sp.LessThan)):
            try:
                a, b = concrete(h.lhs, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)}), \
                    concrete(h.rhs, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)})
            except Exception:  # noqa: BLE001
                continue
            if a in point and b in point and _holds(h, point) is False:
                point[a], point[b] = point[b], point[a]


def _solve_remaining(hyps, point, order) -> None:
    """An equation that still fails, in one real symbol of ``order``: solve for it at the point."""
    for h in hyps:
        if not isinstance(h, sp.Equality) or is_definition(h, point) or _holds(h, point) is not False:
            continue
        for sym in order:
            if not h.has(sym):
                continue
            rest = {k: v for k, v in point.items() if k != sym}
            try:
                sols = [concrete(x, rest) for x in _solutions(h.lhs - h.rhs, sym)]
                sols = [x for x in sols if x.is_real]
            except Exception:  # noqa: BLE001
                continue
            if sols:
                point[sym] = sols[0]
                break


_SOLVED: dict = {}


def _solutions(e, sym) -> list:
    """``sympy.solve(e, sym)``, symbolically and once per equation (the point is put in after)."""
    key = (e, sym)
    if key not in _SOLVED:
        try:
            _SOLVED[key] = list(sp.solve(e, sym))
        except Exception:  # noqa: BLE001 — an equation SymPy cannot solve gives no solution
            _SOLVED[key] = []
    return _SOLVED[key]


def smallest_size(d) -> int:
    """The smallest size drawn for the dimension ``d``: 1 if it is positive, 0 if nonnegative, else
    −3. An integer that may be negative is drawn negative too: Σ_{i=1}^{n} i² = −5 at n = −3 (Karr's
    convention), so a bound the assumptions leave free is a case the statement must survive."""
    return 1 if d.is_positive else 0 if d.is_nonnegative else -3


def draw(exprs, hyps, ctx: Context, rng: random.Random, sizes: dict | None = None):
    """One point satisfying ``hyps`` for the expressions ``exprs``, or None (rejected)."""
    hints = dict(ctx.sample)
    exprs = [unfold_definitions(e, hyps) for e in exprs]
    every = list(exprs) + [h for h in hyps if not is_definition(h)]
    point: dict = {}
    for d in size_symbols(every, ctx):
        if sizes and d in sizes:
            point[d] = sp.Integer(sizes[d])
        elif sizes and str(d) in sizes:
            point[d] = sp.Integer(sizes[str(d)])
        else:
            point[d] = sp.Integer(rng.randint(smallest_size(d), 3))
    rng_of = dict(ranges(hyps))
    for v, lo, hi in ctx.indices:
        rng_of.setdefault(v, (_basic(lo), _basic(hi)))
    free = set().union(*[getattr(e, "free_symbols", set()) for e in every])
    labels = set()
    for e in every:
        if hasattr(e, "atoms"):
            labels |= {b.label for b in e.atoms(sp.IndexedBase)}
    for v in sorted(free & set(rng_of), key=str):
        if v in point:
            continue
        lo, hi = (_basic(x).xreplace(point) for x in rng_of[v])
        if not (lo.is_Integer and hi.is_Integer) or hi < lo:
            return None
        point[v] = sp.Integer(rng.randint(int(lo), int(hi)))
    fixed = set()
    for h in hyps:  # symbols an equation fixes are set from it, not drawn
        if isinstance(h, sp.Equality) and not is_definition(h):
            for side in (h.lhs, h.rhs):
                if isinstance(side, sp.Symbol):
                    fixed.add(side)
    plain = sorted((s for s in free - set(point) - labels if isinstance(s, sp.Symbol)), key=str)
    for sym in plain:
        if sym not in fixed:
            point[sym] = sample_value(sym, rng, hints.get(sym))
    _fix_equations(hyps, point, set(), rng, hints)
    for sym in plain:
        if sym not in point:
            point[sym] = sample_value(sym, rng, hints.get(sym))
    entries: set = set()
    for e in every:
        try:
            c = concrete(e, {k: v for k, v in point.items() if not isinstance(k, sp.Indexed)})
        except Exception:  # noqa: BLE001
            continue
        if hasattr(c, "atoms"):  # an entry at an undefined index (x[σ(1), f]) has no value to draw
            entries |= {x for x in c.atoms(sp.Indexed) if all(ix.is_number for ix in x.indices)}
    for idx in sorted(entries, key=str):
        if idx not in point:
            point[idx] = sample_value(idx, rng, hints.get(idx.base))
    _fix_equations(hyps, point, entries, rng, hints)
    _solve_remaining(hyps, point, [s for s in reversed(plain)])
    for h in hyps:
        if _holds(h, point) is False:
            return None
    return point


def sample_points(part: Part, context: Context = Context(), count: int = 40, seed: int = 0,
                  sizes: dict | None = None, tries: int = 20) -> list[dict]:
    """Up to ``count`` points satisfying the part's hypotheses (rejection after a constructive
    draw, at most ``tries`` draws per point). ``sizes`` fixes size symbols (``{"n": 3}``)."""
    rng = random.Random(seed)
    hyps = hypotheses(part, context)
    exprs = [s.expr for s in part.steps[:1]] + [part.steps[-1].expr]
    exprs = [unfold_context(e, context) for e in exprs]
    out = []
    for _ in range(count):
        for _ in range(tries):
            pt = draw(exprs, hyps, context, rng, sizes)
            if pt is not None:
                out.append(pt)
                break
    return out


def context_rewrites(ctx: Context) -> tuple:
    """The Context's definitions the checker applies before every zero test: definitions and
    axioms (printed among the hypotheses of the parts they rewrite, see :func:`relied_on`) and
    rules the project built (``rules.vouched``). Any other rule placed there — a ``law`` built by
    hand — is not applied: it would rewrite every step unseen."""
    return tuple(d for d in ctx.definitions if d.kind in STATED_KINDS or vouched(d))


def unfold_context(e, ctx: Context):
    """``e`` with the Context's definitions (:func:`context_rewrites`) applied, in order."""
    for d in context_rewrites(ctx):
        e = d.apply(e)
    return e


def statement_of(part: Part, ctx: Context = Context()):
    """The part's statement with the Context's notation unfolded (H, KL, the softmax s, …); each
    side is unfolded on its own, so SymPy does not evaluate the relation meanwhile."""
    from mathcheck.claim import relation

    return relation(unfold_context(part.lhs, ctx), unfold_context(part.rhs, ctx), part.relation)


def holds_at(statement, given, point: dict, dps: int = 30) -> bool | None:
    """Whether ``given ⇒ statement`` holds at ``point``: True or False, None when the point does
    not satisfy the hypotheses or a side cannot be evaluated (an undefined function, 0/0).

    Evaluation is independent of the step checker: definitions unfolded, sums expanded at the
    point's sizes, ``sympy.diff`` for derivatives, mpmath at ``dps`` digits."""
    given = tuple(given)
    for h in given:
        if _holds(h, point, dps) is not True:
            return None
    if statement in (sp.true, sp.false):  # SymPy evaluated it when it was built
        return bool(statement)
    try:
        lhs = concrete(unfold_definitions(statement.lhs, given), point)
        rhs = concrete(unfold_definitions(statement.rhs, given), point)
    except Exception:  # noqa: BLE001
        return None
    return _compare(lhs, rhs, statement.rel_op, dps)


# --- generality -------------------------------------------------------------------------------------

def _concrete_sum(e) -> str | None:
    """A sum or product written out at a concrete length (numeric bounds, two terms or more)."""
    if not hasattr(e, "atoms"):
        return None
    for s in e.atoms(sp.Sum, sp.Product):
        for _, a, b in s.limits:
            a, b = _basic(a), _basic(b)
            if a.is_number and b.is_number and b - a >= 1:
                return f"a sum over the concrete range {a}..{b}"
    return None


def generality(part: Part, ctx: Context = Context()) -> tuple[bool | None, str]:
    """Whether the part's statement keeps a symbolic size through every step: ``(True, why)``;
    ``(False, why)`` when a hypothesis fixes one of its sizes (``n = 3``) or a step writes a sum
    out at a concrete length (Σ_{k=1}^{3}); ``(None, why)`` when the statement has no size at all
    (a scalar identity, a fixed 2×2 rotation, an example on two outcomes).

    A size is a free symbol bounding a Sum or Product, sizing a MatrixSymbol, or bounding the range
    of one of the statement's free indices. The Context's definitions are unfolded first (H(p)
    hides its Σ_{i=1}^{n})."""
    hyps = hypotheses(part, ctx)
    stmt = [unfold_context(part.lhs, ctx), unfold_context(part.rhs, ctx)]
    sizes = set(size_symbols(stmt))
    for lo, hi in ranges(hyps).values():
        sizes |= {x for x in (_basic(lo).free_symbols | _basic(hi).free_symbols) if x.is_integer}
    for h in hyps:
        if isinstance(h, sp.Equality) and (h.lhs in sizes or h.rhs in sizes) and \
                (h.lhs.is_number or h.rhs.is_number):
            return False, f"a hypothesis fixes a size: {sp.sstr(h)}"
    for step in part.steps:
        why = _concrete_sum(step.expr)
        if why is not None:
            return False, f"a step uses {why}"
    if not sizes:  # an explicit 2-vector (a sin/cos pair, a 2-outcome example) is not a size
        return None, "the statement has no size (a scalar or fixed-shape statement)"
    return True, "symbolic size " + ", ".join(sorted(str(x) for x in sizes)) + " kept through every step"


def claim_generality(parts, ctx: Context = Context()) -> bool:
    """A claim is general when no part uses a concrete size and at least one keeps a symbolic one
    (scalar lemmas, which have no size, neither make nor break it)."""
    gs = [generality(p, ctx)[0] for p in parts]
    return False not in gs and True in gs
