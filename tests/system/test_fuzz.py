"""The soundness fuzzer (bench/fuzz.py): a quick slice finds no false proof, false refutation,
crash or hang; and the fuzzer itself notices each of them when a surface misbehaves."""

import sys
import time

import pytest
from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import fuzz

COUNTS = ("false_proofs", "false_refutations", "crashes", "hangs")


@pytest.mark.slow
def test_a_quick_slice_is_sound():
    report = fuzz.fuzz(40, seed=21, jobs=1, timeout=10.0)
    assert {k: report[k] for k in COUNTS} == dict.fromkeys(COUNTS, 0), report["offending"]
    assert report["cases"] >= 35  # few drawn pairs are skipped as unclear
    true_proved = sum(n for key, n in report["statuses"].items() if key.startswith("true") and key.endswith("proved"))
    false_refuted = sum(
        n for key, n in report["statuses"].items() if key.startswith("false") and key.endswith("refuted")
    )
    assert true_proved > 0 and false_refuted > 0  # both kinds of pair were drawn and decided


def test_cases_are_drawn_from_the_seed_alone():
    assert [fuzz.draw(3, k) for k in range(20)] == [fuzz.draw(3, k) for k in range(20)]
    assert fuzz.draw(3, 7) != fuzz.draw(4, 7)


def test_the_truth_oracle_is_independent_and_only_false_by_sampling():
    assert fuzz.truth("exp(x)", "exp(x/2)**2", "=", {}, 0, meant=True) is True
    assert fuzz.truth("exp(x)", "exp(x/2)**2 + 1/1000", "=", {}, 0, meant=False) is False
    assert fuzz.truth("Abs(x)", "Abs(-x)", "=", {}, 0, meant=False) is None  # a perturbation that changes nothing
    assert fuzz.truth("log(p)", "-log(1/p)", "=", {"p": ("positive",)}, 0, meant=True) is True
    assert fuzz.truth("1 - exp(y)/1000", "0", ">=", {}, 0, meant=False) is False  # false only far out


@pytest.mark.parametrize(
    "answer, kind", [("proved", "false_proofs"), ("refuted", "false_refutations"), ("raise", "crashes")]
)
def test_the_fuzzer_notices_a_surface_that_lies_or_crashes(monkeypatch, answer, kind):
    def lying(lhs, rhs, relation, assume, seed, timeout):
        if answer == "raise":
            raise RuntimeError("boom")
        return answer

    monkeypatch.setattr(fuzz, "via_check", lying)
    report = fuzz.fuzz(12, seed=5, jobs=1, timeout=5.0, surfaces=("check",))
    assert report[kind] > 0
    name = {"false_proofs": "false proof", "false_refutations": "false refutation", "crashes": "crash"}[kind]
    bad = [o for o in report["offending"] if o["kind"] == name]
    assert bad and all(o["replay"].startswith("python bench/fuzz.py --seed 5 --case ") for o in bad)
    if answer != "raise":
        assert all(o["cli"].startswith("mathcheck check ") for o in bad if o["relation"] == "=")


def test_the_fuzzer_notices_a_hang(monkeypatch):
    monkeypatch.setattr(fuzz, "via_check", lambda *a: time.sleep(600))
    report = fuzz.fuzz(1, seed=5, jobs=1, timeout=1.0, surfaces=("check",), only=1, hang_after=3.0)
    assert report["hangs"] == 1 and report["offending"][0]["kind"] == "hang"


def test_one_fuzzer_runs_every_surface_in_one_report_shape():
    """bench/fuzz.py --surfaces takes bench/fuzz_directives.py's two surfaces too (issue 32 item 5): one
    record(), one set of counts, one replay line per offending case."""
    surfaces = ("rules", "exits", "bounds", "definitions")
    report = fuzz.fuzz(6, seed=3, jobs=0, surfaces=surfaces)
    assert set(report["extra_cases"]) == set(surfaces) and all(n > 0 for n in report["extra_cases"].values())
    assert all(report[k] == 0 for k in fuzz.BAD), report["offending"]


@pytest.mark.parametrize(
    "status, want, kind",
    [
        ("holds-within", "refuted", "false_proofs"),
        ("refuted", "proved", "false_refutations"),
        ("bad-input", "proved", "misread"),
        ("crash", "proved", "crashes"),
    ],
)
def test_the_fuzzer_notices_a_directive_surface_that_lies(monkeypatch, status, want, kind):
    from bench import fuzz_directives as fd

    monkeypatch.setattr(fd, "run_case", lambda seed, k, *a: {"k": k, "status": status, "want": want, "text": "x"})
    report = fuzz.fuzz(3, seed=5, jobs=0, surfaces=("bounds",))
    assert report[kind] == 3
    assert all(o["replay"].endswith("--surfaces bounds") for o in report["offending"])


def test_exit_cases_mostly_run_in_the_worker_and_hang_only_through_the_cli(tmp_path):
    """The exit surface is cheap enough for 10,000 cases: a stated share through a `prove` subprocess,
    the rest through the API and mathcheck.testing in the fuzz worker; a hang only where a process can be
    killed (the CLI)."""
    draws = [fuzz.exit_case(0, k, tmp_path, vias=()) for k in range(4000)]
    cli = [d for d in draws if d["via"].startswith("cli")]
    assert abs(len(cli) / len(draws) - fuzz.EXIT_CLI_SHARE) < 0.01
    assert all(d["via"].startswith("cli") for d in draws if d["how"] == "hang")
    assert {d["how"] for d in draws} == set(fuzz.EXIT_HOWS) and {d["place"] for d in draws} == set(fuzz.EXIT_PLACES)
