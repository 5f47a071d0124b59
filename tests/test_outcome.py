"""The outcome model: every command's status words, their exit codes, the worst of several, and
the one replay-line builder (docs/design.md, *The outcome model*)."""

import shlex

import pytest
from click.testing import CliRunner

from mathcheck import outcome
from mathcheck.cli import main
from mathcheck.outcome import combine, exit_code, replay, worst

# the exit codes the README ("What a verdict means"), docs/derive.md, docs/conform.md and docs/model.md state
DOCUMENTED = {
    "prove": {"proved": 0, "refuted": 1, "inconclusive": 3, "error": 4},
    "check": {"proved": 0, "refuted": 1, "bad-input": 2, "inconclusive": 3},
    "derive": {"proved": 0, "holds-within": 0, "refuted": 1, "bad-input": 2, "inconclusive": 3},
    "conform": {"holds": 0, "fails": 1, "inconclusive": 3},
    "model": {"holds": 0, "fails": 1, "inconclusive": 3},
    "refute": {"holds": 0, "fails": 1, "error": 4},  # every mutant refuted; one survived; a broken claim
}


@pytest.mark.parametrize("command", sorted(DOCUMENTED))
def test_every_commands_status_has_its_documented_exit_code(command):
    for word, code in DOCUMENTED[command].items():
        assert exit_code(word) == code, (command, word)


def test_conform_words_that_judge_nothing_exit_zero():
    assert exit_code("not expected to hold") == exit_code("reported") == exit_code("passed") == 0


def test_an_unknown_word_is_our_bug():
    with pytest.raises(KeyError):
        exit_code("maybe")


@pytest.mark.parametrize(
    "words, expected",
    [
        (["proved", "inconclusive", "refuted"], "refuted"),
        (["proved", "holds-within"], "holds-within"),
        (["holds-within", "inconclusive"], "inconclusive"),
        (["refuted", "bad-input", "inconclusive"], "bad-input"),  # check --file: a malformed row is the worst
        (["refuted", "error"], "error"),
        (["holds", "not expected to hold", "reported"], "holds"),
        (["holds", "fails", "inconclusive"], "fails"),
    ],
)
def test_worst(words, expected):
    assert worst(words, "holds").word == expected
    assert worst(reversed(words), "holds").word == expected


def test_worst_of_nothing_is_the_default():
    assert worst([]).word == "proved" and worst([], "holds").exit_code == 0


def test_combine_is_the_honesty_rule():
    assert combine("proved", "passed") == "proved"
    assert combine("proved", "inconclusive") == combine("inconclusive", "passed") == "inconclusive"
    assert combine("proved", "refuted") == combine("refuted", "passed") == "refuted"
    assert combine("error", "refuted") == "error"


def test_the_user_pipeline_combines_through_outcome():
    from mathcheck.userexpr import relation

    assert relation.combine is outcome.combine


@pytest.mark.parametrize(
    "command, args, options",
    [
        (
            "prove",
            ["softmax-jacobian"],
            [("--seed", 7), ("--dtype", "float32"), ("--device", "cuda:1"), ("--from", ["my claims.py", "pkg.claims"])],
        ),
        (
            "check",
            ["x*(x+1)", "x**2 + x"],
            [("--assume", ["x=real", "n=positive,integer"]), ("--seed", 3), ("--timeout", 12.5)],
        ),
        ("derive", ["notes.md", "it's here.derivation"], [("--seed", 1), ("--timeout", 5.0)]),
        (
            "conform",
            ["my_attn.py:attention"],
            [
                ("--kind", "attention"),
                ("--causal", True),
                ("--window", "4"),
                ("--seed", 0),
                ("--property", "causal-no-future"),
                ("--sizes", "B=1,L=2"),
                ("--simple-values", True),
            ],
        ),
        ("model", ["hf:llama"], [("--seed", 2), ("--hidden", "32"), ("--bidirectional", True), ("--length", 8)]),
    ],
)
def test_replay_lines_round_trip_through_shlex(command, args, options):
    line = replay(command, args, options)
    words = shlex.split(line)
    assert words[: 2 + len(args)] == ["mathcheck", command, *args]
    expected = []
    for flag, value in options:
        if value is True:
            expected.append(flag)
        else:
            for v in value if isinstance(value, list) else [value]:
                expected += [flag, repr(v) if isinstance(v, float) else str(v)]
    assert words[2 + len(args) :] == expected


def test_replay_leaves_out_defaults_and_false_flags():
    assert (
        replay("prove", ["c"], [("--seed", 0), ("--dtype", None), ("--from", ()), ("--causal", False)])
        == "mathcheck prove c --seed 0"
    )


def test_split_flags():
    assert outcome.split_flags(["--causal", "--window 4"]) == [("--causal", True), ("--window", "4")]


# --- every command prints its replay line, built by outcome.replay --------------------------------


def test_check_prints_a_replay_line_with_its_seed_and_timeout():
    r = CliRunner().invoke(main, ["check", "sqrt(x**2)", "x", "--seed", "5", "--timeout", "20"])
    assert r.exit_code == 1, r.output
    line = next(x for x in r.output.splitlines() if x.strip().startswith("replay:"))
    words = shlex.split(line.split("replay:", 1)[1])
    assert words == ["mathcheck", "check", "sqrt(x**2)", "x", "--seed", "5", "--timeout", "20.0"]


def test_derive_prints_a_replay_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.derivation").write_text("## wrong\n  (x + 1)^2\n= x^2 + 1\n")
    r = CliRunner().invoke(main, ["derive", "f.derivation", "--seed", "3"])
    assert r.exit_code == 1, r.output
    assert r.output.splitlines()[-1] == "replay: mathcheck derive f.derivation --seed 3"


def test_derive_json_carries_the_replay_line(tmp_path, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.derivation").write_text("## right\n  (x + 1)^2\n= x^2 + 2*x + 1\n")
    r = CliRunner().invoke(main, ["derive", "f.derivation", "--json", "--timeout", "20"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["replay"] == "mathcheck derive f.derivation --seed 0 --timeout 20.0"


def test_prove_prints_a_replay_line_for_a_claim_that_is_not_proved(tmp_path):
    src = tmp_path / "bad_claims.py"
    src.write_text("""
from mathcheck.claim import Body, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim


@claim(id="outcome-false-claim", title="a false claim", section="§0", zh="错", en="wrong")
def false_claim() -> Body:
    x = sp.Symbol("x", real=True)
    part = Part("p", (Step((x + 1) ** 2, "start"), Step(x ** 2 + 1, "wrong")))
    wrong = (Mutant("m1", "a", (("p", sp.Eq((x + 1) ** 2, x)),)), Mutant("m2", "b", (("p", sp.Eq((x + 1) ** 2, 2)),)))
    return Body(assumptions=("x real",), parts=(part,), mutants=wrong)
""")
    r = CliRunner().invoke(main, ["prove", "--from", str(src), "--no-cache", "--seed", "4"])
    assert r.exit_code == 1, r.output
    line = next(x for x in r.output.splitlines() if x.strip().startswith("replay:"))
    assert shlex.split(line.split("replay:", 1)[1]) == [
        "mathcheck",
        "prove",
        "outcome-false-claim",
        "--seed",
        "4",
        "--from",
        str(src),
    ]


def test_the_plugin_and_testing_use_the_verdicts_replay_line():
    from mathcheck import registry, testing
    from mathcheck.verdict import NumericVerdict, RefuteVerdict

    c = registry.get("softmax-jacobian")
    r = RefuteVerdict(c, (), 3, error="boom", options=(("--from", ("my.py",)),))
    assert r.status == "error" and exit_code(r.status) == 4
    assert (
        testing.refute_message(r).splitlines()[-1]
        == "    replay: mathcheck refute softmax-jacobian --seed 3 --from my.py"
    )
    assert NumericVerdict("passed", "ref", 1, 0.0).status == "passed"


def test_conform_replay_line_is_built_by_outcome():
    import torch

    from mathcheck.conform.run import conform

    def wrong_softmax(x, dim):
        return torch.exp(x)  # not normalised

    report = conform(wrong_softmax, "softmax", seed=1, target="my file.py:wrong_softmax")
    assert report.exit_code == 1
    cx = next(r.counterexample for r in report.results if r.status == "fails")
    words = shlex.split(cx["replay"])
    assert words[:5] == ["mathcheck", "conform", "my file.py:wrong_softmax", "--kind", "softmax"]
    assert "--seed" in words and "--property" in words and "--sizes" in words


def test_model_replay_line_is_built_by_outcome():
    from mathcheck.model.load import Sizes
    from mathcheck.model.run import replay_line

    line = replay_line("hf:llama", 2, Sizes(hidden=32), "eager", False, 8)
    assert shlex.split(line) == [
        "mathcheck",
        "model",
        "hf:llama",
        "--seed",
        "2",
        "--hidden",
        "32",
        "--attn-implementation",
        "eager",
        "--bidirectional",
        "--length",
        "8",
    ]
    assert replay_line("hf:llama", 0, Sizes(), "sdpa", None, 6) == "mathcheck model hf:llama --seed 0"


def test_the_values_never_import_render_nor_any_command():
    """outcome imports nothing of mathcheck but ``lazy``; claim, verdict and outcome never import
    render (not even inside a function): Jupyter display is registered from render/notebook.py."""
    import ast
    import pathlib

    pkg = pathlib.Path(outcome.__file__).parent
    for name in ("outcome.py", "claim.py", "verdict.py"):
        tree = ast.parse((pkg / name).read_text())
        mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        ours = {m for m in mods if m.startswith("mathcheck")}
        assert not {m for m in ours if m.startswith("mathcheck.render")}, name
        if name == "outcome.py":
            assert ours <= {"mathcheck.lazy"}, ours
        assert not any(isinstance(n, ast.FunctionDef) and n.name.startswith("_repr_") for n in ast.walk(tree)), name


def test_check_file_prints_a_replay_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my rows.tsv").write_text("sqrt(x**2)\tx\n")
    r = CliRunner().invoke(main, ["check", "--file", "my rows.tsv", "--seed", "2", "--timeout", "15"])
    assert r.exit_code == 1, r.output
    assert shlex.split(r.output.splitlines()[-1].split("replay:", 1)[1]) == [
        "mathcheck",
        "check",
        "--file",
        "my rows.tsv",
        "--seed",
        "2",
        "--timeout",
        "15.0",
    ]


def test_every_renderer_marks_a_status_from_its_one_row():
    """Issue 34: the marks were tabled five times, each silent on a word it lacked ("·", "" or the
    word itself). Now each renderer reads outcome.Status, and an unknown word is our bug."""
    import pytest

    from mathcheck.outcome import STATUSES
    from mathcheck.render import tex, text

    for word, s in STATUSES.items():
        assert text.mark(word) == (s.mark, s.colour) and tex.mark(word) == s.tex
        assert s.markdown == (s.label or word)
    for renderer in (text.mark, tex.mark):
        with pytest.raises(KeyError):
            renderer("prooved")


def _reports(word: str):
    """One report of every command whose status is ``word`` (built from the values they hold)."""
    from types import SimpleNamespace as NS

    from mathcheck.conform.run import Report
    from mathcheck.conform.spec import Variant
    from mathcheck.derive import DeriveReport
    from mathcheck.model.report import ModelReport
    from mathcheck.userexpr.relation import CheckResult
    from mathcheck.verdict import ClaimVerdict

    judged = NS(status=word)
    return [
        ClaimVerdict(NS(id="softmax-jacobian"), word, None, None, seed=0),
        CheckResult(word, "x", "x", {}, 0),
        DeriveReport(files=(("a.md", (judged,)),)),
        Report("mod:fn", "softmax", Variant(), 0, results=[judged]),
        ModelReport("hf:gpt2", {}, 0, "mathcheck model hf:gpt2", properties=[judged]),
    ]


def test_every_report_is_reported_and_exits_by_outcomes_table():
    seen = set()
    for word in ("proved", "holds", "holds-within", "inconclusive", "refuted", "fails", "bad-input", "error"):
        for r in _reports(word):
            if r.status != word:  # conform and model judge by holds/fails; claims and checks by proved/refuted
                continue
            assert isinstance(r, outcome.Reported), type(r)
            assert r.exit_code == outcome.STATUSES[word].exit_code, (type(r), word)
            assert isinstance(r.replay, str)
            seen.add(type(r).__name__)
    assert seen == {"ClaimVerdict", "CheckResult", "DeriveReport", "Report", "ModelReport"}


def test_refute_verdict_is_reported():
    from types import SimpleNamespace as NS

    from mathcheck.verdict import MutantVerdict, RefuteVerdict

    survived = MutantVerdict(NS(name="m"), "proved", None, None)
    for mutants, error, code in (((), "", 0), ((survived,), "", 1), ((), "cannot build", 4)):
        r = RefuteVerdict(NS(id="softmax-jacobian"), mutants, seed=0, error=error)
        assert isinstance(r, outcome.Reported) and r.exit_code == code
        assert r.replay.startswith("mathcheck refute softmax-jacobian")


def test_exit_code_is_implemented_once():
    """Reports mix in ``outcome.ExitByStatus``; no other module declares its own ``exit_code``."""
    import ast
    import pathlib

    pkg = pathlib.Path(outcome.__file__).parent
    declared = {
        str(p.relative_to(pkg.parent))
        for p in pkg.rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.FunctionDef) and node.name == "exit_code"
    }
    assert declared == {"mathcheck/outcome.py"}, declared
