"""Approximate links ``a ≈ b``: a measured bound, never a proof.

``≈`` says *close*, not *equal*, so there is nothing to prove symbolically; what can be said honestly
is how far apart the two sides were at every point looked at. :func:`measure` draws seeded points
inside the stated domain (the assumptions and ``given:`` hypotheses, through the sampler every user
check shares, :func:`mathcheck.numeric.sampling.sample_points`; otherwise its bounded default, real
values with |x| ≤ 30), evaluates both sides in float64, then runs a seeded local search (coordinate
steps that shrink, kept only when the error grows and the point stays in the domain) from the worst
points found, so the reported worst is an optimiser's, not only a sample's.

* a bound stated in the link's reason, ``# within 5e-4`` (absolute) or ``# within 1e-3 relative``
  (|a − b| / max(|a|, |b|)), is checked: the largest error above it is ``refuted`` once the two
  sides are re-evaluated at 50 digits at that very point; at or below it at every point searched,
  ``holds-within`` — evidence over the points searched, not a proof;
* without a bound the link is ``inconclusive`` and the report says what bound would be needed.

Points where a side has no real value are counted (``undefined``), never silently dropped; a
measurement with no point at all is ``inconclusive`` and says so.

    >>> stated_bound("GELU's tanh form, within 5e-4"), stated_bound("within 1%")
    ((0.0005, False), (0.01, True))
"""

from __future__ import annotations

import math
import random
import re

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.sampling import sample_points, satisfies

POINTS = 200        # sampled points
STARTS = 5          # the worst points the local search starts from
STEPS = 60          # local-search steps from each start
DOMAIN = 30.0       # |x| of the default domain (the sampler's largest draws)

_BOUND = re.compile(r"\bwithin\s+([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(%|relative)?", re.I)


def stated_bound(reason: str):
    """``"GELU's tanh form, within 5e-4"`` → ``(5e-4, False)``; ``"within 1%"`` → ``(0.01, True)``;
    no bound → ``None``."""
    m = _BOUND.search(reason or "")
    if not m:
        return None
    v = float(m.group(1))
    return (v / 100, True) if m.group(2) == "%" else (v, bool(m.group(2)))


def _side(lhs, rhs):
    from mathcheck.numeric import floats
    from mathcheck.userexpr.numeric import needs_torch

    if needs_torch(lhs, rhs):
        from mathcheck.numeric import evaluate as torch_backend

        def at(point):
            f = torch_backend.evaluator(point)
            try:
                return f(lhs), f(rhs)
            except torch_backend.ERRORS:
                return None, None
        return at

    consts: dict = {}

    def at(point):
        try:
            return floats.evaluate(lhs, point, consts), floats.evaluate(rhs, point, consts)
        except floats.Undefined:
            return None, None
    return at


def _error(a: float, b: float, relative: bool) -> float:
    d = abs(a - b)
    if relative:
        scale = max(abs(a), abs(b))
        return 0.0 if d == 0 else (d / scale if scale else math.inf)
    return d


def _step(point: dict, rng: random.Random, size: float) -> dict:
    """A neighbour of ``point``: one real scalar moved by up to ``size``, keeping its sign assumption."""
    movable = [s for s, v in point.items() if isinstance(s, sp.Symbol) and isinstance(v, float)]
    if not movable:
        return point
    s = movable[rng.randrange(len(movable))]
    v = point[s] + rng.uniform(-size, size) * max(1.0, abs(point[s]))
    if s.is_positive or s.is_nonnegative:
        v = abs(v) or 1e-9
    elif s.is_negative:
        v = -abs(v) or -1e-9
    v = max(-DOMAIN, min(DOMAIN, v))
    out = dict(point)
    out[s] = v
    return out


def measure(lhs, rhs, seed: int = 0, given=(), bound=None) -> dict:
    """The largest error between ``lhs`` and ``rhs`` over the domain, and the verdict against ``bound``
    (``(value, relative)`` from :func:`stated_bound`, or None). Never raises on the user's account."""
    from mathcheck.numeric.precise import hp_value, report_point, shown

    given = tuple(given)
    at = _side(lhs, rhs)
    relative = bool(bound and bound[1])
    pts = sample_points((lhs, rhs), seed, POINTS, given)
    scored, undefined = [], 0
    for p in pts:
        a, b = at(p)
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            undefined += 1
            continue
        scored.append((_error(a, b, relative), p, a, b))
    out = {"points": len(scored), "undefined": undefined, "bound": None if bound is None else bound[0],
           "relative": relative, "max_error": None, "where": None, "values": None}
    if not scored:
        out.update(status="inconclusive", how=f"0 points: no point of the domain gave both sides a real value "
                   f"({len(pts)} drawn, {undefined} undefined)")
        return out
    rng = random.Random(seed + 7919)
    searched = 0
    best = sorted(scored, key=lambda t: -t[0])[:STARTS]
    for err, p, a, b in list(best):
        size = 0.5
        for _ in range(STEPS):
            q = _step(p, rng, size)
            searched += 1
            if given and not satisfies(given, q):
                size *= 0.7
                continue
            qa, qb = at(q)
            if qa is None or qb is None or not (math.isfinite(qa) and math.isfinite(qb)):
                undefined += 1
                size *= 0.7
                continue
            e = _error(qa, qb, relative)
            if e > err:
                err, p, a, b = e, q, qa, qb
            else:
                size = max(size * 0.8, 1e-6)
        scored.append((err, p, a, b))
    worst, p, a, b = max(scored, key=lambda t: t[0])
    where = report_point(p, (lhs, rhs))
    out.update(points=len(scored) - len(best) + searched, undefined=undefined, max_error=worst, where=where,
               values={"lhs": a, "rhs": b})
    kind = "relative error" if relative else "|lhs − rhs|"
    at_text = ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}" for k, v in where.items()) or "every point"
    found = f"largest {kind} {worst:.3g} at {at_text} ({out['points']} points, {undefined} undefined)"
    if bound is None:
        out.update(status="inconclusive", how=f"{found}; state a bound to check, e.g. '# within {_round_up(worst)}'")
        return out
    if worst <= bound[0]:
        out.update(status="holds-within", how=f"{found} ≤ {bound[0]:g} at every point searched (evidence, not proof)")
        return out
    try:  # the same point at 50 digits: a float64 artefact must not refute
        L, R = hp_value(lhs, p), hp_value(rhs, p)
        d = abs(L - R)
        if relative:
            d = d / max(abs(L), abs(R))
        confirmed = bool(d > bound[0])
        out["values"] = {"lhs": shown(L), "rhs": shown(R)}
    except Exception:  # noqa: BLE001 - an expression mpmath cannot evaluate: no confirmation
        confirmed = False
    if confirmed:
        out.update(status="refuted", how=f"{found} > {bound[0]:g}, confirmed at 50 digits")
    else:
        out.update(status="inconclusive", how=f"{found} > {bound[0]:g} in float64 but not confirmed at 50 digits")
    return out


def _round_up(x: float) -> str:
    """A short bound above ``x``: 4.7e-4 → '5e-4'."""
    if x <= 0:
        return "1e-12"
    e = math.floor(math.log10(x))
    m = math.ceil(x / 10 ** e * (1 + 1e-12))
    if m >= 10:
        m, e = 1, e + 1
    return f"{m}e{e}"
