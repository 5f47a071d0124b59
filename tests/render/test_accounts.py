"""render/accounts.py: the words saying how a derive link or statement was decided, made from the
values derive keeps (StepReport.account, a statement's "numeric"), never by derive itself."""

import json
from types import SimpleNamespace as NS

from mathcheck import chains, derive
from mathcheck.render import accounts

PASSED = {"status": "passed", "points": 24, "skipped": 0, "note": None, "summary": None}


def _account(sym_status="proved", num=PASSED, how="expand", message=""):
    return {"how": how, "message": message, "symbolic": {"status": sym_status, "how": how}, "numeric": num}


def test_words_name_the_side_that_refuted():
    assert accounts.link_words("refuted", _account("refuted", how="differs at x = 1")) == "symbolic: differs at x = 1"
    refuted = {**PASSED, "status": "refuted"}
    assert accounts.link_words("refuted", _account("inconclusive", refuted, "x = 2")) == "numeric: x = 2"
    assert accounts.link_words("bad-input", _account(message="x^ is not an expression")) == "x^ is not an expression"


def test_numeric_words():
    assert accounts.link_words("proved", _account()) == "expand; float64 agrees at 24 points"
    assert accounts.numeric({**PASSED, "skipped": 3, "note": "n=1"}) == (
        "float64 agrees at 24 points (n=1; 3 more where a side is not real)"
    )
    assert accounts.numeric({**PASSED, "status": "refuted", "note": "a side is not real"}) == (
        "a side is not real, confirmed at 50 digits"
    )
    assert accounts.numeric({**PASSED, "status": "inconclusive", "note": "timed out"}) == (
        "numeric inconclusive (timed out)"
    )
    assert accounts.numeric({**PASSED, "summary": "E[X] by definition"}) == "E[X] by definition"
    assert accounts.numeric(None) == "numeric None"


def test_a_link_without_an_account_shows_its_how():
    """A ≈ link's measurement, a definition, a check that failed: words made where they were found."""
    assert accounts.link(NS(status="holds-within", how="largest error 4.7e-4", account=None)) == "largest error 4.7e-4"


def test_statement_words_in_place():
    st = {"relation": "=", "status": "passed", "how": "", "numeric": PASSED, "counterexample": None, "values": None}
    shown = accounts.statement(st)
    assert list(shown) == ["relation", "status", "how", "counterexample", "values"]
    assert shown["how"] == "float64 agrees at 24 points"
    bad = {"relation": None, "status": "bad-input", "how": "x.derivation:3: bad", "counterexample": None}
    assert accounts.statement(bad) == bad


def test_a_checked_link_keeps_data_that_survives_the_cache():
    """derive keeps no words for a checked link; its account, as the cache stores it (JSON), gives
    the same words."""
    chain = chains.parse_text("## square\n  (x + 1)^2\n= x^2 + 2*x + 1  # expand\n", "sq.derivation")[0]
    r = derive.check_chain(chain)
    step = r.steps[1]
    assert step.status == "proved" and step.how == "" and step.account is not None
    words = accounts.link(step)
    assert words.endswith("; float64 agrees at 24 points"), words
    again = NS(status=step.status, how="", account=json.loads(json.dumps(step.account)))
    assert accounts.link(again) == words
    assert r.statement["how"] == "" and accounts.statement(r.statement)["how"].startswith("float64 agrees")
