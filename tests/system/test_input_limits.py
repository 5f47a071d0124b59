"""Input limits (issue 21): every bad input is one line on stderr and exit 2, found before any
proving — non-finite timeouts, huge seeds, special and oversized files, unwritable outputs,
duplicate claim ids, a cache folder that is a file, TeX missing."""

import os
import textwrap

import pytest
from click.testing import CliRunner

from mathcheck.cli import main
from tests.paths import ROOT

ALIBI = (ROOT / "examples" / "alibi_claims.py").read_text()


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def no_proving(monkeypatch):
    """Any proving from here on fails the test: the limit must be found first."""

    def forbidden(*a, **k):
        raise AssertionError("proving started before the input was checked")

    import mathcheck.engine
    import mathcheck.usercheck
    import mathcheck.writeup

    monkeypatch.setattr(mathcheck.engine, "run", forbidden)
    monkeypatch.setattr(mathcheck.usercheck, "check", forbidden)
    monkeypatch.setattr(mathcheck.writeup, "collect", forbidden)


def one_line(r, code=2):
    assert r.exit_code == code, r.output
    assert r.output.count("\n") == 1 and "Traceback" not in r.output, r.output
    return r.output


@pytest.mark.parametrize("command", [["check", "x", "x"], ["derive", "chain.txt"]])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_a_timeout_that_is_not_a_finite_number(runner, no_proving, command, value):
    r = runner.invoke(main, [*command, "--timeout", value])
    assert one_line(r) == (
        f"error: Invalid value for '--timeout': {value!r} is not a finite number; give "
        f"seconds between 1 and 600 (see mathcheck {command[0]} --help)\n"
    )


def test_a_timeout_out_of_range(runner, no_proving):
    r = runner.invoke(main, ["check", "x", "x", "--timeout", "-1"])
    assert one_line(r) == (
        "error: Invalid value for '--timeout': -1.0 is not in the range 1.0<=x<=600.0 (see mathcheck check --help)\n"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["check", "x", "x"],
        ["prove", "qk-variance"],
        ["refute", "qk-variance"],
        ["derive", "chain.txt"],
        ["writeup", "qk-variance"],
    ],
)
def test_a_seed_beyond_the_range_is_refused_up_front(runner, no_proving, command):
    r = runner.invoke(main, [*command, "--seed", str(2**70)])
    assert one_line(r) == (
        f"error: Invalid value for '--seed': {2**70} is not in the range 0<=x<=4294967295 "
        f"(see mathcheck {command[0]} --help)\n"
    )


def test_the_largest_seed_is_a_seed(runner):
    r = runner.invoke(main, ["check", "x*(x+1)", "x**2+x", "--seed", str(2**32 - 1)])
    assert r.exit_code == 0 and r.output.startswith("proved: x*(x+1) = x**2+x"), r.output


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("command", [["check", "--file"], ["derive"]])
def test_a_device_is_not_read(runner, no_proving, command):
    r = runner.invoke(main, [*command, "/dev/zero"])
    assert one_line(r) == "error: /dev/zero: not a regular file (a device, pipe or socket); give a text file\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_without_a_writer_does_not_block(runner, no_proving, tmp_path):
    fifo = tmp_path / "rows.tsv"
    os.mkfifo(fifo)
    r = runner.invoke(main, ["check", "--file", str(fifo)])
    assert one_line(r) == f"error: {fifo}: not a regular file (a device, pipe or socket); give a text file\n"


@pytest.mark.parametrize("command", [["check", "--file"], ["derive"]])
def test_an_oversized_file_is_refused_unread(runner, no_proving, monkeypatch, tmp_path, command):
    import mathcheck.userexpr

    monkeypatch.setattr(mathcheck.userexpr, "MAX_FILE_BYTES", 2 << 20)
    big = tmp_path / "big.tsv"
    big.write_text("x\tx\n" * (1 << 20))  # 4 MiB
    r = runner.invoke(main, [*command, str(big)])
    assert one_line(r) == f"error: {big}: larger than 2 MiB; split it into smaller files\n"


def test_a_file_in_the_limits_is_read_with_its_newlines(runner, tmp_path):
    rows = tmp_path / "rows.tsv"
    rows.write_bytes(b"x*(x+1)\tx**2+x\r\n")
    r = runner.invoke(main, ["check", "--file", str(rows)])
    assert r.exit_code == 0, r.output


# --- claim ids ------------------------------------------------------------------------------


def test_a_from_file_reusing_a_catalog_id_is_refused_by_every_command(runner, no_proving, tmp_path):
    clash = tmp_path / "clash.py"
    clash.write_text(ALIBI.replace('id="alibi-query-term-cancels"', 'id="softmax-jacobian"'))
    expected = (
        f"error: --from {str(clash)!r}: claim id 'softmax-jacobian' is already a claim of "
        f"mathcheck.derivations.calculus; give this claim another id\n"
    )
    for command in (["prove"], ["refute"], ["show", "softmax-jacobian"], ["list"]):
        r = runner.invoke(main, [*command, "--from", str(clash)])
        assert one_line(r) == expected, command


def test_two_claims_with_one_id_in_a_file_are_refused(runner, no_proving, tmp_path):
    twice = tmp_path / "twice.py"
    second = textwrap.dedent("""

        @claim(id="alibi-query-term-cancels", title="again", section="§9.1", zh="z", en="e",
               reference=sdpa_weights)
        def another():
            return alibi_query_term_cancels()
    """)
    twice.write_text(ALIBI + second)
    r = runner.invoke(main, ["list", "--from", str(twice)])
    assert one_line(r) == (
        f"error: --from {str(twice)!r}: claim id 'alibi-query-term-cancels' is given twice, "
        f"to alibi_query_term_cancels and another; give each claim its own id\n"
    )


# --- outputs --------------------------------------------------------------------------------


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc here")
@pytest.mark.parametrize(
    "args, expected",
    [
        (
            ["-o", "/proc/x.tex"],
            "error: -o /proc/x.tex: directory /proc is not writable (No such file or directory); write elsewhere\n",
        ),
        (
            ["--docs", "/proc/x"],
            "error: --docs /proc/x: cannot create /proc/x: /proc is not a writable directory "
            "(No such file or directory)\n",
        ),
    ],
)
def test_an_output_in_proc_is_refused_before_proving(runner, no_proving, args, expected):
    assert one_line(runner.invoke(main, ["writeup", "qk-variance", *args])) == expected


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="no /sys here")
def test_an_output_in_sys_is_refused_before_proving(runner, no_proving):
    r = runner.invoke(main, ["writeup", "qk-variance", "-o", "/sys/x.tex", "--pdf"])
    assert one_line(r).startswith("error: -o /sys/x.tex: directory /sys is not writable (")


def test_missing_tex_is_bad_input_naming_the_package(runner, no_proving, monkeypatch, tmp_path):
    import mathcheck.writeup as w

    monkeypatch.setattr(w, "tex_missing", lambda: (("pdflatex", w.TOOLS["pdflatex"]),))
    r = runner.invoke(main, ["writeup", "qk-variance", "-o", str(tmp_path / "x.tex"), "--pdf"])
    assert one_line(r) == f"error: {w.INSTALL_HINT}\n"
    assert w.TOOLS["pdflatex"] in r.output


# --- the cache folder ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["prove", "qk-variance"],
        ["refute", "qk-variance"],
        ["cache", "info"],
        ["cache", "clear"],
        ["writeup", "qk-variance"],
    ],
)
def test_a_cache_folder_that_is_a_file(runner, no_proving, monkeypatch, tmp_path, command):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(afile))
    r = runner.invoke(main, command)
    assert one_line(r) == (
        f"error: MATHCHECK_CACHE_DIR {str(afile)!r} names a file, not a folder; point MATHCHECK_CACHE_DIR at a folder\n"
    )
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(afile / "sub"))
    r = runner.invoke(main, command)
    assert one_line(r) == (
        f"error: MATHCHECK_CACHE_DIR {str(afile / 'sub')!r} is inside {afile}, which is a "
        f"file, not a folder; point MATHCHECK_CACHE_DIR at a folder\n"
    )
    assert afile.read_text() == "not a folder"


def test_no_cache_needs_no_cache_folder(runner, monkeypatch, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(afile))
    r = runner.invoke(main, ["prove", "softmax-simplex", "--no-cache"])  # any claim: qk-variance took 35 s
    assert r.exit_code == 0, r.output


def test_a_cache_that_cannot_be_written_only_costs_time(monkeypatch, tmp_path):
    """Under the API (no CLI check), storing into a file-that-is-a-folder is a note, not a traceback."""
    from mathcheck import cache, registry

    afile = tmp_path / "afile"
    afile.write_text("")
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(afile))
    entry = registry.entry("qk-variance")
    cache.store("0" * 64, entry, "prove", ("error", "x"))  # must not raise
    assert cache.load("0" * 64, entry, "prove") is None


def test_a_non_finite_timeout_through_the_python_api_is_bad_input_not_a_crash(tmp_path):
    """The CLI refuses ``--timeout nan``; the API the CLI calls must too (it used to raise
    ChildProcessError: ``nan`` compares false with every deadline)."""
    from mathcheck import chains, derive
    from mathcheck.usercheck import check

    for t in (float("nan"), float("inf"), 0, -1):
        r = check("x", "x", timeout=t)
        assert r.status == "bad-input" and "not a number of seconds" in r.message, (t, r)
    f = tmp_path / "a.derivation"
    f.write_text("## a\n  x\n= x\n")
    with pytest.raises(chains.DeriveError, match="not a number of seconds"):
        derive.check_files([str(f)], timeout=float("nan"))


def test_a_refused_from_file_leaves_no_claim_in_the_catalog(runner, no_proving, tmp_path):
    """Two claims with one id: the first was registered before the second was refused, and stayed
    in the catalog (``prove --all`` and ``list`` in the same process then showed it)."""
    from mathcheck import registry

    before = [e.id for e in registry.entries()]
    twice = tmp_path / "twice2.py"
    twice.write_text(
        ALIBI
        + textwrap.dedent("""

        @claim(id="alibi-query-term-cancels", title="again", section="§9.1", zh="z", en="e")
        def another():
            return alibi_query_term_cancels()
    """)
    )
    r = runner.invoke(main, ["list", "--from", str(twice)])
    assert r.exit_code == 2
    assert [e.id for e in registry.entries()] == before
