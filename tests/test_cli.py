import json

import pytest
from click.testing import CliRunner

from mathcheck.claim import SEED_VERDICTS
from mathcheck import registry
from mathcheck.cli import main
from mathcheck.render.json import without_timings
from tests import false_claims

HEADLINE = ["qk-variance", "softmax-jacobian", "cross-entropy-decomposition", "sinusoidal-relative-position"]


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def false_claim():
    registry.claim(**false_claims.META)(false_claims.build)
    yield false_claims.META["id"]
    registry._ENTRIES.pop(false_claims.META["id"])


def test_list_names_every_claim_in_seed_order(runner):
    r = runner.invoke(main, ["list"])
    assert r.exit_code == 0
    ids = [line.split()[0] for line in r.output.splitlines()]
    assert ids == [e.id for e in registry.entries()]
    assert set(HEADLINE) <= set(ids)


def test_list_json(runner):
    r = runner.invoke(main, ["list", "--json"])
    assert r.exit_code == 0
    claims = json.loads(r.output)["claims"]
    assert {"id", "title", "section"} <= set(claims[0])
    assert [c["id"] for c in claims] == [e.id for e in registry.entries()]


def test_unknown_claim_is_one_line_and_exit_2(runner):
    r = runner.invoke(main, ["prove", "softmax-jacobain"])
    assert r.exit_code == 2
    assert r.output == (
        "error: unknown claim 'softmax-jacobain'; did you mean 'softmax-jacobian'? (mathcheck list shows every id)\n"
    )


@pytest.mark.parametrize("args", [["prove"], ["refute"], ["prove", "--all", "qk-variance"]])
def test_bad_selection_exit_2(runner, args):
    r = runner.invoke(main, args)
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1
    assert r.output.startswith("error: ")


def test_prove_json_contract(runner):
    r = runner.invoke(main, ["prove", "softmax-jacobian", "cross-entropy-decomposition", "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert [c["id"] for c in report["claims"]] == ["softmax-jacobian", "cross-entropy-decomposition"]
    for c in report["claims"]:
        assert {"id", "title", "section", "status", "symbolic", "numeric"} <= set(c)
        assert c["status"] == "proved"
        assert {"status", "general", "steps"} <= set(c["symbolic"])
        assert c["symbolic"]["general"] is True
        assert all({"expr", "reason", "status"} <= set(s) for s in c["symbolic"]["steps"])
        assert {"status", "max_abs_err", "trials", "reference"} <= set(c["numeric"])
        assert c["numeric"]["status"] == "passed"


def test_refute_json_contract(runner):
    r = runner.invoke(main, ["refute", "cross-entropy-decomposition", "--json"])
    assert r.exit_code == 0, r.output
    (c,) = json.loads(r.output)["claims"]
    assert c["id"] == "cross-entropy-decomposition"
    assert len(c["mutants"]) >= 2
    for m in c["mutants"]:
        assert m["status"] == "refuted"
        assert m["counterexample"]
        assert {"name", "status", "counterexample"} <= set(m)


@pytest.mark.slow
def test_same_seed_same_report(runner):
    # softmax-jacobian: seeded draws like any claim, at a third of qk-variance's Monte Carlo time
    # (this slow test runs in CI, which has 20 minutes); the whole catalog's -j runs are compared in
    # tests/system/test_reproducible.py
    a = runner.invoke(main, ["prove", "softmax-jacobian", "--seed", "7", "--json"])
    b = runner.invoke(main, ["prove", "softmax-jacobian", "--seed", "7", "--json"])
    assert a.exit_code == b.exit_code == 0
    assert without_timings(json.loads(a.output)) == without_timings(json.loads(b.output))
    c = runner.invoke(main, ["prove", "softmax-jacobian", "--seed", "8", "--json"])
    assert without_timings(json.loads(a.output)) != without_timings(json.loads(c.output))


def test_false_claim_is_refuted_with_step_counterexample_and_replay(runner, false_claim):
    r = runner.invoke(main, ["prove", false_claim, "--seed", "3"])
    assert r.exit_code == 1
    assert "✘ refuted" in r.output
    assert "step square[1] refuted: x² + 1" in r.output
    assert "counterexample: x=" in r.output
    assert "replay: mathcheck prove test-false-square --seed 3" in r.output


def test_refute_exit_1_when_a_mutant_survives(runner, false_claim, monkeypatch):
    from mathcheck import engine

    def nothing_refutes(claim, statements, options):
        from mathcheck.verdict import NumericVerdict

        return NumericVerdict("passed", "stub", 1, 0.0)

    monkeypatch.setattr(engine, "verify", nothing_refutes)
    monkeypatch.setattr(engine, "_symbolic_refutation", lambda claim, mutant: None)
    r = runner.invoke(main, ["refute", false_claim])
    assert r.exit_code == 1
    assert "inconclusive" in r.output
    assert "mutants: 0 of 2 refuted" in r.output


def test_show_prints_steps_and_mutants(runner):
    r = runner.invoke(main, ["show", "softmax-jacobian"])
    assert r.exit_code == 0
    assert "quotient rule" in r.output
    assert "sign-flip" in r.output
    assert "§4.1" in r.output


def test_audit_gives_a_verdict_for_every_claim(runner):
    r = runner.invoke(main, ["audit", "--json"])
    assert r.exit_code == 0
    rows = json.loads(r.output)["claims"]
    assert [row["id"] for row in rows] == [e.id for e in registry.entries()]
    for row in rows:
        assert row["verdict"] in SEED_VERDICTS
        assert row["zh"] and row["en"] and row["section"].startswith("§")
        if row["verdict"] != "exact":
            assert row["note"], row["id"]  # a condition or a correction must be named
    text = runner.invoke(main, ["audit"])
    assert text.exit_code == 0
    assert text.output.strip().splitlines()[-1].startswith("verdicts: ")


def test_device_without_cuda_is_bad_input(runner):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    r = runner.invoke(main, ["prove", "softmax-jacobian", "--device", "cuda"])
    assert r.exit_code == 2
    assert r.output == "error: --device 'cuda': no CUDA device is available here; use --device cpu\n"
    r = runner.invoke(main, ["prove", "softmax-jacobian", "--device", "tpu"])
    assert r.exit_code == 2
    assert r.output == "error: --device 'tpu': use cpu or cuda[:N]\n"


def test_conform_help_lists_the_kinds_and_positions_from_spec(runner):
    """``--kind`` and ``--positions`` name conform/spec's tables when the help is shown (a hand copy
    had drifted: it lacked ``alibi``), and showing them imports neither torch nor SymPy."""
    from mathcheck.conform.spec import KINDS, POSITIONS
    from tests.system.test_layering import _imported_at_startup

    r = runner.invoke(main, ["conform", "--help"])
    assert r.exit_code == 0
    shown = " ".join(r.output.split())
    assert "One of " + ", ".join(KINDS) + " (docs/conform.md)" in shown
    assert "adds inside: " + ", ".join(POSITIONS) + "." in shown
    from mathcheck.conform.conventions import GROUPINGS, MASKS

    assert "attn_mask as one of " + ", ".join(MASKS) + " (the first: the default)" in shown.replace("- ", "-")
    assert "--gqa-grouping " + "|".join(GROUPINGS) in shown
    mods = _imported_at_startup("conform", "--help")
    assert "click" in mods and "torch" not in mods and "sympy" not in mods


def test_check_help_lists_the_assumptions_from_the_parser(runner):
    from mathcheck.parser import PROPERTIES

    shown = " ".join(runner.invoke(main, ["check", "--help"]).output.split())
    assert "Properties of a symbol: " + ", ".join(PROPERTIES) + " (repeatable" in shown
    from tests.system.test_layering import _imported_at_startup

    mods = _imported_at_startup("check", "--help")
    assert "torch" not in mods and "sympy" not in mods
