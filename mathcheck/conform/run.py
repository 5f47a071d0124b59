"""Run every property of a kind on the user's callable, shrink failures, and collect the report."""

from __future__ import annotations

import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mathcheck.conform.spec import KINDS, BadInput, Variant, check_kind, check_variant
from mathcheck.outcome import ExitByStatus, replay, split_flags, worst

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from mathcheck.conform.precision import Precision
    from mathcheck.conform.property import Property


def properties(kind: str, variant: Variant = Variant()) -> list[Property]:
    if kind == "kl" and variant.temperature is not None:  # distillation: fn(student_logits, teacher_logits)
        from mathcheck.conform.losses import distill_properties

        return distill_properties()
    from mathcheck.conform.dtypes import dtype_property

    extra = dtype_property(kind, variant.quick)
    return KINDS[kind].function("properties")() + ([extra] if extra else [])


AS_WRITTEN = ("float32-vs-float64", "input-dtypes")  # compare precisions: never run widened


@dataclass
class Result:
    name: str
    claim: str
    doc: str
    expected: str  # holds | breaks | not checked | report
    status: str  # holds | fails | not expected to hold | reported | inconclusive
    max_abs_err: float | None = None
    tolerance: float | None = None
    counterexample: dict | None = None
    note: str = ""


@dataclass
class Report(ExitByStatus):
    target: str
    kind: str
    variant: Variant
    seed: int
    results: list = field(default_factory=list)
    setting: list = field(default_factory=list)  # lines: the precision measured, the eps tested at
    nondeterministic: str = ""  # one line when two eval-mode calls differ (not checked)
    precision: str = "float64"  # the dtype the target computes in (measured)

    @property
    def status(self) -> str:
        if self.nondeterministic:
            return "inconclusive"
        return worst((r.status for r in self.results), "holds").word

    @property
    def replay(self) -> str:
        """The run's line (each failure carries its own, narrowed to its property and sizes)."""
        return replay(
            "conform", [self.target], [("--kind", self.kind), *split_flags(self.variant.flags()), ("--seed", self.seed)]
        )

    @property
    def failed(self) -> list[str]:
        return [r.name for r in self.results if r.status == "fails"]


def _counterexample(target, kind, variant, seed, prop, sizes, simple, o) -> dict:
    return {
        "sizes": dict(sizes),
        "values": "small-integer" if simple else "standard normal",
        "entry": list(o.entry) if o.entry is not None else None,
        "derived": o.derived,
        "user": o.user,
        "compared": o.what or None,
        "claim": prop.claim,
        "replay": replay(
            "conform",
            [target],
            [
                ("--kind", kind),
                *split_flags(variant.flags()),
                ("--seed", seed),
                ("--property", prop.name),
                ("--sizes", ",".join(f"{k}={v}" for k, v in sizes.items())),
                ("--simple-values", simple),
            ],
        ),
    }


ROUNDING_LEVEL = 4.0  # a failure within this many tolerances is said to be rounding-level


def run_property(prop, fn, target, kind, variant, seed, sizes_override, simple) -> Result:
    from mathcheck.conform.property import PRECISION
    from mathcheck.conform.shrink import run_once, shrink
    from mathcheck.numeric.evaluate import EvaluationError

    expect = prop.expect(variant)
    sizes = {k: sizes_override.get(k, v) for k, v in prop.sizes.items()}
    if expect.startswith("skip"):
        return Result(
            prop.name, prop.claim, prop.doc, "not checked", "not expected to hold", note=expect.partition(": ")[2]
        )
    try:
        o = run_once(prop, fn, sizes, seed, simple, variant)
        if expect == "report":
            return Result(prop.name, prop.claim, prop.doc, "report", "reported", note=o.note)
        if expect == "breaks":
            breaking = [f for f in variant.flags() if f.startswith(("--causal", "--window", "--positions"))]
            why = "declared " + " ".join(breaking) if breaking else prop.doc  # the flags that break it
            if o.ok:
                cx = _counterexample(target, kind, variant, seed, prop, sizes, simple, o)
                cx["compared"] = o.what
                return Result(
                    prop.name,
                    prop.claim,
                    prop.doc,
                    "breaks",
                    "fails",
                    o.max_abs_err,
                    o.tolerance,
                    cx,
                    note=f"expected to break ({why}), but it holds",
                )
            return Result(
                prop.name,
                prop.claim,
                prop.doc,
                "breaks",
                "not expected to hold",
                o.max_abs_err,
                o.tolerance,
                note=f"breaks, as expected ({why})",
            )
        if o.ok:
            return Result(prop.name, prop.claim, prop.doc, "holds", "holds", o.max_abs_err, o.tolerance, note=o.note)
        if not sizes_override:
            sizes, simple, o = shrink(prop, fn, sizes, seed, variant, o, simple)
        note = o.note
        if o.entry is not None and 1.0 < o.ratio() <= ROUNDING_LEVEL:
            name = str(PRECISION.get()).replace("torch.", "")
            note = ((note + "; ") if note else "") + (
                f"within {ROUNDING_LEVEL:g}× the tolerance from {name} ε ({o.ratio():.2g}×): a rounding-level "
                f"difference (another summation order, or a bug below the resolution), not a wrong formula"
            )
        return Result(
            prop.name,
            prop.claim,
            prop.doc,
            "holds",
            "fails",
            o.max_abs_err,
            o.tolerance,
            _counterexample(target, kind, variant, seed, prop, sizes, simple, o),
            note=note,
        )
    except (EvaluationError, LookupError, ArithmeticError) as exc:  # our side could not decide
        return Result(
            prop.name,
            prop.claim,
            prop.doc,
            "holds" if expect == "holds" else expect,
            "inconclusive",
            note=f"the derived side could not be evaluated: {type(exc).__name__}: {exc}",
        )
    except Exception as exc:  # noqa: BLE001 - e.g. a result of an unexpected shape met our reference: undecided, said so
        return Result(
            prop.name,
            prop.claim,
            prop.doc,
            "holds" if expect == "holds" else expect,
            "inconclusive",
            note=f"could not compare: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
        )


class _Recorder:
    """Forwards a call and remembers its arguments: the first call conform made, for the message."""

    def __init__(self, fn):
        self.fn, self.args, self.kwargs = fn, None, None
        self.__wrapped__ = fn  # inspect.signature reads the target's own (a call bound by parameter names)

    def __call__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        return self.fn(*args, **kwargs)

    def describe(self, name: str, names=()) -> str:
        """``fn(query (2, 3, 8, 8) float64, …, is_causal=False)``; ``names`` label the positional arguments."""

        def one(a):
            import torch

            if isinstance(a, torch.Tensor):
                return f"{tuple(a.shape)} {str(a.dtype).replace('torch.', '')}"
            if isinstance(a, (list, tuple)):
                return f"[{len(a)} × {one(a[0])}]" if a else "[]"
            return repr(a)

        labels = list(names) + [""] * len(self.args or ())
        parts = [f"{n} {one(a)}".strip() for n, a in zip(labels, self.args or ())] + [
            f"{k}={one(v)}" for k, v in (self.kwargs or {}).items()
        ]
        return f"{name}({', '.join(parts)})"


def _no_mask(fn) -> bool:
    import inspect

    from mathcheck.conform.target import takes_no_mask

    try:
        return takes_no_mask(inspect.signature(fn))
    except (TypeError, ValueError):
        return False


def rotary_line(fn, args: tuple) -> str:
    """The report's line for a rotary apply fed tables: its call, and whether it was detected or declared."""
    from mathcheck.conform.conventions import rotary_roles

    roles = rotary_roles(fn, args)
    how = "declared by --args" if args else "detected from the parameter names, as --args"
    return (
        f"convention: apply({', '.join(roles)}) ({how}: {', '.join(f'{n}={r}' for n, r in roles.items())}); "
        f"conform builds the tables (θ base 10000, float64) and checks the apply"
    )


def loss_settings(fn, kind: str, variant: Variant) -> tuple[Variant, str]:
    """A cross-entropy's label smoothing given as the loss is written, not as a flag:
    ``functools.partial(F.cross_entropy, label_smoothing=0.1)`` (its keywords) or an instance
    ``nn.CrossEntropyLoss(label_smoothing=0.1)`` (its attribute). Detected, put into the variant
    (so the report's header and every replay line carry ``--label-smoothing``), and said; a declared
    ``--label-smoothing`` wins (and is then checked against what the code does)."""
    import functools

    if kind != "cross-entropy" or variant.label_smoothing is not None:
        return variant, ""
    if isinstance(fn, functools.partial) and "label_smoothing" in (fn.keywords or {}):
        value, where = fn.keywords["label_smoothing"], "functools.partial(…, label_smoothing=…)"
    elif not isinstance(fn, type) and isinstance(getattr(fn, "label_smoothing", None), (int, float)):
        value, where = fn.label_smoothing, f"{type(fn).__name__}.label_smoothing"
    else:
        return variant, ""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        return variant, ""
    if value == 0:
        return variant, f"label smoothing 0: detected from {where}"
    return (
        replace(variant, label_smoothing=float(value)),
        f"label smoothing {float(value):g}: detected from {where} (as --label-smoothing {float(value):g})",
    )


def first_call_failed(label: str, kind: str, made: str, err) -> BadInput:
    """A call-shape problem: the first call into the target raised. Bad input (exit 2), never a
    math failure: the call conform made, the one the kind expects, what would fix it."""
    from mathcheck.conform.spec import FIXES

    said = err.note.removeprefix("the callable raised ") if err.note else "failed"
    return BadInput(
        f"{label}: the first call raised {said} — conform called {made}; kind {kind} expects "
        f"{KINDS[kind].what}; to fix: {FIXES[kind]}; or --args NAME=ROLE,… if its parameters take "
        f"these roles in another order or under other names"
    )


def measure_setting(
    fn, kind: str, variant: Variant, seed: int, label: str = "the target"
) -> tuple[Variant, Precision, list[str]]:
    """``(variant, precision, lines)``: the norm's eps resolved (``norms.configure``) into the variant,
    and the precision the target computes in (``precision.measure`` on the kind's probe), each with
    the line the report prints. Deterministic in the seed. The probe is the first call into the
    target: when it (or the module's factory) raises, :class:`BadInput` (:func:`first_call_failed`)."""
    import torch

    from mathcheck.conform import modules, norms
    from mathcheck.conform.precision import measure, probe
    from mathcheck.conform.property import call_tensor

    gen = torch.Generator().manual_seed(zlib.crc32(f"{seed}|setting".encode()))
    lines, module = [], None
    if kind in ("layernorm", "rmsnorm"):
        eps, line = norms.configure(fn, kind, variant, gen)
        if eps is not None and eps != norms.eps_of(variant):
            variant = replace(variant, eps=eps)
        lines += [x for x in (norms.eps_line(fn), line) if x]  # the eps tested at last (model reads it there)
        name = norms.eps_parameter(fn)
        made = (
            "make(64)"
            if norms.no_eps_parameter(fn)
            else f"make(64, {name + '=' if name else ''}{norms.eps_of(variant)!r})"
        )
        module, err = norms.build(fn, 64, norms.eps_of(variant), gen)
    elif kind == "mha":
        made = "make(12, 3)"
        module, err = modules.build(fn, {"D": 12, "H": 3}, gen)
    if kind in ("layernorm", "rmsnorm", "mha") and module is None:
        raise first_call_failed(label, kind, made, err)
    target = _Recorder(module if module is not None else fn)
    call, n = probe(kind, target if module is None else fn, variant, gen, target if module is not None else None)
    _, err = call_tensor(call)
    if err and target.args is not None:  # it raised (or returned no tensor) on conform's first call
        name, names = (f"{made} then module", ("x",)) if module is not None else ("fn", KINDS[kind].params)
        raise first_call_failed(label, kind, target.describe(name, names), err)
    if kind == "cross-entropy" and variant.temperature is None:
        from mathcheck.conform.losses import index_targets_only

        raised = index_targets_only(fn, gen)
        if raised:
            variant = replace(variant, index_targets_only=raised)
            lines.append(
                f"targets: class indices only (with probability targets it raised {raised}); "
                f"probability-targets not checked"
            )
    prec = measure(call, n)
    return variant, prec, [prec.nondeterministic or prec.line()] + lines


def conform(
    fn,
    kind: str,
    variant: Variant = Variant(),
    seed: int = 0,
    only=(),
    sizes=None,
    simple: bool = False,
    target: str | None = None,
) -> Report:
    """Hold ``fn`` to the derived properties of ``kind``. Raises :class:`BadInput` before any work
    on a wrong kind, variant, property name or signature. ``fn``: the callable, or the target spec
    ``FILE.py:FN``/``module:FN`` (``mathcheck conform``'s), imported only once kind and variant
    are known good — the one place the input is validated. Raises
    :class:`~mathcheck.conform.contain.TargetAborted` (an error, exit 4), its message starting
    with the target, when the target or its import runs past ``variant.timeout`` seconds or raises
    a ``BaseException`` that is not an ``Exception`` (``sys.exit``)."""
    from mathcheck.conform.contain import DEFAULT_TIMEOUT, TIMEOUT, TargetAborted

    check_kind(kind)
    check_variant(kind, variant)
    variant = quick_default(variant)
    label = target or (fn if isinstance(fn, str) else getattr(fn, "__qualname__", repr(fn)))
    token = TIMEOUT.set(variant.timeout or DEFAULT_TIMEOUT)
    try:
        with one_thread():
            return _conform(fn, kind, variant, seed, only, sizes, simple, target)
    except TargetAborted as exc:  # the target's own doing: one line naming it, reported as an error
        raise TargetAborted(f"{label}: {exc}") from None
    finally:
        TIMEOUT.reset(token)


def bind_init(fn, init: tuple, label: str) -> Callable[..., Any]:
    """``functools.partial(fn, **init)``: the ``--init KEY=VALUE`` keywords bound to the target (a
    module kind's factory or class, a function), checked against its signature before any call — a
    name it does not take is bad input, with the names it does."""
    import functools
    import inspect

    if not init:
        return fn
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = None  # a builtin without a signature: its first call says
    if params is not None and not any(p.kind == p.VAR_KEYWORD for p in params.values()):
        for key, _ in init:
            if key not in params or params[key].kind == params[key].POSITIONAL_ONLY:
                names = ", ".join(n for n, p in params.items() if p.kind != p.POSITIONAL_ONLY) or "none"
                raise BadInput(f"--init {key}=…: {label} takes no keyword {key!r} (its keywords: {names})")
    return functools.partial(fn, **dict(init))


def quick_default(variant: Variant) -> Variant:
    """``--quick`` when ``MATHCHECK_CONFORM_QUICK=1`` (the fast test run sets it; ``-m slow`` runs the
    full ladder); it is in the variant, so the report's header and every replay line carry it."""
    import os

    from mathcheck.conform.spec import QUICK_ENV

    return replace(variant, quick=True) if os.environ.get(QUICK_ENV) == "1" and not variant.quick else variant


@contextmanager
def one_thread() -> Iterator[None]:
    """torch on one intra-op thread for the block, as the engine runs every numeric check: a
    reduction split across threads rounds differently with the thread count, so one thread keeps
    a report the same byte for byte on any machine. It is also faster here: conform's tensors are
    small, and on a busy machine each op split over 2 OpenMP threads waited ~8 ms for the other
    (a 4×17 softmax: 7.9 ms on 2 threads, 5 µs on one, measured on the shared 2-core machine)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _conform(fn, kind, variant, seed, only, sizes, simple, target) -> Report:
    from mathcheck.conform.conventions import (
        adapt,
        bind_args,
        config_factory,
        config_parameter,
        is_hf_interface,
        rotary_convention,
        rotary_module,
        takes_is_causal,
    )
    from mathcheck.conform.target import check_args, check_signature, load

    if isinstance(fn, str):
        target, fn = fn, load(fn)
    label = target or getattr(fn, "__qualname__", repr(fn))
    detected = ""
    if kind in ("mha", "layernorm", "rmsnorm") and config_parameter(fn):
        name = config_parameter(fn)
        fn = config_factory(fn, kind, variant.init)  # --init sets the config's fields
        detected = (
            f"constructor: takes a config object ({name}); conform builds one with its sizes under "
            f"the usual names (n_embd/hidden_size/dim, n_head/num_attention_heads, eps names), dropout 0"
        )
    else:
        fn = bind_init(fn, variant.init, label)
    check_args(fn, kind, variant.args, label)
    check_signature(fn, kind, label, variant.args)
    variant, said = loss_settings(fn, kind, variant)  # before adapt: it reads the callable as written
    detected = "; ".join(x for x in (detected, said) if x)
    if kind == "rotary" and not variant.args and rotary_module(fn):
        size = rotary_module(fn)
        detected = (
            f"convention: a rotary module class, detected: built {getattr(fn, '__name__', 'cls')}({size}=d) "
            f"with its own tables and defaults, forward on x as (B, L, H, d)"
        )
    elif kind == "rotary" and rotary_convention(fn, variant.args):
        detected = rotary_line(fn, variant.args)
        if not variant.args:  # detected: carried as --args in the header and every replay line
            from mathcheck.conform.conventions import rotary_roles

            variant = replace(variant, args=tuple(rotary_roles(fn).items()))
    elif variant.args:
        fn = bind_args(fn, KINDS[kind].params, variant.args)
        detected = "; ".join(
            x
            for x in (
                detected,
                "arguments: " + ", ".join(f"{n}={r}" for n, r in variant.args) + " (declared by --args)",
            )
            if x
        )
    if kind in ("attention", "gqa") and variant.causal and not is_hf_interface(fn) and not takes_is_causal(fn):
        variant = replace(variant, always_causal=True)
    if kind == "attention" and not variant.args and not is_hf_interface(fn) and _no_mask(fn):
        variant = replace(variant, takes_no_mask=True)
        detected = "; ".join(
            x
            for x in (
                detected,
                "arguments: query, key, value only, no mask: the properties that "
                "pass one (masked-keys-zero-weight, fully-masked-row) not checked",
            )
            if x
        )
    fn = adapt(fn, kind, variant)  # a declared or detected convention, relabelled into conform's own
    props = properties(kind, variant)
    if only:
        known = [p.name for p in props]
        for name in only:
            if name not in known:
                raise BadInput(f"--property {name!r}: kind {kind} has {', '.join(known)}")
        props = [p for p in props if p.name in only]
    sizes = dict(sizes or {})
    known_sizes = {k for p in props for k in p.sizes}
    for k in sizes:
        if k not in known_sizes:
            raise BadInput(f"--sizes {k}=…: kind {kind}'s properties take {', '.join(sorted(known_sizes))}")

    variant, prec, setting = measure_setting(fn, kind, variant, seed, label)
    if getattr(fn, "pairing", None):  # a rotary apply fed tables: the layout found on its first call
        from mathcheck.conform.conventions import rotary_found

        detected += f"; found on its first call: {rotary_found(fn.pairing)}"
    setting += [detected] if detected else []
    report = Report(
        label,
        kind,
        variant,
        seed,
        setting=setting,
        nondeterministic=prec.nondeterministic,
        precision=str(prec.dtype).replace("torch.", ""),
    )
    if prec.nondeterministic:
        return report
    for prop in props:
        report.results.append(_run_widened(prop, fn, label, kind, variant, seed, sizes, simple, prec))
    return report


def _run_widened(prop, fn, label, kind, variant, seed, sizes, simple, prec) -> Result:
    """:func:`run_property` with the target widened to float64 and held at float64's tolerance
    (``contain.WIDEN``) when its ops widen (``prec.widened``); the properties of :data:`AS_WRITTEN`
    run as written. A target that cannot be widened runs as written at the precision measured."""
    from mathcheck.conform.contain import WIDEN
    from mathcheck.conform.precision import Widen, warm
    from mathcheck.conform.property import F64, PRECISION

    # rotary: HF's rotary_emb module (model's check) gave wrong values widened (not yet understood):
    # it runs as written at the measured precision, as before issue 30 item 4
    widen = prec.widened and prop.name not in AS_WRITTEN and kind != "rotary"
    warm()  # the modes' one-time import, never inside a call's --timeout
    tokens = PRECISION.set(F64 if widen else prec.dtype), WIDEN.set(Widen if widen else None)
    try:
        return run_property(prop, fn, label, kind, variant, seed, sizes, simple)
    finally:
        WIDEN.reset(tokens[1])
        PRECISION.reset(tokens[0])
