"""The float64 side of the user pipeline (its numeric side): both sides at seeded points, in float64, with
the cheapest evaluator that can.

* no ``diff`` anywhere: :mod:`mathcheck.numeric.floats` (Python's ``math``, IEEE float64), so a
  scalar identity is checked without importing torch;
* a ``diff``: :mod:`mathcheck.numeric.evaluate` (torch float64, the derivative by autograd of the
  evaluated function, independent of SymPy's ``diff``).

A point where a side is undefined (NaN, ±inf, complex, a pole) is skipped and counted; for an
order relation the first few such points are re-evaluated at 50 digits, and a side that is not real
there refutes it (order relations are about real numbers, docs/soundness.md). A
disagreement beyond ``SCREEN_ATOL + SCREEN_RTOL·max(|lhs|, |rhs|)`` (:mod:`mathcheck.numeric.tolerance`) (for ``<=``/``<``/``>=``/``>``: the relation
failing by more than that) becomes a counterexample only once
:func:`mathcheck.numeric.precise.hp_violates` confirms it at 50 digits at the very same point.
The result names the evaluator that ran (``"evaluator"``).
"""

from __future__ import annotations

import math

from mathcheck.lazy import sympy as sp
from mathcheck.numeric import floats
from mathcheck.numeric import PRECISION_DIGITS
from mathcheck.numeric.precise import hp_violates, report_point, shown, take_derivatives
from mathcheck.numeric.sampling import sample_points
from mathcheck.numeric.tolerance import SCREEN_ATOL, SCREEN_RTOL

POINTS = 24  # numeric sample points
NONREAL_TRIES = 3  # points without a real float64 value re-evaluated at 50 digits (order relations)
EVALUATORS = ("auto", "float64", "torch")


def needs_torch(*exprs) -> bool:
    """Whether an expression needs autograd (a ``diff``): only then is torch imported."""
    return any(isinstance(e, sp.Basic) and e.has(sp.Derivative) for e in exprs)


def _float_side(constants: dict):
    def at(point: dict):
        def value(e):
            try:
                return floats.evaluate(e, point, constants)
            except floats.IntegralUndefined:
                raise  # not a point to skip: the link is not proved (numeric() says why)
            except floats.Undefined:
                return None

        return value

    return at


def _failure(a: float, b: float, relation: str) -> float:
    """How much ``a REL b`` fails by in float64 (≤ 0: it holds)."""
    if relation == "=":
        return abs(a - b)
    return a - b if relation in ("<=", "<") else b - a


def _confirm(lhs, rhs, relation: str, point: dict):
    """The 50-digit re-evaluation at the very point (None: it cannot be done). A derivative by an
    entry ``x[j]`` is taken by SymPy first (mpmath differentiates by plain symbols only)."""
    errors = (ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError)
    try:
        out = hp_violates(lhs, rhs, relation, point)
    except errors:
        out = None
    if out is None and any(
        isinstance(v, sp.Indexed) for e in (lhs, rhs) for d in e.atoms(sp.Derivative) for v in d.variables
    ):
        try:
            out = hp_violates(take_derivatives(lhs).doit(), take_derivatives(rhs).doit(), relation, point)
        except errors:
            out = None
    return out


def numeric(
    lhs, rhs, relation: str = "=", seed: int = 0, count: int = POINTS, given=(), evaluator: str = "auto"
) -> dict:
    """Both sides at ``count`` seeded points (satisfying ``given``); a confirmed failure refutes."""
    use_torch = evaluator == "torch" or (evaluator == "auto" and needs_torch(lhs, rhs))
    if use_torch:
        from mathcheck.numeric import evaluate as torch_backend  # torch, only now

        name, by_torch, errors_caught = torch_backend.NAME, torch_backend.evaluator, torch_backend.ERRORS
        errors_caught = (*errors_caught, floats.Undefined)
        if evaluator == "auto":  # a side without diff in float64 (a limit is approached there, not by torch)

            def side(point, by_float=_float_side({})):
                t, f = by_torch(point), by_float(point)
                return lambda e: t(e) if needs_torch(e) else f(e)

        else:
            side = by_torch
    else:
        name, side, errors_caught = floats.NAME, _float_side({}), (floats.Undefined,)
    points = sample_points((lhs, rhs), seed, count, given)
    used = skipped = unconfirmed = unknown = 0
    worst = 0.0
    errors = set()
    nonreal_tries = 0
    no_integral = []  # points where a definite integral diverges or quadrature cannot resolve it
    for point in points:
        at = side(point)
        try:
            a, b = at(lhs), at(rhs)
        except errors_caught as exc:
            errors.add(str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__)
            if isinstance(exc, floats.IntegralUndefined):
                no_integral.append((point, str(exc)))
            a = b = None
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            skipped += 1
            # an order relation is about real numbers: a side with no real value here makes it
            # false, once 50 digits say the value exists and is not real (a pole stays skipped);
            # a few such points suffice, the rest are counted
            if relation != "=" and nonreal_tries < NONREAL_TRIES:
                nonreal_tries += 1
                confirmed = _confirm(lhs, rhs, relation, point)
                if confirmed is not None and confirmed[0]:
                    return {
                        "status": "refuted",
                        "points": used,
                        "skipped": skipped,
                        "max_abs_err": None,
                        "evaluator": name,
                        "reference": f"{name}, confirmed at {PRECISION_DIGITS} digits",
                        "counterexample": report_point(point, (lhs, rhs)),
                        "values": {"lhs": shown(confirmed[1]), "rhs": shown(confirmed[2])},
                        "note": "a side is not real at this point: an order relation fails there",
                    }
            continue
        used += 1
        fails_by = _failure(a, b, relation)
        worst = max(worst, fails_by)
        if fails_by > SCREEN_ATOL + SCREEN_RTOL * max(abs(a), abs(b)):
            confirmed = _confirm(lhs, rhs, relation, point)
            if confirmed is None:
                unknown += 1
            if confirmed is not None and confirmed[0]:
                return {
                    "status": "refuted",
                    "points": used,
                    "skipped": skipped,
                    "max_abs_err": worst,
                    "evaluator": name,
                    "reference": f"{name}, confirmed at {PRECISION_DIGITS} digits",
                    "counterexample": report_point(point, (lhs, rhs)),
                    "values": {
                        "lhs": shown(confirmed[1]),
                        "rhs": shown(confirmed[2]),
                        "lhs_float64": a,
                        "rhs_float64": b,
                    },
                }
            unconfirmed += 1
    out = {
        "status": "passed" if used and not unknown else "inconclusive",
        "points": used,
        "skipped": skipped,
        "max_abs_err": worst if used else None,
        "unconfirmed": unconfirmed,
        "evaluator": name,
        "reference": name,
    }
    if given and len(points) < count:
        out["note"] = f"{len(points)} of {count} points satisfied the hypotheses"
    if errors and not used:
        out["note"] = "; ".join(sorted(errors))[:300]
    if unknown:  # a disagreement that could not be re-evaluated is neither a pass nor a refutation
        out["note"] = (
            f"float64 disagrees at {unknown} of {used} points and the 50-digit evaluation could not decide them"
        )
    if no_integral:  # an integral without a value is never equal (or ordered) to anything: not proved
        point, why = no_integral[0]
        where = ", ".join(
            f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in report_point(point, (lhs, rhs)).items()
        )
        out["status"] = "inconclusive"
        out["note"] = (
            f"{'a limit' if why.startswith('lim ') else 'an integral'} has no value at {len(no_integral)} of {len(points)} points"
            + (f" (e.g. {where})" if where else "")
            + f": {why}"
        )[:400]
        return out
    if not used:  # say so: a check with no point checked nothing
        why = out.get("note") or ("no point satisfied the hypotheses" if given else "no point drawn")
        out["note"] = f"0 points: {why}" if points or given else why
        if skipped:
            out["note"] = f"0 points: a side has no real value at all {skipped} points drawn ({why})"[:300]
    return out
