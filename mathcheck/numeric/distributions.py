r"""Probability statements evaluated on distributions drawn for them, exactly where they are finite.

The numeric side of a probability link (``E``, ``Var``, ``Cov``; :mod:`mathcheck.userexpr.probability`)
does not use the symbolic rules: it draws, for every random variable the chain names, a distribution
honouring what the chain says of it (:class:`Facts`: independence, zero mean, unit variance, a named
family), and evaluates both sides by their definitions — ``E[g] = Σ_atoms w · g(atom)`` over the
product of the independent parts, ``Var(A) = E[(A − E[A])²]``, ``Cov(A, B) = E[(A − E[A])(B − E[B])]``.

* A variable of unnamed distribution gets a random finite one (2 or 3 atoms, small integer values,
  rational weights): exact arithmetic, so a disagreement *is* a counterexample, printed as the
  distribution (``X: uniform on {0, 2}``); zero mean is imposed by a shift, unit variance by the
  two-point law of :func:`_unit` (in a joint law: by scaling with 1/√Var).
* Bernoulli(p) and Categorical(p, K) (on {1..K}, ``p`` a point of the simplex) are finite: exact.
* Normal, Uniform, Exponential and Laplace are replaced by their Gauss quadrature rule with
  :data:`NODES` nodes (Hermite, Legendre, Laguerre; Laplace: Laguerre on each side of μ) — a finite
  distribution with the same moments up to degree 2·NODES − 1, so the expectation of a polynomial
  (a log-density of these families is one) is exact up to the float64 nodes; sides are then compared
  at :data:`mathcheck.numeric.tolerance.QUADRATURE_REL`.

    >>> import sympy as sp
    >>> X = sp.Symbol("X", real=True)
    >>> f = Facts(random=frozenset({"X"}))
    >>> inst = draw(f, [X], seed=0, trial=0)
    >>> value(sp.Function("Var")(X) + sp.Function("E")(X) ** 2 - sp.Function("E")(X ** 2), inst)
    0
"""

from __future__ import annotations

import functools
import random
from typing import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from mathcheck.lazy import sympy as sp

NODES = 24  # Gauss nodes for a continuous family: exact for polynomials of degree ≤ 47
CONTINUOUS = ("Normal", "Uniform", "Exponential", "Laplace")
DISCRETE = ("Bernoulli", "Categorical")
PARAMETERS = {
    "Bernoulli": ("p",),
    "Normal": ("mu", "sigma^2"),
    "Uniform": ("a", "b"),
    "Exponential": ("lambda",),
    "Laplace": ("mu", "b"),
    "Categorical": ("p", "K"),
}


@dataclass(frozen=True)
class Facts:
    """What a chain says of its random variables (names as written: ``X``, or ``q`` for the family
    ``q_i``). ``independent``: groups, mutually independent; ``components``: families whose components
    are independent of each other; ``distributions``: ``{name: (family, params)}``, SymPy params."""

    random: frozenset = frozenset()
    independent: tuple = ()
    components: frozenset = frozenset()
    zero_mean: frozenset = frozenset()
    unit_variance: frozenset = frozenset()
    distributions: dict = field(default_factory=dict)
    # declared laws (symbolic/laws.py): ((name, (variable, ...)), ...), and the laws known positive
    # everywhere, as (name, frozenset of variables): p(x, z) > 0 is ("p", {"x", "z"})
    laws: tuple = ()
    positive: frozenset = frozenset()
    # random variables defined as functions of others (change of variables): ((name, g), ...), g SymPy
    transforms: tuple = ()

    def law(self, name: str) -> tuple | None:
        """The variables a declared law is over (``("x", "z")`` for ``p(x, z)``), or None."""
        return dict(self.laws).get(name)

    def names(self) -> set:
        return (
            set(self.random)
            | set(self.distributions)
            | set(self.zero_mean)
            | set(self.unit_variance)
            | set(self.components)
            | {n for g in self.independent for n in g}
        )

    def group(self, name: str) -> int | None:
        """The index of the independence group holding ``name``, or None."""
        for k, g in enumerate(self.independent):
            if name in g:
                return k
        return None


def head(x: sp.Basic) -> str | None:
    """``"E"``, ``"Var"``, ``"Cov"``, ``"KL"``, ``"Pr"`` for an applied operator, else None."""
    if isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ in ("E", "Var", "Cov", "KL", "Pr"):
        return x.func.__name__
    return None


@dataclass
class Instance:
    """One draw: values of the ordinary symbols, and the random variables' distributions as blocks,
    each a list of ``(weight, {atom: value})`` (the atoms of one block are jointly distributed,
    different blocks independent)."""

    values: dict
    blocks: list
    shown: dict  # name → how its distribution prints
    exact: bool = True  # False once a continuous family is replaced by its quadrature rule
    continuous: frozenset = frozenset()  # the atoms a Gauss rule stands in for
    laws: dict = field(default_factory=dict)  # a continuous atom → (family, numeric parameters): P(X ≤ a)
    # p_Y(y) (numeric/change.py): name → (family, numeric parameters, g or None, x, g's parameters'
    # values): Y's own law, or Y = g(x) with x of that law
    densities: dict = field(default_factory=dict)
    quadrature: bool = False  # E[g(X)] of a non-polynomial g by quadrature (an inequality's numeric side)


class NotExact(ValueError):
    """An expectation the finite stand-in does not give exactly: a continuous law's Gauss rule is
    exact for polynomials only (E|X| under it is off by ~1e-3, which would refute a true claim)."""


def _rat(r: random.Random, lo: int, hi: int, den: int = 1):
    return sp.Rational(r.randint(lo * den, hi * den), den)


def _symbol_value(s, r: random.Random):
    if s.is_integer:
        return sp.Integer(r.randint(1, 3) if s.is_positive or s.is_nonnegative else r.randint(-3, 3))
    if s.is_positive:
        return sp.Rational(r.randint(1, 30), 10)
    if s.is_nonnegative:
        return sp.Rational(r.randint(0, 30), 10)
    if s.is_negative:
        return -sp.Rational(r.randint(1, 30), 10)
    return _rat(r, -3, 3, 10)


def _unit(r: random.Random, name, zero_mean: bool):
    """A law with variance 1 in rationals: −t w.p. 1/(1 + t²) and 1/t w.p. t²/(1 + t²) has mean
    (−t + t)/(1 + t²) = 0 and E[X²] = (t² + 1)/(1 + t²) = 1 for every t > 0; then shifted by a random
    mean unless the mean is 0. Exact and fast, where scaling by 1/√Var brings radicals.

        >>> _unit(random.Random(1), "X", True)
        [(1/10, {'X': -3}), (9/10, {'X': 1/3})]
    """
    t = sp.Rational(r.randint(1, 9), r.randint(1, 4))
    m = 0 if zero_mean else _rat(r, -2, 2, 2)
    return [(1 / (1 + t**2), {name: -t + m}), (t**2 / (1 + t**2), {name: 1 / t + m})]


def _finite(r: random.Random, names, zero_mean, unit_variance):
    """A random joint distribution of ``names`` on 2–3 atoms: [(w, {name: value})]; None if a
    variance to be made 1 is 0 (then the caller draws again)."""
    if len(names) == 1 and names[0] in unit_variance:
        return _unit(r, names[0], names[0] in zero_mean)
    k = r.randint(2, 3)
    ws = [r.randint(1, 4) for _ in range(k)]
    drawn: dict = {}
    for w in ws:  # equal atoms merged, so that a distribution prints as it is
        key = tuple(r.randint(-3, 3) for _ in names)
        drawn[key] = drawn.get(key, 0) + w
    atoms = [(sp.Rational(w, sum(ws)), {n: sp.Integer(v) for n, v in zip(names, key)}) for key, w in drawn.items()]
    for n in names:
        mean = sum(w * a[n] for w, a in atoms)
        if n in zero_mean or n in unit_variance and n in zero_mean:
            for _, a in atoms:
                a[n] = a[n] - mean
            mean = 0
        if n in unit_variance:
            var = sum(w * (a[n] - mean) ** 2 for w, a in atoms)
            if var == 0:
                return None
            for _, a in atoms:  # (x − m)/σ + m: variance 1, mean kept
                a[n] = (a[n] - mean) / sp.sqrt(var) + mean
    return atoms


@functools.lru_cache(maxsize=None)
def _gauss(rule: str) -> tuple:
    """The NODES-point Gauss rule's (nodes, weights) as 30-digit Floats, computed once per rule (they
    were rebuilt at every draw: a third of a density chain's time)."""
    import numpy.polynomial as P

    x, w = {"hermite_e": P.hermite_e.hermegauss, "legendre": P.legendre.leggauss, "laguerre": P.laguerre.laggauss}[
        rule
    ](NODES)
    if rule == "hermite_e":
        w = w / w.sum()
    return tuple(sp.Float(xi, 30) for xi in x), tuple(sp.Float(wi, 30) for wi in w)


def _named(family: str, params: tuple):
    """The finite stand-in of a named family at numeric parameters: [(w, value)], and whether exact."""
    if family == "Bernoulli":
        (p,) = params
        return [(1 - p, sp.Integer(0)), (p, sp.Integer(1))], True
    if family == "Categorical":
        p, K = params
        return [(p[j], sp.Integer(j)) for j in range(1, int(K) + 1)], True
    if family == "Normal":
        mu, var = params
        x, w = _gauss("hermite_e")
        s = sp.sqrt(var)
        return [(wi, mu + s * xi) for xi, wi in zip(x, w)], False
    if family == "Uniform":
        a, b = params
        x, w = _gauss("legendre")
        return [(wi / 2, a + (b - a) * (xi + 1) / 2) for xi, wi in zip(x, w)], False
    if family == "Exponential":
        (lam,) = params
        x, w = _gauss("laguerre")
        return [(wi, xi / lam) for xi, wi in zip(x, w)], False
    if family == "Laplace":
        mu, b = params
        x, w = _gauss("laguerre")
        half = [(wi / 2, xi * b) for xi, wi in zip(x, w)]
        return [(wi, mu + v) for wi, v in half] + [(wi, mu - v) for wi, v in half], False
    raise ValueError(family)


def _valid(family: str, params: tuple) -> bool:
    """Whether numeric parameters make a distribution (p ∈ [0, 1], σ² > 0, a < b, λ > 0, b > 0)."""
    if family == "Bernoulli":
        return 0 <= params[0] <= 1
    if family == "Categorical":
        p, K = params
        return all(p[j] >= 0 for j in range(1, int(K) + 1)) and sum(p[j] for j in range(1, int(K) + 1)) == 1
    if family == "Normal":
        return params[1] > 0
    if family == "Uniform":
        return params[0] < params[1]
    return params[-1] > 0


def conditional(x: sp.Basic) -> bool:
    """Whether ``x`` is a conditional expectation ``CondE(f, Y)`` (E[f | Y], a function of Y)."""
    return isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ == "CondE"


def subscripted(x: sp.Basic) -> bool:
    """Whether ``x`` is an expectation over named variables only, ``EOver(f, X)`` (E_X[f])."""
    return isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ == "EOver"


class NotRead(ValueError):
    """An expectation over some variables only whose reading as E[…] is not shown (one line)."""


def is_density(x: sp.Basic) -> bool:
    """Whether ``x`` is ``Density(Y, y)``: the density of the random variable Y at y."""
    return isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ == "Density"


def densities(e: sp.Expr, facts: Facts) -> sp.Expr:
    """``e`` with ``p_Y(y)``, ``f_Y(y)`` read as ``Density(Y, y)`` for Y of a named continuous law or
    defined as g(X) (``assume: Y = g(X)``), then every such Y outside a density replaced by its g(X).

        >>> X, Y, y, s = sp.symbols("X Y y sigma", real=True)
        >>> f = Facts(random=frozenset({"X", "Y"}), distributions={"X": ("Normal", (0, 1))}, transforms=(("Y", s * X),))
        >>> densities(sp.Function("p_Y", real=True)(y) + sp.Function("E")(Y), f)
        Density(Y, y) + E(X*sigma)
    """
    transforms = dict(facts.transforms)

    def variable(x) -> str | None:
        """Y for p_Y(·), f_Y(·), and for p(y) — d2l's p_Y(y), read by latex/reader.py as p(y) — where Y,
        the capital of y, has a continuous law or a g(X) and p is no declared law; else None."""
        if not isinstance(x, sp.core.function.AppliedUndef) or len(x.args) != 1:
            return None
        base, _, v = x.func.__name__.partition("_")
        if not v and base == "p" and isinstance(x.args[0], sp.Symbol) and facts.law("p") is None:
            v = str(x.args[0]).upper() if len(str(x.args[0])) == 1 else ""
        law = facts.distributions.get(v)
        ok = base in ("p", "f") and (v in transforms or law is not None and law[0] in CONTINUOUS)
        return v if ok else None

    e = e.replace(
        lambda x: variable(x) is not None,
        lambda x: sp.Function("Density")(sp.Symbol(variable(x), real=True), x.args[0]),
    )

    def sub(x):
        if is_density(x):
            return x
        if isinstance(x, sp.Symbol) and str(x) in transforms:
            return transforms[str(x)]
        return x.func(*[sub(a) for a in x.args]) if x.args and not isinstance(x, sp.Symbol) else x

    return sub(e) if transforms else e


def over(e: sp.Expr, facts: Facts) -> sp.Expr:
    r"""``e`` with each ``E_X[f]`` (``EOver(f, X)``) read as ``E[f]`` and each ``E_{X | Y}[f]``
    (``EOver(f, X, Y)``) as ``E[f | Y]`` — only
    where f's random variables are X (and Y): an expectation over X alone of an f that holds another
    random variable Z is a function of Z, no number; then :class:`NotRead`. A conditional
    expectation counts as its conditions (E[X | Y] is a function of Y).

        >>> X, Y, Z = sp.symbols("X Y Z", real=True)
        >>> f = Facts(random=frozenset({"X", "Y", "Z"}))
        >>> EO, CE = sp.Function("EOver"), sp.Function("CondE")
        >>> over(EO(EO(X, X, Y), Y), f)
        E(CondE(X, Y))
        >>> try:
        ...     over(EO(X * Z, X), f)
        ... except NotRead as exc:
        ...     print(str(exc)[:59])
        E_X[X*Z] integrates over X only, but X*Z holds Z too: it is
    """

    def read(x):
        f, v, *given = x.args
        extra = sorted({_base(a) for a in atoms_of(f, facts)} - {str(v), *map(str, given)})
        if extra:
            shown = f"{sp.sstr(f)} | {sp.sstr(given[0])}" if given else sp.sstr(f)
            raise NotRead(
                f"E_{v}[{shown}] integrates over {v} only, but {sp.sstr(f)} holds {', '.join(extra)} too: it "
                f"is a function of {', '.join(extra)}, not a number; write E[…] (over every random variable) "
                f"or E[… | {', '.join(extra)}]"
            )
        return sp.Function("CondE")(f, *given) if given else sp.Function("E")(f)

    return e.replace(subscripted, read)


def atoms_of(e: sp.Expr, facts: Facts) -> set:
    """The random atoms of ``e`` outside any expectation: symbols and entries named in ``facts``
    (E[f | Y] counts as Y: it is a function of Y)."""
    names = facts.names()
    out = set()

    def walk(x):
        if is_density(x):  # a number at each y: Y in it is a label
            walk(x.args[1])
            return
        if conditional(x):
            for a in x.args[1:]:
                walk(a)
            return
        if head(x):
            return
        if isinstance(x, sp.Indexed):
            if str(x.base) in names:
                out.add(x)
            return
        if isinstance(x, sp.Symbol) and str(x) in names:
            out.add(x)
        for a in x.args:
            walk(a)

    walk(e)
    return out


def draw(
    facts: Facts, symbols: Sequence[sp.Symbol | sp.IndexedBase], seed: int, trial: int, sizes: dict | None = None
) -> Instance | None:
    """One instance: ordinary ``symbols`` (SymPy Symbols and IndexedBases) get values, every random
    variable a distribution. None when the draw misses a constraint (a parameter out of its family's
    domain, a degenerate variance): the caller draws again."""
    r = random.Random(f"probability:{seed}:{trial}")
    values: dict = {}
    bases = [s for s in symbols if isinstance(s, sp.IndexedBase)]
    probability = {
        params[0]
        for fam, params in facts.distributions.values()
        if fam == "Bernoulli" and isinstance(params[0], sp.Symbol)
    }
    for s in sorted((s for s in symbols if isinstance(s, sp.Symbol)), key=str):
        if str(s) in facts.names():
            continue
        # a Bernoulli's p drawn in (0, 1): drawing it as any real and rejecting wastes most draws
        values[s] = sp.Rational(r.randint(1, 9), 10) if s in probability else _symbol_value(s, r)
    size = {s: int(v) for s, v in values.items() if s.is_integer}
    simplex = {str(params[0]): params[1] for fam, params in facts.distributions.values() if fam == "Categorical"}
    for b in sorted(bases, key=str):
        if str(b) in facts.names():
            continue
        n = (
            4
            if not simplex.get(str(b))
            else int(simplex[str(b)].xreplace({k: v for k, v in values.items() if isinstance(k, sp.Symbol)}))
        )
        if str(b) in simplex:
            ws = [r.randint(1, 5) for _ in range(n)]
            vals = [sp.Rational(w, sum(ws)) for w in ws]
        else:
            vals = [_symbol_value(sp.Symbol("t", **b.assumptions0), r) for _ in range(n)]
        values[b] = vals
    return _distributions(facts, values, r, symbols, size)


def _numeric_params(params, values):
    out = []
    for p in params:
        if isinstance(p, sp.IndexedBase):
            vals = values[p]
            out.append(_Seq(vals))
        else:
            out.append(_subs(p, values))
    return tuple(out)


class _Seq:
    """An IndexedBase's drawn entries, indexed from 1 (``p[j]``)."""

    def __init__(self, vals):
        self.vals = vals

    def __getitem__(self, j):
        return self.vals[j - 1]


def _basic(e):
    """A SymPy number for a Python int (no string is ever converted)."""
    return sp.Integer(e) if isinstance(e, int) else e


def _subs(e, values):
    """``e`` at the drawn values (an IndexedBase's entries by their position)."""
    e = _basic(e)
    rep = {}
    for x in sp.preorder_traversal(e):
        if isinstance(x, sp.Indexed) and x.base in values and all(i.is_Integer for i in x.indices):
            rep[x] = values[x.base][int(x.indices[0]) - 1]
    return _basic(e).xreplace(rep).xreplace({k: v for k, v in values.items() if isinstance(k, sp.Symbol)})


def _distributions(facts: Facts, values, r, symbols, size):
    blocks, shown, exact, continuous, laws = [], {}, True, set(), {}
    objects = {str(s): s for s in symbols}  # the parser's own symbols (their assumptions included)
    families = {s for s in symbols if isinstance(s, sp.IndexedBase) and str(s) in facts.names()}
    n = max([v for v in size.values() if v > 0] + [2])  # entries enough for every drawn size
    length = {str(b): n for b in families}

    def entries_of(name):
        if name in length:
            return [sp.Indexed(objects[name], j) for j in range(1, length[name] + 1)]
        return [objects.get(name) or sp.Symbol(name, real=True)]

    transforms = dict(facts.transforms)
    for name in sorted(facts.names()):
        if name in transforms:  # Y = g(X): no law of its own (its g(X) stands for it)
            continue
        entries = entries_of(name)
        if name in facts.distributions:
            family, params = facts.distributions[name]
            num = _numeric_params(params, values)
            if not _valid(family, num):
                return None
            rule, is_exact = _named(family, num)
            exact &= is_exact
            if not is_exact:
                continuous |= set(entries)
                laws.update({a: (family, num) for a in entries})
            for a in entries:  # a family's entries i.i.d., each its own block
                blocks.append([(w, {a: v}) for w, v in rule])
            shown[name] = f"{family}({', '.join(_show_param(p) for p in num)})"
            continue
        if facts.group(name) is None:
            continue  # jointly distributed with every other ungrouped variable: below
        parts = [[a] for a in entries] if name in facts.components else [entries]
        for part in parts:
            atoms = _finite(r, part, _zm(facts, part), _uv(facts, part))
            if atoms is None:
                return None
            blocks.append(atoms)
            shown.update(_show(atoms, part))
    alone = [
        n
        for n in sorted(facts.names())
        if facts.group(n) is None and n not in facts.distributions and n not in transforms
    ]
    if alone:
        entries = [e for name in alone for e in entries_of(name)]
        if any(n in facts.components for n in alone):
            return None  # components independent but the family in no group: declared inconsistently
        atoms = _finite(r, entries, _zm(facts, entries), _uv(facts, entries))
        if atoms is None:
            return None
        blocks.append(atoms)
        shown.update(_show(atoms, entries))
    dens = {}
    for name, (family, params) in facts.distributions.items():
        if family in CONTINUOUS:
            dens[name] = (family, _numeric_params(params, values), None, None, None)
    for name, g in transforms.items():
        xs = [s for s in g.atoms(sp.Symbol) if str(s) in dens]
        if len(xs) == 1 and not (g.atoms(sp.Symbol) - set(xs)) & {objects.get(n) for n in facts.names()}:
            family, num = dens[str(xs[0])][:2]
            dens[name] = (family, num, g, xs[0], {s: v for s, v in values.items() if s in g.free_symbols})
    return Instance(values, blocks, shown, exact, frozenset(continuous), laws, densities=dens)


def _zm(facts, atoms):
    return {a for a in atoms if _base(a) in facts.zero_mean}


def _uv(facts, atoms):
    return {a for a in atoms if _base(a) in facts.unit_variance}


def _base(a) -> str:
    return str(a.base) if isinstance(a, sp.Indexed) else str(a)


def _show_param(p) -> str:
    if isinstance(p, _Seq):
        return "(" + ", ".join(str(v) for v in p.vals) + ")"
    return str(p)


def _show(atoms, names) -> dict:
    """How a drawn finite distribution prints: ``uniform on {0, 2}`` or ``1 w.p. 1/3, -2 w.p. 2/3``;
    a joint one as tuples of its variables."""

    def val(a):
        return ", ".join(sp.sstr(a[n]) for n in names)

    ws = {w for w, _ in atoms}
    if len(names) == 1:
        key = sp.sstr(names[0])
        if len(ws) == 1:
            return {key: "uniform on {" + ", ".join(val(a) for _, a in atoms) + "}"}
        return {key: ", ".join(f"{val(a)} w.p. {w}" for w, a in atoms)}
    key = "(" + ", ".join(sp.sstr(n) for n in names) + ")"
    return {key: ", ".join(f"({val(a)}) w.p. {w}" for w, a in atoms)}


def value(e: sp.Expr, inst: Instance) -> sp.Expr:
    """``e`` at one instance: every ``E``/``Var``/``Cov`` by its definition over the blocks (innermost
    first), ordinary symbols at their drawn values; sums with numeric bounds written out."""
    if e.has(sp.Derivative):  # d/dy e^{-y} (a Jacobian): taken before y is a number
        e = e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit())
    e = _subs(e, inst.values)
    e = _subs(_written_out(e), inst.values) if e.has(sp.Sum, sp.Product) else e
    while True:  # a conditional expectation is evaluated inside the expectation that holds it
        inner = [
            x
            for x in sp.preorder_traversal(e)
            if head(x) and not any(head(y) for y in sp.preorder_traversal(x) if y is not x)
        ]
        if not inner:
            if any(map(conditional, sp.preorder_traversal(e))):
                raise NotExact("E[f | Y] is a random variable (a function of Y); it is read inside an expectation only")
            return e.replace(is_density, lambda x: _density_value(x, inst))
        e = e.xreplace({x: _operator(x, inst) for x in inner})


def _written_out(e: sp.Expr) -> sp.Expr:
    """Sums and products with integer bounds written out term by term, innermost first; any other
    one left to ``doit``. Same value as ``doit`` (a finite sum of the same terms), without SymPy's
    search for a closed form, which was a third of a probability chain's numeric time.

    >>> i = sp.Symbol("i", integer=True)
    >>> _written_out(sp.Sum(i**2, (i, 1, 3)) + sp.Product(i, (i, 2, 4)))
    38
    """

    def out(x):
        if not isinstance(x, (sp.Sum, sp.Product)):
            return x.func(*[out(a) for a in x.args]) if x.args else x
        body = out(x.function)
        for i, a, b in x.limits:  # the first limit is the innermost
            a, b = out(a), out(b)
            if not (a.is_Integer and b.is_Integer and b - a < 10_000):
                return x.func(body, (i, a, b)).doit()
            terms = [body.xreplace({i: sp.Integer(k)}) for k in range(int(a), int(b) + 1)]
            body = sp.Add(*terms) if isinstance(x, sp.Sum) else sp.Mul(*terms)
        return body

    return out(e)


def log_density(family: str, params: tuple, x: sp.Expr) -> sp.Expr | None:
    """log p(x) of a named family with a closed form used by KL: Normal(μ, v): −(x − μ)²/(2v) − log(2πv)/2;
    Exponential(λ): log λ − λx (x ≥ 0). None for the others."""
    if family == "Normal":
        mu, var = params
        return -((x - mu) ** 2) / (2 * var) - sp.log(2 * sp.pi * var) / 2
    if family == "Exponential":
        (lam,) = params
        return sp.log(lam) - lam * x
    return None


def family_of(x: sp.Basic) -> tuple[str, tuple] | None:
    """``("Normal", (μ, v))`` for an applied family head ``Normal(μ, v)``, else None."""
    if isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ in PARAMETERS:
        return x.func.__name__, tuple(x.args)
    return None


def _kl(x):
    """KL(P ‖ Q) = E_{x∼P}[log p(x) − log q(x)] by P's finite stand-in (Gauss quadrature)."""
    P, Q = (family_of(a) for a in x.args)
    if P is None or Q is None or log_density(*P, sp.Symbol("x")) is None or log_density(*Q, sp.Symbol("x")) is None:
        raise ValueError("KL of these distributions is not evaluated")
    if not _valid(*P) or not _valid(*Q):
        raise ValueError("a parameter is outside its family's domain")
    rule, _ = _named(*P)
    return sum(w * (log_density(*P, v) - log_density(*Q, v)) for w, v in rule)


def _operator(x, inst: Instance):
    h = head(x)
    if h == "Pr":
        return _probability(x, inst)
    if h == "KL":
        inst.exact = False
        return _kl(x)
    if h == "Var":
        a = x.args[0]
        m = _expect(a, inst)
        return _expect((a - m) ** 2, inst)
    if h == "Cov":
        a, b = x.args
        return _expect((a - _expect(a, inst)) * (b - _expect(b, inst)), inst)
    return _expect(x.args[0], inst)


def _expect(g, inst: Instance):
    """``E[g]``: the sum over the product of the blocks ``g`` touches of weight × value."""
    g = _basic(g)
    conds = sorted({x for x in sp.preorder_traversal(g) if conditional(x)}, key=sp.default_sort_key)
    # E[f | Y] of a polynomial f over the stand-ins is a polynomial in Y of no higher degree: as f for the test
    plain = g.xreplace({c: c.args[0] for c in conds}) if conds else g
    stand_ins = [a for a in plain.atoms(sp.Symbol, sp.Indexed) if a in inst.continuous]
    if stand_ins and not plain.is_polynomial(*stand_ins):
        if inst.quadrature and not conds and len(set(stand_ins)) == 1:  # an inequality's E[log X]: quadrature
            quad = _by_quadrature(g, stand_ins[0], inst)
            if quad is not None:
                return quad
        raise NotExact(f"E[{sp.sstr(g)}] over a continuous law is not a polynomial: its Gauss rule is not exact")
    outside = g.xreplace({c: sp.Dummy() for c in conds}).atoms(sp.Symbol, sp.Indexed)
    outside |= {a for c in conds for a in sp.Tuple(*c.args[1:]).atoms(sp.Symbol, sp.Indexed)}
    touched = _touched(inst, outside)
    memo: dict = {}
    out = sp.Integer(0)
    for w, rep in _joint(touched):
        if conds:
            rep = {**{c: _conditional(c, rep, inst, memo) for c in conds}, **rep}
        out += w * g.xreplace(rep)
    return out


def _density_value(x, inst: Instance):
    """``Density(Y, y)`` at a drawn y by definition (:func:`mathcheck.numeric.change.density`); a y
    outside Y's support is no point to judge the link at (ValueError: the draw is missed)."""
    from mathcheck.numeric.change import NoDensity, density

    name, y = str(x.args[0]), x.args[1]
    if name not in inst.densities:
        raise NoDensity(f"p_{name}: {name} is no function of one variable of a named continuous law")
    if not y.is_number:
        raise NoDensity(f"p_{name}({sp.sstr(y)}): the point is not a number here")
    family, params, g, at, env = inst.densities[name]
    if not _valid(family, params):
        raise NoDensity(f"{family}{params}: outside its family's domain")
    v = density(family, params, y, g, at, env)
    if v is None:
        raise NoDensity(f"p_{name} at {sp.sstr(y)}: outside the support of {name} (not judged there)")
    inst.exact = False
    return sp.Float(v, 30)


def _by_quadrature(g, atom, inst: Instance):
    """E[g(X)] of one variable X of a named continuous law, g touching no other random variable, by
    :func:`mathcheck.numeric.change.expectation`; None where it is not resolved."""
    from mathcheck.numeric.change import expectation

    law = inst.densities.get(str(atom))
    others = {a for b in inst.blocks for a in b[0][1]} - {atom}
    if law is None or law[2] is not None or g.atoms(sp.Symbol, sp.Indexed) & others:
        return None
    v = expectation(law[0], law[1], g, atom)
    return None if v is None else sp.Float(v, 30)


def _touched(inst: Instance, atoms) -> list:
    """The blocks holding any of ``atoms``."""
    return [b for b in inst.blocks if any(a in b[0][1] for a in atoms)]


def _conditional(c, rep: dict, inst: Instance, memo: dict):
    """E[f | Y = y] at the value ``rep`` gives Y, by definition: the weighted mean of f over the atoms
    of the joint law where Y = y (the blocks f and Y touch)."""
    f, given = c.args[0], c.args[1:]
    if any(y not in rep for y in given):
        raise NotExact(f"E[{sp.sstr(f)} | {', '.join(map(sp.sstr, given))}]: the condition is no random variable")
    key = (c, tuple(rep[y] for y in given))
    if key in memo:
        return memo[key]
    num, den = sp.Integer(0), sp.Integer(0)
    for w, at in _joint(_touched(inst, f.atoms(sp.Symbol, sp.Indexed) | set(given))):
        if all(at[y] == rep[y] for y in given):
            num += w * f.xreplace(at)
            den += w
    memo[key] = num / den
    return memo[key]


def _joint(blocks):
    """Each outcome of independent finite blocks (a block: its ``(weight, values)`` outcomes) as
    ``(product of the weights, the values merged)``."""
    for combo in _product(blocks):
        w, rep = sp.Integer(1), {}
        for wi, atoms in combo:
            w *= wi
            rep.update(atoms)
        yield w, rep


def _product(blocks):
    if not blocks:
        yield ()
        return
    first, rest = blocks[0], blocks[1:]
    for atom in first:
        for tail in _product(rest):
            yield (atom, *tail)


def fraction(x: sp.Basic) -> Fraction | None:
    """An exact rational value as a Fraction (for printing), else None."""
    return Fraction(int(x.p), int(x.q)) if isinstance(x, sp.Rational) else None


# --- the probability of an event: P(X = 1), P(X <= a, Y > 0 | Z = 1) ---------------------------------

FLIPPED = {"==": "==", "<=": ">=", "<": ">", ">=": "<=", ">": "<"}


def comparison(rel, is_random) -> tuple | None:
    """``(atom, op, c)`` for a relation of one random atom and a constant (``1 < X`` is ``(X, ">", 1)``),
    ``op`` one of ``== <= < >= >``; None for another relation (``X <= Y``, ``2*X <= 1``)."""
    a, b, op = rel.lhs, rel.rhs, rel.rel_op
    for atom, c, o in ((a, b, op), (b, a, FLIPPED.get(op))):
        if o and isinstance(atom, (sp.Symbol, sp.Indexed)) and is_random(atom):
            if not any(is_random(y) for y in c.atoms(sp.Symbol, sp.Indexed)):
                return atom, o, c
    return None


def _probability(x, inst: Instance):
    """``P(A | B)`` by definition at one instance: the mass of A ∩ B over the mass of B (a null B
    leaves it undefined there: the draw is missed, never judged)."""
    event, given = x.args
    joint = _mass(list(event) + list(given), inst)
    if not given:
        return joint
    below = _mass(list(given), inst)
    if below == 0:
        raise ValueError("P(B) = 0 at this draw: the conditional probability is undefined there")
    return joint / below


def _mass(rels, inst: Instance):
    """The probability that every relation holds: a continuous atom's comparisons with numbers give
    an interval, whose mass is its density's integral (mpmath at 30 digits); the others are summed
    over the finite blocks they touch, exactly. Blocks are independent, so the parts multiply."""
    import mpmath

    finite, intervals = [], {}
    for rel in rels:
        cont = [a for a in rel.atoms(sp.Symbol, sp.Indexed) if a in inst.continuous]
        if not cont:
            finite.append(rel)
            continue
        found = comparison(rel, lambda y: y in inst.continuous or any(y in b[0][1] for b in inst.blocks))
        if found is None or not found[2].is_number:
            raise NotExact(f"{sp.sstr(rel)}: an event of a continuous law compares it with a number here")
        intervals.setdefault(found[0], []).append(found[1:])
    out = sp.Integer(1)
    for atom, cuts in intervals.items():
        inst.exact = False
        lo, hi, point = -mpmath.inf, mpmath.inf, False
        with mpmath.workdps(30):
            for op, c in cuts:
                c = mpmath.mpf(sp.N(c, 30))
                if op == "==":
                    point = True
                elif op in ("<", "<="):
                    hi = min(hi, c)
                else:
                    lo = max(lo, c)
            family, params = inst.laws[atom]
            key = (family, tuple(str(sp.N(v, 30)) for v in params), str(lo), str(hi))
            mass = 0 if point or hi <= lo else _interval(*key)
        out *= sp.Float(mass, 30)
    touched = [b for b in inst.blocks if any(a in b[0][1] for r in finite for a in r.atoms(sp.Symbol, sp.Indexed))]
    if finite:
        total = sp.Integer(0)
        for w, rep in _joint(touched):
            holds = [r.xreplace(rep) for r in finite]
            if any(h not in (sp.true, sp.false) for h in holds):
                raise ValueError("an event is not decided at a drawn value")
            total += w if all(h == sp.true for h in holds) else 0
        out *= total
    return out


@functools.lru_cache(maxsize=256)
def _interval(family: str, params: tuple, lo: str, hi: str):
    """∫_lo^hi f(x) dx for a continuous family's density f at numeric parameters (mpmath at 30 digits;
    the arguments as strings, so a law drawn again with the same parameters is integrated once)."""
    import mpmath

    with mpmath.workdps(30):
        p = [mpmath.mpf(v) for v in params]
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        if family == "Normal":
            mu, v = p
            f, edges = (lambda t: mpmath.exp(-((t - mu) ** 2) / (2 * v)) / mpmath.sqrt(2 * mpmath.pi * v)), [mu]
        elif family == "Exponential":
            (lam,) = p
            f, edges, lo = (lambda t: lam * mpmath.exp(-lam * t)), [], max(lo, 0)
        elif family == "Uniform":
            a, b = p
            f, edges, lo, hi = (lambda t: 1 / (b - a)), [], max(lo, a), min(hi, b)
        elif family == "Laplace":
            mu, b = p
            f, edges = (lambda t: mpmath.exp(-abs(t - mu) / b) / (2 * b)), [mu]
        else:
            raise NotExact(f"no density for {family}")
        if hi <= lo:
            return mpmath.mpf(0)
        return mpmath.quad(f, [lo] + [e for e in edges if lo < e < hi] + [hi])
