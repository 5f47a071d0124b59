"""The conventions real code uses, declared (``--layout``, ``--mask``, ``--gqa-grouping``) or
detected (HF's attention interface), turned into conform's own: ``fn(query, key, value,
attn_mask=None, is_causal=False)`` on (B, H, L, D_head) with a boolean keep mask or an additive 0/−inf
one. Nothing here changes the mathematics a property checks: each adapter is a relabelling
(a transpose, a mask encoding, an order of query heads) that the user's code and the derived
formula must agree on.

* HF's attention interface, ``eager_attention_forward(module, query, key, value, attention_mask,
  scaling, dropout)`` returning ``(output (B, L, H, D), weights)`` with ``repeat_kv`` over
  ``module.num_key_value_groups`` (transformers.models.llama.modeling_llama), is detected from its
  signature; masks go in as HF's 4-D additive (B, 1, L, S) 0/finfo.min, causality through the mask.
* ``--layout blhd``: tensors (B, L, H, D) (flash-attention's ``attention_ref``); for ``mha``
  ``--layout lbd``: ``forward(x)`` on (L, B, D) (``nn.MultiheadAttention(batch_first=False)``).
* ``--mask keep|masked-out|additive|finfo-min|keep01``: how ``attn_mask`` encodes a masked key.
* ``--gqa-grouping tiled``: query head h reads K/V head h mod G (``repeat``, x-transformers) rather
  than h // (H/G) (``repeat_interleave``, PyTorch's ``enable_gqa``).
* a callable without ``is_causal`` (GPT-2's ``_attn(query, key, value, attention_mask, head_mask)``)
  takes its mask by position and is always causal when declared ``--causal``, never otherwise; the
  properties that pass their own mask then keep the causal band in it (``Variant.always_causal``).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # annotations only: torch is imported where a function needs it
    import torch

LAYOUTS = {"attention": ("bhld", "blhd"), "gqa": ("bhld", "blhd"), "mha": ("bld", "lbd")}
MASKS = ("keep", "masked-out", "additive", "finfo-min", "keep01")
GROUPINGS = ("interleaved", "tiled")


def is_hf_interface(fn) -> bool:
    """HF's ``eager_attention_forward(module, query, key, value, attention_mask, scaling, ...)``."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return params[:1] == ["module"] and "attention_mask" in params and "scaling" in params


def takes_is_causal(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return "is_causal" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def needed(fn, kind: str, variant) -> bool:
    return (
        (kind in ("attention", "gqa") and (is_hf_interface(fn) or not takes_is_causal(fn)))
        or variant.layout not in (None, "bhld", "bld")
        or variant.mask not in (None, "keep")
        or variant.gqa_grouping not in (None, "interleaved")
    )


def _keep(attn_mask):
    """conform's mask (boolean keep, or additive 0/−inf) as a boolean keep mask."""
    import torch

    return attn_mask if attn_mask.dtype == torch.bool else attn_mask == 0


def encode_mask(keep, how: str, dtype) -> torch.Tensor:
    """A boolean keep mask in the user's encoding."""
    import torch

    if how == "masked-out":
        return ~keep
    if how == "keep01":
        return keep.to(dtype)
    fill = torch.finfo(dtype).min if how == "finfo-min" else -torch.inf
    return torch.zeros(keep.shape, dtype=dtype).masked_fill(~keep, fill)


class _HFModule:
    """What HF's attention interface reads off its module: eval mode, the K/V repetition."""

    training = False

    def __init__(self, groups: int):
        self.num_key_value_groups = groups
        self.is_causal = False


def adapt(fn, kind: str, variant) -> Callable:
    """``fn`` in conform's convention for ``kind``, or ``fn`` itself when nothing needs adapting."""
    if kind == "rotary":
        if not variant.args and rotary_module(fn):
            return adapt_rotary_module(fn)
        roles = rotary_roles(fn, variant.args)
        return adapt_rotary(fn, roles) if roles else fn
    if not needed(fn, kind, variant):
        return fn
    if kind == "mha":
        return _mha_layout(fn) if variant.layout == "lbd" else fn
    hf = is_hf_interface(fn)
    plain = not hf and not takes_is_causal(fn)  # always causal (declared --causal) or never: mask by position
    blhd = variant.layout == "blhd"
    tiled = variant.gqa_grouping == "tiled"
    mask_how = "hf" if hf else (variant.mask or "keep")

    def attention(query, key, value, attn_mask=None, is_causal=False):
        import torch

        from mathcheck.conform.attention import keep_mask

        H, G = query.shape[1], key.shape[1]
        order = None
        if tiled and G < H:  # conform's head g·R + j is the user's head j·G + g: both read group g
            order = torch.arange(H).reshape(G, H // G).T.reshape(-1)
            query = query[:, order]
            if attn_mask is not None and attn_mask.dim() == 4 and attn_mask.shape[1] == H:
                attn_mask = attn_mask[:, order]
        if blhd:
            query, key, value = (t.transpose(1, 2) for t in (query, key, value))
        if hf:  # causal through the mask only; HF's 4-D additive (B, 1|H, L, S) 0/finfo.min
            L, S = query.shape[-2], key.shape[-2]
            keep = None if attn_mask is None else _keep(attn_mask)
            if is_causal:
                band = keep_mask(L, S, variant)
                keep = band if keep is None else keep & band
            mask = None
            if keep is not None:
                mask = encode_mask(keep, "finfo-min", query.dtype)
                mask = mask.reshape((1,) * (4 - mask.dim()) + tuple(mask.shape))
            scaling = variant.scale if variant.scale is not None else query.shape[-1] ** -0.5
            out = fn(_HFModule(H // G), query, key, value, mask, scaling, 0.0)
            out = (out[0] if isinstance(out, (tuple, list)) else out).transpose(1, 2)  # HF returns (B, L, H, D)
        else:
            mask = (
                attn_mask
                if attn_mask is None or mask_how == "keep"
                else encode_mask(_keep(attn_mask), mask_how, query.dtype)
            )
            if plain and variant.takes_no_mask:  # fn(q, k, v): the properties that pass a mask are skipped
                if mask is not None:
                    raise TypeError(f"{getattr(fn, '__name__', 'the callable')} takes no mask")
                out = fn(query, key, value)
            elif plain:
                out = fn(query, key, value, mask) if kind == "attention" else fn(query, key, value)
            else:
                kwargs = {"is_causal": is_causal}
                if kind == "attention":
                    kwargs["attn_mask"] = mask
                out = fn(query, key, value, **kwargs)
            out = out[0] if isinstance(out, (tuple, list)) else out
            if blhd:
                out = out.transpose(1, 2)
        if order is not None:
            out = out[:, torch.argsort(order)]
        return out

    attention.__qualname__ = getattr(fn, "__qualname__", "attention")
    return attention


def _mha_layout(make):
    """``make(D, H)`` whose module takes (L, B, D): wrapped so ``forward(x)`` takes (B, L, D)."""
    import torch.nn as nn

    class BatchFirst(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            out = self.inner(x.transpose(0, 1))
            out = out[0] if isinstance(out, (tuple, list)) else out
            return out.transpose(0, 1)

    def factory(D, H):
        return BatchFirst(make(D, H))

    factory.__qualname__ = getattr(make, "__qualname__", "make")
    return factory


# --- rotary as real code writes it: an apply function fed tables ------------------------------------------

ROPE_BASE = 10000.0  # the θ base of the tables conform builds (the rotary kind's derived θ_b)

#: The roles a rotary apply's parameters play, and the names real code gives them (each with a source):
#: x — the tensor rotated (transformers' q, GPT-J's tensor, litgpt's x, x-transformers' t); k — a second
#: tensor rotated alike (the output's first element is checked); cos/sin — cos/sin tables (transformers,
#: GPT-J, litgpt, fairseq); freqs_cis — meta-llama's complex table, or gpt-fast's real (…, 2) one;
#: freqs — the angle table pos·θ (x-transformers, Megatron's ``_apply_rotary_pos_emb_bshd``);
#: positions — integer position ids indexing the tables (transformers before 4.38, torchtune's input_pos).
ROTARY_ROLES = {
    "x": ("x", "q", "xq", "t", "tensor", "query", "q_or_k", "hidden_states", "input"),
    "k": ("k", "xk", "key"),
    "cos": ("cos",),
    "sin": ("sin",),
    "freqs_cis": ("freqs_cis",),
    "freqs": ("freqs", "angles", "rope_freqs"),
    "positions": ("position_ids", "positions", "input_pos", "pos_ids"),
}
TABLES = ("cos", "sin", "freqs_cis", "freqs")


def _rope_params(fn) -> list:
    try:
        return [p for p in inspect.signature(fn).parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def rotary_roles(fn, declared: tuple = ()) -> dict | None:
    """``{parameter: role}`` for a rotary apply fed tables (:data:`ROTARY_ROLES`), or None when
    ``fn`` is conform's own ``fn(x, positions)``. ``declared`` (``--args name=role``) wins; else
    the roles are read from the parameter names, and taken only when a table role is among them
    and every required parameter has a role (else None: the signature check asks for ``--args``).

    >>> rotary_roles(lambda tensor, sin, cos: 0)
    {'tensor': 'x', 'sin': 'sin', 'cos': 'cos'}
    >>> rotary_roles(lambda q, k, cos, sin, position_ids=None, unsqueeze_dim=1: 0)
    {'q': 'x', 'k': 'k', 'cos': 'cos', 'sin': 'sin'}
    >>> rotary_roles(lambda x, positions: 0) is None, rotary_roles(lambda t, f: 0, (("t", "x"), ("f", "freqs")))
    (True, {'t': 'x', 'f': 'freqs'})
    """
    if declared:
        return dict(declared)
    params = _rope_params(fn)
    by_name = {name: role for role, names in ROTARY_ROLES.items() for name in names}
    roles = {}
    for i, p in enumerate(params):
        role = by_name.get(p.name)
        if role == "positions" and p.default is not p.empty:
            continue  # optional ids (transformers' position_ids=None): left at the default
        if role is None and i == 0 and p.default is p.empty:
            role = "x"  # the first required parameter is the tensor rotated
        if role is not None and role not in roles.values():
            roles[p.name] = role
        elif p.default is p.empty:
            return None  # a required parameter without a role: not a convention conform knows
    if not any(r in TABLES for r in roles.values()) or "x" not in roles.values():
        return None
    return roles


def rotary_module(fn) -> str | None:
    """The name of the size parameter of a rotary *module class* that builds its own tables and
    applies them in ``forward(x, *, input_pos=None)`` (torchtune's ``RotaryPositionalEmbeddings(dim,
    max_seq_len=4096, base=10000)``), or None: a class, an ``nn.Module``, one required constructor
    parameter (the head dim) and a forward whose first parameter is the tensor."""
    if not isinstance(fn, type):
        return None
    import torch

    if not issubclass(fn, torch.nn.Module):
        return None
    try:
        init = [
            p
            for p in list(inspect.signature(fn.__init__).parameters.values())[1:]
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        forward = list(inspect.signature(fn.forward).parameters)[1:]
    except (TypeError, ValueError):
        return None
    required = [p for p in init if p.default is p.empty]
    return required[0].name if len(required) == 1 and init[0] is required[0] and forward else None


def adapt_rotary_module(cls) -> Callable:
    """A rotary module class as an apply fed positions: built ``cls(d)`` inside each call (its tables
    made as written, so their precision is measured as the rest of its ops) and called
    ``forward(x, <positions>=ids)`` with x (B, L, H, d) — torchtune's layout — and integer ids (1, L)
    when its forward takes positions by a known name (``input_pos``, ``position_ids``, …)."""
    forward = list(inspect.signature(cls.forward).parameters)[1:]
    ids_name = next((n for n in forward if n in ROTARY_ROLES["positions"]), None)

    def rope(x, positions):
        flat = x.reshape(-1, x.shape[-2], x.shape[-1])
        module = cls(x.shape[-1]).eval()
        kwargs = {ids_name: positions.round().long()[None]} if ids_name else {}
        out = module(flat[:, :, None], **kwargs)
        out = out[0] if isinstance(out, (tuple, list)) else out
        return out[:, :, 0].reshape(x.shape)

    rope.__name__ = getattr(cls, "__name__", "rope")
    rope.module = (rotary_module(cls), ids_name)
    return rope


def rotary_convention(fn, declared: tuple = ()) -> str | None:
    """The report's words for a rotary apply's call, e.g. ``apply(tensor=x, sin=sin, cos=cos)``, or None."""
    roles = rotary_roles(fn, declared)
    if roles is None:
        return None
    return "apply(" + ", ".join(n if n == r else f"{n}={r}" for n, r in roles.items()) + ")"


def _angles(pos, d: int):
    """(L, d/2): pos·θ_b, θ_b = 10000^(−2b/d) — the standard table, in float64."""
    import torch

    theta = ROPE_BASE ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    return torch.outer(pos.to(torch.float64), theta)


#: Where the tensor's sequence axis goes and how the tables broadcast, tried in this order:
#: (B, H, L, d) with tables (1, L, w) (transformers, litgpt, fairseq); (B, L, H, d) with tables (1, L, w)
#: or freqs_cis (L, d/2) (meta-llama, gpt-fast, GPT-J); (L, B, H, d) with tables (L, 1, 1, w) (Megatron's bshd).
X_LAYOUTS = ("bhld", "blhd", "lbhd")
#: The table's last axis: cat(A, A) (half-split, rotate_half), repeat_interleave(A, 2) (interleaved), A itself
#: (d/2 wide: GPT-J expands it); freqs_cis complex (L, d/2), real (L, d/2, 2) (gpt-fast) or complex
#: cat(cis, cis) (L, d) (OpenNMT-py's rotaryembeddings, read as cos = .real, sin = .imag).
TABLE_FORMS = ("half", "interleaved", "raw")
CIS_FORMS = ("complex", "real", "complex-cat")


def _table(role: str, ang, form: str, layout: str, ids=None):
    """One table for ``role`` from the angles ``ang`` (L', d/2), shaped for ``layout``; with ``ids``
    (integer positions) the table spans positions 0…max and is indexed by the apply itself."""
    import torch

    if role == "freqs_cis":
        cis = torch.polar(torch.ones_like(ang), ang)
        return {
            "complex": lambda: cis,
            "real": lambda: torch.stack([cis.real, cis.imag], dim=-1),
            "complex-cat": lambda: torch.cat([cis, cis], dim=-1),
        }[form]()
    a = {
        "half": lambda t: torch.cat([t, t], dim=-1),
        "interleaved": lambda t: t.repeat_interleave(2, dim=-1),
        "raw": lambda t: t,
    }[form](ang)
    t = {"cos": a.cos, "sin": a.sin, "freqs": lambda: a}[role]()
    if ids is not None:
        return t
    return t[:, None, None] if layout == "lbhd" else t[None]


def _to4(x, layout: str):
    """x (N, L, d) -> the layout's 4-D tensor with one head."""
    return {"bhld": x[:, None], "blhd": x[:, :, None], "lbhd": x.transpose(0, 1)[:, :, None]}[layout]


def _from4(out, layout: str, shape):
    out = {"bhld": lambda o: o[:, 0], "blhd": lambda o: o[:, :, 0], "lbhd": lambda o: o[:, :, 0].transpose(0, 1)}[
        layout
    ](out)
    return out.reshape(shape)


def adapt_rotary(fn, roles: dict) -> Callable:
    """``fn`` as conform's ``rope(x, positions)`` on x (…, L, d): the tables built here (float64 at
    base 10000; what is checked is the user's *apply*: pairing, signs, broadcasting), each passed
    by name under the user's parameter. Which layout and table form (:data:`X_LAYOUTS`,
    :data:`TABLE_FORMS`) is found on the first call: the first, in a fixed order, under which the
    apply computes RoPE (either pairing) on a fixed input; if none does, the first that runs, so the
    properties show what is wrong. The output is held to the derived RoPE either way, so a sign,
    pairing or broadcasting bug still fails."""
    import torch

    found = {}

    def call(x, positions, layout, form, deinterleaved=False):
        N, L, d = x.shape
        has_ids = "positions" in roles.values()
        ids = positions.round().long() if has_ids else None
        ang = _angles(torch.arange(int(ids.max()) + 1) if has_ids else positions, d)
        kwargs = {}
        for name, role in roles.items():
            if role in ("x", "k"):
                kwargs[name] = _to4(x, layout)
            elif role == "positions":
                kwargs[name] = ids[None]
            else:
                kwargs[name] = _table(role, ang, form, layout, ids)
        out = fn(**kwargs)
        out = out[0] if isinstance(out, (tuple, list)) else out
        out = _from4(out, layout, x.shape)
        return _reinterleave(out) if deinterleaved else out

    def forms():
        table = next(r for r in roles.values() if r in TABLES)
        return CIS_FORMS if table == "freqs_cis" else TABLE_FORMS

    def choose(x, positions):
        from mathcheck.conform.positions import derived_rope

        x0 = torch.linspace(-1.0, 1.0, 4 * x.shape[-1], dtype=torch.float64).reshape(1, 4, -1).sin() + 0.5
        pos = torch.arange(1, 5, dtype=torch.float64)
        ran = None
        for deinterleaved in (False, True):  # a plain output first; the de-interleaved basis only if none fits
            for layout in X_LAYOUTS:
                for form in forms():
                    try:
                        out = call(x0, pos, layout, form, deinterleaved).detach().to(torch.float64)
                    except Exception:  # noqa: BLE001 - this layout does not fit the apply: the next one is tried
                        continue
                    ran = ran or (layout, form, False)
                    pairs = ("interleaved",) if deinterleaved else ("half", "interleaved")
                    if any(torch.allclose(out, derived_rope(x0, pos, p), rtol=1e-4, atol=1e-5) for p in pairs):
                        return layout, form, deinterleaved
        return ran or (X_LAYOUTS[0], forms()[0], False)

    def rope(x, positions):
        flat = x.reshape(-1, x.shape[-2], x.shape[-1])
        if "layout" not in found:
            found["layout"], found["form"], found["deinterleaved"] = choose(flat, positions)
        return call(flat, positions, found["layout"], found["form"], found["deinterleaved"]).reshape(x.shape)

    rope.__name__ = getattr(fn, "__name__", "rope")
    rope.pairing = found
    return rope


def _reinterleave(y):
    """[y_0, y_2, …, y_1, y_3, …] -> [y_0, y_1, y_2, …]: undoes the de-interleaving permutation P that
    HF's ``apply_rotary_pos_emb_interleave`` and litgpt's ``apply_rope_interleave`` leave on their output
    (they rotate interleaved pairs in the basis P x and return it there). q and k both come out in that
    basis, so every score q·k — all attention reads of them — is unchanged; the output is held to
    P·R·x, i.e. this undoes P and holds it to the derived R x on interleaved pairs, nothing looser.

    >>> import torch; _reinterleave(torch.tensor([0., 2., 1., 3.])).tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    h = y.shape[-1] // 2
    import torch

    return torch.stack([y[..., :h], y[..., h:]], dim=-1).flatten(-2)


def rotary_found(found: dict) -> str:
    """The report's words for the layout and table form an apply was found to take."""
    x = {"bhld": "(B, H, L, d)", "blhd": "(B, L, H, d)", "lbhd": "(L, B, H, d)"}[found["layout"]]
    form = {
        "half": "half-split tables cat(freqs, freqs) (rotate_half)",
        "interleaved": "interleaved tables repeat_interleave(freqs, 2)",
        "raw": "tables d/2 wide (the apply expands them)",
        "complex": "complex freqs_cis (L, d/2)",
        "real": "real freqs_cis (L, d/2, 2)",
        "complex-cat": "complex freqs_cis cat(cis, cis) (L, d)",
    }[found["form"]]
    basis = (
        "; its output in the de-interleaved basis [y_0, y_2, …, y_1, y_3, …] (as HF's "
        "apply_rotary_pos_emb_interleave: q and k alike, every score q·k unchanged), re-interleaved "
        "before comparing"
        if found.get("deinterleaved")
        else ""
    )
    return f"x as {x}, {form}{basis}"


# --- constructors that take a config object ---------------------------------------------------------------

CONFIG_PARAMS = ("config", "cfg", "args", "model_args", "params", "hparams", "conf")
# The attribute names real configs give conform's sizes, each with a source that uses it:
# nanoGPT's GPTConfig (n_embd, n_head, bias, dropout, block_size), transformers' configs (hidden_size,
# num_attention_heads, num_key_value_heads, attention_dropout, max_position_embeddings, rms_norm_eps,
# layer_norm_eps, layer_norm_epsilon), meta-llama's ModelArgs (dim, n_heads, n_kv_heads, norm_eps,
# max_seq_len), litgpt's Config (n_query_groups, head_size), fairseq/OPT (embed_dim, d_model).
CONFIG_NAMES = {
    "D": ("n_embd", "hidden_size", "dim", "d_model", "embed_dim", "n_embed", "emb_dim", "model_dim"),
    "H": ("n_head", "n_heads", "num_heads", "num_attention_heads", "heads"),
    "G": ("n_kv_heads", "num_key_value_heads", "n_query_groups", "num_kv_heads"),  # no grouping: G = H
    "head": ("head_dim", "head_size"),
    "eps": ("eps", "norm_eps", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "layernorm_epsilon"),
    "dropout": (
        "dropout",
        "attn_pdrop",
        "resid_pdrop",
        "attention_dropout",
        "attn_dropout",
        "resid_dropout",
        "hidden_dropout",
        "attention_probs_dropout_prob",
        "hidden_dropout_prob",
    ),
    "length": ("block_size", "n_positions", "max_position_embeddings", "max_seq_len", "n_ctx"),
}
CONFIG_DEFAULTS = {"bias": True}  # nanoGPT/litgpt's bias flag: a bias is what nn.Linear has by default


def config_parameter(make) -> str | None:
    """The name of the one required parameter of a constructor that takes a config object
    (``CausalSelfAttention(config)``, ``RMSNorm(args)``), or None.

    >>> config_parameter(lambda config: None), config_parameter(lambda dim, eps: None)
    ('config', None)
    """
    try:
        params = list(inspect.signature(make).parameters.values())
    except (TypeError, ValueError):
        return None
    required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return required[0].name if len(required) == 1 and required[0].name in CONFIG_PARAMS else None


class Config:
    """The config object conform builds: every name of :data:`CONFIG_NAMES` for a size it knows,
    ``--init`` on top; a name it does not know is an ``AttributeError`` saying how to give it."""

    def __init__(self, values: dict):
        self.__dict__.update(values)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"conform's config has no {name!r}: give it with --init {name}=VALUE")

    def __repr__(self):
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


def config_factory(make, kind: str, init: tuple) -> Callable:
    """``make(config)`` as the kind's factory: ``make(D, H)`` for mha, ``make(D, eps)`` for a norm,
    each building a :class:`Config` (dropout 0, a length limit of 2048 ≥ the longest property's
    1025, ``--init`` keys set on the config rather than passed to ``make``)."""

    def values(D, H=None, eps=None):
        sizes = {"D": D, "H": H, "G": H, "head": D // H if H else None, "eps": eps, "dropout": 0.0, "length": 2048}
        out = {name: sizes[size] for size, names in CONFIG_NAMES.items() for name in names if sizes[size] is not None}
        return {**CONFIG_DEFAULTS, **out, **dict(init)}

    if kind == "mha":

        def factory(D, H):
            return make(Config(values(D, H)))
    else:

        def factory(D, eps):
            return make(Config(values(D, eps=eps)))

    factory.__qualname__ = getattr(make, "__qualname__", "make")
    factory.config = True  # said in the report
    return factory


# --- --args name=role: what cannot be detected, said by the user (checked in target.check_args) ----------


def bind_args(fn, params: tuple, args: tuple) -> Callable:
    """``fn`` called with conform's arguments by the roles of ``--args``: conform calls
    ``wrapped(*values of the kind's params)`` and ``fn`` gets each by the name that plays its role,
    e.g. ``--args target=target,logits=logits`` for ``loss(target, logits)``."""
    import functools

    by_role = {role: name for name, role in args}

    def wrapped(*values, **kw):
        given = dict(zip(params, values), **kw)
        return fn(**{by_role[r]: v for r, v in given.items() if r in by_role})

    if hasattr(fn, "__name__"):
        functools.update_wrapper(
            wrapped, fn, assigned=("__module__", "__name__", "__qualname__", "__doc__"), updated=()
        )
    return wrapped
