"""mathcheck.numeric.functions: the one function table — a name is found by the table alone,
SymPy's own helpers are evaluated but not callable, and the LaTeX words are the table's."""

import math

import sympy as sp

from mathcheck.numeric import functions


def test_lookup_finds_a_grammar_name_and_nothing_else():
    log = functions.lookup("log")
    assert log is not None and log.name == "log" and "ln" in log.latex
    assert functions.lookup("ln") is None  # a LaTeX word, not a grammar name
    assert functions.lookup("sign") is None  # evaluated by the walkers (SymPy makes it), not callable
    assert functions.lookup("__import__") is None


def test_names_and_latex_words_are_read_from_the_entries():
    assert functions.names() == {n for f in functions.entries() for n in (f.name,) + f.aliases}
    assert functions.latex_words()["ln"] == "log" and functions.latex_words()["arcsin"] == "asin"


def test_every_implementation_agrees_with_sympy_at_one_point():
    """The ``math`` implementation of each one-argument entry matches SymPy's own value at 0.3."""
    checked = 0
    for f in functions.entries():
        if f.arity != (1,) or f.cls() is None or f.math is None:
            continue
        try:
            want = float(f.cls()(sp.Rational(3, 10)))
        except TypeError:  # no real value at 0.3 (acosh)
            continue
        assert math.isclose(f.math(0.3), want, rel_tol=1e-12, abs_tol=1e-15), f.name
        checked += 1
    assert checked >= 20


def test_a_wrong_argument_count_has_the_entrys_message():
    assert functions.lookup("exp").message() == "exp takes one argument"
