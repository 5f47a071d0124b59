"""Issue 29: entropy, joint and conditional entropy and mutual information of random variables as
d2l-en's information theory appendix writes them (chapter_appendix-mathematics-for-deep-learning/
information-theory.md), read as quantities of one finite joint law (mathcheck/latex/information.py).
Each case is our own transcription in that file's notation, citing the line it stands for."""

import json

from click.testing import CliRunner

from mathcheck.chains import Line
from mathcheck.cli import main
from mathcheck.latex import information


def run(tmp_path, text):
    p = tmp_path / "m.md"
    p.write_text(text)
    r = CliRunner().invoke(main, ["derive", str(p), "--timeout", "60", "--json"])
    return r, [c for c in json.loads(r.output)["files"][0]["chains"] if c["status"] != "definition"]


# the file defines H and I by expectations under a law named in prose only (:108, :185, :246, :316;
# unread), and says that log is log_2 (:38)
HEAD = """# Entropy

In what follows, $\\log(.)$ always refers to $\\log_2(.)$.

$$H(X) = - E_{x \\sim P} [\\log p(x)].$$

$$I(X, Y) = E_{(x, y) \\sim P} [\\log p(x, y)].$$

"""


def block(body, assume=""):
    return f"$$\n{'% assume: ' + assume if assume else ''}\n{body}\n$$\n"


def test_the_chain_rule_of_entropy_is_read_and_needs_a_positive_marginal(tmp_path):
    # cf. :260 H(Y | X) = H(X, Y) - H(X)
    r, got = run(tmp_path, HEAD + block("H(Y \\mid X) = H(X, Y) - H(X)."))
    assert [c["status"] for c in got] == ["inconclusive"], r.output
    assert got[0]["steps"][0]["expr"] == "(-E_p(log(p(y | x), 2)))"
    assert "needs p(x) > 0" in r.output


def test_the_chain_rule_with_a_positive_law_is_proved(tmp_path):
    r, got = run(tmp_path, HEAD + block("H(Y \\mid X) = H(X, Y) - H(X).", "p(x, y) > 0"))
    assert [c["status"] for c in got] == ["proved"], r.output


def test_mutual_information_as_entropies_is_proved(tmp_path):
    # cf. :309-311 and :380's neighbours: I(X, Y) = H(X) + H(Y) - H(X, Y)
    r, got = run(tmp_path, HEAD + block("I(X, Y) = H(X) + H(Y) - H(X, Y)", "p(x, y) > 0"))
    assert [c["status"] for c in got] == ["proved"], r.output


def test_a_planted_sign_is_refuted_by_a_joint_law_when_the_law_is_declared(tmp_path):
    r, got = run(tmp_path, HEAD + block("H(Y \\mid X) = H(X, Y) + H(X).", "p(x, y) \\text{ law}"))
    assert [c["status"] for c in got] == ["refuted"], r.output
    assert got[0]["statement"]["counterexample"]["p(x, y)"].endswith("at (2, 2)")
    assert got[0]["facts"] == ["p(x, y) law"]  # the author's law, not declared twice


def test_a_link_under_a_hypothesis_the_prose_states_is_never_refuted(tmp_path):
    # cf. :380 "if X is an invertible function of Y, ... I(X, Y) = H(Y) = H(X)": not stated, not decided
    r, got = run(tmp_path, HEAD + block("I(X, Y) = H(Y) = H(X)."))
    assert [c["status"] for c in got] == ["inconclusive"], r.output
    assert "one an invertible function of the other" in r.output
    assert "fails at a drawn joint law p(x, y) (p(x, y) = " in r.output  # the law printed
    assert all(s["status"] != "refuted" for s in got[0]["steps"])


def test_without_an_unread_definition_h_is_not_taken_for_entropy(tmp_path):
    # the same link in a note that never defines H: H stays what it was (nothing read as entropy)
    r, got = run(tmp_path, "# x\n\n" + block("H(Y \\mid X) = H(X, Y) - H(X)."))
    assert "E_p" not in r.output


def test_a_variable_used_otherwise_leaves_the_chain_alone():
    steps = [Line(1, None, "H(X)"), Line(1, "<=", "log(x, 2)")]
    assert information.rewrite(steps, base2=True) == (steps, None)
    steps = [Line(1, None, "H(X, Y, Z)")]
    assert information.rewrite(steps, base2=False) == (steps, None)


def test_natural_log_without_the_rule():
    out, law = information.rewrite([Line(1, None, "I(X, Y)")], base2=False)
    assert out[0].text == "E_p(log(p(x, y)) - log(p(x)) - log(p(y)))" and law == "p(x, y) law"


def test_a_listed_first_side_is_each_of_the_list_related(tmp_path):
    # cf. :199 H(X), H(Y) <= H(X, Y) <= H(X) + H(Y): H(X) <= … <= …, and H(Y) <= H(X, Y)
    r, got = run(tmp_path, HEAD + block("H(X), H(Y) \\le H(X, Y) \\le H(X) + H(Y)."))
    assert [c["steps"][0]["source"] for c in got] == ["H(X)", "H(Y)"], r.output
    assert [len(c["steps"]) for c in got] == [3, 2]
    assert all(s["status"] != "refuted" for c in got for s in c["steps"])


def test_a_listed_side_of_other_names_is_not_split(tmp_path):
    # x, y >= 0 is a condition, never two claims
    r, got = run(tmp_path, HEAD + block("x, y \\ge 0"))
    assert [c["status"] for c in got] == ["bad-input"], r.output


def test_entropy_below_log_k_is_read_and_never_refuted(tmp_path):
    # cf. :171 H(X) <= log(k), k the number of outcomes (prose): k is free here, so not decided
    r, got = run(tmp_path, HEAD + block("H(X) \\le \\log(k)"))
    assert [c["status"] for c in got] == ["inconclusive"], r.output
    assert got[0]["steps"][0]["expr"] == "(-E_p(log(p(x), 2)))"
