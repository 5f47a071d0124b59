"""The audit judges every sentence of the article that states mathematics (mathcheck/audit.py).

The seed is read from ``../shared/seed`` beside the repository root (or ``$MATHCHECK_SEED_DIR``);
without it the seed tests skip with one line, and under ``CI=true`` they fail instead.

The detector (what "states mathematics" means here): a sentence of §1.1–§8.2 — the seed's text split
after 。！？ — is mathematical when, with the branch names (线性代数, 概率统计, 微积分, 信息论, 组合数学)
taken out, it has formula characters (= ^ √ Σ ∑ × ² @, ``->``, a LaTeX command), digits joined by an
operator (``4x4``, ``n(n-1)/2``, ``T=0.7``), a function applied (``softmax(``, ``log p``, ``O(``,
``sqrt(``) or one of :data:`KEYWORDS`. Each such sentence must be quoted by an entry (the quote
contains it, or it contains the quote).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathcheck import audit, registry
from mathcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]
SEED_NAME = "000_339d0f3ae556b2c1.txt"

KEYWORDS = (
    "维度",
    "维向量",
    "维空间",
    "矩阵",
    "复杂度",
    "概率",
    "期望",
    "方差",
    "均值",
    "梯度",
    "求导",
    "导数",
    "等价",
    "正比",
    "反比",
    "点积",
    "内积",
    "形状",
    "熵",
    "散度",
    "组合数",
    "线性变换",
    "恒等式",
    "不变",
    "归一化",
    "指数",
    "softmax",
    "argmax",
    "O(",
    "√",
    "∑",
    "Σ",
)
BRANCHES = re.compile("概率统计|组合数学|线性代数|信息论|微积分|概率部分")
FORMULA = re.compile(
    r"[=^√∑Σ×²@]|->|\\[A-Za-z]+|\d\s*[-+*/×x]\s*\d"
    r"|\b(?:softmax|log|exp|sin|cos|sqrt|KL|O)\s*[(p]|QK\^T|d_k"
)
SUBSECTION = re.compile(r"^(\d)\.(\d) \S")
SECTION = re.compile(r"^(\d)\. \S")


def seed_text() -> str:
    """The article, or a skip (a failure under CI=true) when it is not beside the repository."""
    folder = Path(os.environ.get("MATHCHECK_SEED_DIR", ROOT.parent / "shared" / "seed"))
    path = folder / SEED_NAME
    if not path.is_file():
        message = f"the seed {path} is absent (set MATHCHECK_SEED_DIR to the folder that holds {SEED_NAME})"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path.read_text(encoding="utf-8")


def sentences(text: str):
    """(section, sentence) for every sentence of §1.1–§8.2, in order."""
    section = None
    for line in text.splitlines():
        line = line.strip()
        if m := SUBSECTION.match(line):
            section = f"§{m.group(1)}.{m.group(2)}"
            continue
        if SECTION.match(line) and len(line) < 40:
            section = None  # a chapter heading; its text starts at the first subsection
            continue
        if not line or section is None:
            continue
        for s in re.split(r"(?<=[。！？])", line.removeprefix("• ")):
            if re.search(r"\w", s):
                yield section, s.strip()


def is_mathematical(sentence: str) -> bool:
    bare = BRANCHES.sub("", sentence)
    return bool(FORMULA.search(bare)) or any(k in bare for k in KEYWORDS)


def covered(sentence: str) -> bool:
    return any(sentence in f or f in sentence for e in audit.ENTRIES for f in e.fragments)


def test_the_detector_finds_formulas_and_keywords_and_skips_advice():
    assert is_mathematical("X (10, 512) @ W_Q (512, 64) -> Q (10, 64)")
    assert is_mathematical("如果把两两配对写成组合数，就是 C(n, 2) 级别，约等于 n(n-1)/2")
    assert is_mathematical("信息论告诉你：一个词携带的信息量，和它出现的概率成反比。")
    assert not is_mathematical("很多人一上来就死磕信息论或组合数学，其实顺序反了。")  # branch names only
    assert not is_mathematical("整个过程不需要 GPU，CPU 就够了。")


def test_every_mathematical_sentence_of_the_seed_has_an_entry():
    found = [(sec, s) for sec, s in sentences(seed_text()) if is_mathematical(s)]
    assert len(found) > 100  # the detector reads the article, not an empty file
    missing = [f"{sec} {s}" for sec, s in found if not covered(s)]
    assert not missing, "sentences with mathematics and no audit entry:\n" + "\n".join(missing)


def test_every_quote_occurs_in_the_seed_in_its_section():
    text = seed_text()
    where = {}
    for sec, s in sentences(text):
        where.setdefault(sec, []).append(s)
    for e in audit.ENTRIES:
        for f in e.fragments:
            assert f in text, f"{e.section}: the quote {f[:40]!r}… is not in the seed as written"
            body = "".join(where[e.section])
            assert f.replace("\n", "") in body or any(f in s for s in where[e.section]), (
                f"{e.section}: the quote {f[:40]!r}… is in the seed but not in {e.section}"
            )


def test_an_unknown_verdict_word_is_an_error_at_load():
    good = audit.ENTRIES[0]
    with pytest.raises(audit.AuditError, match="unknown verdict 'exactly'"):
        dataclasses.replace(good, verdict="exactly")
    with pytest.raises(audit.AuditError, match="needs its reason"):
        dataclasses.replace(good, verdict="wrong", reason=" ")
    with pytest.raises(audit.AuditError, match="§9.1"):
        dataclasses.replace(good, section="§9.1")


def test_every_named_claim_exists_and_imprecise_or_wrong_say_why():
    ids = {e.id for e in registry.entries()}
    for e in audit.ENTRIES:
        assert set(e.claims) <= ids, f"{e.section} {e.zh[:20]}: unknown claims {set(e.claims) - ids}"
    judged = [e for e in audit.ENTRIES if e.verdict in ("imprecise", "wrong")]
    assert judged and all(len(e.reason) > 40 for e in judged)
    # every imprecise or wrong verdict but one is backed by a claim or a user check (the exception,
    # 'rotation, scaling, stretching' of §2.1, is about a 512×64 matrix's rank: its reason says why)
    unbacked = [e.zh[:20] for e in judged if not e.claims and not e.check]
    assert unbacked == ["矩阵乘法在这里的实际含义，是对向量做旋转"]


def test_counts_add_up_per_section_and_verdict():
    c = audit.counts()
    assert sum(c["all"].values()) == len(audit.ENTRIES)
    assert sum(sum(row.values()) for key, row in c.items() if key != "all") == len(audit.ENTRIES)
    assert set(c) == {f"§{n}" for n in range(1, 9)} | {"all"}


@pytest.mark.parametrize("entry", [e for e in audit.ENTRIES if e.check], ids=lambda e: e.check_command)
def test_each_user_check_gives_its_status(entry):
    from mathcheck.usercheck import check

    lhs, rhs, status, *assume = entry.check
    assert check(lhs, rhs, assume or None, seed=0, timeout=60).status == status


def test_audit_all_lists_every_entry_grouped_by_section():
    r = CliRunner().invoke(main, ["audit", "--all"])
    assert r.exit_code == 0, r.output
    for sec in audit.by_section():
        assert f"\n{sec} " in "\n" + r.output
    assert ("\n" + r.output).count("\n    seed: ") == len(audit.ENTRIES)
    assert f"{len(audit.ENTRIES)} sentences judged: " in r.output
    assert "the claims' verdicts on the sentences they cite:" in r.output  # a superset of plain `audit`


def test_audit_all_json_has_every_entry_and_the_counts():
    import json

    r = CliRunner().invoke(main, ["audit", "--all", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert len(data["sentences"]) == len(audit.ENTRIES)
    first = data["sentences"][0]
    assert set(first) == {"section", "zh", "en", "verdict", "reason", "claims", "check"}
    assert data["counts"] == audit.counts()
    assert {c["id"] for c in data["claims"]} == {e.id for e in registry.entries(plugins=True)}


def test_the_writeup_audit_sections_hold_the_counts_and_every_sentence():
    from mathcheck.render import latex, markdown

    md = "\n".join(markdown.audit_section())
    total = audit.counts()["all"]
    assert "| **all** | " + " | ".join(str(total[v]) for v in audit.VERDICTS) + f" | {len(audit.ENTRIES)} |" in md
    judged = [e for e in audit.ENTRIES if e.verdict in ("imprecise", "wrong")]
    assert md.count("\n- **§") == len(judged)
    table_rows = [line for line in md.splitlines() if any(line.startswith(f"| {v} | ") for v in audit.VERDICTS)]
    assert len(table_rows) == len(audit.ENTRIES)
    # five cells each: the seed's own '|' (D_KL(p || q)) escaped
    assert all(len(re.findall(r"(?<!\\)\|", line)) == 6 for line in table_rows), [
        line for line in table_rows if len(re.findall(r"(?<!\\)\|", line)) != 6
    ][:1]
    assert "[sinusoidal-wavelengths](#claim-sinusoidal-wavelengths)" in md
    tex = latex.audit_section()
    assert tex.count(r"\item[") == len(audit.ENTRIES) + len(judged)
    assert r"\hyperref[claim:softmax-weight-ratio]" in tex


def test_only_a_catalog_of_the_whole_article_ends_with_the_audit():
    from types import SimpleNamespace

    from mathcheck.render.latex import covers_the_article

    def items(ids):
        return [SimpleNamespace(claim=SimpleNamespace(id=i)) for i in ids]

    assert covers_the_article(items(e.id for e in registry.entries()))
    assert not covers_the_article(items(["softmax-jacobian", "qk-variance"]))
