"""mathcheck.relations: the one table of relations — every spelling reads back to its relation,
an unknown one is refused naming the table, and ``build`` makes SymPy's relational unevaluated."""

import operator

import pytest
import sympy as sp

from mathcheck.relations import APPROX, INEQUALITIES, STEP, TABLE, build, of


@pytest.mark.parametrize("r", TABLE, ids=lambda r: r.op)
def test_every_spelling_reads_back_to_its_relation(r):
    for spelling in (r.op, r.rel_op, *r.spellings):
        if spelling:
            assert of(spelling) is r


def test_an_unknown_spelling_names_the_table():
    with pytest.raises(ValueError, match=r"'=>' is not one of = >= > <= < ≈ !="):
        of("=>")


def test_build_is_unevaluated_and_approx_has_no_relational():
    x = sp.Symbol("x")
    assert build(x, x, "≥") == sp.Ge(x, x, evaluate=False) and build(x, x, "≥") is not sp.true
    assert build(1, 2, "<") == sp.Lt(1, 2, evaluate=False)
    with pytest.raises(ValueError, match="no SymPy relational"):
        build(x, 1, APPROX)


def test_holds_is_the_exact_comparison_and_strictness_and_direction_agree_with_it():
    ops = {"=": operator.eq, ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}
    for op in STEP:
        r = of(op)
        for a, b in ((1.0, 1.0), (2.0, 1.0), (1.0, 2.0)):
            assert r.holds(a, b) == ops[op](a, b)
        assert r.strict == (not r.holds(1.0, 1.0)) or op == "="
        assert r.direction == (1 if op in (">=", ">") else -1 if op in ("<=", "<") else 0)
    assert "=" not in INEQUALITIES and set(INEQUALITIES) | {"="} == set(STEP)
