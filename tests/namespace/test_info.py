"""The inspection namespace: ``xdist.__array_namespace_info__()``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BACKEND, UNSUPPORTED

import xdist

NAMES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


@pytest.fixture
def info():
    return xdist.__array_namespace_info__()


def test_reachable_from_namespace():
    x = xdist.zeros(3)
    assert x.__array_namespace__().__array_namespace_info__ is xdist.__array_namespace_info__
    assert "__array_namespace_info__" in xdist._info.__all__


def test_capabilities(info):
    assert info.capabilities() == {
        "boolean indexing": True,
        "data-dependent shapes": True,
        "max dimensions": 64,
    }


def test_devices(info):
    devices = info.devices()
    assert isinstance(devices, tuple) and devices  # a list before 2025.12
    assert info.default_device() in devices
    assert xdist.zeros(2).device == info.default_device()
    for d in devices:  # every listed device makes arrays
        assert xdist.ones(3, device=d).device == d


def test_default_dtypes(info):
    # The backend's defaults: Torch's floating default is float32.
    real, cplx = (
        (xdist.float32, xdist.complex64)
        if BACKEND.name == "torch"
        else (xdist.float64, xdist.complex128)
    )
    expected = {
        "real floating": real,
        "complex floating": cplx,
        "integral": xdist.int64,
        "indexing": xdist.int64,
    }
    assert info.default_dtypes() == expected
    assert info.default_dtypes(device=info.default_device()) == expected
    assert info.default_dtypes(device=str(info.default_device())) == expected  # by name
    # the creation functions use them
    assert xdist.arange(3).dtype == expected["integral"]
    assert xdist.zeros(2).dtype == expected["real floating"]
    assert xdist.linspace(0, 1j, 2).dtype == expected["complex floating"]


def test_dtypes_all(info):
    got = info.dtypes()
    names = [n for n in NAMES if n not in UNSUPPORTED]  # what the backend holds
    assert list(got) == names
    assert all(got[n] == np.dtype(n) and got[n] is getattr(xdist, n) for n in names)
    assert info.dtypes(device=info.default_device()) == got


@pytest.mark.parametrize(
    "kind,names",
    [
        ("bool", ["bool"]),
        ("signed integer", ["int8", "int16", "int32", "int64"]),
        ("unsigned integer", ["uint8", "uint16", "uint32", "uint64"]),
        ("integral", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]),
        ("real floating", ["float32", "float64"]),
        ("complex floating", ["complex64", "complex128"]),
        ("numeric", NAMES[1:]),
        (("real floating", "complex floating"), ["float32", "float64", "complex64", "complex128"]),
        (("bool", "unsigned integer"), ["bool", "uint8", "uint16", "uint32", "uint64"]),
        (xdist.int16, ["int16"]),
        ((), []),
    ],
)
def test_dtypes_kind(info, kind, names):
    got = info.dtypes(kind=kind)
    assert list(got) == [n for n in names if n not in UNSUPPORTED]
    assert all(xdist.isdtype(d, kind) for d in got.values())


@pytest.mark.parametrize(
    "call,exc",
    [
        (lambda i: i.dtypes(kind="floating"), ValueError),
        (lambda i: i.dtypes(kind=3), TypeError),
        (lambda i: i.dtypes(device="gpu"), ValueError),
        (lambda i: i.default_dtypes(device="gpu:1"), ValueError),
    ],
)
def test_errors(info, call, exc):
    with xdist.count_collectives() as counts:
        with pytest.raises(exc):
            call(info)
    assert not counts
