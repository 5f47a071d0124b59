r"""The indicator of a comparison, ``\mathbb{1}(x \ge y)`` (mathcheck.latex.indicator): read as the
grammar's step, the derivative of a maximum proved equal to it wherever that derivative exists, a
planted mistake refuted, and what is not one comparison refused with one line.

Our own transcriptions in the style of cs231n's optimization-2.md:61 (the max gate's local gradients,
written with ``>=``)."""

from __future__ import annotations

import pytest

from mathcheck import derive, latex
from mathcheck.chains import DeriveError


@pytest.mark.parametrize(
    "tex, text",
    [
        (r"\mathbb{1}(u >= v)", "step(u - v)"),  # cs231n writes >=: TeX prints it so, its author means ≥
        (r"\mathbb{1}(u \ge v)", "step(u - v)"),
        (r"\mathbf{1}[u \leq v]", "step(v - u)"),
        (r"\mathbb{1}_{u > 0}", "(1 - step(-u))"),
        (r"\mathbb{1}\{u < v + w\}", "(1 - step(u - (v + w)))"),
        (r"2 \mathbb 1(a \geq b) c", "2*step(a - b)*c"),
    ],
)
def test_the_indicator_of_a_comparison_is_read_as_the_step(tex, text):
    assert latex.translate(tex) == text


@pytest.mark.parametrize(
    "tex",
    [r"\mathbb{1}(u = v)", r"\mathbb{1}(u \ne v)", r"\mathbb{1}(a < b < c)", r"\mathbb{1}(u)", r"\mathbb{1} + u"],
)
def test_an_indicator_of_anything_but_one_comparison_is_refused(tex):
    with pytest.raises(DeriveError, match=r"\\mathbb\{1\} is read over one comparison"):
        latex.translate(tex)


# style of cs231n-optimization-2.md:61 (our letters): the max gate, then its two local gradients
MAX_GATE = r"""
$$
g(p, q) = \max(p, q) \hspace{0.5in} \rightarrow \hspace{0.5in} \frac{\partial g}{\partial p} = \mathbb{1}(p >= q)
\hspace{0.5in} \frac{\partial g}{\partial q} = \mathbb{1}(q >= p)
$$
"""


def _statuses(note: str) -> list[str]:
    return [derive.check_chain(c, seed=0, timeout=60.0).status for c in latex.chains(note, "n.md", markdown=True)]


def test_the_max_gates_gradient_is_proved_and_a_swapped_indicator_refuted():
    # the derivative of max has no value at p = q (a kink): proved wherever it has one; the second
    # gradient given the first one's indicator is the planted mistake
    planted = MAX_GATE.replace(r"= \mathbb{1}(q >= p)", r"= \mathbb{1}(p >= q)")
    assert _statuses(planted) == ["definition", "proved", "refuted"]
