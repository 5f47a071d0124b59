"""mathcheck.claim: the values a claim is made of refuse what they cannot mean — an unknown
relation, a chain mixing ≥ with ≤, repeated part names, a mutant of a part that does not exist."""

import pytest
import sympy as sp

from mathcheck.claim import Claim, Mutant, Part, Source, Step

x = sp.Symbol("x", real=True)


def _claim(**kw):
    part = Part("p", (Step(x**2 + 1, "start"), Step(1, "x² ≥ 0", relation=">=")))
    args = dict(
        id="my-claim",
        title="t",
        source=Source("§0", "", ""),
        assumptions=(),
        parts=(part,),
        mutants=(Mutant("m1", "wrong", (("p", sp.Eq(x, 1)),)), Mutant("m2", "wrong", (("p", sp.Eq(x, 2)),))),
        check="mathcheck.verify.generic:check",
    )
    args.update(kw)
    return Claim(**args)


def test_a_part_composes_its_steps_relations_into_its_statement():
    p = _claim().part("p")
    assert p.relation == ">=" and p.statement == sp.Ge(x**2 + 1, 1, evaluate=False)
    assert _claim().statements() == {"p": p.statement}
    assert _claim().mutated(_claim().mutants[0]) == {"p": sp.Eq(x, 1)}


def test_what_a_claim_cannot_mean_is_refused_when_it_is_built():
    with pytest.raises(ValueError, match="not in"):
        Step(x, "?", relation="=>")
    with pytest.raises(ValueError):
        Part("q", (Step(x, ""), Step(x, "", relation=">="), Step(x, "", relation="<=")))
    with pytest.raises(ValueError, match="kebab-case"):
        _claim(id="My Claim")
    with pytest.raises(ValueError, match="part names repeat"):
        _claim(parts=(_claim().parts[0],) * 2)
    with pytest.raises(ValueError, match="replaces unknown part 'q'"):
        _claim(mutants=(Mutant("m", "", (("q", sp.Eq(x, 1)),)),) * 2)
    with pytest.raises(KeyError):
        _claim().part("q")
