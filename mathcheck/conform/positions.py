"""Properties of sinusoidal position tables ``fn(positions, d) -> (L, d)`` and rotary embeddings
``fn(x, positions)`` on (…, L, d).

References: sinusoidal-relative-position's (sin(pos·ω_i), cos(pos·ω_i)) at k = 0 (columns 2i,
2i + 1), its derived rotation M(k) with PE(pos + k) = M(k)·PE(pos), its dot product Σ_i cos(k·ω_i);
rope-relative-position's R_m q (read off the derived inner product) and its statement that the
score depends on n − m only.
"""

from __future__ import annotations

from typing import Callable

import torch

from mathcheck.conform import formulas as fm
from mathcheck.conform.property import F64, Outcome, Property, call_tensor, compare, draw, tolerance


def _table(fn, L, d, offset=0):
    pos = torch.arange(offset, offset + L, dtype=F64)
    out, err = call_tensor(fn, pos, d)
    return (torch.as_tensor(out).detach().to(F64) if out is not None else None), err


def derived_table(pos: torch.Tensor, d: int) -> torch.Tensor:
    """(L, d): column 2i = sin(pos·10000^(−i/m)), column 2i + 1 = cos(…), m = d/2, i from 0."""
    m = d // 2
    pair = fm.sinusoidal_pair()  # Matrix([sin], [cos]) in pos, i, m
    nm = fm.names(pair)
    from mathcheck.numeric.evaluate import evaluate

    i = torch.arange(m, dtype=F64)[None, :]
    vals = evaluate(pair, {nm["pos"]: pos[:, None], nm["i"]: i, nm["m"]: m})  # (2, 1, L, m)
    return torch.stack([vals[0, 0], vals[1, 0]], dim=-1).reshape(pos.shape[0], 2 * m)


def _pos_values(fn, s, gen, simple, variant):
    L, d = s["L"], 2 * s["m"]
    out, err = _table(fn, L, d)
    if err:
        return err
    ref = derived_table(torch.arange(L, dtype=F64), d)
    return compare(out, ref, tolerance(d, float(L)), "PE[pos, 2i] = sin(pos/10000^(2i/d)), PE[pos, 2i+1] = cos(…)")


def _shifted(prop):
    """A property of the callable's table at positions 0..L−1 and at the same positions + k, k drawn
    from 1..49: ``prop(base, shifted, k, L, m) -> Outcome``."""

    def check(fn, s, gen, simple, variant):
        L, m = s["L"], s["m"]
        k = int(torch.randint(1, 50, (1,), generator=gen))
        base, err = _table(fn, L, 2 * m)
        if err:
            return err
        shifted, err = _table(fn, L, 2 * m, offset=k)
        if err:
            return err
        return prop(base, shifted, k, L, m)

    return check


@_shifted
def _pos_rotation(base, shifted, k, L, m):
    d = 2 * m
    M = fm.sinusoidal_rotation()
    nm = fm.names(M)
    from mathcheck.numeric.evaluate import evaluate

    Mk = evaluate(M, {nm["k"]: float(k), nm["i"]: torch.arange(m, dtype=F64), nm["m"]: m})  # (2, 2, m)
    pairs = base.reshape(L, m, 2)  # (sin, cos) per frequency
    rotated = torch.einsum("abi,lib->lia", Mk, pairs).reshape(L, d)
    return compare(
        shifted,
        rotated,
        tolerance(d, float(L + k)),
        f"PE(pos + {k}) = M({k})·PE(pos), M the derived rotation, applied to the callable's own table",
    )


@_shifted
def _pos_dot(a, b, k, L, m):
    d = 2 * m
    ref = fm.ev(fm.sinusoidal_dot(), {"k": float(k), "m": m})
    return compare(
        (a * b).sum(-1),
        ref.expand(L),
        tolerance(d, float(L + k)),
        f"PE(pos)·PE(pos + {k}) = Σ_i cos({k}·ω_i), the same for every pos",
    )


def positional_properties() -> list[Property]:
    sizes, lo = {"L": 6, "m": 4}, {"L": 1, "m": 1}
    return [
        Property(
            "matches-derived",
            "sinusoidal-relative-position",
            "the table is the derived (sin, cos) pairs",
            _pos_values,
            sizes,
            lo,
        ),
        Property(
            "relative-rotation", "sinusoidal-relative-position", "PE(pos + k) = M(k)·PE(pos)", _pos_rotation, sizes, lo
        ),
        Property(
            "dot-depends-on-k",
            "sinusoidal-relative-position",
            "PE(pos)·PE(pos + k) depends on k only",
            _pos_dot,
            sizes,
            lo,
        ),
    ]


# --- rotary -------------------------------------------------------------------------------------------


def derived_rope(x: torch.Tensor, pos: torch.Tensor, layout: str) -> torch.Tensor:
    """R_pos x from the rope-relative-position derivation, θ_b = 10000^(−2(b−1)/d); ``layout``
    'interleaved' pairs (x_{2b}, x_{2b+1}) as the claim (RoFormer), 'half' pairs (x_b, x_{b+d/2})."""
    d = x.shape[-1]
    h = d // 2
    c1, c2 = fm.rope_rotated()
    nm = {**fm.names(c1), **fm.names(c2)}
    theta = 10000.0 ** (-2.0 * torch.arange(h, dtype=F64) / d)
    if layout == "interleaved":
        pairs = x.reshape(*x.shape[:-1], h, 2)
    else:
        pairs = torch.stack([x[..., :h], x[..., h:]], dim=-1)
    from mathcheck.numeric.evaluate import Indexed, evaluate

    flat = pairs.reshape(-1, h, 2)  # one (h, 2) block of pairs per (row, position)
    posf = pos.to(F64).expand(*x.shape[:-1]).reshape(-1)
    b = nm["b"]
    idx = torch.arange(1, h + 1, dtype=F64)

    def one(block, m):
        env = {nm["theta"]: Indexed(theta), nm["q"]: Indexed(block), nm["m"]: m, b: idx}
        return torch.stack([evaluate(c1, env), evaluate(c2, env)], dim=-1)  # (h, 2)

    rot = torch.vmap(one)(flat, posf).reshape(*x.shape[:-1], h, 2)
    if layout == "interleaved":
        return rot.reshape(x.shape)
    return torch.cat([rot[..., 0], rot[..., 1]], dim=-1)


def _rope_values(fn, s, gen, simple, variant):
    """R_pos·x at positions 0…L−1, then at 3, 5, …, 2L+1 (issue 30: an apply that ignores the positions it
    is given — torchtune's ``input_pos`` dropped — equals RoPE at 0…L−1 and held every property)."""
    L, d = s["L"], 2 * s["m"]
    x = draw(gen, s["B"], L, d, simple=simple)
    for pos in (torch.arange(L, dtype=F64), torch.arange(L, dtype=F64) * 2 + 3):
        out, err = call_tensor(fn, x, pos)
        if err:
            return err
        at = "" if pos[0] == 0 else f" at positions {int(pos[0])}, {int(pos[1]) if L > 1 else ''}…"
        outs = [
            compare(
                out,
                derived_rope(x, pos, lay),
                tolerance(d, float(pos.max() + 1) * float(x.abs().max())),
                f"R_pos·x with θ_b = 10000^(−2(b−1)/d), {lay} pairs, derived{at}",
            )
            for lay in ("interleaved", "half")
        ]
        o = outs[0] if outs[0].ok else (outs[1] if outs[1].ok else outs[0])
        if not o.ok:
            return o
    return o


def _rope_relative(fn, s, gen, simple, variant):
    L, d = s["L"], 2 * s["m"]
    q, k = draw(gen, 1, d, simple=simple), draw(gen, 1, d, simple=simple)
    shift = int(torch.randint(1, 20, (1,), generator=gen))
    pos = torch.arange(L, dtype=F64)
    rows = []
    for offset in (0, shift):
        p = pos + offset
        # (1, L, d): the same rank as every other rotary property's (B, L, d) input
        qs, err = call_tensor(fn, q.expand(L, d)[None].contiguous(), p)
        if err:
            return err
        ks, err = call_tensor(fn, k.expand(L, d)[None].contiguous(), p)
        if err:
            return err
        qs, ks = (torch.as_tensor(t).detach().to(F64).reshape(L, d) for t in (qs, ks))
        rows.append(qs @ ks.T)
    return compare(
        rows[1],
        rows[0],
        tolerance(d, float(L + shift) * float(q.abs().max() * k.abs().max())),
        f"⟨R_m q, R_n k⟩ unchanged when m and n both move by {shift} (depends on n − m only)",
    )


def _rope_norm(fn, s, gen, simple, variant):
    L, d = s["L"], 2 * s["m"]
    x = draw(gen, s["B"], L, d, simple=simple)
    out, err = call_tensor(fn, x, torch.arange(L, dtype=F64) * 7)
    if err:
        return err
    return compare(
        torch.as_tensor(out).detach().to(F64).norm(dim=-1),
        x.norm(dim=-1),
        tolerance(d, float(L * 7)),
        "‖R_m x‖ = ‖x‖ (each R_m is a rotation)",
    )


def rotary_properties() -> list[Property]:
    sizes, lo = {"B": 2, "L": 5, "m": 4}, {"B": 1, "L": 1, "m": 1}
    return [
        Property(
            "matches-derived",
            "rope-relative-position",
            "R_pos·x with the standard θ (interleaved or half-split pairs)",
            _rope_values,
            sizes,
            lo,
        ),
        Property(
            "relative-position",
            "rope-relative-position",
            "scores depend on n − m only",
            _rope_relative,
            {"L": 5, "m": 4},
            {"L": 2, "m": 1},
        ),
        Property("norm-preserving", "rope-relative-position", "‖R x‖ = ‖x‖", _rope_norm, sizes, lo),
    ]


def positional_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: the table at 16 positions, d = 16; n = 16."""
    pos = torch.arange(16, dtype=F64)
    return (lambda: fn(pos, 16)), 16


def rotary_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: x (1, 16, 16) at positions 0..15; n = 16."""
    x, pos = draw(gen, 1, 16, 16), torch.arange(16, dtype=F64)
    return (lambda: fn(x, pos)), 16


# --- ALiBi bias builders ---------------------------------------------------------------------------------

#: The names real ALiBi builders give their parameters, and what conform passes: MPT's
#: build_alibi_bias(n_heads, seq_len, full=False, alibi_bias_max=8, device=None, dtype=None), BLOOM's
#: build_alibi_tensor(attention_mask, num_heads, dtype) (a mask of ones: every token kept).
ALIBI_HEADS = ("H", "n_heads", "num_heads", "heads", "nheads", "n_head")
ALIBI_LENGTH = ("L", "seq_len", "seqlen", "max_seq_len", "length", "n", "key_len")


def alibi_call(fn, H: int, L: int) -> tuple[torch.Tensor | None, Outcome | None]:
    """``fn`` called for H heads over L tokens, its parameters bound by name (:data:`ALIBI_HEADS`,
    :data:`ALIBI_LENGTH`, ``attention_mask`` → ones (1, L), ``dtype`` → float64, ``device`` → cpu),
    else positionally ``fn(H, L)``."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return call_tensor(fn, H, L)
    kw = {}
    for name, p in params.items():
        if name in ALIBI_HEADS:
            kw[name] = H
        elif name in ALIBI_LENGTH:
            kw[name] = L
        elif name in ("attention_mask", "mask"):
            kw[name] = torch.ones(1, L, dtype=torch.long)
        elif name == "dtype":
            kw[name] = F64
        elif name == "device":
            kw[name] = "cpu"
        elif p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return call_tensor(fn, H, L)  # a parameter no name tells: fn(H, L) as documented
    return call_tensor(fn, **kw) if any(n in kw for n in ALIBI_HEADS) else call_tensor(fn, H, L)


def _bias(fn, H, L):
    """The builder's bias as (H, L, L): (H, L, L), (1, H, 1|L, L) or (H, 1, L) (the slope·j form, one
    row for every query) broadcast; an Outcome when it is none of these."""
    from mathcheck.conform.property import Outcome

    out, err = alibi_call(fn, H, L)
    if err:
        return None, err
    b = out.detach().to(F64)
    if b.dim() == 4 and b.shape[0] == 1:
        b = b[0]
    if b.dim() != 3 or b.shape[0] != H or b.shape[-1] != L or b.shape[1] not in (1, L):
        return None, Outcome(
            False,
            float("inf"),
            crashed=True,
            note=f"the bias has shape {tuple(out.shape)}: expected (H, L, L) = ({H}, {L}, {L}), "
            f"(1, H, 1|L, L) or (H, 1, L)",
        )
    return b.expand(H, L, L), None


def _alibi_band(fn, s, gen, simple, variant):
    """On the causal band j ≤ i the bias, less its value at j = i (a row constant, which softmax
    cancels: alibi-distance-bias), is −m_h·(i − j), m_h = 2^(−8h/H)."""
    from mathcheck.conform.attention import alibi_slopes

    H, L = s["H"], s["L"]
    b, err = _bias(fn, H, L)
    if err:
        return err
    i, j = torch.arange(L)[:, None], torch.arange(L)[None, :]
    band = (j <= i).expand(H, L, L)
    ref = -alibi_slopes(H)[:, None, None] * (i - j).to(F64)
    got = b - torch.diagonal(b, dim1=-2, dim2=-1)[..., None]
    return compare(
        torch.where(band, got, 0.0),
        torch.where(band, ref, 0.0),
        tolerance(L, float(L)),
        "bias(h, i, j) − bias(h, i, i) = −m_h(i − j) on j ≤ i, m_h = 2^(−8h/H)",
    )


def _alibi_off_band(fn, s, gen, simple, variant):
    """What the bias is above the band (j > i), reported: −m|i − j| (bidirectional ALiBi), or the
    slope·j form, which favours future keys and is for causal attention only."""
    from mathcheck.conform.attention import alibi_slopes
    from mathcheck.conform.property import Outcome

    H, L = s["H"], s["L"]
    b, err = _bias(fn, H, L)
    if err:
        return err
    i, j = torch.arange(L)[:, None], torch.arange(L)[None, :]
    m = alibi_slopes(H)[:, None, None]
    got = b - torch.diagonal(b, dim1=-2, dim2=-1)[..., None]
    above = (j > i).expand(H, L, L)
    forms = {
        "−m|i − j|: bidirectional ALiBi": -m * (i - j).abs().to(F64),
        "m(j − i), the slope·j form: for causal attention only (it favours later keys)": m * (j - i).to(F64),
    }
    tol = tolerance(L, float(L))
    for what, ref in forms.items():
        if bool(((got - ref).abs() <= tol)[above].all()):
            return Outcome(True, 0.0, tol, note=f"above the band: {what}")
    return Outcome(True, 0.0, tol, note="above the band: neither −m|i − j| nor m(j − i)")


def alibi_properties() -> list[Property]:
    # H fixed at 8 (no shrinking over it): Press et al.'s slopes for a non-power-of-two H interleave
    # two powers, which the derived m_h = 2^(−8h/H) does not (said in docs/conform.md)
    sizes, lo = {"H": 8, "L": 6}, {"H": 8, "L": 2}
    return [
        Property(
            "matches-derived",
            "alibi-distance-bias",
            "on j ≤ i, the bias less its diagonal is −m_h(i − j), m_h = 2^(−8h/H)",
            _alibi_band,
            sizes,
            lo,
        ),
        Property(
            "off-band",
            "alibi-distance-bias",
            "what the bias is above the band (reported, not judged)",
            _alibi_off_band,
            sizes,
            lo,
            lambda v: "report",
        ),
    ]


def alibi_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: the bias for 8 heads over 16 tokens; n = 16."""
    return (lambda: alibi_call(fn, 8, 16)[0]), 16
