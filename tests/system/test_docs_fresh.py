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
    diff = "".join(list(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True),
                                             "docs/claims.md (committed)", "fresh rendering", n=1))[:40])
    assert committed == fresh, f"docs/claims.md is stale; run `{writeup.DOCS_COMMAND}`:\n{diff}"
    for image in (line.split("](", 1)[1].rstrip(")") for line in fresh.splitlines() if line.startswith("![")):
        assert (DOCS / image).is_file(), f"docs/{image} is missing; run `{writeup.DOCS_COMMAND}`"


def test_committed_pdf_catalog_exists():
    pdf = DOCS / "catalog.pdf"
    assert pdf.is_file() and pdf.read_bytes()[:5] == b"%PDF-", f"docs/catalog.pdf is missing; run `{writeup.DOCS_COMMAND}`"
