"""Issue 28 (b): definitions are definitions. ``:=``, ``\\coloneqq``, ``\\triangleq``, ``\\equiv``,
``\\stackrel{\\text{def}}{=}`` and an ``=`` whose left side is a fresh name (or ``f(x, y)``) absent from
its right side are reported ``definition`` (exit 0, never proved or refuted) and unfolded later."""

import json

import pytest
from click.testing import CliRunner

from mathcheck import derive
from mathcheck.cli import main
from mathcheck.outcome import exit_code

# our own transcription of the textbook sigmoid derivation (cf. d2l-en, "Multilayer Perceptrons")
SIGMOID = r"""The logistic sigmoid is

$$
\sigma(z) = \frac{1}{1+e^{-z}}
$$

and with $s = \sigma(z)$ its derivative is

$$
\frac{ds}{dz} = s(1-s)
$$
"""


def run(tmp_path, text, *args, name="d.md"):
    p = tmp_path / name
    p.write_text(text)
    return CliRunner().invoke(main, ["derive", str(p), *args]), p


def test_the_sigmoid_example_is_definition_definition_proved(tmp_path):
    r, p = run(tmp_path, SIGMOID, "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "definition", "proved"]
    assert got[2]["let"] == ["sigma(z) = 1/(1 + exp(-z))", "s = sigma(z)"]
    assert got[2]["steps"][0]["expr"] == "diff(s, z)"
    text = CliRunner().invoke(main, ["derive", str(p)]).output
    assert "≔ definition" in text and "chains: 2 definition, 1 proved (of 3, seed 0)" in text


def test_a_wrong_derivative_of_a_defined_name_is_refuted(tmp_path):
    r, _ = run(tmp_path, SIGMOID.replace("s(1-s)", "s(1+s)"))
    assert r.exit_code == 1 and "✘ refuted" in r.output


@pytest.mark.parametrize("sign", [":=", r"\coloneqq", r"\triangleq", r"\equiv", r"\stackrel{\text{def}}{=}",
                                  r"\overset{\mathrm{def}}{=}"])
def test_every_definition_sign_defines(tmp_path, sign):
    r, _ = run(tmp_path, f"$$ u {sign} z^2 + 1 $$\n\n$$ u - 1 = z^2 $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "proved"], r.output


def test_a_definition_is_never_refuted_and_exits_0(tmp_path):
    r, _ = run(tmp_path, "$$ L = -\\log p $$\n", "--json")
    out = json.loads(r.output)
    assert out["files"][0]["chains"][0]["status"] == "definition" and r.exit_code == 0 == exit_code("definition")
    assert out["status"] == "definition"
    # before: L = -log(p) was a claim about a free L, refuted


def test_a_point_is_not_a_definition_nor_a_used_name(tmp_path):
    """``at $x = 0$`` (a bare number) and ``x = …`` after chains in x are claims: defining them would
    unfold x everywhere later and prove x^2 = 0."""
    r, _ = run(tmp_path, "At $x = 0$ we have\n\n$$ x^2 = 0 $$\n\n$$ x = y + 1 $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["refuted", "refuted"]


def test_a_redefinition_is_said_and_one_that_changes_another_definition_refused(tmp_path):
    r, _ = run(tmp_path, "$$ u := z $$\n\n$$ u := z^2 $$\n\n$$ u = z^2 $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "definition", "proved"]
    assert "(redefines u)" in got[1]["name"]
    r, _ = run(tmp_path, "$$ u := z $$\n\n$$ v := 2u $$\n\n$$ u := z^2 $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert got[2]["status"] == "bad-input" and "v (line 3) is defined in terms of u before" in got[2]["message"]
    # a forward reference: y unfolded later would read b as 2 where y was written for any b
    r, _ = run(tmp_path, "$$ y = w x + b $$\n\n$$ b := 2 $$\n\n$$ y - b = w x $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "bad-input", "proved"], r.output


def test_an_equals_with_the_name_on_both_sides_is_a_claim(tmp_path):
    r, _ = run(tmp_path, "$$ a = a + 0 $$\n", "--json")
    assert json.loads(r.output)["files"][0]["chains"][0]["status"] == "proved"
    r, _ = run(tmp_path, "$$ a := a + 1 $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"][0]
    assert got["status"] == "bad-input" and "uses a on its right side" in got["message"]


def test_definitions_in_a_tex_file_and_inline_math(tmp_path):
    tex = ("\\begin{equation}\n  f(x, y) \\coloneqq x^2 + y^2\n\\end{equation}\n"
           "where $r = \\sqrt{x^2+y^2}$, so\n\\begin{equation}\n  f(x, y) = r^2\n\\end{equation}\n")
    p = tmp_path / "d.tex"
    p.write_text(tex)
    got = [(c.name, c.definition) for c in derive.read(str(p))]
    assert got == [("line 2", "f(x, y) = x^2 + y^2"), ("line 4", "r = sqrt(x^2 + y^2)"), ("line 5", "")]
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 0 and "chains: 2 definition, 1 proved" in r.output, r.output
