"""Fused elementwise chains: one pass over memory per chain of operations.

An elementwise function of large NumPy blocks does not run at once: it returns a ``Pending``
array, which records the function and its operands (``Node``). A function of pending arrays
extends their chain. When a block is needed (any operation that is not elementwise, ``.local``,
printing, a write, DLPack, a collective), the chain runs in tiles of about ``_TILE`` elements
along the block's first axis: each function of the chain on the tile, in order, while the
tile is in the cache. Only the blocks of pending arrays still referenced are written out; the
temporaries of an expression (``(x - m) / s``) never reach memory.

Invisible to code written against the standard:

- **The eager bits.** Each function of a chain is the library call the eager path makes, on
  a tile of its operands instead of the whole block; an elementwise function gives the same
  bits for each element either way, so a fused block is the eager block, bit for bit. The
  dtype is the library's (the call is probed on an empty tile when recorded), and the errors
  of a bad call are raised by that probe, from the call that caused them.
- **The values at the call.** A chain reads its operands' blocks later, so it reads without a
  copy only blocks that no one can write in between: xdist's own allocations that it never
  handed out (``_pending.kept``; ``.local`` and DLPack hand a block out), and blocks of
  other pending arrays. Any other block of more than ``_SNAPSHOT`` elements (an array made
  from the user's NumPy data, say) runs its function eagerly, and the chain starts from its
  result; a smaller one is copied. Before xdist writes into a block or hands one out,
  ``_pending.settle`` makes every pending block.
- **Memory.** A chain holds its operands' blocks where the eager path would hold its
  intermediate results; a chain is cut (its operands made) at ``_MAX_NODES`` functions.
- **In-place operators** on a pending array (``G *= -2``) extend its chain: no block is
  written, since none has been made, and chains recorded before read the value before.

What is fused: the standard's unary and binary elementwise functions and operators,
``clip`` and ``where``, on the NumPy backend, where the block has at least
``fuse_min_elements`` elements (a setting; ``0`` turns fusion off) and its first axis is
longer than 1. Everything else reads the block and so runs the chain first.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ._array import Array, _assign_inplace, wrap_block
from ._config import get_config
from ._deferred import Deferred
from ._layout import Layout
from ._pending import PENDING, keep, kept, pend, settle

__all__ = ["Pending", "elementwise"]

_BLOCK = Array.__dict__["_local"]  # the slot that holds a made block

_TILE = 32768  # elements of one tile of a chain's result: a few tiles stay in a core's L2
_MAX_NODES = 32  # functions in one chain before its operands are made
_SNAPSHOT = 4096  # an operand block this small that a user could write is copied, not run


class Node:
    """One recorded function of a chain: ``fn(*args)`` on a tile, where each argument is a
    ``Node`` (its value on the same tile), a block (``cut``: sliced to the tile along the
    first axis, else taken whole, as it broadcasts) or a Python or NumPy scalar."""

    __slots__ = ("fn", "args", "cut", "shape", "dtype", "owner", "count", "err", "block")

    def __init__(self, fn, args, cut, shape, dtype, count, err) -> None:
        self.fn: Callable[..., Any] | None = fn
        self.args: tuple = args
        self.cut: tuple[bool, ...] = cut
        self.shape: tuple[int, ...] = shape
        self.dtype: np.dtype = dtype
        self.count: int = count  # the functions of the chain it ends, at most
        self.err: dict = err  # np.geterr() when it was recorded
        self.owner: weakref.ref | None = None  # the pending array whose value it is
        self.block: Any = None  # the value once made (the node is then a block)


class Pending(Deferred):
    """An array whose block is the value of a recorded chain (``Node``), made on first use."""

    __slots__ = ("_node",)

    _node: Node | None

    def _inplace(self, other, name: str) -> Array:
        """``self op= other`` extends the chain where the result keeps ``self``'s layout and
        dtype; otherwise the eager in-place operator."""
        node = self._node
        if node is not None and not self.formed and name in _EXTENDS:
            result = Array._binary(self, other, name)
            if result is NotImplemented:
                return NotImplemented
            if (
                not self.formed  # (aligning an operand may have made it)
                and isinstance(result, Pending)
                and result._node is not None
                and result._layout == self._layout
                and result.dtype == self.dtype
            ):
                taken = result._node
                result._node = result._make = None
                PENDING.pop(id(result), None)
                node.owner = None  # no array holds the old value now
                taken.owner = weakref.ref(self)
                self._node, self._make = taken, partial(_run, taken)
                return self
            settle()  # chains that read this array's value read it before the write
            _assign_inplace(self, result, f"__i{name}__")
            return self
        return super()._inplace(other, name)


# The in-place operators that may extend a chain: their result has the array's dtype
# whenever the eager path accepts them.
_EXTENDS = frozenset({"add", "subtract", "multiply", "divide", "pow", "bitwise_and"})


def _leaf(block: Any) -> Any:
    """``block`` as an operand the chain may read later: itself if only xdist can write it, a
    copy if small, else ``None`` (the function runs now)."""
    if kept(block):
        return block
    if block.size <= _SNAPSHOT:
        return block.copy()
    return None


def elementwise(fn: Callable[..., Any], operands: list[Any], layout: Layout, like: Array) -> Array:
    """``fn`` (a library function that maps elements to elements) of ``operands`` (arrays
    whose blocks broadcast to ``layout``'s block as they are, blocks that do, and scalars),
    as an array of ``layout``: recorded in a chain where it can be (see the module), else run
    now."""
    limit = get_config().fuse_min_elements
    shape = layout.local_shape(like._comm.rank)
    if (
        limit
        and like._backend.name == "numpy"
        and len(shape) >= 1
        and shape[0] > 1
        and math.prod(shape) >= limit
    ):
        found = _record(fn, operands, shape, layout, like)
        if found is not None:
            return found
    blocks = [x._local if isinstance(x, Array) else x for x in operands]
    out = wrap_block(fn(*blocks), layout, like)
    block = out._local
    if (
        limit
        and isinstance(block, np.ndarray)
        and block.size >= limit
        and block.base is None
        and not any(block is b for b in blocks)
    ):
        keep(block)  # a new block: later chains may read it
    return out


def _record(fn, operands, shape, layout, like) -> Pending | None:
    """The pending array of ``fn(*operands)``, or ``None`` where it must run now."""
    args, cut, probe = [], [], []
    count = 1
    ndim, rows = len(shape), shape[0]
    for x in operands:
        if isinstance(x, Pending) and x._node is not None and x._node.shape == shape:
            node = x._node
            if node.count >= _MAX_NODES:
                x._local  # noqa: B018  (the chain is long: made here, read as a block)
            else:
                args.append(node)
                cut.append(True)
                probe.append(np.empty((0, *shape[1:]), node.dtype))
                count += node.count
                continue
        block = x._local if isinstance(x, Array) else x
        if not isinstance(block, np.ndarray):
            if not isinstance(block, (bool, int, float, complex, np.generic)):
                return None
            args.append(block)
            cut.append(False)
            probe.append(block)
            continue
        leaf = _leaf(block)
        if leaf is None:
            return None
        sliced = leaf.ndim == ndim and leaf.shape[0] == rows
        args.append(leaf)
        cut.append(sliced)
        probe.append(leaf[:0] if sliced else leaf)
    empty = fn(*probe)  # the dtype, and the errors of a bad call, raised here
    if not isinstance(empty, np.ndarray) or empty.shape[1:] != shape[1:]:
        return None
    node = Node(fn, tuple(args), tuple(cut), shape, empty.dtype, count, np.geterr())
    x = Pending._new(None, layout, like._comm, like._backend)
    x._make, x._dtype, x._device = partial(_run, node), empty.dtype, like.device
    x._left = x._t_left = None
    x._node = node
    node.owner = weakref.ref(x)
    pend(x)
    return x


def _order(root: Node) -> list[Node]:
    """The unmade nodes of ``root``'s chain, each after the nodes it reads."""
    seen: set[int] = set()
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if ready:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for a in node.args:
            if isinstance(a, Node) and a.block is None and id(a) not in seen:
                stack.append((a, False))
    return order


def _owner(node: Node) -> Pending | None:
    """The live pending array whose value ``node`` is, if any."""
    x = node.owner() if node.owner is not None else None
    return x if x is not None and x._node is node else None


def _run(root: Node) -> np.ndarray:
    """Make ``root``'s block, and those of the live pending arrays of its chain, in one pass
    of tiles along the first axis."""
    order = _order(root)
    position = {id(n): i for i, n in enumerate(order)}
    shape = root.shape
    rows = max(1, _TILE // max(1, math.prod(shape[1:])))
    outs: list[np.ndarray | None] = []
    plan = []
    for node in order:
        out = np.empty(shape, node.dtype) if node is root or _owner(node) is not None else None
        outs.append(out)
        specs = []
        for a, c in zip(node.args, node.cut):
            if isinstance(a, Node):
                if a.block is None:
                    specs.append((0, position[id(a)]))
                else:
                    specs.append((1, a.block))
            else:
                specs.append((1, a) if c else (2, a))
        plan.append((node.fn, specs, out))
    err = np.geterr()
    same = all(node.err == err for node in order)
    values: list[Any] = [None] * len(order)
    for r0 in range(0, shape[0], rows):
        r1 = min(r0 + rows, shape[0])
        for i, (fn, specs, out) in enumerate(plan):
            args = [values[a] if k == 0 else (a[r0:r1] if k == 1 else a) for k, a in specs]
            if same:
                v = fn(*args)
            else:
                with np.errstate(**order[i].err):
                    v = fn(*args)
            values[i] = v
            if out is not None:
                out[r0:r1] = v
    for node, out in zip(order, outs):
        if out is None:
            continue
        keep(out)
        owner = _owner(node)
        node.fn, node.args, node.block, node.owner = None, (), out, None
        if owner is not None:
            _BLOCK.__set__(owner, out)
            owner._node = owner._make = None
            PENDING.pop(id(owner), None)
    return root.block
