"""mathcheck: the mathematics behind Transformers, derived by SymPy, checked against PyTorch.

The package root imports nothing heavy: ``mathcheck --help`` and ``mathcheck list`` must start
without SymPy or torch. Import what you need from the submodules::

    from mathcheck.registry import get
    from mathcheck.engine import prove
    verdict = prove(get("softmax-jacobian"), seed=0)
"""

__version__ = "0.1.0"
