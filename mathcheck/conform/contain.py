"""User code is contained: every call into it has a time limit, and no way out of it but a return
or an ``Exception`` (which the property reports as a failure).

conform runs the target in-process (it must: it traces the target's ops with dispatch modes and
differentiates through it), so the limit is :mod:`mathcheck.budget`'s: ``SIGALRM`` in the main
thread raises :class:`~mathcheck.budget.BudgetExceeded` (a ``BaseException``, so the target's own
``except Exception`` cannot swallow it) between two bytecodes of the target. A single C call that
never returns to Python cannot be interrupted that way; for that the command line arms
:func:`watchdog`, a thread that ends the process (exit 4, one line) ``GRACE`` seconds past the
limit. No child process is spawned, so there is none to orphan.

Whatever leaves the target other than a return or an ``Exception`` — the limit running out,
``SystemExit`` (``sys.exit(0)`` inside the target), ``KeyboardInterrupt``, ``GeneratorExit`` or any
other ``BaseException`` — becomes :class:`TargetAborted`: conform stops and reports ``error``
(exit 4) in one line naming the target, never a success.

    >>> guarded(lambda: 2 + 2)
    4
    >>> import sys
    >>> try:
    ...     guarded(sys.exit, 0)
    ... except TargetAborted as exc:
    ...     print(str(exc).split(" at ")[0])
    raised SystemExit(0)
"""

from __future__ import annotations

import sys
import threading
import time
from contextvars import ContextVar
from typing import Any

DEFAULT_TIMEOUT = 60.0  # seconds per call into user code; conform's calls take milliseconds
GRACE = 1.0  # the watchdog's margin past the limit, for a call stuck in C

TIMEOUT: ContextVar = ContextVar("conform_timeout", default=DEFAULT_TIMEOUT)
# set (to precision.Widen, already warmed) while the derived properties run: each outermost call into
# the target runs widened to float64, so its formula is held at float64's tolerance (input-dtypes
# checks it as written). A class, not an import here: precision imports what imports this module.
WIDEN: ContextVar = ContextVar("conform_widen", default=None)


class TargetAborted(BaseException):
    """The target did not return: it ran past the time limit or raised a non-``Exception``
    ``BaseException``. A ``BaseException`` itself, so no ``except Exception`` on the way up (the
    property runner's, the precision probe's) mistakes it for a failing property."""


class _Watch:
    """The deadline of the outermost guarded call in progress (``None``: none); read by :func:`watchdog`."""

    deadline: float | None = None
    seconds: float = DEFAULT_TIMEOUT
    depth: int = 0


def guarded(fn, *args, **kwargs) -> Any:
    """``fn(*args, **kwargs)`` within ``TIMEOUT`` seconds; an ``Exception`` passes through (the
    caller reports it), anything else becomes :class:`TargetAborted`."""
    from mathcheck.budget import BudgetExceeded, budget
    from mathcheck.procs import UserCodeExit, describe, user_code

    seconds = TIMEOUT.get()
    outer = _Watch.depth == 0
    widen = _widened(outer)
    if outer:
        _Watch.deadline, _Watch.seconds = time.monotonic() + seconds, seconds
    _Watch.depth += 1
    b = budget(seconds)
    try:
        with b, user_code("the target"), widen:  # procs: tells a user's exit from an error
            return fn(*args, **kwargs)
    except UserCodeExit as exc:  # SystemExit, os._exit, a KeyboardInterrupt no person typed, ...
        cause = exc.__context__ or exc
        if isinstance(cause, TargetAborted):  # a guarded call inside this one: its own report
            raise cause from None
        raise TargetAborted(f"raised {describe(cause)} (a target must return or raise an Exception)") from None
    except TargetAborted:
        raise
    except Exception:
        raise
    except BudgetExceeded as exc:
        if not b.owns(exc):
            raise  # an enclosing budget (the caller's own) ran out: theirs to report
        raise TargetAborted(f"did not return within {seconds:g} s (--timeout {seconds:g})") from None
    finally:
        _Watch.depth -= 1
        if outer:
            _Watch.deadline = None


def _widened(outer: bool):
    """The :data:`WIDEN` mode around the outermost call while it is set, else nothing."""
    import contextlib

    mode = WIDEN.get()
    return mode() if outer and mode is not None else contextlib.nullcontext()


class watchdog:
    """Context manager: a daemon thread that ends the process with exit 4 when a guarded call runs
    ``GRACE`` seconds past its limit (a call stuck in C, which ``SIGALRM`` cannot interrupt, or a
    target that swallows ``BaseException``). Only for the command line: a library caller's process
    is not ours to end. Leaving the block stops the thread."""

    def __init__(self, label: str):
        self.label = label
        self.stop = threading.Event()

    def _watch(self):
        from mathcheck.outcome import exit_code

        while not self.stop.wait(0.1):
            deadline = _Watch.deadline
            if deadline is not None and time.monotonic() > deadline + GRACE:
                sys.stderr.write(
                    f"error: {self.label}: did not return within {_Watch.seconds:g} s "
                    f"(--timeout {_Watch.seconds:g}); stopped\n"
                )
                sys.stderr.flush()
                from mathcheck.procs import exit_now

                exit_now(exit_code("error"))

    def __enter__(self) -> "watchdog":
        threading.Thread(target=self._watch, name="conform-watchdog", daemon=True).start()
        return self

    def __exit__(self, *exc) -> bool:
        self.stop.set()
        return False
