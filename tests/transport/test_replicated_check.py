"""Data given whole on every rank is compared across the ranks by default (the
``check_replicated`` setting): ``asarray`` of host data or of a block, with or without
``split=``, ``from_local(..., split=None)`` and an array operand beside an xdist array raise
the same error on every rank, naming the ranks that differ, where a rank's data differs; the
arguments (split, dtype, device kind) are agreed whatever the setting. At one rank there is
nothing to disagree with: the same calls give NumPy's result there."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BACKEND, RANK, SIZE, assert_equal

import xdist
from xdist._config import Config

SEVERAL = SIZE > 1
DIFFER = r"different values on different ranks: ranks \[1"


def per_rank(make):
    """``make(rank)`` on the host, or as a block of the backend (``block`` cases)."""
    return lambda source: (
        make(RANK) if source == "numpy" else BACKEND.from_host(np.ascontiguousarray(make(RANK)))
    )


SOURCES = ["numpy", "block"]
CASES = {
    "unseeded-rng": (lambda r: np.random.default_rng([r, 12]).random((9, 2)), 0),
    "rank-filled": (lambda r: np.full(7, float(r)), 0),
    "rank-filled-replicated": (lambda r: np.full((2, 3), float(r)), None),
    "large-sampled": (lambda r: np.random.default_rng([r, 5]).random((300, 40)), 1),
}


def raises_on_several(pattern):
    """``pytest.raises`` at several ranks; at one rank a context that expects no error."""
    if SEVERAL:
        return pytest.raises(ValueError, match=pattern)
    return _Nothing()


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_on_by_default():
    assert Config(max_message_elements=8, default_split=None).check_replicated is True
    with pytest.raises(TypeError, match="check_replicated must be True, False or 'full'"):
        xdist.set_config(check_replicated="yes")


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_asarray_of_data_that_differs(case, source):
    make, split = CASES[case]
    data = per_rank(make)(source)
    with raises_on_several(DIFFER + r".*from_local"):
        x = xdist.asarray(data, split=split)
    if not SEVERAL:  # one rank: the array of its data
        assert_equal(x, make(0))
        assert x.split == split


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_asarray_of_the_same_data_passes(case, source):
    make, split = CASES[case]
    data = per_rank(lambda r: make(0))(source)
    with xdist.count_collectives() as c:
        x = xdist.asarray(data, split=split)
    assert dict(c) == ({"allreduce": 1} if SEVERAL else {})  # the fingerprint rides along
    assert_equal(x, make(0))


def test_from_local_replicated_differs():
    with raises_on_several(r"from_local: split=None but the blocks hold " + DIFFER):
        x = xdist.from_local(BACKEND.from_host(np.full((2, 3), float(RANK))), split=None)
    if not SEVERAL:
        assert_equal(x, np.zeros((2, 3)))
    # Per-rank blocks stacked along an axis are what from_local is for: no comparison.
    y = xdist.from_local(BACKEND.from_host(np.full((2, 3), float(RANK))), split=0)
    assert_equal(y, np.repeat(np.arange(SIZE, dtype=float), 2)[:, None] * np.ones(3))


def test_numpy_operand_differs():
    x = xdist.asarray(np.arange(8.0), split=0)
    with raises_on_several(r"__add__: an operand that is not an xdist array differs .*ranks \[1"):
        y = x + np.full(8, float(RANK))
    if not SEVERAL:
        assert_equal(y, np.arange(8.0))
    assert_equal(x + np.ones(8), np.arange(8.0) + 1)  # the same operand everywhere passes
    # A NumPy scalar is taken as a Python scalar: not compared, no message.
    with xdist.count_collectives() as c:
        x * np.float32(2)
    assert not c


def test_default_rng_seed_differs():
    with raises_on_several(r"default_rng: the seed differs between ranks: ranks \[1"):
        xdist.random.default_rng(RANK)


def test_sample_and_full():
    """The default reads about 1024 elements spread over the array: a difference in one
    element between the sampled ones passes; ``"full"`` reads every element and finds it."""
    data = np.zeros(5000)
    data[1] = float(RANK)  # the sample takes every 5th element: 0, 5, 10, ...
    x = xdist.asarray(data, split=0)
    assert x.shape == (5000,)
    data[5] = float(RANK)  # a sampled element
    with raises_on_several(DIFFER):
        xdist.asarray(data, split=0)
    data[5] = 0.0
    with xdist.config_context(check_replicated="full"), raises_on_several(DIFFER):
        xdist.asarray(data, split=0)


def test_setting_off_trusts_the_values_but_not_the_arguments():
    with xdist.config_context(check_replicated=False):
        x = xdist.asarray(np.full(7, float(RANK)), split=0)
        with raises_on_several(r"asarray: the ranks disagree on split: \[0, 1"):
            xdist.asarray(np.ones((4, 4)), split=RANK % 2)
    # Each rank kept its own slice of its own data: the risk the setting takes.
    counts = x.counts
    owners = np.repeat(np.arange(SIZE), counts)
    assert_equal(x, owners.astype(float))


@pytest.mark.parametrize(
    "shape, split, expected",
    [
        ((4, 4), lambda r: r % 2, r"disagree on split: \[0, 1"),
        ((4,), lambda r: r % 2, r"disagree on split: \[0, 1"),  # 1 is no axis of rank 1's
        ((4,), lambda r: None if r else 0, r"disagree on split: \[0, None"),
    ],
    ids=["2d", "1d", "none"],
)
def test_split_differs(shape, split, expected):
    data = np.arange(float(np.prod(shape))).reshape(shape)
    if not SEVERAL:  # rank 0's arguments are valid
        assert_equal(xdist.asarray(data, split=split(0)), data)
        return
    with pytest.raises(ValueError, match=f"asarray: the ranks {expected}"):
        xdist.asarray(data, split=split(RANK))


def test_dtype_differs():
    dtype = xdist.float32 if RANK else xdist.float64
    with raises_on_several(r"asarray: the ranks disagree on dtype: \['float64', 'float32'"):
        x = xdist.asarray(np.ones(4), dtype=dtype)
    if not SEVERAL:
        assert x.dtype == xdist.float64


def test_an_error_on_some_ranks_is_raised_on_every_rank():
    """copy=False with a cast that rank 1 alone needs: rank 1's own error, everywhere."""
    data = np.ones(4, np.float32 if RANK == 1 else np.float64)
    with raises_on_several("asarray: copy=False, but converting float32 to float64"):
        xdist.asarray(data, dtype=xdist.float64, copy=False)


def test_bad_argument_on_every_rank():
    with pytest.raises(IndexError, match="split 3 is out of bounds"):
        xdist.asarray(np.ones(4), split=3)
