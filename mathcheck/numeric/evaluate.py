"""The torch backend of the walker (:mod:`mathcheck.numeric.expressions`): tensors, with autograd and broadcasting.

``lambdify(..., modules='torch')`` fails on ``Indexed``, turns ``KroneckerDelta`` into a Python
``if`` that fails on tensors, and detaches gradients when it returns a Matrix. With this backend
the walker handles what derivations and users' formulas produce:

* a Symbol takes its value from ``env`` (a number or a tensor, already shaped to broadcast);
* ``x[i]`` on an IndexedBase bound to a tensor gathers ``x[i - offset]`` (SymPy indices start at 1
  unless the binding says otherwise), elementwise over the index tensor; with
  ``checked_indices`` an index outside the tensor is an error, not torch's wrap-around;
* ``Sum(f, (k, a, b))`` binds ``k`` to ``arange(a, b + 1)`` on a new leading axis and sums it away;
* ``KroneckerDelta(i, j)`` is ``(i == j)``; undefined functions (``KL(p, q)``) come from ``funcs``;
* every function class of the function table (:mod:`mathcheck.numeric.functions`, its ``torch``
  implementations: ``factorial``/``binomial`` exact at integers, ``lgamma`` elsewhere);
* ``Product`` and ``Piecewise`` are errors (no branch is one branch for a tensor of points);
* ``Derivative`` by ``torch.autograd.grad`` of the evaluated function (independent of SymPy's own
  derivative); a derivative in ``x[j]`` is the gradient with respect to the whole tensor of x,
  read at entry j.

Gradients flow through everything. :mod:`mathcheck.numeric.bounded` adds a rounding bound to each
value; :mod:`mathcheck.numeric.floats` evaluates without torch.

    >>> import torch, sympy as sp
    >>> z, k, n = sp.IndexedBase("z"), sp.Symbol("k", integer=True), sp.Symbol("n")
    >>> evaluate(sp.Sum(sp.exp(z[k]), (k, 1, n)), {n: 3, z: torch.zeros(3, dtype=torch.float64)})
    tensor(3., dtype=torch.float64)
    >>> x = sp.Symbol("x")
    >>> round(float(Evaluator({x: torch.tensor(0.3, dtype=DT)})(sp.Derivative(sp.sin(x) ** 2, x))), 12)
    0.564642473395
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, NoReturn

import sympy as sp
import torch

from mathcheck.numeric import functions
from mathcheck.numeric.sampling import OFFSET
from mathcheck.numeric.expressions import Walker

NAME = "torch float64 (diff by autograd)"
DT = torch.float64


class EvaluationError(ValueError):
    pass


@dataclass(frozen=True)
class Indexed:
    """An IndexedBase binding: the tensor and the index of its first entry (1 by default)."""

    tensor: torch.Tensor
    offset: int = 1
    err: Any = None  # a known rounding bound of the entries (else one rounding, ε|x|)


@dataclass(frozen=True)
class Derived:
    """A binding computed from the others each time it is read, so that a derivative sees it move:
    ``Derived(lambda b: F.log_softmax(b["z"] / T, -1))`` for ``ls[j]`` in ∂(−Σ p_j ls_j)/∂z_i
    (``b`` maps the names of the other IndexedBases to their current tensors)."""

    fn: Callable
    offset: int = 1


def _t(x, dtype, device) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x
    return torch.as_tensor(x, dtype=dtype, device=device)


class TorchBackend:
    """Tensors for :class:`~mathcheck.numeric.expressions.Walker`, with autograd and broadcasting: the
    IndexedBase bindings (``indexed``), the number of summation axes opened so far (``depth``: a
    sum's index lives on a new leading axis), ``checked``: an entry outside its tensor is an
    :class:`EvaluationError` (the user's pipeline: a point is skipped, not wrapped around)."""

    kind = "torch"
    error = EvaluationError
    missing = "no value for symbol {}"

    def __init__(self, indexed: dict, dtype, device, checked: bool, depth: int):
        self.indexed, self.dtype, self.device, self.checked, self.depth = indexed, dtype, device, checked, depth
        self.table = functions.implementations("torch")

    def run(self, walker, e) -> torch.Tensor | float:
        return walker.ev(e)

    def t(self, x) -> torch.Tensor:
        return _t(x, self.dtype, self.device)

    def number(self, e) -> float:
        return float(e)

    def value(self, v) -> torch.Tensor | float:
        return v

    def matrix(self, walker, e) -> torch.Tensor:
        m = sp.Matrix(e.doit()) if not isinstance(e, sp.MatrixBase) else e
        vals = [walker.ev(x) for x in m]
        vals = torch.broadcast_tensors(*[self.t(v) for v in vals])
        return torch.stack(vals).reshape(m.rows, m.cols, *vals[0].shape)

    def entry(self, walker, e) -> torch.Tensor:
        binding = self.indexed.get(e.base)
        if binding is None:
            raise EvaluationError(f"no tensor for {e.base}")
        idx = []
        for axis, i in enumerate(e.indices):
            v = self.index(walker.ev(i)) - binding.offset
            if self.checked:
                lo, hi = (int(v.min()), int(v.max())) if isinstance(v, torch.Tensor) else (v, v)
                if lo < 0 or hi >= binding.tensor.shape[axis]:  # torch would wrap a negative index
                    raise EvaluationError(f"index of {e} outside the sampled range")
            idx.append(v)
        return binding.tensor[tuple(idx)]

    def index(self, v) -> torch.Tensor | int:
        if isinstance(v, torch.Tensor):
            return v.long()
        if float(v) != int(v):
            raise EvaluationError(f"non-integer index {v}")
        return int(v)

    def arg(self, walker, a) -> torch.Tensor | float:
        """An argument of a user's function: a whole IndexedBase is its tensor."""
        if isinstance(a, sp.IndexedBase):
            return self.indexed[a].tensor
        return walker.ev(a)

    def add(self, values) -> torch.Tensor | float:
        out = 0.0
        for v in values:
            out = out + v
        return out

    def mul(self, values) -> torch.Tensor | float:
        out = 1.0
        for v in values:
            out = out * v
        return out

    def pow(self, base, exp, e) -> torch.Tensor | float:
        if not isinstance(base, torch.Tensor) and not isinstance(exp, torch.Tensor):
            return float(base) ** float(exp)
        if e.exp == sp.Rational(1, 2):
            return torch.sqrt(self.t(base))
        return torch.pow(self.t(base), exp)

    def call(self, fn, args) -> torch.Tensor:
        return fn(*[self.t(a) for a in args])

    def delta(self, a, b) -> torch.Tensor | float:
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return (self.t(a) == self.t(b)).to(self.dtype)
        return 1.0 if a == b else 0.0

    def piecewise(self, walker, e) -> NoReturn:  # a condition on tensors has no one branch
        raise self.unknown(e)

    def unknown(self, e) -> EvaluationError:
        return EvaluationError(f"cannot evaluate {type(e).__name__}: {e}")

    def other(self, walker, e) -> float:
        if e.is_number and not e.free_symbols and not isinstance(e, (sp.Add, sp.Mul, sp.Pow)) and not e.args:
            v = complex(sp.N(e, 20))  # a constant SymPy produced on its own (EulerGamma, ...)
            return float("nan") if v.imag else v.real
        raise self.unknown(e)

    # -- Sum over a new axis -------------------------------------------------------------------------

    def reduce(self, walker, e) -> torch.Tensor | float:
        if isinstance(e, sp.Product):
            raise self.unknown(e)
        return self.sum_limits(walker, e.function, e.limits)

    @contextmanager
    def axis(self, walker, var, lo: int, hi: int) -> Iterator[None]:
        """Bind the summation index ``var`` to lo..hi along a new leading axis (one per nested sum)."""
        shape = (hi - lo + 1,) + (1,) * self.depth
        depth = self.depth
        with walker.bind(var, torch.arange(lo, hi + 1, device=self.device, dtype=self.dtype).reshape(shape)):
            self.depth += 1
            try:
                yield
            finally:
                self.depth = depth

    def sum_limits(self, walker, f, limits) -> torch.Tensor | float:
        """Σ over ``limits`` (SymPy order: the first limit is the innermost), outermost bound first."""
        if not limits:
            return walker.ev(f)
        (var, a, b), inner = limits[-1], limits[:-1]
        lo, hi = walker.ev(a), walker.ev(b)
        if isinstance(lo, torch.Tensor) or isinstance(hi, torch.Tensor):
            raise EvaluationError(f"sum bounds must be numbers, not tensors: ({var}, {a}, {b})")
        lo, hi = int(lo), int(hi)
        if hi < lo:  # SymPy's (Karr's) convention: Σ_{a}^{b} = −Σ_{b+1}^{a−1}, 0 when b = a − 1
            return (
                0.0
                if hi == lo - 1
                else -self.t(self.sum_limits(walker, f, inner + ((var, sp.Integer(hi + 1), sp.Integer(lo - 1)),)))
            )
        depth = self.depth
        with self.axis(walker, var, lo, hi):
            t = self.t(self.sum_limits(walker, f, inner))
        if t.ndim < depth + 1:  # the summand does not vary along this sum's axis
            return t * (hi - lo + 1)
        return t.sum(0) if t.shape[0] == hi - lo + 1 else t[0] * (hi - lo + 1)

    # -- Derivative by autograd ----------------------------------------------------------------------

    def integral(self, walker, e) -> NoReturn:  # a definite integral: quadrature, by the float64 and mpmath backends
        raise self.error("integrals are evaluated by quadrature (numeric/precise.py), not by torch")

    def limit(self, walker, e) -> NoReturn:  # a limit: approached by the float64 and mpmath backends
        raise self.error("limits are approached at 100 digits (numeric/precise.py), not by torch")

    def derivative(self, walker, e) -> torch.Tensor | float:
        f = e.expr
        for var, count in reversed(e.variable_count):  # innermost first, like SymPy's order
            f = _Pending(f, var, int(count))
        return self._grad(walker, f)

    def _grad(self, walker, pending):
        if not isinstance(pending, _Pending):
            return walker.ev(pending)
        var, order = pending.var, pending.order
        if isinstance(var, sp.Indexed):
            return self._grad_entry(walker, pending)
        # f may not depend on var at all (diff(x, y) = 0): any point of var will do
        x0 = torch.as_tensor(walker.env.get(var, 0.5), dtype=self.dtype)
        # a derivative inside another one must stay on the outer graph, so take a non-leaf view
        x = x0 * 1.0 if x0.requires_grad else x0.detach().clone().requires_grad_(True)
        with walker.bind(var, x):
            y = torch.as_tensor(self._grad(walker, pending.inner), dtype=self.dtype)
            for _ in range(order):
                if not y.requires_grad:
                    y = torch.zeros_like(x)
                    break
                (g,) = torch.autograd.grad(y.sum(), x, create_graph=True, allow_unused=True)
                y = torch.zeros_like(x) if g is None else g
        return y

    def _grad_entry(self, walker, pending):
        """∂f/∂x[j]: the gradient with respect to the whole sampled tensor of x, read at entry j
        (autograd sees every x[i] that f reads, whichever index expression reached it)."""
        var, order = pending.var, pending.order
        binding = self.indexed.get(var.base)
        if binding is None:
            raise EvaluationError(f"no tensor for {var.base}")
        at = []
        for axis, i in enumerate(var.indices):
            k = self.index(walker.ev(i)) - binding.offset
            if isinstance(k, torch.Tensor) or not 0 <= k < binding.tensor.shape[axis]:
                raise EvaluationError(f"index of {var} outside the sampled range")
            at.append(k)
        t0 = binding.tensor
        t = t0 * 1.0 if t0.requires_grad else t0.detach().clone().requires_grad_(True)
        self.indexed[var.base] = Indexed(t, offset=binding.offset)
        try:
            y = torch.as_tensor(self._grad(walker, pending.inner), dtype=self.dtype)
            for _ in range(order):
                if not y.requires_grad:
                    return torch.zeros((), dtype=self.dtype)
                (g,) = torch.autograd.grad(y.sum(), t, create_graph=True, allow_unused=True)
                if g is None:
                    return torch.zeros((), dtype=self.dtype)
                y = g[tuple(at)]
        finally:
            self.indexed[var.base] = binding
        return y


class Evaluator(Walker):
    """``Evaluator(env, funcs)(e)``: the walker with a :class:`TorchBackend`. ``env`` maps Symbols
    to numbers or tensors (already shaped to broadcast) and IndexedBases to tensors (or
    :class:`Indexed`/:class:`Derived` bindings); ``checked_indices``: see :class:`TorchBackend`."""

    def __init__(
        self,
        env: Mapping,
        funcs: Mapping[str, Callable] | None = None,
        dtype=torch.float64,
        device="cpu",
        checked_indices: bool = False,
    ):
        scalars, indexed = {}, {}
        for key, value in env.items():
            if isinstance(key, sp.IndexedBase):
                indexed[key] = value if isinstance(value, (Indexed, Derived)) else Indexed(value)
            else:
                scalars[key] = value
        depth = max([v.ndim for v in scalars.values() if isinstance(v, torch.Tensor)] + [0])
        super().__init__(TorchBackend(indexed, dtype, device, checked_indices, depth), scalars, dict(funcs or {}))
        self.indexed, self.dtype, self.device = indexed, dtype, device


class _Pending:
    def __init__(self, inner, var, order):
        self.inner, self.var, self.order = inner, var, order


def evaluate(
    e: sp.Basic,
    env: Mapping,
    funcs: Mapping[str, Callable] | None = None,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> torch.Tensor:
    """Evaluate ``e`` with ``env`` (symbols and IndexedBases to numbers/tensors) and ``funcs``."""
    out = Evaluator(env, funcs, dtype, device)(e)
    return _t(out, dtype, device)


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


def evaluator(point: dict) -> Callable[[sp.Basic], float | None]:
    """A function ``e ↦ float | None`` at ``point`` (a point of :func:`mathcheck.numeric.sampling.sample_points`)."""
    env = {}
    for s, v in point.items():
        if isinstance(s, sp.IndexedBase):
            env[s] = Indexed(torch.tensor(v, dtype=DT), offset=OFFSET)
        elif isinstance(v, int):  # integers stay numbers: sum bounds must not be tensors
            env[s] = float(v)
        else:
            env[s] = torch.tensor(float(v), dtype=DT)
    return lambda e: _scalar(Evaluator(env, checked_indices=True)(e))
