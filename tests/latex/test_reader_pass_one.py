"""The reader's first pass (which bases a sum's index subscripts) reads past what only the second
pass reads: an unknown function's primes. It stopped at ``f'(x)`` and never saw ``c_j`` inside the
sum after it, so ``f'(x) \\sum_{j=1}^{3} c_j`` was read as f'(x)·3·c_j (found by bench/latex_fuzz.py
--hand with sums: ``g'(5) + (\\sum_{l=1}^{3} x c_l)`` read back as 3·x·c_l)."""

import pytest

from mathcheck.chains import DeriveError
from mathcheck.latex import translate
from mathcheck.latex.blocks import Notation
from mathcheck.latex.reader import Reader
from mathcheck.latex.tokens import _Source, tokenize


@pytest.mark.parametrize(
    "tex, read",
    [
        (r"f'(x) \sum_{j=1}^{3} c_j", "prime(f(x))*Sum(c[j], (j, 1, 3))"),
        (r"g'\left(5\right) + \left(\sum_{l=1}^{3} x c_{l}\right)", "prime(g(5)) + (Sum(x*c[l], (l, 1, 3)))"),
        (r"g''(y) \sum_{j} a_j", "prime(g(y), 2)*Sum(a[j], (j, 1, N_sum))"),
        (r"d_k + \sum_{k=1}^{n} x_k", "d_k + Sum(x[k], (k, 1, n))"),  # outside the sum d_k stays a name
    ],
)
def test_a_sum_after_primes_reads_its_entries(tex, read):
    assert translate(tex, variables="xyab") == read


def test_an_entry_the_first_pass_missed_is_refused_never_a_name():
    """Read with a notation in which c is not indexed (what a first pass that stopped early left),
    ``c_j`` under a sum over j is refused, not the name c_j summed n times."""
    tex = r"\sum_{j=1}^{3} c_j"
    src = _Source(tex, "t.tex")
    with pytest.raises(DeriveError, match="inside the sum over j"):
        Reader(tokenize(src, 0, len(tex)), src, Notation({"j"}, set(), {}, set(), set())).read()


def test_derive_proves_it(tmp_path):
    from click.testing import CliRunner

    from mathcheck.cli import main

    p = tmp_path / "s.md"
    p.write_text("$$ f'(x) \\sum_{j=1}^{3} c_j = f'(x) (c_1 + c_2 + c_3) $$\n")
    r = CliRunner().invoke(main, ["derive", str(p)])
    assert "proved" in r.output and r.exit_code == 0, r.output
