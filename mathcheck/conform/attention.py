"""Properties of attention callables (``attention``, ``gqa``) and attention modules (``mha``).

The reference is built from derived results only: scores from multihead-split-merge's
``head-scores`` (Σ_e K_h Q_h/√D_head), weights from mask-negative-infinity's ``boolean-mask``
(exp(z_i)α_i/Σ_k exp(z_k)α_k, evaluated after the shift by the row maximum that softmax-simplex's
``shift-invariant`` part licenses), the output from attention-backward's O = PV, and the
gradients from attention-backward's parts dV, dP, dS, dQ, dK.

A weight is observed directly by passing V = I (then the output *is* the weight matrix).
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from mathcheck.conform import formulas as fm
from mathcheck.conform.property import (
    F64,
    Outcome,
    Property,
    call_tensor,
    compare,
    draw,
    first_output,
    tolerance,
    worst_comparison,
)

# --- the derived reference ------------------------------------------------------------------------


def alibi_slopes(H: int) -> torch.Tensor:
    """ALiBi's head slopes m_h = 2^(−8h/H), h = 1..H (Press et al. 2022)."""
    return torch.tensor([2.0 ** (-8.0 * h / H) for h in range(1, H + 1)], dtype=F64)


def keep_mask(L: int, Lk: int, variant) -> torch.Tensor:
    """(L, Lk) True = attend: everything, or the causal triangle j ≤ i, or the window i − W < j ≤ i."""
    i = torch.arange(L)[:, None]
    j = torch.arange(Lk)[None, :]
    keep = torch.ones(L, Lk, dtype=torch.bool)
    if variant.masked:
        keep = j <= i
    if variant.window is not None:
        keep = keep & (j > i - variant.window)
    return keep


def derived_scores(q, k, variant) -> torch.Tensor:
    """z[b, h, l, j] from the head-scores part; --scale S replaces its 1/√D_head by S; ALiBi adds
    the bias −m_h|l − j| (−m_h(l − j) on the causal band; bidirectional ALiBi elsewhere, which does not
    favour future keys)."""
    B, H, L, Dh = q.shape
    z = fm.ev(
        fm.head_scores(), {"Q_h": q, "K_h": k, "D_head": Dh}, grid={"b": B, "h": H, "l": L, "j": k.shape[2]}, base=0
    )
    if variant.scale is not None:
        z = z * (variant.scale * math.sqrt(Dh))
    if variant.positions == "alibi":
        dist = torch.arange(L, dtype=F64)[:, None] - torch.arange(k.shape[2], dtype=F64)[None, :]
        z = z - alibi_slopes(H)[:, None, None] * dist.abs()
    return z


def derived_weights(z, keep=None, additive=None) -> torch.Tensor:
    """Row-wise weights: the boolean-mask formula with α = keep; an additive mask m goes through
    the part's left-hand side exp(m_i + z_i)/Σ_k exp(m_k + z_k)."""
    n = z.shape[-1]
    rows = z.reshape(-1, n)
    if keep is None:
        keep = torch.ones_like(z, dtype=torch.bool)
    alpha = torch.broadcast_to(keep, z.shape).reshape(-1, n).to(F64)
    if additive is not None:
        m = torch.broadcast_to(additive, z.shape).reshape(-1, n)
        shift = (rows + m).amax(-1, keepdim=True)
        e = fm.additive_masked_softmax()
        out = torch.vmap(lambda zr, mr: fm.ev(e, {"z": zr, "m": mr, "n": n}, grid={"i": n}))(rows - shift, m)
    else:
        # the shift by the largest kept score: softmax-simplex's shift-invariant part
        shift = torch.where(alpha > 0, rows, torch.full_like(rows, -torch.inf)).amax(-1, keepdim=True)
        shift = torch.nan_to_num(shift, neginf=0.0)
        # α_k = 0 multiplies exp(z_k) away; its score is set to the shift so exp cannot overflow first
        rows = torch.where(alpha > 0, rows, shift)
        e = fm.masked_softmax()
        out = torch.vmap(lambda zr, ar: fm.ev(e, {"z": zr, "alpha": ar, "n": n}, grid={"i": n}))(rows - shift, alpha)
    return out.reshape(z.shape)


def derived_output(P, v) -> torch.Tensor:
    """O = PV, attention-backward's O_mb = Σ_k P_mk V_kb, per (batch, head) slice."""
    B, H, L, Lk = P.shape
    Dv = v.shape[-1]
    e = fm.attention_output()
    f = lambda p, vv: fm.ev(e, {"P": p, "V": vv, "L": Lk}, grid={"m": L, "b": Dv})  # noqa: E731
    return torch.vmap(f)(P.reshape(-1, L, Lk), v.reshape(-1, Lk, Dv)).reshape(B, H, L, Dv)


def reference(q, k, v, variant, keep=None, additive=None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    z = derived_scores(q, k, variant)
    if keep is None and variant.masked:
        keep = keep_mask(q.shape[2], k.shape[2], variant)
    P = derived_weights(z, keep, additive)
    return z, P, derived_output(P, v)


def _qkv(gen, B, H, L, D, simple, Lk=None):
    Lk = Lk or L
    return (
        draw(gen, B, H, L, D, simple=simple),
        draw(gen, B, H, Lk, D, simple=simple),
        draw(gen, B, H, Lk, D, simple=simple),
    )


def _out_tol(z, v, L, D):
    return tolerance(L + D, float(v.abs().max()) * (1.0 + float(z.abs().max())))


def _attend(fn, q, k, v, variant, **kw):
    kw.setdefault("is_causal", variant.masked)
    return call_tensor(fn, q, k, v, **kw)


# --- attention properties ------------------------------------------------------------------------------


def _output(fn, s, gen, simple, variant):
    q, k, v = _qkv(gen, s["B"], s["H"], s["L"], s["D"], simple)
    z, P, O = reference(q, k, v, variant)
    out, err = _attend(fn, q, k, v, variant)
    if err:
        return err
    return compare(out, O, _out_tol(z, v, s["L"], s["D"]), "softmax(QKᵀ·scale + mask)·V, derived")


def _past_1024(fn, s, gen, simple, variant):
    """:func:`_output` at L = 1025. A target that raises there but holds at L = 1024 has a length
    limit of 1024 positions (GPT-2's ``bias`` buffer of n_positions = 1024): said, held at 1024 —
    past every power-of-two block up to 512 — not failed; a raise below 1025 still fails."""
    o = _output(fn, s, gen, simple, variant)
    if not (o.crashed and s["L"] == LONGEST["L"]):
        return o
    at = _output(fn, {**s, "L": LONGEST["L"] - 1}, gen, simple, variant)
    if not at.ok:
        return o
    raised = o.note.removeprefix("the callable raised ")
    return Outcome(
        True,
        at.max_abs_err,
        at.tolerance,
        what=at.what,
        note=f"raised at L = {s['L']} ({raised}): a length limit of {s['L'] - 1} keys, not checked "
        f"past it; held at L = {s['L'] - 1}",
    )


def _identity_values(B, H, L):
    return torch.eye(L, dtype=F64).expand(B, H, L, L).contiguous()


def _weights_on_simplex(fn, s, gen, simple, variant):
    B, H, L = s["B"], s["H"], s["L"]
    q, k = draw(gen, B, H, L, L, simple=simple), draw(gen, B, H, L, L, simple=simple)
    P, err = _attend(fn, q, k, _identity_values(B, H, L), variant)
    if err:
        return err
    P = torch.as_tensor(P).detach().to(F64)
    one = fm.ev(fm.softmax_normalised(), {})
    sums = compare(P.sum(-1), one.expand(P.shape[:-1]), tolerance(L), "Σ_j P_ij = 1 (softmax-simplex 'normalised')")
    nonneg = compare(P.clamp(max=0.0), torch.zeros_like(P), tolerance(L), "P_ij ≥ 0")
    return worst_comparison(sums, nonneg)


def _random_keep(gen, B, H, L):
    keep = torch.rand(B, H, L, L, generator=gen) < 0.6
    return keep | torch.eye(L, dtype=torch.bool)  # every row keeps a key (the fully masked row is its own property)


def _masked_keys(fn, s, gen, simple, variant):
    B, H, L = s["B"], s["H"], s["L"]
    q, k = draw(gen, B, H, L, L, simple=simple), draw(gen, B, H, L, L, simple=simple)
    keep = _random_keep(gen, B, H, L)
    if variant.always_causal or (variant.positions == "alibi" and variant.masked):
        # it masks the future whatever it is passed: the band is part of the mask. Causal ALiBi is
        # defined on the band only, where BLOOM/MPT/gpt-neox's slope·j bias equals −m(i − j) up to a
        # row constant, which softmax cancels (the catalog's alibi-query-term-cancels)
        keep = keep & keep_mask(L, L, variant)
    V = _identity_values(B, H, L)
    z = derived_scores(q, k, variant)
    outcomes = []
    zero = float(fm.ev(fm.masked_weight_limit(), {}))
    for label, mask, P in (
        ("boolean", keep, derived_weights(z, keep)),
        (
            "additive",
            torch.where(keep, 0.0, -torch.inf).to(F64),
            derived_weights(z, additive=torch.where(keep, 0.0, -torch.inf).to(F64)),
        ),
    ):
        got, err = _attend(fn, q, k, V, variant, attn_mask=mask, is_causal=False)
        if err:
            return err
        got = torch.as_tensor(got).detach().to(F64)
        at_masked = torch.where(keep, torch.zeros_like(got), got)
        outcomes.append(
            compare(
                at_masked, torch.full_like(got, zero), 0.0, f"weight of a masked key = {zero:g} exactly ({label} mask)"
            )
        )
        outcomes.append(
            compare(
                got,
                P,
                tolerance(L, 1 + float(z.abs().max())),
                f"weights exp(z_i)α_i/Σ_k exp(z_k)α_k, derived ({label} mask)",
            )
        )
    return worst_comparison(*outcomes)


def _causal_future(fn, s, gen, simple, variant):
    B, H, L = s["B"], s["H"], s["L"]
    q, k = draw(gen, B, H, L, L, simple=simple), draw(gen, B, H, L, L, simple=simple)
    keep = keep_mask(L, L, variant)
    got, err = _attend(fn, q, k, _identity_values(B, H, L), variant)
    if err:
        return err
    got = torch.as_tensor(got).detach().to(F64)
    zero = float(fm.ev(fm.masked_weight_limit(), {}))
    z = derived_scores(q, k, variant)
    hidden = compare(
        torch.where(keep, torch.zeros_like(got), got),
        torch.full_like(got, zero),
        0.0,
        "weight of a key outside the causal mask (j > i"
        + (f" or j ≤ i − {variant.window}" if variant.window else "")
        + f") = {zero:g} exactly",
    )
    rest = compare(
        got,
        derived_weights(z, keep),
        tolerance(L, 1 + float(z.abs().max())),
        "weights renormalised over the visible keys, derived",
    )
    return worst_comparison(hidden, rest)


def _fully_masked_row(fn, s, gen, simple, variant):
    B, H, L, D = s["B"], s["H"], s["L"], s["D"]
    q, k, v = _qkv(gen, B, H, L, D, simple)
    keep = torch.ones(B, H, L, L, dtype=torch.bool)
    keep[..., 0, :] = False
    out, err = _attend(fn, q, k, v, variant, attn_mask=keep, is_causal=False)
    if err:
        return Outcome(True, note=err.note)
    row = torch.as_tensor(out).detach().to(F64)[..., 0, :]
    if bool(torch.isnan(row).any()):
        note = "the fully masked row is NaN (plain softmax of all −∞; F.softmax does this)"
    elif bool((row == 0).all()):
        note = "the fully masked row is 0 (safe softmax, like F.scaled_dot_product_attention)"
    elif torch.allclose(row, v.mean(-2), atol=1e-9):
        note = "the fully masked row is the mean of V (masked scores filled with a finite value: uniform weights)"
    else:
        note = "the fully masked row is finite but neither 0 nor the mean of V"
    return Outcome(True, note=note, what="report")


def _scale(fn, s, gen, simple, variant):
    """Two keys: the output is p₁e₁ + p₂e₂, so p₁/p₂ is observed; softmax-simplex's ratio part
    derives it as exp(z₁ − z₂) with z from the head-scores part."""
    B, H, D = s["B"], s["H"], s["D"]
    q, k = draw(gen, B, H, 2, D, simple=simple), draw(gen, B, H, 2, D, simple=simple)
    v = torch.zeros(B, H, 2, D, dtype=F64)
    v[..., 0, 0] = 1.0
    v[..., 1, 1] = 1.0
    out, err = _attend(fn, q, k, v, variant)
    if err:
        return err
    out = torch.as_tensor(out).detach().to(F64)[..., 1, :]  # the last query sees both keys
    z = derived_scores(q, k, variant)[..., 1, :]
    e = fm.softmax_ratio()
    ratio = torch.vmap(lambda zr: fm.ev(e, {"z": zr, "i": 1, "j": 2}))(z.reshape(-1, 2)).reshape(B, H)
    user = out[..., 0] / out[..., 1]
    return compare(
        user.log(),
        ratio.log(),
        tolerance(D, 1 + float(z.abs().max())),
        "log(p₁/p₂) = z₁ − z₂ with z = q·k·scale (scale 1/√D_head unless --scale)",
    )


def _backward(fn, s, gen, simple, variant):
    B, H, L, D = s["B"], s["H"], s["L"], s["D"]
    q, k, v = _qkv(gen, B, H, L, D, simple)
    dO = draw(gen, B, H, L, D, simple=simple)
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    out, err = _attend(fn, *leaves, variant)
    if err:
        return err
    try:
        gq, gk, gv = torch.autograd.grad(first_output(out), leaves, dO, allow_unused=True)
    except Exception as exc:  # noqa: BLE001 - not differentiable: report it as this property's failure
        return Outcome(
            False, float("inf"), note=f"autograd through the callable raised {type(exc).__name__}: {exc}", crashed=True
        )
    z, P, O = reference(q, k, v, variant)
    exprs = fm.attention_gradients()
    scale_fix = variant.scale * math.sqrt(D) if variant.scale is not None else 1.0
    nd = {"L": L, "d": D}

    def per_slice(Pm, Vm, Om, dOm, Qm, Km):
        t = {"P": Pm, "V": Vm, "O": Om, "dO": dOm, "Q": Qm, "K": Km}
        dP = fm.ev(exprs["dP"], {**t, **nd}, grid={"i": L, "j": L})
        dS = fm.ev(exprs["dS"], {**t, "dP": dP, **nd}, grid={"i": L, "j": L})
        dV = fm.ev(exprs["dV"], {**t, **nd}, grid={"j": L, "a": D})
        dQ = fm.ev(exprs["dQ"], {**t, "dS": dS, **nd}, grid={"i": L, "a": D}) * scale_fix
        dK = fm.ev(exprs["dK"], {**t, "dS": dS, **nd}, grid={"j": L, "a": D}) * scale_fix
        return dQ, dK, dV

    flat = lambda t: t.reshape(B * H, *t.shape[2:])  # noqa: E731
    dQ, dK, dV = (
        x.reshape(B, H, L, D) for x in torch.vmap(per_slice)(flat(P), flat(v), flat(O), flat(dO), flat(q), flat(k))
    )
    tol = tolerance(
        2 * L + D,
        float(dO.abs().max())
        * float(v.abs().max())
        * float(q.abs().max() + k.abs().max())
        * (1 + float(z.abs().max())),
    )
    zeros = torch.zeros_like(q)
    return worst_comparison(
        compare(gq if gq is not None else zeros, dQ, tol, "dQ = dS·K·scale (attention-backward)"),
        compare(gk if gk is not None else zeros, dK, tol, "dK = dSᵀ·Q·scale (attention-backward)"),
        compare(gv if gv is not None else zeros, dV, tol, "dV = Pᵀ·dO (attention-backward)"),
    )


def _permutation(fn, s, gen, simple, variant):
    B, H, L, D = s["B"], s["H"], s["L"], s["D"]
    q, k, v = _qkv(gen, B, H, L, D, simple)
    perm = torch.randperm(L, generator=gen)
    if L > 1 and bool((perm == torch.arange(L)).all()):
        perm = perm.roll(1)
    a, err = _attend(fn, q, k, v, variant)
    if err:
        return err
    b, err = _attend(fn, q[..., perm, :], k[..., perm, :], v[..., perm, :], variant)
    if err:
        return err
    a = torch.as_tensor(a).detach().to(F64)
    return compare(
        b,
        a[..., perm, :],
        tolerance(L + D, float(v.abs().max()) * (1 + float(q.abs().max() * k.abs().max() * D))),
        "Attn(PQ, PK, PV) = P·Attn(Q, K, V) (the same callable, tokens permuted)",
    )


def _large_logits(fn, s, gen, simple, variant):
    B, H, L, D = s["B"], s["H"], s["L"], s["D"]
    q, k, v = _qkv(gen, B, H, L, D, simple)
    z0 = derived_scores(q, k, variant)
    a = math.sqrt(1e4 / max(float(z0.abs().max()), 1e-12))
    q, k = q * a, k * a  # the largest |score| is now 1e4
    z, P, O = reference(q, k, v, variant)
    out, err = _attend(fn, q, k, v, variant)
    if err:
        return err
    out = torch.as_tensor(out).detach().to(F64)
    if not bool(torch.isfinite(out).all()):
        idx = tuple(torch.nonzero(~torch.isfinite(out))[0].tolist())
        return Outcome(
            False,
            float("inf"),
            0.0,
            idx,
            float(O[idx]),
            float(out[idx]),
            "a finite output at scores up to ±1e4 (the softmax must subtract the row maximum)",
        )
    return compare(out, O, _out_tol(z, v, L, D), "softmax(QKᵀ·scale)V at scores up to ±1e4, derived (shifted)")


def _float32(fn, s, gen, simple, variant):
    B, H, L, D = s["B"], s["H"], s["L"], s["D"]
    q, k, v = _qkv(gen, B, H, L, D, simple)
    a, err = _attend(fn, q, k, v, variant)
    if err:
        return err
    b, err = _attend(fn, q.float(), k.float(), v.float(), variant)
    if err:
        return err
    z = derived_scores(q, k, variant)
    tol = tolerance(L + D, float(v.abs().max()) * (1 + float(z.abs().max())), torch.float32)
    return compare(
        torch.as_tensor(b).detach().to(F64),
        a,
        tol,
        "the float32 output against the float64 one (tolerance from float32's eps)",
    )


def _not_if_positions(variant):
    return (
        "holds"
        if variant.positions in ("none", "alibi")
        else f"skip: --positions {variant.positions} rotates q and k inside the callable; no derived reference"
    )


def _not_if_quick(variant):
    if variant.quick:
        return "skip: --quick: L = 1025 not run (without --quick it runs past every power of two up to 1024)"
    return _not_if_positions(variant)


def _equivariance_expected(variant):
    return "breaks" if (variant.masked or variant.positions != "none") else "holds"


ATTN = {"B": 2, "H": 2, "L": 4, "D": 8}
MIN = {"B": 1, "H": 1, "L": 1, "D": 1}
# real sizes: a bug that only shows past a few keys (a key budget, a fixed-size buffer, a block loop
# that stops early) holds at L = 4; the shrinker then walks L down to where it starts
LONG = {"B": 1, "H": 2, "L": 80, "D": 64}
# past every power of two up to 1024 a kernel may block on (a second block of 128 keys scaled wrong):
# one head of 16 keeps it near a second on CPU; the shrinker walks L down to the first bad block
LONGEST = {"B": 1, "H": 1, "L": 1025, "D": 16}


def attention_properties() -> list[Property]:
    return [
        Property(
            "output",
            "attention-backward",
            "the output equals the derived softmax(QKᵀ/√D_head + mask)·V",
            _output,
            ATTN,
            MIN,
            _not_if_positions,
        ),
        Property(
            "long-sequence",
            "attention-backward",
            "the output equals the derived one at real sizes (L = 80 keys, D_head = 64)",
            _output,
            LONG,
            MIN,
            _not_if_positions,
        ),
        Property(
            "past-1024-keys",
            "attention-backward",
            "the output equals the derived one at L = 1025 keys (past each power-of-two block up to 1024)",
            _past_1024,
            LONGEST,
            MIN,
            _not_if_quick,
        ),
        Property(
            "weights-on-simplex",
            "softmax-simplex",
            "with V = I the output is the weight matrix: rows sum to 1, entries ≥ 0 (softmax over the keys)",
            _weights_on_simplex,
            {"B": 2, "H": 2, "L": 4},
            {"B": 1, "H": 1, "L": 2},
        ),
        Property(
            "masked-keys-zero-weight",
            "mask-negative-infinity",
            "attn_mask (bool True = keep, or additive 0/−inf): a masked key has weight exactly 0, the rest renormalise",
            _masked_keys,
            {"B": 2, "H": 2, "L": 4},
            {"B": 1, "H": 1, "L": 2},
            lambda v: "skip: the callable takes no mask" if v.takes_no_mask else _not_if_positions(v),
        ),
        Property(
            "causal-future-zero-weight",
            "mask-negative-infinity",
            "is_causal=True: keys after the query (or outside the window) have weight exactly 0",
            _causal_future,
            {"B": 2, "H": 2, "L": 4},
            {"B": 1, "H": 1, "L": 2},
            lambda v: "skip: not declared --causal/--window" if not v.masked else _not_if_positions(v),
        ),
        Property(
            "fully-masked-row",
            "mask-negative-infinity",
            "what a row whose keys are all masked becomes (reported, not judged)",
            _fully_masked_row,
            ATTN,
            MIN,
            lambda v: "skip: the callable takes no mask" if v.takes_no_mask else "report",
        ),
        Property(
            "scale",
            "multihead-split-merge",
            "two keys: log(p₁/p₂) = (q·k₁ − q·k₂)/√D_head (the score scale)",
            _scale,
            {"B": 2, "H": 2, "D": 16},
            {"B": 1, "H": 1, "D": 2},
            lambda v: "skip: a window of 1 shows one key" if v.window == 1 else _not_if_positions(v),
        ),
        Property(
            "backward",
            "attention-backward",
            "autograd of the callable equals the derived dQ, dK, dV",
            _backward,
            ATTN,
            MIN,
            _not_if_positions,
        ),
        Property(
            "permutation-equivariance",
            "attention-permutation-equivariance",
            "permuting the tokens permutes the output (without mask or positions; a causal mask must break it)",
            _permutation,
            ATTN,
            {"B": 1, "H": 1, "L": 2, "D": 1},
            _equivariance_expected,
        ),
        Property(
            "finite-large-logits",
            "softmax-simplex",
            "scores up to ±1e4: the output is finite and equals the derived (shifted) one",
            _large_logits,
            ATTN,
            MIN,
            _not_if_positions,
        ),
        Property(
            "float32-vs-float64",
            "softmax-simplex",
            "the float32 result is within float32's rounding of the float64 one",
            _float32,
            ATTN,
            MIN,
        ),
    ]


def attention_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: (1, 2, 16, 16) query, key and value; n = 32."""
    q, k, v = (draw(gen, 1, 2, 16, 16) for _ in range(3))
    return (lambda: fn(q, k, v, is_causal=variant.masked)), 32
