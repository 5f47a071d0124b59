"""The Python-float backend of the walker (:mod:`mathcheck.numeric.expressions`): float64 with Python's ``math``, no torch.

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
from typing import NoReturn

from mathcheck.lazy import sympy as sp
from mathcheck.numeric import functions
from mathcheck.numeric.sampling import lookup
from mathcheck.numeric.expressions import Walker, loop_reduce

NAME = "float64 (Python math)"


class Undefined(ValueError):
    """The expression has no real float64 value at this point."""


class IntegralUndefined(Undefined):
    """A definite integral has no value at this point (:class:`mathcheck.numeric.precise.Diverges`):
    not a point to skip but one that keeps the link from being proved."""


def _real(v) -> float:
    if isinstance(v, complex):
        raise Undefined("complex value")
    v = float(v)
    if not math.isfinite(v):
        raise Undefined("not finite")
    return v


class FloatBackend:
    """Python floats for :class:`~mathcheck.numeric.expressions.Walker`: ``env`` maps Symbols to numbers
    and IndexedBases to nested lists (as :func:`mathcheck.numeric.sampling.sample_points` draws
    them). A sum is ``math.fsum`` of its terms (correctly rounded: the order of the terms does not
    matter), a product left to right; a sum without free symbols is computed once into
    ``constants`` (a dict shared across points: Σ_{j≤100} Σ_{k≤100} kj)."""

    kind = "float64"
    error = Undefined
    missing = "no value for {}"

    def __init__(self, constants: dict | None = None):
        self.table = functions.implementations("math")  # by SymPy class: exp, gamma, Max, binomial, …
        self.constants = {} if constants is None else constants

    def run(self, walker, e) -> float:
        from mathcheck.numeric.precise import Diverges

        try:
            return _real(walker.ev(e))
        except Diverges as exc:
            raise IntegralUndefined(str(exc)) from None
        except (ValueError, OverflowError, ZeroDivisionError, IndexError, TypeError) as exc:
            raise Undefined(str(exc) or type(exc).__name__) from None

    def number(self, e) -> float:
        if e in (sp.nan, sp.zoo, sp.oo, -sp.oo):
            raise Undefined(f"{e}")
        return math.pi if e is sp.pi else math.e if e is sp.E else float(e)

    def value(self, v) -> float:
        return v

    def index(self, v) -> int:
        if float(v) != int(v):
            raise Undefined(f"non-integer index {v}")
        return int(v)

    def entry(self, walker, e) -> float:
        return lookup(walker.env[e.base], [self.index(walker.ev(i)) for i in e.indices])

    def add(self, values) -> float:
        return math.fsum(_real(v) for v in values)

    def mul(self, values) -> float:
        out = 1.0
        for v in values:
            out *= v
        return out

    def pow(self, base, ex, e) -> float:
        return _real(float(base) ** float(ex))

    def call(self, fn, args) -> float:  # ValueError where the function is undefined
        return fn(*[_real(a) for a in args])

    def reduce(self, walker, e) -> float:
        product = isinstance(e, sp.Product)
        if not product and not e.free_symbols:  # a constant sum: once for all points
            if e not in self.constants:
                self.constants[e] = loop_reduce(walker, e.function, e.limits)
            return self.constants[e]
        return loop_reduce(walker, e.function, e.limits, product)

    term = staticmethod(_real)
    fsum = staticmethod(math.fsum)
    prod = staticmethod(math.prod)

    def delta(self, a, b) -> float:
        return float(a == b)

    def piecewise(self, walker, e) -> float:
        return walker.piecewise(e)

    def derivative(self, walker, e) -> NoReturn:
        raise Undefined("derivatives are evaluated by torch's autograd")

    def integral(self, walker, e) -> float:
        """``∫_a^b f dx`` by mpmath's quadrature at SCREEN_DIGITS, the integrand walked in float64 at
        each node, the error estimate within the screen's tolerance (numeric/precise.quadrature)."""
        import mpmath

        from mathcheck.numeric.precise import SCREEN_DIGITS, Diverges, quadrature, screen_allowed

        if not e.free_symbols and e in self.constants:  # a constant integral (a density's mass): once for all points
            v = self.constants[e]
            if isinstance(v, Diverges):
                raise v
            return v
        try:
            with mpmath.workdps(SCREEN_DIGITS):
                v = float(quadrature(walker, e, screen_allowed, guard=0))
            if not math.isfinite(v):
                raise Diverges(f"∫ {e.function}: beyond float64 ({v})")
        except Diverges as exc:
            if not e.free_symbols:
                self.constants[e] = exc
            raise
        if not e.free_symbols:
            self.constants[e] = v
        return v

    def limit(self, walker, e) -> float:
        """``lim_{h→a} f`` approached at 100 digits (numeric/precise.approach), rounded to float64."""
        from mathcheck.numeric.precise import approach

        return _real(approach(walker.env, e))

    @staticmethod
    def node(t) -> float:  # a quadrature node, in float64
        return float(t)

    def matrix(self, walker, e) -> NoReturn:
        raise Undefined(f"cannot evaluate {type(e).__name__}")

    def other(self, walker, e) -> float:
        if e.is_number:  # a constant SymPy produced on its own (EulerGamma, ...)
            v = complex(sp.N(e, 20))
            if v.imag:
                raise Undefined("complex value")
            return v.real
        raise Undefined(f"cannot evaluate {type(e).__name__}")


def evaluate(e: sp.Basic, env: dict, constants: dict | None = None) -> float:
    """``e`` at ``env`` in float64; raises :class:`Undefined` where it has no real value.
    ``constants`` (a dict kept across calls) remembers sums without free symbols."""
    return Walker(FloatBackend(constants), dict(env))(e)
