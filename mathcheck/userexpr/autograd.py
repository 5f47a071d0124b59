"""The torch side: the user's expressions in torch float64, ``diff`` by autograd.

Loaded only when an expression needs it (a ``Derivative``): everything else is evaluated by
:mod:`mathcheck.userexpr.floats` without importing torch. Each side is evaluated from its parsed
SymPy expression by :class:`mathcheck.verify.evaluate.Evaluator` (the bridge the claims' checks
use), extended with what the user grammar adds: ``Derivative`` by ``torch.autograd.grad`` of the
evaluated function (independent of SymPy's own derivative), ``factorial``/``binomial`` exactly at
integers (``lgamma`` elsewhere), the inverse, hyperbolic and special functions, ``Max``/``Min``,
and bounds-checked indexed names.

    >>> from mathcheck.parser import parse
    >>> e = parse("diff(sin(x)^2, x)")
    >>> (x,) = e.free_symbols
    >>> round(float(UserEvaluator({x: torch.tensor(0.3, dtype=DT)})(e)), 12)
    0.564642473395
"""

from __future__ import annotations

import math

import sympy as sp
import torch

from mathcheck.userexpr.points import OFFSET
from mathcheck.verify.evaluate import EvaluationError, Evaluator, Indexed

NAME = "torch float64 (diff by autograd)"
DT = torch.float64


def _gamma(x):
    """Γ(x) = sign · exp(lgamma(x)); the sign is (−1)^⌈−x⌉ for negative x, poles give NaN."""
    sign = torch.where(x > 0, torch.ones_like(x), (-1.0) ** torch.ceil(-x))
    pole = (x <= 0) & (x == torch.round(x))
    return torch.where(pole, torch.full_like(x, float("nan")), sign * torch.exp(torch.lgamma(x)))


def _loggamma(x):
    return torch.where(x > 0, torch.lgamma(x), torch.full_like(x, float("nan")))


_EXTRA = {
    sp.sinh: torch.sinh, sp.cosh: torch.cosh,
    sp.asin: torch.asin, sp.acos: torch.acos, sp.atan: torch.atan,
    sp.asinh: torch.asinh, sp.acosh: torch.acosh, sp.atanh: torch.atanh,
    sp.cot: lambda x: 1 / torch.tan(x), sp.sec: lambda x: 1 / torch.cos(x), sp.csc: lambda x: 1 / torch.sin(x),
    sp.erf: torch.erf, sp.erfc: torch.erfc, sp.gamma: _gamma, sp.loggamma: _loggamma,
}


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
        fn = _EXTRA.get(e.func)
        if fn is not None:
            return fn(self._tensor(self.ev(e.args[0])))
        if isinstance(e, sp.atan2):
            return torch.atan2(self._tensor(self.ev(e.args[0])), self._tensor(self.ev(e.args[1])))
        if isinstance(e, (sp.Max, sp.Min)):
            vals = torch.broadcast_tensors(*[self._tensor(self.ev(a)) for a in e.args])
            out = vals[0]
            for v in vals[1:]:
                out = torch.maximum(out, v) if isinstance(e, sp.Max) else torch.minimum(out, v)
            return out
        if e.is_number and not e.is_Number and e not in (sp.pi, sp.E) and not e.free_symbols \
                and not isinstance(e, (sp.Add, sp.Mul, sp.Pow)) and not e.args:
            v = complex(sp.N(e, 20))  # a constant SymPy produced on its own (EulerGamma, ...)
            return float("nan") if v.imag else v.real
        return super().ev(e)

    def _tensor(self, v):
        return v if isinstance(v, torch.Tensor) else torch.as_tensor(float(v), dtype=DT)

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
        out = _gamma(ts[0] + 1)  # signed: Γ is negative on (−1, 0), (−3, −2), ...
        for t in ts[1:]:
            out = out / _gamma(t + 1)
        return out

    def _derivative(self, e):
        f = e.expr
        for var, count in reversed(e.variable_count):  # innermost first, like SymPy's order
            f = _Pending(f, var, int(count))
        return self._grad(f)

    def _grad(self, pending):
        if not isinstance(pending, _Pending):
            return self.ev(pending)
        var, order = pending.var, pending.order
        if isinstance(var, sp.Indexed):
            return self._grad_entry(pending)
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


    def _grad_entry(self, pending):
        """∂f/∂x[j]: the gradient with respect to the whole sampled tensor of x, read at entry j
        (autograd sees every x[i] that f reads, whichever index expression reached it)."""
        var, order = pending.var, pending.order
        binding = self.indexed.get(var.base)
        if binding is None:
            raise EvaluationError(f"no tensor for {var.base}")
        at = []
        for axis, i in enumerate(var.indices):
            k = self._index(self.ev(i)) - binding.offset
            if isinstance(k, torch.Tensor) or not 0 <= k < binding.tensor.shape[axis]:
                raise EvaluationError(f"index of {var} outside the sampled range")
            at.append(k)
        t0 = binding.tensor
        t = t0 * 1.0 if t0.requires_grad else t0.detach().clone().requires_grad_(True)
        self.indexed[var.base] = Indexed(t, offset=binding.offset)
        try:
            y = torch.as_tensor(self._grad(pending.inner), dtype=DT)
            for _ in range(order):
                if not y.requires_grad:
                    return torch.zeros((), dtype=DT)
                (g,) = torch.autograd.grad(y.sum(), t, create_graph=True, allow_unused=True)
                if g is None:
                    return torch.zeros((), dtype=DT)
                y = g[tuple(at)]
        finally:
            self.indexed[var.base] = binding
        return y


class _Pending:
    def __init__(self, inner, var, order):
        self.inner, self.var, self.order = inner, var, order


def _scalar(v) -> float | None:
    if isinstance(v, (int, float)):  # a side without a tensor (1/D at D = 3): torch would round it to float32
        return float(v)
    t = torch.as_tensor(v)
    if t.numel() != 1:
        return None
    x = t.detach().reshape(()).item()
    if isinstance(x, complex):
        return None if x.imag != 0 else x.real
    return float(x)


ERRORS = (EvaluationError, RuntimeError, ValueError, TypeError, IndexError, OverflowError, ZeroDivisionError)


def evaluator(point: dict):
    """A function ``e ↦ float | None`` at ``point`` (a sample point of :mod:`~mathcheck.userexpr.points`)."""
    env = {}
    for s, v in point.items():
        if isinstance(s, sp.IndexedBase):
            env[s] = Indexed(torch.tensor(v, dtype=DT), offset=OFFSET)
        elif isinstance(v, int):  # integers stay numbers: sum bounds must not be tensors
            env[s] = float(v)
        else:
            env[s] = torch.tensor(float(v), dtype=DT)
    return lambda e: _scalar(UserEvaluator(env)(e))
