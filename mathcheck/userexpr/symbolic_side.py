"""The user pipeline's symbolic side: decide ``lhs REL rhs`` with SymPy, within a time budget.

For ``=``: SymPy's derivatives are taken; a structurally zero difference is proved at once; the
sides are compared at 6 seeded points to 50 digits (a relative difference above ``tolerance.HP_REL`` = 1e-30 refutes, so a
false identity that agrees to 1e-15 is caught); a nonzero constant difference refutes; then the one
plan of the step checker, :func:`~mathcheck.symbolic.decide.relation_test` (for ``=`` the zero
test's strategies, ``simplify``, then the provers — case splits, special functions in elementary
form, peeled sums, closed forms; for ``<=``, ``<``, ``>=``, ``>`` the sign rules then the case
split), the hypotheses (``given``) passed in its Context. For an order relation the 50-digit search
looks for a violation (a side that is not real at a point violates it: it is a statement about
real numbers). With hypotheses, a counterexample of the checker's own draw that the 50-digit search
under them did not find is not trusted: the answer is then undecided. This module is only the
user pipeline's glue: derivatives taken, the 50-digit point search, integrals and limits settled.
"""

from __future__ import annotations

import time

from mathcheck.budget import attempt
from mathcheck.lazy import sympy as sp
from mathcheck.numeric import PRECISION_DIGITS
from mathcheck.numeric.precise import hp_violates, report_point, shown, take_derivatives
from mathcheck.numeric.sampling import sample_points
from mathcheck.numeric.tolerance import HP_REL

HP_POINTS = 6  # high-precision points in the symbolic search


def short(e, limit: int = 300) -> str:
    s = sp.sstr(e)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def symbolic(lhs, rhs, relation: str = "=", given=(), seed: int = 0, seconds: float = 18.0) -> dict:
    """``{"status", "how", "difference", "seconds"[, "counterexample", "values"]}``."""
    start = time.perf_counter()
    left = lambda: seconds - (time.perf_counter() - start)  # noqa: E731
    given = tuple(given)
    ok, taken = attempt(lambda: (take_derivatives(lhs), take_derivatives(rhs)), max(left() * 0.2, 0.1))
    if not ok:
        return {
            "status": "inconclusive",
            "how": "taking SymPy's derivatives ran out of time",
            "difference": "",
            "seconds": time.perf_counter() - start,
        }
    L, R = taken
    d = L - R
    out = {"difference": short(d)}

    def done(status: str, how: str, **kw) -> dict:
        return {**out, "status": status, "how": how, **kw, "seconds": time.perf_counter() - start}

    if relation in ("=", "<=", ">=") and d == 0:
        return done("proved", "structural")
    if relation == "=" and not d.has(sp.Sum, sp.Derivative, sp.Integral):  # a polynomial identity: no search needed
        ok, expanded = attempt(lambda: sp.expand(d), min(max(left() * 0.1, 0.05), 1.0))
        if ok and expanded == 0:
            return done("proved", "expand")
    if d == 0:  # identical sides are never strictly ordered, wherever the hypotheses hold
        points = sample_points((lhs, rhs), seed + 1, 1, given)
        if points:
            return done(
                "refuted",
                "the sides are identical, so never strictly ordered",
                counterexample=report_point(points[0], (lhs, rhs)),
                values={"difference": 0},
            )

    def search():
        for point in sample_points((lhs, rhs), seed + 1, HP_POINTS, given):
            try:
                r = hp_violates(lhs, rhs, relation, point)
            except (ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError):
                continue
            if r is not None and r[0]:
                return point, r[1], r[2]
        return None

    ok, found = attempt(search, max(left() * 0.3, 0.1))
    if ok and found:
        point, Lv, Rv = found
        how = (
            f"the sides differ at a point ({PRECISION_DIGITS} digits)"
            if relation == "="
            else f"the relation fails at a point ({PRECISION_DIGITS} digits)"
        )
        return done(
            "refuted", how, counterexample=report_point(point, (lhs, rhs)), values={"lhs": shown(Lv), "rhs": shown(Rv)}
        )
    if d.has(sp.Integral):  # each integral in closed form where SymPy settles it soundly, else not proved
        from mathcheck.symbolic.integrals import Unsettled, settle

        try:
            L, R = settle(L, max(left() * 0.5, 0.1)), settle(R, max(left() * 0.5, 0.1))
        except Unsettled as exc:
            return done("inconclusive", str(exc))
        d = L - R
        out["difference"] = short(d)
        plain = done
        done = lambda status, how, **kw: plain(status, f"integrals in closed form by SymPy; {how}", **kw)  # noqa: E731
    settled = d.has(sp.Limit)  # a refutation then rests on SymPy's limit: only the 50-digit search's counts
    if settled:  # each limit in closed form where it is shown (symbolic/limits.py), else not proved
        from mathcheck.symbolic.limits import Unsettled as NoLimit, settle as settle_limits

        try:
            L, R = settle_limits(L, max(left() * 0.5, 0.1)), settle_limits(R, max(left() * 0.5, 0.1))
        except NoLimit as exc:
            return done("inconclusive", str(exc))
        d = L - R
        out["difference"] = short(d)
        before = done
        done = lambda status, how, **kw: before(status, f"limits in closed form; {how}", **kw)  # noqa: E731
    if relation == "=" and d.is_number and not given and not settled:
        # e.g. sin(x) vs sin(x) + 1e-10: a constant difference, decided by its value
        ok, v = attempt(lambda: sp.N(d.doit(), PRECISION_DIGITS), max(left() * 0.3, 0.1))
        if ok and v.is_number and not v.has(sp.nan, sp.zoo) and abs(complex(v)) > HP_REL:
            return done("refuted", "the difference is a nonzero constant", values={"difference": shown(v)})
    from mathcheck.symbolic import decide  # only now: the quick paths above need none of it
    from mathcheck.claim import Context

    budget = max(left(), 0.1)
    attempt_s = min(decide.DEFAULT_ATTEMPT_S, budget / 2)
    # the one plan, the user's hypotheses its Context's (the provers of symbolic/cases.py run last)
    decision = decide.relation_test(L, R, relation, Context(given=given), attempt_s=attempt_s, total_s=budget)
    if decision.value is False and settled:
        return done(
            "inconclusive",
            f"{decision.how} (a counterexample of the limits' closed forms, not found by the 50-digit search that approaches them, so not trusted)",
        )
    if decision.value is False and given:
        # the 50-digit search above drew its points under the hypotheses and found none: a point of
        # the checker's own draw (which accepts a point where a hypothesis cannot be evaluated) is
        # not trusted on its own
        return done(
            "inconclusive", f"{decision.how} (not found by the 50-digit search under the hypotheses, so not trusted)"
        )
    res = done(decision.status, decision.how)  # (says so when integrals were put in closed form)
    if decision.value is False:
        res["counterexample"] = {k: v for k, v in decision.counterexample if k != "difference"}
        res["values"] = {"difference": dict(decision.counterexample).get("difference")}
    return res
