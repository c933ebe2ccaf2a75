"""Integer-array indexing: ``x[i, j]`` and ``x[:, idx] = v``.

A key mixing integer arrays with ints, slices, ``None`` and ``Ellipsis`` follows NumPy's rules
(the standard's "Integer array indexing" is the subset of ints and integer arrays): ints count
as 0-d index arrays; the index arrays broadcast to a shape ``B``; the ``B`` axes of the result
stand where the first indexed axis stood when the indexed axes are adjacent in the key, and
first otherwise. ``getitem_arrays`` first applies the slices and ``None`` (basic indexing),
then gathers along the indexed ("advanced") axes; ``gather`` is also ``take``'s.

The indices are brought to one layout (``index_blocks``: where the source is split along a
sliced axis, every rank needs all of them, gathered if split: only the indices move), then
read or written by ``gather_scatter.fetch``/``store``, whose docstring says what travels:
nothing when the split axis is not indexed; else the requests go to their owners (one
``alltoall`` of counts, two ``alltoallv``) or, for replicated indices, the owners' values
meet in one ``allgatherv``. Out-of-bounds indices raise on every rank before any value moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _array
from .._config import get_config
from .._layout import Layout
from .._movement.broadcast import align_block, broadcast_shapes, output_layout
from .._movement.collectives import allgather_ints, alltoallv_host
from ..backends import Backend
from .basic import alone, getitem_basic, take_layout, takes_split
from .gather_scatter import (
    fetch,
    fetch_spread,
    joined,
    normalize_block,
    sorted_pieces,
    store,
)
from .keys import (
    as_int,
    check_slice,
    expand_ellipsis,
    local_key,
    local_parts,
    rank_positions,
    short,
)
from .values import SCALARS, check_value, fetch_value, full_box, wanted

__all__: list[str] = []


# -- index arrays of a key: broadcast to B, aligned to a layout --------------------------------
def index_blocks(
    items: list[Any], sizes: list[int], target: Layout, comm: Any, backend: Backend, device: Any
) -> tuple[list[Any], bool]:
    """Each item (an integer array or a Python int) as this rank's flat int64 block of the
    broadcast index layout ``target`` on ``device`` (the indexed array's), normalized against
    its axis size; and the local out-of-bounds flag."""
    xp = backend.xp
    lshape = target.local_shape(comm.rank)
    m = int(np.prod(lshape, dtype=np.int64))
    blocks, bad = [], False
    for item, n in zip(items, sizes):
        if isinstance(item, _array.Array):
            block = align_block(
                item._local, item._layout, target, comm, backend, "integer-array indexing"
            )
            block = xp.reshape(xp.broadcast_to(block, lshape), (m,))
            block, b = normalize_block(block, n, backend)
            bad = bad or b
        else:  # an int, checked when the key was read
            block = xp.full(
                (m,), item % n if n else 0, dtype=xp.int64, device=backend.native_device(device)
            )
        blocks.append(block)
    return blocks, bad


# -- the key of an advanced getitem/setitem ----------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """An integer-array key read against a shape (global metadata only)."""

    basic: tuple  # the key with every indexed axis as ``slice(None)`` (slices and None kept)
    adv: tuple[int, ...]  # the indexed axes, in the array that ``basic`` selects
    items: list  # their indices: integer arrays and ints, in axis order
    bshape: tuple[int, ...]  # the broadcast shape B of the items
    front: int  # where the B axes stand among the other axes of the result

    @property
    def trivial_basic(self) -> bool:
        return all(isinstance(k, slice) and k == slice(None) for k in self.basic)


def plan_key(x: _array.Array, key: Any, func: str, allow_none: bool = True) -> Plan:
    """Read and check an integer-array key before any message."""
    items = list(key) if isinstance(key, tuple) else [key]
    checked: list[Any] = []
    for k in items:
        if k is None and allow_none or k is Ellipsis:
            checked.append(k)
        elif isinstance(k, slice):
            checked.append(check_slice(k, func))
        elif isinstance(k, _array.Array) and k.ndim > 0:
            if k.dtype.kind not in "iu":
                raise IndexError(
                    f"{func}: index arrays must have an integer dtype (or be the sole boolean "
                    f"mask), got {k.dtype}"
                )
            if k._comm is not x._comm:
                raise ValueError(f"{func}: an index array lives on a different communicator")
            checked.append(k)
        elif as_int(k) is not None:
            checked.append(as_int(k))
        else:
            raise IndexError(
                f"{func}: with index arrays, only integers, slices"
                f"{', None' if allow_none else ''} and Ellipsis may appear in the key, "
                f"got {type(k).__name__} {short(k)}"
            )
    basic, adv, adv_items, axis = [], [], [], 0
    for pos, k in enumerate(expand_ellipsis(checked, x.ndim, func)):
        if k is None:
            basic.append(None)
            continue
        if isinstance(k, slice):
            basic.append(k)
        else:
            n = x.shape[axis]
            if isinstance(k, int) and not -n <= k < n:
                raise IndexError(
                    f"{func}: index {k} is out of bounds for axis {axis} with size {n}"
                )
            basic.append(slice(None))
            adv.append(pos)
            adv_items.append(k)
        axis += 1
    shapes = [k.shape for k in adv_items if isinstance(k, _array.Array)]
    try:
        bshape = broadcast_shapes(shapes, func)
    except ValueError as exc:
        raise IndexError(
            f"{func}: the index arrays cannot be broadcast together: {shapes}"
        ) from exc
    adjacent = adv == list(range(adv[0], adv[0] + len(adv)))
    return Plan(tuple(basic), tuple(adv), adv_items, bshape, adv[0] if adjacent else 0)


# -- getitem -----------------------------------------------------------------------------------
def getitem_arrays(x: _array.Array, key: Any) -> _array.Array:
    """``x[key]`` for a key with integer arrays (see the module docstring)."""
    plan = plan_key(x, key, "__getitem__")
    y = x if plan.trivial_basic else getitem_basic(x, plan.basic)
    return gather(y, plan.adv, plan.items, plan.front, "__getitem__")


def gather(y: _array.Array, adv: tuple[int, ...], items: list, front: int, func: str):
    """``y`` indexed by ``items`` (integer arrays and ints) along the axes ``adv``, the other
    axes kept whole, the broadcast index axes placed before rest axis ``front``."""
    comm, backend, xp = y._comm, y._backend, y._backend.xp
    shapes = [a.shape for a in items if isinstance(a, _array.Array)]
    bshape = broadcast_shapes(shapes, func)
    if y.split is not None and y.split not in adv:
        target = Layout.replicated(bshape)  # every rank gathers from its own block
    else:
        target = output_layout([a._layout for a in items if isinstance(a, _array.Array)], bshape)
    sizes = [y.shape[a] for a in adv]
    coords, bad = index_blocks(items, sizes, target, comm, backend, y.device)
    error = IndexError(f"{func}: an index is out of bounds for the shape {y.shape}")
    kept = _sorted_selection(y, adv, coords, target, bad, error)
    if kept is None:
        kept = _spread_selection(y, adv, coords, target, bad, error)
    if kept is None:
        vals = fetch(y, adv, coords, target.split is None, bad, error)
    else:
        vals, target = kept
    lb = target.local_shape(comm.rank)
    rest = tuple(vals.shape[1:])
    block = xp.reshape(vals, (*lb, *rest))
    nb, nr = len(lb), len(rest)
    perm = (*(nb + i for i in range(front)), *range(nb), *(nb + i for i in range(front, nr)))
    if perm != tuple(range(nb + nr)):
        block = xp.permute_dims(block, perm)
    restaxes = [a for a in range(y.ndim) if a not in adv]
    gshape = [y.shape[a] for a in restaxes]
    shape = (*gshape[:front], *bshape, *gshape[front:])
    if y.split is not None and y.split not in adv:
        j = restaxes.index(y.split)
        layout = Layout(shape, j if j < front else j + nb, y.counts)
    elif target.split is not None:
        layout = Layout(shape, front + target.split, target.counts)
    else:
        layout = Layout.replicated(shape)
    return _array.Array._new(block, layout, comm, backend)


# A sorted selection whose largest part is more than this times the balanced one is moved
# to balanced counts: the rank holding the most would set the pace of every later pass
# (scikit-learn's unshuffled folds: 3 to 1 at 2 ranks for KFold(3)), where moving the
# excess costs one pass over it.
_UNEVEN = 1.125


def _sorted_selection(
    y: _array.Array, adv: tuple[int, ...], coords: list, target: Layout, bad: bool, error
) -> tuple[Any, Layout] | None:
    """Replicated, non-decreasing 1-D indices along the split axis (xarray's groups, a
    time range, an unshuffled fold) selecting more than ``gather_warning_elements``: each
    rank's selection is one run of the result, in rank order, so every rank keeps what it
    selects from its own block and the result stays split (counts: the indices each block
    holds), with no message, instead of meeting whole on every rank; where those counts are
    uneven (beyond ``_UNEVEN``), the rows move to balanced counts, between neighbours. A
    smaller selection stays replicated (one small allgatherv: cluster centres picked by index
    are then used whole without moving again); an empty one stays split (nothing to send).
    Other indices: ``None`` (the general paths)."""
    comm, backend = y._comm, y._backend
    if (
        comm.size == 1
        or target.split is not None
        or target.ndim != 1
        or len(adv) != 1
        or adv[0] != y.split
    ):
        return None
    rest = math.prod(n for a, n in enumerate(y.shape) if a not in adv)
    if 0 < target.shape[0] * rest <= get_config().gather_warning_elements:
        return None
    if bad:  # replicated indices: every rank saw the same out-of-bounds index
        raise error
    host = np.asarray(backend.to_host(coords[0]))
    if host.size > 1 and not bool(np.all(host[1:] >= host[:-1])):
        return None
    owners = y._layout.owners(host)
    counts = tuple(np.bincount(owners, minlength=comm.size).tolist())
    rows = host[owners == comm.rank] - y._layout.offsets[comm.rank]  # block indices
    balanced = Layout.balanced(target.shape, 0, comm.size)
    if max(counts) <= max(balanced.counts) * _UNEVEN:
        block = joined(*sorted_pieces(y._local, adv[0], rows, backend), backend)
        return block, Layout(target.shape, 0, counts)
    return _run_to_balanced(y, adv[0], rows, counts, balanced.counts), balanced


def _run_to_balanced(
    y: _array.Array, axis: int, rows: np.ndarray, held: tuple[int, ...], want: tuple[int, ...]
) -> Any:
    """This rank's part, ``want[rank]`` positions, of a sorted selection along ``axis``
    whose positions lie ``held[q]`` on each rank q, in rank order, at the block indices
    ``rows`` (host) here: the positions of ranks before this one come first, then its own,
    then the ranks' after. Each rank takes what it keeps from its block and sends only its
    positions beyond its share (to neighbours, for a run), in one ``alltoallv``; runs of
    consecutive rows are copied as runs (``sorted_pieces``), and the part is joined in one
    copy."""
    comm, backend, xp = y._comm, y._backend, y._backend.xp
    me, n = comm.rank, sum(held)
    now, then = Layout((n,), 0, held), Layout((n,), 0, want)
    send, recv = [0] * comm.size, [0] * comm.size
    first = last = 0  # the positions this rank keeps, counted in its own held ones
    for src, dst, (box,) in now.overlap(then, me):
        if src == dst:
            first, last = box.start - now.offsets[me], box.stop - now.offsets[me]
        elif src == me:
            send[dst] = box.stop - box.start
        else:
            recv[src] = box.stop - box.start
    own, _ = sorted_pieces(y._local, axis, rows[first:last], backend)
    before, views = sorted_pieces(y._local, axis, rows[:first], backend)
    after, more = sorted_pieces(y._local, axis, rows[last:], backend)
    away = joined([*before, *after], views or more, backend)
    rest = tuple(own[0].shape[1:])
    width = math.prod(rest)
    got = alltoallv_host(
        backend.to_host(away).reshape(-1),
        [c * width for c in send],
        [c * width for c in recv],
        comm,
    )
    del away
    got = backend.from_host(got.reshape((-1, *rest)), y.device)
    low = sum(recv[:me])
    return xp.concat([got[:low], *own, got[low:]], axis=0)


def _spread_selection(
    y: _array.Array, adv: tuple[int, ...], coords: list, target: Layout, bad: bool, error
) -> tuple[Any, Layout] | None:
    """Replicated indices along the split axis (``train_test_split``'s, a shuffled fold's, a
    bootstrap sample's) selecting more than ``gather_warning_elements``, in any order: the
    result is split along the first index axis with balanced counts, each rank receiving
    only its rows from their owners (``fetch_spread``: one ``alltoallv``), so data that
    arrived split stays split and no rank holds more than about two blocks. A smaller
    selection stays replicated (one small allgatherv, as ``_sorted_selection`` says).
    Other indices: ``None``."""
    comm = y._comm
    if comm.size == 1 or target.split is not None or target.ndim == 0 or y.split not in adv:
        return None
    rest = math.prod(n for a, n in enumerate(y.shape) if a not in adv)
    if math.prod(target.shape) * rest <= get_config().gather_warning_elements:
        return None
    if bad:  # replicated indices: every rank saw the same out-of-bounds index
        raise error
    layout = Layout.balanced(target.shape, 0, comm.size)
    inner = math.prod(target.shape[1:])
    counts = tuple(c * inner for c in layout.counts)
    return fetch_spread(y, adv, coords, counts), layout


# -- setitem -----------------------------------------------------------------------------------
def setitem_arrays(x: _array.Array, key: Any, value: Any) -> None:
    """``x[key] = value`` for a key with integer arrays: ``value`` broadcast to ``x[key]``'s
    shape; each element is written by the rank that owns it. With repeated indices, which
    write wins is unspecified."""
    func = "__setitem__"
    plan = plan_key(x, key, func, allow_none=False)
    adv, front, bshape = plan.adv, plan.front, plan.bshape
    ranges = {a: range(*k.indices(x.shape[a])) for a, k in enumerate(plan.basic) if a not in adv}
    rest = [len(r) for r in ranges.values()]
    shape = (*rest[:front], *bshape, *rest[front:])
    check_value(x, value, shape)
    layout, comm, backend = x._layout, x._comm, x._backend
    nb, rank = len(bshape), comm.rank
    arrays = [a for a in plan.items if isinstance(a, _array.Array)]
    parts = list(ranges.values())  # of the other axes, in block indices once local
    if layout.split is None and _takes_index_split(x, plan):
        layout = x._layout
    if layout.split is not None and layout.split not in adv:  # split along a sliced axis
        target = Layout.replicated(bshape)
        s = layout.split
        j = list(ranges).index(s)
        out_axis = j if j < front else j + nb
        pos = rank_positions(layout, ranges[s])
        want = [wanted(value, shape, out_axis, k0, k1) for k0, k1 in pos]
        parts = local_parts(parts, j, *pos[rank], layout.offsets[rank])
    elif layout.split is None:
        target = Layout.replicated(bshape)
        want = [full_box(value)] * comm.size
    else:  # split along an indexed axis: the writes follow the index layout
        target = output_layout([a._layout for a in arrays], bshape)
        if target.split is None:
            want = [full_box(value)] * comm.size
        else:
            out_axis = front + target.split
            want = [
                wanted(value, shape, out_axis, *target.local_range(q)) for q in range(comm.size)
            ]
    coords, bad = index_blocks(
        plan.items, [x.shape[a] for a in adv], target, comm, backend, x.device
    )
    error = IndexError(f"{func}: an index is out of bounds for the shape {x.shape}")
    piece = fetch_value(value, want)
    rest_key, flips = local_key(parts)
    lb = target.local_shape(rank)
    lrest = [len(r) for r in parts]
    vals = _arrange(piece, x, (*lrest[:front], *lb, *lrest[front:]), front, nb, flips)
    store(x, adv, coords, vals, target.split is None, bad, error, rest_key)


def _takes_index_split(x: _array.Array, plan: Plan) -> bool:
    """Whether replicated ``x`` takes a split along the axis that a split 1-D index array
    selects before ``x[key] = value`` (SciPy's elementwise solvers write their results at the
    positions of the elements still active, ``active = active[~stop]``), and if so takes it:
    ``x`` qualifies as for a basic key (``basic.takes_split``), and each rank's indices lie in
    a run of ``x``'s axis of their own, in rank order (one ``allgather`` of each rank's
    smallest and largest index). The blocks then start where each rank's indices start
    (between two runs, at the balanced boundary where it falls between them), so each rank
    writes its own elements and nothing moves."""
    if not (len(plan.adv) == 1 and takes_split(x)):
        return False
    index = plan.items[0]
    if not (isinstance(index, _array.Array) and index.ndim == 1 and index.split == 0):
        return False
    axis = plan.adv[0]
    n = x.shape[axis]
    block, xp = index._local, index._backend.xp
    held = int(block.shape[0])
    lo = int(xp.min(block)) if held else 0
    hi = int(xp.max(block)) if held else -1
    table = allgather_ints([alone(x), 0 <= lo and hi < n, held, lo, hi], x._comm)
    if not table[:, 0].all():  # x or a view of it is referred to: its layout stays
        return take_layout(x, x._layout, False)
    runs = [(int(a), int(b)) for _, _, c, a, b in table if c]
    if not (table[:, 1].all() and runs and all(b < a for (_, b), (a, _) in zip(runs, runs[1:]))):
        return False  # no index, one out of bounds (raised below), or runs out of order
    balanced = Layout.balanced(x.shape, axis, x._comm.size)
    starts = [0]
    for r in range(1, x._comm.size):  # after every earlier rank's run, before every later one
        after = max((int(b) + 1 for _, _, c, _, b in table[:r] if c), default=0)
        before = min((int(a) for _, _, c, a, _ in table[r:] if c), default=n)
        starts.append(min(max(balanced.offsets[r], after), before))
    counts = tuple(b - a for a, b in zip(starts, [*starts[1:], n]))
    return take_layout(x, Layout(x.shape, axis, counts), True)


def _arrange(piece: Any, x: _array.Array, lshape: tuple, front: int, nb: int, flips) -> Any:
    """``piece`` (a scalar, ``None`` for nothing, or a block broadcastable to the local
    selection ``lshape``) as a block ``(m, *rest)`` of ``x``'s dtype, the index axes first and
    the rest axes flipped where their slice steps backwards."""
    if isinstance(piece, SCALARS):
        return piece
    backend = x._backend
    xp = backend.xp
    m = int(np.prod(lshape[front : front + nb], dtype=np.int64))
    rest = (*lshape[:front], *lshape[front + nb :])
    if piece is None or 0 in lshape:  # this rank writes nothing
        return backend.empty((m, *rest), x.dtype, x.device)
    if backend.dtype_of(piece) != x.dtype:
        piece = xp.astype(piece, x._local.dtype)
    piece = xp.broadcast_to(piece, lshape)
    perm = (*range(front, front + nb), *range(front), *range(front + nb, len(lshape)))
    if perm != tuple(range(len(lshape))):
        piece = xp.permute_dims(piece, perm)
    piece = xp.reshape(piece, (m, *rest))
    if flips:
        piece = xp.flip(piece, axis=tuple(1 + f for f in flips))
    return piece
