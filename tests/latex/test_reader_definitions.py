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
    # a generous budget: on a loaded 2-core machine a 30 s proof turns inconclusive, which is not the point here
    return CliRunner().invoke(main, ["derive", str(p), "--timeout", "120", *args]), p


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


@pytest.mark.parametrize(
    "sign", [":=", r"\coloneqq", r"\triangleq", r"\equiv", r"\stackrel{\text{def}}{=}", r"\overset{\mathrm{def}}{=}"]
)
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
    tex = (
        "\\begin{equation}\n  f(x, y) \\coloneqq x^2 + y^2\n\\end{equation}\n"
        "where $r = \\sqrt{x^2+y^2}$, so\n\\begin{equation}\n  f(x, y) = r^2\n\\end{equation}\n"
    )
    p = tmp_path / "d.tex"
    p.write_text(tex)
    got = [(c.name, c.definition) for c in derive.read(str(p))]
    assert got == [("line 2", "f(x, y) = x^2 + y^2"), ("line 4", "r = sqrt(x^2 + y^2)"), ("line 5", "")]
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 0 and "chains: 2 definition, 1 proved" in r.output, r.output


# --- issue 32's LaTeX items: directives read as written, or refused --------------------------------


def test_a_builtin_is_never_renamed_by_let(tmp_path):
    r, _ = run(tmp_path, "$$\n% let: \\mathrm{exp} = log\ne^{x} = \\exp(x)\n$$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"][0]
    assert (
        got["status"] == "bad-input" and "is a built-in function or constant, which is never renamed" in got["message"]
    )
    r, _ = run(tmp_path, "$$\n% let: \\ln = exp\n\\ln x = x\n$$\n", "--json")
    assert json.loads(r.output)["files"][0]["chains"][0]["status"] == "bad-input"


def test_every_let_is_printed_as_read(tmp_path):
    r, p = run(
        tmp_path,
        "$$\n% let: \\sigma = sigmoid\n% let: m = x + 1\n% assume: x > 0\n\\sigma(x) + m = \\sigma(x) + x + 1\n$$\n",
        "--json",
    )
    got = json.loads(r.output)["files"][0]["chains"][0]
    assert got["notes"] == ["let: \\sigma is the function sigmoid: \\sigma(x) reads sigmoid(x)"]
    assert got["let"] == ["m = x + 1"] and got["assumptions"] == {"x": ["positive"]}
    text = CliRunner().invoke(main, ["derive", str(p), "-v"]).output
    assert "    note: let: \\sigma is the function sigmoid" in text and "    let m = x + 1" in text
    assert "    assume: x=positive" in text


def test_a_let_function_without_parentheses_is_read_or_refused(tmp_path):
    """``\\sigma^2(x)`` was sigma^2·x with sigma a new variable; now (sigmoid(x))^2, and a bare \\sigma
    is refused."""
    r, _ = run(
        tmp_path,
        "$$\n% let: \\sigma = sigmoid\n\\sigma^2(x) = \\sigma(x) \\cdot \\sigma(x)\n$$\n\n"
        "$$\n% let: f(t) = t^2\nf^2(x) = x^3\n$$\n\n"
        "$$\n% let: \\sigma = sigmoid\n\\sigma + 1 = 2\n$$\n",
        "--json",
    )
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["proved", "refuted", "bad-input"]
    assert got[0]["steps"][0]["expr"] == "sigmoid(x)^2" and got[1]["steps"][0]["expr"] == "f(x)^2"
    assert "is a function here (a % let: or a definition above); apply it" in got[2]["message"]


def test_an_assumption_on_one_entry_is_not_about_every_entry(tmp_path):
    r, _ = run(
        tmp_path, "$$\n% assume: x_1 > 0\n\\sum_{i=1}^{n} x_i = \\sqrt{x_1^2} + \\sum_{i=2}^{n} x_i\n$$\n", "--json"
    )
    got = json.loads(r.output)["files"][0]["chains"][0]
    assert got["status"] == "bad-input" and "is about one entry of the indexed x" in got["message"]
    r, _ = run(tmp_path, "$$\n% assume: x_i > 0\n\\sum_{i=1}^{n} x_i = \\sum_{i=1}^{n} |x_i|\n$$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"][0]
    # n, the sum's upper bound, is a count (tests/latex/test_reader_sums.py)
    assert got["status"] == "proved" and got["assumptions"] == {"x": ["positive"], "n": ["positive", "integer"]}


@pytest.mark.parametrize(
    "comment, said",
    [
        ("% mathcheck: skp", "the one mathcheck directive is '% mathcheck: skip'"),
        ("% mathcheck skip", "the one mathcheck directive is '% mathcheck: skip'"),
        ("% asume: x > 0", "did you mean '% assume:'?"),
        ("% givn: x > 0", "did you mean '% given:'?"),
    ],
)
def test_a_misspelled_directive_is_said(tmp_path, comment, said):
    r, _ = run(tmp_path, f"$$\n{comment}\n1 = 2\n$$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"][0]
    assert got["status"] == "bad-input" and said in got["message"], r.output


def test_prose_comments_are_not_directives(tmp_path):
    r, _ = run(
        tmp_path,
        "% Let's see: the square\n\\begin{equation}\n% Source: our notes\n(x+1)^2 = x^2 + 2x + 1\n\\end{equation}\n",
        "--json",
        name="d.tex",
    )
    assert json.loads(r.output)["files"][0]["chains"][0]["status"] == "proved", r.output


def test_one_unreadable_equation_of_a_block_fails_alone(tmp_path):
    """d2l-en's calculus chapter puts four rules in one display; one unreadable row no longer takes
    the other three with it."""
    r, _ = run(
        tmp_path,
        "$$\\begin{aligned} \\frac{d}{dx} C & = 0 \\\\ \\frac{d}{dx} x^n & = n x^{n-1} \\\\ "
        "\\frac{d}{dx} e^x & = e^x \\end{aligned}$$\n",
        "--json",
    )
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["inconclusive", "proved", "proved"], r.output
    # C is an unknown function of x (never a constant, never 0): d/dx C = 0 fails for some C, holds for a
    # constant one, which the prose says it is — inconclusive, never refuted
    assert got[0]["steps"][0]["expr"] == "diff(C(x), x)" and "holds when constant" in got[0]["steps"][1]["how"]


def test_a_definition_by_equals_ends_with_its_section(tmp_path):
    """d2l-en's calculus appendix defines f(x) = sin(x^x) in one example and uses other f's later:
    an ``=`` definition is in force to the next heading, a ``:=`` one to the end of the file."""
    text = (
        "# One\n\n$$ f(x) = \\sin x $$\n\n$$ u := x^2 $$\n\n# Two\n\n"
        "% a new f\n$$\n% let: f(t) = t^3\nf(2) = 8\n$$\n\n$$ u = x^2 $$\n"
    )
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "definition", "proved", "proved"], r.output
    assert got[2]["let"] == ["f(t) = t^3"] and got[3]["let"] == ["u = x^2"]


def test_a_chain_that_starts_by_naming_its_value_defines_then_checks(tmp_path):
    """cs231n's ``L_i = \\max(0, …) + \\max(0, …) = 0 + 8 = 8`` (our numbers): L_i is defined by the
    first link and the rest is checked (before: refuted, L_i a free variable)."""
    r, _ = run(
        tmp_path,
        "$$ L_i = \\max(0, -7 - 13 + 10) + \\max(0, 11 - 13 + 10) = 0 + 8 = 8 $$\n\n$$ L_j = \\max(0, 2) = 3 $$\n",
        "--json",
    )
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "proved", "definition", "refuted"], r.output
    assert got[1]["steps"][0]["expr"] == "Max(0, -7 - 13 + 10) + Max(0, 11 - 13 + 10)"


def test_a_definition_is_never_captured_by_an_index(tmp_path):
    """c = k + 1, then Σ_{k=1}^{n} c = n(n+3)/2 was proved (c's k captured by the sum); unfolded
    hygienically (derive's let renames the sum's index) the sum is n(k + 1): refuted, and that proved."""
    r, _ = run(
        tmp_path,
        "$$ c = k + 1 $$\n\n$$ \\sum_{k=1}^{n} c = \\frac{n \\cdot (n+3)}{2} $$\n\n"
        "$$ \\sum_{k=1}^{n} c = n \\cdot (k + 1) $$\n",
        "--json",
    )
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "refuted", "proved"], r.output
    r, _ = run(tmp_path, "$$\n% let: c = k + 1\n\\sum_{k=1}^{n} c = \\frac{n \\cdot (n+3)}{2}\n$$\n", "--json")
    assert json.loads(r.output)["files"][0]["chains"][0]["status"] == "refuted"


def test_a_declared_integer_bound_is_not_an_index_a_definition_could_be_captured_by(tmp_path):
    """H declared an integer and used as a sum's upper bound: a definition using H (mu = Σ a_i / H) is
    unfolded, not refused (the corpus' layernorm_mean.tex was bad input); restating the prose's
    definition as a % let: with another index is the same definition, not a redefinition."""
    r, _ = run(
        tmp_path,
        "with $\\mu = \\frac{1}{H}\\sum_{i=1}^{H} a_i$,\n\n$$\n% assume: H \\in \\mathbb{Z}_{>0}\n"
        "% let: \\mu = \\frac{1}{H}\\sum_{k=1}^{H} a_k\n"
        "\\sum_{i=1}^{H} (a_i - \\mu) = 0\n$$\n",
        "--json",
    )
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "proved"], r.output


def test_a_displayed_value_of_a_name_only_an_unread_display_used_is_a_definition(tmp_path):
    """Issue 28, item 0: our own transcription in the style of cs231n's linear-classify notes — the
    SVM loss with a sum over j ≠ y_i (not read), then the worked example's value of L_i. Before, that
    value was a claim about a free L_i and refuted (a false refutation)."""
    text = (
        "$$\nL_i = \\sum_{j\\neq y_i} \\max(0, s_j - s_{y_i} + \\Delta)\n$$\n\nso we get two terms:\n\n"
        "$$\nL_i = \\max(0, -5 - 12 + 10) + \\max(0, 9 - 12 + 10)\n$$\n"
    )
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got][1:] == ["definition"], r.output
    assert "refuted" not in r.output
    # once a read chain used the name, the same display is a claim, checked (and here refuted)
    r, _ = run(tmp_path, "$$ L_i^2 = L_i \\cdot L_i $$\n\n$$ L_i = \\max(0, -5) + 3 $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["proved", "refuted"], r.output


@pytest.mark.parametrize(
    "tex, status, said",
    [
        # issue 28, item 4: an equation's condition is a hypothesis of its links; before, each of the
        # first three was refuted at x < 0 (a false refutation) — the condition was read as a reason
        (r"\sqrt{x^2} = x, \quad x \ge 0", "proved", "x >= 0"),
        (r"\sqrt{x^2} = x \quad \text{for } x > 0", "proved", "x > 0"),
        (r"\sqrt{x^2} = x \quad (x \in [0, 1])", "proved", "0 <= x"),
        (r"\frac{x}{x} = 1 \qquad \text{if } x \neq 0", "proved", "nonzero"),
        (r"\frac{1}{n} = \frac{2}{2n}, \quad n \in \mathbb{N}_{>0}", "proved", "positive"),
        (r"\sqrt{x^2} = -x \quad \text{for } x > 0", "refuted", "x > 0"),  # wrong under its condition
        (r"x_i^2 = 1 \quad \text{for } i \ne j", "bad-input", "is not read as a hypothesis"),  # never unchecked
        (r"(a+b)^2 = a^2 + 2ab + b^2 \quad \text{(expand)}", "proved", "expand"),  # words: a reason
    ],
)
def test_a_condition_is_a_hypothesis_of_its_equation(tmp_path, tex, status, said):
    r, _ = run(tmp_path, f"$$ {tex} $$\n")
    got = json.loads(CliRunner().invoke(main, ["derive", str(tmp_path / "d.md"), "--json"]).output)
    assert got["files"][0]["chains"][0]["status"] == status, r.output
    assert said in r.output


def test_an_implication_checks_its_conclusion_given_its_premise(tmp_path):
    """Issue 28, item 4: ``A \\Rightarrow B`` — B is checked given A, and A is never checked (its author
    does not claim x > 0). Before, ``\\quad \\Rightarrow \\quad …`` became a reason and B went unread.
    Our own transcription in the style of a sigmoid blog post."""
    text = (
        "$$ x > 0 \\Rightarrow x^2 > 0 $$\n\n"
        "$$ \\sigma(x) = \\frac{1}{1 + e^{-x}} \\quad \\Rightarrow \\quad 1 - \\sigma(x) = \\frac{e^{-x}}{1 + e^{-x}} $$\n\n"
        "$$ \\sigma(x) = \\frac{1}{1 + e^{-x}} \\quad \\Rightarrow \\quad 1 - \\sigma(x) = \\frac{1}{1 + e^{x}} + 1 $$\n"
    )
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["given"] for c in got][:1] == [["x > 0"]], r.output
    # the third display's premise is σ's definition word for word: a restatement, checked (proved), the
    # conclusion checked with σ unfolded (refuted: the planted + 1)
    assert [c["status"] for c in got][1:] == ["definition", "proved", "proved", "refuted"], r.output
    assert got[3]["steps"][0]["expr"] == "sigma(x)" and got[4]["given"] == [], r.output


def test_a_sum_over_an_index_runs_over_one_generic_range(tmp_path):
    """Issue 28, item 6: ``\\sum_j`` without bounds runs over 1..N_sum (N_sum ≥ 1 an integer, printed as an
    assumption), one range for every such sum of a chain, so a softmax's normaliser and its sum agree; a
    body that uses the index other than as a subscript needs its range, and is bad input."""
    text = (
        "$$ \\sum_j \\frac{e^{z_j}}{\\sum_k e^{z_k}} = 1 $$\n\n$$ \\sum_i (x_i - 1) = \\sum_i x_i $$\n\n"
        "$$ \\sum_i i = 3 $$\n"
    )
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["proved", "refuted", "bad-input"], r.output
    assert got[0]["assumptions"] == {"N_sum": ["positive", "integer"]}


def test_math_fences_and_a_display_that_continues_the_last(tmp_path):
    """Issue 28, item 5: GitHub's ```math fences are display math (other fences are code); a display
    that starts with = or \\ge goes on from the last display's last expression."""
    text = (
        "```math\n(x+1)^2 = x^2 + 2x + 1\n```\n\n```python\nx = 1\n```\n\nand expanding once more,\n\n"
        "$$ = x^2 + 2x + 2 - 1 $$\n\nso\n\n$$ \\ge 2x + 2 $$\n"
    )
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["proved", "proved", "refuted"], r.output
    assert [c["steps"][0]["expr"] for c in got] == ["(x + 1)^2", "x^2 + 2*x + 1", "x^2 + 2*x + 2 - 1"]


def test_a_simple_def_is_a_newcommand_and_one_with_parameters_is_refused(tmp_path):
    """Issue 28, item 8: books write \\def\\R{\\mathbb{R}}; TeX's \\def with parameters stays refused."""
    p = tmp_path / "d.tex"
    p.write_text(
        "\\documentclass{article}\n\\def\\half{\\frac{1}{2}}\n\\begin{document}\n"
        "\\[ \\half + \\half = 1 \\]\n\\end{document}\n"
    )
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 0 and "chains: 1 proved" in r.output, r.output
    p.write_text("\\def\\sq#1{#1^2}\n\\[ \\sq{a} = a^2 \\]\n")
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 2 and "\\def is refused" in r.output, r.output


def test_a_name_given_another_form_in_its_section_is_redefined_not_refuted(tmp_path):
    """cs231n's notes (our own lines in that style) give L_i a softmax form, then "a binary classifier
    would take the form" L_i = Σ_j max(0, 1 − y_ij f_j): a redefinition, said — it was refuted."""
    text = (
        "$$ L_i = -\\log\\left(\\frac{e^{f_{y_i}}}{\\sum_j e^{f_j}}\\right) $$\n\nInstead, per attribute:\n\n"
        "$$ L_i = \\sum_j \\max(0, 1 - y_j f_j) $$\n"
    )
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["definition", "definition"], r.output
    assert "redefines L_i" in got[1]["name"]


# style of blog-henry54130-sigmoid.md:4, :18, :40 and :52 (our own function and wording): one function
# defined under the first heading, restated under each later one
RESTATED = r"""## Define

$$
\phi(u) = \frac{1}{1 + e^{u}}
$$

## Rewrite

$$
\phi(u) = (1 + e^{u})^{-1}
$$

## Simplify

$$
\phi(u) = \frac{1}{1 + e^{u}} \quad \Rightarrow \quad 1 - \phi(u) = \frac{e^{u}}{1 + e^{u}}
$$

## Result

$$
\phi'(u) = -\phi(u)(1 - \phi(u))
$$
"""


@pytest.mark.parametrize(
    "change, statuses, said",
    [
        ({}, ["definition", "proved", "proved", "proved", "proved"], ""),
        # another form that is not equal: a new definition, said — never a claim refuted
        ({"(1 + e^{u})^{-1}": "(1 - e^{u})^{-1}"}, ["definition", "definition"], "redefines phi"),
        # the restated definition stays in force to the end: a wrong derivative under the last heading is refuted
        ({"\\phi'(u) = -": "\\phi'(u) = "}, ["definition", "proved", "proved", "proved", "refuted"], ""),
    ],
)
def test_a_definition_restated_under_a_later_heading_is_checked_and_kept(tmp_path, change, statuses, said):
    text = RESTATED
    for a, b in change.items():
        text = text.replace(a, b)
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got][: len(statuses)] == statuses, r.output
    assert said in got[1]["name"]
    if not change:
        assert got[1]["let"] == ["phi(u) = 1/(1 + exp(u))"] and got[4]["let"] == got[1]["let"]


@pytest.mark.parametrize(
    "softplus, statuses",
    [
        (r"\log(1 + \exp(u))", ["definition", "definition"]),
        (r"\log(1 - \exp(u))", ["refuted", "definition"]),  # planted: a claim about the table's softplus, checked
    ],
)
def test_a_function_of_the_table_defined_as_it_is_a_definition(tmp_path, softplus, statuses):
    # style of d2l-mlp.md:424 (\operatorname{…}(x) = …) and blog-yanfenglee-dl-demo.md:12 (relu(z) = max(0,z))
    text = f"$$\\operatorname{{softplus}}(u) = {softplus}.$$\n\n$$ relu(w) = max(0,w) $$\n"
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == statuses, r.output
    assert "the function table's relu, which it agrees with" in got[1]["statement"]["how"], r.output


@pytest.mark.parametrize(
    "text, statuses",
    [
        # style of d2l-numerical-stability-and-init.md:71: a second name defined after "and thus" (not read: ∘)
        ("$$v_k = g_k(w) \\textrm{ and thus } q = g_2 \\circ g_1(w).$$\n", ["definition", "definition"]),
        # read, and unfolded later; the planted 2 refuted
        ("$$ v = 2w \\textrm{ and thus } r = v + 1 $$\n\n$$ r - 2w = 1 $$\n", ["definition"] * 2 + ["proved"]),
        ("$$ v = 2w \\textrm{ and thus } r = v + 1 $$\n\n$$ r - 2w = 2 $$\n", ["definition"] * 2 + ["refuted"]),
        # a name the equation writes stays its condition (a point), never a claim x = 3
        ("$$ g(x) = x^2 \\quad \\text{where } x = 3 $$\n", ["definition"]),
    ],
)
def test_a_name_defined_after_words_beside_a_definition_is_one_too(tmp_path, text, statuses):
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == statuses, r.output


def test_align_inside_dollars_alignat_and_displaymath(tmp_path):
    """Issue 28, item 5: KaTeX and MathJax read \\begin{align} inside $$; alignat takes a column count."""
    text = (
        "$$\n\\begin{align}\n(a+b)^2 &= a^2 + 2ab + b^2 \\\\\n&= b^2 + 2ab + a^2\n\\end{align}\n$$\n\n"
        "\\begin{alignat}{2}\nx + x &= 2x &\\quad& \\text{add}\n\\end{alignat}\n\n"
        "\\begin{displaymath}\n x \\cdot 1 = 2x\n\\end{displaymath}\n"
    )
    r, _ = run(tmp_path, text, "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["proved", "proved", "refuted"], r.output


def test_unicode_sets_and_bold_letters(tmp_path):
    """Issue 28, item 7: ℝ, ℕ, ℤ are \\mathbb{R}, …; 𝐱 is \\mathbf{x} (and 𝐖, a bold capital, a matrix)."""
    r, _ = run(tmp_path, "$$ \\sqrt{x^2} = x, \\quad x ∈ ℝ_{>0} $$\n\n$$ 𝐱 + 𝐱 = 2𝐱 $$\n\n$$ 𝐖 + 𝐖 = 2𝐖 $$\n", "--json")
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["proved", "proved", "bad-input"], r.output
    assert got[0]["assumptions"] == {"x": ["positive"]}
