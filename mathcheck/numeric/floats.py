"""The Python-float backend: SymPy expression trees walked in float64 with Python's ``math``, no torch.

Python floats are IEEE-754 binary64, the same numbers as NumPy's or torch's float64; ``math``
also has ``erf``, ``erfc``, ``gamma`` and ``lgamma``, which NumPy lacks, and costs nothing to
import. The functions come from the function table (:mod:`mathcheck.numeric.functions`, its
``math`` implementations: ``factorial`` and ``binomial`` exact at integers). This is what
``mathcheck check`` uses for identities without ``diff`` (torch's autograd is loaded only for those). A value that is undefined in the reals (``log`` of a negative number, a
pole, an overflow, a complex power) raises :class:`Undefined`, and the point is skipped.

    >>> from mathcheck.parser import parse
    >>> e = parse("sigmoid(x) + Sum(k, (k, 1, n))", {"n": ("positive",)})
    >>> env = {s: (3 if s.is_integer else 0.0) for s in e.free_symbols}
    >>> evaluate(e, env)
    6.5
"""

from __future__ import annotations

import math

from mathcheck.lazy import sympy as sp
from mathcheck.numeric import functions
from mathcheck.numeric.sampling import exact as exact_number
from mathcheck.numeric.sampling import lookup

NAME = "float64 (Python math)"


class Undefined(ValueError):
    """The expression has no real float64 value at this point."""


def _real(v) -> float:
    if isinstance(v, complex):
        raise Undefined("complex value")
    v = float(v)
    if not math.isfinite(v):
        raise Undefined("not finite")
    return v


class FloatEvaluator:
    """``FloatEvaluator(env)(e)``: ``env`` maps Symbols to numbers and IndexedBases to nested lists
    (as :func:`mathcheck.numeric.sampling.sample_points` draws them)."""

    def __init__(self, env: dict, constants: dict | None = None):
        self.env = dict(env)
        self.table = functions.implementations("math")  # by SymPy class: exp, gamma, Max, binomial, …
        self.constants = {} if constants is None else constants  # shared across points

    def __call__(self, e) -> float:
        try:
            return _real(self.ev(e))
        except (ValueError, OverflowError, ZeroDivisionError, IndexError, TypeError) as exc:
            raise Undefined(str(exc) or type(exc).__name__) from None

    def ev(self, e):
        if e.is_Number:
            if e in (sp.nan, sp.zoo, sp.oo, -sp.oo):
                raise Undefined(f"{e}")
            return float(e)
        if e is sp.pi:
            return math.pi
        if e is sp.E:
            return math.e
        if e.is_Symbol:
            if e not in self.env:
                raise Undefined(f"no value for {e}")
            return self.env[e]
        if isinstance(e, sp.Indexed):
            return lookup(self.env[e.base], [self._int(self.ev(i)) for i in e.indices])
        if e.is_Add:
            return math.fsum(_real(self.ev(a)) for a in e.args)
        if e.is_Mul:
            out = 1.0
            for a in e.args:
                out *= self.ev(a)
            return out
        if e.is_Pow:
            base, ex = self.ev(e.base), self.ev(e.exp)
            return _real(float(base) ** float(ex))
        fn = self.table.get(e.func)
        if fn is not None:  # the function table's float64 implementation (ValueError where undefined)
            return fn(*[_real(self.ev(a)) for a in e.args])
        if isinstance(e, sp.Sum):
            if not e.free_symbols:  # a constant sum (Σ_{j≤100} Σ_{k≤100} kj): once for all points
                if e not in self.constants:
                    self.constants[e] = self._sum(e.function, e.limits)
                return self.constants[e]
            return self._sum(e.function, e.limits)
        if isinstance(e, sp.Product):
            return self._sum(e.function, e.limits, product=True)
        if isinstance(e, sp.KroneckerDelta):
            return float(self.ev(e.args[0]) == self.ev(e.args[1]))
        if isinstance(e, sp.Piecewise):
            for value, cond in e.args:
                c = cond.xreplace({s: exact_number(self.env[s]) for s in cond.free_symbols if s in self.env
                                   and not isinstance(self.env[s], list)})
                if c is sp.true or c is True:
                    return self.ev(value)
                if c is not sp.false and c is not False:
                    raise Undefined(f"cannot decide {cond}")
            raise Undefined("no branch of a Piecewise holds")
        if isinstance(e, sp.Derivative):
            raise Undefined("derivatives are evaluated by torch's autograd")
        if e.is_number:  # a constant SymPy produced on its own (EulerGamma, ...)
            v = complex(sp.N(e, 20))
            if v.imag:
                raise Undefined("complex value")
            return v.real
        raise Undefined(f"cannot evaluate {type(e).__name__}")

    def _int(self, v) -> int:
        if float(v) != int(v):
            raise Undefined(f"non-integer index {v}")
        return int(v)

    def _sum(self, f, limits, product: bool = False):
        """Σ (or Π) over ``limits`` (SymPy order: the last limit is the outermost), Karr's convention."""
        if not limits:
            return _real(self.ev(f))
        (var, a, b), inner = limits[-1], limits[:-1]
        lo, hi = self._int(self.ev(a)), self._int(self.ev(b))
        sign = 1.0
        if hi < lo and product:  # Π_{a}^{b} = 1/Π_{b+1}^{a−1} (SymPy's convention; 1 when b = a − 1)
            return 1.0 if hi == lo - 1 else 1.0 / self._sum(f, inner + ((var, b + 1, a - 1),), True)
        if hi < lo:  # Σ_{a}^{b} = −Σ_{b+1}^{a−1} (SymPy's convention; 0 when b = a − 1)
            lo, hi, sign = hi + 1, lo - 1, -1.0
        had, old = var in self.env, self.env.get(var)
        terms = []
        try:
            for k in range(lo, hi + 1):
                self.env[var] = k
                terms.append(self._sum(f, inner, product))
        finally:
            if had:
                self.env[var] = old
            else:
                self.env.pop(var, None)
        if product:
            return math.prod(terms)
        return sign * math.fsum(terms)


def evaluate(e, env: dict, constants: dict | None = None) -> float:
    """``e`` at ``env`` in float64; raises :class:`Undefined` where it has no real value.
    ``constants`` (a dict kept across calls) remembers sums without free symbols."""
    return FloatEvaluator(env, constants)(e)
