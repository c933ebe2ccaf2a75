"""The array object: attributes of the standard, xdist's own, and the namespace hook."""

from __future__ import annotations

import array_api_compat
import numpy as np
import pytest
from helpers import BACKEND, DEVICE, RANK, SIZE, distribute, host, random_array

import xdist


def test_attributes():
    g = random_array((7, 3), seed=1)
    x = distribute(g, 0)
    assert x.shape == (7, 3) and x.ndim == 2 and x.size == 21 and x.dtype == xdist.float64
    assert x.split == 0 and sum(x.counts) == 7 and len(x.counts) == SIZE
    assert x.lshape == (x.counts[RANK], 3)
    assert x.offsets[RANK] == sum(x.counts[:RANK])
    assert str(x.device) == str(DEVICE)  # "cpu", or "cuda:0" under CuPy
    assert len(x) == 7
    assert "split=0" in repr(x)
    np.testing.assert_array_equal(x.T.to_numpy(), g.T)
    assert x.T.split == 1


def test_namespace_is_xdist():
    x = distribute(np.ones(3), 0)
    assert x.__array_namespace__() is xdist
    assert x.__array_namespace__(api_version="2025.12") is xdist
    assert x.__array_namespace__(api_version="2024.12").__array_api_version__ == "2024.12"
    assert array_api_compat.array_namespace(x) is xdist
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="1999.01")


def test_local_block_is_writable_think_globally_act_locally():
    g = np.arange(7.0)
    x = distribute(g, 0)
    x.local[...] = x.local * 10  # act locally
    np.testing.assert_array_equal(x.to_numpy(), g * 10)  # see globally


def test_array_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="asarray"):
        xdist.Array(np.ones(3))


def test_dlpack_of_replicated_and_split():
    r = distribute(np.arange(4.0), None)
    np.testing.assert_array_equal(host(BACKEND.xp.from_dlpack(r)), np.arange(4.0))
    s = distribute(np.arange(4.0), 0)
    if SIZE > 1:
        with pytest.raises(BufferError, match="split over several ranks"):
            s.__dlpack__()
    else:
        np.testing.assert_array_equal(host(BACKEND.xp.from_dlpack(s)), np.arange(4.0))


def test_iteration_and_unhashable():
    g = random_array((3, 2), seed=2)
    x = distribute(g, 1)
    rows = [row.to_numpy() for row in x]
    np.testing.assert_array_equal(np.stack(rows), g)
    with pytest.raises(TypeError):
        hash(x)
    # a 0-d array is not iterable at iter() already, as NumPy's: np.iterable says so
    zero_d = xdist.asarray(3.0)
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(zero_d)
    assert not np.iterable(zero_d) and np.iterable(x) and np.iterable(x[:0])
    assert [r.to_numpy() for r in x[:0]] == []
