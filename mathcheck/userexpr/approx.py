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

    >>> tuple(stated_bound("GELU's tanh form, within 5e-4")), tuple(stated_bound("within 1%"))
    ((0.0005, False), (0.01, True))
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from mathcheck.lazy import sympy as sp
from mathcheck.numeric.sampling import sample_points, satisfies

POINTS = 200  # sampled points
STARTS = 5  # the worst points the local search starts from
STEPS = 60  # local-search steps from each start
DOMAIN = 30.0  # |x| of the default domain (the sampler's largest draws)

_WITHIN = re.compile(r"\bwithin\b", re.I)
_WORDS = re.compile(r"[A-Za-z]+")
_TAIL = re.compile(r"\s*(%|\brelative\b)\s*$", re.I)


class BoundError(ValueError):
    """A bound that is not a positive finite number of the grammar; ``str()`` is the one line."""


@dataclass(frozen=True)
class Bound:
    """``# within 1/1000`` as read: the text, its exact value, and whether it is relative.

    ``value`` is the float the float64 search compares with; ``exact`` (a SymPy number) is what a
    50-digit confirmation compares with, so ``1/1000`` is not ``0.001000000000000000020816…``."""

    text: str
    exact: object
    relative: bool

    @property
    def value(self) -> float:
        return float(self.exact)

    def __iter__(self):  # (value, relative), the shape measure() and the triangle sum take
        return iter((self.value, self.relative))

    def __eq__(self, other):
        return tuple(self) == tuple(other) if isinstance(other, (tuple, Bound)) else NotImplemented

    __hash__ = None

    def shown(self) -> str:
        kind = "relative" if self.relative else "absolute"
        return f"within {self.text} = {self.value:g} ({kind})"


def read_bound(reason: str) -> Bound | None:
    """The bound an ``≈`` link's reason states, or None when it states none.

    ``within EXPR``, then optionally ``%`` or ``relative``, up to the end of the reason or a ``,`` /
    ``;``. EXPR is a formula of the whitelist grammar with no variable (``1/1000``, ``2^-10``,
    ``1e-3``, ``5e−4`` with a Unicode minus, ``10**(-3)``), evaluated exactly; anything else, or a
    word spelled almost ``within`` (``witin``), is :class:`BoundError` — never a prefix of a number.

        >>> read_bound("GELU's tanh form, within 5e-4").shown()
        'within 5e-4 = 0.0005 (absolute)'
        >>> read_bound("within 2^-10 relative").exact
        1/1024
    """
    from mathcheck.parser import ParseError, normalise, parse

    reason = normalise(reason or "")
    m = _WITHIN.search(reason)
    if not m:
        for w in _WORDS.findall(reason):
            if w.lower() != "within" and _near(w.lower(), "within"):
                raise BoundError(
                    f"{w!r} in the reason {reason!r} looks like a misspelled 'within'; "
                    f"write the bound as '# within 1e-3' (or '# within 1e-3 relative', '# within 1%')"
                )
        return None
    rest, *after = re.split(r"[,;]", reason[m.end() :], maxsplit=1)
    if after and re.match(r"\s*[0-9.]", after[0]):  # 'within 1,000': a number does not stop at a comma
        raise BoundError(
            f"the bound after 'within' in {reason!r} runs on past a ',' or ';'; write one number, "
            f"e.g. '# within 1/1000', '# within 2^-10', '# within 1e-3 relative' or '# within 1%'"
        )
    tail = _TAIL.search(rest)
    text = (rest[: tail.start()] if tail else rest).strip()
    how = "e.g. '# within 1/1000', '# within 2^-10', '# within 1e-3 relative' or '# within 1%'"
    if not text:
        raise BoundError(f"'within' in the reason {reason!r} has no bound after it; write {how}")
    try:
        v = parse(text, {})
    except ParseError as exc:
        raise BoundError(
            f"the bound {text!r} after 'within' is not a number of the grammar ({exc}); write {how}"
        ) from None
    if v.free_symbols or not v.is_number:
        raise BoundError(f"the bound {text!r} after 'within' names a variable; a bound is a number, {how}")
    v = sp.nsimplify(v) if v.is_Float else v
    if v.is_real is not True or v.is_finite is not True or v.is_positive is not True:
        raise BoundError(f"the bound {text!r} after 'within' is not a positive finite number; write {how}")
    relative = bool(tail)
    if tail and tail.group(1) == "%":
        v = v / 100
    return Bound(text + ("%" if tail and tail.group(1) == "%" else ""), v, relative)


def _near(word: str, target: str) -> bool:
    """One edit (insert, delete, replace or swap two neighbours) or two away from ``target``, and
    as long give or take two: ``witin``, ``wihtin``, ``whithin``."""
    import difflib

    return abs(len(word) - len(target)) <= 2 and difflib.SequenceMatcher(None, word, target).ratio() >= 0.8


def stated_bound(reason: str) -> Bound | None:
    """``(value, relative)`` of :func:`read_bound` (a :class:`Bound`, which unpacks so), or None.

    >>> stated_bound("GELU's tanh form, within 5e-4") == (5e-4, False), stated_bound("within 1%") == (0.01, True)
    (True, True)
    """
    return read_bound(reason)


def _side(lhs, rhs):
    from mathcheck.numeric import floats
    from mathcheck.userexpr.float_side import needs_torch

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
        except floats.IntegralUndefined:
            raise  # not a point to skip: measure() says why the link holds within nothing
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

    from mathcheck.numeric import floats

    given = tuple(given)
    raw, no_value = _side(lhs, rhs), []

    def at(point):  # an integral without a value (it diverges there) is no error to measure
        try:
            return raw(point)
        except floats.IntegralUndefined as exc:
            no_value.append(str(exc))
            return None, None

    if bound is not None and not isinstance(bound, Bound):  # (value, relative): the float exactly
        bound = Bound(repr(float(bound[0])), sp.Rational(float(bound[0])), bool(bound[1]))
    relative = bool(bound and bound.relative)
    pts = sample_points((lhs, rhs), seed, POINTS, given)
    scored, undefined = [], 0
    for p in pts:
        a, b = at(p)
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            undefined += 1
            continue
        scored.append((_error(a, b, relative), p, a, b))
    out = {
        "points": len(scored),
        "undefined": undefined,
        "bound": None if bound is None else bound.value,
        "relative": relative,
        "max_error": None,
        "where": None,
        "values": None,
    }
    if not scored and no_value:
        out.update(
            status="inconclusive", how=f"an integral has no value at {len(no_value)} points: {no_value[0]}"[:400]
        )
        return out
    if not scored:
        out.update(
            status="inconclusive",
            how=f"0 points: no point of the domain gave both sides a real value "
            f"({len(pts)} drawn, {undefined} undefined)",
        )
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
    if no_value:
        out.update(
            status="inconclusive",
            how=f"an integral has no value at {len(no_value)} points searched: {no_value[0]}"[:400],
        )
        return out
    worst, p, a, b = max(scored, key=lambda t: t[0])
    where = report_point(p, (lhs, rhs))
    out.update(
        points=len(scored) - len(best) + searched,
        undefined=undefined,
        max_error=worst,
        where=where,
        values={"lhs": a, "rhs": b},
    )
    kind = "relative error" if relative else "|lhs − rhs|"
    at_text = (
        ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}" for k, v in where.items()) or "every point"
    )
    found = f"largest {kind} {worst:.3g} at {at_text} ({out['points']} points, {undefined} undefined)"
    if bound is None:
        out.update(status="inconclusive", how=f"{found}; state a bound to check, e.g. '# within {_round_up(worst)}'")
        return out
    if worst <= bound.value:
        out.update(
            status="holds-within", how=f"{found} ≤ {bound.value:g} at every point searched (evidence, not proof)"
        )
        return out
    try:  # the same point at 50 digits: a float64 artefact must not refute
        L, R = hp_value(lhs, p), hp_value(rhs, p)
        d = abs(L - R)
        if relative:
            d = d / max(abs(L), abs(R))
        confirmed = bool(d > bound.exact)  # exactly: 1/1000, not the float nearest it
        out["values"] = {"lhs": shown(L), "rhs": shown(R)}
    except Exception:  # noqa: BLE001 - an expression mpmath cannot evaluate: no confirmation
        confirmed = False
    if confirmed:
        out.update(status="refuted", how=f"{found} > {bound.value:g}, confirmed at 50 digits")
    else:
        out.update(status="inconclusive", how=f"{found} > {bound.value:g} in float64 but not confirmed at 50 digits")
    return out


def _round_up(x: float) -> str:
    """A short bound above ``x``: 4.7e-4 → '5e-4'."""
    if x <= 0:
        return "1e-12"
    e = math.floor(math.log10(x))
    m = math.ceil(x / 10**e * (1 + 1e-12))
    if m >= 10:
        m, e = 1, e + 1
    return f"{m}e{e}"
