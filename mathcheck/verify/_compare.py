"""Shared bookkeeping for numeric checks that compare a derived side with PyTorch's side."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options


@dataclass
class Comparison:
    """Accumulates case-by-case comparisons; the first mismatch becomes the counterexample."""

    reference: str
    options: Options
    atol: float
    rtol: float
    trials: int = 0
    max_err: float = 0.0
    details: list = field(default_factory=list)
    counterexample: tuple = ()
    plots: list = field(default_factory=list)  # mathcheck.verdict.Plot values
    start: float = field(default_factory=time.perf_counter)

    def compare(self, case: str, expected: torch.Tensor, got, **where) -> bool:
        """``expected`` is PyTorch's value, ``got`` the statement's; False (and a counterexample) on mismatch."""
        got = torch.as_tensor(got, dtype=expected.dtype, device=expected.device)
        expected, got = torch.broadcast_tensors(expected, got)
        self.trials += 1
        diff = (expected - got).abs()
        err = float(diff.max()) if diff.numel() else 0.0
        if err != err:  # NaN
            err = float("inf")
        self.max_err = max(self.max_err, err)
        bad = ~torch.isclose(got, expected, atol=self.atol, rtol=self.rtol)
        self.details.append(f"{case}: max |error| {err:.3g}")
        if bool(bad.any()) and not self.counterexample:
            idx = tuple(torch.nonzero(bad)[0].tolist())
            self.counterexample = (("case", case),) + tuple((k, str(v)) for k, v in where.items()) + (
                ("entry", str(idx)), ("pytorch", f"{float(expected[idx]):.12g}"),
                ("statement", f"{float(got[idx]):.12g}"))
            return False
        return True

    def verdict(self) -> NumericVerdict:
        return NumericVerdict(
            status="refuted" if self.counterexample else "passed",
            reference=self.reference,
            trials=self.trials,
            max_abs_err=self.max_err,
            atol=self.atol,
            rtol=self.rtol,
            seed=self.options.seed,
            counterexample=self.counterexample,
            details=tuple(self.details),
            dtype=self.options.dtype,
            device=self.options.device,
            seconds=time.perf_counter() - self.start,
            plots=tuple(self.plots),
        )


def generator(options: Options, salt: int = 0) -> torch.Generator:
    return torch.Generator(device="cpu").manual_seed(options.seed * 7919 + salt)


def dtype(options: Options):
    return getattr(torch, options.dtype)
