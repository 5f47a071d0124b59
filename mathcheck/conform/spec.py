"""What ``conform`` accepts: the kinds, the callables they take, the declared variant. No torch here.

Everything a user types is checked here before any work, with one line that says what was wrong
and how to fix it (:class:`BadInput`, exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Kind:
    """A conform kind, in one place: what the target is, the parameters it must accept, and the
    module that owns the kind — its properties (``properties()`` → list of Property) and its
    precision probe (``probe(fn, variant, gen, module)`` → ``(call, n)``: one run on a fixed
    float64 input and the reduction length its error model uses)."""

    what: str
    params: tuple
    module: str
    properties: str
    probe: str

    def function(self, role: str) -> Callable:
        """The kind's ``properties`` or ``probe`` function, imported on first use (torch lives there)."""
        import importlib

        return getattr(importlib.import_module(self.module), getattr(self, role))


#: Adding a kind is one entry here, pointing at the module that defines its two functions.
KINDS = {
    "attention": Kind(
        "fn(query, key, value, attn_mask=None, is_causal=False) on (B, H, L, D_head), like F.scaled_dot_product_attention",
        ("query", "key", "value", "attn_mask", "is_causal"),
        "mathcheck.conform.attention",
        "attention_properties",
        "attention_probe",
    ),
    "mha": Kind(
        "make(D, H) -> nn.Module whose forward(x) maps (B, L, D) to (B, L, D)",
        ("D", "H"),
        "mathcheck.conform.modules",
        "mha_properties",
        "mha_probe",
    ),
    "gqa": Kind(
        "fn(query, key, value, is_causal=False): query (B, H, L, D_head), key/value (B, G, L, D_head)",
        ("query", "key", "value", "is_causal"),
        "mathcheck.conform.modules",
        "gqa_properties",
        "gqa_probe",
    ),
    "online-softmax": Kind(
        "fn(score_blocks, value_blocks) -> softmax(concat scores) @ concat values, blocks split along the keys",
        ("score_blocks", "value_blocks"),
        "mathcheck.conform.modules",
        "online_softmax_properties",
        "online_softmax_probe",
    ),
    "softmax": Kind("fn(x, dim)", ("x", "dim"), "mathcheck.conform.losses", "softmax_properties", "softmax_probe"),
    "log-softmax": Kind(
        "fn(x, dim)", ("x", "dim"), "mathcheck.conform.losses", "log_softmax_properties", "softmax_probe"
    ),
    "cross-entropy": Kind(
        "fn(logits, target): logits (B, C), target class indices (B,) or probabilities (B, C); mean over the batch",
        ("logits", "target"),
        "mathcheck.conform.losses",
        "cross_entropy_properties",
        "cross_entropy_probe",
    ),
    "kl": Kind(
        "fn(log_q, p) = KL(p ‖ q) summed over classes, mean over the batch, like F.kl_div(log_q, p, reduction='batchmean')",
        ("log_q", "p"),
        "mathcheck.conform.losses",
        "kl_properties",
        "kl_probe",
    ),
    "layernorm": Kind(
        "make(D, eps) -> nn.Module normalising the last axis (affine part at its initial identity)",
        ("D", "eps"),
        "mathcheck.conform.norms",
        "layernorm_properties",
        "norm_probe",
    ),
    "rmsnorm": Kind(
        "make(D, eps) -> nn.Module, y = x/sqrt(mean(x²) + eps) (weight at its initial 1)",
        ("D", "eps"),
        "mathcheck.conform.norms",
        "rmsnorm_properties",
        "norm_probe",
    ),
    "positional": Kind(
        "fn(positions, d) -> (L, d) sinusoidal table, sin in even columns, cos in odd",
        ("positions", "d"),
        "mathcheck.conform.positions",
        "positional_properties",
        "positional_probe",
    ),
    "rotary": Kind(
        "fn(x, positions) applying RoPE to x (..., L, d)",
        ("x", "positions"),
        "mathcheck.conform.positions",
        "rotary_properties",
        "rotary_probe",
    ),
    "alibi": Kind(
        "fn(H, L) -> ALiBi bias (H, L, L), or (1, H, 1, L) / (H, 1, L) in the slope·j form (MPT's build_alibi_bias; "
        "BLOOM's build_alibi_tensor(attention_mask, num_heads, dtype) is bound by name)",
        ("H", "L"),
        "mathcheck.conform.positions",
        "alibi_properties",
        "alibi_probe",
    ),
}

POSITIONS = ("none", "sinusoidal", "rotary", "alibi")

#: What to change when the first call into a target raises (a call-shape problem: bad input).
FIXES = {
    "attention": "--layout blhd if it takes (B, L, H, D); --mask masked-out|additive|finfo-min|keep01 for its "
    "attn_mask; --causal if it always masks (it is then called fn(query, key, value, mask))",
    "mha": "--layout lbd if its forward takes (L, B, D); a factory make(D, H) for another constructor, "
    "e.g. lambda D, H: MyAttention(dim=D, n_heads=H)",
    "gqa": "--layout blhd if it takes (B, L, H, D); --gqa-grouping tiled if it repeats K/V heads with repeat",
    "online-softmax": "a wrapper fn(score_blocks, value_blocks) around its own block loop",
    "softmax": "a wrapper fn(x, dim)",
    "log-softmax": "a wrapper fn(x, dim)",
    "cross-entropy": "--label-smoothing EPS for its smoothing; a wrapper fn(logits, target) with target class "
    "indices (B,) or probabilities (B, C)",
    "kl": "--temperature T for distillation fn(student_logits, teacher_logits); else fn(log_q, p)",
    "layernorm": "a factory make(D, eps) for another constructor, e.g. lambda D, eps: MyNorm(D, eps=eps)",
    "rmsnorm": "a factory make(D, eps) for another constructor, e.g. lambda D, eps: MyNorm(D, eps=eps)",
    "positional": "a wrapper fn(positions, d) returning the (L, d) table",
    "rotary": "--args NAME=ROLE,… saying which parameter is x, k, cos, sin, freqs_cis, freqs or positions "
    "(an apply fed tables), or a wrapper fn(x, positions) applying it to x (..., L, d)",
    "alibi": "a wrapper fn(H, L) returning the bias for H heads over L tokens, (H, L, L) or (1, H, 1, L)",
}


class BadInput(ValueError):
    """One line: what was wrong with the user's input and how to fix it."""


QUICK_ENV = "MATHCHECK_CONFORM_QUICK"  # "1": every conform run is --quick (the fast test run sets it)


@dataclass(frozen=True)
class Variant:
    """What the implementation is declared to be; properties it must break follow from it."""

    causal: bool = False
    window: int | None = None
    positions: str = "none"
    scale: float | None = None
    eps: float | None = None  # norms: the eps to test at (--eps, or the module's own; see norms.configure)
    layout: str | None = None  # conventions.LAYOUTS: bhld (default) or blhd; mha: bld (default) or lbd
    mask: str | None = None  # conventions.MASKS: how attn_mask encodes a masked key (default keep)
    gqa_grouping: str | None = None  # interleaved (default, repeat_interleave) or tiled (repeat)
    always_causal: bool = False  # detected: declared --causal and the callable takes no is_causal
    takes_no_mask: bool = False  # detected: an attention fn(q, k, v) with no mask parameter at all
    label_smoothing: float | None = None  # cross-entropy: PyTorch's ε (target (1 − ε)p + ε/C)
    temperature: float | None = None  # kl: distillation fn(student_logits, teacher_logits) = T²·KL at T
    timeout: float | None = None  # seconds a call into the target may take (None: contain.DEFAULT_TIMEOUT)
    index_targets_only: str = ""  # detected: cross-entropy raised on probability targets (the exception)
    quick: bool = False  # --quick: input-dtypes to L = QUICK_L, past-1024-keys not run (dtypes.QUICK_L)
    init: tuple = ()  # --init KEY=VALUE: (key, value) pairs bound by keyword to the target (parse_init)
    args: tuple = ()  # --args name=role,…: (parameter, role) pairs, what cannot be detected (parse_args)

    @property
    def masked(self) -> bool:
        return self.causal or self.window is not None

    def flags(self) -> list[str]:
        out = []
        if self.causal:
            out.append("--causal")
        if self.window is not None:
            out.append(f"--window {self.window}")
        if self.positions != "none":
            out.append(f"--positions {self.positions}")
        if self.scale is not None:
            out.append(f"--scale {self.scale!r}")
        if self.eps is not None:
            out.append(f"--eps {self.eps!r}")
        if self.label_smoothing is not None:
            out.append(f"--label-smoothing {self.label_smoothing!r}")
        if self.temperature is not None:
            out.append(f"--temperature {self.temperature!r}")
        if self.timeout is not None:
            out.append(f"--timeout {self.timeout:g}")
        if self.quick:
            out.append("--quick")
        out += [f"--init {key}={init_word(value)}" for key, value in self.init]
        if self.args:
            out.append("--args " + ",".join(f"{name}={role}" for name, role in self.args))
        for flag, value in (("--layout", self.layout), ("--mask", self.mask), ("--gqa-grouping", self.gqa_grouping)):
            if value is not None:
                out.append(f"{flag} {value}")
        return out


def check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise BadInput(f"unknown kind {kind!r}: choose one of {', '.join(KINDS)}")


def check_variant(kind: str, variant: Variant) -> None:
    if variant.window is not None and variant.window < 1:
        raise BadInput(f"--window {variant.window}: a window keeps at least the token itself, give W ≥ 1")
    if variant.positions not in POSITIONS:
        raise BadInput(f"--positions {variant.positions!r}: choose one of {', '.join(POSITIONS)}")
    if variant.scale is not None and not (variant.scale > 0 and variant.scale < float("inf")):
        raise BadInput(f"--scale {variant.scale!r}: the score scale must be a positive finite number")
    if variant.eps is not None:
        if kind not in ("layernorm", "rmsnorm"):
            raise BadInput(f"--eps: kind {kind!r} has no eps; it is for layernorm and rmsnorm")
        if not (0 <= variant.eps < float("inf")):
            raise BadInput(f"--eps {variant.eps!r}: give a finite eps ≥ 0, e.g. --eps 1e-5")
    if variant.timeout is not None and not (0 < variant.timeout < float("inf")):
        raise BadInput(f"--timeout {variant.timeout!r}: give the seconds a call may take, > 0, e.g. --timeout 10")
    from mathcheck.conform.conventions import GROUPINGS, LAYOUTS, MASKS

    if variant.label_smoothing is not None and (kind != "cross-entropy" or not 0 <= variant.label_smoothing <= 1):
        raise BadInput(
            f"--label-smoothing {variant.label_smoothing!r}: "
            + (
                "give ε in [0, 1], e.g. --label-smoothing 0.1"
                if kind == "cross-entropy"
                else f"it is for kind cross-entropy, not {kind!r}"
            )
        )
    if variant.temperature is not None and (kind != "kl" or not 0 < variant.temperature < float("inf")):
        raise BadInput(
            f"--temperature {variant.temperature!r}: "
            + (
                "give T > 0, e.g. --temperature 2"
                if kind == "kl"
                else f"it is for kind kl (distillation), not {kind!r}"
            )
        )

    if variant.layout is not None and variant.layout not in LAYOUTS.get(kind, ()):
        have = " or ".join(LAYOUTS[kind]) if kind in LAYOUTS else "none (it is for attention, gqa and mha)"
        raise BadInput(f"--layout {variant.layout!r}: kind {kind!r} takes {have}")
    if variant.mask is not None and (kind != "attention" or variant.mask not in MASKS):
        raise BadInput(
            f"--mask {variant.mask!r}: kind attention takes one of {', '.join(MASKS)}"
            + ("" if kind == "attention" else f"; kind {kind!r} takes no mask")
        )
    if variant.gqa_grouping is not None and (kind != "gqa" or variant.gqa_grouping not in GROUPINGS):
        raise BadInput(
            f"--gqa-grouping {variant.gqa_grouping!r}: kind gqa takes interleaved or tiled"
            + ("" if kind == "gqa" else f"; kind {kind!r} has no K/V groups")
        )
    attention_like = kind in ("attention", "mha", "gqa")
    if not attention_like and (variant.masked or variant.positions != "none" or variant.scale is not None):
        raise BadInput(f"--causal/--window/--positions/--scale describe attention; kind {kind!r} takes none of them")
    if kind == "mha" and variant.scale is not None:
        raise BadInput("--scale: an mha module's scale is not observable from outside; use --kind attention")


def parse_init(text: str) -> tuple:
    """``"p=-1.0"`` -> ``("p", -1.0)``: one ``--init KEY=VALUE``, a keyword argument conform binds
    to the target (``functools.partial``) for what it cannot detect — gpt-neox's ``RMSNorm(dim,
    p=-1.0, eps=1e-8)``, a loss's ``reduction=mean``. Read by a whitelist, never evaluated: an
    integer, a finite decimal number, ``true``/``false``, ``none``, else the text as a string.

    >>> parse_init("p=-1.0"), parse_init("bias=false"), parse_init("reduction=mean")
    (('p', -1.0), ('bias', False), ('reduction', 'mean'))
    """
    import math
    import re

    key, eq, raw = text.partition("=")
    key = key.strip()
    if not eq or not key.isidentifier() or not raw.strip():
        raise BadInput(f"--init {text!r}: write KEY=VALUE with KEY a parameter name, e.g. --init eps=1e-6")
    raw = raw.strip()
    words = {"true": True, "false": False, "none": None}
    if raw.lower() in words:
        return key, words[raw.lower()]
    if re.fullmatch(r"[+-]?\d+", raw):
        return key, int(raw)
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", raw) and math.isfinite(float(raw)):
        return key, float(raw)
    return key, raw


def parse_args(text: str) -> tuple:
    """``"tensor=x,sin=sin,cos=cos"`` -> ``(("tensor", "x"), ("sin", "sin"), ("cos", "cos"))``: the
    role each named parameter of the target plays (``--args``), for a call convention conform cannot
    detect. Read by a whitelist: identifiers only; the roles are checked against the kind and the
    target's signature later (``conventions.check_args``).

    >>> parse_args("tensor=x, sin=sin,cos=cos")
    (('tensor', 'x'), ('sin', 'sin'), ('cos', 'cos'))
    """
    out = []
    for item in text.split(","):
        name, eq, role = (part.strip() for part in item.partition("="))
        if not eq or not name.isidentifier() or not role.isidentifier():
            raise BadInput(
                f"--args {text!r}: write NAME=ROLE pairs separated by commas, NAME a parameter of "
                f"the target, e.g. --args tensor=x,sin=sin,cos=cos"
            )
        if name in dict(out):
            raise BadInput(f"--args {text!r}: parameter {name!r} given twice; give each parameter one role")
        out.append((name, role))
    return tuple(out)


def init_word(value) -> str:
    """A ``--init`` value as :func:`parse_init` reads it back (``repr`` of a float round-trips)."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "none"}[value]
    return repr(value) if isinstance(value, float) else str(value)


def parse_sizes(text: str | None) -> dict:
    """``"B=1,L=2"`` -> ``{"B": 1, "L": 2}`` (the replay line's sizes)."""
    if not text:
        return {}
    out = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq or not name.strip().isidentifier() or not value.strip().isdigit() or int(value) < 1:
            raise BadInput(f"--sizes {text!r}: write NAME=N pairs with N ≥ 1, e.g. --sizes B=1,L=2")
        out[name.strip()] = int(value)
    return out
