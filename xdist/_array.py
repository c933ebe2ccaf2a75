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

from ._dtypes import ALL_DTYPES
from ._formatting import format_values, summary_indices
from ._layout import Layout
from ._movement.agreement import differing_copies
from ._movement.broadcast import align_block
from ._movement.collectives import bcast_host
from ._movement.gathers import warn_gather
from ._movement.redistribute import redistribute_block
from ._pending import hand_out, settle
from ._runtime import default_comm
from ._transport.comm import Communicator
from .backends import get_backend
from .backends.base import Backend

__all__ = ["Array", "OPERATORS", "WriteBack", "wrap_block"]

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


class WriteBack:
    """What a view writes to: held by the view (``Array._writeback``) where a write into it
    must be carried to the array it views, ``base``, because NumPy would show the write there
    and the view does not share ``base``'s memory at this rank count (its data moved between
    ranks, or the library copied it), or views an array that does not.

    Each subclass is one way a view maps onto ``base`` and says how a write goes back
    (``_indexing.basic.Selection``: a basic key; ``_manipulation_functions.shapes.Reshape``
    and ``Permutation``); the view's maker creates it, and each write into the view calls
    ``written``. An array that views nothing, or shares the memory of an array that writes
    nothing back, holds ``None`` and pays nothing. Writes into a view's ``local`` block are
    the caller's own: nothing carries them.
    """

    __slots__ = ("base",)

    def __init__(self, base: Array) -> None:
        self.base = base

    def written(self, view: Array, parts: list | None) -> None:
        """Carry into ``base`` the write just made into ``view``: the parts of ``view`` a
        basic key selected (normalized, none empty), or ``None`` for all of it."""
        raise NotImplementedError

    def pass_on(self, parts: list | None) -> None:
        """Hand a write that is in ``base``'s blocks already (the view shares their memory) to
        ``base``'s own write-back: ``parts`` of ``base``, or ``None`` for all of it."""
        back = self.base._writeback
        if back is not None:
            back.written(self.base, parts)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}(base shape {self.base.shape}, {fields})"


class Array:
    """A distributed array. Create it with xdist's functions, not with ``Array(...)``."""

    __slots__ = ("_local", "_layout", "_comm", "_backend", "_writeback", "_strides", "__weakref__")

    _local: Any
    _layout: Layout
    _comm: Communicator
    _backend: Backend
    _writeback: WriteBack | None
    _strides: tuple[int, ...] | None

    def __new__(cls, *args, **kwargs):
        raise TypeError("xdist.Array cannot be created directly; use xdist.asarray or from_local")

    @classmethod
    def _new(cls, local: Any, layout: Layout, comm: Communicator, backend: Backend) -> Array:
        self = object.__new__(cls)
        self._local = local
        self._layout = layout
        self._comm = comm
        self._backend = backend
        # What a view writes to, where a write into it must be carried there (``WriteBack``).
        self._writeback = None
        # The strides, in elements, NumPy would give this array where they differ from what
        # xdist's default says (``_indexing.strides.note_strides``); ``None``: the default.
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
        return hand_out(self._local)

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

    def __format__(self, spec: str) -> str:
        """``format(x, spec)``: a 0-d array formats its value (``f"{loss:.3g}"``), as NumPy's
        and Torch's do; an empty ``spec`` is ``str(x)``; another array takes no ``spec``."""
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(
                f"__format__: only a 0-d array takes a format spec ({spec!r}), got shape "
                f"{self.shape}"
            )
        return format(self._scalar("__format__"), spec)

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
        return hand_out(self._local).__dlpack__(stream=stream, **kwargs)

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
        settle(self._written())
        OPERATORS["setitem"](self, key, value)

    def _written(self) -> Any:
        """The block a write into this array changes (``None``: not this block alone, as
        for a view whose writes go back to the array it views)."""
        return self._local if self._writeback is None else None

    def __iter__(self):
        """The subarrays along the first axis. A 0-d array raises at ``iter(x)`` already, not
        at the first ``next``, as NumPy's does: ``np.iterable(x)`` is then False (SciPy wraps
        a 0-d ``args`` into a tuple by that test)."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

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
        settle(self._written())
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

    def __neg__(self) -> Array:
        return OPERATORS["negative"](self)

    def __pos__(self) -> Array:
        return OPERATORS["positive"](self)

    def __invert__(self) -> Array:
        return OPERATORS["bitwise_invert"](self)

    # -- NumPy's methods (beyond the standard) -----------------------------------------------
    # ``x.sum(...)`` is ``np.sum(x, ...)``, as NumPy defines its methods: each is NumPy's
    # function of the same name, dispatched as NumPy dispatches it (``__array_function__``,
    # xdist/_numpy_interop.py) to the namespace's function, so code written for NumPy arrays
    # or Torch tensors (scikit-learn's ``_logsumexp`` calls ``.astype`` on the result of a NumPy
    # function) runs on xdist arrays. ``out=`` and the other arguments xdist does not take
    # raise a TypeError naming them, before any message.
    def _numpy(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        return OPERATORS["__array_function__"](self, func, (Array,), (self, *args), kwargs)

    def astype(
        self,
        dtype: Any,
        order: str = "K",
        casting: str = "unsafe",
        subok: bool = True,
        copy: bool = True,
    ) -> Array:
        """NumPy's ``ndarray.astype``: the standard's ``astype`` with the dtype in any of
        NumPy's spellings (``np.float32``, ``"float32"``, ``float``: float64, as in NumPy).
        Communication: none (each rank converts its block)."""
        _refuse_args(
            "astype",
            order=None if order == "K" else order,
            casting=None if casting == "unsafe" else casting,
            subok=None if subok is True else subok,
        )
        try:
            target = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"Array.astype: dtype={dtype!r} is not a dtype") from None
        if target not in ALL_DTYPES:
            raise TypeError(f"Array.astype: dtype={dtype!r} ({target}) is not a standard dtype")
        return self.__array_namespace__().astype(self, target, copy=bool(copy))

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """``np.sum(self, ...)``: one allreduce over the split axis, none otherwise."""
        _refuse_args("sum", out=out, initial=initial, where=None if where is True else where)
        return self._numpy(np.sum, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """``np.prod(self, ...)``: one allreduce over the split axis, none otherwise."""
        _refuse_args("prod", out=out, initial=initial, where=None if where is True else where)
        return self._numpy(np.prod, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
        """``np.mean(self, ...)`` (booleans and integers in the default real floating dtype,
        as NumPy gives float64): one allreduce over the split axis, none otherwise."""
        _refuse_args("mean", out=out, where=None if where is True else where)
        return self._numpy(np.mean, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False, initial=None, where=True):
        """``np.max(self, ...)``: one allreduce over the split axis, none otherwise."""
        _refuse_args("max", out=out, initial=initial, where=None if where is True else where)
        return self._numpy(np.max, axis=axis, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False, initial=None, where=True):
        """``np.min(self, ...)``: one allreduce over the split axis, none otherwise."""
        _refuse_args("min", out=out, initial=initial, where=None if where is True else where)
        return self._numpy(np.min, axis=axis, keepdims=keepdims)

    def std(
        self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None
    ):
        """``np.std(self, ...)`` with NumPy's ``ddof``: one allreduce of the blocks' moments
        over the split axis, none otherwise."""
        _refuse_args("std", out=out, where=None if where is True else where, mean=mean)
        return self._numpy(np.std, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def var(
        self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None
    ):
        """``np.var(self, ...)`` with NumPy's ``ddof``: one allreduce of the blocks' moments
        over the split axis, none otherwise."""
        _refuse_args("var", out=out, where=None if where is True else where, mean=mean)
        return self._numpy(np.var, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False, *, where=True):
        """``np.any(self, ...)``: one allreduce over the split axis, none otherwise."""
        _refuse_args("any", out=out, where=None if where is True else where)
        return self._numpy(np.any, axis=axis, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False, *, where=True):
        """``np.all(self, ...)``: one allreduce over the split axis, none otherwise."""
        _refuse_args("all", out=out, where=None if where is True else where)
        return self._numpy(np.all, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        """``np.argmax(self, ...)`` (``axis=None``: the index into the flattened array): one
        allreduce of (value, index) pairs over the split axis, none otherwise."""
        _refuse_args("argmax", out=out)
        return self._numpy(np.argmax, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """``np.argmin(self, ...)`` (``axis=None``: the index into the flattened array): one
        allreduce of (value, index) pairs over the split axis, none otherwise."""
        _refuse_args("argmin", out=out)
        return self._numpy(np.argmin, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        """``np.cumsum(self, ...)`` (``axis=None``: of the flattened array): one exscan of the
        blocks' totals along the split axis, none along another."""
        _refuse_args("cumsum", out=out)
        return self._numpy(np.cumsum, axis=axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None, out=None):
        """``np.cumprod(self, ...)`` (``axis=None``: of the flattened array): one exscan of the
        blocks' products along the split axis, none along another."""
        _refuse_args("cumprod", out=out)
        return self._numpy(np.cumprod, axis=axis, dtype=dtype)

    def sort(self, axis: int = -1, kind=None, order=None) -> None:
        """NumPy's ``ndarray.sort``: sorts in place (``xdist.sort``, stable, then written
        into ``self``, through a view as NumPy writes). Communication: ``xdist.sort``'s
        along the split axis, none along another."""
        _refuse_args("sort", order=order)
        self[...] = self.__array_namespace__().sort(self, axis=axis)

    def argsort(self, axis: int | None = -1, kind=None, order=None) -> Array:
        """NumPy's ``ndarray.argsort`` by ``xdist.argsort`` (always stable: NumPy's default
        sort gives ties in any order, its ``kind="stable"`` this order); ``axis=None``: the
        positions in the flattened array."""
        return self._numpy(np.argsort, axis=axis, kind=kind, order=order)

    def searchsorted(self, v: Any, side: str = "left", sorter: Any = None) -> Array:
        """NumPy's ``ndarray.searchsorted``: ``xdist.searchsorted(self, v, ...)``; ``v`` may
        be a list or NumPy array, the same on every rank."""
        xp = self.__array_namespace__()
        if isinstance(v, (list, tuple, np.ndarray)):
            v = xp.asarray(np.asarray(v))
        return xp.searchsorted(self, v, side=side, sorter=sorter)

    def take(self, indices: Any, axis: int | None = None, out=None, mode: str = "raise"):
        """NumPy's ``ndarray.take``: ``xdist.take`` (``axis=None``: of the flattened array);
        the indices may be a list or NumPy array, the same on every rank."""
        _refuse_args("take", out=out, mode=None if mode == "raise" else mode)
        xp = self.__array_namespace__()
        source = xp.reshape(self, (-1,)) if axis is None else self
        idx = indices if isinstance(indices, Array) else np.asarray(indices)
        if not isinstance(idx, Array) and idx.ndim == 0:
            return source[(slice(None),) * (0 if axis is None else axis % self.ndim) + (int(idx),)]
        return xp.take(source, xp.asarray(idx), axis=0 if axis is None else axis)

    def repeat(self, repeats: Any, axis: int | None = None) -> Array:
        """NumPy's ``ndarray.repeat``: ``xdist.repeat`` (``axis=None``: of the flattened
        array)."""
        if not isinstance(repeats, (int, np.integer, Array)):
            repeats = self.__array_namespace__().asarray(np.asarray(repeats))
        return self.__array_namespace__().repeat(self, repeats, axis=axis)

    def swapaxes(self, axis1: int, axis2: int) -> Array:
        """NumPy's ``ndarray.swapaxes``: ``permute_dims`` with the two axes exchanged (no
        message: the split axis moves with its data)."""
        order = list(range(self.ndim))
        order[axis1], order[axis2] = order[axis2], order[axis1]
        return self.__array_namespace__().permute_dims(self, tuple(order))

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
        """NumPy's ``ndarray.diagonal``: the diagonal of ``axis1`` and ``axis2`` as the last
        axis (``xdist.linalg.diagonal`` after moving them last)."""
        xp = self.__array_namespace__()
        a1, a2 = axis1 % self.ndim, axis2 % self.ndim
        if a1 == a2:
            raise ValueError(f"Array.diagonal: axis1 and axis2 must differ, got {axis1}, {axis2}")
        rest = [i for i in range(self.ndim) if i not in (a1, a2)]
        moved = xp.permute_dims(self, (*rest, a1, a2))
        return xp.linalg.diagonal(moved, offset=offset)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
        """NumPy's ``ndarray.trace``: ``xdist.trace`` (the sum of ``diagonal``)."""
        return self.__array_namespace__().trace(self, offset, axis1, axis2, dtype, out)

    def conj(self) -> Array:
        """NumPy's ``ndarray.conj``: ``xdist.conj``, elementwise."""
        return self.__array_namespace__().conj(self)

    conjugate = conj

    @property
    def real(self) -> Array:
        """NumPy's ``ndarray.real``: ``xdist.real``, elementwise (a new array, not a view)."""
        return self.__array_namespace__().real(self)

    @property
    def imag(self) -> Array:
        """NumPy's ``ndarray.imag``: ``xdist.imag``, elementwise (a new array, not a view)."""
        return self.__array_namespace__().imag(self)

    @property
    def itemsize(self) -> int:
        """Bytes per element (NumPy's ``ndarray.itemsize``)."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the whole global array, all ranks together (NumPy's ``ndarray.nbytes``;
        ``x.local.nbytes`` is this rank's block)."""
        return self.size * self.dtype.itemsize

    def reshape(self, *shape: Any, order: str = "C", copy: bool | None = None) -> Array:
        """``np.reshape(self, shape)``, the shape given as a tuple or as integers
        (``x.reshape(3, -1)``), a view where NumPy gives one (``xdist.reshape``)."""
        if not shape:
            raise TypeError("Array.reshape: takes the new shape, got no arguments")
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        _refuse_args("reshape", order=None if order == "C" else order)
        return self._numpy(np.reshape, tuple(shape), copy=copy)

    def view(self, dtype: Any = None, type: Any = None) -> Array:
        """NumPy's ``ndarray.view`` where the elements keep their dtype: no ``dtype``, or the
        array's own (``x.view(float)`` of float64 data, as SciPy's ``RBFInterpolator`` does), is
        a view of the same elements (``self[...]``: writes through either reach both). Reading
        the bytes as another dtype is refused (a TypeError): xdist's blocks are the backend's
        arrays, whose byte layout xdist does not promise."""
        _refuse_args("view", type=type)
        if dtype is not None:
            wanted = np.dtype(dtype)
            if wanted != self.dtype:
                raise TypeError(
                    f"Array.view: reading {self.dtype} elements as {wanted} is not supported; "
                    f"convert the values with astype(x, {wanted})"
                )
        return self[...]

    def ravel(self, order: str = "C") -> Array:
        """``np.ravel(self)``: the 1-D array, a view where NumPy gives one."""
        _refuse_args("ravel", order=None if order == "C" else order)
        return self._numpy(np.ravel)

    def flatten(self, order: str = "C") -> Array:
        """NumPy's ``ndarray.flatten``: a 1-D copy (``xdist.reshape(self, (-1,), copy=True)``)."""
        _refuse_args("flatten", order=None if order == "C" else order)
        return self.__array_namespace__().reshape(self, (-1,), copy=True)

    def copy(self, order: str = "C") -> Array:
        """NumPy's ``ndarray.copy``: a copy of every block, the same layout; no message."""
        _refuse_args("copy", order=None if order in ("C", "K", "A") else order)
        return self.__copy__()

    def transpose(self, *axes: Any) -> Array:
        """NumPy's ``ndarray.transpose``: the axes reversed (no argument, or ``None``), or in
        the order given as a tuple or as integers. No message: the split axis moves with its
        data."""
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
            axes = axes[0]
        return self._numpy(np.transpose, None if axes in (None, ()) else tuple(axes))

    def squeeze(self, axis=None) -> Array:
        """``np.squeeze(self, axis)``: every axis of length one when ``axis`` is None."""
        return self._numpy(np.squeeze, axis=axis)

    def clip(self, min=None, max=None, out=None) -> Array:
        """``np.clip(self, min, max)``: elementwise, no message."""
        _refuse_args("clip", out=out)
        return self._numpy(np.clip, min, max)

    def round(self, decimals: int = 0, out=None) -> Array:
        """NumPy's ``ndarray.round``: ``xdist.around(self, decimals)``, elementwise (xarray's
        ``DataArray.round(decimals)`` calls it)."""
        _refuse_args("round", out=out)
        return OPERATORS["around"](self, decimals)

    def dot(self, b: Any, out=None) -> Array:
        """``np.dot(self, b)``: ``matmul`` of 1-D and 2-D arrays, a product with a scalar,
        the sum over the last axis of ``self`` and the second-to-last of ``b`` otherwise."""
        _refuse_args("dot", out=out)
        return self._numpy(np.dot, b)

    def nonzero(self) -> tuple[Array, ...]:
        """``xdist.nonzero(self)``: a tuple of index arrays, split as the nonzero elements
        fall (one small allgather of counts)."""
        return self._numpy(np.nonzero)

    def item(self, *args: Any) -> Any:
        """NumPy's ``ndarray.item``: one element as a Python scalar, the same on every rank
        (collective: one bcast from the rank that holds it, none when every rank does).
        No argument: the array must have one element; one int: an index into the flattened
        array; one int per axis (or their tuple): that element."""
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        if not args:
            if self.size != 1:
                raise ValueError(
                    "Array.item: can only convert an array of size 1 to a Python scalar, got "
                    f"shape {self.shape}"
                )
            return _scalar_value(self, "Array.item")
        for i in args:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"Array.item: the indices must be integers, got {args!r}")
        if len(args) == 1 and self.ndim != 1:
            (flat,) = args
            if not -self.size <= flat < self.size:
                raise IndexError(f"Array.item: index {flat} is out of bounds for size {self.size}")
            args = tuple(int(i) for i in np.unravel_index(flat % self.size, self.shape))
        elif len(args) != self.ndim:
            raise ValueError(
                f"Array.item: incorrect number of indices for an array of {self.ndim} "
                f"dimensions, got {args!r}"
            )
        return _scalar_value(self[tuple(int(i) for i in args)], "Array.item")

    def tolist(self) -> Any:
        """NumPy's ``ndarray.tolist``: the whole array as nested Python lists (a Python scalar
        for a 0-d array), the same on every rank. Collective, and a gather: one allgatherv
        brings the whole array to every rank, then Python objects of every element (several
        times the array's memory on every rank); meant for small arrays."""
        return self.to_numpy().tolist()

    def fill(self, value: Any) -> None:
        """NumPy's ``ndarray.fill``: every element set to the scalar ``value``, converted to
        the array's dtype as NumPy converts it. Each rank writes its own block (no message);
        the value must be the same on every rank."""
        scalar = value.item() if isinstance(value, Array) and value.size == 1 else value
        if isinstance(scalar, Array) or np.ndim(scalar) != 0:
            raise ValueError(
                f"Array.fill: value must be a scalar, got shape {np.shape(scalar)}"
                if not isinstance(scalar, Array)
                else f"Array.fill: value must be a scalar, got an array of shape {scalar.shape}"
            )
        try:
            converted = np.asarray(scalar).astype(self.dtype)
        except (TypeError, ValueError) as err:
            raise type(err)(
                f"Array.fill: value {value!r} cannot be a {self.dtype}: {err}"
            ) from None
        self[...] = converted.item()  # a Python scalar of the array's kind


def _refuse_args(method: str, **given: Any) -> None:
    """A TypeError naming the arguments of NumPy's ``ndarray.method`` that xdist does not
    take (each given as its value, or None when left at NumPy's default)."""
    used = [
        f"{k}={type(v).__name__ if hasattr(v, 'shape') else repr(v)}"
        for k, v in given.items()
        if v is not None
    ]
    if used:
        hint = (
            " (xdist returns new arrays: assign the result, or write it in with x[...] = r)"
            if given.get("out") is not None
            else ""
        )
        raise TypeError(f"Array.{method}: {', '.join(used)} not supported on xdist arrays{hint}")


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
        x._writeback.written(x, None)


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
    differ = None if isinstance(value, np.generic) else differing_copies(block, like._comm, backend)
    if differ is not None:
        raise ValueError(
            f"{func}: an operand that is not an xdist array differs between ranks: "
            f"{differ}. It must be the same on every rank: seed every "
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
