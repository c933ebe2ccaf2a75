"""Where a new array lives: its communicator, backend, device and split axis.

Every function that makes an array from arguments rather than from an input array (the
creation functions, ``from_local``, ``resplit``, ``xdist.random``, ``fft.fftfreq``, the
loaders of ``xdist.io``) resolves these here, once, before anything is allocated or sent, so
each is checked one way and a bad value raises the same error everywhere:

- ``comm=``: ``None`` for ``xdist.default_comm()``, else an xdist ``Communicator``
  (``TypeError`` otherwise);
- ``device=``: ``None`` for the backend's default device, else one the backend accepts
  (``backend.check_device``);
- ``split=``: ``None`` (replicated), an integer axis of the result (negative ones count from
  the end), or ``DEFAULT`` for the configured default split, which applies only to results
  that have that axis. A split that is not an integer raises ``TypeError``; an integer that
  is not an axis of the result (any integer for a 0-d result) raises ``AxisError``, both an
  ``IndexError`` and a ``ValueError`` as NumPy's ``AxisError`` is.
"""

from __future__ import annotations

import builtins
import operator
import weakref
from typing import Any

import numpy as np

from . import _array
from ._config import get_config
from ._dtypes import int64
from ._errors import AxisError
from ._layout import Layout
from ._runtime import default_backend, default_comm
from ._transport.comm import Communicator
from .backends.base import Backend, Device

__all__ = [
    "DEFAULT",
    "Placement",
    "iota",
    "mark_unplaced",
    "placed",
    "resolve_comm",
    "resolve_split",
    "span",
    "unplaced",
]


class _Default:
    """The value of ``split=`` when it is not given (``None`` means replicated)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<default split>"


DEFAULT = _Default()

# Arrays that a creation function made replicated because no split was asked for (``split``
# left at its default): nothing chose their layout, so a large one may take the split of
# split data written into it whole along an axis, instead of that data being gathered to
# every rank (``_indexing.basic``; scikit-learn fills ``xp.empty`` results column by column).
_UNPLACED: dict[int, weakref.ref] = {}


def mark_unplaced(x: Any) -> None:
    """Note ``x`` as laid out by default, not by choice (see ``_UNPLACED``)."""
    key = id(x)
    _UNPLACED[key] = weakref.ref(x, lambda _, key=key: _UNPLACED.pop(key, None))


def unplaced(x: Any) -> bool:
    """Whether ``x`` is an array ``mark_unplaced`` noted and ``placed`` did not since."""
    ref = _UNPLACED.get(id(x))
    return ref is not None and ref() is x


def placed(x: Any) -> None:
    """``x``'s layout is settled: no later write changes it."""
    if unplaced(x):
        del _UNPLACED[id(x)]


# Communicator types whose instances passed the check: ``Communicator`` is a runtime Protocol,
# whose ``isinstance`` looks its members up one by one, too slow for every creation call.
_COMM_TYPES: set[type] = set()


def resolve_comm(comm: Any, func: str) -> Communicator:
    """``comm`` (``None``: ``xdist.default_comm()``), or a TypeError naming ``func`` when it
    is not an xdist Communicator."""
    if comm is None:
        return default_comm()
    if type(comm) not in _COMM_TYPES:
        if not isinstance(comm, Communicator):
            raise TypeError(
                f"{func}: comm must be an xdist Communicator, got {type(comm).__name__}"
            )
        _COMM_TYPES.add(type(comm))
    return comm


def resolve_split(split: Any, ndim: int, func: str, *, name: str = "split") -> int | None:
    """The split axis, in ``[0, ndim)``, of a result with ``ndim`` dimensions (``None``:
    replicated), or an error naming ``func``, the argument (``name``) and its value."""
    if split is DEFAULT:
        axis = get_config().default_split
        if axis is None or not -ndim <= axis < ndim:
            return None  # the configured default applies only where the axis exists
        return axis % ndim
    if split is None:
        return None
    try:
        if isinstance(split, builtins.bool):
            raise TypeError
        axis = operator.index(split)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an int or None, got {split!r}") from None
    if ndim == 0:
        raise AxisError(f"{func}: a 0-d array cannot be split ({name}={axis})")
    if not -ndim <= axis < ndim:
        raise AxisError(f"{func}: {name} {axis} is out of bounds for an array of {ndim} dimensions")
    return axis % ndim


class Placement:
    """Where a new array goes: its communicator, backend and device, resolved from a
    function's ``comm=`` and ``device=`` (``None``: the defaults; ``backend``: the default
    backend unless the array follows an input's), with the helpers that build this rank's
    block."""

    __slots__ = ("comm", "backend", "device")

    def __init__(self, comm: Any, device: Any, func: str, backend: Backend | None = None) -> None:
        self.comm = resolve_comm(comm, func)
        self.backend = default_backend() if backend is None else backend
        self.device: Device = self.backend.check_device(device, func)

    @property
    def xp(self) -> Any:
        return self.backend.xp

    def default_dtype(self, kind: str) -> np.dtype:
        """The backend's default dtype of ``kind`` (a key of ``default_dtypes()``): for
        ``"real floating"`` float64 in NumPy, float32 in Torch."""
        return self.backend.default_dtypes()[kind]

    def layout(
        self, shape: tuple[int, ...], split: Any, func: str, *, zero_d_replicated: bool = False
    ) -> Layout:
        """The balanced layout of ``shape`` along ``split=`` (see ``resolve_split``).
        ``zero_d_replicated``: a 0-d result is replicated whatever ``split`` says (the loaders
        of ``xdist.io``, whose ``split`` defaults to 0, load a 0-d file that way)."""
        if zero_d_replicated and not shape:
            split = None
        return Layout.balanced(shape, resolve_split(split, len(shape), func), self.comm.size)

    def filled(self, layout: Layout, dtype: np.dtype, value: Any) -> _array.Array:
        """An array of ``layout`` whose block is allocated here (and filled unless ``None``)."""
        block = self.backend.empty(layout.local_shape(self.comm.rank), dtype, self.device)
        if value is not None:
            block[...] = value
        return _array.Array._new(block, layout, self.comm, self.backend)

    def iota(self, start: int, stop: int) -> Any:
        """The int64 global indices ``start:stop`` as a block on the device."""
        return iota(start, stop, self.backend, self.device)

    def array(self, block: Any, layout: Layout) -> _array.Array:
        """The array of ``layout`` whose block here is ``block``."""
        if not self.backend.is_block(block):  # 0-d results of some ops come back as scalars
            block = self.backend.asarray(block, device=self.device)
        return _array.Array._new(block, layout, self.comm, self.backend)


def iota(start: int, stop: int, backend: Backend, device: Any) -> Any:
    """The int64 global indices ``start:stop`` as a block of ``backend`` on ``device``."""
    native = backend.native_device(backend.check_device(device, "iota"))
    return backend.xp.arange(start, stop, dtype=backend.native_dtype(int64), device=native)


def span(layout: Layout, axis: int, rank: int) -> tuple[int, int]:
    """The global index range of ``rank``'s block along ``axis`` (all of it if not split):
    what a block holds along any axis, from which position-dependent values are computed."""
    if layout.split == axis:
        return layout.local_range(rank)
    return 0, layout.shape[axis]
