"""mathcheck.lazy: ``from mathcheck.lazy import sympy as sp`` costs nothing until ``sp`` is used
(``mathcheck list`` and ``--help`` import no SymPy), then is the module itself."""

import subprocess
import sys

from tests.paths import ROOT


def test_sympy_loads_on_first_use_and_then_is_sympy():
    code = (
        "import sys; from mathcheck.lazy import sympy as sp; "
        "before = 'sympy' in sys.modules; r = repr(sp); x = sp.Symbol('x'); "
        "import sympy; print(before, r, 'sympy' in sys.modules, type(x) is sympy.Symbol, repr(sp))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split("\n")[0] == (
        "False <lazy module 'sympy' (not loaded)> True True <lazy module 'sympy' (loaded)>"
    )
