"""Arrays whose block is made when it is first used: ``Deferred``.

A function whose result is costly to form and often used only through a cheaper product
(``svd``'s ``U``, of which ``Ridge`` reads only ``U.T @ y``) returns a ``Deferred`` array: an
``Array`` with its layout, dtype and device known, its block made by ``make()`` on the first
read of the block (any operation, ``.local``, printing, pickling, DLPack, a write). Code
written against the standard cannot tell it from the formed array: every operation reads the
block, which is then the very block the eager function would have returned, bit for bit.

Only two things skip forming it: ``.T``/``.mT`` of a 2-D ``Deferred`` that knows products
with its transpose (``transpose_left``) give a ``Deferred`` transpose, and ``matmul`` of that
transpose with an operand asks it for the product (``left_product``), which it computes
without forming either (or declines: the block is formed and the product taken as usual).

``make`` must not read memory that anyone can write in the meantime: it holds only arrays its
maker allocated itself (``svd`` keeps its own ``Q`` factor), or blocks of xdist's own memory
that it never handed out (``_pending.kept``: ``svd`` of a well-conditioned matrix keeps the
matrix's rows) with the array noted as reading them (``_pending.read_later``), so that xdist
makes it before it writes into that memory or hands it out. A later write to the input
cannot change what ``make`` returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._array import OPERATORS, Array
from ._layout import Layout

__all__ = ["Deferred", "deferred"]

_BLOCK = Array.__dict__["_local"]  # the slot that holds a formed block


class Deferred(Array):
    """An ``Array`` whose block ``make()`` gives on first use (see the module's docstring):
    a block, or an ``Array`` whose block and write-back (a view's) it takes."""

    __slots__ = ("_make", "_left", "_t_left", "_dtype", "_device")

    _make: Callable[[], Any] | None
    # ``self @ other`` without forming ``self`` (or ``None``: not known here)
    _left: Callable[[Array], Array | None] | None
    # the same for ``self.T @ other``: what ``.T`` hands to the transpose it defers
    _t_left: Callable[[Array], Array | None] | None

    @property  # type: ignore[override]
    def _local(self) -> Any:
        block = _BLOCK.__get__(self, Array)
        if block is None:
            block = self._make()  # type: ignore[misc]
            if isinstance(block, Array):  # a view: what it writes back to comes with it
                self._writeback, self._strides = block._writeback, block._strides
                block = block._local
            _BLOCK.__set__(self, block)
            self._make = self._left = self._t_left = None  # no longer needed
        return block

    @_local.setter
    def _local(self, block: Any) -> None:
        _BLOCK.__set__(self, block)

    @property
    def formed(self) -> bool:
        """Whether the block has been made."""
        return _BLOCK.__get__(self, Array) is not None

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def T(self) -> Array:
        if self.ndim == 2 and self._t_left is not None and not self.formed:
            return _transposed(self)
        return super().T

    @property
    def mT(self) -> Array:
        if self.ndim == 2 and self._t_left is not None and not self.formed:
            return _transposed(self)
        return super().mT

    def left_product(self, other: Array) -> Array | None:
        """``self @ other`` where ``self`` is a transpose that knows it without being formed
        (``other`` already checked as ``matmul`` checks it), else ``None``."""
        if self._left is None or self.formed:
            return None
        return self._left(other)


def deferred(
    make: Callable[[], Any],
    layout: Layout,
    like: Array,
    dtype: np.dtype,
    device: Any,
    *,
    transpose_left: Callable[[Array], Array | None] | None = None,
) -> Deferred:
    """A ``Deferred`` array on ``like``'s communicator and backend. ``transpose_left(other)``
    (a 2-D array only): ``self.T @ other`` without forming ``self``, or ``None`` where it
    cannot (the caller then forms ``self``)."""
    x = Deferred._new(None, layout, like._comm, like._backend)
    x._make, x._dtype, x._device = make, dtype, device
    x._left, x._t_left = None, transpose_left
    return x


def _transposed(x: Deferred) -> Deferred:
    """``x.T`` as a ``Deferred``: formed as ``permute_dims`` of ``x`` formed (a view of its
    block, as the eager ``x.T`` is). Its product is ``x``'s ``transpose_left`` only while
    ``x`` is not formed: a write into ``x`` forms it, and the transpose must then see it."""
    shape, split = x._layout.shape, x._layout.split
    layout = (
        Layout.replicated(shape[::-1])
        if split is None
        else Layout.trusted(shape[::-1], 1 - split, x._layout.counts)
    )
    t_left = x._t_left

    def left(other: Array) -> Array | None:
        return None if x.formed or t_left is None else t_left(other)

    t = deferred(lambda: OPERATORS["permute_dims"](x, (1, 0)), layout, x, x._dtype, x._device)
    t._left = left
    return t
