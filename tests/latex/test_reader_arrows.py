r"""Issue 28, items 4, 5, 9: relations that are not links (``\rightarrow``, ``\to``, ``\iff`` between
equations) and layout commands (``\hspace``, ``\underbrace``), read as their authors mean them — and a
difference quotient written with ``=`` never refuted as if it were claimed exact.

Every display here is our own transcription in the style of the cs231n notes (optimization-2.md,
linear-classify.md, neural-networks-3.md), never their text. Each reading is pinned with a planted
mistake that must be refuted, so no test passes by reading nothing."""

import json

import pytest
from click.testing import CliRunner

from mathcheck.cli import main


def chains(tmp_path, text):
    p = tmp_path / "d.md"
    p.write_text(text)
    # a generous budget: on a loaded 2-core machine a proof may take a while, which is not the point here
    r = CliRunner().invoke(main, ["derive", str(p), "--timeout", "120", "--json"])
    return json.loads(r.output)["files"][0]["chains"], r.output


def statuses(tmp_path, text):
    got, out = chains(tmp_path, text)
    return [c["status"] for c in got], got, out


# --- arrows between equations ------------------------------------------------------------------------

# cs231n optimization-2.md line 37 writes a gate, then its two partial derivatives side by side
GATE = r"$$ f(x,y) = x y \hspace{0.5in} \ARROW \hspace{0.5in} \frac{\partial f}{\partial x} = y \hspace{0.5in} \frac{\partial f}{\partial y} = DY $$"


@pytest.mark.parametrize("arrow", ["rightarrow", "to", "longrightarrow", "Rightarrow", "implies", "iff"])
def test_a_definition_then_derivatives_side_by_side_each_checked(tmp_path, arrow):
    got, chain, out = statuses(tmp_path, GATE.replace("ARROW", arrow).replace("DY", "x"))
    assert got == ["definition", "proved", "proved"], out
    assert [c["steps"][0]["expr"] for c in chain[1:]] == ["diff(f(x, y), x)", "diff(f(x, y), y)"], out
    got, _, out = statuses(tmp_path, GATE.replace("ARROW", arrow).replace("DY", "y"))  # planted: ∂(xy)/∂y = y
    assert got == ["definition", "proved", "refuted"], out


def test_an_arrow_at_the_start_of_a_row_goes_on_from_the_equation_above(tmp_path):
    # cs231n optimization-2.md line 161: σ defined, a row break, then → and a three-link chain
    text = r"""$$
\sigma(x) = \frac{1}{1+e^{-x}} \\
\rightarrow \hspace{0.3in} \frac{d\sigma(x)}{dx} = \frac{e^{-x}}{(1+e^{-x})^2}
= \left( \frac{1 + e^{-x} - 1}{1 + e^{-x}} \right) \left( \frac{1}{1+e^{-x}} \right) = \left( 1 - \sigma(x) \right) LAST
$$"""
    got, chain, out = statuses(tmp_path, text.replace("LAST", r"\sigma(x)"))
    assert got == ["definition", "proved"], out
    assert len(chain[1]["steps"]) == 4 and chain[1]["steps"][0]["source"] == r"\frac{d\sigma(x)}{dx}", out
    got, _, out = statuses(tmp_path, text.replace("LAST", r"\sigma(-x)"))  # planted: σ(−x) for σ(x)
    assert got == ["definition", "refuted"], out


def test_rows_of_gates_each_about_the_function_its_arrow_names(tmp_path):
    """cs231n optimization-2.md line 131 lists gates f(x) = 1/x, f_c(x) = c + x, f(x) = e^x, f_a(x) = ax, each
    ``\\rightarrow \\frac{df}{dx} = …``: the df/dx after f_c is f_c's (the family's letter, as its author
    writes it) and checked so — read as the f = 1/x above it was refuted. f(x) = e^x before an arrow is f's redefinition (as the hypothesis
    1/x = eˣ it refuted df/dx = eˣ); f(x) = x^2 + g(x) is not (g is written in f): refused, and the
    equation after it with it."""
    text = r"""$$
f(x) = \frac{1}{x} \hspace{1in} \rightarrow \hspace{1in} \frac{df}{dx} = -1/x^2 \\
f_c(x) = c + x \hspace{1in} \rightarrow \hspace{1in} \frac{df}{dx} = 1 \\
f(x) = e^x \hspace{1in} \rightarrow \hspace{1in} \frac{df}{dx} = e^x \\
g(x) = f(x)^2 \\
f(x) = x^2 \rightarrow \frac{df}{dx} = 2x
$$"""
    got, chain, out = statuses(tmp_path, text)
    assert got[:7] == ["definition", "proved", "definition", "proved", "definition", "proved", "definition"], out
    assert chain[3]["steps"][0]["expr"] == "diff(f_c(x), x)" and chain[3]["let"] == ["f_c(x) = c + x"], out
    assert "redefines f" in chain[4]["name"] and chain[5]["steps"][0]["expr"] == "diff(f(x), x)", out
    assert got[7:] == ["bad-input", "bad-input"] and "f is defined again here" in chain[7]["message"], out
    assert "the equation before the arrow is bad input" in chain[8]["message"], out
    # planted: a sign slip in the first gate, and f_c's derivative c
    planted = text.replace("-1/x^2", "1/x^2").replace(r"\frac{df}{dx} = 1 ", r"\frac{df}{dx} = c ")
    got, _, out = statuses(tmp_path, planted)
    assert got[:4] == ["definition", "refuted", "definition", "refuted"], out
    got, _, out = statuses(tmp_path, text.replace(r"\frac{df}{dx} = 1 ", r"\frac{df}{dx} = f + 1 "))  # f alone
    assert got[3] == "bad-input", out


@pytest.mark.parametrize(
    "second, want",
    [
        ("1", ["definition", "proved", "proved"]),
        ("2", ["definition", "proved", "refuted"]),  # planted: checked, never a hypothesis of the first
    ],
)
def test_two_derivatives_joined_by_and_are_two_claims(tmp_path, second, want):
    # style of d2l-backprop.md:169-173 (our own names): an objective defined inline, then two derivatives
    # joined by \textrm{and} — read as a condition, the second was the first's hypothesis, never checked
    text = (
        "The objective $Q = A + r$ has\n\n"
        f"$$\\frac{{\\partial Q}}{{\\partial A}} = 1 \\; \\textrm{{and}} \\; \\frac{{\\partial Q}}{{\\partial r}} = {second}.$$\n"
    )
    got, chain, out = statuses(tmp_path, text)
    assert got == want, out
    assert chain[1]["given"] == [] and chain[2]["steps"][0]["expr"] == "diff(Q, r)", out


def test_an_arrow_between_things_that_are_not_equations_is_bad_input(tmp_path):
    # cs231n linear-classify.md line 328: scores mapped to their exponentials, then normalised (vectors)
    got, chain, out = statuses(
        tmp_path, r"$$ [1, -2, 0] \rightarrow [e^1, e^{-2}, e^0] = [2.71, 0.14, 1] \rightarrow [0.7, 0.04, 0.26] $$"
    )
    assert got == ["bad-input"], out
    assert "read between two equations only" in chain[0]["message"], out
    got, chain, out = statuses(tmp_path, r"$$ y = x^2 \rightarrow 2x $$")
    assert got == ["bad-input"] and "read between two equations only" in chain[0]["message"], out


def test_a_premise_is_a_hypothesis_and_implications_accumulate(tmp_path):
    """``x > 0 \\rightarrow x^2 > 0 \\rightarrow …``: the last is claimed given both before it (given
    x^2 > 0 alone, ``\\sqrt{x^2} = x`` was refuted at x < 0). A premise is never checked itself."""
    got, chain, out = statuses(tmp_path, r"$$ x > 0 \rightarrow x^2 > 0 \rightarrow \sqrt{x^2} = x $$")
    assert got == ["proved"] and chain[0]["given"] == ["x > 0", "x^2 > 0"], out
    got, _, out = statuses(tmp_path, r"$$ x > 0 \to x^2 > 0 \to \sqrt{x^2} = -x $$")  # planted: wrong under both
    assert got == ["refuted"], out


def test_iff_claims_both_directions_so_it_needs_a_function_defined(tmp_path):
    """``x = 2 \\iff x^2 = 4`` is false (x = −2): checking x² = 4 given x = 2 (or with x = 2 read as x's
    definition) would prove it. Refused; after a function's definition (true by fiat) A ⟺ B is B,
    checked (the parametrised gate test above)."""
    for text in (r"$$ x = 2 \iff x^2 = 4 $$", r"$$ x^2 = 4 \Leftrightarrow x = 2 $$"):
        got, chain, out = statuses(tmp_path, text)
        assert got == ["bad-input", "bad-input"], out
        assert "claims both directions" in chain[0]["message"], out


def test_an_equation_after_an_unread_premise_is_not_checked(tmp_path):
    """The premise is bad input (an ≈ is no hypothesis): the equation after it is claimed given it, so
    it is not checked without it — alone, x^2 = 5 was refuted."""
    got, chain, out = statuses(tmp_path, r"$$ x \approx 2.236 \Rightarrow x^2 = 5 $$")
    assert got == ["bad-input", "bad-input"], out
    assert "the equation before the arrow is bad input" in chain[1]["message"], out


def test_the_derivative_of_a_function_of_two_names_in_a_third_is_refused(tmp_path):
    got, chain, out = statuses(tmp_path, r"$$ f(x,y) = x y \rightarrow \frac{\partial f}{\partial z} = 0 $$")
    assert got == ["definition", "bad-input"], out
    assert "its derivative in z is not read" in chain[1]["message"], out


# --- layout ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "space", [r"\hspace{1em}", r"\hspace*{0.5in}", r"\vspace{2pt}", r"\hfill", r"\enspace", r"\>", r"\qquad"]
)
def test_layout_commands_are_space(tmp_path, space):
    """Inside a group a space is nothing; after an expression it is a \\quad: what follows is a reason."""
    text = f"$$ {space} (a+b)^2 = \\frac{{2a^2 {space} + 4ab + 2b^2}}{{2}} {space} \\text{{(binomial)}} $$"
    got, chain, out = statuses(tmp_path, text)
    assert got == ["proved"] and chain[0]["steps"][1]["reason"] == "binomial", out
    got, _, out = statuses(tmp_path, text.replace("4ab", "2ab"))  # planted: half the cross term
    assert got == ["refuted"], out


@pytest.mark.parametrize("space", [r"\kern 1em", r"\hspace 1em"])
def test_a_bare_length_stays_unread(tmp_path, space):
    # a length without braces: read as space up to one token it would leave "em" as e·m
    got, chain, out = statuses(tmp_path, f"$$ (a+b)^2 = a^2 + 2ab + b^2 {space} $$")
    assert got == ["bad-input"], out
    assert "kern" in chain[0]["message"] or "takes its length in braces" in chain[0]["message"], out


def test_underbrace_and_overbrace_are_their_body(tmp_path):
    # cs231n linear-classify.md line 174 labels the data loss and the regularization loss so
    text = r"$$ (a+b)^2 = \underbrace{ a^2 + b^2 }_\text{squares} + \overbrace{2ab}^{\text{cross term}} $$"
    got, chain, out = statuses(tmp_path, text)
    assert got == ["proved"], out
    assert chain[0]["steps"][1]["expr"] == "(a^2 + b^2) + (2*a*b)", out
    got, _, out = statuses(tmp_path, text.replace("a^2 + b^2", "a^2 - b^2"))  # planted sign slip in a body
    assert got == ["refuted"], out
    got, _, out = statuses(tmp_path, r"$$ (a+b)^2 = \underbrace{a^2 + 2ab + b^2}_{= 0} $$")  # the label: a comment
    assert got == ["proved"], out


# cs231n linear-classify.md line 269: the softmax loss, then "or equivalently" its expanded form
SOFTMAX = (
    r"$$ L_i = -\log\left(\frac{e^{f_{y_i}}}{ \sum_j e^{f_j} }\right) \hspace{0.5in} \text{or equivalently} "
    r"\hspace{0.5in} L_i = -f_{y_i} + \log\sum_j e^{f_j} $$"
)


def test_or_equivalently_claims_the_two_right_sides_agree(tmp_path):
    got, chain, out = statuses(tmp_path, SOFTMAX)
    assert got == ["definition", "proved"], out
    assert chain[1]["steps"][1]["reason"] == "or equivalently", out
    got, _, out = statuses(tmp_path, SOFTMAX.replace(r"+ \log\sum", r"- \log\sum"))  # planted sign slip
    assert got == ["definition", "refuted"], out


def test_or_equivalently_after_another_loss_named_the_same(tmp_path):
    """L_i was an example's hinge loss earlier in the notes: the restatement is A = B, never L_i = A
    checked against that hinge loss (refuted, a misreading)."""
    text = "$$ L_i = \\max(0, 2) + \\max(0, 1) $$\n\n" + SOFTMAX + "\n"
    got, _, out = statuses(tmp_path, text)
    assert got[0] == "definition" and got[-1] == "proved" and "refuted" not in got, out


def test_or_alone_lists_alternatives_never_a_restatement(tmp_path):
    """``x = 1 \\quad\\text{or}\\quad x = -1``: two solutions; read as a restatement, 1 = −1 was refuted."""
    got, _, out = statuses(tmp_path, r"$$ x = 1 \quad \text{or} \quad x = -1 $$")
    assert "refuted" not in got and "proved" not in got, out


# --- the soundness guard: a difference quotient is not a derivative ----------------------------------

FORWARD = r"$$ \frac{df(x)}{dx} = \frac{f(x + h) - f(x)}{h} \hspace{0.1in} \text{(bad, do not use)} $$"
CENTRED = r"$$ \frac{df(x)}{dx} = \frac{f(x + h) - f(x - h)}{2h} \hspace{0.1in} \text{(use instead)} $$"


@pytest.mark.parametrize("text", [FORWARD, CENTRED])
def test_a_numerical_gradient_written_with_equals_is_refused_never_refuted(tmp_path, text):
    """cs231n neural-networks-3.md lines 40, 46: a numerical gradient, meant ≈ for a small h. Once
    \\hspace was read it was a link for an unknown f — and refuted, which refutes what was not meant."""
    got, chain, out = statuses(tmp_path, text)
    assert got == ["bad-input"], out
    assert "a difference quotient in h equals the derivative of f only as h → 0" in chain[0]["message"], out


def test_a_difference_quotient_of_a_defined_function_is_refused_too(tmp_path):
    """f(x) = x^2 unfolded, the link 2x = 2x + h was refuted: the same approximation, meant ≈."""
    got, chain, out = statuses(tmp_path, "$$ f(x) = x^2 $$\n\n" + FORWARD)
    assert got == ["definition", "bad-input"], out
    assert "only as h → 0" in chain[1]["message"], out


@pytest.mark.parametrize(
    "rhs, status",
    [
        ("f'(g(x))g'(x)", "proved"),  # the chain rule: f taken at no new name
        ("f'(x)g'(x)", "refuted"),  # a wrong chain rule, still refuted
        (r"f'(g(x)) + h", "refuted"),  # a new name outside f's argument: no quotient, checked
    ],
)
def test_the_chain_rule_is_checked_as_before(tmp_path, rhs, status):
    got, _, out = statuses(tmp_path, f"$$ \\frac{{d}}{{dx}} f(g(x)) = {rhs} $$")
    assert got == [status], out
