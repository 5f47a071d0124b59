"""Derivations typeset in LaTeX: display math read into :mod:`mathcheck.derive` chains.

A researcher's own chain of ``&=`` is checked link by link, as it stands in the paper::

    % assume: x \\in \\mathbb{R}
    \\begin{align}
      \\frac{d}{dx} \\log(1 + e^{x}) &= \\frac{e^{x}}{1 + e^{x}} \\quad\\text{(chain rule)} \\\\
                                  &= \\frac{1}{1 + e^{-x}}
    \\end{align}

becomes the chain ``diff(log(1 + exp(x)), x) = (exp(x))/(1 + exp(x)) = 1/(1 + exp(-x))`` with the
reason ``chain rule`` on its first link, each link carrying its source line and its LaTeX.

The reader is ours, small and closed: a tokenizer, a bounded ``\\newcommand`` expander, and a
recursive-descent reader that *writes text in the grammar of* :mod:`mathcheck.parser`. Nothing is
evaluated; the SymPy objects are built later by the parser's whitelist, under its limits. TeX's
file and shell primitives (``\\input``, ``\\write18``, ``\\def`` …) are refused, macro expansion,
nesting and input size are bounded, and every error is one line ``path:line:col: what is wrong``.

    >>> [c.steps[1].text for c in chains("$$ \\\\frac{x^2 - 1}{x - 1} = x + 1 $$", "n.md", markdown=True)]
    ['x + 1']

docs/latex.md lists what is read and what is out (integrals, ``\\nabla``, matrices, ``\\cdots``).
"""

from __future__ import annotations

from mathcheck.latex.blocks import chains, notation_of
from mathcheck.latex.reader import Reader
from mathcheck.latex.tokens import LatexRefused, _Source, tokenize

__all__ = ["chains", "translate", "LatexRefused"]


def translate(tex: str, path: str = "<latex>", variables=()) -> str:
    """One LaTeX expression in the text grammar (indices: the ones its sums bind; ``variables``:
    names declared quantities, as ``% assume: x \\in \\mathbb{R}`` does, so ``x(y + 1)`` is a product).

        >>> translate(r"\\frac{1}{n}\\sum_{i=1}^{n} (x_i - \\mu)^2")
        '1/n*Sum((x[i] - mu)^2, (i, 1, n))'
    """
    src = _Source(tex, path)
    toks = tokenize(src, 0, len(tex))
    return Reader(toks, src, notation_of(src, [toks], set(), {}, set(variables))).read()
