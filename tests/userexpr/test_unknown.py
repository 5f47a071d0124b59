"""Issue 28, items 2 and 3: unknown functions. ``f(x)``, ``L(\\theta)``, ``g_\\phi(x)``,
``\\mathrm{CE}(y, p)``, ``\\operatorname{LSE}(x)`` are undefined functions; a link with them is proved
only if it holds for every function (symbolically, every application a free value; numerically, for
random smooth functions drawn per seed), refuted only with a function that refutes it. The derivative
of an undefined name is an unknown function's, never 0. Every case here is our own."""

import json

import pytest
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.parser import ParseError, parse_many
from mathcheck.userexpr import unknown


def run(tmp_path, text, *args):
    p = tmp_path / "u.md"
    p.write_text(text)
    r = CliRunner().invoke(main, ["derive", str(p), "--timeout", "120", "--json", *args])
    return r, json.loads(r.output)["files"][0]["chains"]


@pytest.mark.parametrize(
    "tex, status",
    [
        (r"\frac{d}{dx} f(g(x)) = f'(g(x))\,g'(x)", "proved"),  # the chain rule, for every f and g
        (r"\frac{d}{dx} f(g(x)) = f'(x)\,g'(x)", "refuted"),  # a wrong chain rule
        (r"\frac{d}{dx} f(x)^2 = 2 f(x) f'(x)", "proved"),
        (r"\frac{d}{dx} \big(f(x) h(x)\big) = f'(x) h(x) + f(x) h'(x)", "proved"),
        (r"\frac{d}{dx} \big(f(x) h(x)\big) = f'(x) h'(x)", "refuted"),  # the product rule misremembered
        (r"f(x)^2 \ge 0", "proved"),
        (r"f(x) = f(-x)", "refuted"),  # not for every f
        (r"\frac{\partial}{\partial \theta} \mathrm{CE}(y, \theta) = \operatorname{LSE}(\theta)", "refuted"),
        (r"\frac{d}{d\phi} g_\phi(x) h(x) = h(x) \frac{\partial g_\phi(x)}{\partial \phi}", "proved"),
        (r"\frac{d}{dx} \operatorname{LSE}(x)^2 = 2 \operatorname{LSE}(x) \operatorname{LSE}'(x)", "proved"),
    ],
)
def test_a_link_with_unknown_functions_holds_for_every_function(tmp_path, tex, status):
    r, got = run(tmp_path, f"$$ {tex} $$\n")
    assert [c["status"] for c in got] == [status], r.output
    if status == "refuted":  # the function that refutes it is named
        assert "fails for the function" in r.output


def test_zeta_of_x_is_never_zeta_times_x(tmp_path):
    _, got = run(tmp_path, "$$ \\zeta(x) = \\zeta x $$\n")
    assert got[0]["status"] == "bad-input" and "zeta is used both as a function" in got[0]["message"]


def test_leibniz_chain_rule_of_undefined_names_is_never_zero_equals_zero(tmp_path):
    """dz/dx = dz/dy + dy/dx was proved as 0 = 0 + 0; y is a function of x and a variable here."""
    r, got = run(tmp_path, "$$ \\frac{dz}{dx} = \\frac{dz}{dy} + \\frac{dy}{dx} $$\n")
    assert got[0]["status"] == "bad-input", r.output


def test_the_chain_rule_reads_once_the_composition_is_stated(tmp_path):
    """Without prose, dz/dx = dz/dy dy/dx is refused naming what to state; stated (style of d2l's
    calculus :361, "suppose that $y=f(u)$ and $u=g(x)$"), it is proved, and the sum is refuted."""
    r, got = run(tmp_path, "$$ \\frac{dv}{dt} = \\frac{dv}{dw} \\frac{dw}{dt} $$\n")
    assert got[0]["status"] == "bad-input", r.output
    assert (
        "w is a function here (dw/d…" in got[0]["message"]
        and "a composition the document does not state" in (got[0]["message"])
    )
    stated = "With $w = h(t)$ and $v = k(w)$:\n\n$$ \\frac{dv}{dt} = \\frac{dv}{dw} \\frac{dw}{dt} $$\n\n"
    r, got = run(tmp_path, stated + "$$ \\frac{dv}{dt} = \\frac{dv}{dw} + \\frac{dw}{dt} $$\n")
    assert [c["status"] for c in got if c["status"] != "definition"] == ["proved", "refuted"], r.output


def test_a_derivative_of_an_undefined_name_is_an_unknown_function_and_a_constant_is_not_refuted(tmp_path):
    r, got = run(tmp_path, "$$ \\frac{dz}{dx} = 1 $$\n\n$$ \\frac{d}{dx} C = 0 $$\n")
    assert [c["steps"][0]["expr"] for c in got] == ["diff(z(x), x)", "diff(C(x), x)"]
    # dz/dx = 1 holds for the z = x + c its author may mean: undecided, never refuted by a random z
    assert [c["status"] for c in got] == ["inconclusive", "inconclusive"], r.output
    assert "C is read as an unknown function, from its derivative" in got[1]["notes"]


def test_sigma_undefined_is_an_unknown_function_but_never_refuted_where_the_sigmoid_holds(tmp_path):
    text = (
        "$$ \\sigma'(x) = \\sigma(x)(1 - \\sigma(x)) $$\n\n$$ \\frac{d}{dx} \\sigma(x)^2 = 2\\sigma(x)\\sigma'(x) $$\n"
    )
    r, got = run(tmp_path, text)
    assert [c["status"] for c in got] == ["inconclusive", "proved"], r.output
    r, got = run(tmp_path, "$$\n% let: \\sigma = sigmoid\n\\sigma'(x) = \\sigma(x)(1 - \\sigma(x))\n$$\n")
    assert [c["status"] for c in got] == ["proved"], r.output


def test_a_defined_function_differentiated_with_primes_and_leibniz(tmp_path):
    r, got = run(
        tmp_path, "$$ f(x) = x^3 $$\n\n$$ f'(x) = 3x^2 $$\n\n$$ \\frac{df}{dx} = 3x^2 $$\n\n$$ f''(x) = 6x $$\n"
    )
    assert [c["status"] for c in got] == ["definition", "proved", "proved", "proved"], r.output


def test_the_verdict_is_reproducible(tmp_path):
    text = "$$ \\frac{d}{dx} f(g(x)) = f'(x)\\,g'(x) $$\n"
    a, _ = run(tmp_path, text)
    b, _ = run(tmp_path, text)
    assert a.output == b.output
    c, _ = run(tmp_path, text, "--seed", "3")
    assert c.output != a.output  # other functions are drawn


def test_the_parser_keeps_a_name_one_thing():
    with pytest.raises(ParseError, match="used both as a function"):
        parse_many(["f(x) + f"], unknown={"f"})
    with pytest.raises(ParseError, match="called with 1 and with 2 arguments"):
        parse_many(["f(x) + f(x, y)"], unknown={"f"})
    with pytest.raises(ParseError, match="unknown function 'f'"):
        parse_many(["f(x)"])  # never an unknown function unless a reader says so


def test_draws_are_seeded_and_smooth():
    import sympy as sp

    f = sp.Function("f", real=True)
    a, b = unknown.draws({f: 1}, 0), unknown.draws({f: 1}, 0)
    assert [str(t[f]) for t in a] == [str(t[f]) for t in b] and len(a) == unknown.DRAWS
    assert len({str(t[f]) for t in a}) == unknown.DRAWS  # different functions


# --- the corpus' refutations that were misreadings (issue 28: 0 false refutations) ----------------
# each is our own transcription in the style of the d2l-en chapter it stands for


def test_a_function_an_unread_display_defines_is_never_refuted_as_unknown(tmp_path):
    """information theory: a function defined with a sum over a set (not read), then G(X) ≤ log k — G is
    one function, not any: bad input naming the display, never refuted. The display is G's definition,
    its right side not read (issue 28: tests/latex/test_reader_definitions_unread.py). Named H, it is
    d2l's entropy, read as a quantity of one joint law (tests/latex/test_reader_entropy.py): with k a
    free symbol that is inconclusive — still never refuted."""
    unread = "$$ {0}(X) = - \\sum_{{x \\in \\mathcal{{X}}}} p(x) \\log p(x) $$\n\nthen\n\n$$ {0}(X) \\leq \\log(k) $$\n"
    r, got = run(tmp_path, unread.format("G"))
    assert [c["status"] for c in got] == ["definition", "bad-input"], r.output
    assert "G is defined in a display mathcheck does not read (line 1)" in got[1]["message"]
    r, got = run(tmp_path, unread.format("H"))
    assert [c["status"] for c in got] == ["definition", "inconclusive"], r.output


@pytest.mark.parametrize(
    "tex, status",
    [
        (r"\left|e^{(k+1)}\right| \leq c (e^{(k)})^2", "bad-input"),  # Newton's error, a label: never exp(k)
        (r"\mathbf{z}_t = (\mathbf{I} - \boldsymbol{\Lambda}) \mathbf{z}_{t-1}", "bad-input"),  # matrices
        (r"\operatorname{ReLU}(x) = \max(x, 0)", "definition"),  # fresh: "defined as the maximum"
        (r"\operatorname{ReLU}(x) + \mathrm{Sigmoid}(x) \ge 0", "proved"),  # the table's, in any case
    ],
)
def test_corpus_misreadings_are_read_or_refused(tmp_path, tex, status):
    r, got = run(tmp_path, f"$$ {tex} $$\n")
    assert [c["status"] for c in got] == [status], r.output


def test_a_leibniz_derivative_at_its_variable_and_a_function_redefined(tmp_path):
    text = (
        "Consider $g(x) = ax^{2}+ bx + c$. Then\n\n$$\n\\begin{aligned}\n\\frac{dg}{dx}(x) & = 2ax + b \\\\\n"
        "\\frac{d^2g}{dx^2}(x) & = 2a.\n\\end{aligned}\n$$\n\n"
        "Recall $f(\\mathbf{x}) = x_1^2 + 2 x_2^2$; we stretch it via\n\n$$ f(\\mathbf{x}) = 0.1 x_1^2 + 2 x_2^2. $$\n\n"
        "$$ \\operatorname{pReLU}(x) = \\max(0, x) + \\alpha \\min(0, x) $$\n"
    )
    r, got = run(tmp_path, text)
    assert [c["status"] for c in got] == ["definition", "proved", "proved", "definition", "definition", "definition"], (
        r.output
    )
    assert got[1]["steps"][0]["expr"] == "diff(g(x), x)"  # g' at x, never g'·x
    assert "redefines f" in got[4]["name"]


def test_function_names_typed_without_a_backslash(tmp_path):
    """A blog's ``s = sigmoid(z)``, ``relu(z) = max(0, z)`` (our own lines in that style): the table's
    functions, never s·i·g·m·o·i·d(z); three letters that spell none are refused, never a product."""
    from mathcheck import latex
    from mathcheck.chains import DeriveError

    assert (
        latex.translate("2*sigmoid(z) - 1 + max(0, z) + tanh(z) + Log(x)")
        == "2*sigmoid(z) - 1 + Max(0, z) + tanh(z) + log(x)"
    )
    with pytest.raises(DeriveError, match=r"abc\(…\): letters side by side"):
        latex.translate("abc(x)")
    r, got = run(
        tmp_path,
        "$$ s = sigmoid(z) = \\frac{1}{1+\\exp(-z)} $$\n$$ \\frac{ds}{dz} = s(1-s) $$\n\n"
        "$$ \\tanh(z) = 2 \\cdot sigmoid(2z) - 1 $$\n",
    )
    # sigmoid(z) = 1/(1 + exp(-z)): the table's sigmoid defined as it is, a definition (docs/latex.md)
    assert [c["status"] for c in got] == ["definition", "definition", "proved", "proved"], r.output


@pytest.mark.parametrize(
    "tex",
    [
        r"\sum_i \alpha_i f(x_i) \geq f\left(\sum_i \alpha_i x_i\right)",  # Jensen, as d2l's convexity.md writes it
        r"f\left(\frac{x + y}{2}\right) \leq \frac{f(x) + f(y)}{2}",  # midpoint convexity
    ],
)
def test_an_inequality_about_an_unknown_function_is_never_refuted(tmp_path, tex):
    """Its truth rests on conditions prose states (f convex, weights on the simplex): a drawn f that
    breaks it shows only that mathcheck did not read them. Our own transcriptions in d2l's style
    (chapter_optimization/convexity.md)."""
    r, got = run(tmp_path, f"$$ {tex} $$\n")
    assert [c["status"] for c in got] == ["inconclusive"], r.output
    assert "holds only under conditions" in r.output


def test_an_equality_about_unknown_functions_is_still_refuted(tmp_path):
    r, got = run(tmp_path, "$$ \\frac{d}{dx} f(g(x)) = f'(g(x)) + g'(x) $$\n")
    assert [c["status"] for c in got] == ["refuted"], r.output


def test_a_derivative_at_a_constant_is_taken_there():
    """f'(3) is f' at 3 once f is drawn: canonical() wrapped the inside of its own Subs again, SymPy
    flattened the two into one simultaneous substitution, and f' was left at a free dummy — each side
    of ``f'(3) = f'(3)`` took its own random value and the identity was refuted."""
    import sympy as sp

    t = sp.Symbol("t")
    (got,) = parse_many(["prime(f(3))"], unknown={"f"})
    (f,) = unknown.arities([unknown.canonical(got)])
    (value,) = unknown.concrete([unknown.canonical(got)], {f: sp.Lambda(t, sp.cos(t))})
    assert value.free_symbols == set() and sp.simplify(value + sp.sin(3)) == 0


@pytest.mark.parametrize(
    "tex, status",
    [
        (r"f'(3) = f'(3)", "proved"),
        (r"f'(3) - f'(3) = 0", "proved"),
        (r"\sum_{j=1}^{3} c_j f'(2) = f'(2) \sum_{j=1}^{3} c_j", "proved"),
        (r"f'(x) = f'(2 x)", "refuted"),  # f'(3) = f'(4), at numbers only, is a function's value: never refuted
    ],
)
def test_derivatives_at_constant_points(tmp_path, tex, status):
    r, got = run(tmp_path, f"$$ {tex} $$\n")
    assert got[0]["status"] == status, (tex, got[0])
