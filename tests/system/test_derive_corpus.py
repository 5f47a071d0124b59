"""The must-show corpus (tests/derive_corpus/): real derivations, each file citing its source, with
deliberately wrong links (their reason says ``(wrong)``). Every link is checked as ``mathcheck
derive`` checks it; the verdicts are held to the truth the file states:

* 0 false proofs: no wrong link proved (and no ``≈`` with a wrong bound held);
* 0 false refutations: no true link refuted;
* at least 95% of the true links proved (``holds-within`` for a true ``≈`` with its bound).

``python -m tests.system.test_derive_corpus`` prints the table of docs/derive.md.
"""

from __future__ import annotations

import functools

import pytest

from mathcheck import derive
from tests.paths import TESTS

CORPUS = TESTS / "derive_corpus"
GOOD = ("proved", "holds-within")


def links(seed: int = 0):
    """``(file, chain, line, wrong, status)`` for every link of every chain of the corpus."""
    out = []
    for path in sorted(CORPUS.glob("*.derivation")):
        for chain in derive.read(str(path)):
            r = derive.check_chain(chain, seed, timeout=30.0)
            assert r.status != "bad-input", r.message
            for step in r.steps[1:]:
                out.append((path.name, chain.name, step.line, "(wrong)" in step.reason, step.status))
    return out


def table(rows) -> str:
    files = sorted({f for f, *_ in rows})
    lines = ["| file | true links proved | wrong links refuted | other |", "|---|---|---|---|"]
    for f in files:
        mine = [r for r in rows if r[0] == f]
        true = [r for r in mine if not r[3]]
        wrong = [r for r in mine if r[3]]
        other = [
            f"line {r[2]}: {r[4]}" for r in mine if (not r[3] and r[4] not in GOOD) or (r[3] and r[4] != "refuted")
        ]
        lines.append(
            f"| {f} | {sum(r[4] in GOOD for r in true)}/{len(true)} | "
            f"{sum(r[4] == 'refuted' for r in wrong)}/{len(wrong)} | {'; '.join(other)} |"
        )
    true = [r for r in rows if not r[3]]
    wrong = [r for r in rows if r[3]]
    lines.append(
        f"| **{len(files)} files** | **{sum(r[4] in GOOD for r in true)}/{len(true)}** | "
        f"**{sum(r[4] == 'refuted' for r in wrong)}/{len(wrong)}** | |"
    )
    return "\n".join(lines)


@functools.lru_cache(maxsize=1)
def _links() -> tuple:
    return tuple(links())


@pytest.fixture
def rows():
    # derived once per worker process: a module fixture was torn down between the group's tests when
    # xdist interleaved another module's, and the corpus (~150 s) was derived twice in one CI run
    return list(_links())


def test_the_corpus_is_real():
    files = sorted(CORPUS.glob("*.derivation"))
    assert len(files) >= 20
    for f in files:
        assert f.read_text().startswith("# Source: "), f.name


@pytest.mark.slow
@pytest.mark.xdist_group("derive-corpus")
def test_no_false_proof(rows):
    assert [r for r in rows if r[3] and r[4] in GOOD] == []


@pytest.mark.slow
@pytest.mark.xdist_group("derive-corpus")
def test_no_false_refutation(rows):
    assert [r for r in rows if not r[3] and r[4] == "refuted"] == []


@pytest.mark.slow
@pytest.mark.xdist_group("derive-corpus")
def test_at_least_95_percent_of_true_links_proved(rows):
    true = [r for r in rows if not r[3]]
    proved = [r for r in true if r[4] in GOOD]
    assert len(proved) >= 0.95 * len(true), [r for r in true if r[4] not in GOOD]


@pytest.mark.slow
@pytest.mark.xdist_group("derive-corpus")
def test_every_wrong_link_is_refuted(rows):
    assert [r for r in rows if r[3] and r[4] != "refuted"] == []


if __name__ == "__main__":
    print(table(links()))
