"""Kept for old imports: the torch side of the user's expressions lives in
:mod:`mathcheck.userexpr.autograd` (one layer below ``verify/``, imported one way only)."""

from mathcheck.userexpr.autograd import DT, UserEvaluator  # noqa: F401
from mathcheck.userexpr.numeric import numeric  # noqa: F401
