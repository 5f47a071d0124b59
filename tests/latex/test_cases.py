r"""A ``cases`` display of two branches (mathcheck.latex.cases): read as the sum of each branch times
the indicator of its condition, proved where it is the function, a planted slip refuted, and what that
sum would misread refused with one line. Our own examples (the issue's "cases (piecewise) displays")."""

from __future__ import annotations

import pytest

from mathcheck import derive, latex


def _steps(note: str) -> list[str]:
    return [s.text for s in latex.chains(note, "n.md", markdown=True)[0].steps]


@pytest.mark.parametrize(
    "cases, text",
    [
        (r"x & x \ge 0 \\ 0 & \text{otherwise}", "(x)*step(x) + (0)*(1 - step(x))"),
        (r"u & \text{if } u > 0, \\ -u & \text{if } u \le 0.", "(u)*(1 - step(-u)) + (-u)*(1 - (1 - step(-u)))"),
        (r"2t & t \ge 1 \\ 2 & 1 > t", "(2*t)*step(t - 1) + (2)*(1 - step(t - 1))"),
    ],
)
def test_two_branches_are_read_as_the_indicators_sum(cases, text):
    assert _steps(rf"$$ y = \begin{{cases}} {cases} \end{{cases}} $$")[1] == text


@pytest.mark.parametrize(
    "cases, why",
    [
        (r"1 & x > 0 \\ 0 & x = 0 \\ -1 & x < 0", "two branches"),
        (r"1 & x \ge 0 \\ 0 & x \le 0", "complement"),  # both hold at 0
        (r"1 & j \in J \\ 0 & \text{otherwise}", "one comparison"),  # d2l's one-hot y_ij
        (r"\log x & x > 0 \\ 0 & \text{otherwise}", "no value"),  # 0·log x is no 0 at x = 0
        (r"x^{-1} & x > 0 \\ 0 & \text{otherwise}", "no value"),
    ],
)
def test_cases_the_sum_would_misread_are_refused(cases, why):
    (chain,) = latex.chains(rf"$$ \max(x, 0) + 1 = \begin{{cases}} {cases} \end{{cases}} $$", "n.md", markdown=True)
    assert "\\begin{cases}: " in chain.error and why in chain.error


def test_the_absolute_value_by_cases_is_proved_and_a_planted_slip_refuted():
    note = r"$$ |u| = \begin{cases} u & \text{if } u > 0, \\ -u & \text{if } u \le 0. \end{cases} $$"
    planted = note.replace("-u &", "u &")  # the second branch's sign dropped
    chains = latex.chains(note + "\n\n" + planted, "n.md", markdown=True)
    assert [derive.check_chain(c, seed=0, timeout=60.0).status for c in chains] == ["proved", "refuted"]
