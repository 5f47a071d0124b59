r"""Expectations lowered to moments, each step a rule of probability with its side condition checked.

A probability expression is written with the unevaluated heads ``E(·)``, ``Var(·)``, ``Cov(·, ·)``
(:mod:`mathcheck.symbolic.rules.probability`'s, shared with the catalog). :func:`lower` rewrites it
into ordinary SymPy over *moment symbols* — ``E[X**2]``, ``E[X*Y]`` — by these rules:

* **definitions**: ``Var(A) = E[A²] − E[A]²``, ``Cov(A, B) = E[AB] − E[A]E[B]``;
* **linearity**: ``E[aA + bB] = aE[A] + bE[B]`` for ``a, b`` free of every random variable, and
  ``E[Σ_i f_i] = Σ_i E[f_i]`` for a sum whose bounds are integers (a finite sum);
* **independence** (its variables named): ``E[g(X) h(Y)] = E[g(X)] E[h(Y)]`` only when X and Y lie in
  different declared independence groups; a family ``q`` whose components are declared independent
  gives ``E[q_i q_j] = δ_ij E[q_i²] + (1 − δ_ij) E[q_i] E[q_j]`` (two distinct indices at most);
* **known moments**: a zero-mean variable's ``E[X] = 0``, a unit-variance one's ``E[X²] = 1 + E[X]²``,
  and the raw moments of a named distribution (:data:`RAW_MOMENTS`: Bernoulli, Normal, Uniform,
  Exponential, Laplace, Categorical over {1..K}).

What is left is a polynomial in moment symbols, each the expectation of one dependence group. An
identity that holds for *every* value of those symbols holds for every distribution with those
moments, so a proof over the symbols is sound; the converse fails (``E[X²] ≥ E[X]²`` is not true of
arbitrary numbers), so a counterexample is never taken from the symbols — it is a distribution,
found by :mod:`mathcheck.numeric.distributions`.

    >>> from mathcheck.lazy import sympy as sp
    >>> X = sp.Symbol("X", real=True)
    >>> facts = Facts(random=frozenset({"X"}))
    >>> lower(Var(X) + E(X) ** 2, facts)[0]
    E[X**2]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.distributions import Facts  # the one description of the facts
from mathcheck.symbolic.rules.probability import E, Var  # noqa: F401 - the heads the catalog uses

HEADS = ("E", "Var", "Cov", "KL", "Pr", "CondE", "EOver")  # E[f | Y] and E_X[f] (parser.py) too
FAMILIES = ("Bernoulli", "Normal", "Uniform", "Exponential", "Laplace", "Categorical")


class Unsupported(Exception):
    """The expression is outside what the rules decide (said in one line): the link is inconclusive."""


def Cov(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """The covariance operator, unevaluated."""
    return sp.Function("Cov")(a, b)


def is_head(x: sp.Basic, *names: str) -> bool:
    return isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ in (names or HEADS)


def has_probability(*exprs: object) -> bool:
    """Whether any expression holds ``E``, ``Var`` or ``Cov``."""
    return any(any(is_head(a) for a in sp.preorder_traversal(e)) for e in exprs if isinstance(e, sp.Basic))


def _name(atom) -> str:
    return str(atom.base) if isinstance(atom, sp.Indexed) else str(atom)


def random_atoms(e: sp.Expr, facts: Facts) -> set:
    """The random variables in ``e``: symbols and indexed entries whose name the facts declare random
    (expectations inside are constants: their variables are integrated out) — the numeric side's
    :func:`~mathcheck.numeric.distributions.atoms_of`, so both sides agree on what is random."""
    from mathcheck.numeric.distributions import atoms_of

    return atoms_of(e, facts)


# --- the raw moments of the named distributions -------------------------------------------------------


def raw_moment(family: str, params: tuple, k: int) -> sp.Expr:
    r"""``E[X^k]`` for ``X`` of a named family, in closed form.

    Normal(μ, s²): Σ_j C(k, 2j) μ^{k−2j} s^{2j} (2j−1)!!; Uniform(a, b): (b^{k+1} − a^{k+1})/((k+1)(b−a));
    Exponential(λ): k!/λ^k; Laplace(μ, b): Σ_j C(k, 2j) μ^{k−2j} (2j)! b^{2j}; Bernoulli(p): p;
    Categorical(p, K) on {1..K}: Σ_j j^k p_j.

        >>> from mathcheck.lazy import sympy as sp
        >>> raw_moment("Normal", (sp.Symbol("m"), sp.Symbol("v")), 2)
        m**2 + v
    """
    if family == "Bernoulli":
        return params[0]
    if family == "Normal":
        mu, var = params
        return sp.Add(
            *[sp.binomial(k, 2 * j) * mu ** (k - 2 * j) * var**j * sp.factorial2(2 * j - 1) for j in range(k // 2 + 1)]
        )
    if family == "Uniform":
        a, b = params
        return sp.cancel((b ** (k + 1) - a ** (k + 1)) / ((k + 1) * (b - a)))
    if family == "Exponential":
        return sp.factorial(k) / params[0] ** k
    if family == "Laplace":
        mu, b = params
        return sp.Add(
            *[sp.binomial(k, 2 * j) * mu ** (k - 2 * j) * sp.factorial(2 * j) * b ** (2 * j) for j in range(k // 2 + 1)]
        )
    if family == "Categorical":
        p, K = params
        j = sp.Dummy("j", integer=True, positive=True)
        return sp.Sum(j**k * p[j], (j, 1, K))
    raise Unsupported(f"no moments for the family {family}")


# --- lowering -----------------------------------------------------------------------------------------


@dataclass
class Lowering:
    facts: Facts
    rules: list = field(default_factory=list)

    def note(self, rule: str) -> None:
        if rule not in self.rules:
            self.rules.append(rule)

    def lower(self, e) -> sp.Expr:
        e = e.replace(lambda x: is_head(x, "Density"), self._density)
        e = e.replace(lambda x: is_head(x, "Pr"), self._pr)
        e = e.replace(lambda x: is_head(x, "KL"), self._kl)
        e = e.replace(lambda x: is_head(x, "Var"), self._var)
        e = e.replace(lambda x: is_head(x, "Cov"), self._cov)
        while True:  # innermost expectation first: an inner E is a constant to the outer one
            inner = [
                x
                for x in sp.preorder_traversal(e)
                if is_head(x, "E") and not any(is_head(y, "E") for y in sp.preorder_traversal(x.args[0]))
            ]
            if not inner:
                return e
            e = e.xreplace({x: self.expect(x.args[0]) for x in inner})

    def _kl(self, x):
        """KL(P ‖ Q) = E_{x∼P}[log p(x) − log q(x)]: for Normal and Exponential a polynomial in x
        (its parameters' side conditions checked: v > 0, λ > 0), so P's moments decide it."""
        from mathcheck.numeric.distributions import family_of, log_density

        P, Q = (family_of(a) for a in x.args)
        if P is None or Q is None:
            raise Unsupported(
                f"{sp.sstr(x)}: KL is read between two named distributions, e.g. KL(Normal(m1, v1), Normal(m2, v2)), "
                f"or two declared laws (assume: p(x), q(x) laws; KL(p(x), q(x)))"
            )
        for fam, params in (P, Q):
            scale = params[-1]
            if fam not in ("Normal", "Exponential"):
                raise Unsupported(f"KL with {fam}: only Normal and Exponential have their log-density here")
            if scale.is_positive is not True:
                raise Unsupported(
                    f"{fam}{params}: its {'variance' if fam == 'Normal' else 'rate'} "
                    f"{sp.sstr(scale)} is not known to be positive; assume it (e.g. "
                    f"assume: sigma=positive)"
                )
        t = sp.Dummy("x", real=True)
        g = sp.expand(sp.expand_log(log_density(*P, t) - log_density(*Q, t), force=False))
        poly = sp.Poly(g, t)
        if any(not c.is_finite is not False and c.has(t) for c in poly.coeffs()):
            raise Unsupported(f"{sp.sstr(x)}: log p − log q is not a polynomial in x")
        self.note(f"KL(P ‖ Q) = E_(x∼P)[log p(x) − log q(x)], the log-densities of {P[0]} and {Q[0]}")
        self.note(f"moments of {P[0]}")
        return sp.Add(*[c * raw_moment(P[0], P[1], k) for (k,), c in poly.terms()])

    def _density(self, x):
        """``p_Y(y)``: the density of Y's named continuous law, or for Y = g(X) (a stated fact) the
        **change of variables** p_Y(y) = p_X(g⁻¹(y)) |d g⁻¹(y)/dy|, its side conditions shown: g strictly
        monotone on X's support (g' of one sign there, by SymPy's assumptions), g⁻¹ the one real
        solution of g(x) = y, and y inside Y's support (its ends g's limits at the support's ends)
        known from y's assumptions — authors write a density on its support, and off it p_Y is 0."""
        name, y = str(x.args[0]), x.args[1]
        if name in self.facts.distributions:
            family, params = self.facts.distributions[name]
            t = sp.Dummy("t", real=True)
            f, lo, hi = self._law_density(family, params, t, name)
            try:
                self._on_support(name, y, lo, hi)
            except Unsupported:  # p_X(g⁻¹(y)) at a y of Y's support, Y = g(X): g⁻¹(y) is in X's support
                if not any(
                    str(v) == name and sp.simplify(y - self._inverse(n, w)[2]) == 0
                    for n, g in self.facts.transforms
                    for v in random_atoms(g, self.facts)
                    for w in y.free_symbols
                ):
                    raise
            self.note(f"the density of {family}")
            return f.xreplace({t: y})
        X, f, h, t = self._inverse(name, y)
        return f.xreplace({t: h}) * sp.Abs(sp.diff(h, y))

    def _inverse(self, name, y):
        """``(X, f, g⁻¹(y), t)`` for Y = g(X) with its side conditions shown (:meth:`_density`)."""
        g = dict(self.facts.transforms)[name]
        xs = list(random_atoms(g, self.facts))
        if len(xs) != 1 or _name(xs[0]) not in self.facts.distributions:
            raise Unsupported(f"{name} = {sp.sstr(g)}: the change of variables reads g of one variable of a named law")
        (X,) = xs
        family, params = self.facts.distributions[_name(X)]
        t = sp.Dummy("t", real=True)
        f, lo, hi = self._law_density(family, params, t, _name(X))
        inside = _inside(lo, hi, sp.Dummy("x", real=True))
        slope = sp.simplify(sp.diff(g, X).xreplace({X: inside}))
        way = "increasing" if slope.is_positive else "decreasing" if slope.is_negative else None
        if way is None:
            raise Unsupported(
                f"{name} = {sp.sstr(g)} is not shown strictly monotone on the support of {_name(X)} "
                f"(g' = {sp.sstr(sp.diff(g, X))}): p_{name}(y) = p_{_name(X)}(g⁻¹(y)) |dg⁻¹/dy| needs it (a g "
                f"such as X**2 sums over its branches, which is not read)"
            )
        u = sp.Dummy("u", real=True)
        try:
            roots = [r for r in sp.solve(sp.Eq(g.xreplace({X: u}), y), u) if r.is_real is not False]
        except Exception:  # noqa: BLE001 - SymPy's solver failing: no inverse shown
            roots = []
        if len(roots) != 1:
            raise Unsupported(f"{name} = {sp.sstr(g)}: g⁻¹(y) is not found as one closed form")
        (h,) = roots
        ends = [sp.limit(g, X, lo, "+" if lo != -sp.oo else "-"), sp.limit(g, X, hi, "-" if hi != sp.oo else "+")]
        low, high = ends if way == "increasing" else ends[::-1]
        self._on_support(name, y, low, high)
        self.note(
            f"change of variables: p_{name}(y) = p_{_name(X)}(g⁻¹(y)) |d g⁻¹(y)/dy|, g(x) = "
            f"{sp.sstr(g.xreplace({X: sp.Symbol('x')}))} strictly {way} on the support of {_name(X)} ~ {family} "
            f"(g' = {sp.sstr(sp.diff(g, X).xreplace({X: sp.Symbol('x')}))}), g⁻¹(y) = {sp.sstr(h)}"
        )
        return X, f, h, t

    def _law_density(self, family, params, t, name):
        dens = _density(family, params, t)
        if dens is None:
            raise Unsupported(
                f"{name} ~ {family}{params}: its density needs its parameters' conditions known (a variance, "
                f"rate or scale positive, a < b)"
            )
        return dens

    def _on_support(self, name, y, lo, hi):
        known = (lo == -sp.oo or (y - lo).is_positive) and (hi == sp.oo or (hi - y).is_positive)
        if not known:
            raise Unsupported(
                f"p_{name}({sp.sstr(y)}) is read on the support of {name}, {sp.sstr(lo)} < {sp.sstr(y)} < "
                f"{sp.sstr(hi)}, which is not known; state it (e.g. assume: {sp.sstr(y)} > {sp.sstr(lo)})"
                if lo != -sp.oo
                else f"p_{name}({sp.sstr(y)}) is read on the support of {name}, {sp.sstr(y)} < {sp.sstr(hi)}; state it"
            )

    def _pr(self, x):
        """``P(A | B) = P(A, B)/P(B)``, needing P(B) > 0 known; ``P(A)`` by :meth:`_event`."""
        event, given = x.args
        if not given:
            return self._event(list(event), x)
        joint, below = self._event(list(event) + list(given), x), self._event(list(given), x)
        if sp.simplify(below).is_positive is not True:
            raise Unsupported(
                f"{show_event(x)}: P(A | B) = P(A, B)/P(B) needs P(B) > 0, and P(B) = {sp.sstr(below)} is not "
                f"known positive; state what makes it so"
                + "".join(f" (e.g. assume: {sp.sstr(y)}=positive)" for y in sorted(below.free_symbols, key=str)[:1])
            )
        self.note("conditional probability: P(A | B) = P(A, B)/P(B), P(B) > 0")
        return joint / below

    def _event(self, rels, x):
        """The probability that every relation holds: each compares one random variable of a named law
        with a constant; several variables only when declared independent (P(A, B) = P(A)P(B))."""
        missing = undeclared_events([x], self.facts)
        if missing:
            raise Unsupported(missing)
        from mathcheck.numeric.distributions import comparison

        by_atom: dict = {}
        for rel in rels:
            found = comparison(rel, lambda y: bool(random_atoms(y, self.facts)))
            if found is None:
                raise Unsupported(
                    f"{show_event(x)}: {sp.sstr(rel)}: an event read compares one random variable with a constant"
                )
            by_atom.setdefault(found[0], []).append(found[1:])
        names = {_name(a) for a in by_atom}
        groups = {self.facts.group(n) for n in names}
        if len(by_atom) > 1:
            if len(names) != len(by_atom) or None in groups or len(groups) > 1:
                raise Unsupported(
                    f"{show_event(x)}: the joint law of {', '.join(sorted(names))} is not known; "
                    f"declare them independent (assume: {', '.join(sorted(names))} independent)"
                )
            self.note("independence of " + ", ".join(sorted(names)) + ": P(A, B) = P(A)P(B)")
        out = sp.Integer(1)
        for atom, cuts in by_atom.items():
            out *= self._one(atom, cuts, x)
        return out

    def _one(self, atom, cuts, x):
        """P(X op c, …) for one variable X of a named law."""
        family, params = self.facts.distributions[_name(atom)]
        if family in ("Bernoulli", "Categorical"):
            self.note(f"the mass function of {family}: P(X ∈ A) = Σ_(s ∈ A) P(X = s)")
            if family == "Bernoulli":
                (p,) = params
                return sum(w * sp.Mul(*[_indicator(s, op, c) for op, c in cuts]) for s, w in ((0, 1 - p), (1, p)))
            p, K = params
            j = sp.Dummy("j", integer=True, positive=True)
            return sp.Sum(p[j] * sp.Mul(*[_indicator(j, op, c) for op, c in cuts]), (j, 1, K))
        if any(op == "==" for op, _ in cuts):
            self.note(f"{family} is continuous: P(X = a) = 0")
            return sp.Integer(0)
        t = sp.Dummy("t", real=True)
        cdf = _cdf(family, params, t)
        if cdf is None:
            raise Unsupported(
                f"{show_event(x)}: the parameters of {family}{tuple(params)} are not known to make a law "
                f"(a variance, rate or scale positive, b − a > 0); assume it"
            )
        lows = [c for op, c in cuts if op in (">", ">=")]
        highs = [c for op, c in cuts if op in ("<", "<=")]
        lo, hi = _tightest(lows, max), _tightest(highs, min)
        if lo is False or hi is False or (lo is not None and hi is not None and (hi - lo).is_nonnegative is not True):
            raise Unsupported(f"{show_event(x)}: the order of the bounds on {atom} is not known")
        self.note(f"the CDF of {family}: P(X ≤ a) = {sp.sstr(cdf.xreplace({t: sp.Symbol('a')}))}")
        upper = cdf.xreplace({t: hi}) if hi is not None else sp.Integer(1)
        lower = cdf.xreplace({t: lo}) if lo is not None else sp.Integer(0)
        return upper - lower

    def _var(self, x):
        self.note("definition of variance: Var(A) = E[A²] − E[A]²")
        a = x.args[0]
        return E(a**2) - E(a) ** 2

    def _cov(self, x):
        self.note("definition of covariance: Cov(A, B) = E[AB] − E[A]E[B]")
        a, b = x.args
        return E(a * b) - E(a) * E(b)

    def expect(self, arg) -> sp.Expr:
        """``E[arg]`` by linearity, independence and the known moments."""
        terms = sp.Add.make_args(_expand(arg))
        out = []
        for t in terms:
            if not random_atoms(t, self.facts):
                out.append(t)
                continue
            if len(terms) > 1:
                self.note("linearity of expectation")
            out.append(self._tower(t) if t.has(sp.Function("CondE")) else self._term(t))
        return sp.Add(*out)

    def _tower(self, t):
        """The law of total expectation, E[h(Y) E[f | Y]] = E[h(Y) f] (h = 1: E[E[f | Y]] = E[f]), for one
        conditional expectation in the term, h a function of Y, and the side condition shown:
        E|f| < ∞ and E|h f| < ∞ under the declared laws (:meth:`_integrable`); else Unsupported."""
        from mathcheck.numeric.distributions import conditional

        conds = [f for f in sp.Mul.make_args(t) if conditional(f)]
        rest = sp.Mul(*[f for f in sp.Mul.make_args(t) if not conditional(f)])
        if len(conds) != 1 or any(conditional(x) for x in sp.preorder_traversal(conds[0].args[0])):
            raise Unsupported(
                f"E[{sp.sstr(t)}]: the law of total expectation is read for one E[f | Y] to the first power in "
                f"a term, E[h(Y) E[f | Y]]"
            )
        ((f, y),) = [c.args for c in conds]
        if {_name(a) for a in random_atoms(rest, self.facts)} - {_name(y)}:
            raise Unsupported(
                f"E[{sp.sstr(t)}]: E[f | {y}] times a function of other random variables than {y} is not read"
            )
        for g in dict.fromkeys((f, sp.expand(rest * f))):
            why = self._integrable(g)
            if why:
                raise Unsupported(f"the law of total expectation needs E|{sp.sstr(g)}| < ∞, which is not shown: {why}")
        self.note(
            f"law of total expectation: E[{'h(Y) ' if rest != 1 else ''}E[f | Y]] = E[{'h(Y) ' if rest != 1 else ''}f], "
            f"E|f| < ∞ ({self.finite_by})"
        )
        return self.expect(rest * f)

    finite_by = ""

    def _integrable(self, g) -> str:
        """Why E|g| < ∞ is not known under the facts, or "" when it is: g a polynomial whose every term's
        variables have a named law (each family read has every moment), or hold one variable of stated
        mean (degree 1) or variance (degree ≤ 2), or two of stated variance (degree 1 each:
        Cauchy–Schwarz); or one variable of a named continuous law with ∫|g| f convergent (SymPy's
        closed form). An undeclared law may have no mean (Cauchy's): not known."""
        atoms = sorted(random_atoms(g, self.facts), key=str)
        named = [a for a in atoms if _name(a) in self.facts.distributions]
        if atoms and g.is_polynomial(*atoms):
            for term in sp.Add.make_args(sp.expand(g)):
                degree = {a: sp.degree(term, a) for a in atoms if term.has(a)}
                if all(a in named for a in degree):
                    continue
                ok = all(
                    k <= 1
                    and _name(a) in self.facts.zero_mean | self.facts.unit_variance
                    or k <= 2
                    and _name(a) in self.facts.unit_variance
                    for a, k in degree.items()
                ) and (
                    len(degree) == 1
                    or len(degree) == 2
                    and all(k == 1 and (a in named or _name(a) in self.facts.unit_variance) for a, k in degree.items())
                )
                if not ok:
                    loose = [_name(a) for a in degree if a not in named]
                    return (
                        f"the law of {', '.join(loose)} is not stated (a law with no mean, e.g. Cauchy's, has "
                        f"none); state it, e.g. assume: {loose[0]} ~ Normal(mu, sigma^2)"
                    )
            laws = sorted({self.facts.distributions[_name(a)][0] for a in named})
            self.finite_by = "a polynomial in " + (
                f"variables of named laws ({', '.join(laws)}), every moment finite"
                if laws
                else "variables of stated moments"
            )
            return ""
        if len(atoms) == 1 and named:
            family, params = self.facts.distributions[_name(atoms[0])]
            t = sp.Dummy("x", real=True)
            density = _density(family, params, t)
            if density is not None:
                f, lo, hi = density
                try:
                    total = sp.integrate(sp.Abs(g.xreplace({atoms[0]: t})) * f, (t, lo, hi))
                except Exception:  # noqa: BLE001 - SymPy's integrator failing shows nothing
                    total = sp.oo
                if total.is_finite and not total.has(sp.Integral, sp.Piecewise):
                    self.finite_by = f"∫|g| f dx = {sp.sstr(total)} under {family}"
                    return ""
                return f"∫|{sp.sstr(g)}| f dx under {family}{params} is not shown finite"
        return f"E|{sp.sstr(g)}| < ∞ is shown for a polynomial in variables of named laws only"

    def _term(self, t):
        if isinstance(t, sp.Sum):
            for _, a, b in t.limits:
                if not (getattr(a, "is_integer", False) and getattr(b, "is_integer", False)):
                    raise Unsupported(f"E over {sp.sstr(t)}: a sum's bounds must be integers (a finite sum)")
            self.note("linearity of expectation over a finite sum")
            return sp.Sum(self.expect(t.function), *t.limits)
        const, rand = [], []
        for f in sp.Mul.make_args(t):
            (rand if random_atoms(f, self.facts) else const).append(f)
        sums = [f for f in rand if isinstance(f, sp.Sum)]
        if sums:
            raise Unsupported(f"E[{sp.sstr(t)}]: a product with a sum is not expanded; write it as one sum")
        return sp.Mul(*const) * self._monomial(rand)

    def _monomial(self, factors):
        powers: dict = {}
        for f in factors:
            base, k = f.as_base_exp()
            if not (k.is_Integer and k > 0 and (isinstance(base, (sp.Symbol, sp.Indexed)))):
                whole = sp.Mul(*factors)
                by_density = self._by_density(whole)
                return by_density if by_density is not None else self._opaque(whole)
            powers[base] = powers.get(base, 0) + int(k)
        groups = {self.facts.group(_name(atom)) for atom in powers}
        names = {_name(atom) for atom in powers}
        if len(names) > 1 and (None in groups or len(groups) > 1):
            # independence is only what was declared: variables of different statements (X ⊥ Y and
            # U ⊥ V say nothing of X and U) or in none keep one joint expectation
            return self._opaque(sp.Mul(*[a**k for a, k in powers.items()]))
        return self._group(powers)

    def _group(self, d):
        """The expectation of the product of one independence group's atoms (``{atom: power}``)."""
        by_name: dict = {}
        for a, k in d.items():
            by_name.setdefault(_name(a), {})[a] = k
        if len(by_name) > 1:  # several variables of one group: mutually independent by the declaration
            self.note("independence of " + ", ".join(sorted(by_name)) + ": E[XY] = E[X]E[Y]")
        out = sp.Integer(1)
        for name, atoms in by_name.items():
            out *= self._family(name, atoms)
        return out

    def _family(self, name, atoms):
        """One variable (a symbol) or one family's entries (``q[i]``, ``q[j]``)."""
        indexed = [a for a in atoms if isinstance(a, sp.Indexed)]
        if not indexed:
            ((a, k),) = atoms.items()
            return self._moment(a, k)
        if len(atoms) == 1:
            ((a, k),) = atoms.items()
            return self._moment(a, k)
        if name not in self.facts.components:
            return self._opaque(sp.Mul(*[a**k for a, k in atoms.items()]))
        if len(atoms) > 2:
            raise Unsupported(
                f"E[{sp.sstr(sp.Mul(*[a**k for a, k in atoms.items()]))}]: more than two "
                f"distinct entries of {name} in one product are not split"
            )
        (a, k), (b, m) = atoms.items()
        if len(a.indices) != 1 or len(b.indices) != 1:
            raise Unsupported(f"{name}: only a family with one index is split by independence")
        self.note(f"independence of the components of {name}: E[{name}_i {name}_j] = E[{name}_i]E[{name}_j] for i ≠ j")
        d = sp.KroneckerDelta(a.indices[0], b.indices[0])
        return d * self._moment(a, k + m) + (1 - d) * self._moment(a, k) * self._moment(b, m)

    def _moment(self, atom, k: int):
        name = _name(atom)
        if name in self.facts.distributions:
            family, params = self.facts.distributions[name]
            self.note(f"moments of {family}")
            return raw_moment(family, params, k)
        if name in self.facts.zero_mean and k == 1:
            self.note(f"{name} has mean 0")
            return sp.Integer(0)
        if name in self.facts.unit_variance and k == 2:
            self.note(f"{name} has variance 1: E[{name}²] = 1 + E[{name}]²")
            return 1 + self._moment(atom, 1) ** 2
        return _moment_symbol(atom, k)

    def _by_density(self, g):
        """``E[g(X)] = ∫ g(x) f(x) dx`` for one random variable X of a named continuous law with
        density f (its parameters' side conditions known: v > 0, λ > 0, b > 0, b − a > 0), by SymPy's
        closed form; None (the expectation kept whole) where there is none: an integral left
        unevaluated, a Piecewise of convergence conditions, ∞ or nan (a divergent integral is no
        expectation). For these light-tailed laws a convergent closed form is the expectation."""
        atoms = random_atoms(g, self.facts)
        if len(atoms) != 1:
            return None
        (atom,) = atoms
        name = _name(atom)
        if isinstance(atom, sp.Indexed) or name not in self.facts.distributions:
            return None
        family, params = self.facts.distributions[name]
        t = sp.Dummy("x", real=True)
        density = _density(family, params, t)
        if density is None:
            return None
        f, lo, hi = density
        inside = _inside(lo, hi, t)
        if any(a.args[0].xreplace({atom: inside}).is_nonnegative is not True for a in g.atoms(sp.log)):
            return None  # E[log X] where X may be < 0 is no real number (and SymPy's integral of it takes seconds)
        try:
            out = sp.integrate(g.xreplace({atom: t}) * f, (t, lo, hi))
        except Exception:  # noqa: BLE001 - SymPy's integrator failing is no expectation
            return None
        if out.has(sp.Integral, sp.Piecewise, sp.oo, -sp.oo, sp.zoo, sp.nan) or out.has(t):
            return None
        self.note(f"E[g(X)] = ∫ g(x) f(x) dx, the density of {family} (SymPy's closed form, convergent)")
        return out

    def _opaque(self, e):
        """The expectation of a joint or non-polynomial function, kept whole as one symbol. A symbol
        cannot keep symbolic indices (E[q_i q_j] depends on i and j; as one symbol a sum over them
        would count it d² times), so then the link is undecided."""
        if isinstance(e, sp.Indexed):
            return _moment_symbol(e, 1)
        loose = {i for x in e.atoms(sp.Indexed) for i in x.indices if not i.is_Integer}
        if loose:
            raise Unsupported(
                f"E[{sp.sstr(e)}]: a joint moment of entries with symbolic indices is not split; "
                f"declare what is independent (assume: q_i, k_i independent)"
            )
        return _moment_symbol(e, 1)


def _density(family: str, params: tuple, t):
    """``(f(t), lo, hi)``: the density of a named continuous law and its support, or None where a
    parameter's side condition is not known (the variance, rate or scale positive, b − a > 0)."""
    if family == "Normal":
        mu, v = params
        if v.is_positive is not True:
            return None
        return sp.exp(-((t - mu) ** 2) / (2 * v)) / sp.sqrt(2 * sp.pi * v), -sp.oo, sp.oo
    if family == "Exponential":
        (lam,) = params
        if lam.is_positive is not True:
            return None
        return lam * sp.exp(-lam * t), sp.Integer(0), sp.oo
    if family == "Uniform":
        a, b = params
        if (b - a).is_positive is not True:
            return None
        return 1 / (b - a), a, b
    if family == "Laplace":
        mu, b = params
        if b.is_positive is not True:
            return None
        return sp.exp(-sp.Abs(t - mu) / b) / (2 * b), -sp.oo, sp.oo
    return None


def _over_the_support(e):
    """``Σ_(k=1)^K Σ_(j=1)^K δ_jk f(j, k)`` → ``Σ_(k=1)^K f(k, k)``: a Categorical's P(X = k) summed over
    its own support {1..K} (the two ranges the same, so the δ keeps the diagonal)."""

    def one(x):
        limits, f = list(x.limits), x.function
        for n, (j, a, b) in enumerate(limits):
            for k, c, d in limits:
                if k == j or (a, b) != (c, d) or {j, k} & (a.free_symbols | b.free_symbols):
                    continue
                delta = sp.KroneckerDelta(j, k)
                if delta in sp.Mul.make_args(f):
                    rest = [lim for m, lim in enumerate(limits) if m != n]
                    return one(sp.Sum((f / delta).xreplace({j: k}), *rest))
        return x

    return e.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) > 1, one)


def _indicator(s, op: str, c):
    """1 where ``s op c``, else 0: KroneckerDelta for ``=``, the grammar's step (Heaviside(·, 1)) else."""
    if op == "==":
        return sp.KroneckerDelta(s, c)
    if op == "<=":
        return sp.Heaviside(c - s, 1)
    if op == ">=":
        return sp.Heaviside(s - c, 1)
    if op == "<":
        return 1 - sp.Heaviside(s - c, 1)
    return 1 - sp.Heaviside(c - s, 1)


def _tightest(bounds: list, pick):
    """The largest (``max``) or smallest (``min``) of ``bounds`` where their order is known; None for
    none, False where it is not known."""
    if not bounds:
        return None
    best = bounds[0]
    for b in bounds[1:]:
        d = b - best
        if d.is_nonnegative:
            best = b if pick is max else best
        elif d.is_nonpositive:
            best = best if pick is max else b
        else:
            return False
    return best


def _cdf(family: str, params: tuple, t):
    """P(X ≤ t) of a named continuous law, or None where a parameter's side condition is not known."""
    if _density(family, params, t) is None:
        return None
    if family == "Normal":
        mu, v = params
        return (1 + sp.erf((t - mu) / sp.sqrt(2 * v))) / 2
    if family == "Exponential":
        (lam,) = params
        return sp.Heaviside(t, 1) * (1 - sp.exp(-lam * t))
    if family == "Uniform":
        a, b = params
        return sp.Min(1, sp.Max(0, (t - a) / (b - a)))
    mu, b = params  # Laplace
    return sp.Rational(1, 2) + sp.sign(t - mu) * (1 - sp.exp(-sp.Abs(t - mu) / b)) / 2


def show_event(x) -> str:
    """``Pr((Eq(X, 1),), (Y > 0,))`` as its author wrote it: ``P(X = 1 | Y > 0)``."""

    def one(rel):
        op = {"==": "="}.get(rel.rel_op, rel.rel_op)
        return f"{sp.sstr(rel.lhs)} {op} {sp.sstr(rel.rhs)}"

    event, given = x.args
    text = ", ".join(one(r) for r in event)
    return f"P({text}" + (f" | {', '.join(one(r) for r in given)})" if given else ")")


def undeclared_events(exprs, facts: Facts) -> str | None:
    """One line when an event's variable has no named law (or the event names no random variable):
    its probability is then not known — never guessed from a drawn law."""
    for e in exprs:
        for x in sp.preorder_traversal(e):
            if not is_head(x, "Pr"):
                continue
            for rel in [*x.args[0], *x.args[1]]:
                names = sorted({_name(a) for a in random_atoms(rel, facts)})
                if not names:
                    return (
                        f"{show_event(x)}: {sp.sstr(rel)} names no random variable; declare its law, e.g. "
                        f"assume: X ~ Bernoulli(p) (% assume: X \\sim \\mathrm{{Bernoulli}}(p))"
                    )
                loose = [n for n in names if n not in facts.distributions]
                if loose:
                    return (
                        f"{show_event(x)}: {', '.join(loose)} has no declared law, so the probability is not "
                        f"known; declare it, e.g. assume: {loose[0]} ~ Bernoulli(p) "
                        f"(% assume: {loose[0]} \\sim \\mathrm{{Bernoulli}}(p))"
                    )
    return None


def _moment_symbol(e, k: int):
    """``E[X**2]`` as a real symbol; for an entry ``q[i]``, the entry ``i`` of the IndexedBase
    ``E[q**2]`` (so that a sum over i keeps its index)."""
    if isinstance(e, sp.Indexed):  # one moment per entry: the indices stay, so sums over them stay right
        return sp.IndexedBase(f"E[{e.base}**{k}]" if k != 1 else f"E[{e.base}]", real=True)[e.indices]
    text = sp.sstr(e**k)
    return sp.Symbol(f"E[{text}]", real=True)


def _expand(e):
    """``e`` multiplied out, sums included: ``(Σ_i a_i)²`` is ``Σ_i Σ_j a_i a_j`` (j fresh), and a
    product of sums one sum of products."""
    e = sp.expand(e)
    out = []
    for t in sp.Add.make_args(e):
        out.append(_expand_term(t))
    return sp.Add(*out)


def _expand_term(t):
    factors = []
    for f in sp.Mul.make_args(t):
        base, k = f.as_base_exp()
        if isinstance(base, sp.Sum) and k.is_Integer and k > 1:
            factors += [base] * int(k)
        else:
            factors.append(f)
    sums = [f for f in factors if isinstance(f, sp.Sum)]
    if len(sums) < 2 and not any(isinstance(f, sp.Sum) and f.function.is_Add for f in sums):
        return (
            t
            if not sums
            else sp.Mul(*[f for f in factors if not isinstance(f, sp.Sum)])
            * sp.Sum(_expand(sums[0].function), *sums[0].limits)
        )
    rest = sp.Mul(*[f for f in factors if not isinstance(f, sp.Sum)])
    body, limits, used = rest, [], set().union(*[f.free_symbols for f in factors])
    for s in sums:
        s = _fresh(s, used)
        used |= {v for v, *_ in s.limits}
        body *= s.function
        limits += list(s.limits)
    return sp.Sum(_expand(body), *limits)


def _fresh(s, used):
    """``s`` with its indices renamed away from ``used`` (so that Σ_i a_i · Σ_i b_i is Σ_i Σ_j a_i b_j)."""
    for v, *_ in s.limits:
        if v in used:
            for n in itertools.count(1):
                w = sp.Symbol(f"{v.name}{n}", integer=True)
                if w not in used and w not in s.free_symbols:
                    break
            s = s.xreplace({v: w})
            used = used | {w}
    return s


def simplify_deltas(e: sp.Expr) -> sp.Expr:
    """``δ_ij² = δ_ij`` and ``δ_ii = 1`` until nothing changes, then Kronecker sums summed
    (``Σ_j δ_ij f_j = f_i`` for ``i`` in the range, which the sums' own ranges say)."""
    for _ in range(5):
        new = sp.expand(e).replace(
            lambda x: (
                isinstance(x, sp.Pow) and isinstance(x.base, sp.KroneckerDelta) and x.exp.is_Integer and x.exp > 0
            ),
            lambda x: x.base,
        )
        if new == e:
            break
        e = new
    return e


def lower(e: sp.Expr, facts: Facts) -> tuple[sp.Expr, list[str]]:
    """``(lowered, rules)``: ``e`` with every ``E``/``Var``/``Cov`` rewritten by the rules above, and
    the rules used, in order; :class:`Unsupported` for what they do not decide."""
    low = Lowering(facts)
    out = _over_the_support(low.lower(e))
    if any(is_head(x, "CondE") for x in sp.preorder_traversal(out)):
        raise Unsupported("E[f | Y] is a random variable (a function of Y); it is read inside an expectation only")
    if has_probability(out):
        raise Unsupported(f"{sp.sstr(e)}: an expectation is left after the rules")
    return simplify_deltas(out), low.rules


def jensen(lhs: sp.Expr, rhs: sp.Expr, relation: str, facts: Facts | None = None) -> str | None:
    r"""Jensen's inequality as a rule: ``φ(E[g]) ≤ E[φ(g)]`` for φ convex on ℝ, ``≥`` for φ concave,
    the convexity *shown*: φ''(t) ≥ 0 (≤ 0) for every real t, by SymPy's sign of the second
    derivative. The rule's words, or None where the link is not of this shape or φ's curvature is not
    shown (then the link is left to the other rules: never proved by this one).

        >>> from mathcheck.lazy import sympy as sp
        >>> X = sp.Symbol("X", real=True)
        >>> jensen(sp.exp(E(X)), E(sp.exp(X)), "<=")[:33]
        "Jensen's inequality, φ(t) = exp(t"
        >>> jensen(sp.sin(E(X)), E(sp.sin(X)), "<=") is None
        True
    """
    if relation not in ("<=", ">="):
        return None
    small, big = (lhs, rhs) if relation == "<=" else (rhs, lhs)
    for outer, inner, convex in ((small, big, True), (big, small, False)):
        heads = [x for x in sp.preorder_traversal(outer) if is_head(x, "E")]
        if (
            len(heads) != 1
            or not is_head(inner, "E")
            or has_probability(inner.args[0])
            or has_probability(heads[0].args[0])
        ):
            continue
        (mean,) = heads
        t = sp.Dummy("t", real=True)
        phi = outer.xreplace({mean: t})
        if has_probability(phi) or sp.expand(phi.xreplace({t: mean.args[0]}) - inner.args[0]) != 0:
            continue
        second = sp.simplify(sp.diff(phi, t, 2))
        sign = second.is_nonnegative if convex else second.is_nonpositive
        kind = "convex" if convex else "concave"
        if sign is True:
            return (
                f"Jensen's inequality, φ(t) = {sp.sstr(phi.xreplace({t: sp.Symbol('t')}))} {kind}: "
                f"φ''(t) = {sp.sstr(second.xreplace({t: sp.Symbol('t')}))} {'≥' if convex else '≤'} 0 for every real t"
            )
        on = _support_point(mean.args[0], facts) if facts is not None else None
        if on is not None:  # the curvature on the support of X only: log on t > 0 (a half-line)
            point, where = on
            there = sp.simplify(second.xreplace({t: point}))
            if (there.is_nonnegative if convex else there.is_nonpositive) is True:
                return (
                    f"Jensen's inequality, φ(t) = {sp.sstr(phi.xreplace({t: sp.Symbol('t')}))} {kind} on the "
                    f"support of {where}: φ''(t) = {sp.sstr(second.xreplace({t: sp.Symbol('t')}))} "
                    f"{'≥' if convex else '≤'} 0 there"
                )
    return None


def _support_point(g, facts: Facts):
    """``(a point of the support written with a positive symbol, its words)`` for g one random variable of
    a named continuous law whose support is not all of ℝ (Exponential: (0, ∞); Uniform(a, b): (a, b),
    b − a known positive), so that a sign shown at the point holds on the whole support; else None."""
    if not isinstance(g, sp.Symbol) or str(g) not in facts.distributions:
        return None
    family, params = facts.distributions[str(g)]
    t = sp.Dummy("t", real=True)
    density = _density(family, params, t)
    if density is None or family not in ("Exponential", "Uniform"):
        return None
    _, lo, hi = density
    s = sp.Dummy("s", positive=True)
    point = lo + s if hi == sp.oo else lo + (hi - lo) / (1 + s)
    interval = f"t > {sp.sstr(lo)}" if hi == sp.oo else f"{sp.sstr(lo)} < t < {sp.sstr(hi)}"
    return point, f"{g} ~ {family}({', '.join(map(sp.sstr, params))}), {interval}"


def _inside(lo, hi, free):
    """Every point of the support (lo, hi) as one expression in a positive dummy s (``free`` on the
    whole line): lo + s, hi − s, or lo + (hi − lo)/(1 + s) — a sign shown in s holds on the support.

        >>> _inside(sp.Integer(0), sp.oo, sp.Symbol("x")).is_positive
        True
    """
    s = sp.Dummy("s", positive=True)
    if lo == -sp.oo and hi == sp.oo:
        return free
    if hi == sp.oo:
        return lo + s
    if lo == -sp.oo:
        return hi - s
    return lo + (hi - lo) / (1 + s)
