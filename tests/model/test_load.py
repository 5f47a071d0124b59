"""mathcheck model on a user's GPT as its author wrote it (issue 31, item 4, first half) and the KV
cache checked past the caps a model has (item 2, part).

The GPTs below are our own, written in the calling conventions of public GPTs (never their code):
nanoGPT's model.py and llm.c's train_gpt2.py (``forward(self, idx, targets=None)`` returning
``(logits, loss)``, the last position's logits only when no targets are given), gpt-fast's model.py
(``forward(self, idx, input_pos=None)`` returning a tensor). Planted bugs must fail."""

from dataclasses import dataclass

import pytest
import torch
import torch.nn.functional as F
from click.testing import CliRunner
from torch import nn

from mathcheck.cli import main
from mathcheck.conform.spec import BadInput
from mathcheck.model import properties as mp
from mathcheck.model.load import Loaded, detect_input, from_module, logits_of
from mathcheck.model.run import check_model

from tests.model.test_run import _load

HERE = "tests/model/test_load.py"


def _tiny_gpt():
    return _load("tiny_gpt")  # test_model's loader of examples/ (one copy)


def run(*args):
    return CliRunner().invoke(main, ["model", *args])


def _prop(report, name):
    return next(p for p in report.properties if p.name == name)


# --- GPTs in the public conventions (our own code) ------------------------------------------------


@dataclass
class GPTConfig:  # the style of nanoGPT's GPTConfig: block_size is the max positions
    block_size: int = 32
    vocab_size: int = 50
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16


class CausalAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_head = c.n_head
        self.c_attn, self.c_proj = nn.Linear(c.n_embd, 3 * c.n_embd), nn.Linear(c.n_embd, c.n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in self.c_attn(x).split(C, dim=2))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).reshape(B, T, C))


class NanoStyleGPT(nn.Module):
    """forward(idx, targets=None) -> (logits, loss); without targets only the last position's logits."""

    def __init__(self, c=GPTConfig()):
        super().__init__()
        self.config = c
        self.wte, self.wpe = nn.Embedding(c.vocab_size, c.n_embd), nn.Embedding(c.block_size, c.n_embd)
        self.h = nn.ModuleList(
            nn.ModuleDict({"ln_1": nn.LayerNorm(c.n_embd), "attn": CausalAttention(c)}) for _ in range(c.n_layer)
        )
        self.ln_f, self.lm_head = nn.LayerNorm(c.n_embd), nn.Linear(c.n_embd, c.vocab_size, bias=False)

    def forward(self, idx, targets=None):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = x + block["attn"](block["ln_1"](x))
        x = self.ln_f(x)
        if targets is None:  # the inference shortcut of nanoGPT and llm.c
            return self.lm_head(x[:, [-1], :]), None
        logits = self.lm_head(x)
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class FastStyleGPT(NanoStyleGPT):
    """forward(idx, input_pos=None) -> logits, the gpt-fast convention (input_pos: the positions)."""

    def forward(self, idx, input_pos=None):
        pos = torch.arange(idx.shape[1]) if input_pos is None else input_pos
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = x + block["attn"](block["ln_1"](x))
        return self.lm_head(self.ln_f(x))


class PositionalOnlyGPT(FastStyleGPT):
    def forward(self, tokens, /):
        return super().forward(tokens)


class KeywordOnlyGPT(FastStyleGPT):
    def forward(self, *, tokens=None):
        return super().forward(tokens)


class MaskFirstGPT(FastStyleGPT):
    """Its first parameter is not the token ids: only --input-name can say which is."""

    def forward(self, mask=None, tokens=None):
        if mask is not None and mask.dtype is not torch.bool:
            raise TypeError("mask must be a bool tensor")
        return super().forward(tokens)


class Leaky(FastStyleGPT):  # planted: the attention sees the next token (is_causal dropped at one layer)
    def __init__(self):
        super().__init__()
        self.h[1]["attn"].forward = lambda x, a=self.h[1]["attn"]: _bidirectional(a, x)


def _bidirectional(a, x):
    B, T, C = x.shape
    q, k, v = (t.view(B, T, a.n_head, C // a.n_head).transpose(1, 2) for t in a.c_attn(x).split(C, dim=2))
    return a.c_proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, T, C))


def nano():
    return NanoStyleGPT()


def fast():
    return FastStyleGPT()


def positional_only():
    return PositionalOnlyGPT()


def keyword_only():
    return KeywordOnlyGPT()


def mask_first():
    return MaskFirstGPT()


def leaky():
    return Leaky()


# --- item 4: the forward as written ------------------------------------------------------------------


def test_a_nanogpt_style_forward_holds_called_by_idx_with_targets_for_all_positions():
    out = run(f"{HERE}:nano")
    assert out.exit_code == 0, out.output
    config = out.output.splitlines()[1]
    assert (
        "input keyword idx: the forward's first parameter; targets=ids passed: without targets the forward "
        "returns the last position's logits only"
    ) in config


def test_a_gpt_fast_style_forward_holds_and_the_detection_is_printed():
    report = check_model(f"{HERE}:fast")
    assert report.status == "holds"
    assert report.config["input"] == (
        "keyword idx: the forward's first parameter; input_pos=0…L−1 passed: the forward takes the tokens' positions"
    )
    assert _prop(report, "causality").status == "holds"
    assert "cache" not in report.config  # no setup_caches: no static cache to drive


def test_a_positional_only_forward_is_called_positionally():
    report = check_model(f"{HERE}:positional_only")
    assert report.status == "holds"
    assert report.config["input"] == "positionally: the forward's first parameter tokens"


def test_a_keyword_only_forward_needs_input_name_and_the_replay_carries_it():
    out = run(f"{HERE}:keyword_only")
    assert out.exit_code == 2
    assert out.output == (
        f"error: SPEC '{HERE}:keyword_only': forward(*, tokens=None) takes no positional parameter "
        "for the token ids; give --input-name NAME, the keyword that takes them\n"
    )
    out = run(f"{HERE}:leaky", "--input-name", "idx", "--json")
    assert out.exit_code == 1
    assert f"mathcheck model {HERE}:leaky --seed 0 --input-name idx" in out.output
    out = run(f"{HERE}:keyword_only", "--input-name", "tokens")
    assert out.exit_code == 0, out.output
    assert "input keyword tokens (--input-name)" in out.output.splitlines()[1]


def chatty():
    print("number of parameters: 0.03M")  # nanoGPT's GPT.__init__ prints this
    return NanoStyleGPT()


def test_what_a_factory_prints_goes_to_stderr_and_leaves_the_json_report_whole():
    import json

    out = run(f"{HERE}:chatty", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["model"] == f"{HERE}:chatty"
    assert "number of parameters: 0.03M" in out.stderr


def test_a_forward_that_cannot_be_called_as_detected_says_the_call_the_signature_and_the_flag():
    out = run(f"{HERE}:mask_first")
    assert out.exit_code == 2 and out.output.count("\n") == 1
    assert out.output == (
        f"error: SPEC '{HERE}:mask_first': forward(mask=<ids (2, 6)>) (keyword mask: the "
        "forward's first parameter) raised TypeError: mask must be a bool tensor; the signature is "
        "forward(mask=None, tokens=None): if another parameter takes the token ids, give "
        "--input-name NAME\n"
    )
    assert run(f"{HERE}:mask_first", "--input-name", "tokens").exit_code == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--input-name", "1x"],
            "error: --input-name '1x': give the name of the forward's parameter for the token ids, "
            "e.g. --input-name idx\n",
        ),
        (
            ["--input-name", "ids"],
            f"error: --input-name ids: {HERE}:fast's forward(idx, input_pos=None) has no "
            "parameter 'ids'; give one of its parameters\n",
        ),
    ],
)
def test_a_bad_input_name_is_one_line_and_exit_2(args, message):
    out = run(f"{HERE}:fast", *args)
    assert (out.exit_code, out.output) == (2, message)


def test_a_planted_future_token_leak_fails_causality_at_the_module_that_has_it():
    report = check_model(f"{HERE}:leaky")
    prop = _prop(report, "causality")
    assert prop.status == "fails"
    assert prop.counterexample["module"] == "h.1.attn"


def test_logits_are_read_from_a_tensor_a_tuple_or_an_object():
    ids_shape, logits = (2, 5), torch.zeros(2, 5, 7)
    loss = torch.zeros(())
    assert logits_of(logits, ids_shape) is logits
    assert logits_of((loss, logits), ids_shape) is logits  # the first (B, L, V) element, not the first
    assert logits_of([logits, loss], ids_shape) is logits
    assert logits_of(type("Out", (), {"logits": logits})(), ids_shape) is logits


def test_detect_input_reads_the_signature():
    def named(idx, targets=None): ...
    def star(*tokens): ...
    def hf(input_ids=None, attention_mask=None): ...

    assert detect_input(named, None, "m") == ("idx", "keyword idx: the forward's first parameter")
    assert detect_input(star, None, "m") == (None, "positionally: the forward's first parameter *tokens")
    assert detect_input(hf, None, "m") == ("input_ids", "keyword input_ids")
    with pytest.raises(BadInput):
        detect_input(named, "x", "m")


# --- item 2: the KV cache checked past the caps ------------------------------------------------------


def _capped(gpt, cap):
    class Capped(gpt.CausalSelfAttention):
        """Planted: the cache keeps only the last ``cap`` keys and values (a rolling cache without a window)."""

        def extend(self, cache, k, v):
            k, v, _ = super().extend(cache, k, v)
            return k, v, (k[:, :, -cap:], v[:, :, -cap:])

    return Capped


def test_a_cache_capped_at_8_keys_fails_at_token_8():
    gpt = _tiny_gpt()
    report = check_model("capped", loaded=from_module(lambda: gpt.GPT(attention=_capped(gpt, 8)), "capped"))
    kv = _prop(report, "kv-cache")
    assert kv.status == "fails"
    assert kv.counterexample["t"] == 9 and kv.counterexample["module"] == "blocks.0.attn"


def test_the_example_gpt_holds_its_cache_to_16_tokens():
    gpt = _tiny_gpt()
    report = check_model("gpt", loaded=from_module(gpt.factory, "gpt"))
    kv = _prop(report, "kv-cache")
    assert kv.status == "holds"
    assert kv.note == "tokens 3..15 decoded one at a time after a prefix of 3"


def _loaded(caps=(), max_positions=None):
    return Loaded(None, "m", True, "declared", caps=caps, max_positions=max_positions)


@pytest.mark.parametrize(
    "caps, max_positions, length, expected",
    [
        ((), None, 6, 16),
        ((8,), 64, 6, 16),
        ((24,), 64, 6, 48),
        ((4096,), 64, 6, 16),
        ((40,), 64, 6, 64),
        ((), 12, 6, 12),
        ((), 64, 20, 20),
        ((4, 24), None, 6, 48),
    ],
)
def test_kv_length_is_twice_the_longest_cap_at_least_16_at_most_max_positions(caps, max_positions, length, expected):
    assert mp.kv_length(_loaded(caps, max_positions), length) == expected


def test_a_declared_window_makes_the_cache_check_go_twice_as_far():
    gpt = _tiny_gpt()

    def windowed():
        model = gpt.GPT()
        model.sliding_window = 12  # declared, not applied: the check reaches 24 and the model holds
        return model

    report = check_model("w", loaded=from_module(windowed, "w"))
    assert _prop(report, "kv-cache").note == "tokens 3..23 decoded one at a time after a prefix of 3"


def test_a_transformers_sliding_window_of_8_holds_its_cache_to_16_tokens_where_the_window_acts():
    from mathcheck.model.load import Sizes, load_hf

    loaded = load_hf("mistral", Sizes(), "sdpa", 0, None)
    ids = mp.draw_ids(1, loaded.vocab, 16)
    unwindowed = mp.logits(loaded, ids)
    loaded.model.config.sliding_window, loaded.caps, loaded.window = 8, (8,), 8
    assert mp.kv_length(loaded, 6) == 16
    assert (mp.logits(loaded, ids)[:, 8:] - unwindowed[:, 8:]).abs().max() > 1e-6  # the window acts past 8
    kv = _prop(check_model("hf:mistral", loaded=loaded), "kv-cache")
    assert (kv.status, kv.note) == ("holds", "tokens 3..15 decoded one at a time after a prefix of 3")


def test_the_cache_check_stops_at_a_learned_position_table_and_at_config_block_size():
    gpt = _tiny_gpt()
    loaded = from_module(lambda: gpt.GPT(max_len=12), "short")  # wpe: 12 positions
    assert loaded.max_positions == 12
    kv = _prop(check_model("short", loaded=loaded), "kv-cache")
    assert (kv.status, kv.note) == ("holds", "tokens 3..11 decoded one at a time after a prefix of 3")
    assert from_module(nano, "nano").max_positions == GPTConfig().block_size


@pytest.mark.slow  # ~15 s on a loaded 2-core machine: a recurrent model's cache decoded over 16 tokens, twice
def test_a_cache_kept_inside_the_model_is_held_as_generate_passes_it_and_a_lost_state_fails():
    pytest.importorskip("transformers")
    from mathcheck.model.load import Sizes, load_hf

    loaded = load_hf("recurrent_gemma", Sizes(), "sdpa", 0, None)  # its output has no cache field
    ids = mp.draw_ids(0, loaded.vocab, 6)
    kv = mp.kv_cache(loaded, ids, mp.logits(loaded, ids), 0.0, "replay")
    assert kv.status == "holds" and "a DynamicCache made before the prefix and passed to every forward" in kv.note
    assert "tokens 3..15" in kv.note  # past its local attention window, cut to 8

    def forget(module, args):  # a planted bug: each decoding step starts from a zero recurrent state
        if args[0].shape[1] == 1:
            module.recurrent_states = torch.zeros_like(module.recurrent_states)

    for m in loaded.model.modules():
        if type(m).__name__ == "RecurrentGemmaRglru":
            m.register_forward_pre_hook(forget)
    assert mp.kv_cache(loaded, ids, mp.logits(loaded, ids), 0.0, "replay").status == "fails"
