"""An identity typed as two strings: parse both sides (whitelist parser), then :func:`check_relation`.

This is ``mathcheck check LHS RHS`` and each row of ``check --file``; :func:`mathcheck.usercheck.check`
is the public facade over it. Bad input (outside the grammar or the limits, inconsistent
assumptions) is a ``bad-input`` result with a one-line message, found before any SymPy work.

    >>> check_identity("sigmoid(x)", "1 - sigmoid(-x)").status      # doctest: +SKIP
    'proved'
"""

from __future__ import annotations

import time
from dataclasses import replace

from mathcheck.budget import attempt
from mathcheck.parser import ParseError, check_consistent, parse_assumption, parse_many
from mathcheck.userexpr.relation import CheckResult, check_relation


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
    for spec in [assume] if isinstance(assume, str) else assume:
        name, props = parse_assumption(spec)
        out[name] = tuple(dict.fromkeys(out.get(name, ()) + props))
        check_consistent(name, out[name])  # --assume x=positive --assume x=negative
    return out


def check_identity(lhs: str, rhs: str, assume=None, seed: int = 0, timeout: float = 30.0) -> CheckResult:
    """Check ``lhs = rhs`` (two strings in the grammar of :mod:`mathcheck.parser`).

    ``assume`` maps a name to properties (``{"n": ("positive", "integer")}``) or is a list of
    ``"n=positive,integer"`` strings. ``timeout`` bounds the whole check's wall-clock time.
    """
    start = time.perf_counter()
    lhs_s, rhs_s = str(lhs), str(rhs)

    def bad(message: str, assumptions=None) -> CheckResult:
        return CheckResult(
            "bad-input", lhs_s, rhs_s, assumptions or {}, seed, message=message, seconds=time.perf_counter() - start
        )

    from mathcheck.userexpr.relation import _seconds_ok

    if not _seconds_ok(timeout):
        return bad(f"timeout {timeout!r} is not a number of seconds; give a finite number above 0")
    try:
        assumptions = normalise_assumptions(assume)
        ok, parsed = attempt(lambda: parse_many([lhs_s, rhs_s], assumptions), min(5.0, timeout / 4))
    except ParseError as exc:
        return bad(str(exc))
    if not ok:
        why = "building the expressions ran out of time"
        return CheckResult(
            "inconclusive",
            lhs_s,
            rhs_s,
            assumptions,
            seed,
            message=why,
            how=why,
            seconds=time.perf_counter() - start,
            timeout=timeout,
        )
    L, R = parsed
    remaining = max(timeout - (time.perf_counter() - start), 1.0)
    result = check_relation(L, R, "=", assumptions, (), seed, remaining, lhs_text=lhs_s, rhs_text=rhs_s)
    return replace(result, timeout=timeout)  # the replay line states the budget the user gave
