"""Fused elementwise chains: one pass over memory per chain of operations.

An elementwise function of large blocks (NumPy, or Torch on the CPU) does not run at once:
it returns a ``Pending`` array, which records the function and its operands (``Node``). A
function of pending arrays extends their chain. When a block is needed (any operation that
is not elementwise, ``.local``, printing, a write, DLPack, a collective), the chain runs in
tiles of about ``_TILE`` 8-byte elements along the block's first axis: each function of the
chain on the tile, in order, while the tile is in the cache. Only the blocks of pending arrays
still referenced are written out; the temporaries of an expression (``(x - m) / s``) never
reach memory.

A product starts a chain too. Where its right operand is whole on the rank (replicated, or
small beside the product: ``X @ X.T`` of a narrow ``X``), both operands can be read later
(as below) and the block is more than one tile, ``matmul`` of NumPy or Torch (CPU) blocks
records the product as the chain's first function (``product``): each tile, of at least
``_PRODUCT_ROWS`` rows, is the backend's product of those rows (``matmul_into``, the eager
product's library call), and the epilogue (``G *= -2; G += sq[:, None]; sqrt(maximum(G,
0))``) runs on it while it is in the cache, so a product that only its chain reads never
reaches memory. Its rounding is the GEMM's on the tile's rows, which differs from the whole
block's as the blocks of two rank counts differ (BLAS's order of summation depends on the
rows of a call); the epilogue is the eager bits of those products. Otherwise ``matmul``'s
new block is returned ``lifted``, a pending array whose value is made already, so that the
in-place operators after it extend a chain instead of writing the block, and the chain's
result is written over the product where no array holds the product any more (``_donor``),
as the eager in-place operators would have written there. In a chain's tiles,
a function that takes ``out=`` (``_writes``: NumPy's ufuncs, Torch's own functions) writes
into a buffer reused from tile to tile, over the tile of an argument that no one else reads
where it can (``_buffer``), as the in-place operators write over one block, and a row operand
(a mean beside a matrix) is read as a tile of its own, copied once (``_rows_of``).

Invisible to code written against the standard:

- **The eager bits.** Each function of a chain is the library call the eager path makes, on
  a tile of its operands instead of the whole block; an elementwise function gives the same
  bits for each element either way, so a fused block is the eager block, bit for bit (a
  NaN's sign and payload apart: those are the SIMD loops' choice by an element's place in
  the loop, as they differ eagerly between rank counts). The dtype is the library's (the call
  is probed on an empty tile when recorded), and the errors of a bad call are raised by that
  probe, from the call that caused them; NumPy's ``errstate`` is the one at the call.
- **The values at the call.** A chain reads its operands' blocks later, so it reads without a
  copy only blocks that no one can write in between: xdist's own allocations that it never
  handed out (``_pending.kept``; ``.local`` and DLPack hand a block out), and blocks of
  other pending arrays. Another block is copied where it is small (``_SNAPSHOT`` elements, or
  a 16th of the result's: a column of norms beside a matrix; a product's rows, at most half
  the product); a larger one (an array made from the user's NumPy data, say) runs its
  function eagerly, and the chain starts from its result, written into a block the pool
  lends where the function takes ``out=`` (``_pooled``), as a chain's is. Before xdist
  writes into a block or hands one out, ``_pending.settle`` makes every pending block.
- **Memory.** A chain holds its operands' blocks where the eager path would hold its
  intermediate results; a chain is cut (its operands made) at ``_MAX_NODES`` functions.
- **In-place operators** on a pending array (``G *= -2``) extend its chain: no block is
  written, since none has been made, and chains recorded before read the value before.

Where numba is installed, a chain of float arithmetic, ``maximum``, ``minimum`` and ``sqrt``
on blocks of at least ``fuse_compile_min_elements`` elements runs each tile as one compiled
loop instead of one call per function (``_compiled``): the same bits, each element through
every function in registers.

What is fused: the standard's unary and binary elementwise functions and operators,
``clip``, ``where`` and ``xdist.special``'s functions, on the NumPy backend and the Torch
backend on the CPU (not under autograd), where the block has at least ``fuse_min_elements``
elements (a setting; ``0`` turns fusion off) and its first axis is longer than 1 and
outermost in memory (a transposed block, ``x.T`` or an axis moved last, runs eagerly: a
tile of its rows is memory scattered over the whole block). A chain of one function runs
as one call. Everything else reads the block and so runs the chain first.
"""

from __future__ import annotations

import math
import sys
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from . import _block_pool as block_pool
from . import _compiled as compiled
from ._array import Array, _assign_inplace, wrap_block
from ._config import get_config
from ._deferred import Deferred
from ._layout import Layout
from ._pending import PENDING, keep, keep_result, kept, pend, settle
from .backends.numpy import gemm_operand

__all__ = [
    "Pending",
    "by_rows",
    "elementwise",
    "lifted",
    "pooled_product",
    "product",
    "synchronize",
]

_BLOCK = Array.__dict__["_local"]  # the slot that holds a made block

# a tile of a chain's result: this many 8-byte elements (512 KiB; twice as many of 4 bytes),
# so that a tile and its operands' stay in a core's L2 while each call on it costs little
# beside its arithmetic (on 10000 x 20000 float32 rows, tiles of 128 KiB made the calls'
# own cost a quarter of the pass)
_TILE = 65536
# a tile of a product has at least this many rows: each call packs the whole of the
# product's second operand, which fewer rows would not repay (20000 x 18 float32 times
# 18 x 20000: 16 rows 474 ms, 64 rows 460, 6 rows (one tile) 571, against 577 eagerly)
_PRODUCT_ROWS = 32
_MAX_NODES = 32  # functions in one chain before its operands are made
# an operand block that a user could write is copied, not run, where it has at most this
# many elements, or this fraction of the result's (the copy then costs little beside a pass)
_SNAPSHOT = 4096
_SNAPSHOT_RATIO = 16
# a product's rows (a user's ``X`` in ``X @ C.T``) are copied where they are at most half the
# product: the copy (a read and a write of them) moves no more memory than writing the eager
# product, which the chain saves with reading it back (scikit-learn's
# ``pairwise_distances_argmin`` of 500000 x 16 float64 rows against 32 centres at one
# thread: 140 ms with the product made eagerly, 112-116 ms with the rows copied, 6 ms of it
# the copy, and the product heading the chain)
_PRODUCT_SNAPSHOT_RATIO = 2


class Node:
    """One recorded function of a chain: ``fn(*args)`` on a tile, where each argument is a
    ``Node`` (its value on the same tile), a block (``cut``: sliced to the tile along the
    first axis, else taken whole, as it broadcasts) or a Python or NumPy scalar."""

    __slots__ = (
        "fn",
        "args",
        "cut",
        "shape",
        "empty",
        "owner",
        "count",
        "err",
        "block",
        "readers",
        "free",
        "product",
        "writes",
        "reduced",
    )

    def __init__(self, fn, args, cut, shape, empty, count, err) -> None:
        self.fn: Callable[..., Any] | None = fn
        self.args: tuple = args
        self.cut: tuple[bool, ...] = cut
        self.shape: tuple[int, ...] = shape
        self.empty: Any = empty  # the value of no rows: its library, dtype and device
        self.count: int = count  # the functions of the chain it ends, at most
        self.err: dict = err  # np.geterr() when it was recorded
        self.owner: weakref.ref | None = None  # the pending array whose value it is
        self.block: Any = None  # the value once made (the node is then a block)
        self.readers = 0  # the nodes recorded with this one as an argument
        # a made block that is no array's value any more (its array was given a new value
        # by an in-place operator): a chain that is its only reader may write over it
        self.free = False
        self.product = False  # a product's tile (``product``): tiles of it are taller
        self.writes = False  # ``fn`` writes its tile into a given block (``out=``)
        self.reduced = False  # reduced once by ``by_rows`` without writing its block


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
                node.free = node.block is not None  # as eager, the new value may go there
                taken.owner = weakref.ref(self)
                self._node, self._make = taken, partial(_run, taken)
                pend(self)  # (a lifted array was not pending: its value was in memory)
                return self
            settle()  # chains that read this array's value read it before the write
            _assign_inplace(self, result, f"__i{name}__")
            return self
        return super()._inplace(other, name)


# The in-place operators that may extend a chain: their result has the array's dtype
# whenever the eager path accepts them.
_EXTENDS = frozenset({"add", "subtract", "multiply", "divide", "pow", "bitwise_and"})


def synchronize() -> None:
    """Make every pending block (the recorded chains of elementwise functions) and wait for
    the work queued on the default device: what a timer calls before it reads the clock, as
    it would call ``torch.cuda.synchronize()``. Local: no message."""
    settle()
    from ._runtime import default_backend

    backend = default_backend()
    backend.synchronize(backend.default_device())


def _leaf(block: Any, size: int, backend: Any, ratio: int = _SNAPSHOT_RATIO) -> Any:
    """``block`` as an operand the chain of a result of ``size`` elements may read later:
    itself if only xdist can write it, a copy if small (at most ``1 / ratio`` of the result:
    a row of norms), else ``None`` (the function runs now)."""
    if kept(block):
        return block
    if math.prod(block.shape) <= max(_SNAPSHOT, size // ratio):
        return backend.xp.asarray(block, copy=True)
    return None


_SCALARS = (bool, int, float, complex, np.generic)  # operands passed to each call as they are


def _cut(block: Any, shape: tuple[int, ...]) -> bool | None:
    """Whether an operand ``block`` of a result of ``shape`` has the result's rows (cut into
    its tiles; else it broadcasts, taken whole); ``None`` where it has them but not outermost
    in memory (a tile of its rows would read memory scattered over the whole block)."""
    cut = block.ndim == len(shape) and block.shape[0] == shape[0]
    return None if cut and not _rows_outermost(block) else cut


def _rows_outermost(block: Any) -> bool:
    """Whether ``block``'s first axis has its largest stride, so that a tile of rows is a
    run of its memory (not so for a transpose: ``x.T``, an axis moved last)."""
    steps = block.strides if isinstance(block, np.ndarray) else block.stride()  # Torch's
    steps = [abs(s) for s, n in zip(steps, block.shape) if n > 1]
    return not steps or steps[0] == max(steps)


def _fuses(like: Array, shape: tuple[int, ...]) -> bool:
    """Whether a block of ``shape`` of ``like``'s backend is fused (see the module)."""
    limit = get_config().fuse_min_elements
    return bool(
        limit
        and len(shape) >= 1
        and shape[0] > 1
        and math.prod(shape) >= limit
        and (
            like._backend.name == "numpy"
            or (like._backend.name == "torch" and like.device.kind == "cpu")
        )
    )


def elementwise(fn: Callable[..., Any], operands: list[Any], layout: Layout, like: Array) -> Array:
    """``fn`` (a library function that maps elements to elements) of ``operands`` (arrays
    whose blocks broadcast to ``layout``'s block as they are, blocks that do, and scalars),
    as an array of ``layout``: recorded in a chain where it can be (see the module), else run
    now."""
    shape = layout.local_shape(like._comm.rank)
    fuses = _fuses(like, shape)
    if fuses:
        found = _record(fn, operands, shape, layout, like)
        if found is not None:
            return found
    blocks = [x._local if isinstance(x, Array) else x for x in operands]
    made = _pooled(fn, blocks, shape, like._backend) if fuses else None
    if made is not None:
        keep(made)  # the pool's new block: later chains may read it
        return wrap_block(made, layout, like)
    out = wrap_block(fn(*blocks), layout, like)
    block = out._local
    if fuses and not any(block is b for b in blocks):
        keep_result(block)  # a new block: later chains may read it
    return out


def _pooled(fn: Callable[..., Any], blocks: list[Any], shape: tuple[int, ...], backend: Any):
    """``fn(*blocks)`` run now into a block the pool lends (``block_pool.empty``), for a
    function that takes ``out=`` (``_writes``) and a result large enough to be lent: the
    eager call, the same loop and bits, into memory written before rather than new pages
    (NumPy's ``a + b`` of 1,000,000 x 16 float64: 22 ms into a new array, 13 ms into one
    written before). ``None`` where the call is left to the library (small results, blocks
    that are not C-ordered by rows, autograd), which then runs it as before."""
    if math.prod(shape) * 16 < block_pool.MIN_BYTES:  # (16: the widest element, complex128)
        return None
    probe = []
    for b in blocks:
        if backend.is_block(b):
            cut = _cut(b, shape)
            if cut is None or getattr(b, "requires_grad", False):
                return None
            probe.append(b[:0] if cut else b)
        elif isinstance(b, _SCALARS):
            probe.append(b)
        else:
            return None
    empty = fn(*probe)  # the dtype, and the errors of a bad call, raised here
    if (
        not backend.is_block(empty)
        or tuple(empty.shape) != (0, *shape[1:])
        or not _writes(fn, probe, empty)
    ):
        return None
    out = block_pool.empty(empty, shape)
    return fn(*blocks, out=out)


def lifted(block: Any, layout: Layout, like: Array) -> Array:
    """``block``, a new block xdist allocated (a product, say), as an array of ``layout``:
    a ``Pending`` whose value is made already, so that in-place operators on it extend a
    chain that reads the block once (``G = X @ Y.T; G *= -2; G += n``: one pass, where
    eager makes three), where it can be fused (see ``elementwise``)."""
    shape = layout.local_shape(like._comm.rank)
    backend = like._backend
    if (
        not _fuses(like, shape)
        or not backend.is_block(block)
        or tuple(block.shape) != shape
        or getattr(block, "requires_grad", False)
    ):
        return Array._new(block, layout, like._comm, backend)
    keep(block)
    node = Node(None, (), (), shape, block[:0], 0, {})
    node.block = block
    return _pending_array(node, layout, like)


def product(b1: Any, b2: Any, layout: Layout, like: Array) -> Array | None:
    """``b1 @ b2`` (2-d blocks: ``b1``'s rows are the product's, ``b2`` whole) as a pending
    array of ``layout`` whose chain starts with the product: each tile of rows is
    ``b1[tile] @ b2``, made as the tile's epilogue runs, so that a product read only by the
    chain after it (``-2 * (X @ C.T) + n``) never reaches memory. ``None`` where it runs now
    (see ``elementwise``; also where a tile would not be a general product: NumPy's ``syrk``
    of ``a @ a.T``). A tile's product is BLAS's on those rows: its rounding is the GEMM's,
    which differs with the rows in a call as it does between rank counts (not the whole
    block's bits)."""
    shape = layout.local_shape(like._comm.rank)
    backend = like._backend
    if (
        not _fuses(like, shape)
        or len(shape) != 2
        or not (backend.is_block(b1) and backend.is_block(b2))
        or b1.ndim != 2
        or b2.ndim != 2
        or b1.shape[0] != shape[0]
        or getattr(b1, "requires_grad", False)
        or getattr(b2, "requires_grad", False)
        or _shares(b1, b2, backend)  # (``a @ a.T``: NumPy's syrk, or a copy of ``a.T``)
    ):
        return None
    size = math.prod(shape)
    a = _leaf(b1, size, backend, _PRODUCT_SNAPSHOT_RATIO)
    if a is None or not _rows_outermost(a):
        return None  # (before ``b2``'s copy: a user's ``X @ C.T`` runs now, copying nothing)
    b = _leaf(b2, size, backend)
    if b is None:
        return None
    empty = backend.xp.matmul(a[:0], b)  # the eager product's dtype (and library)
    if not backend.is_block(empty) or tuple(empty.shape) != (0, shape[1]):
        return None
    rows = max(_PRODUCT_ROWS, _TILE * 8 // _itemsize(empty) // max(1, shape[1]))
    if shape[0] <= rows:  # one tile: tiles would save nothing, and eager's is the same call
        return None
    # each tile is the backend's product, the eager one's library call (NumPy's BLAS on
    # the Torch backend's float tensors too), written into a buffer reused from tile to tile
    node = Node(
        partial(_product_into, backend), (a, b), (True, False), shape, empty, 1, np.geterr()
    )
    node.product = node.writes = True
    x = _pending_array(node, layout, like)
    pend(x)
    return x


def pooled_product(b1: Any, b2: Any, backend: Any) -> Any:
    """``b1 @ b2`` of two 2-d blocks run now, into a block the pool lends where the product is
    large enough to be lent (``block_pool.empty``) and NumPy's BLAS makes the backend's
    product (``blas_views``: NumPy's blocks; on the Torch backend, the memory of float CPU
    tensors): into memory written before rather than new pages. ``None`` where the product
    is left to the library. The operands are viewed once and the rest is NumPy's: right
    after a product that evicted the caches, a Torch call costs 10-25 us (1 us warm)."""
    if not (backend.is_block(b1) and backend.is_block(b2)):
        return None
    if b1.ndim != 2 or b2.ndim != 2 or b1.shape[1] != b2.shape[0]:
        return None
    shape = (b1.shape[0], b2.shape[1])
    if math.prod(shape) * 16 < block_pool.MIN_BYTES:
        return None  # (16: the widest element, complex128)
    views = backend.blas_views(b1, b2)
    if views is None:
        return None
    a, b = views
    out = block_pool.empty(np.matmul(a[:0], b), shape)  # the eager dtype
    np.matmul(a, gemm_operand(a, b), out=out)
    return out if backend.is_block(out) else backend.from_host(out)


def _product_into(backend: Any, a: Any, b: Any, *, out: Any) -> Any:
    """A product tile: ``a @ b`` written into ``out`` by the backend's ``matmul_into``."""
    backend.matmul_into(a, b, out)
    return out


def _shares(b1: Any, b2: Any, backend: Any) -> bool:
    """Whether two blocks may share memory: NumPy's test, else the backend's ``may_alias``
    (Torch's: one storage). NumPy's ``may_alias`` answers another question (whether a
    write must copy first: never, NumPy buffers an overlap)."""
    if isinstance(b1, np.ndarray):
        return bool(np.may_share_memory(b1, b2))
    return backend.may_alias(b1, b2)


def _pending_array(node: Node, layout: Layout, like: Array) -> Pending:
    """The pending array of layout ``layout`` whose value is ``node``, on ``like``'s
    communicator and backend."""
    backend = like._backend
    x = Pending._new(None, layout, like._comm, backend)
    x._make, x._dtype, x._device = partial(_run, node), backend.dtype_of(node.empty), like.device
    x._left = x._t_left = None
    x._node = node
    node.owner = weakref.ref(x)
    return x


def _record(fn, operands, shape, layout, like) -> Pending | None:
    """The pending array of ``fn(*operands)``, or ``None`` where it must run now."""
    backend = like._backend
    args, cut, probe = [], [], []
    count = 1
    size = math.prod(shape)
    for x in operands:
        if isinstance(x, Pending) and x._node is not None and x._node.shape == shape:
            node = x._node
            if node.count >= _MAX_NODES:
                x._local  # noqa: B018  (the chain is long: made here, read as a block)
            else:
                args.append(node)
                cut.append(True)
                probe.append(node.empty)
                node.readers += 1
                count += node.count
                continue
        block = x._local if isinstance(x, Array) else x
        if not backend.is_block(block):
            if not isinstance(block, _SCALARS):
                return None
            args.append(block)
            cut.append(False)
            probe.append(block)
            continue
        if getattr(block, "requires_grad", False):
            return None  # (a tile's result would not join the graph of autograd)
        leaf = _leaf(block, size, backend)
        if leaf is None:
            return None
        sliced = _cut(leaf, shape)
        if sliced is None:
            return None
        args.append(leaf)
        cut.append(sliced)
        probe.append(leaf[:0] if sliced else leaf)
    empty = fn(*probe)  # the dtype, and the errors of a bad call, raised here
    if not backend.is_block(empty) or tuple(empty.shape) != (0, *shape[1:]):
        return None
    node = Node(fn, tuple(args), tuple(cut), shape, empty, count, np.geterr())
    node.writes = _writes(fn, probe, empty)
    x = _pending_array(node, layout, like)
    pend(x)
    return x


def _writes(fn: Callable[..., Any], probe: list[Any], empty: Any) -> bool:
    """Whether ``fn`` writes its value into a block it is given (``out=``), as it returns
    it: NumPy's ufuncs of one output; a Torch function where it takes ``out`` on the empty
    probe with the value's dtype and shape (Torch's own functions do; array-api-compat's
    wrappers and views do not)."""
    if isinstance(empty, np.ndarray):
        return type(fn) is np.ufunc and fn.nout == 1
    if not getattr(fn, "__module__", "").startswith(("torch", "xdist.backends.torch")):
        return False
    # the answer depends on the function and its arguments' kinds, not their shapes: tried
    # once per kind (a try costs about half of recording a function)
    key = (fn, *(getattr(p, "dtype", type(p)) for p in probe))
    found = _TORCH_OUT.get(key)
    if found is None:
        into = empty.new_empty(tuple(empty.shape))
        try:
            found = fn(*probe, out=into) is into
        except (TypeError, RuntimeError):
            found = False
        _TORCH_OUT[key] = found
    return found


_TORCH_OUT: dict[tuple, bool] = {}  # (Torch function, argument dtypes or types) -> _writes


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


def _donor(root: Node, order: list[Node]) -> Node | None:
    """A made block the chain may write its result over, as the eager in-place operators
    would have: ``free`` (no array's value), of the result's shape and dtype, read only by
    this chain's nodes, each of which is read only inside the chain or is written out (so
    that no other chain computes from the block later). Each tile reads only its own rows
    of the block before its result is written there."""
    inside: dict[int, int] = {}
    made: list[Node] = []
    for node in order:
        for a in node.args:
            if isinstance(a, Node):
                inside[id(a)] = inside.get(id(a), 0) + 1
                if a.block is not None and a.free:
                    made.append(a)
    for node in order:
        if node is not root and node.readers != inside.get(id(node), 0):
            if _owner(node) is None:  # read elsewhere and not written out: no donor
                return None
    for a in made:
        if (
            a.readers == inside[id(a)]
            and a.shape == root.shape
            and a.block.dtype == root.empty.dtype
            and kept(a.block)
        ):
            return a
    return None


def _itemsize(block: Any) -> int:
    """Bytes per element of a NumPy or Torch block."""
    return block.itemsize if isinstance(block, np.ndarray) else block.element_size()


def _run(
    root: Node,
    reduce: Callable[[Any], Any] | None = None,
    store: bool = True,
    fold: Callable[[Any, Any], Any] | None = None,
) -> Any:
    """Make ``root``'s block, and those of the live pending arrays of its chain, in one pass
    of tiles along the first axis (a node made already, ``lifted``, is its block). With
    ``reduce``: its value on each tile of ``root``, joined along the first axis (or with
    ``fold``: folded into one, tile after tile), is returned instead, and ``root``'s own
    block is written only if ``store``."""
    if root.block is not None:
        owner = _owner(root)
        if owner is not None:
            owner._node = None
        return root.block if reduce is None else reduce(root.block)
    order = _order(root)
    position = {id(n): i for i, n in enumerate(order)}
    shape = root.shape
    if len(order) == 1 and reduce is None:
        rows = max(1, shape[0])  # one function: tiles save no pass, so one call (eager's)
    else:
        wide = max(_itemsize(n.empty) for n in order)
        rows = max(1, _TILE * 8 // wide // max(1, math.prod(shape[1:])))
        if any(n.product for n in order):
            rows = max(rows, _PRODUCT_ROWS)
    outs: list[Any] = []
    buffers: list[Any] = []  # each node's tile buffer, if it has one
    rowed: dict[int, Any] = {}  # the row operands copied into a tile's rows (``_rows_of``)
    plan = []
    donor = _donor(root, order) if store else None
    for node in order:
        if node is root and donor is not None:
            out = donor.block  # the eager in-place operators' block: no new memory
        elif (node is root and store) or (node is not root and _owner(node) is not None):
            out = block_pool.empty(node.empty, shape)
        else:
            out = None
        outs.append(out)
        specs = []
        for a, c in zip(node.args, node.cut):
            if isinstance(a, Node):
                if a.block is None:
                    specs.append((0, position[id(a)]))
                else:
                    specs.append((1, a.block))
            elif c:
                specs.append((1, a))
            elif node.product:  # the product's right operand: a matrix, not a broadcast row
                specs.append((2, a))  # (a 1 x m one of an outer product has a row's shape)
            else:
                if id(a) not in rowed:
                    rowed[id(a)] = _rows_of(a, shape, rows)
                specs.append((2, a) if rowed[id(a)] is None else (3, rowed[id(a)]))
        # a function that takes ``out=`` (``_writes``) writes its tile where it goes (its
        # block, or a tile buffer reused from tile to tile): the same loop as without
        # ``out=``, no allocation per tile
        into = None
        if node.writes:
            into = out if out is not None else _buffer(node, specs, order, buffers, rows)
        buffers.append(into if into is not out else None)
        plan.append((node.fn, specs, out, into))
    err = np.geterr()
    same = all(node.err == err for node in order)
    values: list[Any] = [None] * len(order)
    parts = []

    def call(i: int, r0: int, r1: int) -> None:
        fn, specs, out, into = plan[i]
        args = [
            values[a] if k == 0 else a[r0:r1] if k == 1 else a[: r1 - r0] if k == 3 else a
            for k, a in specs
        ]
        kwargs = {}
        if into is not None:
            kwargs["out"] = into[r0:r1] if into is out else into[: r1 - r0]
        if same:
            v = fn(*args, **kwargs)
        else:
            with np.errstate(**order[i].err):
                v = fn(*args, **kwargs)
        values[i] = v
        if out is not None and into is None:
            out[r0:r1] = v

    # one compiled loop per tile where the chain's functions allow it (``_compiled``); a
    # product's tile is BLAS's as before, made first
    loop = None
    if len(order) > 1:
        loop = compiled.tiles(order, outs, shape, rows, over=donor is not None)
    heads = [i for i in range(loop.last + 1) if order[i].product] if loop is not None else []
    for r0 in range(0, shape[0], rows):
        r1 = min(r0 + rows, shape[0])
        start = 0
        if loop is not None:
            for i in heads:
                call(i, r0, r1)
            value = loop.run(r0, r1, values)
            if value is not None:  # (else the loop found a value not finite: calls run it)
                values[loop.last], start = value, loop.last + 1
        for i in range(start, len(plan)):
            if i not in heads:
                call(i, r0, r1)
        if reduce is not None:
            part = reduce(values[-1])
            if fold is not None and parts:
                parts[0] = fold(parts[0], part)
            else:
                parts.append(part)
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
    if reduce is None:
        return root.block
    return parts[0] if len(parts) == 1 else _join(parts)


def _buffer(node: Node, specs: list, order: list[Node], buffers: list, rows: int) -> Any:
    """The tile buffer a ``node`` that ``_writes`` writes into: that of an argument of the chain
    which no one else reads and no array holds (``G *= -2`` after ``G = X @ Y.T``: the
    operators write over one tile, as eager writes over one block, and the cache holds one
    tile where it would hold one per function), else a new one."""
    dtype = node.empty.dtype
    for kind, j in specs:
        if kind != 0:
            continue
        buf, arg = buffers[j], order[j]
        if buf is not None and buf.dtype == dtype and arg.readers == 1 and _owner(arg) is None:
            buffers[j] = None  # (taken: no third node writes over it)
            return buf
    return _scratch(node.empty, (rows, *node.shape[1:]))


def _scratch(like: Any, shape: tuple[int, ...]) -> Any:
    """A tile buffer of ``shape`` of the library, dtype and device of ``like``: the
    library's own, never pooled (``block_pool.empty`` makes arrays' blocks)."""
    return block_pool.library_empty(like, shape)


def _rows_of(leaf: Any, shape: tuple[int, ...], rows: int) -> Any:
    """A row operand of a chain of several tiles (broadcast along the first axis only: a
    mean, ``sq[None, :]``), copied once into a tile's ``rows`` rows, which each tile then
    reads as a block of its own shape; else ``None``. NumPy runs a function of a broadcast
    row one row at a time, and of two blocks of one shape in one vector loop: ``x - m`` on
    8000000 float64 by tiles of 512 KiB took 8.5 ms with a row of 16 broadcast and 4.3 ms
    with it copied (rows of 1024: 6.9 and 4.4 ms). The same values, so the same bits."""
    if not isinstance(leaf, np.ndarray) or not 0 < leaf.ndim <= len(shape):
        return None
    tail = shape[1:]
    if not 1 < rows < shape[0] or math.prod(tail) < 2 or leaf.ndim < len(tail):
        return None
    lead = leaf.ndim - len(tail)
    if tuple(leaf.shape[lead:]) != tail or any(n != 1 for n in leaf.shape[:lead]):
        return None
    return np.ascontiguousarray(np.broadcast_to(leaf.reshape(tail), (rows, *tail)))


def _join(parts: list[Any]) -> Any:
    """Blocks of one library joined along the first axis."""
    if isinstance(parts[0], np.ndarray):
        return np.concatenate(parts, axis=0)
    import torch

    return torch.cat(parts, dim=0)


# how the partial results of a reduction's tiles combine, by the op of the allreduce that
# combines those of the ranks: (the reduction of joined partials over the first axis, the
# elementwise function that folds one partial into another)
_COMBINE = {
    "sum": ("sum", "add"),
    "prod": ("prod", "multiply"),
    "min": ("min", "minimum"),
    "max": ("max", "maximum"),
    "land": ("all", "logical_and"),
    "lor": ("any", "logical_or"),
}


def by_rows(
    x: Array, fn: Callable[[Any], Any], axes: tuple[int, ...], frames: int, op: str | None = None
) -> Any:
    """``fn(x``'s block``)``, for a ``fn`` that reduces ``axes`` of its argument (keeping them,
    length 1). Where ``axes`` leaves the first axis, each row of the result depends only on
    the same row of the block, so a pending ``x`` gives ``fn`` of each tile of its chain as it
    is made, joined (the same bits as ``fn`` of the block). Where ``axes`` takes the first
    axis and ``op`` names how partial results combine (the ranks' allreduce: ``sum``,
    ``prod``, ``min``, ``max``, ``land``, ``lor``), each tile's partial is ``fn`` of the tile,
    and the block's combines them by that op: folded tile after tile by its elementwise
    function where the result keeps an axis, else joined and reduced over the first axis by
    the library's reduction. Exact for the extremes and the logical ones; a sum adds the
    tiles' sums, one more level of blocking than the eager sum of the block (as the ranks'
    partials add one). ``x``'s block is written in the same pass only where ``x`` is
    referenced beyond the call that reduces it and was reduced so before (a temporary,
    ``xp.sum(xp.exp(a), axis=1)``, never reaches memory; a named array reduced once stays
    pending, and its second reduction makes it): ``frames`` is how many calls of xdist, this
    one included, hold ``x`` as an argument, which is all that refers to a temporary.
    Otherwise ``fn`` of the block."""
    node = x._node if isinstance(x, Pending) and not x.formed else None
    if node is None or node.block is not None or x.ndim == 0 or node.shape[0] == 0:
        return fn(x._local)
    if 0 in axes and op not in _COMBINE:
        return fn(x._local)
    # a temporary is referred to by the arguments of the calls and of getrefcount only; a
    # wrong guess costs time, not correctness: an array not written stays pending
    store = sys.getrefcount(x) > frames + 1
    if store and not node.reduced:
        # the first reduction of a referenced chain writes no block either: the reference
        # is often a caller's name for a value it reduces once (scikit-learn's chunked
        # distances hold each chunk while its reduction runs); a second use runs the chain
        # again and writes the block then (one pass more, at most)
        node.reduced, store = True, False
    if 0 not in axes:
        return _run(node, fn, store)
    xp = x._backend.xp
    if len(axes) < x.ndim:
        # a partial per tile as wide as the result: folded into one as the tiles come (a
        # sum adds the tiles' sums in order, as NumPy adds rows), not kept and joined
        return _run(node, fn, store, getattr(xp, _COMBINE[op][1]))  # type: ignore[index]
    found = _run(node, fn, store)  # a partial of one element per tile: joined
    if found.shape[0] == 1:
        return found
    combine = getattr(xp, _COMBINE[op][0])  # type: ignore[index]
    if op in ("sum", "prod"):
        return combine(found, axis=0, keepdims=True, dtype=found.dtype)
    return combine(found, axis=0, keepdims=True)
