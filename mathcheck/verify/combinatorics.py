"""Numeric checks for §6 (combinatorics and positions)."""

from __future__ import annotations

import math

import sympy as sp
import torch
import torch.nn.functional as F

from mathcheck.verdict import NumericVerdict, Plot
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype, generator
from mathcheck.numeric.evaluate import evaluate
from mathcheck.numeric.symbols import bind, by_name

D_MODEL = 512
POSITIONS = 2048
SHIFTS = (1, 7, 100, 1000)


def sinusoidal_table(length: int, d: int, dt=torch.float64) -> torch.Tensor:
    """The Transformer's table, written as PyTorch code writes it (the "Annotated Transformer")."""
    position = torch.arange(length, dtype=dt).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2, dtype=dt) * (-math.log(10000.0) / d))
    pe = torch.zeros(length, d, dtype=dt)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def _env(eq, positions, k, m, dt):
    names = by_name(eq, kind=sp.Symbol)
    env = {}
    if "pos" in names:
        env[names["pos"]] = positions.to(dt).reshape(-1, 1)
    if "k" in names:
        env[names["k"]] = float(k)
    if "m" in names:
        env[names["m"]] = m
    if "i" in names:
        env[names["i"]] = torch.arange(m, dtype=dt).reshape(1, -1)
    return env


def sinusoidal_relative_position(statements: dict, options: Options) -> NumericVerdict:
    """The statements against a d=512 table of 2048+1000 positions, for shifts k in SHIFTS.

    ``shift``: the statement's right-hand side, evaluated at every (pos, i), against the table's
    rows pos+k; ``rotation``: MᵀM at every (i, k) against the identity; ``dot``: the table's
    PE(pos)·PE(pos+k) against the statement, at every pos.
    """
    dt = dtype(options)
    m = D_MODEL // 2
    pe = sinusoidal_table(POSITIONS + max(SHIFTS), D_MODEL, dt)
    cmp = Comparison("sinusoidal table (torch.sin/torch.cos), d=512, pos < 2048", options)
    pos = torch.arange(POSITIONS)
    for k in SHIFTS:
        for part, eq in statements.items():
            env = _env(eq, pos, k, m, dt)
            # the table's rows carry the rounding of sin/cos at arguments up to pos·ω ≤ 3048: ε·3048
            read = torch.finfo(dt).eps * float(POSITIONS + max(SHIFTS))
            if part == "shift":  # (2, 1, positions, m): [sin, cos] of PE(pos + k), frequency by frequency
                table = torch.stack([pe[pos + k, 0::2], pe[pos + k, 1::2]]).unsqueeze(1)
                cmp.agree(f"shift k={k}", table, eq, env, part=part, reference_bound=read, k=k)
            elif part == "rotation":  # MᵀM at every frequency: the identity (torch.eye)
                eye = torch.eye(2, dtype=dt).reshape(2, 2, 1, 1)
                cmp.agree(f"rotation k={k}", eye, eq, env, part=part, k=k)
            elif part == "dot":
                table = (pe[pos] * pe[pos + k]).sum(-1).reshape(-1, 1)
                cmp.agree(f"dot k={k}", table, eq, env, part=part, reference_bound=2 * D_MODEL * read, k=k)
            else:
                raise KeyError(f"sinusoidal_relative_position: no numeric check for part {part!r}")
    # What a reader would rather see: the table's dot product against k is the same curve from
    # every pos (and the derived Σ cos(ω_i k) on it), and the table itself.
    ks = torch.arange(0, 257)
    series = tuple(
        (f"table, pos = {p}", tuple(ks.tolist()), tuple((pe[p] * pe[p + ks]).sum(-1).tolist())) for p in (0, 1000)
    )
    if "dot" in statements:
        env = _env(statements["dot"], pos[:1], 0, m, dt)
        env[by_name(statements["dot"], kind=sp.Symbol)["k"]] = ks.to(dt).reshape(-1, 1)
        derived = evaluate(statements["dot"].rhs, env, dtype=dt).reshape(-1)
        series += (("the statement's right-hand side", tuple(ks.tolist()), tuple(derived.tolist())),)
    cmp.plots.append(Plot("dot-vs-k", f"PE(pos)·PE(pos+k), d = {D_MODEL}", "k", "PE(pos)·PE(pos+k)", series))
    by_kind = torch.cat([pe[:128, 0::2], pe[:128, 1::2]], dim=1)  # sines, then cosines: smooth halves
    cmp.plots.append(
        Plot(
            "pe-heatmap",
            f"PE(pos, channel), d = {D_MODEL}, pos < 128",
            f"channel: sin(ω_i pos) for i = 0…{m - 1}, then cos(ω_i pos)",
            "pos",
            (("values", tuple(map(tuple, by_kind.tolist())), ()),),
            kind="heatmap",
        )
    )
    return cmp.verdict()


# --- §6.1 attention and permutations ------------------------------------------------------------

ATTN_LENGTHS = (2, 5, 8)
ATTN_WIDTH = 8  # even: the sinusoidal table pairs channels


def _function_names(expr) -> set:
    return {type(a).__name__ for a in expr.atoms(sp.Function)}


def _as_named(expr):
    """The table ``PE(a, ch, d)`` evaluates itself at integer arguments in SymPy; here it is a name
    bound to the PyTorch table (``funcs``), like every other function of a statement."""
    return expr.replace(
        lambda e: (
            isinstance(e, sp.Function) and type(e).__name__ == "PE" and not isinstance(e, sp.core.function.AppliedUndef)
        ),
        lambda e: sp.Function("PE")(*e.args),
    )


def _attention_setting(eq) -> tuple:
    """What the left-hand side applies attention to: which permutation of the tokens (the
    function it names: ``sigma`` any, ``shift`` the cyclic shift), a causal mask, the sinusoidal table."""
    names = _function_names(eq.lhs)
    perm = "shift" if "shift" in names else "sigma" if "sigma" in names else None
    if perm is None:
        raise ValueError(f"the left-hand side permutes no tokens: {eq.lhs}")
    return perm, "causal" in names, "PE" in names


def _permutations(kind: str, L: int, g: torch.Generator) -> list:
    """0-based p with (PX)_a = X_{p[a]}: two random permutations and the reversal, or the cyclic shift."""
    if kind == "shift":
        return [(torch.arange(L) + 1) % L]
    return [torch.randperm(L, generator=g), torch.randperm(L, generator=g), torch.arange(L).flip(0)]


def _references(d: int, g: torch.Generator, dt, dev):
    """(name, attention(Y, causal) -> (L, d), W_QK, W_VO): nn.MultiheadAttention with random weights
    and F.scaled_dot_product_attention on Y itself (identity projections)."""
    mha = torch.nn.MultiheadAttention(d, 1, bias=False, batch_first=True, dtype=dt).to(dev)
    with torch.no_grad():  # drawn on the CPU generator: the same weights on any device
        mha.in_proj_weight.copy_(torch.randn(3 * d, d, generator=g, dtype=dt) / d**0.5)
        mha.out_proj.weight.copy_(torch.randn(d, d, generator=g, dtype=dt) / d**0.5)
    wq, wk, wv = mha.in_proj_weight.detach().chunk(3)
    wo = mha.out_proj.weight.detach()

    def run_mha(y, causal):
        mask = torch.ones(len(y), len(y), dtype=torch.bool, device=dev).triu(1) if causal else None  # True: masked
        with torch.no_grad():
            return mha(y[None], y[None], y[None], attn_mask=mask, need_weights=False)[0][0]

    def run_sdpa(y, causal):
        return F.scaled_dot_product_attention(y[None], y[None], y[None], is_causal=causal)[0]

    # torch stores W such that q = y Wᵀ: in the statement's convention W_Q = wqᵀ, so W_QK = wqᵀ wk
    eye = torch.eye(d, dtype=dt, device=dev)
    return (
        ("nn.MultiheadAttention(1 head, bias=False)", run_mha, wq.T @ wk, wv.T @ wo.T),
        ("F.scaled_dot_product_attention (Q = K = V = Y)", run_sdpa, eye, eye),
    )


def attention_permutation_equivariance(statements: dict, options: Options) -> NumericVerdict:
    """Each statement's left-hand side is attention applied to permuted tokens (and the causal mask or
    the sinusoidal table when it names them): PyTorch computes it with ``nn.MultiheadAttention`` and
    ``F.scaled_dot_product_attention``; the right-hand side is evaluated on the unpermuted X.

    ``equivariance``: every (row, channel) of the output; ``pooled``: the sum over rows.
    Lengths 2, 5, 8, width 8, two random permutations and the reversal per length.
    """
    dt, dev = dtype(options), options.device
    g = generator(options, salt=61)
    d = ATTN_WIDTH
    refs = _references(d, g, dt, dev)
    table = sinusoidal_table(max(ATTN_LENGTHS), d, dt).to(dev)
    cmp = Comparison("torch.nn.MultiheadAttention, F.scaled_dot_product_attention", options)
    for L in ATTN_LENGTHS:
        X = torch.randn(L, d, generator=g, dtype=dt).to(dev)
        perms = {kind: [p.to(dev) for p in _permutations(kind, L, g)] for kind in ("sigma", "shift")}
        for part, eq in statements.items():
            if part not in ("equivariance", "pooled"):
                raise KeyError(f"attention_permutation_equivariance: no numeric check for part {part!r}")
            kind, causal, positions = _attention_setting(eq)
            syms = by_name(eq, kind=sp.Symbol)
            for p in perms[kind]:
                Y = X[p] + (table[:L] if positions else 0)
                funcs = {
                    kind: lambda a, p=p: (p[a.long() - 1] + 1).to(dt),
                    "causal": lambda a, b: (b <= a).to(dt),
                    "PE": lambda a, ch, _d: table[a.long() - 1, ch.long() - 1],
                }
                for name, attend, w_qk, w_vo in refs:
                    out = attend(Y, causal)
                    env = {
                        sp.IndexedBase("x", real=True): X,
                        sp.IndexedBase("W_QK", real=True): w_qk,
                        sp.IndexedBase("W_VO", real=True): w_vo,
                    }
                    env.update({syms[n]: v for n, v in (("L", L), ("d", d)) if n in syms})
                    if "i" in syms:
                        env[syms["i"]] = torch.arange(1, L + 1, dtype=dt, device=dev)[:, None]
                    if "c" in syms:
                        env[syms["c"]] = torch.arange(1, d + 1, dtype=dt, device=dev)[None, :]
                    named = sp.Eq(_as_named(eq.lhs), _as_named(eq.rhs), evaluate=False)
                    expected = out if part == "equivariance" else out.sum(0, keepdim=True)
                    cmp.agree(
                        f"{part} L={L} {kind}={p.tolist()} {name}",
                        expected,
                        named,
                        env,
                        funcs,
                        part=part,
                        device=dev,
                        L=L,
                        permutation=p.tolist(),
                        module=name,
                    )
    return cmp.verdict()


# --- rotary position embeddings ------------------------------------------------------------------

ROPE_DIM = 64
ROPE_BASE = 10000.0
ROPE_POSITIONS = tuple(range(0, 16)) + (100, 1000, 4095)
ROPE_VECTORS = 3


def rope_inverse_frequencies(d: int, dt, device="cpu") -> torch.Tensor:
    """θ_b = base^(−2(b−1)/d), b = 1..d/2, as every RoPE implementation computes it."""
    return 1.0 / (ROPE_BASE ** (torch.arange(0, d, 2, dtype=dt, device=device) / d))


def rope_rotate_half(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """GPT-NeoX / Hugging Face LLaMA: channels b and b + d/2 form a pair; x cos + rotate_half(x) sin."""
    freqs = positions.to(x.dtype)[:, None] * rope_inverse_frequencies(x.shape[-1], x.dtype, x.device)
    emb = torch.cat([freqs, freqs], dim=-1)
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return x * emb.cos() + torch.cat([-x2, x1], dim=-1) * emb.sin()


def rope_interleaved(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Meta's LLaMA reference: channels (2b, 2b+1) are one complex number, multiplied by
    ``torch.polar(1, pθ_b)``."""
    freqs = positions.to(x.dtype)[:, None] * rope_inverse_frequencies(x.shape[-1], x.dtype, x.device)
    cis = torch.polar(torch.ones_like(freqs), freqs)
    xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(xc * cis).flatten(-2)


ROPE_IMPLEMENTATIONS = (
    ("rotate-half (GPT-NeoX / HF LLaMA)", rope_rotate_half, lambda v: torch.stack(v.chunk(2), dim=1)),
    ("interleaved (Meta LLaMA, torch.polar)", rope_interleaved, lambda v: v.reshape(-1, 2)),
)  # (name, rotate, the vector's blocks as an (h, 2) tensor)


def rope_relative_position(statements: dict, options: Options) -> NumericVerdict:
    """Both common RoPE implementations at d = 64 on random q, k, at every pair of positions in
    ROPE_POSITIONS (0..15, 100, 1000, 4095).

    ``inner``: PyTorch's ⟨rope(q, m), rope(k, n)⟩ for every (m, n) against the right-hand side;
    ``relative``: ⟨rope(q, m), rope(k, m + t)⟩ for every m and offset t.
    """
    dt, dev = dtype(options), options.device
    g = generator(options, salt=67)
    pos = torch.tensor(ROPE_POSITIONS, dtype=dt, device=dev)
    theta = rope_inverse_frequencies(ROPE_DIM, dt, dev)
    cmp = Comparison("RoPE in torch (rotate-half; interleaved with torch.polar), d=64", options)
    for v in range(ROPE_VECTORS):
        q = torch.randn(ROPE_DIM, generator=g, dtype=dt).to(dev)  # drawn on the CPU: same numbers anywhere
        k = torch.randn(ROPE_DIM, generator=g, dtype=dt).to(dev)
        for name, rope, blocks in ROPE_IMPLEMENTATIONS:
            rq = rope(q.expand(len(pos), -1), pos)  # row p: R_p q
            for part, eq in statements.items():
                syms = by_name(eq, kind=sp.Symbol)
                env = {
                    sp.IndexedBase("q", real=True): blocks(q),
                    sp.IndexedBase("k", real=True): blocks(k),
                    sp.IndexedBase("theta", real=True): theta,
                    syms["h"]: ROPE_DIM // 2,
                }
                if part == "inner":
                    expected = rq @ rope(k.expand(len(pos), -1), pos).T  # (m, n)
                    env.update(
                        {syms[s]: pos.reshape(shape) for s, shape in (("m", (-1, 1)), ("n", (1, -1))) if s in syms}
                    )
                elif part == "relative":
                    later = pos[:, None] + pos[None, :]  # (m, t): position m + t
                    rk = rope(k.expand(later.numel(), -1), later.reshape(-1)).reshape(len(pos), len(pos), -1)
                    expected = (rq[:, None, :] * rk).sum(-1)
                    env.update(
                        {syms[s]: pos.reshape(shape) for s, shape in (("m", (-1, 1)), ("t", (1, -1))) if s in syms}
                    )
                else:
                    raise KeyError(f"rope_relative_position: no numeric check for part {part!r}")
                # the rotations' angles p·θ reach 4095 rad: sin/cos carry ε·4095 each, over d terms
                read = torch.finfo(dt).eps * 2 * max(ROPE_POSITIONS) * float(q.abs().sum() * k.abs().max())
                cmp.agree(
                    f"{part} {name} vector {v}",
                    expected,
                    eq,
                    env,
                    part=part,
                    reference_bound=read,
                    device=dev,
                    implementation=name,
                )
    return cmp.verdict()


# --- §6.3 the cost of attention ------------------------------------------------------------------

COST_SIZES = ((1, 1), (2, 3), (7, 5), (16, 8), (48, 64))  # (n, d)
PLOT_LENGTHS = (16, 32, 64, 128, 256)  # at d = PLOT_WIDTH, checked like the others
PLOT_WIDTH = 32
WINDOW_MAX_N = 32
PLOT_WINDOW = 8
LHS_MAX_N = 12  # the window parts' left sides are summed by SymPy at every (n, w) up to here


def _flops(fn) -> int:
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


def _count(expr, **values) -> int:
    """The statement's count at integer sizes, exactly (SymPy rationals, then an int)."""
    # subs, not xreplace: a name that is also a Sum's index stays the Sum's (numeric/symbols.py)
    v = expr.subs({s: sp.Integer(x) for s, x in bind(expr, **values).items() if isinstance(s, sp.Symbol)}).doit()
    if not v.is_number:
        raise ValueError(f"not a number at {values}: {v}")
    return float(v)


def _window_mask(n: int, w: int) -> torch.Tensor:
    """Causal sliding window (as in Mistral/Longformer-style code): key j visible from query i iff
    i − w < j ≤ i. True = attend (the convention of F.scaled_dot_product_attention)."""
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    return (j <= i) & (j > i - w)


def _centred_mask(n: int, r: int) -> torch.Tensor:
    """Local window around each token (Longformer-style): key j visible from query i iff |i − j| ≤ r."""
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    return (i - j).abs() <= r


def _attention_flops(n: int, d: int, g, dt, dev="cpu") -> dict:
    """FlopCounterMode on real attention calls, (1, 1, n, d) tensors as models pass them."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (torch.randn(1, 1, n, d, generator=g, dtype=dt).to(dev) for _ in range(3))
    out = {
        "manual softmax(QKᵀ/√d)V": _flops(lambda: torch.softmax(q @ k.mT / math.sqrt(d), -1) @ v),
        "default F.scaled_dot_product_attention": _flops(lambda: F.scaled_dot_product_attention(q, k, v)),
    }
    with sdpa_kernel(SDPBackend.MATH):
        out["F.scaled_dot_product_attention, SDPBackend.MATH"] = _flops(lambda: F.scaled_dot_product_attention(q, k, v))
    return out


DEFAULT_SDPA = "default F.scaled_dot_product_attention"


def attention_complexity(statements: dict, options: Options) -> NumericVerdict:
    """Counts against PyTorch, exactly (atol = rtol = 0).

    ``unordered``: ``torch.combinations(arange(n), r=2)``; ``ordered``: the positive weights
    ``nn.MultiheadAttention`` returns; ``qk``, ``av``, ``projections`` (four ``nn.Linear``),
    ``attention`` (a manual softmax(QKᵀ/√d)V and ``F.scaled_dot_product_attention`` under
    ``SDPBackend.MATH``): ``FlopCounterMode``; ``window``: the sum of a causal window mask, every
    1 ≤ w ≤ n ≤ 32 (``window-centred``: |i − j| ≤ r, 0 ≤ r ≤ n ≤ 32). The default CPU SDPA kernel has no FLOP formula: while it counts 0 that is
    recorded in the details; once it counts anything it is compared like the others.
    """
    dt, dev = dtype(options), options.device
    g = generator(options, salt=71)
    cmp = Comparison(
        "torch.utils.flop_counter.FlopCounterMode, torch.combinations, "
        "nn.MultiheadAttention weights, boolean window masks",
        options,
        atol=0.0,
        rtol=0.0,
    )
    sizes = COST_SIZES + tuple((n, PLOT_WIDTH) for n in PLOT_LENGTHS)
    measured_attention: dict = {}
    for part, eq in statements.items():
        if part in ("window", "window-centred"):
            name, make, lo = ("w", _window_mask, 1) if part == "window" else ("r", _centred_mask, 0)
            for n in range(1, WINDOW_MAX_N + 1):
                got = [_count(eq.rhs, n=n, **{name: v}) for v in range(lo, n + 1)]
                mask = torch.tensor([float(make(n, v).sum()) for v in range(lo, n + 1)], dtype=dt)
                cmp.compare(f"{part} n={n}, {name}={lo}..{n}", mask, torch.tensor(got, dtype=dt), n=n)
                if n <= LHS_MAX_N:  # the left side's sums, done at these concrete sizes
                    lhs = [_count(eq.lhs, n=n, **{name: v}) for v in range(lo, n + 1)]
                    cmp.compare(
                        f"{part} n={n}, {name}={lo}..{n}: left side (sums at these sizes)",
                        mask,
                        torch.tensor(lhs, dtype=dt),
                        n=n,
                    )
            continue
        for n, d in sizes if part == "attention" else COST_SIZES:  # the plot's lengths: attention only
            if part == "unordered":
                expected = torch.combinations(torch.arange(n, device=dev), r=2).shape[0]
            elif part == "ordered":
                mha = torch.nn.MultiheadAttention(d, 1, batch_first=True, dtype=dt).to(dev)
                x = torch.randn(1, n, d, generator=g, dtype=dt).to(dev)
                with torch.no_grad():
                    _, weights = mha(x, x, x, need_weights=True)
                expected = int((weights > 0).sum())
            elif part in ("qk", "av"):
                a, b = (torch.randn(n, d, generator=g, dtype=dt).to(dev) for _ in range(2))
                p = torch.softmax(a @ b.T, -1)
                expected = _flops(lambda: a @ b.T) if part == "qk" else _flops(lambda: p @ b)
            elif part == "projections":
                layers = [torch.nn.Linear(d, d, bias=False, dtype=dt).to(dev) for _ in range(4)]  # W_Q, W_K, W_V, W_O
                x = torch.randn(n, d, generator=g, dtype=dt).to(dev)
                with torch.no_grad():
                    expected = _flops(lambda: [layer(x) for layer in layers])
            elif part == "attention":
                counts = measured_attention.setdefault((n, d), _attention_flops(n, d, g, dt, dev))
                derived = _count(eq.rhs, n=n, d=d)
                for name, flops in counts.items():
                    if name == DEFAULT_SDPA and flops == 0:
                        cmp.details.append(
                            f"attention n={n} d={d}: {name} counts 0 FLOPs (no formula for "
                            f"its CPU kernel); derived {derived:.0f}"
                        )
                        continue
                    cmp.compare(
                        f"attention n={n} d={d} {name}",
                        torch.tensor(float(flops), dtype=dt),
                        derived,
                        n=n,
                        d=d,
                        reference=name,
                    )
                    cmp.compare(
                        f"attention n={n} d={d} {name}: left side (sums at these sizes)",
                        torch.tensor(float(flops), dtype=dt),
                        _count(eq.lhs, n=n, d=d),
                        n=n,
                        d=d,
                        reference=name,
                    )
                continue
            else:
                raise KeyError(f"attention_complexity: no numeric check for part {part!r}")
            cmp.compare(
                f"{part} n={n} d={d}", torch.tensor(float(expected), dtype=dt), _count(eq.rhs, n=n, d=d), n=n, d=d
            )
            cmp.compare(
                f"{part} n={n} d={d}: left side (sums at these sizes)",
                torch.tensor(float(expected), dtype=dt),
                _count(eq.lhs, n=n, d=d),
                n=n,
                d=d,
            )
    if "attention" in statements:
        xs = tuple(PLOT_LENGTHS)
        series = tuple(
            (name, xs, tuple(float(measured_attention[(n, PLOT_WIDTH)][name]) for n in xs))
            for name in measured_attention[(PLOT_LENGTHS[0], PLOT_WIDTH)]
        )
        series += (
            (
                "the statement's right-hand side",
                xs,
                tuple(_count(statements["attention"].rhs, n=n, d=PLOT_WIDTH) for n in xs),
            ),
        )
        cmp.plots.append(
            Plot(
                "attention-flops-vs-length",
                f"FLOPs of softmax(QKᵀ/√d)V, d = {PLOT_WIDTH}",
                "sequence length n",
                "FLOPs (FlopCounterMode)",
                series,
            )
        )
    if "window" in statements:
        ns = tuple(range(PLOT_WINDOW, WINDOW_MAX_N + 1))
        cmp.plots.append(
            Plot(
                "window-pairs-vs-length",
                f"(query, key) pairs kept, causal window w = {PLOT_WINDOW}",
                "sequence length n",
                "pairs",
                (
                    ("window mask sum", ns, tuple(float(_window_mask(n, PLOT_WINDOW).sum()) for n in ns)),
                    (
                        "the statement's right-hand side",
                        ns,
                        tuple(_count(statements["window"].rhs, n=n, w=PLOT_WINDOW) for n in ns),
                    ),
                    ("n·w", ns, tuple(float(n * PLOT_WINDOW) for n in ns)),
                    ("n² (full attention)", ns, tuple(float(n * n) for n in ns)),
                ),
            )
        )
    return cmp.verdict()
