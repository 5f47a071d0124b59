r"""Every input dtype the target accepts, at every size up to L = 1025: no bug hides under a tolerance.

The derived properties run the target *widened* (:data:`WIDEN`: every float32/float16/bfloat16
op and ``dtype=`` argument promoted to float64, :class:`mathcheck.conform.precision.Widen`), so
they hold its *formula* to the derived one at float64's tolerance, whatever precision it is written
in. This property holds the rest: for each input dtype d ∈ {float64, float32, bfloat16, float16}
and each L of the ladder (:data:`LADDER`, past each power of two a kernel may block on, up to
1025), on inputs x_d (a float64 draw rounded to d):

* **W₆₄ = f(x_d as float64), widened**, against **W_d = f(x_d), widened** at float64's tolerance
  plus one rounding of a constant to d (4·u_d·max|y|: a decomposition may round eps to the input's dtype):
  the same values give the same output whatever dtype carries them — a bug on the float16 path
  only (``if q.dtype == torch.float16: …``) shows here, as large as the bug is;
* **A = f(x_d) as written** against W_d at the tolerance of the precision it computes in,
  *measured* at that size: the error of a correct build, C = max|R − W_d| with R the same code
  run with every op computed exactly and rounded once to the dtype the op produces as written
  (:class:`Round`), and tol = 4·max(C, (ε_op + ε_acc·√n)·max|W_d|) (``tolerance.measured_tolerance``:
  the floor covers a fused op's own reduction, which per-op rounding cannot see).
  An error 4× a correct build's fails.

A dtype whose first (smallest) call raises is one the target does not accept: said, not failed. A
size at which float64 inputs raise is the target's length limit (nanoGPT's ``block_size``): said, and
no dtype goes past it (``long-sequence``/``past-1024-keys`` judge a length limit). A narrow dtype
that raises at a size float64 runs fails, the exception shown. NaN/inf where W₆₄ is finite fails.

    input dtypes: float64 ✓ float32 ✓ bfloat16 ✓ float16 ✓ (L 17…1025); bfloat16 resolution 1.2e-2
"""

from __future__ import annotations

from typing import Callable

import torch

from mathcheck.conform.property import F64, Outcome, Property, call_tensor, compare, draw, floored_tolerance
from mathcheck.numeric.tolerance import INPUT_DTYPES, SAFETY, measured_tolerance

LADDER = (17, 33, 65, 129, 257, 513, 1025)  # past each power of two from 16 to 1024
SIZES, MINIMUM = {"L": 1025}, {"L": 2}
# --quick (Variant.quick): the ladder to L = 129, past 16…128 only, and attention's past-1024-keys not
# run — on one thread a causal attention's input-dtypes takes ~0.2 s to 129 keys, ~0.8 s to 1025
QUICK_L = 129
DTYPES = tuple(getattr(torch, name) for name in INPUT_DTYPES)


def _name(d) -> str:
    return str(d).replace("torch.", "")


# --- the inputs of each kind at length L: (floats, call(fn_or_module, floats), n) ---------------------------


def _attention(variant, gen, L, simple):
    q, k, v = (draw(gen, 1, 1, L, 16, simple=simple) for _ in range(3))
    return [q, k, v], (lambda f, t: f(*t, is_causal=variant.masked)), L + 16


def _gqa(variant, gen, L, simple):
    q, k, v = (
        draw(gen, 1, 2, L, 16, simple=simple),
        draw(gen, 1, 1, L, 16, simple=simple),
        draw(gen, 1, 1, L, 16, simple=simple),
    )
    return [q, k, v], (lambda f, t: f(*t, is_causal=variant.masked)), L + 16


def _online(variant, gen, L, simple):
    s, v = draw(gen, 3, L, simple=simple) * 3, draw(gen, L, 8, simple=simple)
    block = max(1, L // 4)
    return [s, v], (lambda f, t: f(list(t[0].split(block, dim=-1)), list(t[1].split(block, dim=0)))), L + 8


def _rows(scale):
    def make(variant, gen, L, simple):
        return [draw(gen, 4, L, simple=simple) * scale], (lambda f, t: f(t[0], -1)), L

    return make


def _cross_entropy(variant, gen, L, simple):
    z, y = draw(gen, 4, L, simple=simple) * 3, torch.randint(L, (4,), generator=gen)
    return [z], (lambda f, t: f(t[0], y)), L + 4


def _kl(variant, gen, L, simple):
    if variant.temperature is not None:
        return [draw(gen, 4, L, simple=simple) * 3, draw(gen, 4, L, simple=simple) * 3], (lambda f, t: f(*t)), 4 * L
    p, q = draw(gen, 4, L, simple=simple).softmax(-1), draw(gen, 4, L, simple=simple).softmax(-1)
    return [q.log(), p], (lambda f, t: f(*t)), 4 * L


def _module_x(D):
    def make(variant, gen, L, simple):
        return [draw(gen, 1, L, D, simple=simple)], (lambda m, t: m(t[0])), L + D

    return make


def _norm_x(variant, gen, L, simple):  # the norm's reduction length D is the size that grows
    return [draw(gen, 2, 3, L, simple=simple) * 2 + 0.5], (lambda m, t: m(t[0])), L


def _rotary(variant, gen, L, simple):
    pos = torch.arange(L, dtype=F64)  # positions stay integers in float64; x carries the dtype
    return [draw(gen, 1, L, 16, simple=simple)], (lambda f, t: f(t[0], pos)), 16


INPUTS = {
    "attention": _attention,
    "gqa": _gqa,
    "online-softmax": _online,
    "softmax": _rows(3.0),
    "log-softmax": _rows(3.0),
    "cross-entropy": _cross_entropy,
    "kl": _kl,
    "mha": _module_x(12),
    "layernorm": _norm_x,
    "rmsnorm": _norm_x,
    "rotary": _rotary,
}
MODULES = {"mha", "layernorm", "rmsnorm"}


# --- an independent correct build at the same precision (issue 30 item 4) -----------------------------------


def _attention_reference(t, variant):
    """softmax(q kᵀ·scale + mask) v, the textbook composition, on the inputs as given (their dtype)."""
    q, k, v = t
    scale = variant.scale if variant.scale is not None else q.shape[-1] ** -0.5
    from mathcheck.conform.attention import keep_mask

    s = (q @ k.transpose(-2, -1)) * scale
    s = s.masked_fill(~keep_mask(q.shape[-2], k.shape[-2], variant), float("-inf"))
    return s.softmax(-1) @ v


#: The kinds with a textbook composition to build independently; the precision a correct build gets is
#: measured on it, not on a replay of the target's own algorithm (a softmax denominator summed key by
#: key in bfloat16 is 8.65× a correct build's error at L = 1025, and its own replay rounds the same way).
REFERENCES = {"attention": _attention_reference}


def independent_error(kind, variant, xd, op_dtype, wd) -> float | None:
    """max |R − W_d| for R the kind's :data:`REFERENCES` composition on the inputs rounded to the
    narrowest dtype the target's ops produce (``op_dtype``), each op computed exactly and rounded once
    to that dtype (:class:`Round`); None when the kind has none (or positions are added inside)."""
    from mathcheck.conform.precision import Round

    ref = REFERENCES.get(kind)
    if ref is None or variant.positions != "none":
        return None
    with torch.no_grad(), Round():
        r, err = call_tensor(lambda: ref([t.to(op_dtype) for t in xd], variant))
    if err or r.shape != wd.shape:
        return None
    e = float((r.detach().to(F64) - wd).abs().nan_to_num(nan=float("inf")).max())
    return e if e < float("inf") else None


def _builder(kind, make, variant, gen):
    """``build(dtype, L)``: the module made at ``dtype`` from one seed (a norm at D = L), or None."""
    state = gen.get_state()

    def build(dtype, L):
        g = torch.Generator().set_state(state)
        if kind == "mha":
            from mathcheck.conform.modules import build as mha_build

            return mha_build(make, {"D": 12, "H": 3}, g, dtype)
        from mathcheck.conform.norms import build as norm_build, eps_of

        return norm_build(make, L, eps_of(variant), g, dtype)

    return build


# --- one dtype at one size -------------------------------------------------------------------------------


def _one(kind, fn, variant, gen, L, dtype, simple, build):
    """``(outcome, resolution)`` for input dtype ``dtype`` at length ``L``; outcome None when the call as
    written raised (the caller decides: not accepted, or a failure)."""
    from mathcheck.conform.precision import Record, Round, Widen, warm

    warm()
    floats, run, n = INPUTS[kind](variant, gen, L, simple)
    xd = [t.to(dtype) for t in floats]
    x64 = [t.to(F64) for t in xd]  # the same values, carried in float64
    if kind in MODULES:
        md, err = build(dtype, L)
        if err:
            return err, None
        m64, err = build(dtype, L)  # the same seed: the parameters rounded to dtype, then carried in float64
        if err:
            return err, None
        m64 = m64.to(F64)
        target, target64 = md, m64
    else:
        target = target64 = fn
    with torch.no_grad():
        rec = Record()
        with rec:
            a, err = call_tensor(run, target, xd)
        if err:
            return err, None
        with Widen():
            wd, err_d = call_tensor(run, target, xd)
            w64, err_64 = call_tensor(run, target64, x64)
        if err_d or err_64:  # it runs as written but not widened: nothing to hold it to at this size
            return Outcome(True, note="could not widen"), None
        with Round():
            r, err_r = call_tensor(run, target, xd)
    w64, wd = w64.to(F64), wd.to(F64)
    at = f"input {_name(dtype)}, L = {L}"
    if not bool(torch.isfinite(w64).all()):  # finite inputs, a finite formula: NaN/inf is never right
        return Outcome(
            False,
            float("inf"),
            0.0,
            what=f"widened on finite inputs ({at})",
            note="its widened output is NaN or inf where the formula is finite",
        ), None
    scale = float(w64.abs().nan_to_num(0.0, posinf=0.0).max()) if w64.numel() else 1.0
    # the decomposition may round a constant to the input's dtype (F.rms_norm's eps for float32
    # inputs): one rounding, u = ε/2 relative, of something the output depends on at most linearly
    same = compare(
        wd,
        w64,
        floored_tolerance(n, scale, F64) + SAFETY * float(torch.finfo(dtype).eps) / 2 * scale,
        f"widened on {_name(dtype)} inputs against widened on the same values in float64 ({at})",
    )
    if not same.ok:
        return same, None
    narrow = [d for d in rec.dtypes if d != F64]
    eps = max((float(torch.finfo(d).eps) for d in narrow), default=float(torch.finfo(F64).eps))
    correct = (
        float((r.detach().to(F64) - wd).abs().nan_to_num(nan=float("inf")).max())
        if not err_r and r.numel()
        else eps * scale
    )
    if not correct < float("inf"):  # the correct-build replay overflowed too (the same exp): no allowance
        correct = 0.0
    op_dtype = max(narrow, key=lambda d: float(torch.finfo(d).eps), default=dtype)
    independent = independent_error(kind, variant, xd, op_dtype, wd) if narrow else None
    build = "a correct build's"
    if independent is not None:  # the textbook composition at the same precision, not the target's own replay
        correct, build = independent, f"an independent correct build's ({_name(op_dtype)})"
    tol = measured_tolerance(correct, scale, eps, n) if torch.isfinite(w64).all() else 0.0
    o = compare(
        a,
        wd,
        max(tol, floored_tolerance(n, scale, F64)),
        f"as written on {_name(dtype)} inputs against widened (tolerance 4× {build} error "
        f"{correct:.2g}, measured; {at})",
    )
    return o, tol / max(scale, 1e-300)


def check(kind: str) -> Callable[..., Outcome]:
    """The property's check for ``kind``: every dtype of :data:`DTYPES` at every ladder size ≤ ``s["L"]``."""

    def run(fn, s, gen, simple, variant):
        sizes = [x for x in LADDER if x < s["L"]] + [s["L"]]
        build = _builder(kind, fn, variant, gen) if kind in MODULES else None
        notes, worst_o = [], None
        for dtype in DTYPES:  # float64 first: where it raises is the target's size limit
            res = []
            for i, L in enumerate(sizes):
                o, r = _one(kind, fn, variant, gen, L, dtype, simple, build)
                if o.crashed and i == 0 and dtype != F64:  # refused at the first size: not an accepted dtype
                    notes.append(f"{_name(dtype)} not accepted ({o.note.removeprefix('the callable raised ')})")
                    break
                if o.crashed and i > 0 and dtype == F64:  # a context limit (nanoGPT's block_size): said, and
                    # the other dtypes stop there too; long-sequence and past-1024-keys judge a length limit
                    notes.append(
                        f"float64 inputs raised at L = {L} ({o.note.removeprefix('the callable raised ')}): "
                        f"larger L not checked"
                    )
                    sizes = sizes[:i]
                    break
                if not o.ok:
                    why = f"input {_name(dtype)}, L = {L}"
                    return Outcome(
                        False,
                        o.max_abs_err,
                        o.tolerance,
                        o.entry,
                        o.derived,
                        o.user,
                        o.what,
                        note=f"{why}: {o.note}" if o.note else why,
                        crashed=o.crashed,
                        error=o.error,
                    )
                if r is not None:
                    res.append(r)
                if worst_o is None or o.ratio() > worst_o.ratio():
                    worst_o = o
            else:
                notes.append(f"{_name(dtype)} resolution {max(res):.2g}" if res else f"{_name(dtype)} ✓")
        o = worst_o or Outcome(True)
        return Outcome(
            True, o.max_abs_err, o.tolerance, what=o.what, note=f"L {sizes[0]}…{sizes[-1]}: " + "; ".join(notes)
        )

    return run


def dtype_property(kind: str, quick: bool = False) -> Property | None:
    """The ``input-dtypes`` property of ``kind`` (None for a kind without float inputs: positional);
    ``quick``: to L = :data:`QUICK_L` (``--quick``)."""
    from mathcheck.conform.property import Property

    if kind not in INPUTS:
        return None
    top = QUICK_L if quick else SIZES["L"]
    return Property(
        "input-dtypes",
        "softmax-simplex",
        f"on float64, float32, bfloat16 and float16 inputs, L up to {top}: the same values give the same "
        "output widened (float64 tolerance), and as written it is within 4× a correct build's rounding",
        check(kind),
        {"L": top},
        MINIMUM,
    )
