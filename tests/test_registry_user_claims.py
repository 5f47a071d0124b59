"""Claims of the user's own: --from a file or module, an installed package's entry point, and
mathcheck.testing's assertions. A false user claim is refuted like any other."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from mathcheck import registry
from mathcheck.cli import main
from mathcheck.testing import ClaimFailed, assert_identity, assert_proved

ROOT = pathlib.Path(__file__).resolve().parents[1]
ALIBI = str(ROOT / "examples" / "alibi_claims.py")

FALSE_CLAIM = textwrap.dedent('''
    """A user's claim that is false: softmax is NOT invariant to scaling its logits."""
    from mathcheck.claim import Body, Context, Mutant, Part, Step
    from mathcheck.lazy import sympy as sp
    from mathcheck.registry import claim


    @claim(id="user-softmax-scale", title="softmax(2z) = softmax(z) (false)", section="§9.9",
           zh="用户", en="user", check=f"{__name__}:check")
    def build():
        z = sp.IndexedBase("z", real=True)
        j, k = sp.symbols("j k", integer=True)
        n = sp.Symbol("n", integer=True, positive=True)
        lhs = sp.exp(2 * z[j]) / sp.Sum(sp.exp(2 * z[k]), (k, 1, n))
        rhs = sp.exp(z[j]) / sp.Sum(sp.exp(z[k]), (k, 1, n))
        part = Part("scale", (Step(lhs, "softmax of doubled logits"), Step(rhs, "scaling cancels (it does not)")))
        return Body(assumptions=("z real",), parts=(part,), mutants=(
            Mutant("m1", "times two", (("scale", sp.Eq(lhs, 2 * rhs)),)),
            Mutant("m2", "squared", (("scale", sp.Eq(lhs, rhs ** 2 + 1)),)),
        ), context=Context(indices=((j, 1, n),)))


    def check(statements, options):
        import torch
        import torch.nn.functional as F
        from mathcheck.verify import symbol
        from mathcheck.verify._compare import Comparison
        from mathcheck.numeric.evaluate import evaluate

        cmp = Comparison("torch.nn.functional.softmax", options, atol=1e-12, rtol=1e-9)
        g = torch.Generator().manual_seed(options.seed)
        z = torch.randn(6, generator=g, dtype=torch.float64)
        for name, eq in statements.items():
            if name != "scale":
                raise KeyError(name)
            env = {symbol(eq, "n"): 6, symbol(eq, "j"): torch.arange(1, 7, dtype=torch.float64),
                   next(iter(eq.atoms(__import__("sympy").IndexedBase))): z}
            cmp.compare(name, F.softmax(2 * z, dim=0), evaluate(eq.rhs, env))
        return cmp.verdict()
''')


@pytest.fixture
def clean_registry():
    """Claims loaded by a test are forgotten afterwards (other tests see the catalog only)."""
    saved = dict(registry._ENTRIES)
    yield
    registry._ENTRIES.clear()
    registry._ENTRIES.update(saved)


@pytest.fixture
def false_file(tmp_path):
    p = tmp_path / "my_false_claims.py"
    p.write_text(FALSE_CLAIM)
    return str(p)


@pytest.fixture
def runner():
    return CliRunner()


def test_prove_from_a_file(runner, clean_registry):
    r = runner.invoke(main, ["prove", "--from", ALIBI, "--no-cache"])
    assert r.exit_code == 0, r.output
    assert "proved" in r.output and "alibi-query-term-cancels" in r.output


def test_a_user_claim_with_an_unevaluated_step_is_cached_and_read_back(runner, clean_registry, tmp_path, monkeypatch):
    """The ALiBi example's factored step (built with evaluate=False) is stored in the JSON cache
    and the second run reads it: nothing recomputed, no note, the same report."""
    from mathcheck import engine
    from mathcheck.render.json import without_timings

    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(tmp_path / "cache"))
    cold = runner.invoke(main, ["prove", "--from", ALIBI, "--json", "-v"])
    assert cold.exit_code == 0, cold.output
    assert cold.stderr == ""  # -v prints "note: cache: ... is not cached" where a result is refused
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1
    monkeypatch.setattr(engine, "_payload", lambda *a, **k: pytest.fail("a cached result was recomputed"))
    warm = runner.invoke(main, ["prove", "--from", ALIBI, "--json", "-v"])
    assert warm.exit_code == 0, warm.output
    assert warm.stderr == ""
    assert without_timings(json.loads(warm.stdout)) == without_timings(json.loads(cold.stdout))


def test_refute_from_a_file(runner, clean_registry):
    r = runner.invoke(main, ["refute", "--from", ALIBI, "--no-cache"])
    assert r.exit_code == 0, r.output
    assert "mutants: 3 of 3 refuted" in r.output


def test_a_false_user_claim_is_refuted(runner, clean_registry, false_file):
    r = runner.invoke(main, ["prove", "--from", false_file, "--no-cache"])
    assert r.exit_code == 1, r.output
    assert "refuted" in r.output and "counterexample" in r.output
    assert "replay: mathcheck prove user-softmax-scale --seed 0" in r.output


def test_prove_from_a_module_name(runner, clean_registry, tmp_path, monkeypatch):
    (tmp_path / "my_team_claims.py").write_text(FALSE_CLAIM)
    monkeypatch.syspath_prepend(str(tmp_path))
    r = runner.invoke(main, ["prove", "--from", "my_team_claims", "--no-cache"])
    assert r.exit_code == 1, r.output  # the false claim, found by module name, is refuted
    assert "user-softmax-scale" in r.output and "counterexample" in r.output


def test_list_from_shows_the_user_claims(runner, clean_registry):
    r = runner.invoke(main, ["list", "--from", ALIBI])
    assert r.exit_code == 0
    assert any(line.startswith("alibi-query-term-cancels") for line in r.output.splitlines())


@pytest.mark.parametrize(
    "spec, what", [("no/such/file.py", "no such file"), ("no_such_module_xyz", "module not found")]
)
def test_bad_from_is_one_line_exit_2(runner, spec, what):
    r = runner.invoke(main, ["prove", "--from", spec])
    assert r.exit_code == 2
    assert r.output.startswith("error: ") and what in r.output and len(r.output.strip().splitlines()) == 1


def test_a_file_without_claims_is_bad_input(runner, tmp_path):
    p = tmp_path / "empty.py"
    p.write_text("x = 1\n")
    r = runner.invoke(main, ["prove", "--from", str(p)])
    assert r.exit_code == 2 and "defines no claim" in r.output


def test_an_installed_package_contributes_claims_by_entry_point(tmp_path):
    """A package declaring `mathcheck.claims` in its metadata is listed and proved by id."""
    (tmp_path / "userpkg_claims.py").write_text((ROOT / "examples" / "alibi_claims.py").read_text())
    dist = tmp_path / "userpkg-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: userpkg\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[mathcheck.claims]\nuserpkg = userpkg_claims\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    out = subprocess.run(
        [sys.executable, "-m", "mathcheck", "list"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "alibi-query-term-cancels" in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "mathcheck", "prove", "alibi-query-term-cancels", "--no-cache"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_assert_proved_and_its_failure_message(clean_registry, false_file):
    registry.load_from(ALIBI)
    v = assert_proved("alibi-query-term-cancels")
    assert v.status == "proved"
    registry.load_from(false_file)
    with pytest.raises(ClaimFailed) as info:
        assert_proved("user-softmax-scale")
    message = str(info.value)
    assert "is refuted" in message and "counterexample" in message
    assert "replay: mathcheck prove user-softmax-scale --seed 0" in message
    assert "\x1b[" not in message  # plain text, no terminal colours


def test_assert_identity():
    r = assert_identity("diff(log(1 + exp(x)), x)", "sigmoid(x)")
    assert r.status == "proved"
    with pytest.raises(ClaimFailed, match="counterexample: x = "):
        assert_identity("tanh(x)", "2*sigmoid(x) - 1")
    with pytest.raises(ClaimFailed, match="bad input"):
        assert_identity("__import__('os')", "1")


NO_CHECK_CLAIM = textwrap.dedent('''
    """A user's claim with no hand-written check: softmax is invariant to a shift of its logits."""
    from mathcheck.claim import Body, Context, Mutant, Part, Step
    from mathcheck.lazy import sympy as sp
    from mathcheck.registry import claim


    def softmax(z, c, n):
        """torch.softmax of the shifted logits"""
        import torch

        return torch.softmax(z + c, dim=0)


    @claim(id="user-softmax-shift", title="softmax(z + c) = softmax(z)", section="§9.8",
           zh="用户", en="user", reference=softmax)
    def build():
        z = sp.IndexedBase("z", real=True)
        c = sp.Symbol("c", real=True)
        j, k = sp.symbols("j k", integer=True)
        n = sp.Symbol("n", integer=True, positive=True)
        lhs = sp.exp(z[j] + c) / sp.Sum(sp.exp(z[k] + c), (k, 1, n))
        rhs = sp.exp(z[j]) / sp.Sum(sp.exp(z[k]), (k, 1, n))
        part = Part("shift", (Step(lhs, "softmax of shifted logits"),
                              Step(rhs, "e^c leaves the sum and cancels")))
        return Body(assumptions=("z real",), parts=(part,), mutants=(
            Mutant("times-two", "the weights doubled", (("shift", sp.Eq(lhs, 2 * rhs, evaluate=False)),)),
            Mutant("shift-kept", "the shift kept on top", (("shift", sp.Eq(lhs, sp.exp(c) * rhs, evaluate=False)),)),
        ), context=Context(indices=((j, 1, n),)))
''')


def test_a_claim_without_check_is_proved_and_its_times_two_mutant_refuted(tmp_path, clean_registry):
    from mathcheck.engine import verdict
    from mathcheck.verify import Options

    p = tmp_path / "no_check_claims.py"
    p.write_text(NO_CHECK_CLAIM)
    (cid,) = registry.load_from(str(p))
    entry = registry.entry(cid)
    assert entry.check == "mathcheck.verify.generic:check"
    v = verdict(entry, "prove", Options())
    assert v.status == "proved", v
    assert v.symbolic.status == "proved" and v.numeric.status == "passed"
    assert v.numeric.reference.startswith("torch.softmax of the shifted logits")
    sizes = [d.split(":")[0] for d in v.numeric.details]
    assert sizes == [f"shift at n={n}" for n in (1, 2, 3, 8, 33)]
    assert v.numeric.max_abs_err < 1e-12
    r = verdict(entry, "refute", Options())
    by_name = {m.name: m for m in r.mutants}
    assert r.all_refuted
    twice = by_name["times-two"]
    assert twice.numeric.status == "refuted" and dict(twice.numeric.counterexample)["part"] == "shift"


def test_from_files_load_once_and_stay_out_of_the_catalog(clean_registry):
    first = registry.load_from(ALIBI)
    assert registry.load_from(ALIBI) == first == ["alibi-query-term-cancels"]  # not "defines no claim"
    name = registry.entry(first[0]).module
    assert name == registry.module_name(ALIBI) and name.startswith("mathcheck_user_alibi_claims_")
    assert first[0] not in [e.id for e in registry.entries()]
    assert first[0] in [e.id for e in registry.entries(user=first)]
    registry._ENTRIES.pop(first[0])  # a test that restored the registry: loading again restores it
    assert registry.load_from(ALIBI) == first and registry.entry(first[0]).module == name


def test_show_from_prints_the_chain_as_written(runner, clean_registry):
    r = runner.invoke(main, ["show", "alibi-query-term-cancels", "--from", ALIBI])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "    = exp(-i·m)·exp(j·m + s_j)/(exp(-i·m)·(Σ_{k=1}^{n} exp(k·m + s_k)))" in lines
    assert (
        "        weights: exp(-m·(i - j) + s_j)/(Σ_{k=1}^{n} exp(-m·(i - k) + s_k)) = "
        "exp(-i·m)·exp(j·m + s_j)/(Σ_{k=1}^{n} exp(k·m + s_k))" in lines
    )
    assert lines[-1] == (
        "  numeric check: generic: both sides of each part in torch float64 at n ∈ {1, 2, 3, 8, 33} "
        "(diff by autograd); reference: torch.nn.functional.scaled_dot_product_attention "
        "with the ALiBi bias as attn_mask."
    )
    assert "Eq(" not in r.output and "Derivative(" not in r.output


def test_the_factored_step_is_a_real_step(clean_registry):
    """SymPy would merge the factored middle step into its neighbours; built unevaluated, the
    cancellation has to be shown by the checker."""
    registry.load_from(ALIBI)
    part = registry.get("alibi-query-term-cancels").parts[0]
    middle, last = part.steps[1].expr, part.steps[2].expr
    assert (middle - last) != 0 and middle != last


def test_prove_verbose_shows_steps_how_and_the_numeric_sizes(runner, clean_registry):
    r = runner.invoke(main, ["prove", "--from", ALIBI, "--no-cache", "-v"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "(the common factor e^{−m i} cancels) ✔ expand" in out
    assert "    numeric check: 20 cases in float64 on cpu, seed 0" in out
    assert "      weights at n=33: 4356 values compared" in out


def test_assert_proved_from_a_file_and_an_unknown_id(clean_registry):
    v = assert_proved("alibi-query-term-cancels", from_=ALIBI, mutants=False)
    assert v.status == "proved"
    with pytest.raises(AssertionError, match=r"unknown claim 'no-such-claim'.*from_="):
        assert_proved("no-such-claim")
    with pytest.raises(AssertionError, match="no such file"):
        assert_proved("x", from_="nowhere/claims.py")


@pytest.mark.slow
def test_pytest_mathcheck_from_in_the_repository_root_leaves_the_projects_tests_alone():
    """The user's claims run beside this project's tests that read the catalog and load the same
    file again; none of them sees the user's claim."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--mathcheck-from",
            "examples/alibi_claims.py",
            "tests/test_registry.py",
            "tests/test_registry_user_claims.py::test_list_from_shows_the_user_claims",
            "tests/test_cli.py::test_list_json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "failed" not in out.stdout.splitlines()[-1]


def test_the_generic_check_takes_derivatives_by_autograd():
    """A Claim value with no check of its own: diff by autograd, the x2 mistake refuted."""
    import sympy as sp

    from mathcheck import engine
    from mathcheck.claim import Claim, Mutant, Part, Source, Step
    from mathcheck.verify import Options

    x = sp.Symbol("x", real=True)
    lhs = sp.Derivative(sp.log(1 + sp.exp(x)), x)
    part = Part(
        "d",
        (
            Step(lhs, "softplus'"),
            Step(sp.exp(x) / (1 + sp.exp(x)), "chain rule"),
            Step(1 / (1 + sp.exp(-x)), "divide by e^x"),
        ),
        general=False,
    )
    c = Claim(
        "user-softplus",
        "softplus' = σ",
        Source("§0", "z", "e"),
        (),
        (part,),
        (
            Mutant("twice", "x2", (("d", sp.Eq(lhs, 2 / (1 + sp.exp(-x)), evaluate=False)),)),
            Mutant("sign", "σ(−x)", (("d", sp.Eq(lhs, 1 / (1 + sp.exp(x)), evaluate=False)),)),
        ),
        "mathcheck.verify.generic:check",
    )
    v = engine.prove(c, Options())
    assert (v.status, v.numeric.status) == ("proved", "passed")
    assert v.numeric.details == (
        "d at concrete: 20 values compared, max |lhs − rhs| " + v.numeric.details[0].rsplit(" ", 1)[1],
    )
    assert v.numeric.max_abs_err < 1e-12
    r = engine.refute(c, Options())
    assert [m.numeric.status for m in r.mutants] == ["refuted", "refuted"]


def test_the_generic_check_leaves_out_points_outside_the_hypotheses():
    """√((x−1)²) = x − 1 given x ≥ 1: true on the hypothesis, false off it."""
    import sympy as sp

    from mathcheck.claim import Claim, Mutant, Part, Source, Step
    from mathcheck.verify import Options
    from mathcheck.verify.generic import check

    x = sp.Symbol("x", real=True)

    def claim_with(given):
        part = Part("abs", (Step(sp.sqrt((x - 1) ** 2), "start"), Step(x - 1, "x ≥ 1")), general=False, given=given)
        return Claim(
            "user-abs",
            "t",
            Source("§0", "z", "e"),
            (),
            (part,),
            (
                Mutant("a", "a", (("abs", sp.Eq(part.lhs, x, evaluate=False)),)),
                Mutant("b", "b", (("abs", sp.Eq(part.lhs, 1 - x, evaluate=False)),)),
            ),
            "mathcheck.verify.generic:check",
        )

    c = claim_with((sp.Ge(x, 1),))
    v = check(c.statements(), Options(), claim=c)
    assert v.status == "passed", v
    assert v.details[-1].endswith("values outside the hypotheses left out")
    c = claim_with(())
    assert check(c.statements(), Options(), claim=c).status == "refuted"


def test_a_reference_that_does_not_fit_is_an_error_and_a_wrong_one_refutes(tmp_path, clean_registry):
    from mathcheck.engine import verdict
    from mathcheck.verify import Options

    src = pathlib.Path(ALIBI).read_text()
    (tmp_path / "bad_param.py").write_text(
        src.replace("reference=sdpa_weights,", "reference=lambda s, q, n: s,").replace(
            "alibi-query-term-cancels", "alibi-bad-param"
        )
    )
    (tmp_path / "wrong_ref.py").write_text(
        src.replace("reference=sdpa_weights,", "reference=lambda s, m, n: s,").replace(
            "alibi-query-term-cancels", "alibi-wrong-ref"
        )
    )
    (bad,) = registry.load_from(str(tmp_path / "bad_param.py"))
    v = verdict(registry.entry(bad), "prove", Options())
    assert v.status == "error"
    assert "parameter 'q' names no symbol of the statement (its symbols: i, j, m, n, s)" in v.numeric.details[0]
    (wrong,) = registry.load_from(str(tmp_path / "wrong_ref.py"))
    v = verdict(registry.entry(wrong), "prove", Options())
    assert v.status == "refuted" and dict(v.numeric.counterexample)["reference"]
