"""A worked example is not a claim for every value (issue 28): a rate defined in symbols, then its value
in an example section computed from numbers the prose gives, is read as the author meant it — never
refuted at a free point. Every display here is our own, in the style of the line cited; no text of that
file is copied."""

from mathcheck import derive

TIMEOUT = 60

# style of tex-statnotes-binary_classification.tex:100-117: a rate as a ratio of counts, then a later
# section's value of it from the example's counts, an exact fraction and its rounding
RATE = r"""\section{Rates}
The hit rate is
\begin{equation}
\textrm{HR}=\frac{\textrm{H}}{\textrm{H}+\textrm{M}}
\end{equation}
\subsection{Example}
With the counts above, the hit rate is:
\begin{equation}
\textrm{HR}=\frac{0.002}{0.002+0.007}\approx 0.222
\end{equation}
"""


def _checked(tmp_path, text):
    p = tmp_path / "n.tex"
    p.write_text(text)
    return [derive.check_chain(c, seed=0, timeout=TIMEOUT) for c in derive.read(str(p))]


def test_an_examples_value_of_a_defined_rate_is_its_value_there_never_refuted(tmp_path):
    rate, example, rounding = _checked(tmp_path, RATE)
    assert rate.status == example.status == "definition"
    assert example.chain.steps[1].text == "0.002/(0.002 + 0.007)" and "redefines HR" in example.chain.name
    # the rounding is checked as written (no bound stated: inconclusive, with the bound to state)
    assert rounding.status == "inconclusive" and [s.text for s in rounding.chain.steps] == [
        "0.002/(0.002 + 0.007)",
        "0.222",
    ]


def test_the_examples_arithmetic_is_still_checked(tmp_path):
    # a planted slip in the example: 0.002/0.009 is 0.2222…, not 0.3 — the link between numbers is refuted
    (_, _, slip) = _checked(tmp_path, RATE.replace(r"\approx 0.222", r"= 0.3"))
    assert slip.status == "refuted"


def test_a_link_in_a_defined_rate_and_a_number_is_a_worked_example(tmp_path):
    # in the rate's own section, a link that unfolds it against a number evaluates it at counts the
    # prose gives: inconclusive, saying so — a link that relates names is still a claim, and refuted
    text = (
        RATE.split(r"\subsection")[0]
        + "So\n$$ 2 \\cdot \\textrm{HR} = 0.5 $$\nand\n$$ 2 \\cdot \\textrm{HR} = \\textrm{HR} + 1 $$\n"
    )
    _, example, claim = _checked(tmp_path, text)
    assert example.status == "inconclusive", example
    assert example.steps[1].how.startswith("a worked example: HR at values of H, M its prose gives")
    assert claim.status == "refuted"


def test_an_upright_word_after_a_factor_is_never_dropped_as_a_reason(tmp_path):
    # 2\,\textrm{HR} was read as 2 (the word taken for a reason): a quantity or a unit, refused with a line;
    # after an equals sign it leaves a definition whose right side is not read
    text = RATE.split(r"\subsection")[0] + "So\n$$ 2\\,\\textrm{HR} = 0.5 $$\nand\n$$ y = 2\\textrm{HR} $$\n"
    _, refused, y = _checked(tmp_path, text)
    assert refused.status == "bad-input" and "\\textrm{HR} after a factor: a quantity or a unit?" in refused.message
    assert y.status == "definition" and y.chain.steps[1].text == "(not read)"
