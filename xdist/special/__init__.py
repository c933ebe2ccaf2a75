"""Special functions on distributed arrays: the ufuncs SciPy looks up as ``xp.special.<name>``.

With ``SCIPY_ARRAY_API=1``, ``scipy.special.erf(x)`` on an xdist array calls
``xdist.special.erf(x)`` (SciPy's ``_get_native_func``) instead of converting ``x`` to NumPy
on the host. Each function is elementwise: it broadcasts its operands (xdist arrays and
Python scalars) as the standard's elementwise functions do and computes on each rank's
block, so operands of equal layouts send nothing. The result dtype is the one
``scipy.special.<name>`` gives NumPy arrays of the same dtypes (for example, float32 stays
float32, an integer becomes float64, float32 with a Python float gives float64), whatever the
backend, the data or the number of ranks. SciPy is needed when a function is called.
"""

from __future__ import annotations

from ._functions import *  # noqa: F403
from ._functions import __all__ as __all__
