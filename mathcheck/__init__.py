"""mathcheck: the mathematics behind Transformers, derived by SymPy, checked against PyTorch.

The package root imports nothing heavy: ``mathcheck --help`` and ``mathcheck list`` must start
without SymPy or torch. Import what you need from the submodules::

    from mathcheck.registry import get
    from mathcheck.engine import prove
    verdict = prove(get("softmax-jacobian"), seed=0)
"""

import sys as _sys

from mathcheck.version import __version__

__all__ = ["__version__"]

if "IPython" in _sys.modules:  # a notebook: claims and verdicts display as Markdown and MathJax
    from mathcheck.render.notebook import register as _register

    _register()
