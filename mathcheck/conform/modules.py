"""Properties of multi-head attention modules (``mha``), grouped-query attention callables (``gqa``)
and online-softmax kernels (``online-softmax``).

An ``mha`` module's weights are its own, so its properties are the ones a derived statement makes
about *any* weights: the §7.1 shape table traced through the forward pass (a TorchDispatchMode
records every op's output shape), the split/merge layout (multihead-split-merge), permutation
equivariance (attention-permutation-equivariance) and, with ``--causal``/``--window``, that no
output depends on an input it must not see (mask-negative-infinity; the §9 contract
``causal-mask-autoregressive``).
"""

from __future__ import annotations

from typing import Callable

import torch

from mathcheck.conform import attention as att
from mathcheck.conform import formulas as fm
from mathcheck.conform.property import (
    F64,
    Outcome,
    Property,
    build_module,
    call_tensor,
    compare,
    draw,
    float32_against_float64,
    tolerance,
    worst_comparison,
)


def build(make, s, gen, dtype=F64) -> tuple[torch.nn.Module | None, Outcome | None]:
    return build_module(make, (s["D"], s["H"]), gen, "make(D, H)", dtype)


def _run(module, x):
    return call_tensor(module, x)


def _x(gen, s, simple, L=None):
    return draw(gen, s["B"], L or s["L"], s["D"], simple=simple)


def _trace(module, x):
    """Output shapes of every aten op the forward pass runs (TorchDispatchMode sees inside
    composite modules, so fused projections and SDPA calls are visible as ops)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Shapes(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in out if isinstance(out, (tuple, list)) else (out,):
                if isinstance(t, torch.Tensor):
                    seen.append((str(func.overloadpacket.__name__), tuple(t.shape)))
            return out

    with Shapes():
        out, err = _run(module, x)
    return seen, out, err


def _shapes(make, s, gen, simple, variant):
    m, err = build(make, s, gen)
    if err:
        return err
    B, L, D, H = s["B"], s["L"], s["D"], s["H"]
    Dh = D // H
    x = _x(gen, s, simple).requires_grad_()  # the slow path: fused inference kernels hide the table
    seen, out, err = _trace(m, x)
    if err:
        return err
    shapes = {shape for _, shape in seen}
    fused_kernel = any("scaled_dot_product" in name or "attention" in name for name, _ in seen)
    from mathcheck.derivations.shapes import forward_shapes

    (Bs, Ls, Hs, Dhs), table = forward_shapes()  # the §7.1 table, derived in B, L, H, D_head
    at = {Bs: B, Ls: L, Hs: H, Dhs: Dh}
    missing = []
    for name, shape, _ in table[1:]:
        want = tuple(int(x.xreplace(at)) for x in shape)
        # accepted spellings: the derived shape, B and H flattened together (nn.MultiheadAttention),
        # a fused QKV projection (B, L, 3D), and (B·L, D) for a projection applied to a flat view
        alts = {want}
        if len(want) == 4 and want[:2] == (B, H):
            alts.add((B * H,) + want[2:])
        if len(want) == 3 and want == (B, L, D):
            alts |= {(B, L, 3 * D), (B * L, D), (B * L, 3 * D), (L, B, D)}
        if len(want) == 4 and want == (B, L, H, Dh):
            alts |= {(L, B * H, Dh), (B, L, 3, H, Dh)}
        if shapes & alts:
            continue
        if want == (B, H, L, L) and fused_kernel:
            continue  # scores and weights live inside a fused attention kernel
        missing.append(f"{name} {want}")
    got = tuple(torch.as_tensor(out).shape)
    if got != (B, L, D):
        return Outcome(
            False,
            float("inf"),
            0.0,
            None,
            None,
            None,
            f"output shape (B, L, D) = {(B, L, D)}",
            note=f"the output has shape {got}",
        )
    if missing:
        return Outcome(
            False,
            float("inf"),
            0.0,
            None,
            None,
            None,
            "the §7.1 shape table (mathcheck shapes)",
            note="no tensor traced for: " + "; ".join(missing),
        )
    return Outcome(
        True,
        0.0,
        0.0,
        what="the §7.1 shape table",
        note=f"traced {len(seen)} ops; every row of the derived table observed"
        + (" (scores inside a fused attention kernel)" if fused_kernel and (B, H, L, L) not in shapes else ""),
    )


def _split_merge(make, s, gen, simple, variant):
    """L copies of one token: attention averages identical values, so every output row must be the
    output for that token alone; the merge must put head h's row l at columns h·D_head…(h+1)·D_head−1
    of row l (the split-merge part's index map), which a merge by `view` without the transpose breaks."""
    m, err = build(make, s, gen)
    if err:
        return err
    B, L, D = s["B"], s["L"], s["D"]
    tok = _x(gen, s, simple, L=1)
    one, err = _run(m, tok)
    if err:
        return err
    many, err = _run(m, tok.expand(B, L, D).contiguous())
    if err:
        return err
    one = torch.as_tensor(one).detach().to(F64)
    return compare(
        many,
        one.expand(B, L, D),
        tolerance(L + D, 1 + float(one.abs().max())),
        "row l of the output for L copies of a token = the output for the token alone",
    )


def _permutation(make, s, gen, simple, variant):
    m, err = build(make, s, gen)
    if err:
        return err
    x = _x(gen, s, simple)
    L = s["L"]
    perm = torch.randperm(L, generator=gen)
    if L > 1 and bool((perm == torch.arange(L)).all()):
        perm = perm.roll(1)
    a, err = _run(m, x)
    if err:
        return err
    b, err = _run(m, x[:, perm])
    if err:
        return err
    a = torch.as_tensor(a).detach().to(F64)
    return compare(b, a[:, perm], tolerance(L + s["D"], 1 + float(a.abs().max())), "f(PX) = P·f(X) (tokens permuted)")


def _no_future(make, s, gen, simple, variant):
    m, err = build(make, s, gen)
    if err:
        return err
    L, D = s["L"], s["D"]
    x = _x(gen, s, simple)
    t = L // 2
    y = x.clone()
    y[:, t + 1 :] = _x(gen, s, simple)[:, t + 1 :]  # change every input after t
    a, err = _run(m, x)
    if err:
        return err
    b, err = _run(m, y)
    if err:
        return err
    a, b = (torch.as_tensor(o).detach().to(F64)[:, : t + 1] for o in (a, b))
    outs = [
        compare(
            b,
            a,
            tolerance(L + D, 1 + float(a.abs().max())),
            f"outputs 0..{t} unchanged when the inputs after {t} change (causal)",
        )
    ]
    if variant.window is not None and L > variant.window:
        w = variant.window
        y = x.clone()
        y[:, : L - w] = _x(gen, s, simple)[:, : L - w]  # inputs the last query's window excludes
        c, err = _run(m, y)
        if err:
            return err
        a2 = torch.as_tensor(_run(m, x)[0]).detach().to(F64)[:, -1]
        outs.append(
            compare(
                torch.as_tensor(c).detach().to(F64)[:, -1],
                a2,
                tolerance(L + D, 1 + float(a2.abs().max())),
                f"the last output unchanged when inputs outside its window of {w} change",
            )
        )
    return worst_comparison(*outs)


def _float32(make, s, gen, simple, variant):
    state = gen.get_state()
    m, err = build(make, s, gen)
    if err:
        return err
    rebuild = lambda dtype: build(make, s, torch.Generator().set_state(state), dtype)  # noqa: E731
    x = _x(gen, s, simple)
    return float32_against_float64(
        m,
        rebuild,
        x,
        lambda a: tolerance(s["L"] + 3 * s["D"], 1 + float(a.abs().max()) + float(x.abs().max()), torch.float32),
    )


MHA = {"B": 2, "L": 5, "D": 12, "H": 3}  # D_head = 4 ≠ L ≠ H, so each row of the table has its own shape
LONG = {"B": 1, "L": 80, "D": 128, "H": 2}  # real sizes: D_head = 64; a module that drops keys past 16 holds at L = 5


def _long_expected(variant):
    return (
        "holds"
        if not variant.masked and variant.positions == "none"
        else "skip: permutation equivariance is broken on purpose by the declared mask or positions"
    )


def mha_properties() -> list[Property]:
    sizes, lo = MHA, {"B": 1, "L": 2, "D": 12, "H": 3}
    return [
        Property(
            "shapes",
            "multihead-split-merge",
            "the §7.1 shape table traced through the forward pass",
            _shapes,
            sizes,
            lo,
        ),
        Property(
            "split-merge",
            "multihead-split-merge",
            "heads merged back in place: (B, H, L, D_head) → transpose → (B, L, D)",
            _split_merge,
            sizes,
            lo,
        ),
        Property(
            "permutation-equivariance",
            "attention-permutation-equivariance",
            "permuting the tokens permutes the output (a causal mask must break it)",
            _permutation,
            sizes,
            lo,
            att._equivariance_expected,
        ),
        Property(
            "long-sequence",
            "attention-permutation-equivariance",
            "f(PX) = P·f(X) at real sizes (L = 80, D_head = 64)",
            _permutation,
            LONG,
            {"B": 1, "L": 2, "D": 128, "H": 2},
            _long_expected,
        ),
        Property(
            "causal-no-future",
            "mask-negative-infinity",
            "output t does not depend on inputs after t (or outside the window)",
            _no_future,
            sizes,
            lo,
            lambda v: "holds" if v.masked else "skip: not declared --causal/--window",
        ),
        Property(
            "float32-vs-float64", "softmax-simplex", "float32 within float32's rounding of float64", _float32, sizes, lo
        ),
    ]


# --- gqa --------------------------------------------------------------------------------------------


def _gqa_qkv(gen, s, simple):
    return (
        draw(gen, s["B"], s["G"] * s["R"], s["L"], s["D"], simple=simple),
        draw(gen, s["B"], s["G"], s["L"], s["D"], simple=simple),
        draw(gen, s["B"], s["G"], s["L"], s["D"], simple=simple),
    )


def _gqa_output(fn, s, gen, simple, variant):
    """GQA = multi-head attention with each K, V head repeated H/G times (grouped-query-attention):
    the derived attention output with K, V repeated along the head axis (query head h reads group
    h // (H/G), as `repeat_interleave` and SDPA's enable_gqa do)."""
    q, k, v = _gqa_qkv(gen, s, simple)
    out, err = call_tensor(fn, q, k, v, is_causal=variant.masked)
    if err:
        return err
    kr, vr = (t.repeat_interleave(s["R"], dim=1) for t in (k, v))
    z, P, O = att.reference(q, kr, vr, variant)
    if not variant.masked:  # the claim's own derived head: group g's K_g, V_g read by its r query heads
        O = _gqa_claim_output(q, k, v, s, variant)
    return compare(
        out,
        O,
        tolerance(s["L"] + s["D"], float(v.abs().max()) * (1 + float(z.abs().max()))),
        "attention with K, V heads repeated H/G times (repeat_interleave), derived",
    )


def _gqa_claim_output(q, k, v, s, variant):
    """grouped-query-attention's ``head-output`` rhs at every (batch, query position): Q_gjc is query
    head (g−1)R + j (from 1), K_g, V_g its group's keys and values; --scale S replaces 1/√d."""
    G, R, L, D = s["G"], s["R"], s["L"], s["D"]
    if variant.scale is not None:  # the score is linear in Q: S·q·k = (1/√d)·(S√d·q)·k
        q = q * (variant.scale * D**0.5)
    e = fm.gqa_head()

    def one(qq, kk, vv):  # qq (H, D) at one position; kk, vv (G, L, D)
        return fm.ev(
            e, {"Q": qq.reshape(G, R, D), "K": kk, "V": vv, "n": L, "d": D}, grid={"g": G, "j": R, "e": D}
        ).reshape(G * R, D)

    per_batch = torch.vmap(torch.vmap(one, in_dims=(0, None, None)))  # over batch, then query positions
    return per_batch(q.transpose(1, 2), k, v).transpose(1, 2)


def gqa_properties() -> list[Property]:
    sizes, lo = {"B": 2, "G": 2, "R": 2, "L": 4, "D": 8}, {"B": 1, "G": 1, "R": 1, "L": 1, "D": 1}
    return [
        Property(
            "matches-derived",
            "grouped-query-attention",
            "equals attention with each K, V head repeated H/G times (H = G·R)",
            _gqa_output,
            sizes,
            lo,
            att._not_if_positions,
        ),
        Property(
            "mqa",
            "grouped-query-attention",
            "G = 1 (multi-query attention) is the same formula",
            _gqa_output,
            dict(sizes, G=1),
            dict(lo, G=1),
            att._not_if_positions,
        ),
    ]


# --- online softmax ------------------------------------------------------------------------------------


def _online(fn, s, gen, simple, variant, large=False):
    """softmax(s)·V over all keys, s split into blocks: the online-softmax contract. The reference is
    the online-softmax claim's final state Σ_k e^{s_k−m} v_k / Σ_k e^{s_k−m} at m = max s."""
    nb, bs, D, R = s["blocks"], s["block"], s["D"], s["R"]
    scores = draw(gen, R, nb * bs, simple=simple) * 3
    if large:
        scores = scores / scores.abs().max() * 1e4
    values = draw(gen, nb * bs, D, simple=simple)
    out, err = call_tensor(fn, list(scores.split(bs, dim=-1)), list(values.split(bs, dim=0)))
    if err:
        return err
    O = _online_claim_output(scores, values)
    out = torch.as_tensor(out).detach().to(F64)
    if large and not bool(torch.isfinite(out).all()):
        idx = tuple(torch.nonzero(~torch.isfinite(out))[0].tolist())
        return Outcome(
            False,
            float("inf"),
            0.0,
            idx,
            float(O[idx]),
            float(out[idx]),
            "a finite output at scores up to ±1e4 (the running maximum must rescale)",
        )
    return compare(
        out,
        O,
        tolerance(nb * bs + D, float(values.abs().max()) * (1e4 if large else 10.0)),
        "softmax(concatenated scores)·(concatenated values), derived",
    )


def _online_claim_output(scores, values):
    """online-softmax's ``final`` part, step 1: Σ_k e^{s_k−m} v_k / Σ_k e^{s_k−m} at m = max s (the
    part shows it equals softmax(s)·v for every m), per query row and value column."""
    e = fm.online_softmax_shifted()
    N = scores.shape[-1]

    def one(ss, vv):  # one row of scores (N,), one value column (N,)
        return fm.ev(e, {"s": ss, "v": vv, "n": N, "m": ss.max()})

    per_column = torch.vmap(one, in_dims=(None, 1))  # (N,), (N, D) -> (D,)
    return torch.vmap(per_column, in_dims=(0, None))(scores, values)  # (R, D)


def online_softmax_properties() -> list[Property]:
    sizes, lo = {"R": 3, "blocks": 3, "block": 4, "D": 5}, {"R": 1, "blocks": 1, "block": 1, "D": 1}
    return [
        Property(
            "matches-derived",
            "online-softmax",
            "the streamed result equals softmax(s)·V over all keys",
            _online,
            sizes,
            lo,
        ),
        Property(
            "finite-large-logits",
            "online-softmax",
            "finite and correct at scores up to ±1e4",
            lambda *a: _online(*a, large=True),
            sizes,
            lo,
        ),
    ]


def mha_probe(fn, variant, gen, module) -> tuple[Callable[[], object], int]:
    """Precision probe: the module (made with D = 12, H = 3) on (2, 8, 12); n = L + D."""
    x = draw(gen, 2, 8, 12)
    return (lambda: module(x)), 8 + 12


def gqa_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: 4 query heads over 2 key/value groups, L = D_head = 16; n = 32."""
    q, k, v = draw(gen, 1, 4, 16, 16), draw(gen, 1, 2, 16, 16), draw(gen, 1, 2, 16, 16)
    return (lambda: fn(q, k, v, is_causal=variant.masked)), 32


def online_softmax_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: 16 keys in 4 blocks, 3 queries, 8 value columns; n = 24."""
    s, v = draw(gen, 3, 16) * 3, draw(gen, 16, 8)
    return (lambda: fn(list(s.split(4, dim=-1)), list(v.split(4, dim=0)))), 24
