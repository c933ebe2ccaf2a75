"""The fft extension against numpy.fft: every layout, axis, length (n/s shorter and longer),
norm and dtype; the six-step path of 1-D split arrays (and the gather for a prime length);
how much each transform communicates; errors before any message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    SIZE,
    assert_equal,
    comm_params,
    defaulted,
    distribute,
    layouts,
    random_array,
)

import xdist
from xdist.fft._split_axis import factor

NORMS = ("backward", "ortho", "forward")
ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
REAL_IN = ("rfft", "rfftn", "ihfft")  # the functions that need a real input
REAL_OUT = ("irfft", "irfftn", "hfft")
COMPLEX = {"float32": "complex64", "float64": "complex128"}
COMPLEX |= {"complex64": "complex64", "complex128": "complex128"}
REAL = {"complex64": "float32", "complex128": "float64", "float32": "float32"}
REAL |= {"float64": "float64"}


def expected_dtype(name: str, dtype: str) -> np.dtype:
    return np.dtype(REAL[dtype] if name in REAL_OUT else COMPLEX[dtype])


def input_data(name: str, shape, dtype: str = "float64", seed: int = 0) -> np.ndarray:
    """Real input for the real-input functions, complex of the same precision otherwise."""
    if name in REAL_IN:
        return random_array(shape, REAL[dtype], seed)
    return random_array(shape, COMPLEX[dtype], seed)


def assert_transform(y, expected, dtype: np.dtype) -> None:
    """``y`` equals NumPy's result up to rounding scaled to the result's magnitude."""
    expected = np.asarray(expected).astype(dtype)
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
    tol = 2e-5 if dtype in (np.float32, np.complex64) else 1e-11
    assert_equal(y, expected, rtol=0, atol=tol * scale)


def split_axis_messages(shape, split, steps_on_split: int, n: int) -> dict:
    """What a transform along the split axis sends: two all-to-alls when another axis has an
    index for every rank, else the six-step's three (or the gather's two for a prime n)."""
    if split is None or SIZE == 1 or not steps_on_split:
        return {}
    others = [s for i, s in enumerate(shape) if i != split]
    if any(s >= SIZE for s in others):
        return {"alltoallv": 2}
    if int(np.prod(others)) == 0:
        return {}
    return {"alltoallv": 3 if factor(n) > 1 else 2}


def output_counts(x, y, axis: int):
    """The split axis keeps its counts when its length is unchanged."""
    if x.split is None:
        assert y.split is None
        return
    assert y.split == x.split
    if y.shape[x.split] == x.shape[x.split]:
        assert y.counts == x.counts, (y.counts, x.counts)


# -- one axis ---------------------------------------------------------------------------------
def n_choices(name: str, m: int) -> list:
    """None, shorter, longer (for the half-spectrum inputs, lengths of the full output)."""
    if name in ("irfft", "hfft"):
        return [None, 2 * m + 1, max(m - 1, 1)] if m > 1 else [3, 4]
    return [None, m + 3, max(m - 2, 1)]


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("shape", [(7, 5), (2, 6), (3, 4, 5)], ids=str)
def test_one_axis(name, shape):
    g = input_data(name, shape, seed=len(shape))
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for axis in range(-1, len(shape)):
            a = axis % len(shape)
            for i, n in enumerate(n_choices(name, shape[a])):
                norm = NORMS[(i + a) % 3]
                where = (split, counts, axis, n, norm)
                with xdist.count_collectives() as c:
                    y = getattr(xdist.fft, name)(x, n=n, axis=axis, norm=norm)
                expected = getattr(np.fft, name)(g, n=n, axis=axis, norm=norm)
                assert_transform(y, expected, expected_dtype(name, "float64"))
                output_counts(x, y, a)
                n_used = expected.shape[a] if name not in ("rfft", "ihfft") else n or shape[a]
                msgs = split_axis_messages(shape, split, split == a, n_used)
                assert dict(c) == msgs, (where, dict(c))


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_single_precision(name, dtype):
    if name in REAL_IN and dtype == "complex64":
        return  # a complex input is an error there (test_errors)
    g = random_array((6, 5), dtype, 3)
    for split in (None, 0, 1):
        y = getattr(xdist.fft, name)(distribute(g, split), axis=0)
        expected = getattr(np.fft, name)(
            g.astype(COMPLEX[dtype] if name not in REAL_IN else g.dtype), axis=0
        )
        assert_transform(y, expected, expected_dtype(name, dtype))


@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft"])
def test_real_input_is_taken_as_complex(name):
    g = random_array((5, 6), "float64", 4)
    for split in (None, 0, 1):
        y = getattr(xdist.fft, name)(distribute(g, split), axis=1)
        assert_transform(y, getattr(np.fft, name)(g, axis=1), expected_dtype(name, "float64"))


# -- 1-D split arrays: the six-step FFT, and the gather for a prime length ----------------------
@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("m", [12, 15, 16, 13])
def test_one_dimensional(name, m):
    g = input_data(name, (m,), seed=m)
    for split, counts in layouts((m,)):
        x = distribute(g, split, counts)
        for i, n in enumerate(n_choices(name, m) + ([16, 13] if name in ("fft", "ifft") else [])):
            norm = NORMS[i % 3]
            with xdist.count_collectives() as c:
                y = getattr(xdist.fft, name)(x, n=n, norm=norm)
            expected = getattr(np.fft, name)(g, n=n, norm=norm)
            assert_transform(y, expected, expected_dtype(name, "float64"))
            output_counts(x, y, 0)
            length = n or (2 * (m - 1) if name in ("irfft", "hfft") else m)
            assert dict(c) == split_axis_messages((m,), split, True, length), (split, n, dict(c))
            assert "allgatherv" not in c


def test_factor_picks_the_divisor_nearest_the_square_root():
    assert [factor(n) for n in (12, 15, 16, 13, 1, 2, 4, 36, 97)] == [3, 3, 4, 1, 1, 1, 2, 6, 1]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_six_step_accuracy_on_a_long_signal(dtype):
    g = random_array((4096,), dtype, 5)
    x = distribute(g, 0)
    y = xdist.fft.fft(x)
    assert_transform(y, np.fft.fft(g), np.dtype(dtype))
    assert_transform(xdist.fft.ifft(y), g, np.dtype(dtype))


# -- several axes -------------------------------------------------------------------------------
def axes_and_s(shape):
    """(axes, s) pairs: all axes, one axis, every axis reversed with longer and shorter
    lengths and a -1, and a subset in a chosen order."""
    nd = len(shape)
    out = [(None, None), ((0,), None), ((-1,), (shape[-1] + 2,))]
    rev = tuple(range(nd))[::-1]
    out.append((rev, tuple(shape[a] + (1 if i % 2 else -1) for i, a in enumerate(rev))))
    out.append((rev, tuple(-1 if i == 0 else shape[a] + 2 for i, a in enumerate(rev))))
    if nd == 3:
        out.append(((2, 0), (3, 5)))
    return out


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("shape", [(7, 5), (4, 6), (3, 4, 5), (12,)], ids=str)
def test_several_axes(name, shape):
    g = input_data(name, shape, seed=7)
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for i, (axes, s) in enumerate(axes_and_s(shape)):
            if name == "irfftn" and s is None and shape[(axes or (-1,))[-1]] == 1:
                continue
            norm = NORMS[i % 3]
            where = (split, counts, axes, s, norm)
            with xdist.count_collectives() as c:
                y = getattr(xdist.fft, name)(x, s=s, axes=axes, norm=norm)
            expected = getattr(np.fft, name)(g, s=s, axes=axes, norm=norm)
            assert_transform(y, expected, expected_dtype(name, "float64"))
            axes_n = [a % len(shape) for a in (axes if axes is not None else range(len(shape)))]
            if len(shape) > 1 and split is not None and SIZE > 1:
                assert dict(c) == ({"alltoallv": 2} if split in axes_n else {}), (where, dict(c))
            output_counts(x, y, 0)


def test_fftn_over_both_axes_of_a_split_matrix_sends_two_all_to_alls():
    g = random_array((9, 8), "complex128", 8)
    for split in (0, 1):
        x = distribute(g, split)
        with xdist.count_collectives() as c:
            y = xdist.fft.fftn(x)
        assert dict(c) == ({"alltoallv": 2} if SIZE > 1 else {})
        assert_transform(y, np.fft.fftn(g), np.dtype("complex128"))
        with xdist.count_collectives() as c:
            z = xdist.fft.ifftn(y)
        assert dict(c) == ({"alltoallv": 2} if SIZE > 1 else {})
        assert_transform(z, g, np.dtype("complex128"))


def test_empty_axes_copies():
    g = random_array((4, 3), "complex128", 9)
    x = distribute(g, 0)
    y = xdist.fft.fftn(x, axes=())
    assert_equal(y, g)
    y.local[...] = 0
    assert_equal(x, g)


# -- empty arrays -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 0), (0, 5), (0,)], ids=str)
def test_empty_arrays(shape):
    g = random_array(shape, "complex128", 1)
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for axis in range(len(shape)):
            for n in (3, 4):
                y = xdist.fft.fft(x, n=n, axis=axis)
                assert_transform(y, np.fft.fft(g, n=n, axis=axis), np.dtype("complex128"))
                y = xdist.fft.irfft(x, n=n, axis=axis)
                assert_transform(y, _irfft_reference(g, n, axis), np.dtype("float64"))


def _irfft_reference(g, n, axis):
    """NumPy's ``irfft`` of ``g`` zero-padded to ``n // 2 + 1`` along ``axis`` first: NumPy
    2.4.6 returns uninitialized memory for an empty axis (``irfft(array([], complex), n=3)``
    gave ``[1.1e-313, 2.0e+278, -2.0e+278]`` in one run), where the padded input, all zeros,
    transforms to zeros."""
    if g.shape[axis] == 0:
        shape = list(g.shape)
        shape[axis] = n // 2 + 1
        g = np.zeros(shape, g.dtype)
    return np.fft.irfft(g, n=n, axis=axis)


# -- every communicator -------------------------------------------------------------------------
@comm_params
def test_transforms_on_every_communicator(comm):
    g = random_array((6, 5), "complex128", 11)
    for split in (None, 0, 1):
        x = distribute(g, split, comm=comm)
        assert_transform(xdist.fft.fft(x, axis=0), np.fft.fft(g, axis=0), g.dtype)
        assert_transform(xdist.fft.fftn(x), np.fft.fftn(g), g.dtype)
        assert_equal(xdist.fft.fftshift(x), np.fft.fftshift(g))
    h = random_array((12,), "complex128", 12)
    assert_transform(xdist.fft.ifft(distribute(h, 0, comm=comm)), np.fft.ifft(h), h.dtype)


# -- fftfreq, rfftfreq --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_frequencies(name, n):
    for d, dtype in ((1.0, None), (0.25, "float32"), (3, "float64")):
        kw = {} if dtype is None else {"dtype": getattr(xdist, dtype)}
        expected = getattr(np.fft, name)(n, d=d)
        expected = defaulted(expected) if dtype is None else expected.astype(dtype)
        for split in (None, 0):
            with xdist.count_collectives() as c:
                y = getattr(xdist.fft, name)(n, d=d, split=split, **kw)
            assert not c
            assert y.split == split
            assert_equal(y, expected)
        with xdist.config_context(default_split=0):
            y = getattr(xdist.fft, name)(n, d=d, **kw)
        assert y.split == 0
        assert_equal(y, expected)


# -- fftshift, ifftshift ------------------------------------------------------------------------
def shift_axes(ndim: int) -> list:
    out: list = [None, 0, -1]
    if ndim > 1:
        out += [(1, 0), (0, 0)]  # a repeated axis shifts twice, as NumPy does
    return out


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("shape", [(7,), (8,), (7, 5), (3, 4, 5), (1,)], ids=str)
def test_shift(name, shape):
    g = random_array(shape, "float32", 2)
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for axes in shift_axes(len(shape)):
            with xdist.count_collectives() as c:
                y = getattr(xdist.fft, name)(x, axes=axes)
            expected = getattr(np.fft, name)(g, axes=axes)
            assert_equal(y, expected)
            assert y.layout == x.layout
            listed = range(len(shape)) if axes is None else np.atleast_1d(axes) % len(shape)
            shift = sum(shape[a] // 2 for a in listed if a == split)
            sends = SIZE > 1 and split is not None and shift % shape[split] != 0
            assert dict(c) == ({"alltoallv": 1} if sends else {}), (split, axes, dict(c))


def test_shift_returns_a_new_array():
    g = random_array((1, 3), "float64", 3)
    x = distribute(g, 0)
    y = xdist.fft.fftshift(x, axes=0)
    y.local[...] = 0
    assert_equal(x, g)


# -- errors: raised on every rank before any message --------------------------------------------
_C = random_array((4, 3), "complex128", 6)
_R = random_array((4, 3), "float64", 6)
_I = np.arange(12).reshape(4, 3)
_ONE = random_array((4, 1), "complex128", 6)

ERRORS = [
    (TypeError, lambda x: xdist.fft.fft(_I)),  # not an xdist array
    (TypeError, lambda x: xdist.fft.fft(x["int"])),
    (TypeError, lambda x: xdist.fft.rfft(x["complex"])),
    (TypeError, lambda x: xdist.fft.rfftn(x["complex"])),
    (TypeError, lambda x: xdist.fft.ihfft(x["int"])),
    (ValueError, lambda x: xdist.fft.fft(x["complex"], norm="none")),
    (ValueError, lambda x: xdist.fft.fftn(x["complex"], norm=None)),
    (ValueError, lambda x: xdist.fft.fft(x["complex"], n=0)),
    (ValueError, lambda x: xdist.fft.rfft(x["real"], n=-2)),
    (TypeError, lambda x: xdist.fft.fft(x["complex"], n=2.5)),
    (TypeError, lambda x: xdist.fft.fft(x["complex"], n=True)),
    (IndexError, lambda x: xdist.fft.fft(x["complex"], axis=2)),
    (TypeError, lambda x: xdist.fft.fft(x["complex"], axis=None)),
    (ValueError, lambda x: xdist.fft.irfft(x["one"], axis=1)),  # n = 2*(1 - 1) = 0
    (ValueError, lambda x: xdist.fft.hfft(x["one"])),
    (ValueError, lambda x: xdist.fft.fftn(x["complex"], s=(4, 3))),  # s without axes
    (ValueError, lambda x: xdist.fft.fftn(x["complex"], s=(4,), axes=(0, 1))),
    (ValueError, lambda x: xdist.fft.fftn(x["complex"], axes=(0, -2))),  # repeated
    (IndexError, lambda x: xdist.fft.ifftn(x["complex"], axes=(3,))),
    (TypeError, lambda x: xdist.fft.fftn(x["complex"], axes=0)),
    (ValueError, lambda x: xdist.fft.fftn(x["complex"], s=(0,), axes=(0,))),
    (ValueError, lambda x: xdist.fft.irfftn(x["one"], axes=(1,))),
    (ValueError, lambda x: xdist.fft.rfftn(x["real"], axes=())),
    (TypeError, lambda x: xdist.fft.fftshift(_R)),
    (IndexError, lambda x: xdist.fft.fftshift(x["real"], axes=(0, 2))),
    (TypeError, lambda x: xdist.fft.ifftshift(x["real"], axes="0")),
    (ValueError, lambda x: xdist.fft.fftfreq(0)),
    (TypeError, lambda x: xdist.fft.fftfreq(2.0)),
    (ValueError, lambda x: xdist.fft.rfftfreq(4, d=0.0)),
    (TypeError, lambda x: xdist.fft.rfftfreq(4, d="1")),
    (TypeError, lambda x: xdist.fft.fftfreq(4, dtype=xdist.complex64)),
    (TypeError, lambda x: xdist.fft.fftfreq(4, dtype=xdist.int64)),
]


@pytest.mark.parametrize("split", [None, 0, 1])
@pytest.mark.parametrize("error,call", ERRORS)
def test_errors(error, call, split):
    x = {
        "complex": distribute(_C, split),
        "real": distribute(_R, split),
        "int": distribute(_I, split),
        "one": distribute(_ONE, split),
    }
    with xdist.count_collectives() as c, pytest.raises(error, match=r"^\w+: "):
        call(x)
    assert not c


def test_zero_dimensional_input():
    x = distribute(np.asarray(1.0 + 0j))
    with xdist.count_collectives() as c, pytest.raises(ValueError, match="^fft: "):
        xdist.fft.fft(x)
    assert not c
    assert_equal(xdist.fft.fftshift(x), np.asarray(1.0 + 0j))  # nothing to roll
