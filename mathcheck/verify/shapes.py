"""Numeric checks for §7 (shapes, multi-head split and merge, masks) and the attention backward pass.

References are PyTorch's own modules and functions in float64: ``nn.MultiheadAttention``
(batch_first, its ``in_proj_weight`` and ``out_proj``), ``F.scaled_dot_product_attention``,
``F.softmax`` and autograd. The statements' right-hand sides are evaluated from the derived SymPy
results with :mod:`mathcheck.numeric.evaluate`.
"""

from __future__ import annotations

import math

import sympy as sp
import torch
import torch.nn as nn
import torch.nn.functional as F

from mathcheck.verdict import NumericVerdict, Plot
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype, generator
from mathcheck.numeric.evaluate import Indexed, evaluate
from mathcheck.numeric.symbols import by_name

ATOL, RTOL = 1e-12, 1e-9
# (B, L, D, H): the seed's example (§7.2) first, then uneven sizes, one-wide heads and one head.
MHA_SIZES = ((2, 4, 8, 2), (3, 5, 12, 3), (1, 7, 16, 4), (2, 3, 6, 6), (2, 4, 8, 1))


def _exact(options: Options) -> Options:
    """These checks compare exactly: float64 on the CPU, whatever --device/--dtype ask of Monte Carlo."""
    return Options(seed=options.seed)


def _bounds(dt):
    return float(torch.finfo(dt).eps)


def _grid(names: dict, sizes: dict, base: int = 0) -> dict:
    """Each free index named in ``sizes`` as an arange on its own broadcast axis, in ``sizes``' order."""
    env, order = {}, list(sizes)
    for axis, name in enumerate(order):
        if name in names:
            shape = [1] * len(order)
            shape[axis] = sizes[name]
            env[names[name]] = torch.arange(base, base + sizes[name], dtype=torch.float64).reshape(shape)
    return env


def _integer_functions(expr):
    """floor and Mod as named functions, so the evaluator maps them to torch.floor / torch.remainder."""
    expr = expr.replace(lambda x: isinstance(x, sp.floor), lambda x: sp.Function("floor")(*x.args))
    return expr.replace(lambda x: isinstance(x, sp.Mod), lambda x: sp.Function("Mod")(*x.args))


_INT_FUNCS = {"floor": torch.floor, "Mod": torch.remainder}


def _agree(
    cmp: Comparison, case: str, expected, eq, values: dict, tensors: dict, grid: dict, base: int, part: str, **where
) -> bool:
    """Both sides of ``eq`` (floor and Mod as torch functions) against ``expected``: dimensions
    from ``values``, IndexedBases from ``tensors`` (index base ``base``), the free indices on the
    axes given by ``grid`` (name -> size). See :meth:`Comparison.agree`."""
    stmt = sp.Eq(_integer_functions(eq.lhs), _integer_functions(eq.rhs), evaluate=False)
    names = by_name(stmt)  # bound ones included: the j of Derivative(f, V[j, a])
    env = {names[k]: v for k, v in values.items() if k in names}
    env.update({names[k]: Indexed(t, base) for k, t in tensors.items() if k in names})
    env.update(_grid(names, grid, base))
    return cmp.agree(case, expected, stmt, env, _INT_FUNCS, part=part, **where)


def _rhs(eq, values: dict, tensors: dict, grid: dict, base: int, dt, device):
    """Evaluate ``eq.rhs``: dimensions from ``values``, IndexedBases from ``tensors`` (index base
    ``base``), the free indices on the axes given by ``grid`` (name -> size)."""
    rhs = _integer_functions(eq.rhs)
    rhs = rhs.replace(lambda x: isinstance(x, sp.Limit), lambda x: x.doit())  # a statement may cite a limit
    names = by_name(rhs)
    env = {names[k]: v for k, v in values.items() if k in names}
    env.update({names[k]: Indexed(t, base) for k, t in tensors.items() if k in names})
    env.update(_grid(names, grid, base))
    out = evaluate(rhs, env, _INT_FUNCS, dtype=dt, device=device)
    if out.ndim == 0 and grid:
        out = out.expand(*grid.values())
    return out


# --- multihead-split-merge ------------------------------------------------------------------------


def _mha(B, L, D, H, g, dt):
    """An nn.MultiheadAttention with seeded random weights and biases, and three inputs."""
    mha = nn.MultiheadAttention(D, H, batch_first=True, dtype=dt)
    with torch.no_grad():
        for p in mha.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=dt) / math.sqrt(D))
    xq, xk, xv = (torch.randn(B, L, D, generator=g, dtype=dt) for _ in range(3))
    return mha, xq, xk, xv


def _projections(mha, xq, xk, xv):
    wq, wk, wv = mha.in_proj_weight.chunk(3)
    bq, bk, bv = mha.in_proj_bias.chunk(3)
    return F.linear(xq, wq, bq), F.linear(xk, wk, bk), F.linear(xv, wv, bv)


def multihead_split_merge(statements: dict, options: Options) -> NumericVerdict:
    """Each part against PyTorch, at the seed's (B, L, D, H) = (2, 4, 8, 2) and four other sizes.

    ``split-merge`` / ``merge-split``: the index maps against ``torch.unravel_index`` and the
    entries of ``arange(D).view(H, D_head)``. ``split-layout``: heads gathered at the statement's
    flat positions, attended, scattered back and projected, against ``nn.MultiheadAttention``'s
    per-head weights and output. ``head-scores``: the statement's scores, softmaxed, against the
    same. Also pinned: ``F.scaled_dot_product_attention`` on the heads equals the module.
    """
    options = _exact(options)
    cmp = Comparison("torch.nn.MultiheadAttention(batch_first=True) / F.scaled_dot_product_attention", options)
    g, dt = generator(options, salt=71), dtype(options)
    with torch.no_grad():
        for B, L, D, H in MHA_SIZES:
            Dh = D // H
            where = {"B": B, "L": L, "D": D, "H": H}
            label = f"B={B} L={L} D={D} H={H}"
            values = {"B": B, "L": L, "H": H, "D_head": Dh}
            mha, xq, xk, xv = _mha(B, L, D, H, g, dt)
            out_ref, w_ref = mha(xq, xk, xv, need_weights=True, average_attn_weights=False)
            q, k, v = _projections(mha, xq, xk, xv)
            heads = [t.view(B, L, H, Dh).transpose(1, 2) for t in (q, k, v)]
            o = F.scaled_dot_product_attention(*heads)
            out_sdpa = mha.out_proj(o.transpose(1, 2).reshape(B, L, D))
            # two routes through D-term projections and L-term softmax sums: rounding of order (D + L)·ε
            sdpa_bound = float(cmp.bound(out_ref, D + L, out_ref.abs().max() + 1).max())
            cmp.compare(f"SDPA heads vs nn.MultiheadAttention {label}", out_ref, out_sdpa, bound=sdpa_bound, **where)

            def project(per_head):
                return mha.out_proj(per_head.transpose(1, 2).reshape(B, L, D))

            for part, eq in statements.items():
                case = f"{part} {label}"
                if part == "split-merge":
                    hs, es = torch.unravel_index(torch.arange(D).view(H, Dh), (H, Dh))
                    _agree(
                        cmp,
                        case,
                        torch.stack([hs, es]).to(dt).reshape(2, 1, H, Dh),
                        eq,
                        values,
                        {},
                        {"h": H, "e": Dh},
                        0,
                        part,
                        **where,
                    )
                elif part == "merge-split":
                    hs, es = torch.unravel_index(torch.arange(D), (H, Dh))
                    _agree(
                        cmp,
                        case,
                        torch.arange(D).view(H, Dh)[hs, es].to(dt),
                        eq,
                        values,
                        {},
                        {"c": D},
                        0,
                        part,
                        **where,
                    )
                elif part == "split-layout":
                    pos = _rhs(eq, values, {}, {"b": B, "h": H, "l": L, "e": Dh}, 0, dt, options.device).round().long()
                    if int(pos.min()) < 0 or int(pos.max()) >= B * L * D:  # outside Q: refuted as it stands
                        cmp.compare(
                            case + " position out of range",
                            torch.zeros((), dtype=dt),
                            torch.tensor(float("inf"), dtype=dt),
                            **where,
                        )
                        continue
                    # both sides against PyTorch's own layout: the flat offset of view(B, L, H, D_head).transpose(1, 2)
                    layout = torch.arange(B * L * D).view(B, L, H, Dh).transpose(1, 2).to(dt)
                    _agree(
                        cmp,
                        case + " flat positions",
                        layout,
                        eq,
                        values,
                        {},
                        {"b": B, "h": H, "l": L, "e": Dh},
                        0,
                        part,
                        **where,
                    )
                    qh, kh, vh = (t.reshape(-1)[pos] for t in (q, k, v))
                    w = F.softmax(qh @ kh.transpose(-1, -2) / math.sqrt(Dh), dim=-1)
                    merged = torch.zeros(B * L * D, dtype=dt).index_put((pos.reshape(-1),), (w @ vh).reshape(-1))
                    cmp.compare(case + " weights", w_ref, w, bound=sdpa_bound, **where)
                    cmp.compare(
                        case + " output", out_ref, mha.out_proj(merged.view(B, L, D)), bound=sdpa_bound, **where
                    )
                elif part == "head-scores":
                    s = _rhs(eq, values, {"Q": q, "K": k}, {"b": B, "h": H, "l": L, "j": L}, 0, dt, options.device)
                    scores = heads[0] @ heads[1].transpose(-1, -2) / math.sqrt(Dh)  # PyTorch's per-head scores
                    _agree(
                        cmp,
                        case + " scores",
                        scores,
                        eq,
                        values,
                        {"Q": q, "K": k, "Q_h": heads[0], "K_h": heads[1]},
                        {"b": B, "h": H, "l": L, "j": L},
                        0,
                        part,
                        **where,
                    )
                    w = F.softmax(s, dim=-1)
                    cmp.compare(case + " weights", w_ref, w, bound=sdpa_bound, **where)
                    cmp.compare(case + " output", out_ref, project(w @ heads[2]), bound=sdpa_bound, **where)
                else:
                    raise KeyError(f"multihead_split_merge: no numeric check for part {part!r}")
    return cmp.verdict()


# --- mask-negative-infinity -----------------------------------------------------------------------

MASK_SIZES = (3, 8, 64, 1)
SHIFTS = (-50.0, -745.0, -1000.0)  # -745: e^{-745} underflows to 0 in float64; softmax must not care


def _pinned_behaviours(cmp: Comparison, dt) -> None:
    """What the installed torch does with a fully masked row; a change fails the claim.

    ``F.softmax`` of an all −∞ row is NaN (0/0); ``F.scaled_dot_product_attention`` returns zeros
    for it ("safe softmax", pytorch PRs #131060/#133882); ``nn.MultiheadAttention`` with every key
    padded gives NaN with ``need_weights=True`` (pytorch#160064) and zeros (plus out_proj.bias)
    without, in training mode (its eval-mode fast path under no_grad gives NaN here too).
    """
    g = torch.Generator().manual_seed(5)
    row = torch.full((4,), float("-inf"), dtype=dt)
    seen = {"F.softmax(all -inf row) is NaN": bool(torch.isnan(F.softmax(row, dim=0)).all())}
    q, k, v = (torch.randn(1, 1, 2, 4, generator=g, dtype=dt) for _ in range(3))
    mask = torch.tensor([[True, True], [False, False]])
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    seen["SDPA fully masked row is zeros"] = bool((o[..., 1, :] == 0).all())
    mha = nn.MultiheadAttention(4, 2, batch_first=True, dtype=dt)
    x = torch.randn(1, 3, 4, generator=g, dtype=dt)
    pad = torch.ones(1, 3, dtype=torch.bool)
    out, w = mha(x, x, x, key_padding_mask=pad, need_weights=True)
    seen["MultiheadAttention all keys padded, need_weights=True: NaN"] = bool(
        torch.isnan(out).all() and torch.isnan(w).all()
    )
    out, _ = mha(x, x, x, key_padding_mask=pad, need_weights=False)
    seen["MultiheadAttention all keys padded, need_weights=False: out_proj.bias"] = bool(
        torch.equal(out, mha.out_proj.bias.detach().expand_as(out))
    )
    for name, ok in seen.items():
        cmp.compare(
            f"pinned torch {torch.__version__}: {name}",
            torch.ones((), dtype=dt),
            torch.tensor(float(ok), dtype=dt),
            behaviour=name,
        )


def _masked_row(g, n, dt):
    """n kept scores and one masked score, the masked one last."""
    z = torch.randn(n, generator=g, dtype=dt) * 3
    a = torch.randn((), generator=g, dtype=dt) * 3
    return z, a


def mask_negative_infinity(statements: dict, options: Options) -> NumericVerdict:
    """Masks through ``F.softmax``, ``F.scaled_dot_product_attention`` (boolean ``attn_mask``) and
    ``nn.MultiheadAttention`` (``key_padding_mask``), against the statements; and the pinned
    behaviours of a fully masked row."""
    options = _exact(options)
    cmp = Comparison("F.softmax / F.scaled_dot_product_attention / nn.MultiheadAttention masks", options)
    g, dt, dev = generator(options, salt=73), dtype(options), options.device
    _pinned_behaviours(cmp, dt)
    with torch.no_grad():
        for n in MASK_SIZES:
            z, a = _masked_row(g, n, dt)
            where = {"n": n}
            for part, eq in statements.items():
                case = f"{part} n={n}"
                if part in ("neg-inf-weight", "neg-inf-rest"):
                    w = F.softmax(torch.cat([z, torch.tensor([float("-inf")], dtype=dt)]), dim=0)
                    expected = w[n] if part == "neg-inf-weight" else w[:n]
                    _agree(cmp, case, expected, eq, {"n": n, "a": a}, {"z": z}, {"i": n}, 1, part, **where)
                    if part == "neg-inf-weight" and n == 8:
                        _weight_against_mask(cmp, z, a, dt)
                elif part == "zero-weight":
                    w = F.softmax(torch.cat([z, torch.zeros(1, dtype=dt)]), dim=0)
                    # the masked score replaced by 0: a = 0 on the left side, as in F.softmax's input
                    _agree(cmp, case, w[n], eq, {"n": n, "a": 0.0}, {"z": z}, {}, 1, part, **where)
                elif part == "full-mask-shift":
                    for mu in SHIFTS:
                        _agree(
                            cmp,
                            f"{case} mu={mu}",
                            F.softmax(z + mu, dim=0),
                            eq,
                            {"n": n},
                            {"z": z},
                            {"i": n},
                            1,
                            part,
                            mu=mu,
                            **where,
                        )
                elif part == "boolean-mask":
                    _boolean_mask(cmp, eq, g, n, dt, dev)
                elif part == "key-padding-mask":
                    _key_padding_mask(cmp, eq, g, n, dt, dev)
                else:
                    raise KeyError(f"mask_negative_infinity: no numeric check for part {part!r}")
    return cmp.verdict()


MASK_VALUES = (0.0, -1.0, -2.0, -5.0, -10.0, -20.0, -50.0, -100.0, -200.0, -400.0, -600.0)


def _weight_against_mask(cmp: Comparison, z, a, dt) -> None:
    """The masked position's F.softmax weight as the additive mask μ falls: it must fall strictly and
    stay positive down to μ = −600 (only −∞ gives exactly 0: part 'neg-inf-weight'). Drawn on a log
    scale for the writeup."""
    weights = [float(F.softmax(torch.cat([z, (a + mu).reshape(1)]), dim=0)[-1]) for mu in MASK_VALUES]
    falling = all(later < earlier for earlier, later in zip(weights, weights[1:])) and weights[-1] > 0
    cmp.compare(
        "masked weight falls strictly with the mask mu (n=8)",
        torch.ones((), dtype=dt),
        torch.tensor(float(falling), dtype=dt),
        bound=0.0,
        weights=[f"{w:.3g}" for w in weights],
    )
    cmp.plots.append(
        Plot(
            "masked-weight-vs-mask",
            "weight of a masked position, n = 8 kept scores",
            "additive mask μ",
            "F.softmax weight",
            (("masked position", MASK_VALUES, tuple(weights)),),
            logy=True,
        )
    )


def _keep(g, rows, n):
    """A random boolean mask (True = keep) with at least one kept entry per row."""
    keep = torch.rand(rows, n, generator=g) < 0.6
    keep[torch.arange(rows), torch.randint(0, n, (rows,), generator=g)] = True
    return keep


def _boolean_mask(cmp, eq, g, n, dt, dev, rows=3, d=4):
    """SDPA's weights, read off with V = I, against the statement with α = the boolean mask; and the
    boolean mask against the additive −∞ mask."""
    q = torch.randn(1, 1, rows, d, generator=g, dtype=dt)
    k = torch.randn(1, 1, n, d, generator=g, dtype=dt)
    eye = torch.eye(n, dtype=dt).reshape(1, 1, n, n)
    keep = _keep(g, rows, n)
    weights = F.scaled_dot_product_attention(q, k, eye, attn_mask=keep)[0, 0]
    additive = torch.zeros(rows, n, dtype=dt).masked_fill(~keep, float("-inf"))
    cmp.compare(
        f"boolean-mask n={n}: SDPA bool mask vs additive -inf mask",
        weights,
        F.scaled_dot_product_attention(q, k, eye, attn_mask=additive)[0, 0],
        bound=cmp.bound(weights, n + d),
        n=n,
    )
    scores = (q @ k.transpose(-1, -2))[0, 0] / math.sqrt(d)
    for r in range(rows):
        # the scores come from q·k over d terms: SDPA's own rounding of them, relative ε·d·|q||k|
        read = cmp.bound(weights[r], n + d, float((q[0, 0, r].abs() @ k[0, 0].abs().T).max()))
        _agree(
            cmp,
            f"boolean-mask n={n} row {r}",
            weights[r],
            eq,
            {"n": n},
            {"z": scores[r], "alpha": keep[r].to(dt), "m": additive[r]},
            {"i": n},
            1,
            "boolean-mask",
            reference_bound=read,
            n=n,
            row=r,
            mask=keep[r].int().tolist(),
        )


def _key_padding_mask(cmp, eq, g, n, dt, dev, d=4):
    """nn.MultiheadAttention (one head, identity projections) with key_padding_mask, against the
    statement with p = the padding mask."""
    mha = nn.MultiheadAttention(d, 1, batch_first=True, dtype=dt)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.eye(d, dtype=dt).repeat(3, 1))
        mha.in_proj_bias.zero_()
    x = torch.randn(1, n, d, generator=g, dtype=dt)
    pad = ~_keep(g, 1, n)
    _, w = mha(x, x, x, key_padding_mask=pad, need_weights=True)
    scores = (x[0] @ x[0].T) / math.sqrt(d)
    for r in range(n):
        read = cmp.bound(w[0, r], n + d, float((x[0, r].abs() @ x[0].abs().T).max()))
        _agree(
            cmp,
            f"key-padding-mask n={n} query {r}",
            w[0, r],
            eq,
            {"n": n},
            {"z": scores[r], "p": pad[0].to(dt), "alpha": (~pad[0]).to(dt)},
            {"i": n},
            1,
            "key-padding-mask",
            reference_bound=read,
            n=n,
            query=r,
            key_padding_mask=pad[0].int().tolist(),
        )


# --- attention-backward ---------------------------------------------------------------------------

# (B, H, L, d): tiny, one-wide, the seed's per-head size, and a wider one.
BACKWARD_SIZES = ((1, 1, 2, 1), (1, 1, 3, 2), (2, 2, 4, 4), (1, 2, 9, 16))


def attention_backward(statements: dict, options: Options) -> NumericVerdict:
    """Autograd of ``F.scaled_dot_product_attention`` (dQ, dK, dV) and of ``F.softmax`` (dS) and of
    ``P @ V`` (dP), against the statements evaluated on each (batch, head) slice."""
    options = _exact(options)
    cmp = Comparison("torch.autograd of F.scaled_dot_product_attention / F.softmax", options)
    g, dt = generator(options, salt=79), dtype(options)
    for B, H, L, d in BACKWARD_SIZES:
        Q, K, V, dO = (torch.randn(B, H, L, d, generator=g, dtype=dt) for _ in range(4))
        leaves = [t.clone().requires_grad_() for t in (Q, K, V)]
        O = F.scaled_dot_product_attention(*leaves)
        dQ, dK, dV = torch.autograd.grad(O, leaves, dO)
        S = (Q @ K.transpose(-1, -2) / math.sqrt(d)).requires_grad_()
        P = F.softmax(S, dim=-1)
        (dS,) = torch.autograd.grad(P @ V, S, dO)
        P = P.detach().requires_grad_()
        (dP,) = torch.autograd.grad(P @ V, P, dO)
        ref = {
            "dV": (dV, ("j", "a")),
            "dP": (dP, ("i", "j")),
            "dS": (dS, ("i", "j")),
            "dQ": (dQ, ("i", "a")),
            "dK": (dK, ("j", "a")),
        }
        O = O.detach()
        for part, eq in statements.items():
            if part == "rowsum":
                expected = (P.detach() * dP).sum(-1)
                free = ("i",)
            elif part in ref:
                expected, free = ref[part]
            else:
                raise KeyError(f"attention_backward: no numeric check for part {part!r}")
            sizes = {"i": L, "j": L, "a": d}
            for b in range(B):
                for h in range(H):
                    tensors = {
                        "Q": Q[b, h],
                        "K": K[b, h],
                        "V": V[b, h],
                        "dO": dO[b, h],
                        "O": O[b, h],
                        "P": P[b, h].detach(),
                        "dP": dP[b, h],
                        "dS": dS[b, h],
                        "S": S[b, h].detach(),
                    }
                    # SDPA's fused backward rounds through L- and d-term products of the inputs' size
                    read = cmp.bound(
                        expected[b, h], L + d, float(Q.abs().max() * K.abs().max() * V.abs().max() * dO.abs().max() * L)
                    )
                    _agree(
                        cmp,
                        f"{part} (B, H, L, d) = {(B, H, L, d)} slice ({b}, {h})",
                        expected[b, h],
                        eq,
                        {"L": L, "d": d},
                        tensors,
                        {f: sizes[f] for f in free},
                        1,
                        part,
                        reference_bound=read,
                        B=B,
                        H=H,
                        L=L,
                        d=d,
                    )
    return cmp.verdict()


# --- `mathcheck shapes`: the seed's §7.1 table --------------------------------------------------------


def shape_table(B: int, L: int, D: int, H: int, seed: int = 0) -> dict:
    """Each tensor's shape derived in B, L, D, H (SymPy), evaluated at the sizes, and observed on the
    tensors of a real forward pass: ``nn.MultiheadAttention``'s projections split into heads,
    ``F.scaled_dot_product_attention`` per head, merged and projected by its ``out_proj``.

    A row is ``ok`` when the observed shape is the derived one; the weights and output rows also
    need their values to match the module's own (``need_weights=True, average_attn_weights=False``)
    within atol 1e-12, rtol 1e-9. Sizes must have passed ``parse_sizes``.
    """
    from mathcheck.derivations.shapes import forward_shapes, show_shape

    (Bs, Ls, Hs, Dhs), rows = forward_shapes()
    Dh = D // H
    at = {Bs: B, Ls: L, Hs: H, Dhs: Dh}
    g, dt = torch.Generator().manual_seed(seed), torch.float64
    with torch.no_grad():
        mha, x, _, _ = _mha(B, L, D, H, g, dt)
        out_ref, w_ref = mha(x, x, x, need_weights=True, average_attn_weights=False)
        q, k, v = _projections(mha, x, x, x)
        split = q.view(B, L, H, Dh)
        qh, kh, vh = (t.view(B, L, H, Dh).transpose(1, 2) for t in (q, k, v))
        scores = qh @ kh.transpose(-1, -2) / math.sqrt(Dh)
        weights = F.softmax(scores, dim=-1)
        per_head = F.scaled_dot_product_attention(qh, kh, vh)
        merged = per_head.transpose(1, 2).reshape(B, L, D)
        out = mha.out_proj(merged)
    observed = (x, q, split, qh, scores, weights, per_head, merged, out)
    agree = {5: (w_ref, weights), 8: (out_ref, out)}
    table = []
    for n, ((name, shape, _), t) in enumerate(zip(rows, observed)):
        expected = [int(s.xreplace(at)) for s in shape]
        ok = list(t.shape) == expected
        if n in agree:
            ref, got = agree[n]
            ok = ok and ref.shape == got.shape and bool(torch.allclose(got, ref, atol=ATOL, rtol=RTOL))
        table.append(
            {"name": name, "symbolic": show_shape(shape), "shape": expected, "observed": list(t.shape), "ok": ok}
        )
    return {
        "sizes": {"B": B, "L": L, "D": D, "H": H, "D_head": Dh},
        "rows": table,
        "status": "ok" if all(r["ok"] for r in table) else "mismatch",
    }


def shape_lines(report: dict) -> list[str]:
    """The table as text, one row per tensor."""
    s = report["sizes"]
    shown = lambda xs: "(" + ", ".join(map(str, xs)) + ")"  # noqa: E731
    w = max(len(r["name"]) for r in report["rows"])
    ws = max(len(r["symbolic"]) for r in report["rows"])
    lines = [
        f"B={s['B']} L={s['L']} D={s['D']} H={s['H']} D_head={s['D_head']}",
        f"{'tensor':<{w}}  {'symbolic':<{ws}}  {'shape':<14}  {'observed':<14}  ok",
    ]
    for r in report["rows"]:
        lines.append(
            f"{r['name']:<{w}}  {r['symbolic']:<{ws}}  {shown(r['shape']):<14}  "
            f"{shown(r['observed']):<14}  {'yes' if r['ok'] else 'NO'}"
        )
    lines.append(f"status: {report['status']}")
    return lines
