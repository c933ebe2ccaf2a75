"""xdist's own distribution functions: building arrays from blocks, moving them between
layouts, a whole NumPy copy, and the whole array printed once."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _array
from ._dtypes import ALL_DTYPES
from ._errors import AxisError
from ._formatting import format_values, summary_indices
from ._indexing_functions import take
from ._layout import Layout
from ._movement.agreement import (
    DEVICE_KINDS,
    MAX_DIMS,
    Rows,
    agree_on_metadata,
    checksum,
    device_code,
    dtype_code,
)
from ._movement.collectives import counts_from_local, differing_ranks
from ._movement.redistribute import gather_block, redistribute_block
from ._placement import resolve_comm, resolve_split
from ._runtime import default_backend
from ._transport.comm import Communicator
from ._validation import check_array
from .backends.base import Backend

__all__ = ["from_local", "resplit", "balance", "to_numpy", "show"]


# What a rank finds wrong with its own arguments travels with the metadata, so that every
# rank raises the same error (a rank raising alone would leave the others waiting).
_NOT_AN_ARRAY, _BAD_DTYPE, _BAD_SPLIT, _ZERO_D, _TOO_MANY_DIMS = 1, 2, 3, 4, 5
_WHY = {
    _NOT_AN_ARRAY: "is not an array of the {backend} backend",
    _BAD_DTYPE: "has a dtype that is not one of the standard's",
    _BAD_SPLIT: "has {ndim} dimensions: split={split!r} is not one of its axes",
    _ZERO_D: "is 0-d: a 0-d block cannot be split",
    _TOO_MANY_DIMS: f"has more than {MAX_DIMS} dimensions",
}


def _problem(block: Any, split: Any, backend: Backend) -> tuple[int, int | None]:
    """What is wrong with this rank's arguments (0: nothing), and the split axis."""
    if block is None:
        return _NOT_AN_ARRAY, None
    if block.ndim > MAX_DIMS:
        return _TOO_MANY_DIMS, None
    if backend.dtype_of(block) not in ALL_DTYPES:
        return _BAD_DTYPE, None
    try:
        return 0, resolve_split(split, block.ndim, "from_local")
    except TypeError:
        return _BAD_SPLIT, None
    except AxisError:
        return (_ZERO_D if block.ndim == 0 else _BAD_SPLIT), None


def _agreed_metadata(
    block: Any, split: Any, comm: Communicator, backend: Backend
) -> tuple[int | None, tuple[int, ...]]:
    """The split axis and the counts along it (``()`` for ``split=None``) once the ranks
    agree on the blocks' metadata; the same error on every rank where a rank's arguments are
    bad or the ranks disagree on the split, the number of dimensions, the dtype, the other
    lengths, the device kind or, for ``split=None`` with the ``check_replicated`` setting (on
    by default), a checksum of the values (``checksum``: about 1024 elements spread over the
    block, all of a smaller one, every one with ``"full"``).

    Agreement is one allreduce of one agreement row (``agree_on_metadata``: 71 ints whatever
    the rank count, twice: maxima and negated minima), then one allgather of one int, the
    block's length along the split axis (none for ``split=None``); only a disagreement or a
    bad argument gathers every rank's row, to say in the error which rank differs."""
    problem, axis = _problem(block, split, backend)
    fine = problem == 0
    fields = {
        "problem": problem,
        "split": -1 if axis is None else axis,
        "dtype": dtype_code(backend.dtype_of(block)) if fine else -1,
        "device": device_code(backend.device_of(block).kind if fine else "cpu"),
    }
    fp = checksum(block, backend) if fine and split is None and comm.size > 1 else 0
    shape = () if block is None else tuple(block.shape)
    rows = agree_on_metadata(
        fields, comm, shape=shape, checksum=fp, free_axis=axis, gather=not fine
    )
    if rows is not None:
        _disagreement(rows, split, backend)
    if axis is None:
        return None, ()
    return axis, counts_from_local(block.shape[axis], comm)


def _disagreement(rows: Rows, split: Any, backend: Backend) -> None:
    """Raise the error that every rank's agreement row (``rows``) shows."""
    problems = rows.column("problem")
    bad = [r for r, p in enumerate(problems) if p]
    if bad:
        r = bad[0]
        why = _WHY[problems[r]].format(backend=backend.name, ndim=rows.ndims()[r], split=split)
        error = AxisError if problems[r] in (_BAD_SPLIT, _ZERO_D) else ValueError
        raise error(f"from_local: the block of rank {r} {why} (ranks with bad blocks: {bad})")
    columns = {
        "split": [None if v < 0 else v for v in rows.column("split")],
        "number of dimensions": rows.ndims(),
        "dtype": [str(ALL_DTYPES[v]) for v in rows.column("dtype")],
        "device": [DEVICE_KINDS[v] for v in rows.column("device")],
    }
    for what, values in columns.items():
        if len(set(values)) > 1:
            raise ValueError(
                f"from_local: the ranks disagree on the {what}: {values} (rank r's at position "
                "r); every rank must pass the same split and blocks of one dtype, number of "
                "dimensions and device kind"
            )
    shapes = rows.shapes()
    if split is None and len(set(shapes)) > 1:
        raise ValueError(
            "from_local: split=None but the blocks' shapes differ between ranks: "
            f"{shapes}; pass split=k to stack them along k"
        )
    if split is None:
        raise ValueError(
            "from_local: split=None but the blocks hold different values on different ranks: "
            f"{differing_ranks(rows.checksums())}. A replicated array must hold the same "
            "values everywhere: seed every rank's random generator alike (or draw with "
            "xdist.random), or pass split=0 to stack each rank's own block. (The "
            "check_replicated setting, XDIST_CHECK_REPLICATED=0, turns this comparison off.)"
        )
    raise ValueError(
        f"from_local: blocks must agree on every dimension but split={rows.column('split')[0]}; "
        f"got shapes {shapes}"
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
    With ``split=None`` no allgather, and the row also carries a checksum of the block's
    values (the ``check_replicated`` setting, on by default: about 1024 elements spread over
    the block), so a block that differs between ranks raises there too. Nothing on one rank.
    """
    comm = resolve_comm(comm, "from_local")
    backend = default_backend()
    if not backend.is_block(block):
        try:
            block = backend.asarray(block)
        except Exception:  # agreed below: every rank raises, not this one alone
            block = None
    axis, counts = _agreed_metadata(block, split, comm, backend)
    if axis is None:
        return _array.Array._new(block, Layout.replicated(tuple(block.shape)), comm, backend)
    shape = list(block.shape)
    shape[axis] = sum(counts)
    return _array.Array._new(block, Layout(tuple(shape), axis, counts), comm, backend)


def resplit(x: _array.Array, axis: int | None, /) -> _array.Array:
    """``x`` split along ``axis`` in balanced blocks (``None``: a full copy on every rank).

    Split to split moves only what changes owner, in one all-to-all; to ``None`` is one
    allgather (every rank then holds the global array); from ``None`` no message is sent.
    """
    check_array(x, "resplit")
    split = resolve_split(axis, x.ndim, "resplit", name="axis")
    target = Layout.balanced(x.shape, split, x._comm.size)
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
