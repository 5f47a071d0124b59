"""The committed catalog in docs/ is the current one.

docs/claims.md must equal a fresh rendering of every claim with seed 0. When this fails, the
catalog is stale: regenerate it (and docs/plots/, docs/catalog.pdf) with

    mathcheck writeup --all --docs docs
"""

import difflib

import pytest

from mathcheck import registry, writeup
from tests.conftest import proved, refuted
from tests.paths import ROOT

DOCS = ROOT / "docs"


def fresh_markdown() -> str:
    items = writeup.collect(registry.entries(), 0, prove=lambda e: proved(e.id), refute=lambda e: refuted(e.id))
    return writeup.markdown(items, DOCS / "claims.md", seed=0, command=writeup.DOCS_COMMAND, draw=False)


@pytest.mark.slow
@pytest.mark.xdist_group("catalog")  # with the PDF test of test_writeup: the catalog is proved once per run
def test_committed_markdown_catalog_is_current():
    committed = (DOCS / "claims.md").read_text(encoding="utf-8")
    fresh = fresh_markdown()
    diff = "".join(
        list(
            difflib.unified_diff(
                committed.splitlines(True), fresh.splitlines(True), "docs/claims.md (committed)", "fresh rendering", n=1
            )
        )[:40]
    )
    assert committed == fresh, f"docs/claims.md is stale; run `{writeup.DOCS_COMMAND}`:\n{diff}"
    for image in (line.split("](", 1)[1].rstrip(")") for line in fresh.splitlines() if line.startswith("![")):
        assert (DOCS / image).is_file(), f"docs/{image} is missing; run `{writeup.DOCS_COMMAND}`"


def test_committed_pdf_catalog_exists():
    pdf = DOCS / "catalog.pdf"
    assert pdf.is_file() and pdf.read_bytes()[:5] == b"%PDF-", (
        f"docs/catalog.pdf is missing; run `{writeup.DOCS_COMMAND}`"
    )


# --- tables copied into the docs equal the tables they describe (issue 34 item 4) --------------------

README = DOCS.parent / "README.md"


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` (a Markdown heading line) up to the next heading of its level."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n") + len(heading) + 1
    end = min([i for i in (text.find("\n" + level + " ", start),) if i >= 0] + [len(text)])
    return text[start:end]


def _first_column(table_text: str) -> list[str]:
    """The first cell of each row of the first Markdown table in ``table_text``, backticks off."""
    import re

    rows = [line for line in table_text.splitlines() if line.startswith("|")]
    return [re.sub(r"`", "", row.split("|")[1]).strip() for row in rows[2:]]


def test_conform_kinds_in_the_docs_are_spec_kinds():
    """docs/conform.md's ``### `kind`: signature`` headings name each entry of conform/spec.KINDS
    once; the README names the same kinds, in the table's order."""
    import re

    from mathcheck.conform.spec import KINDS

    kinds = _section((DOCS / "conform.md").read_text(encoding="utf-8"), "## Kinds")
    headings = [line for line in kinds.splitlines() if line.startswith("### ")]
    assert sorted(k for line in headings for k in re.findall(r"`([a-z-]+)`:", line)) == sorted(KINDS)
    readme = " ".join(README.read_text(encoding="utf-8").split())
    listed = readme[readme.index("Kinds: `attention`") : readme.index("; variants `--causal`")]
    assert re.findall(r"`([a-z-]+)`", listed) == list(KINDS)


def test_model_properties_in_the_docs_are_the_table():
    from mathcheck.model.properties import PROPERTIES

    table = _section((DOCS / "model.md").read_text(encoding="utf-8"), "## Model-level properties")
    rows = [
        [c.strip().strip("`") for c in line.split("|")[1:3]] for line in table.splitlines() if line.startswith("| `")
    ]
    assert [(name, "-" if claim.startswith("none") else claim) for name, claim in rows] == [
        (p.name, p.claim) for p in PROPERTIES
    ]


def test_the_status_table_of_outcome_is_statuses():
    """outcome.py's docstring table (word, exit, severity) is STATUSES, every word once."""
    from mathcheck import outcome

    doc = outcome.__doc__
    table = doc[doc.index("=" * 29) : doc.index("Severity orders")].strip().splitlines()[3:-1]
    import re

    rows, words = [], []
    for line in table:  # a row's words may continue on the next line, its numbers on the last one
        text, code, severity = re.fullmatch(r"(.*?)(?:\s{2,}(\d+)\s+(\d+))?\s*", line).groups()
        words += [w.strip() for w in text.split(",") if w.strip()]
        if code is not None:
            rows += [(w, int(code), int(severity)) for w in words]
            words = []
    documented = sorted(rows)
    actual = sorted((s.word, s.exit_code, s.severity) for s in outcome.STATUSES.values())
    assert documented == actual


def test_the_grammar_functions_in_docs_check_are_the_function_table():
    """docs/check.md's "functions" and "several arguments" rows name every function of
    numeric/functions.py, and nothing else (aliases such as ``abs`` allowed)."""
    import re

    from mathcheck.numeric import functions

    text = (DOCS / "check.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith(("| functions |", "| several arguments |"))]
    assert len(rows) == 2
    named = set()
    for code in re.findall(r"`([^`]*)`", " ".join(rows)):
        for token in re.sub(r"\([^)]*\)", "", code).split():  # log(x, b) → log; arguments are no names
            named.add(token.strip(",."))
    table = {f.name for f in functions.entries()}
    aliases = {a for f in functions.entries() for a in f.aliases}
    assert table <= named, sorted(table - named)
    assert named <= table | aliases, sorted(named - table - aliases)
