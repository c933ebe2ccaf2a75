"""What fused execution (``_fusion``) must know in every layer: the arrays whose block is
not made yet, and the blocks a pending chain may read later without a copy.

An array whose block is not made yet may read other arrays' blocks when it is made. So
before xdist writes into any block (``__setitem__``, the in-place operators, NumPy's in-place
functions) and before it hands a block out (``.local``, DLPack), ``settle()`` makes every
pending block, and every array noted by ``read_later`` that reads the memory written or
handed out; and a fused chain reads later, without copying, only blocks that no one
outside xdist can write: those xdist allocated itself and never handed out (``keep``,
``kept``, ``hand_out``).
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

import numpy as np

__all__ = [
    "PENDING",
    "hand_out",
    "keep",
    "keep_result",
    "kept",
    "pend",
    "read_later",
    "settle",
    "viewed",
]

PENDING: dict[int, weakref.ref] = {}  # id -> the pending array (``pend``)
_KEPT: dict[int, weakref.ref] = {}
# id -> (an array made later, the block it reads then): ``read_later``
_READERS: dict[int, tuple[weakref.ref, Any]] = {}


def pend(x: Any) -> None:
    """Note ``x`` as pending: its block is made by ``settle`` if not before (it removes
    itself from ``PENDING`` when made)."""
    key = id(x)
    PENDING[key] = weakref.ref(x, lambda _, key=key: PENDING.pop(key, None))


def read_later(x: Any, block: Any) -> None:
    """Note that making ``x`` (an array whose block is not made yet) reads ``block``, memory
    that only xdist can write (``kept``): ``settle`` makes ``x`` before xdist writes where
    ``block``'s memory may be, or hands it out; other writes leave ``x`` pending."""
    key = id(x)
    _READERS[key] = (weakref.ref(x, lambda _, key=key: _READERS.pop(key, None)), block)


def _may_share(a: Any, b: Any) -> bool:
    """Whether two blocks may share memory: NumPy's bounds test for NumPy arrays, one
    storage for Torch tensors, else one owner of the memory they view."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b))
    if hasattr(a, "untyped_storage") and hasattr(b, "untyped_storage"):
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    owners = [block if viewed(block) is None else viewed(block) for block in (a, b)]
    return owners[0] is owners[1]


def settle(written: Any = None) -> None:
    """Make the block of every pending array, and of every array noted by ``read_later``
    that reads the memory of the block ``written`` (``None``: of any block)."""
    while PENDING:
        for ref in list(PENDING.values()):
            x = ref()
            if x is not None:
                x._local  # noqa: B018  (reading the block makes it)
                PENDING.pop(id(x), None)
    if _READERS:
        for key, (ref, block) in list(_READERS.items()):
            if written is None or _may_share(block, written):
                _READERS.pop(key, None)
                x = ref()
                if x is not None:
                    x._local  # noqa: B018


def keep(block: Any) -> None:
    """Note that ``block`` is memory xdist allocated and has not handed out (a block whose
    type takes no weak reference is not noted: chains then copy it or run at once)."""
    key = id(block)
    try:
        _KEPT[key] = weakref.ref(block, lambda _, key=key: _KEPT.pop(key, None))
    except TypeError:
        pass


def keep_result(block: Any) -> None:
    """``keep`` a block a library call just returned: the block itself when it owns its
    memory; when it views a private temporary (a reshape of the call's own result), that
    array, if nothing but ``block`` refers to it (its reference count: ``block``'s, this
    frame's and ``getrefcount``'s argument). Else nothing: chains copy it or run at once."""
    base = viewed(block)
    if base is None:
        keep(block)
    elif viewed(base) is None and sys.getrefcount(base) <= 3:
        keep(base)


def viewed(block: Any) -> Any:
    """The array whose memory ``block`` views: NumPy's ``base``, Torch's ``_base``."""
    base = getattr(block, "base", None)
    return getattr(block, "_base", None) if base is None else base


def kept(block: Any) -> bool:
    """Whether ``block``, or the array it views, is memory that only xdist can write."""
    for b in (block, viewed(block)):
        ref = _KEPT.get(id(b))
        if ref is not None and ref() is b:
            return True
    return False


def hand_out(block: Any) -> Any:
    """``block`` about to be handed out: pending blocks are made first, and neither it nor
    the array it views is read later without a copy any more."""
    settle(block)
    for b in (block, viewed(block)):
        ref = _KEPT.get(id(b))
        if ref is not None and ref() is b:
            del _KEPT[id(b)]
    return block
