"""``all`` and ``any`` against NumPy: every layout, every axis choice, keepdims, dtypes; how much
they communicate; errors before any message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, random_array
from test_statistical_functions import SHAPES, check_all_axes

import xdist


def _truthy_mix(shape, dtype, seed) -> np.ndarray:
    """Data with zeros (false) and, for floats, NaN (true) in it."""
    rng = np.random.default_rng(seed)
    g = random_array(shape, dtype, seed)
    if g.dtype.kind != "b":
        g = np.where(rng.random(shape) < 0.4, 0, g).astype(dtype)
    if g.dtype.kind in "fc" and g.size:
        g.reshape(-1)[-1] = np.nan
    return g


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "float64", "complex128"])
def test_all_any_match_numpy(name, dtype, shape):
    g = _truthy_mix(shape, dtype, seed=len(shape))
    for split, counts in layouts(shape):
        check_all_axes(name, g, split, counts, {}, {})


@pytest.mark.parametrize("value", [True, False])
def test_all_any_constant_data_with_empty_blocks(value):
    # A rank with no rows must be the identity (True for all, False for any).
    g = np.full((2, 3), value)
    for split, counts in layouts(g.shape) + [(0, (0,) * (SIZE - 1) + (2,))]:
        x = distribute(g, split, counts)
        for axis in (None, 0, 1):
            assert_equal(xdist.all(x, axis=axis), np.all(g, axis=axis))
            assert_equal(xdist.any(x, axis=axis), np.any(g, axis=axis))


def test_all_any_of_nothing():
    x = distribute(np.zeros((0, 3)), 0)
    assert_equal(xdist.all(x, axis=0), np.ones(3, dtype=bool))
    assert_equal(xdist.any(x, axis=0), np.zeros(3, dtype=bool))
    assert_equal(xdist.all(x), np.True_)
    assert_equal(xdist.any(x), np.False_)


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"axis": 2}, IndexError),
        ({"axis": (0, 0)}, ValueError),
        ({"axis": "0"}, TypeError),
        ({"keepdims": None}, TypeError),
    ],
)
def test_bad_arguments_raise_before_communicating(name, kwargs, error):
    x = distribute(random_array((7, 3), "bool", 1), 0)
    with xdist.count_collectives() as c, pytest.raises(error, match=f"^{name}: "):
        getattr(xdist, name)(x, **kwargs)
    assert not c


@pytest.mark.parametrize("name", ["all", "any"])
def test_not_an_array(name):
    with pytest.raises(TypeError, match=f"^{name}: "):
        getattr(xdist, name)([True, False])
