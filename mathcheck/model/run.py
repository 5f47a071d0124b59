"""One ``mathcheck model`` run: load, trace one forward (and one cached step), check, report."""

from __future__ import annotations

import inspect
import math

import torch

from mathcheck.conform.spec import BadInput
from mathcheck.model import heads
from mathcheck.model import properties as mp
from mathcheck.model import sublayers as sl
from mathcheck.model.load import (
    Sizes,
    cache_of,
    check_options,
    declared_causal,
    load_model,
    logits_of,
    setup_static_cache,
)
from mathcheck.model.report import ModelReport, ModuleResult
from mathcheck.model.trace import Trace
from mathcheck.outcome import replay, split_flags

LENGTH = 6


def replay_line(spec, seed, sizes: Sizes, attn, causal, length, input_name=None, cache_arg=None) -> str:
    """``mathcheck model SPEC --seed S`` with every option that differs from its default."""
    return replay(
        "model",
        [spec],
        [
            ("--seed", seed),
            *split_flags(sizes.flags()),
            ("--input-name", input_name),
            ("--cache-arg", cache_arg),
            ("--attn-implementation", None if attn == "sdpa" else attn),
            ("--causal", causal is True),
            ("--bidirectional", causal is False),
            ("--length", None if length == LENGTH else length),
        ],
    )


def _renamed(results, suffix):
    for r in results:
        if suffix:
            r.name = f"{r.name} [{suffix}]"
    return results


def module_causal(model) -> dict:
    """path -> causal for the modules that say so (:func:`mathcheck.model.load.declared_causal`: an
    encoder–decoder's decoder self-attention declares ``is_causal`` True, an encoder's attention
    ``is_causal`` False with ``is_decoder`` False)."""
    said = {path: declared_causal(m) for path, m in model.named_modules()}
    return {path: c for path, c in said.items() if c is not None}


def _call_results(calls, loaded, Lq, Lk, ctx, first=0) -> dict:
    """path -> (kind, results) for the intercepted calls of one forward; each call's mask held to its
    module's own causality where the module declares it, else the model's. ``first``: the position
    of the first query (0 in the full forward; in the cached step either the last of the keys held,
    a dynamic cache, or L − 1 with a static cache's slots past it masked)."""
    out, declared = {}, module_causal(loaded.model)
    for c in calls:
        where = f"{ctx}, call {c.index}" if c.index else ctx
        suffix = "" if ctx == "full forward" and c.index == 0 else where
        causal = declared.get(c.path, loaded.causal)
        if c.kind == "sdpa":
            res = sl.check_sdpa(c.inputs, c.output, causal, where, first)
            kind = "attention"
        else:
            attention = sl.is_attention_softmax(c.inputs, Lq, Lk)
            res = sl.check_softmax(c.inputs, c.output, attention, causal, where, first)
            kind = "attention" if attention else "softmax"
        out.setdefault((c.path or "(model)", kind), []).extend(_renamed(res, suffix))
    return out


def _load(spec, sizes, attn, seed, causal, length, loaded, input_name=None, cache_arg=None):
    """(loaded model, replay line); every check on the user's input before any work."""
    if loaded is not None:  # a model handed over in-process (mathcheck.testing.assert_model_conforms)
        if length < 2:
            raise BadInput(f"length={length}: causality and the KV cache need at least 2 tokens")
        return loaded, f"assert_model_conforms({spec}, causal={causal}, seed={seed}, length={length})"
    check_options(spec, sizes, attn, length, input_name, cache_arg)
    loaded = load_model(spec, sizes, attn, seed, causal, input_name, cache_arg)
    if loaded.max_positions is not None and length > loaded.max_positions:
        raise BadInput(f"--length {length}: {spec} is built for at most {loaded.max_positions} positions")
    if loaded.window is not None and length > loaded.window:
        raise BadInput(
            f"--length {length}: longer than {spec}'s sliding window {loaded.window}; the mask's kind is "
            f"checked against the full causal mask only: give --length ≤ {loaded.window}"
        )
    return loaded, replay_line(spec, seed, sizes, attn, causal, length, input_name, cache_arg)


def _call_made(loaded, ids) -> str:
    """The call as made, e.g. ``forward(idx=<ids (2, 6)>)`` or ``forward(<ids (2, 6)>)``."""
    arg = f"<ids {tuple(ids.shape)}>"
    return f"forward({loaded.input_name + '=' if loaded.input_name else ''}{arg})"


def _signature(loaded) -> str:
    try:
        return f"forward{inspect.signature(loaded.model.forward)}"
    except (TypeError, ValueError):
        return "forward(?)"


def _last_position_only(loaded, out, ids) -> bool:
    """nanoGPT's and llm.c's inference shortcut: without ``targets`` the forward returns (B, 1, V), the
    last position's logits; with them, all L positions'. Logits never read the targets, so passing the
    ids as targets (the loss is ignored) gives the whole forward to check."""
    if loaded.targets_name is not None or not isinstance(out, torch.Tensor) or ids.shape[1] < 2:
        return False
    try:
        takes = "targets" in inspect.signature(loaded.model.forward).parameters
    except (TypeError, ValueError):
        return False
    return takes and out.dim() == 3 and tuple(out.shape[:2]) == (ids.shape[0], 1)


def _queries_per_position(loaded, out, ids) -> bool:
    """Perceiver's masked LM decodes one query per position up to its max positions (its inputs are
    padded to that length: "we need to define the seq_len of the inputs beforehand"), and each query
    reads the latents alone, never another query: its first L outputs are the L tokens' logits. For
    an hf: model whose logits come back (B, max positions, V) with max positions > L, the model's
    output is read at its first L positions from then on (a forward hook on the model), and said."""
    if not loaded.label.startswith("hf:") or loaded.max_positions is None or loaded.max_positions <= ids.shape[1]:
        return False
    logits = out  # the logits as read from the output
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3 or logits.shape[1] != loaded.max_positions:
        return False

    def first_positions(module, args, kwargs, output):
        given = kwargs.get("input_ids", args[0] if args else None)
        if isinstance(given, torch.Tensor) and isinstance(getattr(output, "logits", None), torch.Tensor):
            output.logits = output.logits[:, : given.shape[1]]
        return output

    loaded.model.register_forward_hook(first_positions, with_kwargs=True)
    loaded.notes.append(
        f"logits read at the first L of its {loaded.max_positions} output positions: it decodes one query per "
        "position up to its max positions, each from the latents alone (Perceiver's)"
    )
    return True


def _logits(loaded, spec, ids) -> torch.Tensor:
    """The untraced forward's logits, or one BadInput line saying the call made, the signature found
    and the flag that fixes it."""
    try:
        base = logits_of(mp.forward(loaded, ids), ids.shape)
        if _last_position_only(loaded, base, ids):
            loaded.targets_name = "targets"
            loaded.input_found += (
                "; targets=ids passed: without targets the forward returns the last position's logits only"
            )
            loaded.config["input"] = loaded.input_found
            base = logits_of(mp.forward(loaded, ids), ids.shape)
    except Exception as exc:  # noqa: BLE001
        raise BadInput(
            f"SPEC {spec!r}: {_call_made(loaded, ids)} ({loaded.input_found}) raised "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}; the signature is "
            f"{_signature(loaded)}: if another parameter takes the token ids, give --input-name NAME"
        ) from None
    if _queries_per_position(loaded, base, ids):
        base = logits_of(mp.forward(loaded, ids), ids.shape)
    if not isinstance(base, torch.Tensor) or base.dim() != 3 or tuple(base.shape[:2]) != tuple(ids.shape):
        shape = tuple(base.shape) if isinstance(base, torch.Tensor) else type(base).__name__
        raise BadInput(
            f"SPEC {spec!r}: {_call_made(loaded, ids)} must return logits (B, L, V) = "
            f"{(*ids.shape, 'V')}, a tuple/list holding them, or an object with .logits; it returned "
            f"{shape}"
        )
    return base.to(torch.float64)


def _head_results(loaded, trace, replay, found: dict, notes: list) -> None:
    """Scale, values and GQA grouping of each attention call of the full forward, from its module's
    projections (mathcheck/model/heads.py); the modules it cannot read said once."""
    skipped = {}
    for c in trace.calls:
        if c.index or (c.kind == "softmax" and not sl.is_attention_softmax(c.inputs, *c.inputs["input"].shape[-2:])):
            continue
        try:
            res, why = heads.check_heads(loaded.model, trace, c, replay)
        except Exception as exc:  # noqa: BLE001 - a module laid out otherwise than read: said, never a crash
            res, why = [], f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:160]
        if res:
            found.setdefault((c.path or "(model)", "attention"), []).extend(res)
        else:
            skipped.setdefault(why, []).append(c.path or "(model)")
    for why, paths in skipped.items():
        notes.append(
            f"scale/values/GQA grouping not checked at {paths[0]}"
            + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")
            + f": {why}"
        )


def _sublayers(loaded, ids, trace, seed, replay, notes: list) -> list[ModuleResult]:
    """Norms and rotary modules by discovery, attention calls from the trace (and from one decoding
    step against a cache), listed in the order the forward ran their modules."""
    L = ids.shape[1]
    found, settings = {}, {}
    for path, module in loaded.model.named_modules():
        kind = sl.norm_kind(module)
        if kind is not None:
            results, setting = sl.check_norm(path, module, kind, seed, replay)
            if results is None:
                notes.extend(setting)
            else:
                found[(path, kind)], settings[(path, kind)] = results, setting
        elif sl.norm_like(module) and path:
            notes.append(
                f"{path} ({type(module).__name__}): named a norm, but called with one tensor it does not "
                "compute a LayerNorm or RMSNorm (e.g. a gated norm taking a gate); not checked"
            )
        rotary = sl.check_rotary(path, module, seed, replay)
        if rotary is not None:
            found[(path, "rotary")], settings[(path, "rotary")] = rotary
    for key, res in _call_results(trace.calls, loaded, L, L, "full forward").items():
        found.setdefault(key, []).extend(res)
    _head_results(loaded, trace, replay, found, notes)
    if loaded.causal and (loaded.cache_kw or loaded.static_cache):
        step = Trace(loaded.model)
        try:
            out = mp.forward(loaded, ids[:, :-1], use_cache=True)
            cache = mp.STATIC if not loaded.cache_kw else cache_of(out, loaded.cache_kw)
            if cache is not None:
                mp.forward(loaded, ids[:, -1:], step, **mp.step_arguments(loaded, L - 1, cache))
        except Exception:  # noqa: BLE001 - the cache path raised: the kv-cache property reports it
            step.calls.clear()
        for key, res in _call_results(step.calls, loaded, 1, None, "cached step", (None, L - 1)).items():
            found.setdefault(key, []).extend(res)
    order = {}
    for name in trace.entered:  # modules in the order the forward first ran them
        order.setdefault(name, len(order))
    ranked = sorted(found.items(), key=lambda kv: (order.get(kv[0][0], len(order) + 1), kv[0][1]))
    return [ModuleResult(path, kind, res, settings.get((path, kind), [])) for (path, kind), res in ranked]


def model_tolerance_at(loaded, trace, length, dtype) -> float:
    return mp.model_tolerance(loaded, mp.output_scale(trace), length, dtype)


def check_model(
    spec: str,
    sizes: Sizes = Sizes(),
    attn: str = "sdpa",
    seed: int = 0,
    causal: bool | None = None,
    length: int = LENGTH,
    loaded=None,
    input_name: str | None = None,
    cache_arg: str | None = None,
) -> ModelReport:
    """Raises :class:`BadInput` before any check on a bad SPEC, option or model output.
    ``loaded`` (from :func:`~mathcheck.model.load.from_module`) replaces loading ``spec``;
    ``input_name`` names the forward's parameter for the token ids (default: detected)."""
    loaded, replay = _load(spec, sizes, attn, seed, causal, length, loaded, input_name, cache_arg)
    if loaded.static_cache:  # gpt-fast: twice the longest sequence checked, so that slots past it stay masked
        n = max(length, mp.kv_length(loaded, length))
        slots = min(2 * n, loaded.max_positions) if loaded.max_positions else 2 * n
        made = setup_static_cache(loaded, mp.BATCH, slots, spec)
        loaded.config["cache"] = f"static: {made}, decoded by {loaded.positions_name}"
    ids = mp.draw_ids(seed, loaded.vocab, length)
    base = _logits(loaded, spec, ids)
    # traced apart from `base`: an active TorchFunctionMode turns off fused fast paths
    # (nn.MultiheadAttention's), so the traced run may round differently from an untraced one
    trace = Trace(loaded.model)
    mp.forward(loaded, ids, trace)
    config = {
        **loaded.config,
        "causal": loaded.causal,
        "causal_from": loaded.causal_source,
        "dtype": str(loaded.dtype or torch.float64).replace("torch.", ""),
        "batch": mp.BATCH,
        "length": length,
    }
    notes = list(loaded.notes)
    report = ModelReport(
        loaded.label, config, seed, replay, modules=_sublayers(loaded, ids, trace, seed, replay, notes)
    )
    report.notes.extend(dict.fromkeys(notes))
    if not any(m.kind == "attention" for m in report.modules):
        report.notes.append(
            "no attention call was intercepted (no F.scaled_dot_product_attention, no softmax over "
            "(…, L, L) scores): a fused kernel such as nn.MultiheadAttention's fast path is not seen; "
            "hold it with mathcheck conform --kind mha"
        )
    precision = sl.coarser(
        loaded.dtype, *(c.output.dtype for c in trace.calls), *(c.inputs.get("dtype") for c in trace.calls)
    )
    if precision != torch.float64:  # said: the model-level comparisons are only as tight as the attention
        report.config["precision"] = str(precision).replace("torch.", "")
    tol = mp.model_tolerance(loaded, mp.output_scale(trace), length, precision)
    if not math.isfinite(tol):  # a comparison that cannot fail is not run
        from mathcheck.conform.run import Result

        note = "the model's outputs leave float64's range on random ids: no tolerance can be derived"
        report.properties = [Result(p.name, p.claim, "", "holds", "inconclusive", note=note) for p in mp.PROPERTIES]
        return report
    inner = sl.coarser(precision, *trace.op_dtypes)
    setting = mp.Setting(
        loaded,
        ids,
        base,
        tol,
        seed,
        replay,
        precision,
        inner,
        model_tolerance_at(loaded, trace, length, inner),
        report.notes,
    )
    report.properties = [p.run(setting) for p in mp.PROPERTIES]
    return report
