"""sliding_window_view (xdist's extension, NumPy's meaning, a new array) against NumPy on
the same global data: windows along each axis and several axes, every layout (uneven and
empty blocks), the halo it sends, and NumPy's name xdist.lib.stride_tricks."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, random_array, without_gathers

import xdist

swv = np.lib.stride_tricks.sliding_window_view


@pytest.mark.parametrize(
    "window,axis", [(3, 0), (2, 1), ((2, 2), (0, 1)), (7, 0), (1, 0), ((3, 2), None), (2, -1)]
)
def test_windows_match_numpy(window, axis):
    a = random_array((7, 3), seed=2)
    want = swv(a, window, axis=axis)
    for case in layouts(a.shape):
        got = without_gathers(xdist.sliding_window_view, distribute(a, *case), window, axis=axis)
        assert_equal(got, want)


@pytest.mark.parametrize("n,w", [(2, 2), (3, 3), (4, 2), (10, 4)])
def test_short_and_empty_blocks(n, w):
    a = np.arange(n * 2, dtype=np.float64).reshape(n, 2)
    for case in layouts(a.shape):
        got = xdist.sliding_window_view(distribute(a, *case), w, axis=0)
        assert_equal(got, swv(a, w, axis=0))


def test_one_halo_message_along_the_split_axis():
    a = random_array((30, 2))
    x = distribute(a, 0)
    with xdist.count_collectives() as counts:
        got = xdist.sliding_window_view(x, 4, axis=0)
    assert counts == (Counter(sendrecv=1) if SIZE > 1 else Counter())
    assert got.counts[:-1] == x.counts[:-1]
    with xdist.count_collectives() as counts:
        xdist.sliding_window_view(x, 2, axis=1)
    assert counts == Counter()


def test_numpy_name_and_dispatch():
    a = random_array((9,))
    x = distribute(a, 0)
    assert_equal(xdist.lib.stride_tricks.sliding_window_view(x, 3), swv(a, 3))
    got = without_gathers(swv, x, 3)
    assert isinstance(got, xdist.Array)
    assert_equal(got, swv(a, 3))


@pytest.mark.parametrize(
    "window,axis,match",
    [
        (0, 0, "positive int"),
        (8, 0, "larger than axis 0"),
        ((2, 2), 0, "differ in length"),
        (2, None, "one length per axis"),
        ((2, 2), (0, 0), "repeats an axis"),
    ],
)
def test_bad_arguments_raise_before_any_message(window, axis, match):
    x = distribute(random_array((7, 3)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(ValueError, match=f"sliding_window_view: .*{match}"):
            xdist.sliding_window_view(x, window, axis=axis)
    assert counts == Counter()
