"""Indexing of the standard (``x[key]`` and ``x[key] = value``) on distributed arrays.

This module does basic indexing and dispatches the other keys: integer arrays to
``_array_indexing``, a sole boolean mask to ``_mask_indexing`` (see their docstrings).

A key (ints, slices, ``None``, ``Ellipsis``, 0-d integer arrays, or a tuple of them) is first
normalized from global metadata only, so a bad key raises on every rank before any message.
Each axis of ``x`` is then selected by an ``int`` or by a ``range`` of its indices, and
``None`` inserts a new axis. What travels depends on what selects the split axis:

- ``x`` replicated, or any axis but the split one: each rank indexes its block (no message);
- a slice with a positive step: the data stays where it is; each rank keeps the selected
  indices it owns and the result is split along the renumbered axis with those exact (uneven)
  counts, all computed from the layout (no message);
- a slice with a negative step: the selected indices come in reverse order, so the pieces of
  the ranks are in reverse rank order. Each rank selects its piece locally, then one
  all-to-all moves them to a balanced layout of the result;
- an int: the axis disappears and one rank owns all the data; it broadcasts its piece (one
  ``bcast``) and the result is replicated.

``x[key] = value`` writes on each rank only the selected elements that rank owns. A Python
scalar or a replicated ``value`` is sliced locally (no message); a split ``value`` sends only
the parts that are not already on the rank that writes them (one all-to-all, or one allgather
when every rank needs all of it). ``x`` keeps its layout and dtype.

Backends such as PyTorch cannot slice with a negative step, so a negative step is taken as the
same elements with a positive step, then flipped.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout
from .._movement.broadcast import broadcast_shapes
from .._movement.gathers import implicit_gather
from .._movement.redistribute import exchange_boxes

__all__: list[str] = []

# One selector per axis of x, or None for a new axis.
Part = int | range | None
Box = tuple[slice, ...]

_SCALARS = (bool, int, float, complex)
_KINDS = {"b": "b", "i": "iu", "u": "iu", "f": "fc", "c": "fc"}


# -- key normalization (global metadata only: no message) ------------------------------------
def _bad_item(k: Any, func: str) -> IndexError:
    what = type(k).__name__
    if isinstance(k, (np.ndarray, list)) or isinstance(k, (bool, np.bool_)):
        return IndexError(
            f"{func}: lists, Python booleans and NumPy arrays of other than integers or "
            f"booleans are not valid indices; use integer or boolean arrays; got a {what} key "
            f"{_short(k)}"
        )
    if isinstance(k, _array.Array):
        return IndexError(
            f"{func}: an array index must have an integer or boolean dtype, got {k.dtype}"
        )
    return IndexError(
        f"{func}: only integers, slices, None, Ellipsis and 0-d integer arrays are valid "
        f"indices, got {what} {_short(k)}"
    )


def _short(k: Any) -> str:
    text = repr(k)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_int(k: Any) -> int | None:
    """``k`` as a Python int when it is an integer index, else ``None``."""
    if isinstance(k, (bool, np.bool_)):
        return None
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, _array.Array) and k.ndim == 0 and k.dtype.kind in "iu":
        # A 0-d array is never split, so __index__ reads the local block (no message).
        return operator.index(k)
    return None


def _check_slice(s: slice, func: str) -> slice:
    if all(v is None or type(v) is int for v in (s.start, s.stop, s.step)):  # the common case
        out = s
    else:
        bounds = []
        for name in ("start", "stop", "step"):
            v = getattr(s, name)
            if v is not None:
                v = _as_int(v)
                if v is None:
                    bad = _short(getattr(s, name))
                    raise TypeError(f"{func}: slice {name} must be an integer or None, got {bad}")
            bounds.append(v)
        out = slice(*bounds)
    if out.step == 0:
        raise ValueError(f"{func}: slice step cannot be zero in {s}")
    return out


def _check_item(k: Any, func: str) -> Any:
    if k is None or k is Ellipsis or type(k) is int:
        return k
    if isinstance(k, slice):
        return _check_slice(k, func)
    i = _as_int(k)
    if i is None:
        raise _bad_item(k, func)
    return i


def normalize_key(key: Any, shape: tuple[int, ...], func: str) -> list[Part]:
    """One part per item of the expanded key: an in-range int or a ``range`` of indices for
    each axis of ``shape`` (in order), and ``None`` for each new axis."""
    items = [_check_item(k, func) for k in (key if isinstance(key, tuple) else (key,))]
    n_ellipsis = n_new = 0
    for k in items:
        if k is Ellipsis:
            n_ellipsis += 1
        elif k is None:
            n_new += 1
    if n_ellipsis > 1:
        raise IndexError(f"{func}: an index can only have a single Ellipsis, got {n_ellipsis}")
    n_index = len(items) - n_ellipsis - n_new
    if n_index > len(shape):
        raise IndexError(
            f"{func}: too many indices for an array of {len(shape)} dimensions: {n_index} given"
        )
    fill = [slice(None)] * (len(shape) - n_index)
    if n_ellipsis:
        at = next(i for i, k in enumerate(items) if k is Ellipsis)
        items[at : at + 1] = fill
    else:
        items += fill
    parts: list[Part] = []
    axis = 0
    for k in items:
        if k is None:
            parts.append(None)
            continue
        n = shape[axis]
        if isinstance(k, slice):
            parts.append(range(*k.indices(n)))
        elif -n <= k < n:
            parts.append(k % n)
        else:
            raise IndexError(f"{func}: index {k} is out of bounds for axis {axis} with size {n}")
        axis += 1
    return parts


def selected_shape(parts: list[Part]) -> tuple[int, ...]:
    return tuple(1 if p is None else len(p) for p in parts if not isinstance(p, int))


def _split_part(parts: list[Part], split: int) -> tuple[int, int | None]:
    """Where the split axis is in ``parts``, and the result axis it becomes (None for an int)."""
    in_axis = out_axis = 0
    for i, p in enumerate(parts):
        if p is not None and in_axis == split:
            return i, None if isinstance(p, int) else out_axis
        if p is not None:
            in_axis += 1
        if not isinstance(p, int):
            out_axis += 1
    raise AssertionError("unreachable: every axis has a part")


def _positions(r: range, lo: int, hi: int) -> tuple[int, int]:
    """The positions ``[k0, k1)`` in ``r`` of its elements within ``[lo, hi)`` (contiguous)."""
    if r.step > 0:
        return bisect_left(r, lo), bisect_left(r, hi)
    ascending = r[::-1]
    n = len(r)
    return n - bisect_left(ascending, hi), n - bisect_left(ascending, lo)


def _local_parts(parts: list[Part], at: int, k0: int, k1: int, offset: int) -> list[Part]:
    """``parts`` with the split axis part keeping positions ``[k0, k1)``, in block indices."""
    sub = parts[at][k0:k1]  # type: ignore[index]
    out = list(parts)
    out[at] = range(sub.start - offset, sub.stop - offset, sub.step)
    return out


def _rank_positions(layout: Layout, r: range) -> list[tuple[int, int]]:
    """``_positions`` of every rank's block (global metadata: no message)."""
    nranks = len(layout.counts)  # type: ignore[arg-type]
    return [_positions(r, *layout.local_range(q)) for q in range(nranks)]


# -- local selection ---------------------------------------------------------------------------
def _local_key(parts: list[Part]) -> tuple[tuple, tuple[int, ...]]:
    """A key every backend accepts (positive steps only) and the result axes to flip."""
    key: list[Any] = []
    flips: list[int] = []
    out_axis = 0
    for p in parts:
        if isinstance(p, int):
            key.append(p)
            continue
        if isinstance(p, range):
            if p.step < 0:
                if len(p) > 1:
                    flips.append(out_axis)
                p = p[::-1]
            key.append(slice(p.start, p.stop, p.step) if len(p) else slice(0, 0))
        else:
            key.append(None)
        out_axis += 1
    return tuple(key), tuple(flips)


def _take(block: Any, parts: list[Part], backend: Any) -> Any:
    key, flips = _local_key(parts)
    out = block[(*key, Ellipsis)]  # a trailing Ellipsis keeps NumPy from returning a scalar
    if not backend.is_block(out):
        out = backend.asarray(out)
    return backend.xp.flip(out, axis=flips) if flips else out


# -- getitem ---------------------------------------------------------------------------------
def host_keys(x: _array.Array, key: Any) -> Any:
    """``key`` with NumPy integer and boolean arrays made replicated xdist arrays (no
    message: under SPMD every rank passes the same key). Libraries written against the
    standard sometimes index with NumPy arrays they computed on the host (scikit-learn's
    discriminant analysis does); the standard does not require accepting them."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, np.ndarray) for k in items):
        return key

    def convert(k):
        if not isinstance(k, np.ndarray) or k.dtype.kind not in "biu":
            return k
        block = x._backend.from_host(np.ascontiguousarray(k), x.device)
        return _array.Array._new(block, Layout.replicated(k.shape), x._comm, x._backend)

    items = tuple(convert(k) for k in items)
    return items if isinstance(key, tuple) else items[0]


def _mask_key(key: Any, ndim: int) -> Any:
    """``mask`` for ``mask``, ``(mask,)``, ``(mask, ...)`` or ``(mask, :, ..., :)`` (with
    no more axes than the array has): trailing full slices select nothing more, so they are
    the sole-mask case of the standard. ``None`` for any other key."""
    items = key if isinstance(key, tuple) else (key,)
    mask, rest = items[0], items[1:]
    if not isinstance(mask, _array.Array) or mask.dtype != np.bool_:
        return None
    slices = sum(k == slice(None) for k in rest if k is not Ellipsis)
    ellipses = sum(k is Ellipsis for k in rest)
    if slices + ellipses != len(rest) or ellipses > 1 or mask.ndim + slices > ndim:
        return None
    return mask


def _key_kind(key: Any, ndim: int, func: str) -> str:
    """``"mask"`` (a sole boolean array), ``"array"`` (integer arrays) or ``"basic"``."""
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, _array.Array) and k.dtype == np.bool_ for k in items):
        if _mask_key(key, ndim) is None:
            raise IndexError(
                f"{func}: a boolean array must be the sole index (or be followed only by full "
                f"slices), got a key of {len(items)} items"
            )
        return "mask"
    if any(isinstance(k, _array.Array) and k.ndim > 0 for k in items):
        return "array"
    return "basic"


_BASIC = (int, slice, type(None), type(Ellipsis))  # exact types: bool is refused later


def getitem(x: _array.Array, key: Any) -> _array.Array:
    """``x[key]``: basic indexing here (see the module docstring for what communicates);
    integer arrays in ``_array_indexing``, a boolean mask in ``_mask_indexing``."""
    items = key if isinstance(key, tuple) else (key,)
    if all(type(k) in _BASIC for k in items):  # ints, slices, None, Ellipsis: no arrays
        kind = "basic"
    else:
        key = host_keys(x, key)
        mask = _mask_key(key, x.ndim)
        if mask is not None:
            from .masks import getitem_mask

            return getitem_mask(x, mask)
        kind = _key_kind(key, x.ndim, "__getitem__")  # raises for a misplaced mask
    if kind == "array":
        from .integer_arrays import getitem_arrays

        return getitem_arrays(x, key)
    layout, comm, backend = x._layout, x._comm, x._backend
    if layout.split is None:
        out = _replicated_basic(x, items)
        if out is not None:
            return out
    parts = normalize_key(key, x.shape, "__getitem__")
    shape = selected_shape(parts)
    if layout.split is None:
        return _array.Array._new(
            _take(x._local, parts, backend), Layout.replicated(shape), comm, backend
        )
    at, out_axis = _split_part(parts, layout.split)
    offset = layout.offsets[comm.rank]
    if out_axis is None:
        return _getitem_owner(x, parts, at, shape)
    ranks = _rank_positions(layout, parts[at])  # type: ignore[arg-type]
    k0, k1 = ranks[comm.rank]
    piece = _take(x._local, _local_parts(parts, at, k0, k1, offset), backend)
    counts = tuple(b - a for a, b in ranks)
    if parts[at].step > 0 or sum(c > 0 for c in counts) <= 1:  # type: ignore[union-attr]
        # In rank order already (a positive step, or at most one rank holds anything).
        return _array.Array._new(piece, Layout(shape, out_axis, counts), comm, backend)
    return _reversed_to_balanced(x, piece, ranks, shape, out_axis)


def _replicated_basic(x: _array.Array, items: tuple) -> _array.Array | None:
    """``x[items]`` for a replicated ``x`` and ints, ``None``, ``Ellipsis`` and slices of
    int bounds and a positive step (what every backend slices alike), by the library
    directly: the same view as the general path (an Ellipsis is appended so that NumPy gives
    a 0-d array, not a scalar), in half its time. ``None`` where anything else is in
    the key or the library refuses it: the general path then raises xdist's error."""
    ellipsis = False
    for k in items:
        if k is Ellipsis:
            if ellipsis:  # Torch takes two
                return None
            ellipsis = True
        elif type(k) is slice:
            start, stop, step = k.start, k.stop, k.step
            if not (
                (start is None or type(start) is int)
                and (stop is None or type(stop) is int)
                and (step is None or (type(step) is int and step > 0))
            ):
                return None
        elif not (k is None or type(k) is int):
            return None
    try:
        block = x._local[items if ellipsis else (*items, Ellipsis)]
    except (IndexError, TypeError, ValueError):
        return None
    return _array.wrap_block(block, Layout.replicated(tuple(block.shape)), x)


def _getitem_owner(x: _array.Array, parts: list[Part], at: int, shape: tuple[int, ...]):
    """An int on the split axis: the owner's piece, broadcast to every rank (one ``bcast``)."""
    layout, comm, backend = x._layout, x._comm, x._backend
    owner = layout.owner(parts[at])  # type: ignore[arg-type]
    piece = None
    if comm.rank == owner:
        local = list(parts)
        local[at] = parts[at] - layout.offsets[owner]  # type: ignore[operator]
        piece = _take(x._local, local, backend)
    if comm.size > 1:
        if piece is not None:  # a copy, so that no rank's result is a view of x's block
            host = np.array(backend.to_host(piece), copy=True).reshape(shape)
        else:
            host = np.empty(shape, dtype=x.dtype)
        piece = backend.from_host(comm.bcast(host, owner).reshape(shape), x.device)
    return _array.Array._new(piece, Layout.replicated(shape), comm, backend)


def _reversed_to_balanced(x, piece, ranks, shape, out_axis) -> _array.Array:
    """A negative step on the split axis: rank q holds result positions ``ranks[q]``, in
    reverse rank order; one all-to-all moves them to balanced blocks in rank order."""
    comm, backend = x._comm, x._backend
    target = Layout.balanced(shape, out_axis, comm.size)
    full = [slice(0, n) for n in shape]
    moves = []
    for src, (k0, k1) in enumerate(ranks):
        for dst in range(comm.size):
            lo, hi = target.local_range(dst)
            box = _replace(full, out_axis, max(k0, lo), min(k1, hi))
            if _volume(box):
                moves.append((src, dst, box))
    origin = [0] * len(shape)
    origin[out_axis] = ranks[comm.rank][0]
    block = exchange_boxes(
        [(piece, moves, origin)],
        [target.local_shape(r) for r in range(comm.size)],
        [_origin(target.local_range(r)[0], out_axis, len(shape)) for r in range(comm.size)],
        x.dtype,
        comm,
        backend,
        x.device,
    )
    return _array.Array._new(block, target, comm, backend)


def _replace(box: list[slice], axis: int, lo: int, hi: int) -> Box:
    out = list(box)
    out[axis] = slice(lo, max(lo, hi))
    return tuple(out)


def _volume(box: Box) -> int:
    return int(np.prod([s.stop - s.start for s in box], dtype=np.int64))


def _origin(start: int, axis: int, ndim: int) -> list[int]:
    origin = [0] * ndim
    origin[axis] = start
    return origin


# -- setitem ---------------------------------------------------------------------------------
def _check_value(x: _array.Array, value: Any, shape: tuple[int, ...]) -> None:
    """``value`` may be written into ``x[key]`` (of ``shape``): the standard's rules."""
    if isinstance(value, _array.Array):
        _check_array_value(x, value, shape)
    elif isinstance(value, _SCALARS):
        _check_scalar_value(x, value)
    else:
        raise TypeError(
            f"__setitem__: value must be an xdist array or a Python scalar, "
            f"got {type(value).__name__}"
        )


def _check_array_value(x: _array.Array, value: _array.Array, shape: tuple[int, ...]) -> None:
    """Same kind of dtype, promoting to the dtype of ``x``, and broadcast to ``shape``."""
    func = "__setitem__"
    if value._comm is not x._comm:
        raise ValueError(f"{func}: value lives on a different communicator than the array")
    vt, xt = value.dtype, x.dtype
    if _KINDS[vt.kind] != _KINDS[xt.kind] or np.promote_types(vt, xt) != xt:
        raise TypeError(f"{func}: cannot store a value of {vt} in an array of {xt}")
    if value.ndim > len(shape) or broadcast_shapes([shape, value.shape], func) != shape:
        raise ValueError(
            f"{func}: value of shape {value.shape} cannot be broadcast to the selection {shape}"
        )


def _check_scalar_value(x: _array.Array, value: Any) -> None:
    """The standard's mixing of Python scalars with arrays (an int must fit the dtype)."""
    func = "__setitem__"
    kind = x.dtype.kind
    ok = {bool: kind == "b", int: kind in "iufc", float: kind in "fc", complex: kind == "c"}
    if not ok[_scalar_type(value)]:
        raise TypeError(
            f"{func}: cannot store a Python {type(value).__name__} in an array of {x.dtype}"
        )
    if _scalar_type(value) is int and kind in "iu":
        info = np.iinfo(x.dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{func}: {value} is out of bounds for {x.dtype}")


def _scalar_type(value: Any) -> type:
    return next(t for t in _SCALARS if isinstance(value, t))


def setitem(x: _array.Array, key: Any, value: Any) -> None:
    """``x[key] = value``: each rank writes the selected elements it owns."""
    key = host_keys(x, key)
    kind = _key_kind(key, x.ndim, "__setitem__")
    if kind == "mask":
        from .masks import setitem_mask

        setitem_mask(x, _mask_key(key, x.ndim), value)
        return
    if kind == "array":
        from .integer_arrays import setitem_arrays

        setitem_arrays(x, key, value)
        return
    parts = normalize_key(key, x.shape, "__setitem__")
    shape = selected_shape(parts)
    _check_value(x, value, shape)
    layout, rank, size = x._layout, x._comm.rank, x._comm.size
    if layout.split is None:
        _write(x, parts, _fetch(value, [_full(value)] * size))
        return
    at, out_axis = _split_part(parts, layout.split)
    offset = layout.offsets[rank]
    if out_axis is None:  # an int: only the owner writes, and it needs all of value
        owner = layout.owner(parts[at])  # type: ignore[arg-type]
        want = [_full(value) if q == owner else None for q in range(size)]
        piece = _fetch(value, want)
        if rank == owner:
            local = list(parts)
            local[at] = parts[at] - offset  # type: ignore[operator]
            _write(x, local, piece)
        return
    ranks = _rank_positions(layout, parts[at])  # type: ignore[arg-type]
    want = [_wanted(value, shape, out_axis, k0, k1) for k0, k1 in ranks]
    piece = _fetch(value, want)
    k0, k1 = ranks[rank]
    if k1 > k0:
        _write(x, _local_parts(parts, at, k0, k1, offset), piece)


def _full(value: Any) -> Box | None:
    if not isinstance(value, _array.Array):
        return None
    return tuple(slice(0, n) for n in value.shape)


def _wanted(value: Any, shape: tuple[int, ...], out_axis: int, k0: int, k1: int) -> Box | None:
    """The box of ``value`` a rank writing positions ``[k0, k1)`` of ``out_axis`` needs."""
    if not isinstance(value, _array.Array) or k1 <= k0:
        return None
    axis = out_axis - (len(shape) - value.ndim)
    box = list(_full(value))  # type: ignore[arg-type]
    if axis >= 0 and value.shape[axis] == shape[out_axis]:  # not broadcast along that axis
        box[axis] = slice(k0, k1)
    return tuple(box)


def _fetch(value: Any, want: list[Box | None]) -> Any:
    """This rank's box ``want[rank]`` of ``value``; only what is not local moves."""
    if not isinstance(value, _array.Array):
        return value
    layout, comm, backend = value._layout, value._comm, value._backend
    mine = want[comm.rank]
    if value.size == 0:  # nothing to move (global, so every rank agrees)
        shape_of = None if mine is None else tuple(b.stop - b.start for b in mine)
        return None if mine is None else backend.empty(shape_of, value.dtype, value.device)
    if layout.split is None or comm.size == 1:
        return None if mine is None else value._local[mine]
    boxes = [_resolve(layout.local_slice(q), layout.shape) for q in range(comm.size)]
    if all(w is None or _inside(w, boxes[q]) for q, w in enumerate(want)):
        return None if mine is None else value._local[_shift(mine, boxes[comm.rank])]
    if all(w == _full(value) for w in want):
        return implicit_gather(value._local, layout, comm, backend, "__setitem__")
    moves = []
    for dst, w in enumerate(want):
        for src in range(comm.size):
            box = _intersect(boxes[src], w) if w is not None else None
            if box is not None:
                moves.append((src, dst, box))
    empty = (0,) * value.ndim
    return exchange_boxes(
        [(value._local, moves, [s.start for s in boxes[comm.rank]])],
        [empty if w is None else tuple(s.stop - s.start for s in w) for w in want],
        [[0] * value.ndim if w is None else [s.start for s in w] for w in want],
        value.dtype,
        comm,
        backend,
        value.device,
    )


def _resolve(box: tuple[slice, ...], shape: tuple[int, ...]) -> Box:
    return tuple(slice(*s.indices(n)[:2]) for s, n in zip(box, shape))


def _inside(inner: Box, outer: Box) -> bool:
    return all(o.start <= i.start and i.stop <= o.stop for i, o in zip(inner, outer))


def _intersect(a: Box, b: Box) -> Box | None:
    box = tuple(slice(max(p.start, q.start), min(p.stop, q.stop)) for p, q in zip(a, b))
    return box if all(s.stop > s.start for s in box) else None


def _shift(box: Box, origin: Box) -> Box:
    return tuple(slice(s.start - o.start, s.stop - o.start) for s, o in zip(box, origin))


def _write(x: _array.Array, parts: list[Part], piece: Any) -> None:
    """Write ``piece`` (a Python scalar, or a block broadcastable to the local selection)."""
    key, flips = _local_key(parts)
    if isinstance(piece, _SCALARS):
        x._local[key] = piece
        return
    xp = x._backend.xp
    # A copy: ``piece`` may be a view of x's own block (``x[1:] = x[:-1]``), which PyTorch
    # refuses to write from.
    piece = xp.astype(piece, x._local.dtype, copy=True)
    piece = xp.broadcast_to(piece, selected_shape(parts))
    x._local[key] = xp.flip(piece, axis=flips) if flips else piece
