"""Integer array indexing (``x[i, j]``, ``x[:, idx] = v``) and the gather/scatter-by-index
engine that ``take``, ``take_along_axis`` and boolean masks share.

A key mixing integer arrays with ints, slices, ``None`` and ``Ellipsis`` follows NumPy's rules
(the standard's "Integer array indexing" is the subset of ints and integer arrays): ints count
as 0-d index arrays; the index arrays broadcast to a shape ``B``; the ``B`` axes of the result
stand where the first indexed axis stood when the indexed axes are adjacent in the key, and
first otherwise. ``getitem`` first applies the slices and ``None`` (basic indexing), then
gathers along the indexed ("advanced") axes.

What travels depends on where the split axis of the source is:

- not an indexed axis (or the source is replicated): every rank gathers from its own block.
  The index arrays must then be whole on every rank (gathered if split: only the indices
  move); a replicated source with split indices gives a result split like the indices;
- an indexed axis: the requested indices are routed to the ranks that own them (owner from
  the layout offsets). Split indices: one ``alltoall`` of counts (and of the out-of-bounds
  flag), one ``alltoallv`` of the requests, one ``alltoallv`` of the values back; the result
  is split like the indices. Replicated indices: every rank already knows every request, so
  each owner contributes the values it holds to one ``allgatherv`` of the selected values
  (never of the source); the result is replicated.

Indices are data, so out-of-bounds indices are found by every rank that holds them; the ranks
agree (on the flag carried by the ``alltoall`` of counts, or one ``allreduce``) before anyone
raises, and nothing but that flag has moved by then. Index routing (owners, orders, counts) is
computed on host copies of the indices, which travel through MPI anyway; values are gathered
and scattered with the backend's own indexing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout
from .._movement.broadcast import align_block, broadcast_shapes, output_layout

__all__: list[str] = []


# -- index blocks ------------------------------------------------------------------------------
def normalize_block(block: Any, n: int, backend: Any) -> tuple[Any, bool]:
    """``block`` as int64 indices in ``[0, n)`` (negative ones counted from the end), and
    whether any index was out of bounds (then the values returned are not to be used)."""
    xp = backend.xp
    kind = backend.dtype_of(block).kind
    if kind == "u":
        bad = xp.any(block >= n)
        block = xp.astype(block, xp.int64)
    else:
        if backend.dtype_of(block) != np.dtype("int64"):
            block = xp.astype(block, xp.int64)
        bad = xp.any((block < -n) | (block >= n))
        block = xp.where(block < 0, block + n, block)
    return block, bool(bad)


def agree(comm: Any, bad: bool, replicated: bool) -> bool:
    """``bad`` as every rank sees it: a rank's own flag when every rank holds the same
    indices, else the OR over ranks (one ``allreduce``)."""
    if replicated or comm.size == 1:
        return bad
    return bool(comm.allreduce(np.array([bad]), "lor")[0])


# -- local gather and scatter on a block -------------------------------------------------------
def _adv_first(block: Any, adv: tuple[int, ...], xp: Any) -> Any:
    """A view of ``block`` with the indexed axes first, in order."""
    order = (*adv, *(a for a in range(block.ndim) if a not in adv))
    return block if order == tuple(range(block.ndim)) else xp.permute_dims(block, order)


def gather_local(block: Any, adv: tuple[int, ...], coords: list[Any], backend: Any) -> Any:
    """``(m, *rest)``: the sub-blocks of ``block`` at the ``m`` coordinates ``coords`` (one
    int64 array per axis of ``adv``, in block indices) over the other axes."""
    xp = backend.xp
    view = _adv_first(block, adv, xp)
    if len(adv) == 1:
        out = xp.take(view, coords[0], axis=0)
    else:
        out = view[(*coords, Ellipsis)]
    return out if backend.is_block(out) else backend.asarray(out)


def scatter_local(
    block: Any, adv: tuple[int, ...], coords: list[Any], values: Any, xp: Any, rest_key=()
) -> None:
    """Write ``values`` (broadcastable to ``(m, *rest)``) at ``coords`` of ``block``, the other
    axes selected by ``rest_key`` (positive-step slices, one per other axis, or none)."""
    view = _adv_first(block, adv, xp)
    if not isinstance(values, (bool, int, float, complex)):
        values = xp.astype(values, block.dtype, copy=True)  # it may be a view of ``block``
    view[(*coords, *rest_key, Ellipsis)] = values


# -- routing between ranks ---------------------------------------------------------------------
def _owners(layout: Layout, coord: np.ndarray, bad: bool) -> np.ndarray:
    """The rank owning each global index of the split axis (empty blocks own nothing). A
    rank with out-of-bounds indices routes nothing: every rank raises after the count
    exchange."""
    if bad:
        return np.zeros(0, dtype=np.int64)
    return np.searchsorted(np.asarray(layout.offsets), coord, side="right") - 1


def _exchange_counts(comm: Any, sendcounts: np.ndarray, bad: bool) -> tuple[np.ndarray, bool]:
    """Receive counts of the following ``alltoallv`` and the OR of every rank's flag."""
    meta = comm.alltoall_ints([v for q in range(comm.size) for v in (sendcounts[q], int(bad))])
    return meta[:, 0], bool(meta[:, 1].any())


def _host_coords(coords: list[Any], backend: Any) -> np.ndarray:
    """``(m, k)`` int64 host array of the coordinates."""
    cols = [np.asarray(backend.to_host(c), dtype=np.int64).reshape(-1) for c in coords]
    return np.stack(cols, axis=1) if cols else np.empty((0, 0), np.int64)


def _device_coords(host: np.ndarray, backend: Any, device: Any) -> list[Any]:
    return [
        backend.from_host(np.ascontiguousarray(host[:, i]), device) for i in range(host.shape[1])
    ]


def _rest_shape(shape: tuple[int, ...], adv: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(n for a, n in enumerate(shape) if a not in adv)


def fetch(
    src: _array.Array,
    adv: tuple[int, ...],
    coords: list[Any],
    replicated: bool,
    bad: bool,
    error: IndexError | None,
) -> Any:
    """This rank's ``(m, *rest)`` block of ``src`` gathered at its ``m`` coordinates.

    ``coords`` are global indices along the axes ``adv`` (int64 blocks, equal on every rank
    when ``replicated``); ``bad`` says whether this rank saw an out-of-bounds index, and
    ``error`` is raised on every rank if any did (``None``: the indices are known to be in
    bounds, nothing to agree on). ``rest`` is the local extent of the other
    axes (the whole of them when ``src`` is split along an axis of ``adv``).
    """
    layout, comm, backend = src._layout, src._comm, src._backend
    s = layout.split
    if s is None or s not in adv or comm.size == 1:
        if error is not None and agree(comm, bad, replicated):
            raise error
        return gather_local(src._local, adv, coords, backend)
    if replicated and bad:
        raise error  # type: ignore[misc]
    host = _host_coords(coords, backend)
    j = adv.index(s)
    owner = _owners(layout, host[:, j], bad)
    rest = _rest_shape(src.shape, adv)
    width = int(np.prod(rest, dtype=np.int64))
    order = np.argsort(owner, kind="stable")
    counts = np.bincount(owner, minlength=comm.size)
    if replicated:
        mine = host[owner == comm.rank]
        vals = _gather_owned(src, adv, mine, j)
        recv = comm.allgatherv(vals.reshape(-1), [int(c) * width for c in counts])
    else:
        recvcounts, anybad = _exchange_counts(comm, counts, bad)
        if anybad:
            raise error  # type: ignore[misc]
        k = len(adv)
        got = comm.alltoallv(host[order].reshape(-1), counts * k, recvcounts * k)
        vals = _gather_owned(src, adv, got.reshape(-1, k), j)
        recv = comm.alltoallv(vals.reshape(-1), recvcounts * width, counts * width)
    out = np.empty((host.shape[0], *rest), dtype=src.dtype)
    out[order] = recv.reshape(out.shape)
    return backend.from_host(out, src.device)


def _gather_owned(src: _array.Array, adv: tuple[int, ...], host: np.ndarray, j: int) -> Any:
    """Host values of ``src`` at global coordinates ``host`` (all owned by this rank)."""
    host = host.copy()
    host[:, j] -= src._layout.offsets[src._comm.rank]
    coords = _device_coords(host, src._backend, src.device)
    vals = gather_local(src._local, adv, coords, src._backend)
    return np.asarray(src._backend.to_host(vals))


def store(
    dst: _array.Array,
    adv: tuple[int, ...],
    coords: list[Any],
    values: Any,
    replicated: bool,
    bad: bool,
    error: IndexError | None,
    rest_key: tuple = (),
) -> None:
    """Write ``values`` (a block ``(m, *rest)`` of ``dst``'s dtype, or a Python scalar) at
    this rank's ``m`` global coordinates along ``adv``; each element is written by its owner.

    When ``dst`` is split along an axis of ``adv`` and the coordinates are split, one
    ``alltoall`` of counts and two ``alltoallv`` (coordinates, values) bring every write to its
    owner; otherwise each rank writes what it owns of what it holds, with no message (but one
    ``allreduce`` to agree on ``bad`` when the coordinates differ between ranks).
    """
    layout, comm, backend = dst._layout, dst._comm, dst._backend
    xp = backend.xp
    s = layout.split
    if s is None or s not in adv or comm.size == 1:
        if error is not None and agree(comm, bad, replicated):
            raise error
        scatter_local(dst._local, adv, coords, values, xp, rest_key)
        return
    if replicated and bad:
        raise error  # type: ignore[misc]
    host = _host_coords(coords, backend)
    j = adv.index(s)
    owner = _owners(layout, host[:, j], bad)
    if replicated:  # every rank holds every write: keep those it owns, no message
        keep = np.nonzero(owner == comm.rank)[0]
        got, vals = host[keep], values
        if not isinstance(values, (bool, int, float, complex)):
            vals = xp.take(values, backend.from_host(keep, dst.device), axis=0)
    else:
        order = np.argsort(owner, kind="stable")
        counts = np.bincount(owner, minlength=comm.size)
        recvcounts, anybad = _exchange_counts(comm, counts, bad)
        if anybad:
            raise error  # type: ignore[misc]
        k = len(adv)
        got = comm.alltoallv(host[order].reshape(-1), counts * k, recvcounts * k).reshape(-1, k)
        vals = values
        if not isinstance(values, (bool, int, float, complex)):
            rest = tuple(values.shape[1:])
            width = int(np.prod(rest, dtype=np.int64))
            hv = np.asarray(backend.to_host(values))[order].reshape(-1)
            recv = comm.alltoallv(hv, counts * width, recvcounts * width)
            vals = backend.from_host(recv.reshape(int(recvcounts.sum()), *rest), dst.device)
    got = got.copy()
    got[:, j] -= layout.offsets[comm.rank]
    scatter_local(dst._local, adv, _device_coords(got, backend, dst.device), vals, xp, rest_key)


# -- index arrays of a key: broadcast to B, aligned to a layout --------------------------------
def index_blocks(
    items: list[Any], sizes: list[int], target: Layout, comm: Any, backend: Any
) -> tuple[list[Any], bool]:
    """Each item (an integer array or a Python int) as this rank's flat int64 block of the
    broadcast index layout ``target``, normalized against its axis size; and the local
    out-of-bounds flag."""
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
            block = xp.full((m,), item % n if n else 0, dtype=xp.int64)
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
    from . import _as_int, _check_slice, _short

    items = list(key) if isinstance(key, tuple) else [key]
    checked: list[Any] = []
    for k in items:
        if k is None and allow_none or k is Ellipsis:
            checked.append(k)
        elif isinstance(k, slice):
            checked.append(_check_slice(k, func))
        elif isinstance(k, _array.Array) and k.ndim > 0:
            if k.dtype.kind not in "iu":
                raise IndexError(
                    f"{func}: index arrays must have an integer dtype (or be the sole boolean "
                    f"mask), got {k.dtype}"
                )
            if k._comm is not x._comm:
                raise ValueError(f"{func}: an index array lives on a different communicator")
            checked.append(k)
        elif _as_int(k) is not None:
            checked.append(_as_int(k))
        else:
            raise IndexError(
                f"{func}: with index arrays, only integers, slices"
                f"{', None' if allow_none else ''} and Ellipsis may appear in the key, "
                f"got {type(k).__name__} {_short(k)}"
            )
    n_ellipsis = sum(k is Ellipsis for k in checked)
    if n_ellipsis > 1:
        raise IndexError(f"{func}: an index can only have a single Ellipsis, got {n_ellipsis}")
    n_index = sum(k is not None and k is not Ellipsis for k in checked)
    if n_index > x.ndim:
        raise IndexError(
            f"{func}: too many indices for an array of {x.ndim} dimensions: {n_index} given"
        )
    fill = [slice(None)] * (x.ndim - n_index)
    if n_ellipsis:
        at = checked.index(Ellipsis)
        checked[at : at + 1] = fill
    else:
        checked += fill
    basic, adv, adv_items, axis = [], [], [], 0
    for pos, k in enumerate(checked):
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


def has_index_array(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, _array.Array) and k.ndim > 0 for k in items)


# -- getitem -----------------------------------------------------------------------------------
def getitem_arrays(x: _array.Array, key: Any) -> _array.Array:
    """``x[key]`` for a key with integer arrays (see the module docstring)."""
    from . import getitem

    plan = plan_key(x, key, "__getitem__")
    y = x if plan.trivial_basic else getitem(x, plan.basic)
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
    coords, bad = index_blocks(items, sizes, target, comm, backend)
    error = IndexError(f"{func}: an index is out of bounds for the shape {y.shape}")
    vals = fetch(y, adv, coords, target.split is None, bad, error)
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


# -- setitem -----------------------------------------------------------------------------------
def setitem_arrays(x: _array.Array, key: Any, value: Any) -> None:
    """``x[key] = value`` for a key with integer arrays: ``value`` broadcast to ``x[key]``'s
    shape; each element is written by the rank that owns it. With repeated indices, which
    write wins is unspecified."""
    from . import _check_value, _fetch, _local_key, _rank_positions, _wanted

    func = "__setitem__"
    plan = plan_key(x, key, func, allow_none=False)
    adv, front, bshape = plan.adv, plan.front, plan.bshape
    ranges = {a: range(*k.indices(x.shape[a])) for a, k in enumerate(plan.basic) if a not in adv}
    rest = [len(r) for r in ranges.values()]
    shape = (*rest[:front], *bshape, *rest[front:])
    _check_value(x, value, shape)
    layout, comm, backend = x._layout, x._comm, x._backend
    nb, rank = len(bshape), comm.rank
    arrays = [a for a in plan.items if isinstance(a, _array.Array)]
    local = dict(ranges)
    if layout.split is not None and layout.split not in adv:  # split along a sliced axis
        target = Layout.replicated(bshape)
        s = layout.split
        j = list(ranges).index(s)
        out_axis = j if j < front else j + nb
        pos = _rank_positions(layout, ranges[s])
        want = [_wanted(value, shape, out_axis, k0, k1) for k0, k1 in pos]
        k0, k1 = pos[rank]
        off = layout.offsets[rank]
        sub = ranges[s][k0:k1]
        local[s] = range(sub.start - off, sub.stop - off, sub.step)
    elif layout.split is None:
        target = Layout.replicated(bshape)
        want = [_full_box(value)] * comm.size
    else:  # split along an indexed axis: the writes follow the index layout
        target = output_layout([a._layout for a in arrays], bshape)
        if target.split is None:
            want = [_full_box(value)] * comm.size
        else:
            out_axis = front + target.split
            want = [
                _wanted(value, shape, out_axis, *target.local_range(q)) for q in range(comm.size)
            ]
    coords, bad = index_blocks(plan.items, [x.shape[a] for a in adv], target, comm, backend)
    error = IndexError(f"{func}: an index is out of bounds for the shape {x.shape}")
    piece = _fetch(value, want)
    rest_key, flips = _local_key(list(local.values()))
    lb = target.local_shape(rank)
    lrest = [len(r) for r in local.values()]
    vals = _arrange(piece, x, (*lrest[:front], *lb, *lrest[front:]), front, nb, flips)
    store(x, adv, coords, vals, target.split is None, bad, error, rest_key)


def _full_box(value: Any):
    if not isinstance(value, _array.Array):
        return None
    return tuple(slice(0, n) for n in value.shape)


def _arrange(piece: Any, x: _array.Array, lshape: tuple, front: int, nb: int, flips) -> Any:
    """``piece`` (a scalar, ``None`` for nothing, or a block broadcastable to the local
    selection ``lshape``) as a block ``(m, *rest)`` of ``x``'s dtype, the index axes first and
    the rest axes flipped where their slice steps backwards."""
    if isinstance(piece, (bool, int, float, complex)):
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
