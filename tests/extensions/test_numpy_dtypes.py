"""promote_types, issubdtype, iscomplexobj, isrealobj, isscalar and iterable (NumPy's names on
the namespace): NumPy's answers, from metadata, with no message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import distribute

import xdist


@pytest.mark.parametrize(
    "t1,t2",
    [("int8", "uint8"), (np.int16, "float32"), (float, xdist.int32), ("f4", "c8"), (bool, "i2")],
)
def test_promote_types_is_numpys(t1, t2):
    assert xdist.promote_types(t1, t2) == np.promote_types(t1, t2)


def test_promote_types_refuses_what_xdist_has_not():
    with pytest.raises(TypeError, match="promote_types: .* not a dtype of xdist"):
        xdist.promote_types("f2", "f2")
    with pytest.raises(TypeError, match="promote_types: type1='nope' is not a dtype"):
        xdist.promote_types("nope", "f4")


def test_dtype_questions_without_messages():
    x = distribute(np.arange(6.0).reshape(3, 2), 0)
    z = distribute(np.ones(3, "complex128"), 0)
    s = distribute(np.float64(1.0))  # a 0-d array: not a scalar, not iterable
    with xdist.count_collectives() as counts:
        assert xdist.issubdtype(x.dtype, np.floating) and not xdist.issubdtype(x.dtype, np.integer)
        assert xdist.issubdtype(xdist.int8, np.signedinteger)
        assert xdist.isrealobj(x) and not xdist.iscomplexobj(x)
        assert xdist.iscomplexobj(z) and not xdist.isrealobj(z)
        assert xdist.iscomplexobj([1j]) and xdist.isrealobj(3.0)
        assert np.iscomplexobj(z) and np.isrealobj(x)  # NumPy's dispatch
        assert xdist.isscalar(3.0) and xdist.isscalar(np.float32(1)) and xdist.isscalar("a")
        assert not xdist.isscalar(s) and not xdist.isscalar([1])
        assert xdist.iterable(x) and xdist.iterable([1]) and not xdist.iterable(s)
        assert not xdist.iterable(3)
    assert counts == Counter()
