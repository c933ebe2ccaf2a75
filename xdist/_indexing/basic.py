"""Basic indexing: keys of ints, slices, ``None`` and ``Ellipsis``, read and written.

Each rank selects from its own block (``take_parts``). What communicates depends on what
selects the split axis: a positive-step slice nothing (the result keeps the exact, uneven
counts); a negative-step slice one all-to-all to a balanced layout; an int one ``bcast`` of
the owner's piece (the result is replicated). A write fetches only the boxes of the value
that are not already where they are written (``values.fetch_value``).

NumPy returns a view for every basic key, so a write into the result must reach ``x``. Where
the result is a view of ``x``'s block that holds by itself; where it had to be a copy (it
moved: an int or a negative step on the split axis at more than one rank; or a flip, which
some libraries copy), or views a copy, it holds a ``Selection``: its write-back, which names
``x`` and the key. ``setitem`` hands it each write: ``r[k] = v`` into ``r = x[key]`` writes
back the elements ``k`` alone, into the matching elements of ``x`` (an in-place operator, all
of ``r``), and a view of such a copy passes its writes on. The strides NumPy would give the
result are noted (``strides.note_strides``): ``reshape`` asks them whether NumPy would view
or copy, so it decides alike at every rank count.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from .. import _array
from .._config import get_config
from .._layout import Layout, intersect
from .._movement.collectives import all_ranks, bcast_block
from .._movement.redistribute import PerRank, exchange_boxes
from .._pending import keep, kept, viewed
from .._placement import placed, unplaced
from ..backends.base import Backend
from .keys import (
    Part,
    local_key,
    local_parts,
    normalize_key,
    rank_positions,
    selected_shape,
    slice_positions,
    split_counts,
    split_part,
)
from .strides import model_strides, note_strides, selected_strides
from .values import check_value, fetch_value, full_box, wanted, writable_source, write_parts

__all__: list[str] = []


# -- writes through a result that is a copy, or a view of one ------------------------------------
class Selection(_array.WriteBack):
    """The write-back of ``view = base[key]`` (``parts``: the key normalized against
    ``base``'s shape): ``copied`` where the view is a copy (it moved between ranks, or the
    library copied a flip), else it shares ``base``'s blocks and ``base`` writes back itself.

    A write into a copy goes back as ``base[key of the parts written] = those elements``,
    only what was written: all of the copy would put its stale elements over newer ones
    written into ``base`` since. A write into a shared view is in ``base``'s blocks already:
    ``base`` passes the matching parts on."""

    __slots__ = ("parts", "copied")

    def __init__(self, base: _array.Array, parts: list[Part], copied: bool) -> None:
        super().__init__(base)
        self.parts = parts
        self.copied = copied

    @property
    def key(self) -> tuple:
        """The basic key of the view's selection of ``base``."""
        return _key_of(self.parts)

    def written(self, view: _array.Array, parts: list[Part] | None) -> None:
        where = None if parts is None else _compose(self.parts, parts)
        if not self.copied:
            self.pass_on(where)
        elif where is None:
            self.base[_key_of(self.parts)] = view
        else:
            self.base[_key_of(where)] = _select(view, parts)[0]  # type: ignore[arg-type]


def writes_through(view: _array.Array, base: _array.Array, parts: list[Part], copied: bool):
    """``view`` (``base[parts]``), with the write-back that carries writes into it to
    ``base`` where they need one: written back when it is a (not empty) copy, passed on when
    it shares the blocks of a ``base`` that writes back itself."""
    if copied and view.size:
        view._writeback = Selection(base, parts, copied=True)
    elif base._writeback is not None:
        view._writeback = Selection(base, parts, copied=False)
    return view


def _compose(parts: list[Part], written: list[Part]) -> list[Part] | None:
    """The parts over ``x`` of the (not empty) selection ``written`` of ``x[parts]``
    (``None`` where ``written`` adds axes)."""
    if any(q is None for q in written):
        return None
    out: list[Part] = []
    axes = iter(written)
    for p in parts:
        if isinstance(p, int):
            out.append(p)
            continue
        q = next(axes)
        if p is None:  # a new axis of length 1: kept by a range, dropped by an int
            if isinstance(q, range):
                out.append(None)
        elif isinstance(q, int):
            out.append(p[q])
        else:  # not empty (``setitem`` writes nothing back for an empty selection)
            step = p.step * q.step
            out.append(range(p[q[0]], p[q[0]] + step * len(q), step))
    return out


def _key_of(parts: list[Part]) -> tuple:
    """A basic key that selects ``parts`` (ranges as slices, reversed ones included)."""
    key: list[Any] = []
    for p in parts:
        if isinstance(p, range) and not len(p):
            key.append(slice(0, 0))
        elif isinstance(p, range):
            last = p[-1]
            stop = last + 1 if p.step > 0 else (last - 1 if last > 0 else None)
            key.append(slice(p.start, stop, p.step))
        else:
            key.append(p)
    return tuple(key)


def _flipped(parts: list[Part]) -> bool:
    """Whether the selection reverses an axis of more than one element (a flip: some
    libraries, PyTorch for one, copy it)."""
    for p in parts:
        if type(p) is range and p.step < 0 and len(p) > 1:
            return True
    return False


def take_parts(block: Any, parts: list[Part], backend: Backend) -> Any:
    """The selection ``parts`` (in block indices) of ``block``, as a block."""
    key, flips = local_key(parts)
    out = block[(*key, Ellipsis)]  # a trailing Ellipsis keeps NumPy from returning a scalar
    if not backend.is_block(out):
        out = backend.asarray(out)
    return backend.xp.flip(out, axis=flips) if flips else out


# -- getitem ------------------------------------------------------------------------------------
def _plain_slice(k: slice) -> bool:
    """Whether ``k`` has int (or no) bounds and a positive (or no) step: a slice every
    backend takes as NumPy does (the hot paths of basic indexing take only these)."""
    start, stop, step = k.start, k.stop, k.step
    return (
        (start is None or type(start) is int)
        and (stop is None or type(stop) is int)
        and (step is None or (type(step) is int and step > 0))
    )


def replicated_basic(x: _array.Array, items: tuple) -> _array.Array | None:
    """``x[items]`` for a replicated ``x`` and ints, ``None``, ``Ellipsis`` and slices of
    int bounds and a positive step (what every backend slices alike), by the library
    directly: the same view as the general path (an Ellipsis is appended so that NumPy gives
    a 0-d array, not a scalar), without normalizing the key into parts. ``None`` where
    anything else is in the key or the library refuses it: the general path then raises
    xdist's error."""
    ellipsis = False
    for k in items:
        if k is Ellipsis:
            if ellipsis:  # Torch takes two
                return None
            ellipsis = True
        elif type(k) is slice:
            if not _plain_slice(k):
                return None
        elif not (k is None or type(k) is int):
            return None
    try:
        block = x._local[items if ellipsis else (*items, Ellipsis)]
    except (IndexError, TypeError, ValueError):
        return None
    return _array.wrap_block(block, Layout.replicated(tuple(block.shape)), x)


def split_basic(x: _array.Array, items: tuple) -> _array.Array | None:
    """``x[items]`` for a split ``x`` and ints and slices of int bounds and a positive step,
    with a slice (or nothing) on the split axis, or on one rank an int: each rank slices its
    block, and the result keeps the exact counts (an int on the split axis: replicated),
    with no message; the same result as ``getitem_basic``, without normalizing the key into
    parts. ``None`` for any other key, or where the library refuses it: the general path then
    raises xdist's error."""
    layout = x._layout
    shape, split = layout.shape, layout.split
    if len(items) > len(shape):
        return None
    out_shape: list[int] = []
    strides = model_strides(x)
    out_strides: list[int] = []
    out_axis = None
    local_key: list[Any] = []
    for axis, k in enumerate(items):
        if type(k) is int:
            if axis == split:  # the owner's piece, sent to every rank: the general path,
                if x._comm.size > 1:  # but on one rank that is a view of the block
                    return None
                split = None
            local_key.append(k)
            continue
        if type(k) is not slice or not _plain_slice(k):
            return None
        start, stop, step = k.indices(shape[axis])
        n = len(range(start, stop, step))
        if axis == split:
            out_axis = len(out_shape)
            counts, local_key_split = _slice_counts(layout, x._comm.rank, start, stop, step)
            local_key.append(local_key_split)
        else:
            local_key.append(k)
        out_shape.append(n)
        out_strides.append(strides[axis] * step)
    if split is not None and out_axis is None:  # the split axis after the key: taken whole
        out_axis = len(out_shape) + split - len(items)
        counts = layout.counts
    rest = shape[len(items) :]
    out_shape.extend(rest)
    out_strides.extend(strides[len(items) :])
    try:
        block = x._local[(*local_key, Ellipsis)]
    except (IndexError, TypeError, ValueError):
        return None
    if split is None:  # an int on the split axis, one rank: replicated, as the general path
        out_layout = Layout.replicated(tuple(out_shape))
    else:
        out_layout = Layout.trusted(tuple(out_shape), out_axis, counts)
    out = _array.wrap_block(block, out_layout, x)
    note_strides(out, tuple(out_strides))
    return out


def _slice_counts(layout: Layout, rank: int, start: int, stop: int, step: int):
    """Per rank, how many indices of ``range(start, stop, step)`` (a positive step) fall in
    its block of the split axis (``rank_positions``); and the local slice of ``rank``'s own."""
    if len(layout.counts) == 1:  # one rank holds it all
        return (len(range(start, stop, step)),), slice(start, stop, step)
    if start == 0 and step == 1 and stop == layout.shape[layout.split]:  # the whole axis
        return layout.counts, slice(None)
    r = range(start, stop, step)
    counts, k0, k1 = split_counts(layout, r, rank)
    if k1 == k0:
        mine = slice(0, 0)
    else:
        sub, lo = r[k0:k1], layout.offsets[rank]
        mine = slice(sub.start - lo, sub.stop - lo, step)
    return counts, mine


def getitem_basic(x: _array.Array, key: Any) -> _array.Array:
    """``x[key]`` for a basic key (see the module docstring for what communicates), marked so
    that writes into it reach ``x`` as they do in NumPy."""
    parts = normalize_key(key, x.shape, "__getitem__")
    out, moved = _select(x, parts)
    note_strides(out, selected_strides(model_strides(x), parts))
    return writes_through(out, x, parts, moved or _flipped(parts))


def _select(x: _array.Array, parts: list[Part]) -> tuple[_array.Array, bool]:
    """The selection ``parts`` of ``x``, and whether it moved between ranks."""
    layout, comm, backend = x._layout, x._comm, x._backend
    shape = selected_shape(parts)
    if layout.split is None:
        block = take_parts(x._local, parts, backend)
        return _array.Array._new(block, Layout.replicated(shape), comm, backend), False
    at, out_axis = split_part(parts, layout.split)
    if out_axis is None:
        return _getitem_owner(x, parts, at, shape), comm.size > 1
    counts, k0, k1 = split_counts(layout, parts[at], comm.rank)  # type: ignore[arg-type]
    local = local_parts(parts, at, k0, k1, layout.offsets[comm.rank])
    piece = take_parts(x._local, local, backend)
    if parts[at].step > 0 or counts.count(0) >= len(counts) - 1:  # type: ignore[union-attr]
        # In rank order already (a positive step, or at most one rank holds anything).
        out = Layout.trusted(shape, out_axis, counts)
        return _array.Array._new(piece, out, comm, backend), False
    return _reversed_to_balanced(x, piece, parts[at], shape, out_axis), True


def _getitem_owner(x: _array.Array, parts: list[Part], at: int, shape: tuple[int, ...]):
    """An int on the split axis: the owner's piece, broadcast to every rank (one ``bcast``)."""
    layout, comm, backend = x._layout, x._comm, x._backend
    owner = layout.owner(parts[at])  # type: ignore[arg-type]
    piece = None
    if comm.rank == owner:
        local = list(parts)
        local[at] = parts[at] - layout.offsets[owner]  # type: ignore[operator]
        piece = take_parts(x._local, local, backend)
    if comm.size > 1:  # bcast_block copies, so no rank's result is a view of x's block
        piece = bcast_block(piece, shape, x.dtype, owner, comm, backend, x.device)
    return _array.Array._new(piece, Layout.replicated(shape), comm, backend)


def _reversed_to_balanced(x, piece, r: range, shape, out_axis) -> _array.Array:
    """A negative step ``r`` on the split axis: rank q holds the result's positions
    ``[k0[q], k1[q])``, in reverse rank order; one all-to-all moves them to balanced blocks
    in rank order. Only this rank's moves are listed (its piece against the balanced blocks
    it meets, and the pieces meeting its balanced block): ``O(p)`` NumPy, not ``p^2`` boxes."""
    comm, backend, me = x._comm, x._backend, x._comm.rank
    target = Layout.balanced(shape, out_axis, comm.size)
    k0, k1 = slice_positions(x._layout, r)

    def held(q: int) -> tuple[slice, ...]:
        box = [slice(0, n) for n in shape]
        box[out_axis] = slice(int(k0[q]), int(k1[q]))
        return tuple(box)

    mine = held(me)
    moves = []
    for dst in target.ranks_meeting(mine, comm.size) if k1[me] > k0[me] else ():
        common = intersect(mine, target.local_slice(dst), shape)
        if common is not None:
            moves.append((me, dst, common))
    lo, hi = target.local_range(me)
    for src in np.nonzero((k0 < hi) & (k1 > lo) & (k1 > k0))[0].tolist():
        common = intersect(held(src), target.local_slice(me), shape)
        if common is not None and src != me:
            moves.append((src, me, common))
    block = exchange_boxes(
        [(piece, moves, [s.start for s in mine])],
        PerRank(target.local_shape),
        PerRank(target.origin),
        x.dtype,
        comm,
        backend,
        x.device,
    )
    return _array.Array._new(block, target, comm, backend)


# -- setitem ------------------------------------------------------------------------------------
def setitem_direct(x: _array.Array, items: tuple, value: Any) -> bool:
    """``x[items] = value`` where it needs no message and no plan: ints and slices of int
    bounds and a positive step, in range, and a Python scalar (of the standard's kinds for
    ``x``) or a replicated 0-d array of ``x``'s dtype. Each rank writes what it holds of the
    selection into its block (an int on the split axis: the owner alone), as
    ``setitem_basic`` does, without normalizing the key or planning what to fetch: loops of
    such writes are common (scikit-learn fills a diagonal with ``array[i, i] = value``).
    ``False``, having written nothing, for any other key or value: the general path then
    writes or raises xdist's error."""
    layout = x._layout
    shape, split = layout.shape, layout.split
    if len(items) > len(shape):
        return False
    if type(value) in (float, int, bool, complex):
        try:
            check_value(x, value, ())
        except (TypeError, OverflowError):
            return False
    elif not (
        isinstance(value, _array.Array)
        and value._layout.shape == ()
        and value._comm is x._comm
        and value._backend is x._backend
        and value.dtype == x.dtype
    ):
        return False
    key: list[Any] = []
    held = True  # whether this rank holds the selection (an int on the split axis)
    for axis, k in enumerate(items):
        n = shape[axis]
        if type(k) is int:
            if not -n <= k < n:
                return False
            k = k + n if k < 0 else k
            if axis == split:
                lo = layout.offsets[x._comm.rank]
                held = lo <= k < lo + layout.counts[x._comm.rank]
                k -= lo
        elif type(k) is slice:
            if not _plain_slice(k):
                return False
            if axis == split:
                _, k = _slice_counts(layout, x._comm.rank, *k.indices(n))
        else:
            return False
        key.append(k)
    if not held:  # another rank holds the element: nothing to write here
        return True
    if isinstance(value, _array.Array):
        x._local[(*key, Ellipsis)] = writable_source(x, value._local)
    else:
        x._backend.write_number(x._local, (*key, Ellipsis), value)
    return True


def _takes_split(x: _array.Array, parts: list[Part], value: Any) -> bool:
    """Whether replicated ``x`` takes the split of ``value`` before ``x[parts] = value``,
    and if so takes it: ``x`` was made replicated by default (``_placement.unplaced``), is
    larger than ``gather_warning_elements``, and nothing but ``x`` refers to its block (no
    view, never handed out); ``value`` is split along an axis that ``parts`` selects whole,
    in a run of whose rows each rank holds within its balanced share, or in a stride that
    spans it (``_taken_layout``).
    Then each rank keeps its rows of ``x`` (the same on every rank: nothing moves) and
    receives only its rows of ``value``, instead of all of them. Collective (one allreduce
    of a flag) where ``x`` and ``value`` qualify by their metadata."""
    if not (isinstance(value, _array.Array) and value.split is not None and takes_split(x)):
        return False
    chosen = [i for i, p in enumerate(parts) if type(p) is range]
    if len(chosen) < value.ndim:
        return False
    axis = chosen[len(chosen) - value.ndim + value.split]
    layout = _taken_layout(x.shape, axis, parts[axis], value)
    if layout is None:
        return False
    return take_layout(x, layout, all_ranks(alone(x), x._comm))


def alone(x: _array.Array) -> bool:
    """Whether nothing but ``x`` refers to its block: no view of it, never handed out (the
    caller holds no reference to the block); where the block views another (a reshape's),
    nothing but the block refers to that one either."""
    block = x._local
    # the slot and this name hold the block, and getrefcount's argument: nothing else
    if x._writeback is not None or not kept(block) or sys.getrefcount(block) > 3:
        return False
    base = viewed(block)
    # the view, this name and getrefcount's argument
    return base is None or sys.getrefcount(base) <= 3


def take_layout(x: _array.Array, layout: Layout, agreed: bool) -> bool:
    """Give ``x`` (replicated, ``unplaced``) ``layout`` where every rank ``agreed`` (``alone``,
    agreed by the caller's collective): each rank keeps its rows of the block, the same on
    every rank, so nothing moves. Either way ``x``'s layout is settled (``placed``)."""
    if agreed:
        mine = x._backend.xp.asarray(x._local[layout.local_slice(x._comm.rank)], copy=True)
        x._local, x._layout = mine, layout
        keep(mine)
    placed(x)
    return agreed


def takes_split(x: _array.Array) -> bool:
    """Whether ``x`` may take the split of split data written into it: made replicated by
    default (``_placement.unplaced``) and larger than ``gather_warning_elements``."""
    return unplaced(x) and math.prod(x.shape) > get_config().gather_warning_elements


def _taken_layout(shape: tuple[int, ...], axis: int, part: range, value: Any) -> Layout | None:
    """The split along ``axis`` that an array of ``shape`` replicated by default takes from
    ``value``, split along the axis ``part`` selects of it, or ``None``: ``value``'s counts
    where ``part`` is the whole axis; where it is a run of it (a batch of rows: scikit-learn's
    float32 distances, filled by batches), the balanced split, if every rank's rows of
    ``value`` fall in its own balanced rows (rows split as data of ``shape[axis]`` rows are);
    where it is a stride that spans the axis (an interleaved fill, ``out[..., ::2] = a;
    out[..., 1::2] = b``: SciPy's ``cumulative_simpson``), the split whose blocks start where
    each rank's rows of ``value`` land (``value``'s counts, stretched by the stride), so the
    later writes of the other strides move only their own elements."""
    n = shape[axis]
    if value.shape[value.split] != len(part):
        return None
    if part == range(0, n):
        return Layout(shape, axis, value.counts)
    if part.step > 1 and len(part) and part.start < part.step and part[-1] >= n - 2 * part.step:
        starts = [0] + [min(part.start + part.step * lo, n) for lo in value.offsets[1:]]
        counts = [b - a for a, b in zip(starts, [*starts[1:], n])]
        return Layout(shape, axis, tuple(counts))
    if part.step != 1:
        return None
    balanced = Layout.balanced(shape, axis, len(value.counts))
    for lo, c, start, held in zip(value.offsets, value.counts, balanced.offsets, balanced.counts):
        first = part.start + lo  # where this rank's rows of value go
        if c and not (start <= first and first + c <= start + held):
            return None
    return balanced


def setitem_basic(x: _array.Array, key: Any, value: Any) -> list[Part]:
    """``x[key] = value`` for a basic key: each rank writes the selected elements it owns.
    Returns the key's parts (what was written, for ``x``'s write-back)."""
    parts = normalize_key(key, x.shape, "__setitem__")
    shape = selected_shape(parts)
    check_value(x, value, shape)
    layout, rank, size = x._layout, x._comm.rank, x._comm.size
    if layout.split is None and not _takes_split(x, parts, value):
        write_parts(x, parts, fetch_value(value, [full_box(value)] * size))
        return parts
    layout = x._layout
    at, out_axis = split_part(parts, layout.split)
    offset = layout.offsets[rank]
    if out_axis is None:  # an int: only the owner writes, and it needs all of value
        owner = layout.owner(parts[at])  # type: ignore[arg-type]
        want = [full_box(value) if q == owner else None for q in range(size)]
        piece = fetch_value(value, want)
        if rank == owner:
            local = list(parts)
            local[at] = parts[at] - offset  # type: ignore[operator]
            write_parts(x, local, piece)
        return parts
    ranks = rank_positions(layout, parts[at])  # type: ignore[arg-type]
    want = [wanted(value, shape, out_axis, k0, k1) for k0, k1 in ranks]
    piece = fetch_value(value, want)
    k0, k1 = ranks[rank]
    if k1 > k0:
        write_parts(x, local_parts(parts, at, k0, k1, offset), piece)
    return parts
