"""The numeric kernel: every number mathcheck computes from a SymPy expression comes from here.

One function table (:mod:`~mathcheck.numeric.functions`) read by the grammar and by every
backend; one expression walker (:mod:`~mathcheck.numeric.expressions`) with a backend per number
system (:mod:`~mathcheck.numeric.floats`: Python floats, no torch;
:mod:`~mathcheck.numeric.evaluate`: torch with autograd, and its bounded variant in
:mod:`~mathcheck.numeric.bounded`; :mod:`~mathcheck.numeric.precise`: mpmath at
``PRECISION_DIGITS``); the reader of hypotheses and the independent evaluator ``holds_at``
(:mod:`~mathcheck.numeric.holds`); the constructive draw (:mod:`~mathcheck.numeric.construct`) and
the sampler that honours hypotheses with it (:mod:`~mathcheck.numeric.sampling`);
one tolerance model (:mod:`~mathcheck.numeric.tolerance`); the Monte Carlo statistics
(:mod:`~mathcheck.numeric.stats`).

Layering: this package imports only the values layer (``mathcheck.claim``, ``mathcheck.lazy``,
``mathcheck.budget``), SymPy, mpmath and — inside the torch backends only — torch. ``verify/``,
``userexpr/``, ``conform/``, ``model/`` and ``symbolic/`` sit above it (the step checker draws its
counterexamples through :mod:`~mathcheck.numeric.construct`); it imports none of them. Importing the package imports neither torch nor SymPy (``mathcheck --help`` and
``mathcheck list`` stay light).
"""

# The one high precision: a float64 disagreement is confirmed (or a hypothesis decided) with 50
# significant digits — 34 more than float64 carries, so the round-off of any float64 screening
# (≤ ~1e-13 relative after cancellation) is far above the confirmation's own (~1e-48), and a false
# identity that agrees to 1e-30 is still told apart (tolerance.HP_REL).
PRECISION_DIGITS = 50

# the one high precision, then the public modules
__all__ = [
    "PRECISION_DIGITS",
    "bounded",
    "construct",
    "distributions",
    "evaluate",
    "expressions",
    "floats",
    "functions",
    "holds",
    "precise",
    "sampling",
    "stats",
    "symbols",
    "tolerance",
]
