"""The distributed array: one local block plus one layout, on a communicator and a backend.

"Think globally, act locally": the global array is what the standard's functions see; the
block of this rank is ``x.local``, an array of the backend library that may be read and
written in place.
"""

from __future__ import annotations

import math
import operator
import types
from typing import Any

import numpy as np

from ._config import get_config
from ._dtypes import ALL_DTYPES
from ._formatting import format_values, summary_indices
from ._layout import Layout
from ._movement.broadcast import align_block
from ._movement.collectives import bcast_host, checksums, differing_ranks
from ._movement.gathers import warn_gather
from ._movement.redistribute import redistribute_block
from ._runtime import default_comm
from ._transport.comm import Communicator
from .backends import get_backend

__all__ = ["Array", "OPERATORS", "wrap_block", "writes_back"]

# The functions behind the array's operators and methods, by the standard's name (plus
# "getitem", "setitem", "to_numpy" and "__array_namespace__"). The namespace fills the table
# when it is imported (xdist/__init__.py); the array itself knows no operation, as DTensor's
# tensor dispatches through its op table, so this module imports nothing above it.
OPERATORS: dict[str, Any] = {}

# The in-place operators a library may apply to a block (``Array._in_place``), by the
# standard's name, each with its out-of-place twin.
_IN_PLACE = {
    "add": (operator.iadd, operator.add),
    "subtract": (operator.isub, operator.sub),
    "multiply": (operator.imul, operator.mul),
    "divide": (operator.itruediv, operator.truediv),
}


def _broadcasts_into(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``target`` itself (an in-place operand's rule)."""
    if len(shape) > len(target):
        return False
    return all(a in (1, b) for a, b in zip(shape[::-1], target[::-1]))


class Array:
    """A distributed array. Create it with xdist's functions, not with ``Array(...)``."""

    __slots__ = ("_local", "_layout", "_comm", "_backend", "_writeback", "_strides", "__weakref__")

    _local: Any
    _layout: Layout
    _comm: Communicator
    _backend: Any

    def __new__(cls, *args, **kwargs):
        raise TypeError("xdist.Array cannot be created directly; use xdist.asarray or from_local")

    @classmethod
    def _new(cls, local: Any, layout: Layout, comm: Communicator, backend: Any) -> Array:
        self = object.__new__(cls)
        self._local = local
        self._layout = layout
        self._comm = comm
        self._backend = backend
        # A result of indexing or reshaping that had to be a copy at this rank count writes
        # its new values back into its base after each write (see ``writes_back``).
        self._writeback = None
        # The strides, in elements, NumPy would give this array where they differ from what
        # xdist's default says (``_indexing.basic.note_strides``); ``None``: the default.
        self._strides = None
        return self

    # -- the standard's attributes ---------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return self._backend.dtype_of(self._local)

    @property
    def device(self):
        return self._backend.device_of(self._local)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._layout.shape

    @property
    def ndim(self) -> int:
        return len(self._layout.shape)

    @property
    def size(self) -> int:
        return math.prod(self._layout.shape)

    @property
    def T(self) -> Array:
        if self.ndim != 2:
            raise ValueError(f"Array.T: the array must be 2-D, got {self.ndim} dimensions")
        return OPERATORS["permute_dims"](self, (1, 0))

    @property
    def mT(self) -> Array:
        if self.ndim < 2:
            raise ValueError(
                f"Array.mT: the array must be at least 2-D, got {self.ndim} dimensions"
            )
        return OPERATORS["matrix_transpose"](self)

    # -- xdist's attributes ----------------------------------------------------------------
    @property
    def split(self) -> int | None:
        """The axis the array is split along, or ``None`` when every rank holds all of it."""
        return self._layout.split

    @property
    def layout(self) -> Layout:
        return self._layout

    @property
    def counts(self) -> tuple[int, ...] | None:
        """Per-rank lengths along the split axis (``None`` when replicated)."""
        return self._layout.counts

    @property
    def offsets(self) -> tuple[int, ...] | None:
        return self._layout.offsets if self._layout.split is not None else None

    @property
    def lshape(self) -> tuple[int, ...]:
        """The shape of this rank's block."""
        return self._layout.local_shape(self._comm.rank)

    @property
    def local(self) -> Any:
        """This rank's block, an array of the backend library (writable)."""
        return self._local

    @property
    def comm(self) -> Communicator:
        return self._comm

    @property
    def backend(self) -> Any:
        return self._backend

    def __repr__(self) -> str:
        """The values this rank can show without a message (so ``print`` from one rank alone
        works): all of a replicated array, this rank's block of a split one, summarised as
        NumPy summarises. ``xdist.show(x)`` prints the whole array (collective)."""
        meta = f"dtype={self.dtype}"
        if self.split is not None:
            lo, hi = self._layout.local_range(self._comm.rank)
            meta = (
                f"shape={self.shape}, {meta}, split={self.split}, counts={self.counts}; rank "
                f"{self._comm.rank} holds {lo}:{hi} of axis {self.split}"
            )
        text = format_values(*_local_summary(self), prefix="xdist.Array(")
        return f"xdist.Array({text}, {meta})"

    def __str__(self) -> str:
        text = format_values(*_local_summary(self), separator=" ")
        if self.split is None:
            return text
        lo, hi = self._layout.local_range(self._comm.rank)
        return f"{text} (rank {self._comm.rank}'s block, {lo}:{hi} of axis {self.split})"

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    # -- namespace and interchange ---------------------------------------------------------
    def __array_namespace__(self, *, api_version: str | None = None) -> types.ModuleType:
        """xdist (``api_version=None`` or the ``api_version`` setting's edition), or a
        namespace of the edition asked for (``xdist/_editions.py``)."""
        return OPERATORS["__array_namespace__"](api_version)

    def to_numpy(self) -> np.ndarray:
        """The whole array as a new NumPy array on every rank: one ``allgatherv``, so every
        rank needs memory for the global array. Costly; meant for small results and tests.
        Always a copy: writing to it never changes ``self``."""
        return OPERATORS["to_numpy"](self)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if copy is False:
            raise ValueError("__array__: a distributed array cannot be viewed without a copy")
        warn_gather("__array__", self._layout, self.dtype, self._comm)
        out = self.to_numpy()  # a new array: np.asarray(x, copy=True) is a real copy
        return out if dtype is None else out.astype(dtype, copy=False)

    # -- copies and pickling ----------------------------------------------------------------
    def __copy__(self) -> Array:
        """A collective copy: every rank copies its block; same layout, no message."""
        local = self._backend.xp.asarray(self._local, copy=True)
        return Array._new(local, self._layout, self._comm, self._backend)

    def __deepcopy__(self, memo: dict) -> Array:
        return self.__copy__()

    def __reduce__(self):
        """Pickling is per rank: each rank pickles its own block with the layout, its rank and
        the rank count (a checkpoint of the rank's part, no message). Unpickling needs the same
        rank count and rank in the default communicator, and the same backend; to save or send
        the whole array, pickle ``x.to_numpy()`` (a gather) instead."""
        host = np.array(self._backend.to_host(self._local), copy=True)
        state = (self._backend.name, host, self._layout, self._comm.rank, self._comm.size)
        return (_unpickle_block, state)

    # -- NumPy and Torch calling xdist (xdist/_numpy_interop.py) -------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return OPERATORS["__array_ufunc__"](self, ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return OPERATORS["__array_function__"](self, func, types, args, kwargs)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return OPERATORS["__torch_function__"](func, args, kwargs or {})

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self.split is not None and self._comm.size > 1:
            raise BufferError(
                "__dlpack__: the array is split over several ranks; call xdist.resplit(x, None) "
                "or x.to_numpy() for a full copy on every rank"
            )
        kwargs = {}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        return self._local.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._local.__dlpack_device__()

    def to_device(self, device, /, *, stream=None) -> Array:
        """The array on ``device`` (a Device of this array's backend or its name, such as
        ``"cpu"`` or ``"cuda:1"``): each rank copies its block, no message is sent."""
        from .backends import Device

        if isinstance(device, Device) and device.backend != self._backend.name:
            raise ValueError(
                f"to_device: {device!r} is a device of the {device.backend} backend; this "
                f"array's backend is {self._backend.name}"
            )
        target = self._backend.check_device(device, "to_device")
        if target == self.device:
            return self
        local = self._backend.move_block(self._local, target)
        return Array._new(local, self._layout, self._comm, self._backend)

    # -- Python scalars (collective: every rank gets the owner's value) ---------------------
    def _scalar(self, kind: str) -> Any:
        return _scalar_value(self, kind)

    def __bool__(self) -> bool:
        return bool(self._scalar("__bool__"))

    def __int__(self) -> int:
        return int(self._scalar("__int__"))

    def __float__(self) -> float:
        return float(self._scalar("__float__"))

    def __complex__(self) -> complex:
        return complex(self._scalar("__complex__"))

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(
                f"__index__: only integer arrays can be used as an index, got {self.dtype}"
            )
        return int(self._scalar("__index__"))

    # -- indexing ------------------------------------------------------------------------------
    def __getitem__(self, key) -> Array:
        return OPERATORS["getitem"](self, key)

    def __setitem__(self, key, value) -> None:
        OPERATORS["setitem"](self, key, value)
        if self._writeback is not None:
            self._writeback(self)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    # -- operators: each is the standard's function of the same meaning --------------------
    def _binary(self, other, name: str, reflected: bool = False):
        if not isinstance(other, (Array, bool, int, float, complex)):
            if not isinstance(other, (np.ndarray, np.generic)) and not self._backend.is_block(
                other
            ):
                return NotImplemented
            other = replicated_operand(self, other, f"__{name}__")
        func = OPERATORS[name]
        return func(other, self) if reflected else func(self, other)

    def _inplace(self, other, name: str) -> Array:
        if name in _IN_PLACE and self._writeback is None and self._in_place(other, name):
            return self
        result = self._binary(other, name)
        if result is NotImplemented:
            return NotImplemented
        _assign_inplace(self, result, f"__i{name}__")
        return self

    def _in_place(self, other, name: str) -> bool:
        """``self op= other`` written into the block by the library's own in-place operator
        (no temporary of the array's size, no copy back) where the result is the same as the
        general path's: a floating or complex array and a Python number of its kind, or an
        array of the same dtype, communicator and backend whose shape broadcasts into
        self's. An array laid out otherwise (a row or column of norms, say) is first aligned
        to self's blocks, as the general path aligns it to its result's, so every rank has
        made the same messages; from there, where the library declines its in-place operator
        (autograd, an overlapping operand), the same values are written back locally.
        ``False``, having written and sent nothing, otherwise."""
        kind = self.dtype.kind
        in_place, out_of_place = _IN_PLACE[name]
        if type(other) in (int, float) or (type(other) is complex and kind == "c"):
            return kind in "fc" and self._backend.in_place(in_place, self._local, other)
        if not (
            isinstance(other, Array)
            and other._comm is self._comm
            and other._backend is self._backend
            and kind in "fc"
            and other.dtype == self.dtype
        ):
            return False
        value = other._local
        if other._layout != self._layout:  # (the same layout: the hot path, nothing to do)
            if not _broadcasts_into(other.shape, self.shape):
                return False
            value = align_block(
                value, other._layout, self._layout, self._comm, self._backend, f"__i{name}__"
            )
        if not self._backend.in_place(in_place, self._local, value):
            self._local[...] = out_of_place(self._local, value)
        return True

    def __add__(self, other):
        return self._binary(other, "add")

    def __radd__(self, other):
        return self._binary(other, "add", reflected=True)

    def __iadd__(self, other):
        return self._inplace(other, "add")

    def __sub__(self, other):
        return self._binary(other, "subtract")

    def __rsub__(self, other):
        return self._binary(other, "subtract", reflected=True)

    def __isub__(self, other):
        return self._inplace(other, "subtract")

    def __mul__(self, other):
        return self._binary(other, "multiply")

    def __rmul__(self, other):
        return self._binary(other, "multiply", reflected=True)

    def __imul__(self, other):
        return self._inplace(other, "multiply")

    def __truediv__(self, other):
        return self._binary(other, "divide")

    def __rtruediv__(self, other):
        return self._binary(other, "divide", reflected=True)

    def __itruediv__(self, other):
        return self._inplace(other, "divide")

    def __floordiv__(self, other):
        return self._binary(other, "floor_divide")

    def __rfloordiv__(self, other):
        return self._binary(other, "floor_divide", reflected=True)

    def __ifloordiv__(self, other):
        return self._inplace(other, "floor_divide")

    def __mod__(self, other):
        return self._binary(other, "remainder")

    def __rmod__(self, other):
        return self._binary(other, "remainder", reflected=True)

    def __imod__(self, other):
        return self._inplace(other, "remainder")

    def __pow__(self, other):
        return self._binary(other, "pow")

    def __rpow__(self, other):
        return self._binary(other, "pow", reflected=True)

    def __ipow__(self, other):
        return self._inplace(other, "pow")

    def __and__(self, other):
        return self._binary(other, "bitwise_and")

    def __rand__(self, other):
        return self._binary(other, "bitwise_and", reflected=True)

    def __iand__(self, other):
        return self._inplace(other, "bitwise_and")

    def __or__(self, other):
        return self._binary(other, "bitwise_or")

    def __ror__(self, other):
        return self._binary(other, "bitwise_or", reflected=True)

    def __ior__(self, other):
        return self._inplace(other, "bitwise_or")

    def __xor__(self, other):
        return self._binary(other, "bitwise_xor")

    def __rxor__(self, other):
        return self._binary(other, "bitwise_xor", reflected=True)

    def __ixor__(self, other):
        return self._inplace(other, "bitwise_xor")

    def __lshift__(self, other):
        return self._binary(other, "bitwise_left_shift")

    def __rlshift__(self, other):
        return self._binary(other, "bitwise_left_shift", reflected=True)

    def __ilshift__(self, other):
        return self._inplace(other, "bitwise_left_shift")

    def __rshift__(self, other):
        return self._binary(other, "bitwise_right_shift")

    def __rrshift__(self, other):
        return self._binary(other, "bitwise_right_shift", reflected=True)

    def __irshift__(self, other):
        return self._inplace(other, "bitwise_right_shift")

    def __eq__(self, other):  # type: ignore[override]
        return self._binary(other, "equal")

    def __ne__(self, other):  # type: ignore[override]
        return self._binary(other, "not_equal")

    def __lt__(self, other):  # type: ignore[override]
        return self._binary(other, "less")

    def __le__(self, other):  # type: ignore[override]
        return self._binary(other, "less_equal")

    def __gt__(self, other):  # type: ignore[override]
        return self._binary(other, "greater")

    def __ge__(self, other):  # type: ignore[override]
        return self._binary(other, "greater_equal")

    __hash__ = None  # type: ignore[assignment]

    def __matmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        return OPERATORS["matmul"](self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        return OPERATORS["matmul"](other, self)

    def __imatmul__(self, other):
        result = self.__matmul__(other)
        if result is NotImplemented:
            return NotImplemented
        _assign_inplace(self, result, "__imatmul__")
        return self

    def __abs__(self) -> Array:
        return OPERATORS["abs"](self)

    def round(self, decimals: int = 0) -> Array:
        """NumPy's ``ndarray.round`` (beyond the standard): ``xdist.around(self, decimals)``,
        elementwise (xarray's ``DataArray.round(decimals)`` calls it)."""
        return OPERATORS["around"](self, decimals)

    def __neg__(self) -> Array:
        return OPERATORS["negative"](self)

    def __pos__(self) -> Array:
        return OPERATORS["positive"](self)

    def __invert__(self) -> Array:
        return OPERATORS["bitwise_invert"](self)


def wrap_block(local: Any, layout: Layout, like: Array) -> Array:
    """A library's result block as an array of ``layout`` in ``like``'s communicator and
    backend (0-d results of some libraries are scalars: made blocks first)."""
    backend = like._backend
    if not backend.is_block(local):
        local = backend.asarray(local)
    return Array._new(local, layout, like._comm, backend)


def _scalar_value(x: Array, func: str) -> Any:
    """The one element of ``x`` as a Python scalar, the same on every rank (collective)."""
    layout = x._layout
    if math.prod(layout.shape) != 1:
        raise TypeError(
            f"{func}: only arrays of one element convert to Python scalars, got shape {x.shape}"
        )
    if layout.split is None or x._comm.size == 1:  # the element is here: no message
        return x._backend.item(x._local)
    owner = layout.owner(0)
    host = x._backend.to_host(x._local).reshape(-1)
    buf = host.copy() if x._comm.rank == owner else np.empty(1, dtype=host.dtype)
    return bcast_host(buf, owner, x._comm)[0].item()


def _assign_inplace(x: Array, result: Array, func: str) -> None:
    """Write ``result`` into ``x`` (an in-place operator): the shape and dtype of ``x`` stay."""
    if result.shape != x.shape:
        raise ValueError(
            f"{func}: the result shape {result.shape} differs from the array's {x.shape}"
        )
    if result.dtype != x.dtype and not np.can_cast(result.dtype, x.dtype, "same_kind"):
        raise TypeError(f"{func}: cannot store a {result.dtype} result in an array of {x.dtype}")
    block = redistribute_block(result._local, result._layout, x._layout, x._comm, x._backend)
    x._local[...] = block
    if x._writeback is not None:
        x._writeback(x)


def _unpickle_block(backend_name: str, host: np.ndarray, layout: Layout, rank: int, size: int):
    """The array of a pickled rank's block (see ``Array.__reduce__``), on the default
    communicator."""
    comm = default_comm()
    if (comm.rank, comm.size) != (rank, size):
        raise ValueError(
            f"unpickling an xdist.Array: it was pickled by rank {rank} of {size} and is loaded "
            f"by rank {comm.rank} of {comm.size}; a pickled Array holds one rank's block, so "
            "load it at the same rank count (pickle x.to_numpy() to move a whole array)"
        )
    backend = get_backend(backend_name)
    local = backend.from_host(host, backend.default_device())
    return Array._new(local, layout, comm, backend)


def replicated_operand(like: Array, value: Any, func: str) -> Array:
    """A NumPy array or scalar, or a block of ``like``'s library, as a replicated array in
    ``like``'s communicator, backend and device. An array operand must be the same on every
    rank: with the ``check_replicated`` setting (on by default) the ranks compare its
    ``fingerprint`` (about 1024 of its elements; one allgather of one int) and raise the same
    error everywhere when it differs. A NumPy scalar is taken as a Python scalar is: not
    compared, no message."""
    backend = like._backend
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype not in ALL_DTYPES:
        block = None
    else:
        block = backend.asarray(value, device=like.device)
    if block is None or backend.dtype_of(block) not in ALL_DTYPES:
        raise TypeError(
            f"{func}: an operand of dtype {getattr(value, 'dtype', type(value).__name__)} has "
            "no standard dtype; convert it first (e.g. .astype(np.float64))"
        )
    mode = get_config().check_replicated
    if mode and like._comm.size > 1 and not isinstance(value, np.generic):
        sums = checksums(block, like._comm, backend, full=mode == "full")
        if len(set(sums)) > 1:
            raise ValueError(
                f"{func}: an operand that is not an xdist array differs between ranks: "
                f"{differing_ranks(sums)}. It must be the same on every rank: seed every "
                "rank's random generator alike, or make per-rank data an xdist array with "
                "xdist.from_local(block, split=0). (The check_replicated setting, "
                "XDIST_CHECK_REPLICATED=0, turns this comparison off.)"
            )
    return Array._new(block, Layout.replicated(tuple(block.shape)), like._comm, backend)


def _local_summary(x: Array) -> tuple[np.ndarray, bool]:
    """The host copy of the elements of this rank's block that NumPy would print, and whether
    they are a summary (no message: only these elements leave the device)."""
    block, xp = x._local, x._backend.xp
    picked = summary_indices(tuple(block.shape))
    if picked is not None:
        device = x._backend.device_of(block)
        for axis, idx in enumerate(picked):
            if len(idx) < block.shape[axis]:
                block = xp.take(block, x._backend.from_host(idx, device), axis=axis)
    return np.asarray(x._backend.to_host(block)), picked is not None


def writes_back(view: Array, base: Array, write: Any) -> Array:
    """Mark ``view``, a result of indexing or reshaping ``base`` that is a copy at this rank
    count (NumPy would give a view), so that every write into it (``view[k] = v``, ``view
    += v``) is followed by ``write(base, view)``: the write is seen in the base at every rank
    count, as NumPy shows it, instead of being lost where the result had to move. Returns
    ``view``. (Writes into ``view.local`` directly are the caller's own: not written back.)"""
    view._writeback = lambda v: write(base, v)
    return view
