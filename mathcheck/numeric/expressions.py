"""The one expression walker: a SymPy tree evaluated node by node, the numbers supplied by a backend.

The walk — which node is what (numbers, symbols, ``x[i]``, Add, Mul, Pow, the function table's
classes, ``Sum``/``Product``, ``KroneckerDelta``, ``Piecewise``, ``Derivative``, ``Integral`` (by
quadrature, :func:`mathcheck.numeric.precise.quadrature`), a user's ``f(x)``)
and in which order its arguments are evaluated — is written once, here. A backend is the number
system: how a SymPy number becomes one of its values, how values are added, multiplied and raised
to a power (the order of the operations is the backend's, so each keeps its rounding), the table's
implementations it calls (:func:`mathcheck.numeric.functions.implementations`), how a Sum is
reduced and how an undefined value is signalled. The backends:

* :class:`mathcheck.numeric.floats.FloatBackend`: Python floats (no torch), sums by a loop;
* :class:`mathcheck.numeric.evaluate.TorchBackend`: tensors with autograd, a sum over a new axis;
* :class:`mathcheck.numeric.precise.MpmathBackend`: mpmath at ``PRECISION_DIGITS``, sums by a loop.

``Σ_{k=a}^{b} f`` and ``Π`` follow SymPy's (Karr's) convention for ``b < a``: ``−Σ_{b+1}^{a−1}``
and ``1/Π_{b+1}^{a−1}`` (:func:`loop_reduce`, shared by the two loop backends).

    >>> from mathcheck.numeric.floats import FloatBackend
    >>> import sympy as sp
    >>> x, k = sp.Symbol("x"), sp.Symbol("k", integer=True)
    >>> Walker(FloatBackend(), {x: 0.5})(x**2 + sp.Sum(k, (k, 4, 1)))   # Σ_4^1 k = −(2 + 3)
    -4.75
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.sampling import exact

if TYPE_CHECKING:
    from collections.abc import Iterator


class Walker:
    """``Walker(backend, env, funcs)(e)``: ``e`` evaluated with ``env`` (Symbols to values; the
    backend reads IndexedBases from ``env`` or from its own bindings) and ``funcs`` (``{name:
    callable}`` for undefined functions such as ``KL(p, q)``; None: the backend takes none)."""

    def __init__(self, backend, env: dict, funcs: dict | None = None):
        self.backend = backend
        self.env = env
        self.funcs = funcs

    def __call__(self, e):
        return self.backend.run(self, e)

    def ev(self, e) -> Any:
        handler = _HANDLERS.get(e.__class__)
        if handler is None:  # what a node is depends on its class only: decided once per class
            handler = _HANDLERS[e.__class__] = _handler(e)
        return handler(self, e)

    # one method per kind of node (the order of the tests is _handler's)
    def _matrix(self, e):
        return self.backend.matrix(self, e)

    def _number(self, e):
        return self.backend.number(e)

    def _symbol(self, e):
        if e in self.env:
            return self.backend.value(self.env[e])
        raise self.backend.error(self.backend.missing.format(e))

    def _entry(self, e):
        return self.backend.entry(self, e)

    def _add(self, e):
        return self.backend.add(self.ev(a) for a in e.args)

    def _mul(self, e):
        return self.backend.mul(self.ev(a) for a in e.args)

    def _pow(self, e):
        return self.backend.pow(self.ev(e.base), self.ev(e.exp), e)

    def _reduce(self, e):
        return self.backend.reduce(self, e)

    def _delta(self, e):
        return self.backend.delta(self.ev(e.args[0]), self.ev(e.args[1]))

    def _piecewise(self, e):
        return self.backend.piecewise(self, e)

    def _derivative(self, e):
        return self.backend.derivative(self, e)

    def _integral(self, e):
        return self.backend.integral(self, e)

    def _limit(self, e):
        return self.backend.limit(self, e)

    def _function(self, e):
        """A function of the table, a user's function (``funcs``), or what the backend makes of it."""
        b = self.backend
        fn = b.table.get(e.func)
        if fn is not None:  # the function table's implementation for this backend
            return b.call(fn, [self.ev(a) for a in e.args])
        if self.funcs is not None and isinstance(e, sp.core.function.AppliedUndef):
            fn = self.funcs.get(e.func.__name__)
            if fn is None:
                raise b.error(f"no {b.kind} function for {e.func.__name__}")
            return fn(*[b.arg(self, a) for a in e.args])
        return b.other(self, e)

    @contextmanager
    def bind(self, var, value) -> Iterator[Any]:
        """``var`` bound to ``value`` (a summation index, a derivative's variable), the binding it
        shadows restored on the way out."""
        had, old = var in self.env, self.env.get(var)
        self.env[var] = value
        try:
            yield value
        finally:
            if had:
                self.env[var] = old
            else:
                self.env.pop(var, None)

    def piecewise(self, e) -> Any:
        """The first branch whose condition holds at the exact values of the scalars in ``env``
        (a float at its binary value); a condition SymPy cannot decide there is undefined."""
        for value, cond in e.args:
            c = cond.xreplace(
                {
                    s: exact(self.env[s])
                    for s in cond.free_symbols
                    if s in self.env and not isinstance(self.env[s], list)
                }
            )
            if c is sp.true or c is True:
                return self.ev(value)
            if c is not sp.false and c is not False:
                raise self.backend.error(f"cannot decide {cond}")
        raise self.backend.error("no branch of a Piecewise holds")


def loop_reduce(walker: Walker, f, limits, product: bool = False) -> Any:
    """Σ (or Π) of ``f`` over ``limits`` (SymPy order: the last limit is the outermost), one term
    at a time — the loop backends' reduction. ``b < a`` follows Karr: the range ``b+1 .. a−1``,
    negated (Σ) or inverted (Π); ``b = a − 1`` is the empty range (0, resp. 1).

    ``backend.term`` checks each innermost value, ``backend.index`` turns a bound into an int,
    ``backend.fsum``/``backend.prod`` reduce the terms (each backend's own rounding)."""
    b = walker.backend
    if not limits:
        return b.term(walker.ev(f))
    (var, lo_e, hi_e), inner = limits[-1], limits[:-1]
    if hi_e is sp.oo and not product:  # Σ_{n=a}^∞ (a series the LaTeX reader reads): summed to convergence
        return _series(walker, f, inner, var, b.index(walker.ev(lo_e)))
    lo, hi = b.index(walker.ev(lo_e)), b.index(walker.ev(hi_e))
    flip = hi < lo
    if flip:
        lo, hi = hi + 1, lo - 1
    terms = []
    with walker.bind(var, None):
        for k in range(lo, hi + 1):
            walker.env[var] = k
            terms.append(loop_reduce(walker, f, inner, product))
    out = b.prod(terms) if product else b.fsum(terms)
    if not flip:
        return out
    return 1 / out if product else -out  # an empty flipped sum is −0.0 in floats, as −1.0·0.0 always was


SERIES_TERMS = 2000  # most terms of a series Σ_{n=a}^∞ summed before it has no value here


def _series(walker: Walker, f, inner, var, lo: int) -> Any:
    """Σ_{k=lo}^∞ f: the partial sums until the terms fall geometrically (each at most half the one
    before, three in a row) below the backend's precision relative to the sum — the tail is then at most
    the last term, below that precision. A series whose terms do not fall so within ``SERIES_TERMS`` has
    no value here (an error, the point skipped): never a truncated sum a refutation could rest on."""
    b = walker.backend
    eps = 10.0 ** -(getattr(b, "dps", 15) + 2)
    terms, falling = [], 0
    with walker.bind(var, None):
        for k in range(lo, lo + SERIES_TERMS):
            walker.env[var] = k
            t = loop_reduce(walker, f, inner)
            size = abs(complex(t))
            falling = falling + 1 if terms and size <= abs(complex(terms[-1])) / 2 else 0
            terms.append(t)
            if falling >= 3 and size <= eps * max(abs(complex(b.fsum(terms))), eps):
                return b.fsum(terms)
    raise b.error(f"the series does not converge fast enough to sum ({SERIES_TERMS} terms)")


_HANDLERS: dict = {}  # node class → Walker method (a number system changes the backend, never these methods)


def _handler(e):
    """The Walker method for nodes of ``e``'s class. The tests read class attributes only (``is_Add``,
    ``isinstance``; π and e are the only instances of their classes), so the answer holds for every
    node of the class; the function table is consulted per node (a backend's table may change)."""
    if getattr(e, "is_Matrix", False):  # a Matrix, or a MatrixSymbol and its products
        return Walker._matrix
    if e.is_Number or e is sp.pi or e is sp.E:
        return Walker._number
    if e.is_Symbol:
        return Walker._symbol
    if isinstance(e, sp.Indexed):
        return Walker._entry
    if e.is_Add:
        return Walker._add
    if e.is_Mul:
        return Walker._mul
    if e.is_Pow:
        return Walker._pow
    if isinstance(e, (sp.Sum, sp.Product)):
        return Walker._reduce
    if isinstance(e, sp.KroneckerDelta):
        return Walker._delta
    if isinstance(e, sp.Piecewise):
        return Walker._piecewise
    if isinstance(e, sp.Derivative):
        return Walker._derivative
    if isinstance(e, sp.Integral):
        return Walker._integral
    if isinstance(e, sp.Limit):
        return Walker._limit
    return Walker._function
