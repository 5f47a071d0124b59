r"""A probability link ``lhs REL rhs`` (``E``, ``Var``, ``Cov`` in it): the facts read, both sides checked.

The chain's facts about its random variables come from ``assume:`` lines (``% assume:`` in LaTeX),
one statement per ``;`` (:func:`read_facts`)::

    assume: X, Y independent
    assume: q_i, k_i independent, zero mean, unit variance     # every q_i, k_i: mutually independent
    assume: X ~ Bernoulli(p)
    assume: Z random

A name starting with a capital letter inside ``E``/``Var``/``Cov`` is random without being declared
(``E(X^2)``); a lowercase one is a constant there unless declared (``E(a*X + b)``).

The check (:func:`check`) keeps the honesty rule of every link (:func:`mathcheck.outcome.combine`):

* **symbolic**: :func:`mathcheck.symbolic.expectation.lower` rewrites each side by the rules of
  probability (each side condition checked, each rule named in the report), then the user
  pipeline's step checker (:func:`mathcheck.userexpr.symbolic_side.symbolic`) decides the relation over
  the moment symbols that remain. Only a proof counts from this side: a counterexample over moment
  symbols need not be a distribution (E[X²] ≥ E[X]² fails at the numbers E[X²] = 0, E[X] = 1);
* **numeric**: :mod:`mathcheck.numeric.distributions` draws :data:`DRAWS` distributions honouring
  the facts and evaluates both sides *by definition* (not by the rules), exactly for finite ones; a
  disagreement is the counterexample, a distribution, printed.

    >>> read_facts("X, Y independent; X zero mean").zero_mean
    frozenset({'X'})
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from mathcheck import relations
from mathcheck.lazy import sympy as sp
from mathcheck.numeric.distributions import CONTINUOUS, DISCRETE, PARAMETERS, Facts

if TYPE_CHECKING:
    from mathcheck.userexpr.relation import CheckResult


DRAWS = 24  # distributions drawn per link
MAX_MISSES = 200  # draws that miss a constraint before the numeric side gives up
FAMILY_NAMES = {
    "normal": "Normal",
    "gaussian": "Normal",
    "n": "Normal",
    "bernoulli": "Bernoulli",
    "categorical": "Categorical",
    "cat": "Categorical",
    "uniform": "Uniform",
    "u": "Uniform",
    "exponential": "Exponential",
    "exp": "Exponential",
    "laplace": "Laplace",
}
# a property word ends its statement or a list item (so a variable named mean_0=... is not a fact)
_WORDS = re.compile(r"\b(independent|zero[ _]mean|mean[ _]0|unit[ _]variance|variance[ _]1|random)(?=\s*(?:[,;}]|$))|~")
_NAME = re.compile(r"^([A-Za-z][A-Za-z0-9]*)(?:_\{?([A-Za-z0-9]+)\}?|\[([A-Za-z0-9]+)\])?$")


# a declared law (symbolic/laws.py): "p(x, z), q(z) laws", and its positivity: "p(x, z) > 0"
_LAWS = re.compile(r"^\s*([A-Za-z]\w*\s*\([^()]*\)(?:\s*,\s*[A-Za-z]\w*\s*\([^()]*\))*)\s+laws?\s*$")
_LAW_ITEM = re.compile(r"([A-Za-z]\w*)\s*\(([^()]*)\)")
_POSITIVE = re.compile(r"^\s*([A-Za-z]\w*)\s*\(([^()]*)\)\s*>\s*0\s*$")


class FactError(ValueError):
    """A statement about random variables that cannot be read (one line: what, and how to write it)."""


def is_fact(text: str) -> bool:
    """Whether an ``assume:`` text is about random variables (independence, moments, a distribution)."""
    return bool(_WORDS.search(text)) or any(_LAWS.match(t) or _POSITIVE.match(t) for t in text.split(";"))


def _law_statement(stmt: str, laws: dict, positive: set) -> bool:
    """``p(x, z), q(z) laws`` (each a law over the variables named) or ``p(x, z) > 0`` (positive at
    every value of its variables) added to ``laws``/``positive``; False for another statement."""
    m = _LAWS.match(stmt)
    if m:
        from mathcheck.parser import PROBABILITY, reserved

        for name, args in _LAW_ITEM.findall(m.group(1)):
            if name in reserved() or name in PROBABILITY or name.startswith("E_"):
                raise FactError(f"assume: {stmt!r}: {name} is a name mathcheck keeps for itself; name the law p or q")
            names = [a.strip() for a in args.split(",")]
            if not all(re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?", a) for a in names):
                raise FactError(f"assume: {stmt!r}: a law is declared over its variables' names, e.g. 'p(x, z) law'")
            if len(set(names)) != len(names):
                raise FactError(f"assume: {stmt!r}: {name} names a variable twice")
            if name in laws and laws[name] != tuple(names):
                raise FactError(f"assume: {name} is declared a law twice, over different variables")
            laws[name] = tuple(names)
        return True
    m = _POSITIVE.match(stmt)
    if m:
        if "|" in m.group(2):
            raise FactError(
                f"assume: {stmt!r}: state the positivity of the joint law, e.g. 'p(x, z) > 0' (a conditional "
                f"of a positive law is positive)"
            )
        positive.add((m.group(1), frozenset(a.strip() for a in m.group(2).split(","))))
        return True
    return False


def _names(text: str, whole: str) -> list[tuple[str, bool]]:
    """``"X, q_i"`` → ``[("X", False), ("q", True)]`` (True: an entry of a family)."""
    out = []
    for part in text.replace(" and ", ",").split(","):
        part = part.strip()
        if not part:
            continue
        m = _NAME.match(part)
        if not m:
            raise FactError(
                f"assume: {whole!r}: {part!r} is not a random variable's name; write e.g. "
                f"'X, Y independent' or 'q_i, k_i independent, zero mean, unit variance'"
            )
        out.append((m.group(1), bool(m.group(2) or m.group(3))))
    return out


def read_facts(text: str, facts: Facts | None = None) -> Facts:
    """``facts`` with the statements of one ``assume:`` text added (``;`` separates statements)."""
    f = facts or Facts()
    random_, groups, comps = set(f.random), list(f.independent), set(f.components)
    zero, unit, dists = set(f.zero_mean), set(f.unit_variance), dict(f.distributions)
    laws, positive = dict(f.laws), set(f.positive)
    for stmt in (s.strip() for s in text.split(";")):
        if not stmt:
            continue
        if _law_statement(stmt, laws, positive):
            continue
        if "~" in stmt:
            name, _, dist = stmt.partition("~")
            ((n, _),) = _names(name, stmt) or [(None, None)]
            dists[n] = _distribution(dist.strip(), stmt)
            random_.add(n)
            continue
        m = re.search(r"\s(independent|zero[ _]mean|mean[ _]0|unit[ _]variance|variance[ _]1|random)\b", " " + stmt)
        if not m:
            raise FactError(
                f"assume: {stmt!r} says nothing read about random variables; write 'X, Y independent', "
                f"'X zero mean', 'X unit variance', 'X random' or 'X ~ Normal(mu, sigma^2)'"
            )
        names = _names(stmt[: m.start()], stmt)
        if not names:
            raise FactError(f"assume: {stmt!r}: name the random variables first, e.g. 'X, Y independent'")
        props = [p.strip().replace("_", " ") for p in stmt[m.start() :].split(",")]
        for p in props:
            if p == "independent":
                groups.append(frozenset(n for n, _ in names))
                comps |= {n for n, entry in names if entry}
            elif p in ("zero mean", "mean 0"):
                zero |= {n for n, _ in names}
            elif p in ("unit variance", "variance 1"):
                unit |= {n for n, _ in names}
            elif p == "random":
                pass
            else:
                raise FactError(
                    f"assume: {stmt!r}: {p!r} is not read; the properties are independent, zero mean, "
                    f"unit variance, random"
                )
        random_ |= {n for n, _ in names}
    for n in sorted(set(dists) & (zero | unit)):  # the law says its mean and variance
        raise FactError(
            f"assume: {n} has the law {dists[n][0]}, whose mean and variance are its own; "
            f"drop 'zero mean'/'unit variance' for {n} or its '~'"
        )
    merged = _merge(groups)
    return Facts(
        frozenset(random_),
        merged,
        frozenset(comps),
        frozenset(zero),
        frozenset(unit),
        dists,
        tuple(laws.items()),
        frozenset(positive),
    )


def check_laws(facts: Facts) -> None:
    """Every positivity fact is about a declared law and some of its variables (once all of a
    chain's facts are read: a positivity may be stated before its law)."""
    for name, variables in sorted(facts.positive, key=str):
        over = facts.law(name)
        if over is None:
            raise FactError(
                f"assume: {name}({', '.join(sorted(variables))}) > 0: {name} is no declared law; declare it, "
                f"e.g. 'assume: {name}({', '.join(sorted(variables))}) law'"
            )
        if not variables <= set(over):
            raise FactError(f"assume: {name}({', '.join(sorted(variables))}) > 0: {name} is a law of {', '.join(over)}")


def _merge(groups) -> tuple:
    """Independence groups as stated; a name in two statements keeps both (they must agree: X ⊥ Y
    and X ⊥ Z say nothing of Y and Z, so only disjoint groups are kept as separate statements)."""
    out: list = []
    for g in groups:
        if g in out:
            continue
        for h in out:
            if g & h and g != h:
                raise FactError(
                    f"assume: independence of {{{', '.join(sorted(g))}}} and of "
                    f"{{{', '.join(sorted(h))}}}: state mutual independence once, e.g. "
                    f"'{', '.join(sorted(g | h))} independent'"
                )
        out.append(g)
    return tuple(out)


def _distribution(text: str, stmt: str):
    m = re.match(r"^\\?(?:mathcal\{)?([A-Za-z]+)\}?\s*\((.*)\)$", text.strip())
    family = FAMILY_NAMES.get(m.group(1).lower()) if m else None
    if family is None:
        raise FactError(
            f"assume: {stmt!r}: the distributions read are "
            f"{', '.join(f'{k}({chr(44).join(v)})' for k, v in PARAMETERS.items())}"
        )
    from mathcheck.parser import ParseError, parse_many

    args = [a.strip() for a in _split_args(m.group(2))]
    if len(args) != len(PARAMETERS[family]):
        raise FactError(
            f"assume: {stmt!r}: {family} takes {len(PARAMETERS[family])} parameter(s): "
            f"{family}({', '.join(PARAMETERS[family])})"
        )
    if family == "Categorical":
        return family, (sp.IndexedBase(args[0], positive=True), sp.Symbol(args[1], integer=True, positive=True))
    try:
        params = parse_many(args, unused_ok=True)
    except ParseError as exc:
        raise FactError(f"assume: {stmt!r}: {exc}") from None
    return family, tuple(params)


def _split_args(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for c in s:
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    return out + [cur]


def facts_for(exprs, facts: Facts, every: bool = False) -> Facts:
    """``facts`` with every capitalised name inside an ``E``/``Var``/``Cov`` made random, and the
    parameters of the distributions re-expressed with the symbols the chain's parser built (so that
    ``p`` in ``Bernoulli(p)`` is the ``p`` of the link). ``every``: lowercase names there too (a
    chain whose prose calls its variables random — d2l's weights ``w_{ij}`` and inputs ``x_j``: read
    as constants, ``E[w_{ij} x_j] = E[w_{ij}] E[x_j]`` would be proved with no independence)."""
    from mathcheck.numeric.distributions import head

    found = set()
    for e in exprs:
        for x in sp.preorder_traversal(e):
            if head(x):
                for a in x.atoms(sp.Symbol, sp.Indexed):
                    name = str(a.base) if isinstance(a, sp.Indexed) else str(a)
                    if isinstance(a, sp.Symbol) and a.is_integer:  # a size or an index
                        continue
                    if name[:1].isupper() or every:
                        found.add(name)
    from mathcheck.numeric.symbols import by_name

    names = by_name(*exprs)
    dists = {
        n: (
            fam,
            tuple(
                p.xreplace({s: names.get(str(s), s) for s in p.atoms(sp.Symbol)})
                if not isinstance(p, sp.IndexedBase)
                else names.get(str(p), p)
                for p in params
            ),
        )
        for n, (fam, params) in facts.distributions.items()
    }
    import dataclasses

    return dataclasses.replace(facts, random=facts.random | found, distributions=dists)


# --- the check --------------------------------------------------------------------------------------


def _symbolic(lhs, rhs, relation, given, facts, seed, seconds) -> dict:
    """Lower both sides, then decide over the moment symbols; only a proof is kept."""
    from mathcheck.symbolic import laws
    from mathcheck.symbolic.expectation import Unsupported, lower
    from mathcheck.userexpr.symbolic_side import symbolic

    try:
        if laws.has_laws(lhs, rhs, *given):  # p(x, z), p(z | x), E_q: symbolic/laws.py
            if given:
                raise laws.Unsupported("a hypothesis beside laws is not read")
            (l, rules_l), (r, rules_r) = laws.lower(lhs, facts), laws.lower(rhs, facts)
            l, r = laws.symbols_for(l, r)
        else:
            (l, rules_l), (r, rules_r) = lower(lhs, facts), lower(rhs, facts)
    except (Unsupported, laws.Unsupported) as exc:
        return {"status": "inconclusive", "how": f"not decided by the rules of probability: {exc}", "difference": ""}
    rules = list(dict.fromkeys(rules_l + rules_r))
    out = symbolic(l, r, relation, given, seed, seconds)
    if out.get("status") != "proved" and not laws.has_laws(lhs, rhs) and not given:
        from mathcheck.symbolic.expectation import jensen

        rule = jensen(lhs, rhs, relation)
        if rule is not None:  # φ(E[g]) ≤ E[φ(g)], the convexity of φ shown
            out, rules = {"status": "proved", "how": "φ(E[g]) against E[φ(g)]", "difference": ""}, [rule]
    if out.get("status") != "proved" and relation in (">=", "<=") and laws.has_laws(lhs, rhs):
        for k, more in laws.gibbs(lhs, rhs, facts):  # L ≥ R from L − R − KL ≥ 0 and KL ≥ 0
            big, small = (l, r) if relation == ">=" else (r, l)
            d, kk = laws.symbols_for(big - small, k)
            tried = symbolic(sp.expand(d - kk), sp.Integer(0), ">=", given, seed, seconds)
            if tried.get("status") == "proved":
                out, rules = tried, list(dict.fromkeys(rules + more))
                break
    used = "; ".join(rules) if rules else "no rule of probability needed"
    if out.get("status") == "proved":
        return {
            "status": "proved",
            "how": f"{used}; then {out.get('how', '')}".strip("; "),
            "difference": out.get("difference", ""),
            "lowered": f"{sp.sstr(l)} {relation} {sp.sstr(r)}",
        }
    return {
        "status": "inconclusive",
        "how": f"{used}; over the moments left, {sp.sstr(l)} {relation} {sp.sstr(r)} is not shown",
        "difference": out.get("difference", ""),
    }


def _digits(e, digits: int):
    """``e`` as a SymPy Float of ``digits`` digits, or None when it is not real there. Sides are
    compared at these digits, never after rounding to float64 (two equal values could round to
    neighbouring floats and differ by far more than the tolerance)."""
    re_, im_ = sp.N(e, digits).as_real_imag()
    if not (re_.is_number and im_.is_number) or (
        im_ != 0 and abs(im_) > sp.Float(10) ** (-digits // 2) * max(1, abs(re_))
    ):
        return None
    return sp.Float(re_, digits)


def _holds(l, r, relation: str, tol: float) -> bool:
    d = l - r  # SymPy Floats at PRECISION_DIGITS: the difference keeps their digits
    scale = sp.Float(tol, 50) * max(sp.Float(1), abs(l), abs(r))
    return bool(relations.of(relation).within(d, scale))


def numeric(lhs, rhs, relation, given, facts, seed: int, seconds: float, prose: bool | str = False) -> dict:
    """Both sides on :data:`DRAWS` drawn distributions, by definition (exact for finite ones). In a
    document read with its prose (``prose``: LaTeX), a refutation that independence would undo —
    d2l's ``Var(X + Y) = Var(X) + Var(Y)`` under "if X and Y are independent" — is inconclusive,
    with the fact to state: independence is never assumed, the independent draws only decide
    whether the refutation stands. A chain written for mathcheck states its facts: refuted.

    ``prose`` a string: the words of the prose that state facts about the random variables of a chain
    that states none ("independently", "zero mean"); any refutation is then inconclusive, saying so."""
    import dataclasses

    num = _numeric(lhs, rhs, relation, given, facts, seed, seconds)
    if isinstance(prose, str) and prose and num["status"] == "refuted":
        return _prose_says(num, prose)
    names = sorted(facts.random)
    if not prose or num["status"] != "refuted" or facts.independent or len(names) < 2:
        return num
    together = dataclasses.replace(facts, independent=(frozenset(names),))
    if _numeric(lhs, rhs, relation, given, together, seed, seconds)["status"] != "passed":
        return num
    note = (
        f"fails at a drawn distribution, but holds when {', '.join(names)} are independent — which prose "
        f"often states; if so, say it: % assume: {', '.join(names)} independent"
    )
    return _inconclusive(note, num["points"], num["evaluator"])


def _numeric_laws(lhs, rhs, relation, given, facts, seed: int, seconds: float) -> dict:
    """Both sides on :data:`DRAWS` random finite laws (:mod:`mathcheck.numeric.laws`), at every value
    of the law variables free in them, by definition; the logs at PRECISION_DIGITS, compared within
    HP_REL relative."""
    from mathcheck.numeric import PRECISION_DIGITS
    from mathcheck.numeric import laws
    from mathcheck.numeric.tolerance import HP_REL

    evaluator = f"random finite laws (rational tables), logs at {PRECISION_DIGITS} digits"
    if given:
        note = "a hypothesis beside laws is not read"
        return _inconclusive(note, 0, evaluator)
    free = sorted(set(laws.free_variables(lhs, facts)) | set(laws.free_variables(rhs, facts)))
    start, done, misses, trial, failure = time.monotonic(), 0, 0, 0, ""
    while done < DRAWS and misses < MAX_MISSES and time.monotonic() - start <= seconds:
        trial += 1
        d = laws.draw(facts, seed, trial - 1)
        if not laws.honours(d, facts):
            misses += 1
            continue
        try:
            pairs = []
            for at in laws.points(d, free):
                a = _digits(laws.value(lhs, d, facts, at), PRECISION_DIGITS)
                b = _digits(laws.value(rhs, d, facts, at), PRECISION_DIGITS)
                if a is None or b is None:
                    raise laws.Undefined("a side is not a real number there")
                pairs.append((at, a, b))
        except laws.Undefined as exc:
            misses += 1
            failure = failure or str(exc)
            continue
        done += 1
        for at, a, b in pairs:
            if not _holds(a, b, relation, HP_REL):
                point = {k: str(v) for k, v in at.items()}
                point.update(d.shown())
                return {
                    "status": "refuted",
                    "points": done,
                    "skipped": 0,
                    "max_abs_err": float(abs(a - b)),
                    "evaluator": evaluator,
                    "counterexample": point,
                    "values": {"lhs": float(a), "rhs": float(b)},
                    "note": f"at drawn laws, beyond {HP_REL:g} relative",
                    "summary": f"fails at drawn laws (beyond {HP_REL:g} relative)",
                }
    if done < DRAWS:
        note = f"only {done} of {DRAWS} drawn laws gave both sides a value" + (f" (one: {failure})" if failure else "")
        return _inconclusive(note, done, evaluator)
    return {
        "status": "passed",
        "points": done,
        "skipped": 0,
        "max_abs_err": None,
        "evaluator": evaluator,
        "note": f"{done} drawn laws",
        "summary": f"agrees within {HP_REL:g} relative on {done} drawn laws"
        + (f" ({misses} more draws left a side undefined)" if misses else ""),
    }


def _numeric(lhs, rhs, relation, given, facts, seed: int, seconds: float) -> dict:
    from mathcheck.numeric import PRECISION_DIGITS
    from mathcheck.symbolic.laws import has_laws

    if has_laws(lhs, rhs, *given):
        return _numeric_laws(lhs, rhs, relation, given, facts, seed, seconds)
    from mathcheck.symbolic.expectation import undeclared_events

    missing = undeclared_events((lhs, rhs, *given), facts)
    if missing:  # P(X = 1) of a variable without a law: a drawn law would be a guess
        return _inconclusive(missing, 0, _evaluator(True))
    from mathcheck.numeric import montecarlo
    from mathcheck.numeric.distributions import NotExact, draw, value
    from mathcheck.numeric.tolerance import HP_REL, QUADRATURE_REL

    symbols = set()
    for e in (lhs, rhs, *given):
        symbols |= e.atoms(sp.Symbol) | {a.base for a in e.atoms(sp.Indexed)}
    for _, params in facts.distributions.values():  # a distribution's parameters are drawn too
        for p in params:
            symbols |= {p} if isinstance(p, sp.IndexedBase) else p.atoms(sp.Symbol)
    symbols -= {v for e in (lhs, rhs, *given) for s in e.atoms(sp.Sum, sp.Product) for v, *_ in s.limits}
    symbols -= {b.label for b in symbols if isinstance(b, sp.IndexedBase)}  # p in p[k] is not a number
    start, done, misses, trial, exact, failure = time.monotonic(), 0, 0, 0, True, ""
    mc, tested = None, 0  # the Monte Carlo test with the largest detectable error; tests run
    while done < DRAWS and misses < MAX_MISSES:
        if time.monotonic() - start > seconds:
            break
        trial += 1
        try:
            inst = draw(facts, sorted(symbols, key=str), seed, trial - 1)
            if inst is None or not all(_given_holds(g, inst) for g in given):
                misses += 1
                continue
            a = _digits(value(lhs, inst), PRECISION_DIGITS)
            b = _digits(value(rhs, inst), PRECISION_DIGITS)
        except NotExact as exc:  # never compared by the stand-in: Monte Carlo, or no verdict
            try:
                test = montecarlo.mean_test(lhs, rhs, relation, inst, facts, seed * 1000003 + trial, montecarlo.TESTS)
            except montecarlo.Heavy as why:
                misses += 1
                failure = failure or str(why)[:200]
                continue
            except NotExact as why:
                test, exc = None, f"{exc}; {why}"
            except Exception as why:  # noqa: BLE001 - a parameter outside its domain, a pole: a miss
                misses += 1
                failure = failure or f"{type(why).__name__}: {why}"[:200]
                continue
            if test is not None:
                done += 1
                tested += 1
                mc = test if mc is None or test.detectable > mc.detectable else mc
                if test.rejected:
                    point = {str(k): sp.sstr(v) for k, v in inst.values.items()}
                    point.update(inst.shown)
                    note = (
                        f"at a drawn distribution, the mean estimated {test.estimate:.6g} where the link needs "
                        f"{test.target:.6g} (|z| = {abs(test.z):.3g}); {test.words()}"
                    )
                    return {
                        "status": "refuted",
                        "points": done,
                        "skipped": 0,
                        "max_abs_err": abs(test.estimate - test.target),
                        "evaluator": "Monte Carlo over the drawn distributions",
                        "counterexample": point,
                        "values": None,
                        "note": note,
                        "summary": f"fails at a drawn distribution ({note})",
                    }
                if tested >= montecarlo.TESTS:  # the tests the rate was split over: done
                    break
                continue
            note = str(exc)
            return _inconclusive(note, done, _evaluator(False))
        except Exception as exc:  # noqa: BLE001 - a parameter outside its domain, a pole: a miss, never a pass
            misses += 1
            failure = failure or f"{type(exc).__name__}: {exc}"[:200]
            continue
        exact &= inst.exact  # after evaluating: a KL replaces its distribution by quadrature as it goes
        tol = HP_REL if inst.exact else QUADRATURE_REL
        if a is None or b is None:  # a side that is not a real number there
            misses += 1
            continue
        done += 1
        if not _holds(a, b, relation, tol):
            loose = _untied(lhs, rhs, facts)
            if loose:
                note = (
                    f"fails at a drawn distribution, but {', '.join(loose)} on one side is tied to the random "
                    f"variables by no fact, so it is read as unrelated to them — which its author rarely "
                    f"means (E[X] = \\sum_i x_i p_i: X takes x_i with probability p_i); state how "
                    f"(% assume: X \\sim …) to decide it"
                )
                return _inconclusive(note, done, _evaluator(inst.exact))
            point = {
                str(k): (sp.sstr(v) if not isinstance(v, list) else "(" + ", ".join(map(sp.sstr, v)) + ")")
                for k, v in inst.values.items()
            }
            point.update(inst.shown)
            return {
                "status": "refuted",
                "points": done,
                "skipped": 0,
                "max_abs_err": float(abs(a - b)),
                "evaluator": _evaluator(inst.exact),
                "counterexample": point,
                "values": {"lhs": float(a), "rhs": float(b)},
                "note": "at a drawn distribution" + ("" if inst.exact else f", beyond {tol:g} relative"),
                "summary": "fails at a drawn distribution"
                + (" (exact)" if inst.exact else f" (beyond {tol:g} relative)"),
            }
    if done < (montecarlo.TESTS if tested >= montecarlo.TESTS else DRAWS):
        note = f"only {done} of {DRAWS} draws met the facts and hypotheses" + (
            f" (one failed: {failure})" if failure else ""
        )
        return _inconclusive(note, done, _evaluator(exact))
    how = "exactly" if exact else f"within {QUADRATURE_REL:g} relative (Gauss quadrature)"
    if mc is not None:
        how = f"by {mc.words()} (the largest over the draws)"
    return {
        "status": "passed",
        "points": done,
        "skipped": 0,
        "max_abs_err": None,
        "evaluator": _evaluator(exact),
        "note": f"{done} drawn distributions",
        "summary": f"agrees {how} on {done} drawn distributions"
        + (f" ({misses} more draws missed the facts or hypotheses)" if misses else ""),
    }


def _untied(lhs, rhs, facts) -> list[str]:
    """The constants on one side only — names neither random, nor on the other side, nor in a fact's
    distribution (sizes and summation variables aside), sorted: ``x``, ``p`` in ``E[X] = \\sum_i x_i
    p_i``; ``mu_X`` in ``Var(X) = E[(X - mu_X)^2]`` (d2l: μ_X is E[X], said in prose). A refutation
    there says only that a number the prose ties to the random variables was drawn free.

        >>> X, x, p = sp.symbols("X x p")
        >>> _untied(sp.Function("E")(X), x * p, Facts(frozenset({"X"})))
        ['p', 'x']
    """

    def names(e) -> set:
        bound = {v for s in e.atoms(sp.Sum, sp.Product) for v, *_ in s.limits}
        out = {str(a.base) for a in e.atoms(sp.Indexed)}
        return out | {str(a) for a in e.atoms(sp.Symbol) - bound if not a.is_integer}

    in_facts = {
        str(a)
        for _, params in facts.distributions.values()
        for q in params
        for a in (q.atoms(sp.Symbol) if isinstance(q, sp.Basic) else ())
    } | facts.names()
    in_facts |= {  # a threshold of an event, P(X > t), is tied to X by the event
        str(a)
        for e in (lhs, rhs)
        for x in sp.preorder_traversal(e)
        if isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ == "Pr"
        for a in x.atoms(sp.Symbol)
    }
    loose = set()
    for side, other in ((lhs, rhs), (rhs, lhs)):
        loose |= names(side) - names(other) - {str(a) for a in other.atoms(sp.Symbol)} - in_facts
    return sorted(loose)


def _prose_says(num: dict, said: str) -> dict:
    """A refutation in a chain whose prose states facts about its random variables: inconclusive."""
    note = (
        f"fails at a drawn distribution, but the prose says the random variables are '{said}', which "
        f"mathcheck reads only from % assume: facts; state them (% assume: X, Y \\text{{ independent}}, "
        f"X \\text{{ zero mean}}) to decide it"
    )
    if said.startswith("law:"):  # H, I of X, Y read under a joint law the notation implies (latex/information.py)
        ce = num.get("counterexample")
        note = (
            f"fails at a drawn joint law {said[4:].removesuffix(' law')}"
            + (f" ({'; '.join(f'{k} = {v}' for k, v in ce.items())})" if isinstance(ce, dict) and ce else "")
            + ", but the joint law of the random variables is all mathcheck knows of them: what the prose "
            "may say relates them (one an invertible function of the other, independence, P = Q) is not "
            "read, and no % assume: fact states it yet: the link is not decided"
        )
    return _inconclusive(note, num["points"], num["evaluator"])


def _evaluator(exact: bool) -> str:
    return (
        "exact, finite distributions drawn for the facts"
        if exact
        else "finite distributions and Gauss quadrature at 30 digits"
    )


def _given_holds(g, inst) -> bool:
    from mathcheck.numeric.distributions import value

    try:
        v = value(g, inst)
        return bool(v) if v in (sp.true, sp.false) else bool(sp.N(v, 50))
    except (TypeError, ValueError):
        return False


def check(
    lhs,
    rhs,
    relation: str,
    assumptions: dict,
    given,
    facts: Facts,
    seed: int = 0,
    timeout: float = 30.0,
    *,
    lhs_text: str | None = None,
    rhs_text: str | None = None,
    prose: bool | str = False,
) -> CheckResult:
    """``given ⇒ lhs REL rhs`` for a link with expectations, as a
    :class:`mathcheck.userexpr.relation.CheckResult` (derive prints it as any other link)."""
    from mathcheck.outcome import combine
    from mathcheck.userexpr import child
    from mathcheck.userexpr.relation import SYMBOLIC_SHARE, CheckResult, NumericSide, SymbolicSide

    begin = time.perf_counter()
    given = tuple(given or ())
    facts = facts_for((lhs, rhs, *given), facts, every=isinstance(prose, str) and bool(prose))
    base = dict(
        lhs=lhs_text or sp.sstr(lhs),
        rhs=rhs_text or sp.sstr(rhs),
        assumptions={k: tuple(v) for k, v in (assumptions or {}).items()},
        seed=seed,
        relation=relation,
        given=tuple(sp.sstr(g) for g in given),
        timeout=timeout,
    )
    sym_s = timeout * SYMBOLIC_SHARE

    def numeric_side() -> dict:
        try:
            return numeric(lhs, rhs, relation, given, facts, seed, max(timeout - sym_s, 1.0), prose)
        except Exception as exc:  # noqa: BLE001 - the machinery must not crash on a user's formula
            return {
                "status": "inconclusive",
                "points": 0,
                "skipped": 0,
                "max_abs_err": None,
                "evaluator": "",
                "note": f"the numeric side failed: {type(exc).__name__}: {exc}"[:300],
            }

    sym, num = child.beside(lambda: _symbolic(lhs, rhs, relation, given, facts, seed, sym_s), numeric_side, sym_s)
    status = combine(sym["status"], num["status"])
    counterexample = values = None
    if num["status"] == "refuted":
        how = f"{num['evaluator']}: {num['note']}"
        counterexample, values = num["counterexample"], num["values"]
    elif status == "proved" or sym["status"] != "proved":
        how = sym.get("how", "")
    else:
        how = num.get("note", "numeric check did not pass")
    num = {k: v for k, v in num.items() if k not in ("counterexample", "values")}
    return CheckResult(
        status,
        symbolic=SymbolicSide.of(sym),
        numeric=NumericSide.of(num),
        counterexample=counterexample,
        values=values,
        seconds=time.perf_counter() - begin,
        how=how,
        evaluator=num.get("evaluator", ""),
        **base,
    )


__all__ = ["CONTINUOUS", "DISCRETE", "FactError", "Facts", "check", "facts_for", "is_fact", "read_facts"]


def _inconclusive(note: str, points: int, evaluator: str) -> dict:
    """The numeric side's account of a link it does not decide: ``note`` says why (and what to state)."""
    return {
        "status": "inconclusive",
        "points": points,
        "skipped": 0,
        "max_abs_err": None,
        "evaluator": evaluator,
        "note": note,
        "summary": f"numeric inconclusive ({note})",
    }
