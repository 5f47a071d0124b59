"""`mathcheck check --file F [-j N] [--json]`: every row in file order, the worst exit code, the same
report for any -j, a malformed file refused in one line naming the line, a progress bar on a tty only."""

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mathcheck.cli import main
from mathcheck.outcome import worst
from mathcheck.userexpr.batch import FileError, parse_rows

PROVED = "x*(x+1)\tx**2+x"
REFUTED = "tanh(x)\t2*sigmoid(x) - 1"
ASSUMED = "log(u*v)\tlog(u) + log(v)\tu=positive v=positive"
BAD = "foo(x)\t1"
UNPROVABLE = "Sum(x[i], (i, 1, n))^2\tSum(Sum(x[i]*x[j], (j, 1, n)), (i, 1, n))"


@pytest.fixture
def runner():
    return CliRunner()


def write(tmp_path, *lines, name="ids.tsv"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(p)


def test_tsv_rows_in_file_order_with_totals(runner, tmp_path):
    f = write(tmp_path, "# identities", PROVED, "", REFUTED, ASSUMED)
    r = runner.invoke(main, ["check", "--file", f])
    assert r.exit_code == 1, r.output
    out = r.output.splitlines()
    assert out[0] == "line 2: proved: x*(x+1) = x**2+x  (expand)"
    assert out[1].startswith("line 4: refuted: tanh(x) = 2*sigmoid(x) - 1  (")
    assert out[2].startswith("    counterexample: x = ")
    assert out[3].startswith("line 5: proved: log(u*v) = log(u) + log(v)")
    assert out[-2:] == [
        "3 rows: 2 proved, 1 refuted, 0 inconclusive, 0 bad input",
        f"replay: mathcheck check --file {f} --seed 0",
    ]


def test_json_report_and_identical_for_any_jobs(runner, tmp_path):
    f = write(tmp_path, PROVED, REFUTED, ASSUMED, BAD)
    one = runner.invoke(main, ["check", "--file", f, "--json"])
    two = runner.invoke(main, ["check", "--file", f, "--json", "-j", "2"])
    assert one.exit_code == two.exit_code == 2  # a bad row is the worst
    assert one.output == two.output  # byte for byte: no timings in the batch report
    report = json.loads(one.output)
    assert [row["line"] for row in report["rows"]] == [1, 2, 3, 4]
    assert [row["status"] for row in report["rows"]] == ["proved", "refuted", "proved", "bad-input"]
    assert report["totals"] == {"proved": 2, "refuted": 1, "inconclusive": 0, "bad-input": 1}
    assert report["rows"][2]["assumptions"] == {"u": ["positive"], "v": ["positive"]}
    assert report["rows"][3]["message"].startswith("unknown function 'foo'")
    assert "seconds" not in report["rows"][0] and "seconds" not in report["rows"][0]["symbolic"]
    assert report["rows"][0]["evaluator"] == "float64 (Python math)"


def test_json_lines_input(runner, tmp_path):
    f = write(
        tmp_path,
        json.dumps({"lhs": "x*(x+1)", "rhs": "x**2+x"}),
        "# a comment",
        json.dumps({"lhs": "sqrt(n^2)", "rhs": "n", "assume": ["n=positive"]}),
        name="ids.jsonl",
    )
    r = runner.invoke(main, ["check", "--file", f, "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert [row["line"] for row in report["rows"]] == [1, 3]
    assert report["totals"]["proved"] == 2


@pytest.mark.parametrize(
    "rows, code",
    [
        ((PROVED,), 0),
        ((PROVED, UNPROVABLE), 3),
        ((UNPROVABLE, REFUTED), 1),
        ((REFUTED, BAD, UNPROVABLE), 2),
    ],
)
def test_exit_code_is_the_worst_rows(runner, tmp_path, rows, code):
    f = write(tmp_path, *rows)
    r = runner.invoke(main, ["check", "--file", f, "--timeout", "3"])
    assert r.exit_code == code, r.output


@pytest.mark.parametrize(
    "content, message",
    [
        ("x\tx\tx=real\textra\n", "ids.tsv, line 1: expected lhs<TAB>rhs[<TAB>assume], found 4 columns"),
        ("# c\nx x\n", "ids.tsv, line 2: expected lhs<TAB>rhs[<TAB>assume], found no tab"),
        ("x\t \n", "ids.tsv, line 1: empty rhs"),
        ('{"lhs": "x", "rhs": "x"}\nx\tx\n', "ids.tsv, line 2: not a JSON object"),
        ('{"lhs": "x", "right": "x"}\n', "ids.tsv, line 1: unknown key 'right'"),
        ('{"lhs": "x", "rhs": 1}\n', "ids.tsv, line 1: 'rhs' must be a non-empty string"),
        ('{"lhs": "x", "rhs": "x", "assume": [1]}\n', "ids.tsv, line 1: 'assume' must be a list of strings"),
        ("# only a comment\n\n", "ids.tsv: no rows"),
    ],
)
def test_malformed_file_one_line_exit_2(runner, tmp_path, content, message):
    p = tmp_path / "ids.tsv"
    p.write_text(content, encoding="utf-8")
    r = runner.invoke(main, ["check", "--file", str(p)])
    assert r.exit_code == 2
    assert r.output.startswith(f"error: {tmp_path / message}") or r.output.startswith(f"error: {str(p)}"), r.output
    assert message.split(": ", 1)[-1] in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_missing_file_and_mixed_arguments(runner, tmp_path):
    r = runner.invoke(main, ["check", "--file", str(tmp_path / "nope.tsv")])
    assert r.exit_code == 2 and r.output == f"error: {tmp_path / 'nope.tsv'}: no such file\n"
    f = write(tmp_path, PROVED)
    r = runner.invoke(main, ["check", "x", "x", "--file", f])
    assert r.exit_code == 2 and r.output.startswith("error: --file reads the identities from FILE")
    r = runner.invoke(main, ["check", "x"])
    assert r.exit_code == 2 and r.output.startswith("error: give LHS and RHS")
    r = runner.invoke(main, ["check", "x", "x", "-j", "2"])
    assert r.exit_code == 2 and r.output.startswith("error: -j/--jobs runs the rows of --file FILE")


def test_parse_rows_assume_column():
    rows = parse_rows("a\tb\tn=positive,integer k=integer\n", "F")
    assert rows[0].assume == ("n=positive,integer", "k=integer")
    with pytest.raises(FileError, match="^F, line 1"):
        parse_rows("a\n", "F")


def test_progress_bar_on_a_terminal_only(tmp_path):
    pty = pytest.importorskip("pty")
    f = write(tmp_path, PROVED, PROVED)
    cmd = [sys.executable, "-m", "mathcheck", "check", "--file", f]
    plain = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0 and plain.stderr == ""  # not a terminal: no bar, not even its label
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    out = p.communicate(timeout=120)[0]
    os.close(master)
    assert p.returncode == 0
    assert b"checking" in seen and b"100%" in seen
    assert out.decode().splitlines()[-1] == "2 rows: 2 proved, 0 refuted, 0 inconclusive, 0 bad input"


def test_a_worker_that_dies_makes_its_row_inconclusive_not_a_crash(monkeypatch):
    import signal

    from mathcheck.userexpr import batch

    rows = parse_rows("x\tx\ny\ty\n", "F")
    real = batch._check_row

    def dying(args):
        if args[0].line == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(args)

    monkeypatch.setattr(batch, "_check_row", dying)
    results = batch.check_rows(rows, jobs=2)
    assert results[1].status == "inconclusive" and "worker process failed" in results[1].message
    assert worst(r.status for r in results).exit_code == 3
