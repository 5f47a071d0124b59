r"""Shared bookkeeping for numeric checks: three-way agreement with derived tolerances.

A part's statement ``lhs REL rhs`` is checked against PyTorch's own reference three ways: both sides
are evaluated from the statement (:class:`mathcheck.numeric.bounded.BoundedEvaluator`: autograd for
derivatives, concrete sizes for sums, the limit point or Richardson extrapolation for limits), each
with a first-order bound on its rounding error, and

* for ``=``: reference ≈ lhs, reference ≈ rhs and lhs ≈ rhs;
* for ``<=``, ``<``, ``>=``, ``>``: reference ≈ lhs (when the reference denotes the left side) and
  ``lhs REL rhs`` by the sign of ``lhs − rhs``, a violation larger than the tolerance refuting it;

each pair (a, b) within a tolerance per entry, derived rather than chosen:

.. math:: \mathrm{tol}_{ab} = S\,(e_a + e_b),\qquad
          e_\mathrm{ref} = \max(e_\mathrm{lhs}, e_\mathrm{rhs}) + (N + 1)\,ε\,|\mathrm{ref}| + e_\mathrm{known}

with :math:`e` the propagated bounds (magnitudes of the terms that cancel, the conditioning of exp
and log, the machine epsilon ε of the dtype the values are computed in), N the longest reduction,
the safety factor S = 4 for what a first-order bound leaves out, and e_known what the check knows of
the reference's own error (a truncated limit, a difference of parameters). PyTorch's reference
computes the same quantity by another route, so its rounding is taken to be no larger than the
statement's.

    >>> import sympy as sp, torch
    >>> from mathcheck.verify import Options
    >>> x, n, k = sp.IndexedBase("x"), sp.Symbol("n"), sp.Symbol("k", integer=True)
    >>> cmp = Comparison("torch.sum", Options())
    >>> v = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    >>> cmp.agree("sum", v.sum(), sp.Eq(sp.Sum(x[k], (k, 1, n)), 6), {x: v, n: 3}, part="total")
    True
    >>> cmp.agree("twice", v.sum(), sp.Eq(2 * sp.Sum(x[k], (k, 1, n)), 6), {x: v, n: 3}, part="total")
    False
    >>> cmp.verdict().status, cmp.verdict().comparisons[0][0]
    ('refuted', 'sum')

A part whose left side cannot be evaluated (an undefined function no torch function stands for, an
overflow at every case) is named, with the reason, in ``NumericVerdict.unevaluated``; its right
side is still checked against the reference.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import torch

from mathcheck.numeric.tolerance import SAFETY, TOLERANCE_MODEL, rounding_bound
from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options


def _f(x) -> float:
    return float(x) if not isinstance(x, torch.Tensor) else float(x.detach())


def _tensor(x, like: torch.Tensor | None = None, dtype=torch.float64, device="cpu") -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.detach()
    if like is not None:
        return torch.as_tensor(x, dtype=like.dtype, device=like.device)
    return torch.as_tensor(x, dtype=dtype, device=device)


def _usable(v, e) -> bool:
    """A side can be compared where its value and its error bound are finite."""
    return bool(torch.isfinite(_tensor(v)).all()) and bool(torch.isfinite(_tensor(e)).all())


def _align_matrices(lhs, rhs, e_rhs, reference):
    """Insert singleton axes after the two matrix axes so that all values have the same rank."""
    tensors = [t for t in (rhs, e_rhs, reference, *(lhs or ())) if isinstance(t, torch.Tensor)]
    rank = max(t.dim() for t in tensors)

    def pad(t):
        if not isinstance(t, torch.Tensor) or t.dim() < 2 or t.dim() == rank:
            return t
        return t.reshape(*t.shape[:2], *([1] * (rank - t.dim())), *t.shape[2:])

    return (None if lhs is None else (pad(lhs[0]), pad(lhs[1]))), pad(rhs), pad(e_rhs), pad(reference)


@dataclass
class Comparison:
    """Accumulates case-by-case comparisons; the first mismatch becomes the counterexample.

    ``atol``/``rtol`` given explicitly are used by :meth:`compare` only (exact integer comparisons
    pass ``atol=0, rtol=0``; §9 compares an implementation with a library function at
    16·N·ε); :meth:`agree` and :meth:`holds` derive their tolerance per entry, and the verdict says
    which of the two a check used.
    """

    reference: str
    options: Options
    atol: float | None = None
    rtol: float | None = None
    trials: int = 0
    max_err: float = 0.0
    max_tol: float = 0.0
    details: list = field(default_factory=list)
    counterexample: tuple = ()
    plots: list = field(default_factory=list)  # mathcheck.verdict.Plot values
    comparisons: list = field(default_factory=list)  # (case, max |err|, tolerance)
    lhs_cases: dict = field(default_factory=dict)  # part -> [evaluated, not evaluated, last reason]
    rhs_cases: dict = field(default_factory=dict)  # part -> [evaluated, out of the dtype's range]
    derived_cases: int = 0  # comparisons whose tolerance agree/holds derived
    start: float = field(default_factory=time.perf_counter)

    # -- the tolerance -------------------------------------------------------------------------------

    @property
    def eps(self) -> float:
        return float(torch.finfo(getattr(torch, self.options.dtype)).eps)

    def bound(self, value: torch.Tensor, terms: int = 1, scale=0.0) -> torch.Tensor:
        """A rounding bound for a value PyTorch computed by a reduction of ``terms`` terms whose
        magnitudes sum to at most ``scale`` (default: the value itself):
        ``(terms + 1)·ε·max(|value|, scale)``, with ε of the value's dtype."""
        v = _tensor(value)
        if not v.is_floating_point():
            return torch.zeros_like(v, dtype=torch.float64)
        fi = torch.finfo(v.dtype)
        return rounding_bound(fi.eps, terms, torch.maximum(v.abs(), _tensor(scale, v)), fi.tiny)

    def _record(self, case: str, err: float, tol: float) -> None:
        self.trials += 1
        if err != err:
            err = math.inf
        self.max_err = max(self.max_err, err)
        self.max_tol = max(self.max_tol, tol)
        self.comparisons.append((case, err, tol))

    def _fail(self, case: str, where: dict, idx, shown: tuple) -> None:
        if not self.counterexample:
            self.counterexample = (
                (("case", case),)
                + tuple((k, str(v)) for k, v in where.items())
                + ((("entry", str(idx)),) if idx is not None else ())
                + shown
            )

    # -- two values ----------------------------------------------------------------------------------

    def compare(self, case: str, expected: torch.Tensor, got, bound=None, **where) -> bool:
        """``expected`` is PyTorch's value, ``got`` the statement's. Tolerance: ``bound`` (an error
        bound of ``got``, e.g. from :func:`evaluate_bounded`) plus the same again for ``expected``;
        else the explicit ``atol + rtol·|expected|``; else :meth:`bound` of both at ``expected.numel()``
        terms. False (and a counterexample) on mismatch."""
        expected = _tensor(expected)
        got = _tensor(got, expected)
        expected, got = torch.broadcast_tensors(expected, got)
        if bound is not None:
            b = _tensor(bound, expected)
            tol = SAFETY * (2 * b + self.bound(expected))
        elif self.atol is not None:
            tol = self.atol + (self.rtol or 0.0) * expected.abs()
        else:
            n = max(expected.numel(), 1)
            tol = SAFETY * (self.bound(expected, n) + self.bound(got, n))
        tol = torch.broadcast_to(_tensor(tol, expected), expected.shape)
        diff = (expected - got).abs()
        err = float(diff.max()) if diff.numel() else 0.0
        t = float(tol.max()) if tol.numel() else 0.0
        self._record(case, err, t)
        bad = ~(diff <= tol)  # NaN counts as a mismatch
        self.details.append(f"{case}: max |error| {err:.3g} (tol {t:.3g})")
        if bool(bad.any()):
            idx = tuple(torch.nonzero(bad)[0].tolist())
            self._fail(
                case,
                where,
                idx,
                (
                    ("pytorch", f"{float(expected[idx]):.12g}"),
                    ("statement", f"{float(got[idx]):.12g}"),
                    ("tolerance", f"{float(tol[idx]):.3g}"),
                ),
            )
            return False
        return True

    # -- a statement, three ways ---------------------------------------------------------------------

    def sides(
        self,
        eq,
        env,
        funcs=None,
        part: str | None = None,
        case: str = "",
        dtype=None,
        device=None,
        evaluate_lhs: bool = True,
    ):
        """Evaluate both sides of ``eq`` with error bounds: ``((lhs, e_lhs) or None, (rhs, e_rhs), terms)``.
        A left side that cannot be evaluated is counted against ``part`` (with the reason)."""
        from mathcheck.numeric.evaluate import EvaluationError
        from mathcheck.numeric.bounded import evaluate_bounded

        dt = dtype or getattr(torch, self.options.dtype)
        dev = device or self.options.device
        rhs_v, rhs_e, terms = evaluate_bounded(eq.rhs, env, funcs, dtype=dt, device=dev)
        lhs = None
        reason = "not evaluated at this case (its cost)"
        try:
            if not evaluate_lhs:
                raise EvaluationError(reason)
            lv, le, lt = evaluate_bounded(eq.lhs, env, funcs, dtype=dt, device=dev)
            terms = max(terms, lt)
            if not _usable(lv, le):
                reason = f"the left side leaves the range of {str(dt).replace('torch.', '')} at {case}"
            else:
                lhs = (lv.detach(), le.detach())
        except (EvaluationError, NotImplementedError, TypeError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
        if part is not None:
            row = self.lhs_cases.setdefault(part, [0, 0, ""])
            if lhs is None:
                row[1] += 1
                row[2] = reason
            else:
                row[0] += 1
        return lhs, (rhs_v.detach(), rhs_e.detach()), terms

    def agree(
        self,
        case: str,
        reference,
        eq,
        env,
        funcs=None,
        part: str | None = None,
        reference_side: str = "both",
        reference_bound=0.0,
        dtype=None,
        device=None,
        evaluate_lhs: bool = True,
        **where,
    ) -> bool:
        """Check ``eq`` (``lhs REL rhs``) against PyTorch's ``reference`` three ways (see the module).

        ``reference`` denotes both sides of an equation (``"both"``), only its left side (``"lhs"``,
        e.g. PyTorch's entropy for ``H(p) ≤ log n``), or is None (no PyTorch counterpart: the two
        sides are compared with each other). A right side that cannot be evaluated at these sizes is a
        counterexample (its sizes cannot match PyTorch's). ``reference_bound``: what the check knows
        of the reference's own rounding beyond that (e.g. a parameter change read off as p₁ − p₀
        carries ε(|p₀| + |p₁|))."""
        from mathcheck.claim import relation_of
        from mathcheck.numeric.evaluate import EvaluationError

        rel = relation_of(eq)
        try:
            lhs, (rhs, e_rhs), terms = self.sides(eq, env, funcs, part, case, dtype, device, evaluate_lhs)

        except (IndexError, RuntimeError, EvaluationError) as exc:
            self.trials += 1
            self.details.append(f"{case}: the statement cannot be evaluated at these sizes ({exc})")
            self._fail(case, where, None, (("statement", f"cannot be evaluated: {exc}"),))
            return False
        if not _usable(rhs, e_rhs):  # the formula, not the mathematics, leaves the dtype's range here
            row = self.rhs_cases.setdefault(part or case, [0, 0])
            row[1] += 1
            if lhs is None:
                self.details.append(f"{case}: skipped, both sides leave the range of {self.options.dtype}")
                return True
            rhs, e_rhs = lhs  # compare the left side with the reference alone
            self.details.append(f"{case}: the right side leaves the range of {self.options.dtype}; left side only")
        else:
            self.rhs_cases.setdefault(part or case, [0, 0])[0] += 1
        if getattr(eq.lhs, "is_Matrix", False) or getattr(eq.rhs, "is_Matrix", False):
            # matrices evaluate to (rows, cols, *entry shape): a constant one has no entry shape
            lhs, rhs, e_rhs, reference = _align_matrices(lhs, rhs, e_rhs, reference)
        values = [("rhs", rhs, e_rhs)]
        if lhs is not None:
            values.insert(0, ("lhs", lhs[0], lhs[1]))
        if reference is not None:
            ref = _tensor(reference, rhs)
            worst = (
                _tensor(e_rhs, rhs)
                if lhs is None
                else torch.maximum(*torch.broadcast_tensors(_tensor(lhs[1], rhs), _tensor(e_rhs, rhs)))
            )
            values.insert(0, ("pytorch", ref, worst + self.bound(ref, terms) + _tensor(reference_bound, rhs)))
        shape = torch.broadcast_shapes(
            *[v.shape for _, v, _ in values] + [torch.as_tensor(e).shape for *_, e in values]
        )
        vals = {
            k: (torch.broadcast_to(_tensor(v, rhs), shape), torch.broadcast_to(_tensor(e, rhs), shape))
            for k, v, e in values
        }
        pairs = []  # (a, b, relation) to check
        if rel == "=":
            names = list(vals)
            pairs = [(a, b, "=") for i, a in enumerate(names) for b in names[i + 1 :]]
        else:
            if reference is not None and reference_side == "lhs" and "lhs" in vals:
                pairs.append(("pytorch", "lhs", "="))
            left = (
                "lhs" if "lhs" in vals else ("pytorch" if reference_side == "lhs" and reference is not None else None)
            )
            if left is None:
                raise ValueError(f"{case}: a relation needs its left side (or a reference for it)")
            pairs.append((left, "rhs", rel))
            if reference is not None and reference_side == "both" and left != "pytorch":
                pairs.append(("pytorch", "rhs", rel))
        ok, err, t = True, 0.0, 0.0
        for a, b, r in pairs:
            (va, ea), (vb, eb) = vals[a], vals[b]
            tol = SAFETY * (ea + eb)
            t = max(t, float(tol.max()) if tol.numel() else 0.0)
            if r == "=":
                gap = (va - vb).abs()
            elif r in ("<=", "<"):
                gap = va - vb
            else:
                gap = vb - va
            bad = ~(gap <= tol)  # NaN is a mismatch
            if r in ("<", ">"):
                bad = bad | ((gap >= 0) & (tol == 0))  # a strict relation between exact values
            worst = float(gap.max()) if gap.numel() else 0.0
            err = max(err, worst if worst == worst else math.inf)
            if bool(bad.any()) and ok:
                ok = False
                idx = tuple(torch.nonzero(bad)[0].tolist())
                shown = tuple((k, f"{float(vals[k][0][idx]):.12g}") for k in vals)
                self._fail(
                    case, where, idx, shown + (("relation", f"{a} {r} {b}"), ("tolerance", f"{float(tol[idx]):.3g}"))
                )
        self._record(case, max(err, 0.0), t)
        self.derived_cases += 1
        sides = ", ".join(vals)
        self.details.append(
            f"{case}: {sides} agree{'' if ok else ' NOT'} ({'max |err|' if rel == '=' else 'worst gap'} "
            f"{err:.3g}, tol {t:.3g})"
        )
        return ok

    def holds(self, case: str, lhs, rhs, rel: str, bound=0.0, **where) -> bool:
        """``lhs REL rhs`` for two computed values; violation beyond ``SAFETY·bound`` (plus the rounding
        of both at one operation) refutes."""
        lhs = _tensor(lhs)
        rhs = _tensor(rhs, lhs)
        lhs, rhs = torch.broadcast_tensors(lhs, rhs)
        gap = (lhs - rhs) if rel in ("<=", "<") else (rhs - lhs)
        tol = SAFETY * (_tensor(bound, lhs) + self.bound(lhs) + self.bound(rhs))
        tol = torch.broadcast_to(tol, gap.shape)
        bad = ~(gap <= tol)
        worst = float(gap.max()) if gap.numel() else 0.0
        t = float(tol.max()) if tol.numel() else 0.0
        self._record(case, max(worst, 0.0), t)
        self.derived_cases += 1
        self.details.append(f"{case}: lhs {rel} rhs, worst violation {worst:.3g} (tol {t:.3g})")
        if bool(bad.any()):
            idx = tuple(torch.nonzero(bad)[0].tolist())
            self._fail(
                case,
                where,
                idx,
                (
                    ("lhs", f"{float(lhs[idx]):.12g}"),
                    ("rhs", f"{float(rhs[idx]):.12g}"),
                    ("relation", rel),
                    ("tolerance", f"{float(tol[idx]):.3g}"),
                ),
            )
            return False
        return True

    def unevaluated(self) -> tuple:
        """(part, reason) for each part whose left side was never evaluated."""
        return tuple((p, r) for p, (ok, bad, r) in self.lhs_cases.items() if ok == 0 and bad > 0)

    def verdict(self, **extra) -> NumericVerdict:
        derived = self.atol is None or self.derived_cases > 0
        tolerance = TOLERANCE_MODEL if derived else f"fixed: atol={self.atol:g}, rtol={self.rtol or 0:g}"
        if derived and self.atol is not None:
            tolerance += f"; where not derived: atol={self.atol:g}, rtol={self.rtol or 0:g}"
        for part, (ok, skipped) in self.rhs_cases.items():
            if ok == 0 and skipped and not self.counterexample:  # a statement never checked is not passed
                self.counterexample = (
                    ("part", part),
                    ("statement", f"the right side is not finite in {self.options.dtype} at any case"),
                )
        return NumericVerdict(
            status="refuted" if self.counterexample else "passed",
            reference=self.reference,
            trials=self.trials,
            max_abs_err=self.max_err,
            atol=self.max_tol if derived else self.atol,
            rtol=0.0 if derived else self.rtol,
            seed=self.options.seed,
            counterexample=self.counterexample,
            details=tuple(self.details),
            dtype=self.options.dtype,
            device=self.options.device,
            seconds=time.perf_counter() - self.start,
            plots=tuple(self.plots),
            tolerance=tolerance,
            comparisons=tuple(self.comparisons),
            unevaluated=self.unevaluated(),
            **extra,
        )


def generator(options: Options, salt: int = 0) -> torch.Generator:
    return torch.Generator(device="cpu").manual_seed(options.seed * 7919 + salt)


def dtype(options: Options):
    return getattr(torch, options.dtype)
