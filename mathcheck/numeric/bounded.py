"""The torch backend with a rounding bound: each value paired with a first-order bound on its error.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> v, err = BoundedEvaluator({x: 1e8}).pair((x + 1)**2 - x**2)  # 2x + 1, after cancellation
>>> abs(float(v) - 200000001) <= float(err), 1 < float(err) < 100
(True, True)
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import sympy as sp
import torch

from mathcheck.numeric import functions
from mathcheck.numeric.evaluate import Derived, EvaluationError, Evaluator, Indexed, _t
from mathcheck.numeric.tolerance import unit

# the functions whose rounding bound is derived below (others are evaluated unbounded, by Evaluator)
_BOUNDED = ("exp", "log", "sin", "cos", "tan", "tanh", "Abs", "sign")


def _mag(x) -> torch.Tensor | float:
    """|x|, differentiable: a derivative's bound is read off the derivative of f's bound."""
    return x.abs() if isinstance(x, torch.Tensor) else abs(float(x))


def _safe(a, b):
    """a·b with 0·inf = 0 (an exact operand contributes no error, whatever its partner's size)."""
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        return 0.0 if a == 0 or b == 0 else a * b
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    return torch.where((a == 0) | (b == 0), torch.zeros((), dtype=torch.promote_types(a.dtype, b.dtype)), a * b)


def _exact(v) -> bool:
    """Integers are exact inputs (sizes, index grids); other values carry one rounding."""
    if isinstance(v, torch.Tensor):
        return not v.is_floating_point() or bool((v == v.round()).all() & (v.abs() < 2**24).all())
    return float(v) == int(v) if math.isfinite(float(v)) else False


JACOBIAN_CHUNK = 16  # outputs per vectorised backward pass (memory: 16 × the graph of f)


class BoundedEvaluator(Evaluator):
    r"""Evaluates ``e`` and, alongside, a first-order bound on its rounding error (running error
    analysis, Wilkinson): every input that is not an integer carries one rounding, ``ε|x|``; then

    * ``a + b``: :math:`e_a + e_b + ε|a + b|`; a Sum of N terms: :math:`Σ e_t + (N-1)\,ε\,Σ|t|`
      (the magnitudes of the terms that cancel set the bound, not the size of the result);
    * ``a·b``: :math:`e_a|b| + |a|e_b + ε|ab|`; ``b**p``: :math:`|p b^{p-1}| e_b + |b^p \log b| e_p + ε|b^p|`;
    * ``exp``: :math:`|e^x|(e_x + ε)`; ``log``: :math:`e_x/|x| + ε|\log x|`; sin, cos, tanh: :math:`e_x + ε`;
    * ``Derivative`` (autograd): :math:`(N+1)\,ε\,(|f'| + \max|f'|)`, N the longest reduction seen;
    * ``Limit``: the function at the limit point when IEEE arithmetic gives a finite value there,
      else Richardson extrapolation from four points, the error bounded by the last correction;
    * ``Subs``: the expression with the variable bound; undefined functions from ``funcs``.

    ``ε`` is the machine epsilon of ``dtype``. Gradients flow through the values.

    Why a walk of its own and not a fourth backend of :mod:`mathcheck.numeric.expressions`: every node
    here yields a *pair* (value, bound) and the bound's rule is the node's own (a Sum's bound reads
    the magnitudes of its terms, a product the partial products), and it evaluates nodes the plain
    walker does not (MatMul of MatrixSymbols, Subs, Limit, UniqueZero). As a backend every primitive
    would take and return pairs and the walker would grow those node types for one caller; instead
    it reuses the torch backend's bindings, index checks, summation axes and user functions, and
    only the arithmetic is its own.

        >>> import sympy as sp, torch
        >>> x = sp.Symbol("x")
        >>> v, err = BoundedEvaluator({x: 1e8}).pair((x + 1)**2 - x**2)  # 2x + 1, after cancellation
        >>> abs(float(v) - 200000001) <= float(err), 1 < float(err) < 100
        (True, True)
    """

    def __init__(self, env, funcs=None, dtype=torch.float64, device="cpu"):
        super().__init__(env, funcs, dtype, device)
        self.eps = unit(dtype)
        torch_fns = functions.implementations("torch")
        self.unary = {getattr(sp, name): torch_fns[getattr(sp, name)] for name in _BOUNDED}
        self.tiny = float(torch.finfo(dtype).tiny)
        self.terms = 1  # the longest reduction seen (for derivative and reference bounds)
        self.peak = 0.0  # the largest |exp(x)| seen (a derivative's intermediates may overflow)

    def ev(self, e) -> torch.Tensor | float:
        return self.pair(e)[0]

    def _input(self, v):
        """One rounding, relative ε|v| plus the absolute underflow level (the smallest normal)."""
        if isinstance(v, Indexed):
            return v
        return 0.0 if _exact(v) else self.eps * _mag(v) + self.tiny

    def pair(self, e) -> tuple[torch.Tensor | float, torch.Tensor | float]:
        eps = self.eps
        if isinstance(e, sp.MatrixSymbol):
            if e in self.env:
                v = self.env[e]
                return v, self._input(v)
            raise EvaluationError(f"no tensor for the matrix {e}")
        if isinstance(e, sp.Transpose):
            v, err = self.pair(e.arg)
            return v.mT, _t(err, self.dtype, self.device).mT if _t(err, self.dtype, self.device).dim() >= 2 else err
        if isinstance(e, sp.MatMul) and e.atoms(sp.MatrixSymbol):  # symbolic shapes: X W_Q, bound to tensors
            v, err = None, None
            for a in e.args:
                av, ae = self.pair(a)
                if not isinstance(av, torch.Tensor) or av.dim() < 2:  # a scalar factor
                    v, err = (av, ae) if v is None else (v * av, _safe(err, _mag(av)) + _safe(_mag(v), ae))
                    continue
                if v is None or not isinstance(v, torch.Tensor) or v.dim() < 2:
                    v, err = (av, ae) if v is None else (v * av, _safe(err, _mag(av)) + _safe(_mag(v), ae))
                    continue
                inner = av.shape[-2]
                self.terms = max(self.terms, inner)
                mv, ma = _mag(v), _mag(av)
                err = (
                    _t(err, self.dtype, self.device).expand_as(v) @ ma
                    + mv @ _t(ae, self.dtype, self.device).expand_as(av)
                    + inner * eps * (mv @ ma)
                )
                v = v @ av
            return v, err
        if isinstance(e, sp.MatrixBase) or getattr(e, "is_Matrix", False):
            m = sp.Matrix(e.doit()) if not isinstance(e, sp.MatrixBase) else e
            pairs = [self.pair(x) for x in m]
            vals = torch.broadcast_tensors(*[_t(v, self.dtype, self.device) for v, _ in pairs])
            errs = torch.broadcast_tensors(*[_t(er, self.dtype, self.device) for _, er in pairs], vals[0])[:-1]
            return (
                torch.stack(vals).reshape(m.rows, m.cols, *vals[0].shape),
                torch.stack(errs).reshape(m.rows, m.cols, *vals[0].shape),
            )
        if e.is_Number or e in (sp.pi, sp.E):
            v = float(e)
            return v, 0.0 if isinstance(e, sp.Integer) else eps * abs(v)
        if e in (sp.oo, -sp.oo):
            return float(e), 0.0
        if isinstance(e, (sp.Symbol, sp.Dummy)):
            if e in self.env:
                v = self.env[e]
                return v, self._input(v)
            raise EvaluationError(f"no value for symbol {e}")
        if isinstance(e, sp.IndexedBase) and e in self.indexed:  # a whole vector, e.g. L(w − t·g)
            v = self._tensor_of(e)
            return v, self._input(v)
        if isinstance(e, sp.Indexed):
            binding = self.indexed.get(e.base)
            if binding is None:
                raise EvaluationError(f"no tensor for {e.base}")
            idx = tuple(self.backend.index(self.pair(i)[0]) - binding.offset for i in e.indices)
            full = self._tensor_of(e.base)
            v = full[idx]
            if isinstance(binding, Derived):  # computed by a reduction over the whole tensor
                return v, self.eps * (full.shape[-1] + 1) * _mag(v)
            if binding.err is not None:
                return v, binding.err[idx]
            return v, self._input(v)
        if isinstance(e, sp.Add):
            v, err = 0.0, 0.0
            for a in e.args:
                av, ae = self.pair(a)
                v = v + av
                err = err + ae + eps * _mag(v)
            self.terms = max(self.terms, len(e.args))
            return v, err
        if isinstance(e, sp.Mul):
            v, err = 1.0, 0.0
            for a in e.args:
                av, ae = self.pair(a)
                err = _safe(err, _mag(av)) + _safe(_mag(v), ae)
                v = v * av
                err = err + eps * _mag(v)
            return v, err
        if isinstance(e, sp.Pow):
            (b, eb), (p, ep) = self.pair(e.base), self.pair(e.exp)
            if not isinstance(b, torch.Tensor) and not isinstance(p, torch.Tensor) and float(b) != 0:
                v = float(b) ** float(p)
                v = float("nan") if isinstance(v, complex) else v
            elif e.exp == sp.Rational(1, 2):
                v = torch.sqrt(_t(b, self.dtype, self.device))
            else:  # IEEE: 0^-1 = inf (a limit point), not an exception
                v = torch.pow(_t(b, self.dtype, self.device), p)
            vb = _t(b, self.dtype, self.device).detach()
            pv = p.detach() if isinstance(p, torch.Tensor) else p
            dvdb = _mag(pv * torch.pow(vb, _t(pv, self.dtype, self.device) - 1))
            err = _safe(dvdb, eb) + eps * _mag(v)
            if not (isinstance(ep, float) and ep == 0.0):
                err = err + _safe(_mag(_t(v, self.dtype, self.device).detach() * torch.log(vb.abs())), ep)
            return v, err
        if isinstance(e, sp.KroneckerDelta):
            return self.ev_delta(e), 0.0
        if isinstance(e, sp.Sum):
            return self._bounded_sum(e.function, e.limits)
        if isinstance(e, sp.Derivative):
            return self._derivative(e)
        if isinstance(e, sp.Subs):
            return self._subs(e)
        if isinstance(e, sp.Limit):
            return self._limit(e)
        if (
            isinstance(e, sp.core.function.AppliedUndef)
            and e.func.__name__ == "UniqueZero"
            and "UniqueZero" not in self.funcs
        ):
            return self._unique_zero(*e.args)
        if isinstance(e, sp.core.function.AppliedUndef):
            fn = self.funcs.get(e.func.__name__)
            if fn is None:
                raise EvaluationError(f"no torch function for {e.func.__name__}")
            out = fn(*[self.backend.arg(self, a) for a in e.args])
            if isinstance(out, tuple):  # (value, error bound) from a function that knows its error
                return out
            n = max(
                [a.numel() for a in (self.backend.arg(self, a) for a in e.args) if isinstance(a, torch.Tensor)] + [1]
            )
            self.terms = max(self.terms, n)
            return out, (n + 1) * eps * _mag(out)
        for cls in self.unary:
            if isinstance(e, cls):
                x, ex = self.pair(e.args[0])
                v = self.unary[cls](_t(x, self.dtype, self.device))
                av = _mag(v)
                if cls is sp.exp:
                    if isinstance(v, torch.Tensor) and v.numel():
                        self.peak = max(self.peak, float(v.detach().abs().max()))
                    return v, _safe(av, ex) + eps * av
                if cls is sp.log:
                    return v, _safe(ex, 1 / _mag(_t(x, self.dtype, self.device))) + eps * av
                if cls is sp.tan:
                    return v, _safe(ex, 1 + av * av) + eps * av
                if cls is sp.sign:
                    xm = _mag(_t(x, self.dtype, self.device))
                    return v, torch.where(xm <= _t(ex, self.dtype, self.device), 2.0, 0.0).to(self.dtype)
                if cls is sp.Abs:
                    return v, ex
                return v, ex + eps * av  # sin, cos, tanh: 1-Lipschitz
        raise EvaluationError(f"cannot evaluate {type(e).__name__}: {e}")

    def _tensor_of(self, base):
        binding = self.indexed[base]
        if isinstance(binding, Derived):
            return binding.fn({b.label.name: v.tensor for b, v in self.indexed.items() if isinstance(v, Indexed)})
        return binding.tensor

    def _unique_zero(self, f, x, lo=1e-8, hi=1e8, points=161):
        """UniqueZero(f, x): the one sign change of f on a log grid [1e-8, 1e8], refined by 60
        bisections; NaN unless there is exactly one. Bound: the final bracket."""
        had, old = x in self.env, self.env.get(x)
        try:

            def at(v):
                self.env[x] = v
                return _t(self.pair(f)[0], self.dtype, self.device).detach()

            grid = torch.logspace(math.log10(lo), math.log10(hi), points, dtype=self.dtype, device=self.device)
            sgn = torch.sign(at(grid))
            flips = torch.nonzero(sgn[1:] * sgn[:-1] < 0).flatten()
            zeros = torch.nonzero(sgn == 0).flatten()
            if flips.numel() + zeros.numel() != 1:
                return torch.tensor(float("nan"), dtype=self.dtype), 0.0
            if zeros.numel():
                return grid[zeros[0]], 0.0
            a, b = grid[flips[0]].clone(), grid[flips[0] + 1].clone()
            fa = torch.sign(at(a))
            for _ in range(60):
                m = (a + b) / 2
                if torch.sign(at(m)) == fa:
                    a = m
                else:
                    b = m
            return (a + b) / 2, (b - a).abs() + self.eps * (a + b).abs()
        finally:
            if had:
                self.env[x] = old
            else:
                self.env.pop(x, None)

    def ev_delta(self, e) -> torch.Tensor | float:
        a, b = (self.pair(x)[0] for x in e.args)
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return (_t(a, self.dtype, self.device) == _t(b, self.dtype, self.device)).to(self.dtype)
        return 1.0 if a == b else 0.0

    def _bounded_sum(self, f, limits):
        if not limits:
            return self.pair(f)
        (var, a, b), inner = limits[-1], limits[:-1]
        lo, hi = self.pair(a)[0], self.pair(b)[0]
        if isinstance(lo, torch.Tensor) or isinstance(hi, torch.Tensor):
            raise EvaluationError(f"sum bounds must be numbers, not tensors: ({var}, {a}, {b})")
        lo, hi = int(lo), int(hi)
        if hi < lo:  # SymPy's (Karr's) convention, as in Evaluator._sum_limits
            if hi == lo - 1:
                return 0.0, 0.0
            t, et = self._bounded_sum(f, inner + ((var, sp.Integer(hi + 1), sp.Integer(lo - 1)),))
            return -_t(t, self.dtype, self.device), et
        count = hi - lo + 1
        self.terms = max(self.terms, count)
        depth = self.backend.depth
        with self.backend.axis(self, var, lo, hi):
            t, et = self._bounded_sum(f, inner)
            t, et = _t(t, self.dtype, self.device), _t(et, self.dtype, self.device)
        if t.ndim < depth + 1 or t.shape[0] != count:  # the summand does not vary along this axis
            t0, e0 = (t, et) if t.ndim < depth + 1 else (t[0], et[0] if et.ndim == t.ndim else et)
            return t0 * count, e0 * count + self.eps * count * t0.detach().abs()
        et = et.expand_as(t) if et.ndim <= t.ndim else et
        return t.sum(0), et.sum(0) + (count - 1) * self.eps * t.detach().abs().sum(0)

    # -- calculus: autograd, substitution, limits ------------------------------------------------------

    def _derivative(self, e):
        return self._diff(e.expr, [(var, int(c)) for var, c in e.variable_count])

    def _deriv_err(self, g, dedx):
        """The rounding bound of an autograd derivative g: the derivative of f's own bound (how the
        magnitudes of the terms that cancel in f change with x: those of f′'s terms) plus
        (N + 1)·ε·(|g| + max|g|)."""
        ag = _mag(g)
        top = float(ag.detach().max()) if isinstance(ag, torch.Tensor) and ag.numel() else float(ag)
        return _mag(dedx) + (self.terms + 1) * self.eps * (ag + top)

    def _diff(self, f, variables):
        """(∂f/∂var, its bound) by autograd; ``var`` a Symbol (treated as a scalar at every evaluation
        point: its value is broadcast to f's shape and each entry differentiated on its own) or
        ``x[j]`` (the Jacobian of f with respect to the bound tensor, read at index j of each entry)."""
        if not variables:
            v, err = self.pair(f)
            v = _t(v, self.dtype, self.device)
            # autograd squares what f divides by: beyond √max an intermediate overflows unseen
            if (
                v.numel()
                and float(v.detach().abs().max()) > math.sqrt(torch.finfo(self.dtype).max)
                or self.peak > math.sqrt(torch.finfo(self.dtype).max)
            ):
                raise EvaluationError(f"an intermediate exceeds √(largest {self.dtype}) (overflow under autograd)")
            return v, _t(err, self.dtype, self.device)
        (var, count), rest = variables[0], variables[1:]
        if count > 1:
            rest = [(var, count - 1)] + rest
        if isinstance(var, sp.Indexed):
            return self._diff_indexed(f, var, rest)
        if var not in self.env:
            raise EvaluationError(f"no value for the variable {var} of a derivative")
        old = self.env[var]
        shape = self._diff(f, rest)[0].shape
        base = _t(old, self.dtype, self.device)
        shape = torch.broadcast_shapes(shape, base.shape)
        x = base.expand(shape).clone() if not base.requires_grad else base.expand(shape) * 1.0
        if not x.requires_grad:
            x.requires_grad_(True)
        self.env[var] = x
        zero = torch.zeros(shape, dtype=self.dtype, device=self.device)
        try:
            out, err = self._diff(f, rest)
            if not out.requires_grad:
                return zero, zero
            (g,) = torch.autograd.grad(out.sum(), x, create_graph=True, allow_unused=True)
            g = zero if g is None else g
            dedx = None
            if err.requires_grad:
                (dedx,) = torch.autograd.grad(err.sum(), x, create_graph=True, allow_unused=True)
            return g, self._deriv_err(g, zero if dedx is None else dedx)
        finally:
            self.env[var] = old

    def _diff_indexed(self, f, var, rest):
        binding = self.indexed.get(var.base)
        if binding is None:
            raise EvaluationError(f"no tensor for {var.base}")
        X = binding.tensor.detach()
        idx = [self.backend.index(self.pair(i)[0]) - binding.offset for i in var.indices]

        def fn(t):
            self.indexed[var.base] = Indexed(t, binding.offset)
            try:
                v, err = self._diff(f, rest)
                return v, err.expand_as(v) if err.shape != v.shape else err
            finally:
                self.indexed[var.base] = binding

        value = fn(X)[0]
        if X.numel() < value.numel():  # fewer inputs than outputs: one forward pass per input
            J, Je = torch.autograd.functional.jacobian(fn, X, vectorize=True, strategy="forward-mode")
        elif value.numel() * X.numel() <= 1 << 16:
            J, Je = torch.autograd.functional.jacobian(fn, X, create_graph=True, vectorize=True)
        else:  # many outputs of a large graph: backward passes in chunks, so memory stays bounded
            J, Je = torch.func.jacrev(fn, chunk_size=JACOBIAN_CHUNK)(X)
        out_shape = torch.broadcast_shapes(value.shape, *[i.shape for i in idx if isinstance(i, torch.Tensor)])
        lead = len(out_shape) - value.dim()
        grid = []  # entry (o1, …, ok) of f: broadcast index tensors, no copy of J
        for d, size in enumerate((1,) * lead + tuple(value.shape)):
            shape = [1] * len(out_shape)
            shape[d] = size
            grid.append(
                torch.arange(size, device=J.device).reshape(shape)
                if size > 1
                else torch.zeros(shape, dtype=torch.long, device=J.device)
            )
        cols = tuple(torch.as_tensor(i, device=J.device) for i in idx)

        def read(M):
            M = M.reshape((1,) * lead + tuple(value.shape) + tuple(X.shape))
            return M[tuple(grid) + cols].expand(out_shape)

        g = read(J)
        return g, self._deriv_err(g, read(Je))

    def _subs(self, e):
        values = [self.pair(p)[0] for p in e.point]
        saved = {v: self.env.get(v, None) for v in e.variables}
        for v, val in zip(e.variables, values):
            self.env[v] = val
        try:
            return self.pair(e.expr)
        finally:
            for v, old in saved.items():
                if old is None:
                    self.env.pop(v, None)
                else:
                    self.env[v] = old

    def _limit(self, e):
        f, x, x0, direction = e.args
        at = float(x0)
        had, old = x in self.env, self.env.get(x)

        def at_point(value):
            self.env[x] = value
            try:
                v, err = self.pair(f)
                return _t(v, self.dtype, self.device), _t(err, self.dtype, self.device)
            finally:
                if had:
                    self.env[x] = old
                else:
                    del self.env[x]

        v, err = at_point(at)
        if bool(torch.isfinite(v).all()):
            return v, err
        # Richardson: f(x_k) = L + c·h_k + O(h²) with h_k = 2^-k h0 (h = 1/x for x → ±∞)
        sign = -1.0 if str(direction) == "-" else 1.0
        if math.isinf(at):  # far points first; where f over- or underflows there, nearer ones
            starts = (
                [math.copysign(s * 2**k, at) for k in range(4) for s in (1e4,)],
                [math.copysign(10 * 2**k, at) for k in range(4)],
            )
        else:
            starts = [at + sign * 1e-4 * 2**-k for k in range(4)], [at + sign * 1e-2 * 2**-k for k in range(4)]
        for points in starts:
            table = [at_point(p) for p in points]
            if all(bool(torch.isfinite(t[0]).all()) for t in table):
                break
        vals = [t[0] for t in table]
        noise = sum(t[1] for t in table)
        r1 = [2 * vals[k + 1] - vals[k] for k in range(3)]
        r2 = [(4 * r1[k + 1] - r1[k]) / 3 for k in range(2)]
        r3 = (8 * r2[1] - r2[0]) / 7
        return r3, (r3 - r2[1]).detach().abs() + (r2[1] - r2[0]).detach().abs() + 8 * noise


def evaluate_bounded(
    e: sp.Basic,
    env: Mapping,
    funcs: Mapping[str, Callable] | None = None,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> tuple[torch.Tensor, torch.Tensor, int]:
    """``(value, error bound, longest reduction)`` of ``e``: see :class:`BoundedEvaluator`."""
    ev = BoundedEvaluator(env, funcs, dtype, device)
    v, err = ev.pair(e)
    v = _t(v, dtype, device)
    return (
        v,
        _t(err, dtype, device).expand_as(v) if _t(err, dtype, device).ndim <= v.ndim else _t(err, dtype, device),
        ev.terms,
    )
