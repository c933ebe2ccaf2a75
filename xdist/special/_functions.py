"""The special functions: one row per name, one pipeline for all.

validate (operands, arity, dtypes, the ufunc loop) -> pick the local function
(``_local.local_function``) -> ``apply_elementwise`` (broadcast, align blocks, compute, wrap).
Everything before the last step reads global metadata only, so a bad call raises the same
error on every rank before any message.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import Array
from .._ops.elementwise import SCALARS, apply_elementwise
from .._validation import check_same_context
from ..backends import Backend
from ._local import local_function, scipy_ufunc

# The ufuncs of SciPy's scipy/special/_support_alternative_backends.py (its ``_special_funcs``
# with ``is_ufunc``), which SciPy looks up as ``xp.special.<name>`` (SciPy 1.17).
UFUNCS = (
    "bdtr", "bdtrc", "bdtri", "betainc", "betaincc", "betaincinv", "betaln", "binom",
    "boxcox", "boxcox1p", "cbrt", "chdtr", "chdtrc", "chdtri", "cosdg", "cosm1", "cotdg",
    "ellipk", "ellipkm1", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1", "exp10", "exp2",
    "exprel", "expi", "expit", "expn", "fdtr", "fdtrc", "fdtri", "gamma", "gammainc",
    "gammaincc", "gammainccinv", "gammaincinv", "gammaln", "gammasgn", "gdtr", "gdtrc",
    "huber", "hyp1f1", "i0", "i0e", "i1", "i1e", "inv_boxcox", "inv_boxcox1p", "j0", "j1",
    "k0", "k0e", "k1", "k1e", "kl_div", "log_ndtr", "loggamma", "logit", "lpmv", "nbdtr",
    "nbdtrc", "nbdtri", "ndtr", "ndtri", "pdtr", "pdtrc", "pdtri", "poch", "pseudo_huber",
    "psi", "radian", "rel_entr", "rgamma", "sindg", "spence", "stdtr", "stdtrit", "tandg",
    "xlog1py", "xlogy", "y0", "y1", "yn", "zetac",
)  # fmt: skip
ALIASES = {"digamma": "psi"}

__all__ = [*UFUNCS, *ALIASES]


def apply_special(name: str, args: tuple[Any, ...]) -> Array:
    """``scipy.special.<name>`` on xdist arrays and Python scalars, blockwise."""
    func = f"special.{name}"
    ufunc = scipy_ufunc(name)
    if len(args) != ufunc.nin:
        raise TypeError(f"{func}: takes {ufunc.nin} arguments, got {len(args)}")
    for k, a in enumerate(args):
        if not isinstance(a, (Array, *SCALARS)):
            raise TypeError(
                f"{func}: argument {k} must be an xdist array or a Python scalar, "
                f"got {type(a).__name__}"
            )
    arrays = [(a, f"argument {k}") for k, a in enumerate(args) if isinstance(a, Array)]
    if not arrays:
        raise TypeError(f"{func}: at least one argument must be an xdist array")
    check_same_context(arrays, func)
    # A Python bool counts as the int 0 or 1 (NumPy's weak scalars have no bool kind).
    args = tuple(int(a) if isinstance(a, bool) else a for a in args)
    backend = arrays[0][0]._backend
    loop = _resolve_loop(ufunc, args, func, backend)
    return apply_elementwise(func, local_function(backend, name, loop), list(args), fuse=True)


def _resolve_loop(ufunc: np.ufunc, args: tuple[Any, ...], func: str, backend: Backend):
    """The ufunc loop SciPy uses for these operand dtypes (Python scalars weak, as NumPy
    does): global metadata only, so every rank, every block (empty ones too) and every
    backend computes in the same dtypes."""
    dtypes = tuple(a.dtype if isinstance(a, Array) else type(a) for a in args)
    try:
        loop = ufunc.resolve_dtypes((*dtypes, None))
    except TypeError:
        names = ", ".join(getattr(d, "name", getattr(d, "__name__", str(d))) for d in dtypes)
        raise TypeError(
            f"{func}: no loop for arguments of dtype ({names}); loops: {', '.join(ufunc.types)}"
        ) from None
    if any(d not in backend.supported_dtypes() for d in loop):
        raise TypeError(
            f"{func}: computes in dtypes {tuple(d.name for d in loop)}, which the "
            f"{backend.name} backend does not all support"
        )
    return loop


def _make(name: str, target: str):
    def func(*args: Any) -> Array:
        return apply_special(target, args)

    func.__name__ = func.__qualname__ = name
    func.__module__ = "xdist.special"
    func.__doc__ = (
        f"``scipy.special.{target}`` elementwise on each rank's block, with the standard's "
        "broadcasting; operands of equal layouts send nothing. The result has the dtype "
        f"``scipy.special.{target}`` gives NumPy arrays of the operands' dtypes."
    )
    return func


for _name in UFUNCS:
    globals()[_name] = _make(_name, _name)
for _name, _target in ALIASES.items():
    globals()[_name] = _make(_name, _target)
del _name, _target
