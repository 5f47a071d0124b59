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
        assert (tmp_path / f"{cache.key(e, 'prove', Options())}.pickle").exists(), e.id

    def must_not_run(*args, **kwargs):
        raise AssertionError("a current cache entry was recomputed")

    monkeypatch.setattr(engine, "compute", must_not_run)
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
    (tmp_path / f"{k}.pickle").write_bytes(b"not a pickle")
    (v,) = engine.run([e], "prove", Options(), use_cache=True)
    assert v.status == "proved"


def test_relationals_survive_the_cache_as_built():
    import pickle

    import sympy as sp

    M = sp.MatrixSymbol("M", 2, 2)
    eq = sp.Eq(sp.Trace(M), sp.Integer(3), evaluate=False)
    decided = sp.Eq(sp.Integer(1), sp.Integer(2), evaluate=False)  # SymPy would rebuild this as False
    data = cache.dumps((eq, decided))
    assert data is not None
    back = pickle.loads(data)
    assert back[1] is not sp.false and isinstance(back[1], sp.Equality)
    assert cache.fingerprint(back) == cache.fingerprint((eq, decided))


def test_a_payload_that_does_not_pickle_is_not_cached_and_parallel_falls_back():
    def local():
        return 1

    assert cache.dumps(("prove", local)) is None
    # the refute payload of this claim holds a local function: -j 2 must still give the serial report
    ids = [registry.entry("attention-permutation-equivariance")] if "attention-permutation-equivariance" in \
        [e.id for e in registry.entries()] else entries()
    serial = engine.run(ids, "refute", Options(), jobs=1, use_cache=False)
    parallel = engine.run(ids + entries()[:1], "refute", Options(), jobs=2, use_cache=False)[:len(ids)]
    assert as_json(serial, "refute") == as_json(parallel, "refute")


def test_fingerprint_ignores_how_a_symbols_assumptions_were_spelled():
    # The same symbol (SymPy says equal) may come back from a pickle listing derived facts.
    import sympy as sp

    a, b = sp.Symbol("x1", integer=True), sp.Symbol("x1", integer=True, real=True)
    assert a == b and sp.srepr(a) != sp.srepr(b)
    assert cache.fingerprint(sp.Sum(a, (a, 1, 3))) == cache.fingerprint(sp.Sum(b, (b, 1, 3)))
    assert cache.fingerprint(a) != cache.fingerprint(sp.Symbol("x1", positive=True))
