r"""Derivatives and limits as people write them (issue 28 items 2, 3): read as meant, or refused.

Our own transcriptions, in the style of the real files they cite (cs231n's optimization notes, d2l's
calculus and single-variable-calculus chapters); each true link proved for every function where the
author means every function, each planted mistake refuted, and a limit that has no value — or that
could be read as something else — never proved and never refuted.
"""

from __future__ import annotations

import pytest

from mathcheck import derive, latex
from mathcheck.chains import DeriveError
from mathcheck.lazy import sympy as sp
from mathcheck.numeric.precise import NoLimit, approach
from mathcheck.parser import ParseError, parse
from mathcheck.render import accounts
from mathcheck.symbolic.limits import Unsettled, settle

TIMEOUT = 60.0  # per link; the suite runs on a loaded machine


def _reports(note: str):
    return [derive.check_chain(c, seed=0, timeout=TIMEOUT) for c in latex.chains(note, "n.md", markdown=True)]


def _statuses(note: str) -> list[str]:
    return [r.status for r in _reports(note)]


# --- limits: reading ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tex, text",
    [
        (r"\lim_{h \to 0} \frac{f(x + h) - f(x)}{h}", "Limit((f(x + h) - f(x))/h, (h, 0))"),
        (r"\lim_{h\ \to 0} \frac{f(x + h) - f(x)}{h}", "Limit((f(x + h) - f(x))/h, (h, 0))"),  # cs231n's
        (r"\lim_{h \rightarrow 0} \frac{\sin h}{h}", "Limit(sin(h)/h, (h, 0))"),  # d2l calculus.md's
        (r"\lim_{\epsilon \rightarrow 0}\frac{L(4+\epsilon) - L(4)}{\epsilon}", None),
        (r"\lim\limits_{t \to 1} t^2 + 1", "Limit(t^2, (t, 1)) + 1"),  # the body is the term after it
    ],
)
def test_limits_are_read_into_the_text_grammar(tex, text):
    got = latex.translate(tex)
    assert got == (text or "Limit((L(4 + epsilon) - L(4))/epsilon, (epsilon, 0))")


@pytest.mark.parametrize(
    "tex, message",
    [
        (r"\lim_{x \to \infty} \frac{1}{x}", "a limit at infinity is not read"),
        (r"\lim_{h \to 0^+} \frac{1}{h}", "a one-sided limit"),
        (r"\lim f(x)", r"\\lim needs its variable and point"),
        (r"\lim_{h} f(h)", r"\\lim is read as"),
        (r"\lim_{h \to 0}", "needs something after it"),
    ],
)
def test_limits_not_read_are_refused_with_one_line(tex, message):
    with pytest.raises(DeriveError, match=message):
        latex.translate(tex)


def test_the_text_grammar_binds_the_limit_variable():
    e = parse("Limit(((x + h)^2 - x^2)/h, (h, 0)) + h")
    assert isinstance(e, sp.Add) and {s.name for s in e.free_symbols} == {"x", "h"}
    for bad, what in [
        ("Limit(h, (h, oo))", "finite point"),
        ("Limit(h, (h, h))", "finite point"),
        ("Limit(h, h, 0)", "write Limit"),
    ]:
        with pytest.raises(ParseError, match=what):
            parse(bad)


# --- limits: deciding -----------------------------------------------------------------------------------


def test_settle_uses_taylor_for_unknown_functions_and_refuses_what_it_cannot_show():
    x, h = sp.symbols("x h", real=True)
    f, g = sp.Function("f", real=True), sp.Function("g", real=True)
    lim = lambda body: sp.Limit(body, h, 0, dir="+-")  # noqa: E731
    d = settle(lim((f(x + h) - f(x)) / h), 10)
    assert isinstance(d, sp.Subs) and d.point == (x,)
    second = settle(lim((f(x + h) - 2 * f(x) + f(x - h)) / h**2), 10)
    assert second.expr.variable_count[0][1] == 2
    assert settle(lim(((x + h) ** 2 - x**2) / h), 10) == 2 * x
    for body, why in [
        ((f(x + h) - f(x)) / h**3, "does not vanish"),
        ((f(x + h) / g(x + h) - f(x) / g(x)) / h, "denominator"),
        (sp.Abs(h) / h, "two sides differ"),
        (sp.sin(1 / h), "finds none"),
        (f(x + h, x) - f(x, x), "one argument"),
    ]:
        with pytest.raises(Unsettled, match=why):
            settle(lim(body), 10)


def test_approach_is_the_numeric_value_of_a_limit_and_none_where_it_has_none():
    x, h = sp.symbols("x h", real=True)
    v = approach({x: 0.5}, sp.Limit((sp.exp(x + h) - sp.exp(x)) / h, h, 0))
    assert abs(float(v) - float(sp.exp(sp.Rational(1, 2)))) < 1e-15
    for body in (sp.Abs(h) / h, sp.sin(1 / h), 1 / h, 1 / sp.log(sp.Abs(h))):  # the last: too slow to tell
        with pytest.raises(NoLimit):
            approach({x: 0.5}, sp.Limit(body, h, 0))


# cs231n optimization-1.md:171 and optimization-2.md:43 (our transcription of the same display)
CS231N = r"""
The derivative of a function is

$$
\frac{df(x)}{dx} = \lim_{h\ \to 0} \frac{f(x + h) - f(x)}{h}
$$
"""


def test_the_derivative_as_a_limit_is_proved_for_every_function():
    (r,) = _reports(CS231N)
    assert r.status == "proved"
    assert "for every smooth function" in accounts.link(r.steps[1])


@pytest.mark.parametrize(
    "wrong",
    [
        r"\frac{f(x + 2h) - f(x)}{h}",  # twice the derivative
        r"\frac{f(x + h) + f(x)}{h}",  # no limit at all: never proved
        r"\frac{f(x + h) - f(x)}{h^2}",
    ],
)
def test_a_wrong_difference_quotient_is_never_proved(wrong):
    (r,) = _reports(CS231N.replace(r"\frac{f(x + h) - f(x)}{h}", wrong))
    assert r.status in ("refuted", "inconclusive")
    if "2h" in wrong:
        assert r.status == "refuted"


# d2l calculus.md:91, "f'(x) = \lim_{h \rightarrow 0} …": f' is the derivative, so this is the claim that
# the derivative is that limit — proved for every function, as the cs231n display is
D2L_PRIME = r"""
The derivative of $f$ is defined as

$$f'(x) = \lim_{h \rightarrow 0} \frac{f(x+h) - f(x)}{h}.$$

The second derivative is

$$f''(x) = \lim_{h \rightarrow 0} \frac{f(x+h) - 2f(x) + f(x-h)}{h^2}.$$
"""


def test_f_prime_as_a_limit_and_the_second_difference_are_proved():
    assert _statuses(D2L_PRIME) == ["proved", "proved"]
    assert _statuses(D2L_PRIME.replace("- 2f(x) +", "- f(x) +")) == ["proved", "inconclusive"]


# d2l single-variable-calculus.md:119 and :135 (our transcription): L is given inline after a chain
# about every L, then its derivative at 4 as a limit
D2L_L = r"""
We can write this formally as

$$
\frac{L(x+\epsilon) - L(x)}{(x+\epsilon) - x} = \frac{L(x+\epsilon) - L(x)}{\epsilon}.
$$

For instance, suppose that we know that $L(x) = x^{2} + 1701(x-4)^3$; then at $x = 4$

$$
\lim_{\epsilon \rightarrow 0}\frac{L(4+\epsilon) - L(4)}{\epsilon} = 8.
$$
"""


def test_a_limit_of_a_function_given_inline_is_proved_and_a_wrong_value_refuted():
    assert _statuses(D2L_L) == ["proved", "definition", "proved"]
    assert _statuses(D2L_L.replace("= 8.", "= 9.")) == ["proved", "definition", "refuted"]


def test_a_value_of_an_undefined_function_is_never_refuted_for_every_function():
    # without L's definition, the limit is a value of the one L the prose names: never refuted for a random L
    note = D2L_L.replace("suppose that we know that $L(x) = x^{2} + 1701(x-4)^3$; then", "")
    (_, r) = _reports(note)
    assert r.status == "inconclusive"
    assert "given numbers only" in accounts.link(r.steps[1])


@pytest.mark.parametrize(
    "tex, status",
    [
        (r"\lim_{h \to 0} \frac{\sin h}{h} = 1", "proved"),
        (r"\lim_{h \to 0} \frac{(x + h)^2 - x^2}{h} = 2x", "proved"),
        (r"\lim_{h \to 0} \frac{(x + h)^2 - x^2}{h} = x", "refuted"),
        (r"\lim_{h \to 0} \frac{|h|}{h} = 1", "inconclusive"),  # one-sided values differ: no limit
        (r"\lim_{h \to 0} h \sin \frac{1}{h} = 0", "proved"),
        (r"\lim_{h \to 0} \sin \frac{1}{h} = 0", "inconclusive"),
    ],
)
def test_limits_of_known_functions(tex, status):
    assert _statuses(f"$$\n{tex}\n$$\n") == [status]


# --- d2l calculus.md:180: the four rules in one aligned block (our transcription) ---------------------

D2L_RULES = r"""
The following rules hold for any differentiable functions $f$ and $g$, and constant $C$.

$$\begin{aligned} \frac{d}{dx} [C f(x)] & = C \frac{d}{dx} f(x) && \textrm{Constant multiple rule} \\
\frac{d}{dx} [f(x) + g(x)] & = \frac{d}{dx} f(x) + \frac{d}{dx} g(x) && \textrm{Sum rule} \\
\frac{d}{dx} [f(x) g(x)] & = f(x) \frac{d}{dx} g(x) + g(x) \frac{d}{dx} f(x) && \textrm{Product rule} \\
\frac{d}{dx} \frac{f(x)}{g(x)} & = \frac{g(x) \frac{d}{dx} f(x) - f(x) \frac{d}{dx} g(x)}{g^2(x)}
&& \textrm{Quotient rule} \end{aligned}$$
"""


def test_the_four_rules_are_proved_for_every_function():
    # g^2(x) after g(x) is g(x)^2 (as \sin^2 x is sin(x)^2): "g is used both as a function and as a value" before
    assert _statuses(D2L_RULES) == ["proved"] * 4
    assert "g(x)^2" in latex.chains(D2L_RULES, "n.md", markdown=True)[3].steps[1].text


@pytest.mark.parametrize(
    "planted",
    [
        (r"{g^2(x)}", r"{g(x)}"),  # the quotient rule without the square
        (r"g(x) \frac{d}{dx} f(x) - f(x)", r"g(x) \frac{d}{dx} f(x) + f(x)"),  # a sign slip
    ],
)
def test_a_planted_slip_in_the_quotient_rule_is_refuted(planted):
    assert _statuses(D2L_RULES.replace(*planted))[3] == "refuted"


def test_a_squared_name_before_parentheses_stays_a_product_unless_it_is_a_function():
    assert latex.translate(r"a^2(b + c)") == "a^2*(b + c)"
    assert latex.translate(r"g(x) + g^2(x)") == "g(x) + g(x)^2"
    assert latex.translate(r"g(x) + g^{-1}(x)") != "g(x) + g(x)^(-1)"  # an inverse is never a power


# --- d2l single-variable-calculus.md:190/204/215/226: the rules derived with ε (our transcription) ------

D2L_EPSILON = r"""
### Derivative Rules

The key is what happens to $f(x) = \log\left(1+(x-1)^{10}\right)$ when we combine functions.

For the sum rule, consider following chain of reasoning:

$$
\begin{aligned}
f(x+\epsilon) & = g(x+\epsilon) + h(x+\epsilon) \\
& \approx g(x) + \epsilon \frac{dg}{dx}(x) + h(x) + \epsilon \frac{dh}{dx}(x) \\
& = g(x) + h(x) + \epsilon\left(\frac{dg}{dx}(x) + \frac{dh}{dx}(x)\right) \\
& = f(x) + \epsilon\left(\frac{dg}{dx}(x) + \frac{dh}{dx}(x)\right).
\end{aligned}
$$

The product:

$$
\begin{aligned}
f(x+\epsilon) & = g(x+\epsilon)\cdot h(x+\epsilon) \\
& \approx \left(g(x) + \epsilon \frac{dg}{dx}(x)\right)\cdot\left(h(x) + \epsilon \frac{dh}{dx}(x)\right) \\
& = g(x)\cdot h(x) + \epsilon\left(g(x)\frac{dh}{dx}(x) + \frac{dg}{dx}(x)h(x)\right) + \epsilon^2\frac{dg}{dx}(x)\frac{dh}{dx}(x) \\
& = f(x) + \epsilon\left(g(x)\frac{dh}{dx}(x) + \frac{dg}{dx}(x)h(x)\right) + \epsilon^2\frac{dg}{dx}(x)\frac{dh}{dx}(x). \\
\end{aligned}
$$

and more formally the difference quotient

$$
\frac{f(x+\epsilon) - f(x)}{\epsilon} = g(x)\frac{dh}{dx}(x) + \frac{dg}{dx}(x)h(x) + \epsilon \frac{dg}{dx}(x)\frac{dh}{dx}(x),
$$

Finally, with the chain rule:

$$
\begin{aligned}
f(x+\epsilon) & = g(h(x+\epsilon)) \\
& \approx g\left(h(x) + \epsilon \frac{dh}{dx}(x)\right) \\
& \approx g(h(x)) + \epsilon \frac{dh}{dx}(x) \frac{dg}{dh}(h(x))\\
& = f(x) + \epsilon \frac{dg}{dh}(h(x))\frac{dh}{dx}(x),
\end{aligned}
$$
"""


def _links(r) -> list[str]:
    return [s.status for s in r.steps[1:]]


def test_the_rules_derived_with_epsilon_prove_every_equality_for_every_g_h():
    rs = _reports(D2L_EPSILON)
    assert [r.status for r in rs] == [
        "definition",  # f = log(…) in prose
        "definition",  # f(x+ε) = g(x+ε) + h(x+ε): f is g + h from here on
        "inconclusive",  # its ≈ link is measured, not proved
        "definition",
        "inconclusive",
        "inconclusive",  # the difference quotient: "=" up to higher-order terms, never refuted
        "definition",
        "inconclusive",
    ]
    assert rs[1].chain.definition == "f(t) = g(t) + h(t)" and rs[6].chain.definition == "f(t) = g(h(t))"
    assert _links(rs[2])[1:] == ["proved", "proved"]  # the = links, for every g and h
    assert _links(rs[4])[1:] == ["proved", "proved"]
    assert _links(rs[7])[-1] == "proved"
    assert "epsilon*(" in rs[2].steps[2].expr  # ε(…) a product: ε is a value the chain adds to x


@pytest.mark.parametrize(
    "planted",
    [
        (
            r"& = f(x) + \epsilon\left(\frac{dg}{dx}(x) + \frac{dh}{dx}(x)\right).",
            r"& = f(x) + \epsilon\left(\frac{dg}{dx}(x) - \frac{dh}{dx}(x)\right).",
        ),
        (
            r"& = f(x) + \epsilon \frac{dg}{dh}(h(x))\frac{dh}{dx}(x),",
            r"& = f(x) + \epsilon \frac{dg}{dh}(x)\frac{dh}{dx}(x),",
        ),
    ],
)
def test_a_planted_slip_in_an_epsilon_derivation_is_refuted(planted):
    assert "refuted" in [r.status for r in _reports(D2L_EPSILON.replace(*planted))]


def test_the_difference_quotient_after_a_logarithm_f_stays_refused():
    # without the product chain, f is the logarithm of the prose: g, h relate to it only through prose
    note = (
        D2L_EPSILON.split("The product:")[0].split("For the sum rule")[0]
        + D2L_EPSILON.split("and more formally")[1].split("Finally")[0]
    )
    statuses = _statuses(note)
    assert statuses == ["definition", "bad-input"]


def test_a_derivative_at_another_point_is_the_derivative_there():
    assert latex.translate(r"\frac{dg}{dh}(h(x))\cdot \frac{dh}{dx}(x)") == "prime(g(h(x)))*diff(h(x), x)"
    assert latex.translate(r"\frac{d^2 g}{dh^2}(h(x))") == "prime(g(h(x)), 2)"
    assert latex.translate(r"\frac{dg}{dx}(x)") == "diff(g(x), x)"


def test_a_shifted_argument_is_a_definition_only_in_unknown_functions():
    # f(x+1) = (x+1)^2 after f(x) = x^2: a claim about that f, checked (a wrong one refuted)
    note = "Let $f(x) = x^2$.\n\n$$\nf(x+1) = (x+1)^2 = x^2 + 2x + 1\n$$\n"
    assert _statuses(note) == ["definition", "proved"]
    assert _statuses(note.replace("2x + 1", "2x + 2")) == ["definition", "refuted"]


# --- d2l calculus.md:361: the chain rule in Leibniz's notation (our transcription) ----------------------

D2L_CHAIN = r"""
Suppose that $y = f(g(x))$ and that the underlying functions $y=f(u)$ and $u=g(x)$ are both
differentiable. The chain rule states that

$$\frac{dy}{dx} = \frac{dy}{du} \frac{du}{dx}.$$
"""


def test_the_chain_rule_in_leibniz_notation_is_proved_for_every_f_and_g():
    rs = _reports(D2L_CHAIN)
    assert [r.status for r in rs] == ["definition", "definition", "proved"]
    # dy/du is f' at u = g(x): never 0 = 0·0 (y and u constants) nor a free u
    from mathcheck.parser import parse_definition, parse_many

    lets = [parse_definition("y = f(g(x))"), parse_definition("u = g(x)")]
    _, rhs = parse_many(["diff(y, x)", "diff(y, u)*diff(u, x)"], defs=lets, unknown={"f", "g"})
    (at,) = rhs.atoms(sp.Subs)
    assert str(at.point[0]) == "g(x)" and at.expr.expr.func.__name__ == "f"


@pytest.mark.parametrize(
    "planted, status",
    [
        (r"\frac{dy}{du} + \frac{du}{dx}", "refuted"),  # a sum for the product
        (r"\frac{dy}{du}", "refuted"),  # du/dx dropped
    ],
)
def test_a_planted_slip_in_the_leibniz_chain_rule_is_refuted(planted, status):
    assert _statuses(D2L_CHAIN.replace(r"\frac{dy}{du} \frac{du}{dx}", planted))[-1] == status


# style of statnotes logistic.tex:32/64 (our own symbols): u's meaning a sum of two free names, not g(x)
LEIBNIZ_SUM = r"""
With $v = p + c$ we write $$ h = g(p + c) $$

$$ \frac{\partial h}{\partial v} = g'(v) $$
"""


@pytest.mark.parametrize(
    "claim, status",
    [
        (r"g'(v)", "proved"),
        (r"g'(p + c)", "proved"),
        (r"g'(p)", "refuted"),  # planted: g' at the wrong point
    ],
)
def test_leibniz_dh_dv_at_a_meaning_in_two_names_is_taken_there(claim, status):
    # SymPy merged Subs(Subs(g'(ξ), ξ, V), V, p + c) into one simultaneous substitution, leaving g' at a free
    # V drawn as a value of its own: the true g'(v) was refuted
    assert _statuses(LEIBNIZ_SUM.replace("g'(v)", claim))[-1] == status


def test_leibniz_dy_du_is_read_only_where_y_is_written_in_u():
    from mathcheck.parser import parse_definition, parse_many

    lets = [parse_definition("y = sin(u)"), parse_definition("u = x^2")]
    lhs, rhs = parse_many(["diff(y, x)", "diff(y, u)*diff(u, x)"], defs=lets)
    assert sp.simplify(lhs.doit() - rhs.doit()) == 0
    for y in ("x^3", "f(g(x)) + x", "3*x + 3"):
        with pytest.raises(ParseError, match="not written in u's meaning"):
            parse_many(
                ["diff(y, u)"], defs=[parse_definition(f"y = {y}"), parse_definition("u = x^2")], unknown={"f", "g"}
            )


def test_an_inline_name_for_another_generic_f_is_prose_not_a_definition():
    # d2l calculus.md:415/429 (our transcription): an exercise's f(x) = c, then "u = f(x, y, z)" for another f
    note = (
        "1. Prove the rules for (i) $f(x) = c$ and (ii) $f(x) = x^n$.\n"
        "1. Write out the chain rule for the case where $u = f(x, y, z)$ and $x = x(a, b)$.\n"
    )
    assert "bad-input" not in _statuses(note)
    assert _statuses("Let $f(x) = c$. Then $u = f(x) + 1$.\n") == ["definition", "definition"]


def test_a_tensor_prod_operator_is_refused_not_an_unknown_function():
    # d2l backprop.md:141 (our transcription): with dZ/dY read by Leibniz, prod read as an unknown function
    # was refuted by a random prod; the prose defines it on tensors
    note = (
        "Assume $Y=f(X)$ and $Z=g(Y)$. Then\n\n$$\\frac{\\partial Z}{\\partial X} = "
        "\\textrm{prod}\\left(\\frac{\\partial Z}{\\partial Y}, \\frac{\\partial Y}{\\partial X}\\right).$$\n"
    )
    assert _statuses(note)[-1] == "bad-input"
    assert (
        _statuses(
            note.replace("\\textrm{prod}\\left(", "\\left(").replace(", \\frac{\\partial Y}", " \\frac{\\partial Y}")
        )[-1]
        == "proved"
    )


@pytest.mark.parametrize(
    "tex, status",
    [
        (r"\lim_{h \to 0} \frac{f(h)}{h} = f'(0)", "inconclusive"),  # no limit unless f(0) = 0: never proved
        (r"\lim_{t \to x} \frac{t^2 - x^2}{t - x} = 2x", "proved"),
        (r"\lim_{t \to x} \frac{f(t) - f(x)}{t - x} = f'(x)", "proved"),
        (r"\lim_{h \to 0} f(x + h) = f(x)", "proved"),
        (r"\lim_{h \to 0} \frac{f(x+h) - f(x)}{h} = f'(x) + 1", "refuted"),
        (r"\lim_{h \to 0} \frac{e^{h} - 1}{h} = 2", "refuted"),
    ],
)
def test_limits_at_a_moving_point_and_of_unknown_functions(tex, status):
    (r,) = _reports(f"$$\n{tex}\n$$\n")
    assert r.status == status
    if status == "inconclusive":
        assert "a limit has no value" in r.statement.get("note", "") or "limits from the two sides" in accounts.link(
            r.steps[1]
        )


def test_a_derivative_beside_a_limit_is_checked_by_autograd_and_the_limit_approached():
    # d2l single-variable-calculus.md:142's shape with a function the numeric side resolves everywhere
    note = "Let $f(x) = \\sin(x^2)$.\n\n$$\n\\frac{df}{dx}(x) = \\lim_{\\epsilon \\rightarrow 0}\\frac{f(x+\\epsilon) - f(x)}{\\epsilon}.\n$$\n"
    assert _statuses(note) == ["definition", "proved"]
    assert _statuses(note.replace("- f(x)}", "- f(x) + \\epsilon}")) == ["definition", "refuted"]


def test_settle_falls_back_on_the_series_where_sympys_limit_fails():
    x, e = sp.symbols("x epsilon", real=True)
    body = (sp.sin((x + e) ** (x + e)) - sp.sin(x**x)) / e  # SymPy's limit: oo*sign(…) from each side
    v = settle(sp.Limit(body, e, 0, dir="+-"), 20)
    assert sp.simplify(v - sp.diff(sp.sin(x**x), x)) == 0


# --- backprop notes: a net input by its weights (style of tex-backprop-dahoc.tex:143-154) -------------

NET_INPUT = r"""\begin{document}
The net input of output unit $k$: $net_k = \sum_{j=0}^J v_{jk} \tilde{u}_j$

\begin{align*}
\textcolor{blue}{\frac{\partial net_k }{ \partial v_{gk} }} &= \frac{ \partial }{ \partial v_{gk} } \cdot net_k \\
&= \sum_{j=0}^J \frac{ \partial }{ \partial v_{gk} } v_{jk} \tilde{u}_j \\
&= \text{\textcolor{blue}{\framebox{$ \tilde{u}_g $}}}
\end{align*}
\end{document}
"""


def _tex_reports(tmp_path, text):
    p = tmp_path / "n.tex"
    p.write_text(text)
    return [derive.check_chain(c, seed=0, timeout=TIMEOUT) for c in derive.read(str(p))]


def test_a_net_input_by_its_weight_is_read_as_the_notes_mean(tmp_path):
    # net_k a name (n·e·t_k with Euler's e before), v_{jk} in the sum over j the entry v[j, k], the
    # operator applied "\cdot net_k", a boxed result the result, g one of the units 0..J (read without
    # it, the true last link was refuted at g = J + 1)
    defined, chain, planted = _tex_reports(
        tmp_path, NET_INPUT + NET_INPUT.split("\\begin{document}")[1].replace("$ \\tilde{u}_g $", "$ \\tilde{u}_k $")
    )
    assert (defined.status, defined.chain.steps[1].text) == ("definition", "Sum(v[j, k]*u_tilde[j], (j, 0, J))")
    assert [s.text for s in chain.chain.steps] == [
        "(diff(net_k, v[g, k]))",
        "diff(net_k, v[g, k])",
        "Sum(diff(v[j, k]*u_tilde[j], v[g, k]), (j, 0, J))",
        "(u_tilde[g])",
    ]
    assert chain.status == "proved" and chain.chain.given[-1][1] == "0 <= g <= J"
    assert planted.status == "refuted" and planted.steps[-1].status == "refuted"  # the wrong unit's output


@pytest.mark.parametrize(
    "tex, text",
    [
        ("net_m + out", "net_m + o*u*t"),  # three letters with an e inside: the word; without e, letters
        ("x e^{x} + ae^{x}", "x*exp(x) + a*exp(x)"),  # e before ^ stays Euler's number
        (r"\frac{d}{dx} \cdot x^2", "diff(x^2, x)"),
        (r"\frac{\partial}{\partial x} (a_1 b_1)", "diff((a_1*b_1), x)"),
        (r"\sum_i W_{ij} x_i", "Sum(W[i, j]*x[i], (i, 1, N_sum))"),  # j free beside the bound i: an entry
    ],
)
def test_backprop_notation_reads_as_written(tex, text):
    assert latex.translate(tex) == text


def test_a_sum_s_index_used_after_its_body_ends_reads_one_sum_of_those_terms():
    # style of cs231n neural-networks-2.md's logistic loss and its variance of a sum (:112): the sum's
    # index written in a subscript after the body ends at + or -: its author means one sum of all the terms
    assert (
        latex.translate(r"-\sum_k t_{nk} \log(\sigma(g_k)) + (1 - t_{nk}) \log(1 - \sigma(g_k))")
        == "-Sum(t[n, k]*log(sigma(g[k])) + (1 - t[n, k])*log(1 - sigma(g[k])), (k, 1, N_sum))"
    )
    assert (
        latex.translate(r"\sum_i^n [E(w_i)]^2 \text{Var}(x_i) + \text{Var}(x_i)\text{Var}(w_i)")
        == "Sum((E(w[i]))^2*Var(x[i]) + Var(x[i])*Var(w[i]), (i, 1, n))"
    )
    assert latex.translate(r"\sum_k a_k + b_j") == "Sum(a[k], (k, 1, N_sum)) + b_j"
    # a term without the index ends the body: k after it is refused, never read as a free quantity
    with pytest.raises(DeriveError, match="its body ends at '\\+', yet k is used after it"):
        latex.translate(r"\sum_k a_k + c + b_k")


def test_a_text_of_words_stays_a_reason_beside_a_boxed_result(tmp_path):
    (r,) = _tex_reports(tmp_path, "\\[ \\boxed{2x} = \\fbox{$x + x$} \\quad \\text{(twice $x$)} \\]\n")
    assert r.status == "proved" and r.chain.steps[1].reason == "twice x"


# --- a plain E the document defines: the error of backprop notes (style of tex-backprop-dahoc.tex:130,
# :160; E was read only as an expectation) --------------------------------------------------------------

ERROR_E = r"""The squared error of one pattern:
\begin{align*}
E &= \frac{1}{2} \sum_{r=1}^R \left(s_r - u_r \right)^2
\end{align*}
\begin{align*}
\frac{\partial E}{\partial u_c} &= \frac{\partial}{\partial u_c} \cdot \frac{1}{2} \sum_{r=1}^R \left(s_r - u_r\right)^2 \\
&= - (s_c - u_c)
\end{align*}
\[ \frac{\partial E}{\partial u_c} = s_c - u_c \]
"""


def test_a_plain_e_the_document_defines_is_that_quantity(tmp_path):
    defined, chain, planted = _tex_reports(tmp_path, ERROR_E)
    assert (defined.status, defined.chain.steps[0].text) == ("definition", "E_def")
    assert chain.status == "proved" and chain.chain.steps[0].text == "diff(E_def, u[c])"
    assert [g for _, g in chain.chain.given] == ["1 <= c <= R"]  # c one of the outputs: else refuted at c = R + 1
    assert planted.status == "refuted"  # planted: the sign


@pytest.mark.parametrize(
    "text, says",
    [
        (ERROR_E + "\\[ E[X] = 0 \\]\n", "E is a quantity this document defines (line 3), and E(…) or E[…] here"),
        ("\\[ \\frac{\\partial E}{\\partial u} = 1 \\]\n\\[ E = u \\]\n", "a plain E is read only as an expectation"),
        ("% E = u\n\\[ E + 1 = 1 + E \\]\n", "a plain E is read only as an expectation"),  # a comment defines nothing
    ],
)
def test_e_is_the_quantity_only_after_its_definition_and_never_also_an_expectation(tmp_path, text, says):
    p = tmp_path / "n.tex"
    p.write_text(text)
    assert any(says in c.error for c in derive.read(str(p))), [c.error for c in derive.read(str(p))]


def test_e_with_a_subscript_is_a_name():
    assert latex.translate(r"E_0 + E_{j}") == "E_0 + E_j"


# --- \nabla_x of a scalar -----------------------------------------------------------------------------

NABLA = r"""
% assume: w \in \mathbb{R}
\begin{equation}
\nabla_w \left(w^2 + 3 w\right) = 2 w + 3
\end{equation}
"""


def test_nabla_in_a_declared_scalar_is_its_derivative_and_a_slip_refuted():
    # the gradient in one real variable (the issue's \nabla_x f of a scalar): our own example
    assert latex.translate(r"\nabla_{w} \log w + 1", variables=["w"]) == "diff(log(w), w) + 1"
    # \partial_w likewise, the term after it (d2l softmax-regression :355's style); no declaration needed
    assert latex.translate(r"\partial_{w} w \log w + 1") == "diff(w*log(w), w) + 1"
    statuses = [derive.check_chain(c, seed=0, timeout=TIMEOUT).status for c in latex.chains(NABLA, "n.tex")]
    planted = NABLA.replace("= 2 w + 3", "= 2 w")
    statuses += [derive.check_chain(c, seed=0, timeout=TIMEOUT).status for c in latex.chains(planted, "n.tex")]
    assert statuses == ["proved", "refuted"]


@pytest.mark.parametrize("tex", [r"\nabla_w L", r"\nabla_{\mathbf{x}} y", r"\nabla f(x)"])
def test_nabla_of_a_vector_or_an_undeclared_name_is_refused(tex):
    # d2l's \nabla_{\mathbf{x}} y = \mathbf{A} \nabla_{\mathbf{u}} y (calculus.md:373) is of vectors
    with pytest.raises(DeriveError, match=r"\\nabla"):
        latex.translate(tex)


# --- a series to \infty (style of d2l single-variable-calculus.md:443, our own letters) ---------------

SERIES = r"""
$$
e^{u} = \sum_{j=0}^{\infty} \frac{u^{j}}{j!} = 1 + u + \frac{u^2}{2} + \cdots
$$
"""


def test_elided_terms_after_the_series_first_terms_are_its_rest():
    # the written terms are the series' first three, so \cdots is the rest of the same series, from j = 3
    (chain,) = latex.chains(SERIES, "n.md", markdown=True)
    assert chain.steps[1].text == "Sum((u^j)/factorial(j), (j, 0, oo))"
    assert chain.steps[2].text == "1 + u + (u^2)/2 + Sum((u^j)/factorial(j), (j, 3, oo))"
    assert chain.steps[2].source.endswith(r"\cdots") and any("remaining terms" in n for n in chain.notes)


def test_a_series_written_out_is_proved():
    # a series of numbers (cheap to check): 2 = 1 + 1/2 + 1/4 + the rest of the same series
    note = SERIES.replace(r"e^{u}", "2").replace(r"\frac{u^{j}}{j!}", r"\frac{1}{2^{j}}")
    (chain,) = latex.chains(note.replace(r"u + \frac{u^2}{2}", r"\frac{1}{2} + \frac{1}{4}"), "n.md", markdown=True)
    assert chain.steps[2].text == "1 + 1/2 + 1/4 + Sum(1/(2^j), (j, 3, oo))"
    report = derive.check_chain(chain, seed=0, timeout=TIMEOUT)
    assert report.status == "proved" and [s.status for s in report.steps[1:]] == ["proved", "proved"]


@pytest.mark.parametrize(
    "written",
    [
        r"1 + u + \frac{u^2}{3} + \cdots",  # a planted slip in a written term: not the series' own
        r"1 + \frac{u^2}{2} + u + \cdots",  # the terms out of the series' order
        r"1 + \cdots",  # one term: no pattern to hold it to
        r"1 + u + \cdots + \frac{u^9}{9!}",  # the ellipsis between terms: elided, not the rest
    ],
)
def test_elided_terms_that_are_not_the_series_rest_stay_unread(written):
    # style of d2l single-variable-calculus.md:443: never proved, and never refuted on a guess of the rest
    chains = latex.chains(SERIES.replace(r"1 + u + \frac{u^2}{2} + \cdots", written), "n.md", markdown=True)
    assert len(chains) == 2 and "elided terms" in chains[1].error
    assert [s.text for s in chains[0].steps] == ["exp(u)", "Sum((u^j)/factorial(j), (j, 0, oo))"]


def test_a_planted_slip_in_a_series_is_refuted():
    (chain, _) = latex.chains(SERIES.replace("{j!}", "{(j + 1)!}"), "n.md", markdown=True)
    assert derive.check_chain(chain, seed=0, timeout=TIMEOUT).status == "refuted"
