"""Issue 32, items 1 and 2: every directive read as written, definitions substituted hygienically.

Each class the issue's attack found is a case here, decided honestly or refused as bad input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mathcheck import derive
from mathcheck.chains import DeriveError, parse_text
from mathcheck.cli import main
from mathcheck.parser import ParseError, parse, parse_definition, parse_many
from mathcheck.userexpr.approx import BoundError, read_bound


def _chain(text: str):
    (chain,) = parse_text(text, "t.derivation")
    return chain


def _status(text: str) -> str:
    return derive.check_chain(_chain(text)).status


# --- ≈ bounds: a whole formula of the grammar, exactly ----------------------------------------------


@pytest.mark.parametrize(
    "spelling", ["1/1000", "0.001", "1e-3", "10^-3", "10**(-3)", "10^(−3)", "1e−3", "2/2000", " 1/1000 "]
)
def test_a_bound_is_read_whole_and_exactly(spelling):
    b = read_bound(f"tanh form, within {spelling}")
    assert str(b.exact) == "1/1000" and not b.relative


def test_the_bounds_that_were_read_by_their_first_number():
    assert str(read_bound("within 2^-10").exact) == "1/1024"  # was 'within 2'
    assert str(read_bound("within 5e−4").exact) == "1/2000"  # Unicode minus: was 'within 5'
    assert str(read_bound("within 1/1000").exact) == "1/1000"  # was 'within 1'
    assert read_bound("within 1%").exact * 100 == 1 and read_bound("within 1%").relative
    assert read_bound("within 2^-10 relative").relative
    assert read_bound("close enough") is None and read_bound(None) is None


@pytest.mark.parametrize(
    "reason",
    [
        "within",
        "within 0",
        "within -1e-3",
        "within x",
        "within 1/0",
        "within 1e-3e",
        "within oo",
        "within 1 - 1",
        "witin 1e-3",
        "whithin 1e-3",
        "within sqrt(-1)",
        "within 1e-3 of the exact form",
        "within 1,000",
        "within 0,001",
        "within 1; 2",
    ],
)
def test_a_bad_or_misspelled_bound_is_bad_input(reason):
    with pytest.raises(BoundError):
        read_bound(reason)


def test_within_1_over_1000_no_longer_holds_an_error_of_half():
    r = derive.check_chain(_chain("## b\n  x\n≈ x + 1/2   # within 1/1000\n"))
    assert r.status == "refuted" and r.steps[1].bound["exact"] == "1/1000"


def test_a_bound_just_outside_is_refuted_and_just_inside_holds():
    assert _status("## b\n  x\n≈ x + 1/1000 + 1/10^9  # within 10^-3\n") == "refuted"
    assert _status("## b\n  x\n≈ x + 1/1000 - 1/10^9  # within 10^-3\n") == "holds-within"


def test_a_misspelled_bound_names_its_line_and_exits_2(tmp_path):
    p = tmp_path / "b.derivation"
    p.write_text("## b\n  x\n≈ x + 1/2   # witin 1/1000\n")
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert r.exit_code == 2 and f"{p}:3: 'witin' in the reason" in r.output and "Traceback" not in r.output


def test_the_bound_as_read_is_in_the_json_and_under_v(tmp_path):
    p = tmp_path / "b.derivation"
    p.write_text("## b\n  x\n≈ x + 1/2000   # within 2^-10\n")
    out = json.loads(CliRunner().invoke(main, ["derive", str(p), "--json"]).output)
    step = out["files"][0]["chains"][0]["steps"][1]
    assert step["bound"] == {"text": "2^-10", "exact": "1/1024", "value": 1 / 1024, "relative": False}
    v = CliRunner().invoke(main, ["derive", str(p), "-v"]).output
    assert "         bound: within 2^-10 = 1/1024 (absolute)" in v.splitlines()


# --- let: order-independent, capture-avoiding ----------------------------------------------------------


def test_a_definition_pasted_into_a_sum_does_not_capture_its_index():
    assert _status("## c\nassume: n=positive,integer\nlet c = i\n  Sum(c, (i, 1, n))\n= n*(n+1)/2\n") == "refuted"
    assert _status("## c\nassume: n=positive,integer\nlet c = i\n  Sum(c, (i, 1, n))\n= n*i\n") == "proved"


def test_a_forward_reference_means_what_it_says():
    assert _status("## f\nlet a = b^2\nlet b = x\n  diff(a, x)\n= 0\n") == "refuted"
    assert _status("## f\nlet a = b^2\nlet b = x\n  diff(a, x)\n= 2*x\n") == "proved"
    assert _status("## f\nlet a = b + 1\nlet b = 5\n  a\n= 6\n") == "proved"


def test_order_does_not_matter():
    defs = ["a = b + c", "b = c^2", "c = x + 1"]
    want = parse("(x + 1)^2 + x + 1")
    for order in ([0, 1, 2], [2, 1, 0], [1, 0, 2], [1, 2, 0]):
        assert parse("a", defs=[parse_definition(defs[k]) for k in order]) == want


def test_a_cycle_is_bad_input_naming_it():
    with pytest.raises(DeriveError, match=r"t.derivation:2: let b: the definitions b → a → b refer to each other"):
        derive.validate(_chain("## c\nlet b = a + 1\nlet a = b\n  a\n= 1\n"))


def _same(a, b) -> bool:
    """Equal as functions: the bound indices' names aside, at n = 3 with every sum written out."""
    import sympy as sp

    def out(e):
        n = [s for s in e.free_symbols if s.name == "n"]
        return sp.expand(e.subs({s: 3 for s in n}).doit())

    return sp.simplify(out(a) - out(b)) == 0


def test_parameters_and_indices_are_hygienic():
    g, f = parse_definition("g = t"), parse_definition("f(t) = g + t")
    assert parse("f(3)", defs=[g, f]) == parse("t + 3")  # g's t is not f's parameter
    s = parse_definition("s(t) = Sum(t*x[i], (i, 1, n))")
    got, want = parse_many(["s(i)", "i*Sum(x[k], (k, 1, n))"], defs=[s])  # the argument's i stays free
    assert _same(got, want) and not _same(got, parse_many(["Sum(k*x[k], (k, 1, n))", "x[1]"])[0])
    p = parse_definition("p = Product(x[i], (i, 1, n))")
    got, want = parse_many(["Sum(p*y[i], (i, 1, n))", "Sum(Product(x[k], (k, 1, n))*y[i], (i, 1, n))"], defs=[p])
    assert _same(got, want)
    c = parse_definition("c = i")
    assert parse("Product(c, (i, 1, 3))", defs=[c]).doit() == parse("i^3")


@pytest.mark.parametrize(
    "defs, text, message",
    [
        (["f(t) = diff(t*y, y)"], "f(y)", "the argument uses y, which the definition of f differentiates by"),
        (["f(t) = t^2"], "f + 1", "f is defined with parameters (t); write f(...)"),
        (["c = 1"], "Sum(x[c], (c, 1, n))", "c is defined by let, so it cannot also be the index"),
        # diff(x^2, c) after c = x is Leibniz's d(x²)/dc = 2x now; x^3 is not written in u = x^2 alone
        (["u = x^2"], "diff(x^3, u)", "what is differentiated is not written in u's meaning alone"),
        (["c = 1"], "c(2)", "c is defined without parameters"),
    ],
)
def test_a_definition_used_wrongly_is_refused(defs, text, message):
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_many([text], defs=[parse_definition(d) for d in defs])


@pytest.mark.parametrize("name", ["exp", "log", "pi", "E", "e", "gamma", "sigmoid", "max", "Sum", "diff"])
def test_a_built_in_name_is_never_redefined(name):
    with pytest.raises(ParseError, match="choose another name"):
        parse_definition(f"{name}(t) = t")
    with pytest.raises(ParseError, match="choose another name"):
        parse_definition(f"{name} = 2")


def test_an_assumption_on_x_1_is_about_x_1_only():
    x1, x2 = parse_many(["x_1", "x_2"], {"x_1": ("positive",)})
    assert x1.is_positive and x2.is_positive is None
    assert _status("## a\nassume: x_1=positive\n  sqrt(x_1^2)\n= x_1\n") == "proved"
    assert _status("## a\nassume: x_1=positive\n  sqrt(x_2^2)\n= x_2\n") == "refuted"


def test_an_assumption_on_x_1_is_not_about_the_entry_x_of_1():
    with pytest.raises(DeriveError, match=r"assume: x_1 is a name of its own.*'given: x\[1\] > 0'"):
        derive.validate(_chain("## a\nassume: x_1=positive\n  sqrt(x[1]^2)\n= x[1]\n"))
    assert _status("## a\ngiven: x[1] > 0\n  sqrt(x[1]^2)\n= x[1]\n") in ("proved", "inconclusive")
    assert _status("## a\nassume: x=positive\n  sqrt(x[1]^2)\n= x[1]\n") == "proved"  # every entry, as written


@pytest.mark.parametrize(
    "line, message",
    [
        ("asume: x=positive", "unknown directive 'asume:' (did you mean 'assume'?)"),
        ("Given: x > 0", "unknown directive 'Given:' (did you mean 'given'?)"),
        ("Let a = 1", "unknown directive 'Let' (did you mean 'let'?)"),
        ("define f(t) = t", "unknown directive 'define'"),
        ("within: 1e-3", "unknown directive 'within:'"),
        ("# assume: x=positive", "'# assume:' is a comment, so this assume is not read"),
        ("# asume: x=positive", "'# asume:' is a comment, so this assume is not read"),
        ("# let a = 1", "'# let a =' is a comment, so this let is not read"),
    ],
)
def test_an_unknown_or_misspelled_directive_is_bad_input(line, message):
    (chain,) = parse_text(f"## d\n{line}\n  sqrt(x^2)\n= x\n", "t.derivation")
    assert chain.error.startswith("t.derivation:2: ") and message in chain.error
    assert "the directives are 'assume: x=real', 'given: x >= 1' and 'let mu = expression'" in chain.error


def test_prose_comments_still_pass():
    (chain,) = parse_text(
        "# Source: Attention Is All You Need\n## d\n# note: the square\n  sqrt(x^2)\n= Abs(x)\n", "t.derivation"
    )
    assert not chain.error


def test_a_let_of_another_chain_is_not_silently_a_free_variable(tmp_path):
    p = tmp_path / "two.derivation"
    p.write_text("## one\nlet b = x\n  b\n= x\n\n## two\n  diff(b^2, x)\n= 0\n")
    r = derive.check_files([p])
    one, two = r.files[0][1]
    assert one.status == "proved" and two.status == "bad-input"
    assert (
        two.message == f"{p}:6: b is defined by the let on line 2, which holds for chain 'one' only; "
        "repeat the let in this chain or move it before the first chain to share it"
    )
    p.write_text("let b = x\n## one\n  b\n= x\n\n## two\n  diff(b^2, x)\n= 2*x\n")  # shared: both proved
    assert [c.status for c in derive.check_files([p]).files[0][1]] == ["proved", "proved"]


def test_each_let_is_printed_as_read_and_as_substituted(tmp_path):
    p = tmp_path / "e.derivation"
    p.write_text("## e\nlet a = b + 1\nlet b = 5\n  a\n= 6\n")
    out = json.loads(CliRunner().invoke(main, ["derive", str(p), "--json"]).output)
    chain = out["files"][0]["chains"][0]
    assert chain["let"] == ["a = b + 1", "b = 5"] and chain["status"] == "proved"
    assert chain["definitions"][0] == {"name": "a", "params": [], "as_read": "a = b + 1", "expanded": "5 + 1"}
    v = CliRunner().invoke(main, ["derive", str(p), "-v"]).output.splitlines()
    assert v[1:4] == ["    let a = b + 1", "        read as: 5 + 1", "    let b = 5"]


# --- bench/fuzz_directives.py ------------------------------------------------------------------------


def test_the_directive_fuzzer_runs_clean_and_would_catch_a_misread():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench import fuzz_directives as fd

    for surface in fd.SURFACES:
        r = fd.fuzz(surface, 6, seed=3, jobs=0)
        assert r["cases"] + r["skipped"] == 6
        assert all(r[k] == 0 for k in ("false_proofs", "false_refutations", "misread", "crashes", "hangs")), r
    # the case, as the fuzzer writes it, is classed a false proof if it ever holds again
    assert fd.classify({"status": "holds-within", "want": "refuted"}) == "false_proofs"
    assert fd.classify({"status": "holds-within", "want": "bad-input"}) == "false_proofs"
    assert fd.classify({"status": "bad-input", "want": "proved"}) == "misread"
    assert fd.classify({"status": "inconclusive", "want": "refuted"}) is None
    # every spelling the bounds surface writes reads as the number it was drawn as
    import random

    from mathcheck.userexpr.approx import read_bound

    rng = random.Random(5)
    for _ in range(200):
        q, spellings = fd.bound_value(rng)
        for s in spellings:
            got = read_bound(f"within {s}").exact
            assert (got.p, got.q) == (q.numerator, q.denominator), s
