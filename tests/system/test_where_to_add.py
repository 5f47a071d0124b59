"""docs/design.md's "Where to add…": each row's one place is enough. A test adds one entry there
and sees it used end to end by the command that reads it, then takes it out (issue 34 item 7).

(A grammar function: tests/numeric/test_kernel.py's ``one_more_entry``; a status word:
tests/test_outcome.py; a conform kind: tests/conform/test_run.py.)"""

import json
import os
import subprocess
import sys

import torch
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.conform.run import Result
from mathcheck.model import properties as mp
from tests.paths import ROOT

DESIGN = (ROOT / "docs" / "design.md").read_text()


def _row(what: str) -> str:
    return next(line for line in DESIGN.splitlines() if line.startswith(f"| {what} |"))


# --- a model property: one entry of model/properties.PROPERTIES --------------------------------------


def _finite(s: mp.Setting) -> Result:
    """Our example property: every logit of the seeded forward is finite."""
    ok = bool(torch.isfinite(s.base).all())
    return Result(
        "logits-finite",
        "-",
        "every logit of one forward is finite",
        "holds",
        "holds" if ok else "fails",
        0.0,
        0.0,
        None if ok else {"replay": s.replay},
    )


def _model(*args):
    return CliRunner().invoke(main, ["model", "examples/tiny_gpt.py:factory", *args])


def test_a_model_property_is_one_entry_of_the_table(monkeypatch):
    assert "`model/properties.PROPERTIES`" in _row("a model property")
    monkeypatch.setattr(mp, "PROPERTIES", mp.PROPERTIES + (mp.Property("logits-finite", "-", _finite),))
    out = _model("--json")
    assert out.exit_code == 0, out.output
    added = [p for p in json.loads(out.output)["properties"] if p["name"] == "logits-finite"]
    assert [(p["status"], p["claim"], p["max_abs_err"]) for p in added] == [("holds", "-", 0.0)]

    # a property that fails fails the run, named
    broken = mp.Property("logits-finite", "-", lambda s: Result("logits-finite", "-", "", "holds", "fails", 1.0, 0.0))
    monkeypatch.setattr(mp, "PROPERTIES", mp.PROPERTIES[:-1] + (broken,))
    failed = _model()  # the text report
    assert failed.exit_code == 1 and "logits-finite" in failed.output

    monkeypatch.undo()  # taken out: the report is as before
    assert "logits-finite" not in _model().output


# --- a LaTeX command: the `latex=` words of an entry of numeric/functions.py --------------------------

TEX = "% a chain of our own\n\\[ \\twice(x) = x + x = 2x \\]\n"

# the reader builds its word tables when it is imported, as it does from the committed table: the
# entry goes in before anything imports mathcheck.latex, so in a fresh process
ADD_TWICE = """
import sys
from mathcheck.numeric import functions
if sys.argv[2] == "add":
    functions.TABLE += (functions.Function("twice", build=lambda x: 2 * x, doc="2x", latex=("twice",)),)
from mathcheck.cli import main
main(["derive", "--json", sys.argv[1]])
"""


def _derive(tmp_path, what):
    tex = tmp_path / "twice.tex"
    tex.write_text(TEX)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MATHCHECK_CACHE_DIR=str(tmp_path / f"cache-{what}"))
    r = subprocess.run(
        [sys.executable, "-c", ADD_TWICE, str(tex), what],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    return r.returncode, r.stdout + r.stderr


def test_a_latex_command_is_one_word_of_a_function_entry(tmp_path):
    assert "`latex=`" in _row("a LaTeX command")
    code, out = _derive(tmp_path, "without")
    assert code == 2 and "unknown command \\\\twice" in out, out
    code, out = _derive(tmp_path, "add")
    assert code == 0, out
    (chain,) = json.loads(out)["files"][0]["chains"]
    assert chain["status"] == "proved" and "twice(x)" in out
