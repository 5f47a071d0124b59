"""Generic numeric checks: a statement checked by evaluating both of its sides with torch.

Two users:

* :func:`numeric_relation` — the numeric side of a user's relation ``lhs REL rhs`` (``mathcheck
  derive``'s links and chains): seeded points that respect the assumptions, points that violate a
  hypothesis (``given:``) rejected, ``diff`` by autograd, a float64 disagreement confirmed at 50
  digits before it counts;
* :func:`check` — the numeric check of a registered claim that names no ``check=``: every part's
  both sides at several concrete sizes (n ∈ {1, 2, 3, 8, 33} for each symbolic dimension), on seeded
  values that respect the symbols' assumptions and the part's hypotheses, optionally against a
  PyTorch reference the claim supplies (``@claim(reference=...)``, see :func:`check`).

Agreement is evidence, never a proof: a claim is ``proved`` only if its steps are shown too.
"""

from __future__ import annotations

import inspect
import math
import operator
import time

import sympy as sp
import torch

from mathcheck.verify.evaluate import EvaluationError, Indexed

DT = torch.float64
SIZES = (1, 2, 3, 8, 33)      # the concrete values of each symbolic dimension
POINTS_PER_SIZE = 4           # seeded draws of the other variables per size
ATOL, RTOL = 1e-10, 1e-9      # float64: ~1e-13 relative round-off in a 33-term sum of exps, with margin
MARGIN = 8                    # an indexed name holds values for indices 1 − MARGIN .. n + MARGIN
_SKIP = (EvaluationError, RuntimeError, ValueError, TypeError, IndexError, OverflowError,
         ZeroDivisionError, KeyError)
_OPS = {"=": None, ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}
_REL = {sp.Eq: "=", sp.Ge: ">=", sp.Gt: ">", sp.Le: "<=", sp.Lt: "<"}


def _evaluator(env):
    from mathcheck.verify.user import UserEvaluator  # Derivative by autograd, bounds-checked indices

    return UserEvaluator(env)


def _violation(a, b, rel: str, atol: float, rtol: float):
    """Where ``a REL b`` fails beyond the tolerance (elementwise bool tensor) and the margin."""
    a, b = torch.broadcast_tensors(torch.as_tensor(a, dtype=DT), torch.as_tensor(b, dtype=DT))
    tol = atol + rtol * torch.maximum(a.abs(), b.abs())
    d = a - b
    if rel == "=":
        bad = d.abs() > tol
    elif rel in (">=", ">"):
        bad = d < -tol if rel == ">=" else d <= 0  # strict: equality is a violation (confirmed later)
    else:
        bad = d > tol if rel == "<=" else d >= 0
    bad = bad | ~torch.isfinite(d)
    return bad, d


# --- a user's relation (derive) ---------------------------------------------------------------

def _user_env(point: dict) -> dict:
    from mathcheck.usercheck import OFFSET

    env = {}
    for s, v in point.items():
        if isinstance(s, sp.IndexedBase):
            env[s] = Indexed(torch.tensor(v, dtype=DT), offset=OFFSET)
        elif isinstance(v, int):  # integers stay numbers: sum bounds must not be tensors
            env[s] = float(v)
        else:
            env[s] = torch.tensor(float(v), dtype=DT)
    return env


def _scalar(v):
    t = torch.as_tensor(v)
    if t.numel() != 1 or t.is_complex():
        return None
    return float(t.detach().reshape(()).item())


def _holds(given, env) -> bool | None:
    """Whether every hypothesis holds at the point (float64); None where one cannot be evaluated."""
    for g in given:
        a = _scalar(_evaluator(dict(env))(g.lhs))
        b = _scalar(_evaluator(dict(env))(g.rhs))
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            return None
        rel = _REL[type(g)]
        ok = abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b)) if rel == "=" else _OPS[rel](a, b)
        if not ok:
            return False
    return True


def _hp_violates(lhs, rhs, rel: str, point: dict):
    """Confirm a float64 violation at 50 digits: ``(violated, L, R)`` or None where undefined."""
    from mathcheck.usercheck import DPS, HP_REL, hp_value

    L, R = hp_value(lhs, point), hp_value(rhs, point)
    if not (L.is_number and R.is_number) or L.has(sp.nan, sp.zoo, sp.oo, -sp.oo) \
            or R.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return None
    if rel == "=":
        d = abs(complex(sp.N(L - R, DPS)))
        return d > HP_REL * max(1.0, abs(complex(L)), abs(complex(R))), L, R
    if not (L.is_real and R.is_real):
        return None
    d = float(sp.N(L - R, DPS))
    scale = HP_REL * max(1.0, abs(float(L)), abs(float(R)))
    bad = {">=": d < -scale, ">": d <= scale, "<=": d > scale, "<": d >= -scale}[rel]
    return bad, L, R


def numeric_relation(lhs, rhs, rel: str = "=", given=(), seed: int = 0, count: int = 24) -> dict:
    """``lhs REL rhs`` (parsed user expressions) at ``count`` seeded points in torch float64.

    Points come from :func:`mathcheck.usercheck.sample_points` (respecting the assumptions);
    a point where a hypothesis in ``given`` (SymPy relationals) fails is rejected, and up to
    ``4·count`` are drawn. A violation beyond ``atol + rtol·max(|lhs|, |rhs|)`` (usercheck's
    1e-12, 1e-9) is a counterexample once confirmed at 50 digits.
    """
    from mathcheck.usercheck import ATOL as U_ATOL, RTOL as U_RTOL, _report_point, _shown, sample_points

    exprs = (lhs, rhs) + tuple(x for g in given for x in (g.lhs, g.rhs))
    points = sample_points(exprs, seed, count * 4)
    used = skipped = rejected = unconfirmed = 0
    max_err = 0.0
    for point in points:
        if used >= count:
            break
        env = _user_env(point)
        try:
            holds = _holds(given, env)
            a = _scalar(_evaluator(dict(env))(lhs))
            b = _scalar(_evaluator(dict(env))(rhs))
        except _SKIP:
            skipped += 1
            continue
        if holds is None or a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            skipped += 1
            continue
        if not holds:
            rejected += 1
            continue
        used += 1
        if rel == "=":
            max_err = max(max_err, abs(a - b))
        bad, _ = _violation(a, b, rel, U_ATOL, U_RTOL)
        if bool(bad):
            try:
                confirmed = _hp_violates(lhs, rhs, rel, point)
            except (ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError):
                confirmed = None
            if confirmed is not None and confirmed[0]:
                return {"status": "refuted", "points": used, "skipped": skipped, "rejected": rejected,
                        "max_abs_err": max_err if rel == "=" else None,
                        "reference": "torch float64 (diff by autograd), confirmed at 50 digits",
                        "counterexample": _report_point(point, exprs),
                        "values": {"lhs": _shown(confirmed[1]), "rhs": _shown(confirmed[2]),
                                   "lhs_float64": a, "rhs_float64": b}}
            unconfirmed += 1
    out = {"status": "passed" if used else "inconclusive", "points": used, "skipped": skipped,
           "rejected": rejected, "max_abs_err": max_err if used and rel == "=" else None,
           "unconfirmed": unconfirmed, "reference": "torch float64 (diff by autograd)"}
    if not used and rejected:
        out["note"] = "no sample point satisfied the hypotheses"
    return out
