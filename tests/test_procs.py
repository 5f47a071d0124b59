"""mathcheck.procs: user code cannot end a run as a success, and workers die with their parent
(issue 32, items 4 and 5).

A claim builder, a ``--from`` module, a ``reference=`` function or a numeric check that calls
``sys.exit(0)``, raises ``KeyboardInterrupt`` or calls ``os._exit(0)`` is an ``error`` (exit 4) with
one line naming the file and line — in ``prove``/``refute`` (``-j 1`` and ``-j 2``),
``mathcheck.testing`` and the pytest plugin; a time-out stays a time-out. A ``kill -9`` of a parent
leaves none of its workers running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mathcheck.budget import BudgetExceeded, budget
from mathcheck.procs import UserCodeExit, alive, descendants, die_with_parent, user_code

ROOT = Path(__file__).resolve().parents[1]

CLAIM = """
import os, sys
from mathcheck.claim import Body, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim

def leave():
    {exit}

def ref(x):
    {in_reference}
    return 2 * x


@claim(id="exit-case-{n}", title="x + x = 2x", section="§9.99", zh="用户", en="user"{extra})
def build():
    {in_builder}
    x = sp.Symbol("x", real=True)
    return Body(assumptions=("x real",), parts=(Part("p", (Step(x + x, "twice"), Step(2 * x, "sum"))),),
                mutants=(Mutant("three", "3x", (("p", sp.Eq(x + x, 3 * x)),)),
                         Mutant("one", "x", (("p", sp.Eq(x + x, x)),))))
"""
CHECK = """
import os, sys

def leave():
    {exit}

def check(statements, options):
    {in_check}
    raise KeyError("never reached")
"""
EXITS = {
    "sys.exit(0)": "sys.exit(0)",
    "KeyboardInterrupt": "raise KeyboardInterrupt",
    "os._exit(0)": "os._exit(0)",
    "SystemExit()": "raise SystemExit()",
    "posix._exit(0)": "import posix; posix._exit(0)",
}  # os._exit under its module's name
PLACES = ("builder", "reference", "check")


def claim_file(tmp_path, place: str, how: str, n: int = 0) -> Path:
    """A claim module whose ``place`` (builder, reference, check) ends the run with ``how``."""
    extra = {"reference": ", reference=ref", "check": f', check="exit_check_{n}:check"'}.get(place, "")
    (tmp_path / f"exit_check_{n}.py").write_text(
        CHECK.format(in_check="leave()" if place == "check" else "pass", exit=EXITS[how])
    )
    src = CLAIM.format(
        exit=EXITS[how],
        n=n,
        extra=extra,
        **{f"in_{p}": "leave()" if p == place else "pass" for p in PLACES if p != "check"},
    )
    path = tmp_path / f"exit_case_{n}.py"
    path.write_text(src)
    return path


def run(*args, cwd=None, timeout=240):
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{cwd or ''}"}
    return subprocess.run(
        [sys.executable, "-m", "mathcheck", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
    )


@pytest.mark.parametrize("how", list(EXITS))
@pytest.mark.parametrize("place", PLACES)
def test_user_code_that_exits_is_an_error_in_prove(tmp_path, place, how):
    path = claim_file(tmp_path, place, how)
    r = run("prove", "--from", str(path), "--no-cache", cwd=str(tmp_path))
    assert r.returncode == 4, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    out = r.stdout + r.stderr
    where = path.with_name("exit_check_0.py") if place == "check" else path
    assert f"{where}:" in out and ("exit" in out or "KeyboardInterrupt" in out), out


def test_a_builder_that_hangs_is_an_error_not_a_hang(tmp_path, monkeypatch):
    """A builder that never returns ran until killed; past BUILD_SECONDS it is an error (exit 4)."""
    from click.testing import CliRunner

    from mathcheck import registry
    from mathcheck.cli import main

    path = tmp_path / "hangs.py"
    path.write_text(
        CLAIM.format(exit="pass", n=17, extra="", in_reference="pass", in_builder="while True:\n        pass")
    )
    monkeypatch.setattr(registry, "BUILD_SECONDS", 1.0)
    r = CliRunner().invoke(main, ["prove", "--from", str(path), "--no-cache", "exit-case-17"])
    assert r.exit_code == 4, r.output
    assert "the builder of claim 'exit-case-17' did not return within 1 s" in r.output


def test_a_from_module_that_exits_while_loading_is_an_error(tmp_path):
    path = tmp_path / "leaves.py"
    path.write_text("import sys\nsys.exit(0)\n")
    r = run("prove", "--from", str(path), "--no-cache")
    assert r.returncode == 4 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and f"{path}:2" in r.stderr and "SystemExit(0)" in r.stderr, r.stderr


@pytest.mark.parametrize("how", ["sys.exit(0)", "os._exit(0)", "posix._exit(0)"])
def test_a_builder_that_exits_in_a_worker_is_an_error_with_j2(tmp_path, how):
    a, b = claim_file(tmp_path, "builder", how, 0), claim_file(tmp_path, "builder", "KeyboardInterrupt", 1)
    for kind in ("prove", "refute"):
        r = run(kind, "--from", str(a), "--from", str(b), "-j", "2", "--no-cache", cwd=str(tmp_path))
        assert r.returncode == 4 and "Traceback" not in r.stderr, (kind, r.stdout, r.stderr)
        assert f"{a}:" in r.stdout and f"{b}:" in r.stdout, r.stdout


BELOW_PYTHON = "import ctypes; ctypes.CDLL(None)._exit(0)"  # no Python frame runs again: user_code cannot see it


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_exit_below_python_is_an_error_in_prove(tmp_path, place, jobs):
    """ctypes' _exit(0) ends the process with status 0 and no report; the CLI's supervisor
    (procs.supervise) sees the report unfinished: exit 4, one line naming the command."""
    EXITS["ctypes _exit(0)"] = BELOW_PYTHON
    try:
        path = claim_file(tmp_path, place, "ctypes _exit(0)")
    finally:
        del EXITS["ctypes _exit(0)"]
    for kind in ("prove", "refute"):
        r = run(kind, "--from", str(path), "--no-cache", "-j", jobs, cwd=str(tmp_path))
        assert r.returncode == 4, (kind, r.returncode, r.stdout, r.stderr)
        assert r.stderr.count("\n") == 1 and f"{kind} --from {path}:" in r.stderr, r.stderr
        assert "below Python" in r.stderr and "Traceback" not in r.stderr


def test_an_exit_below_python_is_an_error_in_conform(tmp_path):
    target = tmp_path / "leaves.py"
    target.write_text(f"def softmax(x, dim=-1):\n    {BELOW_PYTHON}\n")
    r = run("conform", f"{target}:softmax", "--kind", "softmax", cwd=str(tmp_path))
    assert r.returncode == 4, (r.returncode, r.stdout, r.stderr)
    assert "below Python" in r.stderr and "Traceback" not in r.stderr


def test_the_supervisor_passes_a_finished_report_through(tmp_path):
    """A normal run under the supervisor: its own output and exit code, unchanged."""
    path = claim_file(tmp_path, "builder", "sys.exit(0)")  # the exit is never called: in_builder is "leave()"...
    path.write_text(path.read_text().replace("    leave()\n    x = sp.Symbol", "    x = sp.Symbol"))
    r = run("prove", "--from", str(path), "--no-cache", "exit-case-0", cwd=str(tmp_path))
    assert r.returncode == 0 and "exit-case-0" in r.stdout and "proved" in r.stdout and r.stderr == "", r


def test_testing_and_the_pytest_plugin_report_an_exit_as_a_failure(tmp_path):
    from mathcheck import testing

    path = claim_file(tmp_path, "builder", "sys.exit(0)", 7)
    with pytest.raises(testing.ClaimFailed, match="SystemExit"):
        testing.assert_proved("exit-case-7", from_=str(path))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--mathcheck-from",
            str(claim_file(tmp_path, "reference", "sys.exit(0)", 8)),
        ],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        timeout=240,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 1 and "2 failed" in r.stdout and "SystemExit" in r.stdout, r.stdout[-2000:]
    module = tmp_path / "leaves.py"
    module.write_text("raise KeyboardInterrupt\n")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--mathcheck-from", str(module)],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        timeout=240,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 4 and "KeyboardInterrupt" in r.stderr + r.stdout, (r.stdout, r.stderr)


@pytest.mark.parametrize("how, n", [("os._exit(0)", 5), ("posix._exit(0)", 15)])
def test_an_os_exit_is_a_failure_in_testing_and_the_pytest_plugin(tmp_path, how, n):
    """``os._exit(0)`` ends a process with status 0 and runs no clean-up: unguarded, a test session
    would end "green" with no report. It is a failure naming the file, in both."""
    from mathcheck import testing

    # each its own claim id: assert_proved registers it in this process, which runs other tests too
    path = claim_file(tmp_path, "builder", how, n)
    with pytest.raises(testing.ClaimFailed, match=rf"os\._exit\(0\) at .*exit_case_{n}\.py:\d+"):
        testing.assert_proved(f"exit-case-{n}", from_=str(path))
    checked = claim_file(tmp_path, "check", how, 6)
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--mathcheck-from", str(checked)],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        timeout=240,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"},
    )
    assert r.returncode == 1 and "failed" in r.stdout and "os._exit(0) at" in r.stdout, r.stdout[-2000:]
    assert "exit_check_6.py:" in r.stdout, r.stdout[-2000:]


def test_a_time_out_passes_through_user_code_unchanged():
    with pytest.raises(BudgetExceeded):
        with budget(0.2):
            with user_code("a slow builder"):
                time.sleep(5)
    with pytest.raises(ValueError):  # an ordinary error is the caller's to report, as before
        with user_code("a builder"):
            raise ValueError("mine")
    with pytest.raises(UserCodeExit, match=r"GeneratorExit\(\) at .*test_procs.py:\d+"):
        with user_code("a builder"):
            raise GeneratorExit()


def _workers_die_with(cmd, want: int, tmp_path) -> list[int]:
    """Start ``cmd``, wait for ``want`` worker processes, kill -9 the parent; the workers alive 5 s later."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MATHCHECK_CACHE_DIR": str(tmp_path / "cache")}
    parent = subprocess.Popen(cmd, cwd=str(ROOT), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(descendants(parent.pid)) < want and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2.0)  # the workers at work (a fuzz worker's check forks a child of its own)
        workers = descendants(parent.pid)
        assert len(workers) >= want, "the workers never started"
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    time.sleep(5)
    return [w for w in workers if alive(w)]


@pytest.mark.parametrize(
    "cmd",
    [
        [sys.executable, "-m", "mathcheck", "prove", "--all", "-j", "2", "--no-cache"],
        [sys.executable, "bench/fuzz.py", "--cases", "40", "-j", "2"],
        [sys.executable, "bench/model_sweep.py", "--out", os.devnull, "--only", "gpt2,llama", "-j", "2"],
    ],
    ids=["prove-j2", "fuzz-j2", "model-sweep-j2"],
)
def test_workers_die_when_the_parent_is_killed(cmd, tmp_path):
    left = _workers_die_with(cmd, 2, tmp_path)
    for pid in left:  # do not leave them behind for the next test either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"orphans after kill -9 of the parent: {left}"


def test_die_with_parent_in_a_forked_child():
    """The child of a child: kill -9 the middle process, the grandchild (guarded) dies too."""
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:  # the middle process: fork a guarded worker, report its pid, wait to be killed
        os.close(r)
        worker = os.fork()
        if worker == 0:
            die_with_parent()
            time.sleep(60)
            os._exit(0)
        os.write(w, str(worker).encode())
        time.sleep(60)
        os._exit(0)
    os.close(w)
    worker = int(os.read(r, 32))
    os.close(r)
    time.sleep(0.5)
    os.kill(middle, signal.SIGKILL)
    os.waitpid(middle, 0)
    time.sleep(2)
    left = alive(worker)
    if left:
        os.kill(worker, signal.SIGKILL)
    assert not left


def test_the_fuzzers_exit_surface_finds_no_success(tmp_path):
    """bench/fuzz.py's exit surface, a slice in this process's API and testing paths (the CLI and
    hang cases run in the fuzz run itself)."""
    from bench.fuzz import exit_case

    cases = [
        c for c in (exit_case(3, k, tmp_path, vias=("api", "testing")) for k in range(40)) if c["verdict"] != "skipped"
    ]
    assert cases and all(c["verdict"] == "error as it should" for c in cases), cases


def test_a_mathcheck_run_a_bench_started_dies_with_the_bench(tmp_path):
    """bench/_timing.run (and every bench's subprocess.run of mathcheck) starts its child with
    procs.child_dies_with_parent: kill -9 the bench, and the `mathcheck prove --all --json` it
    started dies too (--json: it prints nothing until the end, so no broken pipe ends it sooner)."""
    code = "import sys; sys.path.insert(0, 'bench'); import _timing; _timing.run(['prove', '--all', '--no-cache', '--json'])"
    left = _workers_die_with([sys.executable, "-c", code], 1, tmp_path)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"orphans after kill -9 of the bench: {left}"
