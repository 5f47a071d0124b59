"""The symbolic side in a forked child that runs while the parent does the numeric side.

A child is killed when its budget runs out, so a long C call (``3 ** 10 ** 9``), which
:mod:`mathcheck.budget`'s in-process alarm cannot interrupt, cannot outlive it. :func:`start` and
:func:`join` are separate so that the parent's float64 evaluation overlaps the child's SymPy work;
built on ``os.fork`` and a pipe, without importing ``multiprocessing`` (a single ``check`` should
start as fast as SymPy allows). The answer comes back as JSON (plain data: strings, numbers,
lists, dicts), never as a pickle: nothing the parent reads can run code.

    >>> join(start(lambda: 2 + 2), 5.0)
    ('ok', 4)
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from dataclasses import dataclass
from typing import Any, Callable

from mathcheck.procs import die_with_parent


@dataclass
class Child:
    pid: int
    fd: int
    started: float


def start(fn: Callable[[], Any]) -> Child:
    """Fork; the child sends ``("ok", fn())`` or ``("error", message)`` down a pipe, as JSON, and exits."""
    r, w = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never return into the caller's code
        os.close(r)
        code = 0
        try:
            die_with_parent(parent)  # a killed `check` leaves no child computing on
            try:
                payload = ("ok", fn())
            except BaseException as exc:  # noqa: BLE001 - report anything, including a budget, to the parent
                payload = ("error", f"{type(exc).__name__}: {exc}"[:500])
            try:
                data = json.dumps(payload).encode()
            except Exception as exc:  # noqa: BLE001
                data = json.dumps(("error", f"a result that is not plain data: {exc}"[:500])).encode()
            view = memoryview(data)
            while view:
                n = os.write(w, view)
                view = view[n:]
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    return Child(pid, r, time.monotonic())


def kill(child: Child) -> None:
    """Stop the child now (the caller is leaving: an interrupt, an outer budget)."""
    try:
        os.kill(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.close(child.fd)
    except OSError:
        pass
    os.waitpid(child.pid, 0)


def join(child: Child, seconds: float) -> tuple[str, Any]:
    """Wait until ``seconds`` after the child started: ``("ok", value)``, ``("timeout", None)`` or
    ``("error", message)``; a child still running then is killed."""
    deadline = child.started + seconds
    chunks = []
    state: tuple[str, Any] | None = None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                state = ("timeout", None)
                break
            ready, _, _ = select.select([child.fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(child.fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(child.fd)
        if state is not None:
            try:
                os.kill(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os.waitpid(child.pid, 0)
    if state is not None:
        return state
    try:
        state, value = json.loads(b"".join(chunks))
        return state, value
    except (ValueError, TypeError):  # nothing, or half an answer: the child died before it could answer
        return "error", "the child process died"


def beside(
    symbolic: Callable[[], dict], numeric: Callable[[], dict], seconds: float, patient: bool = True
) -> tuple[dict, dict]:
    """Run ``symbolic()`` in a child for at most ``seconds`` (+1) while ``numeric()`` runs here:
    ``(sym, num)``, where a child that ran out of time or failed is an ``inconclusive`` ``sym`` saying
    why. Unless ``patient``, a numeric refutation gives the symbolic side only one more second (the
    case is decided; its exact account is a bonus). ``numeric`` runs inside the guard: whatever it
    raises, the child is killed first."""
    proc = start(symbolic)
    try:
        num = numeric()
        wait = seconds + 1.0
        if num["status"] == "refuted" and not patient:
            wait = min(wait, time.monotonic() - proc.started + 1.0)
        state, sym = join(proc, wait)
    except BaseException:
        kill(proc)
        raise
    if state != "ok":
        why = "time budget ran out" if state == "timeout" else f"the symbolic check failed: {sym}"
        if state == "timeout" and num["status"] == "refuted":
            why = "stopped: the numeric side had refuted it"
        sym = {"status": "inconclusive", "how": why, "difference": ""}
    return sym, num
