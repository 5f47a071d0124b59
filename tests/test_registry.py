import sys
import textwrap

import pytest

from mathcheck import registry

PLUGIN = textwrap.dedent('''
    from mathcheck.registry import claim
    from tests.false_claims import build

    claim(id="plugin-false-square", title="t", section="§0", zh="测试", en="test",
          check="tests.false_claims:check")(build)
''')


def test_entry_point_plugin_contributes_claims(tmp_path, monkeypatch):
    (tmp_path / "mc_plugin_claims.py").write_text(PLUGIN)
    dist = tmp_path / "mc_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text("[console_scripts]\nx = y:z\n\n[mathcheck.claims]\nmine = mc_plugin_claims\n")
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
