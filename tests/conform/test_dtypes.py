"""Issue 30 item 4: no bug hides under a tolerance. The derived properties run the target widened
to float64 at float64's tolerance; input-dtypes runs float64/float32/bfloat16/float16 inputs at
L up to 1025 (docs/conform.md, "No bug hides under a tolerance"). The reduced-precision targets
are our own rewrites in tests/conform_corpus/reduced.py. The fast run is --quick (L up to 129,
tests/conftest.py); the tests whose bug or limit lies past 129 keys take ``conform_full``."""

import math
import sys

import pytest
import torch
import torch.nn.functional as F

from mathcheck.conform.run import conform
from mathcheck.conform.spec import Variant
from mathcheck.numeric.tolerance import measured_tolerance
from tests.paths import TESTS

sys.path.insert(0, str(TESTS / "conform_corpus"))
import reduced

CAUSAL = Variant(causal=True)


def _one(fn, prop, variant=CAUSAL, kind="attention"):
    return conform(fn, kind, variant, only=(prop,)).results[0]


@pytest.mark.parametrize("name", ["bf16_attention", "fp16_attention"])
def test_a_correct_half_precision_attention_holds_at_float64_tolerance_widened(name):
    r = conform(getattr(reduced, name), "attention", CAUSAL, only=("output", "input-dtypes"))
    out, dt = r.results
    assert (out.status, dt.status) == ("holds", "holds"), (out.note, dt.note)
    assert out.tolerance < 1e-10  # float64's: the bfloat16/float16 casts were widened away
    assert "bfloat16 resolution" in dt.note and "float16 resolution" in dt.note
    assert r.precision in ("bfloat16", "float16")  # what it computes in is still measured and said


@pytest.mark.parametrize("name", ["bf16_scale_d_plus_1", "fp16_scale_d_plus_1"])
def test_one_over_sqrt_d_plus_1_in_half_precision_fails(name):
    # the bug is about 1/(2·D_head) relative in the scores: under bfloat16's rounding, once held
    res = _one(getattr(reduced, name), "output")
    assert res.status == "fails"
    assert res.max_abs_err > 1e6 * res.tolerance


def test_a_bug_only_on_the_float16_path_fails_input_dtypes(conform_full):  # the full ladder: L up to 1025
    res = _one(reduced.fp16_path_bug, "input-dtypes")
    assert res.status == "fails" and res.note.startswith("input float16")
    assert res.max_abs_err > 4 * res.tolerance


def test_a_softmax_denominator_summed_in_bfloat16_fails_against_an_independent_build(conform_full):
    """Issue 30 item 4: its own replay (each op rounded once) rounds the running sum the same way, so
    it once held at 8.65× a correct bf16 build's error; the tolerance now comes from the textbook
    composition built independently at the same dtype (dtypes.REFERENCES)."""
    res = _one(reduced.bf16_accumulate_low, "input-dtypes")
    assert res.status == "fails", res.note
    assert "an independent correct build's (bfloat16) error" in res.counterexample["compared"]
    assert res.max_abs_err > res.tolerance
    ok = _one(reduced.bf16_attention, "input-dtypes")  # the correct bf16 build: well inside the tolerance
    assert ok.status == "holds" and ok.max_abs_err < 0.5 * ok.tolerance


def test_a_bug_only_past_128_keys_fails_and_shrinks_past_128(conform_full):  # the full ladder: L up to 1025
    res = _one(reduced.bf16_past_128_keys, "past-1024-keys")
    assert res.status == "fails"
    assert 128 < res.counterexample["sizes"]["L"] <= 1025


def test_a_reused_output_buffer_is_copied_before_use():
    r = conform(reduced.reused_buffer, "attention", CAUSAL, only=("output", "input-dtypes", "backward"))
    assert [x.status for x in r.results] == ["holds"] * 3


def test_a_dtype_the_target_refuses_is_said_not_failed():
    def no_half(query, key, value, attn_mask=None, is_causal=False):
        if query.dtype in (torch.float16, torch.bfloat16):
            raise TypeError("half inputs are not supported")
        return F.scaled_dot_product_attention(query, key, value, attn_mask, is_causal=is_causal)

    res = _one(no_half, "input-dtypes", Variant())
    assert res.status == "holds"
    assert "bfloat16 not accepted (TypeError: half inputs are not supported)" in res.note


def test_a_length_limit_is_said_and_a_raise_only_in_half_precision_fails(conform_full):  # the full ladder: L up to 1025
    def short(query, key, value, attn_mask=None, is_causal=False):
        if key.shape[-2] > 256:
            raise RuntimeError("sequence too long for the kernel")
        return F.scaled_dot_product_attention(query, key, value, attn_mask, is_causal=is_causal)

    res = _one(short, "input-dtypes", Variant())
    assert res.status == "holds"
    assert "float64 inputs raised at L = 257 (RuntimeError: sequence too long for the kernel)" in res.note

    def half_short(query, key, value, attn_mask=None, is_causal=False):
        if key.shape[-2] > 256 and query.dtype == torch.float16:
            raise RuntimeError("no float16 kernel this long")
        return F.scaled_dot_product_attention(query, key, value, attn_mask, is_causal=is_causal)

    res = _one(half_short, "input-dtypes", Variant())
    assert res.status == "fails"
    assert res.note == "input float16, L = 257: the callable raised RuntimeError: no float16 kernel this long"


def test_nan_from_an_overflowing_half_softmax_fails(conform_full):  # the full ladder: L up to 1025
    def unshifted(x, dim):  # exp without the max: overflows float16 at real sizes
        e = x.exp()
        return e / e.sum(dim, keepdim=True)

    res = _one(unshifted, "input-dtypes", Variant(), kind="softmax")
    assert res.status == "fails" and "float16" in res.note


def test_the_measured_tolerance_is_four_times_a_correct_builds_error():
    assert measured_tolerance(0.1, 2.0, 2**-7) == 4 * 0.1  # above the floor: 4× the measured error
    # the floor: one rounding of the output and a float32-accumulated reduction of N terms
    assert measured_tolerance(0.0, 1.0, 2**-7, 16) == pytest.approx(4 * (2**-7 + 2**-23 * 4))
    assert math.isclose(measured_tolerance(0.0, 1.0, 2**-52), 4 * 2**-52 * (1 + 1))


def test_assert_conforms_fails_the_half_precision_bug():
    from mathcheck.testing import assert_conforms

    with pytest.raises(AssertionError, match="FAILS +output"):
        assert_conforms(reduced.bf16_scale_d_plus_1, kind="attention", causal=True)


def test_a_1024_position_table_is_a_length_limit_not_a_failure(conform_full):  # the full ladder: L up to 1025
    # GPT-2's legacy attention slices a registered causal buffer of n_positions = 1024 (our rewrite:
    # tests/conform_corpus/gpt2_legacy.py): it raises at 1025 keys and is correct below
    def table_of_1024(query, key, value, attn_mask=None, is_causal=False):
        if key.shape[-2] > 1024:
            raise RuntimeError("The size of tensor a (1024) must match the size of tensor b (1025)")
        return F.scaled_dot_product_attention(query, key, value, attn_mask, is_causal=is_causal)

    res = _one(table_of_1024, "past-1024-keys")
    assert res.status == "holds"
    assert res.note.startswith("raised at L = 1025 (RuntimeError: The size of tensor a (1024)")
    assert res.note.endswith("a length limit of 1024 keys, not checked past it; held at L = 1024")


def test_quick_runs_input_dtypes_to_129_keys_and_says_so_in_the_replay(monkeypatch):
    monkeypatch.setenv("MATHCHECK_CONFORM_QUICK", "1")  # what the fast test run sets: --quick
    r = conform(reduced.fp16_path_bug, "attention", CAUSAL, only=("past-1024-keys", "input-dtypes"))
    past, dt = r.results
    assert r.variant.quick and (past.status, past.expected) == ("not expected to hold", "not checked")
    # the float16-path bug shows at every size: --quick still catches it, and its replay carries --quick
    assert dt.status == "fails" and "--quick" in dt.counterexample["replay"].split()
    assert (
        conform(reduced.bf16_attention, "attention", CAUSAL, only=("input-dtypes",))
        .results[0]
        .note.startswith("L 17…129: ")
    )
