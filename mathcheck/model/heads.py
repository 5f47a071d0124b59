"""Attention-level properties from an attention module's own projections (one traced forward).

An intercepted attention call shows the scores (a softmax's input) or SDPA's q, k, v, but not
how they were made. The module's Linear children show it: the query, key and value projections
(``q_proj``/``k_proj``/``v_proj``, or one fused ``qkv``/``c_attn``/``wqkv``) and the output
projection, whose input is the heads' merged output. Split into heads (h query heads of size d,
g key/value heads, query head i reading key/value head ⌊i·g/h⌋ — grouped-query-attention), they give:

* ``scale`` (multihead-split-merge): the score of query t against key t equals q_t·k_t / √d. RoPE
  rotates q_t and k_t by the same angle, so it leaves this dot product unchanged: the check holds
  with or without RoPE, and fails for a missed 1/√d (ratio √d) or queries scaled twice (1/d). A
  scale the module declares (``scaling``, ``scale``, ``softmax_scale``) is accepted as its own.
* ``values`` (attention-backward, O = PV): the merged output equals the weights times the value
  projection's heads — RoPE applied to the values, or value heads tiled instead of grouped, fail.
* ``gqa-grouping`` (grouped-query-attention), where g < h: the scores' diagonal read with each query
  head's own group — heads tiled (head i reading group i mod g) fail.

Only a module whose children are those Linear layers (and parameter-free modules that leave a
tensor as it was, such as dropout in eval mode, or make rotary tables) is checked: a query/key norm
(with parameters or without, as Llama 4's L2 ``qk_norm``), a gate or a latent projection between
them changes what the scores are made of, and the module is then said not checked, never judged.
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap

import torch

from mathcheck.conform.run import Result
from mathcheck.model.sublayers import coarser
from mathcheck.numeric.tolerance import dtype_tolerance

F64 = torch.float64
Q, K, V = (
    ("q_proj", "wq", "query", "q", "to_q"),
    ("k_proj", "wk", "key", "k", "to_k"),
    ("v_proj", "wv", "value", "v", "to_v"),
)
FUSED = ("c_attn", "qkv", "wqkv", "qkv_proj", "query_key_value", "in_proj", "to_qkv", "Wqkv")
OUT = ("o_proj", "c_proj", "out_proj", "wo", "proj", "dense", "to_out", "o")
SCALE_NAMES = ("scaling", "scale", "softmax_scale")


def table_dtypes(model) -> list:
    """The dtypes of rotary tables (``inv_freq``, ``freqs…``, ``cos``/``sin`` buffers): transformers keeps
    them in float32 even in a float64 model, so q·k after RoPE is exact only to float32's ε."""
    out = []
    for name, b in model.named_buffers():
        if b.is_floating_point() and any(w in name.split(".")[-1] for w in ("inv_freq", "freqs", "cos", "sin", "rope")):
            # a table computed in float32 and stored in float64 (the model cast after building) is float32's
            narrow = b.dtype == F64 and bool((b.float().double() == b).all())
            out.append(torch.float32 if narrow else b.dtype)
    return out


def _linear(m) -> bool:
    return isinstance(m, torch.nn.Linear) or type(m).__name__ == "Conv1D"


def projections(model, path: str) -> tuple[dict | None, str]:
    """({"q"|"k"|"v"|"qkv"|"out": child path}, "") for an attention module of plain projections; else
    (None, why not)."""
    module = dict(model.named_modules()).get(path)
    if module is None:
        return None, "no module"
    own = [name for name, _ in module.named_parameters(recurse=False)]
    if own:  # an attention sink, a learned temperature: the scores are not q·k alone
        return None, f"it holds its own parameter {own[0]} besides the projections"
    found = {}
    for name, child in module.named_children():
        if _linear(child):
            for key, names in (("q", Q), ("k", K), ("v", V), ("qkv", FUSED), ("out", OUT)):
                if name in names:
                    found[key] = f"{path}.{name}" if path else name
        elif any(True for _ in child.parameters()):
            return None, f"its child {name} ({type(child).__name__}) has parameters between the projections"
    if "out" not in found or not ("qkv" in found or all(k in found for k in "qkv")):
        return None, "no q/k/v (or fused qkv) and output projection found among its children"
    return found, ""


def _changing_child(model, trace, path: str, projections: set) -> str:
    """Why the scores are not made of the projections alone, or "": a parameter-free child (other
    than a projection) that ran and returned a tensor of its input's shape with other values — a
    query/key L2 norm (Llama 4's ``qk_norm``). Dropout in eval mode returns its input and a rotary
    module returns cos/sin tables of another shape: neither counts."""
    module = dict(model.named_modules())[path]
    children = {f"{path}.{name}" if path else name: child for name, child in module.named_children()}
    for p, out, inp in trace.outputs:
        if (
            p in children
            and p not in projections
            and inp is not None
            and out.shape == inp.shape
            and not torch.equal(out, inp)
        ):
            return (
                f"its child {p.rsplit('.', 1)[-1]} ({type(children[p]).__name__}) changes a tensor between "
                "the projections and the scores (a query/key norm): the scores are not q·k of the projections"
            )
    return ""


def _heads(t: torch.Tensor, n: int) -> torch.Tensor:
    """(B, L, n·d) -> (B, n, L, d)."""
    B, L, W = t.shape
    return t.reshape(B, L, n, W // n).transpose(1, 2)


def _first_outputs(trace, paths) -> dict:
    got = {}
    for p, out, inp in trace.outputs:
        if p in paths and p not in got:
            got[p] = (out, inp)
    return got


def _declared_scale(module):
    for name in SCALE_NAMES:
        v = getattr(module, name, None)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return name, float(v)
    return None


def _written_scale(module):
    """(where, value) for a scale the module's own code writes as a number — a keyword ``scale=``,
    ``softmax_scale=`` or ``scaling=`` with a literal value — in its class or a subclass its file
    defines (GPT-Neo's flash-attention path passes ``softmax_scale=1.0``: its scores are q·k by
    design); else None. The source is parsed, never evaluated."""
    cls = type(module)
    for c in [cls, *cls.__subclasses__()]:
        if c.__module__ != cls.__module__:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(c)))
        except (OSError, TypeError, SyntaxError):
            continue
        for node in ast.walk(tree):
            v = node.value if isinstance(node, ast.keyword) and node.arg in SCALE_NAMES else None
            if isinstance(v, ast.Constant) and type(v.value) in (int, float) and v.value > 0:
                return f"{node.arg}={v.value} written in {c.__name__}", float(v.value)
    return None


def _bias_argument(module) -> str | None:
    """The parameter of the module's forward through which an additive score bias comes in
    (MPT's ALiBi ``position_bias``, MPNet's relative-position ``position_bias``, Bloom's ``alibi``),
    else None."""
    try:
        names = inspect.signature(module.forward).parameters
    except (TypeError, ValueError):
        return None
    return next((n for n in names if n != "bias" and ("bias" in n or "alibi" in n)), None)


def _ok(name, claim, doc, err, tol, note) -> Result:
    return Result(name, claim, doc, "holds", "holds", err, tol, None, note)


def _bad(name, claim, doc, err, tol, note, cx) -> Result:
    return Result(name, claim, doc, "holds", "fails", err, tol, cx, note)


def check_heads(model, trace, call, replay: str) -> tuple[list[Result], str]:
    """(results, why none) for one intercepted call of the full forward (queries 0…L−1 = keys)."""
    found, why = projections(model, call.path)
    if found is None:
        return [], why
    got = _first_outputs(trace, set(found.values()))
    if any(p not in got for p in found.values()):
        return [], "a projection did not run in the forward"
    changer = _changing_child(model, trace, call.path, set(found.values()))
    if changer:
        return [], changer
    if call.kind == "sdpa":
        q_in, k_in = call.inputs["query"], call.inputs["key"]
        h, L = q_in.shape[-3], q_in.shape[-2]
        scale = call.inputs.get("scale")
        scale = 1 / math.sqrt(q_in.shape[-1]) if scale is None else float(scale)
        kk = k_in.to(F64)[..., :L, :]  # a static cache's slots past L are empty
        if kk.shape[-3] != h:  # enable_gqa: SDPA groups the heads itself
            kk = kk.repeat_interleave(h // kk.shape[-3], dim=-3)
        z_diag = scale * (q_in.to(F64) * kk).sum(-1)  # (B, h, L)
        weights = None
    else:
        z = call.inputs["input"]
        if z.dim() != 4 or z.shape[-1] < z.shape[-2] or (call.inputs["dim"] not in (-1, 3, None)):
            return [], "scores are not (B, h, L, L) over the last axis"
        h, L = z.shape[1], z.shape[-2]
        weights = call.output.to(F64)
        if z.shape[-1] > L:  # a static cache's slots past the L tokens: they must weigh nothing
            if bool((weights[..., L:] != 0).any()):
                return [], f"scores over {z.shape[-1]} keys for {L} queries, the keys past {L} weighed"
            z, weights = z[..., :L], weights[..., :L]
        z_diag = torch.diagonal(z.to(F64), dim1=-2, dim2=-1)
    x = got[found["out"]][1]
    if "qkv" in found:
        fused = got[found["qkv"]][0].to(F64)
        D = x.shape[-1]
        kv = (fused.shape[-1] - D) // 2
        if kv <= 0 or D + 2 * kv != fused.shape[-1]:
            return [], f"the fused projection's width {fused.shape[-1]} does not split as q + 2·kv"
        q, k, v = fused.split([D, kv, kv], dim=-1)
    else:
        q, k, v = (got[found[n]][0].to(F64) for n in "qkv")
    if q.dim() != 3 or q.shape[1] != L or q.shape[-1] % h or x.shape[-1] != q.shape[-1]:
        return [], "the projections' widths do not split into the call's heads"
    d = q.shape[-1] // h
    if k.shape[-1] % d or v.shape[-1] != k.shape[-1]:
        return [], "the key/value widths are not whole heads"
    g = k.shape[-1] // d
    if h % g:
        return [], f"{h} query heads do not group over {g} key/value heads"
    qh, kh, vh = _heads(q, h), _heads(k, g), _heads(v, g)
    group = torch.arange(h) // (h // g)  # query head i reads key/value head i // (h/g)
    # the module's own ops may compute coarser than its inputs (GPT-Neo casts q and k to float32)
    dtype = coarser(call.output.dtype, q.dtype, *table_dtypes(model), *trace.dtypes_at.get(call.path, ()))
    results = _scale_and_grouping(model, call, qh, kh, group, z_diag, d, g, h, dtype, replay) + _values(
        call, weights, vh, group, x, dtype, replay, found["out"]
    )
    failed = {r.name for r in results if r.status == "fails"}
    if {"scale", "values"} <= failed:
        # both wrong at once: the projections are not what the scores and output are made of — a
        # fused layout other than q | k | v (CodeGen's blocks, GPT-NeoX's per-head [q k v]), or
        # projections read otherwise (MiMo) — not two bugs: said, not judged
        if "qkv" in found:
            return [], f"the fused projection {found['qkv']} is not laid out q | k | v"
        return [], "the scores and the output are not q·k/√d and P·V of its projections' heads as read"
    return results, ""


def _scale_and_grouping(model, call, qh, kh, group, z_diag, d, g, h, dtype, replay) -> list[Result]:
    module = dict(model.named_modules())[call.path]
    qk = (qh * kh[:, group]).sum(-1)  # (B, h, L): q_t·k_t with each head's own group
    keep = torch.isfinite(z_diag) & (z_diag > torch.finfo(F64).min / 2)
    derived = 1 / math.sqrt(d)
    declared = _declared_scale(module) or _written_scale(module)
    mag = float(qh.abs().max()) * float(kh.abs().max())
    tol = dtype_tolerance(2 * d, mag * max(derived, declared[1] if declared else 0.0) + 1.0, dtype)
    results, doc = [], "the score of query t against key t is q_t·k_t/√d (RoPE leaves it unchanged)"
    candidates = [("1/√d", derived)] + ([(f"the module's {declared[0]}", declared[1])] if declared else [])
    errs = {label: float(((z_diag - s * qk).abs() * keep).max()) for label, s in candidates}
    label, err = min(errs.items(), key=lambda kv: kv[1])
    s = dict(candidates)[label]
    bias = _bias_argument(module) if err > tol and qk.shape[0] > 1 else None
    if bias is not None:
        # an additive score bias the forward is given (ALiBi, a relative-position bias) is the same
        # for every row of the batch: the rows' differences are s·(q·k differences) alone
        rows = keep.all(0)
        diffs = {
            lab: float(((z_diag[1:] - z_diag[:1] - sc * (qk[1:] - qk[:1])).abs() * rows).max())
            for lab, sc in candidates
        }
        label, err = min(diffs.items(), key=lambda kv: kv[1])
        s, tol = dict(candidates)[label], 2 * tol
        label += f"; plus an additive score bias, its argument {bias}, the same for every row"
    if err <= tol:
        results.append(
            _ok("scale", "multihead-split-merge", doc, err, tol, f"scores = q·k × {s:.6g} ({label}, d = {d})")
        )
    else:
        z, qq = (z_diag[1:] - z_diag[:1], qk[1:] - qk[:1]) if bias else (z_diag, qk)  # bias: rows' differences
        mask = keep[: z.shape[0]] & (qq.abs() > 1e-12)
        ratio = float((z[mask] / qq[mask]).median()) if bool(mask.any()) else float("nan")
        bad = (z_diag - derived * qk).abs() * keep > tol
        idx = tuple(torch.nonzero(bad)[0].tolist()) if bool(bad.any()) else (0, 0, 0)
        cx = {
            "entry": list(idx),
            "derived": float(derived * qk[idx]),
            "user": float(z_diag[idx]),
            "replay": replay,
            "compared": f"score of query {idx[-1]} against key {idx[-1]}, head {idx[1]}: q·k/√d derived",
        }
        if g < h:  # the heads read another group's keys? then no single scale fits
            tiled = (qh * kh[:, torch.arange(h) % g]).sum(-1)
            if float(((z_diag - derived * tiled).abs() * keep).max()) <= tol:
                results.append(
                    _bad(
                        "gqa-grouping",
                        "grouped-query-attention",
                        "query head i reads key/value head ⌊i·g/h⌋",
                        err,
                        tol,
                        f"query head i reads key/value head i mod {g} (heads tiled), not i // {h // g}",
                        cx,
                    )
                )
                return results
        results.append(
            _bad(
                "scale",
                "multihead-split-merge",
                doc,
                err,
                tol,
                f"scores are q·k × {ratio:.6g}, not × 1/√d = {derived:.6g} (d = {d})",
                cx,
            )
        )
        return results
    if g < h:
        results.append(
            _ok(
                "gqa-grouping",
                "grouped-query-attention",
                "query head i reads key/value head ⌊i·g/h⌋",
                err,
                tol,
                f"{h} query heads over {g} key/value heads",
            )
        )
    return results


def _values(call, weights, vh, group, x, dtype, replay, out_path) -> list[Result]:
    """O = P·V against the output projection's input (softmax path), or SDPA's V against the value
    projection's heads."""
    doc = "the heads' output is the weights times the value projection's heads (O = PV)"
    B, L = x.shape[:2]
    if call.kind == "sdpa":
        v_in = call.inputs["value"].to(F64)[..., :L, :]
        want = vh if v_in.shape[-3] == vh.shape[-3] else vh[:, group]
        tol = dtype_tolerance(1, float(want.abs().max()) + 1.0, dtype)
        err = float((v_in - want).abs().max()) if v_in.shape == want.shape else math.inf
        what = "SDPA's values against the value projection's heads"
    else:
        derived = (weights @ vh[:, group]).transpose(1, 2).reshape(B, L, -1)
        tol = dtype_tolerance(L, float(vh.abs().max()) + 1.0, dtype)
        err = float((x.to(F64) - derived).abs().max()) if derived.shape == x.shape else math.inf
        what = f"the input of {out_path} against P·V"
    if err <= tol:
        return [_ok("values", "attention-backward", doc, err, tol, what)]
    g, h = vh.shape[1], len(group)
    why = "the values are changed between projection and weighting (e.g. RoPE applied to them)"
    if call.kind == "sdpa" and g < h and v_in.shape[-3] == h:  # value heads tiled, as the keys may be
        tiled = vh[:, torch.arange(h) % g]
        if v_in.shape == tiled.shape and float((v_in - tiled).abs().max()) <= tol:
            why = f"query head i reads value head i mod {g} (heads tiled), not i // {h // g}"
    detail = {"compared": what, "replay": replay}
    return [_bad("values", "attention-backward", doc, err, tol, f"{what} differ by {err:.3g}: {why}", detail)]


def value_slots(model, trace, call) -> int | None:
    """For an SDPA call of a forward over n tokens whose keys and values come from a static cache
    (gpt-fast's: slots written at ``input_pos``, n of them or more): the first slot s < n whose
    values are not the value projection's head of token s — a cache that drops, wraps or misplaces
    what it holds; None when every slot holds its token's, or when the module is not one of plain
    projections (nothing to compare against). The values are compared, not the keys: RoPE leaves
    the values as projected."""
    if call.kind != "sdpa":
        return None
    found, _ = projections(model, call.path)
    if found is None:
        return None
    got = _first_outputs(trace, set(found.values()))
    if any(p not in got for p in found.values()):
        return None
    v_in, q_in = call.inputs["value"].to(F64), call.inputs["query"]
    h, n = q_in.shape[-3], q_in.shape[-2]
    x = got[found["out"]][1]
    if "qkv" in found:
        fused = got[found["qkv"]][0].to(F64)
        D = x.shape[-1]
        kv = (fused.shape[-1] - D) // 2
        if kv <= 0 or D + 2 * kv != fused.shape[-1]:
            return None
        v = fused[..., D + kv :]
    else:
        v = got[found["v"]][0].to(F64)
    if v.dim() != 3 or v.shape[1] != n or x.shape[-1] % h or v.shape[-1] % (x.shape[-1] // h):
        return None
    g = v.shape[-1] // (x.shape[-1] // h)
    if g < 1 or h % g or v_in.shape[-2] < n:
        return None
    vh = _heads(v, g)
    want = vh if v_in.shape[-3] == g else vh[:, torch.arange(h) // (h // g)]
    got_v = v_in[..., :n, :]
    if got_v.shape != want.shape:
        return None
    dtype = coarser(call.output.dtype, v.dtype, *trace.dtypes_at.get(call.path, ()))
    tol = dtype_tolerance(1, float(want.abs().max()) + 1.0, dtype)
    bad = ((got_v - want).abs() > tol).flatten(0, 1).any(0).any(-1)  # (n,): slot s wrong in some row/head
    return int(torch.nonzero(bad)[0]) if bool(bad.any()) else None
