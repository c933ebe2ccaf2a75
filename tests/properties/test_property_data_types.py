"""Property tests of the data type functions, the inspection namespace and the constants,
against array-api-strict."""

from __future__ import annotations

import math

import array_api_strict as strict
import numpy as np
import pytest
from helpers import UNSUPPORTED, defaulted
from hypothesis import assume, given
from hypothesis import strategies as st
from property_strategies import ALL, compare, distributed, oracle, shapes

import xdist

_DTYPES = st.sampled_from(ALL)
_KINDS = (
    "bool",
    "signed integer",
    "unsigned integer",
    "integral",
    "real floating",
    "complex floating",
    "numeric",
)


def _strict_dtype(name: str):
    return getattr(strict, name)


def _name(strict_dtype) -> str:
    return next(n for n in ALL if _strict_dtype(n) == strict_dtype)


def _group(name: str) -> str:
    """The kind group within which the standard's promotion table is defined."""
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "float"}[np.dtype(name).kind]


def _outcome(func, *args):
    """``func(*args)``, or the type of the exception it raised."""
    try:
        return func(*args)
    except (TypeError, ValueError) as exc:
        return type(exc)


@given(data=st.data())
def test_astype(data):
    source, target = data.draw(_DTYPES), data.draw(_DTYPES)
    assume(not (source.startswith("complex") and not target.startswith("complex")))
    x = data.draw(distributed(source, shapes()))
    y = xdist.astype(x, getattr(xdist, target))
    assert y.layout == x.layout  # block by block: nothing moves
    compare(y, oracle("astype", x, _strict_dtype(target)))
    assert xdist.astype(x, x.dtype, copy=False) is x


@given(data=st.data())
def test_astype_complex_to_real_is_refused(data):
    x = data.draw(distributed(data.draw(st.sampled_from(["complex64", "complex128"])), shapes()))
    with pytest.raises(TypeError, match="^astype: "):
        xdist.astype(x, xdist.float64)


@given(names=st.lists(_DTYPES, min_size=1, max_size=4))
def test_result_type_of_dtypes(names):
    """Wherever the standard defines the promotion (array-api-strict answers), xdist agrees."""
    expected = _outcome(strict.result_type, *[_strict_dtype(n) for n in names])
    assume(not isinstance(expected, type))
    assert xdist.result_type(*[getattr(xdist, n) for n in names]).name == _name(expected)


@given(data=st.data())
def test_result_type_of_arrays_and_scalars(data):
    name = data.draw(_DTYPES)
    x = data.draw(distributed(name, shapes(max_dims=1)))
    kind = np.dtype(name).kind
    scalars = {"b": st.booleans(), "i": st.integers(-5, 5), "u": st.integers(0, 5)}
    scalar = data.draw(scalars.get(kind, st.floats(-5, 5)))
    expected = _outcome(strict.result_type, strict.asarray(x.to_numpy()), scalar)
    assume(not isinstance(expected, type))
    assert xdist.result_type(x, scalar).name == _name(expected)


@pytest.mark.parametrize("source", ALL)
def test_can_cast_every_pair(source):
    """Within a kind (the standard's promotion table), as array-api-strict; across kinds
    xdist follows NumPy's promotion (bool to int8, int16 to float32: True)."""
    for target in ALL:
        if _group(source) != _group(target):
            expected = np.promote_types(source, target) == np.dtype(target)
            assert xdist.can_cast(getattr(xdist, source), getattr(xdist, target)) == expected
            continue
        expected = strict.can_cast(_strict_dtype(source), _strict_dtype(target))
        assert xdist.can_cast(getattr(xdist, source), getattr(xdist, target)) == expected, (
            source,
            target,
        )


@pytest.mark.parametrize("name", ALL)
def test_finfo_iinfo(name):
    dtype = getattr(xdist, name)
    if np.dtype(dtype).kind in "fc":
        got, expected = xdist.finfo(dtype), strict.finfo(_strict_dtype(name))
        fields = ("bits", "eps", "max", "min", "smallest_normal")
    elif np.dtype(dtype).kind in "iu":
        got, expected = xdist.iinfo(dtype), strict.iinfo(_strict_dtype(name))
        fields = ("bits", "max", "min")
    else:
        with pytest.raises(TypeError):
            xdist.finfo(dtype)
        return
    for field in fields:
        assert getattr(got, field) == getattr(expected, field), field
        assert type(getattr(got, field)) is type(getattr(expected, field)), field
    assert got.dtype.name == _name(expected.dtype)


@given(name=_DTYPES, kinds=st.lists(st.sampled_from(_KINDS) | _DTYPES, min_size=1, max_size=3))
def test_isdtype(name, kinds):
    as_xdist = [k if k in _KINDS else getattr(xdist, k) for k in kinds]
    as_strict = [k if k in _KINDS else _strict_dtype(k) for k in kinds]
    dtype, sdtype = getattr(xdist, name), _strict_dtype(name)
    assert xdist.isdtype(dtype, as_xdist[0]) == strict.isdtype(sdtype, as_strict[0])
    assert xdist.isdtype(dtype, tuple(as_xdist)) == strict.isdtype(sdtype, tuple(as_strict))


@pytest.mark.parametrize("kind", [None, *_KINDS, ("bool", "real floating")])
def test_inspection_dtypes(kind):
    got = xdist.__array_namespace_info__().dtypes(kind=kind)
    expected = strict.__array_namespace_info__().dtypes(kind=kind)
    expected = {k: _name(v) for k, v in expected.items() if k not in UNSUPPORTED}  # Torch: no
    assert {k: v.name for k, v in got.items()} == expected  # uint16/32/64


def test_inspection_defaults_and_devices():
    info = xdist.__array_namespace_info__()
    expected = strict.__array_namespace_info__().default_dtypes()
    got = info.default_dtypes()
    expected = {k: defaulted(np.zeros(0, _name(v))).dtype.name for k, v in expected.items()}
    assert {k: v.name for k, v in got.items()} == expected  # the backend's (Torch: float32)
    assert info.default_device() in info.devices()
    assert set(info.capabilities()) >= {"boolean indexing", "data-dependent shapes"}
    assert xdist.zeros(2).device == info.default_device()


def test_constants():
    for name in ("e", "pi", "inf"):
        assert getattr(xdist, name) == getattr(strict, name) and isinstance(
            getattr(xdist, name), float
        )
    assert math.isnan(xdist.nan) and xdist.newaxis is None
