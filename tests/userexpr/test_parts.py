"""Unit tests of the user pipeline's parts, each imported directly: the case splits, peeled sums and
closed forms (``symbolic.cases``, run by ``decide.by_provers``), the measured bound of an ``≈`` link (``approx``), the symbolic side
(``symbolic``), the batch file reader and its exit code (``batch``), and the killable child
(``child``). The whole pipeline is tested end to end in userexpr/test_relation.py and symbolic/test_cases.py; here a
part's own contract is held, so a break names the part."""

from __future__ import annotations

import os
import time

import pytest
import sympy as sp

from mathcheck.symbolic import cases, decide
from mathcheck.userexpr import approx, batch, child
from mathcheck.userexpr import symbolic_side as usym
from mathcheck.userexpr.relation import CheckResult
from mathcheck.render import json as render_json
from mathcheck.render import text as render_text

x, y = sp.symbols("x y", real=True)
p = sp.Symbol("p", positive=True)
k = sp.Symbol("k", integer=True)
j, n = sp.symbols("j n", integer=True, positive=True)
a = sp.IndexedBase("a")


# --- cases: sign regions ------------------------------------------------------------------------------


def test_a_condition_shared_by_max_and_min_is_split_once():
    assert cases._splits(sp.Max(x, y) + sp.Min(y, x) - x - y) == [x - y]
    assert cases.by_cases(sp.Max(x, y) + sp.Min(x, y), x + y, "=") == "case split on the sign of x - y (2 regions)"


def test_a_relation_false_in_one_region_is_not_shown():
    assert cases.by_cases(sp.Max(x, y), x, "=") is None
    assert cases.by_cases(sp.Abs(x), x, ">=") is not None
    assert cases.by_cases(x, sp.Abs(x), ">=") is None
    assert cases.by_cases(sp.Abs(x) + 1, x, ">") is None  # strict relations are not attempted


def test_a_region_the_hypotheses_exclude_is_counted_as_excluded():
    how = cases.by_cases(sp.Abs(x), x, "=", (x >= 0,))
    assert how == "case split on the sign of x (1 region; 1 excluded by the hypotheses)"
    assert cases.by_cases(sp.Abs(x), x, "=") is None


def test_heaviside_gets_a_boundary_region_where_its_value_is_one_half():
    # x·H(x) = Max(x, 0) in all three regions (at x = 0 both are 0)
    assert cases.by_cases(x * sp.Heaviside(x), sp.Max(x, 0), "=") == "case split on the sign of x (3 regions)"
    # 2H(x) = H(x) + H(1, x)·H(0, x) holds where x > 0 and where x < 0; at x = 0 it reads 2 = 1
    h1, h0 = sp.Heaviside(x, 1), sp.Heaviside(x, 0)
    assert cases.by_cases(2 * h1, h1 + h1 * h0, "=") is None
    # SymPy's H(x) (H(0) = 1/2) is a derivative at a kink: 2H(x) jumps at 0, where that derivative has no value
    left_out = "1 boundary left out: a derivative of Max/Min/Abs has no value there"
    assert cases.by_cases(2 * sp.Heaviside(x), sp.Heaviside(x) + sp.Heaviside(x) ** 2, "=") == (
        f"case split on the sign of x (2 regions; {left_out})"
    )


# --- cases: peeling, closed forms, the given equations --------------------------------------------------


def test_peel_writes_sums_over_one_range_by_karrs_convention():
    long, short = sp.Sum(a[k], (k, 1, j)), sp.Sum(a[k], (k, 1, j - 1))
    assert sp.expand(cases.peel(long - short) - a[j]) == 0
    assert cases.peel(sp.Sum(a[k], (k, 1, j)) - sp.Sum(a[k] ** 2, (k, 1, j - 1))) is None  # other terms
    assert cases.peel(sp.Sum(a[k], (k, 1, j)) - sp.Sum(a[k], (k, 1, n))) is None  # not a whole number apart
    far = sp.Sum(a[k], (k, 1, j + cases.MAX_PEEL + 1)) - sp.Sum(a[k], (k, 1, j))
    assert cases.peel(far) is None


def test_peel_applies_to_products_as_factors():
    e = cases.peel(sp.Product(a[k], (k, 1, j + 1)) - sp.Product(a[k], (k, 1, j)) * a[j + 1])
    assert sp.expand(e) == 0


def test_closed_form_drops_the_branch_a_hypothesis_rules_out():
    b = sp.Symbol("b", positive=True)
    geometric = sp.Sum(b**k, (k, 0, n)) - (1 - b ** (n + 1)) / (1 - b)
    assert cases.closed_form(geometric).has(sp.Piecewise)
    assert sp.simplify(cases.closed_form(geometric, (sp.Ne(b, 1),))) == 0
    assert sp.simplify(cases.closed_form(geometric, (b > 1,))) == 0
    assert cases.closed_form(x + 1) is None


def test_substitute_given_matches_a_sum_whatever_its_index_is_called():
    i = sp.Symbol("i", integer=True)
    given = (sp.Eq(sp.Sum(a[j], (j, 1, n)), 1),)
    assert cases.substitute_given(2 * sp.Sum(a[i], (i, 1, n)), given) == 2
    assert cases.substitute_given(sp.Sum(a[i], (i, 1, n + 1)), given) is None  # another range
    assert cases.substitute_given(x + 1, (sp.Eq(x, y),)) == y + 1


def test_provers_never_refute_and_a_broken_prover_proves_nothing():
    assert decide.by_provers(x + 1 - x, "=").value is None
    assert decide.by_provers(sp.Max(x, y) - x, "=").value is None
    assert (
        decide.by_provers(sp.Sum(a[k], (k, 1, j)) - sp.Sum(a[k], (k, 1, j - 1)) - a[j], "=").how
        == "sums peeled to a common range (Karr's convention)"
    )

    def broken(e, rel, h):
        raise StopIteration("deep in simplify")

    d = decide.by_provers(x - x + y, "=", provers=[decide.Prover("broken", ("=",), lambda e, h: True, broken)])
    assert d.value is None and d.notes and "broken: SymPy raised StopIteration" in d.notes[0]


# --- approx: a measured bound -------------------------------------------------------------------------


def test_stated_bound_reads_absolute_relative_and_percent():
    assert approx.stated_bound("tanh form, within 5e-4") == (5e-4, False)
    assert approx.stated_bound("within 1e-3 relative") == (1e-3, True)
    assert approx.stated_bound("within 2%") == (0.02, True)
    assert approx.stated_bound("close enough") is None
    assert approx.stated_bound(None) is None


def test_round_up_gives_a_short_bound_above_the_error():
    assert approx._round_up(4.7e-4) == "5e-4"
    assert approx._round_up(9.99e-3) == "1e-2"
    for v in (3e-5, 1e-3, 0.123, 7.0, 2.5e-9):  # one digit, never below the error it must cover
        bound = approx._round_up(v)
        assert float(bound) >= v and len(bound.split("e")[0]) == 1
    assert approx._round_up(0.0) == "1e-12"


def test_measure_holds_within_a_bound_above_the_error_and_refutes_one_below():
    lhs, rhs = x, x + sp.Rational(1, 10**6)
    ok = approx.measure(lhs, rhs, bound=(1e-5, False))
    assert ok["status"] == "holds-within" and ok["max_error"] == pytest.approx(1e-6, rel=1e-6)
    bad = approx.measure(lhs, rhs, bound=(1e-7, False))
    assert bad["status"] == "refuted" and "confirmed at 50 digits" in bad["how"]
    none = approx.measure(lhs, rhs)
    assert none["status"] == "inconclusive" and "'# within 2e-6'" in none["how"]


def test_measure_counts_undefined_points_and_says_when_there_is_none():
    half = approx.measure(sp.sqrt(x), sp.sqrt(x), bound=(1e-9, False))
    assert half["status"] == "holds-within" and half["undefined"] > 0 and half["points"] > 0
    never = approx.measure(sp.sqrt(-(x**2) - 1), sp.Integer(0), bound=(1.0, False))
    assert never["status"] == "inconclusive" and never["how"].startswith("0 points")


def test_measure_is_deterministic_in_its_seed():
    e = (sp.exp(x / 10), 1 + x / 10)
    assert approx.measure(*e, seed=3) == approx.measure(*e, seed=3)


# --- symbolic ----------------------------------------------------------------------------------------


def test_short_cuts_long_expressions_to_the_limit():
    e = sum(sp.Symbol(f"v{i}") for i in range(200))
    s = usym.short(e, 50)
    assert len(s) == 50 and s.endswith("...")
    assert usym.short(x + 1) == "x + 1"


def test_symbolic_proves_a_polynomial_identity_by_expanding():
    r = usym.symbolic(x * (x + 1), x**2 + x, seconds=10)
    assert (r["status"], r["how"]) == ("proved", "expand")


def test_a_difference_float64_cannot_see_is_refuted_at_50_digits():
    r = usym.symbolic(sp.sin(x), sp.sin(x) + sp.Rational(1, 10**20), seconds=10)
    assert r["status"] == "refuted" and "50 digits" in r["how"] and r["counterexample"]


def test_identical_sides_are_never_strictly_ordered():
    r = usym.symbolic(x, x, "<", seconds=10)
    assert r["status"] == "refuted" and "identical" in r["how"]
    assert usym.symbolic(x, x, "<=", seconds=10)["status"] == "proved"


def test_the_extra_strategies_each_show_their_own_kind_of_zero():
    assert cases.piecewise_zero(sp.Max(x, y) + sp.Min(x, y) - x - y)
    assert not cases.piecewise_zero(x - x)  # nothing piecewise: not this strategy's business
    assert cases.special_zero(sp.asinh(x) - sp.log(x + sp.sqrt(x**2 + 1)))
    assert cases.special_zero(sp.erfc(x) - 1 + sp.erf(x))
    assert not cases.special_zero(sp.asinh(x) - sp.log(x))


# --- batch ----------------------------------------------------------------------------------------------


def test_parse_rows_reads_tsv_and_json_lines_and_skips_comments():
    tsv = batch.parse_rows("x\tx\n\n# note\nsqrt(n^2)\tn\tn=positive k=integer\n", "F")
    assert tsv == [batch.Row(1, "x", "x"), batch.Row(4, "sqrt(n^2)", "n", ("n=positive", "k=integer"))]
    js = batch.parse_rows('{"lhs": "x", "rhs": "x"}\n{"lhs": "n", "rhs": "n", "assume": "n=positive"}\n', "F")
    assert js == [batch.Row(1, "x", "x"), batch.Row(2, "n", "n", ("n=positive",))]


@pytest.mark.parametrize(
    "text, words",
    [
        ("x\n", "line 1: expected lhs<TAB>rhs[<TAB>assume], found no tab"),
        ("x\ty\tz\tw\n", "found 4 columns"),
        ("x\t \n", "line 1: empty rhs"),
        ('{"lhs": "x", "rhs": "x"}\nx\tx\n', "line 2: not a JSON object"),
        ('{"lhs": "x", "rhs": "x", "given": "x > 0"}\n', "unknown key 'given'"),
        ('{"lhs": "x", "rhs": 1}\n', "'rhs' must be a non-empty string"),
        ('{"lhs": "x", "rhs": "x", "assume": [1]}\n', "'assume' must be a list of strings"),
        ("# only a comment\n\n", "F: no rows"),
    ],
)
def test_a_malformed_file_is_one_error_naming_its_line(text, words):
    with pytest.raises(batch.FileError) as info:
        batch.parse_rows(text, "F")
    assert words in str(info.value) and "\n" not in str(info.value)


class _R:
    def __init__(self, status):
        self.status = status


def test_totals_and_lines_of_a_failed_worker():
    row = batch.Row(7, "x", "x")
    r = batch._failed(row, 0, "the worker process failed: OSError")
    assert isinstance(r, CheckResult) and r.status == "inconclusive"
    assert batch.totals([r, _R("proved")]) == {"proved": 1, "refuted": 0, "inconclusive": 1, "bad-input": 0}
    text = render_text.check_batch([row], [r], batch.totals([r]))
    assert text[0].startswith("line 7: inconclusive: x = x") and "worker process failed" in text[0]
    assert text[-1] == "1 row: 0 proved, 0 refuted, 1 inconclusive, 0 bad input"
    assert render_json.check_batch([row], [r], batch.totals([r]))["rows"][0]["line"] == 7


def test_check_rows_keeps_file_order_and_reports_progress():
    rows = batch.parse_rows("x*(x+1)\tx**2 + x\nimport os\tx\n", "F")
    done = []
    results = batch.check_rows(rows, timeout=20.0, on_done=lambda: done.append(1))
    assert [r.status for r in results] == ["proved", "bad-input"] and len(done) == 2


# --- child ------------------------------------------------------------------------------------------------


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_child_answers_in_json():
    assert child.join(child.start(lambda: 2 + 2), 5.0) == ("ok", 4)
    assert child.join(child.start(lambda: {"how": (1, 2)}), 5.0) == ("ok", {"how": [1, 2]})


def test_a_long_c_call_is_killed_when_its_budget_runs_out():
    start = time.monotonic()
    proc = child.start(lambda: 3 ** (10**9))  # one C-level multiplication: no alarm interrupts it
    assert child.join(proc, 0.5) == ("timeout", None)
    assert time.monotonic() - start < 5.0 and _gone(proc.pid)


def test_the_childs_failures_come_back_as_errors():
    state, message = child.join(child.start(lambda: 1 / 0), 5.0)
    assert state == "error" and message.startswith("ZeroDivisionError")
    state, message = child.join(child.start(lambda: object()), 5.0)
    assert state == "error" and message.startswith("a result that is not plain data")
    assert child.join(child.start(lambda: os._exit(3)), 5.0) == ("error", "the child process died")


def test_kill_stops_and_reaps_the_child():
    proc = child.start(lambda: time.sleep(30))
    child.kill(proc)
    assert _gone(proc.pid)
