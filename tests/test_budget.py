import threading
import time

import pytest

from mathcheck.budget import BudgetExceeded, attempt, budget


def spin():
    while True:
        pass


def swallowing_spin():
    # SymPy has `except Exception` in places; our budget must get through them.
    while True:
        try:
            sum(range(100))
        except Exception:  # noqa: BLE001 - the interrupt must pass through an except Exception
            pass


def test_attempt_returns_value_within_budget():
    assert attempt(lambda: 6 * 7, 1.0) == (True, 42)


@pytest.mark.parametrize("fn", [spin, swallowing_spin])
def test_attempt_stops_runaway_work(fn):
    start = time.perf_counter()
    assert attempt(fn, 0.2) == (False, None)
    assert time.perf_counter() - start < 1.0


def test_budget_exceeded_is_not_an_exception():
    assert issubclass(BudgetExceeded, BaseException)
    assert not issubclass(BudgetExceeded, Exception)


def test_inner_attempts_never_outlive_the_outer_budget():
    def many_inner():
        return [attempt(spin, 0.3) for _ in range(10)]

    start = time.perf_counter()
    assert attempt(many_inner, 0.5) == (False, None)
    assert time.perf_counter() - start < 1.0


def test_outer_budget_propagates_through_inner_attempt():
    with pytest.raises(BudgetExceeded):
        with budget(0.1):
            attempt(spin, 5.0)


def test_attempt_works_outside_the_main_thread():
    out = []
    t = threading.Thread(target=lambda: out.append(attempt(spin, 0.2)))
    t.start()
    t.join(3)
    assert out == [(False, None)]
