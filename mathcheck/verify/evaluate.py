"""Evaluate a SymPy expression as torch tensors: the bridge from a derived result to a number.

``lambdify(..., modules='torch')`` fails on ``Indexed``, turns ``KroneckerDelta`` into a Python
``if`` that fails on tensors, and detaches gradients when it returns a Matrix. This walker handles
what derivations produce, with broadcasting:

* a Symbol takes its value from ``env`` (a number or a tensor, already shaped to broadcast);
* ``x[i]`` on an IndexedBase bound to a tensor gathers ``x[i - offset]`` (SymPy indices start at 1
  unless the binding says otherwise), elementwise over the index tensor;
* ``Sum(f, (k, a, b))`` binds ``k`` to ``arange(a, b + 1)`` on a new leading axis and sums it away;
* ``KroneckerDelta(i, j)`` is ``(i == j)``; undefined functions (``KL(p, q)``) come from ``funcs``.

Gradients flow through everything (autograd can differentiate an evaluated result).

    >>> import torch, sympy as sp
    >>> z, k, n = sp.IndexedBase("z"), sp.Symbol("k", integer=True), sp.Symbol("n")
    >>> evaluate(sp.Sum(sp.exp(z[k]), (k, 1, n)), {n: 3, z: torch.zeros(3, dtype=torch.float64)})
    tensor(3., dtype=torch.float64)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import sympy as sp
import torch


class EvaluationError(ValueError):
    pass


@dataclass(frozen=True)
class Indexed:
    """An IndexedBase binding: the tensor and the index of its first entry (1 by default)."""

    tensor: torch.Tensor
    offset: int = 1


_UNARY: dict[type, Callable] = {
    sp.exp: torch.exp,
    sp.log: torch.log,
    sp.sin: torch.sin,
    sp.cos: torch.cos,
    sp.tan: torch.tan,
    sp.tanh: torch.tanh,
    sp.Abs: torch.abs,
    sp.sign: torch.sign,
}


def _t(x, dtype, device) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x
    return torch.as_tensor(x, dtype=dtype, device=device)


class Evaluator:
    def __init__(self, env: Mapping, funcs: Mapping[str, Callable] | None = None,
                 dtype=torch.float64, device="cpu"):
        self.env = {}
        self.indexed = {}
        for key, value in env.items():
            if isinstance(key, sp.IndexedBase):
                self.indexed[key] = value if isinstance(value, Indexed) else Indexed(value)
            else:
                self.env[key] = value
        self.funcs = dict(funcs or {})
        self.dtype = dtype
        self.device = device
        self.depth = max([v.ndim for v in self.env.values() if isinstance(v, torch.Tensor)] + [0])

    def __call__(self, e):
        return self.ev(e)

    def ev(self, e):
        if isinstance(e, sp.MatrixBase) or getattr(e, "is_Matrix", False):
            m = sp.Matrix(e.doit()) if not isinstance(e, sp.MatrixBase) else e
            vals = [self.ev(x) for x in m]
            vals = torch.broadcast_tensors(*[_t(v, self.dtype, self.device) for v in vals])
            return torch.stack(vals).reshape(m.rows, m.cols, *vals[0].shape)
        if isinstance(e, (sp.Integer, sp.Rational, sp.Float)) or e.is_Number:
            return float(e)
        if e in (sp.pi, sp.E):
            return float(e)
        if isinstance(e, sp.Symbol) or isinstance(e, sp.Dummy):
            if e in self.env:
                return self.env[e]
            raise EvaluationError(f"no value for symbol {e}")
        if isinstance(e, sp.Indexed):
            binding = self.indexed.get(e.base)
            if binding is None:
                raise EvaluationError(f"no tensor for {e.base}")
            idx = [self._index(self.ev(i)) - binding.offset for i in e.indices]
            return binding.tensor[tuple(idx)]
        if isinstance(e, sp.Add):
            out = 0.0
            for a in e.args:
                out = out + self.ev(a)
            return out
        if isinstance(e, sp.Mul):
            out = 1.0
            for a in e.args:
                out = out * self.ev(a)
            return out
        if isinstance(e, sp.Pow):
            base, exp = self.ev(e.base), self.ev(e.exp)
            if not isinstance(base, torch.Tensor) and not isinstance(exp, torch.Tensor):
                return float(base) ** float(exp)
            if e.exp == sp.Rational(1, 2):
                return torch.sqrt(_t(base, self.dtype, self.device))
            return torch.pow(_t(base, self.dtype, self.device), exp)
        if isinstance(e, sp.KroneckerDelta):
            a, b = (self.ev(x) for x in e.args)
            if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
                return (_t(a, self.dtype, self.device) == _t(b, self.dtype, self.device)).to(self.dtype)
            return 1.0 if a == b else 0.0
        if isinstance(e, sp.Sum):
            return self._sum(e)
        if isinstance(e, sp.core.function.AppliedUndef):
            fn = self.funcs.get(e.func.__name__)
            if fn is None:
                raise EvaluationError(f"no torch function for {e.func.__name__}")
            return fn(*[self._arg(a) for a in e.args])
        for cls, fn in _UNARY.items():
            if isinstance(e, cls):
                return fn(_t(self.ev(e.args[0]), self.dtype, self.device))
        raise EvaluationError(f"cannot evaluate {type(e).__name__}: {e}")

    def _arg(self, a):
        if isinstance(a, sp.IndexedBase):
            return self.indexed[a].tensor
        return self.ev(a)

    def _index(self, v):
        if isinstance(v, torch.Tensor):
            return v.long()
        if float(v) != int(v):
            raise EvaluationError(f"non-integer index {v}")
        return int(v)

    def _sum(self, e: sp.Sum):
        return self._sum_limits(e.function, e.limits)

    def _sum_limits(self, f, limits):
        """Σ over ``limits`` (SymPy order: the first limit is the innermost), outermost bound first."""
        if not limits:
            return self.ev(f)
        (var, a, b), inner = limits[-1], limits[:-1]
        lo, hi = self.ev(a), self.ev(b)
        if isinstance(lo, torch.Tensor) or isinstance(hi, torch.Tensor):
            raise EvaluationError(f"sum bounds must be numbers, not tensors: ({var}, {a}, {b})")
        lo, hi = int(lo), int(hi)
        if hi < lo:
            return 0.0
        shape = (hi - lo + 1,) + (1,) * self.depth
        values = torch.arange(lo, hi + 1, device=self.device, dtype=self.dtype).reshape(shape)
        had, old, depth = var in self.env, self.env.get(var), self.depth
        self.env[var] = values
        self.depth += 1
        try:
            t = _t(self._sum_limits(f, inner), self.dtype, self.device)
        finally:
            self.depth = depth
            if had:
                self.env[var] = old
            else:
                del self.env[var]
        if t.ndim < depth + 1:  # the summand does not vary along this sum's axis
            return t * (hi - lo + 1)
        return t.sum(0) if t.shape[0] == hi - lo + 1 else t[0] * (hi - lo + 1)


def evaluate(e, env: Mapping, funcs: Mapping[str, Callable] | None = None,
             dtype=torch.float64, device="cpu"):
    """Evaluate ``e`` with ``env`` (symbols and IndexedBases to numbers/tensors) and ``funcs``."""
    out = Evaluator(env, funcs, dtype, device)(e)
    return _t(out, dtype, device)


def max_abs_err(a: torch.Tensor, b: torch.Tensor) -> float:
    d = (a - b).abs()
    return float(d.max()) if d.numel() else 0.0


def first_mismatch(a: torch.Tensor, b: torch.Tensor, atol: float, rtol: float):
    """Index of the first entry where ``|a − b| > atol + rtol·|b|`` (NaN counts), or None."""
    bad = ~torch.isclose(a, b, atol=atol, rtol=rtol, equal_nan=False)
    if not bool(bad.any()):
        return None
    idx = torch.nonzero(bad)[0].tolist()
    return tuple(idx)


