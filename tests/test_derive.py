"""`mathcheck derive`: derivation chains in text files and Markdown fences, checked link by link;
bad input is one line with its file and line, before anything is proved."""

import json
import pathlib
import shutil

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathcheck import chains, derive
from mathcheck.cli import main
from mathcheck.outcome import exit_code
from mathcheck.parser import ALLOWED
from mathcheck.render.json import derive_chain as derive_json, derive_report as derive_report_json

ROOT = pathlib.Path(__file__).resolve().parents[1]
MIXED = str(ROOT / "tests" / "fixtures" / "three_true_one_false.derivation")
EXAMPLES = str(ROOT / "examples" / "derivations.md")

pytest_plugins = ["pytester"]


@pytest.fixture
def runner():
    return CliRunner()


def test_parse_chains_headers_reasons_assumptions_and_hypotheses():
    text = (
        "# a comment line\n"
        "## first\n"
        "assume: x=real n positive,integer\n"
        "given: 1 <= j <= n; x >= 0\n"
        "  (x + 1)^2\n"
        "= x^2 + 2*x + 1   # expand\n"
        "≥ 2*x + 1         # drop a square\n"
        "\n"
        "## second\n"
        "  a\n"
        "== a\n"
    )
    first, second = chains.parse_text(text, "f.derivation")
    assert (first.name, first.line, first.relation) == ("first", 2, ">=")
    assert first.assumptions == {"x": ("real",), "n": ("positive", "integer")}
    assert first.given == ((4, "1 <= j <= n"), (4, "x >= 0"))
    assert derive.given_texts(first) == ("1 <= j", "j <= n", "x >= 0")
    assert [(s.line, s.relation, s.text, s.reason) for s in first.steps] == [
        (5, None, "(x + 1)^2", ""),
        (6, "=", "x^2 + 2*x + 1", "expand"),
        (7, ">=", "2*x + 1", "drop a square"),
    ]
    assert (second.name, [s.relation for s in second.steps]) == ("second", [None, "="])


def test_markdown_fences_are_chains_with_the_file_line_numbers():
    chains = derive.read(EXAMPLES)
    assert [c.name for c in chains] == [
        "softplus' is the sigmoid",
        "softmax is shift-invariant",
        "the sigmoid's slope is at most 1/4",
    ]
    lines = pathlib.Path(EXAMPLES).read_text().splitlines()
    for c in chains:
        for s in c.steps:
            assert s.text in lines[s.line - 1]


@pytest.mark.parametrize(
    "text, message",
    [
        ("## c\n  x\n= __import__('os')\n", 'f.derivation:3: character "\'" not allowed'),
        ("## c\n  x\n= x.real\n", "f.derivation:3: not allowed: 'x.real'"),
        ("## c\n= x\n", "f.derivation:2: '= x' continues a chain that has no first expression"),
        ("## c\n  x\n<= x + 1\n>= x\n", "f.derivation:1: chain 'c' mixes ≤ and ≥"),
        ("## c\nassume: x=huge\n  x\n= x\n", "f.derivation:2: --assume 'x=huge': unknown property 'huge'"),
        ("## c\ngiven: x\n  x\n= x\n", "f.derivation:2: given: 'x' is not a relation"),
        ("## c\n  x\n", "f.derivation:2: chain 'c' has one expression and no link"),
        ("## c\n  x\n=\n", "f.derivation:3: nothing after '='"),
    ],
)
def test_bad_input_is_one_line_with_file_and_line(runner, tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.derivation").write_text(text)
    r = runner.invoke(main, ["derive", "f.derivation"])
    assert r.exit_code == 2, r.output
    errors = [x for x in r.output.splitlines() if x.startswith("    error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"    error: {message}"), r.output
    assert r.output.splitlines()[-1] == "chains: 1 bad-input (of 1, seed 0)" and "Traceback" not in r.output


def test_a_bad_line_fails_its_chain_only_and_nothing_is_proved_before_every_chain_is_parsed(
    runner, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.md").write_text("text\n```mathcheck\n## bad\n  x\n= exec(x)\n\n## good\n  x + x\n= 2*x\n```\n")
    order = []
    real_validate, real_relation = derive.validate, derive._relation
    monkeypatch.setattr(derive, "validate", lambda c: (order.append("parse"), real_validate(c))[1])
    monkeypatch.setattr(derive, "_relation", lambda *a, **k: (order.append("prove"), real_relation(*a, **k))[1])
    r = runner.invoke(main, ["derive", "bad.md", "--json"])
    assert r.exit_code == 2, r.output
    assert order[:2] == ["parse", "parse"] and "prove" in order
    out = json.loads(r.output)
    bad, good = out["files"][0]["chains"]
    assert bad["status"] == "bad-input"
    assert bad["message"] == f"bad.md:5: unknown function 'exec'; allowed: {ALLOWED}"
    assert good["status"] == "proved" and out["status"] == "bad-input"


def test_missing_file_and_markdown_without_chains(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain.md").write_text("# no fences here\n")
    assert runner.invoke(main, ["derive", "nope.derivation"]).output == "error: nope.derivation: no such file\n"
    r = runner.invoke(main, ["derive", "plain.md"])
    assert r.exit_code == 2 and r.output.startswith("error: plain.md: no ```mathcheck fence")


@pytest.mark.parametrize("command", [["derive"], ["check", "--file"]])
def test_unreadable_input_is_one_line_for_derive_and_check_file(runner, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "latin1.txt").write_bytes(b"x = caf\xe9\n")
    r = runner.invoke(main, command + ["adir"])
    said = (
        (
            "adir: no .md, .markdown, .tex, .derivation or .ipynb file in this directory or below it; name the "
            "files, or another directory"
        )
        if command == ["derive"]
        else "adir: is a directory, not a file"
    )
    assert (r.exit_code, r.output) == (2, f"error: {said}\n")  # derive reads a directory's documents (issue 35)
    r = runner.invoke(main, command + ["latin1.txt"])
    assert (r.exit_code, r.output) == (2, "error: latin1.txt: not UTF-8 text (byte 7)\n")


def test_three_true_chains_and_a_false_middle_step(runner):
    """The must-show: exit 1, and the JSON marks exactly the false link, with its point."""
    r = runner.invoke(main, ["derive", MIXED, "--json"])
    assert r.exit_code == 1, r.output
    report = json.loads(r.output)
    assert report["status"] == "refuted"
    (f,) = report["files"]
    assert [c["status"] for c in f["chains"]] == ["proved", "refuted", "proved", "proved"]
    steps = [(c["name"], s) for c in f["chains"] for s in c["steps"] if s["relation"] is not None]
    bad = [(name, s) for name, s in steps if s["status"] != "proved"]
    assert len(bad) == 1
    name, s = bad[0]
    assert (name, s["line"], s["expr"]) == (
        "log-sum-exp with the max pulled out",
        14,
        "c + log(exp(x - c)) + log(exp(y - c))",
    )
    assert s["status"] == "refuted" and set(s["counterexample"]) == {"c", "x", "y"}
    assert s["values"]["lhs"] != s["values"]["rhs"]
    chain = f["chains"][1]
    assert chain["steps"][-1]["status"] == "proved"  # the link after the false one is still checked
    assert chain["statement"]["status"] == "refuted" and chain["statement"]["counterexample"]


def test_true_chains_alone_exit_0(runner):
    r = runner.invoke(main, ["derive", EXAMPLES])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-1] == "chains: 3 proved (of 3, seed 0)"


def test_text_output_shows_each_link_with_its_reason(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sq.derivation").write_text(
        "## square\nassume: x=real\n  (x + 1)^2\n= x^2 + 2*x + 1   # expand\n= x^2 + 1   # forgot 2x\n"
    )
    r = runner.invoke(main, ["derive", "sq.derivation"])
    assert r.exit_code == 1
    lines = r.output.splitlines()
    assert lines[:6] == [
        "✘ refuted      sq.derivation:1  square",
        "    assume: x=real",
        "       (x + 1)^2",
        "    =  x^2 + 2*x + 1 ✔  # expand",
        "    =  x^2 + 1       ✘  # forgot 2x",
        "         line 5: refuted: symbolic: the sides differ at a point (50 digits)",
    ]
    assert lines[6].startswith("         counterexample: x = ")
    assert lines[-6] == "    statement (first = last): refuted, float64 disagrees at a point, confirmed at 50 digits"
    assert lines[-5].startswith("      counterexample: x = ")
    assert lines[-3:] == [
        "links: 1 proved, 1 refuted (of 2, 2 read, in 1 file)",
        "chains: 1 refuted (of 1, seed 0)",
        "replay: mathcheck derive sq.derivation --seed 0",
    ]
    v = runner.invoke(main, ["derive", "sq.derivation", "-v"])
    assert "         line 4: proved: expand; float64 agrees at 24 points" in v.output.splitlines()


def test_hypotheses_restrict_the_points():
    """sqrt((x−1)²) = x − 1 is false for real x, and proved once x ≥ 1 is given (|x − 1| split on
    the sign of x − 1, the region x < 1 excluded by the hypothesis)."""
    free = derive._check_link("sqrt((x - 1)^2)", "x - 1", "=", {})
    assert free.status == "refuted" and free.counterexample["x"] < 1
    given = derive._check_link("sqrt((x - 1)^2)", "x - 1", "=", {}, given=("x >= 1",))
    assert (
        given.status == "proved"
        and given.how == "case split on the sign of x - 1 (1 region; 1 excluded by the hypotheses)"
    ), given
    # every numeric point satisfies x >= 1 (drawn inside the hypotheses), and the sides agree there
    assert given.numeric.status == "passed" and given.numeric.points == 24
    assert given.given == ("x >= 1",)


def test_inequality_links_and_a_false_one():
    assert derive._check_link("x^2 + 1", "2*x", ">=", {}).status == "proved"
    r = derive._check_link("x^2", "4*x", ">=", {})  # false on (0, 4)
    assert r.status == "refuted" and r.counterexample


def test_pytest_collects_one_item_per_chain_with_the_failing_link_as_report(pytester):
    shutil.copy(MIXED, pytester.path / "mixed.derivation")
    shutil.copy(EXAMPLES, pytester.path / "notes.md")
    r = pytester.runpytest_subprocess(
        "--mathcheck-derivations", "*.derivation", "--mathcheck-derivations", "**/*.md", "-p", "no:cacheprovider"
    )
    r.assert_outcomes(passed=6, failed=1)
    out = r.stdout.str()
    assert "FAILED derive::mixed.derivation::log-sum-exp with the max pulled out" in out
    assert "line 14: refuted" in out and "counterexample: c = " in out
    assert "replay: mathcheck derive mixed.derivation --seed 0" in out
    assert "Traceback" not in out


@pytest.mark.slow
def test_the_projects_own_markdown_chains_pass(pytester):
    for name in ("README.md", "docs/derive.md", "docs/cache.md"):  # cache.md: a doc with no chain
        target = pytester.path / name
        target.parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, target)
    r = pytester.runpytest_subprocess(
        "--mathcheck-derivations", "README.md", "--mathcheck-derivations", "docs/**/*.md", "-p", "no:cacheprovider"
    )
    outcomes = r.parseoutcomes()
    assert outcomes.get("passed", 0) >= 3 and "failed" not in outcomes, r.stdout.str()


def test_a_glob_leaves_out_markdown_without_chains_a_named_file_may_not(pytester):
    """docs/**/*.md matches every doc; most hold no ```mathcheck fence and are not an error."""
    (pytester.path / "docs").mkdir()
    (pytester.path / "docs" / "plain.md").write_text("# Notes\n\nNo chain here.\n")
    (pytester.path / "docs" / "one.md").write_text("```mathcheck\n## sq\n  (x + 1)^2\n= x^2 + 2*x + 1\n```\n")
    r = pytester.runpytest_subprocess("--mathcheck-derivations", "docs/**/*.md", "-p", "no:cacheprovider")
    r.assert_outcomes(passed=1)
    r = pytester.runpytest_subprocess("--mathcheck-derivations", "docs/plain.md", "-p", "no:cacheprovider")
    assert r.ret == 4
    r.stderr.fnmatch_lines(["*docs/plain.md: no ```mathcheck fence; see docs/derive.md for the syntax*"])


def test_a_glob_that_matches_nothing_is_a_usage_error(pytester):
    r = pytester.runpytest_subprocess("--mathcheck-derivations", "nothing/*.md", "-p", "no:cacheprovider")
    assert r.ret == 4
    r.stderr.fnmatch_lines(["*--mathcheck-derivations 'nothing/*.md': no file matches*"])


def test_expressions_print_as_compact_math():
    import sympy as sp

    from mathcheck.render.text import math

    z, s = sp.IndexedBase("z"), sp.IndexedBase("s")
    i, j, k, n = sp.symbols("i j k n", integer=True)
    x = sp.Symbol("x")
    softmax = sp.exp(z[i]) / sp.Sum(sp.exp(z[k]), (k, 1, n))
    assert (
        math(sp.Eq(sp.Derivative(softmax, z[j]), (sp.KroneckerDelta(i, j) - s[j]) * s[i], evaluate=False))
        == "∂(exp(z_i)/(Σ_{k=1}^{n} exp(z_k)))/∂z_j = (δ_ij - s_j)·s_i"
    )
    assert math(sp.Ge(sp.sqrt(x) + x**2, 0, evaluate=False)) == "√x + x² ≥ 0"
    assert math(sp.Derivative(sp.sin(x), (x, 2))) == "∂²sin(x)/∂x²"
    assert math(sp.Sum(z[k], (k, 1, n)) ** 2) == "(Σ_{k=1}^{n} z_k)²"
    assert math(sp.Matrix([[1, x], [0, 1]])) == "[1, x; 0, 1]"


# --- notes as people write them (issue 22) ----------------------------------------------------------

NOTES = """\
let μ = Sum(x[i], (i, 1, n))/n

## deviations from the mean sum to zero
given: n >= 1
  Sum(x[i] - μ, (i, 1, n))
= Sum(x[i], (i, 1, n)) - n*μ          # linearity
= 0

## e^x is its own derivative
  diff(e^x, x)
= e^x

## a scaled square
let f(t) = λ*t^2
assume: λ positive
  f(σ + 1)
= λ*σ^2 + 2*lambda*σ + λ             # expand
"""


def test_let_greek_and_e_in_a_text_file(tmp_path):
    p = tmp_path / "notes.derivation"
    p.write_text(NOTES)
    report = derive.check_files([str(p)])
    assert [(c.chain.name, c.status) for _, chains in report.files for c in chains] == [
        ("deviations from the mean sum to zero", "proved"),
        ("e^x is its own derivative", "proved"),
        ("a scaled square", "proved"),
    ]
    chains = report.files[0][1]
    assert chains[0].chain.lets == ((1, "μ = Sum(x[i], (i, 1, n))/n"),)
    assert chains[2].chain.lets == ((1, "μ = Sum(x[i], (i, 1, n))/n"), (14, "f(t) = λ*t^2"))
    assert derive_json(chains[2])["assumptions"] == {"lambda": ["positive"]}


GELU = "x*(1 + erf(x/sqrt(2)))/2"
GELU_TANH = "x*(1 + tanh(sqrt(2/π)*(x + 0.044715*x^3)))/2"


@pytest.mark.parametrize(
    "link, reason, status",
    [
        ("≈", "# within 5e-4", "holds-within"),
        ("~=", "# tanh form, within 1e-5", "refuted"),
        ("≈", "", "inconclusive"),
    ],
)
def test_approximate_links_are_measured_never_proved(link, reason, status):
    chain = chains.parse_text(f"## gelu\n  {GELU}\n{link} {GELU_TANH}  {reason}\n", "g.derivation")[0]
    assert chain.steps[1].relation == "≈" and chain.relation == "≈"
    r = derive.check_chain(chain)
    step = r.steps[1]
    assert step.status == status and r.status == status
    m = step.measured
    assert 4.6e-4 < m["max_error"] < 4.8e-4 and m["points"] > 200  # GELU's tanh form: 4.7e-4 near |x| = 2.7
    assert abs(abs(m["where"]["x"]) - 2.7) < 0.1
    if status == "refuted":
        assert step.counterexample == m["where"] and "confirmed at 50 digits" in step.how
    if status == "inconclusive":
        assert "state a bound to check, e.g. '# within 5e-4'" in step.how
    assert exit_code(r.status) == {"holds-within": 0, "refuted": 1, "inconclusive": 3}[status]


def test_a_bound_is_checked_over_the_given_domain_only():
    text = "## sin x is about x for small x\ngiven: -0.1 <= x <= 0.1\n  sin(x)\n≈ x   # within 1.7e-4\n"
    r = derive.check_chain(chains.parse_text(text, "s.derivation")[0])
    assert r.status == "holds-within"
    assert r.steps[1].measured["max_error"] <= 1.7e-4  # x³/6 at 0.1 = 1.67e-4
    loose = derive.check_chain(chains.parse_text(text.replace("given: -0.1 <= x <= 0.1\n", ""), "s.derivation")[0])
    assert loose.status == "refuted"


def test_chains_built_by_another_reader_are_checked_the_same_way():
    chain = chains.Chain(
        "built",
        "paper.tex",
        3,
        {"sigma": ("positive",)},
        ((4, "n >= 1"),),
        (chains.Line(5, None, "exp(log(σ))"), chains.Line(6, "=", "sigma", "log then exp")),
        lets=((4, "s = sigma"),),
    )
    assert derive.check_chain(chain).status == "proved"
    bad = chains.Chain("broken", "paper.tex", 9, steps=(chains.Line(10, None, "x"), chains.Line(11, "=", "x +")))
    r = derive.check_chain(bad)
    assert r.status == "bad-input" and r.message.startswith("paper.tex:11: not a formula")


@pytest.mark.parametrize(
    "text, message",
    [
        ("## c\n  x\n≈\n", "f.derivation:3: nothing after '≈'"),
        (
            "## c\nlet exp(t) = t\n  x\n= x\n",
            "f.derivation:2: let exp: exp is a built-in function; choose another name",
        ),
        ("## c\nlet m = x +\n  m\n= m\n", "f.derivation:2: let m: not a formula"),
        ("## c\nassume: e=real\nlet e = 1\n  e\n= e\n", "f.derivation:3: let e: e is Euler's number e"),
    ],
)
def test_a_bad_line_is_named_not_the_line_before(text, message):
    found = chains.parse_text(text, "f.derivation")
    assert len(found) == 1
    r = derive.check_chain(found[0])
    assert r.status == "bad-input" and r.message.startswith(message), r.message


def test_every_other_chain_is_still_checked(tmp_path):
    p = tmp_path / "mixed.derivation"
    p.write_text("## one\n  x + x\n= 2*x\n\n## two\n  x\n= (x\n= x\n\n## three\n  x*x\n= x^2\n\n  y\n= y + 0\n")
    report = derive.check_files([str(p)])
    got = [(c.chain.name, c.status, c.message) for _, chains in report.files for c in chains]
    assert got[0][:2] == ("one", "proved") and got[2][:2] == ("three", "proved") and got[3][:2] == ("line 14", "proved")
    assert got[1][:2] == ("two", "bad-input") and got[1][2].startswith(f"{p}:7: not a formula")
    assert report.exit_code == 2 and derive_report_json(report)["files"][0]["chains"][1]["message"] == got[1][2]


def test_the_notes_example_gets_each_chain_its_honest_verdict(runner):
    """examples/notes.md: let, Greek letters, e^x, ≈ within a bound that holds and one that does not,
    Product, log2, diff by x[j], and one bad line named while the rest is checked."""
    r = runner.invoke(main, ["derive", "examples/notes.md", "--json"])
    assert r.exit_code == 2
    chains = json.loads(r.output)["files"][0]["chains"]
    assert [(c["name"], c["status"]) for c in chains] == [
        ("deviations from the mean sum to zero", "proved"),
        ("the mean's gradient", "proved"),
        ("e^x is its own derivative", "proved"),
        ("the sigmoid's derivative", "bad-input"),
        ("GELU's tanh form, within its published accuracy", "holds-within"),
        ("GELU's tanh form is not exact to 1e-5", "refuted"),
        ("the first moment of a constant gradient", "proved"),
        ("the information of three independent events, in bits", "proved"),
    ]
    assert chains[3]["message"] == (
        "examples/notes.md:36: sigma is a Greek letter, a symbol, not a function: "
        "define it with 'let sigma(t) = ...' or call a listed function; "
        "the logistic function is sigmoid(x)"
    )
    assert chains[5]["steps"][1]["counterexample"]["x"] == pytest.approx(-2.7, abs=0.05)


def test_e_declared_a_variable_is_said_in_one_line(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.derivation").write_text("## e as a variable\nassume: e=positive\n  e^x\n= exp(x*log(e))\n")
    r = runner.invoke(main, ["derive", "e.derivation"])
    assert r.exit_code == 0, r.output
    assert (
        "    note: e is a variable in this chain (assume: e=...), not Euler's number: e^x is not exp(x)"
        in r.output.splitlines()
    )


_LINES = st.sampled_from(
    [
        "## a",
        "## b",
        "##",
        "let mu = x + 1",
        "let f(t) = t^2",
        "let exp(t) = t",
        "let = 1",
        "assume: x=positive",
        "assume: x=huge",
        "given: x >= 1",
        "given: x",
        "given: a != 1",
        "  x + 1",
        "  σ*μ",
        "= x + 1",
        "= mu",
        "≈ x  # within 1e-3",
        "~= f(x)",
        "<= x^2",
        ">= 0",
        "= (x",
        "= ",
        "# a comment",
        "",
        "  e^x",
        "= exec(x)",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINES, max_size=12))
def test_any_sequence_of_lines_reads_into_chains_and_never_raises(lines):
    """Reading never fails on one line: every chain either validates or carries its one-line error."""
    for chain in chains.parse_text("\n".join(lines), "f.derivation"):
        try:
            derive.validate(chain)
        except chains.DeriveError as exc:
            msg = str(exc)
            assert msg.startswith("f.derivation:") and "\n" not in msg
        report = derive.bad_chain(chain, chain.error) if chain.error else None
        assert report is None or derive_json(report)["status"] == "bad-input"


def test_a_statement_refuted_where_a_side_is_not_real_says_so(tmp_path):
    """log(x)² ≥ 0 over the reals fails at x < 0, where the left side is not real: the statement's
    summary says that, not that float64 disagrees (float64 has no value there)."""
    f = tmp_path / "nr.derivation"
    f.write_text("## sq\nassume: x=real\n  log(x)**2\n>= 0\n")
    r = CliRunner().invoke(main, ["derive", str(f)])
    assert r.exit_code == 1, r.output
    summary = next(line for line in r.output.splitlines() if line.lstrip().startswith("statement"))
    assert summary == (
        "    statement (first ≥ last): refuted, a side is not real at this point: an order relation "
        "fails there, confirmed at 50 digits"
    )
