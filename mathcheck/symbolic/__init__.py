"""The symbolic kernel: the step checker, the rules a step may cite, hypotheses and generality.

SymPy only (never torch). Above it: ``derivations/``, ``verify/``, ``userexpr/``; beside it:
``numeric/``. See docs/design.md.
"""
