import sys
import textwrap

import pytest

from mathcheck import registry

PLUGIN = textwrap.dedent("""
    from mathcheck.registry import claim
    from tests.false_claims import build

    claim(id="plugin-false-square", title="t", section="§0", zh="测试", en="test",
          check="tests.false_claims:check")(build)
""")


def test_entry_point_plugin_contributes_claims(tmp_path, monkeypatch):
    (tmp_path / "mc_plugin_claims.py").write_text(PLUGIN)
    dist = tmp_path / "mc_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text(
        "[console_scripts]\nx = y:z\n\n[mathcheck.claims]\nmine = mc_plugin_claims\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert ("mine", "mc_plugin_claims") in list(registry._declared_entry_points("mathcheck.claims"))
        ids = [e.id for e in registry.entries(plugins=True)]
        assert "plugin-false-square" in ids
        assert registry.get("plugin-false-square").parts[0].name == "square"
    finally:
        registry._ENTRIES.pop("plugin-false-square", None)
        sys.modules.pop("mc_plugin_claims", None)


def test_broken_plugin_is_one_clear_error(tmp_path, monkeypatch):
    dist = tmp_path / "broken-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text("[mathcheck.claims]\nbad = no_such_module_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(registry.LoadError, match="entry point 'bad' .* failed to load"):
        registry.load_entry_points()


def test_unknown_id_suggests_the_closest():
    with pytest.raises(registry.UnknownClaim, match="did you mean 'qk-variance'"):
        registry.entry("qk-varience")


def _list_in_fresh_process(cache_dir):
    import json
    import os
    import subprocess

    env = dict(os.environ, MATHCHECK_CACHE_DIR=str(cache_dir))
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mathcheck", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    return json.loads(out.stdout)["claims"], imported


def test_list_reads_an_index_and_matches_the_registry(tmp_path):
    expected = [{"id": e.id, "title": e.title, "section": e.section} for e in registry.entries()]
    first, _ = _list_in_fresh_process(tmp_path)  # builds the index
    second, imported = _list_in_fresh_process(tmp_path)
    assert first == second == expected
    assert "mathcheck.claim" not in imported  # unchanged modules were not imported


def test_a_stale_index_is_not_believed(tmp_path):
    import json

    _list_in_fresh_process(tmp_path)
    index_file = tmp_path / "claims-index.json"
    index = json.loads(index_file.read_text())
    for record in index.values():
        record["stamp"][0] -= 1  # as if the module had been edited since
        for meta in record["entries"]:
            meta[1] = "a stale title"
    index_file.write_text(json.dumps(index))
    claims, imported = _list_in_fresh_process(tmp_path)
    assert all(c["title"] != "a stale title" for c in claims)
    assert "mathcheck.claim" in imported


def test_a_listed_placeholder_builds_the_real_claim():
    e = registry.Entry("qk-variance", "t", "§2.2", "", "", "x:y", "mathcheck.derivations.linear_algebra", None)
    assert e.is_placeholder()
    assert e.build().parts[0].name == "general"
