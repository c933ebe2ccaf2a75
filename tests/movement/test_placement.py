"""Where a new array lives (``xdist/_placement.py``) and how the ranks agree on what they were
given (``xdist/_movement/agreement.py``): every function that makes an array checks ``comm=``
and ``split=`` one way and raises one error type for a split that is not an axis, before any
message; the agreement row has one format whatever the caller."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BACKEND, COMM, RANK, SIZE, distribute

import xdist
from xdist import io as xio
from xdist._errors import AxisError
from xdist._movement.agreement import (
    MAX_DIMS,
    agree_on_errors,
    agree_on_metadata,
    checksum,
    differing_copies,
)
from xdist._placement import DEFAULT, Placement, resolve_split

several = pytest.mark.skipif(SIZE == 1, reason="one rank cannot disagree with itself")


def _x():
    return distribute(np.ones((4, 3)), 0)


# Each function that makes a new array, called with a split that is not an axis of its result
# (``x``: an input array, for the functions that take one; ``rng``: a generator).
OUT_OF_RANGE = {
    "zeros": lambda x, rng: xdist.zeros((2, 3), split=2),
    "full": lambda x, rng: xdist.full(3, 1.0, split=-2),
    "arange": lambda x, rng: xdist.arange(4, split=1),
    "eye": lambda x, rng: xdist.eye(3, split=2),
    "asarray": lambda x, rng: xdist.asarray(np.ones(4), split=1),
    "zeros_like": lambda x, rng: xdist.zeros_like(x, split=2),
    "tril": lambda x, rng: xdist.tril(x, split=-3),
    "resplit": lambda x, rng: xdist.resplit(x, 2),
    "random": lambda x, rng: rng.random(3, split=1),
    "fftfreq": lambda x, rng: xdist.fft.fftfreq(4, split=1),
    "from_sliceable": lambda x, rng: xio.from_sliceable(np.ones((2, 2)), 2),
}
ZERO_D = {
    "zeros": lambda: xdist.zeros((), split=0),
    "asarray": lambda: xdist.asarray(1.0, split=0),
    "resplit": lambda: xdist.resplit(distribute(np.array(1.0), None), 0),
    "random": lambda: xdist.random.default_rng(0).random(split=0),
}


@pytest.mark.parametrize("func", OUT_OF_RANGE)
def test_a_split_out_of_range_is_an_axis_error(func):
    x, rng = _x(), xdist.random.default_rng(0)  # made before counting
    with xdist.count_collectives() as sent, pytest.raises(AxisError) as caught:
        OUT_OF_RANGE[func](x, rng)
    assert isinstance(caught.value, IndexError) and isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(f"{func}: ") and "out of bounds" in str(caught.value)
    # asarray's data may differ between ranks, so its arguments are agreed (one allreduce)
    # before the error is raised; every other function raises before any message.
    assert sum(sent.values()) == (SIZE > 1 and func == "asarray")


@pytest.mark.parametrize("func", ZERO_D)
def test_splitting_a_0d_result_is_an_axis_error(func):
    with pytest.raises(AxisError, match=f"{func}: a 0-d array cannot be split"):
        ZERO_D[func]()


def test_from_local_bad_splits_are_axis_errors_on_every_rank():
    with pytest.raises(AxisError, match="from_local: the block of rank 0 has 2 dimensions"):
        xdist.from_local(np.ones((2, 3)), split=2)
    with pytest.raises(AxisError, match="from_local: the block of rank 0 is 0-d"):
        xdist.from_local(np.ones(()), split=0)


@several
def test_a_split_bad_on_one_rank_is_an_axis_error_on_every_rank():
    block = np.ones(3) if RANK == 1 else np.ones((3, 2))
    with pytest.raises(AxisError, match="from_local: the block of rank 1 has 1 dimensions"):
        xdist.from_local(block, split=1)


def test_a_split_that_is_not_an_int_is_a_type_error():
    for make in (
        lambda: xdist.zeros(3, split="0"),
        lambda: xdist.zeros(3, split=True),
        lambda: xio.from_sliceable(np.ones(3), 0.0),
        lambda: xdist.fft.rfftfreq(4, split=[0]),
    ):
        with pytest.raises(TypeError, match="split must be an int or None"):
            make()
    with pytest.raises(TypeError, match="resplit: axis must be an int or None"):
        xdist.resplit(_x(), "a")


def test_integer_splits_of_any_integer_type_and_negative_axes():
    assert xdist.zeros((SIZE, 2), split=np.int64(-1)).split == 1
    assert xdist.asarray(np.ones((2, 3)), split=np.int32(1)).split == 1
    assert xio.from_sliceable(np.ones((2, 3)), np.int64(-2)).split == 0
    assert resolve_split(-1, 3, "f") == 2 and resolve_split(None, 3, "f") is None


def test_the_default_split_applies_only_where_the_axis_exists():
    with xdist.config_context(default_split=1):
        assert resolve_split(DEFAULT, 2, "f") == 1
        assert resolve_split(DEFAULT, 1, "f") is None
        assert xdist.zeros((2, 2)).split == 1 and xdist.zeros(2).split is None


def test_a_loader_leaves_0d_data_replicated():
    x = xio.from_sliceable(np.array(2.5), 0)
    assert x.split is None and float(x) == 2.5
    assert Placement(None, None, "f").layout((), 5, "f", zero_d_replicated=True).split is None


@pytest.mark.parametrize(
    "make",
    [
        lambda c: xdist.zeros(3, comm=c),
        lambda c: xdist.asarray([1.0], comm=c),
        lambda c: xdist.from_local(np.ones(2), comm=c),
        lambda c: xdist.random.default_rng(0, comm=c),
        lambda c: xdist.fft.fftfreq(4, comm=c),
        lambda c: xio.from_sliceable(np.ones(3), comm=c),
    ],
    ids=["zeros", "asarray", "from_local", "default_rng", "fftfreq", "from_sliceable"],
)
def test_comm_is_checked_against_the_protocol(make):
    class Lookalike:  # rank and size alone do not make a communicator
        rank, size = RANK, SIZE

    with pytest.raises(TypeError, match="comm must be an xdist Communicator, got Lookalike"):
        make(Lookalike())
    with pytest.raises(TypeError, match="comm must be an xdist Communicator, got int"):
        make(3)


def test_a_placement_resolves_defaults():
    where = Placement(None, None, "f")
    assert where.comm is xdist.default_comm() and where.backend is BACKEND
    assert where.device == BACKEND.default_device()
    assert where.default_dtype("real floating") == BACKEND.default_dtypes()["real floating"]
    assert where.layout((7, 2), 0, "f").counts == distribute(np.ones((7, 2)), 0).counts


# -- agreement ------------------------------------------------------------------------------------
def test_rows_that_agree_send_one_allreduce():
    with xdist.count_collectives() as sent:
        rows = agree_on_metadata({"a": 1, "b": -2}, COMM, shape=(3, 4), checksum=2**63 + 5)
    assert rows is None
    assert dict(sent) == ({"allreduce": 1} if SIZE > 1 else {})
    if SIZE > 1:
        assert sent.bytes["allreduce"] == 2 * 8 * (2 + 3 + MAX_DIMS)


def test_every_rows_fields_shape_and_checksum_read_back():
    shape = (RANK + 1,) * (2 + RANK % 2)
    rows = agree_on_metadata(
        {"rank": RANK, "same": 7}, COMM, shape=shape, checksum=(2**64 - 1) - RANK, gather=True
    )
    assert rows.column("rank") == list(range(SIZE)) and rows.column("same") == [7] * SIZE
    assert rows.ndims() == [2 + r % 2 for r in range(SIZE)]
    assert rows.shapes() == [(r + 1,) * (2 + r % 2) for r in range(SIZE)]
    assert rows.checksums() == [(2**64 - 1) - r for r in range(SIZE)]


def test_a_free_axis_may_differ_and_a_long_shape_is_cut():
    assert agree_on_metadata({}, COMM, shape=(RANK, 2), free_axis=0) is None
    long = (1,) * (MAX_DIMS + 2)
    rows = agree_on_metadata({}, COMM, shape=long, gather=True)
    assert rows.ndims() == [MAX_DIMS + 2] * SIZE and rows.shapes() == [(1,) * MAX_DIMS] * SIZE


@several
def test_rows_that_differ_are_gathered():
    rows = agree_on_metadata({"x": int(RANK == 1)}, COMM, shape=(2,))
    assert rows is not None and rows.column("x") == [int(r == 1) for r in range(SIZE)]


def test_checksum_follows_the_check_replicated_setting():
    data = np.arange(5000.0)
    with xdist.config_context(check_replicated=False):
        assert checksum(data, BACKEND) == 0
        assert differing_copies(data * RANK, COMM, BACKEND) is None
    with xdist.config_context(check_replicated=True):
        sampled = checksum(data, BACKEND)
        assert sampled != 0 and checksum(data.copy(), BACKEND) == sampled
        data[1] = -1.0  # not among the sampled elements
        assert checksum(data, BACKEND) == sampled
    with xdist.config_context(check_replicated="full"):
        assert checksum(data, BACKEND) != sampled
        assert differing_copies(data, COMM, BACKEND) is None


@several
def test_differing_copies_names_the_ranks():
    data = np.full(3, float(RANK == 1))
    with xdist.config_context(check_replicated=True):
        assert differing_copies(data, COMM, BACKEND) == (
            f"ranks [1] differ from rank 0 (ranks {[r for r in range(SIZE) if r != 1]} agree "
            "with it)"
        )


def test_an_axis_error_on_one_rank_is_an_axis_error_on_every_rank():
    error = AxisError("f: split 2 is out of bounds") if RANK == SIZE - 1 else None
    with pytest.raises(AxisError, match="f: split 2 is out of bounds"):
        agree_on_errors(error, COMM)
