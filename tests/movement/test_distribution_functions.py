"""from_local, resplit, balance, to_numpy and Python scalar conversion."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from helpers import (
    BACKEND,
    RANK,
    SIZE,
    assert_equal,
    comm_params,
    distribute,
    layout_id,
    layouts,
    random_array,
    uneven_counts,
)

import xdist


@comm_params
def test_from_local_agrees_by_a_fixed_size_allreduce_and_gathers_one_int(comm):
    """The metadata agreed by one allreduce whose size does not grow with the ranks, the
    counts by one allgather of one int per rank; nothing on one rank."""
    rows = [(r * 2) % 3 for r in range(comm.size)]  # uneven, with empty blocks
    offsets = np.concatenate([[0], np.cumsum(rows)])
    g = random_array((int(sum(rows)), 4), seed=1)
    block = BACKEND.from_host(np.ascontiguousarray(g[offsets[comm.rank] : offsets[comm.rank + 1]]))
    with xdist.count_collectives() as c:
        x = xdist.from_local(block, split=0, comm=comm)
    if comm.size > 1:
        assert c == {"allreduce": 1, "allgather": 1}
        assert c.bytes == {"allreduce": 2 * 71 * 8, "allgather": 8}, c.bytes
    else:
        assert c == {}
    for check in (False, True, "full"):  # split=None: no counts; the fingerprint in the row
        with xdist.config_context(check_replicated=check), xdist.count_collectives() as c:
            xdist.from_local(BACKEND.from_host(g), split=None, comm=comm)
        assert c == ({"allreduce": 1} if comm.size > 1 else {})
    assert x.counts == tuple(rows)
    assert x.shape == g.shape and x.lshape == tuple(block.shape)
    assert x.local is block
    np.testing.assert_array_equal(x.to_numpy(), g)


@comm_params
def test_from_local_along_axis_1(comm):
    block = np.full((3, comm.rank + 1), float(comm.rank))
    x = xdist.from_local(block, split=1, comm=comm)
    expected = np.concatenate([np.full((3, r + 1), float(r)) for r in range(comm.size)], axis=1)
    np.testing.assert_array_equal(x.to_numpy(), expected)


def test_from_local_mismatched_blocks_raise_on_every_rank():
    block = np.zeros((2, 3 + (RANK == SIZE - 1 and SIZE > 1)))
    if SIZE > 1:
        with pytest.raises(ValueError, match="from_local: blocks must agree"):
            xdist.from_local(block, split=0)
    with pytest.raises(ValueError, match="from_local: the block of rank 0 is 0-d: a 0-d block"):
        xdist.from_local(np.float64(1.0) * np.ones(()), split=0)


@pytest.mark.parametrize("shape", [(7, 5), (2, 3), (0, 4), (3, 4, 5)], ids=str)
def test_resplit_every_pair_of_axes(shape):
    g = random_array(shape, seed=2)
    for case in layouts(shape):
        x = distribute(g, *case)
        for axis in [None, *range(len(shape))]:
            y = xdist.resplit(x, axis)
            assert y.split == axis
            if axis is not None:
                assert y.layout.is_balanced
            assert_equal(y, g)


def test_resplit_split_to_split_is_one_alltoall_without_gather():
    g = random_array((7, 5), seed=3)
    x = distribute(g, 0)
    with xdist.count_collectives() as c:
        y = xdist.resplit(x, 1)
    assert c == ({"alltoallv": 1} if SIZE > 1 else {})
    assert_equal(y, g)
    r = distribute(g, None)  # (made outside: from_local agrees on the metadata)
    with xdist.count_collectives() as c:
        z = xdist.resplit(r, 0)
    assert sum(c.values()) == 0  # replicated -> split slices locally
    assert_equal(z, g)


def test_balance_uneven_counts():
    g = random_array((7, 3), seed=4)
    x = distribute(g, 0, counts=uneven_counts(7, SIZE))
    y = xdist.balance(x)
    assert y.layout.is_balanced and y.split == 0
    assert_equal(y, g)
    assert xdist.balance(y) is y


@pytest.mark.parametrize("case", layouts((1,)), ids=layout_id)
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "complex128"])
def test_python_scalars_are_the_same_on_every_rank(case, dtype):
    g = random_array((1,), dtype, seed=5)
    x = distribute(g, *case)
    value = g[0].item()
    assert complex(x) == complex(value)
    assert bool(x) == bool(value)
    if dtype != "complex128":
        assert float(x) == float(value)
        assert int(x) == int(value)
    if dtype.startswith("int"):
        assert [10, 20, 30, 40, 50][x.__index__() % 5] == [10, 20, 30, 40, 50][int(value) % 5]


@pytest.mark.parametrize("case", layouts((5,)), ids=layout_id)
def test_iteration_is_collective(case):
    """``for v in x`` over a split 1-D array (what libraries do with small label arrays):
    every rank gets every element, in order, as a replicated 0-d array."""
    g = random_array((5,), "int64", seed=7)
    items = list(distribute(g, *case))
    assert [int(v) for v in items] == g.tolist()
    assert all(v.shape == () and v.split is None for v in items)
    assert [operator.index(v) for v in items] == g.tolist()


def test_scalar_of_many_elements_raises():
    x = distribute(np.arange(3.0), 0)
    with xdist.count_collectives() as c, pytest.raises(TypeError, match="one element"):
        float(x)
    assert sum(c.values()) == 0
    with pytest.raises(TypeError, match="__index__"):
        distribute(np.ones(1), 0).__index__()


def test_to_numpy_and_array_protocol():
    g = random_array((5, 3), seed=6)
    x = distribute(g, 1)
    np.testing.assert_array_equal(x.to_numpy(), g)
    np.testing.assert_array_equal(np.asarray(x), g)
    np.testing.assert_array_equal(xdist.to_numpy(x), g)


def test_resplit_errors_before_any_message():
    x = distribute(np.ones((3, 4)), 0)
    for axis, error in [(2, IndexError), (-3, IndexError), ("a", TypeError)]:
        with xdist.count_collectives() as c, pytest.raises(error, match="resplit"):
            xdist.resplit(x, axis)
        assert sum(c.values()) == 0
    with pytest.raises(ValueError, match="0-d"):
        xdist.resplit(distribute(np.array(1.0), None), 0)


@pytest.mark.parametrize("limit", [1, 4])
def test_redistribution_with_chunked_messages(limit):
    """Every path of the array layer stays exact when each MPI call may carry only a few
    elements (the setting stands in for the 2**31 limit of real large messages)."""
    g = random_array((7, 5), "complex128", seed=7)
    with xdist.config_context(max_message_elements=limit):
        x = distribute(g, 0, counts=uneven_counts(7, SIZE))
        assert_equal(xdist.resplit(x, 1), g)
        assert_equal(xdist.balance(x), g)
        assert_equal(xdist.resplit(x, None), g)
        assert_equal(x + distribute(g, 1), g + g)
