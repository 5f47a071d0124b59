r"""Laws written as their authors write them — ``p(x)``, ``p(x, z)``, ``p(z | x)``, ``q(z)``,
``E_q[f]``, ``KL(q(z) ‖ p(z | x))`` — lowered by the rules of probability, each with its side
condition checked.

A chain declares its laws (``assume: p(x, z), q(z) laws``: p a joint law of x and z, q a law of z)
and may state that one is positive everywhere (``assume: p(x, z) > 0``). The parser
(:mod:`mathcheck.parser`) reads ``p(z | x)`` into the head ``Law:p`` applied to ``(z,)`` and ``(x,)``,
and ``E_q(f)`` into the head ``E:q``. Laws are read on finite sets (probability mass functions), as
the numeric side (:mod:`mathcheck.numeric.laws`) draws them. The rules:

* **KL**: ``KL(q(z) ‖ r(z))`` = ``E_q[log q(z) − log r(z)]``, q a declared law over exactly z and r a
  law (or conditional) of the same variables; side condition: r > 0 (else the KL may be infinite);
* **chain rule of probability / definition of the conditional**: ``p(z | x) = p(x, z)/p(x)``; side
  condition: ``p(x) > 0`` (where the conditional is defined by the joint). Bayes' rule
  ``p(z | x) = p(x | z) p(z)/p(x)`` follows from it applied to both conditionals;
* **positivity**: a law stated positive is positive; a marginal of a law positive everywhere is
  positive (``p(x) = Σ_z p(x, z) > 0``);
* **log of a product** ``log(ab) = log a + log b``, ``log(a/b) = log a − log b`` only for a, b known
  positive (SymPy's ``expand_log`` without ``force``);
* **linearity of E_q** over the terms of its argument, a factor free of q's variables taken out;
  **E_q of a term constant in q's variables** is the term (q sums to 1).

What remains is ordinary SymPy: each law's value at its variables a positive (or real) symbol, each
``E_q[g]`` left whole a real symbol named by g; a proof over these symbols holds for every law with
those values, so it is sound (a counterexample over them need not be a law: refutations come from
the numeric side).

    >>> from mathcheck.lazy import sympy as sp
    >>> from mathcheck.numeric.distributions import Facts
    >>> x, z = sp.symbols("x z", real=True)
    >>> f = Facts(laws=(("p", ("x", "z")),), positive=frozenset({("p", frozenset({"x", "z"}))}))
    >>> cond = law("p", (z,), (x,))
    >>> lower(sp.log(cond), f)[0]
    -log(p(x)) + log(p(x, z))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.distributions import Facts
from mathcheck.numeric.laws import _fname, is_law, is_law_expectation, parts


class Unsupported(Exception):
    """Outside what the rules decide, or a side condition not known (one line): inconclusive."""


def law(name: str, variables, given=()) -> sp.Expr:
    """The head ``Law:name`` at ``variables`` given ``given`` (what the parser builds for ``p(z | x)``)."""
    return sp.Function(f"Law:{name}")(sp.Tuple(*variables), sp.Tuple(*given))


def law_expectation(name: str, body) -> sp.Expr:
    """The head ``E:name`` of ``body`` (the parser's ``E_q(f)``)."""
    return sp.Function(f"E:{name}")(body)


def has_laws(*exprs) -> bool:
    """Whether an expression holds a law (``p(x)``, ``p(z | x)``) or an ``E_q``."""
    return any(
        is_law(a) or is_law_expectation(a) for e in exprs if isinstance(e, sp.Basic) for a in sp.preorder_traversal(e)
    )


def shown(x) -> str:
    """A law head as written: ``p(z | x)``."""
    name, v, g = parts(x)
    inner = ", ".join(map(str, v)) + (" | " + ", ".join(map(str, g)) if g else "")
    return f"{name}({inner})"


@dataclass
class _Lowering:
    facts: Facts
    rules: list = field(default_factory=list)
    values: dict = field(default_factory=dict)  # (name, frozenset of variable names) -> its symbol

    def note(self, rule: str) -> None:
        if rule not in self.rules:
            self.rules.append(rule)

    # --- the laws' values ------------------------------------------------------------------------

    def _over(self, name: str, variables) -> tuple:
        over = self.facts.law(name)
        if over is None:
            raise Unsupported(f"{name} is no declared law (assume: {name}(…) law)")
        names = [str(v) for v in variables]
        if not all(isinstance(v, sp.Symbol) for v in variables) or not set(names) <= set(over):
            raise Unsupported(f"{name} is a law of {', '.join(over)}; {name}({', '.join(names)}) names others")
        if len(set(names)) != len(names):
            raise Unsupported(f"{name}({', '.join(names)}) names a variable twice")
        return over

    def positive(self, name: str, variables: frozenset) -> bool:
        """Whether ``name`` at ``variables`` (a marginal when fewer than its own) is known positive."""
        for n, vs in self.facts.positive:
            if n == name and variables <= vs:
                if variables != vs:
                    self.note(f"a marginal of a positive law is positive ({name} > 0 everywhere)")
                return True
        return False

    def value(self, name: str, variables) -> sp.Expr:
        """``p(x, z)`` (or the marginal ``p(x)``) as a function of its variables, positive when known."""
        self._over(name, variables)
        names = frozenset(str(v) for v in variables)
        pos = self.positive(name, names)
        ordered = sorted(variables, key=str)
        fn = sp.Function(name, positive=True) if pos else sp.Function(name, nonnegative=True)
        return fn(*ordered)

    def conditional(self, x) -> sp.Expr:
        name, v, g = parts(x)
        if not g:
            return self.value(name, v)
        self._over(name, v + g)
        if set(map(str, v)) & set(map(str, g)):
            raise Unsupported(f"{shown(x)}: a variable on both sides of |")
        if not self.positive(name, frozenset(map(str, g))):
            raise Unsupported(
                f"{shown(x)} = {name}({', '.join(map(str, sorted(v + g, key=str)))})/{name}({', '.join(map(str, g))}) "
                f"needs {name}({', '.join(map(str, g))}) > 0; state it (assume: {name}({', '.join(map(str, g))}) > 0 "
                f"or that the joint law is positive)"
            )
        self.note("chain rule of probability: p(z | x) = p(x, z)/p(x), p(x) > 0 (the conditional defined by the joint)")
        return self.value(name, v + g) / self.value(name, g)

    # --- KL and E_q --------------------------------------------------------------------------------

    def kl(self, x) -> sp.Expr:
        if len(x.args) != 2 or not all(is_law(a) for a in x.args):
            raise Unsupported("KL between a law and one of named families is not read; write KL(q(z) ‖ p(z | x))")
        a, b = x.args
        qn, qv, qg = parts(a)
        _, bv, _ = parts(b)
        if qg or set(map(str, qv)) != set(self.facts.law(qn) or ()):
            raise Unsupported(f"KL({shown(a)} ‖ …): the first law must be a declared law over all its variables")
        if set(map(str, qv)) != set(map(str, bv)):
            raise Unsupported(f"KL({shown(a)} ‖ {shown(b)}): two laws of different variables")
        lowered_b = self.conditional(b)
        if not lowered_b.is_positive:
            raise Unsupported(
                f"KL({shown(a)} ‖ {shown(b)}) is finite only where {shown(b)} > 0 wherever {shown(a)} > 0; "
                f"state the positivity (assume: p(x, z) > 0)"
            )
        self.note("KL(q ‖ r) = E_q[log q − log r]")
        return self.expect(qn, sp.log(self.value(qn, qv)) - sp.log(lowered_b))

    def expect(self, name: str, body) -> sp.Expr:
        over = self.facts.law(name)
        if over is None:
            raise Unsupported(f"E_{name}: {name} is no declared law")
        body = sp.expand(sp.expand_log(body, force=False))
        bound = set(over)
        out = []
        terms = sp.Add.make_args(body)
        if len(terms) > 1:
            self.note(f"linearity of E_{name}")
        for t in terms:
            const, dep = [], []
            for f in sp.Mul.make_args(t):
                (dep if {str(s) for s in f.free_symbols} & bound else const).append(f)
            if any(has_laws(f) for f in dep):
                raise Unsupported(f"E_{name} of {sp.sstr(t)}: an expectation inside another is not read")
            if not dep:
                self.note(f"E_{name} of a term constant in {', '.join(over)} is the term ({name} sums to 1)")
                out.append(t)
                continue
            g = sp.Mul(*dep)
            own = self.value(name, [sp.Symbol(v, real=True) for v in over])
            for lg in g.atoms(sp.log):
                # log 0 = −∞: E_q of it is finite only where its argument is positive on q's support
                if not lg.args[0].is_positive and lg.args[0] != own:
                    raise Unsupported(
                        f"E_{name}[{sp.sstr(g)}]: {sp.sstr(lg.args[0])} may be 0 where {name} is not, and its "
                        f"log −∞; state the positivity (assume: p(x, z) > 0)"
                    )
            out.append(sp.Mul(*const) * sp.Symbol(f"E_{name}[{sp.sstr(g)}]", real=True))
        return sp.Add(*out)

    def lower(self, e) -> sp.Expr:
        e = e.replace(lambda x: _fname(x) == "KL", self.kl)
        e = e.replace(is_law, self.conditional)
        while True:  # innermost E_q first
            inner = [
                x
                for x in sp.preorder_traversal(e)
                if is_law_expectation(x) and not any(is_law_expectation(y) for y in sp.preorder_traversal(x.args[0]))
            ]
            if not inner:
                break
            e = e.xreplace({x: self.expect(_fname(x)[2:], x.args[0]) for x in inner})
        return sp.expand(sp.expand_log(e, force=False))


def lower(e: sp.Expr, facts: Facts) -> tuple[sp.Expr, list[str]]:
    """``(lowered, rules)``: ``e`` with its laws, E_q and KL rewritten by the rules above; each law's
    value left as a function of its variables (``p(x, z)``, positive when known); :class:`Unsupported`
    for a side condition not known or what the rules do not read."""
    low = _Lowering(facts)
    out = low.lower(e)
    if any(_fname(a) in ("E", "Var", "Cov") for a in sp.preorder_traversal(out)):
        raise Unsupported("E, Var, Cov of random variables beside laws are not read together")
    return out, low.rules


def symbols_for(*exprs) -> tuple:
    """The lowered sides with each law's value a symbol (``p(x, z)`` → a positive symbol when the
    function is), for the step checker, which decides over ordinary symbols."""
    apps = sorted({a for e in exprs for a in e.atoms(sp.core.function.AppliedUndef)}, key=sp.default_sort_key)
    table = {}
    for a in apps:
        kw = {"positive": True} if a.is_positive else {"nonnegative": True}
        table[a] = sp.Symbol(sp.sstr(a).replace(" ", ""), **kw)
    return tuple(e.xreplace(table) for e in exprs)


GIBBS = "Gibbs' inequality: KL(q ‖ r) ≥ 0 for laws q, r of the same variables"


def gibbs(lhs: sp.Expr, rhs: sp.Expr, facts: Facts) -> list[tuple[sp.Expr, list[str]]]:
    """The KL divergences Gibbs' inequality may close an inequality with: for each declared law q
    over all its variables V and each law r of V the link names (a conditional ``p(z | x)``, a
    marginal, another declared law), ``(KL(q ‖ r) lowered, its rules)``. An inequality ``L ≥ R`` is
    then proved when ``L − R − KL(q ‖ r) ≥ 0`` is (KL ≥ 0 since q and r each sum to 1 over V: the
    conditional's own side condition, p(x) > 0, is checked by its lowering). The conditionals of a
    joint law on another law's variables are candidates too (log p(x) ≥ ELBO closes with p(z | x))."""
    heads = {a for e in (lhs, rhs) for a in sp.preorder_traversal(e) if is_law(a)}
    for name, over in facts.laws:  # and each joint's conditionals: p(z | x) for p(x, z) and q(z)
        for _, v in facts.laws:
            rest = [n for n in over if n not in v]
            if set(v) < set(over) and rest:
                heads.add(law(name, [sp.Symbol(n, real=True) for n in v], [sp.Symbol(n, real=True) for n in rest]))
    out = []
    for q, over in facts.laws:
        v = tuple(sp.Symbol(n, real=True) for n in over)
        own = law(q, v)
        for r in sorted(heads, key=sp.default_sort_key):
            name, rv, _ = parts(r)
            if name == q or {str(a) for a in rv} != set(over):
                continue
            try:
                k, rules = lower(sp.Function("KL")(own, r), facts)
            except Unsupported:
                continue
            out.append((k, [*rules, GIBBS]))
    return out
