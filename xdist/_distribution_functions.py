"""xdist's own distribution functions: building arrays from blocks, moving them between
layouts, a whole NumPy copy, and the whole array printed once."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _array
from ._config import get_config
from ._dtypes import ALL_DTYPES
from ._formatting import format_values, summary_indices
from ._indexing_functions import take
from ._layout import Layout
from ._movement.collectives import (
    allgather_ints,
    counts_from_local,
    differing_ranks,
    fingerprint,
    fingerprint_halves,
    same_on_every_rank,
)
from ._movement.redistribute import gather_block, redistribute_block
from ._runtime import default_backend, default_comm
from ._transport.comm import Communicator
from ._validation import check_array, normalize_axis

__all__ = ["from_local", "resplit", "balance", "to_numpy", "show"]


# What a rank finds wrong with its own arguments travels with the metadata, so that every
# rank raises the same error (a rank raising alone would leave the others waiting).
_NOT_AN_ARRAY, _BAD_DTYPE, _BAD_SPLIT, _ZERO_D, _TOO_MANY_DIMS = 1, 2, 3, 4, 5
_MAX_DIMS = 32
_WHY = {
    _NOT_AN_ARRAY: "is not an array of the {backend} backend",
    _BAD_DTYPE: "has a dtype that is not one of the standard's",
    _BAD_SPLIT: "has {ndim} dimensions: split={split!r} is not one of its axes",
    _ZERO_D: "is 0-d: a 0-d block cannot be split",
    _TOO_MANY_DIMS: f"has more than {_MAX_DIMS} dimensions",
}


def _describe(block: Any, split: Any, backend: Any) -> list[int]:
    """``[problem, split, ndim, dtype, *shape]`` of this rank's arguments (split -1: None)."""
    if block is None:
        return [_NOT_AN_ARRAY]
    if block.ndim > _MAX_DIMS:
        return [_TOO_MANY_DIMS]
    dtype = backend.dtype_of(block)
    if dtype not in ALL_DTYPES:
        return [_BAD_DTYPE]
    info = [0, -1, block.ndim, ALL_DTYPES.index(dtype), *block.shape]
    if split is not None:
        if isinstance(split, bool) or not isinstance(split, int):
            info[0] = _BAD_SPLIT
        elif block.ndim == 0:
            info[0] = _ZERO_D
        elif not -block.ndim <= split < block.ndim:
            info[0] = _BAD_SPLIT
        else:
            info[1] = split % block.ndim
    return info


def _agreed_metadata(block: Any, split: Any, comm: Communicator, backend: Any) -> tuple:
    """The counts along the split axis (``()`` for ``split=None``) once the ranks agree on the
    blocks' metadata; the same error on every rank where a rank's arguments are bad or the
    ranks disagree on the split, the number of dimensions, the dtype, the other lengths, the
    device kind or, for ``split=None`` with the ``check_replicated`` setting (on by default),
    a fingerprint of the values (``fingerprint``: about 1024 elements spread over the block,
    all of a smaller one, every one with ``"full"``).

    Agreement is one allreduce of a fixed-size row (``same_on_every_rank``: 39 ints whatever
    the rank count, twice: maxima and negated minima), then one allgather of one int, the
    block's length along the split axis (none for ``split=None``); only a disagreement
    gathers every rank's row, to say in the error which rank differs."""
    mine = _describe(block, split, backend)
    row = mine + [0] * (4 + _MAX_DIMS - len(mine))
    mode = get_config().check_replicated
    fp = 0
    if row[0] == 0 and split is None and mode and comm.size > 1:
        fp = fingerprint(block, backend, full=mode == "full")
    kind = backend.device_of(block).kind if row[0] == 0 else "cpu"
    row += [*fingerprint_halves(fp), _KINDS.index(kind) if kind in _KINDS else len(_KINDS)]
    key = list(row)
    if row[0] == 0 and row[1] >= 0:
        key[4 + row[1]] = 0  # the length along the split axis may differ between ranks
    if not same_on_every_rank(key, comm) or row[0]:
        _disagreement(allgather_ints(row, comm), split, backend)
    if split is None:
        return ()
    return counts_from_local(row[4 + row[1]], comm)


_KINDS = ("cpu", "cuda", "rocm", "mps", "xpu")


def _disagreement(info: np.ndarray, split: Any, backend: Any) -> None:
    """Raise the error that every rank's ``_describe`` row (``info``) shows."""
    bad = [r for r in range(info.shape[0]) if info[r, 0]]
    if bad:
        r = bad[0]
        why = _WHY[int(info[r, 0])].format(backend=backend.name, ndim=info[r, 2], split=split)
        raise ValueError(f"from_local: the block of rank {r} {why} (ranks with bad blocks: {bad})")
    kinds = [(*_KINDS, "other")[k] for k in info[:, -1].tolist()]
    for column, what in ((1, "split"), (2, "number of dimensions"), (3, "dtype"), (-1, "device")):
        values = info[:, column].tolist()
        if len(set(values)) > 1:
            if what == "split":
                values = [None if v < 0 else v for v in values]
            elif what == "dtype":
                values = [str(ALL_DTYPES[v]) for v in values]
            elif what == "device":
                values = kinds
            raise ValueError(
                f"from_local: the ranks disagree on the {what}: {values} (rank r's at position "
                "r); every rank must pass the same split and blocks of one dtype, number of "
                "dimensions and device kind"
            )
    shapes = [tuple(s) for s in info[:, 4 : 4 + int(info[0, 2])].tolist()]
    if split is None and len(set(shapes)) > 1:
        raise ValueError(
            "from_local: split=None but the blocks' shapes differ between ranks: "
            f"{shapes}; pass split=k to stack them along k"
        )
    if split is None:
        prints = [(hi << 32) | lo for hi, lo in info[:, -3:-1].tolist()]
        raise ValueError(
            "from_local: split=None but the blocks hold different values on different ranks: "
            f"{differing_ranks(prints)}. A replicated array must hold the same values "
            "everywhere: seed every rank's random generator alike (or draw with "
            "xdist.random), or pass split=0 to stack each rank's own block. (The "
            "check_replicated setting, XDIST_CHECK_REPLICATED=0, turns this comparison off.)"
        )
    raise ValueError(
        f"from_local: blocks must agree on every dimension but split={int(info[0, 1])}; got "
        f"shapes {shapes}"
    )


def from_local(
    block: Any, split: int | None = 0, *, comm: Communicator | None = None
) -> _array.Array:
    """An array made of each rank's ``block``, stacked along ``split`` in rank order.

    Blocks may have any length along ``split`` (zero included) but must agree on every other
    dimension and on the dtype. With ``split=None`` every rank passes the same whole array.

    Communication: one allreduce of the blocks' metadata (dtype, number of dimensions, the
    other lengths, split, device kind: a fixed-size row), so a block that differs between
    ranks raises the same error on every rank, and one allgather of the split axis' lengths.
    With ``split=None`` no allgather, and the row also carries a fingerprint of the block's
    values (the ``check_replicated`` setting, on by default: about 1024 elements spread over
    the block), so a block that differs between ranks raises there too. Nothing on one rank.
    """
    comm = default_comm() if comm is None else comm
    backend = default_backend()
    if not backend.is_block(block):
        try:
            block = backend.asarray(block)
        except Exception:  # agreed below: every rank raises, not this one alone
            block = None
    counts = _agreed_metadata(block, split, comm, backend)
    if split is None:
        return _array.Array._new(block, Layout.replicated(tuple(block.shape)), comm, backend)
    axis = split % block.ndim
    shape = list(block.shape)
    shape[axis] = sum(counts)
    return _array.Array._new(block, Layout(tuple(shape), axis, counts), comm, backend)


def resplit(x: _array.Array, axis: int | None, /) -> _array.Array:
    """``x`` split along ``axis`` in balanced blocks (``None``: a full copy on every rank).

    Split to split moves only what changes owner, in one all-to-all; to ``None`` is one
    allgather (every rank then holds the global array); from ``None`` no message is sent.
    """
    check_array(x, "resplit")
    if axis is not None:
        if x.ndim == 0:
            raise ValueError("resplit: a 0-d array cannot be split")
        axis = normalize_axis(axis, x.ndim, "resplit")
    target = Layout.balanced(x.shape, axis, x._comm.size)
    return _relayout(x, target)


def balance(x: _array.Array, /) -> _array.Array:
    """``x`` with balanced counts on the same split axis (one all-to-all if unbalanced)."""
    check_array(x, "balance")
    return _relayout(x, Layout.balanced(x.shape, x.split, x._comm.size))


def _relayout(x: _array.Array, target: Layout) -> _array.Array:
    if target == x._layout:
        return x
    block = redistribute_block(x._local, x._layout, target, x._comm, x._backend)
    return _array.Array._new(block, target, x._comm, x._backend)


def to_numpy(x: _array.Array) -> np.ndarray:
    """The whole array as a new NumPy array on every rank: one allgather; memory of the
    global array. Always a copy (a replicated array, or one rank, copies its block)."""
    check_array(x, "to_numpy")
    host = x._backend.to_host(gather_block(x._local, x._layout, x._comm, x._backend))
    if x._layout.split is None or x._comm.size == 1:  # the host array may be the block itself
        host = np.array(host, copy=True)
    return host


def show(x: _array.Array, /, *, file: Any = None) -> None:
    """Print the whole array once, from rank 0, summarised as NumPy summarises it.

    ``repr(x)`` and ``print(x)`` show only what the calling rank holds (they send nothing, so
    they work from one rank alone); ``show`` is the collective view of the whole array: every
    rank must call it.

    Communication: only the printed elements move (at most ``2 * edgeitems + 1`` per axis,
    NumPy's print options): the long axes are cut locally, the split axis last (one
    ``take``), then one gather of the small result.

    To plot an xdist array, gather what is plotted on every rank (``x[:, 0].to_numpy()``),
    then plot on rank 0 only: a gather under ``if rank == 0:`` waits for the other ranks.
    """
    check_array(x, "show")
    picked = summary_indices(x.shape)
    y = x
    if picked is not None:
        for axis in sorted(range(x.ndim), key=lambda a: a == x.split):  # the split axis last
            if len(picked[axis]) < x.shape[axis]:
                block = x._backend.from_host(picked[axis], x.device)
                index = _array.Array._new(
                    block, Layout.replicated((len(picked[axis]),)), x._comm, x._backend
                )
                y = take(y, index, axis=axis)
    values = to_numpy(y)
    if x._comm.rank == 0:
        where = "" if x.split is None else f", split={x.split}, counts={x.counts}"
        text = format_values(values, picked is not None, prefix="xdist.Array(")
        print(f"xdist.Array({text}, dtype={x.dtype}{where})", file=file)
