"""Unit tests of conform's shrinker (mathcheck/conform/shrink.py), on properties built here whose
failure region is known exactly, so the smallest failing point is known before shrinking."""

from __future__ import annotations

from mathcheck.conform.property import Outcome, Property, draw
from mathcheck.conform.shrink import run_once, shrink


def _prop(check, sizes=None, minimum=None) -> Property:
    return Property(
        "unit", "softmax-simplex", "a property for the shrinker's tests", check, sizes or {"N": 16}, minimum or {"N": 1}
    )


def _value(ok: bool, ratio: float = 10.0) -> Outcome:
    """A value mismatch ``ratio`` tolerances off (ok: none)."""
    return Outcome(True) if ok else Outcome(False, ratio, 1.0, (0,), 0.0, ratio, "x")


def _raised(name: str = "IndexError") -> Outcome:
    return Outcome(False, float("inf"), note=f"{name}: boom", crashed=True, error=name)


def _recording(rule):
    seen = []

    def check(fn, sizes, gen, simple, variant):
        seen.append((sizes["N"], simple))
        return rule(sizes["N"], simple)

    return check, seen


def test_sizes_shrink_to_the_smallest_that_still_fails():
    check, seen = _recording(lambda n, simple: _value(n < 3))
    prop = _prop(check)
    sizes, simple, outcome = shrink(prop, None, {"N": 16}, 0, None, run_once(prop, None, {"N": 16}, 0, False, None))
    assert sizes == {"N": 3} and not outcome.ok
    assert all(n >= 1 for n, _ in seen)  # never below the property's minimum


def test_a_failure_of_another_kind_is_not_kept():
    # below N = 5 the code raises instead: a different bug, so the shrink stops at 5
    check, _ = _recording(lambda n, simple: _raised() if n < 5 else _value(False))
    prop = _prop(check)
    sizes, _, outcome = shrink(prop, None, {"N": 16}, 0, None, _value(False))
    assert sizes == {"N": 5} and outcome.way() == ("value",)
    # and the other way round: a crash shrinks only to crashes of the same exception type
    check, _ = _recording(lambda n, simple: _raised("IndexError") if n >= 6 else _raised("ValueError"))
    sizes, _, outcome = shrink(_prop(check), None, {"N": 16}, 0, None, _raised("IndexError"))
    assert sizes == {"N": 6} and outcome.error == "IndexError"


def test_a_value_failure_does_not_shrink_to_where_only_rounding_is_left():
    # 100 tolerances off from N = 4 up, 2 tolerances below: the shrink keeps the real bug
    check, _ = _recording(lambda n, simple: _value(False, 100.0 if n >= 4 else 2.0))
    sizes, _, outcome = shrink(_prop(check), None, {"N": 16}, 0, None, _value(False, 100.0))
    assert sizes == {"N": 4} and outcome.ratio() >= 100.0


def test_simple_values_are_kept_only_when_they_still_fail():
    check, _ = _recording(lambda n, simple: _value(n < 2))
    assert shrink(_prop(check), None, {"N": 16}, 0, None, _value(False))[:2] == ({"N": 2}, True)
    check, _ = _recording(lambda n, simple: _value(n < 2 or simple))
    assert shrink(_prop(check), None, {"N": 16}, 0, None, _value(False))[:2] == ({"N": 2}, False)


def test_the_budget_bounds_the_runs():
    check, seen = _recording(lambda n, simple: _value(n < 900))  # 1 and 500 pass, 999 fails
    shrink(_prop(check, {"N": 1000}), None, {"N": 1000}, 0, None, _value(False), budget=3)
    assert len(seen) == 3


def test_a_size_our_side_cannot_take_is_skipped():
    def rule(n, simple):
        if n == 8:
            raise LookupError("no derived formula at N = 8")
        return _value(n < 7)

    check, seen = _recording(rule)
    sizes, _, _ = shrink(_prop(check, minimum={"N": 6}), None, {"N": 16}, 0, None, _value(False))
    assert sizes == {"N": 7} and (8, False) in seen


def test_every_size_shrinks_and_the_draws_are_the_seeds():
    def check(fn, sizes, gen, simple, variant):
        x = draw(gen, sizes["B"], sizes["N"], simple=simple)
        return _value(not (sizes["B"] >= 2 and sizes["N"] >= 3), float(x.abs().sum()) + 1.0)

    prop = _prop(check, {"B": 8, "N": 8}, {"B": 1, "N": 1})
    a = run_once(prop, None, {"B": 8, "N": 8}, 5, False, None)
    assert a.max_abs_err == run_once(prop, None, {"B": 8, "N": 8}, 5, False, None).max_abs_err
    assert a.max_abs_err != run_once(prop, None, {"B": 8, "N": 8}, 6, False, None).max_abs_err
    sizes, simple, out = shrink(prop, None, {"B": 8, "N": 8}, 5, None, _value(False, 1.0))
    assert (sizes, simple) == ({"B": 2, "N": 3}, True) and not out.ok
