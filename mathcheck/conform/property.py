"""A property: a check of the user's callable against a derived formula, at given sizes and seed.

``check(fn, sizes, gen, simple, variant) -> Outcome``. ``sizes`` maps names (B, H, L, D, ...) to
integers, ``gen`` is the seeded generator of every draw, ``simple`` asks for small-integer values
(the shrinker's "simpler values"). Comparisons are in float64 with a tolerance derived from the
precision the target computes in (measured by :mod:`mathcheck.conform.precision`) and the size of
the reduction, by the catalog's error model (see :func:`tolerance`).
"""

from __future__ import annotations

import math
import zlib
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import torch

from mathcheck.numeric.tolerance import dtype_tolerance

F64 = torch.float64
# the dtype the target computes in, measured once per conform run (precision.measure)
PRECISION: ContextVar = ContextVar("conform_precision", default=F64)


@dataclass
class Outcome:
    ok: bool
    max_abs_err: float = 0.0
    tolerance: float = 0.0
    entry: tuple | None = None
    derived: float | None = None
    user: float | None = None
    what: str = ""  # what was compared (the derived side), shown with the counterexample
    note: str = ""  # e.g. the fully masked row's behaviour, or the exception the user's code raised
    crashed: bool = False  # the user's code raised (a failure of another kind for the shrinker)
    error: str = ""  # the exception type it raised: the shrinker keeps only the same one

    def way(self) -> tuple:
        """How it fails, for the shrinker: raised (and what), wrong shape/type, non-finite, or a value."""
        if self.crashed or self.error:
            return ("raised", self.error)
        if self.entry is None:
            return ("shape", self.note.split(" ")[0] if self.note else "")
        return ("value",)

    def ratio(self) -> float:
        """|err|/tolerance (inf for an exact comparison that fails)."""
        return self.max_abs_err / self.tolerance if self.tolerance else float("inf")


@dataclass(frozen=True)
class Property:
    name: str
    claim: str
    doc: str
    check: Callable
    sizes: dict
    minimum: dict = field(default_factory=dict)
    expect: Callable = staticmethod(lambda variant: "holds")  # -> "holds" | "breaks" | "skip: why" | "report"

    def salt(self) -> int:
        return zlib.crc32(self.name.encode())


def generator(seed: int, prop: Property, sizes: dict, simple: bool) -> torch.Generator:
    """Deterministic in the seed, the property and the sizes (each shrink candidate its own draw)."""
    key = f"{seed}|{prop.name}|{sorted(sizes.items())}|{simple}".encode()
    return torch.Generator().manual_seed(zlib.crc32(key))


def draw(gen, *shape, simple: bool = False, dtype=F64) -> torch.Tensor:
    if simple:  # small integers: the simplest values that keep a failure, easy to read back
        return torch.randint(-2, 3, shape, generator=gen).to(dtype)
    return torch.randn(*shape, generator=gen, dtype=dtype)


def floored_tolerance(n: int, scale: float = 1.0, dtype=F64) -> float:
    """:func:`mathcheck.numeric.tolerance.dtype_tolerance` with its floors: the catalog's pair
    tolerance S·(e_yours + e_derived) for a reduction of at least one term of size ≤ max(scale, 1),
    your side rounded with ``dtype``'s ε, the derived side with float64's (a property's scale read
    off small inputs must not shrink the tolerance below one unit's rounding)."""
    return dtype_tolerance(max(n, 1), max(scale, 1.0), dtype)


def tolerance(n: int, scale: float = 1.0, dtype=None) -> float:
    """:func:`floored_tolerance` with ε of the precision the target was measured to compute in
    (``dtype`` overrides it: the float32-vs-float64 property)."""
    return floored_tolerance(n, scale, dtype or PRECISION.get())


def compare(user, derived, tol: float, what: str, rtol: float = 0.0) -> Outcome:
    """|user − derived| ≤ tol + rtol·|derived| entrywise (NaN/inf never pass unless both are equal infs).

    A tolerance that is not finite never passes anything: it can only come from a scale read off
    an output that is NaN or inf (an all-NaN module once "held" split-merge at "tolerance nan",
    every ``diff > nan`` being False), so the comparison fails at tolerance 0 and says why."""
    if not (math.isfinite(tol) and math.isfinite(rtol)):
        o = compare(user, derived, 0.0, what)
        if o.ok:  # equal infinities on both sides, with a scale of inf: still not the finite formula
            o = replace(o, ok=False, max_abs_err=float("inf"))
        why = f"the tolerance is {tol:g}: it scales with an output that is NaN or inf where the formula is finite"
        return replace(o, ok=False, tolerance=0.0, note=(o.note + "; " if o.note else "") + why)
    try:
        user = torch.as_tensor(user).detach().to(F64)
    except Exception:  # noqa: BLE001 - None, a tuple of tensors, a string...: the callable returned something else
        return Outcome(
            False,
            float("inf"),
            tol,
            what=what,
            crashed=True,
            note=f"the callable returned a {type(user).__name__}, not a tensor",
        )
    derived = torch.as_tensor(derived).detach().to(F64)
    if user.shape != derived.shape:
        return Outcome(
            False,
            float("inf"),
            tol,
            None,
            None,
            None,
            what,
            note=f"shape {tuple(user.shape)}, derived shape {tuple(derived.shape)}",
        )
    diff = (user - derived).abs()
    diff = torch.where(user == derived, torch.zeros_like(diff), diff)  # equal infinities
    diff = torch.nan_to_num(diff, nan=float("inf"), posinf=float("inf"))
    err = float(diff.max()) if diff.numel() else 0.0
    scale = derived.abs().nan_to_num(0.0, posinf=0.0)  # an infinite derived entry allows only itself
    bad = diff > tol + rtol * scale
    if not bool(bad.any()):
        return Outcome(True, err, tol, what=what)
    # the worst entry, largest |err|/tol: the one that shows the bug, not the first over tolerance
    ratio = torch.where(bad, diff / (tol + rtol * scale).clamp_min(1e-300), torch.zeros_like(diff))
    idx = tuple(int(i) for i in torch.unravel_index(torch.argmax(ratio), ratio.shape)) if ratio.dim() else ()
    return Outcome(False, err, tol, idx, float(derived[idx]), float(user[idx]), what)


def build_module(
    make, args: tuple, gen, signature: str, dtype=F64, kwargs=None
) -> tuple[torch.nn.Module | None, Outcome | None]:
    """``make(*args)`` under a seed drawn from ``gen`` (so the module's own initialisation is
    reproducible and the user's global RNG untouched), moved to ``dtype``; a failing outcome when
    ``make`` raises or returns something that is not an ``nn.Module``."""
    seed = int(torch.randint(2**31 - 1, (1,), generator=gen))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        module, err = call(make, *args, **(kwargs or {}))
    if err:
        return None, err
    try:
        return module.to(dtype).eval(), None  # eval mode: dropout off, as the derived formulas assume
    except Exception as exc:  # noqa: BLE001 - not a module
        return None, Outcome(
            False,
            float("inf"),
            note=f"{signature} returned {type(module).__name__}, not an nn.Module ({exc})",
            crashed=True,
        )


def float32_against_float64(module, rebuild: Callable, x: torch.Tensor, tol: Callable) -> Outcome:
    """``rebuild(torch.float32)`` (a fresh module made from the same seed: a module that has run may
    hold autograd tensors and cannot be deep-copied) on ``x.float()`` against ``module`` on ``x``
    (float64); ``tol(a)`` is the tolerance, given the float64 output ``a``."""
    a, err = call_tensor(module, x)
    if err:
        return err
    m32, err = rebuild(torch.float32)
    if err:
        return err
    b, err = call_tensor(m32, x.float())
    if err:
        return err
    a = a.detach().to(F64)
    return compare(b, a, tol(a), "the float32 result against the float64 one (tolerance from float32's eps)")


def call(fn, *args, **kwargs) -> tuple[Any, Outcome | None]:
    """The user's call, contained (:func:`mathcheck.conform.contain.guarded`: a time limit, and a
    ``BaseException`` that is not an ``Exception`` stops the run as an error); an exception becomes
    a failing outcome, not a crash of ours."""
    from mathcheck.conform.contain import guarded

    try:
        return guarded(fn, *args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - their code raised: a failure to report with its message
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return None, Outcome(
            False,
            float("inf"),
            0.0,
            note=f"the callable raised {type(exc).__name__}: {msg}",
            crashed=True,
            error=type(exc).__name__,
        )


def call_tensor(fn, *args, **kwargs) -> tuple[torch.Tensor | None, Outcome | None]:
    """:func:`call` for a callable that must return a tensor (a tuple's first element is used)."""
    out, err = call(fn, *args, **kwargs)
    if err:
        return None, err
    out = first_output(out)
    if not isinstance(out, torch.Tensor):
        return None, Outcome(
            False, float("inf"), note=f"the callable returned a {type(out).__name__}, not a tensor", crashed=True
        )
    # a copy (differentiable): an output buffer the target reuses must not change under a comparison
    return out.clone(), None


def first_output(out) -> Any:
    """``nn.MultiheadAttention`` returns (output, weights): use the first element of a tuple."""
    return out[0] if isinstance(out, (tuple, list)) else out


def worst_comparison(*outcomes: Outcome) -> Outcome:
    """The first failing outcome, else the passing one with the largest relative error: which
    *comparison* a property reports (its evidence), not a status — statuses are ranked by
    :func:`mathcheck.outcome.worst`."""
    for o in outcomes:
        if not o.ok:
            return o
    return max(outcomes, key=lambda o: o.max_abs_err / o.tolerance if o.tolerance else 0.0)
