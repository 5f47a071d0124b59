"""mathcheck.serial: verdicts as JSON that reads back exactly, and a reader that runs nothing."""

import json
import math
import re

import pytest
import sympy as sp

from mathcheck import registry, serial
from mathcheck.symbolic.decide import Decision
from mathcheck.symbolic.steps import PartResult, StepResult
from mathcheck.verdict import NumericVerdict, Plot


def roundtrip(value, claim=None):
    back = serial.loads(serial.dumps(value, claim), claim)
    assert serial.same(back, value), (back, value)
    return back


def test_unevaluated_relationals_stay_equations():
    M = sp.MatrixSymbol("M", 2, 2)
    decided = sp.Eq(sp.Integer(1), sp.Integer(2), evaluate=False)  # evaluated, SymPy makes it False
    trace = sp.Eq(sp.Trace(M), 3, evaluate=False)
    for rel in (
        decided,
        trace,
        sp.Ge(sp.Integer(0), sp.Integer(0), evaluate=False),
        sp.Eq(sp.Function("f")(M), sp.ImmutableMatrix([[1, 0], [0, 1]]), evaluate=False),
    ):
        back = roundtrip(rel)
        assert isinstance(back, sp.Rel) and back.args == rel.args


def test_assumptions_indexed_sums_derivatives_and_matrices():
    z = sp.IndexedBase("z", real=True)
    p = sp.IndexedBase("p", positive=True)
    i, k = sp.symbols("i k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    f = sp.Function("f", real=True)
    x = sp.Symbol("x")
    values = [
        sp.exp(z[i]) / sp.Sum(sp.exp(z[k]), (k, 1, n)),
        sp.Derivative(sp.log(p[i]) * f(x), x, 2),
        sp.Sum(p[k] * sp.log(p[k]), (k, 1, n)),
        sp.KroneckerDelta(i, k) - p[k],
        sp.Matrix([[1, x], [sp.Rational(1, 3), -sp.oo]]),
        sp.ImmutableMatrix([[x, 2]]),
        sp.Piecewise((x, x > 0), (0, True)),
        sp.Dummy("t", integer=True) + 1,
        sp.Limit(sp.exp(x), x, -sp.oo),
        sp.Float("0.1") + sp.pi * sp.E + sp.I,
        sp.Mul(2, sp.Add(x, 1, evaluate=False), evaluate=False),  # as built, not as SymPy would
    ]
    for v in values:
        back = roundtrip(v)
        # the structure as built (srepr, symbols bare), symbols compared by their facts (==): srepr prints a Symbol's assumptions
        # as first given, and SymPy's cache may hand back Symbol('k', integer=True, real=True) for
        # Symbol('k', integer=True) when another test made it first (serial stores one spelling)
        bare = lambda e: re.sub(r"(Symbol|Dummy)\('(\w+)'[^)]*\)", r"\1('\2')", sp.srepr(e))  # noqa: E731
        assert back == v and bare(back) == bare(v) and serial.dumps(back) == serial.dumps(v)
    assert roundtrip(f(x)).func == f and roundtrip(f(x)).func.is_real


def test_an_unevaluated_factored_step_comes_back_as_written():
    """examples/alibi_claims.py's middle step: e^{−mi}·e^{s_j+mj} / (e^{−mi}·Σ_k e^{s_k+mk}), built with
    evaluate=False; evaluated, SymPy would merge the exponentials and cancel e^{−mi}."""
    s = sp.IndexedBase("s", real=True)
    m = sp.Symbol("m", real=True)
    i, j, k = sp.symbols("i j k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    factor = sp.exp(-m * i)
    total = sp.Sum(sp.exp(s[k] + m * k), (k, 1, n))
    factored = sp.Mul(
        sp.Mul(factor, sp.exp(s[j] + m * j), evaluate=False),
        sp.Pow(sp.Mul(factor, total, evaluate=False), -1, evaluate=False),
        evaluate=False,
    )
    back = roundtrip(factored)
    assert sp.srepr(back) == sp.srepr(factored)
    assert sp.srepr(back) != sp.srepr(sp.Mul(*factored.args))  # the evaluated form differs: not a no-op
    assert back.args[1].func is sp.Pow and back.args[1].args[0].args[0] == factor


def test_the_sinusoidal_table_function_is_rebuilt_by_name():
    from mathcheck.derivations.combinatorics import sinusoidal_function

    PE = sinusoidal_function()
    a = sp.Symbol("a", integer=True, positive=True)
    back = roundtrip(sp.Eq(PE(a, 2 * a, sp.Symbol("d")), 0, evaluate=False))
    assert back.lhs.func is PE


def test_floats_come_back_bit_for_bit():
    values = (0.1, 1 / 3, -0.0, 5e-324, float("inf"), float("nan"), 1e308)
    back = roundtrip(values)
    assert [math.copysign(1, x) for x in back] == [math.copysign(1, x) for x in values]
    assert not serial.same(0.0, -0.0) and not serial.same(1, 1.0) and not serial.same(True, 1)


def test_verdict_dataclasses_round_trip_with_every_field():
    x = sp.Symbol("x", real=True)
    d = Decision(False, "counterexample", (("x", "0.5"),), 0.25, False)
    part = PartResult(
        "p",
        sp.Eq(x, x + 1, evaluate=False),
        True,
        "refuted",
        (StepResult("p", 0, x, "start", "", None), StepResult("p", 1, x + 1, "oops", "", d)),
    )
    numeric = NumericVerdict(
        "passed",
        "torch",
        3,
        1e-17,
        1e-12,
        1e-9,
        7,
        (("x", 0.1),),
        ("a",),
        plots=(Plot("n", "t", "x", "y", (("s", (1.0, 2.0), (3.0, float("nan"))),)),),
    )
    assert roundtrip((part, numeric, {"k": [1, 2]})) is not None


def test_mutants_and_claims_are_references_resolved_by_the_claim():
    c = registry.get("cross-entropy-decomposition")
    text = serial.dumps((c, c.mutants[1]), c)
    assert json.loads(text) == [{"$": "claim", "id": c.id}, {"$": "mutant", "name": c.mutants[1].name}]
    back = serial.loads(text, c)
    assert back[0] is c and back[1] is c.mutants[1]
    other = registry.get("softmax-jacobian")
    with pytest.raises(serial.Malformed, match="not the claim being read|not one of this claim's"):
        serial.loads(text, other)


def test_what_cannot_come_back_exactly_is_refused():
    class Local(sp.Function):  # no name the reader could rebuild it by
        pass

    x = sp.Symbol("x")
    for value in (lambda: 1, object(), Local(x), [sp.Eq(x, 1)] * 0 + [print], 1j):
        with pytest.raises(serial.Unserializable):
            serial.dumps(value)


HOSTILE = [
    "__import__('os').system('touch {canary}')",
    "Symbol('x').__class__",
    'Add(Integer(1), \'__import__("os").system("touch {canary}")\')',  # SymPy would sympify (eval) it
    'Tuple(\'__import__("os").system("touch {canary}")\')',
    'MutableDenseMatrix([[\'__import__("os").system("touch {canary}")\']])',
    "Symbol('x', evaluate=__import__('os'))",
    "Function('f', _sympystr=1)(Symbol('x'))",  # would become a class attribute, and crash the printer
    "Symbol('x', real=1)",
    "Symbol('x', dummy_index=True)",
    "Symbol(*['x'])",
    "Symbol(**{{'x': 1}})",
    "(lambda: 1)()",
    "exec('1')",
    "sympify('x')",
    "Function(Symbol('x'))",
    "Symbol('x')[0]",
    "Symbol('x') + 1",
    "Q.__class__",
    "Integer(1)(2)",
    "Add(" * 400 + "Integer(1)" + ")" * 400,
    "Symbol('x'",
    "Symbol('x', positive=True)",  # a legal expression, but not as the printer writes it (canonical form)
    "Pow(Integer(10), Integer(10000000000), evaluate=True)",  # would compute 10^(10^10)
    "Poly(Pow(Add(Symbol('x'), Integer(1)), Integer(100000000)), Symbol('x'))",  # would expand it
]


@pytest.mark.parametrize("text", HOSTILE)
def test_the_reader_runs_nothing_and_rejects_what_is_not_a_printed_expression(text, tmp_path):
    canary = tmp_path / "canary"
    text = text.format(canary=canary)
    if text == "Symbol('x', positive=True)":
        text = "Symbol('x',positive=True)"
    with pytest.raises(serial.Malformed):
        serial.read_sympy(text)
    assert not canary.exists()


def test_the_reader_accepts_what_the_printer_writes():
    x = sp.Symbol("x", positive=True)
    text = serial.print_sympy(sp.Eq(x, x, evaluate=False))
    assert text == "Equality(Symbol('x', positive=True), Symbol('x', positive=True))"
    assert serial.read_sympy(text) == sp.Eq(x, x, evaluate=False)


def _valid(kind: str) -> dict:
    """A value of ours as the serializer writes it, with every field its class has today."""
    from mathcheck.symbolic.decide import Decision

    value = Decision(True, "x") if kind == "Decision" else NumericVerdict("passed", "r", 1, 0.0)
    return json.loads(serial.dumps(value))


@pytest.mark.parametrize(
    "data, why",
    [
        ({"$": "data", "type": "os.system", "fields": {}}, "not one mathcheck stores"),
        ({"$": "data", "type": "verdict.__builtins__", "fields": {}}, "not one mathcheck stores"),
        ({"$": "data", "type": "claim.Claim", "fields": {}}, "not one mathcheck stores"),
        (
            {
                "$": "data",
                "type": "symbolic.decide.Decision",
                "fields": {
                    "value": True,
                    "how": "x",
                    "counterexample": [],
                    "seconds": 0.0,
                    "timed_out": False,
                    "extra": 1,
                },
            },
            "with fields",
        ),
        (("Decision", {"how": 3}), "Decision.how is a int"),
        (("NumericVerdict", {"trials": True}), "trials is a bool"),
        ({"$": "pickle", "data": "gASV"}, "unknown object type"),
        ({"$": "sympy", "srepr": "Symbol('x')", "extra": 1}, "keys"),
        ({"$": "dict", "items": [[{"$": "list", "items": [1]}, 2]]}, "cannot be a key"),
        ({"no": "tag"}, "where a value was expected"),
    ],
)
def test_decoding_rejects_the_wrong_shape(data, why):
    if isinstance(data, tuple):  # (class, fields to spoil): a real entry with one field of the wrong type
        kind, spoil = data
        data = _valid(kind)
        data["fields"].update(spoil)
    with pytest.raises(serial.Malformed, match=why):
        serial.decode(data)


def test_a_verdict_that_fails_its_own_validation_is_rejected():
    good = json.loads(serial.dumps(NumericVerdict("passed", "r", 1, 0.0)))
    good["fields"]["status"] = "certainly"
    with pytest.raises(serial.Malformed, match="rejects its fields"):
        serial.decode(good)


# --- bounds: a hostile entry is refused quickly, never read for minutes (issue 21) ------------


def _many_nodes(n: int) -> str:
    return "Add(" + ", ".join(f"Symbol('x{i}')" for i in range(n)) + ")"


@pytest.mark.parametrize(
    "text, why",
    [
        ("Float('1e3000000', precision=53)", "a Float beyond 1e±1000"),
        ("Float('-1.5e-3000000', precision=53)", "a Float beyond 1e±1000"),
        ("Float('1e99999999999999999999', precision=53)", "a Float beyond 1e±1000"),
        ("Float('" + "9" * 5000 + ".0', precision=53)", "a Float of more than 1100 characters"),
        ("Float('1.0', precision=100000000)", "a Float of precision 100000000 (at most 4096 bits)"),
        ("Float('0x10', precision=53)", "a Float whose text is not a decimal number"),
        (
            "AlgebraicNumber(Add("
            + ", ".join(f"Pow(Integer({p}), Rational(1, 2))" for p in (2, 3, 5, 7, 11, 13, 17, 19))
            + "), [Integer(1), Integer(0)])",
            "AlgebraicNumber(...), whose construction alone may take unbounded time",
        ),
        (
            "CRootOf(Add(Pow(Symbol('x'), Integer(5)), Symbol('x'), Integer(1)), Integer(0))",
            "CRootOf(...), whose construction alone",
        ),
        ("Integer(" + "9" * 1300 + ")", "an integer of 4319 bits (more than 4096)"),
        ("Rational(1, " + str(2**5000) + ")", "an integer of 5001 bits"),
        (_many_nodes(60_000), "an expression of more than 100000 nodes"),
        ("Symbol('" + "x" * 2_000_001 + "')", "an expression that is not a string of at most 2000000 characters"),
    ],
)
def test_the_reader_refuses_what_would_take_unbounded_time_or_memory(text, why):
    with pytest.raises(serial.Malformed, match=re.escape(why)):
        serial.read_sympy(text)


def test_the_bounds_leave_every_value_mathcheck_writes():
    for value in (
        sp.Float("1e1000"),
        sp.Float("-1e-1000"),
        sp.Float("0.1", 50),
        sp.Integer(2**4000),
        sp.Rational(1, 3**2000),
        sp.Float("nan"),
        -sp.oo,
        sp.Add(*sp.symbols("x:2000")),
    ):
        assert serial.read_sympy(serial.print_sympy(value)) == value or value != value


def test_a_value_that_takes_too_long_to_read_is_refused(monkeypatch):
    monkeypatch.setattr(serial, "READ_SECONDS", -1.0)  # already past its deadline
    with pytest.raises(serial.Malformed, match="takes more than -1 s to read"):
        serial.decode({"$": "sympy", "srepr": "Add(Symbol('x'), Integer(1))"})
    assert serial._DEADLINE[0] == math.inf  # the next value gets its own budget


def test_a_bounded_read_inside_a_value_shares_the_value_budget():
    value = (sp.Symbol("x") + 1, sp.Float("1e-300"))
    assert serial.loads(serial.dumps(value)) == value
    assert serial._DEADLINE[0] == math.inf


@pytest.mark.parametrize(
    "srepr, reason",
    [
        ("Float('1e3000000', precision=53)", "a Float beyond 1e±1000"),
        (
            "AlgebraicNumber(Add("
            + ", ".join(f"Pow(Integer({p}), Rational(1, 2))" for p in range(2, 40))
            + "), [Integer(1), Integer(0)])",
            "AlgebraicNumber(...), whose construction alone may take unbounded time",
        ),
        ("Integer(" + str(3**9000) + ")", "bits (more than 4096)"),
    ],
)
def test_a_cache_entry_holding_an_unbounded_value_is_ignored_and_recomputed(cache_dir, srepr, reason):
    """A consistent (re-signed) entry whose statement is a hostile value: ``prove`` ignores it,
    says why under -v, proves the claim afresh and replaces the entry."""
    from tests.test_cache import FAST, _rewrite, assert_clean, assert_valid_entry, entry_path, prove

    assert_clean(prove(FAST))

    def plant(fields):
        fields["payload"][2]["fields"]["parts"][0]["fields"]["statement"]["srepr"] = srepr

    _rewrite(entry_path(FAST), plant, resign=True)
    r = prove(FAST, "-v")
    assert_clean(r)
    assert r.stdout.endswith("claims: 1 proved\n")
    assert r.stderr.startswith(f"note: cache: ignoring the prove entry of {FAST}: ") and reason in r.stderr
    assert r.stderr.count("\n") == 1
    assert_valid_entry(FAST)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(d))
    return d


def test_an_oversized_entry_file_is_refused_unread(cache_dir, monkeypatch):
    from mathcheck import cache
    from tests.test_cache import FAST, assert_clean, entry_path, prove

    assert_clean(prove(FAST))
    size = entry_path(FAST).stat().st_size
    monkeypatch.setattr(cache, "MAX_BYTES", size - 1)
    r = prove(FAST, "-v")
    assert_clean(r)
    assert r.stderr == (
        f"note: cache: ignoring the prove entry of {FAST}: larger than {size - 1} bytes; recomputing and replacing it\n"
    )


def test_equal_symbol_variants_print_alike():
    """``Symbol('k', integer=True)`` and ``Symbol('k', integer=True, real=True)`` are equal and SymPy's
    cache may put either inside an expression; the stored text spells both one way, so it prints
    back to itself whichever a process happened to build first."""
    ka, kb = sp.Symbol("k", integer=True), sp.Symbol("k", integer=True, real=True)
    assert ka == kb and serial.print_sympy(ka) == serial.print_sympy(kb) == "Symbol('k', integer=True)"
    n = sp.Symbol("n", integer=True, positive=True)
    mixed = sp.Sum(sp.exp(sp.IndexedBase("z", real=True)[kb]), (ka, 1, n))
    assert serial.read_sympy(serial.print_sympy(mixed)) == mixed


def test_a_verdict_is_cached_after_a_user_check_built_the_other_variants(tmp_path, monkeypatch):
    """The user pipeline builds z[k] with k real and integer; the catalog's softmax-jacobian has k
    integer. Its verdict, proved after such a check in the same process, is still stored and read
    back (it was refused as 'does not rebuild as written' before the printer spelled both alike)."""
    from mathcheck import cache, engine, registry
    from mathcheck.usercheck import check
    from mathcheck.verify import Options

    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(tmp_path))
    assert (
        check(
            "exp(z[j] + c)/Sum(exp(z[k] + c), (k, 1, n))",
            "exp(z[j])/Sum(exp(z[k]), (k, 1, n))",
            {"n": ("positive", "integer")},
        ).status
        == "proved"
    )
    entry = registry.entry("softmax-jacobian")
    assert engine.run([entry], "prove", Options(), use_cache=True)[0].status == "proved"
    assert cache.path(cache.key(entry, "prove", Options())).exists()
