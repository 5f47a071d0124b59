"""The pipeline: claim → derive (SymPy, checked steps) → verify (torch) → verdict.

    >>> from mathcheck.registry import get
    >>> verdict = prove(get("cross-entropy-decomposition"), Options(seed=0))  # doctest: +SKIP
    >>> verdict.status                                                        # doctest: +SKIP
    'proved'
"""

from __future__ import annotations

import time
import traceback

from mathcheck import checker
from dataclasses import dataclass

from mathcheck.claim import Claim, Mutant, Source, relation_of
from mathcheck.verdict import (ClaimVerdict, MutantVerdict, NumericVerdict, RefuteVerdict,
                               SymbolicVerdict, combine, mutant_status)
from mathcheck.verify import Options, resolve


def derive(claim: Claim, attempt_s: float = checker.DEFAULT_ATTEMPT_S,
           step_s: float = checker.DEFAULT_STEP_S) -> SymbolicVerdict:
    """Check every step of every part of the claim."""
    start = time.perf_counter()
    parts = tuple(checker.check_part(p, claim.context, attempt_s, step_s) for p in claim.parts)
    statuses = {p.status for p in parts}
    status = "refuted" if "refuted" in statuses else "inconclusive" if "inconclusive" in statuses else "proved"
    return SymbolicVerdict(status, claim.general, parts, time.perf_counter() - start)


def _numeric_error(claim: Claim, options: Options, exc: BaseException) -> NumericVerdict:
    line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return NumericVerdict("error", claim.check, 0, None, seed=options.seed, details=(line,))


def verify(claim: Claim, statements: dict, options: Options) -> NumericVerdict:
    """Run the claim's numeric check on ``statements`` (the derived ones or a mutant's)."""
    try:
        return resolve(claim.check)(statements, options)
    except Exception as exc:  # reported as an "error" verdict, never as a pass
        return _numeric_error(claim, options, exc)


def prove(claim: Claim, options: Options = Options()) -> ClaimVerdict:
    symbolic = derive(claim)
    numeric = verify(claim, claim.statements(), options)
    status = combine(symbolic.status, numeric.status)
    return ClaimVerdict(claim, status, symbolic, numeric, options.seed)


def _symbolic_refutation(claim: Claim, mutant: Mutant):
    """Decide each replaced statement with the claim's own machinery.

    For an equation whose left-hand side the part derives (the same lhs, or one its rules can
    replay), decide ``derived rhs − mutant rhs``. Otherwise decide the mutant's statement as it
    stands (its relation, after the claim's definitions). Returns the first refuting Decision,
    else the most informative one, or None when nothing applies.
    """
    found = None
    for name, stmt in mutant.replace:
        part = claim.part(name)
        rel = relation_of(stmt)
        derived = None
        if rel == "=" and part.relation == "=":
            derived = part.rhs if stmt.lhs == part.lhs else checker.replay(part, stmt.lhs)
        if derived is not None:
            d = checker.zero_test(checker.difference(derived, stmt.rhs), claim.context)
        else:
            d = checker.relation_test(stmt.lhs, stmt.rhs, rel, claim.context)
        if d.value is False:
            return d
        found = d if found is None or d.value is True else found
    return found


def refute_one(claim: Claim, mutant: Mutant, options: Options) -> MutantVerdict:
    symbolic = _symbolic_refutation(claim, mutant)
    numeric = verify(claim, claim.mutated(mutant), options)
    status = mutant_status(symbolic, numeric.status)
    cex = numeric.counterexample or (symbolic.counterexample if symbolic is not None else ())
    return MutantVerdict(mutant, status, symbolic, numeric, cex)


def refute(claim: Claim, options: Options = Options()) -> RefuteVerdict:
    return RefuteVerdict(claim, tuple(refute_one(claim, m, options) for m in claim.mutants), options.seed)


@dataclass(frozen=True)
class BrokenClaim:
    """Stands in for a claim whose builder raised, so the failure is reported, not hidden."""

    id: str
    title: str
    source: Source
    seed_verdict: tuple = ("unknown", "")
    general: bool = False


def _broken(entry, exc: BaseException):
    line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    claim = BrokenClaim(entry.id, entry.title, Source(entry.section, entry.zh, entry.en))
    numeric = NumericVerdict("error", entry.check, 0, None, details=(f"building the claim failed: {line}",))
    return claim, SymbolicVerdict("error", False, ()), numeric, line


def prove_entry(entry, options: Options = Options()) -> ClaimVerdict:
    """Build the registered claim and prove it; a builder that raises gives an ``error`` verdict."""
    try:
        claim = entry.build()
    except Exception as exc:
        claim, symbolic, numeric, line = _broken(entry, exc)
        return ClaimVerdict(claim, "error", symbolic, numeric, options.seed, error=line)
    return prove(claim, options)


def refute_entry(entry, options: Options = Options()) -> RefuteVerdict:
    try:
        claim = entry.build()
    except Exception as exc:
        claim, _, _, line = _broken(entry, exc)
        return RefuteVerdict(claim, (), options.seed, error=line)
    return refute(claim, options)
