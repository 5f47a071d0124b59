"""``mathcheck check LHS RHS``: is the user's identity true? Symbolic proof, numeric test, verdict.

The two sides are parsed by the whitelist parser (:mod:`mathcheck.parser`, never ``sympify``), then

* **symbolically**, in a forked child that is killed when its budget runs out (a long C call such
  as a huge integer power cannot outlive the budget): the difference ``lhs − rhs`` (SymPy's own
  derivatives taken) is evaluated at sample points to 50 digits — a relative difference above
  1e-30 refutes, so a false identity that agrees to 1e-15 is caught — and then given to the step
  checker's multi-strategy :func:`~mathcheck.checker.zero_test` (expand, ``expand_log`` under the
  assumptions, trigonometric expansion, Kronecker-delta sums, ``rewrite(exp)``, ``simplify`` last);
* **numerically**, with torch in float64 at seeded points that respect the assumptions (negative
  and large values where allowed); ``diff(f, x)`` is evaluated by autograd of ``f``, independently
  of SymPy's derivative. A float64 disagreement counts only once it is confirmed at 50 digits
  (mpmath; derivatives by ``mpmath.diff``), so round-off never refutes a true identity.

Verdicts: ``proved`` (difference shown ≡ 0 and the numeric test passed), ``refuted`` (a nonzero
difference at a point, confirmed at high precision; the point and both sides' values are reported),
``inconclusive`` (anything else), ``bad-input`` (outside the grammar or the limits).

    >>> r = check("sigmoid(x)", "1 - sigmoid(-x)")      # doctest: +SKIP
    >>> r.status, r.exit_code                            # doctest: +SKIP
    ('proved', 0)
"""

from __future__ import annotations

import random
import shlex
import time
from dataclasses import dataclass, field

from mathcheck.budget import attempt, run_in_child
from mathcheck.lazy import sympy as sp
from mathcheck.parser import ParseError, parse_assumption, parse_many

EXIT = {"proved": 0, "refuted": 1, "bad-input": 2, "inconclusive": 3}
DPS = 50                 # digits for the high-precision confirmation
HP_REL = 1e-30           # |lhs − rhs| > HP_REL · max(1, |lhs|, |rhs|) at DPS digits: not round-off
ATOL, RTOL = 1e-12, 1e-9  # float64 screening; a flagged point must still be confirmed at DPS digits
POINTS = 24              # numeric sample points
HP_POINTS = 6            # high-precision points in the symbolic search
OFFSET, SPAN = -8, 25    # an indexed name x[i] holds values for i in OFFSET .. OFFSET + SPAN − 1


@dataclass(frozen=True)
class CheckResult:
    """The verdict of ``mathcheck check``: plain values, JSON-ready (see :meth:`to_json`)."""

    status: str
    lhs: str
    rhs: str
    assumptions: dict
    seed: int
    symbolic: dict = field(default_factory=dict)
    numeric: dict = field(default_factory=dict)
    counterexample: dict | None = None
    values: dict | None = None       # both sides at the counterexample
    message: str = ""                # the one line for bad input
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        return EXIT[self.status]

    @property
    def replay(self) -> str:
        args = ["mathcheck", "check", self.lhs, self.rhs]
        for name, props in self.assumptions.items():
            args += ["--assume", f"{name}={','.join(props)}"]
        args += ["--seed", str(self.seed)]
        return " ".join(shlex.quote(a) for a in args)

    def to_json(self) -> dict:
        return {"status": self.status, "lhs": self.lhs, "rhs": self.rhs,
                "assumptions": {k: list(v) for k, v in self.assumptions.items()}, "seed": self.seed,
                "symbolic": self.symbolic, "numeric": self.numeric,
                "counterexample": self.counterexample, "values": self.values,
                "message": self.message, "replay": self.replay, "seconds": round(self.seconds, 3)}

    def lines(self) -> list[str]:
        """The verdict as terminal text."""
        if self.status == "bad-input":
            return [f"error: {self.message}"]
        s, n = self.symbolic, self.numeric
        out = [f"{self.status}: {self.lhs} = {self.rhs}",
               f"  symbolic: {s.get('status')} ({s.get('how', '')}); difference: {s.get('difference', '')}"]
        err = n.get("max_abs_err")
        out.append(f"  numeric:  {n.get('status')}; {n.get('points', 0)} points in float64 "
                   f"({n.get('skipped', 0)} undefined skipped), max |lhs − rhs| "
                   f"{'n/a' if err is None else f'{err:.3g}'}, atol={ATOL:g}, rtol={RTOL:g}")
        if self.counterexample is not None:
            where = ", ".join(f"{k} = {v}" for k, v in self.counterexample.items())
            out.append(f"  counterexample: {where}")
            if self.values:
                out.append("    " + ", ".join(f"{k} = {v}" for k, v in self.values.items()))
        if self.status != "proved":
            out.append(f"  replay: {self.replay}")
        return out


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
    return out


# --- sample points (shared by the symbolic search and the torch side) ----------------------------

def variables(*exprs):
    """``(scalars, bases, dims)``: free symbols, IndexedBases with their rank, sum-bound symbols."""
    bases: dict = {}
    for e in exprs:
        for x in e.atoms(sp.Indexed):
            bases[x.base] = max(bases.get(x.base, 0), len(x.indices))
    labels = {b.label for b in bases}
    scalars = sorted({s for e in exprs for s in e.free_symbols
                      if isinstance(s, sp.Symbol) and s not in labels}, key=str)
    dims = set()
    for e in exprs:
        for s in e.atoms(sp.Sum):
            for _, a, b in s.limits:
                dims |= (a.free_symbols | b.free_symbols)
    return scalars, bases, dims


def _real(sym, rng: random.Random, k: int) -> float:
    """Ordinary values mostly; every third point a large one (|x| up to 30), every fifth a small one."""
    if k % 3 == 2:
        v = rng.uniform(5.0, 30.0)
    elif k % 5 == 4:
        v = rng.uniform(1e-3, 0.05)
    else:
        v = rng.uniform(0.05, 3.0)
    if sym.is_positive or (sym.is_nonnegative and not sym.is_zero):
        return v
    if sym.is_negative:
        return -v
    return v if rng.random() < 0.5 else -v


def _integer(sym, rng: random.Random, dim: bool) -> int:
    hi = 5
    if sym.is_positive:
        return rng.randint(1, hi)
    if sym.is_negative:
        return rng.randint(-hi, -1)
    if sym.is_nonnegative or dim:  # a sum bound below its start would flip the sum (Karr's convention)
        return rng.randint(0 if not sym.is_nonzero else 1, hi)
    v = rng.randint(-hi, hi)
    return v if v or not sym.is_nonzero else 1


def _values(base, rank: int, rng: random.Random, k: int):
    if rank == 0:
        return _real(base, rng, k)
    return [_values(base, rank - 1, rng, k) for _ in range(SPAN)]


def sample_points(exprs, seed: int, count: int) -> list[dict]:
    """``count`` points ``{symbol: number, IndexedBase: nested lists over OFFSET..}``, seeded."""
    scalars, bases, dims = variables(*exprs)
    rng = random.Random(seed)
    points = []
    for k in range(count):
        p = {}
        for s in scalars:
            p[s] = _integer(s, rng, s in dims) if s.is_integer else _real(s, rng, k)
        for b, rank in sorted(bases.items(), key=lambda kv: str(kv[0])):
            p[b] = _values(b, rank, rng, k)
        points.append(p)
    return points


def _exact(v):
    return sp.Integer(v) if isinstance(v, int) else sp.Rational(v)  # a float's exact binary value


def _lookup(values, indices):
    for i in indices:
        j = int(i) - OFFSET
        if not 0 <= j < SPAN:
            raise IndexError(f"index {i} outside {OFFSET}..{OFFSET + SPAN - 1}")
        values = values[j]
    return values


# --- high precision (mpmath through SymPy's evalf) ----------------------------------------------

def hp_value(e, point: dict):
    """``e`` at ``point`` to DPS digits; a derivative by ``mpmath.diff`` (not SymPy's ``diff``)."""
    import mpmath

    scalars = {s: _exact(v) for s, v in point.items() if isinstance(s, sp.Symbol)}
    bases = {s: v for s, v in point.items() if isinstance(s, sp.IndexedBase)}

    def value(expr, env, dps=DPS + 10):
        derivs = list(expr.atoms(sp.Derivative))
        outer = [d for d in derivs if not any(o != d and d in o.atoms(sp.Derivative) for o in derivs)]
        repl = {d: derivative(d, env, dps) for d in outer}
        concrete = expr.xreplace(repl).xreplace(env).doit()
        concrete = concrete.xreplace({x: _exact(_lookup(bases[x.base], x.indices))
                                      for x in concrete.atoms(sp.Indexed)})
        return sp.N(concrete, dps)

    def derivative(d, env, dps):
        if len(d.variable_count) != 1:
            raise ValueError("mixed partial derivatives are confirmed by SymPy only")
        (var, count), f = d.variable_count[0], d.expr

        def fn(t):
            work = mpmath.mp.dps + 10  # mpmath.diff raises the precision; f must keep up with it
            local = dict(env)
            local[var] = sp.Float(t, work)
            v = value(f, local, work)
            if not v.is_number or not v.is_real:
                raise ValueError("not a real number")
            return mpmath.mpf(v._mpf_) if hasattr(v, "_mpf_") else mpmath.mpf(sp.Float(v, work)._mpf_)

        with mpmath.workdps(dps + 10):
            r = mpmath.diff(fn, mpmath.mpf(sp.Float(env[var], dps + 10)._mpf_), int(count))
        return sp.Float(r, dps)

    return value(e, scalars)


def hp_compare(lhs, rhs, point: dict):
    """``(differ, L, R)`` at ``point``, or None where a side is undefined there."""
    L, R = hp_value(lhs, point), hp_value(rhs, point)
    if not (L.is_number and R.is_number) or L.has(sp.nan, sp.zoo, sp.oo, -sp.oo) \
            or R.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return None
    diff = abs(complex(sp.N(L - R, DPS)))
    scale = max(1.0, abs(complex(L)), abs(complex(R)))
    return diff > HP_REL * scale, L, R


def _shown(v) -> float | int | str:
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return v
    if getattr(v, "is_real", False):
        return float(v)
    return sp.sstr(sp.N(v, 15))


def _report_point(point: dict, exprs) -> dict:
    out = {}
    for s, v in point.items():
        if isinstance(s, sp.Symbol):
            out[str(s)] = v
    used = set()
    for e in exprs:  # the entries of indexed names the sides actually read, at this point
        try:
            concrete = _take_derivatives(e).xreplace(
                {s: _exact(v) for s, v in point.items() if isinstance(s, sp.Symbol)}).doit()
        except Exception:  # noqa: BLE001 - only for reporting
            continue
        used |= concrete.atoms(sp.Indexed)
    for x in sorted(used, key=str):
        try:
            out[str(x)] = _lookup(point[x.base], x.indices)
        except (IndexError, KeyError, TypeError):
            pass
    return out


# --- the symbolic side (runs in a child process) -------------------------------------------------

def _take_derivatives(e):
    return e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: sp.diff(x.expr, *x.variable_count))


def _short(e, limit: int = 300) -> str:
    s = sp.sstr(e)
    return s if len(s) <= limit else s[:limit - 3] + "..."


def symbolic(lhs, rhs, seed: int, seconds: float) -> dict:
    """Decide ``lhs − rhs ≡ 0``: a high-precision counterexample search, then the zero test."""
    from mathcheck import checker
    from mathcheck.claim import Context

    start = time.perf_counter()
    left = lambda: seconds - (time.perf_counter() - start)  # noqa: E731
    ok, d = attempt(lambda: _take_derivatives(lhs - rhs), max(left() * 0.2, 0.1))
    if not ok:
        return {"status": "inconclusive", "how": "taking SymPy's derivatives ran out of time",
                "difference": "", "seconds": time.perf_counter() - start}
    out = {"difference": _short(d)}
    if d == 0:
        return {**out, "status": "proved", "how": "structural", "seconds": time.perf_counter() - start}

    def search():
        for point in sample_points((lhs, rhs), seed + 1, HP_POINTS):
            try:
                r = hp_compare(lhs, rhs, point)
            except (ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError):
                continue
            if r is not None and r[0]:
                return point, r[1], r[2]
        return None

    ok, found = attempt(search, max(left() * 0.3, 0.1))
    if ok and found:
        point, L, R = found
        return {**out, "status": "refuted", "how": f"the sides differ at a point ({DPS} digits)",
                "counterexample": _report_point(point, (lhs, rhs)),
                "values": {"lhs": _shown(L), "rhs": _shown(R)}, "seconds": time.perf_counter() - start}
    if d.is_number:  # e.g. sin(x) vs sin(x) + 1e-10: a constant difference, decided by its value
        ok, v = attempt(lambda: sp.N(d.doit(), DPS), max(left() * 0.3, 0.1))
        if ok and v.is_number and not v.has(sp.nan, sp.zoo) and abs(complex(v)) > HP_REL:
            return {**out, "status": "refuted", "how": "the difference is a nonzero constant",
                    "values": {"difference": _shown(v)}, "seconds": time.perf_counter() - start}
    budget = max(left(), 0.1)
    decision = checker.zero_test(d, Context(), attempt_s=min(checker.DEFAULT_ATTEMPT_S, budget / 2),
                                 total_s=budget)
    res = {**out, "status": decision.status, "how": decision.how, "seconds": time.perf_counter() - start}
    if decision.value is False:
        res["counterexample"] = {k: v for k, v in decision.counterexample if k != "difference"}
        res["values"] = {"difference": dict(decision.counterexample).get("difference")}
    return res


# --- the whole check -------------------------------------------------------------------------------

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
                           seconds=time.perf_counter() - start)
    L, R = parsed
    sym_s = timeout * 0.6
    state, sym = run_in_child(lambda: symbolic(L, R, seed, sym_s), sym_s + 1.0)
    if state != "ok":
        why = "time budget ran out" if state == "timeout" else f"the symbolic check failed: {sym}"
        sym = {"status": "inconclusive", "how": why, "difference": ""}
    from mathcheck.verify.user import numeric  # torch, only now

    remaining = max(timeout - (time.perf_counter() - start), 1.0)
    ok, num = attempt(lambda: numeric(L, R, seed, POINTS), remaining)
    if not ok:
        num = {"status": "inconclusive", "points": 0, "skipped": 0, "max_abs_err": None,
               "reference": "torch float64", "note": "time budget ran out"}
    counterexample, values = None, None
    if sym["status"] == "refuted":
        status = "refuted"
        counterexample, values = sym.get("counterexample") or {}, sym.get("values")
    elif num["status"] == "refuted":
        status = "refuted"
        counterexample, values = num["counterexample"], num["values"]
    elif sym["status"] == "proved" and num["status"] == "passed":
        status = "proved"
    else:
        status = "inconclusive"
    sym = {k: v for k, v in sym.items() if k not in ("counterexample", "values")}
    num = {k: v for k, v in num.items() if k not in ("counterexample", "values")}
    return CheckResult(status, lhs_s, rhs_s, assumptions, seed, sym, num, counterexample, values,
                       seconds=time.perf_counter() - start)
