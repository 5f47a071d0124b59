"""Shapes and masks (§7): the `mathcheck shapes` command, and the PyTorch behaviours the claims pin."""

import json
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from click.testing import CliRunner

from mathcheck import registry
from mathcheck.cli import main
from mathcheck.derivations import shapes as dshapes
from mathcheck.verify import Options
from mathcheck.verify import shapes as vshapes

SEED_TABLE = """\
B=2 L=4 D=8 H=2 D_head=4
tensor                                  symbolic           shape           observed        ok
X                                       (B, L, D)          (2, 4, 8)       (2, 4, 8)       yes
Q = X W_Q^T (also K, V)                 (B, L, D)          (2, 4, 8)       (2, 4, 8)       yes
view (B, L, H, D_head)                  (B, L, H, D_head)  (2, 4, 2, 4)    (2, 4, 2, 4)    yes
heads: transpose(1, 2)                  (B, H, L, D_head)  (2, 2, 4, 4)    (2, 2, 4, 4)    yes
scores Q_h K_h^T / sqrt(D_head)         (B, H, L, L)       (2, 2, 4, 4)    (2, 2, 4, 4)    yes
weights softmax(scores, -1)             (B, H, L, L)       (2, 2, 4, 4)    (2, 2, 4, 4)    yes
per-head output P_h V_h                 (B, H, L, D_head)  (2, 2, 4, 4)    (2, 2, 4, 4)    yes
merge: transpose(1, 2), view (B, L, D)  (B, L, D)          (2, 4, 8)       (2, 4, 8)       yes
output X' = merged W_O^T                (B, L, D)          (2, 4, 8)       (2, 4, 8)       yes
status: ok
"""


@pytest.fixture
def runner():
    return CliRunner()


# --- mathcheck shapes ---------------------------------------------------------------------------------


def test_shapes_prints_the_seed_example_table(runner):
    r = runner.invoke(main, ["shapes"])
    assert r.exit_code == 0
    assert r.stdout == SEED_TABLE
    assert r.stderr == ""


def test_shapes_json(runner):
    r = runner.invoke(main, ["shapes", "--B", "3", "--L", "5", "--D", "12", "--H", "3", "--json"])
    assert r.exit_code == 0
    report = json.loads(r.stdout)
    assert set(report) == {"sizes", "rows", "status"}
    assert report["sizes"] == {"B": 3, "L": 5, "D": 12, "H": 3, "D_head": 4}
    assert report["status"] == "ok"
    assert all(set(row) == {"name", "symbolic", "shape", "observed", "ok"} for row in report["rows"])
    by = {row["name"]: row for row in report["rows"]}
    assert by["heads: transpose(1, 2)"]["shape"] == [3, 3, 5, 4]
    assert by["scores Q_h K_h^T / sqrt(D_head)"] == {
        "name": "scores Q_h K_h^T / sqrt(D_head)",
        "symbolic": "(B, H, L, L)",
        "shape": [3, 3, 5, 5],
        "observed": [3, 3, 5, 5],
        "ok": True,
    }


@pytest.mark.parametrize(
    "args, message",
    [
        (["--D", "9"], "error: D = 9 is not divisible by H = 2: each head needs D_head = D/H columns"),
        (["--B", "0"], "error: --B must be a positive integer, got 0"),
        (["--H", "-2"], "error: --H must be a positive integer, got -2"),
        (["--L", "four"], "error: --L must be a positive integer, got 'four'"),
        (
            ["--L", "100000"],
            "error: the scores tensor (B, H, L, L) would have 40000000000 entries; the limit is 10000000",
        ),
    ],
)
def test_shapes_bad_input_is_one_line_and_exit_2(runner, args, message):
    r = runner.invoke(main, ["shapes", *args])
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr == message + "\n"


def test_a_wrong_derived_shape_fails_the_table(runner, monkeypatch):
    real = dshapes.forward_shapes

    def wrong():  # the mistake of §8.1: QK^T taken as (D, D)
        dims, rows = real()
        B, L, H, Dh = dims
        rows = tuple((n, (B, H, H * Dh, H * Dh) if n.startswith("scores") else s, why) for n, s, why in rows)
        return dims, rows

    monkeypatch.setattr(dshapes, "forward_shapes", wrong)
    r = runner.invoke(main, ["shapes", "--json"])
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert report["status"] == "mismatch"
    bad = [row for row in report["rows"] if not row["ok"]]
    assert [row["name"] for row in bad] == ["scores Q_h K_h^T / sqrt(D_head)"]
    assert bad[0]["shape"] == [2, 2, 8, 8] and bad[0]["observed"] == [2, 2, 4, 4]


def test_a_view_that_changes_the_number_of_entries_is_rejected():
    B, L, H, Dh = dshapes.shape_symbols()
    with pytest.raises(ValueError):
        dshapes._view((B, L, H * Dh), (B, L, H, H))


# --- what PyTorch does, pinned ----------------------------------------------------------------------


def test_sdpa_true_attends_but_mha_key_padding_true_ignores():
    """The two masks have opposite conventions; the claim's mutants rely on telling them apart."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 3, 4, generator=g, dtype=torch.float64)
    flags = torch.tensor([[True, False, True]])
    eye = torch.eye(3, dtype=torch.float64).reshape(1, 1, 3, 3)
    q = x.reshape(1, 1, 3, 4)
    sdpa_w = F.scaled_dot_product_attention(q, q, eye, attn_mask=flags)[0, 0]
    assert torch.all(sdpa_w[:, 1] == 0) and torch.all(sdpa_w[:, 0] > 0)
    mha = nn.MultiheadAttention(4, 1, batch_first=True, dtype=torch.float64)
    _, w = mha(x, x, x, key_padding_mask=flags, need_weights=True)
    assert torch.all(w[0, :, 0] == 0) and torch.all(w[0, :, 2] == 0)
    assert torch.allclose(w[0, :, 1], torch.ones(3, dtype=torch.float64))


def test_fully_masked_row_behaviours_are_pinned():
    cmp = vshapes.Comparison("pins", Options(), atol=0, rtol=0)
    vshapes._pinned_behaviours(cmp, torch.float64)
    assert cmp.trials == 4
    assert not cmp.counterexample, cmp.details


def test_minus_infinity_gives_exactly_zero_weight_and_zero_does_not():
    z = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64)
    w_inf = F.softmax(z.masked_fill(torch.tensor([False, False, False, True]), float("-inf")), dim=0)
    w_zero = F.softmax(z.masked_fill(torch.tensor([False, False, False, True]), 0.0), dim=0)
    assert w_inf[3].item() == 0.0
    assert w_zero[3].item() == pytest.approx(1 / (1 + math.exp(1) + math.exp(-2) + math.exp(0.5)), rel=1e-14)


# --- the checks -------------------------------------------------------------------------------------


def test_view_without_transpose_is_caught_at_the_seed_example():
    claim = registry.get("multihead-split-merge")
    mutant = next(m for m in claim.mutants if m.name == "view-without-transpose")
    v = vshapes.multihead_split_merge(claim.mutated(mutant), Options())
    assert v.status == "refuted"
    assert dict(v.counterexample)["case"].startswith("split-layout B=2 L=4 D=8 H=2")


def test_the_claims_are_general():
    from tests.conftest import proved

    for cid in ("multihead-split-merge", "mask-negative-infinity", "attention-backward"):
        assert proved(cid).symbolic.general is True


def test_statements_survive_pickling():
    """The proof cache and -j N pickle verdicts; an Eq that SymPy can decide would come back as
    True/False, so no statement or mutant of these claims may be decidable on construction."""
    import pickle

    for cid in ("multihead-split-merge", "mask-negative-infinity", "attention-backward"):
        claim = registry.get(cid)
        statements = [claim.statements()] + [claim.mutated(m) for m in claim.mutants]
        for st in statements:
            for name, eq in st.items():
                assert pickle.loads(pickle.dumps(eq)) == eq, (cid, name)
