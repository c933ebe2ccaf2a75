"""Large blocks that xdist allocates, kept for reuse when the arrays that hold them are gone.

A new block of many megabytes costs its page faults: the kernel maps and zeroes each page on
the first write. With transparent huge pages (NumPy asks for them, and xdist's Torch backend
turns them on for Torch) 800 MB still cost 80 ms (10000 x 20000 float32, one rank's block of
a 20000-sample distance matrix), as much as the GEMM that fills them; with 4 KiB pages, 300
ms. On the virtual machine the benchmarks ran on, a first write to memory the process had not
used before cost 1.4-1.7 s for the same block, so that the same call took 0.38 s or 1.2 s (a
"slow mode"). A block this pool lends has been written before, and costs none of that.

What it lends: the result blocks of fused chains (``_fusion``), of the elementwise functions
that run at once but take ``out=`` (``_fusion._pooled``: a function of a user's block, which
a chain could not read later), of the products that start no chain where the backend's BLAS
call writes them itself (``_fusion.pooled_product``: NumPy's, and the Torch backend's float
CPU tensors), of the NumPy backend's casts (``astype``) and of local concatenations of host
blocks (``concat``); the rows a selection by integer indices gathers along one axis of a
host block, sends and puts in order (``gather_scatter.gather_local``, ``fetch_spread``:
``train_test_split``'s, a shuffled fold's), and the receive buffers of the MPI transport's
collectives: NumPy arrays and Torch CPU tensors of at least ``MIN_BYTES``, rounded up to
``_GRAIN``. Into memory written before, NumPy's ``a + b`` of 1,000,000 x 16 float64 takes 13
ms where into a new array it takes 22 ms, ``a[idx]`` of 750000 shuffled rows 23 ms against
32 ms, and ``train_test_split``'s two selections of ``a`` at 2 ranks 51-57 ms against 68-80
ms. Each block is a view of a raw NumPy buffer through a ``_Lease``, the block's base: when
the block and every view of it (a Torch tensor made from it, a DLPack capsule, a NumPy view
a user keeps) are gone, the lease returns the buffer. The buffer is lent again only for a
block of its size class; the pool holds at most ``block_pool_bytes`` of buffers that nothing
uses (the setting: by default an eighth of the node's memory divided by the ranks on it),
dropping the oldest returned first. So a process holds at most ``block_pool_bytes`` more
than without the pool. ``set_config(block_pool_bytes=0)`` turns it off;
``xdist.empty_cache()`` drops what it holds.

A lent buffer is not zeroed: a block is written whole before it is read, as ``np.empty``'s.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Any

import numpy as np

from ._config import get_config
from .backends.threads import local_ranks

__all__ = ["MIN_BYTES", "empty", "empty_cache", "held_bytes", "library_empty"]

MIN_BYTES = 4 << 20  # smaller blocks come from the C library's heap, which reuses them
_GRAIN = 2 << 20  # size classes: multiples of a huge page

# buffers nothing uses, oldest returned first (at most ``bound() / MIN_BYTES`` of them)
_FREE: list[np.ndarray] = []
_LOCK = threading.Lock()
_RETURNED: list[np.ndarray] = []  # buffers returned while the lock was held elsewhere
_AUTO: list[int] = []  # the default bound, once per process

_TORCH_DTYPES = (
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
)


class _Lease:
    """A pooled buffer lent to one block: the block's base, which returns the buffer to the
    pool when the block and every view of it are gone."""

    __slots__ = ("__array_interface__", "buffer")

    def __init__(self, buffer: np.ndarray, shape: tuple[int, ...], dtype: np.dtype) -> None:
        self.buffer = buffer
        self.__array_interface__ = {
            "shape": shape,
            "typestr": dtype.str,
            "data": (buffer.ctypes.data, False),
            "version": 3,
        }

    def __del__(self) -> None:
        try:
            _RETURNED.append(self.buffer)  # (atomic: never waits, whatever runs the finalizer)
            if _LOCK.acquire(blocking=False):
                try:
                    _take_returned()
                finally:
                    _LOCK.release()
        except (AttributeError, TypeError):  # the interpreter's exit cleared the module
            pass


def bound() -> int:
    """The most bytes the pool holds unused: the setting, else an eighth of the node's memory
    divided by the ranks on it."""
    setting = get_config().block_pool_bytes
    if setting is not None:
        return setting
    if not _AUTO:
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            memory = 8 << 30
        _AUTO.append(memory // 8 // local_ranks())
    return _AUTO[0]


def _take_returned() -> None:
    """Move the returned buffers into the pool (the lock held), then trim it to the bound."""
    limit = bound()
    while _RETURNED:
        buffer = _RETURNED.pop()
        if buffer.nbytes <= limit:
            _FREE.append(buffer)
    _trim(limit)


def _trim(limit: int) -> None:
    """Drop the oldest unused buffers until the pool holds at most ``limit`` bytes."""
    held = _held()
    while held > limit:
        held -= _FREE.pop(0).nbytes


def _held() -> int:
    """The bytes of the unused buffers (the lock held)."""
    return sum(buffer.nbytes for buffer in _FREE)


def _buffer(nbytes: int) -> np.ndarray:
    """An unused buffer of ``nbytes`` (a multiple of ``_GRAIN``): the most recently returned
    one of that size, else a new one."""
    with _LOCK:
        _take_returned()
        for i in range(len(_FREE) - 1, -1, -1):
            if _FREE[i].nbytes == nbytes:
                return _FREE.pop(i)
    return np.empty(nbytes, np.uint8)


def empty(like: Any, shape: tuple[int, ...]) -> Any:
    """A new block of ``shape`` of the library, dtype and device of ``like`` (a NumPy array or
    a Torch tensor), lent by the pool where it is a large NumPy array or Torch CPU tensor of a
    NumPy dtype, else the library's own."""
    torch_like = not isinstance(like, np.ndarray)
    dtype = like.dtype if not torch_like else _numpy_dtype(like)
    nbytes = math.prod(shape) * (dtype.itemsize if dtype is not None else 0)
    if dtype is None or dtype.names is not None or nbytes < MIN_BYTES or bound() < nbytes:
        return library_empty(like, shape)  # (records: a lease's ``typestr`` has no fields)
    buffer = _buffer(-(-nbytes // _GRAIN) * _GRAIN)
    block = np.asarray(_Lease(buffer, tuple(shape), dtype))
    if torch_like:
        import torch

        return torch.from_numpy(block)  # (holds ``block``, so the lease)
    return block


def library_empty(like: Any, shape: tuple[int, ...]) -> Any:
    """A new block of ``shape`` of the library, dtype and device of ``like`` (a NumPy array or
    a Torch tensor), from the library itself; a Torch CPU tensor of a NumPy dtype from NumPy's
    allocator, which reuses the C library's heap. Torch's own, with the huge pages that xdist
    asks of it for large tensors (``THP_MEM_ALLOC_ENABLE``, ``backends/__init__.py``), maps
    every tensor of 2 MiB or more anew and the kernel zeroes its pages at the first write: a
    (100000, 8) float32 block written whole took 495 us against NumPy's 59 us, each time."""
    if isinstance(like, np.ndarray):
        return np.empty(shape, like.dtype)
    dtype = _numpy_dtype(like)
    if dtype is None:
        return like.new_empty(shape)
    import torch

    return torch.from_numpy(np.empty(shape, dtype))


def _numpy_dtype(tensor: Any) -> np.dtype | None:
    """The NumPy dtype of a Torch CPU tensor's, or ``None`` (another device, or a dtype NumPy
    lacks: bfloat16)."""
    if tensor.device.type != "cpu":
        return None
    if tensor.dtype not in _NUMPY_DTYPES:
        name = str(tensor.dtype).removeprefix("torch.")
        _NUMPY_DTYPES[tensor.dtype] = np.dtype(name) if name in _TORCH_DTYPES else None
    return _NUMPY_DTYPES[tensor.dtype]


_NUMPY_DTYPES: dict[Any, np.dtype | None] = {}  # Torch's dtype -> NumPy's, read once (1 us)


def held_bytes() -> int:
    """The bytes of unused buffers the pool holds."""
    with _LOCK:
        _take_returned()
        return _held()


def empty_cache() -> None:
    """Drop every unused buffer the pool holds, on this rank (blocks in use return theirs
    when they are gone, as ever)."""
    with _LOCK:
        _take_returned()
        _trim(0)
