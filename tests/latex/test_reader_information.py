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
