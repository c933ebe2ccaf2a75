"""The backends on their own: dtypes, devices, host round trips (no MPI involved)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from xdist.backends import available_backends, get_backend

_INSTALLED = [name for name in available_backends() if importlib.util.find_spec(name)]


def test_numpy_backend_is_always_there():
    assert "numpy" in _INSTALLED


@pytest.mark.parametrize("name", _INSTALLED)
def test_host_round_trip_every_dtype(name):
    b = get_backend(name)
    for dtype in b.supported_dtypes():
        data = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
        block = b.from_host(data, b.default_device())
        assert b.is_block(block) and b.dtype_of(block) == dtype
        back = b.to_host(block.T)
        assert back.flags.c_contiguous
        np.testing.assert_array_equal(back, data.T)
        np.testing.assert_array_equal(b.to_host(b.asarray(data)), data)


@pytest.mark.parametrize("name", _INSTALLED)
def test_devices_and_errors(name):
    b = get_backend(name)
    dev = b.default_device()
    assert dev in b.devices() and b.check_device(str(dev), "f") == dev
    assert b.device_of(b.empty((2,), np.dtype("float64"))) == dev
    with pytest.raises(ValueError, match="f: device 'tpu' is not a device"):
        b.check_device("tpu", "f")
    assert set(b.default_dtypes()) == {"real floating", "complex floating", "integral", "indexing"}


def test_unknown_and_missing_backends_raise_clearly():
    with pytest.raises(ValueError, match="unknown backend 'jax'"):
        get_backend("jax")
    for name in available_backends():
        if name not in _INSTALLED:
            with pytest.raises(ImportError, match=f"needs the package '{name}'"):
                get_backend(name)
