"""The generic numeric check: a registered claim's statement checked by evaluating both sides with torch.

:func:`check` is the numeric check of a claim that names no ``check=``: every part's both sides at
several concrete sizes (n ∈ {1, 2, 3, 8, 33} for each symbolic dimension, and 0, −1, −3 where its
assumptions allow), on seeded values that
respect the symbols' assumptions and the part's hypotheses, optionally against a PyTorch reference
the claim supplies (``@claim(reference=...)``, see :func:`check`). Expressions are evaluated by the
numeric kernel's torch walker (:class:`mathcheck.numeric.evaluate.Evaluator`: ``diff`` by autograd,
bounds-checked indices), on the kernel's seeded torch draws (:func:`mathcheck.numeric.sampling.tensor_values`); a user's single relation (``check``, ``derive``) is checked
by :mod:`mathcheck.userexpr` itself.

Agreement is evidence, never a proof: a claim is ``proved`` only if its steps are shown too.
"""

from __future__ import annotations

import inspect
import time
from typing import TYPE_CHECKING

import sympy as sp
import torch

from mathcheck import relations
from mathcheck.numeric.evaluate import EvaluationError, Evaluator, Indexed
from mathcheck.numeric.sampling import tensor_integer, tensor_values
from mathcheck.numeric.tolerance import GENERIC_ATOL, GENERIC_RTOL, HYPOTHESIS_REL
from mathcheck.procs import UserCodeExit, user_code

if TYPE_CHECKING:
    from mathcheck.verdict import NumericVerdict

DT = torch.float64
SIZES = (1, 2, 3, 8, 33)  # the concrete values of each symbolic dimension
POINTS_PER_SIZE = 4  # seeded draws of the other variables per size
MIXED_SIZES = 4  # sizes with the dimensions drawn apart (bounds that cross)
ATOL, RTOL = GENERIC_ATOL, GENERIC_RTOL
MARGIN = 8  # an indexed name holds values for indices 1 − MARGIN .. n + MARGIN
_SKIP = (EvaluationError, RuntimeError, ValueError, TypeError, IndexError, OverflowError, ZeroDivisionError, KeyError)


def _evaluator(env):
    return Evaluator(env, checked_indices=True)  # Derivative by autograd, bounds-checked indices


def _violation(a, b, rel: str, atol: float, rtol: float):
    """Where ``a REL b`` fails beyond the tolerance (elementwise bool tensor) and the margin."""
    a, b = torch.broadcast_tensors(torch.as_tensor(a, dtype=DT), torch.as_tensor(b, dtype=DT))
    tol = atol + rtol * torch.maximum(a.abs(), b.abs())
    d = a - b
    if rel == "=":
        bad = d.abs() > tol
    elif rel in (">=", ">"):
        bad = d < -tol if rel == ">=" else d <= 0  # strict: equality is a violation (confirmed later)
    else:
        bad = d > tol if rel == "<=" else d >= 0
    bad = bad | ~torch.isfinite(d)
    return bad, d


# --- a float64 failure confirmed at high precision -----------------------------------------------------

CONFIRM_AT_MOST = 8  # flagged values confirmed per comparison before giving up on it


def _exact(v):
    return sp.Integer(int(v)) if float(v) == int(float(v)) and abs(float(v)) < 2**53 else sp.Rational(float(v))


def confirmed(stmt, rel: str, values: dict, bases: dict) -> bool | None:
    """Whether ``stmt`` fails at this point at high precision (``mathcheck.numeric.precise``),
    or None where it cannot be decided there (the float64 failure is then not a refutation).

    ``values`` maps each symbol (sizes, scalars, free indices) to its float64 value; ``bases``
    each IndexedBase to its binding (``tensor``, ``offset``). Derivatives are SymPy's ``diff``,
    evaluated at the point; one SymPy cannot take leaves the point undecided.

        >>> x = sp.Symbol("x", real=True)
        >>> confirmed(sp.Eq((x + 10**8)**2 - 2 * 10**8 * x - 10**16, x**2), "=", {x: 0.5}, {}) is False
        True
    """
    from mathcheck.numeric import PRECISION_DIGITS
    from mathcheck.numeric.precise import decide, take_derivatives

    point = {s: _exact(v) for s, v in values.items()}

    def hp(e):
        # a Float constant at its exact binary value: SymPy would carry its 15 digits through
        e = take_derivatives(e.xreplace({f: sp.Rational(f) for f in e.atoms(sp.Float)}))
        if e.has(sp.Derivative):
            return None
        c = e.xreplace(point).doit()
        entries = {}
        for x in c.atoms(sp.Indexed):
            if x.base not in bases or not all(i.is_Integer for i in x.indices):
                return None
            b = bases[x.base]
            at = tuple(int(i) - b.offset for i in x.indices)
            if any(k < 0 or k >= n for k, n in zip(at, b.tensor.shape)):
                return None
            entries[x] = _exact(b.tensor[at])
        return sp.N(c.xreplace(entries), PRECISION_DIGITS)

    try:
        L, R = hp(stmt.lhs), hp(stmt.rhs)
        if L is None or R is None:
            return None
        return decide(L, R, rel)
    except (ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError, RecursionError):
        return None


# --- a registered claim with no check= of its own ----------------------------------------------------


def _probe(base):
    return base[sp.Dummy("probe", integer=True)]


class _Plan:
    """What to draw for one statement: dimensions, index ranges, scalars, indexed names."""

    def __init__(self, exprs, context):
        exprs = [e for e in exprs if e is not None]
        self.bases: dict = {}
        for e in exprs:
            for x in e.atoms(sp.Indexed):
                self.bases[x.base] = max(self.bases.get(x.base, 0), len(x.indices))
        free = set().union(*(e.free_symbols for e in exprs)) - {b.label for b in self.bases}
        free = {s for s in free if isinstance(s, sp.Symbol)}
        dims = set()
        for e in exprs:
            for s in e.atoms(sp.Sum):
                for _, a, b in s.limits:
                    dims |= a.free_symbols | b.free_symbols
        ranges = [(i, lo, hi) for i, lo, hi in context.indices if i in free]
        for _, lo, hi in ranges:
            dims |= set(getattr(lo, "free_symbols", ())) | set(getattr(hi, "free_symbols", ()))
        self.dims = sorted((d for d in dims if d.is_integer and d not in {r[0] for r in ranges}), key=str)
        self.ranges = ranges
        self.scalars = sorted(free - set(self.dims) - {r[0] for r in ranges}, key=str)
        self.has_derivative = any(e.has(sp.Derivative) for e in exprs)
        # the integers the statement and its hypotheses name (a side condition's edge: t < 3, Σ_{k=2}^{t})
        self.constants = sorted({int(c) for e in exprs for c in e.atoms(sp.Integer) if abs(int(c)) <= 1000})

    def sizes(self):
        """Each dimension at n ∈ SIZES, and at the edges its assumptions allow: 0 unless it is
        positive, −1 and −3 unless it is nonnegative (a sum's bounds then reverse: Σ_{i=1}^{n} i²
        = −5 at n = −3, SymPy's convention), each dimension kept at its own smallest size."""
        if not self.dims:
            return [{}]
        lowest = {d: 1 if d.is_positive else 0 if d.is_nonnegative else -3 for d in self.dims}
        edges = [n for n in (0, -1, -3) if any(n >= lo for lo in lowest.values())]
        same = [{d: max(n, lowest[d]) for d in self.dims} for n in SIZES + tuple(edges)]
        return same + self.mixed_sizes(lowest)

    def mixed_sizes(self, lowest, count: int = MIXED_SIZES):
        """Dimensions drawn apart (deterministically): one sum's bounds then cross (Σ_{k=a}^{t} at
        a = 5, t = 1 is reversed, not empty), each from 0..8, −1, −3 and the hypotheses' integer
        constants ±1, as its assumptions allow."""
        import random

        if len(self.dims) < 2:
            return []
        rng = random.Random(",".join(map(str, self.dims)))
        pool = sorted(
            {0, 1, 2, 3, 5, 8, -1, -3} | {c + d for c in self.constants for d in (-1, 0, 1) if -3 <= c + d <= 33}
        )
        return [{d: rng.choice([n for n in pool if n >= lowest[d]]) for d in self.dims} for _ in range(count)]


def _holds_mask(given, ev, shape) -> torch.Tensor:
    """Where every hypothesis holds (elementwise over the index grid)."""
    mask = torch.ones(shape, dtype=torch.bool)
    for g in given:
        mask = mask & _truth(g, ev, shape)
    return mask


def _truth(g, ev, shape) -> torch.Tensor:
    if isinstance(g, sp.And):
        out = torch.ones(shape, dtype=torch.bool)
        for a in g.args:
            out = out & _truth(a, ev, shape)
        return out
    if isinstance(g, sp.Or):
        out = torch.zeros(shape, dtype=torch.bool)
        for a in g.args:
            out = out | _truth(a, ev, shape)
        return out
    if g is sp.true:
        return torch.ones(shape, dtype=torch.bool)
    if not isinstance(g, sp.Rel) or relations.of(g.rel_op).op not in relations.STEP:
        raise EvaluationError(f"cannot evaluate the hypothesis {g}")
    a, b = (torch.broadcast_to(torch.as_tensor(ev(x), dtype=DT), shape) for x in (g.lhs, g.rhs))
    rel = relations.of(g.rel_op)
    if rel.op == "=":  # an equality of floats holds to a relative tolerance
        return (a - b).abs() <= HYPOTHESIS_REL * torch.maximum(torch.ones_like(a), torch.maximum(a.abs(), b.abs()))
    return rel.holds(a, b)


def _reference_for(claim_id: str, part: str):
    from mathcheck import registry
    from mathcheck.verify import resolve

    try:
        ref = registry.entry(claim_id).reference
    except registry.UnknownClaim:  # a Claim value proved directly (engine.prove): no reference
        return None
    if isinstance(ref, dict):
        ref = ref.get(part)
    if isinstance(ref, str):
        ref = resolve(ref)
    return ref


def _reference_name(ref) -> str:
    doc = (inspect.getdoc(ref) or "").strip().splitlines()
    return doc[0].rstrip(".") if doc else getattr(ref, "__qualname__", "the claim's reference")


class ReferenceFailed(Exception):
    """The claim's reference does not fit its statement: a verdict ``error``, never a skip."""


def _call_reference(ref, part: str, values: dict, shape):
    params = list(inspect.signature(ref).parameters)
    unknown = [p for p in params if p not in values]
    if unknown:
        raise ReferenceFailed(
            f"reference of part {part!r}: parameter {unknown[0]!r} names no symbol of the "
            f"statement (its symbols: {', '.join(sorted(values))})"
        )
    try:
        with user_code(f"reference of part {part!r}"):  # sys.exit(0) in it: an error, never a pass
            out = torch.as_tensor(ref(**{p: values[p] for p in params}), dtype=DT).detach()
        return torch.broadcast_to(out, shape)
    except UserCodeExit as exc:
        raise ReferenceFailed(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the user's code: report it, do not skip the point
        raise ReferenceFailed(
            f"reference of part {part!r} ({_reference_name(ref)}): {type(exc).__name__}: {exc}"[:300]
        ) from None


class _Tally:
    def __init__(self):
        self.trials, self.max_err, self.details, self.counterexample = 0, 0.0, [], ()
        self.compared = self.rejected = self.skipped = self.unconfirmed = 0
        self.notes: list[str] = []


def _first_confirmed(stmt, rel, bad, which, local, plan, spans, combo):
    """The first flagged index (into the grid) where the failure is confirmed at high precision, or
    None. A failure of the claim's PyTorch reference is PyTorch's own value and stands as found."""
    flagged = [tuple(t) for t in torch.nonzero(bad).tolist()] if bad.ndim else [()]
    if which == "reference":
        return flagged[0]
    for idx in flagged[:CONFIRM_AT_MOST]:
        values = {s: float(local[s]) for s in plan.scalars + plan.dims if s in local}
        if combo is not None:
            values.update({i: float(v) for (i, _, _), v in zip(spans, combo)})
        else:
            values.update({i: a0 + j for (i, a0, _), j in zip(spans, idx)})
        bases = {b: local[b] for b in plan.bases}
        if confirmed(stmt, rel, values, bases):
            return idx
    return None


def _check_part(name, stmt, given, context, ref, seed: int, tally: _Tally) -> None:
    import zlib

    rel = relations.of(stmt.rel_op).op
    if rel not in relations.STEP:
        raise KeyError(f"a claim's statement asserts one of {' '.join(relations.STEP)}, not {rel}")
    plan = _Plan([stmt.lhs, stmt.rhs, *given], context)
    g = torch.Generator().manual_seed(seed * 7919 + zlib.crc32(name.encode()))
    for size in plan.sizes():
        worst, compared, ref_worst = 0.0, 0, 0.0
        n = max(size.values()) if size else 0
        for _ in range(POINTS_PER_SIZE if size else POINTS_PER_SIZE * len(SIZES)):  # same budget
            env, shown = dict(size), {str(k): v for k, v in size.items()}
            env = {k: float(v) for k, v in env.items()}
            ends = tuple(plan.constants) + tuple(int(v) for v in size.values())  # range ends at this size
            for s in plan.scalars:
                if s.is_integer:
                    env[s] = float(tensor_integer(s, g, ends))
                    shown[str(s)] = int(env[s])
                else:
                    env[s] = tensor_values(s, g)
                    shown[str(s)] = float(env[s])
            length = (n if size else 8) + 2 * MARGIN
            for b, rank in sorted(plan.bases.items(), key=lambda kv: str(kv[0])):
                env[b] = Indexed(tensor_values(_probe(b), g, (length,) * rank), offset=1 - MARGIN)
            grids, shape = [], ()
            spans = []
            for i, lo, hi in plan.ranges:
                a, b = (int(x.subs(size)) if hasattr(x, "subs") else int(x) for x in (lo, hi))
                spans.append((i, a, b))
            k = len(spans)
            for axis, (i, a, b) in enumerate(spans):
                view = [1] * k
                view[axis] = max(b - a + 1, 0)
                grids.append(torch.arange(a, b + 1, dtype=DT).reshape(view))
            shape = tuple(max(b - a + 1, 0) for _, a, b in spans)
            if 0 in shape:
                continue
            if plan.has_derivative and shape:  # autograd of a scalar: one index point at a time
                combos = [tuple(int(torch.randint(a, b + 1, (), generator=g)) for _, a, b in spans) for _ in range(6)]
            else:
                combos = [None]
            for combo in combos:
                local = dict(env)
                if combo is None:
                    local.update({i: t for (i, _, _), t in zip(spans, grids)})
                    cshape = shape
                else:
                    local.update({i: float(v) for (i, _, _), v in zip(spans, combo)})
                    cshape = ()
                ev = lambda e: _evaluator(dict(local))(e)  # noqa: E731
                try:
                    mask = _holds_mask(given, ev, cshape)
                    a = torch.broadcast_to(torch.as_tensor(ev(stmt.lhs), dtype=DT), cshape)
                    b = torch.broadcast_to(torch.as_tensor(ev(stmt.rhs), dtype=DT), cshape)
                    r = None
                    if ref is not None and rel == "=" and (not size or n >= 1):  # a reference reads n ≥ 1 entries
                        values = {str(s): local[s] for s in plan.scalars + plan.dims}
                        values.update({str(s): int(v) for s, v in size.items()})
                        values.update({str(i): local[i] for i, _, _ in spans})
                        for base, binding in ((bb, local[bb]) for bb in plan.bases):
                            cut = (
                                binding.tensor[(slice(MARGIN, MARGIN + n),) * binding.tensor.ndim]
                                if size
                                else binding.tensor
                            )
                            values[str(base)] = cut
                        r = _call_reference(ref, name, values, cshape)
                except _SKIP as exc:
                    tally.notes.append(f"{name}: {str(exc).splitlines()[0][:160] or type(exc).__name__}")
                    tally.skipped += 1
                    continue
                a, b = a.detach(), b.detach()
                finite = torch.isfinite(a) & torch.isfinite(b)
                tally.rejected += int((~mask).sum())
                use = mask & finite
                if r is not None:
                    use = use & torch.isfinite(r)
                if not bool(use.any()):
                    continue
                tally.trials += 1
                compared += int(use.sum())
                bad, d = _violation(a, b, rel, ATOL, RTOL)
                bad = bad & use
                err = float(d[use].abs().max()) if rel == "=" else 0.0
                worst = max(worst, err)
                which = "lhs"
                if r is not None:
                    bad_r, dr = _violation(r, b, "=", ATOL, RTOL)
                    bad_r = bad_r & use
                    ref_worst = max(ref_worst, float(dr[use].abs().max()))
                    if bool(bad_r.any()) and not bool(bad.any()):
                        bad, which, a = bad_r, "reference", r
                idx = None
                if bool(bad.any()) and not tally.counterexample:
                    idx = _first_confirmed(stmt, rel, bad, which, local, plan, spans, combo)
                    if idx is None:
                        tally.unconfirmed += int(bad.sum())
                if idx is not None:
                    at = dict(shown)
                    if combo is not None:
                        at.update({str(i): v for (i, _, _), v in zip(spans, combo)})
                    else:
                        at.update({str(i): a0 + j for (i, a0, _), j in zip(spans, idx)})
                    for base in sorted(plan.bases, key=str):  # the entries a reader needs, if few
                        t = local[base].tensor
                        if t.ndim == 1 and size and n <= 8:
                            at[str(base)] = "[" + ", ".join(f"{float(x):.6g}" for x in t[MARGIN : MARGIN + n]) + "]"
                    tally.counterexample = (
                        (("part", name),)
                        + tuple((k, str(v)) for k, v in at.items())
                        + ((which, f"{float(a[idx]):.12g}"), ("rhs", f"{float(b[idx]):.12g}"))
                    )
        tally.max_err = max(tally.max_err, worst, ref_worst)
        tally.compared += compared
        where = ", ".join(f"{k}={v}" for k, v in size.items()) or "concrete"
        ref_txt = f", max |reference − rhs| {ref_worst:.3g}" if ref is not None and rel == "=" else ""
        what = f"max |lhs − rhs| {worst:.3g}" if rel == "=" else f"lhs {rel} rhs within tolerance"
        tally.details.append(f"{name} at {where}: {compared} values compared, {what}{ref_txt}")


def check(statements: dict, options, claim=None) -> NumericVerdict:
    """The numeric check of a claim registered without ``check=``.

    Every part's statement ``lhs REL rhs`` (derived or a mutant's) is evaluated with torch in
    float64 (``diff`` by autograd): each symbolic dimension (a sum bound, or a bound of an index
    range in ``Context.indices``) at n ∈ {1, 2, 3, 8, 33} and the edges its assumptions allow (0, −1,
    −3: see ``_Plan.sizes``), the free indices over their whole range,
    the other symbols at 4 seeded draws per size that respect their assumptions; index points
    where the part's hypotheses (``Part.given``) fail are left out. Tolerance: ``|lhs − rhs| ≤
    1e-10 + 1e-9·max(|lhs|, |rhs|)``.

    With ``@claim(reference=fn)`` (or ``{part: fn}``), PyTorch's own value of the left-hand side
    is compared with the right-hand side too: ``fn``'s parameters are named after the statement's
    symbols and receive their values — an indexed name as the tensor of its entries 1..n, a
    dimension as an ``int``, a scalar as a 0-d tensor, a free index as its range (one axis per
    index, in ``Context.indices`` order) — and ``fn`` returns the left-hand side's values on that
    grid. Example (ALiBi, examples/alibi_claims.py)::

        reference=lambda s, m, n: sdpa_weights(s, m, n)   # (n, n): weight of key j for query i
    """
    from mathcheck.verdict import NumericVerdict

    start = time.perf_counter()
    if claim is None:
        raise TypeError("the generic check needs the claim (engine.verify passes it)")
    tally = _Tally()
    refs = []
    for name, stmt in statements.items():
        part = claim.part(name)  # KeyError for a part the claim does not have
        ref = _reference_for(claim.id, name)
        if ref is not None:
            refs.append(_reference_name(ref))
        _check_part(name, stmt, tuple(getattr(part, "given", ())), claim.context, ref, options.seed, tally)
    reference = "torch float64, both sides of each part (diff by autograd)"
    if refs:
        reference = f"{'; '.join(dict.fromkeys(refs))}, and " + reference
    status = "refuted" if tally.counterexample else "passed" if tally.compared else "inconclusive"
    details = tuple(tally.details) + tuple(dict.fromkeys(tally.notes))[:5]
    if tally.rejected:
        details += (f"{tally.rejected} values outside the hypotheses left out",)
    if tally.unconfirmed:
        details += (
            f"{tally.unconfirmed} float64 disagreements not confirmed at high precision (round-off): "
            f"not counterexamples",
        )
    return NumericVerdict(
        status,
        reference,
        tally.trials,
        tally.max_err if tally.compared else None,
        ATOL,
        RTOL,
        options.seed,
        tally.counterexample,
        details,
        dtype="float64",
        device="cpu",
        seconds=time.perf_counter() - start,
    )


check.wants_claim = True  # engine.verify passes the claim: its parts' hypotheses, indices, reference
