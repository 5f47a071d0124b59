"""Numeric checks for §9, the attention variants: online softmax (§9.1), the KV cache (§9.2),
grouped-query attention (§9.3), linear attention (§9.5), ALiBi (§9.6) and the causal mask (§9.10).

Each statement's left side AND right side is compared with PyTorch's own implementation of the
variant, three-way, as set out in :mod:`mathcheck.verify._beyond` (float64 by default, seeded,
tolerances derived per entry).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options, symbol
from mathcheck.verify._beyond import _comparison, _sides, _attention_read, _derivative
from mathcheck.verify._compare import dtype, generator
from mathcheck.numeric.evaluate import evaluate
from mathcheck.numeric.symbols import bind
from mathcheck.verify.probability import _fact


# --- online-softmax ---------------------------------------------------------------------------------------

ONLINE_CASES = ((1, (1,)), (7, (3, 7)), (33, (5, 6, 20, 33)), (64, (16, 32, 48, 64)))  # (n, block ends)


def online_softmax(statements: dict, options: Options) -> NumericVerdict:
    """A blockwise loop whose merges are the statements, against ``F.scaled_dot_product_attention``.

    Per query and value column, for keys split into blocks: ``merge-sum`` / ``merge-output``: both
    sides at every merge of the running state (blocks 1..b and b+1..c) against ``exp(logsumexp(s_{1..c})
    − m)`` and SDPA over keys 1..c; the running state is the statement's own merge, so a wrong merge
    propagates; ``final``: both sides against SDPA over all keys. Scores are scaled ×20 so the block
    maxima differ widely.
    """
    dt = dtype(options)
    cmp = _comparison(
        "torch.nn.functional.scaled_dot_product_attention over keys 1..c; torch.logsumexp",
        options,
        max(n for n, _ in ONLINE_CASES),
    )
    g = generator(options, salt=901)
    d, dv, queries = 8, 2, 2
    for n, ends in ONLINE_CASES:
        Q = torch.randn(queries, d, generator=g, dtype=dt) * 20
        K, V = torch.randn(n, d, generator=g, dtype=dt), torch.randn(n, dv, generator=g, dtype=dt)
        for qi in range(queries):
            s = Q[qi] @ K.T / d**0.5
            for e in range(dv):
                v = V[:, e]
                _online_loop(
                    cmp,
                    statements,
                    s,
                    v,
                    Q[qi],
                    K,
                    V[:, e : e + 1],
                    ends,
                    dt,
                    where={"n": n, "query": qi + 1, "column": e + 1, "blocks": str(ends)},
                )
    for part in statements:
        if part not in ("merge-sum", "merge-output", "final"):
            raise KeyError(f"online_softmax: no numeric check for part {part!r}")
    return cmp.verdict()


def _online_loop(cmp, statements, s, v, q, K, Vcol, ends, dt, where):
    def sdpa(c):
        return F.scaled_dot_product_attention(q[None, None], K[None, :c], Vcol[None, :c])[0, 0, 0]

    def block(a, b, mu):
        w = torch.exp(s[a - 1 : b] - mu)
        return w.sum(), (w * v[a - 1 : b]).sum() / w.sum()

    state = {}  # the running state over 1..b at shift m, as the statements merged it

    def running(a, b, mu, key, which):
        if (int(a), int(b)) == (1, state.get("b")) and float(mu) == float(state["m"]) and key in state:
            return state[key]
        return block(int(a), int(b), mu)[which]

    def ell(a, b, mu):
        return running(a, b, mu, "l", 0)

    def o(a, b, mu):
        return running(a, b, mu, "o", 1)

    funcs = {"ell": ell, "o": o}
    b = ends[0]
    mA = s[:b].max()
    state.update(b=b, m=mA, l=block(1, b, mA)[0], o=block(1, b, mA)[1])
    for c in ends[1:]:
        mB = s[b:c].max()
        m = torch.maximum(state["m"], mB)
        names = {"b": b, "c": c, "m": m, "m_A": state["m"], "m_B": mB, "n": len(s)}
        new = {}
        for part in ("merge-sum", "merge-output"):
            eq = statements.get(part)
            if eq is None:
                continue
            env = bind(eq, s=s, v=v, **names)
            ref = torch.exp(torch.logsumexp(s[:c], 0) - m) if part == "merge-sum" else sdpa(c)
            case = f"{part} blocks 1..{b} + {b + 1}..{c}"
            # the merged state is read back as exact inputs; its rounding is of SDPA's kind and size
            read = _attention_read(cmp, q, K[:c], v[:c]) if part == "merge-output" else 0.0
            _sides(cmp, case, eq, ref, env, funcs, dt, read, **where)
            new["l" if part == "merge-sum" else "o"] = evaluate(eq.lhs, env, funcs, dtype=dt)
        state.clear()
        state.update(b=c, m=m, **new)
        b = c
    eq = statements.get("final")
    if eq is not None:
        n = len(s)
        env = bind(eq, s=s, v=v, n=n, m=state["m"])
        _sides(cmp, f"final n={n}", eq, sdpa(n), env, funcs, dt, _attention_read(cmp, q, K, v), **where)
    if "o" in state and "merge-output" in statements:
        cmp.compare(f"blockwise loop {ends} against SDPA over all keys", sdpa(len(s)), state["o"], **where)


# --- kv-cache-equivalence ------------------------------------------------------------------------------


def _causal(t, k):
    return (torch.as_tensor(k) <= torch.as_tensor(t)).to(torch.float64)


def kv_cache_equivalence(statements: dict, options: Options) -> NumericVerdict:
    """A decoding loop with a growing KV cache (``torch.cat``) against SDPA(is_causal=True) on the
    whole sequence. ``decode-step``: both sides with the scores of token t against the cache after
    its own key is appended, against row t of causal SDPA and against SDPA of q_t on the cache;
    ``causal-row``: both sides with the scores against all n keys (causal(t, k) = [k ≤ t])."""
    dt = dtype(options)
    sizes = (1, 6, 17)
    cmp = _comparison(
        "torch.nn.functional.scaled_dot_product_attention(is_causal=True), row t", options, max(sizes) * 8
    )
    g = generator(options, salt=902)
    d, dv = 8, 2
    for n in sizes:
        X = torch.randn(n, 16, generator=g, dtype=dt)
        Wq, Wk, Wv = (torch.randn(16, w, generator=g, dtype=dt) / 4 for w in (d, d, dv))
        q, k, v = X @ Wq, X @ Wk, X @ Wv
        full = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True)[0]
        Kc, Vc = torch.zeros(0, d, dtype=dt), torch.zeros(0, dv, dtype=dt)
        for t in range(1, n + 1):
            Kc, Vc = torch.cat([Kc, k[t - 1 : t]]), torch.cat([Vc, v[t - 1 : t]])  # append, then attend
            decoded = F.scaled_dot_product_attention(q[None, t - 1 : t], Kc[None], Vc[None])[0, 0]
            cmp.compare(f"SDPA on the cache against causal SDPA n={n} t={t}", full[t - 1], decoded, n=n, t=t)
            for part, eq in statements.items():
                if part not in ("decode-step", "causal-row"):
                    raise KeyError(f"kv_cache_equivalence: no numeric check for part {part!r}")
                keys = Kc if part == "decode-step" else k
                s = q[t - 1] @ keys.T / d**0.5
                for e in range(dv):
                    env = bind(eq, s=s, v=(Vc if part == "decode-step" else v)[:, e], t=t, n=n)
                    _sides(
                        cmp,
                        f"{part} n={n} t={t} column {e + 1}",
                        eq,
                        full[t - 1, e],
                        env,
                        {"causal": _causal},
                        dt,
                        _attention_read(cmp, q[t - 1], k[:t], v[:t, e]),
                        n=n,
                        t=t,
                        column=e + 1,
                    )
    return cmp.verdict()


# --- grouped-query-attention ----------------------------------------------------------------------------

GQA_CONFIGS = ((2, 3), (1, 4), (3, 1))  # (G, r): GQA, MQA (G = 1), MHA (r = 1)


def grouped_query_attention(statements: dict, options: Options) -> NumericVerdict:
    """``head-output``: both sides against ``F.scaled_dot_product_attention(enable_gqa=True)`` head
    h = (g−1)r + j, with K̃ = K.repeat_interleave(r, dim=head) (and SDPA on K̃ against enable_gqa);
    ``cache-ratio``: both sides against the numel of K, V caches filled by a decoding loop."""
    dt = dtype(options)
    n, d, dv, nq = 5, 4, 2, 2
    cmp = _comparison("F.scaled_dot_product_attention(enable_gqa=True); cache tensors' numel", options, n * d)
    g = generator(options, salt=903)
    for G, r in GQA_CONFIGS:
        H = G * r
        Q = torch.randn(1, H, nq, d, generator=g, dtype=dt)
        K, V = torch.randn(1, G, n, d, generator=g, dtype=dt), torch.randn(1, G, n, dv, generator=g, dtype=dt)
        ref = F.scaled_dot_product_attention(Q, K, V, enable_gqa=True)[0]
        Kr, Vr = K.repeat_interleave(r, dim=1), V.repeat_interleave(r, dim=1)
        cmp.compare(
            f"SDPA on repeat_interleave K, V against enable_gqa G={G} r={r}",
            ref,
            F.scaled_dot_product_attention(Q, Kr, Vr)[0],
            G=G,
            r=r,
        )
        for part, eq in statements.items():
            if part == "head-output":
                funcs = {"tile": lambda h, G=G: torch.remainder(torch.as_tensor(h) - 1, G) + 1}
                for qp in range(nq):
                    for gg in range(1, G + 1):
                        for j in range(1, r + 1):
                            for e in range(1, dv + 1):
                                env = bind(
                                    eq,
                                    Q=Q[0, :, qp].reshape(G, r, d),
                                    K=K[0],
                                    V=V[0],
                                    Kt=Kr[0].reshape(G, r, n, d),
                                    Vt=Vr[0].reshape(G, r, n, dv),
                                    g=gg,
                                    j=j,
                                    e=e,
                                    n=n,
                                    d=d,
                                    r=r,
                                    G=G,
                                )
                                h = (gg - 1) * r + j
                                _sides(
                                    cmp,
                                    f"{part} G={G} r={r} head {h} query {qp + 1} column {e}",
                                    eq,
                                    ref[h - 1, qp, e - 1],
                                    env,
                                    funcs,
                                    dt,
                                    _attention_read(cmp, Q[0, h - 1, qp], K[0, gg - 1], V[0, gg - 1, :, e - 1]),
                                    G=G,
                                    r=r,
                                    head=h,
                                )
            elif part == "cache-ratio":
                sizes = {}
                for heads in (G, H):
                    Kc = torch.zeros(1, heads, 0, d, dtype=dt)
                    Vc = torch.zeros(1, heads, 0, d, dtype=dt)
                    for _ in range(n):
                        Kc = torch.cat([Kc, torch.randn(1, heads, 1, d, generator=g, dtype=dt)], dim=2)
                        Vc = torch.cat([Vc, torch.randn(1, heads, 1, d, generator=g, dtype=dt)], dim=2)
                    sizes[heads] = Kc.numel() + Vc.numel()
                env = bind(eq, G=G, H=H, n=n, d=d, r=r)
                funcs = {"cache": lambda a: 2 * n * a * d}
                _sides(
                    cmp,
                    f"{part} G={G} H={H} (cache numel {sizes[G]} / {sizes[H]})",
                    eq,
                    torch.tensor(sizes[G] / sizes[H], dtype=dt),
                    env,
                    funcs,
                    dt,
                    G=G,
                    H=H,
                )
            else:
                raise KeyError(f"grouped_query_attention: no numeric check for part {part!r}")
    return cmp.verdict()


# --- linear-attention-associativity ------------------------------------------------------------------------

LINEAR_SIZES = ((1, 1), (6, 3), (16, 4))  # (n, d)
FLOP_SIZES = ((64, 8), (256, 16), (32, 32))


def linear_attention_associativity(statements: dict, options: Options) -> NumericVerdict:
    """φ = elu + 1. ``associativity``: both sides per (i, e) against torch ``(φ(Q) @ φ(K).T) @ V``;
    ``causal-prefix``: against ``tril(φ(Q)φ(K)ᵀ) @ V`` (and the ``cumsum`` of φ(k)vᵀ against it);
    ``cost``: both sides (mm = 2pqr) against the FLOPs ``FlopCounterMode`` counts for the two orders."""
    dt = dtype(options)
    cmp = _comparison(
        "torch matmul orders, torch.cumsum, torch.utils.flop_counter.FlopCounterMode",
        options,
        max(n * d for n, d in LINEAR_SIZES),
    )
    g = generator(options, salt=905)
    for n, d in LINEAR_SIZES:
        a = F.elu(torch.randn(n, d, generator=g, dtype=dt)) + 1
        b = F.elu(torch.randn(n, d, generator=g, dtype=dt)) + 1
        V = torch.randn(n, d, generator=g, dtype=dt)
        full, causal = (a @ b.T) @ V, torch.tril(a @ b.T) @ V
        prefix = torch.einsum("ic,ice->ie", a, torch.cumsum(b[:, :, None] * V[:, None, :], 0))
        cmp.compare(f"cumsum prefix state against tril(φQφKᵀ)V n={n} d={d}", causal, prefix, n=n, d=d)
        for part, eq in statements.items():
            if part in ("associativity", "causal-prefix"):
                ref = full if part == "associativity" else causal
                cols = torch.arange(1, d + 1, dtype=dt)  # every column e at once
                for i in range(1, n + 1):
                    env = bind(eq, a=a, b=b, V=V, i=i, e=cols, n=n, d=d)
                    _sides(
                        cmp,
                        f"{part} n={n} d={d} row {i} (entry = column e − 1)",
                        eq,
                        ref[i - 1],
                        env,
                        None,
                        dt,
                        n=n,
                        d=d,
                        i=i,
                    )
            elif part != "cost":
                raise KeyError(f"linear_attention_associativity: no numeric check for part {part!r}")
    if "cost" in statements:
        from torch.utils.flop_counter import FlopCounterMode

        eq = statements["cost"]
        for n, d in FLOP_SIZES:
            a, b, V = (torch.randn(n, d, generator=g, dtype=dt) for _ in range(3))
            counts = []
            for order in (lambda: (a @ b.T) @ V, lambda: a @ (b.T @ V)):
                with FlopCounterMode(display=False) as counter:
                    order()
                counts.append(counter.get_total_flops())
            env = bind(eq, n=n, d=d)
            _sides(
                cmp,
                f"cost n={n} d={d} (FlopCounterMode {counts[0]} / {counts[1]})",
                eq,
                torch.tensor(counts[0] / counts[1], dtype=dt),
                env,
                {"mm": lambda p, q, r: 2 * p * q * r},
                dt,
                n=n,
                d=d,
            )
    return cmp.verdict()


# --- alibi-distance-bias ----------------------------------------------------------------------------------

ALIBI_CASES = ((1, 0.5), (4, 0.5), (16, 0.0625), (9, 2.0))  # (n, slope m)


def alibi_distance_bias(statements: dict, options: Options) -> NumericVerdict:
    """``F.scaled_dot_product_attention`` with the bias −m(i − j) as a float mask and V = I, so its
    output is the weight matrix. ``weights``: both sides (j over all keys) against row i;
    ``distance-ratio``: both sides against the ratio of two entries of row i."""
    dt = dtype(options)
    cmp = _comparison(
        "F.scaled_dot_product_attention(attn_mask = −m(i − j)), V = I", options, max(n for n, _ in ALIBI_CASES)
    )
    g = generator(options, salt=906)
    d = 8
    for n, slope in ALIBI_CASES:
        q, k = (torch.randn(n, d, generator=g, dtype=dt) for _ in range(2))
        pos = torch.arange(1, n + 1, dtype=dt)
        bias = -slope * (pos[:, None] - pos[None, :])
        W = F.scaled_dot_product_attention(q[None], k[None], torch.eye(n, dtype=dt)[None], attn_mask=bias[None])[0]
        scores = q @ k.T / d**0.5
        for i in range(1, n + 1):
            where = {"n": n, "m": slope, "query": i}
            for part, eq in statements.items():
                if part == "weights":
                    env = bind(eq, s=scores[i - 1], m=slope, i=i, j=pos, n=n)
                    _sides(cmp, f"{part} n={n} m={slope} query {i}", eq, W[i - 1], env, None, dt, **where)
                elif part == "distance-ratio":
                    env = bind(eq, s=scores[i - 1], m=slope, i=i, j=pos[:, None], l=pos[None, :], n=n)
                    ref = W[i - 1][:, None] / W[i - 1][None, :]
                    _sides(cmp, f"{part} n={n} m={slope} query {i}", eq, ref, env, None, dt, **where)
                else:
                    raise KeyError(f"alibi_distance_bias: no numeric check for part {part!r}")
    return cmp.verdict()


# --- causal-mask-autoregressive -----------------------------------------------------------------------


def causal_mask_autoregressive(statements: dict, options: Options) -> NumericVerdict:
    """Autograd through SDPA(is_causal=True) and ``nn.MultiheadAttention`` with a causal mask.

    ``masked-row``: both sides against row t of causal SDPA; ``future-value``: the left side by autograd
    through the evaluated expression in v, the right side, against ∂out_t/∂V[u] from SDPA;
    ``future-score``: the same in s, against √d (∂out_t/∂k_u · q_t)/|q_t|² from SDPA (exact, since
    ∂out_t/∂k_u = ∂out_t/∂s_u · q_t/√d). Plus: the Jacobian blocks ∂out_t/∂x_s of
    ``nn.MultiheadAttention(attn_mask=causal)`` vanish for s > t and not for s ≤ t.
    """
    dt = dtype(options)
    sizes = (2, 7)
    cmp = _comparison("autograd through F.scaled_dot_product_attention(is_causal=True)", options, max(sizes) * 8)
    g = generator(options, salt=910)
    d, dv = 8, 2
    for n in sizes:
        q, k = torch.randn(n, d, generator=g, dtype=dt), torch.randn(n, d, generator=g, dtype=dt)
        V = torch.randn(n, dv, generator=g, dtype=dt)

        def sdpa(kk, VV):
            return F.scaled_dot_product_attention(q[None], kk[None], VV[None], is_causal=True)[0]

        out = sdpa(k, V)
        J_k, J_V = torch.autograd.functional.jacobian(sdpa, (k, V), vectorize=True)  # (n, dv, n, d), (n, dv, n, dv)
        for t in range(1, n + 1):
            s = q[t - 1] @ k.T / d**0.5
            for e in range(dv):
                dV, dk = J_V[t - 1, e], J_k[t - 1, e]
                ds = d**0.5 * (dk @ q[t - 1]) / (q[t - 1] @ q[t - 1])
                where = {"n": n, "t": t, "column": e + 1}
                for part, eq in statements.items():
                    env = bind(eq, s=s, v=V[:, e], t=t, n=n)
                    funcs = {"causal": _causal}
                    if part == "masked-row":
                        _sides(
                            cmp,
                            f"{part} n={n} t={t} column {e + 1}",
                            eq,
                            out[t - 1, e],
                            env,
                            funcs,
                            dt,
                            _attention_read(cmp, q[t - 1], k[:t], V[:t, e]),
                            **where,
                        )
                    elif part in ("future-value", "future-score"):
                        if t == n:
                            continue
                        u = torch.arange(t + 1, n + 1, dtype=dt)  # every later position at once
                        env_u = dict(env)
                        env_u[symbol(eq, "u")] = u
                        name, tensor, ref = ("v", V[:, e], dV[t:, e]) if part == "future-value" else ("s", s, ds[t:])
                        _derivative(
                            cmp,
                            f"{part} n={n} t={t} u={t + 1}..{n} (entry = u − t − 1) column {e + 1}",
                            eq,
                            name,
                            tensor,
                            u,
                            env_u,
                            funcs,
                            dt,
                            ref,
                            **where,
                        )
                    else:
                        raise KeyError(f"causal_mask_autoregressive: no numeric check for part {part!r}")
    if "masked-row" in statements:
        _mha_blocks(cmp, g, dt)
    return cmp.verdict()


def _mha_blocks(cmp, g, dt, L=4, D=8):
    """∂out_t/∂x_s of nn.MultiheadAttention with a causal mask: zero for s > t, nonzero for s ≤ t."""
    with torch.random.fork_rng():  # the module's initialisation draws from the global RNG: seed it, then restore
        torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=g)))
        mha = torch.nn.MultiheadAttention(D, 2, batch_first=True, dtype=dt)
    mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)  # True = not allowed
    x = torch.randn(1, L, D, generator=g, dtype=dt)
    J = torch.autograd.functional.jacobian(
        lambda z: mha(z, z, z, attn_mask=mask, need_weights=False)[0], x, vectorize=True
    )
    J = J[0, :, :, 0, :, :]  # (t, out feature, s, in feature)
    block = J.abs().amax(dim=(1, 3))
    future = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
    cmp.compare(
        f"nn.MultiheadAttention causal: ∂out_t/∂x_s = 0 for s > t (L={L})",
        torch.zeros_like(block[future]),
        block[future],
    )
    _fact(
        cmp, f"nn.MultiheadAttention causal: ∂out_t/∂x_s ≠ 0 for every s ≤ t (L={L})", bool((block[~future] > 0).all())
    )
