r"""Monte Carlo for the expectations a Gauss rule cannot give exactly: ``E|X|``, ``E[e^X]`` over a
continuous law (:mod:`mathcheck.numeric.distributions` leaves them to this module).

At one drawn instance (the parameters numbers), the link's difference ``lhs − rhs`` is written with
each such expectation a placeholder ``M_k = E[g_k(X)]`` (:func:`deferred`). When the difference is
affine in them, ``Σ_k c_k M_k + r``, with every ``g_k`` a function of one and the same variable X of a
named continuous law, the link says ``E[Y] = −r`` for ``Y = Σ_k c_k g_k(X)`` — one mean, tested by
streaming ``n`` draws of X (:func:`mathcheck.numeric.stats.stream_moments`: chunks of
:data:`CHUNK` draws, memory bounded by the chunk) with the statistic

.. math:: |z| = \frac{|\bar Y + r|}{s/\sqrt n} > z_{1-\alpha/(2m)},

``m`` the tests run for the link (one per drawn instance, Bonferroni), so the link's false-alarm
rate is at most :data:`mathcheck.numeric.stats.FAMILY_ALPHA` = 1e-6 (to the accuracy of the normal
approximation of the mean: an instance where Y's sample kurtosis exceeds :data:`KURTOSIS_MAX` —
E[e^X] at a large σ, whose lognormal tail the normal approximation misjudges — is skipped, not
judged; a pilot of :data:`PILOT` draws spares the full run there). The **smallest detectable error** —
rejected with power 1 − :data:`mathcheck.numeric.stats.BETA` — is
``(z_{1−α/(2m)} + z_{1−β}) s/√n``; both are reported.

Seeded (``seed``, the instance), so the same seed gives the same verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.distributions import Facts, Instance, NotExact, _basic, _numeric_params, _subs, _valid, head

FAMILY_ALPHA = 1e-6  # the link's false-alarm rate: numeric/stats.py's FAMILY_ALPHA (checked by a test)
DRAWS = 1 << 20  # draws of X per test
CHUNK = 1 << 18  # draws per chunk: 2 MiB of float64
TESTS = 6  # drawn instances tested per link (Bonferroni over these)
PILOT = 1 << 14  # draws that first gauge Y's tails
KURTOSIS_MAX = 50.0  # beyond it the normal approximation of the mean at DRAWS draws is not trusted


class Heavy(NotExact):
    """Y too heavy-tailed at this instance for the normal approximation (E[e^X] at a large σ): the
    instance is skipped, never judged."""


@dataclass(frozen=True)
class MeanTest:
    estimate: float  # the mean of Y
    target: float  # −r
    z: float
    critical: float
    detectable: float  # the smallest error rejected with power 1 − β
    n: int
    tests: int

    @property
    def rejected(self) -> bool:
        return not math.isfinite(self.z) or abs(self.z) > self.critical

    def words(self) -> str:
        """The test's figures, as ``-v`` prints them."""
        return (
            f"Monte Carlo, {self.n} draws per test, {self.tests} tests: false-alarm rate ≤ {FAMILY_ALPHA:g} "
            f"(|z| > {self.critical:.2f}), smallest detectable error {self.detectable:.2g}"
        )


def deferred(e, inst: Instance) -> tuple[sp.Expr, dict]:
    """``e`` at the instance by definition, with each ``E[g]`` whose g is not a polynomial in a
    continuous law's stand-in left as a placeholder: ``(value, {placeholder: g})``; NotExact for a
    Var or Cov of such a g (not affine in a mean)."""
    from mathcheck.numeric.distributions import _operator

    held: dict = {}
    e = _subs(e, inst.values)
    e = _subs(e.doit(), inst.values) if e.has(sp.Sum, sp.Product) else e
    while True:
        inner = [
            x
            for x in sp.preorder_traversal(e)
            if head(x) and not any(head(y) for y in sp.preorder_traversal(x) if y is not x)
        ]
        if not inner:
            return e, held
        rep = {}
        for x in inner:
            g = _basic(x.args[0])
            stand_ins = [a for a in g.atoms(sp.Symbol, sp.Indexed) if a in inst.continuous]
            if head(x) == "E" and stand_ins and not g.is_polynomial(*stand_ins):
                m = sp.Dummy(f"M{len(held)}")
                held[m] = g
                rep[x] = m
            else:
                rep[x] = _operator(x, inst)
        e = e.xreplace(rep)


def _law(atom, facts: Facts, inst: Instance) -> tuple[str, tuple]:
    name = str(atom.base) if isinstance(atom, sp.Indexed) else str(atom)
    family, params = facts.distributions[name]
    num = tuple(float(sp.N(p, 20)) for p in _numeric_params(params, inst.values))
    if not _valid(family, num):
        raise NotExact(f"{family}{num}: outside its family's domain")
    return family, num


def _sampler(family: str, params: tuple):
    """``draw(generator, size)`` of the law, in float64 (torch)."""
    import torch

    def draw(g, size):
        u = torch.rand(size, generator=g, dtype=torch.float64)
        if family == "Normal":
            mu, v = params
            return mu + math.sqrt(v) * torch.randn(size, generator=g, dtype=torch.float64)
        if family == "Uniform":
            a, b = params
            return a + (b - a) * u
        if family == "Exponential":
            (lam,) = params
            return -torch.log1p(-u) / lam
        if family == "Laplace":
            mu, b = params
            w = u - 0.5
            return mu - b * torch.sign(w) * torch.log1p(-2 * w.abs())
        raise NotExact(f"no sampler for {family}")

    return draw


def mean_test(lhs, rhs, relation: str, inst: Instance, facts: Facts, seed: int, tests: int) -> MeanTest:
    """The link at one instance as the test of one mean (module docstring); NotExact where it is
    not one (not affine in the expectations, several variables, an inequality)."""
    import torch

    from mathcheck.numeric import stats
    from mathcheck.numeric.evaluate import evaluate

    if relation not in ("=", "=="):
        raise NotExact("Monte Carlo decides an equality here, not an inequality")
    a, held_a = deferred(lhs, inst)
    b, held_b = deferred(rhs, inst)
    held = {**held_a, **held_b}
    d = sp.expand(a - b)
    ms = list(held)
    coeffs = [sp.diff(d, m) for m in ms]
    rest = sp.expand(d - sum(c * m for c, m in zip(coeffs, ms)))
    if any(c.has(*ms) for c in coeffs) or rest.has(*ms):
        raise NotExact("the link is not affine in the expectations Monte Carlo would estimate")
    if not all(c.is_number for c in coeffs) or not rest.is_number:
        raise NotExact("a coefficient of an estimated expectation is not a number here")
    atoms = {x for m in ms for x in held[m].atoms(sp.Symbol, sp.Indexed) if x in inst.continuous}
    if len(atoms) != 1:
        raise NotExact("Monte Carlo here estimates expectations of one variable at a time")
    (atom,) = atoms
    if any(x in inst.continuous or str(x) in facts.names() for m in ms for x in held[m].free_symbols - {atom}):
        raise NotExact("Monte Carlo here estimates expectations of one variable at a time")
    family, params = _law(atom, facts, inst)
    t = sp.Symbol("t_mc", real=True)
    y = sum(float(c) * held[m].xreplace({atom: t}) for c, m in zip(coeffs, ms))
    target = -float(rest)
    law = _sampler(family, params)

    def draw(g, size):
        x = law(g, size)
        return torch.as_tensor(evaluate(y, {t: x}), dtype=torch.float64).expand(size)

    for n in (PILOT, DRAWS):  # the pilot spares a full run at an instance the guard would skip
        m = stats.stream_moments(draw, n, min(CHUNK, n), seed + (n == PILOT))
        if not math.isfinite(m.mean) or not math.isfinite(m.var) or m.var > 0 and not m.kurtosis <= KURTOSIS_MAX:
            raise Heavy(
                f"Y = {sp.sstr(y.xreplace({t: atom}))} under {family}{params}: sample kurtosis "
                f"{m.kurtosis:.3g} > {KURTOSIS_MAX:g}, too heavy-tailed to trust the normal approximation"
            )
    se = math.sqrt(max(m.var, 0.0) / m.n)
    critical = stats.z_critical(FAMILY_ALPHA, tests)
    if se > 0:
        z = (m.mean - target) / se
    else:  # Y constant: its value is known to rounding
        z = 0.0 if abs(m.mean - target) <= 1e-12 * max(1.0, abs(target)) else math.inf
    detectable = (critical + NormalDist().inv_cdf(1 - stats.BETA)) * se
    return MeanTest(m.mean, target, z, critical, detectable, m.n, tests)
