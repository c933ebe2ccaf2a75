"""``array``: NumPy's constructor, beyond the standard: ``asarray`` with NumPy's ``copy=True``
default and its ``ndmin``.

Communication: that of ``asarray`` (data that is not an xdist array: one allgather agreeing on
its shape and dtype, and one of a checksum under ``check_replicated``; an xdist array: none,
unless a new ``split`` moves it); ``ndmin``'s leading axes are added locally.
"""

from __future__ import annotations

import operator
from typing import Any

from ._array import Array
from ._creation_functions import DEFAULT, asarray
from ._manipulation_functions import expand_dims
from ._numpy_aliases import refuse

__all__ = ["array"]


def array(
    object: Any,
    dtype: Any = None,
    *,
    copy: bool | None = True,
    order: str = "K",
    subok: bool = False,
    ndmin: int = 0,
    like: Any = None,
    device: Any = None,
    split: Any = DEFAULT,
    comm: Any = None,
) -> Array:
    """NumPy's ``array`` (xdist's extension): ``asarray(object, dtype=dtype, copy=copy, ...)``
    where ``copy=True`` (the default) always copies, ``None`` copies only when needed and
    ``False`` raises when a copy is needed; then ``ndmin - ndim`` axes of length one are put
    in front (``split``, an axis of ``object``, moves with them). ``dtype`` in NumPy's
    spellings; ``order`` ``"K"``, ``"A"`` or ``"C"`` (an xdist array has no memory order to
    keep); ``like`` is not supported. Communication of ``asarray``."""
    refuse("array", order=None if order in ("K", "A", "C") else order, like=like)
    if not isinstance(subok, bool):
        raise TypeError(f"array: subok must be a bool, got {subok!r}")
    try:
        ndmin = operator.index(ndmin)
    except TypeError:
        raise TypeError(f"array: ndmin must be an int, got {ndmin!r}") from None
    if copy is True and isinstance(object, (bool, int, float, complex)):
        copy = None  # a Python scalar always makes a new block: nothing to copy
    out = asarray(object, dtype=dtype, copy=copy, device=device, split=split, comm=comm)
    if out.ndim < ndmin:
        out = expand_dims(out, axis=tuple(range(ndmin - out.ndim)))
    return out
