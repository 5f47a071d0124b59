"""derive over a whole book (issue 35 items 1, 2, 4): paths, directories, globs and notebooks; -j N
identical to -j 1; a re-run reads unchanged links from the cache. The book is
tests/fixtures/book (our own chapters, written for these tests)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathcheck import book
from mathcheck.chains import DeriveError
from mathcheck.cli import main
from mathcheck.procs import alive, descendants
from mathcheck.render import json as rj

BOOK = Path(__file__).parent / "fixtures" / "book"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def copy(tmp_path):
    """A copy of the book in tmp_path (the tests edit it), its paths relative to tmp_path."""
    shutil.copytree(BOOK, tmp_path / "book")
    old = os.getcwd()
    os.chdir(tmp_path)
    yield Path("book")
    os.chdir(old)


def _json(report) -> str:
    return json.dumps(rj.derive_report(report), ensure_ascii=False, indent=2)


# --- item 1: which files ----------------------------------------------------------------------------


def test_a_directory_is_read_recursively_in_sorted_order_hidden_folders_skipped(copy):
    files, found = book.expand([copy])
    assert files == [
        "book/01_basics/exp_log.md",
        "book/01_basics/preface.md",
        "book/01_basics/softplus.derivation",
        "book/02_attention/scaling.tex",
        "book/02_attention/softmax_shift.md",
        "book/03_notebooks/norms.ipynb",
    ]
    assert found == set(files)  # found by the directory: a page without a chain is left out, not an error


def test_a_quoted_glob_is_expanded_by_us_and_arguments_keep_their_order(copy):
    files, found = book.expand(["book/02_attention/scaling.tex", "book/**/*.md"])
    assert files == [
        "book/02_attention/scaling.tex",
        "book/01_basics/exp_log.md",
        "book/01_basics/preface.md",
        "book/02_attention/softmax_shift.md",
    ]
    assert "book/02_attention/scaling.tex" not in found  # named itself: it must hold a chain


@pytest.mark.parametrize(
    "spec, said",
    [
        ("book/**/*.rst", "book/**/*.rst: no file matches this pattern"),
        ("nowhere/", "nowhere/: no such file"),
        ("book/01_basics/preface.md", "book/01_basics/preface.md: no ```mathcheck fence"),
    ],
)
def test_a_path_or_glob_that_matches_nothing_is_one_line_and_exit_2(copy, spec, said, fresh_cache):
    r = CliRunner().invoke(main, ["derive", spec])
    assert r.exit_code == 2 and r.output.startswith(f"error: {said}") and r.output.count("\n") == 1, r.output
    assert "Traceback" not in r.output


def test_a_directory_without_documents_is_bad_input(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("x")
    with pytest.raises(DeriveError, match="no .md, .markdown, .tex, .derivation or .ipynb file"):
        book.expand([tmp_path / "empty"])


def test_notebook_cells_are_read_as_markdown_and_lines_name_the_cell(copy, fresh_cache):
    r = CliRunner().invoke(main, ["derive", "book/03_notebooks/norms.ipynb", "--json"])
    assert r.exit_code == 2  # the bad line on purpose
    chains = json.loads(r.output)["files"][0]["chains"]
    assert [(c["name"], c["cell"], c["line"], c["status"]) for c in chains] == [
        ("a square is never negative", 3, 2, "proved"),
        ("broken", 4, 4, "bad-input"),
    ]
    assert chains[1]["message"].startswith("book/03_notebooks/norms.ipynb:cell 4:6: not a formula")


def test_a_notebook_that_is_not_json_is_one_line(tmp_path, fresh_cache):
    bad = tmp_path / "nb.ipynb"
    bad.write_text("{not json")
    r = CliRunner().invoke(main, ["derive", str(bad)])
    assert r.exit_code == 2 and "not a Jupyter notebook" in r.output and r.output.count("\n") == 1


# --- item 2: -j N, the same report ------------------------------------------------------------------


def test_j2_gives_the_same_text_json_and_jsonl_as_j1(copy, fresh_cache):
    runner = CliRunner()
    outs = {}
    for jobs in ("1", "2"):
        for fmt in ([], ["--json"], ["--jsonl"]):
            r = runner.invoke(main, ["derive", "book", "-j", jobs, "--no-cache", *fmt])
            assert r.exit_code == 2, r.output  # the worst: one bad line
            outs[jobs, tuple(fmt)] = r.output
    for fmt in ([], ["--json"], ["--jsonl"]):
        assert outs["1", tuple(fmt)] == outs["2", tuple(fmt)], fmt
    lines = [json.loads(x) for x in outs["1", ("--jsonl",)].splitlines()]
    assert [x["kind"] for x in lines].count("link") == 12 and lines[-1]["kind"] == "summary"
    report = json.loads(outs["1", ("--json",)])
    assert report["counts"] == {
        "files": 5,
        "chains": {"total": 7, "proved": 5, "refuted": 1, "bad-input": 1},
        "links": {"total": 12, "read": 11, "proved": 10, "refuted": 1, "bad-input": 1},
    }
    assert report["replay"] == "mathcheck derive book --seed 0"
    refuted = [s for f in report["files"] for c in f["chains"] for s in c["steps"] if s["status"] == "refuted"]
    assert [(s["line"], s["expr"]) for s in refuted] == [(11, "(q_1*k_1 + q_2*k_2)/2")]


def test_links_not_files_are_the_unit_of_work():
    chain = book._example()
    assert [(t.chain, t.k) for t in book.tasks_of(0, 7, chain)] == [(7, 1), (7, 2), (7, 0)]


def test_j_workers_die_with_the_parent(copy, fresh_cache):
    """kill -9 of `derive -j 2` leaves no worker behind (procs.die_with_parent)."""
    slow = Path("book/slow.derivation")  # enough work that the workers are still busy when killed
    slow.write_text(
        "".join(
            f"## s{n}\nassume: x=real\n  (x + {n})^4\n= x^4 + {4 * n}*x^3 + {6 * n * n}*x^2 + {4 * n**3}*x + {n**4}\n\n"
            for n in range(1, 40)
        )
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(
        [sys.executable, "-m", "mathcheck", "derive", str(slow), "-j", "2", "--no-cache"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    family: list[int] = []
    deadline = time.monotonic() + 60
    while len(family) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        family = descendants(p.pid)
    assert len(family) >= 2, "the workers never started"
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and [q for q in family if alive(q)]:
        time.sleep(0.2)
    left = [q for q in family if alive(q)]
    for q in left:
        os.kill(q, signal.SIGKILL)
    assert not left


# --- item 4: resumable ------------------------------------------------------------------------------


def _run(specs, **kw):
    seen = []
    report = book.check_book(specs, on_progress=lambda c: seen.append((c.to_compute, c.links)), **kw)
    return report, seen[-1][0]


def test_a_rerun_reads_every_link_from_the_cache_and_prints_the_same(copy, fresh_cache):
    first, computed = _run(["book"])
    assert computed == 12 + 6 - 1  # 11 read links and 6 statements (the bad chain has no task)
    again, computed = _run(["book"])
    assert computed == 0 and _json(again) == _json(first)


def test_editing_one_file_rechecks_only_its_links(copy, fresh_cache):
    first, _ = _run(["book"])
    nb = Path("book/01_basics/softplus.derivation")
    nb.write_text(nb.read_text().replace("= sigmoid(x)", "= sigmoid(x)\n= 1/(1 + exp(-x))  # back again"))
    edited, computed = _run(["book"])
    assert computed == 4 + 1  # the edited chain's four links and its statement; nothing else
    assert _json(edited).replace("\n", "") != _json(first).replace("\n", "")
    fresh, _ = _run(["book"], use_cache=False)
    assert _json(edited) == _json(fresh)


def test_moving_a_chain_does_not_recheck_it_but_its_lines_are_current(copy, fresh_cache):
    _run(["book"])
    p = Path("book/01_basics/softplus.derivation")
    p.write_text("# a comment line above the chain\n\n" + p.read_text())
    moved, computed = _run(["book"])
    assert computed == 0
    chain = dict(moved.files)[str(p)][0]
    assert [s.line for s in chain.steps] == [5, 6, 7, 8]  # read from the file now, not from the cache


@pytest.mark.parametrize(
    "edit",
    [
        ("assume: x=real", "assume: x=positive"),  # an assumption
        ("assume: x=real", "assume: x=real\ngiven: x >= 1"),  # a hypothesis
        ("## softplus' is the sigmoid", "## softplus' is the sigmoid\nlet w = 2"),  # a definition in force
        ("# chain rule", "# chain rule!"),  # a reason (a ≈ link's bound is one)
    ],
)
def test_what_a_link_depends_on_is_in_its_key(copy, fresh_cache, edit):
    _run(["book/01_basics/softplus.derivation"])
    p = Path("book/01_basics/softplus.derivation")
    p.write_text(p.read_text().replace(*edit))
    _, computed = _run(["book/01_basics/softplus.derivation"])
    assert computed == 4


def test_options_that_change_a_result_are_in_the_key(copy, fresh_cache):
    _run(["book/01_basics/exp_log.md"])
    assert _run(["book/01_basics/exp_log.md"], seed=1)[1] == 4
    assert _run(["book/01_basics/exp_log.md"], timeout=20.0)[1] == 4
    assert _run(["book/01_basics/exp_log.md"])[1] == 0


def test_a_tampered_link_entry_is_not_used(copy, fresh_cache):
    first, _ = _run(["book/01_basics/exp_log.md"])
    for entry in fresh_cache.glob("*.link.json"):
        fields = json.loads(entry.read_text())
        fields["result"]["status"] = "proved" if fields["result"]["status"] != "proved" else "refuted"
        entry.write_text(json.dumps(fields))
    again, computed = _run(["book/01_basics/exp_log.md"])
    assert computed == 4 and _json(again) == _json(first)


# --- faces --------------------------------------------------------------------------------------------


def test_derive_help_imports_neither_dask_nor_torch_nor_sympy():
    code = (
        "import sys; from mathcheck.cli import main\n"
        "try: main(['derive', '--help'])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in ('distributed', 'dask', 'torch', 'sympy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    ).stdout
    assert out.splitlines()[-1] == "[]"


def test_progress_is_silent_when_stderr_is_not_a_terminal(copy, fresh_cache):
    r = subprocess.run(
        [sys.executable, "-m", "mathcheck", "derive", "book/01_basics/exp_log.md"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert r.returncode == 0 and r.stderr == ""


def test_the_progress_line_counts_links_and_clears_itself():
    import io

    from mathcheck.render.text import DeriveProgress

    out = io.StringIO()
    p = DeriveProgress(out)
    p(book.Counts(files=3, links=10, done=4, computed=2, to_compute=6, proved=3, refuted=1))
    p.close()
    text = out.getvalue()
    assert "3 files, links 4/10: 3 proved, 1 refuted, about" in text and text.endswith("\r")


def test_jsonl_and_json_together_are_refused(copy):
    r = CliRunner().invoke(main, ["derive", "book", "--json", "--jsonl"])
    assert r.exit_code == 2 and r.output.count("\n") == 1


def test_j_and_cluster_together_are_refused_and_a_bad_address_is_one_line(copy):
    r = CliRunner().invoke(main, ["derive", "book", "-j", "2", "--cluster", "tcp://127.0.0.1:8786"])
    assert r.exit_code == 2 and "not both" in r.output
    r = CliRunner().invoke(main, ["derive", "book", "--cluster", "localhost"])
    assert r.exit_code == 2 and "write tcp://HOST:PORT" in r.output and r.output.count("\n") == 1


def test_the_read_cache_keeps_every_field_of_a_chain():
    """A file's chains as read are cached (book._prepare) and must come back whole: a field the
    cache dropped (unknown functions, probability facts) made every such file a miss, re-parsed on
    each re-run, and would give a link checked from the cache another reading than -j 1's. Every
    field of Chain is set here to a value other than its default, so a field added later and not
    cached fails this test."""
    import dataclasses

    from mathcheck.chains import Chain, Line

    values = {
        "name": "line 3",
        "path": "a.md",
        "line": 3,
        "assumptions": {"x": ("real",)},
        "given": ((4, "x > 0"),),
        "steps": (Line(3, None, "f(x)", "", "f(x)"), Line(3, "=", "g(x)", "why", "g(x)")),
        "lets": ((2, "g(x) = x"),),
        "error": "e",
        "definition": "d = 1",
        "notes": ("let: g",),
        "unknown": ("f",),
        "implicit": ("f",),
        "facts": ((5, "X, Y independent"),),
        "unread": "a transpose",
        "table": "sigmoid",
        "prose_facts": "independently",
        "prose_given": "Sum(y[j], (j, 1, q)) = 1\t% given: \\sum_{j=1}^{q} y_j = 1\ty is one-hot, line 2",
    }
    fields = {f.name: f for f in dataclasses.fields(Chain)}
    assert set(values) == set(fields), "a new Chain field: give it a value here and cache it in book._plain"
    chain = Chain(**values)
    for name, f in fields.items():
        default = f.default if f.default is not dataclasses.MISSING else None
        assert getattr(chain, name) != default, name
    assert book._chain(json.loads(json.dumps(book._plain(chain)))) == chain
