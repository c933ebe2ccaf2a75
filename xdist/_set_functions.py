"""Set functions of the standard: ``unique_all``, ``unique_counts``, ``unique_inverse`` and
``unique_values``, distributed without gathering ``x``.

Results follow NumPy's ``np.unique(..., equal_nan=False)``: 1-D, sorted; every NaN is a value
of its own (count one); ``-0.0`` and ``0.0`` are one value, reported as the one that occurs
first; ``indices`` are first occurrences in the flattened (C order) array, ``inverse_indices``
has the shape of ``x``; indices and counts are int64. A replicated ``x`` (or one rank) is done
locally and gives replicated results. ``unique_values`` of a split ``x`` whose ranks find at
most ``gather_warning_elements`` distinct values in all (class labels: what scikit-learn asks
of it, many times per metric) is replicated: step 1, then one ``allgather`` of the record
counts and one ``allgatherv`` of the records, merged alike on every rank (``x`` split along
its first axis of more than one element, so that rank order is flat order). Otherwise a split
``x`` gives results split along axis 0 with exact, possibly uneven counts, and an
``inverse_indices`` laid out as ``x``:

1. Local runs: each rank sorts its block, flattened, by (value, flat global index) and keeps
   one record per run of equal values (value, first index, count); a local inverse maps each
   element to its record. Many duplicates (class labels) shrink to a few records here.
2. One ``allgather`` of the record counts, then the sample sort of the records by
   (value, first index) (``_ops.sample_sort``: samples, piece lengths, one ``alltoallv``). The
   ranks' shares of the sorted records stay as the sort leaves them.
3. Runs across ranks: one ``allgatherv`` of each non-empty rank's last value (at most ``p``
   values) tells a rank whether its first record continues a run; one ``allgather`` of three
   ints per rank (runs starting here, elements counted here, elements before the first start)
   gives the counts of the result and the counts of runs that cross rank boundaries.
4. ``inverse_indices``: each record's unique number goes back to the rank that made it (one
   ``alltoallv``, step 2's in reverse), and the local inverse spreads it over the elements.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ._array import Array
from ._config import get_config
from ._creation_functions import full_like
from ._data_type_functions import astype, result_type
from ._dtypes import check_category
from ._elementwise_functions import equal, not_equal
from ._layout import Layout
from ._movement.collectives import allgather_block, allgather_ints, counts_from_local
from ._ops.sample_sort import sample_sort, send_back
from ._searching_functions import searchsorted
from ._validation import check_array, check_same_context

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def unique_all(x: Array, /) -> UniqueAllResult:
    """The standard's ``unique_all``: values, first indices, inverse indices and counts."""
    check_array(x, "unique_all")
    values, indices, inverse, counts = _unique(x, indices=True, inverse=True, counts=True)
    return UniqueAllResult(values, indices, inverse, counts)


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """The standard's ``unique_counts``: the sorted unique values and how often each occurs."""
    check_array(x, "unique_counts")
    values, _, _, counts = _unique(x, indices=False, inverse=False, counts=True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """The standard's ``unique_inverse``: the sorted unique values and, for every element of
    ``x``, the index of its value (shape and layout of ``x``)."""
    check_array(x, "unique_inverse")
    values, _, inverse, _ = _unique(x, indices=False, inverse=True, counts=False)
    return UniqueInverseResult(values, inverse)


def unique_values(x: Array, /) -> Array:
    """The standard's ``unique_values``: the sorted unique values of ``x``, 1-D."""
    check_array(x, "unique_values")
    return _unique(x, indices=False, inverse=False, counts=False)[0]


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """The standard's ``isin`` (2025.12) for integer arrays and Python ints (as
    array-api-strict): whether each element of ``x1`` occurs in ``x2``, with ``x1``'s shape
    and layout. ``unique_values(x2)`` makes the set, sorted (and split when ``x2`` is); a
    value is in it when its left and right ``searchsorted`` positions differ (two searches,
    routed to the owners of the set's blocks). ``x2`` is never gathered."""
    x1, x2 = _isin_operands(x1, x2)
    if not isinstance(invert, bool):
        raise TypeError(f"isin: invert must be a bool, got {invert!r}")
    values = unique_values(x2)
    if values.shape[0] == 0:
        return full_like(x1, invert, dtype=np.dtype(bool))
    left = searchsorted(values, x1, side="left")
    right = searchsorted(values, x1, side="right")
    return equal(left, right) if invert else not_equal(left, right)


def _isin_operands(x1: Any, x2: Any) -> tuple[Array, Array]:
    """Both operands as arrays of one integer dtype (a Python int takes the array's)."""
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        raise TypeError(
            f"isin: x1 or x2 must be an xdist array, got {type(x1).__name__} and "
            f"{type(x2).__name__}"
        )
    for value, name in ((x1, "x1"), (x2, "x2")):
        if isinstance(value, Array):
            check_category(value.dtype, "integer", "isin", name)
        elif type(value) is not int:
            raise TypeError(f"isin: {name} must be an integer array or a Python int, got {value!r}")
    if isinstance(x1, Array) and isinstance(x2, Array):
        check_same_context([(x1, "x1"), (x2, "x2")], "isin")
        dtype = result_type(x1.dtype, x2.dtype)
        return astype(x1, dtype), astype(x2, dtype)
    like = x1 if isinstance(x1, Array) else x2
    scalar = x2 if like is x1 else x1
    info = np.iinfo(like.dtype)
    if not info.min <= scalar <= info.max:
        raise OverflowError(f"isin: {scalar} is out of range for {like.dtype}")
    block = like._backend.xp.asarray(scalar, dtype=like._local.dtype, device=_dev(like._local))
    other = Array._new(block, Layout.replicated(()), like._comm, like._backend)
    return (x1, other) if like is x1 else (other, x2)


# -- the algorithm --------------------------------------------------------------------------------
def _flat_index(x: Array) -> Any:
    """The C-order flat global index of every element of this rank's block, flattened."""
    xp, layout, device = x._backend.xp, x._layout, _dev(x._local)
    if layout.split is None:
        return xp.arange(x.size, dtype=xp.int64, device=device)
    s = layout.split
    n, after, before = x.shape[s], math.prod(x.shape[s + 1 :]), math.prod(x.shape[:s])
    start, stop = layout.local_range(x._comm.rank)
    a = xp.arange(before, dtype=xp.int64, device=device) * (n * after)
    i = xp.arange(start, stop, dtype=xp.int64, device=device) * after
    b = xp.arange(after, dtype=xp.int64, device=device)
    return xp.reshape(a[:, None, None] + i[None, :, None] + b[None, None, :], (-1,))


def _dev(block: Any) -> Any:
    return getattr(block, "device", None)


def _local_runs(x: Array, first: bool, inverse: bool) -> tuple[Any, Any, Any, Any]:
    """Step 1: one record per run of equal values of the sorted block (value, first flat
    index, count) and each element's record in the block's flat order (``None`` for the
    index and the inverse when not wanted: they cost a sort each)."""
    xp = x._backend.xp
    flat = xp.reshape(x._local, (-1,))
    if first or inverse:
        perm = xp.argsort(flat, stable=True)
        values = xp.take(flat, perm, axis=0)
    else:
        values = xp.sort(flat, stable=True)  # the same order as the stable argsort
    new = _run_starts(values, None, xp)
    starts = xp.nonzero(new)[0]
    stop = xp.asarray([values.shape[0]], dtype=starts.dtype, device=_dev(starts))
    counts = xp.astype(xp.concat([starts[1:], stop]) - starts, xp.int64)
    index = runs = None
    if first:
        index = xp.take(xp.take(_flat_index(x), perm, axis=0), starts, axis=0)
    if inverse:
        run = xp.cumulative_sum(xp.astype(new, xp.int64)) - 1
        runs = xp.take(run, xp.argsort(perm), axis=0)
    return xp.take(values, starts, axis=0), index, counts, runs


# Integer blocks whose values span at most this many are counted, not sorted, by
# ``_local_values`` (bins of int64: 512 KiB).
_COUNTED_SPAN = 1 << 16


def _local_values(x: Array) -> Any:
    """Step 1 for the values alone: the block's distinct values, sorted. Integers spanning
    at most ``_COUNTED_SPAN`` values (class labels) by counting: a minimum, a maximum and a
    ``bincount`` of the values less the minimum, where a sort costs ``n log n``; otherwise
    the runs of a sort."""
    xp = x._backend.xp
    flat = xp.reshape(x._local, (-1,))
    dtype = x.dtype
    if dtype.kind in "iu" and dtype != np.uint64 and flat.shape[0]:
        lo, hi = int(xp.min(flat)), int(xp.max(flat))
        if hi - lo < _COUNTED_SPAN:
            wide = flat if dtype == np.int64 else xp.astype(flat, xp.int64)
            seen = xp.bincount(wide - lo, minlength=hi - lo + 1)
            found = xp.nonzero(seen)[0]
            return xp.astype(found + lo, flat.dtype)
    return _local_runs(x, False, False)[0]


def _run_starts(values: Any, head: Any, xp: Any) -> Any:
    """Where a run of equal values starts (NaN equals nothing, so each NaN starts one).
    ``head`` says whether the first element starts one (``None``: it does)."""
    if values.shape[0] == 0:
        return xp.zeros(0, dtype=xp.bool, device=_dev(values))
    if head is None:
        head = xp.ones(1, dtype=xp.bool, device=_dev(values))
    return xp.concat([head, xp.not_equal(values[1:], values[:-1])])


def _unique(x: Array, *, indices: bool, inverse: bool, counts: bool) -> tuple:
    """``(values, indices, inverse_indices, counts)``, ``None`` for what was not asked."""
    xp, comm, backend, layout = x._backend.xp, x._comm, x._backend, x._layout
    alone = layout.split is None or comm.size == 1
    only_values = not (indices or inverse or counts)
    # Away from one rank the first index is also the key that orders equal records; the
    # values alone need it only past ``_few`` (their runs first, then the argsort).
    if only_values:
        values, first, cnt, inv = _local_values(x), None, None, None
    else:
        values, first, cnt, inv = _local_runs(x, indices or not alone, inverse)
    if alone:
        nu = values.shape[0]
        out = Layout.replicated((nu,)) if layout.split is None else Layout((nu,), 0, (nu,))
        local = (values, first, None if inv is None else xp.reshape(inv, x._local.shape), cnt)
    else:
        records = counts_from_local(values.shape[0], comm)
        if only_values and _few(x, records):
            merged = _merged_values(values, records, x)
            out, local = Layout.replicated(tuple(merged.shape)), (merged, None, None, None)
        else:
            if first is None:  # the same runs, with their first indices
                values, first, cnt, inv = _local_runs(x, True, inverse)
            out, local = _unique_split(
                x, values, first, cnt, inv, indices, inverse, counts, records
            )
    wanted = (True, indices, inverse, counts)
    layouts = (out, out, layout, out)
    return tuple(
        Array._new(block, lay, comm, backend) if want else None
        for block, lay, want in zip(local, layouts, wanted)
    )


def _few(x: Array, records: tuple[int, ...]) -> bool:
    """Whether ``unique_values`` of the split ``x`` whose ranks found ``records`` distinct
    values each is taken whole on every rank (the same answer on every rank: ``records``)."""
    rank_ordered = math.prod(x.shape[: x._layout.split]) == 1
    return rank_ordered and sum(records) <= get_config().gather_warning_elements


def _merged_values(values: Any, records: tuple[int, ...], x: Array) -> Any:
    """Every rank's distinct values (``records[r]`` from rank r, each rank's sorted, with the
    first of equal values kept) merged: sorted, stable, so that of equal values (signed
    zeros) the first rank's, which comes first in flat order, is kept; each NaN kept."""
    backend = x._backend
    every = allgather_block(values, records, x._comm, backend)
    every = every[np.argsort(every, kind="stable")]
    return backend.from_host(every[_run_starts(every, None, np)], backend.device_of(values))


def _unique_split(
    x, values, first, cnt, inv, indices, inverse, counts, records
) -> tuple[Layout, tuple]:
    """Steps 2-4 for a split ``x`` whose ranks found ``records`` runs each: the result layout
    and this rank's blocks."""
    xp, comm, backend = x._backend.xp, x._comm, x._backend
    me = comm.rank
    split = x._layout.split
    res = sample_sort(
        values[None, :],
        first[None, :],
        records,
        comm,
        backend,
        rank_ordered=math.prod(x.shape[:split]) == 1,
        keep_index=indices,
        extra=[cnt[None, :]] if counts else [],
        presorted=True,
    )
    merged, held = res.values, res.held[:, 0]
    # Step 3: does my first record continue the run of the last non-empty rank before me?
    lasts = allgather_block(
        merged[merged.shape[0] - 1 :], [1 if h else 0 for h in held], comm, backend
    )
    before = int(np.count_nonzero(held[:me]))
    head = None
    if before and merged.shape[0]:
        prev = backend.from_host(lasts[before - 1 : before], backend.device_of(merged))
        head = xp.not_equal(merged[:1], prev)
    new = _run_starts(merged, head, xp)
    starts = xp.nonzero(new)[0]
    nstarts = int(starts.shape[0])
    if counts:
        mcnt = res.extra[0]
        ahead = xp.cumulative_sum(mcnt) - mcnt  # elements before each record, on this rank
        here = int(xp.sum(mcnt))
        head_count = int(ahead[starts[0]]) if nstarts else -1
    else:
        here, head_count = 0, -1
    info = allgather_ints([nstarts, here, head_count], comm)
    runs = info[:, 0]
    out = Layout((int(runs.sum()),), 0, tuple(int(r) for r in runs))
    blocks: list[Any] = [xp.take(merged, starts, axis=0), None, None, None]
    if indices:
        blocks[1] = xp.take(res.index, starts, axis=0)
    if counts:
        blocks[3] = _run_counts(ahead, starts, info, x.size, me, xp)
    if inverse:
        number = int(runs[:me].sum()) + xp.cumulative_sum(xp.astype(new, xp.int64)) - 1
        mine = send_back(res, number, comm, backend)[0, :]
        blocks[2] = xp.reshape(xp.take(mine, inv, axis=0), x._local.shape)
    return out, tuple(blocks)


def _run_counts(ahead, starts, info, total, me, xp) -> Any:
    """Step 3's counts: from each run start to the next one, which may lie on a later rank."""
    runs, here, head = info[:, 0], info[:, 1], info[:, 2]
    offset = int(here[:me].sum())
    later = [r for r in range(me + 1, len(runs)) if runs[r]]
    end = int(here[: later[0]].sum() + head[later[0]]) if later else total
    at = xp.take(ahead, starts, axis=0) + offset
    stop = xp.asarray([end], dtype=at.dtype, device=_dev(at))
    return xp.concat([at[1:], stop]) - at
