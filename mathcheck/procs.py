"""Process lifetime: user code that tries to end the run, and workers that must die with their parent.

**User code cannot end a run as a success.** A claim builder, a ``--from`` module, a ``reference=``
function, a numeric check or a hand-built rule is the user's code; if it raises ``SystemExit``
(``sys.exit(0)``), ``KeyboardInterrupt`` or any other ``BaseException``, or calls ``os._exit`` (or
``posix._exit``, the same function under its module's name),
:func:`user_code` turns that into :class:`UserCodeExit`, an ordinary exception whose message is one
line naming the file and line, which every command reports as ``error`` (exit 4). A time-out
(:class:`mathcheck.budget.BudgetExceeded`, also a ``BaseException``) passes through unchanged: it
stays ``inconclusive``. A real Ctrl-C (SIGINT seen) passes through too: it stops the run.

    >>> import sys
    >>> try:
    ...     with user_code("claim builder"):
    ...         sys.exit(0)
    ... except UserCodeExit as exc:
    ...     print(str(exc).split(" (")[0])
    claim builder ended with SystemExit(0) at <doctest mathcheck.procs[1]>:3

**No orphans.** :func:`die_with_parent`, called in a worker right after ``fork``, asks Linux to
SIGKILL the worker when its parent dies (``prctl(PR_SET_PDEATHSIG)`` via ctypes) and, where that is
unavailable, starts a watchdog thread that polls ``os.getppid()``; either way a ``kill -9`` of the
parent leaves no worker running.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, Iterator

from mathcheck.budget import BudgetExceeded

WATCHDOG_S = 0.5  # how often a worker without prctl checks that its parent lives


class UserCodeExit(Exception):
    """User code tried to end the run (``sys.exit``, ``KeyboardInterrupt``, ``os._exit``, any other
    ``BaseException``); ``str()`` is one line naming where. Reported as ``error`` (exit 4)."""


class _OsExit(BaseException):
    """``os._exit(code)`` called by user code while :func:`user_code` guards it."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code

    def __repr__(self):
        return f"os._exit({self.code!r})"


def where(exc: BaseException) -> str:
    """``file:line`` of the innermost frame that raised ``exc`` (the user's line calling
    ``sys.exit``: the builtin has no frame of its own), or ``an unknown place``."""
    frames = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in frames if f.filename != __file__] or frames
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "an unknown place"


def describe(exc: BaseException) -> str:
    """``SystemExit(0) at my_claims.py:12``: what ended the user's code, and where."""
    return f"{exc!r} at {where(exc)}"


_sigint_seen = False


def _on_sigint(signum, frame):
    global _sigint_seen
    _sigint_seen = True
    raise KeyboardInterrupt


@contextlib.contextmanager
def user_code(what: str) -> Iterator[None]:
    """Run the block as the user's code ``what`` (``claim builder``, ``--from 'f.py'``, ...).

    Any ``BaseException`` but a time-out and a real Ctrl-C becomes :class:`UserCodeExit`; an
    ``os._exit`` in this process is caught as one (in a forked child it exits as asked)."""
    global _sigint_seen
    # os._exit is posix._exit (nt._exit on Windows): whichever name the user calls meets the guard
    posix = sys.modules[os.name]

    real_exit, real_posix_exit, owner, thread = os._exit, posix._exit, os.getpid(), threading.get_ident()
    main = threading.current_thread() is threading.main_thread()
    old_int = signal.getsignal(signal.SIGINT) if main else None
    swap_int = main and old_int is signal.default_int_handler

    def guarded_exit(code):
        # a process the user's code forked ends as it asks; so does another thread (a watchdog of
        # ours ending a process whose user code will not return is not the user's code exiting)
        if os.getpid() != owner or threading.get_ident() != thread:
            real_exit(code)
        raise _OsExit(code)

    os._exit = posix._exit = guarded_exit
    if swap_int:
        _sigint_seen = False
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    except (BudgetExceeded, Exception):
        raise  # a time-out stays inconclusive; an ordinary error is reported by the caller as before
    except KeyboardInterrupt:
        if _sigint_seen:  # Ctrl-C: the person stops the run
            raise
        raise UserCodeExit(_line(what, sys.exc_info()[1])) from None
    except BaseException as exc:  # noqa: BLE001 - SystemExit, os._exit, GeneratorExit, ...: the user's exit
        raise UserCodeExit(_line(what, exc)) from None
    finally:
        os._exit, posix._exit = real_exit, real_posix_exit
        if swap_int:
            signal.signal(signal.SIGINT, old_int)


def _line(what: str, exc: BaseException) -> str:
    return (
        f"{what} ended with {describe(exc)} (user code must return or raise an ordinary exception; "
        f"exiting is an error, never a success)"
    )


# --- workers die with their parent -------------------------------------------------------------------

PR_SET_PDEATHSIG = 1


def _prctl_pdeathsig() -> bool:
    """Linux: SIGKILL this process when the thread that forked it ends. False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def child_dies_with_parent() -> None:
    """A ``preexec_fn`` for ``subprocess``: the child (a ``mathcheck`` run a bench starts, which
    imports nothing of ours before its own work) is SIGKILLed when the thread that started it ends —
    with the whole parent when that is killed (``kill -9`` included), since a thread waiting on the
    child outlives it otherwise. Linux only; elsewhere a no-op."""
    _prctl_pdeathsig()


def _watchdog(parent: int):
    def watch():
        while True:
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGKILL)
            threading.Event().wait(WATCHDOG_S)

    threading.Thread(target=watch, name="mathcheck-parent-watchdog", daemon=True).start()


def die_with_parent(parent: int | None = None) -> str:
    """Call in a worker right after ``fork``: the worker is killed when ``parent`` (the process that
    forked it, by default ``os.getppid()`` now) dies, however it dies (``kill -9`` included).

    ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` where Linux offers it, else a watchdog thread polling
    ``os.getppid()`` every :data:`WATCHDOG_S` s; a parent already gone when it is called kills the
    worker at once. Returns ``"prctl"`` (with the watchdog as well) or ``"watchdog"``."""
    parent = os.getppid() if parent is None else parent
    # PDEATHSIG fires when the *thread* that forked ends: only when the main thread forked (its name
    # survives the fork) does it mean the parent process; the watchdog covers every case
    forked_by_main = threading.current_thread().name == "MainThread"
    how = "prctl" if forked_by_main and _prctl_pdeathsig() else "watchdog"
    _watchdog(parent)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os.kill(os.getpid(), signal.SIGKILL)
    return how


# --- an exit below Python ------------------------------------------------------------------------------

SUPERVISED_EXIT = 4  # the exit code of an error (outcome.py): user code ended the process


def supervise(what: str, code: int = SUPERVISED_EXIT, restore: Callable[[], object] | None = None) -> None:
    """Run the rest of this command in a forked child that this process watches: a command whose
    user code ends the whole process *below* Python — ``ctypes.CDLL(None)._exit(0)``, a segfault,
    the OOM killer — is an error (exit :data:`SUPERVISED_EXIT`), one line on stderr, never a
    success. :func:`user_code` cannot see such an exit: no Python frame runs again.

    The child returns from this call and goes on with the command; at its normal end (``sys.exit``
    or a return, where ``atexit`` runs) it writes one byte to a pipe. The parent waits for it and
    exits with the child's status if the byte came, else with :data:`SUPERVISED_EXIT`. The child
    dies with the parent (:func:`die_with_parent`); the parent forwards SIGTERM and leaves Ctrl-C to
    the child (both are in the terminal's process group). Nothing is supervised when stdout or
    stderr is not a real file (click's ``CliRunner`` captures them in this process's memory) or
    where ``fork`` is missing: the command then runs here, as before.

    ``code``: the exit status of that error (pytest's plugin passes pytest's "internal error", 3,
    since pytest's 4 is a usage error); ``restore``: called in the parent before the line is written,
    to give it back the real stderr (pytest's capture has redirected the descriptors by then)."""
    if not hasattr(os, "fork") or not _real_stdio():
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    parent = os.getpid()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the command goes on here
        os.close(r)
        die_with_parent(parent)
        import atexit

        global _DONE_FD, _DONE_PID
        _DONE_FD, _DONE_PID = w, os.getpid()
        atexit.register(_finished)
        return
    os.close(w)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the child too; it decides
    signal.signal(signal.SIGTERM, lambda signum, frame: os.kill(pid, signal.SIGTERM))
    with os.fdopen(r, "rb") as pipe:
        done = pipe.read(1) == b"1"  # blocks until the child ends (its write end closes)
    _, raw = os.waitpid(pid, 0)
    status = os.waitstatus_to_exitcode(raw)
    if done:
        os._exit(status)
    if restore is not None:
        with contextlib.suppress(Exception):
            restore()
    how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
    sys.stderr.write(
        f"error: {what}: the process running it {how} without finishing its report (an "
        f"exit below Python, such as ctypes' _exit, a crash or a kill, in user code); "
        f"that is an error, never a success\n"
    )
    sys.stderr.flush()
    os._exit(code)


_DONE_FD: int | None = None  # the supervised child's end of the pipe (None: not supervised)
_DONE_PID = 0  # that child: a process it forks inherits the pipe, and must not speak for it


def _finished() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if _DONE_FD is not None and os.getpid() == _DONE_PID:
        with contextlib.suppress(OSError):
            os.write(_DONE_FD, b"1")


def exit_now(code: int) -> None:
    """End this process at once with ``code``, as *our* decision (a watchdog stopping user code
    that will not return): the report is finished, so a supervising parent passes ``code`` on."""
    _finished()
    os._exit(code)


def _real_stdio() -> bool:
    try:
        sys.stdout.fileno(), sys.stderr.fileno()
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return False
    return True


# --- finding orphans (the tests' and the fuzzer's one way to see who is left) -------------------------


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (its workers and what they fork), from one ``ps`` listing."""
    import subprocess

    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True, check=True).stdout
    kids: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = map(int, line.split())
        kids.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie is dead (it only waits for its new parent to read its status)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def kill_alone(proc, grace: float = 5.0) -> list[int]:
    """``kill -9`` the process ``proc`` (a ``subprocess.Popen``) alone, as a user's ``kill -9`` would;
    its descendants still running ``grace`` seconds later (orphans, then killed too)."""
    family = descendants(proc.pid)
    proc.kill()
    proc.communicate()
    deadline = time.monotonic() + grace
    left = family
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = [p for p in family if alive(p)]
    for p in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    return left
