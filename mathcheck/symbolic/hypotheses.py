"""Hypotheses: what a part assumes, the points of a part, and its computed generality.

A part states ``given ⇒ lhs REL rhs``. Its hypotheses (:func:`hypotheses`) are

* its own ``given`` (``Eq(Sum(p[i], (i, 1, n)), 1)``, ``z[i] > z[j]``, ``Eq(a, 0)``, …);
* the Context's index ranges of the indices free in the part (``(1 <= j) & (j <= n)``);
* the definitions it relies on, as equations (``s[x] = exp(z[x]) / Σ_k exp(z[k])``, for every x).

:func:`part_points` draws points that satisfy them by the numeric kernel's constructive draw
(:mod:`mathcheck.numeric.construct`); :func:`mathcheck.numeric.holds.holds_at` evaluates a
statement at such a point, independently of the step checker.

    >>> from mathcheck.lazy import sympy as sp
    >>> from mathcheck.claim import Part, Step, Context
    >>> from mathcheck.numeric.holds import holds_at
    >>> p, i = sp.IndexedBase("p", positive=True), sp.Symbol("i", integer=True)
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> norm = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)
    >>> part = Part("x", (Step(sp.Sum(p[i], (i, 1, n)), ""), Step(sp.Integer(1), "")), given=(norm,))
    >>> all(holds_at(part.statement, hypotheses(part, Context()), pt) for pt in part_points(part, Context(), 5, 0))
    True
"""

from __future__ import annotations

from typing import Iterable

from mathcheck.claim import Context, Part
from mathcheck.lazy import sympy as sp
from mathcheck.numeric.construct import constructed_points, size_symbols
from mathcheck.numeric.holds import basic, ranges
from mathcheck.symbolic.context import range_hypothesis
from mathcheck.symbolic.rules import STATED_KINDS, Rule, vouched


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


def stated(rule: Rule) -> str | None:
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


# --- points of a part ----------------------------------------------------------------------------


def part_points(
    part: Part, context: Context = Context(), count: int = 40, seed: int = 0, sizes: dict | None = None, tries: int = 20
) -> list[dict]:
    """Up to ``count`` points satisfying the part's hypotheses, drawn for its statement with the
    Context's notation unfolded (:func:`mathcheck.numeric.construct.constructed_points`: rejection
    after a constructive draw, at most ``tries`` draws per point). ``sizes`` fixes size symbols
    (``{"n": 3}``)."""
    exprs = [s.expr for s in part.steps[:1]] + [part.steps[-1].expr]
    exprs = [unfold_context(e, context) for e in exprs]
    return constructed_points(exprs, hypotheses(part, context), context, count, seed, sizes, tries)


def context_rewrites(ctx: Context) -> tuple:
    """The Context's definitions the checker applies before every zero test: definitions and
    axioms (printed among the hypotheses of the parts they rewrite, see :func:`relied_on`) and
    rules the project built (``rules.vouched``). Any other rule placed there — a ``law`` built by
    hand — is not applied: it would rewrite every step unseen."""
    return tuple(d for d in ctx.definitions if d.kind in STATED_KINDS or vouched(d))


def unfold_context(e: sp.Expr, ctx: Context) -> sp.Expr:
    """``e`` with the Context's definitions (:func:`context_rewrites`) applied, in order."""
    for d in context_rewrites(ctx):
        e = d.apply(e)
    return e


def statement_of(part: Part, ctx: Context = Context()) -> sp.Rel:
    """The part's statement with the Context's notation unfolded (H, KL, the softmax s, …); each
    side is unfolded on its own, so SymPy does not evaluate the relation meanwhile."""
    from mathcheck.claim import relation

    return relation(unfold_context(part.lhs, ctx), unfold_context(part.rhs, ctx), part.relation)


# --- generality -------------------------------------------------------------------------------------


def _concrete_sum(e) -> str | None:
    """A sum or product written out at a concrete length (numeric bounds, two terms or more)."""
    if not hasattr(e, "atoms"):
        return None
    for s in e.atoms(sp.Sum, sp.Product):
        for _, a, b in s.limits:
            a, b = basic(a), basic(b)
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
        sizes |= {x for x in (basic(lo).free_symbols | basic(hi).free_symbols) if x.is_integer}
    for h in hyps:
        if isinstance(h, sp.Equality) and (h.lhs in sizes or h.rhs in sizes) and (h.lhs.is_number or h.rhs.is_number):
            return False, f"a hypothesis fixes a size: {sp.sstr(h)}"
    for step in part.steps:
        why = _concrete_sum(step.expr)
        if why is not None:
            return False, f"a step uses {why}"
    if not sizes:  # an explicit 2-vector (a sin/cos pair, a 2-outcome example) is not a size
        return None, "the statement has no size (a scalar or fixed-shape statement)"
    return True, "symbolic size " + ", ".join(sorted(str(x) for x in sizes)) + " kept through every step"


def claim_generality(parts: Iterable[Part], ctx: Context = Context()) -> bool:
    """A claim is general when no part uses a concrete size and at least one keeps a symbolic one
    (scalar lemmas, which have no size, neither make nor break it)."""
    gs = [generality(p, ctx)[0] for p in parts]
    return False not in gs and True in gs
