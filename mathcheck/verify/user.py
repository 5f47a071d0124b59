"""The numeric side of ``mathcheck check``: both sides in torch float64, ``diff`` by autograd.

The points come from :func:`mathcheck.usercheck.sample_points` (seeded, respecting the
assumptions). Each side is evaluated from its parsed SymPy expression by
:class:`mathcheck.verify.evaluate.Evaluator`, extended here with what the user grammar adds:
``Derivative`` by ``torch.autograd.grad`` of the evaluated function (independent of SymPy's own
derivative), ``factorial``/``binomial`` exactly at integers (``lgamma`` elsewhere), and bounds-checked
indexed names. A point where either side is undefined (NaN, ±inf, complex) is skipped and counted.
A disagreement beyond ``atol + rtol·max(|lhs|, |rhs|)`` is a counterexample only once
:func:`mathcheck.usercheck.hp_compare` confirms it at 50 digits.
"""

from __future__ import annotations

import math

import sympy as sp
import torch

from mathcheck.verify.evaluate import EvaluationError, Evaluator, Indexed

DT = torch.float64


class UserEvaluator(Evaluator):
    def ev(self, e):
        if isinstance(e, sp.Derivative):
            return self._derivative(e)
        if isinstance(e, sp.Indexed):
            binding = self.indexed.get(e.base)
            if binding is None:
                raise EvaluationError(f"no tensor for {e.base}")
            idx = []
            for axis, i in enumerate(e.indices):
                v = self._index(self.ev(i)) - binding.offset
                lo, hi = (int(v.min()), int(v.max())) if isinstance(v, torch.Tensor) else (v, v)
                if lo < 0 or hi >= binding.tensor.shape[axis]:  # torch would wrap a negative index
                    raise EvaluationError(f"index of {e} outside the sampled range")
                idx.append(v)
            return binding.tensor[tuple(idx)]
        if isinstance(e, sp.factorial):
            return self._gamma_ratio([e.args[0]], [])
        if isinstance(e, sp.binomial):
            n, k = e.args
            return self._gamma_ratio([n], [k, n - k])
        return super().ev(e)

    def _gamma_ratio(self, top, bottom):
        vals = [self.ev(a) for a in top + bottom]
        if all(not isinstance(v, torch.Tensor) or v.ndim == 0 for v in vals):
            xs = [float(v) for v in vals]
            if all(x == int(x) for x in xs):  # exact at integers: n!/(k!(n−k)!) with 0 outside 0 ≤ k ≤ n
                if len(xs) == 1:
                    return float(math.factorial(int(xs[0]))) if xs[0] >= 0 else float("nan")
                n, k = int(xs[0]), int(xs[1])
                if n >= 0:
                    return float(math.comb(n, k)) if 0 <= k <= n else 0.0
        ts = [torch.as_tensor(v, dtype=DT) for v in vals]
        out = torch.lgamma(ts[0] + 1)
        for t in ts[1:]:
            out = out - torch.lgamma(t + 1)
        return torch.exp(out)

    def _derivative(self, e):
        f = e.expr
        for var, count in reversed(e.variable_count):  # innermost first, like SymPy's order
            f = _Pending(f, var, int(count))
        return self._grad(f)

    def _grad(self, pending):
        if not isinstance(pending, _Pending):
            return self.ev(pending)
        var, order = pending.var, pending.order
        # f may not depend on var at all (diff(x, y) = 0): any point of var will do
        x0 = torch.as_tensor(self.env.get(var, 0.5), dtype=DT)
        # a derivative inside another one must stay on the outer graph, so take a non-leaf view
        x = x0 * 1.0 if x0.requires_grad else x0.detach().clone().requires_grad_(True)
        had, old = var in self.env, self.env.get(var)
        self.env[var] = x
        try:
            y = torch.as_tensor(self._grad(pending.inner), dtype=DT)
            for _ in range(order):
                if not y.requires_grad:
                    y = torch.zeros_like(x)
                    break
                (g,) = torch.autograd.grad(y.sum(), x, create_graph=True, allow_unused=True)
                y = torch.zeros_like(x) if g is None else g
        finally:
            if had:
                self.env[var] = old
            else:
                del self.env[var]
        return y


class _Pending:
    def __init__(self, inner, var, order):
        self.inner, self.var, self.order = inner, var, order


def _binding(values):
    from mathcheck.usercheck import OFFSET

    return Indexed(torch.tensor(values, dtype=DT), offset=OFFSET)


def _scalar(v) -> complex | float | None:
    t = torch.as_tensor(v)
    if t.numel() != 1:
        return None
    x = t.detach().reshape(()).item()
    if isinstance(x, complex):
        return None if x.imag != 0 else x.real
    return float(x)


def numeric(lhs, rhs, seed: int, count: int) -> dict:
    """Both sides at ``count`` seeded points; a confirmed disagreement is the counterexample."""
    from mathcheck.usercheck import ATOL, RTOL, _report_point, _shown, hp_compare, sample_points

    points = sample_points((lhs, rhs), seed, count)
    used = skipped = unconfirmed = 0
    max_err = 0.0
    errors = set()
    for point in points:
        env = {}
        for s, v in point.items():
            if isinstance(s, sp.IndexedBase):
                env[s] = _binding(v)
            elif isinstance(v, int):  # integers stay numbers: sum bounds must not be tensors
                env[s] = float(v)
            else:
                env[s] = torch.tensor(float(v), dtype=DT)
        try:
            a = _scalar(UserEvaluator(env)(lhs))
            b = _scalar(UserEvaluator(env)(rhs))
        except (EvaluationError, RuntimeError, ValueError, TypeError, IndexError, OverflowError,
                ZeroDivisionError) as exc:
            errors.add(str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__)
            skipped += 1
            continue
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            skipped += 1
            continue
        used += 1
        err = abs(a - b)
        max_err = max(max_err, err)
        if err > ATOL + RTOL * max(abs(a), abs(b)):
            try:
                confirmed = hp_compare(lhs, rhs, point)
            except (ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError):
                confirmed = None
            if confirmed is not None and confirmed[0]:
                return {"status": "refuted", "points": used, "skipped": skipped, "max_abs_err": max_err,
                        "reference": "torch float64 (diff by autograd), confirmed at 50 digits",
                        "counterexample": _report_point(point, (lhs, rhs)),
                        "values": {"lhs": _shown(confirmed[1]), "rhs": _shown(confirmed[2]),
                                   "lhs_float64": a, "rhs_float64": b}}
            unconfirmed += 1
    out = {"status": "passed" if used else "inconclusive", "points": used, "skipped": skipped,
           "max_abs_err": max_err if used else None, "unconfirmed": unconfirmed,
           "reference": "torch float64 (diff by autograd)"}
    if errors and not used:
        out["note"] = "; ".join(sorted(errors))[:300]
    return out
