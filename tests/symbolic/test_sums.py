"""mathcheck.symbolic.sums: sum algebra that never changes a value — renamed bound variables,
ranges merged only when equal, deltas collapsed only inside a known range."""

import sympy as sp

from mathcheck.symbolic.sums import canonical_sums, combine_sums, delta_substitute, eval_deltas, pull_sums

i, j, k = sp.symbols("i j k", integer=True)
n, m = sp.symbols("n m", integer=True, positive=True)
x = sp.IndexedBase("x")


def test_a_sum_and_its_renamed_copy_are_one_expression():
    a = sp.Sum(x[i] * sp.Sum(x[j], (j, 1, m)), (i, 1, n))
    b = sp.Sum(x[k] * sp.Sum(x[i], (i, 1, m)), (k, 1, n))
    assert a != b and canonical_sums(a) == canonical_sums(b)


def test_sums_over_one_range_merge_and_over_two_do_not():
    same = combine_sums(sp.Sum(x[i], (i, 1, n)) + sp.Sum(i, (i, 1, n)))
    assert isinstance(same, sp.Sum) and [lim[1:] for lim in same.limits] == [(1, n)]  # its index renamed
    apart = combine_sums(sp.Sum(x[i], (i, 1, n)) + sp.Sum(x[i], (i, 1, m)))
    assert len(apart.atoms(sp.Sum)) == 2


def test_a_factor_free_of_the_index_comes_out():
    c = sp.Symbol("c")
    assert pull_sums(sp.Sum(c * x[i], (i, 1, n))) == c * sp.Sum(x[i], (i, 1, n))


def test_a_delta_collapses_to_its_entry_only_where_the_range_is_known():
    s = sp.Sum(sp.KroneckerDelta(i, j) * x[i], (i, 1, n))
    assert eval_deltas(s, {j: (1, n)}) == x[j]
    # j may lie outside 1..n, where the sum is 0: never x[j] alone
    assert eval_deltas(s) == sp.Piecewise((x[j], (j >= 1) & (j <= n)), (0, True))
    # inside a term with δ(i, j) the rest may take j = i (the term is 0 otherwise)
    assert delta_substitute(sp.KroneckerDelta(i, j) * x[j] + x[j]) == sp.KroneckerDelta(i, j) * x[i] + x[j]
