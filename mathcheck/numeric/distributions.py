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


def _named(family: str, params: tuple):
    """The finite stand-in of a named family at numeric parameters: [(w, value)], and whether exact."""
    import numpy.polynomial as P

    if family == "Bernoulli":
        (p,) = params
        return [(1 - p, sp.Integer(0)), (p, sp.Integer(1))], True
    if family == "Categorical":
        p, K = params
        return [(p[j], sp.Integer(j)) for j in range(1, int(K) + 1)], True
    if family == "Normal":
        mu, var = params
        x, w = P.hermite_e.hermegauss(NODES)
        s = sp.sqrt(var)
        return [(sp.Float(wi / w.sum(), 30), mu + s * sp.Float(xi, 30)) for xi, wi in zip(x, w)], False
    if family == "Uniform":
        a, b = params
        x, w = P.legendre.leggauss(NODES)
        return [(sp.Float(wi / 2, 30), a + (b - a) * (sp.Float(xi, 30) + 1) / 2) for xi, wi in zip(x, w)], False
    if family == "Exponential":
        (lam,) = params
        x, w = P.laguerre.laggauss(NODES)
        return [(sp.Float(wi, 30), sp.Float(xi, 30) / lam) for xi, wi in zip(x, w)], False
    if family == "Laplace":
        mu, b = params
        x, w = P.laguerre.laggauss(NODES)
        half = [(sp.Float(wi / 2, 30), sp.Float(xi, 30) * b) for xi, wi in zip(x, w)]
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


def atoms_of(e: sp.Expr, facts: Facts) -> set:
    """The random atoms of ``e`` outside any expectation: symbols and entries named in ``facts``."""
    names = facts.names()
    out = set()

    def walk(x):
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

    for name in sorted(facts.names()):
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
    alone = [n for n in sorted(facts.names()) if facts.group(n) is None and n not in facts.distributions]
    if alone:
        entries = [e for name in alone for e in entries_of(name)]
        if any(n in facts.components for n in alone):
            return None  # components independent but the family in no group: declared inconsistently
        atoms = _finite(r, entries, _zm(facts, entries), _uv(facts, entries))
        if atoms is None:
            return None
        blocks.append(atoms)
        shown.update(_show(atoms, entries))
    return Instance(values, blocks, shown, exact, frozenset(continuous), laws)


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
    e = _subs(e, inst.values)
    e = _subs(_written_out(e), inst.values) if e.has(sp.Sum, sp.Product) else e
    while True:
        inner = [
            x
            for x in sp.preorder_traversal(e)
            if head(x) and not any(head(y) for y in sp.preorder_traversal(x) if y is not x)
        ]
        if not inner:
            return e
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
    stand_ins = [a for a in g.atoms(sp.Symbol, sp.Indexed) if a in inst.continuous]
    if stand_ins and not g.is_polynomial(*stand_ins):
        raise NotExact(f"E[{sp.sstr(g)}] over a continuous law is not a polynomial: its Gauss rule is not exact")
    touched = []
    for b in inst.blocks:
        names = set(b[0][1])
        if any(a in names for a in g.atoms(sp.Symbol, sp.Indexed)):
            touched.append(b)
    out = sp.Integer(0)
    for combo in _product(touched):
        w, rep = sp.Integer(1), {}
        for wi, atoms in combo:
            w *= wi
            rep.update(atoms)
        out += w * g.xreplace(rep)
    return out


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
            mass = 0 if point or hi <= lo else _interval(family, params, lo, hi)
        out *= sp.Float(mass, 30)
    touched = [b for b in inst.blocks if any(a in b[0][1] for r in finite for a in r.atoms(sp.Symbol, sp.Indexed))]
    if finite:
        total = sp.Integer(0)
        for combo in _product(touched):
            w, rep = sp.Integer(1), {}
            for wi, atoms in combo:
                w *= wi
                rep.update(atoms)
            holds = [r.xreplace(rep) for r in finite]
            if any(h not in (sp.true, sp.false) for h in holds):
                raise ValueError("an event is not decided at a drawn value")
            total += w if all(h == sp.true for h in holds) else 0
        out *= total
    return out


def _interval(family: str, params: tuple, lo, hi):
    """∫_lo^hi f(x) dx for a continuous family's density f at numeric parameters (mpmath)."""
    import mpmath

    p = [mpmath.mpf(sp.N(v, 30)) for v in params]
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
