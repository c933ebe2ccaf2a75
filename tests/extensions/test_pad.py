"""pad (xdist's extension, NumPy's meaning) against NumPy on the same global data: every
mode, pad widths on each axis, every layout (uneven and empty blocks), the messages each
mode sends, and NumPy's np.pad dispatching to it."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, distribute, layouts, random_array, without_gathers

import xdist

MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]
WIDTHS = [((2, 1), (0, 0)), ((0, 0), (1, 2)), 2, ((3, 3), (0, 1)), (1, 0)]


@pytest.mark.parametrize("width", WIDTHS, ids=str)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(7, 3), (4, 5), (3, 3)], ids=str)
def test_pad_matches_numpy(shape, mode, width):
    a = random_array(shape, seed=1)
    want = np.pad(a, width, mode=mode)
    for case in layouts(shape):
        assert_equal(without_gathers(xdist.pad, distribute(a, *case), width, mode=mode), want)


@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "complex128"])
def test_constant_values_and_dtypes(dtype):
    if dtype == "complex128":
        a = random_array((6, 2), "complex128")
    else:
        a = random_array((6, 2), dtype)
    values = [((1, 2), (3, 4)), 7, (5, 6)] if dtype != "bool" else [True, (False, True)]
    for cv in values:
        want = np.pad(a, ((2, 1), (1, 1)), constant_values=cv)
        for case in layouts(a.shape):
            assert_equal(
                xdist.pad(distribute(a, *case), ((2, 1), (1, 1)), constant_values=cv), want
            )


def test_nan_padding_of_a_float_array():
    a = random_array((5,))
    want = np.pad(a, (3, 2), constant_values=np.nan)
    for case in layouts(a.shape):
        assert_equal(xdist.pad(distribute(a, *case), (3, 2), constant_values=np.nan), want)


def test_constant_sends_nothing_and_keeps_the_inner_blocks():
    a = random_array((9, 2))
    x = distribute(a, 0)
    with xdist.count_collectives() as counts:
        got = xdist.pad(x, ((2, 3), (1, 1)))
    assert counts == Counter()
    expected = list(x.counts)
    expected[0] += 2
    expected[-1] += 3
    assert got.counts == tuple(expected)


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric", "wrap"])
def test_other_modes_send_nothing_along_an_axis_that_is_not_split(mode):
    x = distribute(random_array((6, 4)), 0)
    with xdist.count_collectives() as counts:
        got = xdist.pad(x, ((0, 0), (2, 1)), mode=mode)
    assert counts == Counter()
    assert got.counts == x.counts


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_pads_wider_than_the_axis_repeat_it(mode, n):
    a = np.arange(1.0, n + 1)
    for width in [(7, 0), (0, 5), (4, 9)]:
        want = np.pad(a, width, mode=mode)
        for case in layouts(a.shape):
            assert_equal(xdist.pad(distribute(a, *case), width, mode=mode), want)


def test_empty_axis_and_zero_widths():
    a = np.zeros((0, 3))
    for case in layouts(a.shape):
        x = distribute(a, *case)
        assert_equal(xdist.pad(x, ((1, 1), (0, 0))), np.pad(a, ((1, 1), (0, 0))))
        assert_equal(xdist.pad(x, 0, mode="edge"), a)
        with pytest.raises(ValueError, match="pad: mode 'wrap' cannot extend the empty axis 0"):
            xdist.pad(x, 1, mode="wrap")


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"pad_width": -1}, ValueError, "non-negative integers"),
        ({"pad_width": 1.5}, ValueError, "non-negative integers"),
        ({"pad_width": ((1, 1), (1, 1), (1, 1))}, ValueError, "one pair per axis"),
        ({"pad_width": 1, "mode": "mean"}, ValueError, "mode must be one of"),
    ],
)
def test_bad_arguments_raise_before_any_message(kwargs, exc, match):
    x = distribute(random_array((5, 6)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=f"pad: .*{match}"):
            xdist.pad(x, **kwargs)
    assert counts == Counter()


def test_numpy_pad_dispatches():
    a = random_array((7, 2))
    x = distribute(a, 0)
    got = without_gathers(np.pad, x, ((1, 2), (0, 0)), mode="reflect")
    assert isinstance(got, xdist.Array)
    assert_equal(got, np.pad(a, ((1, 2), (0, 0)), mode="reflect"))
