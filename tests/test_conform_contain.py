"""conform contains the user's code: a time limit on every call, and no exit but a return or an
Exception (docs/conform.md, *User code is contained*)."""

import os
import subprocess
import sys
import textwrap
import time

import pytest
import torch
import torch.nn.functional as F
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.conform.contain import DEFAULT_TIMEOUT, TargetAborted, guarded
from mathcheck.conform.run import conform
from mathcheck.conform.spec import BadInput, Variant
from mathcheck.testing import ClaimFailed, assert_conforms


def exits(query, key, value, attn_mask=None, is_causal=False):
    sys.exit(0)


def interrupted(query, key, value, attn_mask=None, is_causal=False):
    raise KeyboardInterrupt


def sleeps_forever(query, key, value, attn_mask=None, is_causal=False):
    while True:
        time.sleep(0.05)


def exits_at_second_call():
    """Runs at first (the precision probe), then calls sys.exit(0): the run still ends as an error."""
    calls = []

    def attn(query, key, value, attn_mask=None, is_causal=False):
        calls.append(1)
        if len(calls) > 3:
            sys.exit(0)
        return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, is_causal=is_causal)
    return attn


def exiting_factory(D, eps):
    raise SystemExit("bye")


@pytest.mark.parametrize("fn, kind, said", [
    (exits, "attention", "raised SystemExit(0)"),
    (interrupted, "attention", "raised KeyboardInterrupt()"),
    (exits_at_second_call(), "attention", "raised SystemExit(0)"),
    (exiting_factory, "rmsnorm", "raised SystemExit('bye')"),
])
def test_an_exit_from_the_target_is_an_error_naming_it(fn, kind, said):
    with pytest.raises(TargetAborted) as info:
        conform(fn, kind, target="my_target")
    assert str(info.value).startswith("my_target: " + said), str(info.value)


def test_a_target_that_never_returns_ends_within_the_limit():
    start = time.monotonic()
    with pytest.raises(TargetAborted, match=r"sleeps_forever: did not return within 1 s \(--timeout 1\)"):
        conform(sleeps_forever, "attention", Variant(timeout=1.0))
    assert time.monotonic() - start < 1.0 + 5.0  # one call's limit, plus the setup before it


def test_the_limit_is_per_call_and_an_exception_passes_through():
    assert guarded(lambda: 3) == 3
    with pytest.raises(ZeroDivisionError):  # an Exception is the property's to report, not an abort
        guarded(lambda: 1 / 0)


def test_timeout_is_validated_and_carried_in_the_replay_line():
    with pytest.raises(BadInput, match="--timeout"):
        conform(F.softmax, "softmax", Variant(timeout=0.0))
    assert "--timeout 7" in Variant(timeout=7.0).flags()
    assert not any("timeout" in f for f in Variant().flags())  # the default is not printed

    def wrong_softmax(x, dim):
        return torch.softmax(x * 1.5, dim)
    report = conform(wrong_softmax, "softmax", Variant(timeout=7.0))
    replays = [r.counterexample["replay"] for r in report.results if r.counterexample]
    assert replays and all("--timeout 7" in line for line in replays)


def test_assert_conforms_reports_an_exit_as_an_error_not_a_pass():
    with pytest.raises(ClaimFailed, match=r"^error: .*raised SystemExit\(0\)"):
        assert_conforms(exits, kind="attention")
    with pytest.raises(ClaimFailed, match=r"^error: .*did not return within 1 s"):
        assert_conforms(sleeps_forever, kind="attention", timeout=1.0)


def test_cli_sys_exit_is_exit_4_with_one_line(tmp_path):
    target = tmp_path / "exits_at_import.py"
    target.write_text("import sys\nsys.exit(0)\ndef attn(q, k, v, attn_mask=None, is_causal=False):\n    return q\n")
    r = CliRunner().invoke(main, ["conform", f"{target}:attn", "--kind", "attention"])
    assert r.exit_code == 4, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "raised SystemExit(0)" in lines[0] and "exits_at_import.py:attn" in lines[0]


def test_cli_target_that_swallows_the_alarm_is_stopped_by_the_watchdog(tmp_path):
    """A loop that catches BaseException outlives SIGALRM; the command's watchdog ends the process."""
    target = tmp_path / "spin.py"
    target.write_text(textwrap.dedent("""
        def attn(q, k, v, attn_mask=None, is_causal=False):
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass
    """))
    env = dict(os.environ)
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "mathcheck", "conform", f"{target}:attn", "--kind", "attention",
                        "--timeout", "2"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 4, (r.stdout, r.stderr)
    assert r.stderr.strip().splitlines() == [f"error: {target}:attn: did not return within 2 s (--timeout 2); stopped"]
    assert time.monotonic() - start < 120
    assert DEFAULT_TIMEOUT == 60.0  # the documented default


# --- NaN or inf never holds; outputs are copied ------------------------------------------------------

class NaNMHA(torch.nn.Module):
    """An mha module whose output is all NaN: it once held four of six properties ("max |err| inf,
    tolerance nan": the tolerance scaled with its own NaN output)."""

    def __init__(self, D, H, value=float("nan")):
        super().__init__()
        self.lin = torch.nn.Linear(D, D)
        self.value = value

    def forward(self, x):
        return self.lin(x) * self.value


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_module_whose_output_is_not_finite_fails_every_checked_property(value):
    report = conform(lambda D, H: NaNMHA(D, H, value), "mha")
    checked = [r for r in report.results if r.expected == "holds"]
    assert checked and all(r.status == "fails" for r in checked), [(r.name, r.status) for r in checked]
    assert all(r.tolerance is not None and r.tolerance == r.tolerance for r in report.results if r.tolerance is not None)
    assert report.exit_code == 1


def test_compare_never_passes_under_a_tolerance_that_is_not_finite():
    from mathcheck.conform.property import compare

    nan = torch.full((3,), float("nan"))
    assert not compare(nan, nan, float("nan"), "x").ok
    inf = torch.full((3,), float("inf"))
    assert not compare(inf, inf, float("inf"), "x").ok  # equal infinities, but scaled by them
    assert compare(inf, inf, 1e-12, "x").ok              # an infinite formula value, met exactly
    assert not compare(torch.ones(3), inf, 1e-12, "x", rtol=1e-3).ok  # rtol·|inf| allows nothing finite


class BufferedAttention:
    """Returns one output buffer per shape, overwritten by each call (an allocation-free serving
    kernel does this; written here after the pattern, not copied). A comparison of two outputs
    without a copy compares the buffer with itself."""

    def __init__(self):
        self.buf = {}

    def __call__(self, query, key, value, attn_mask=None, is_causal=False):
        out = F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, is_causal=is_causal)
        if out.requires_grad:  # the inference path only: training keeps its graph
            return out
        slot = self.buf.setdefault((out.shape, out.dtype), torch.empty_like(out))
        return slot.copy_(out)


def test_an_output_buffer_reused_between_calls_is_copied_before_use():
    report = conform(BufferedAttention(), "attention", target="buffered")
    assert report.status == "holds", [(r.name, r.status, r.note) for r in report.results]
