import pytest

from mathcheck.outcome import combine
from mathcheck.symbolic.decide import Decision
from mathcheck.verdict import NumericVerdict, mutant_status


@pytest.mark.parametrize(
    "symbolic, numeric, expected",
    [
        ("proved", "passed", "proved"),
        ("inconclusive", "passed", "inconclusive"),  # numeric agreement alone is never a proof
        ("proved", "inconclusive", "inconclusive"),
        ("proved", "refuted", "refuted"),
        ("refuted", "passed", "refuted"),
        ("proved", "error", "error"),
    ],
)
def test_combine(symbolic, numeric, expected):
    assert combine(symbolic, numeric) == expected


def test_mutant_status_keeps_three_values_apart():
    assert mutant_status(Decision(False, "cex"), "passed") == "refuted"
    assert mutant_status(None, "refuted") == "refuted"
    assert mutant_status(Decision(None, "budget"), "passed") == "inconclusive"
    assert mutant_status(Decision(True, "expand"), "passed") == "proved"  # a "mistake" that is true


def test_numeric_status_is_validated():
    with pytest.raises(ValueError):
        NumericVerdict("proved", "ref", 1, 0.0)  # numeric evidence never says "proved"
