"""The symbolic kernel: the step checker, the rules a step may cite, hypotheses and generality.

SymPy only (never torch). Above it: ``derivations/``, ``verify/``, ``userexpr/``; below it:
``numeric/`` (the reader of hypotheses and ``holds_at`` in ``numeric.holds``, the constructive draw
in ``numeric.construct``; ``numeric`` never imports ``symbolic``). See docs/design.md. Its modules, each one job, bottom up (no circle):

* ``context`` — index ranges written as hypotheses, and relations known over ranges;
* ``sums`` — sum algebra (bound variables renamed, sums combined, pulled apart, deltas collapsed);
* ``rules/`` — the rules a step may cite, their kinds and what is trusted of each;
* ``hypotheses`` — a part's hypotheses, its points (``part_points``, by numeric's draw), generality;
* ``signs`` — the structural sign rules;
* ``cases`` — the provers' code: case splits, piecewise and special-function forms, peeled sums,
  closed forms under the hypotheses;
* ``decide`` — ``zero_test``, ``sign_test``, ``relation_test``, THE strategy table (``plan``, its
  ``PROVERS``) that ``prove``, ``check``, ``derive`` and the claim API share;
* ``steps`` — ``check_part``: every link of a part, rules applied where cited.
"""

# the public modules, bottom up as listed above
__all__ = ["context", "decide", "expectation", "hypotheses", "integrals", "signs", "steps", "sums", "rules"]
