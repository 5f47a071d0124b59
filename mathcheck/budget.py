"""Time budgets that really stop SymPy.

SymPy catches ``Exception`` in places (inside ``simplify``, assumptions, ``evalf``), so a timeout
raised as an ordinary exception can be swallowed and the work goes on. :class:`BudgetExceeded`
derives from ``BaseException`` and is delivered asynchronously: by ``SIGALRM`` in the main thread,
by ``PyThreadState_SetAsyncExc`` in any other thread. SymPy is pure Python, so it is interrupted
between two bytecodes. (A single long C call, such as multiplying two huge integers, finishes first;
:mod:`mathcheck.userexpr.child` runs such work in a forked process it kills when its budget runs out.)

Budgets nest: an inner budget never outlives an outer one, and when an outer deadline fires inside
an inner attempt the exception is re-raised to the outer caller, not mistaken for the inner one's.

    >>> ok, value = attempt(lambda: 1 + 1, seconds=1.0)
    >>> ok, value
    (True, 2)
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from typing import Any, Callable


class BudgetExceeded(BaseException):
    """The time budget ran out. A ``BaseException`` so that ``except Exception`` cannot swallow it."""

    deadline: float = 0.0


_local = threading.local()


def _stack() -> list[float]:
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


_FOREIGN_FILES = ("weakref.py", "_weakrefset.py", "threading.py", "atexit", "logging/__init__.py")
_FOREIGN_NAMES = ("__del__", "_remove_dead_weakref", "_commit_removals", "__enter__", "__exit__")
_RETRY_S = 0.002
_REFIRE_S = 0.05


def _in_foreign_code(frame) -> bool:
    """Whether ``frame`` (or a caller up to the guarded call) is code an exception must not land in:
    a weakref callback, a finaliser, a context manager's entry or exit (a budget's own bookkeeping:
    raised in ``__enter__`` it would leave its deadline behind). Python prints an exception raised
    in a callback as "Exception ignored in ..." and the guarded work goes on, so the alarm waits."""
    f = frame
    while f is not None:
        code = f.f_code
        if code.co_name in _FOREIGN_NAMES or code.co_filename.endswith(_FOREIGN_FILES):
            return True
        if code is attempt.__code__:
            return False  # reached the guarded call: everything below it is ours
        f = f.f_back
    return False


def _on_alarm(signum, frame):
    stack = _stack()
    if not stack:
        return
    if time.monotonic() < min(stack) - 1e-3:  # a stale alarm from a budget that has just closed
        _arm()
        return
    if _in_foreign_code(frame):  # deliver it a moment later, back in the guarded code
        signal.setitimer(signal.ITIMER_REAL, _RETRY_S)
        return
    # If this exception is swallowed (an `except BaseException`, a callback Python reports as
    # "Exception ignored"), the alarm comes again; leaving the budget disarms it.
    signal.setitimer(signal.ITIMER_REAL, _REFIRE_S)
    exc = BudgetExceeded()
    exc.deadline = min(stack)
    raise exc


class _ThreadTimer:
    """Fallback outside the main thread: inject the exception into the thread that owns the budget."""

    def __init__(self):
        self.timer: threading.Timer | None = None

    def arm(self, delay: float, deadline: float, thread_id: int):
        self.cancel()
        kind = type("BudgetExceeded", (BudgetExceeded,), {"deadline": deadline})
        t = threading.Timer(
            max(delay, 0.0),
            ctypes.pythonapi.PyThreadState_SetAsyncExc,
            (ctypes.c_ulong(thread_id), ctypes.py_object(kind)),
        )
        t.daemon = True
        t.start()
        self.timer = t

    def cancel(self):
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def _arm() -> None:
    stack = _stack()
    if _in_main_thread():
        if not stack:
            signal.setitimer(signal.ITIMER_REAL, 0)
            return
        if signal.getsignal(signal.SIGALRM) is not _on_alarm:
            signal.signal(signal.SIGALRM, _on_alarm)
        remaining = min(stack) - time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-6))
    else:
        timer = getattr(_local, "timer", None)
        if timer is None:
            timer = _local.timer = _ThreadTimer()
        if not stack:
            timer.cancel()
            return
        deadline = min(stack)
        timer.arm(deadline - time.monotonic(), deadline, threading.get_ident())


class budget:
    """Context manager: the block is interrupted with :class:`BudgetExceeded` after ``seconds``."""

    def __init__(self, seconds: float):
        self.seconds = float(seconds)
        self.deadline = 0.0

    def __enter__(self) -> "budget":
        self.deadline = time.monotonic() + self.seconds
        _stack().append(self.deadline)
        _arm()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        stack = _stack()
        if self.deadline in stack:
            stack.remove(self.deadline)
        _arm()  # with the stack empty this disarms; _on_alarm ignores a signal already on its way
        return False

    def owns(self, exc: BudgetExceeded) -> bool:
        """Whether ``exc`` is this budget running out (not an enclosing one)."""
        return exc.deadline == self.deadline


def attempt(fn: Callable[[], Any], seconds: float) -> tuple[bool, Any]:
    """Run ``fn()`` within ``seconds``: ``(True, value)``, or ``(False, None)`` when it ran out.

    If an *enclosing* budget runs out meanwhile, its :class:`BudgetExceeded` propagates.
    """
    b = budget(seconds)
    try:
        with b:
            return True, fn()
    except BudgetExceeded as exc:
        if b.owns(exc):
            return False, None
        raise
    finally:  # whatever left the block (an exception in __exit__ included), this budget is closed
        stack = _stack()
        if b.deadline in stack:
            stack.remove(b.deadline)
            _arm()


def attempt_or_why(fn: Callable[[], Any], seconds: float) -> tuple[bool, Any]:
    """:func:`attempt`, with SymPy's failures as answers too: ``(True, value)``, or ``(False, why)`` —
    a time-out or a SymPy exception is no answer (inconclusive), never a crash.

        >>> attempt_or_why(lambda: 1 // 0, 5.0)
        (False, 'failed (ZeroDivisionError)')
    """
    try:
        ok, v = attempt(fn, seconds)
    except (
        TypeError,
        ValueError,
        NotImplementedError,
        AttributeError,
        RecursionError,
        ZeroDivisionError,
        ArithmeticError,
    ) as exc:
        return False, f"failed ({type(exc).__name__})"
    return (True, v) if ok else (False, "ran out of time")
