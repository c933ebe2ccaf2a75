"""A copy is a copy: NumPy copies, ``copy.copy``/``deepcopy`` and pickling of arrays, at every
rank count and layout: a copy never shares memory with its source, and a pickled array
comes back with its layout."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from helpers import RANK, SIZE, distribute, layout_id, layouts, random_array

import xdist
from xdist._array import _unpickle_block

SHAPE = (7, 3)
CASES = [pytest.param(case, id=layout_id(case)) for case in layouts(SHAPE)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "to_host",
    [
        pytest.param(lambda x: x.to_numpy(), id="to_numpy"),
        pytest.param(lambda x: np.asarray(x, copy=True), id="asarray-copy"),
        pytest.param(lambda x: np.array(x), id="array"),
    ],
)
def test_numpy_copies_do_not_alias(case, to_host, recwarn):
    g = random_array(SHAPE)
    x = distribute(g, *case)
    out = to_host(x)
    out[...] = -1.0  # writing to the copy ...
    np.testing.assert_array_equal(x.to_numpy(), g)  # ... leaves the array as it was


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("make_copy", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])
def test_copy_is_collective_and_independent(case, make_copy):
    g = random_array(SHAPE)
    x = distribute(g, *case)
    y = make_copy(x)
    assert isinstance(y, xdist.Array) and y.layout == x.layout and y.comm is x.comm
    y.local[...] = 0  # every rank writes its own block of the copy
    np.testing.assert_array_equal(x.to_numpy(), g)
    np.testing.assert_array_equal(y.to_numpy(), np.zeros(SHAPE))


def test_deepcopy_of_a_container():
    x = distribute(random_array(SHAPE), 0)
    box = {"a": x, "b": [x]}
    out = copy.deepcopy(box)
    assert out["a"] is out["b"][0]  # the memo is honoured: one copy, shared
    assert out["a"] is not x


@pytest.mark.parametrize("case", CASES)
def test_pickle_round_trip_per_rank(case):
    g = random_array(SHAPE)
    x = distribute(g, *case)
    y = pickle.loads(pickle.dumps(x))
    assert y.layout == x.layout and y.dtype == x.dtype
    np.testing.assert_array_equal(y.to_numpy(), g)
    y.local[...] = 0
    np.testing.assert_array_equal(x.to_numpy(), g)


def test_unpickle_at_another_rank_count_raises_the_same_error():
    x = distribute(random_array(SHAPE), 0)
    name, host, layout, rank, size = x.__reduce__()[1]
    with pytest.raises(ValueError, match=f"pickled by rank {RANK} of {SIZE + 1}"):
        _unpickle_block(name, host, layout, RANK, SIZE + 1)
