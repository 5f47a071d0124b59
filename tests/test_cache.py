"""The proof cache is data: a poisoned, corrupt, copied or forged entry runs nothing, crashes
nothing and is never trusted; writes are atomic; ``mathcheck cache info/clear``."""

import json
import os
import pathlib
import pickle
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from mathcheck import cache, registry, serial
from mathcheck.cli import main
from mathcheck.render.json import without_timings
from mathcheck.verify import Options

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAST = "cross-entropy-decomposition"
OTHER = "information-content"
FALSE_MODULE = textwrap.dedent('''
    """A tiny false claim of a user's: (x + 1)^2 = x^2 + 1."""
    from mathcheck.registry import claim
    from tests.false_claims import build


    @claim(id="cache-false-square", title="(x + 1)² = x² + 1 (false)", section="§0", zh="测试", en="test",
           check="tests.false_claims:check")
    def false_square():
        return build()
''')


class Canary:
    """A pickle that, when loaded, touches a file: what an attacker would put in a pickle cache."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(d))
    return d


def entry_path(claim_id, kind="prove"):
    return cache.path(cache.key(registry.entry(claim_id), kind, Options()))


def prove(*args):
    return CliRunner().invoke(main, ["prove", *args])


def note(claim_id, reason, kind="prove"):
    return f"note: cache: ignoring the {kind} entry of {claim_id}: {reason}; recomputing and replacing it\n"


def assert_clean(r, code=0):
    assert r.exit_code == code, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "Traceback" not in r.output


def assert_valid_entry(claim_id, kind="prove"):
    e = registry.entry(claim_id)
    k = cache.key(e, kind, Options())
    assert cache.decode(cache.path(k).read_bytes(), k, e, kind) is not None


def test_entries_are_json_bound_to_their_key_and_digested(cache_dir):
    r = prove(FAST)
    assert_clean(r)
    fields = json.loads(entry_path(FAST).read_text())
    assert set(fields) == {"format", "key", "mathcheck", "claim", "kind", "payload", "sha256"}
    assert (fields["key"], fields["claim"], fields["kind"]) == (entry_path(FAST).stem, FAST, "prove")
    assert fields["sha256"] == cache._digest(fields)
    assert fields["payload"][:2] == ["prove", "proved"]


def test_a_current_entry_is_read_and_not_recomputed(cache_dir, monkeypatch):
    from mathcheck import engine

    cold = prove(FAST, "--json")
    assert_clean(cold)
    monkeypatch.setattr(engine, "_payload", lambda *a, **k: pytest.fail("a current entry was recomputed"))
    warm = prove(FAST, "--json", "-v")
    assert_clean(warm)
    assert without_timings(json.loads(warm.stdout)) == without_timings(json.loads(cold.stdout))
    assert warm.stderr == ""


@pytest.mark.parametrize("legacy", [False, True])
def test_a_pickle_that_runs_a_command_runs_nothing(cache_dir, tmp_path, legacy):
    canary = tmp_path / "canary"
    control = tmp_path / "control"
    pickle.loads(pickle.dumps(Canary(control)))  # the poison is live: loading it does run the command
    assert control.exists()
    k = entry_path(FAST).stem
    cache_dir.mkdir()
    target = cache_dir / f"{k}.pickle" if legacy else cache_dir / f"{k}.json"  # old layout, or the real path
    target.write_bytes(pickle.dumps(Canary(canary)))
    r = prove(FAST, "-v")
    assert_clean(r)
    assert not canary.exists()
    assert r.stdout.endswith("claims: 1 proved\n")
    reason = "not JSON (truncated, corrupt, or not written by mathcheck)"
    assert r.stderr == ("" if legacy else note(FAST, reason))
    assert_valid_entry(FAST)  # replaced by a good entry
    if legacy:
        assert target.exists()  # never read; `cache clear` removes it


def _poison_garbage(path):
    path.write_bytes(os.urandom(3000))


def _poison_truncated(path):
    path.write_bytes(path.read_bytes()[:1000])


def _poison_wrong_shape(path):
    path.write_text(json.dumps({"status": "proved"}))


def _poison_list(path):
    path.write_text("[1, 2, 3]")


def _poison_empty(path):
    path.write_bytes(b"")


@pytest.mark.parametrize(
    "poison, reason",
    [
        (_poison_garbage, "not JSON (truncated, corrupt, or not written by mathcheck)"),
        (_poison_truncated, "not JSON (truncated, corrupt, or not written by mathcheck)"),
        (_poison_empty, "not JSON (truncated, corrupt, or not written by mathcheck)"),
        (_poison_wrong_shape, "not a mathcheck cache entry (wrong fields)"),
        (_poison_list, "not a mathcheck cache entry (wrong fields)"),
    ],
)
def test_a_corrupt_entry_is_ignored_recomputed_and_replaced(cache_dir, poison, reason):
    assert_clean(prove(FAST))
    poison(entry_path(FAST))
    r = prove(FAST, "-v")
    assert_clean(r)
    assert r.stdout.endswith("claims: 1 proved\n")
    assert r.stderr == note(FAST, reason)
    assert_valid_entry(FAST)
    assert prove(FAST).stderr == ""  # quiet without -v
    assert not list(cache_dir.glob(".*.tmp"))


def test_a_valid_entry_copied_under_another_claims_key_is_not_trusted(cache_dir):
    assert_clean(prove(FAST, OTHER))
    entry_path(OTHER).write_bytes(entry_path(FAST).read_bytes())
    r = prove(OTHER, "-v")
    assert_clean(r)
    assert r.stderr == note(OTHER, "written under another key (copied from another entry?)")
    assert f"proved       {OTHER}" in r.stdout and FAST not in r.stdout
    assert_valid_entry(OTHER)


def _resign(fields):
    fields["sha256"] = cache._digest(fields)


def _rewrite(path, edit, resign):
    fields = json.loads(path.read_text())
    edit(fields)
    if resign:
        _resign(fields)
    path.write_text(serial.canonical(fields))


def _claim_proved(fields):
    """Say ``proved`` everywhere a status is said (the evidence, the steps' decisions, stays)."""

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "status" and v in ("refuted", "inconclusive"):
                    x[k] = "proved"
                elif k == "status" and v == "passed":
                    pass
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    fields["payload"][1] = "proved"
    walk(fields["payload"])
    fields["payload"][3]["fields"]["status"] = "passed"


@pytest.fixture
def false_claim(tmp_path):
    p = tmp_path / "false_square.py"
    p.write_text(FALSE_MODULE)
    yield str(p)
    registry._ENTRIES.pop("cache-false-square", None)


def prove_user(path, *args):
    """``prove --from path``, as a fresh process would: the module is loaded anew each time."""
    registry._ENTRIES.pop("cache-false-square", None)
    return prove("--from", path, *args)


@pytest.mark.parametrize(
    "resign, reason",
    [
        (False, "its SHA-256 does not match its content"),
        (True, "part 'square' is proved although a step is not"),
    ],
)
def test_a_forged_proved_verdict_of_a_false_claim_is_not_trusted(cache_dir, false_claim, resign, reason):
    first = prove_user(false_claim)
    assert_clean(first, code=1)
    assert first.stdout.endswith("claims: 1 refuted\n")
    path = entry_path("cache-false-square")
    _rewrite(path, _claim_proved, resign)
    assert json.loads(path.read_text())["payload"][1] == "proved"
    r = prove_user(false_claim, "-v")
    assert_clean(r, code=1)
    assert r.stdout.endswith("claims: 1 refuted\n")
    assert r.stderr == note("cache-false-square", reason)
    assert json.loads(path.read_text())["payload"][1] == "refuted"  # replaced by the truth


def _numeric_refuted(fields):
    fields["payload"][3]["fields"]["status"] = "refuted"


def _extra_field(fields):
    fields["payload"][3]["fields"]["trusted"] = True


def _wrong_type(fields):
    fields["payload"][3]["fields"]["trials"] = "many"


def _odd_contents(fields):
    fields["payload"][3]["fields"]["counterexample"] = [[1, 2, 3]]  # the report would print pairs


def _foreign_class(fields):
    fields["payload"][3]["type"] = "engine.BrokenClaim"


def _code_in_expression(fields):
    part = fields["payload"][2]["fields"]["parts"][0]["fields"]
    part["statement"]["srepr"] = "__import__('os').system('true')"


def _other_version(fields):
    fields["mathcheck"] = "0.0.1"


def _other_claim(fields):
    fields["claim"] = OTHER


@pytest.mark.parametrize(
    "edit, reason",
    [
        (_numeric_refuted, "status 'proved' contradicts its evidence (symbolic proved, numeric refuted)"),
        (_extra_field, "verdict.NumericVerdict with fields"),
        (_wrong_type, "verdict.NumericVerdict.trials is a str"),
        (_odd_contents, "a NumericVerdict whose contents are not of the expected shape"),
        (_foreign_class, "type 'engine.BrokenClaim' is not one mathcheck stores"),
        (_code_in_expression, "a call of something other than a SymPy class"),
        (_other_version, "written by mathcheck '0.0.1', this is"),
        (_other_claim, f"holds 'prove' of '{OTHER}'"),
    ],
)
def test_an_entry_with_a_valid_digest_but_wrong_content_is_not_trusted(cache_dir, edit, reason):
    assert_clean(prove(FAST))
    _rewrite(entry_path(FAST), edit, resign=True)
    r = prove(FAST, "-v")
    assert_clean(r)
    assert r.stdout.endswith("claims: 1 proved\n")
    assert r.stderr.startswith(f"note: cache: ignoring the prove entry of {FAST}: ") and reason in r.stderr
    assert r.stderr.count("\n") == 1
    assert_valid_entry(FAST)


def test_refute_entries_are_checked_against_their_mutants(cache_dir):
    r = CliRunner().invoke(main, ["refute", FAST])
    assert_clean(r)
    path = entry_path(FAST, "refute")

    def survived(fields):
        fields["payload"][1][0]["fields"]["status"] = "proved"  # a mutant "survives", evidence says refuted

    _rewrite(path, survived, resign=True)
    r = CliRunner().invoke(main, ["refute", FAST, "-v"])
    assert_clean(r)
    first = registry.get(FAST).mutants[0].name
    assert r.stderr == note(FAST, f"mutant {first!r}: status 'proved' contradicts its evidence", "refute")
    assert_valid_entry(FAST, "refute")


def test_what_cannot_be_stored_exactly_is_not_stored(cache_dir, caplog):
    e = registry.entry(FAST)
    k = cache.key(e, "prove", Options())
    with caplog.at_level("INFO", logger="mathcheck.cache"):
        cache.store(k, e, "prove", ("prove", "proved", lambda: 0, None))
    assert not cache.path(k).exists()
    assert caplog.messages == [f"cache: the prove result of {FAST} is not cached: a function value"]


WRITER = textwrap.dedent("""
    import sys
    from mathcheck import cache, registry
    from mathcheck.verify import Options

    e = registry.entry(sys.argv[1])
    k = cache.key(e, "prove", Options())
    payload = cache.load(k, e, "prove")
    assert payload is not None
    print("ready", flush=True)
    for _ in range(int(sys.argv[2])):
        cache.store(k, e, "prove", payload)
""")


def test_two_processes_writing_one_entry_never_leave_half_of_it(cache_dir):
    assert_clean(prove(FAST))
    path = entry_path(FAST)
    whole = path.read_bytes()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, FAST, "300"], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    for w in writers:
        assert w.stdout.readline() == "ready\n"
    reads = 0
    while any(w.poll() is None for w in writers):
        assert path.read_bytes() == whole  # a reader sees the old file or the new one, never a part
        reads += 1
    assert [w.wait() for w in writers] == [0, 0]
    assert reads > 0 and path.read_bytes() == whole
    assert not list(cache_dir.glob(".*.tmp"))


def test_two_concurrent_runs_sharing_a_cold_cache_both_prove_everything(cache_dir):
    cmd = [sys.executable, "-m", "mathcheck", "prove", FAST, OTHER, "-v"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [
        subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for p in runs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0 and out.endswith("claims: 2 proved\n") and err == "", (out, err)
    for c in (FAST, OTHER):
        assert_valid_entry(c)


def test_a_real_pickle_bomb_in_a_subprocess_runs_nothing_and_prints_no_traceback(cache_dir, tmp_path):
    canary = tmp_path / "canary"
    cache_dir.mkdir()
    entry_path(FAST).write_bytes(pickle.dumps(Canary(canary)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(
        [sys.executable, "-m", "mathcheck", "prove", FAST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout.endswith("claims: 1 proved\n")
    assert not canary.exists()


# --- mathcheck cache info / clear -------------------------------------------------------------


def test_cache_info_of_a_folder_not_created_yet(cache_dir):
    r = CliRunner().invoke(main, ["cache", "info"])
    assert (r.exit_code, r.output) == (
        0,
        f"directory  {cache_dir} (not created yet)\nentries    0\nsize       0 bytes\n",
    )


def _fill(cache_dir):
    cache_dir.mkdir()
    (cache_dir / f"{'a' * 64}.json").write_bytes(b"x" * 1500)
    (cache_dir / f"{'b' * 64}.json").write_bytes(b"x" * 600)
    (cache_dir / f"{'c' * 64}.pickle").write_bytes(pickle.dumps(Canary(cache_dir.parent / "canary")))
    (cache_dir / f".{'d' * 64}.123.beef.tmp").write_bytes(b"x" * 10)
    (cache_dir / "claims-index.json").write_bytes(b"{}")
    (cache_dir / "notes.txt").write_bytes(b"not ours" * 1000)  # a shared folder: left alone
    (cache_dir / "sub").mkdir()
    return 1500 + 600 + len(pickle.dumps(Canary(cache_dir.parent / "canary"))) + 10 + 2


def test_cache_info_and_clear_count_and_remove_only_mathchecks_files(cache_dir):
    size = _fill(cache_dir)
    r = CliRunner().invoke(main, ["cache", "info"])
    human = f"{size / 1000:.1f} kB ({size} bytes)"
    assert (r.exit_code, r.output) == (0, f"directory  {cache_dir}\nentries    2\nsize       {human}\n")
    r = CliRunner().invoke(main, ["cache", "clear"])
    assert (r.exit_code, r.output) == (0, f"removed 2 entries and 3 other files from {cache_dir}: {human}\n")
    assert sorted(p.name for p in cache_dir.iterdir()) == ["notes.txt", "sub"]
    assert not (cache_dir.parent / "canary").exists()
    r = CliRunner().invoke(main, ["cache", "info"])
    assert r.output == f"directory  {cache_dir}\nentries    0\nsize       0 bytes\n"
    r = CliRunner().invoke(main, ["cache", "clear"])
    assert r.output == f"removed 0 entries from {cache_dir}: 0 bytes\n"


def test_cache_info_counts_what_prove_wrote(cache_dir):
    assert_clean(prove(FAST))
    entry = entry_path(FAST)
    view = entry.with_name(entry.stem + ".view.json")  # what the report printed of it (a warm run's)
    size = entry.stat().st_size + view.stat().st_size
    r = CliRunner().invoke(main, ["cache", "info"])
    assert r.output.splitlines()[1:] == ["entries    1", f"size       {size / 1000:.1f} kB ({size} bytes)"]
    r = CliRunner().invoke(main, ["cache", "clear"])
    assert r.output == f"removed 1 entry and 1 other file from {cache_dir}: {size / 1000:.1f} kB ({size} bytes)\n"


def test_the_cache_commands_import_neither_sympy_nor_torch(cache_dir):
    code = (
        "import sys; from click.testing import CliRunner; from mathcheck.cli import main; "
        "r = CliRunner().invoke(main, ['cache', 'info']); assert r.exit_code == 0; "
        "print(sorted(m for m in ('sympy', 'torch') if m in sys.modules))"
    )
    p = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert p.stdout == "[]\n", p.stderr


# The one pickle channel left in the package: a forked child of ours hands its result back through a
# pipe it shares only with its parent (mathcheck check's symbolic side). Nothing there is read from disk.
PIPE_ONLY = {"mathcheck/userexpr/child.py"}


def test_no_module_reads_the_cache_folder_with_pickle_or_marshal():
    for path in (ROOT / "mathcheck").rglob("*.py"):
        text = path.read_text()
        rel = path.relative_to(ROOT).as_posix()
        for bad in ("pickle.load", "marshal.load", "shelve.", "torch.load"):
            if rel in PIPE_ONLY and bad == "pickle.load":
                assert "cache_dir" not in text and "open(" not in text, f"{rel} must unpickle only its pipe"
                continue
            assert bad not in text, f"{rel} uses {bad}"


# --- views: a warm run prints what the cold one printed, from the view kept beside the entry -------


def view_path(claim_id, kind="prove"):
    return cache.view_path(cache.key(registry.entry(claim_id), kind, Options()))


def _counting(monkeypatch):
    """Counts claim builds and entry decodes (what a warm run must not do)."""
    counts = {"build": 0, "decode": 0}
    build, decode = registry._build, cache.decode

    def counted_build(entry):
        counts["build"] += 1
        return build(entry)

    def counted_decode(*args):
        counts["decode"] += 1
        return decode(*args)

    monkeypatch.setattr(registry, "_build", counted_build)
    monkeypatch.setattr(cache, "decode", counted_decode)
    return counts


@pytest.mark.parametrize("args", [(), ("--json",)])
def test_a_warm_prove_builds_no_claim_decodes_nothing_and_prints_the_same(cache_dir, monkeypatch, args):
    cold = prove(FAST, OTHER, *args)
    assert_clean(cold)
    assert view_path(FAST).is_file() and view_path(OTHER).is_file()
    counts = _counting(monkeypatch)
    warm = prove(FAST, OTHER, *args)
    assert_clean(warm)
    assert counts == {"build": 0, "decode": 0}
    assert warm.stdout == cold.stdout  # byte for byte, the cold run's timings included (they are cached)
    verbose = prove(FAST, OTHER, *args, "-v")  # -v reads and checks every entry
    assert counts["decode"] == 2 and verbose.stdout.count("proved") >= cold.stdout.count("proved")


def test_a_warm_refute_prints_the_same_from_its_views(cache_dir, monkeypatch):
    cold = CliRunner().invoke(main, ["refute", FAST])
    assert_clean(cold)
    counts = _counting(monkeypatch)
    warm = CliRunner().invoke(main, ["refute", FAST])
    assert_clean(warm)
    assert counts == {"build": 0, "decode": 0} and warm.stdout == cold.stdout


def test_a_warm_run_after_a_cold_parallel_one_prints_from_views(cache_dir, monkeypatch):
    """-j 2's workers write the entries; the parent keeps the views, bound to the bytes the workers
    wrote (they hand back the digest), so the next run neither builds nor decodes."""
    cold = CliRunner().invoke(main, ["prove", FAST, OTHER, "-j", "2"])
    assert_clean(cold)
    counts = _counting(monkeypatch)
    warm = CliRunner().invoke(main, ["prove", FAST, OTHER])
    assert_clean(warm)
    assert counts == {"build": 0, "decode": 0} and warm.stdout == cold.stdout
    _rewrite(entry_path(FAST), _numeric_refuted, resign=True)  # the bytes the view is bound to change
    again = CliRunner().invoke(main, ["prove", FAST, OTHER])
    assert_clean(again)
    assert counts["decode"] == 1  # that entry read and checked again, the other still from its view


# A warm `prove --all` in a fresh process importing neither SymPy nor torch: in
# tests/system/test_reproducible.py, on the cache its cold -j 2 run filled (one cold catalog per run).


def test_an_edited_entry_is_read_again_not_shown_from_its_view(cache_dir):
    assert_clean(prove(FAST))
    _rewrite(entry_path(FAST), _numeric_refuted, resign=True)  # a forged entry: its view no longer matches
    r = prove(FAST)
    assert_clean(r)
    assert r.stdout.endswith("claims: 1 proved\n")
    assert_valid_entry(FAST)  # it was decoded, refused, recomputed and replaced


def _view_refuted(fields):
    fields["view"]["status"] = "refuted"


def _other_renderer(fields):
    fields["renderer"] = "0" * 64


def _other_options(fields):
    fields["options"] = [["--dtype", "float32"]]


@pytest.mark.parametrize(
    "edit, resign",
    [
        (_view_refuted, False),  # not re-signed: its digest no longer matches
        (_other_renderer, True),  # printed by other renderers
        (_other_options, True),  # another replay line
    ],
)
def test_a_view_that_does_not_match_is_not_used(cache_dir, monkeypatch, edit, resign):
    cold = prove(FAST)
    path = view_path(FAST)
    original = json.loads(path.read_text())
    fields = json.loads(path.read_text())
    edit(fields)
    if resign:
        fields["sha256"] = cache._view_digest(fields)
    path.write_text(json.dumps(fields))
    counts = _counting(monkeypatch)
    r = prove(FAST)
    assert_clean(r)
    assert counts["decode"] == 1 and r.stdout == cold.stdout  # read from the entry, and printed the same
    assert json.loads(path.read_text()) == original  # the view is written anew


def test_writeup_reads_both_verdicts_from_the_cache_and_says_what_it_computes(cache_dir):
    """Issue 33: after `prove` alone, the first writeup refutes the mutants (not cached) and says so;
    the next one computes nothing."""
    from mathcheck import writeup

    assert_clean(prove(FAST))
    lines = []
    items = writeup.collect([registry.entry(FAST)], progress=lines.append)
    assert lines == [
        "writeup: refuting the mutants of 1 claim (not cached; mathcheck refute --all caches them)",
        f"  1/1 {FAST}",
    ]
    assert items[0].proved.status == "proved" and items[0].refuted.status == "holds"
    assert entry_path(FAST, "refute").is_file()
    lines.clear()
    writeup.collect([registry.entry(FAST)], progress=lines.append)
    assert lines == []
    cold = writeup.collect([registry.entry(FAST)], progress=lines.append, use_cache=False)
    assert lines[0] == "writeup: proving 1 claim" and lines[2] == "writeup: refuting the mutants of 1 claim"
    assert cold[0].refuted.status == "holds"
