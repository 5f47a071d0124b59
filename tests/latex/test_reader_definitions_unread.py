"""Issue 28, items 1, 2 and 9: a display whose first link defines a fresh name is a ``definition`` even
where its right side is not read (a transpose, ``\\cdots``, ``cases``, ``\\mid``, ``\\Vert``, a label):
exit 0, never proved or refuted, ``"unread"`` in ``--json`` saying what was not read, and a later chain
in that name bad input naming the definition's line (never a free value refuted). Every display here
is our own transcription in the style of d2l-en's linear-regression, information-theory and
backprop chapters and cs231n's neural-networks-2 notes (the files of /work/s28/corpus)."""

import json

import pytest
from click.testing import CliRunner

from mathcheck.cli import main


def run(tmp_path, text, *args, name="d.md"):
    p = tmp_path / name
    p.write_text(text)
    return CliRunner().invoke(main, ["derive", str(p), "--timeout", "120", *args]), p


def chains(tmp_path, text, name="d.md"):
    r, _ = run(tmp_path, text, "--json", name=name)
    return r, json.loads(r.output)["files"][0]["chains"]


@pytest.mark.parametrize(
    "display, name, unread",
    [
        # d2l-en linear-regression.md: the model in vector form
        (r"\hat{y} = \mathbf{w}^\top \mathbf{x} + b.", "y_hat", "transpose"),
        # the same, written out with \cdots
        (r"\hat{y} = w_1 x_1 + \cdots + w_d x_d + b.", "y_hat", "elided terms"),
        # a model's density, \mid between its arguments
        (
            r"P(y \mid \mathbf{x}) = \frac{1}{\sqrt{2 \pi \sigma^2}} \exp\left(-\frac{1}{2 \sigma^2} "
            r"(y - \mathbf{w}^\top \mathbf{x} - b)^2\right).",
            "P",
            "transpose",
        ),
        (r"\textrm{pmi}(x, y) = \log\frac{p_{X, Y}(y, x)}{p_X(x) p_Y(y)}.", "pmi", "subscript"),
        # one-hot labels by cases
        (r"y_{ij} = \begin{cases}1 & j \in J; \\ 0 &\textrm{otherwise.}\end{cases}", "y_ij", "environment"),
        # d2l-en backprop.md: a layer, its matrix labelled
        (r"\mathbf{z}= \mathbf{W}^{(1)} \mathbf{x},", "z", "matrix"),
        # cs231n neural-networks-2: the L2 loss
        (r"L_i = \Vert f - y_i \Vert_2^2", "L_i", "Vert"),
    ],
)
def test_a_definition_whose_right_side_is_not_read_is_a_definition(tmp_path, display, name, unread):
    r, got = chains(tmp_path, f"# Model\n\n$$\n{display}\n$$\n")
    assert r.exit_code == 0, r.output
    assert [c["status"] for c in got] == ["definition"], r.output
    c = got[0]
    assert c["steps"][0]["expr"] == name and c["steps"][1]["expr"] == "(not read)"
    assert unread in c["unread"] and c["line"] == 4
    assert c["notes"] == [f"definition of {name}; its right side is not read: {c['unread']}"]
    assert "never unfolded" in c["statement"]["how"]


@pytest.mark.parametrize(
    "display, name, reading",
    [
        # style of d2l-en information-theory.md:108, :246, :409, :545 (our own letters: U for the law)
        (r"H(X) = - E_{x \sim U} [\log u(x)].", "H", "-E_u(log(u(x)), x)"),
        (r"H(B \mid A) = - E_{(a, b) \sim U} [\log u(b \mid a)].", "H", "-E_u(log(u(b | a)))"),
        (
            r"D_{\textrm{KL}}(U\|V) = E_{t \sim U} \left[ \log \frac{u(t)}{v(t)} \right].",
            "KL",
            "E_u(log(u(t)/v(t)), t)",
        ),
        (r"\textrm{CE}(U, V) = - E_{t \sim U} [\log(v(t))].", "CE", "-E_u(log(v(t)), t)"),
        # style of d2l-en information-theory.md:190, :251: sums over the values of the random variables
        (
            r"H(A, B) = - \sum_{a} \sum_{b} p_{A, B}(a, b) \log p_{A, B}(a, b).",
            "H",
            "-Sum(Sum(p(a, b)*log(p(a, b)), (b, 1, N_sum)), (a, 1, N_sum))",
        ),
        (
            r"H(B \mid A) = - \sum_{a} \sum_{b} q(a, b) \log q(b \mid a).",
            "H",
            "-Sum(Sum(q(a, b)*log(q(b | a)), (b, 1, N_sum)), (a, 1, N_sum))",
        ),
    ],
)
def test_an_expectation_under_a_law_in_none_of_the_arguments_is_read_never_unfolded(tmp_path, display, name, reading):
    r"""E_{x \sim P}[…] is the expectation under P's law p; defining H(X) by it, X is tied to p by the prose
    only, so the definition shows its reading and is never unfolded (H(Y) would read as H(X))."""
    r, got = chains(tmp_path, f"# Model\n\n$$\n{display}\n$$\n")
    assert [c["status"] for c in got] == ["definition"], r.output
    c = got[0]
    assert c["steps"][0]["expr"] == name and c["steps"][1]["expr"] == reading
    assert "never unfolded: an expectation under a law, not in its arguments" in c["statement"]["how"]
    # a later chain in the name is never checked against the reading unfolded (H(Y) as H(X) was false)
    later = display.split(" = ")[0] + " + 1 = 2"
    r, got = chains(tmp_path, f"$$\n{display}\n$$\n\n$$\n{later}\n$$\n")
    assert got[-1]["status"] in ("bad-input", "inconclusive"), r.output


def test_a_label_before_a_functions_arguments_leaves_its_left_side_unread(tmp_path):
    """d2l-en linear-regression.md's per-sample loss (our transcription): its right side reads now that
    y^{(i)} is y_i, its left side's label before (w, b) does not — a definition still, said so."""
    r, got = chains(
        tmp_path, "$$\nl^{(i)}(\\mathbf{w}, b) = \\frac{1}{2} \\left(\\hat{y}^{(i)} - y^{(i)}\\right)^2.\n$$\n"
    )
    assert [c["status"] for c in got] == ["definition"], r.output
    assert got[0]["notes"][0].startswith("definition of l_i; its left side is not read: a superscript in parentheses")


def test_the_text_report_says_the_right_side_is_not_read(tmp_path):
    r, _ = run(tmp_path, "$$\n\\hat{y} = \\mathbf{w}^\\top \\mathbf{x} + b\n$$\n")
    assert r.exit_code == 0, r.output
    assert "note: definition of y_hat; its right side is not read: ^T reads as a transpose" in r.output
    assert "defines y_hat, never unfolded: its right side is not read" in r.output
    assert "chains: 1 definition (1 not read) (of 1, seed 0)" in r.output
    r, _ = run(tmp_path, "$$\n\\hat{y} = w x + b\n$$\n")
    assert "chains: 1 definition (of 1, seed 0)" in r.output


def test_a_definition_read_has_no_unread_field(tmp_path):
    r, got = chains(tmp_path, "$$\n\\hat{y} = w x + b\n$$\n")
    assert [c["status"] for c in got] == ["definition"] and "unread" not in got[0], r.output


# a later link in the name: read as a free value, ∂/∂b of (ŷ - y)^2 is 0 and the author's 2(ŷ - y)
# (ŷ = w^T x + b depends on b) was refuted; it is bad input naming the definition's line
LATER = r"""# Model

$$\hat{y} = \mathbf{w}^\top \mathbf{x} + b.$$

The derivative of the squared error with respect to the bias is

$$\frac{\partial}{\partial b} (\hat{y} - y)^2 = 2 (\hat{y} - y)$$
"""


def test_a_later_link_in_the_name_is_bad_input_naming_the_definition(tmp_path):
    r, got = chains(tmp_path, LATER)
    assert [c["status"] for c in got] == ["definition", "bad-input"], r.output
    assert "y_hat is defined in a display mathcheck does not read (line 3)" in got[1]["message"]
    assert r.exit_code == 2


def test_without_the_definition_the_same_link_is_refuted(tmp_path):
    """The planted contrast: the link alone, ŷ a free value, is refuted — what the rule prevents."""
    r, got = chains(tmp_path, LATER.replace("$$\\hat{y} = \\mathbf{w}^\\top \\mathbf{x} + b.$$", ""))
    assert [c["status"] for c in got] == ["refuted"], r.output


def test_a_later_read_definition_of_the_name_is_unfolded(tmp_path):
    text = "$$\\hat{y} = \\mathbf{w}^\\top \\mathbf{x} + b$$\n\n$$\\hat{y} := w x + b$$\n\n"
    r, got = chains(tmp_path, text + "$$\\frac{\\partial}{\\partial b} \\hat{y}^2 = 2 \\hat{y}$$\n")
    assert [c["status"] for c in got] == ["definition", "definition", "proved"], r.output


def test_a_function_defined_unread_is_never_an_unknown_function_later(tmp_path):
    # (H and I so defined are entropy and information: tests/latex/test_reader_entropy.py)
    text = "$$G(X) = - E_{x \\sim P} [\\log p(x)].$$\n\n$$G(X) \\le \\log(k)$$\n"
    r, got = chains(tmp_path, text)
    assert [c["status"] for c in got] == ["definition", "bad-input"], r.output
    assert "G is defined in a display mathcheck does not read (line 1)" in got[1]["message"]


def test_the_rest_of_the_chain_stays_bad_input(tmp_path):
    r, got = chains(tmp_path, "$$\nl = \\mathbf{w}^\\top \\mathbf{x} = \\sum_i w_i x_i\n$$\n")
    assert [c["status"] for c in got] == ["definition", "bad-input"], r.output
    assert "transpose" in got[1]["message"] and r.exit_code == 2


def test_each_equation_of_an_aligned_display(tmp_path):
    # d2l-en mlp.md: a hidden layer and an output layer, matrices
    text = (
        "$$\n\\begin{aligned}\n\\mathbf{H} & = \\mathbf{X} \\mathbf{W}^{(1)} + \\mathbf{b}^{(1)}, \\\\\n"
        "\\mathbf{O} & = \\mathbf{H}\\mathbf{W}^{(2)} + \\mathbf{b}^{(2)}.\n\\end{aligned}\n$$\n"
    )
    r, got = chains(tmp_path, text)
    assert [(c["status"], c["steps"][0]["expr"]) for c in got] == [("definition", "H"), ("definition", "O")], r.output


@pytest.mark.parametrize(
    "before, display",
    [
        ("", r"v = \mathbf{v}^\top \mathbf{x}"),  # the name on its right side: no definition
        ("$$(x+1)^2 = x^2 + 2x + 1$$\n\n", r"x = \mathbf{w}^\top \mathbf{z}"),  # x used by a chain: a claim
        ("$$y = w x + b$$\n\n", r"b = \mathbf{u}^\top \mathbf{v}"),  # b of y's definition: a claim
        ("$$\\hat{y} = \\mathbf{w}^\\top \\mathbf{x} + b$$\n\n", r"b = \mathbf{u}^\top \mathbf{v}"),  # the same, unread
        # d2l-en information-theory.md: cross-entropy given again in the entropy and divergence: a claim
        (
            "$$\\textrm{CE}(P, Q) = - E_{x \\sim P} [\\log(q(x))]$$\n\n$$H(P) = - E_{x \\sim P} [\\log p(x)]$$\n\n",
            r"\textrm{CE}(P, Q) = H(P) + D_{\textrm{KL}}(P\|Q)",
        ),
        (
            "$$\\hat{y} = \\mathbf{w}^\\top \\mathbf{x} + b$$\n\n",
            r"\hat{y} = \mathbf{X}\mathbf{w} = \hat{z}",
        ),  # a chain
        ("$$\\hat{y} = w x + b$$\n\n", r"\hat{y} = \mathbf{X}\mathbf{w}"),  # defined by a display read: a claim
        # d2l-en momentum.md: the quadratic h given again in its own x (completing the square): h restated
        (
            "$$h(\\mathbf{x}) = \\frac{1}{2} \\mathbf{x}^\\top \\mathbf{Q} \\mathbf{x} + \\mathbf{x}^\\top \\mathbf{c} + b.$$\n\n",
            r"h(\mathbf{x}) = \frac{1}{2} (\mathbf{x} - \mathbf{Q}^{-1} \mathbf{c})^\top \mathbf{Q} (\mathbf{x} - "
            r"\mathbf{Q}^{-1} \mathbf{c}) + b - \frac{1}{2} \mathbf{c}^\top \mathbf{Q}^{-1} \mathbf{c}.",
        ),
        ("", r"\mathrm{Var}(X) = E_{x \sim P}[(x - \mu)^2]"),  # a probability operator: a claim
        ("", r"\hat{y} \approx \mathbf{w}^\top \mathbf{x}"),  # not =
        # d2l-en single-variable-calculus.md: f's Taylor series is a claim about f, f^{(n)} on its right
        ("", r"f(x) = \sum_{n = 0}^\infty \frac{f^{(n)}(x_0)}{n!}(x-x_0)^{n}"),
        ("We need coefficients so that\n", r"s = \mathbf{w}^\top \mathbf{x}"),  # prose: a condition
    ],
)
def test_what_is_not_a_definition_stays_bad_input(tmp_path, before, display):
    r, got = chains(tmp_path, f"{before}$$\n{display}\n$$\n")
    assert got[-1]["status"] == "bad-input" and "unread" not in got[-1], r.output


def test_a_misspelled_directive_in_a_definition_display_is_said(tmp_path):
    """Item 9: the directive's error is the display's; it is never hidden under a definition."""
    r, got = chains(tmp_path, "$$\n% asume: b > 0\n\\hat{y} = \\mathbf{w}^\\top \\mathbf{x} + b\n$$\n")
    assert [c["status"] for c in got] == ["bad-input"] and "did you mean '% assume:'?" in got[0]["message"]


@pytest.mark.parametrize("comment", ["% mathcheck: skp", "% mathcheck skip", "% givn: x > 0"])
def test_a_misspelled_directive_before_a_tex_block_is_said(tmp_path, comment):
    """Item 9, in a ``.tex`` file: the comment right above the block."""
    text = f"{comment}\n\\begin{{equation}}\n1 = 2\n\\end{{equation}}\n"
    r, got = chains(tmp_path, text, name="d.tex")
    assert [c["status"] for c in got] == ["bad-input"] and r.exit_code == 2, r.output
    assert "mathcheck: skip" in got[0]["message"] or "did you mean '% given:'?" in got[0]["message"]


def test_a_word_between_operators_is_a_quantity_not_a_reason(tmp_path):
    """Item 9: d2l-en linear-regression.md's price model; ``\\textrm{area}`` after ``\\cdot`` started a
    reason that swallowed the rest of the display (bad input, "an expression ends too early")."""
    text = (
        "$$\\textrm{price} = w_{\\textrm{area}} \\cdot \\textrm{area} + w_{\\textrm{age}} \\cdot \\textrm{age} + b.$$\n\n"
        "$$(a + \\textrm{area})^2 = a^2 + 3 a \\cdot \\textrm{area} + \\textrm{area}^2$$\n\n"
        "$$x^2 - 1 = (x - 1)(x + 1) \\quad \\text{(difference of squares)}$$\n"
    )
    r, got = chains(tmp_path, text)
    assert [c["status"] for c in got] == ["definition", "refuted", "proved"], r.output
    assert got[0]["steps"][1]["expr"] == "w_area*area + w_age*age + b" and "unread" not in got[0]
    assert got[1]["steps"][1]["expr"] == "a^2 + 3*a*area + area^2"  # the planted 3: refuted, as read
    assert got[2]["steps"][1]["reason"] == "difference of squares"


def test_the_parallel_run_reports_the_same(tmp_path):
    """``-j 2`` sends chains to other processes: the definition and its note survive the trip."""
    r1, _ = run(tmp_path, LATER, "--json")
    r2, _ = run(tmp_path, LATER, "--json", "-j", "2")
    one, two = (json.loads(r.output)["files"][0]["chains"] for r in (r1, r2))
    assert one == two and one[0]["unread"], r2.output


def test_a_name_defined_unread_given_again_in_free_names_is_redefined(tmp_path):
    """d2l-en linear-regression.md gives ŷ again for all examples, ``\\hat{\\mathbf{y}} = \\mathbf{X}\\mathbf{w} + b``
    (both right sides not read): said as a redefinition, never a claim refuted against the first."""
    text = (
        "$$\\hat{y} = \\mathbf{w}^\\top \\mathbf{x} + b$$\n\n$${\\hat{\\mathbf{y}}} = \\mathbf{X} \\mathbf{w} + b,$$\n"
    )
    r, got = chains(tmp_path, text)
    assert [(c["status"], c["name"]) for c in got] == [
        ("definition", "line 1"),
        ("definition", "line 3 (redefines y_hat)"),
    ], r.output
    # d2l-en information-theory.md: entropy of a discrete, then of a continuous variable (lowercase x bound)
    text = "$$H(X) = - E_{x \\sim P} [\\log p(x)].$$\n\n$$H(X) = - \\int_x p(x) \\log p(x) \\; dx.$$\n"
    r, got = chains(tmp_path, text)
    assert [(c["status"], c["name"]) for c in got] == [("definition", "line 1"), ("definition", "line 3 (redefines H)")]


def test_a_parameter_named_like_the_name_is_not_blamed(tmp_path):
    """d2l-en softmax-regression.md: ``l(\\mathbf{y}, \\hat{\\mathbf{y}})`` after ŷ = softmax(o) (not read): ŷ is
    l's parameter, never blamed for ŷ's display: l is a function of the vectors y, ŷ defined by their entries
    (bad input before, "y is indexed elsewhere")."""
    text = (
        "$$\\hat{\\mathbf{y}} = \\mathrm{softmax}(\\mathbf{o})$$\n\n"
        "$$ l(\\mathbf{y}, \\hat{\\mathbf{y}}) = - \\sum_{j=1}^q y_j \\log \\hat{y}_j. $$\n"
    )
    r, got = chains(tmp_path, text)
    assert [c["status"] for c in got] == ["definition", "definition"], r.output
    assert [s["expr"] for s in got[1]["steps"]] == ["l", "-Sum(y[j]*log(y_hat[j]), (j, 1, q))"], r.output


@pytest.mark.parametrize(
    "display, status",
    [
        (r"2 \textrm{Var}[X] = \textrm{Var}[X] + \textrm{Var}[X]", "proved"),  # was no chain at all
        (r"2 \textrm{Var}[X] = \textrm{Var}[X]", "refuted"),  # the planted mistake
        # x = area·x was refuted (the word a reason); now read as the factor, or refused, never refuted
        (r"x \textrm{area} = \textrm{area} x", "bad-input"),
        (r"\sqrt{x^2} = x \text{for} x > 0", "proved"),  # a condition word still leads a condition
        (r"(x+1)^2 = x^2 + 2x + 1 \text{trivially}", "proved"),  # a word at the end is a reason
    ],
)
def test_a_word_juxtaposed_to_a_factor_is_never_a_reason(tmp_path, display, status):
    """Item 9: a one-word ``\\textrm`` written against a factor, with more of the row after it."""
    r, got = chains(tmp_path, f"$$\n{display}\n$$\n")
    assert [c["status"] for c in got] == [status], r.output


def test_an_inline_definition_not_read_makes_a_later_use_bad_input(tmp_path):
    """bench/latex_fuzz.py --defs (seed 0, 7 of 300 cases): an inline ``$u = …$`` in notation the reader
    refuses (two derivative operators in one term) was dropped, and u read as a free name was refuted.
    Our own line in that style; without the prose definition, the same display is refuted."""
    display = "$$ \\sqrt[3]{u} = 2 $$\n"
    text = (
        "Let $u = \\frac{\\partial}{\\partial y} y \\cdot \\frac{\\partial}{\\partial x} x^2$ be given.\n\n" + display
    )
    r, got = chains(tmp_path, text)
    assert [c["status"] for c in got] == ["bad-input"], r.output
    assert "u is defined in a display mathcheck does not read (line 1)" in got[0]["message"]
    r, got = chains(tmp_path, display)
    assert [c["status"] for c in got] == ["refuted"], r.output


def test_a_law_subscripted_by_its_random_variables_is_the_law_at_their_values(tmp_path):
    """Style of d2l-en information-theory.md:386 (our letters): p_{X, Y}(x, y) is the law of X, Y at x, y;
    E_x E_y {…} (d2l :316) is refused, never the names E_x times E_y."""
    r, got = chains(tmp_path, "$$\\textrm{pmi}(a, b) = \\log\\frac{p_{A, B}(a, b)}{p_A(a) p_B(b)}.$$\n")
    assert [s["expr"] for s in got[0]["steps"]] == ["pmi(a, b)", "log(p(a, b)/(p(a)*p(b)))"], r.output
    r, got = chains(tmp_path, "$$I(A, B) = E_{a} E_{b} \\left\\{ \\log u(a, b) \\right\\}.$$\n")
    assert got[0]["steps"][-1]["expr"] == "(not read)" and "E_x E_y" in got[0]["unread"], r.output


def test_the_law_a_display_states_after_where_is_read_and_a_models_probability_defined(tmp_path):
    r"""Issue 29: style of d2l-en weight-decay.md:228 and linear-regression.md:571 (the noise's law after
    "where") and cs231n linear-classify.md:285 (the softmax's probability of the label); our own letters."""
    text = (
        "$$z = 3 u + \\eta \\textrm{ where } \\eta \\sim \\mathcal{N}(0, \\tau^2).$$\n\n"
        "$$\nP(c_k \\mid u_k; V) = \\frac{e^{g_{c_k}}}{\\sum_m e^{g_m}}\n$$\n"
    )
    r, got = chains(tmp_path, text)
    assert [c["status"] for c in got] == ["definition"] * 3, r.output
    law, model = got[1], got[2]
    assert [s["expr"] for s in law["steps"]] == ["eta", "Normal(0, tau^2)"] and law["line"] == 1
    assert model["steps"][1]["expr"] == "exp(g[c_k])/Sum(exp(g[m]), (m, 1, N_sum))", r.output
    assert "never unfolded" in model["statement"]["how"]
    # after "where", a law not among the families, or an equation, states no law; P given by a product of
    # P's (independent examples) is a claim, never P defined
    for display in (
        "z = 3 u + \\eta \\textrm{ where } \\eta \\sim \\mathcal{Q}(0, 1).",
        "z = 3 u + \\eta \\textrm{ where } \\eta = 2.",
        "P(C \\mid U) = \\prod_{k=1}^n P(c_k \\mid u_k)",
    ):
        r, got = chains(tmp_path, f"$$\n{display}\n$$\n")
        assert not any(c["steps"] and c["steps"][-1]["expr"].startswith(("Normal", "Q(")) for c in got), r.output
        assert [c["status"] for c in got if "P(C" in display] in ([], ["bad-input"]), r.output


@pytest.mark.parametrize(
    "claim, status",
    [
        (r"\textrm{CE}(U, V) = H(U) + D_{\textrm{KL}}(U\|V)", "inconclusive"),  # v(t) may be 0: said, not proved
        (r"\textrm{CE}(U, V) = H(V) + D_{\textrm{KL}}(U\|V)", "inconclusive"),  # planted: fails at a drawn law
    ],
)
def test_quantities_of_laws_are_read_by_their_definitions_laws_renamed(tmp_path, claim, status):
    """Style of d2l-en information-theory.md:545-550 (our letters): CE, D_KL and H defined by expectations
    under laws; CE(U, V) = H(U) + D_KL(U‖V) read with each quantity's reading, U's law u, V's v."""
    text = (
        "$$H(X) = - E_{x \\sim P} [\\log p(x)].$$\n\n"
        "$$D_{\\textrm{KL}}(P\\|Q) = E_{x \\sim P} \\left[ \\log \\frac{p(x)}{q(x)} \\right].$$\n\n"
        "$$\\textrm{CE}(P, Q) = - E_{x \\sim P} [\\log(q(x))].$$\n\n"
        f"$$\n{claim}\n$$\n"
    )
    r, got = chains(tmp_path, text)
    c = got[-1]
    assert c["status"] == status, r.output
    assert [s["expr"] for s in c["steps"]][0] == "(-E_u(log(v(x)), x))", r.output
    if "H(V)" in claim:
        assert "fails at a drawn" in json.dumps(c), r.output
    else:
        assert "may be 0" in json.dumps(c) and "agrees" in json.dumps(c), r.output


def test_vector_states_are_definitions_saying_what_is_not_read(tmp_path):
    """Style of d2l-en adam.md:25, :29 (our letters): m̂_t = m_t/(1 - γ_1^t) reads alone but not in its
    display (^t: a power or the transpose?) — its definition, saying so; a primed name h_t' likewise."""
    text = (
        "$$\\hat{\\mathbf{m}}_t = \\frac{\\mathbf{m}_t}{1 - \\gamma_1^t} \\textrm{ and } "
        "\\hat{\\mathbf{r}}_t = \\frac{\\mathbf{r}_t}{1 - \\gamma_2^t}.$$\n\n"
        "$$\\mathbf{h}_t' = \\frac{\\alpha \\hat{\\mathbf{m}}_t}{\\sqrt{\\hat{\\mathbf{r}}_t} + \\delta}.$$\n\n"
        "$$2 \\mathbf{h}_t = \\mathbf{h}_t + \\mathbf{h}_t$$\n"
    )
    r, got = chains(tmp_path, text)
    assert [c["status"] for c in got] == ["definition"] * 3 + ["proved"], r.output
    assert [c["steps"][0]["expr"] for c in got[:3]] == ["m_hat_t", "r_hat_t", "h_t′"]
    assert all("^t: a power in t, or the transpose?" in c["unread"] for c in got[:2])
    assert "m_hat_t is defined in a display mathcheck does not read (line 1)" in got[2]["unread"]
    assert got[3]["steps"][0]["expr"] == "2*h_t"  # h_t, not h_t′: another quantity, free


def test_an_aligned_block_of_layers_given_again_and_a_loss_given_a_new_form_are_definitions(tmp_path):
    """Style of d2l-en mlp.md:244-245 (two layers given again, an activation now) and cs231n's
    neural-networks-2.md:272 (a new loss under L_i after prose); our letters. Right after the first
    form, or after prose that says it rewrites it, the same name is a claim, never a definition."""
    layers = "$$\n\\begin{aligned}\n\\mathbf{A} & = \\mathbf{Z} \\mathbf{V}^{(1)},\\\\\n\\mathbf{B} & = \\mathbf{A} \\mathbf{V}^{(2)}.\n\\end{aligned}\n$$\n\n"
    again = layers.replace("\\mathbf{Z} \\mathbf{V}^{(1)}", "\\phi(\\mathbf{Z} \\mathbf{V}^{(1)})")
    prose = (
        "Then we add a nonlinear activation function to each hidden unit, which the prose names here, as follows:\n\n"
    )
    r, got = chains(tmp_path, "$$\\phi(x) = \\mathbf{u}^\\top x$$\n\n" + layers + prose + again)
    assert [c["status"] for c in got] == ["definition"] * 5, r.output
    assert [c["steps"][0]["expr"] for c in got[3:]] == ["A", "B"]
    loss = "$$\nK_i = (g_i - t_i)^2\n$$\n\n"
    new = "$$\nK_i = \\Vert g - t_i \\Vert_2^2\n$$\n"
    r, got = chains(
        tmp_path,
        loss + "For regression one measures instead the squared norm of the difference, for one example:\n\n" + new,
    )
    assert [c["status"] for c in got] == ["definition", "definition"], r.output
    for between in ("", "We can rewrite the same loss in this equivalent form, for the example, as:\n\n"):
        r, got = chains(tmp_path, loss + between + new)
        assert got[-1]["status"] == "bad-input", r.output


def test_the_mutual_information_introduced_by_entropies_is_its_definition(tmp_path):
    """Style of d2l-en information-theory.md:311 then :380 (our prose): I(X, Y) first written in entropies
    is its definition; a later chain in I(X, Y) is still read as the mutual information."""
    text = (
        "$$I(X) = - \\log (q),$$\n\n"  # the self-information first, as d2l's :36
        "$$H(X) = - E_{x \\sim P} [\\log p(x)].$$\n\n"
        "$$\nI(X, Y) = H(X, Y) - H(Y \\mid X) - H(X \\mid Y).\n$$\n\n"
        "$$\nI(X, Y) = H(X) - H(X \\mid Y)\n$$\n"
    )
    r, got = chains(tmp_path, text)
    assert [c["status"] for c in got] == ["definition"] * 3 + ["inconclusive"], r.output
    assert got[2]["steps"][1]["expr"] == "H(X, Y) - H(Y | X) - H(X | Y)"
    assert got[3]["steps"][0]["expr"] == "E_p(log(p(x, y)) - log(p(x)) - log(p(y)))", r.output


def test_a_function_given_again_in_none_of_its_parameters_after_prose_is_a_definition(tmp_path):
    """Style of d2l-en information-theory.md:111 then :115 (the differential entropy; our wording)."""
    first = "$$G(Z) = - \\sum_i u_i \\log u_i$$\n\n"
    again = "$$G(Z) = - \\int_z u(z) \\log u(z) \\; dz.$$\n"
    prose = "If the variable is continuous, we also call the following quantity its differential form, defined by an integral:\n\n"
    r, got = chains(tmp_path, first + prose + again)
    assert [c["status"] for c in got] == ["definition", "definition"], r.output
    assert "give limits" in got[1]["unread"]
    r, got = chains(tmp_path, first + again)  # no prose between: the same G restated, a claim
    assert got[-1]["status"] == "bad-input", r.output
