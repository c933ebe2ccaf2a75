"""The distributed sample sort (PSRS) of ``L`` lines, shared by ``sort``/``argsort`` along a
split axis with few lines, and by the set functions.

Every line is sorted by the pair (value, index along the line): values in the backend's order
(NumPy's: NaN last ascending, first descending), equal values in index order.

  1. each rank sorts its block of every line; ties keep index order (stable sort);
  2. it takes ``min(c, p)`` regular samples of each line (``c`` its length there), each
     weighted by the run of elements it stands for (PSRS: no rank then receives more than
     about twice its balanced share in step 5);
  3. the ``p - 1`` splitters per line are the samples where the weighted sample rank reaches
     the balanced block boundaries, the same on every rank. Up to ``GATHERED_SAMPLES``
     samples in all, one ``allgatherv`` of the (value, index) pairs and every rank sorts
     them. Beyond (``L * p * p`` of them, 268 MB for one line at 4096 ranks), the samples are
     sample-sorted over the ranks (this algorithm, its own splitters from at most
     ``GATHERED_SAMPLES`` of them), each rank finds the boundaries among those it then
     holds (one ``exscan`` and one ``allreduce`` of ``L`` and ``L * (p - 1)`` ints), and one
     ``allgatherv`` of the ``L * (p - 1)`` splitters: ``O(p)`` memory and bytes per rank;
  4. each rank cuts its sorted lines at the splitters: a value search, then an index search
     in the run of values equal to the splitter's. Ties are cut by index, so many equal values
     still spread over the ranks, in index order;
  5. one ``alltoall`` of the piece lengths (``L`` ints for each rank) tells every rank what
     it receives, and one ``allgather`` of the ``L`` totals what every rank will hold; one
     ``alltoallv`` moves the pieces (values, and the indices where needed, packed in one
     buffer);
  6. each rank merges its pieces with one stable sort: they arrive in rank order, which is
     index order along a split axis (indices not in rank order are carried and merged by);
  7. ``rebalance_lines``: one ``alltoallv`` to the balanced counts of every line.

``sample_sort`` does steps 1-6; ``send_back`` returns one value per sorted element to where
the element came from (one ``alltoallv``, step 5 in reverse).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._layout import balanced_counts
from .._movement.collectives import (
    allgather_fields,
    allgather_ints,
    allreduce_host,
    alltoall_ints,
    alltoallv_fields,
    alltoallv_host,
    exscan_host,
)
from ..backends import Backend

__all__ = ["GATHERED_SAMPLES", "SortedLines", "rebalance_lines", "sample_sort", "send_back"]

# Step 3: at most this many samples (over every line) are gathered on every rank; more are
# sorted over the ranks (2^16 (value, index) pairs: 1 MiB for 8-byte values; one line at up
# to 256 ranks).
GATHERED_SAMPLES = 1 << 16


@dataclass
class SortedLines:
    """This rank's part of every sorted line after ``sample_sort`` (1-D arrays, line after
    line), what every rank holds, and what ``send_back`` needs to return data to the origin."""

    values: Any
    index: Any | None
    extra: list[Any]
    held: np.ndarray  # (ranks, lines): how many elements of each line each rank holds
    perm: Any | None  # the local sort of step 1 (None when the input came sorted)
    dest_order: np.ndarray | None  # line-major -> destination-major order of what was sent
    sendcounts: np.ndarray
    recvcounts: np.ndarray
    merge: Any  # merged[k] = received[merge[k]]


def sample_sort(
    values: Any,
    index: Any,
    counts: Sequence[int],
    comm: Any,
    backend: Backend,
    *,
    descending: bool = False,
    rank_ordered: bool = True,
    keep_index: bool = False,
    extra: Sequence[Any] = (),
    presorted: bool = False,
    samples: int | None = None,
) -> SortedLines:
    """Steps 1-6 of the sample sort on ``L`` lines sorted by (value, index).

    ``values`` and ``index`` are this rank's ``(L, c)`` blocks (``c = counts[rank]``); the
    index grows along each line. ``rank_ordered``: every index of rank r is below every index
    of rank r + 1 (then the merge needs no index). ``keep_index`` carries the index to the
    result, ``extra`` carries more ``(L, c)`` arrays; ``presorted``: the lines come sorted.
    ``samples``: at most this many samples per rank and line, gathered on every rank
    (step 3's sort of the samples themselves); ``None``: ``p`` (PSRS).
    """
    xp, p, me = backend.xp, comm.size, comm.rank
    nlines = values.shape[0]
    perm = None
    if not presorted:
        perm = xp.argsort(values, axis=1, descending=descending, stable=True)
        values = xp.take_along_axis(values, perm, axis=1)
        index = xp.take_along_axis(index, perm, axis=1)
        extra = [xp.take_along_axis(e, perm, axis=1) for e in extra]
    if sum(counts) == 0:  # nothing to sort: every rank keeps its (empty) lines
        sent = np.zeros((nlines, p), np.int64)
        came, held = np.zeros((p, nlines), np.int64), np.zeros((p, nlines), np.int64)
    else:
        sp_values, sp_index = _splitters(
            values, index, counts, comm, backend, descending, rank_ordered, samples
        )
        cuts = _cuts(values, index, sp_values, sp_index, descending, backend)
        edges = np.zeros((nlines, p + 1), np.int64)
        edges[:, 1:p], edges[:, p] = cuts, counts[me]
        sent = np.diff(edges, axis=1)  # (line, destination)
        came = alltoall_ints(sent.T, comm)  # (source, line)
        held = allgather_ints(came.sum(axis=0), comm)  # (rank, line)
    carry_index = keep_index or not rank_ordered
    fields = [values, *([index] if carry_index else []), *extra]
    host = [backend.to_host(xp.reshape(f, (-1,))) for f in fields]
    dest_order = _dest_major(sent)
    if dest_order is not None:
        host = [h[dest_order] for h in host]
    sendcounts, recvcounts = sent.sum(axis=0), came.sum(axis=1)
    got = alltoallv_fields(host, sendcounts, recvcounts, comm)
    device = backend.device_of(values)
    got = [backend.from_host(g, device) for g in got]
    lines = _line_ids(came)
    merge = _merge_order(
        got[0],
        got[1] if not rank_ordered else None,
        None if lines is None else backend.from_host(lines, device),
        descending,
        xp,
    )
    got = [xp.take(g, merge, axis=0) for g in got]
    return SortedLines(
        values=got[0],
        index=got[1] if carry_index else None,
        extra=got[1 + carry_index :],
        held=held,
        perm=perm,
        dest_order=dest_order,
        sendcounts=sendcounts,
        recvcounts=recvcounts,
        merge=merge,
    )


def _splitters(
    values, index, counts, comm, backend, descending, rank_ordered, samples
) -> tuple[Any, Any]:
    """Steps 2-3: the ``p - 1`` splitters (value, index) of each line, the same on every rank."""
    xp, p, me = backend.xp, comm.size, comm.rank
    nlines, device = values.shape[0], backend.device_of(values)
    taken = [min(c, p if samples is None else samples) for c in counts]
    where = np.arange(taken[me], dtype=np.int64) * counts[me] // max(taken[me], 1)
    at = backend.from_host(where, device)
    mine = (xp.take(values, at, axis=1), xp.take(index, at, axis=1))
    # Each sample stands for the elements from it up to the next sample of its rank.
    weights = np.diff(np.append(where, counts[me]))
    bounds = np.cumsum(balanced_counts(int(sum(counts)), p))[:-1]
    if samples is None and p > 1 and nlines * sum(taken) > GATHERED_SAMPLES:
        order = (descending, rank_ordered)
        return _sorted_over_ranks(mine, weights, taken, bounds, comm, backend, *order)
    host = [backend.to_host(xp.reshape(f, (-1,))) for f in mine]
    flat = allgather_fields(host, [nlines * m for m in taken], comm)
    # Every rank's samples and weights, rank after rank along each line (vectorized over the
    # ranks: sample i of rank r, of m in its c elements, sits at i * c // m).
    m = np.asarray(taken, np.int64)
    rank = np.repeat(np.arange(p), m)
    i = np.arange(rank.size) - np.repeat(np.cumsum(m) - m, m)
    c = np.asarray(counts, np.int64)[rank]
    every = ((i + 1) * c) // m[rank] - (i * c) // m[rank]
    block = np.repeat(nlines * (np.cumsum(m) - m), m)  # where rank r's samples start in flat
    gather = block[None, :] + np.arange(nlines)[:, None] * m[rank][None, :] + i[None, :]
    s_values, s_index = (backend.from_host(f[gather], device) for f in flat)
    order = xp.argsort(s_index, axis=1, stable=True)
    again = xp.argsort(
        xp.take_along_axis(s_values, order, axis=1), axis=1, descending=descending, stable=True
    )
    order = xp.take_along_axis(order, again, axis=1)
    w = every[backend.to_host(order)]
    before = np.cumsum(w, axis=1) - w
    last = before.shape[1] - 1
    pick = np.stack([np.minimum(np.searchsorted(b, bounds), last) for b in before])
    chosen = xp.take_along_axis(order, backend.from_host(pick, device), axis=1)
    return (
        xp.take_along_axis(s_values, chosen, axis=1),
        xp.take_along_axis(s_index, chosen, axis=1),
    )


def _sorted_over_ranks(
    mine, weights, taken, bounds, comm, backend, descending, rank_ordered
) -> tuple[Any, Any]:
    """Step 3 for many samples: the splitters from the samples sample-sorted over the ranks.

    ``mine``: this rank's ``(L, m)`` samples (values, index), sorted; ``weights``: the ``m``
    runs they stand for. The samples are sorted by this algorithm with at most
    ``GATHERED_SAMPLES // (L p)`` of their own samples per rank (their own imbalance only
    costs samples); then each sample's weighted rank is its line's weights before it (a
    running sum here, one ``exscan`` of the ``L`` totals); the splitter of boundary ``b`` is
    the first sample whose weighted rank reaches ``b`` (its position: how many fall short of
    ``b``, one ``allreduce`` of ``L (p - 1)`` counts), the last where none does, as the
    gathered path picks; the ranks holding the splitters send them in one ``allgatherv``.
    """
    xp, p, me = backend.xp, comm.size, comm.rank
    nlines, device = mine[0].shape[0], backend.device_of(mine[0])
    ranked = backend.from_host(np.broadcast_to(weights, (nlines, weights.size)).copy(), device)
    res = sample_sort(
        mine[0],
        mine[1],
        taken,
        comm,
        backend,
        descending=descending,
        rank_ordered=rank_ordered,
        keep_index=True,
        extra=[ranked],
        presorted=True,
        samples=max(1, GATHERED_SAMPLES // (nlines * p)),
    )
    here = res.held[me]  # this rank's samples of each line, line after line in res
    line = np.repeat(np.arange(nlines), here)
    w = backend.to_host(res.extra[0]).astype(np.int64, copy=False)
    totals = np.bincount(line, weights=w, minlength=nlines).astype(np.int64)
    run = np.cumsum(w) - w  # weights before each sample here, from this rank's first
    first = np.cumsum(here) - here  # where each line starts here
    start = np.zeros(nlines, np.int64)
    start[here > 0] = run[first[here > 0]]
    before = run - np.repeat(start - exscan_host(totals, "sum", comm), here)
    short = np.zeros((nlines, bounds.size), np.int64)  # samples here below each boundary
    for j in np.nonzero(here)[0]:
        short[j] = np.searchsorted(before[first[j] : first[j] + here[j]], bounds)
    pos = np.minimum(allreduce_host(short, "sum", comm), sum(taken) - 1)  # (line, boundary)
    ends = np.cumsum(res.held, axis=0)  # (rank, line): one past each rank's last sample
    owner = np.stack([np.searchsorted(ends[:, j], pos[j], side="right") for j in range(nlines)])
    ours = np.nonzero(owner.reshape(-1) == me)[0]
    local = (first - (ends[me] - here))[ours // bounds.size] + pos.reshape(-1)[ours]
    at = backend.from_host(local, device)
    sent = [backend.to_host(xp.take(f, at, axis=0)) for f in (res.values, res.index)]
    got = allgather_fields(sent, np.bincount(owner.reshape(-1), minlength=p), comm)
    order = np.argsort(owner.reshape(-1), kind="stable")  # the rank-major order of arrival
    out = []
    for g in got:
        flat = np.empty_like(g)
        flat[order] = g
        out.append(backend.from_host(flat.reshape(nlines, bounds.size), device))
    return out[0], out[1]


def _cuts(values, index, sp_values, sp_index, descending, backend: Backend) -> np.ndarray:
    """Step 4: ``(L, p - 1)`` counts of this rank's elements before each splitter."""
    xp = backend.xp
    nlines, nsplit = sp_values.shape
    out = np.zeros((nlines, nsplit), np.int64)
    for line in range(nlines):
        lo, hi = _value_bounds(values[line, :], sp_values[line, :], descending, backend)
        out[line] = lo
        for j in np.nonzero(hi > lo)[0]:  # the splitter's value occurs here: cut by index
            run = index[line, int(lo[j]) : int(hi[j])]
            ties = xp.searchsorted(run, sp_index[line, int(j) : int(j) + 1])
            out[line, j] += int(backend.to_host(ties)[0])
    return out


def _value_bounds(line, keys, descending, backend: Backend) -> tuple[np.ndarray, np.ndarray]:
    """Where the run of values equal to each key starts and ends in a sorted line.

    The search runs on the line's NaN-free part in ascending order; NaNs (last ascending,
    first descending, all equal for the sort) are counted apart, because backends disagree
    on where ``searchsorted`` puts a NaN key (NumPy: before the NaNs; Torch: after them).
    """
    xp, n, kind = backend.xp, line.shape[0], backend.dtype_of(line).kind
    nans = 0
    if kind == "f":
        nans = int(xp.sum(xp.astype(xp.isnan(line), xp.int64)))
    elif kind == "b":  # not every backend searches booleans; False < True as 0 < 1
        line, keys = xp.astype(line, xp.uint8), xp.astype(keys, xp.uint8)
    ascending = xp.flip(line) if descending else line
    finite = ascending[: n - nans]
    lo = backend.to_host(xp.searchsorted(finite, keys, side="left")).astype(np.int64)
    hi = backend.to_host(xp.searchsorted(finite, keys, side="right")).astype(np.int64)
    if descending:  # positions in the descending line, after its leading NaNs
        lo, hi = n - hi, n - lo
    if nans:
        is_nan = backend.to_host(xp.isnan(keys))
        lo[is_nan], hi[is_nan] = (0, nans) if descending else (n - nans, n)
    return lo, hi


def _merge_order(values, index, lines, descending, xp) -> Any:
    """Step 6: the order of the received elements by (line, value, index). Without ``index``
    ties keep arrival order, which is index order when the pieces come in rank order."""
    order = None
    if index is not None:
        order = xp.argsort(index, stable=True)
        values = xp.take(values, order, axis=0)
    by_value = xp.argsort(values, descending=descending, stable=True)
    order = by_value if order is None else xp.take(order, by_value, axis=0)
    if lines is not None:
        order = xp.take(order, xp.argsort(xp.take(lines, order, axis=0), stable=True), axis=0)
    return order


def send_back(res: SortedLines, data: Any, comm: Any, backend: Backend) -> Any:
    """``data`` (one value per merged element) returned to where each element came from: an
    ``(L, c)`` array in the order of the lines given to ``sample_sort`` (one alltoallv)."""
    xp = backend.xp
    arrival = xp.take(data, xp.argsort(res.merge), axis=0)
    back = alltoallv_host(backend.to_host(arrival), res.recvcounts, res.sendcounts, comm)
    if res.dest_order is not None:
        sent = np.empty_like(back)
        sent[res.dest_order] = back
        back = sent
    nlines = res.held.shape[1]
    out = xp.reshape(backend.from_host(back, backend.device_of(data)), (nlines, -1))
    if res.perm is not None:
        out = xp.take_along_axis(out, xp.argsort(res.perm, axis=1), axis=1)
    return out


def rebalance_lines(field: Any, held: np.ndarray, n: int, comm: Any, backend: Backend) -> Any:
    """Step 7: the ``(L, b)`` balanced block of every line from this rank's merged parts."""
    p, me = comm.size, comm.rank
    start = np.cumsum(held, axis=0) - held  # (rank, line): where each rank's part begins
    bal = np.asarray(balanced_counts(n, p), np.int64)
    bstart = np.cumsum(bal) - bal

    def overlap(lo, hi, blo, bhi):
        return np.clip(np.minimum(hi, bhi) - np.maximum(lo, blo), 0, None)

    send_ld = overlap(  # (line, destination)
        start[me][:, None], (start[me] + held[me])[:, None], bstart[None, :], (bstart + bal)[None]
    )
    recv_sl = overlap(start, start + held, bstart[me], bstart[me] + bal[me])  # (source, line)
    host = backend.to_host(field)
    order = _dest_major(send_ld)
    if order is not None:
        host = host[order]
    got = alltoallv_host(host, send_ld.sum(axis=0), recv_sl.sum(axis=1), comm)
    order = _line_major(recv_sl)
    if order is not None:
        got = got[order]
    return backend.xp.reshape(backend.from_host(got, backend.device_of(field)), (held.shape[1], -1))


# -- host-side orders: line-major and destination-major ------------------------------------------
def _dest_major(counts_ld: np.ndarray) -> np.ndarray | None:
    """The order taking line-major elements (each line cut into pieces in destination order)
    to destination-major order; ``None`` for one line (already in order)."""
    nlines, p = counts_ld.shape
    if nlines == 1:
        return None
    dest = np.repeat(np.tile(np.arange(p), nlines), counts_ld.reshape(-1))
    return np.argsort(dest, kind="stable")


def _line_ids(counts_sl: np.ndarray) -> np.ndarray | None:
    """The line of each element received source-major; ``None`` for one line."""
    p, nlines = counts_sl.shape
    if nlines == 1:
        return None
    return np.repeat(np.tile(np.arange(nlines, dtype=np.int64), p), counts_sl.reshape(-1))


def _line_major(counts_sl: np.ndarray) -> np.ndarray | None:
    lines = _line_ids(counts_sl)
    return None if lines is None else np.argsort(lines, kind="stable")
