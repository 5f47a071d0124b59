"""Sub-layers held to their kinds: norms through ``conform``, attention calls against the derived formula.

Norms are found by class and attributes (a 1-D ``weight`` and an ``eps``/``variance_epsilon``/
``epsilon``, or a class name with LayerNorm/RMSNorm) and told apart by name, else by behaviour
(an output centred on inputs with a nonzero mean is a LayerNorm). Each is handed to
``mathcheck.conform.run.conform`` as a factory ``make(D, eps)`` that copies the module with its
affine part at the identity and its eps set to the one asked for.

An intercepted ``F.scaled_dot_product_attention`` call is held to softmax(QKᵀ·scale + mask)V, the
conform reference (mathcheck/conform/attention.py: multihead-split-merge's scores,
mask-negative-infinity's weights, attention-backward's O = PV) evaluated in float64 from the
recorded inputs, with K, V repeated by ``repeat_interleave`` under ``enable_gqa``
(grouped-query-attention). A softmax over (…, L_q, L_k) scores is attention's: held to
softmax-simplex along its own axis, to Σ_j P_ij = 1 over the keys, and to the mask's kind.
Tolerances follow the project's error model (mathcheck/numeric/tolerance.py) at the precision the
call computed in.
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING

import torch

from mathcheck.conform.run import Result
from mathcheck.numeric.tolerance import dtype_tolerance

if TYPE_CHECKING:
    from collections.abc import Callable

F64 = torch.float64


# --- tolerances: numeric/tolerance.dtype_tolerance, a value computed in a dtype against float64 ----


def coarser(*dtypes) -> torch.dtype:
    """The least precise floating dtype among those given (the precision a call computed in)."""
    floats = [d for d in dtypes if isinstance(d, torch.dtype) and d.is_floating_point]
    return max(floats, key=lambda d: torch.finfo(d).eps) if floats else F64


def _result(name, claim, doc, ok, err=None, tol=None, note="", cx=None) -> Result:
    if tol is not None and not math.isfinite(tol):  # a check that cannot fail is not a pass
        return Result(
            name,
            claim,
            doc,
            "holds",
            "inconclusive",
            err,
            None,
            None,
            (note + "; " if note else "") + "the tolerance is not finite (values out of range)",
        )
    return Result(name, claim, doc, "holds", "holds" if ok else "fails", err, tol, None if ok else cx, note)


def _compare(user, derived, tol):
    """(ok, max |err|, first differing entry, derived there, user there)."""
    diff = (user.to(F64) - derived).abs()
    diff = torch.where(user.to(F64) == derived, torch.zeros_like(diff), diff).nan_to_num(torch.inf, torch.inf)
    err = float(diff.max()) if diff.numel() else 0.0
    bad = diff > tol
    if not bool(bad.any()):
        return True, err, None, None, None
    idx = tuple(torch.nonzero(bad)[0].tolist())
    return False, err, list(idx), float(derived[idx]), float(user.to(F64)[idx])


# --- norms -------------------------------------------------------------------------------------------


def _eps_name(module):
    from mathcheck.conform.norms import held_eps

    held = held_eps(module)
    return held[0] if held else None


def _one_input(module) -> bool:
    """Whether ``module(x)`` is a complete call: its forward requires exactly one argument (a
    gated norm's ``forward(x, gate)`` and a whole model's ``forward(input_ids, …)`` are not norms'
    calls — the model's first parameter takes integer ids, which the probe then rejects)."""
    import inspect

    try:
        params = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError):
        return False
    required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(required) == 1


def norm_width(module) -> int | None:
    """The feature count D a norm normalises over: its 1-D weight's length, else its
    ``normalized_shape``/``hidden_size``/``dim`` (a norm without weight); None when it names none."""
    w = getattr(module, "weight", None)
    if isinstance(w, torch.Tensor):
        return w.shape[0] if w.dim() == 1 else None
    shape = getattr(module, "normalized_shape", None)
    if isinstance(shape, (tuple, list)) and len(shape) == 1:
        return int(shape[0])
    for name in ("hidden_size", "dim", "normalized_shape", "num_features"):
        v = getattr(module, name, None)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


def norm_kind(module: torch.nn.Module) -> str | None:
    """'layernorm', 'rmsnorm' or None, by what the module computes: called with one tensor
    (B, D) at its affine identity, a norm's output has unit mean square per row, and a LayerNorm's
    is also centred (inputs with nonzero mean tell them apart). Never by class name: a module
    named …LayerNorm… that is not a norm (``BertPreLayerNormForMaskedLM``) fails the probe.

    >>> norm_kind(torch.nn.LayerNorm(4)), norm_kind(torch.nn.RMSNorm(4, eps=1e-6)), norm_kind(torch.nn.Linear(2, 2))
    ('layernorm', 'rmsnorm', None)
    >>> norm_kind(torch.nn.LayerNorm(4, elementwise_affine=False))
    'layernorm'
    """
    if not _one_input(module):
        return None
    D = norm_width(module)
    if D is None and not isinstance(getattr(module, "weight", None), torch.Tensor):
        D = 16  # a norm without weight or width normalises whatever width it is given
    if D is None or D < 2:
        return None
    x = torch.randn(3, D, generator=torch.Generator().manual_seed(0), dtype=F64) + 1.0
    try:
        with torch.no_grad():
            y = _at_identity(module, D, 1e-5, identity_fill(module))(x)
        if not isinstance(y, torch.Tensor) or y.shape != x.shape:
            return None
        y = y.to(F64)
        centred = float(y.mean(-1).abs().max()) < 1e-3
        unit = float((y.pow(2).mean(-1) - 1).abs().max()) < 1e-2
    except Exception:  # noqa: BLE001 - not a norm after all (the probe is what decides, never the name)
        return None
    if not unit:
        return None
    # one factor per row: y ∥ x (RMSNorm) or y ∥ x − mean (LayerNorm); a grouped norm (Mamba-2's
    # per-group RMSNorm) scales each group by its own and is neither
    base = x - x.mean(-1, keepdim=True) if centred else x
    factor = (y * base).sum(-1, keepdim=True) / base.pow(2).sum(-1, keepdim=True)
    if float((y - factor * base).abs().max()) > 1e-3:
        return None
    return "layernorm" if centred else "rmsnorm"


def norm_like(module) -> bool:
    """Named like a norm (…Norm…), so worth a line when it is not checked as one."""
    return "norm" in type(module).__name__.lower() and not isinstance(module, torch.nn.ModuleList)


def _at_identity(module, D, eps, fill=1.0):
    """A copy of ``module`` for D features, its weight (if any) filled with ``fill`` and its bias 0,
    eps set to ``eps``: the affine part at the identity when ``fill`` is the module's (see
    :func:`identity_fill`)."""
    width = norm_width(module)
    m = copy.deepcopy(module).to(F64)
    if width is not None:  # a width the module checks its input against (CPM-Ant's dim_norm): the new one
        for name, value in list(vars(m).items()):
            if type(value) is int and value == width:
                setattr(m, name, D)
            elif value == (width,) and type(value) in (tuple, list):
                setattr(m, name, type(value)((D,)))
    with torch.no_grad():
        if isinstance(getattr(m, "weight", None), torch.Tensor):
            m.weight = torch.nn.Parameter(torch.full((D,), float(fill), dtype=F64))
        if isinstance(getattr(m, "bias", None), torch.Tensor):
            m.bias = torch.nn.Parameter(torch.zeros(D, dtype=F64))
    if isinstance(getattr(m, "normalized_shape", None), (tuple, list)):
        m.normalized_shape = (D,)
    name = _eps_name(m)
    if name:
        setattr(m, name, float(eps))
    return m


def identity_fill(module) -> float:
    """The weight value that makes the affine part the identity: 1 for y·w (LayerNorm, LLaMA's
    RMSNorm), 0 for y·(1 + w) (Gemma's RMSNorm) — whichever gives outputs of unit mean square."""
    D = norm_width(module)
    if D is None or not isinstance(getattr(module, "weight", None), torch.Tensor):
        return 1.0
    x = torch.randn(3, D, generator=torch.Generator().manual_seed(0), dtype=F64) + 1.0
    for fill in (1.0, 0.0):
        try:
            with torch.no_grad():
                y = _at_identity(module, D, 1e-5, fill)(x).to(F64)
        except Exception:  # noqa: BLE001 - not a norm we can call: the properties will say so
            return 1.0
        if float((y.pow(2).mean(-1) - 1).abs().max()) < 1e-3:
            return fill
    return 1.0


def norm_maker(module) -> Callable[[int, float], torch.nn.Module]:
    """``make(D, eps)`` for conform: the module's own computation at any size and eps."""
    fill = identity_fill(module)

    def make(D, eps):
        return _at_identity(module, D, eps, fill)

    return make


def check_norm(path: str, module, kind: str, seed: int, replay: str) -> tuple[list[Result], list[str]]:
    """conform's properties of ``kind`` for this module at its own eps (conform measures the eps
    of a module that holds none, and the precision it computes in); replay lines point at the
    model. Returns (results, setting lines)."""
    from mathcheck.conform.norms import held_eps
    from mathcheck.conform.run import conform
    from mathcheck.conform.spec import Variant

    held = held_eps(module)
    try:
        report = conform(norm_maker(module), kind, Variant(eps=held[1] if held else None), seed=seed, target=path)
    except Exception as exc:  # noqa: BLE001 - conform could not call it at other sizes: said, never a crash
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return None, [
            f"{path} ({type(module).__name__}): computes a {kind} but conform could not call it "
            f"({type(exc).__name__}: {msg[:160]}); not checked"
        ]
    for r in report.results:
        if r.counterexample:
            r.counterexample["replay"] = replay
    return report.results, list(report.setting)


# --- attention calls ---------------------------------------------------------------------------------


def expected_keep(Lq: int, Lk: int, causal: bool, first: int | None = None) -> torch.Tensor:
    """(Lq, Lk), True = attend. Causal: query i is token i + ``first`` and sees keys j ≤ i + first;
    ``first`` None: the queries are the last Lq of Lk tokens (decoding with a dynamic cache). A
    static cache's slots past the current token (Lk = the cache's length) are then masked too.
    Bidirectional: every key.

    >>> expected_keep(1, 4, True, first=1).tolist()   # token 1 against a static cache of 4 slots
    [[True, True, False, False]]
    """
    i = torch.arange(Lq)[:, None] + (Lk - Lq if first is None else first)
    j = torch.arange(Lk)[None, :]
    return (j <= i) if causal else torch.ones(Lq, Lk, dtype=torch.bool)


def _mask_result(keep, Lq, Lk, causal, what, first=None) -> Result:
    """``keep`` (…, Lq, Lk) observed against the expected kind, for every batch and head. ``first``
    may be a tuple of the positions the first query may have: in the cached step, None (a dynamic
    cache: every key held is a past token's) or L − 1 (a static cache: the slots past it masked)."""
    firsts = first if isinstance(first, tuple) else (first,)
    keep = (
        torch.broadcast_to(keep, (*keep.shape[:-2], Lq, Lk))
        if keep.dim() >= 2
        else expected_keep(Lq, Lk, causal, firsts[0])
    )
    for f in firsts[1:]:  # an alternative that matches is the one judged
        if not bool((keep != expected_keep(Lq, Lk, causal, f)).any()):
            first = f
            break
    else:
        first = firsts[0]
    want = expected_keep(Lq, Lk, causal, first)
    bad = keep != want
    claim = "causal-mask-autoregressive" if causal else "mask-negative-infinity"
    doc = "query i attends exactly to keys j ≤ i (causal)" if causal else "every query attends to every key"
    if not bool(bad.any()):
        return _result("mask-kind", claim, doc, True, 0.0, 0.0, note=what)
    idx = tuple(torch.nonzero(bad)[0].tolist())
    i, j = idx[-2], idx[-1]
    seen = "attends to" if bool(keep[idx]) else "does not attend to"
    cx = {
        "entry": list(idx),
        "compared": f"query {i} {seen} key {j}; the {'causal' if causal else 'bidirectional'} "
        f"mask says it {'does' if bool(want[i, j]) else 'must not'}",
        "derived": float(want[i, j]),
        "user": float(keep[idx]),
    }
    return _result("mask-kind", claim, doc, False, 1.0, 0.0, note=what, cx=cx)


def _sdpa_keep(inp, Lq, Lk):
    mask = inp["attn_mask"]
    keep = torch.ones(Lq, Lk, dtype=torch.bool)
    if inp["is_causal"]:  # SDPA's is_causal is the top-left triangle j ≤ i, whatever Lk is
        keep = torch.arange(Lk)[None, :] <= torch.arange(Lq)[:, None]
    if mask is None:
        return keep, None
    if mask.dtype == torch.bool:
        return keep & mask, None
    # an additive mask: −∞, or a fill so negative that exp underflows to exactly 0 (finfo.min)
    masked = (mask == -torch.inf) | (mask <= torch.finfo(mask.dtype).min / 2)
    return keep & ~masked, mask.to(F64)


def check_sdpa(inp: dict, out: torch.Tensor, causal: bool, where: str, first: int | None = None) -> list[Result]:
    from mathcheck.conform.attention import reference
    from mathcheck.conform.spec import Variant

    q, k, v = (inp[n].to(F64) for n in ("query", "key", "value"))
    Lq, Lk, Dh = q.shape[-2], k.shape[-2], q.shape[-1]
    gqa = bool(inp.get("enable_gqa")) and k.shape[-3] != q.shape[-3]
    if gqa:  # grouped-query-attention: query head h reads group h // R
        R = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(R, dim=-3), v.repeat_interleave(R, dim=-3)
    elif k.shape[:-2] != q.shape[:-2]:  # SDPA broadcasts the leading dims: multi-query keys (B, 1, L, D) (Falcon)
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
        q, k, v = (t.expand(*lead, *t.shape[-2:]) for t in (q, k, v))
    scale = inp.get("scale")
    derived_scale = 1 / math.sqrt(Dh)
    keep, additive = _sdpa_keep(inp, Lq, Lk)
    variant = Variant(scale=None if scale is None else float(scale))
    z, P, O = reference(q, k, v, variant, keep=None if additive is not None else keep, additive=additive)
    dtype = coarser(inp["query"].dtype, out.dtype)
    tol = dtype_tolerance(Lk + Dh, float(v.abs().max()) * (1.0 + float(z[torch.isfinite(z)].abs().max())), dtype)
    ok, err, idx, d, u = _compare(out.to(F64), O, tol)
    claim = "grouped-query-attention" if gqa else "attention-backward"
    results = [
        _result(
            "output",
            claim,
            "softmax(QKᵀ·scale + mask)·V" + (", K and V repeated per group" if gqa else ""),
            ok,
            err,
            tol,
            note=f"{where}; computed in {str(dtype).replace('torch.', '')}",
            cx={"entry": idx, "derived": d, "user": u, "compared": "softmax(QKᵀ·scale + mask)·V, derived"},
        )
    ]
    results.append(_mask_result(keep, Lq, Lk, causal, where, first))
    used = derived_scale if scale is None else float(scale)
    if abs(used - derived_scale) <= 4 * torch.finfo(F64).eps * derived_scale:
        results.append(_result("scale", "multihead-split-merge", "scores scaled by 1/√D_head", True, 0.0, 0.0))
    else:  # a model may choose another scale: said, not judged
        results.append(
            Result(
                "scale",
                "multihead-split-merge",
                "scores scaled by 1/√D_head",
                "report",
                "reported",
                note=f"scale {used:.6g}, not 1/√D_head = {derived_scale:.6g}",
            )
        )
    return results


def is_attention_softmax(inp: dict, Lq: int, Lk: int | None) -> bool:
    """Scores (…, Lq, Lk): (B, H, Lq, Lk), or (B·H, L, L) when square; ``Lk`` None: any number of
    keys (a cached step). A router's (B, L, E) softmax is not taken for attention unless E = L."""
    x = inp["input"]
    if not isinstance(x, torch.Tensor) or x.dim() < 3 or x.shape[-2] != Lq:
        return False
    if x.dim() == 3 and x.shape[-1] != Lq:
        return False
    return Lk is None or x.shape[-1] == Lk


def check_softmax(
    inp: dict, out: torch.Tensor, attention: bool, causal: bool, where: str, first: int | None = None
) -> list[Result]:
    from mathcheck.conform.attention import derived_weights

    x = inp["input"].to(F64)
    dim = inp["dim"] if inp["dim"] is not None else -1
    dtype = coarser(inp["input"].dtype, out.dtype, inp.get("dtype"))
    zs = x.movedim(dim, -1)
    # masked: −∞, or a fill so negative that exp underflows to exactly 0 (HF's finfo.min)
    keep = (zs != -torch.inf) & (zs > torch.finfo(inp["input"].dtype).min / 2)
    P = derived_weights(zs, keep).movedim(-1, dim)
    finite = zs[keep & torch.isfinite(zs)]  # the kept scores set the scale; a fill of −1.8e308 would make it ∞
    n = x.shape[dim]
    tol = dtype_tolerance(n, 1.0 + (float(finite.abs().max()) if finite.numel() else 0.0), dtype)
    # a row with every entry masked (a padded query: Longformer pads to its window) has no weights to
    # derive: reported, not judged, as conform does
    empty = (~keep).all(-1, keepdim=True).movedim(-1, dim)
    user = out.to(F64)
    if bool(empty.any()):
        user, P = user.masked_fill(empty, 0.0), P.masked_fill(empty, 0.0)
    ok, err, idx, d, u = _compare(user, P, tol)
    precision = f"computed in {str(dtype).replace('torch.', '')}"
    if bool(empty.any()):
        precision += f"; {int(empty.sum())} fully masked rows not judged"
    results = [
        _result(
            "matches-derived",
            "softmax-simplex",
            "exp(z_i − max z)/Σ_k exp(z_k − max z) along its axis",
            ok,
            err,
            tol,
            note=f"{where}; {precision}",
            cx={"entry": idx, "derived": d, "user": u, "compared": "softmax along the call's axis, derived"},
        )
    ]
    if not attention:
        return results
    Lq, Lk = x.shape[-2], x.shape[-1]
    sums = out.to(F64).sum(-1)
    one = torch.ones_like(sums)
    stol = dtype_tolerance(Lk, 1.0, dtype)
    ok, err, idx, d, u = _compare(sums, one, stol)
    axis = dim % x.dim()
    note = (
        where if axis == x.dim() - 1 else f"{where}; the softmax is over axis {axis} of {x.dim()}, not the keys' (last)"
    )
    results.append(
        _result(
            "weights-on-simplex",
            "softmax-simplex",
            "Σ_j P_ij = 1 over the keys j",
            ok,
            err,
            stol,
            note=note,
            cx={
                "entry": idx,
                "derived": d,
                "user": u,
                "compared": "Σ_j P_ij over the keys, derived 1 (softmax-simplex 'normalised')",
            },
        )
    )
    results.append(_mask_result(out.to(F64) != 0, Lq, Lk, causal, where, first))
    return results


# --- rotary embeddings -------------------------------------------------------------------------------


def rotary_parts(module) -> tuple[Callable, int, float] | None:
    """(apply, head_dim, base) for a transformers-style rotary module — an ``inv_freq`` buffer,
    ``forward(x, position_ids) -> (cos, sin)`` — whose model file defines ``apply_rotary_pos_emb``;
    else None. base is read back from inv_freq_b = base^(−2b/d)."""
    import sys

    inv = getattr(module, "inv_freq", None)
    apply = getattr(sys.modules.get(type(module).__module__), "apply_rotary_pos_emb", None)
    if not isinstance(inv, torch.Tensor) or inv.dim() != 1 or inv.numel() < 2 or apply is None:
        return None
    d = 2 * inv.numel()
    return apply, d, float(inv[1].double()) ** (-d / 2)


def _table_for(module, d: int, base: float):
    """inv_freq for head size d: the module's own at its size; else base^(−2b/d) in the buffer's
    dtype. Only conform's precision probe (at d = 16) asks for another size: the properties run at
    the module's own (``sizes={"m": d/2}``), on its own table."""
    inv = module.inv_freq
    if 2 * inv.numel() == d:
        return inv
    return (base ** (-torch.arange(0, d, 2, dtype=F64) / d)).to(inv.dtype)


def rotary_fn(module, apply, base: float = 10000.0) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """``fn(x, positions)`` for conform's rotary kind: x (…, L, d) rotated by the module's cos/sin
    through the model's own ``apply_rotary_pos_emb`` (one head)."""

    def fn(x, positions):
        L, d = x.shape[-2:]
        xx = x.reshape(-1, L, d)
        pos = positions.round().long().reshape(1, L).expand(xx.shape[0], L)
        own = module.inv_freq
        module.inv_freq = _table_for(module, d, base)
        try:
            cos, sin = module(xx, pos)
        finally:
            module.inv_freq = own
        s = attention_scaling(module)
        if s != 1.0:  # the module's declared factor on cos and sin (YaRN's mscale): the rotation is what remains
            cos, sin = cos / s, sin / s
        q = xx[:, None]
        out = apply(q, q, cos, sin)[0]
        return out[:, 0].reshape(x.shape)

    return fn


def _rotates_backwards(fn, d: int) -> bool:
    """Whether ``fn`` is R_{−m}, the derivation's rotation with every angle negated, rather than R_m:
    a convention (q and k turned the same way, the score still a function of n − m), read from one
    probe at positions 0…3 of a seeded x, within float32's rounding of the tables."""
    from mathcheck.conform.positions import derived_rope

    x = torch.randn(1, 4, d, generator=torch.Generator().manual_seed(0), dtype=F64)
    pos = torch.arange(4, dtype=F64)
    try:
        out = torch.as_tensor(fn(x, pos)).to(F64)
    except Exception:  # noqa: BLE001 - conform reports the call's error itself
        return False
    tol = 1e-4 * float(x.abs().max()) * d
    for layout in ("interleaved", "half"):
        if float((out - derived_rope(x, pos, layout)).abs().max()) <= tol:
            return False
    return any(float((out - derived_rope(x, -pos, lay)).abs().max()) <= tol for lay in ("interleaved", "half"))


def _at_negated_positions(fn):
    def negated(x, positions):
        return fn(x, -positions)

    return negated


def attention_scaling(module) -> float:
    """The factor a transformers rotary module multiplies its cos and sin by (``attention_scaling``:
    1 for plain RoPE, YaRN's 0.1·ln(factor) + 1 for gpt-oss), which scales every q·k by its square."""
    s = getattr(module, "attention_scaling", 1.0)
    return float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) and s > 0 else 1.0


def check_rotary(path: str, module, seed: int, replay: str) -> tuple[list[Result], list[str]] | None:
    """conform's rotary properties at the module's head size; ``matches-derived`` (θ_b =
    10000^(−2(b−1)/d)) only when the module's base is 10000, the other two (statements about any
    base) always. Returns (results, setting lines), or None when the module is not one we can call."""
    from mathcheck.conform.run import conform

    parts = rotary_parts(module)
    if parts is None:
        return None
    apply, d, base = parts
    only = ("relative-position", "norm-preserving")
    if abs(base - 10000.0) <= 1e-6 * 10000.0 * 64:  # inv_freq is float32: base read back to ~d·ε
        only = ()
    fn = rotary_fn(module, apply, base)
    backwards = not only and _rotates_backwards(fn, d)
    if backwards:  # R_{−m}: held as the derivation's R_m at positions −m
        fn = _at_negated_positions(fn)
    report = conform(fn, "rotary", seed=seed, only=only, sizes={"m": d // 2}, target=path)
    for r in report.results:
        if r.counterexample:
            r.counterexample["replay"] = replay
    setting = list(report.setting) + (
        [] if not only else [f"θ base {base:.6g}, not the derivation's 10000: matches-derived not checked"]
    )
    if backwards:
        setting.append(
            "the module rotates by −m·θ (R_m transposed, NanoChat's rotate_half(x) = (x₂, −x₁)): q·k still "
            "depends on n − m only; matches-derived holds it as R_m at positions −m"
        )
    if attention_scaling(module) != 1.0:
        setting.append(
            f"cos and sin carry the module's attention_scaling {attention_scaling(module):.6g} "
            "(q·k scaled by its square): the rotation is held with it divided out"
        )
    return report.results, setting
