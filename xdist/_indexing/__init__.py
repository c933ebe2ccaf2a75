"""Indexing of the standard (``x[key]`` and ``x[key] = value``) on distributed arrays.

``getitem`` and ``setitem`` (the functions behind ``Array.__getitem__``/``__setitem__``)
dispatch each key to one module of this package, each saying what it communicates:

- ``keys``: reading a key from global metadata (no message): checks, kinds, parts;
- ``basic``: ints, slices, ``None`` and ``Ellipsis`` (described below);
- ``integer_arrays``: integer-array keys; ``masks``: a sole boolean mask;
- ``gather_scatter``: reading and writing elements at global coordinates, by their owners
  (shared by integer arrays, masks, ``take`` and ``take_along_axis``);
- ``values``: the value of ``x[key] = value``: checks, the boxes each rank writes, the write.

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

A write into the result of a basic key is seen in ``x``, as in NumPy, at every rank count:
where the result is a view of ``x``'s block the memory is shared; where it had to move (an
int or a negative step on the split axis, at more than one rank) or was flipped by a library
that copies flips, it holds a write-back (``basic.Selection``: ``x`` and the key) that
``setitem`` hands each write: ``r[k] = v`` goes back as the elements ``k`` alone, an
in-place operator as all of ``r`` (no message for a replicated ``r``; the way back of the
all-to-all for a reversed one). Views of such a result hold write-backs that pass their
writes on. Writes into ``x`` after ``r`` moved are not seen in ``r`` (NumPy would show them), so an
in-place operator on ``r`` then computes from, and writes back, its older values. Integer-array
and mask keys give copies, as in NumPy: nothing is written back.

``x[key] = value`` writes on each rank only the selected elements that rank owns. A Python
scalar or a replicated ``value`` is sliced locally (no message); a split ``value`` sends only
the parts that are not already on the rank that writes them (one all-to-all, or one allgather
when every rank needs all of it). ``x`` keeps its layout and dtype.

Backends such as PyTorch cannot slice with a negative step, so a negative step is taken as the
same elements with a positive step, then flipped.
"""

from __future__ import annotations

from typing import Any

from .. import _array
from .basic import getitem_basic, replicated_basic, setitem_basic, setitem_direct, split_basic
from .integer_arrays import getitem_arrays, setitem_arrays
from .keys import BASIC, host_keys, key_kind, mask_key
from .masks import getitem_mask, setitem_mask
from .values import as_value

__all__ = ["getitem", "setitem"]


def getitem(x: _array.Array, key: Any) -> _array.Array:
    """``x[key]``: basic keys in ``basic``, integer arrays in ``integer_arrays``, a boolean
    mask in ``masks`` (see the package docstring for what communicates)."""
    items = key if isinstance(key, tuple) else (key,)
    if all(type(k) in BASIC for k in items):  # ints, slices, None, Ellipsis: no arrays
        # The hot path: the library indexes the block. Not for an array that holds a
        # write-back (a copy, or a view of one): the general path gives the result its own.
        if x._writeback is None:
            fast = replicated_basic if x._layout.split is None else split_basic
            out = fast(x, items)
            if out is not None:
                return out
        return getitem_basic(x, key)
    key = host_keys(x, key)
    mask = mask_key(key, x.ndim)
    if mask is not None:
        return getitem_mask(x, mask)
    if key_kind(key, x.ndim, "__getitem__") == "array":  # raises for a misplaced mask
        return getitem_arrays(x, key)
    return getitem_basic(x, key)


def setitem(x: _array.Array, key: Any, value: Any) -> None:
    """``x[key] = value``: each rank writes the selected elements it owns; a view that holds a
    write-back (``_array.WriteBack``) then hands it the write. NumPy's scalars and arrays are
    taken as values (``values.as_value``)."""
    if not isinstance(value, (bool, int, float, complex, _array.Array)):
        value = as_value(x, value)
    back = x._writeback
    if back is None:  # the hot path: a basic key, a scalar value, no message
        items = key if isinstance(key, tuple) else (key,)
        if all(type(k) in BASIC for k in items) and setitem_direct(x, items, value):
            return
    key = host_keys(x, key)
    kind = key_kind(key, x.ndim, "__setitem__")
    written = None  # integer-array and mask keys: the write-back takes all of x
    if kind == "mask":
        setitem_mask(x, mask_key(key, x.ndim), value)
    elif kind == "array":
        setitem_arrays(x, key, value)
    else:
        written = setitem_basic(x, key, value)
    if back is not None and not _selects_nothing(written):
        back.written(x, written)


def _selects_nothing(parts: list | None) -> bool:
    """Whether the parts of a basic key select no element (nothing to write back)."""
    return parts is not None and any(type(p) is range and not len(p) for p in parts)
