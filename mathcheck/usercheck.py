"""``mathcheck check LHS RHS``: is the user's identity true? A facade over :mod:`mathcheck.userexpr`.

:func:`check` takes the two sides as *strings*, parses them with the whitelist parser
(:mod:`mathcheck.parser`, never ``sympify``) and hands them to
:func:`mathcheck.userexpr.relation.check_relation` — the pipeline that ``check --file`` and
``derive`` share: a symbolic proof (the step checker's multi-strategy zero test, in a child process
under a budget, after a 50-digit counterexample search), and a numeric test at 24 seeded points in
float64 (Python's ``math``; torch with autograd only where a ``diff`` needs it), every disagreement
confirmed at 50 digits before it refutes.

Verdicts: ``proved``, ``refuted`` (with the point and both sides' values), ``inconclusive``,
``bad-input`` (outside the grammar or the limits; :attr:`CheckResult.message` is one line).

    >>> r = check("sigmoid(x)", "1 - sigmoid(-x)")      # doctest: +SKIP
    >>> r.status, r.exit_code                            # doctest: +SKIP
    ('proved', 0)
"""

from __future__ import annotations

import time

from mathcheck.budget import attempt
from mathcheck.parser import ParseError, check_consistent, parse_assumption, parse_many
from mathcheck.userexpr.numeric import ATOL, POINTS, RTOL  # noqa: F401 - part of this module's API
from mathcheck.userexpr.points import OFFSET, SPAN, sample_points, variables  # noqa: F401
from mathcheck.userexpr.precise import DPS, HP_REL, hp_compare, hp_value  # noqa: F401
from mathcheck.userexpr.relation import EXIT, CheckResult, check_relation

__all__ = ["check", "CheckResult", "EXIT", "normalise_assumptions"]


def normalise_assumptions(assume) -> dict:
    """``{"n": ("positive", "integer")}`` from a dict or from strings ``"n=positive,integer"``."""
    if assume is None:
        return {}
    if isinstance(assume, dict):
        out = {}
        for k, v in assume.items():
            props = (v,) if isinstance(v, str) else tuple(v)
            name, props = parse_assumption(f"{k}={','.join(props)}")
            out[name] = props
        return out
    out = {}
    for spec in ([assume] if isinstance(assume, str) else assume):
        name, props = parse_assumption(spec)
        out[name] = tuple(dict.fromkeys(out.get(name, ()) + props))
        check_consistent(name, out[name])  # --assume x=positive --assume x=negative
    return out


def check(lhs: str, rhs: str, assume=None, seed: int = 0, timeout: float = 30.0) -> CheckResult:
    """Check the identity ``lhs = rhs`` (two strings in the grammar of :mod:`mathcheck.parser`).

    ``assume`` maps a name to properties (``{"n": ("positive", "integer")}``) or is a list of
    ``"n=positive,integer"`` strings. ``timeout`` bounds the whole check's wall-clock time.
    """
    start = time.perf_counter()
    lhs_s, rhs_s = str(lhs), str(rhs)

    def bad(message: str, assumptions=None) -> CheckResult:
        return CheckResult("bad-input", lhs_s, rhs_s, assumptions or {}, seed, message=message,
                           seconds=time.perf_counter() - start)

    try:
        assumptions = normalise_assumptions(assume)
        ok, parsed = attempt(lambda: parse_many([lhs_s, rhs_s], assumptions), min(5.0, timeout / 4))
    except ParseError as exc:
        return bad(str(exc))
    if not ok:
        return CheckResult("inconclusive", lhs_s, rhs_s, assumptions, seed,
                           message="building the expressions ran out of time",
                           how="building the expressions ran out of time",
                           seconds=time.perf_counter() - start)
    L, R = parsed
    remaining = max(timeout - (time.perf_counter() - start), 1.0)
    r = check_relation(L, R, "=", assumptions, (), seed, remaining, lhs_text=lhs_s, rhs_text=rhs_s)
    return r
