"""The whitelist parser: what it builds, what it refuses, and that hostile input never runs code."""

import os
import sys
import time

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathcheck.parser import LIMITS, ParseError, normalise, parse, parse_assumption, parse_definition, parse_many

# --- an audit hook that records anything that would mean code ran ---------------------------------
_WATCHING = False
_SEEN: list = []
_DANGEROUS = (
    "exec",
    "os.system",
    "subprocess.Popen",
    "os.posix_spawn",
    "os.exec",
    "os.fork",
    "os.remove",
    "os.rename",
    "shutil.rmtree",
    "socket.connect",
    "ctypes.dlopen",
)


def _hook(event, args):
    if not _WATCHING:
        return
    if event == "exec" and os.path.isfile(getattr(args[0], "co_filename", "")):
        return  # a library module imported lazily (SymPy does), not code made from a string
    if event in _DANGEROUS or (event == "open" and args and "w" in str(args[1:2])):
        _SEEN.append(event)


sys.addaudithook(_hook)


def parse_watched(*texts):
    """Parse, recording dangerous events; returns the result or the ParseError."""
    global _WATCHING
    _WATCHING = True
    try:
        return parse_many(list(texts))
    except ParseError as exc:
        return exc
    finally:
        _WATCHING = False


def test_grammar_builds_sympy_objects():
    x = sp.Symbol("x", real=True)
    assert parse("x^2 + 2*x") == x**2 + 2 * x
    assert parse("sigmoid(x)") == 1 / (1 + sp.exp(-x))
    assert parse("0.1") == sp.Rational(1, 10)  # decimals are exact, as written
    e = parse("Sum(x[i]*y[i], (i, 1, n))")
    assert isinstance(e, sp.Sum)
    i, n = e.limits[0][0], e.limits[0][2]
    assert i.is_integer and n.is_integer  # a summation index or bound is an integer
    d = parse("diff(sin(x), x, 2)")
    assert isinstance(d, sp.Derivative) and d.variable_count[0][1] == 2  # SymPy's diff is taken later
    assert parse("binomial(n, 2) + factorial(3)").has(sp.binomial)
    assert parse("pi + E") == sp.pi + sp.E


def test_a_series_has_the_upper_bound_infinity():
    # Σ_{n=0}^∞ x^n/n!: before, oo was a free name and the series was refuted at "oo = 4"
    e = parse("Sum(x^n/factorial(n), (n, 0, oo))")
    assert e.limits[0][2] is sp.oo and sp.simplify(e.doit() - sp.exp(sp.Symbol("x", real=True))) == 0


def test_assumptions():
    e = parse("log(x)", {"x": ("positive",)})
    (x,) = e.free_symbols
    assert x.is_positive
    (n,) = parse("n", {"n": ("positive", "integer")}).free_symbols
    assert n.is_integer and n.is_positive
    assert parse_assumption("n=positive,integer") == ("n", ("positive", "integer"))
    for bad in ("n", "n=", "n=blue", "__x=real", "1=real"):
        with pytest.raises(ParseError):
            parse_assumption(bad)
    with pytest.raises(ParseError, match="inconsistent"):
        parse("x", {"x": ("positive", "negative")})


def test_both_sides_share_symbols():
    a, b = parse_many(["x + y", "y + x"])
    assert a - b == 0


@pytest.mark.parametrize(
    "text, what",
    [
        ("__import__('os').system('echo pwned')", "character"),
        ("().__class__", "not allowed: '().__class__'"),
        ("x.__class__.__bases__", "not allowed"),
        ("lambda: 1", "character ':'"),
        ("[x for x in y]", "not allowed"),
        ("{x: 1}", "character '{'"),
        ("x if y else z", "not allowed"),
        ("x == y", "character '='"),
        ("open(x)", "unknown function 'open'"),
        ("getattr(x, y)", "unknown function 'getattr'"),
        ("exp(x)(1)", "only the listed functions may be called"),
        ("x**9999999999", "exponent too large"),
        ("2**100**100", "exponent too large"),
        ("((((2**100)**100)**100)**100)", "number too large"),
        ("factorial(100000)", "factorial argument too large"),
        ("Sum(x, (i, 1, 10**9))", "sum bound too large"),
        ("Product(i, (i, 1, oo))", "oo is read only as a Sum's upper bound"),  # oo was a free name, sampled
        ("Sum(x, (i, oo, 3))", "oo is read only as a Sum's upper bound"),
        ("Sum(Sum(Sum(i*j*k, (k, 1, 1000)), (j, 1, 1000)), (i, 1, 1000))", "sums too large"),
        ("diff(x, x, 9)", "order of a derivative"),
        ("(" * 500 + "x" + ")" * 500, "nesting too deep"),
        ("-" * 1500 + "x", "nested too deeply"),
        ("x+" * 50000 + "x", "formula too long"),
        ("sin", "is a function name"),
        ("x___y", "name"),
        ("x[0.5]", "index must be an integer"),
        ("1/0", "division by zero"),
        ("", "empty"),
        ("x y", "not a formula"),
        ("sin(x, y)", "takes one argument"),
        ("exp(x=1)", "character '='"),
        ("exp(*x)", "starred"),
        ("1e999", "out of range"),
        ("3j", "real numbers"),
        ("x @ y", "character '@'"),
        ("é", "character"),
    ],
)
def test_refused_with_one_line_naming_the_token(text, what):
    start = time.perf_counter()
    result = parse_watched(text)
    assert isinstance(result, ParseError), result
    message = str(result)
    assert what in message
    assert "\n" not in message
    assert time.perf_counter() - start < 1.0
    assert not _SEEN


TOKENS = [
    "x",
    "y",
    "n",
    "i",
    "k",
    "z[i]",
    "x[k]",
    "(",
    ")",
    "[",
    "]",
    ",",
    "+",
    "-",
    "*",
    "/",
    "**",
    "^",
    "exp(",
    "log(",
    "sqrt(",
    "sigmoid(",
    "Sum(",
    "diff(",
    "binomial(",
    "factorial(",
    "(i, 1, n)",
    "1",
    "2.5",
    "0",
    "1e308",
    "9999999999",
    "-",
    "pi",
    "E",
    "__import__",
    "'os'",
    ".system",
    "('echo pwned')",
    "().__class__",
    "__class__",
    "__builtins__",
    "lambda",
    ":",
    "for",
    "in",
    "if",
    "else",
    "getattr(",
    "open(",
    "eval(",
    "exec(",
    '"',
    "\\",
    "@",
    ";",
    "__subclasses__()",
    ".",
    "=",
    " ",
    "\n",
    "#",
    "%",
    "~",
    "not",
    "and",
    "yield",
    "await",
    "logsumexp(",
    "Max(",
    "Min(",
    "atan2(",
    "gamma(",
    "lgamma(",
    "erf(",
    "acosh(",
    "softplus(",
    "relu(",
    "cot(",
    "0.5",
    "1e-3",
]


@settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.lists(st.sampled_from(TOKENS), max_size=12))
def test_token_soup_never_runs_code_or_raises_anything_else(left, right):
    start = time.perf_counter()
    result = parse_watched("".join(left), "".join(right))
    assert isinstance(result, (ParseError, tuple))
    if isinstance(result, tuple):
        assert all(isinstance(e, sp.Basic) for e in result)
    assert time.perf_counter() - start < 2.0
    assert not _SEEN


@settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_random_text_never_runs_code_or_raises_anything_else(text):
    result = parse_watched(text)
    assert isinstance(result, (ParseError, tuple))
    assert not _SEEN


def test_the_audit_hook_would_see_code_running():
    """The hook is not blind: eval of a code string is the event the parser must never cause."""
    global _WATCHING
    _WATCHING = True
    try:
        eval("1 + 1")
    finally:
        _WATCHING = False
    assert _SEEN == ["exec"]
    _SEEN.clear()


def test_limits_are_stated():
    assert LIMITS.length >= 1000 and LIMITS.exponent >= 10 and LIMITS.order >= 2


# --- the grammar people need (issue 13 item 6) -----------------------------------------------------

X = sp.Symbol("x", real=True)
Y = sp.Symbol("y", real=True)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("sinh(x)", sp.sinh(X)),
        ("cosh(x)", sp.cosh(X)),
        ("tanh(x)", sp.tanh(X)),
        ("asinh(x)", sp.asinh(X)),
        ("acosh(x)", sp.acosh(X)),
        ("atanh(x)", sp.atanh(X)),
        ("asin(x)", sp.asin(X)),
        ("acos(x)", sp.acos(X)),
        ("atan(x)", sp.atan(X)),
        ("atan2(y, x)", sp.atan2(Y, X)),
        ("cot(x)", sp.cot(X)),
        ("sec(x)", sp.sec(X)),
        ("csc(x)", sp.csc(X)),
        ("erf(x)", sp.erf(X)),
        ("erfc(x)", sp.erfc(X)),
        ("gamma(x)", sp.gamma(X)),
        ("lgamma(x)", sp.loggamma(X)),
        ("loggamma(x)", sp.loggamma(X)),
        ("softplus(x)", sp.log(1 + sp.exp(X))),
        ("logsumexp(x, y, 0)", sp.log(sp.exp(X) + sp.exp(Y) + 1)),
        ("Max(x, y)", sp.Max(X, Y)),
        ("Min(x, y, 1)", sp.Min(X, Y, 1)),
        ("relu(x)", sp.Max(X, 0)),
        ("0.25*x + 1.5e-3", X / 4 + sp.Rational(3, 2000)),
    ],
)
def test_each_added_function_builds_its_sympy_object(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text, what",
    [
        ("atan2(x)", "atan2 takes two arguments"),
        ("Max()", "Max takes one or more arguments"),
        ("logsumexp()", "logsumexp takes one or more arguments"),
        ("gamma(1000)", "gamma argument too large"),
        ("lgamma(x, y)", "lgamma takes one argument"),
        ("cosh(10**7)", "argument too large"),
        ("logsumexp(x, 10**7)", "argument too large"),
        ("erf", "is a function name"),
    ],
)
def test_added_functions_refuse_bad_calls(text, what):
    result = parse_watched(text)
    assert isinstance(result, ParseError) and what in str(result), result


@pytest.mark.parametrize(
    "text",
    [
        "1/0",
        "x**9999999999",
        "factorial(100000)",
        "sin(x, y)",
        "x___y",
        "sin",
        "Sum(x, (i, 1, 10**9))",
        "diff(x, x, 9)",
    ],
)
def test_the_grammar_is_printed_only_for_grammar_errors(text):
    assert "; allowed:" not in str(parse_watched(text))


@pytest.mark.parametrize("text", ["open(x)", "x.y", "[x for x in y]", "x if y else z", "x @ y", "exec(x)"])
def test_grammar_errors_print_the_grammar(text):
    message = str(parse_watched(text))
    assert "; allowed:" in message and "logsumexp" in message and "\n" not in message


def test_inconsistent_assumptions_name_the_conflicting_properties():
    for assume in ({"x": ("positive", "negative")}, {"x": ("nonnegative", "negative")}):
        with pytest.raises(ParseError) as info:
            parse("x", assume)
        a, b = assume["x"]
        assert str(info.value) == f"inconsistent assumptions for x: {a} and {b} cannot both hold; keep one"
    with pytest.raises(ParseError, match="^inconsistent assumptions for n: positive and negative"):
        parse_assumption("n=positive,integer,negative")


# --- names as people write them (issue 22) ------------------------------------------------------------


def _sym(name, **kw):
    return sp.Symbol(name, real=True, **kw)


@pytest.mark.parametrize(
    "written, spelled",
    [
        ("σ^2 + μ", "sigma^2 + mu"),
        ("β1^t", "beta1^t"),
        ("ε + λ", "epsilon + lambda"),
        ("γ*x + β", "gamma*x + beta"),
        ("2·x − 1", "2*x - 1"),
        ("π", "pi"),
    ],
)
def test_greek_letters_are_one_symbol_whichever_spelling(written, spelled):
    assert parse(written) == parse(spelled)


def test_lambda_is_a_name_not_a_keyword():
    e = parse("lambda*x + λ", {"lambda": ("positive",)})
    lam = sp.Symbol("lambda", real=True, positive=True)
    assert e == lam * _sym("x") + lam


def test_gamma_is_a_symbol_unless_called():
    assert parse("gamma*x") == _sym("gamma") * _sym("x")
    assert parse("gamma(x)") == sp.gamma(_sym("x"))
    with pytest.raises(ParseError, match="gamma is used both as the function gamma"):
        parse("gamma(x)*gamma")


def test_e_is_euler_unless_declared():
    x = _sym("x")
    assert parse("e^x") == sp.exp(x)
    assert parse("e*x", {"e": ("positive",)}) == sp.Symbol("e", real=True, positive=True) * x
    assert parse("Sum(e[k], (k, 1, 2))").doit() == sp.IndexedBase("e", real=True)[1] + sp.IndexedBase("e", real=True)[2]


@pytest.mark.parametrize(
    "text, same",
    [
        ("max(x, y) + min(x, 1) + abs(x)", "Max(x, y) + Min(x, 1) + Abs(x)"),
        ("log(x, 2)", "log(x)/log(2)"),
        ("log2(x)", "log(x)/log(2)"),
        ("log10(x)", "log(x)/log(10)"),
    ],
)
def test_function_spellings(text, same):
    assert parse(text) == parse(same)


def test_product_and_diff_by_an_entry():
    x, i, j, n = (
        sp.IndexedBase("x", real=True),
        sp.Symbol("i", integer=True, real=True),
        sp.Symbol("j", integer=True, real=True),
        sp.Symbol("n", integer=True, real=True),
    )
    assert parse("Product(x[i], (i, 1, n))") == sp.Product(x[i], (i, 1, n))
    assert parse("diff(Sum(x[i]^2, (i, 1, n)), x[j])") == sp.Derivative(sp.Sum(x[i] ** 2, (i, 1, n)), x[j])
    with pytest.raises(ParseError, match="a logarithm's base"):
        parse("log(x, 1)")


def test_definitions_expand_where_used():
    defs = [parse_definition("μ = Sum(x[i], (i, 1, n))/n"), parse_definition("f(t) = t^2 + mu")]
    assert defs[0].name == "mu"
    assert parse("2*mu + f(y)", defs=defs) == parse("2*Sum(x[i], (i, 1, n))/n + y^2 + Sum(x[i], (i, 1, n))/n")
    assert parse("2*s", defs=[parse_definition("s = a + b")]) == parse("2*(a + b)")


@pytest.mark.parametrize(
    "let, use, message",
    [
        ("exp(t) = t", "x", "let exp: exp is a built-in function; choose another name"),
        ("e = 2", "x", "let e: e is Euler's number e; choose another name"),
        ("pi = 3", "x", "let pi: pi is the constant π; choose another name"),
        ("f(t, t) = t", "x", "let f: a parameter is named twice in (t, t)"),
        ("f(t) = diff(t*y, y)", "f(y)", "f(...): the argument uses y, which the definition of f differentiates by"),
        ("f(t) = t", "f(1, 2)", "f takes 1 argument (t), not 2"),
        ("f(t) = t", "f + 1", "f is defined with parameters (t); write f(...)"),
        ("mu = mu + 1", "mu", "let mu: the definition uses mu itself"),
        ("mu = ", "mu", "let 'mu =': write 'let mu = expression'"),
    ],
)
def test_bad_definitions_are_one_line(let, use, message):
    with pytest.raises(ParseError) as exc:
        parse(use, defs=[parse_definition(let)])
    assert str(exc.value).startswith(message)


def test_definitions_cannot_grow_past_the_node_limit():
    defs = [parse_definition("a0 = x + y")] + [parse_definition(f"a{k} = a{k - 1}*a{k - 1}") for k in range(1, 12)]
    with pytest.raises(ParseError, match="formula too large"):
        parse("a11", defs=defs)


def test_assumptions_on_constants_and_definitions_are_refused():
    with pytest.raises(ParseError, match="assume: pi: pi is the constant π"):
        parse("pi*x", {"pi": ("positive",)})
    with pytest.raises(ParseError, match="assume names 'mu', which let defines"):
        parse("mu", {"mu": ("positive",)}, defs=[parse_definition("mu = x^2")])
    assert normalise("μ + 2·σ − β1") == "mu + 2*sigma - beta1"


def test_max_and_min_over_an_indexed_range():
    assert parse("max(x[i], (i, 1, 3))") == parse("Max(x[1], x[2], x[3])")
    assert parse("Min(x[k]^2, (k, 0, 1))") == parse("Min(x[0]^2, x[1]^2)")
    with pytest.raises(ParseError, match="Max over a range needs whole-number bounds"):
        parse("Max(x[i], (i, 1, n))")
