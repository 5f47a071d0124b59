"""The precision a target computes in, measured rather than assumed.

Real code narrows on purpose: LlamaRMSNorm and T5LayerNorm compute in float32 whatever their
input dtype, rotary tables are float32 buffers, ``freqs_cis`` is complex64, many attentions run
their softmax in float32. Held to float64's rounding, correct code fails. So the target runs on
one float64 input of ordinary size (:func:`probe`):

* **as written**, twice, recording the dtype of every op's output (a ``TorchDispatchMode``);
* **widened**: the same code with every float32/float16/bfloat16 (complex64) tensor and every
  ``dtype=`` argument promoted to float64 (complex128) before each op runs.

If the two outputs differ by more than float64's rounding, the narrowing mattered and the target
computes in the narrowest floating dtype its ops produced; every tolerance then takes that dtype's
ε (:func:`mathcheck.numeric.tolerance.derived_tolerance`, the catalog's error model, with
ε_yours for your side and float64's for the derived side). Both pieces of evidence are needed: a
float32 constant that is exact (a 0/1 mask built with ``torch.ones``) does not loosen anything.
The ε comes from ``torch.finfo(dtype)``, so float16/bfloat16 code is measured the same way.

    computes in float32 (output float64): tolerances from float32 ε = 1.19e-07 (…)

The two as-written runs tell a nondeterministic target: they differ on the same input.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import torch

from mathcheck.conform.property import F64, call_tensor, floored_tolerance
from mathcheck.conform.spec import KINDS

COARSE = 1e-2  # a resolution above this is said to be too coarse
WIDER = {
    torch.float32: F64,
    torch.float16: F64,
    torch.bfloat16: F64,
    torch.complex64: torch.complex128,
    torch.complex32: torch.complex128,
}
REAL = {torch.complex64: torch.float32, torch.complex128: F64, torch.complex32: torch.float16}


def _widen(x):
    if isinstance(x, torch.Tensor) and x.dtype in WIDER:
        return x.to(WIDER[x.dtype])
    if isinstance(x, torch.dtype) and x in WIDER:
        return WIDER[x]
    return x


from torch.utils._pytree import tree_map  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402


def _floats(out):
    return [
        t
        for t in (out if isinstance(out, (tuple, list)) else (out,))
        if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex())
    ]


@functools.cache
def warm() -> None:
    """The first op under a dispatch mode imports torch._dynamo (seconds, more on a loaded machine):
    done once here, outside any call into the target, so it never counts against ``--timeout``."""
    with Record():
        torch.zeros(1) + 1


class Record(TorchDispatchMode):
    """Runs each op as written; remembers the floating dtypes the ops produced."""

    def __init__(self):
        super().__init__()
        self.dtypes = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.dtypes.update(REAL.get(t.dtype, t.dtype) for t in _floats(out))
        return out


class Widen(TorchDispatchMode):
    """Runs each op with its narrow floating tensors and dtype arguments promoted to float64. An
    in-place op runs as written: widening would copy the tensor it must write into (a parameter's
    ``init.ones_`` at construction would fill the copy and leave ``torch.empty``'s garbage)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func._schema.is_mutable:
            return func(*args, **(kwargs or {}))
        args, kwargs = tree_map(_widen, (tuple(args), dict(kwargs or {})))
        return func(*args, **kwargs)


class Round(TorchDispatchMode):
    """A correct build of the same code at its own precision: each op computed in float64 on its
    (narrow) inputs and its result rounded once to the dtype the op produces as written. Views and
    in-place ops run as written (they compute nothing, or must write where the code reads)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        schema = func._schema
        if schema.is_mutable or any(r.alias_info is not None for r in schema.returns):
            return out
        outs = out if isinstance(out, (tuple, list)) else (out,)
        if not any(isinstance(t, torch.Tensor) and t.dtype in WIDER for t in outs):
            return out
        wa, wk = tree_map(_widen, (tuple(args), dict(kwargs)))
        w = func(*wa, **wk)
        ws = w if isinstance(w, (tuple, list)) else (w,)
        rounded = [
            wt.to(t.dtype)
            if isinstance(t, torch.Tensor) and t.dtype in WIDER and isinstance(wt, torch.Tensor) and wt.shape == t.shape
            else t
            for t, wt in zip(outs, ws)
        ]
        return type(out)(rounded) if isinstance(out, (tuple, list)) else rounded[0]


@dataclass(frozen=True)
class Precision:
    """What was measured: the dtype the target computes in, its output dtype, the evidence."""

    dtype: torch.dtype = F64
    output: torch.dtype | None = None
    narrowed: float = 0.0  # max |as written − widened|
    scale: float = 1.0  # max |widened output|
    ops: tuple = ()  # the floating dtypes the ops produced, narrowest first
    note: str = ""  # could not measure: why
    nondeterministic: str = ""  # one line, when two calls on the same input differ
    n: int = 1  # the probe's reduction length (for the stated resolution)
    widened: bool = False  # its ops widen to float64: the properties run widened (contain.WIDEN)

    @property
    def eps(self) -> float:
        return float(torch.finfo(self.dtype).eps)

    def resolution(self) -> float:
        """The smallest relative error still detected at the probe's reduction length: the
        relative tolerance a comparison of O(1) values gets."""
        return floored_tolerance(self.n, 1.0, self.dtype)

    def line(self) -> str:
        name = lambda d: str(d).replace("torch.", "")  # noqa: E731
        out = name(self.output) if self.output is not None else "not a tensor"
        if self.note:
            return f"computes in float64 (output {out}): tolerances from float64 ε ({self.note})"
        head = f"computes in {name(self.dtype)} (output {out}): tolerances from {name(self.dtype)} ε = {self.eps:.3g}"
        if self.dtype == F64:
            narrow = [d for d in self.ops if d != F64]
            if narrow:
                head += (
                    f"; its {'/'.join(map(name, narrow))} ops do not change the output (widened: max |Δ| "
                    f"{self.narrowed:.3g})"
                )
        else:
            head += (
                f"; measured: widening its ops to float64 moves the output by {self.narrowed:.3g} "
                f"({self.narrowed / (self.eps * max(self.scale, 1e-300)):.2g} ε·max|y|)"
            )
        if self.widened and any(
            d != F64 for d in self.ops
        ):  # the formula is held widened; as written per dtype and size by input-dtypes
            return head + (
                "; the properties run it widened to float64 (float64 tolerance, resolution "
                f"{floored_tolerance(self.n, 1.0, F64):.2g}); as written it is held per input dtype "
                "and size by input-dtypes"
            )
        head += (
            f"; resolution: relative errors above {self.resolution():.2g} are detected (reductions of {self.n} terms)"
        )
        if self.resolution() > COARSE:  # bfloat16/float16: the worst-case bound leaves little to detect
            head += " — too coarse to tell most bugs from rounding; check a float32 build of it as well"
        return head


def measure(call, n: int) -> Precision:
    """Run ``call()`` (the target on a fixed float64 input) as written twice and widened once."""
    warm()
    with torch.no_grad():
        rec = Record()
        try:
            with rec:
                a, err = call_tensor(call)
        except Exception as exc:  # noqa: BLE001 - a dispatch mode the code does not tolerate: say so, assume float64
            return Precision(note=f"could not trace: {type(exc).__name__}", n=n)
        if err:
            return Precision(note="the probe call raised; the properties report it", n=n)
        b, _ = call_tensor(call)
        try:
            with Widen():
                w, err = call_tensor(call)
        except Exception as exc:  # noqa: BLE001 - the widened run failed: reported with the as-written run
            w, err = None, exc
    ops = tuple(sorted(rec.dtypes, key=lambda d: -torch.finfo(d).eps))
    a64 = a.detach().to(F64) if a.is_floating_point() else a.detach()
    if b is not None and b.shape == a.shape:
        b64 = b.detach().to(a64.dtype)
        if not bool(torch.isclose(b64, a64, rtol=0.0, atol=0.0, equal_nan=True).all()):  # NaN where NaN is equal
            diff = float((b64 - a64).abs().nan_to_num(nan=float("inf")).max())
            return Precision(
                output=a.dtype,
                ops=ops,
                n=n,
                nondeterministic=f"nondeterministic: two calls in eval mode on the same input differ "
                f"by {diff:.3g} (dropout or sampling left on?); not checked",
            )
    if (a64.is_floating_point() or a64.is_complex()) and not bool(torch.isfinite(a64).all()):
        # a finite input gave NaN/inf: nothing to measure (a NaN scale would make a NaN tolerance)
        return Precision(
            output=a.dtype,
            ops=ops,
            n=n,
            note="its output on a finite probe input is NaN or inf; the properties report it",
        )
    if err or w is None or w.shape != a.shape:
        return Precision(output=a.dtype, ops=ops, n=n, note="could not widen its ops to float64")
    w = w.detach().to(F64)
    narrowed = float((a64 - w).abs().max()) if a64.numel() else 0.0
    scale = float(w.abs().max()) if w.numel() else 1.0
    narrowest = ops[0] if ops else F64
    computes = F64
    if narrowest != F64 and not narrowed <= floored_tolerance(n, scale, F64):
        computes = narrowest
    return Precision(computes, a.dtype, narrowed, scale, ops, n=n, widened=True)


# --- one fixed float64 probe per kind ---------------------------------------------------------------------


def probe(kind: str, fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """``(call, n)``: ``call()`` runs the target once on a fixed float64 input of ordinary size;
    ``module`` is the built module for the module kinds (layernorm, rmsnorm, mha). Each kind's probe
    lives beside its properties (``spec.KINDS[kind].probe``)."""
    return KINDS[kind].function("probe")(fn, variant, gen, module)
