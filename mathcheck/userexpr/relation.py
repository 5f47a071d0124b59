"""One link ``lhs REL rhs`` checked end to end: the entry point every user-expression command shares.

``mathcheck check`` (one identity), ``check --file`` (a batch) and ``mathcheck derive`` (each link of
a chain) all call :func:`check_relation` on expressions built by the whitelist parser
(:mod:`mathcheck.parser`). The pipeline is

1. **symbolic** (:mod:`mathcheck.userexpr.symbolic_side`), in a forked child that is killed when its
   share of the budget (60%) runs out: SymPy's derivatives taken, a 50-digit search for a point
   where the relation fails, then the one plan of the step checker
   (:func:`mathcheck.symbolic.decide.relation_test`: ``zero_test`` for ``=``, the sign rules for
   ``<=``/``<``/``>=``/``>``, the provers last), the hypotheses in its Context;
2. **numeric** (:mod:`mathcheck.userexpr.float_side`): 24 seeded points that respect the assumptions
   and the hypotheses, in float64 by Python's ``math`` — or torch with autograd where a ``diff``
   needs it — every float64 failure confirmed at 50 digits before it counts.

Verdicts: ``proved`` (shown symbolically *and* the numeric test passed), ``refuted`` (a point where
it fails, confirmed at high precision, or a nonzero constant difference), ``inconclusive`` (anything
else: a budget ran out, or numeric agreement without a proof), ``bad-input``.

    >>> from mathcheck.parser import parse_many
    >>> lhs, rhs = parse_many(["x*(x + 1)", "x**2 + x"])
    >>> r = check_relation(lhs, rhs, "=", {})        # doctest: +SKIP
    >>> r.status, r.how, r.evaluator                  # doctest: +SKIP
    ('proved', 'expand', 'float64 (Python math)')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields

from mathcheck.budget import attempt
from mathcheck.lazy import sympy as sp
from mathcheck.outcome import ExitByStatus, combine, replay
from mathcheck.relations import STEP
from mathcheck.userexpr import child

RELATIONS = STEP  # mathcheck.relations: the one table
SYMBOLIC_SHARE = 0.6  # of the whole budget, for the symbolic side (the rest: the numeric side)


def _from(cls, d: dict):
    """``cls`` from a side's dict (the child process answers in JSON); a key it has no field for is
    an error, so nothing a side says is dropped unseen."""
    names = {f.name for f in fields(cls)}
    unknown = set(d) - names
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {sorted(unknown)}")
    return cls(**d)


@dataclass(frozen=True)
class SymbolicSide:
    """What the symbolic side decided: ``status`` (proved/refuted/inconclusive) and ``how``; the
    difference it tested (``difference``, ``None``: not computed), its ``seconds``, and for a
    probability link the relation over moments it was ``lowered`` to. A field that is ``None`` was
    not reported (``render.json`` leaves it out). E.g.
    ``SymbolicSide("proved", "expand", difference="x*(x + 1) - x**2 - x", seconds=0.01)``."""

    status: str
    how: str = ""
    difference: str | None = None
    seconds: float | None = None
    lowered: str | None = None

    @classmethod
    def of(cls, d: dict) -> "SymbolicSide":
        return _from(cls, d)


@dataclass(frozen=True)
class NumericSide:
    """What the numeric side found: ``status`` (passed/refuted/inconclusive), the ``points`` used and
    ``skipped`` (undefined there), the largest failure ``max_abs_err`` (None: none measured), the
    flags 50 digits did not confirm (``unconfirmed``), for an unknown function the random ``draws``
    and how many ``passed``, the ``evaluator`` and ``reference`` that ran, a ``note``, and a
    ``summary`` a side words itself (probability). ``None``: not reported (``render.json`` leaves it
    out; ``max_abs_err`` is always reported). E.g. ``NumericSide("passed", 24, 0, 3.2e-16,
    unconfirmed=0, evaluator="float64 (Python math)", reference="float64 (Python math)")``."""

    status: str
    points: int = 0
    skipped: int = 0
    max_abs_err: float | None = None
    unconfirmed: int | None = None
    draws: int | None = None
    passed: int | None = None
    evaluator: str | None = None
    reference: str | None = None
    note: str | None = None
    summary: str | None = None

    @classmethod
    def of(cls, d: dict) -> "NumericSide":
        return _from(cls, d)


@dataclass(frozen=True)
class CheckResult(ExitByStatus):
    """The verdict on ``lhs REL rhs``: plain values (``mathcheck.render.json.check_result`` and
    ``render.text.check_result`` print it), each side a frozen :class:`SymbolicSide` /
    :class:`NumericSide`.

    ``status`` is ``proved``/``refuted``/``inconclusive``/``bad-input``; ``how`` says which strategy
    showed it; ``counterexample`` is ``{name: value}`` (or None); ``evaluator`` names the numeric
    side that ran (``"float64 (Python math)"`` or ``"torch float64 (diff by autograd)"``)."""

    status: str
    lhs: str
    rhs: str
    assumptions: dict
    seed: int
    symbolic: SymbolicSide | None = None  # None: not run (bad input, a failure before it)
    numeric: NumericSide | None = None
    counterexample: dict | None = None
    values: dict | None = None  # both sides at the counterexample
    message: str = ""  # the one line for bad input
    seconds: float = 0.0
    relation: str = "="
    how: str = ""
    evaluator: str = ""
    given: tuple = ()  # the hypotheses, as strings
    timeout: float = 30.0  # the budget it ran under (a shorter one may leave it inconclusive)

    @property
    def replay(self) -> str:
        """``mathcheck check`` reproduces an identity without hypotheses (a relation or a ``given``
        is a link of ``derive``, whose report carries its own replay line): empty otherwise."""
        if self.relation != "=" or self.given:
            return ""
        assume = [f"{name}={','.join(props)}" for name, props in self.assumptions.items()]
        return replay(
            "check",
            [self.lhs, self.rhs],
            [
                ("--assume", assume),
                ("--seed", self.seed),
                ("--timeout", None if self.timeout == 30.0 else self.timeout),
            ],
        )


def _text(e) -> str:
    return e if isinstance(e, str) else sp.sstr(e)


def numeric_side(lhs, rhs, relation, seed, given, evaluator, seconds) -> dict:
    """The numeric side within ``seconds``: never raises (a failure or time-out is ``inconclusive``)."""
    from mathcheck.userexpr.float_side import POINTS, needs_torch, numeric

    if evaluator == "torch" or (evaluator == "auto" and needs_torch(lhs, rhs)):
        # outside any budget: an import interrupted halfway leaves torch unusable in this process
        from mathcheck.numeric import evaluate as torch_backend  # noqa: F401
    try:
        ok, num = attempt(lambda: numeric(lhs, rhs, relation, seed, POINTS, given, evaluator), seconds)
    except Exception as exc:  # noqa: BLE001 - the machinery must not crash on a user's formula
        return {
            "status": "inconclusive",
            "points": 0,
            "skipped": 0,
            "max_abs_err": None,
            "note": f"the numeric side failed: {type(exc).__name__}: {exc}"[:300],
        }
    if not ok:
        return {"status": "inconclusive", "points": 0, "skipped": 0, "max_abs_err": None, "note": "time budget ran out"}
    return num


def _seconds_ok(t) -> bool:
    """A budget is a finite positive number (``nan`` compares false with everything: a child would
    never be waited for)."""
    return isinstance(t, (int, float)) and not isinstance(t, bool) and 0 < t < float("inf")


def check_relation(
    lhs,
    rhs,
    relation: str,
    assumptions: dict,
    given: tuple = (),
    seed: int = 0,
    timeout: float = 30.0,
    *,
    lhs_text: str | None = None,
    rhs_text: str | None = None,
    evaluator: str = "auto",
    patient: bool = False,
) -> CheckResult:
    """Check ``given ⇒ lhs REL rhs`` for parsed SymPy expressions; the ``derive`` helper's entry point.

    ``lhs``, ``rhs``: expressions built by :func:`mathcheck.parser.parse_many` (their symbols carry
    the assumptions); ``relation``: one of ``= <= < >= >``; ``assumptions``: the normalised
    ``--assume`` dict (``{"n": ("positive", "integer")}``, see
    :func:`mathcheck.userexpr.identity.normalise_assumptions`), reported and used in the replay line;
    ``given``: SymPy hypotheses (relationals, ``And``) that every sampled point must satisfy;
    ``seed``: every random draw; ``timeout``: the wall-clock budget of the whole check, in seconds.
    ``lhs_text``/``rhs_text``: how to print the sides (default ``sstr``); ``evaluator``: ``"auto"``
    (torch only for ``diff``), ``"float64"`` or ``"torch"``. ``patient``: when the numeric side
    refutes first, wait for the symbolic side within its budget rather than one more second, so
    which side's account is reported does not depend on how loaded the machine is (``derive``
    over a book: the report of ``-j N`` and of a cluster must be that of ``-j 1``).

    Never raises on SymPy's account: a time-out or a SymPy exception is ``inconclusive``; an unknown
    relation or non-SymPy sides are ``bad-input``.

        >>> from mathcheck.parser import parse_many
        >>> a, b = parse_many(["x^2 + 1", "2*x"])
        >>> check_relation(a, b, ">=", {}).status      # doctest: +SKIP
        'proved'
    """
    from mathcheck.userexpr.float_side import EVALUATORS
    from mathcheck.userexpr.symbolic_side import symbolic

    start = time.perf_counter()
    given = tuple(given or ())
    lhs_s, rhs_s = lhs_text or _text(lhs), rhs_text or _text(rhs)
    assumptions = {k: tuple(v) for k, v in (assumptions or {}).items()}
    base = dict(
        lhs=lhs_s,
        rhs=rhs_s,
        assumptions=assumptions,
        seed=seed,
        relation=relation,
        given=tuple(sp.sstr(g) for g in given),
    )
    if relation not in RELATIONS:
        return CheckResult(
            "bad-input", message=f"relation {relation!r} not allowed; use one of {' '.join(RELATIONS)}", **base
        )
    if not all(isinstance(x, sp.Basic) for x in (lhs, rhs, *given)) or evaluator not in EVALUATORS:
        return CheckResult(
            "bad-input",
            message="lhs, rhs and given must be SymPy expressions "
            "(from mathcheck.parser); evaluator one of " + ", ".join(EVALUATORS),
            **base,
        )
    if not _seconds_ok(timeout):
        return CheckResult(
            "bad-input", message=f"timeout {timeout!r} is not a number of seconds; give a finite number above 0", **base
        )
    sym_s = timeout * SYMBOLIC_SHARE
    # the symbolic side runs in a child while this process does the numeric side
    sym, num = child.beside(
        lambda: symbolic(lhs, rhs, relation, given, seed, sym_s),
        lambda: numeric_side(lhs, rhs, relation, seed, given, evaluator, max(timeout - sym_s, 1.0)),
        sym_s,
        patient,
    )
    num.setdefault("evaluator", "")
    status = combine(sym["status"], num["status"])  # the honesty rule every command shares
    counterexample, values = None, None
    if sym["status"] == "refuted":  # the symbolic side's counterexample first, as it is exact
        how = sym.get("how", "")
        counterexample, values = sym.get("counterexample") or {}, sym.get("values")
    elif num["status"] == "refuted":
        how = f"{num['evaluator']} at a sampled point, confirmed at 50 digits"
        counterexample, values = num["counterexample"], num["values"]
    elif status == "proved" or sym["status"] != "proved":
        how = sym.get("how", "")
    else:
        how = num.get("note", "numeric check did not pass")
    sym = SymbolicSide.of({k: v for k, v in sym.items() if k not in ("counterexample", "values")})
    num = NumericSide.of({k: v for k, v in num.items() if k not in ("counterexample", "values")})
    return CheckResult(
        status,
        symbolic=sym,
        numeric=num,
        counterexample=counterexample,
        values=values,
        seconds=time.perf_counter() - start,
        how=how,
        evaluator=num.evaluator,
        timeout=timeout,
        **base,
    )
