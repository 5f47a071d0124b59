"""`mathcheck derive` on LaTeX: display math in .tex files and $$ blocks in Markdown, read by our own
tokenizer into the text grammar (never evaluated), hostile input refused in one line, and a corpus
of real derivations that gets the same verdict, link by link, as its plain-text twin."""

import json

import pytest
from click.testing import CliRunner

from mathcheck import chains, derive, latex
from mathcheck.cli import main
from mathcheck.render import accounts
from tests.paths import ROOT

CORPUS = ROOT / "tests" / "latex_corpus"
PAPER = ROOT / "tests" / "fixtures" / "roformer_one_wrong_link.tex"


def chains_of(tmp_path, text, name="d.tex"):
    p = tmp_path / name
    p.write_text(text)
    return derive.read(str(p))


# --- the notation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tex, text",
    [
        (r"\frac{1}{n}\sum_{i=1}^{n} (x_i - \mu)^2", "1/n*Sum((x[i] - mu)^2, (i, 1, n))"),
        (r"\log 2\pi\sigma^2", "log(2*pi*sigma^2)"),
        (r"\sin m\theta", "sin(m*theta)"),
        (r"\sin x \cos y", "sin(x)*cos(y)"),
        (r"\sin^2 x + \cos^2 x", "sin(x)^2 + cos(x)^2"),
        (r"\frac{\partial}{\partial x_i} \sum_{j=1}^{n} x_j^2", "diff(Sum(x[j]^2, (j, 1, n)), x[i])"),
        (r"\frac{\partial^2 (x^3)}{\partial x^2}", "diff((x^3), x, 2)"),
        (r"\frac{d}{dx}\left(x^2\right)", "diff((x^2), x)"),
        # issue 28 (a): what a reader reads, never a precedence lost in splicing strings
        (r"\frac{d}{dx} x \sin x", "diff(x*sin(x), x)"),  # d/dx takes the whole term
        (r"\frac{d}{dx} x^2 \cdot e^{x} + 1", "diff(x^2*exp(x), x) + 1"),  # … up to + or −
        (r"\frac{a}{b}^2", "(a/b)^2"),
        (r"\sqrt[3]{x}^2", "(x^(1/3))^2"),
        (r"x \div \frac{a}{b}", "x/(a/b)"),
        (r"\sin^2 x", "sin(x)^2"),
        (r"\sin^{-1} x", "asin(x)"),  # the inverse, as every textbook writes it; never 1/sin(x)
        (r"\tan^{-1}(x/2)^2", "atan(x/2)^2"),  # as \tan(x/2)^2 is tan(x/2)^2
        (r"(\sin x)^{-1}", "(sin(x))^(-1)"),
        (r"\frac{d}{dx}\frac{d}{dx} x^3", "diff(diff(x^3, x), x)"),
        # digits grouped by a thin space are one number (1\,000 was 1*000 = 0); Unicode as pasted (item 7)
        (r"1\,000 x + 1{,}000{,}000", "1000*x + 1000000"),
        ("𝑚 ⋅ 𝑥 + 𝑊 ∙ ℓ", "m*x + W*ell"),
        (r"\ell_2 + 1", "ell_2 + 1"),
        (r"\sqrt{x} + \sqrt[3]{y}", "sqrt(x) + y^(1/3)"),
        (r"\left| x \right| + |y| + \lvert z \rvert", "Abs(x) + Abs(y) + Abs(z)"),
        (r"\max(a, b) - \min(a, b)", "Max(a, b) - Min(a, b)"),
        (r"\operatorname{softplus}(x) + \mathrm{sigmoid}(x)", "softplus(x) + sigmoid(x)"),
        (r"d_{\text{model}} + d_k + \beta_1", "d_model + d_k + beta_1"),
        (r"\sum_{i=1}^{n}\sum_{j=1}^{n} W_{ij}", "Sum(Sum(W[i, j], (j, 1, n)), (i, 1, n))"),
        (r"\frac{e^{z_j}}{\sum_{k=1}^{n} e^{z_k}}", "exp(z[j])/Sum(exp(z[k]), (k, 1, n))"),
        (r"\prod_{i=1}^{n} p_i", "Product(p[i], (i, 1, n))"),
        (r"\binom{n}{k} + n!", "binomial(n, k) + factorial(n)"),
        (r"\log_2 x + \ln y", "log(x, 2) + log(y)"),
        (r"\tfrac12 x", "1/2*x"),
        (r"2 \cdot 3 \times x", "2*3*x"),
        (r"2(b + c) + x/2 + \sigma \cdot (x)", "2*(b + c) + x/2 + sigma*(x)"),
        (r"\gamma \hat{x} + \beta", "gamma*x_hat + beta"),
        (r"\exp\left( -\frac{(x-\mu)^2}{2\sigma^2} \right)", "exp(-((x - mu)^2)/(2*sigma^2))"),
        (r"\arctan x + \tanh(x)", "atan(x) + tanh(x)"),
        ("σ² ", None),  # a superscript character is not TeX: refused below
    ],
)
def test_notation_is_written_in_the_text_grammar(tex, text):
    if text is None:
        with pytest.raises(chains.DeriveError, match=r"<latex>:1:2: character '²'"):
            latex.translate(tex)
        return
    assert latex.translate(tex) == text


@pytest.mark.parametrize(
    "tex, message",
    [
        (r"\int x\,dx", r"<latex>:1:1: give limits: .* an indefinite integral is read only with limits"),
        (r"\iint_D x\,dA", r"<latex>:1:1: \\iint: double integrals over a region"),
        (r"\nabla f", r"\\nabla without a subscript is a gradient in every variable"),
        # \partial_x f is read (d2l softmax-regression :355's style); a bold subscript is a gradient, \partial alone
        (r"\partial_{\mathbf{x}} f", r"\\partial_x is read over one scalar x or an entry x_j; a gradient"),
        (r"\partial f", r"a derivative is read as .*\\partial_x f"),
        (r"\partial_x", r"\\partial_\{x\} needs something to differentiate after it"),
        (r"x_1 + \cdots + x_n", r"elided terms"),
        (r"\mathrm{Re}(z)", r"\\mathrm\{Re\}: complex parts is not read"),
        (r"\operatorname{softmax}(z)", r"\\operatorname\{softmax\}: a vector or matrix function is not read"),
        (r"\sum_i i", r"\\sum_i: the body uses i other than as a subscript, so the range matters"),
        (r"\sum_{j \ne 2i} x_j", r"an entry or expression as the excluded index is not read"),
        (r"\foo{x}", r"unknown command \\foo; define it with \\newcommand"),
        (r"\frac{1}{", r"this brace is not closed|needs an argument"),
        (r"\sinh^{-1} x", r"sinh\^\{-1\}: an inverse mathcheck does not know"),
        (r"x^T y", r"\^T reads as a transpose"),
        (r"10 000", r"two numbers side by side \(10 000\)"),
        (r"x^{\top} y", r"\^T reads as a transpose"),
        (r"W^{\mathsf{T}}", r"\^T reads as a transpose"),
        # d2l-en writes layers as W^{(1)}: read as a power, W^{(2)} = W^{(1)} W^{(1)} was proved
        (r"X W^{(1)} + b^{(1)}", r"a superscript in parentheses, \^\{\(1\)\}, is a label"),
        # bench/latex_fuzz.py case 5305: SymPy's print of a product of two derivatives has no one reading
        (r"\frac{d}{d z} z \frac{\partial}{\partial x} x z", r"a derivative operator inside the term another"),
        (r"1/2x", r"<latex>:1:2: a/bc is ambiguous"),
        (r"a^b^c", r"a double superscript"),
    ],
)
def test_what_is_out_is_one_line_naming_it(tex, message):
    with pytest.raises(chains.DeriveError, match=message) as exc:
        latex.translate(tex)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "tex, text",
    [
        # issue 28 (item 2): a name applied is an unknown function, never a product (\zeta(x) = \zeta x)
        (r"f(x + y)", "f(x + y)"),
        (r"\zeta(x)", "zeta(x)"),
        (r"a(b + c)", "a(b + c)"),
        (r"\sigma(x)", "sigma(x)"),  # σ undefined: an unknown function (docs/latex.md)
        (r"L(\theta)", "L(theta)"),
        (r"\log p(x)", "log(p(x))"),
        (r"g_\phi(x)", "g_phi(x, phi)"),  # a parameter in the subscript: g depends on it
        (r"\mathrm{CE}(y, \hat{y})", "CE(y, y_hat)"),
        (r"\operatorname{LSE}(x) + \operatorname{LSE}'(x)", "LSE(x) + prime(LSE(x))"),
        (r"f'(g(x))\,g'(x)", "prime(f(g(x)))*prime(g(x))"),
        (r"f''(x)", "prime(f(x), 2)"),
        (
            r"\mathrm{sigmoid}(x) + \text{sigmoid}(x) + \operatorname{softplus}(x)",
            "sigmoid(x) + sigmoid(x) + softplus(x)",
        ),
        # issue 28 (item 3): the derivative of an undefined name is an unknown function's, never 0
        (r"\frac{dz}{dx}", "diff(z(x), x)"),
        (r"\frac{d}{dx} y", "diff(y(x), x)"),
        (r"\frac{\partial L}{\partial w_{ij}}", "diff(L(w_ij), w_ij)"),
    ],
)
def test_unknown_functions_are_read(tex, text):
    assert latex.translate(tex) == text


# --- blocks, rows, reasons, lines ------------------------------------------------------------------

ALIGN = r"""\documentclass{article}
\begin{document}
% assume: x \in \mathbb{R}
\begin{align}
  (x + 1)^2 &= x^2 + 2x + 1 \quad\text{(expand)} \label{eq:sq} \\
            &= x^2 + x
               + x + 1 \nonumber \\
  \intertext{and a square is nonnegative, so}
            &\ge 2x + 1 && \text{drop $x^2$} \\
            &\geq 2x + 1 - x^2 \tag{$x^2 \ge 0$}
\end{align}
\end{document}
"""


def test_align_rows_relations_reasons_and_source_lines(tmp_path):
    (chain,) = chains_of(tmp_path, ALIGN)
    assert (chain.name, chain.line, chain.relation, chain.assumptions) == ("eq:sq", 4, ">=", {"x": ("real",)})
    assert [(s.line, s.relation, s.text, s.reason) for s in chain.steps] == [
        (5, None, "(x + 1)^2", ""),
        (5, "=", "x^2 + 2*x + 1", "expand"),
        (6, "=", "x^2 + x + x + 1", ""),  # a row starting with + goes on
        (9, ">=", "2*x + 1", "and a square is nonnegative, so; drop x^2"),
        (10, ">=", "2*x + 1 - x^2", "x^2 \\ge 0"),
    ]
    assert [s.source for s in chain.steps[1:3]] == ["= x^2 + 2x + 1", "= x^2 + x + x + 1"]


@pytest.mark.parametrize(
    "opener, closer",
    [
        ("\\[", "\\]"),
        ("$$", "$$"),
        ("\\begin{equation*}", "\\end{equation*}"),
        ("\\begin{multline}", "\\end{multline}"),
        ("\\begin{equation}\\begin{split}", "\\end{split}\\end{equation}"),
    ],
)
def test_every_display_environment_is_a_chain(tmp_path, opener, closer):
    (chain,) = chains_of(tmp_path, f"{opener} a \\cdot (b + c) = ab + ac {closer}\n")
    assert [s.text for s in chain.steps] == ["a*(b + c)", "a*b + a*c"]


def test_rows_that_start_an_equation_are_separate_chains(tmp_path):
    text = (
        "\\begin{align}\n  a + b &= b + a \\\\\n  c &= c \\cdot 1 \\\\\n    &\\quad + 0 \\\\\n"
        "  &= 0 + c\n\\end{align}\n\\begin{gather}\n x = x \\\\ y = y\n\\end{gather}\n"
        "\\begin{multline}\n  (a + b)^2 = a^2 \\\\\n  {} + 2ab + b^2\n\\end{multline}\n"
    )
    chains = chains_of(tmp_path, text)
    assert [[s.text for s in c.steps] for c in chains] == [
        ["a + b", "b + a"],
        ["c", "c*1 + 0", "0 + c"],
        ["x", "x"],
        ["y", "y"],
        ["(a + b)^2", "a^2 + 2*a*b + b^2"],
    ]
    assert [(c.name, c.line) for c in chains] == [
        ("line 1", 1),
        ("line 3", 3),
        ("line 7", 7),
        ("line 8", 8),
        ("line 10", 10),
    ]


def test_skip_comments_math_without_relation_and_macros(tmp_path):
    text = (
        r"\newcommand{\sq}[1]{{#1}^{2}}"
        "\n"
        r"\newcommand\R{\mathbb{R}}"
        "\n"
        "% mathcheck: skip\n"
        r"\[ f(x) = \mathrm{Attention}(Q, K, V) \]"
        "\n"
        r"\[ \sq{x + 1} \]"
        "\n"
        "% a comment: \\input{no} is not read here\n"
        r"% assume: y \in \R"
        "\n"
        r"\[ \sq{y} = y y \]"
        "\n"
    )
    (chain,) = chains_of(tmp_path, text)
    assert chain.assumptions == {"y": ("real",)}
    assert [s.text for s in chain.steps] == ["(y)^2", "y*y"]


def test_directives_in_latex_notation(tmp_path):
    text = "\n".join(
        [
            r"% assume: x, z \in \mathbb{R}; q \in \mathbb{Z}_{>0}; \sigma > 0; p_i > 0; r \ge 0",
            r"% given: \sum_{j=1}^{n} p_j = 1; 1 \le i \le n",
            r"% let: \phi = sigmoid; \mu = \frac{1}{n}\sum_{j=1}^{n} p_j",
            r"\[ p_i \phi(x z) + \sigma^{q} + r + \mu = p_i \phi(x z) + \sigma^{q} + r + \mu \]",
            "",
        ]
    )
    (chain,) = chains_of(tmp_path, text)
    assert chain.assumptions == {
        "x": ("real",),
        "z": ("real",),
        "q": ("positive", "integer"),
        "sigma": ("positive",),
        "p": ("positive",),
        "r": ("nonnegative",),
        "n": ("positive", "integer"),  # a sum's upper bound is a count (tests/latex/test_reader_sums.py)
    }
    assert chain.given == ((2, "Sum(p[j], (j, 1, n)) = 1"), (2, "1 <= i <= n"))
    assert chain.lets == ((3, "mu = 1/n*Sum(p[j], (j, 1, n))"),)
    assert chain.steps[0].text == "p[i]*sigmoid(x*z) + sigma^q + r + mu"
    derive.validate(chain)  # the parser reads every piece


def test_markdown_reads_dollars_and_align_but_not_code_and_keeps_fences(tmp_path):
    text = "\n".join(
        [
            "# notes",
            "",
            "```",
            "$$ 1 = 2 $$",
            "```",
            "",  # a code block: not math
            "`$$ 3 = 4 $$` inline code",
            "",
            "$$",
            "% assume: x \\in \\mathbb{R}",
            "x^2 - 1 = (x - 1)(x + 1)",
            "$$",
            "",
            "```mathcheck",
            "## text chain",
            "  a*(b + c)",
            "= a*b + a*c",
            "```",
            "",
            "\\begin{align}",
            "  e^{a} e^{b} &= e^{a + b}",
            "\\end{align}",
            "",
        ]
    )
    chains = chains_of(tmp_path, text, "notes.md")
    assert [(c.name, c.line) for c in chains] == [("line 9", 9), ("text chain", 15), ("line 20", 20)]
    assert chains[0].assumptions == {"x": ("real",)} and chains[0].steps[1].line == 11
    assert [s.text for s in chains[2].steps] == ["exp(a)*exp(b)", "exp(a + b)"]


def test_markdown_code_spans_may_wrap_lines(tmp_path):
    text = "Run `mathcheck derive\nnotes.md` on `$$` and `\\begin{align}` blocks.\n\n$$ 2x = x + x $$\n"
    (chain,) = chains_of(tmp_path, text, "n.md")
    assert chain.line == 4


def test_github_inline_math_is_not_a_display_block(tmp_path):
    text = "the d²$`\\mu_{q}^{2}`$$`\\mu_{k}^{2}`$ terms cancel; E\\[X²\\] = 1 costs \\$5\n\n$$ 2x = x + x $$\n"
    (chain,) = chains_of(tmp_path, text, "n.md")
    assert chain.line == 3


def test_a_declared_variable_before_parentheses_is_a_product(tmp_path):
    (chain,) = chains_of(tmp_path, "% assume: p > 0\n\\[ p(1 - p) = p - p^2 \\]\n")
    assert chain.steps[0].text == "p*(1 - p)"


def test_a_subscript_is_an_index_only_where_it_is_bound(tmp_path):
    """d_k outside any sum over k is the name d_k, even though k is summed over elsewhere."""
    text = r"\[ \frac{1}{\sqrt{d_k}} \sum_{k=1}^{n} z_k = \frac{\sum_{k=1}^{n} z_k}{\sqrt{d_k}} \]" "\n"
    (chain,) = chains_of(tmp_path, text)
    assert [s.text for s in chain.steps] == ["1/sqrt(d_k)*Sum(z[k], (k, 1, n))", "Sum(z[k], (k, 1, n))/sqrt(d_k)"]
    inside = r"\[ \sum_{k=1}^{n} \frac{z_k}{d_k} = \sum_{k=1}^{n} z_k d_k^{-1} \]" "\n"  # in scope: an entry
    (chain,) = chains_of(tmp_path, inside)
    assert chain.steps[0].text == "Sum(z[k]/d[k], (k, 1, n))"


def test_an_index_may_be_declared_instead_of_summed(tmp_path):
    text = "% assume: i \\in \\mathbb{Z}_{>0}\n\\[ x_i + x_{i+1} + d_k = x_{i+1} + x_i + d_k \\]\n"
    (chain,) = chains_of(tmp_path, text)
    assert chain.steps[0].text == "x[i] + x[i + 1] + d_k"


def test_approximate_links_carry_their_stated_bound(tmp_path):
    text = r"\[ \sin x \approx x \quad\text{within $10^{-3}$ for small x} \]" "\n"
    (chain,) = chains_of(tmp_path, text)
    assert (chain.relation, chain.steps[1].reason) == ("≈", "within 1e-3 for small x")


def test_a_tex_file_without_a_chain_says_where_to_look(tmp_path):
    p = tmp_path / "prose.tex"
    p.write_text("Only prose and $x$ inline.\n\\[ x^2 \\]\n")
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert (r.exit_code, r.output) == (2, f"error: {p}: no display math with a relation; see docs/latex.md\n")


def test_a_bad_block_fails_only_its_chain(tmp_path):
    text = r"\[ x = \mathrm{Re}(x) \]" "\n" r"\[ 2x = x + x \]" "\n"
    bad, good = chains_of(tmp_path, text)
    assert bad.error.endswith(r"d.tex:1:8: \mathrm{Re}: complex parts is not read (docs/latex.md)")
    assert not good.error and derive.check_chain(good).status == "proved"


# --- the command -----------------------------------------------------------------------------------


def test_cli_reports_each_link_with_path_line_and_latex_source(tmp_path):
    p = tmp_path / "sq.tex"
    p.write_text(
        "% assume: x \\in \\mathbb{R}\n\\begin{align*}\n  (x+1)^2 &= x^2 + 2x + 1 \\\\\n"
        "  &= x^2 + 1 \\quad\\text{(forgot $2x$)}\n\\end{align*}\n"
    )
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 1, r.output
    lines = r.output.splitlines()
    assert lines[0] == f"✘ refuted      {p}:2  line 2"
    assert f"         {p}:3  = x^2 + 2x + 1" in lines
    assert f"         {p}:4  = x^2 + 1" in lines
    assert "         line 4: refuted: symbolic: the sides differ at a point (50 digits)" in lines
    r = CliRunner().invoke(main, ["derive", str(p), "--json"])
    steps = json.loads(r.output)["files"][0]["chains"][0]["steps"]
    assert [(s["line"], s["source"], s["status"]) for s in steps] == [
        (3, "(x+1)^2", "start"),
        (3, "= x^2 + 2x + 1", "proved"),
        (4, "= x^2 + 1", "refuted"),
    ]


LIES = r"""$$ \frac{d}{dx} x \sin x = \sin x $$

$$ \frac{a}{b}^2 = \frac{a}{b^2} $$

$$ \frac{dz}{dx} = \frac{dz}{dy} + \frac{dy}{dx} $$

$$ \sqrt[3]{x}^2 = x^{1/9} $$

$$ x \div \frac{a}{b} = \frac{x}{a b} $$
"""


def test_misreadings_that_proved_false_links_are_read_as_written(tmp_path):
    """Issue 28 (a): each of these was proved (d/dx took only x, a/b^2, dz/dx = 0 = 0 + 0, x^(1/9),
    (x/a)/b); now each is refuted as its author wrote it, or refused, and the report shows the reading."""
    p = tmp_path / "lies.md"
    p.write_text(LIES)
    r = CliRunner().invoke(main, ["derive", str(p), "--json"])
    got = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in got] == ["refuted", "refuted", "bad-input", "refuted", "refuted"], r.output
    assert [c["steps"][0]["expr"] for c in got if c["steps"]] == [
        "diff(x*sin(x), x)",
        "(a/b)^2",
        "diff(z(x), x)",
        "(x^(1/3))^2",
        "x/(a/b)",
    ]
    # z, y unknown functions: y is one of x (dy/dx) and a variable (dz/dy) — refused, never 0 = 0 + 0
    assert (
        "y is a function here (dy/d…, read from its derivative) and the variable of another derivative"
        in (got[2]["message"])
    )
    assert "state it before the display, e.g. with $y = g(x)$ and $z = f(y)$" in got[2]["message"]
    text = CliRunner().invoke(main, ["derive", str(p)]).output
    assert "       diff(x*sin(x), x)" in text and "       (a/b)^2" in text  # the link as read, shown


def test_a_defined_name_may_be_differentiated(tmp_path):
    p = tmp_path / "s.md"
    p.write_text("$$\n% let: s = \\frac{1}{1 + e^{-z}}\n\\frac{ds}{dz} = s(1 - s)\n$$\n")
    r = CliRunner().invoke(main, ["derive", str(p), "--timeout", "120"])  # a loaded machine is slow, not wrong
    assert r.exit_code == 0, r.output


def test_writeup_marks_each_link_as_typeset(tmp_path):
    out = tmp_path / "checked.md"
    r = CliRunner().invoke(main, ["derive", str(PAPER), "--writeup", str(out)])
    assert r.exit_code == 1
    rows = [x for x in out.read_text().splitlines() if x.startswith("| 2")]
    assert [x.split(" | ")[2] for x in rows] == ["", "✔ proved", "✘ refuted"]
    assert rows[2].startswith(
        r"| 28 | $`= (q_1 k_1 + q_2 k_2)\cos((m - n)\theta) + (q_1 k_2 - q_2 k_1)\sin((n - m)\theta)`$"
    )
    assert "angle-difference formulas — symbolic: the sides differ at a point (50 digits) at `k_1 = " in rows[2]


def test_the_paper_fragment_with_one_wrong_link():
    """RoFormer §3.2.1 (arXiv:2104.09864), 2-D case, with the angle of one sine written (n − m)θ."""
    r = CliRunner().invoke(main, ["derive", str(PAPER)])
    assert r.exit_code == 1, r.output
    lines = r.output.splitlines()
    marks = [x for x in lines if x.startswith("    =")]
    assert [x.split()[-1] if "#" not in x else x.split("#")[0].split()[-1] for x in marks] == ["✔", "✘"]
    i = lines.index("         line 28: refuted: symbolic: the sides differ at a point (50 digits)")
    assert lines[i - 1].endswith(
        r"roformer_one_wrong_link.tex:28  = (q_1 k_1 + q_2 k_2)\cos((m - n)\theta) "
        r"+ (q_1 k_2 - q_2 k_1)\sin((n - m)\theta)"
    )
    assert lines[i + 1].startswith("         counterexample: k_1 = ")


# --- hostile input ---------------------------------------------------------------------------------

HOSTILE = [
    (r"\input{/etc/passwd}", r"h.tex:1:1: \\input is refused"),
    ("\\documentclass{article}\n\\usepackage{amsmath}\n\\input{x}", r"h.tex:3:1: \\input is refused"),
    (r"\[ x = \include{secret} \]", r"h.tex:1:8: \\include is refused"),
    (r"\immediate\write18{rm -rf /}", r"h.tex:1:1: \\immediate is refused"),
    (r"\write18{ls}", r"h.tex:1:1: \\write is refused"),
    (r"\def\x#1{#1} \[ \x{1} = 1 \]", r"h.tex:1:1: \\def is refused"),  # a \def with parameters
    (r"\def\input{1} \[ 1 = 1 \]", r"h.tex:1:1: \\def is refused"),  # never redefines a primitive
    (r"\catcode`\^=7", r"h.tex:1:1: \\catcode is refused"),
    (r"\openout1=x.tex", r"\\openout is refused"),
    (r"\read16 to \x", r"\\read is refused"),
    (r"\newcommand{\input}{x}", r"\\input is refused"),
    (r"\newcommand{\a}{\a} \[ \a = 1 \]", r"h.tex:1:24: \\a: more than 500 macro expansions"),
    (r"\newcommand{\a}{\a\a} \[ \a = 1 \]", r"more than 500 macro expansions"),
    (
        "\\newcommand{\\a}{xxxxxxxxxx}\\newcommand{\\b}{\\a\\a\\a\\a\\a\\a\\a\\a\\a\\a}"
        "\\newcommand{\\c}{\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b}\\newcommand{\\d}{\\c\\c\\c\\c\\c\\c\\c\\c\\c\\c}"
        "\\[ \\d = 1 \\]",
        r"more than (500 macro expansions|20000 tokens)",
    ),
    (r"\[ " + "{" * 200 + "x" + "}" * 200 + " = x \\]", r"braces nested too deeply \(over 40 levels\)"),
    (r"\[ " + "(" * 200 + "x" + ")" * 200 + " = x \\]", r"nested too deeply"),
    (r"\[ " + "x^{" * 100 + "2" + "}" * 100 + " = x \\]", r"nested too deeply"),
    (r"\[ " + r"\frac{1}{" * 60 + "x" + "}" * 60 + r" = x \]", r"nested too deeply"),
    (r"\[ " + r"\sqrt{" * 60 + "x" + "}" * 60 + r" = x \]", r"nested too deeply"),
    (r"\[ x = 1 ", r"h.tex:1:1: \\\[ is not closed by \\\]"),
    ("\\[ 2^{10^{10}} = x \\]", r"exponent too large|number too large"),
]


@pytest.mark.parametrize("text, message", HOSTILE)
def test_hostile_latex_is_one_line_exit_2(tmp_path, text, message):
    import re

    p = tmp_path / "h.tex"
    p.write_text(text + "\n")
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    error = [x for x in r.output.splitlines() if "error" in x]
    assert len(error) == 1 and re.search(message, error[0]), r.output


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    p = tmp_path / "big.tex"
    p.write_text("% filler\n" * 200_000)
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 2 and r.output == f"error: {p}: file too large (1800000 characters, at most 1000000)\n"


def test_macros_in_markdown_are_only_those_in_math(tmp_path):
    text = "prose \\input{x} is just text in Markdown\n\n$$\n\\newcommand{\\two}{2}\n$$\n\n$$ \\two x = x + x $$\n"
    (chain,) = chains_of(tmp_path, text, "n.md")
    assert [s.text for s in chain.steps] == ["2*x", "x + x"]


def test_macros_of_another_file_named_on_the_command_line(tmp_path):
    """Issue 28, item 8: a book's macros in a file of their own (``--macros book.sty``); the file's
    bytes are in the read's cache key, so an edited macro is read again, never the old reading."""
    sty, chapter = tmp_path / "book.sty", tmp_path / "ch1.tex"
    sty.write_text("\\ProvidesPackage{book}\n\\newcommand{\\sq}[1]{{#1}^{2}}\n\\def\\half{\\frac{1}{2}}\n")
    chapter.write_text("\\[ \\half \\sq{x + 1} = \\half x^2 + x + \\half \\]\n")
    r = CliRunner().invoke(main, ["derive", str(chapter), "--macros", str(sty), "--json"])
    assert r.exit_code == 0, r.output
    assert [s["expr"] for s in json.loads(r.output)["files"][0]["chains"][0]["steps"]] == [
        "1/2*(x + 1)^2",
        "1/2*x^2 + x + 1/2",
    ]
    sty.write_text("\\newcommand{\\sq}[1]{{#1}^{3}}\n\\def\\half{\\frac{1}{2}}\n")  # a planted mistake
    r = CliRunner().invoke(main, ["derive", str(chapter), "--macros", str(sty)])
    assert r.exit_code == 1, r.output
    r = CliRunner().invoke(main, ["derive", str(chapter)])  # without the file, \sq is not known
    assert r.exit_code == 2 and "unknown command \\half" in r.output, r.output


@pytest.mark.parametrize(
    "macros, said",
    [
        ("missing.sty", "{d}/missing.sty: no such file"),
        ("bad.sty", "{d}/bad.sty:1:1: \\input is refused"),
    ],
)
def test_a_macros_file_that_cannot_be_read_is_one_line_exit_2(tmp_path, macros, said):
    (tmp_path / "bad.sty").write_text("\\input{other}\n")
    (tmp_path / "ch.tex").write_text("\\[ 2x = x + x \\]\n")
    r = CliRunner().invoke(main, ["derive", str(tmp_path / "ch.tex"), "--macros", str(tmp_path / macros)])
    assert r.exit_code == 2 and len(r.output.splitlines()) == 1, r.output
    assert r.output.startswith("error: " + said.format(d=tmp_path)), r.output


# --- the corpus ------------------------------------------------------------------------------------

CORPUS_FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".tex", ".md"))


def test_corpus_is_half_tex_half_markdown_each_cited_with_a_twin():
    kinds = [p.suffix for p in CORPUS_FILES]
    assert len(CORPUS_FILES) >= 12 and abs(kinds.count(".tex") - kinds.count(".md")) <= 1
    for p in CORPUS_FILES:
        assert "Source:" in p.read_text(), p
        assert p.with_suffix(".derivation").exists(), p


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_gives_its_twins_verdicts_link_by_link(path):
    """0 false proofs (a link marked wrong is refuted), 0 false refutations (no other link is),
    no parse error, and the same verdict on every link as the plain-text twin."""
    tex = derive.check_files([str(path)])
    twin = derive.check_files([str(path.with_suffix(".derivation"))])
    ((_, tex_chains),) = tex.files
    ((_, twin_chains),) = twin.files
    # a definition in the prose ($\mu = …$) is a chain of its own in LaTeX; the twin says it with let
    tex_chains = [c for c in tex_chains if c.status != "definition"]
    assert len(tex_chains) == len(twin_chains)
    for a, b in zip(tex_chains, twin_chains):
        got = [(s.relation, s.status) for s in a.steps]
        assert got == [(s.relation, s.status) for s in b.steps], (a.chain.name, got)
        assert (a.status, a.statement["status"]) == (b.status, b.statement["status"])
        for s in a.steps[1:]:
            assert s.status != "bad-input", accounts.link(s)
            assert (s.status == "refuted") == ("wrong" in s.reason), (path.name, s.line, s.status, accounts.link(s))


PIECES = [
    r"\frac",
    r"\sqrt",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "^",
    "_",
    "x",
    "i",
    "n",
    "1",
    "2",
    "=",
    "&",
    r"\\",
    r"\sum",
    r"\prod",
    r"\left(",
    r"\right)",
    "|",
    r"\lvert",
    r"\rvert",
    r"\log",
    r"\sin",
    r"\partial",
    "d",
    r"\text{a}",
    r"\quad",
    "+",
    "-",
    r"\cdot",
    ",",
    r"\max",
    r"\operatorname{softplus}",
    r"\mathrm{d}",
    "e",
    r"\sigma",
    r"\le",
    r"\approx",
    "!",
    "'",
    r"\tag{t}",
    r"\intertext{w}",
    r"\label{l}",
    r"\begin{aligned}",
    r"\end{aligned}",
    "%",
    "\n",
    r"\newcommand{\a}[1]{#1#1}",
    r"\a",
    "#1",
    r"\hat{x}",
    r"\binom",
    "$$",
    r"\[",
    r"\]",
    "% assume: x > 0\n",
]


def test_token_soup_is_a_chain_or_one_line_never_a_crash():
    """3000 seeded random inputs: each is read into chains (every expression then parsed by the
    whitelist) or refused with a DeriveError; nothing else escapes."""
    import random

    rng = random.Random(0)
    for _ in range(1000):
        s = " ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 25)))
        for text, md in ((f"\\[ {s} \\]", False), (f"$$ {s} $$", True), (s, False)):
            try:
                for c in latex.chains(text, "f.tex", markdown=md):
                    if not c.error:
                        try:
                            derive.validate(c)
                        except chains.DeriveError as exc:
                            assert "\n" not in str(exc)
            except chains.DeriveError as exc:
                assert "\n" not in str(exc) and str(exc).startswith("f.tex:")


pytest_plugins = ["pytester"]


def test_pytest_plugin_keeps_a_papers_chains_green(pytester):
    (pytester.path / "paper.tex").write_text(
        "% assume: x \\in \\mathbb{R}\n\\begin{align}\n  (x + 1)^2 &= x^2 + 2x + 1 \\label{eq:sq}\n\\end{align}\n"
        "% assume: x \\in \\mathbb{R}\n\\begin{align}\n  (x - 1)^2 &= x^2 + 1 \\label{eq:slip}\n\\end{align}\n"
    )
    r = pytester.runpytest_subprocess("--mathcheck-derivations", "paper.tex", "-p", "no:cacheprovider")
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(["*FAILED derive::paper.tex::eq:slip*"])
    assert "paper.tex:7  = x^2 + 1" in r.stdout.str()


# style of d2l-information-theory.md:40 (our own code word and numbers): the first expressions are no
# math the reader reads (a code word in quotes), the last link is arithmetic — checked on its own
UNREAD_HEAD = r"""
$$J(\textrm{"ab"}) = - \ln (q(\textrm{"ab"})) = - \ln \left( \frac{1}{e^3} \right) = 3 \textrm{ nats}.$$
"""


def test_a_readable_tail_after_unreadable_expressions_is_its_own_chain():
    chains = latex.chains(UNREAD_HEAD, "n.md", markdown=True)
    assert [bool(c.error) for c in chains] == [True, False]
    assert [s.text for s in chains[1].steps] == ["-log(1/exp(3))", "3"] and chains[1].steps[1].reason == "nats"
    planted = latex.chains(UNREAD_HEAD.replace("= 3", "= 2"), "n.md", markdown=True)
    assert [derive.check_chain(c, seed=0).status for c in chains[1:] + planted[1:]] == ["proved", "refuted"]


@pytest.mark.parametrize(
    "note",
    [
        # the first expression reads: an unreadable one in the middle stays the chain's error
        r'$$x + x = J(\textrm{"ab"}) = 2x = x + x$$',
        # a condition on a link left out may be the whole chain's hypothesis
        r'$$J(\textrm{"ab"}) = \sqrt{x^2} \quad x \ge 0 \\ = x = \sqrt{x^2}$$',
        # after an arrow the equation is claimed given its premise
        r'$$u = 1 \Rightarrow J(\textrm{"ab"}) = u + 1 = 2$$',
        # the readable head of a chain whose last link carries a condition (maybe the whole chain's)
        r'$$\sqrt{x^2} = x = J(\textrm{"ab"}) \quad x \ge 0$$',
        # a quoted word is a code word, never the start of a reason cutting the row (a + a = 2 was checked)
        r'$$a + a = 2 \textrm{"ab"}(a) = 2a = a + a$$',
    ],
)
def test_an_unreadable_head_is_not_split_off_where_the_tail_needs_it(note):
    chains = latex.chains(note, "n.md", markdown=True)
    assert chains[-1].error and all(c.error or c.definition for c in chains)
