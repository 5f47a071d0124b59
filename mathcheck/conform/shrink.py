"""Shrink a failing input like Hypothesis does: smaller sizes first, then simpler values, keeping
the failure (of the same kind: a mismatch stays a mismatch, an exception stays an exception).

Candidates for a size n, smallest first: the property's minimum, n // 2, n − 1. A candidate is
kept when the property still fails *the same way* (:meth:`Outcome.way`: the same exception type,
a shape still wrong, or a value still off by at least min(the original |err|/tol, 100) tolerances —
so a shrink never lands where the bug is gone and only rounding is left); the search restarts
from the new point and stops when no candidate fails (or after ``budget`` runs). Deterministic: every run draws from
:func:`~mathcheck.conform.property.generator` of (seed, property, sizes, simple).
"""

from __future__ import annotations

from mathcheck.conform.property import Outcome, Property, generator


def run_once(prop: Property, fn, sizes: dict, seed: int, simple: bool, variant) -> Outcome:
    gen = generator(seed, prop, sizes, simple)
    return prop.check(fn, dict(sizes), gen, simple, variant)


def shrink(
    prop: Property, fn, sizes: dict, seed: int, variant, outcome: Outcome, simple: bool = False, budget: int = 40
) -> tuple[dict, bool, Outcome]:
    """The smallest (sizes, simple, outcome) found that still fails like ``outcome``."""
    way, needed = outcome.way(), min(outcome.ratio(), 100.0)

    def fails(o: Outcome) -> bool:
        return (not o.ok) and o.way() == way and (way[0] != "value" or o.ratio() >= needed)

    runs = 0
    improved = True
    while improved and runs < budget:
        improved = False
        for name in sizes:
            lo = prop.minimum.get(name, 1)
            n = sizes[name]
            for cand in sorted({lo, n // 2, n - 1}):
                if cand < lo or cand >= n or runs >= budget:
                    continue
                trial = dict(sizes, **{name: cand})
                runs += 1
                try:
                    o = run_once(prop, fn, trial, seed, simple, variant)
                except (LookupError, ArithmeticError, ValueError):  # our side cannot take this size
                    continue
                if fails(o):
                    sizes, outcome, improved = trial, o, True
                    break
            if improved:
                break
    if not simple and runs < budget:
        try:
            o = run_once(prop, fn, sizes, seed, True, variant)
        except (LookupError, ArithmeticError, ValueError):
            o = outcome
        if fails(o) and o is not outcome:
            simple, outcome = True, o
    return sizes, simple, outcome
