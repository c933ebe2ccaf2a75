"""Helpers every test module uses: distributing NumPy data with a chosen layout, comparing
results with NumPy, and the communicators every test can run on."""

from __future__ import annotations

import numpy as np
import pytest

import xdist
from xdist import Layout, SelfComm

COMM = xdist.default_comm()
RANK, SIZE = COMM.rank, COMM.size


def comms() -> dict[str, object]:
    """One process, the world, a duplicate of it, and a sub-communicator with reversed ranks
    (so nothing may assume the world's rank order)."""
    return {
        "self": SelfComm(),
        "world": COMM,
        "dup": COMM.dup(),
        "reversed": COMM.split(0, SIZE - 1 - RANK),
    }


_COMMS = comms()
comm_params = pytest.mark.parametrize("comm", list(_COMMS.values()), ids=list(_COMMS))


def uneven_counts(n: int, nranks: int) -> tuple[int, ...]:
    """Counts that are far from balanced: the last rank holds most, the first holds nothing."""
    if nranks == 1:
        return (n,)
    counts = [0] * nranks
    counts[-1] = n - n // 3
    counts[1 if nranks > 2 else 0] += n // 3
    return tuple(counts)


def distribute(global_array, split=None, counts=None, comm=None) -> xdist.Array:
    """An xdist array holding ``global_array`` split along ``split`` with ``counts``
    (balanced when None), built without communication from the same data on every rank."""
    comm = COMM if comm is None else comm
    g = np.asarray(global_array)
    if split is None:
        return xdist.from_local(g.copy(), split=None, comm=comm)
    split = split % g.ndim
    if counts is None:
        layout = Layout.balanced(g.shape, split, comm.size)
    else:
        layout = Layout(g.shape, split, tuple(counts))
    block = np.array(g[layout.local_slice(comm.rank)], order="C")  # a copy: never alias g
    x = xdist.from_local(block, split=split, comm=comm)
    assert x.layout == layout
    return x


def layouts(shape: tuple[int, ...]):
    """Every way to lay out ``shape``: replicated, split along each axis (balanced), and the
    first axis with very uneven counts (empty blocks included)."""
    out = [(None, None)]
    for axis in range(len(shape)):
        out.append((axis, None))
    if len(shape) > 0:
        out.append((0, uneven_counts(shape[0], SIZE)))
    return out


def layout_id(case) -> str:
    split, counts = case
    return "rep" if split is None else f"s{split}" + ("u" if counts else "")


def assert_layout_consistent(x: xdist.Array) -> None:
    """The local block matches the layout on this rank."""
    assert tuple(x.local.shape) == x.lshape, (x.local.shape, x.lshape)
    if x.split is not None:
        assert len(x.counts) == x.comm.size
        assert sum(x.counts) == x.shape[x.split]


def assert_equal(x: xdist.Array, expected, *, rtol: float = 0.0, atol: float = 0.0) -> None:
    """``x`` equals NumPy's ``expected``: shape, dtype and every value (NaN equal to NaN)."""
    assert isinstance(x, xdist.Array), type(x)
    expected = np.asarray(expected)
    assert_layout_consistent(x)
    assert x.shape == expected.shape, (x.shape, expected.shape)
    assert x.dtype == expected.dtype, (x.dtype, expected.dtype)
    got = x.to_numpy()
    if rtol or atol:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected, strict=True)


def random_array(shape, dtype="float64", seed=0) -> np.ndarray:
    """The same data on every rank (fixed seed)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -50), min(info.max, 50)
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)
