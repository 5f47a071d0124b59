"""Resolution of conform per input dtype, and the reduced-precision planted bugs it must catch.

    python bench/conform_precision.py          # prints two tables (markdown), docs/performance.md

Table 1, per input dtype and L: the relative resolution of the input-dtypes property on a correct
attention (F.scaled_dot_product_attention): the tolerance of "as written against widened" divided by
max|y| — 4× the measured error of a correct build at that precision (dtypes.py).

Table 2, per planted bug (tests/conform_corpus/reduced.py, computing in bfloat16 or float16): its
error against the float64 formula on the same rounded inputs, the error of the correct build in the
same dtype, their ratio, and what conform reports (exit status, the failing properties).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "conform_corpus"))

import reduced  # noqa: E402

from mathcheck.conform import dtypes  # noqa: E402
from mathcheck.conform.run import conform  # noqa: E402
from mathcheck.conform.spec import Variant  # noqa: E402

CHECKED = ("output", "past-1024-keys", "input-dtypes")  # the properties table 2 runs (a full run adds the rest)
BUGS = [
    ("bf16_scale_d_plus_1", "bf16_attention", 1025),
    ("fp16_scale_d_plus_1", "fp16_attention", 1025),
    ("bf16_accumulate_low", "bf16_attention", 1025),
    ("bf16_past_128_keys", "bf16_attention", 1025),
    ("fp16_path_bug", "fp16_attention", 1025),
]


def resolution_rows(sizes=(17, 129, 1025)):
    rows = []
    for d in dtypes.DTYPES:
        for L in sizes:
            gen = torch.Generator().manual_seed(L)
            o, res = dtypes._one(
                "attention", F.scaled_dot_product_attention, Variant(causal=True), gen, L, d, False, None
            )
            rows.append((dtypes._name(d), L, res, o.max_abs_err, o.ok))
    return rows


def _error(fn, L, dtype):
    """max |fn(x_d) − the float64 formula on the same rounded inputs| over one causal (1, 1, L, 16) draw."""
    gen = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(1, 1, L, 16, generator=gen, dtype=torch.float64).to(dtype) for _ in range(3))
    ref = F.scaled_dot_product_attention(*(t.double() for t in (q, k, v)), is_causal=True)
    return float((fn(q, k, v, is_causal=True).double() - ref).abs().max())


def bug_rows():
    rows = []
    for bug, good, L in BUGS:
        dtype = torch.float16 if bug.startswith("fp16") else torch.bfloat16
        e_bug, e_good = _error(getattr(reduced, bug), L, dtype), _error(getattr(reduced, good), L, dtype)
        t = time.perf_counter()
        r = conform(getattr(reduced, bug), "attention", Variant(causal=True), only=CHECKED)
        rows.append(
            (
                bug,
                str(dtype).replace("torch.", ""),
                L,
                e_bug,
                e_good,
                e_bug / e_good,
                r.exit_code,
                ", ".join(r.failed),
                time.perf_counter() - t,
            )
        )
    return rows


if __name__ == "__main__":
    print("| input dtype | L | resolution (tol / max abs y) | max abs (as written − widened) | holds |")
    print("|---|---|---|---|---|")
    for name, L, res, err, ok in resolution_rows():
        print(f"| {name} | {L} | {res:.2g} | {err:.2g} | {ok} |")
    print()
    print(
        "| planted bug | computes in | L | its error | correct build's error | ratio | conform exit | failing "
        "properties | conform s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for bug, d, L, eb, eg, ratio, code, failed, s in bug_rows():
        print(f"| {bug} | {d} | {L} | {eb:.3g} | {eg:.3g} | {ratio:.3g}× | {code} | {failed} | {s:.1f} |")
    print(f"\ntorch {torch.__version__}, {torch.get_num_threads()} threads")
