"""xdist.special against scipy.special on the same global data: every function SciPy looks
up as ``xp.special.<name>``, every layout, float32 and float64, broadcasting between layouts,
no messages for equal layouts, and errors raised before any message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BACKEND, SIZE, assert_equal, distribute, layout_id, layouts
from scipy.special import _support_alternative_backends as alt
from scipy.special import _ufuncs

import xdist
from xdist.backends.torch import SPECIAL_FUNCTIONS as _TORCH
from xdist.special._functions import ALIASES, UFUNCS

SHAPE = (7, 5)
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5]

# Arguments drawn from the function's domain (default: (0.1, 0.9), where the distribution
# functions are defined), so that the comparison sees numbers, not only NaN.
_WIDE = {"erf", "erfc", "erfcx", "expit", "ndtr", "log_ndtr", "i0", "i0e", "i1", "i1e",
         "entr", "psi", "gammaln", "gamma", "loggamma", "cbrt", "cosm1", "exp2", "exp10",
         "exprel", "expi", "sindg", "cosdg", "tandg", "cotdg", "rgamma", "gammasgn", "spence",
         "zetac", "j0", "j1", "y0", "y1", "k0", "k0e", "k1", "k1e", "exp1", "xlogy", "xlog1py",
         "rel_entr", "kl_div", "huber", "pseudo_huber", "betaln", "poch", "binom"}  # fmt: skip


_INFO = {f.name: f for f in alt._special_funcs}


def arguments(name: str, dtype, shape=SHAPE, seed: int = 0) -> list[np.ndarray]:
    """Global NumPy arguments of ``name`` in ``dtype`` (integer arguments in int64), with edge
    values (0, -0, inf, NaN) in the first elements where the function takes any real."""
    rng = np.random.default_rng(seed)
    int_only = _INFO[name].int_only or ()
    out = []
    for k in range(_ufuncs.__dict__[name].nin):
        if k < len(int_only) and int_only[k]:  # integer-valued (SciPy truncates otherwise)
            out.append(rng.integers(1, 6, shape))  # int64: SciPy's integer loops
            continue
        elif name in _WIDE:
            a = rng.standard_normal(shape) * 3
            flat = a.reshape(-1)
            m = min(flat.size, len(EDGES))
            flat[:m] = np.roll(EDGES, 3 * k)[:m]  # every argument meets other edges
        else:
            a = rng.uniform(0.1, 0.9, shape)
        out.append(a.astype(dtype))
    return out


def tolerance(name: str, dtype) -> float:
    """Torch's own special functions agree with SciPy's to rounding; everything else is
    SciPy itself (exact; 0 lets ``assert_equal`` pick the backend's default)."""
    if BACKEND.name == "torch" and name in _TORCH:
        return 1e-5 if np.dtype(dtype) == np.float32 else 1e-10
    return 0.0


def _spread(args, case):
    split, counts = case
    return [distribute(a, split if a.ndim else None, counts) for a in args]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UFUNCS)
def test_matches_scipy_on_every_layout(name, dtype):
    args = arguments(name, dtype)
    with np.errstate(all="ignore"):
        expected = getattr(_ufuncs, name)(*args)
    rtol = tolerance(name, dtype)
    for case in layouts(SHAPE):
        xs = _spread(args, case)
        with xdist.count_collectives() as counts:
            got = getattr(xdist.special, name)(*xs)
        assert sum(counts.values()) == 0, (layout_id(case), counts)
        assert got.layout == xs[0].layout
        assert_equal(got, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0), (2,), (1, 3)], ids=str)
@pytest.mark.parametrize("name", ["erf", "xlogy", "gammaln", "gammainc", "betainc"])
def test_zero_d_size_zero_and_empty_blocks(name, shape):
    args = arguments(name, "float64", shape, seed=1)
    with np.errstate(all="ignore"):
        expected = np.asarray(getattr(_ufuncs, name)(*args))
    for case in layouts(shape):
        got = getattr(xdist.special, name)(*_spread(args, case))
        assert_equal(got, expected, rtol=tolerance(name, "float64"))


@pytest.mark.parametrize(
    "name, dtypes",
    [
        ("erf", ("int64",)),
        ("erf", ("int8",)),
        ("gammaln", ("int32",)),
        ("expit", ("bool",)),
        ("xlogy", ("int64", "float32")),
        ("xlogy", ("float32", "float64")),
        ("expn", ("int64", "float64")),
        ("yn", ("int32", "float32")),
    ],
)
def test_dtype_follows_scipy_whatever_the_blocks_hold(name, dtypes):
    """The loop SciPy picks from the dtypes alone: empty blocks get the same dtype."""
    rng = np.random.default_rng(2)
    args = [np.asarray(rng.integers(0, 5, SHAPE)).astype(d) for d in dtypes]
    expected = getattr(_ufuncs, name)(*args)
    for case in layouts(SHAPE):
        got = getattr(xdist.special, name)(*_spread(args, case))
        assert_equal(got, expected, rtol=tolerance(name, expected.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scalar", [2, 2.5, True], ids=["int", "float", "bool"])
def test_python_scalars_are_weak_as_in_scipy(scalar, dtype):
    a = arguments("xlogy", dtype)[0]
    for case in layouts(SHAPE):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            left, right = xdist.special.xlogy(x, scalar), xdist.special.xlogy(scalar, x)
        assert sum(counts.values()) == 0
        with np.errstate(all="ignore"):
            want_left, want_right = _ufuncs.xlogy(a, scalar), _ufuncs.xlogy(scalar, a)
        assert_equal(left, want_left, rtol=tolerance("xlogy", want_left.dtype))
        assert_equal(right, want_right, rtol=tolerance("xlogy", want_right.dtype))


# (shape of y, how y is laid out, whether y moves): x is (7, 5) in every layout.
_PAIRS = [((5,), None, False), ((7, 1), 0, None), ((7, 5), 1, None), ((1, 5), None, False)]


@pytest.mark.parametrize("yshape, ysplit, free", _PAIRS, ids=str)
@pytest.mark.parametrize("name", ["xlogy", "gammainc", "rel_entr"])
def test_broadcasting_between_layouts(name, yshape, ysplit, free):
    a = arguments(name, "float64")[0]
    b = np.random.default_rng(3).uniform(0.1, 3.0, yshape)
    with np.errstate(all="ignore"):
        expected = getattr(_ufuncs, name)(a, b)
    for case in layouts(SHAPE):
        x, y = distribute(a, *case), distribute(b, ysplit)
        with xdist.count_collectives() as counts:
            got = getattr(xdist.special, name)(x, y)
        if free or (free is None and x.layout == y.layout):
            assert sum(counts.values()) == 0, counts
        assert_equal(got, expected, rtol=tolerance(name, "float64"))


def _bad_calls():
    x = distribute(arguments("erf", "float64")[0], 0)
    short = distribute(np.ones(4), 0)
    complex_ = distribute(np.ones(3, np.complex128), 0)
    return {
        "not an array": (lambda: xdist.special.erf(np.ones(3)), TypeError, "argument 0"),
        "a list": (lambda: xdist.special.xlogy(x, [1.0]), TypeError, "argument 1"),
        "arity": (lambda: xdist.special.erf(x, x), TypeError, "takes 1 arguments, got 2"),
        "no array": (lambda: xdist.special.erf(1.0), TypeError, "at least one argument"),
        "shapes": (lambda: xdist.special.xlogy(x, short), ValueError, "cannot be broadcast"),
        "no loop": (lambda: xdist.special.gammaln(complex_), TypeError, "no loop for arguments"),
    }


@pytest.mark.parametrize("case", list(_bad_calls()))
def test_errors_are_raised_before_any_message(case):
    call, error, match = _bad_calls()[case]
    with xdist.count_collectives() as counts, pytest.raises(error, match=match) as info:
        call()
    assert "special." in str(info.value)
    assert sum(counts.values()) == 0


def test_every_ufunc_scipy_dispatches_is_here():
    """SciPy's list of dispatched ufuncs (``_special_funcs``) is the list of this module."""
    listed = {f.name for f in alt._special_funcs if f.is_ufunc}
    assert listed == set(UFUNCS)
    assert set(xdist.special.__all__) == listed | set(ALIASES)


@pytest.mark.parametrize("name", [*UFUNCS, *ALIASES])
def test_scipy_finds_the_native_function(name):
    """SciPy's lookup (``_get_native_func``) returns xdist's function, so SciPy computes on
    the blocks instead of converting the array with ``np.asarray``."""
    spx = alt.scipy_namespace_for(xdist)
    assert alt._get_native_func(xdist, spx, name) is getattr(xdist.special, name)


@pytest.mark.skipif(SIZE == 1, reason="one rank moves nothing")
def test_a_differently_split_operand_moves_once():
    a, b = arguments("xlogy", "float64")
    x, y = distribute(a, 0), distribute(b, 1)
    with xdist.count_collectives() as counts:
        got = xdist.special.xlogy(x, y)
    assert dict(counts) == {"alltoallv": 1}
    with np.errstate(all="ignore"):
        assert_equal(got, _ufuncs.xlogy(a, b), rtol=tolerance("xlogy", "float64"))
