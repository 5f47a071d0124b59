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

from mathcheck.userexpr.identity import check_identity
from mathcheck.userexpr.relation import CheckResult


def check(lhs: str, rhs: str, assume=None, seed: int = 0, timeout: float = 30.0) -> CheckResult:
    """Check the identity ``lhs = rhs`` (two strings in the grammar of :mod:`mathcheck.parser`).

    ``assume`` maps a name to properties (``{"n": ("positive", "integer")}``) or is a list of
    ``"n=positive,integer"`` strings. ``timeout`` bounds the whole check's wall-clock time.
    """
    return check_identity(lhs, rhs, assume, seed, timeout)
