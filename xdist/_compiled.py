"""A fused chain's tiles as one compiled loop (numba, where it is installed).

``_fusion`` runs a chain on each tile as one library call per function: each call reads and
writes the whole tile, in the cache. Where every function of the chain is one of the
correctly rounded IEEE operations below, on float32 or float64 tiles of at most two axes,
the functions of one element can as well run one after another in registers: one loop over
the tile, each element read once and each written block written once. The loop is Python
source made from the chain, compiled by numba, and computes each element as NumPy's loop
does: each function in its loop dtype (the dtype NumPy chose for the recorded call), each
argument converted to it first, ``+ - * /`` and ``sqrt`` rounded once (IEEE 754, no
contraction into fused multiply-adds: numba's default), ``maximum``/``minimum`` as NumPy's
(the first argument where it is greater, or less, or NaN; else the second: ``maximum(-0.0,
0.0)`` is ``0.0``). So the values are NumPy's, bit for bit (NaN payloads apart, as in the
tiles).

NumPy's floating-point warnings (``np.errstate``) come from the operations that make a NaN
or an infinity out of finite numbers. Unless the recorded ``errstate`` ignores them, the loop
checks that every value it makes is finite, and a tile where one is not runs again as the
library's calls, which warn or raise as the eager path does. A chain with ``under`` not
ignored is not compiled (an underflow makes no infinity to find).

The Torch backend's functions are Torch's, whose results for these operations are the same
(its ``sqrt`` is the backend's, correctly rounded: Torch's own CPU kernel is not); its CPU
tensors are read and written through ``host_view``, and it never warns.

Compiling a loop costs about half a second, so a chain is compiled the second time one of
its kind (its functions, dtypes and the shapes of its operands) runs on a block of at least
``fuse_compile_min_elements`` elements (a setting; ``0`` never compiles), and its loop is kept
for the process. Measured at one thread on 500000 x 16 float64 rows against 32 centres,
``sqrt(maximum(-2 * (X @ C.T) + n[:, None] + m, 0))`` and its ``argmin`` along the rows (the
product by BLAS on each tile): 80 ms as the library's calls on the tiles, 48 ms with the
epilogue as one loop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _block_pool as block_pool
from ._config import get_config
from .backends.compiled_lines import numba_available

__all__ = ["Tiles", "tiles"]

# the functions a loop computes (by NumPy's ufunc's name) -> the expression of one element,
# from the arguments' expressions already in the function's loop dtype
_EXPRESSIONS = {
    "add": "({0} + {1})",
    "subtract": "({0} - {1})",
    "multiply": "({0} * {1})",
    "divide": "({0} / {1})",
    "negative": "(-{0})",
    "positive": "({0})",
    "absolute": "abs({0})",
    "sqrt": "np.sqrt({0})",
    "square": "_square({0})",
    "maximum": "_maximum({0}, {1})",
    "minimum": "_minimum({0}, {1})",
}
_FLOATS = {np.dtype(np.float32): "np.float32", np.dtype(np.float64): "np.float64"}
_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)

_PRELUDE = """
import numpy as np
from numba import njit

@njit(inline="always")
def _maximum(a, b):
    return a if (a > b or a != a) else b

@njit(inline="always")
def _minimum(a, b):
    return a if (a < b or a != a) else b

@njit(inline="always")
def _square(a):
    return a * a
"""

_LOOPS: dict[tuple, Any] = {}  # a chain's kind -> its compiled loop (None: not compilable)
_SEEN: dict[tuple, int] = {}  # a chain's kind -> how many times it ran on large blocks


class Tiles:
    """A chain's compiled loop, with what each tile of it reads and writes: NumPy arrays on
    the blocks' memory (Torch's CPU tensors through ``host_view``)."""

    __slots__ = ("key", "loop", "view", "inputs", "scalars", "outs", "root", "tile", "flat", "last")

    def __init__(self, key, loop, view, inputs, scalars, outs, root, tile, flat, last) -> None:
        self.key = key
        self.loop = loop
        self.view = view  # a block -> a NumPy array on its memory
        self.inputs = inputs  # (a NumPy array, or a position in the tile's values; cut?)
        self.scalars = scalars  # typed scalars, in the loop's order
        self.outs = outs  # NumPy arrays on the blocks written, in the loop's order
        self.root = root  # (the root's block, a NumPy array on it), or None
        self.tile = tile  # (a tile buffer, a NumPy array on it) for the root's tile, or None
        self.flat = flat  # a 1-d chain: tiles are viewed as (rows, 1)
        self.last = last  # the position in the chain of the last value the loop makes

    def run(self, r0: int, r1: int, values: list[Any]) -> Any:
        """The value of the loop's last node on rows ``r0:r1`` (a block of the chain's
        library), with every block of the loop's nodes written there; ``None`` where a value
        was not finite and the errstate asks for the library's calls (the tile then runs as
        those calls, which write every block again)."""
        if self.loop is None:
            return None
        n = r1 - r0
        two = self._two
        arrays = [
            two(self.view(values[a]) if isinstance(a, int) else a[r0:r1] if cut else a)
            for a, cut in self.inputs
        ]
        outs = [two(o[r0:r1]) for o in self.outs]
        into = self.tile if self.tile is not None else self.root
        outs.append(two(into[1][:n] if into is self.tile else into[1][r0:r1]))
        try:
            finite = self.loop(n, outs[-1].shape[1], *arrays, *self.scalars, *outs)
        except _numba_error():  # (typing these arguments failed: the library's calls run it)
            _LOOPS[self.key] = self.loop = None
            return None
        if not finite:
            return None
        if self.tile is None:
            return self.root[0][r0:r1]
        if self.root is not None:  # (``over``: the root's block is read by the chain)
            self.root[1][r0:r1] = self.tile[1][:n]
            return self.root[0][r0:r1]
        return self.tile[0][:n]

    def _two(self, a: np.ndarray) -> np.ndarray:
        return a.reshape(-1, 1) if self.flat else a


def tiles(
    order: Sequence[Any], outs: Sequence[Any], shape: tuple[int, ...], rows: int, over: bool
) -> Tiles | None:
    """The compiled loop of a chain (``order``: its unmade nodes, each after those it reads;
    ``outs``: the block each writes, or ``None``; the last node is the root) on blocks of
    ``shape`` in tiles of ``rows`` rows, or ``None`` where the library's calls run it (see the
    module). The loop computes the longest run of the chain's first functions that it can
    (``Tiles.last``: the position of the last), at least two, where the functions after them
    read no value of the run but its last; those then run as the library's calls on the
    tile. A product's node (``node.product``) is read as its tile, made before. ``over``: the
    root's block is one the chain reads (``_fusion``'s donor), which a tile's loop then writes
    from a tile buffer: only once every value of the tile is known to be finite, and never
    while reading it (a loop whose output may alias an input runs without vector
    instructions: 0.57 s against 0.19 s over a 20000 x 20000 float32 block)."""
    limit = get_config().fuse_compile_min_elements
    if not limit or math.prod(shape) < limit or len(shape) not in (1, 2):
        return None
    library = _library(order[-1].empty)
    if library is None:
        return None
    view, names, checks = library
    position = {id(n): i for i, n in enumerate(order)}
    # the first node after the run whose functions the loop computes
    end = next((m for m, n in enumerate(order) if not _computed(n, view, names)), len(order))
    while end > 1:
        reads = [position.get(id(a), -1) for n in order[end:] for a in n.args]
        if all(r < 0 or r >= end - 1 for r in reads):
            break
        end -= 1
    if sum(1 for n in order[:end] if not n.product) < 2:
        return None
    kind = _kind(order[:end], outs[:end], shape, view, names, checks)
    if kind is None:
        return None
    key, inputs, scalars = kind
    loop = _LOOPS.get(key)
    if loop is None:
        if key in _LOOPS:
            return None
        seen = _SEEN[key] = _SEEN.get(key, 0) + 1
        if seen < 2:  # the first run of its kind by the library's calls: a loop pays later
            return None
        loop = _LOOPS[key] = _compile(key) if numba_available() else None
        if loop is None:
            return None
    written = []
    for node, o in zip(order[: end - 1], outs[: end - 1]):
        if o is not None and not node.product:
            written.append(view(o))
    last = outs[end - 1]
    root = None if last is None else (last, view(last))
    tile = None
    if root is None or (over and end == len(order)):
        buffer = block_pool.library_empty(order[end - 1].empty, (rows, *shape[1:]))
        tile = (buffer, view(buffer))
    return Tiles(key, loop, view, inputs, scalars, written, root, tile, len(shape) == 1, end - 1)


def _computed(node: Any, view, names) -> bool:
    """Whether the loop can compute ``node``'s value: a product's tile (made before) or one
    of its functions (``names``) of float values."""
    dtype = _dtype(node.empty, view)
    if dtype not in _FLOATS:
        return False
    return node.product or (_hashable(node.fn) and node.fn in names)


def _same(block: Any) -> Any:
    return block


def _library(empty: Any):
    """``(view, names, checks)`` for a chain whose value is like ``empty``: NumPy's blocks as
    they are, whose ufuncs warn (``np.errstate``); Torch's CPU tensors through the backend's
    ``host_view``, whose functions never warn. ``names``: the library's functions (and the
    backend namespace's) -> the ufunc each computes. ``None`` for other libraries."""
    if isinstance(empty, np.ndarray):
        return _same, _NUMPY_NAMES, True
    if type(empty).__module__ != "torch" or empty.device.type != "cpu":
        return None
    if getattr(empty, "requires_grad", False):
        return None
    from .backends import get_backend

    backend = get_backend("torch")
    if backend.host_view(empty) is None:
        return None
    if not _TORCH_NAMES:
        import torch

        for name, aliases in _TORCH_ALIASES.items():
            for alias in aliases:
                _TORCH_NAMES[getattr(torch, alias)] = name
            for alias in {name, *aliases}:  # the backend's own wrappers, under any name
                own = getattr(backend.xp, alias, None)
                if own is not None:
                    _TORCH_NAMES[own] = name
    return backend.host_view, _TORCH_NAMES, False


_NUMPY_NAMES = {getattr(np, name): name for name in ("add", "subtract", "multiply", "divide")}
_NUMPY_NAMES.update(
    {
        getattr(np, n): n
        for n in ("negative", "positive", "absolute", "sqrt", "square", "maximum", "minimum")
    }
)
_TORCH_ALIASES = {
    "add": ("add",),
    "subtract": ("subtract", "sub"),
    "multiply": ("multiply", "mul"),
    "divide": ("divide", "div", "true_divide"),
    "negative": ("negative", "neg"),
    "positive": ("positive",),
    "absolute": ("absolute", "abs"),
    "maximum": ("maximum",),
    "minimum": ("minimum",),
    "square": ("square",),
    # (sqrt: the backend's only, correctly rounded; Torch's own CPU sqrt is not)
    "sqrt": (),
}
_TORCH_NAMES: dict[Any, str] = {}


def _kind(order, outs, shape, view, names, checks):
    """``(key, inputs, scalars)`` of a chain whose every node the loop computes
    (``_computed``), else ``None``: the key names the loop (the functions, dtypes, how each
    argument is read, which values are written and whether values are checked), the rest is
    what each tile passes it."""
    position = {id(n): i for i, n in enumerate(order)}
    inputs: list[tuple[Any, bool]] = []
    scalars: list[Any] = []
    check = False
    steps = []
    for m, node in enumerate(order):
        dtype = _dtype(node.empty, view)
        if node.product:
            inputs.append((m, True))
            steps.append(("in", _FLOATS[dtype], len(inputs) - 1))
            continue
        name = names[node.fn]
        err = node.err
        if checks:
            if err.get("under", "ignore") != "ignore":
                return None
            check = check or any(err.get(w) != "ignore" for w in ("over", "invalid", "divide"))
        args = []
        for a, cut in zip(node.args, node.cut):
            if hasattr(a, "block") and hasattr(a, "args"):  # a node of the chain
                if a.block is None:
                    args.append(("v", position[id(a)], _dtype(a.empty, view)))
                    continue
                a, cut = a.block, True
            if isinstance(a, _SCALARS):
                scalars.append(dtype.type(a))  # the library's cast of a number to the dtype
                args.append(("s", len(scalars) - 1, dtype))
                continue
            if isinstance(a, (complex, np.complexfloating)):
                return None  # (not in a float function: the library would make it complex)
            a = view(a)  # (a block: ``_record`` passes blocks, numbers and nodes)
            if not isinstance(a, np.ndarray) or a.dtype not in _FLOATS or a.ndim > len(shape):
                return None
            if a.ndim == 0:
                scalars.append(a[()])
                args.append(("s", len(scalars) - 1, a.dtype))
                continue
            if not cut and len(shape) == 2:
                a = a.reshape((1,) * (2 - a.ndim) + a.shape)
            inputs.append((a, bool(cut)))
            columns = len(shape) == 2 and a.shape[-1] != 1
            args.append(("a", len(inputs) - 1, a.dtype, bool(cut), columns))
        steps.append(("fn", name, _FLOATS[dtype], tuple(args)))
    if not any(step[0] == "fn" for step in steps):
        return None
    written = tuple(
        m
        for m, (node, o) in enumerate(zip(order[:-1], outs[:-1]))
        if o is not None and not node.product
    )
    key = (tuple(steps), written, check, len(shape), len(inputs), len(scalars))
    return key, inputs, scalars


def _dtype(empty: Any, view) -> np.dtype | None:
    """The NumPy dtype of a chain's value like ``empty``."""
    if isinstance(empty, np.ndarray):
        return empty.dtype
    found = view(empty)
    return None if found is None else found.dtype


def _hashable(fn: Any) -> bool:
    try:
        hash(fn)
    except TypeError:
        return False
    return True


def _compile(key: tuple) -> Any:
    """The numba loop of a chain's ``key`` (numba compiles it at its first call, for the
    types of that call's arguments; ``Tiles.run`` falls back where it cannot)."""
    steps, written, check, _, n_in, n_sc = key
    body = []
    for m, step in enumerate(steps):
        if step[0] == "in":
            body.append(f"v{m} = x{step[2]}[i, j]")
            continue
        _, name, cast, args = step
        exprs = []
        for a in args:
            if a[0] == "v":
                src = f"v{a[1]}"
                conv = _FLOATS[a[2]] != cast
            elif a[0] == "s":
                src = f"s{a[1]}"
                conv = _FLOATS[a[2]] != cast
            else:
                _, j, dtype, r, c = a
                src = f"x{j}[{'i' if r else '0'}, {'j' if c else '0'}]"
                conv = _FLOATS[dtype] != cast
            exprs.append(f"{cast}({src})" if conv else src)
        expr = _EXPRESSIONS[name].format(*exprs)
        body.append(f"v{m} = {cast}({expr})")
        if check:
            body.append(f"ok &= abs(v{m}) <= {_MAX[cast]}")
    last = len(steps) - 1
    for o, m in enumerate(written):
        body.append(f"o{o}[i, j] = v{m}")
    body.append(f"o{len(written)}[i, j] = v{last}")
    params = ["n", "k"]
    params += [f"x{j}" for j in range(n_in)]
    params += [f"s{j}" for j in range(n_sc)]
    params += [f"o{o}" for o in range(len(written) + 1)]
    inner = "\n".join("            " + line for line in body)
    src = (
        _PRELUDE
        + "\n@njit(nogil=True, error_model='numpy', boundscheck=False)\n"
        + f"def loop({', '.join(params)}):\n"
        + "    ok = True\n"
        + "    for i in range(n):\n"
        + "        for j in range(k):\n"
        + inner
        + "\n    return ok\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(src, "<xdist fused loop>", "exec"), namespace)  # noqa: S102
    return namespace["loop"]


def _numba_error() -> type[Exception]:
    """numba's error class (numba imports: ``available``)."""
    from numba.core.errors import NumbaError

    return NumbaError


_MAX = {
    "np.float32": f"np.float32({float(np.finfo(np.float32).max)!r})",
    "np.float64": f"{float(np.finfo(np.float64).max)!r}",
}
