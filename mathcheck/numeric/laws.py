r"""Declared laws (``p(x, z)``, ``q(z)``; :mod:`mathcheck.symbolic.laws`) drawn as random finite laws
and a statement about them evaluated *by definition*, without the rules.

Each variable a law is over gets a small finite support ({1, 2} or {1, 2, 3}); each law is a table
of rational weights over the product of its variables' supports, summing to 1 (positive everywhere
when the chain states it positive, else with some zero weights in about half the draws). Then

* ``p(x)`` at x is the marginal Σ_z p(x, z); ``p(z | x)`` is p(x, z)/p(x), undefined where p(x) = 0;
* ``E_q[f]`` is Σ_{z: q(z) > 0} q(z) f(z) (f is not evaluated off q's support);
* ``KL(q(z) ‖ r(z))`` is Σ_{z: q(z) > 0} q(z) (log q(z) − log r(z)), infinite (the draw is missed)
  where r(z) = 0 < q(z).

A statement is evaluated at every value of the law variables free in it (x, and z outside an
``E_q``), the logs at :data:`mathcheck.numeric.PRECISION_DIGITS` digits; the laws are rational, so
the only error is the logs' rounding, far below :data:`mathcheck.numeric.tolerance.HP_REL`. A
disagreement is a counterexample, printed as the laws' tables.

    >>> from mathcheck.lazy import sympy as sp
    >>> from mathcheck.numeric.distributions import Facts
    >>> from mathcheck.symbolic.laws import law
    >>> f = Facts(laws=(("p", ("x", "z")),))
    >>> inst = draw(f, seed=0, trial=0)
    >>> sorted(inst.tables)
    ['p']
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.distributions import Facts


def _fname(x) -> str:
    return x.func.__name__ if isinstance(x, sp.core.function.AppliedUndef) else ""


def is_law(x) -> bool:
    """A law head ``Law:p`` (the parser's ``p(z | x)``)."""
    return _fname(x).startswith("Law:")


def is_law_expectation(x) -> bool:
    """An ``E:q`` head (the parser's ``E_q(f)``)."""
    return _fname(x).startswith("E:")


def parts(x) -> tuple[str, tuple, tuple]:
    """``(name, variables, given)`` of a law head."""
    return _fname(x)[4:], tuple(x.args[0]), tuple(x.args[1])


class Undefined(ValueError):
    """A value the definitions leave undefined at this draw (a conditional on a null event, an
    infinite KL): the draw is missed, never a verdict."""


@dataclass
class Draw:
    supports: dict  # variable name -> list of its values
    tables: dict  # law name -> ((variable, ...), {values tuple: Rational})

    def mass(self, name: str, at: dict) -> sp.Rational:
        """The law ``name`` at the values ``at`` of some of its variables: summed over the others."""
        over, table = self.tables[name]
        return sum(
            (w for key, w in table.items() if all(at[v] == key[k] for k, v in enumerate(over) if v in at)),
            sp.Integer(0),
        )

    def shown(self) -> dict:
        """The laws as tables: ``{"p(x, z)": "1/6 at (1, 1), …"}``."""
        out = {}
        for name, (over, table) in sorted(self.tables.items()):
            cells = ", ".join(f"{sp.sstr(w)} at ({', '.join(map(str, key))})" for key, w in sorted(table.items()))
            out[f"{name}({', '.join(over)})"] = cells
        return out


def draw(facts: Facts, seed: int, trial: int) -> Draw:
    """Random finite laws for ``facts.laws`` (the same seed and trial give the same laws)."""
    r = random.Random(f"laws:{seed}:{trial}")
    variables = sorted({v for _, over in facts.laws for v in over})
    supports = {v: list(range(1, r.randint(2, 3) + 1)) for v in variables}
    zeros = r.random() < 0.5
    tables = {}
    for name, over in facts.laws:
        keys = list(itertools.product(*[supports[v] for v in over]))
        positive = any(n == name for n, _ in facts.positive)  # p(x) > 0 alone: drawn positive, then checked
        while True:
            ws = [r.randint(0 if zeros and not positive else 1, 6) for _ in keys]
            if sum(ws):
                break
        tables[name] = (tuple(over), {k: sp.Rational(w, sum(ws)) for k, w in zip(keys, ws)})
    return Draw(supports, tables)


def honours(d: Draw, facts: Facts) -> bool:
    """Whether the drawn laws are positive where the facts say (a marginal ``p(x) > 0``)."""
    for name, variables in facts.positive:
        over = d.tables[name][0]
        vs = [v for v in over if v in variables]
        for values in itertools.product(*[d.supports[v] for v in vs]):
            if d.mass(name, dict(zip(vs, values))) <= 0:
                return False
    return True


def free_variables(e, facts: Facts) -> list[str]:
    """The law variables free in ``e`` (an ``E_q`` binds q's variables in its argument)."""
    names = {v for _, over in facts.laws for v in over}
    out: set = set()

    def walk(x, bound):
        if is_law_expectation(x):
            walk(x.args[0], bound | set(facts.law(_fname(x)[2:]) or ()))
            return
        if _fname(x) == "KL" and x.args and is_law(x.args[0]):  # KL(q(z) ‖ p(z | x)) sums over z
            inner = bound | {str(a) for a in parts(x.args[0])[1]}
            for a in x.args:
                walk(a, inner)
            return
        if is_law(x):
            _, v, g = parts(x)
            out.update(str(a) for a in v + g if str(a) not in bound)
            return
        if isinstance(x, sp.Symbol) and str(x) in names and str(x) not in bound:
            out.add(str(x))
        for a in x.args:
            walk(a, bound)

    walk(e, set())
    return sorted(out)


def value(e, d: Draw, facts: Facts, at: dict) -> sp.Expr:
    """``e`` at the drawn laws and the values ``at`` of the law variables, by definition (an exact
    SymPy number, logs unevaluated); :class:`Undefined` where the definitions give no value."""
    if is_law(e):
        name, v, g = parts(e)
        joint = d.mass(name, {str(a): at[str(a)] for a in v + g})
        if not g:
            return joint
        marg = d.mass(name, {str(a): at[str(a)] for a in g})
        if marg == 0:
            raise Undefined(f"{name}({', '.join(map(str, g))}) = 0: the conditional is undefined")
        return joint / marg
    if is_law_expectation(e):
        name = _fname(e)[2:]
        over, table = d.tables[name]
        total = sp.Integer(0)
        for key, w in table.items():
            if w:
                total += w * value(e.args[0], d, facts, {**at, **dict(zip(over, key))})
        return total
    if _fname(e) == "KL":
        a, b = e.args
        name, v, _ = parts(a)
        total = sp.Integer(0)
        for values in itertools.product(*[d.supports[str(x)] for x in v]):
            here = {**at, **{str(x): c for x, c in zip(v, values)}}
            pa = value(a, d, facts, here)
            if pa == 0:
                continue
            pb = value(b, d, facts, here)
            if pb == 0:
                raise Undefined("the KL is infinite: the second law is 0 where the first is not")
            total += pa * (sp.log(pa) - sp.log(pb))
        return total
    if isinstance(e, sp.Symbol) and str(e) in at:
        return sp.Integer(at[str(e)])
    if not e.args:
        return e
    out = e.func(*[value(a, d, facts, at) for a in e.args])
    if out.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise Undefined(f"{sp.sstr(e)} has no finite value here")
    return out


def points(d: Draw, names) -> list[dict]:
    """Every assignment of the named law variables over their drawn supports."""
    return [dict(zip(names, vs)) for vs in itertools.product(*[d.supports[n] for n in names])]
