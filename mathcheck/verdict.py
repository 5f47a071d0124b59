"""Verdicts: what proving a claim or refuting its mutants found, as plain immutable values.

The renderers (terminal, JSON, LaTeX, Markdown) all read these objects and nothing else.

Honesty rules, enforced by :func:`mathcheck.outcome.combine`:

* ``proved``: every symbolic step checked **and** the numeric check passed;
* ``refuted``: a symbolic step shown false, or the numeric check found a counterexample;
* ``inconclusive``: anything else (a step out of budget, numeric agreement without a proof, ...);
* ``error``: the machinery itself failed (a bug or a broken environment), reported, never hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathcheck.outcome import ExitByStatus, replay

STATUSES = ("proved", "refuted", "inconclusive", "error")
NUMERIC_STATUSES = ("passed", "refuted", "inconclusive", "error")


@dataclass(frozen=True)
class Plot:
    """Data a writeup draws: one figure, one or more series of (x, y) points. Checks attach plots
    where a reader would rather look than read (saturation against d_k, entropy against T, ...)."""

    name: str  # a file-name-safe id, e.g. "max-weight-vs-dk"
    title: str
    xlabel: str
    ylabel: str
    series: tuple  # ((label, (x, ...), (y, ...)), ...)
    logx: bool = False
    logy: bool = False
    kind: str = "line"  # or "heatmap": series = (("values", rows, ()),) with rows a tuple of tuples


@dataclass(frozen=True)
class NumericVerdict:
    """The numeric check of a set of statements against PyTorch.

    ``status`` is ``passed`` (agreement within tolerance / the test did not reject), ``refuted``
    (a counterexample), ``inconclusive`` or ``error``. Agreement is evidence, never a proof.
    """

    status: str
    reference: str
    trials: int
    max_abs_err: float | None
    atol: float | None = None
    rtol: float | None = None
    seed: int = 0
    counterexample: tuple = ()  # ((name, value), ...)
    details: tuple[str, ...] = ()
    test: str = ""  # the statistical test, for Monte Carlo checks
    dtype: str = "float64"
    device: str = "cpu"
    seconds: float = 0.0
    plots: tuple = ()  # Plot values, for writeups
    tolerance: str = ""  # how the tolerances were set (derived per comparison, or fixed)
    comparisons: tuple = ()  # ((case, max |err|, tolerance), ...), one per comparison
    unevaluated: tuple = ()  # ((part, why its left side was not evaluated), ...)
    power: str = ""  # statistical checks: the smallest relative error detected with power ≥ 1 − 1e-6

    def __post_init__(self):
        if self.status not in NUMERIC_STATUSES:
            raise ValueError(f"numeric status {self.status!r} not in {NUMERIC_STATUSES}")


@dataclass(frozen=True)
class SymbolicVerdict:
    status: str
    general: bool
    parts: tuple  # of checker.PartResult
    seconds: float = 0.0

    @property
    def failing(self) -> Any:  # symbolic/walker's StepResult, or None (values import no kernel)
        for p in self.parts:
            s = p.failing
            if s is not None:
                return s
        return None


@dataclass(frozen=True)
class ClaimVerdict(ExitByStatus):
    claim: Any  # mathcheck.claim.Claim
    status: str
    symbolic: SymbolicVerdict
    numeric: NumericVerdict
    seed: int
    error: str = ""
    options: tuple = ()  # the other options that change a result: (("--dtype", "float32"), ...)

    @property
    def replay(self) -> str:
        return replay("prove", [self.claim.id], (("--seed", self.seed), *self.options))


@dataclass(frozen=True)
class MutantVerdict:
    mutant: Any  # mathcheck.claim.Mutant
    status: str
    symbolic: Any  # checker.Decision | None (None: no symbolic counterpart could be derived)
    numeric: NumericVerdict
    counterexample: tuple = ()

    @property
    def name(self) -> str:
        return self.mutant.name


@dataclass(frozen=True)
class RefuteVerdict(ExitByStatus):
    claim: Any
    mutants: tuple[MutantVerdict, ...]
    seed: int
    error: str = ""
    options: tuple = ()  # as ClaimVerdict.options

    @property
    def all_refuted(self) -> bool:
        return not self.error and all(m.status == "refuted" for m in self.mutants)

    @property
    def status(self) -> str:
        """The outcome of refuting the claim's mutants, in :mod:`mathcheck.outcome`'s words (not
        printed): ``holds`` when every mutant is refuted, ``fails`` when one survived (exit 1),
        ``error`` when the claim could not be built (exit 4)."""
        return "error" if self.error else "holds" if self.all_refuted else "fails"

    @property
    def replay(self) -> str:
        return replay("refute", [self.claim.id], (("--seed", self.seed), *self.options))


def mutant_status(symbolic, numeric: str) -> str:
    """A mutant is refuted when either machine refutes it; if the checker *proves* it, the
    "mistake" is true and the mutant is mislabelled, which is reported as ``proved``."""
    sym = None if symbolic is None else symbolic.value
    if numeric == "error":
        return "error"
    if sym is False or numeric == "refuted":
        return "refuted"
    if sym is True:
        return "proved"
    return "inconclusive"
