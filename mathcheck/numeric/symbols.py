"""The one symbol binder: a statement's symbols and IndexedBases by name.

A numeric check binds values by *name* (``n = 8``, ``z = tensor``) to whatever SymPy objects the
statement uses under that name. SymPy's ``free_symbols`` is the wrong set for that: it misses a
symbol that is only a bound variable — a Sum's index, the ``j`` of ``Derivative(f, x[j])`` (which
SymPy counts as bound, though the statement means the entry ``x_j`` for every ``j``) — and it
returns ``Indexed`` entries (``z[i]``) beside their bases; ``atoms(Symbol)`` in turn returns an
IndexedBase's label ``z`` as if the statement used a plain ``z``. This module walks the expression
once and records exactly the symbols and IndexedBases written in it, bound ones included.

Binding a bound variable is harmless where the value is *evaluated* (every backend's Σ and ∂ bind
their own variable over the outer one); where it is *substituted*, use ``subs`` (which leaves a
bound variable alone), never ``xreplace`` (which would rename a Sum's index to a number).
"""

from __future__ import annotations

from functools import lru_cache

from mathcheck.lazy import sympy as sp


def written(*exprs) -> tuple:
    """Every Symbol and IndexedBase written in ``exprs``, bound variables included, IndexedBase
    labels not (a label is a plain symbol only where the statement also writes it plain); in a
    fixed order (by name, then SymPy's sort key).

    >>> import sympy as sp
    >>> z, i, n = sp.IndexedBase("z"), sp.Symbol("i", integer=True), sp.Symbol("n", integer=True)
    >>> [str(s) for s in written(sp.Sum(z[i], (i, 1, n)))]
    ['i', 'n', 'z']
    >>> [str(s) for s in written(sp.Matrix([[sp.sin(n)], [z[i]]]))]
    ['i', 'n', 'z']
    """
    exprs = [e.as_immutable() if isinstance(e, sp.MatrixBase) else e for e in exprs]  # a Matrix is no Basic
    seen = set().union(*[_written(e) for e in exprs if isinstance(e, sp.Basic)])
    return tuple(sorted(seen, key=lambda s: (_name(s), sp.default_sort_key(s))))


@lru_cache(maxsize=1024)  # a check binds the same statement at every size and seed
def _written(expr) -> frozenset:
    seen, stack = set(), [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, (sp.Symbol, sp.IndexedBase)):
            seen.add(e)
            continue  # an IndexedBase's label is its name, not a symbol of the statement
        stack.extend(a for a in e.args if isinstance(a, sp.Basic))
    return frozenset(seen)


def by_name(*exprs, kind=None) -> dict:
    """``{name: object}`` for :func:`written` (only instances of ``kind`` when given, e.g.
    ``sp.Symbol``); where a plain symbol and an IndexedBase share a name, the IndexedBase (the
    tensor a check binds); of two symbols of one name (other assumptions), the first in order.

    The bound-variable case, which ``{s.name: s for s in e.free_symbols}`` gets wrong (no ``j``,
    and an entry ``x[j]`` that is no name):

    >>> import sympy as sp
    >>> x, j, n = sp.IndexedBase("x"), sp.Symbol("j", integer=True), sp.Symbol("n", integer=True)
    >>> e = sp.Derivative(sp.Sum(x[j] ** 2, (j, 1, n)), x[j])   # ∂/∂x_j Σ_j x_j²: j is bound
    >>> sorted(by_name(e)), sorted(str(s) for s in e.free_symbols)
    (['j', 'n', 'x'], ['n', 'x', 'x[j]'])
    """
    out: dict = {}
    for s in written(*exprs):
        if kind is not None and not isinstance(s, kind):
            continue
        name = _name(s)
        if name not in out or (isinstance(s, sp.IndexedBase) and not isinstance(out[name], sp.IndexedBase)):
            out[name] = s
    return out


def bind(*exprs, **values) -> dict:
    """``{object: value}``: each named value bound to *every* object of ``exprs`` written under
    that name (a plain ``w`` and the base of ``w[i]`` alike; ``None`` values and names the
    statement lacks are ignored).

    >>> import sympy as sp
    >>> k, n = sp.Symbol("k", integer=True), sp.Symbol("n", integer=True)
    >>> env = bind(sp.Sum(k, (k, 1, n)), n=3, k=1, m=5)
    >>> sorted((str(s), v) for s, v in env.items())
    [('k', 1), ('n', 3)]
    """
    return {s: values[_name(s)] for s in written(*exprs) if values.get(_name(s)) is not None}


def _name(s) -> str:
    return s.label.name if isinstance(s, sp.IndexedBase) else s.name
