"""Issue 29: information theory as d2l-en writes it (chapter_appendix-mathematics-for-deep-learning/
information-theory.md). Each case is our own transcription in that file's notation, citing the line
it stands for; next to each, a planted mistake that is still refuted or a reading that must not be
taken."""

import json

from click.testing import CliRunner

from mathcheck.cli import main


def run(tmp_path, text, *args):
    p = tmp_path / "m.md"
    p.write_text(text)
    r = CliRunner().invoke(main, ["derive", str(p), "--timeout", "60", "--json", *args])
    return r, json.loads(r.output)["files"][0]["chains"]


def statuses(chains):
    return [c["status"] for c in chains]


# --- the prose's convention that a plain log is log_2 (cf. d2l information-theory.md:38–40: "the rest of
# this section will omit the subscript 2 … log(.) always refers to log_2(.)", then -log(1/2^4) = 4 bits) --

BITS = """# Self-information

Every logarithm below is in base 2: in what follows, $\\log(.)$ always refers to $\\log_2(.)$.

$$ -\\log \\left( \\frac{1}{2^5} \\right) = 5 $$
"""


def test_the_prose_rule_that_log_is_log2_is_read_and_said(tmp_path):
    r, got = run(tmp_path, BITS)
    assert statuses(got) == ["proved"], r.output
    assert got[0]["steps"][0]["expr"] == "-log(1/(2^5), 2)"
    assert "log read as log_2: the prose at line 3" in r.output


def test_without_the_rule_log_is_natural_and_the_same_line_is_refuted(tmp_path):
    r, got = run(tmp_path, BITS.replace("in what follows, $\\log(.)$ always refers to $\\log_2(.)$", "see below"))
    assert statuses(got) == ["refuted"], r.output
    assert "log read as log_2" not in r.output


def test_the_rule_reads_log_in_base_2_so_a_planted_count_of_bits_is_refuted(tmp_path):
    r, got = run(tmp_path, BITS.replace("= 5 $$", "= 4 $$"))
    assert statuses(got) == ["refuted"], r.output


def test_the_rule_leaves_ln_and_an_explicit_base_alone(tmp_path):
    text = BITS + "\n$$ \\ln 1 + \\log_{10} 100 = 2 $$\n"
    r, got = run(tmp_path, text)
    assert statuses(got) == ["proved", "proved"], r.output
    assert got[1]["steps"][0]["expr"] == "log(1) + log(100, 10)"


def test_the_rule_applies_after_it_is_stated_only(tmp_path):
    text = "$$ -\\log \\frac{1}{8} = 3 $$\n\n" + BITS
    r, got = run(tmp_path, text)
    assert statuses(got) == ["refuted", "proved"], r.output


def test_the_rule_written_inside_a_display_is_not_prose(tmp_path):
    text = "$$ \\text{here } \\log \\text{ refers to } \\log_2 $$\n\n$$ -\\log \\frac{1}{8} = 3 $$\n"
    r, got = run(tmp_path, text)
    assert statuses(got)[-1] == "refuted", r.output


# --- D_{\textrm{KL}}(P\|Q), the KL divergence as d2l writes it (information-theory.md:409, :445), for
# laws the chain declares -------------------------------------------------------------------------------

GIBBS = """$$
% assume: p(x), q(x) \\text{ laws}; p(x) > 0; q(x) > 0
D_{\\textrm{KL}}(p(x)\\|q(x)) \\geq 0
$$
"""


def test_d_sub_kl_is_the_kl_divergence_and_gibbs_proves_it_non_negative(tmp_path):
    for spelling in ("D_{\\textrm{KL}}", "D_{\\mathrm{KL}}", "D_\\mathrm{KL}", "D_{KL}"):
        r, got = run(tmp_path, GIBBS.replace("D_{\\textrm{KL}}", spelling))
        assert statuses(got) == ["proved"], (spelling, r.output)
        assert got[0]["steps"][0]["expr"].startswith("KL("), r.output


def test_d_sub_kl_planted_non_positive_is_refuted_by_laws(tmp_path):
    r, got = run(tmp_path, GIBBS.replace("\\geq 0", "\\leq 0"))
    assert statuses(got) == ["refuted"], r.output


def test_d_sub_kl_as_an_expectation_under_its_first_law(tmp_path):
    text = GIBBS.replace("\\geq 0", "= \\mathbb{E}_{x \\sim p}\\left[\\log \\frac{p(x)}{q(x)}\\right]")
    r, got = run(tmp_path, text)
    assert statuses(got) == ["proved"], r.output
    r, got = run(tmp_path, text.replace("\\frac{p(x)}{q(x)}", "\\frac{q(x)}{p(x)}"))  # planted: the ratio flipped
    assert statuses(got) == ["refuted"], r.output


def test_another_subscripted_d_stays_a_name(tmp_path):
    r, got = run(tmp_path, "$$ D_{1}(x) + D_{KL} = D_{KL} + D_{1}(x) $$\n")
    assert statuses(got) == ["proved"], r.output


def test_kl_of_laws_not_declared_is_never_refuted(tmp_path):
    # d2l information-theory.md:445, "KL divergence is non-negative", P and Q named in prose only
    r, got = run(tmp_path, "$$ D_{\\textrm{KL}}(P\\|Q) \\geq 0 $$\n")
    assert statuses(got) == ["inconclusive"], r.output
    assert "or two declared laws (assume: p(x), q(x) laws" in r.output


def test_a_name_whose_definition_was_not_read_related_to_other_such_names_is_a_claim(tmp_path):
    # d2l information-theory.md:545, :550: CE defined by an expectation not read, then given again as
    # H(P) + D_KL(P||Q) (H's definition not read either): a claim, never CE's definition
    text = (
        "$$\\textrm{CE}(P, Q) = - E_{x \\sim P} [\\log(q(x))]$$\n\n$$H(P) = - E_{x \\sim P} [\\log p(x)]$$\n\n"
        "$$\\textrm{CE}(P, Q) = H(P) + D_{\\textrm{KL}}(P\\|Q)$$\n"
    )
    r, got = run(tmp_path, text)
    assert statuses(got)[-1] == "bad-input", r.output
