"""Model-level properties, each tied to its claim, on seeded random token ids (B=2, L tokens).

* ``causality`` (causal-mask-autoregressive): for every t, the logits at positions ≤ t do not change
  when the tokens after t change. The first violating t is shrunk to one changed token s > t.
* ``kv-cache`` (kv-cache-equivalence): a prefix of min(L, 6)/2 tokens in one forward with
  ``use_cache=True``, then one token at a time against the returned cache up to ``kv_length``
  (≥ 16 and ≥ 2× the longest window/cap the model declares, at most its max positions); every
  logit equals the full forward's — so a cache capped at 8 keys fails at token 8.
* ``permutation-equivariance`` (attention-permutation-equivariance), bidirectional models taking
  ``position_ids``: permuting tokens and position ids together permutes the logits.
* ``padding`` (mask-negative-infinity), forwards taking ``attention_mask``: a masked-out token
  moves no other logit of its row.
* ``determinism``: two forwards in eval mode agree bit for bit (dropout left on, a random kernel).

:data:`PROPERTIES` is the one table of them, in report order: a new property is one entry there
(its name, its claim, a function of the :class:`Setting`), which ``mathcheck model`` runs and reports.

A failure is pinned to a module: both runs are traced and the first module (children before
parents) whose output differs at the compared positions while its input there does not is named. The tolerance for comparing two
forwards follows the error model of mathcheck/numeric/tolerance.py: every logit is the end of a
chain of reductions whose lengths sum to at most N (the Linear layers' inputs, plus the keys of
each attention), over terms no larger than the largest module output seen.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Iterator

import torch

from mathcheck.conform.run import Result
from mathcheck.model.load import generate_cache, cache_of, logits_of
from mathcheck.model.sublayers import is_attention_softmax
from mathcheck.numeric.tolerance import dtype_tolerance
from mathcheck.model.trace import Trace

F64 = torch.float64
BATCH = 2


def draw_ids(seed: int, vocab: int, L: int) -> torch.Tensor:
    """(BATCH, L) token ids from a generator seeded by ``seed`` alone (never the global RNG)."""
    gen = torch.Generator().manual_seed(seed * 7919)
    return torch.randint(vocab, (BATCH, L), generator=gen)


def call(loaded, ids, **kw) -> Any:
    """``model(ids, …)`` as the forward takes its token ids: by the keyword ``loaded.input_name``
    (``input_ids``, nanoGPT's ``idx``, or --input-name), else positionally; with ``targets=ids`` where
    the forward returns every position's logits only when given targets (nanoGPT, llm.c)."""
    if loaded.targets_name is not None:
        kw = {loaded.targets_name: ids, **kw}
    if not loaded.takes_use_cache:  # a --cache-arg forward: the cache argument alone asks for a cache
        kw.pop("use_cache", None)
    if loaded.positions_name is not None and loaded.positions_name not in kw:  # gpt-fast's input_pos
        kw[loaded.positions_name] = torch.arange(ids.shape[1])
    with default_dtype(loaded.dtype or F64):
        if loaded.input_name is None:
            return loaded.model(ids, **kw)
        return loaded.model(**{loaded.input_name: ids}, **kw)


@contextmanager
def default_dtype(dtype) -> Iterator[None]:
    """torch's default dtype set to the model's while its forward runs: a forward written for its
    own dtype makes its constants in the default one (ProphetNet's ``(1.0 - attention_mask) ·
    finfo(model dtype).min`` is float32's 0 · −∞ = NaN in a float64 model run under float32's default)."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def forward(loaded, ids, trace: Trace | None = None, **kw) -> Any:
    """The model's output on ``ids`` (no grad); under ``trace`` when given."""
    with torch.no_grad():
        if trace is None:
            return call(loaded, ids, **kw)
        with trace:
            return call(loaded, ids, **kw)


def logits(loaded, ids, **kw) -> torch.Tensor:
    return logits_of(forward(loaded, ids, **kw), ids.shape).to(F64)


def chain_length(model, Lk: int) -> int:
    """N: the Linear layers' input sizes plus Lk per attention-like module (an upper bound on the
    reduction lengths along any path from a token to a logit)."""
    n = sum(m.in_features for m in model.modules() if isinstance(m, torch.nn.Linear))
    n += sum(m.weight.shape[0] for m in model.modules() if type(m).__name__ == "Conv1D")  # GPT-2's Linear
    n += Lk * sum(1 for name, _ in model.named_modules() if name.split(".")[-1] in ("attn", "self_attn", "attention"))
    return max(n, 1)


def model_tolerance(loaded, scale: float, Lk: int, dtype=F64) -> float:
    """The tolerance for two forwards' logits, at the precision ``dtype`` their attention computed in
    (eager attention's float32 softmax rounds differently on 3 keys than on 16)."""
    return dtype_tolerance(chain_length(loaded.model, Lk), scale, dtype)


def output_scale(trace: Trace) -> float:
    """The largest finite module output of a traced run (at least 1): the scale s of the tolerance."""
    return max([1.0] + [float(t.abs().max()) for _, t, _ in trace.outputs if t.numel() and torch.isfinite(t).all()])


def _seq_axis(t: torch.Tensor, L: int) -> int | None:
    return next((a for a in range(1, t.dim()) if t.shape[a] == L), None)


def _differs(t, u, L, positions, tol, offset) -> bool | None:
    """Whether ``t`` (a full run's tensor, sequence length L) and ``u`` (the other run's, covering
    positions ``offset…``) differ at ``positions``; None when they cannot be lined up."""
    if t is None or u is None or u.dim() != t.dim():
        return None
    axis = _seq_axis(t, L)
    if axis is None:
        return None
    idx = torch.as_tensor(list(positions))
    try:
        x, y = t.index_select(axis, idx), u.index_select(axis, idx - offset)
    except (IndexError, RuntimeError):
        return None
    if x.shape != y.shape:
        return None
    return bool(((x.to(F64) - y.to(F64)).abs() > tol).any())


def first_divergence(a: Trace, b: Trace, L: int, positions, tol: float, b_offset: int = 0) -> str | None:
    """The module where two runs part: the first (children before parents) whose output differs
    at ``positions`` while its input there does not; else the first whose output differs. ``b``'s
    tensors may cover positions ``b_offset…`` only (a cached step)."""
    later = {}
    for path, out, inp in b.outputs:
        later.setdefault(path, []).append((out, inp))
    seen, first = {}, None
    for path, out, inp in a.outputs:
        n = seen.get(path, 0)
        seen[path] = n + 1
        if n >= len(later.get(path, [])):
            continue
        u_out, u_inp = later[path][n]
        if not _differs(out, u_out, L, positions, tol, b_offset):
            continue
        first = first or path
        if _differs(inp, u_inp, L, positions, tol, b_offset) is False:
            return path or "(the model)"
    return None if first is None else (first or "(the model)")


def _fail(name, claim, doc, err, tol, cx, note="") -> Result:
    return Result(name, claim, doc, "holds", "fails", err, tol, cx, note)


def _max_diff(a, b) -> float:
    d = (a - b).abs().nan_to_num(torch.inf, torch.inf)
    return float(d.max()) if d.numel() else 0.0


# --- causality ---------------------------------------------------------------------------------------


def _changed(ids, positions, vocab, seed):
    alt = ids.clone()
    gen = torch.Generator().manual_seed(seed * 7919 + 1)
    for p in positions:  # a different token at each changed position
        alt[:, p] = (ids[:, p] + 1 + torch.randint(vocab - 1, (ids.shape[0],), generator=gen)) % vocab
    return alt


def causality(loaded, ids, base, tol, seed, replay) -> Result:
    claim, doc = "causal-mask-autoregressive", "the logits at t do not change when tokens after t change"
    L = ids.shape[1]
    first = None
    for t in range(L - 1):
        alt = _changed(ids, range(t + 1, L), loaded.vocab, seed)
        err = _max_diff(logits(loaded, alt)[:, : t + 1], base[:, : t + 1])
        if err > tol:
            first = t
            break
    if not loaded.causal:
        if first is None:
            return Result(
                "causality",
                claim,
                doc,
                "not checked",
                "reported",
                note="declared bidirectional, yet no logit depended on a later token",
            )
        return Result(
            "causality",
            claim,
            doc,
            "not checked",
            "not expected to hold",
            note=f"bidirectional ({loaded.causal_source}): the logits at {first} change with later tokens, "
            "as attention without a causal mask allows",
        )
    if first is None:
        return Result("causality", claim, doc, "holds", "holds", 0.0, tol, note=f"every t < {L - 1} checked")
    t = first  # shrink: the smallest later position s whose change alone moves the logits at ≤ t
    for s in range(t + 1, L):
        alt = _changed(ids, [s], loaded.vocab, seed)
        err = _max_diff(logits(loaded, alt)[:, : t + 1], base[:, : t + 1])
        if err > tol:
            break
    else:
        s, alt = L - 1, _changed(ids, range(t + 1, L), loaded.vocab, seed)
        err = _max_diff(logits(loaded, alt)[:, : t + 1], base[:, : t + 1])
    ta, tb = Trace(loaded.model, calls=False), Trace(loaded.model, calls=False)
    forward(loaded, ids, ta)
    forward(loaded, alt, tb)
    where = first_divergence(ta, tb, L, range(t + 1), tol)
    cx = {
        "t": t,
        "changed_token": s,
        "module": where,
        "length": L,
        "compared": f"logits at positions 0..{t} with token {s} changed",
        "replay": replay,
    }
    return _fail(
        "causality",
        claim,
        doc,
        err,
        tol,
        cx,
        note=f"the logits at {t} change when token {s} > {t} changes; first at module {where}",
    )


# --- KV cache ----------------------------------------------------------------------------------------

KV_MIN = 16  # the shortest KV-cache check: past the 8-key caps a check at L = 6 never reached


def kv_length(loaded, length: int) -> int:
    """How far the cache is checked: max(16, L, 2 × the longest window/cap the model declares),
    at most the model's max positions. A cap at or past max positions never acts and is not counted.
    Example: a window of 8, max positions 64 -> 16; a window of 24 -> 48; max positions 12 -> 12."""
    limit = loaded.max_positions
    caps = [c for c in loaded.caps if limit is None or c < limit]
    n = max(KV_MIN, length, 2 * max(caps, default=0))
    return min(n, limit) if limit else n


def kv_cache(loaded, ids, base, tol, replay, seed: int = 0, dtype=F64) -> Result:
    """The property on ``kv_length`` tokens (fresh seeded ids, their own full forward and tolerance),
    or a failure saying what the cache path raised (the user's cache code)."""
    doc = "decoding one token at a time against the cache equals the full forward"
    if loaded.causal and (loaded.cache_kw is not None or loaded.static_cache):
        n = kv_length(loaded, ids.shape[1])
        if n > ids.shape[1]:
            long_ids = draw_ids(seed + 1, loaded.vocab, n)
            full = Trace(loaded.model, calls=loaded.static_cache)
            try:
                long_base = logits_of(forward(loaded, long_ids, full), long_ids.shape).to(F64)
            except Exception as exc:  # noqa: BLE001 - the uncached forward itself refuses n tokens: no cache claim to make
                return Result(
                    "kv-cache",
                    "kv-cache-equivalence",
                    doc,
                    "holds",
                    "inconclusive",
                    note=f"the forward without a cache raised {type(exc).__name__} on {n} tokens; "
                    f"give the model's max positions as config.block_size",
                )
            tol = model_tolerance(loaded, output_scale(full), n, dtype)
            if loaded.static_cache:
                held = _static_slots(loaded, full, long_ids, ids.shape[1], tol, replay)
                if held is not None:
                    return held
            ids, base = long_ids, long_base
    result = _kv_cache_or_raised(loaded, ids, base, tol, replay, doc)
    if result.status == "inconclusive" and loaded.label.startswith("hf:") and loaded.takes_position_ids:
        # no cache field in its output (RecurrentGemma keeps its recurrent state inside the model): generate
        # makes the cache itself and passes it to every forward, with position ids; so is it held
        made = generate_cache(loaded.model)
        if made is not None:
            again = _kv_cache_or_raised(loaded, ids, base, tol, replay, doc, positions=True, made=made)
            if again.status in ("holds", "fails"):
                again.note += (
                    f"; with a {type(made).__name__} made before the prefix and passed to every forward, and position "
                    "ids 0, 1, …, as transformers' generate does (its output has no cache field)"
                )
                return again
    if result.status == "fails" and loaded.label.startswith("hf:") and loaded.takes_position_ids:
        # transformers' generate passes position ids 0, 1, … (from the attention mask) to every forward that
        # takes them, the cached steps' included: an hf: model's cache is used with them, and held so
        again = _kv_cache_or_raised(loaded, ids, base, tol, replay, doc, positions=True)
        if again.status == "holds":
            again.note += (
                "; with position ids 0, 1, … passed as transformers' generate does (without them: "
                f"{result.note or 'it fails'})"
            )
            return again
    return result


def _kv_cache_or_raised(loaded, ids, base, tol, replay, doc, positions: bool = False, made=None) -> Result:
    try:
        return _kv_cache(loaded, ids, base, tol, replay, positions, made)
    except Exception as exc:  # noqa: BLE001
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return _fail(
            "kv-cache",
            "kv-cache-equivalence",
            doc,
            None,
            tol,
            {"compared": "decoding with the cache", "replay": replay},
            note=f"the forward with use_cache/{loaded.cache_kw} raised {type(exc).__name__}: {msg}",
        )


def _static_slots(loaded, full: Trace, long_ids, L: int, tol, replay) -> Result | None:
    """A static cache (gpt-fast's) is read by the full forward too: a forward over n tokens writes
    them at slots 0…n − 1 and attends to the cache. A cache that drops or wraps keys past some
    position is then wrong the same way in the full forward and in decoding, which agree; but the
    values its attention reads over n tokens are then not the tokens' own, where over the L tokens
    the attention checks saw they are. The failure names the first attention call, and slot, where
    that is so (values already wrong over L tokens, RoPE on them, are the ``values`` property's)."""
    from mathcheck.model.heads import value_slots

    n = long_ids.shape[1]
    short = Trace(loaded.model)
    forward(loaded, long_ids[:, :L], short)
    wrong_short = {c.path for c in short.calls if not c.index and value_slots(loaded.model, short, c) is not None}
    for c in full.calls:
        if c.index or c.path in wrong_short:
            continue
        slot = value_slots(loaded.model, full, c)
        if slot is None:
            continue
        return _fail(
            "kv-cache",
            "kv-cache-equivalence",
            "decoding one token at a time against the cache equals the full forward",
            None,
            tol,
            {
                "t": slot,
                "module": c.path,
                "replay": replay,
                "compared": f"the values attention reads at slot {slot} of the static cache, in a forward over "
                f"{n} tokens, against the value projection of token {slot}",
            },
            note=f"over {n} tokens, the static cache's slot {slot} does not hold token {slot}'s values (over "
            f"{L} tokens it does): the cache drops, wraps or misplaces keys; first at module {c.path}",
        )
    return None


def _kv_cache(loaded, ids, base, tol, replay, positions: bool = False, made=None) -> Result:
    """``positions``: each forward is given its tokens' position ids (generate's), else none.
    ``made``: a cache passed from the prefix on and filled in place (its output returns none)."""
    claim, doc = "kv-cache-equivalence", "decoding one token at a time against the cache equals the full forward"
    if not loaded.causal:
        return Result(
            "kv-cache",
            claim,
            doc,
            "not checked",
            "not expected to hold",
            note="a bidirectional model has no incremental decoding",
        )
    static = loaded.cache_kw is None and loaded.static_cache
    if loaded.cache_kw is None and not static:
        return Result(
            "kv-cache",
            claim,
            doc,
            "not checked",
            "not expected to hold",
            note="the forward takes no use_cache with cache/past_key_values; a cache under another name: "
            "give --cache-arg NAME",
        )
    L = ids.shape[1]
    P = max(1, min(L, 6) // 2)  # a short prefix: every later token goes through the cache
    B = ids.shape[0]

    def at(start, stop):  # the position ids of tokens start..stop-1, when passed
        return {"position_ids": torch.arange(start, stop).expand(B, stop - start)} if positions else {}

    prefix = Trace(loaded.model, calls=False)
    given = {loaded.cache_kw: made} if made is not None else {}
    out = forward(loaded, ids[:, :P], prefix, use_cache=True, **at(0, P), **given)
    cache = STATIC if static else made if made is not None else cache_of(out, loaded.cache_kw)
    worst = _max_diff(logits_of(out, (ids.shape[0], P)).to(F64), base[:, :P])
    if worst > tol:  # the prefix alone already differs from the full forward's first P positions
        full = Trace(loaded.model, calls=False)
        forward(loaded, ids, full)
        where = first_divergence(full, prefix, L, range(P), tol)
        return _fail(
            "kv-cache",
            claim,
            doc,
            worst,
            tol,
            {
                "t": 0,
                "module": where,
                "replay": replay,
                "compared": f"the logits of tokens 0..{P - 1} alone against the full forward's",
            },
            note=f"the first {P} tokens alone give other logits than in the full forward; first at module {where}",
        )
    if cache is None and _no_cache_field(out, loaded.cache_kw):
        return Result(
            "kv-cache",
            claim,
            doc,
            "holds",
            "inconclusive",
            note=f"the forward takes {loaded.cache_kw} but its output ({type(out).__name__}) has no field for a "
            "cache: the cache it fills is kept inside the model, and cannot be passed back",
        )
    for t in range(P, L):
        if cache is None:
            return _fail(
                "kv-cache",
                claim,
                doc,
                None,
                tol,
                {"t": t, "compared": "the forward returned no cache", "replay": replay},
            )
        step = ids[:, t : t + 1]
        tr = Trace(loaded.model)
        out = forward(loaded, step, tr, **step_arguments(loaded, t, cache), **at(t, t + 1))
        lt = logits_of(out, step.shape).to(F64)
        err = _max_diff(lt[:, -1], base[:, t])
        worst = max(worst, err)
        if err > tol:
            full = Trace(loaded.model, calls=False)
            forward(loaded, ids[:, : t + 1], full)
            where = first_divergence(full, tr, t + 1, [t], tol, b_offset=t)
            cx = {
                "t": t,
                "module": where,
                "compared": f"logits of token {t} decoded against the cache of 0..{t - 1}, against the full forward",
                "replay": replay,
            }
            return _fail(
                "kv-cache",
                claim,
                doc,
                err,
                tol,
                cx,
                note=f"token {t} decoded with the cache differs from the full forward; first at module {where}",
            )
        cache = STATIC if static else made if made is not None else cache_of(out, loaded.cache_kw)
    how = f" (the static cache kept in the modules, each token at its {loaded.positions_name})" if static else ""
    return Result(
        "kv-cache",
        claim,
        doc,
        "holds",
        "holds",
        worst,
        tol,
        note=f"tokens {P}..{L - 1} decoded one at a time after a prefix of {P}{how}",
    )


STATIC = "the static cache kept inside the modules"  # what a static cache's forward "returns" as its cache


def step_arguments(loaded, t: int, cache) -> dict:
    """The keywords of one decoding step of token ``t``: the cache returned by the last call
    (``use_cache=True``, under ``loaded.cache_kw``), or, for a static cache kept inside the modules
    (gpt-fast), the token's position alone (``input_pos=[t]``): the modules hold keys 0…t − 1."""
    if cache is STATIC:
        return {loaded.positions_name: torch.tensor([t])}
    return {"use_cache": True, loaded.cache_kw: cache}


def _no_cache_field(out, kw) -> bool:
    """An output object (not a tuple) with no attribute for a cache at all (RecurrentGemma's
    ``CausalLMOutput``): a forward that cannot return one, unlike one that returns None where a cache is due."""
    return not isinstance(out, (tuple, list)) and not any(hasattr(out, n) for n in (kw, "cache", "past_key_values"))


# --- permutation equivariance -----------------------------------------------------------------------


def position_offsets(model) -> list[int]:
    """Where a model's positions may start: 0, and padding_idx + 1 for a position table with a
    padding index (RoBERTa's: padding_idx 1, positions 2, 3, …)."""
    found = [0]
    for name, m in model.named_modules():
        pad = getattr(m, "padding_idx", None)
        if isinstance(m, torch.nn.Embedding) and "pos" in name.split(".")[-1] and isinstance(pad, int):
            found.append(pad + 1)
    return list(dict.fromkeys(found))


def own_positions(loaded, ids, base, tol) -> tuple[torch.Tensor, str]:
    """(position ids (B, L), how found): the model's own convention — the first offset whose
    explicit positions reproduce the forward's default logits; else 0, 1, … (said)."""
    L = ids.shape[1]
    for offset in position_offsets(loaded.model):
        pos = (torch.arange(L) + offset).expand(ids.shape[0], L)
        if _max_diff(logits(loaded, ids, position_ids=pos), base) <= tol:
            return pos, f"positions {offset}…{offset + L - 1}, the model's own"
    pos = torch.arange(L).expand(ids.shape[0], L)
    return pos, "positions 0…L−1 given explicitly (none tried reproduces the forward's default)"


def permutation(loaded, ids, base, tol, seed, replay) -> Result:
    """f(P·ids, P·positions) = P·f(ids, positions), both with explicit position ids in the model's
    own convention (RoBERTa's start at padding_idx + 1 = 2)."""
    claim, doc = "attention-permutation-equivariance", "permuting tokens with their position ids permutes the logits"
    if loaded.causal:
        return Result(
            "permutation-equivariance",
            claim,
            doc,
            "not checked",
            "not expected to hold",
            note="causal: the mask ties each token to its place",
        )
    if not loaded.takes_position_ids:
        return Result(
            "permutation-equivariance",
            claim,
            doc,
            "not checked",
            "not expected to hold",
            note="the forward takes no position_ids to hold positions fixed",
        )
    L = ids.shape[1]
    perm = torch.randperm(L, generator=torch.Generator().manual_seed(seed * 7919 + 2))
    pos, how = own_positions(loaded, ids, base, tol)
    full = _full_mask(loaded, ids)
    ref = logits(loaded, ids, position_ids=pos, **full)
    got = logits(loaded, ids[:, perm], position_ids=pos[:, perm], **full)
    err = _max_diff(got, ref[:, perm])
    if err > tol:
        why = _order_mixer(loaded, ids, pos, perm, tol, full)
        if why:  # the architecture reads token order outside attention and position_ids: not a bug, said
            return Result(
                "permutation-equivariance",
                claim,
                doc,
                "not checked",
                "not expected to hold",
                err,
                tol,
                note=f"{why}: permuting the tokens moves the logits by {err:.3g}",
            )
        return _fail(
            "permutation-equivariance",
            claim,
            doc,
            err,
            tol,
            {
                "permutation": perm.tolist(),
                "compared": f"f(P·ids, P·positions) against P·f(ids); {how}",
                "replay": replay,
            },
        )
    return Result(
        "permutation-equivariance", claim, doc, "holds", "holds", err, tol, note=f"permutation {perm.tolist()}; {how}"
    )


def _full_mask(loaded, ids) -> dict:
    """``attention_mask`` of ones (every token attends to every token: the function without a mask) for a
    forward that takes one, so that permuted position ids stay positions: transformers ≥ 5.25 reads
    position ids that are not consecutive, *without* an attention mask, as packed sequences and masks
    attention between them (masking_utils.find_packed_sequence_indices) — BERT's permuted run was then
    another function and failed by 0.02. A forward that rejects the mask is run without it."""
    if not loaded.takes_attention_mask:
        return {}
    mask = torch.ones_like(ids)
    try:
        forward(loaded, ids, attention_mask=mask)
    except Exception:  # noqa: BLE001 - a forward that cannot take the mask is checked as before
        return {}
    return {"attention_mask": mask}


def _order_mixer(loaded, ids, pos, perm, tol, full=None) -> str | None:
    """Why the architecture reads token order outside attention and position_ids, naming the module:
    the first module (children before parents) whose output, un-permuted, differs from the unpermuted
    run's while its input does not, when it runs no attention call itself nor holds one that does — a
    convolution over the sequence (ConvBERT, Nyströmformer) — or a score bias made from the tokens'
    places (:func:`_place_bias`, MPNet); else None (the failure stands: a difference made by an
    attention's own softmax first shows at its output projection, whose input already differs)."""
    ta, tb, full = Trace(loaded.model), Trace(loaded.model), full or {}
    forward(loaded, ids, ta, position_ids=pos, **full)
    forward(loaded, ids[:, perm], tb, position_ids=pos[:, perm], **full)
    L, inverse = ids.shape[1], torch.argsort(perm)

    def moved(t, u):  # None: not lined up along the sequence
        axis = _seq_axis(t, L) if t is not None and u is not None and t.shape == u.shape else None
        return None if axis is None else bool(((u.index_select(axis, inverse).to(F64) - t.to(F64)).abs() > tol).any())

    path = _first_made(ta, tb, lambda t, u: bool(moved(t, u)), lambda t, u: moved(t, u) is False)
    mixer = _outside_attention(loaded, _attention_calls(ta), path)
    if mixer:
        return f"{mixer} mixes tokens by their order outside attention (a convolution over the sequence)"
    at = _ids_mixer(ta, tb, L, moved)
    mixer = _outside_attention(loaded, _attention_calls(ta), at)
    if mixer and _equivariant_past(loaded, ids, pos, perm, tol, at, ta, full):
        return (
            f"{mixer} mixes neighbouring tokens' embeddings from the token ids alone, before any attention "
            "(MobileBERT's trigram input); with its output permuted, the rest of the model permutes the logits"
        )
    placed = _place_bias(loaded, ta, tb, L, perm)
    if placed:
        return (
            f"{placed} makes a (…, L, L) score bias from the tokens' places, not from position_ids "
            "(a relative-position bias): it stays put when the tokens are permuted"
        )
    return None


def _ids_mixer(ta: Trace, tb: Trace, L: int, moved) -> str | None:
    """The first module given only integer tensors (token ids, position ids: permuted alike in both
    runs) whose per-token output (one axis of length L), un-permuted, differs: it mixes tokens by their
    order from the ids alone (MobileBERT's embeddings concatenate each token's neighbours). None else."""
    later = {}
    for p, out, _ in tb.outputs:
        later.setdefault(p, []).append(out)
    seen = {}
    for i, (p, out, _) in enumerate(ta.outputs):
        n = seen[p] = seen.get(p, -1) + 1
        if i not in ta.from_ids or n >= len(later.get(p, [])) or sum(s == L for s in out.shape[1:]) != 1:
            continue
        if moved(out, later[p][n]):
            return p
    return None


def _equivariant_past(loaded, ids, pos, perm, tol, path: str, ta: Trace, full=None) -> bool:
    """Whether the permuted run, with the module at ``path`` made to return its unpermuted output
    permuted, gives the permuted logits: the module is then the only thing that reads the tokens'
    order, and an attention after it that does too (a bias by place) still fails."""
    module = dict(loaded.model.named_modules())[path]
    outs = [out for p, out, _ in ta.outputs if p == path]
    axis = _seq_axis(outs[0], ids.shape[1]) if outs else None
    if axis is None:
        return False
    count = [0]

    def permuted(m, args, out):
        if not isinstance(out, torch.Tensor) or count[0] >= len(outs) or out.shape != outs[count[0]].shape:
            return None
        count[0] += 1
        return outs[count[0] - 1].index_select(axis, perm).to(out.dtype)

    handle = module.register_forward_hook(permuted)
    try:
        got = logits(loaded, ids[:, perm], position_ids=pos[:, perm], **(full or {}))
    finally:
        handle.remove()
    ref = logits(loaded, ids, position_ids=pos, **(full or {}))
    return count[0] == len(outs) and _max_diff(got, ref[:, perm]) <= tol


def _place_bias(loaded, ta: Trace, tb: Trace, L: int, perm) -> str | None:
    """``"path (Type)"`` of the first module whose output has two axes of length L (query × key),
    takes no floating input (it is made from integer places), is the same in both runs though the
    tokens and position ids were permuted, and would change if permuted itself: a bias read from
    the tokens' order, not from position_ids (MPNet's ``relative_attention_bias``). None else."""
    later = {}
    for p, out, inp in tb.outputs:
        later.setdefault(p, []).append(out)
    seen = {}
    for p, out, inp in ta.outputs:
        n = seen[p] = seen.get(p, -1) + 1
        axes = [a for a in range(out.dim()) if out.shape[a] == L]
        if inp is not None or len(axes) < 2 or n >= len(later.get(p, [])) or not torch.equal(out, later[p][n]):
            continue
        moved = out.index_select(axes[0], perm).index_select(axes[1], perm)
        if not torch.equal(moved, out):
            module = dict(loaded.model.named_modules()).get(p)
            return f"{p} ({type(module).__name__})"
    return None


def _first_made(ta: Trace, tb: Trace, moved, still) -> str | None:
    """The first module (children before parents) of run ``ta`` whose output ``moved`` from its twin
    in run ``tb`` while its input stayed ``still``: where the two runs' difference is made."""
    later = {}
    for p, out, inp in tb.outputs:
        later.setdefault(p, []).append((out, inp))
    seen = {}
    for p, out, inp in ta.outputs:
        n = seen[p] = seen.get(p, -1) + 1
        if n < len(later.get(p, [])) and moved(out, later[p][n][0]) and still(inp, later[p][n][1]):
            return p
    return None


def _attention_calls(trace: Trace) -> list:
    return [c for c in trace.calls if c.kind == "sdpa" or is_attention_softmax(c.inputs, *c.inputs["input"].shape[-2:])]


def _outside_attention(loaded, calls, path) -> str | None:
    """``"path (Type)"`` when the module at ``path`` runs none of the attention ``calls`` nor holds a
    module that does; else None."""
    if not path or any(c.path == path or c.path.startswith(path + ".") for c in calls):
        return None
    module = dict(loaded.model.named_modules()).get(path)
    return f"{path} ({type(module).__name__})" if module is not None else None


# --- padding ----------------------------------------------------------------------------------------


def padding_masks(L: int, causal: bool) -> torch.Tensor:
    """(2, L) attention masks, one per row and different: row 0 padded at the end (causal) or the
    start (bidirectional) over ⌈L/3⌉ tokens, row 1 with its middle token L/2 masked. A causal
    model is not padded on the left: its first query would see no key at all (a fully masked row,
    which conform reports and does not judge).

    >>> padding_masks(6, True).tolist()
    [[1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 1, 1]]
    """
    mask = torch.ones(BATCH, L, dtype=torch.long)
    n = -(-L // 3)
    if causal:
        mask[0, L - n :] = 0
    else:
        mask[0, :n] = 0
    mask[1, L // 2] = 0
    return mask


def padding(loaded, ids, tol, replay, tol_alone=None) -> Result:
    """Each row padded its own way (:func:`padding_masks`): (i) changing the masked-out tokens
    moves no kept logit of the row (a masked key has weight exactly 0, mask-negative-infinity);
    (ii) each row's kept logits equal those of the row run alone with its own mask — a mask taken
    from another row (broadcast from one row) fails. (i) compares two runs of the same shapes, where
    a weight of exactly 0 leaves every sum as it was, so it is held to ``tol`` whatever the forward
    computes in; (ii) runs a batch of one, whose kernels may round otherwise: ``tol_alone`` (the
    coarsest dtype the forward computes in, :func:`mathcheck.model.run.check_model`), default ``tol``."""
    claim, doc = "mask-negative-infinity", "a masked-out token (attention_mask 0) changes no other token's logits"
    if not loaded.takes_attention_mask:
        return Result(
            "padding", claim, doc, "not checked", "not expected to hold", note="the forward takes no attention_mask"
        )
    try:
        return _padding(loaded, ids, tol, tol if tol_alone is None else tol_alone, replay, claim, doc)
    except Exception as exc:  # noqa: BLE001 - the user's forward raised on a padded batch or a batch of one row
        return _fail(
            "padding",
            claim,
            doc,
            None,
            tol,
            {"compared": "padded rows", "replay": replay},
            note=f"the forward with attention_mask raised {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}",
        )


def _padding(loaded, ids, tol, tol_alone, replay, claim, doc) -> Result:
    L = ids.shape[1]
    mask = padding_masks(L, loaded.causal)
    other = torch.where(mask.bool(), ids, (ids + 1) % loaded.vocab)
    a = logits(loaded, ids, attention_mask=mask)
    b = logits(loaded, other, attention_mask=mask)
    worst, mixed = (0.0, tol), []  # (error, its bound) of the comparison nearest its bound
    for row in range(ids.shape[0]):
        keep = mask[row].bool()
        alone = logits(loaded, ids[row : row + 1], attention_mask=mask[row : row + 1])[0]
        where = "left" if not keep[0] else "right" if not keep[-1] else "middle"
        masked = [int(t) for t in torch.nonzero(~keep).flatten()]
        for err, what, bound in (
            (_max_diff(a[row, keep], b[row, keep]), f"changing its masked-out tokens {masked}", tol),
            (_max_diff(a[row, keep], alone[keep]), "running it alone with its own mask", tol_alone),
        ):
            worst = max(worst, (err, bound), key=lambda eb: eb[0] / eb[1] if eb[1] else eb[0])
            if err > bound or not bool(torch.isfinite(a[row, keep]).all()):
                mixer = None
                if what.startswith("changing") and bool(torch.isfinite(a[row, keep]).all()):
                    r = slice(row, row + 1)  # the row alone: the other row's changed tokens stay out of the traces
                    mixer = mixer_outside_attention(
                        loaded, ids[r], other[r], mask[r], torch.nonzero(keep).flatten().tolist(), tol
                    )
                if mixer:  # by design, not a mask bug: said, and (ii) still held
                    mixed.append(
                        f"row {row} ({where} padding): its masked-out tokens {masked} reach its kept "
                        f"tokens through {mixer}, which mixes tokens outside attention and takes no mask "
                        f"(moves its kept logits by {err:.3g})"
                    )
                    continue
                kept = torch.nonzero(keep).flatten().tolist()
                alt = None if what.startswith("running") else other
                module = _padding_module(loaded, ids, alt, mask, row, kept, bound)
                return _fail(
                    "padding",
                    claim,
                    doc,
                    err,
                    bound,
                    {
                        "row": row,
                        "module": module,
                        "compared": f"row {row}'s kept logits ({where} padding, tokens {masked} masked) against {what}",
                        "replay": replay,
                    },
                    note=f"row {row} ({where} padding): {what} moves its kept logits by {err:.3g}; "
                    f"first at module {module}",
                )
    if mixed:
        return Result(
            "padding",
            claim,
            doc,
            "not checked",
            "not expected to hold",
            *worst,
            note="; ".join(mixed) + "; each row against itself alone holds",
        )
    return Result(
        "padding",
        claim,
        doc,
        "holds",
        "holds",
        *worst,
        note=f"row 0 padded on the {'right' if loaded.causal else 'left'}, row 1's token {L // 2} masked; "
        "each row also against itself alone" + (f" (within {tol_alone:.3g})" if tol_alone != tol else ""),
    )


def _row_outputs(trace: Trace, row: int, batch: int) -> SimpleNamespace:
    """The traced outputs (and inputs) of one row of a batch of ``batch``: tensors whose first axis is
    the batch are cut to ``row``."""

    def cut(t):
        return t[row : row + 1] if t is not None and t.dim() and t.shape[0] == batch else t

    return SimpleNamespace(outputs=[(p, cut(out), cut(inp)) for p, out, inp in trace.outputs])


def _padding_module(loaded, ids, other, mask, row, kept, tol) -> str | None:
    """Where a padded row's kept positions first part (:func:`first_divergence`): against the same
    batch with the row's masked-out tokens changed (``other``), or, ``other`` None, against the row
    run alone with its own mask — the first module whose output moves there while its input does
    not (the attention that reads a wrong mask)."""
    ta, tb = Trace(loaded.model, calls=False), Trace(loaded.model, calls=False)
    forward(loaded, ids, ta, attention_mask=mask)
    if other is None:
        forward(loaded, ids[row : row + 1], tb, attention_mask=mask[row : row + 1])
        b = tb
    else:
        forward(loaded, other, tb, attention_mask=mask)
        b = _row_outputs(tb, row, ids.shape[0])
    return first_divergence(_row_outputs(ta, row, ids.shape[0]), b, ids.shape[1], kept, tol)


def _sees(call, masked) -> bool:
    """Whether an intercepted attention call gives any of the ``masked`` keys a weight other than 0."""
    from mathcheck.model.sublayers import _sdpa_keep

    if call.kind == "softmax":
        return bool((call.output[..., masked] != 0).any())
    q, k = call.inputs["query"], call.inputs["key"]
    keep, additive = _sdpa_keep(call.inputs, q.shape[-2], k.shape[-2])
    return bool(keep[..., masked].any())


def mixer_outside_attention(loaded, ids, other, mask, positions, tol) -> str | None:
    """The module through which changed masked-out tokens first reach kept ones, when it runs no
    attention softmax or SDPA itself nor holds a module that does: a convolution over the sequence
    (ConvBERT's ``key_conv_attn_layer``, inside its attention block), pooling, landmarks — an
    architecture whose token mixing takes no mask. None when the runs part first at a module that
    runs attention (or holds one that does), or when an attention call gives a masked key a weight
    other than 0: a mask bug fails the property, a mixer beside it or not."""
    ta, tb = Trace(loaded.model), Trace(loaded.model)
    forward(loaded, ids, ta, attention_mask=mask)
    forward(loaded, other, tb, attention_mask=mask)
    # the first module to finish (children before parents) whose output moved at a kept position and
    # whose input did not — or cannot be lined up with the sequence (a convolution's padded input)
    L = ids.shape[1]
    path = _first_made(
        ta,
        tb,
        lambda t, u: bool(_differs(t, u, L, positions, tol, 0)),
        lambda t, u: _differs(t, u, L, positions, tol, 0) is not True,
    )  # not lined up: a padded conv's
    calls = _attention_calls(ta)
    # the calls over the L tokens, whose first L keys are the tokens the mask names (keys past them: a
    # compressor's entries, DeepSeek V4's); a pooled call's keys are not those tokens
    full = [c for c in calls if _queries(c) == L and _keys(c) >= L]
    if any(_sees(c, torch.nonzero(mask[0] == 0).flatten()) for c in full):
        return None  # the attention itself reads a masked key: a mask bug, not the mixer
    return _outside_attention(loaded, calls, path) or _pooling(loaded, calls, path, L)


def _keys(call) -> int:
    return (call.inputs["key"] if call.kind == "sdpa" else call.inputs["input"]).shape[
        -1 if call.kind != "sdpa" else -2
    ]


def _pooling(loaded, calls, path, L) -> str | None:
    """``"path (Type), which pools the sequence …"`` when the module where the runs part holds
    attention calls over fewer than L queries or keys (Funnel Transformer's blocks after pooling the
    sequence, and its decoder upsampling it back): a pooled position mixes masked and kept tokens
    without the mask, by design. None else (or when no module is named)."""
    module = dict(loaded.model.named_modules()).get(path) if path is not None else None
    inside = [c for c in calls if not path or c.path.startswith(path + ".")] if module is not None else []
    pooled = [c for c in inside if min(_keys(c), _queries(c)) < L]
    if not pooled:
        return None
    sizes = sorted({min(_keys(c), _queries(c)) for c in pooled})
    return (
        f"{path or 'the model'} ({type(module).__name__}), which pools the sequence (attention over "
        f"{', '.join(map(str, sizes))} of {L} positions, first at {pooled[0].path})"
    )


def _queries(call) -> int:
    return (call.inputs["query"] if call.kind == "sdpa" else call.inputs["input"]).shape[-2]


# --- determinism -------------------------------------------------------------------------------------


def determinism(loaded, ids, base, replay) -> Result:
    doc = "two forwards in eval mode give the same logits, bit for bit"
    again = logits(loaded, ids)
    err = _max_diff(again, base)
    if err > 0:
        return _fail(
            "determinism",
            "-",
            doc,
            err,
            0.0,
            {"compared": "the same ids, twice", "replay": replay},
            note="dropout active in eval mode, or a nondeterministic operation",
        )
    return Result("determinism", "-", doc, "holds", "holds", 0.0, 0.0)


# --- the table: every model-level property, in report order -----------------------------------------


@dataclass(frozen=True)
class Setting:
    """What a model-level property runs on: the loaded model, the seeded ``ids`` and the logits of one
    forward of them (``base``), ``tol`` at the precision the forward computes in and ``tol_inner`` at
    the coarser one its ops compute in inside (``inner``: an upcast norm, a scan); ``notes`` collects
    what the report says beside the results."""

    loaded: Any
    ids: torch.Tensor
    base: torch.Tensor
    tol: float
    seed: int
    replay: str
    precision: torch.dtype
    inner: torch.dtype
    tol_inner: float
    notes: list


@dataclass(frozen=True)
class Property:
    """One model-level property: its name in the report, the claim it checks ("-": none), and
    ``run``, the Setting → Result that checks it."""

    name: str
    claim: str
    run: Callable[[Setting], Result]


def _kv_cache_property(s: Setting) -> Result:
    # a cached decode computes differently (a scan's recurrent form against its chunked one): a
    # failure is looked at again at the error model of the coarsest dtype any op computed in
    kv = kv_cache(s.loaded, s.ids, s.base, s.tol, s.replay, s.seed, s.precision)
    if kv.status == "fails" and kv.max_abs_err is not None and s.inner != s.precision:
        kv = kv_cache(s.loaded, s.ids, s.base, s.tol_inner, s.replay, s.seed, s.inner)
        inner = str(s.inner).replace("torch.", "")
        s.notes.append(
            f"the forward computes in {inner} inside (an upcast norm, a scan): the kv-cache "
            f"comparison is held to {inner}'s error model"
        )
    return kv


PROPERTIES: tuple[Property, ...] = (
    Property(
        "causality", "causal-mask-autoregressive", lambda s: causality(s.loaded, s.ids, s.base, s.tol, s.seed, s.replay)
    ),
    Property("kv-cache", "kv-cache-equivalence", _kv_cache_property),
    Property(
        "permutation-equivariance",
        "attention-permutation-equivariance",
        lambda s: permutation(s.loaded, s.ids, s.base, s.tol, s.seed, s.replay),
    ),
    # a row run alone against its padded batch is as precise as the coarsest dtype inside (Llama 4's
    # RoPE in complex64)
    Property(
        "padding", "mask-negative-infinity", lambda s: padding(s.loaded, s.ids, s.tol, s.replay, tol_alone=s.tol_inner)
    ),
    Property("determinism", "-", lambda s: determinism(s.loaded, s.ids, s.base, s.replay)),
)
