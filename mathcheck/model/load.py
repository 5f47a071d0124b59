"""The model named by SPEC: ``hf:<model_type>`` (a tiny random-weight transformers model, no
download) or ``FILE.py:factory`` / ``package.module:factory`` (the user's ``nn.Module``).

Everything the user types is checked before work; each failure is one ``BadInput`` line (exit 2).
transformers is imported here only, and only for an ``hf:`` SPEC.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mathcheck.conform.spec import BadInput

if TYPE_CHECKING:  # annotations only: torch is imported when a model is built
    import torch

ATTN_IMPLEMENTATIONS = ("sdpa", "eager")


@dataclass(frozen=True)
class Sizes:
    """The tiny model's sizes (``hf:`` only): hidden 64, 2 layers, 4 heads, 2 KV heads."""

    hidden: int = 64
    layers: int = 2
    heads: int = 4
    kv_heads: int | None = None  # None: 2 where the architecture has KV heads

    def flags(self) -> list[str]:
        out, default = [], Sizes()
        for name in ("hidden", "layers", "heads", "kv_heads"):
            if getattr(self, name) != getattr(default, name):
                out.append(f"--{name.replace('_', '-')} {getattr(self, name)}")
        return out


@dataclass
class Loaded:
    """A model in float64 and eval mode, with what the checks need to know about it."""

    model: object
    label: str
    causal: bool
    causal_source: str  # "config", "declared", "default for a factory"
    config: dict = field(default_factory=dict)
    cache_kw: str | None = None  # the forward's keyword for the KV cache ("cache" or "past_key_values")
    vocab: int = 0
    attn_implementation: str | None = None
    takes_position_ids: bool = False
    takes_attention_mask: bool = False
    window: int | None = None  # a sliding window from the config (masks only compared within it)
    max_positions: int | None = None  # the longest sequence the config allows
    input_name: str | None = "input_ids"  # the forward's keyword for the token ids; None: passed positionally
    input_found: str = "keyword input_ids"  # how the token ids are passed, and why (printed in the report)
    targets_name: str | None = None  # set when the forward gives all positions' logits only with targets (nanoGPT)
    caps: tuple = ()  # windows, chunks and cache caps the model declares (the KV check goes past them)
    dtype: object = None  # the parameters' dtype (float64 unless the model refuses it); None: float64
    notes: list = field(
        default_factory=list
    )  # choices made for the model (eager for SDPA, float32), said in the report
    takes_use_cache: bool = True  # False: the forward has no use_cache parameter (a --cache-arg model)
    positions_name: str | None = None  # the forward's parameter for the tokens' positions (gpt-fast's input_pos)
    static_cache: bool = False  # a static KV cache kept inside the modules, set up by model.setup_caches


def check_options(
    spec: str, sizes: Sizes, attn: str, length: int, input_name: str | None = None, cache_arg: str | None = None
) -> None:
    """Before any import: the SPEC's form and the options' ranges."""
    if input_name is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", input_name):
        raise BadInput(
            f"--input-name {input_name!r}: give the name of the forward's parameter for the token ids, "
            "e.g. --input-name idx"
        )
    if cache_arg is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", cache_arg):
        raise BadInput(
            f"--cache-arg {cache_arg!r}: give the name of the forward's parameter for the KV cache, "
            "e.g. --cache-arg kv_cache"
        )
    if cache_arg is not None and spec.startswith("hf:"):
        raise BadInput(f"--cache-arg {cache_arg}: an hf: model's cache is its past_key_values/cache; drop --cache-arg")
    if spec.startswith("hf:"):
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", spec[3:]):
            raise BadInput(f"SPEC {spec!r}: write hf:<model_type>, e.g. hf:llama, hf:gpt2, hf:bert")
    elif ":" not in spec:
        raise BadInput(f"SPEC {spec!r}: write hf:<model_type> or FILE.py:factory or package.module:factory")
    elif sizes != Sizes() or attn != "sdpa":
        raise BadInput(
            f"--hidden/--layers/--heads/--kv-heads/--attn-implementation size an hf: model; "
            f"{spec} builds its own: drop them"
        )
    for name in ("hidden", "layers", "heads"):
        if getattr(sizes, name) < 1:
            raise BadInput(f"--{name} {getattr(sizes, name)}: give a positive integer")
    if sizes.hidden % sizes.heads:
        raise BadInput(f"--hidden {sizes.hidden} --heads {sizes.heads}: the heads must divide the hidden size")
    if sizes.kv_heads is not None and (sizes.kv_heads < 1 or sizes.heads % sizes.kv_heads):
        raise BadInput(f"--kv-heads {sizes.kv_heads}: give a divisor of --heads {sizes.heads}")
    if attn not in ATTN_IMPLEMENTATIONS:
        raise BadInput(f"--attn-implementation {attn!r}: choose one of {', '.join(ATTN_IMPLEMENTATIONS)}")
    if length < 2:
        raise BadInput(f"--length {length}: causality and the KV cache need at least 2 tokens")


def _seeded(seed: int, build):
    """``build()`` under torch's RNG forked and seeded: reproducible weights, the caller's RNG untouched."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build()


def _build(cls, config, attn: str, dtype, seed: int):
    make = getattr(cls, "from_config", None) or cls._from_config  # an auto class, or the model class itself
    return _seeded(seed, lambda: make(config, attn_implementation=attn, dtype=dtype))


def language_model(auto, config) -> tuple[Any, Any, str | None]:
    """(class, config, note): the auto class and the config, or, where the auto class's model takes
    one of a composite config's sub-configs (musicgen's decoder, whose ids are (B·num_codebooks, L)),
    that model class and sub-config with one codebook (the ids' rows are then the batch; said)."""
    mapping = getattr(auto, "_model_mapping", None)
    try:
        model_cls = mapping[type(config)] if mapping is not None else None
    except KeyError:
        return auto, config, None
    takes = getattr(model_cls, "config_class", None)
    if model_cls is None or takes is None or isinstance(config, takes):
        return auto, config, None
    subs = [getattr(config, k, None) for k in getattr(type(config), "sub_configs", {})]
    sub = next((c for c in subs if isinstance(c, takes)), None)
    if sub is None:
        return auto, config, None
    note = f"{model_cls.__name__} takes the {type(sub).__name__}"
    if isinstance(getattr(sub, "num_codebooks", None), int) and sub.num_codebooks > 1:
        sub.num_codebooks = 1
        note += " with num_codebooks 1 (its ids are (B·num_codebooks, L): the rows are then the batch)"
    return model_cls, sub, note


def _runs(model, vocab: int) -> Exception | None:
    """None when the model's forward runs on (2, 6) token ids; else the exception it raised."""
    import torch

    try:
        with torch.no_grad():
            model(input_ids=torch.arange(12).reshape(2, 6) % vocab)
    except Exception as exc:  # noqa: BLE001 - the caller picks another attention implementation or dtype
        return exc
    return None


def _first_line(exc) -> str:
    """The exception's first line; where that only introduces its cause (a strict config's
    "Class validation error for validator …:") or is empty, the cause's first line after it."""
    line = next((x.strip() for x in str(exc).splitlines() if x.strip()), "")  # transformers' ImportError starts "\n"
    behind = exc.__cause__ or exc.__context__  # an empty message (an ImportError): the error behind it
    if (line.endswith(":") and exc.__cause__ is not None) or (not line and behind is not None):
        line += (" " if line else "") + _first_line(exc.__cause__ or behind)
    return f"{type(exc).__name__}: {line}"


def build_hf(
    cls, config, attn: str, seed: int, strict: bool = False
) -> tuple[torch.nn.Module, str, torch.dtype, list[str]]:
    """(model, attention implementation, dtype, notes): SDPA where the model has it, else eager
    (said); float64 where the model runs in it, else float32 (said: MoE kernels such as
    ``torch._grouped_mm`` reject float64). Raises the last float64 build's error (eager's) when nothing builds;
    ``strict``: also the float64 forward's error when the forward raises in both dtypes (the plain cut's
    forward rejecting its sizes: the loader then derives them)."""
    import torch

    notes, first_error, last_error = [], None, None
    for impl in dict.fromkeys((attn, "eager")):
        try:
            model = _build(cls, config, impl, torch.float64, seed).eval()
        except Exception as exc:  # noqa: BLE001 - no such attention implementation for this type: try the next
            first_error, last_error = first_error or exc, exc
            continue
        if impl != attn:
            notes.append(f"attention {impl}: {attn} refused ({_first_line(first_error)[:120]})")
        failed = _runs(model, config_vocab(config))
        if failed is None:
            return model, impl, torch.float64, notes
        model32 = _build(cls, config, impl, torch.float32, seed).eval()
        if _runs(model32, config_vocab(config)) is None:
            notes.append(
                f"float32: the forward refuses float64 ({_first_line(failed)[:120]}); tolerances from "
                "float32's error model"
            )
            return model32, impl, torch.float32, notes
        if strict:
            raise failed
        return model, impl, torch.float64, notes  # the forward's own error is reported where it is called
    raise last_error  # eager's: the SDPA refusal of a type that has none names nothing the config lacks


def _text_config(config):
    """The config's text config; of a composite with several (musicgen: text encoder and decoder), the decoder's."""
    if not hasattr(config, "get_text_config"):
        return config
    try:
        return config.get_text_config()
    except ValueError:  # "Multiple valid text configs were found"
        return config.get_text_config(decoder=True)


def _not_an_assistant(model_type: str, config) -> None:
    """A model whose every layer reuses KV states it is handed (gemma4_unified_assistant: the target
    model's ``shared_kv_states``) computes no attention of its own: refused, said."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    shared, n = attr(text, "num_kv_shared_layers"), attr(text, "num_hidden_layers")
    if isinstance(shared, int) and isinstance(n, int) and shared == n > 0:
        raise BadInput(
            f"SPEC 'hf:{model_type}': every layer reuses the KV states of a target model (num_kv_shared_layers = "
            f"num_hidden_layers = {n}): an assistant for speculative decoding computes no keys or values of its "
            "own, so it cannot be checked alone"
        )


def config_vocab(config) -> int:
    text = getattr(config, "get_text_config", lambda: config)()
    return getattr(text, "vocab_size", None) or getattr(config, "vocab_size", 128)


# Types whose forward decides what no config flag or module attribute declares, so that mathcheck
# cannot read it from the model: refused with the fact, never held to a convention they do not have
# (tests/model/test_tiny.py checks each fact against the installed transformers).
UNDECLARED = {
    "cpmant": (
        "its forward makes every input token context (CPMAnt is a prefix LM: each token sees every other, "
        "though its class is a causal LM) and builds its padding mask from token id 0, leaving attention_mask "
        "unused; neither is declared in its config or modules, so its causality and padding cannot be read"
    ),
}


def load_hf(model_type: str, sizes: Sizes, attn: str, seed: int, causal: bool | None) -> Loaded:
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    from mathcheck.model.tiny import KV_HEADS, aliases, complete, shrink

    transformers.logging.set_verbosity_error()  # tiny vocabularies make it warn about special token ids
    masked = model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES
    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and not masked:
        raise BadInput(
            f"SPEC 'hf:{model_type}': transformers {transformers.__version__} has no language model of "
            f"type {model_type!r}; give a model_type such as llama, mistral, qwen2, gpt2 or bert"
        )
    if model_type in UNDECLARED:
        raise BadInput(f"SPEC 'hf:{model_type}': {UNDECLARED[model_type]}; not checked")
    kw = {}
    try:
        try:
            full = AutoConfig.for_model(model_type)
        except Exception as exc:  # noqa: BLE001 - said as what the type lacks: a default config that validates
            raise BadInput(
                f"SPEC 'hf:{model_type}': transformers {transformers.__version__} rejects its own default config "
                f"for the type ({_first_line(exc)[:200]}): no config to cut"
            ) from None
        text = _text_config(full).to_dict()
        if sizes.kv_heads is not None and not any(k in text for k in KV_HEADS):
            raise BadInput(f"--kv-heads {sizes.kv_heads}: hf:{model_type} has no separate key/value heads")
        plain, names = None, aliases(full)
        for derive in (False, True):  # the plain cut; where rejected, the cut with the constraints derived
            try:
                kw = shrink(full.to_dict(), sizes.hidden, sizes.layers, sizes.heads, sizes.kv_heads, derive, names)
                made = complete(kw)
                config = type(full).from_dict(kw)
                # causal LM if the type has one and is a decoder; an encoder (BERT) is read as a masked LM
                # an encoder–decoder (bart, mbart) with a causal-LM class is checked as that decoder: its whole
                # forward feeds the ids to both halves, where no padding mask reaches the decoder's copy
                as_masked = (
                    masked
                    and not getattr(config, "is_decoder", False)
                    and not (
                        getattr(config, "is_encoder_decoder", False) and model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
                    )
                )
                auto = AutoModelForMaskedLM if as_masked else AutoModelForCausalLM
                # a composite whose language model takes a sub-config: only where the auto class's build failed
                # (a type that builds from the composite, llama4 or qwen3_5, is checked as it was)
                cls, config, took = language_model(auto, config) if derive else (auto, config, None)
                _not_an_assistant(model_type, config)
                model, impl, dtype, notes = build_hf(cls, config, attn, seed, strict=not derive)
                break
            except Exception as exc:  # the plain cut rejected: derive; the derived cut's error is said below
                if derive:
                    raise
                plain = exc
        notes = ([took] if took else []) + made + notes
        if derive:
            notes.insert(
                0,
                f"tiny config: the plain cut was rejected ({_first_line(plain)[:200]}); built with the sizes derived from the config's constraints",
            )
    except BadInput:
        raise
    except Exception as exc:  # noqa: BLE001 - transformers rejected the sizes: say which, in its words
        lacks = _unset_layer_kind(exc, kw)
        if lacks:
            raise BadInput(f"SPEC 'hf:{model_type}': {lacks}; not checked") from None
        sized = {k: v for k, v in kw.items() if isinstance(v, int) and not isinstance(v, bool)}
        raise BadInput(
            f"SPEC 'hf:{model_type}': transformers rejects the tiny config ({_first_line(exc)[:200]}); "
            f"sizes tried: {str(sized)[:200]}"
        ) from None
    sig = inspect.signature(model.forward).parameters
    is_causal, source = built_causal(model, config, as_masked)
    vocab = config_vocab(config)
    summary = {
        k: attr(config.get_text_config() if hasattr(config, "get_text_config") else config, k)
        for k in ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim")
    }
    return Loaded(
        model,
        f"hf:{model_type}",
        causal if causal is not None else is_causal,
        "declared" if causal is not None else source,
        config={
            **{k: v for k, v in summary.items() if v is not None},
            "vocab_size": vocab,
            "class": type(model).__name__,
            "attn_implementation": impl,
        },
        cache_kw=_cache_kw(sig) if not as_masked else None,
        vocab=vocab,
        attn_implementation=impl,
        takes_position_ids="position_ids" in sig,
        takes_attention_mask="attention_mask" in sig,
        window=_window(config),
        max_positions=_max_positions(config),
        caps=declared_caps(config),
        dtype=dtype,
        notes=notes,
    )


def _unset_layer_kind(exc, d: dict) -> str | None:
    """What the default config lacks when the model looks up a per-kind setting for a kind of layer
    the config names in ``layer_types`` and the setting has no entry for (cohere_compass_text:
    ``rope_parameters`` keyed by layer kind, empty by default, so RoPE or NoPE is not said), or indexes
    ``layer_types`` that the default leaves None (lfm2_moe); None else."""
    if (
        isinstance(exc, TypeError)
        and "'NoneType' object is not subscriptable" in str(exc)
        and d.get("layer_types", 0) is None
    ):
        return (
            "its default config leaves layer_types None, and the model reads a kind for every layer (None is not "
            "subscriptable); the kinds come only from a checkpoint, and are not guessed"
        )
    if not isinstance(exc, KeyError) or not exc.args:
        return None
    kind = exc.args[0]
    for sub in [d, *(v for v in d.values() if isinstance(v, dict))]:
        if kind not in (sub.get("layer_types") or ()):
            continue
        for k, v in sub.items():
            if k.endswith(("parameters", "params")) and isinstance(v, dict) and kind not in v:
                return (
                    f"its default config gives its {kind!r} layers no entry in {k} ({v or 'empty'}), which the model "
                    f"reads per kind of layer; whether they use RoPE or none comes from a checkpoint, and is not guessed"
                )
    return None


def built_causal(model, config, as_masked: bool) -> tuple[bool, str]:
    """(causal, why) as the model was built: a masked LM (an encoder–decoder's whole forward
    included) is bidirectional, as is a config whose ``attn_type`` is "bi" (XLNet's default: its
    causal-LM class attends both ways without a ``perm_mask``); a causal-LM class whose attention modules all declare
    ``is_causal`` False (bert-generation with ``is_decoder`` False) was built bidirectional."""
    if as_masked:
        return False, "config"
    if attr(config, "attn_type") == "bi":  # XLNet: "bi" attends both ways unless a perm_mask is given ("uni" is causal)
        return False, "config: attn_type bi (bidirectional attention; a causal order only from a perm_mask)"
    flags = [m.is_causal for m in model.modules() if isinstance(getattr(m, "is_causal", None), bool)]
    said = [declared_causal(m) for m in model.modules()]
    if flags and not any(flags) and False in said and not getattr(config, "is_encoder_decoder", False):
        return False, "built: every attention module has is_causal False, as an encoder's (is_decoder False)"
    return True, "config"


def declared_causal(module) -> bool | None:
    """What an attention module declares of its own mask: True where ``is_causal`` is True; False
    where ``is_causal`` is False and it says it is an encoder's (``is_decoder`` False: bert-generation
    built with ``is_decoder`` False); else None. ``is_causal`` False alone says nothing — eager code
    takes its causality from the mask the model builds (GIT's text attention, BigBird-Pegasus's
    decoder self-attention keep the default False), and the model's causality is then the one held."""
    flag = getattr(module, "is_causal", None)
    if not isinstance(flag, bool):
        return None
    if flag:
        return True
    return False if getattr(module, "is_decoder", None) is False else None


def _window(config) -> int | None:
    """The sliding window a model uses: None where the config sets none, a window ≤ 0, or one it
    turns off (qwen2_moe: sliding_window 0 with use_sliding_window False)."""
    window = attr(config, "sliding_window")
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        return None
    return None if attr(config, "use_sliding_window") is False else window


def _max_positions(config) -> int | None:
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    found = _ints([text], MAX_POSITION_NAMES)
    return min(found) if found else None


# a window, chunk or cap on the keys a query sees or a cache keeps, under the names models use for it
CAP_NAMES = (
    "sliding_window",
    "attention_window",
    "attention_chunk_size",
    "local_window_size",
    "window_size",
    "max_cache_len",
    "cache_size",
)
# the longest sequence a model takes (nanoGPT, llm.c, gpt-fast: block_size; transformers: the others)
MAX_POSITION_NAMES = ("max_position_embeddings", "n_positions", "n_ctx", "block_size", "max_seq_len")


def attr(owner, name) -> Any:
    """``getattr(owner, name, None)``, also None where reading it raises (a per-layer attribute of a
    transformers config read globally raises AmbiguousGlobalPerLayerAttributeError)."""
    try:
        return getattr(owner, name, None)
    except Exception:  # noqa: BLE001 - an attribute that cannot be read is one the model does not declare
        return None


def _ints(owners, names) -> list[int]:
    found = []
    for owner in owners:
        for name in names:
            value = attr(owner, name)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                found.append(value)
            elif isinstance(value, (list, tuple)):  # per-layer windows
                found += [v for v in value if isinstance(v, int) and not isinstance(v, bool) and v > 0]
    return found


def declared_caps(*owners) -> tuple:
    """The windows/caps declared as attributes of ``owners`` (a config, the model and its modules), sorted."""
    return tuple(sorted(set(_ints(owners, CAP_NAMES))))


def _factory_limits(model):
    """(max positions, caps) a user's model declares: on ``model.config``, the model or any sub-module."""
    import torch

    owners = [model, getattr(model, "config", None)] + [m for m in model.modules() if m is not model]
    owners = [o for o in owners if o is not None]
    positions = _ints(owners[:2], MAX_POSITION_NAMES)
    # a learned position table bounds the length too (nanoGPT's wpe, llm.c's wpe)
    positions += [
        m.num_embeddings
        for name, m in model.named_modules()
        if isinstance(m, torch.nn.Embedding) and ("pos" in name.split(".")[-1] or name.endswith("wpe"))
    ]
    return (min(positions) if positions else None), declared_caps(*owners)


def detect_input(forward, given: str | None, label: str) -> tuple[str | None, str]:
    """How the token ids go into ``forward``: (keyword or None for positional, what was found).

    ``forward(self, idx, targets=None)`` (nanoGPT, llm.c) -> ("idx", "keyword idx: the forward's first
    parameter"); ``forward(*args)`` -> (None, "positionally: …"); ``given`` (--input-name) must be a
    parameter of the forward (or the forward takes **kwargs)."""
    params = list(inspect.signature(forward).parameters.values())
    shown = f"forward{inspect.signature(forward)}"
    if given is not None:
        if given in {p.name for p in params} or any(p.kind is p.VAR_KEYWORD for p in params):
            return given, f"keyword {given} (--input-name)"
        raise BadInput(
            f"--input-name {given}: {label}'s {shown} has no parameter {given!r}; give one of its parameters"
        )
    if "input_ids" in {p.name for p in params}:
        return "input_ids", "keyword input_ids"
    first = params[0] if params else None
    if first is None or first.kind is first.VAR_KEYWORD or first.kind is first.KEYWORD_ONLY:
        raise BadInput(
            f"SPEC {label!r}: {shown} takes no positional parameter for the token ids; "
            "give --input-name NAME, the keyword that takes them"
        )
    if first.kind is first.POSITIONAL_OR_KEYWORD:
        return first.name, f"keyword {first.name}: the forward's first parameter"
    star = "" if first.kind is first.POSITIONAL_ONLY else "*"
    return None, f"positionally: the forward's first parameter {star}{first.name}"


def _cache_kw(params) -> str | None:
    if "use_cache" not in params:
        return None
    return next((k for k in ("cache", "past_key_values") if k in params), None)


def load_factory(
    spec: str, seed: int, causal: bool | None, input_name: str | None = None, cache_arg: str | None = None
) -> Loaded:
    from mathcheck.conform.target import load

    return from_module(load(spec), spec, seed, causal, input_name, cache_arg)


def cache_parameter(forward, given: str | None, label: str) -> tuple[str | None, bool]:
    """(the forward's keyword for the KV cache, whether it takes ``use_cache``): detected as
    ``use_cache`` with ``cache``/``past_key_values``; ``given`` (--cache-arg) must be a parameter of
    the forward (or it takes **kwargs); the cache is then passed back under that name and read from
    the output's attribute of that name or a tuple's second element.

    >>> def fwd(idx, kv=None): ...
    >>> cache_parameter(fwd, "kv", "m")
    ('kv', False)
    """
    params = inspect.signature(forward).parameters
    takes = "use_cache" in params
    if given is None:
        return _cache_kw(params), takes
    if given in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return given, takes
    raise BadInput(
        f"--cache-arg {given}: {label}'s forward{inspect.signature(forward)} has no parameter {given!r}; "
        "give the parameter that takes the KV cache"
    )


def from_module(
    model_or_factory,
    label: str,
    seed: int = 0,
    causal: bool | None = None,
    input_name: str | None = None,
    cache_arg: str | None = None,
) -> Loaded:
    """An ``nn.Module``, or a factory called with no arguments under a seeded RNG, in float64 and eval mode."""
    import torch

    from mathcheck.conform.contain import guarded

    model = model_or_factory
    if not isinstance(model, torch.nn.Module):
        try:  # the user's code: a time limit, and sys.exit() inside it is an error, never a success
            # what it prints goes to stderr: stdout is the report's (nanoGPT prints its parameter count)
            with contextlib.redirect_stdout(sys.stderr):
                model = _seeded(seed, lambda: guarded(model_or_factory))
        except Exception as exc:  # noqa: BLE001
            raise BadInput(f"SPEC {label!r}: calling the factory raised {type(exc).__name__}: {exc}") from None
    if not isinstance(model, torch.nn.Module):
        raise BadInput(f"SPEC {label!r}: the factory returned a {type(model).__name__}, not an nn.Module")
    model = model.to(torch.float64).eval()
    sig = inspect.signature(model.forward).parameters
    vocab = next((m.num_embeddings for m in model.modules() if isinstance(m, torch.nn.Embedding)), None)
    if vocab is None:
        raise BadInput(f"SPEC {label!r}: the model has no nn.Embedding to read its vocabulary size from")
    name, found = detect_input(model.forward, input_name, label)
    cache_kw, takes_use_cache = cache_parameter(model.forward, cache_arg, label)
    max_positions, caps = _factory_limits(model)
    positions = POSITIONS_NAME if POSITIONS_NAME in sig and name != POSITIONS_NAME else None
    if positions:
        found += f"; {positions}=0…L−1 passed: the forward takes the tokens' positions"
    static, notes = False, []
    if positions is not None and cache_kw is None and callable(getattr(model, "setup_caches", None)):
        static = sizes_setup(model.setup_caches)
        if not static:
            notes.append(
                f"setup_caches{_shown(model.setup_caches)} does not take (max_batch_size, max_seq_length) first: "
                "its cache is not set up, and kv-cache not checked"
            )
    return Loaded(
        model,
        label,
        True if causal is None else causal,
        "declared" if causal is not None else "default for a factory",
        config={"class": type(model).__name__, "input": found},
        cache_kw=cache_kw,
        vocab=vocab,
        takes_use_cache=takes_use_cache,
        takes_position_ids="position_ids" in sig,
        takes_attention_mask="attention_mask" in sig,
        input_name=name,
        input_found=found,
        max_positions=max_positions,
        caps=caps,
        positions_name=positions,
        static_cache=static,
        notes=notes,
    )


def _shown(fn) -> str:
    try:
        return str(inspect.signature(fn))
    except (TypeError, ValueError):
        return "(?)"


def sizes_setup(setup) -> bool:
    """Whether ``setup`` takes gpt-fast's (max_batch_size, max_seq_length) as its first two positional
    parameters (named for a batch and a sequence length); torchtune's ``setup_caches(batch_size,
    dtype, …)`` does not.

    >>> sizes_setup(lambda max_batch_size, max_seq_length: None), sizes_setup(lambda batch_size, dtype: None)
    (True, False)
    """
    try:
        params = [
            p.name
            for p in inspect.signature(setup).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return False
    return len(params) >= 2 and "batch" in params[0] and any(w in params[1] for w in ("seq", "len"))


# gpt-fast's (and torchtune's) name for the positions of the tokens a forward is given
POSITIONS_NAME = "input_pos"


def setup_static_cache(loaded: Loaded, batch: int, slots: int, label: str) -> str:
    """gpt-fast's static cache: ``model.setup_caches(max_batch_size, max_seq_length)`` called with
    ``batch`` and ``slots`` (twice the longest sequence checked, at most the model's max positions),
    after the model is in its dtype (gpt-fast makes the cache and its RoPE table in the output
    layer's dtype). Returns the call made, for the report; a call that raises is bad input.

    The cache lives in the modules: a forward writes its tokens' keys and values at ``input_pos``
    and attends to every slot, the slots past the current token masked. Decoding then passes one
    token at a time with its position (:func:`mathcheck.model.properties.kv_cache`)."""
    import torch

    setup = loaded.model.setup_caches
    made = f"setup_caches({batch}, {slots})"
    before = torch.get_default_dtype()
    torch.set_default_dtype(loaded.dtype or torch.float64)
    try:
        setup(batch, slots)
    except Exception as exc:  # noqa: BLE001 - the user's code: one line
        msg = str(exc).splitlines()[0] if str(exc) else ""
        raise BadInput(f"SPEC {label!r}: {made} raised {type(exc).__name__}: {msg}") from None
    finally:
        torch.set_default_dtype(before)
    return made


def load_model(
    spec: str,
    sizes: Sizes = Sizes(),
    attn: str = "sdpa",
    seed: int = 0,
    causal: bool | None = None,
    input_name: str | None = None,
    cache_arg: str | None = None,
) -> Loaded:
    if spec.startswith("hf:"):
        if input_name is not None:
            raise BadInput(f"--input-name {input_name}: an hf: model takes input_ids; drop --input-name")
        return load_hf(spec[3:], sizes, attn, seed, causal)
    return load_factory(spec, seed, causal, input_name, cache_arg)


def logits_of(out, ids_shape=None) -> Any:
    """The forward's logits: the tensor itself, ``out.logits``, or of a tuple/list the first element
    that is a (B, L, V) tensor for ids of shape ``ids_shape`` = (B, L) (nanoGPT returns (logits, loss));
    the first element when none is."""
    import torch

    if hasattr(out, "logits"):
        return out.logits
    if isinstance(out, (tuple, list)):
        for item in out:
            if (
                isinstance(item, torch.Tensor)
                and item.dim() == 3
                and (ids_shape is None or tuple(item.shape[:2]) == tuple(ids_shape))
            ):
                return item
        return out[0] if out else out
    return out


def generate_cache(model) -> Any:
    """The cache transformers' generate makes for an hf: model before its first forward
    (``DynamicCache(config=model.config)``); None for a model without a transformers config."""
    config = getattr(model, "config", None)
    if config is None or not hasattr(config, "to_dict"):
        return None
    try:
        from transformers import DynamicCache

        return DynamicCache(config=config)
    except Exception:  # noqa: BLE001 - no cache of that kind for this config: none made
        return None


def cache_of(out, kw: str) -> Any:
    """The cache a forward returned: ``out.cache`` / ``out.past_key_values``, or a tuple's second element."""
    for name in (kw, "cache", "past_key_values"):
        if hasattr(out, name) and getattr(out, name) is not None:
            return getattr(out, name)
    if isinstance(out, (tuple, list)) and len(out) > 1:
        return out[1]
    return None
