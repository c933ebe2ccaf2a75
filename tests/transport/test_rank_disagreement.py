"""Inputs that differ between ranks raise the same error on every rank, before any data moves
``from_local`` agrees on the blocks' metadata collectively, and with ``check_replicated`` (on
by default) on a fingerprint of replicated data. The cases where one rank
disagrees run at 2 and 3 ranks; the bad arguments that every rank passes alike run at every
rank count."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BACKEND, RANK, SIZE

import xdist

several = pytest.mark.skipif(SIZE == 1, reason="one rank cannot disagree with itself")

# An object array: NumPy's backend holds it with a dtype outside the standard; Torch cannot
# hold it at all. Either way the same error on every rank.
NONSTANDARD = (
    f"has a dtype that is not one of the standard's|is not an array of the {BACKEND.name} backend"
)


def _block(shape=(2, 3), dtype="float64"):
    return np.ones(shape, dtype=dtype)


@several
@pytest.mark.parametrize(
    "mine, split, message",
    [
        (lambda: _block(dtype="float32"), 0, r"disagree on the dtype: \['float64', 'float32'"),
        (lambda: _block((2, 4)), 0, "must agree on every dimension but split=0"),
        (lambda: _block((2, 3, 1)), 0, "disagree on the number of dimensions: \\[2, 3"),
        (lambda: np.float64(1.0), 0, "the block of rank 1 is 0-d: a 0-d block cannot be split"),
        (lambda: _block(), 1, r"disagree on the split: \[0, 1"),
        (lambda: _block(), None, r"disagree on the split: \[0, None"),
        (lambda: np.array([object()]), 0, f"the block of rank 1 ({NONSTANDARD})"),
        (lambda: _block((2, 4)), None, "disagree on the split"),
    ],
    ids=["dtype", "trailing-shape", "ndim", "0-d", "split", "split-none", "object", "both"],
)
def test_one_rank_differs(mine, split, message):
    block, s = (mine(), split) if RANK == 1 else (_block(), 0)
    with pytest.raises(ValueError, match=message):
        xdist.from_local(block, split=s)


@several
def test_replicated_shapes_differ():
    block = _block((2, 4)) if RANK == 1 else _block()
    with pytest.raises(ValueError, match="split=None but the blocks' shapes differ"):
        xdist.from_local(block, split=None)


@several
def test_replicated_data_differ_found_by_checksum():
    block = _block() * (2.0 if RANK == 1 else 1.0)
    with xdist.config_context(check_replicated=True):
        with pytest.raises(ValueError, match="split=None but the blocks hold different values"):
            xdist.from_local(block, split=None)
        x = xdist.from_local(_block(), split=None)  # the same data everywhere passes
    assert x.split is None and x.shape == (2, 3)


@pytest.mark.parametrize(
    "block, split, message",
    [
        (np.float64(1.0), 0, "is 0-d: a 0-d block cannot be split"),
        (_block(), 2, "has 2 dimensions: split=2 is not one of its axes"),
        (_block(), "0", "has 2 dimensions: split='0' is not one of its axes"),
        (np.array([object()]), 0, f"({NONSTANDARD})"),
    ],
    ids=["0-d", "axis", "type", "dtype"],
)
def test_bad_arguments_raise_on_every_rank(block, split, message):
    with pytest.raises(ValueError, match=f"from_local: the block of rank 0 {message}"):
        xdist.from_local(block, split=split)


@several
@pytest.mark.parametrize("split", [None, 0])
def test_asarray_of_data_that_differs_between_ranks(split):
    shape = (3, 2) if RANK == 1 else (2, 2)
    with pytest.raises(ValueError, match=r"asarray: obj differs between ranks \(shapes"):
        xdist.asarray(np.ones(shape), split=split)
    with pytest.raises(ValueError, match="asarray: obj differs between ranks"):
        xdist.asarray(np.ones((2, 2), np.float32 if RANK == 1 else np.float64), split=split)
    with xdist.config_context(check_replicated=True):
        with pytest.raises(ValueError, match="asarray: obj holds different values"):
            xdist.asarray(np.full((2, 2), float(RANK)), split=split)
        x = xdist.asarray(np.ones((2, 2)), split=split)  # the same data everywhere passes
    np.testing.assert_array_equal(x.to_numpy(), np.ones((2, 2)))
