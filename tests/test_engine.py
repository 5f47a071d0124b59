import json

import pytest

from mathcheck import cache, engine, registry
from mathcheck.render.json import report, without_timings
from mathcheck.verify import Options

IDS = ["softmax-jacobian", "cross-entropy-decomposition"]


def entries():
    return [registry.entry(i) for i in IDS]


def as_json(verdicts, kind):
    return without_timings(json.loads(json.dumps(report(verdicts, kind, 0), default=str)))


@pytest.mark.parametrize("kind", ["prove", "refute"])
def test_parallel_report_equals_serial_report(kind):
    serial = engine.run(entries(), kind, Options(seed=1), jobs=1, use_cache=False)
    parallel = engine.run(entries(), kind, Options(seed=1), jobs=2, use_cache=False)
    assert as_json(serial, kind) == as_json(parallel, kind)


def test_warm_run_reads_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(tmp_path))
    cold = engine.run(entries(), "prove", Options(), use_cache=True)
    assert [v.status for v in cold] == ["proved"] * len(IDS)
    for e in entries():
        assert cache.path(cache.key(e, "prove", Options())).exists(), e.id

    def must_not_run(*args, **kwargs):
        raise AssertionError("a current cache entry was recomputed")

    monkeypatch.setattr(engine, "_payload", must_not_run)
    warm = engine.run(entries(), "prove", Options(), use_cache=True)
    assert as_json(cold, "prove") == as_json(warm, "prove")
    with pytest.raises(AssertionError):
        engine.run(entries()[:1], "prove", Options(), use_cache=False)  # --no-cache bypasses it


def test_key_changes_with_source_seed_and_versions(monkeypatch):
    e = registry.entry("softmax-jacobian")
    base = cache.key(e, "prove", Options())
    assert base == cache.key(e, "prove", Options())
    assert base != cache.key(e, "prove", Options(seed=1))
    assert base != cache.key(e, "refute", Options())
    real_read = cache.Path.read_bytes

    def edited(path):
        data = real_read(path)
        return data + b"\n# edited" if path.name == "calculus.py" and "derivations" in str(path) else data

    monkeypatch.setattr(cache.Path, "read_bytes", edited)
    assert cache.key(e, "prove", Options()) != base
    monkeypatch.undo()
    cache._core_digest.cache_clear()
    monkeypatch.setattr(cache, "_version", lambda dist: "9.9" if dist == "sympy" else "x")
    assert cache.key(e, "prove", Options()) != base
    monkeypatch.undo()
    cache._core_digest.cache_clear()


def test_a_corrupt_cache_entry_is_recomputed(monkeypatch, tmp_path):
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(tmp_path))
    e = registry.entry("cross-entropy-decomposition")
    k = cache.key(e, "prove", Options())
    tmp_path.mkdir(exist_ok=True)
    cache.path(k).write_bytes(b"not an entry")
    (v,) = engine.run([e], "prove", Options(), use_cache=True)
    assert v.status == "proved"


def test_relationals_survive_the_cache_as_built():
    import sympy as sp

    from mathcheck import serial

    M = sp.MatrixSymbol("M", 2, 2)
    eq = sp.Eq(sp.Trace(M), sp.Integer(3), evaluate=False)
    decided = sp.Eq(sp.Integer(1), sp.Integer(2), evaluate=False)  # SymPy would rebuild this as False
    back = serial.loads(serial.dumps((eq, decided)))
    assert back[1] is not sp.false and isinstance(back[1], sp.Equality)
    assert serial.same(back, (eq, decided))


def test_parallel_falls_back_to_this_process_when_no_payload_travels(monkeypatch):
    """Every worker's payload refused by ``cache.pack``: the parent proves each claim itself, and
    the report is the serial one (the fast form of the real case below)."""
    unpacked = []
    monkeypatch.setattr(cache, "pack", lambda entry, payload: None)  # forked workers inherit it
    monkeypatch.setattr(cache, "unpack", lambda *a: unpacked.append(a))
    serial = engine.run(entries(), "prove", Options(), jobs=1, use_cache=False)
    parallel = engine.run(entries(), "prove", Options(), jobs=2, use_cache=False)
    assert unpacked == [] and [v.status for v in parallel] == ["proved"] * len(IDS)
    assert as_json(serial, "prove") == as_json(parallel, "prove")


@pytest.mark.slow
def test_a_payload_that_cannot_be_stored_is_not_cached_and_parallel_falls_back():
    def local():
        return 1

    assert cache.pack(entries()[0], ("prove", local)) is None
    # the claim whose mutants hold local SymPy functions: -j 2 must still give the serial report
    ids = (
        [registry.entry("attention-permutation-equivariance")]
        if "attention-permutation-equivariance" in [e.id for e in registry.entries()]
        else entries()
    )
    serial = engine.run(ids, "refute", Options(), jobs=1, use_cache=False)
    parallel = engine.run(ids + entries()[:1], "refute", Options(), jobs=2, use_cache=False)[: len(ids)]
    assert as_json(serial, "refute") == as_json(parallel, "refute")
