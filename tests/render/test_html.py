"""`mathcheck derive --html OUT.html`: the report as one self-contained page, built from derive's
JSON, opened offline in a real browser (Debian's chromium, driven by playwright): every mark is the
JSON's, the math is the browser's MathML, no request leaves the page, no console error.

The documents are tests/fixtures/html_book/, two chapters of a small book of our own (one link
wrong on purpose, a definition, displays that are not chains). ``python tests/render/test_html.py
docs/screenshots/derive-html.png`` writes the screenshot docs/derive.md shows; ``python
tests/render/test_html.py check REPORT.json PAGE.html`` runs the browser checks on any run's page.
"""

import json
import os
import pathlib
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser

import pytest

from mathcheck.outcome import STATUSES, exit_code
from mathcheck.render import html as page
from mathcheck.render.text import mark
from tests.paths import ROOT

BOOK = [
    "tests/fixtures/html_book/ch1_sigmoid.tex",
    "tests/fixtures/html_book/ch2_softmax.md",
    "tests/fixtures/html_book/ch3_gelu.md",
]
CHROMIUM = os.environ.get("MATHCHECK_CHROMIUM", "/usr/bin/chromium")  # Debian's; another build by this
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.xdist_group("html_report")  # one real run of the book, shared by the tests


def _derive(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "mathcheck", "derive", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The book checked once, as a user would: ``derive CH1 CH2 --json --html OUT``."""
    out = tmp_path_factory.mktemp("html") / "book.html"
    r = _derive(*BOOK, "--json", "--html", str(out))
    report = json.loads(r.stdout)
    assert r.returncode == exit_code(report["status"]) == 2, r.stderr  # ch3's \sim is bad input
    return report, out


def _links(report):
    """(path, line, status) of every link of the JSON report, in order."""
    return [
        (f["path"], s["line"], s["status"])
        for f in report["files"]
        for c in f["chains"]
        for s in c["steps"]
        if s["relation"] is not None
    ]


class _Marks(HTMLParser):
    """The page's links as a plain HTML parser reads them: (path, line, status) per ``li.link``."""

    def __init__(self):
        super().__init__()
        self.path, self.line, self.found = None, None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.path = a["data-path"]
        elif tag == "li" and a.get("class") == "link":
            self.line = int(a["data-line"])
        elif tag == "span" and a.get("class") == "mark" and self.line is not None:
            self.found.append((self.path, self.line, a["data-status"]))
            self.line = None
        elif tag == "details":
            self.line = None


# --- the page, without a browser ------------------------------------------------------------------


def test_the_page_is_the_json_reports_same_bytes_every_time(run, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # where derive ran: the report's paths are relative to it
    report, out = run
    written = out.read_bytes()
    # the same JSON gives the same page: from the objects, and from the saved JSON by the module's main
    again = page.derive_html(report, page.documents_of(report), base=str(out.parent)).encode()
    assert again == written
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(report), encoding="utf-8")
    twice = [tmp_path / "a.html", tmp_path / "b.html"]
    for t in twice:
        r = subprocess.run(
            [sys.executable, "-m", "mathcheck.render.html", str(saved), str(t)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
    assert twice[0].read_bytes() == twice[1].read_bytes()
    # written next to report.json instead of book.html: only the relative links to the documents differ
    strip = re.compile(rb'href="[^"#]*')
    assert strip.sub(b"", twice[0].read_bytes()) == strip.sub(b"", written)


def test_every_link_carries_its_json_status_and_the_counts_are_the_jsons(run):
    report, out = run
    text = out.read_text(encoding="utf-8")
    marks = _Marks()
    marks.feed(text)
    assert marks.found == _links(report)
    statuses = {s for _, _, s in marks.found} | {c["status"] for f in report["files"] for c in f["chains"]}
    # the book has each (and an inconclusive link today, which a stronger prover may prove)
    assert {"proved", "refuted", "definition", "holds-within", "bad-input"} <= statuses
    for f in report["files"]:
        row = re.search(rf'<tr data-path="{re.escape(f["path"])}">(.*?)</tr>', text).group(1)
        shown = {k: int(v) for k, v in re.findall(r'data-count="([^"]+)">(\d+)<', row)}
        # the JSON's own counts when it states them (derive's "counts"), else counted here from its chains
        n = f.get("counts") or {
            "chains": {"total": len(f["chains"]), **Counter(c["status"] for c in f["chains"])},
            "links": {
                "total": sum(len(c["steps"][1:]) for c in f["chains"]),
                "read": sum(s["status"] != "bad-input" for c in f["chains"] for s in c["steps"][1:]),
            },
        }
        assert (shown["chains"], shown["links"], shown["links read"]) == (
            n["chains"]["total"],
            n["links"]["total"],
            n["links"]["read"],
        )
        for word in ("proved", "refuted", "inconclusive", "definition", "holds-within", "bad-input", "error"):
            assert shown.get(f"chains {word}", 0) == n["chains"].get(word, 0), word  # a column of zeros is left out
        assert shown["links"] == sum(1 for p, _, _ in marks.found if p == f["path"])
    total = dict(re.findall(r'data-total="([^"]+)">(\d+)<', text))
    assert int(total["links"]) == len(marks.found)
    assert int(total["chains"]) == sum(len(f["chains"]) for f in report["files"])
    # ch3's \sim display, bad input before any link was read, is shown as written with the message
    bad = re.search(r'<article class="chain" data-status="bad-input">(.*?)</article>', text).group(1)
    assert "is not a link mathcheck checks" in bad and re.search(r"<math .*erf.*</math>", bad)


def test_the_pages_columns_and_marks_are_outcome_words_with_the_terminals_marks():
    assert set(page._ORDER) <= set(STATUSES) and all(mark(w)[0] != "·" for w in page._ORDER)
    assert page.NOT_READ not in STATUSES  # a label of a display, never a status with an exit code


def test_displays_that_hold_no_link_are_shown_not_read(run):
    _, out = run
    text = out.read_text(encoding="utf-8")
    unread = re.findall(r'<article class="display" data-status="not read">.*?>([^<>]+):(\d+)</a>', text)
    # ch1: \hat{y} (no relation) and the limit under % mathcheck: skip; ch2's displays are all chains
    assert unread == [(BOOK[0], "17"), (BOOK[0], "39")]


def test_the_author_latex_becomes_mathml_and_what_cannot_convert_stays_latex():
    assert page.mathml(r"\frac{a}{b}").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML"')
    assert "label" not in page.mathml(r"= \sigma(z)\,(1 - \sigma(z)) \label{eq:x}")
    assert page.mathml(r"\frac{1}{") is None  # the converter raises
    assert page.mathml(r"\unknowncommand x") is None  # left unconverted: <mi>\unknowncommand</mi>
    # latex2mathml copies \text{...} as is: markup there is never written into the page
    assert page.mathml(r"\text{<script>alert(1)</script>} x") is None
    shown = page._typeset(r"\text{<b>bold</b>} x")
    assert "<b>" not in shown and "&lt;b&gt;" in shown and 'class="tex"' in shown


def test_a_display_in_the_documents_own_macros_is_typeset_with_them_expanded(run):
    from mathcheck.latex.tokens import _Source, macros

    doc = r"\newcommand{\ex}[1]{e^{#1}} \DeclareMathOperator{\sp}{softplus}"
    defs = macros(_Source(doc, "a.tex"), [(0, len(doc))])
    assert page.mathml(r"\frac{\ex{-z}}{2}") is None  # as written: \ex is not LaTeX's
    assert page.expanded(r"\frac{\ex{-z}}{2} + \sp(x)", defs) == r"\frac{e^{-z}}{2} + \operatorname{softplus}(x)"
    shown = page._typeset(r"\frac{\ex{-z}}{2}", defs)
    assert "<mfrac>" in shown and "<msup>" in shown and 'class="tex"' not in shown
    assert 'class="tex"' in page._typeset(r"\frac{\nomacro{-z}}{2}", defs)  # nothing to expand: the LaTeX
    # in the book: ch1's chain-rule link, written with the book's \ex, is MathML on the page
    _, out = run
    line = re.search(r'<li class="link" data-line="25">(.*?)</li>', out.read_text(encoding="utf-8")).group(1)
    assert "<mfrac>" in line and 'class="tex"' not in line


def test_a_notebook_cells_link_names_the_cell():
    chain = {
        "name": "c",
        "line": 2,
        "cell": 3,
        "status": "proved",
        "assumptions": {},
        "given": [],
        "let": [],
        "notes": [],
        "statement": {"relation": "=", "status": "passed", "how": ""},
        "steps": [
            {"line": 2, "expr": "x", "relation": None, "reason": "", "status": "start", "how": ""},
            {"line": 3, "expr": "x", "relation": "=", "reason": "", "status": "proved", "how": ""},
        ],
    }
    text = page.derive_html({"files": [{"path": "nb.ipynb", "chains": [chain]}], "status": "proved", "seed": 0})
    assert 'href="nb.ipynb">nb.ipynb:cell 3:2</a>' in text and ">nb.ipynb:cell 3:3</a>" in text


def test_an_authors_words_are_text_never_markup():
    step = {
        "line": 2,
        "expr": "x",
        "relation": "=",
        "reason": "<script>alert(1)</script>",
        "status": "proved",
        "how": "<img src=x onerror=alert(1)>",
        "counterexample": {"<i>": 1.5},
        "values": None,
        "source": r"= \text{</math><script>alert(2)</script>}",
    }
    chain = {
        "name": "<b>n</b>",
        "line": 1,
        "status": "proved",
        "assumptions": {},
        "given": [],
        "let": [],
        "notes": [],
        "statement": {"relation": "=", "status": "passed", "how": ""},
        "steps": [{**step, "relation": None, "status": "start", "source": ""}, step],
    }
    report = {"files": [{"path": 'a"<b>.tex', "chains": [chain]}], "status": "proved", "seed": 0, "replay": ""}
    text = page.derive_html(report)
    assert not re.search(r"<(script|img|b|i)\b", text)


def test_html_to_a_missing_folder_is_bad_input_before_anything_is_checked(tmp_path):
    r = _derive(*BOOK, "--html", str(tmp_path / "no" / "such" / "page.html"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "does not exist" in r.stderr and "Traceback" not in r.stderr
    r = _derive(*BOOK, "--html", str(tmp_path / "page.txt"))
    assert r.returncode == 2 and "should end in .html" in r.stderr
    bad = tmp_path / "r.json"
    bad.write_text("{}")
    r = subprocess.run(
        [sys.executable, "-m", "mathcheck.render.html", str(bad), str(tmp_path / "o.html")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert r.returncode == 2 and "not a `mathcheck derive --json` report" in r.stderr
    assert not (tmp_path / "o.html").exists()


# --- the page in a real browser -------------------------------------------------------------------


def _chromium():
    """playwright's sync API and Debian's chromium, or a skip naming what to install (a failure
    under CI=true: a green CI must not hide a missing install step)."""
    problem = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = "playwright is not installed: pip install -e '.[test]' (or pip install playwright)"
    if problem is None and not os.access(CHROMIUM, os.X_OK):
        problem = (
            f"{CHROMIUM} is missing: apt-get install chromium (.ci/system-packages installs it; "
            f"never `playwright install`)"
        )
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must open the HTML report in a browser, but {problem}")
        pytest.skip(problem)
    return sync_playwright


def _open(pw, path):
    """The page at ``path`` offline: every request recorded, any that is not the page aborted."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    context = browser.new_context(offline=True, viewport={"width": 1100, "height": 900})
    url = path.resolve().as_uri()
    requests, errors = [], []
    context.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    p = context.new_page()
    p.on("request", lambda r: requests.append(r.url))
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.goto(url)
    p.wait_for_load_state("load")
    return browser, p, url, requests, errors


def browser_checks(sync_playwright, report: dict, out: pathlib.Path) -> dict:
    """Open ``out`` (the page of ``report``) offline in chromium and check it against the report;
    returns what was counted. Used by the test below and by ``python tests/render/test_html.py
    check REPORT.json PAGE.html`` for any run (a whole book's)."""
    with sync_playwright() as pw:
        browser, p, url, requests, errors = _open(pw, out)
        try:
            shown = p.eval_on_selector_all(
                "li.link .mark",
                "els => els.map(e => [e.closest('section').dataset.path, "
                "+e.closest('li').dataset.line, e.dataset.status, e.innerText])",
            )
            assert [tuple(s[:3]) for s in shown] == _links(report)
            for _, _, word, seen in shown:  # what the reader sees is the status's mark and the word
                assert seen == f"{mark(word)[0]} {word}"
            chains = p.eval_on_selector_all("article.chain", "els => els.map(e => e.dataset.status)")
            assert chains == [c["status"] for f in report["files"] for c in f["chains"]]
            # the displays are the browser's own MathML, typeset (a box with a size)
            boxes = p.eval_on_selector_all(
                "math",
                "els => els.map(e => [e instanceof MathMLElement, e.getBoundingClientRect().width, "
                "e.getBoundingClientRect().height])",
            )
            assert all(is_mathml and w > 0 and h > 0 for is_mathml, w, h in boxes)
            # each refuted link's counterexample opens on demand
            refuted = p.locator("li.link:has(.mark[data-status=refuted])")
            for k in range(refuted.count()):
                where = refuted.nth(k).locator("details table")
                assert not where.is_visible()
                refuted.nth(k).locator("summary").click()
                assert where.is_visible() and "how" in where.inner_text()
            counted = {
                "links": len(shown),
                "chains": len(chains),
                "math": len(boxes),
                "latex": p.locator("code.tex").count(),
                "refuted opened": refuted.count(),
                "requests": len(requests),
                "console errors": len(errors),
            }
            assert requests == [url] and errors == [], (requests, errors)
            return counted
        finally:
            browser.close()


def test_the_page_opens_offline_in_chromium_with_every_mark_the_jsons(run):
    report, out = run
    counted = browser_checks(_chromium(), report, out)
    sources = sum(1 for f in report["files"] for c in f["chains"] for s in c["steps"] if s.get("source"))
    assert counted["math"] >= sources > 0 and counted["latex"] == 0  # every display typeset, none left as LaTeX
    assert counted["refuted opened"] >= 1 and counted["links"] == len(_links(report))


def test_the_browser_check_sees_a_page_that_reaches_out(tmp_path):
    """The harness above can fail: a page that loads a stylesheet and an image from the network
    (what a CDN-typeset page does) has its requests recorded and aborted, and says so."""
    sync_playwright = _chromium()
    bad = tmp_path / "cdn.html"
    bad.write_text(
        '<!DOCTYPE html><html><head><link rel="stylesheet" href="https://cdn.invalid/m.css">'
        '</head><body><img src="http://192.0.2.1/x.png"></body></html>',
        encoding="utf-8",
    )
    with sync_playwright() as pw:
        browser, _, url, requests, errors = _open(pw, bad)
        browser.close()
    assert requests[0] == url and set(requests[1:]) == {"https://cdn.invalid/m.css", "http://192.0.2.1/x.png"}
    assert errors  # each aborted load is a console error


@pytest.mark.parametrize("ci", ["", "true"])
def test_without_chromium_the_browser_tests_skip_naming_it_and_fail_under_ci(ci, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    env.update(MATHCHECK_CHROMIUM=str(tmp_path / "no-chromium"), CI=ci)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            f"{__file__}::test_the_browser_check_sees_a_page_that_reaches_out",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert "apt-get install chromium" in r.stdout, r.stdout
    assert ("1 failed" if ci else "1 skipped") in r.stdout, r.stdout


def screenshot(png: str) -> None:
    """The first chapter's page of the book as a PNG (docs/screenshots/derive-html.png)."""
    import tempfile

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "book.html"
        r = _derive(*BOOK, "--html", str(out))
        assert r.returncode == 2, r.stderr
        with sync_playwright() as pw:
            browser, p, _, requests, errors = _open(pw, out)
            p.locator("li.link:has(.mark[data-status=refuted]) summary").first.click()
            p.locator("section.file").first.screenshot(path=png)
            browser.close()
            assert len(requests) == 1 and not errors


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"]:  # check REPORT.json PAGE.html: any run's page, in the browser
        from playwright.sync_api import sync_playwright as _sync

        saved = json.loads(pathlib.Path(sys.argv[2]).read_text(encoding="utf-8"))
        print(browser_checks(_sync, saved, pathlib.Path(sys.argv[3])))
    else:
        screenshot(sys.argv[1])
