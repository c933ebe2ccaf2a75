"""Implicit gathers: the places where xdist collects a whole split array on every rank
without being asked to, and the warning that names them.

A user asks for a whole array with ``to_numpy``, ``resplit(x, None)`` or
``asarray(x, split=None)``: that is explicit and silent. Everything else that collects a
split array on every rank goes through ``implicit_gather``, which issues a
``GatherWarning`` naming the function, the array and the bytes each rank receives:

- ``np.asarray(x)`` / ``x.__array__()``, the host round-trip of libraries such as SciPy;
- operations whose algorithm needs all of an operand on every rank (dense ``linalg``
  factorizations of a matrix split along a matrix axis, an operand broadcast along its split
  axis, a mask or index array needed whole, ...), each named in docs/architecture.md.

Only arrays of more than ``get_config().gather_warning_elements`` elements (default
``2**16``) warn: gathering a handful of class means or a vector that a matrix is broadcast
against is routine. The result is always correct (every rank holds the same full copy), so
the warning is about memory and traffic, not about the answer. Silence it with
``warnings.simplefilter("ignore", xdist.GatherWarning)``, or make it an error with
``"error"`` to prove that a computation never gathers (the interop tests do). No warning is
issued at one rank, where nothing is moved.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._config import get_config
from .._layout import Layout
from .._transport.comm import Communicator
from ..backends import Backend
from .redistribute import gather_block

__all__ = ["GatherWarning", "implicit_gather", "warn_gather"]


class GatherWarning(UserWarning):
    """A whole split array was collected on every rank without being asked for."""


def warn_gather(
    func: str, layout: Layout, dtype: Any, comm: Communicator, onto: str = "every rank"
) -> None:
    """Issue the ``GatherWarning`` for gathering an array of ``layout`` onto ``onto`` (if it
    moves and is larger than the threshold)."""
    if layout.split is None or comm.size == 1:
        return
    size = 1
    for n in layout.shape:
        size *= n
    if size <= get_config().gather_warning_elements:
        return
    nbytes = size * dtype.itemsize
    warnings.warn(
        f"{func}: collects the whole {layout.shape} {dtype} array split along axis "
        f"{layout.split} on {onto} ({nbytes} bytes each); call xdist.resplit(x, None) to "
        "ask for it explicitly, or filter xdist.GatherWarning (see docs/interop.md)",
        GatherWarning,
        stacklevel=3,
    )


def implicit_gather(
    block: Any, layout: Layout, comm: Communicator, backend: Backend, func: str
) -> Any:
    """``gather_block`` for a gather the user did not ask for: warns, then gathers. A
    replicated block (or one rank) is returned as it is: nothing moves, nothing warns."""
    if layout.split is None or comm.size == 1:
        return block
    warn_gather(func, layout, backend.dtype_of(block), comm)
    return gather_block(block, layout, comm, backend)
