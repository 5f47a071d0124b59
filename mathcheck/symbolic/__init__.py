"""The symbolic kernel: the step checker, the rules a step may cite, hypotheses and generality.

SymPy only (never torch). Above it: ``derivations/``, ``verify/``, ``userexpr/``; beside it:
``numeric/``. See docs/design.md. Its modules, each one job, bottom up (no circle):

* ``context`` — what the hypotheses say about indices (ranges, definitions, relations over ranges);
* ``sums`` — sum algebra (bound variables renamed, sums combined, pulled apart, deltas collapsed);
* ``rules/`` — the rules a step may cite, their kinds and what is trusted of each;
* ``hypotheses`` — a part's hypotheses, points that satisfy them, ``holds_at``, generality;
* ``signs`` — the structural sign rules;
* ``decide`` — ``zero_test``, ``sign_test``, ``relation_test``, the strategy table;
* ``walker`` — ``check_part``: every link of a part, rules applied where cited.
"""
