"""The backends on their own: dtypes, devices, host round trips (no MPI involved)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from helpers import assert_host_bits, outside_mpi_job, own_processes

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


@pytest.mark.parametrize(
    "shape", [(5000, 3), (3000, 40), (600, 600), (4, 9000), (9000, 4), (1, 5000), (0, 7)]
)
@pytest.mark.parametrize("view", ["T", "strided T", "reversed T", "sliced"])
def test_numpy_backend_copies_column_major_blocks_to_c_order(shape, view):
    """A transpose is copied by chunks of columns where that is faster (many rows to the
    chunk): every element in place, whatever the strides (negative, steps, slices)."""
    b = get_backend("numpy")
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    block = {"T": a.T, "strided T": a[::2].T, "reversed T": a[::-1].T, "sliced": a[:, 1:].T}[view]
    back = b.to_host(block)
    assert back.flags.c_contiguous and back.dtype == block.dtype
    np.testing.assert_array_equal(back, block, strict=True)


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


# -- XDIST_TORCH_THREADS: a positive integer, checked when the Torch backend is first used ----
_NEEDS_TORCH = pytest.mark.skipif("torch" not in _INSTALLED, reason="Torch is not installed")


@_NEEDS_TORCH
@own_processes
def test_torch_threads_setting_is_checked_on_first_use():
    code = "import xdist; print('imported', flush=True); xdist.ones(3)"
    env = {**outside_mpi_job(), "XDIST_COMM": "self", "XDIST_BACKEND": "torch"}
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "XDIST_TORCH_THREADS": "abc"},
    )
    assert run.returncode != 0 and run.stdout == "imported\n", (run.stdout, run.stderr)
    expected = "ValueError: XDIST_TORCH_THREADS: expected a positive integer"
    assert f"{expected} (Torch threads per rank), got 'abc'" in run.stderr, run.stderr


# -- BLAS threads per rank (backends/threads.py) ------------------------------------------------
_BLAS_THREADS = (
    "import os, numpy, xdist; from threadpoolctl import threadpool_info; "
    "print('imported', flush=True); xdist.ones(3); "
    "found = [i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'"
    " and 'numpy' in i['filepath']]; "
    "print(found[0], os.environ.get('OPENBLAS_NUM_THREADS'), flush=True)"
)


def _blas_threads_child(**extra) -> subprocess.CompletedProcess:
    env = {**outside_mpi_job(), "XDIST_COMM": "self", "XDIST_BACKEND": "numpy"}
    for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(name, None)
    env.pop("XDIST_BLAS_THREADS", None)
    return subprocess.run(
        [sys.executable, "-c", _BLAS_THREADS],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, **extra},
    )


@own_processes
def test_blas_threads_are_the_cores_per_rank_under_a_launcher():
    """Several ranks on a node (``MPI_LOCALNRANKS``) and no BLAS thread count set by the
    user: NumPy's OpenBLAS (loaded before xdist) runs the node's cores / ranks threads, and
    libraries loaded later read ``OPENBLAS_NUM_THREADS``; a count the user set is left alone;
    ``XDIST_BLAS_THREADS`` wins; a bad one raises on first use."""
    pytest.importorskip("threadpoolctl")
    per_rank = max(1, (os.cpu_count() or 1) // 2)
    run = _blas_threads_child(MPI_LOCALNRANKS="2")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[1] == f"{per_rank} {per_rank}", run.stdout

    alone = _blas_threads_child()  # one rank: OpenBLAS's own count, nothing set
    assert alone.returncode == 0, alone.stderr
    own = alone.stdout.splitlines()[1].split()[0]
    assert alone.stdout.splitlines()[1] == f"{own} None", alone.stdout

    user = _blas_threads_child(MPI_LOCALNRANKS="2", MKL_NUM_THREADS="5")  # the user's choice
    assert user.returncode == 0 and user.stdout.splitlines()[1] == f"{own} None", user.stdout

    asked = _blas_threads_child(MPI_LOCALNRANKS="2", XDIST_BLAS_THREADS="3")
    assert asked.returncode == 0 and asked.stdout.splitlines()[1] == "3 3", asked.stdout

    bad = _blas_threads_child(XDIST_BLAS_THREADS="0")
    assert bad.returncode != 0 and bad.stdout == "imported\n", (bad.stdout, bad.stderr)
    expected = "ValueError: XDIST_BLAS_THREADS: expected a positive integer"
    assert f"{expected} (BLAS threads per rank), got '0'" in bad.stderr, bad.stderr


@_NEEDS_TORCH
@own_processes
@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ({}, ("1", "1000")),
        ({"THP_MEM_ALLOC_ENABLE": "0", "GOMP_SPINCOUNT": "300000"}, ("0", "300000")),
        ({"OMP_WAIT_POLICY": "ACTIVE"}, ("1", "unset")),
    ],
)
def test_torch_backend_prepares_the_environment_unless_told_otherwise(preset, expected):
    """Importing the Torch backend sets ``THP_MEM_ALLOC_ENABLE=1`` (read by Torch's CPU
    allocator at its first allocation) and ``GOMP_SPINCOUNT=1000`` (read by Torch's OpenMP
    runtime when it is loaded) before Torch is imported; a user's own value is kept, and a
    user's ``OMP_WAIT_POLICY`` leaves the spin count to the runtime. The child then imports
    Torch and allocates, so the settings are the ones Torch reads."""
    code = (
        "import os, xdist, torch; torch.ones(1 << 20); "
        "print(os.environ['THP_MEM_ALLOC_ENABLE'], os.environ.get('GOMP_SPINCOUNT', 'unset'),"
        " flush=True)"
    )
    env = {**outside_mpi_job(), "XDIST_COMM": "self", "XDIST_BACKEND": "torch"}
    for name in ("THP_MEM_ALLOC_ENABLE", "GOMP_SPINCOUNT", "OMP_WAIT_POLICY"):
        env.pop(name, None)
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, **preset},
    )
    assert run.returncode == 0 and run.stdout == " ".join(expected) + "\n", (
        run.stdout,
        run.stderr,
    )


@_NEEDS_TORCH
@pytest.mark.parametrize("value", ["-2", "0", "1.5", "two", " "])
def test_torch_threads_rejects_what_is_not_a_positive_integer(monkeypatch, value):
    from xdist.backends.torch import _threads_per_rank

    monkeypatch.setenv("XDIST_TORCH_THREADS", value)
    if not value.strip():  # empty: unset, the default per-rank count
        assert _threads_per_rank() >= 1
        return
    with pytest.raises(ValueError, match=f"expected a positive integer .*, got '{value}'"):
        _threads_per_rank()


@_NEEDS_TORCH
def test_torch_threads_setting_is_used(monkeypatch):
    from xdist.backends.torch import _threads_per_rank

    monkeypatch.setenv("XDIST_TORCH_THREADS", " 3 ")
    assert _threads_per_rank() == 3


@_NEEDS_TORCH
def test_torch_widening_sum_and_moments_through_numpy_views():
    """The Torch backend's float64 sum of a float32 CPU tensor and its var/std moments run on
    a NumPy view; a tensor with Torch's negative bit set (a lazy negation) is resolved first
    (``.numpy()`` refuses it), and a tensor under autograd stays in Torch."""
    import torch

    from xdist.backends.torch import backend as torch_backend

    backend = torch_backend()
    base = torch.arange(6, dtype=torch.float32, device="cpu").reshape(2, 3)
    neg = torch._neg_view(base)
    assert neg.is_neg()
    got = backend.xp.sum(neg, axis=(0,), dtype=torch.float64)
    assert got.dtype == torch.float64 and torch.equal(got, -base.double().sum(0))
    neg64 = torch._neg_view(base.double())
    assert neg64.is_neg()
    mean, correction, m2 = backend.moments(neg64, (0,), 2)
    np.testing.assert_allclose(
        (mean + correction).numpy(), -base.double().mean(0, keepdim=True).numpy()
    )
    np.testing.assert_allclose(
        m2.numpy(), (base.double().var(0, keepdim=True, correction=0) * 2).numpy()
    )
    grad = base.clone().requires_grad_()
    assert backend.xp.sum(grad, axis=(0,), dtype=torch.float64).requires_grad


@_NEEDS_TORCH
@pytest.mark.parametrize(
    "sa,sb",
    [((7, 5), (5, 3)), ((5,), (5, 3)), ((7, 5), (5,)), ((5,), (5,)), ((3, 7, 5), (3, 5, 2)),
     ((2, 1, 4, 6), (3, 6, 2)), ((4, 0), (0, 3)), ((300, 700), (700, 90))],
)  # fmt: skip
@pytest.mark.parametrize("dtypes", [("int8", "int8"), ("int16", "int64"), ("uint8", "int32")])
def test_torch_integer_matmul_for_gpus(sa, sb, dtypes):
    """The integer product the Torch backend uses off the CPU (CUDA has no integer GEMM),
    run here on CPU tensors: NumPy's values, dtype and wrap-around, in chunks of the inner
    axis (300 x 90 outputs: 621 inner positions per chunk of 700)."""
    import torch

    from xdist.backends.torch import _integer_matmul

    rng = np.random.default_rng(0)
    a = rng.integers(0, 100, sa).astype(dtypes[0])
    b = rng.integers(-100, 100, sb).astype(dtypes[1])
    got = _integer_matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    want = np.matmul(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@_NEEDS_TORCH
def test_torch_host_data_to_a_gpu(monkeypatch):
    """NumPy data for a Torch GPU device is copied by from_numpy + to (Torch's asarray
    refused 0-d arrays for CUDA): run here with the device's tensors kept on the CPU."""
    import warnings

    import torch

    from xdist.backends.base import Device
    from xdist.backends.torch import TorchBackend

    gpu = Device("torch", "cuda", 0)
    backend = TorchBackend()
    monkeypatch.setattr(backend, "check_device", lambda device, func: gpu)
    monkeypatch.setattr(backend, "native_device", lambda device: torch.device("cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # from_numpy warns of a read-only array
        for a in (np.float32(2.5) * np.ones(()), np.broadcast_to(np.arange(3.0), (2, 3)),
                  np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::2]):  # fmt: skip
            got = backend.asarray(a, device=gpu)
            assert got.dtype == backend.native_dtype(a.dtype) and tuple(got.shape) == a.shape
            np.testing.assert_array_equal(got.numpy(), a)
        got = backend.asarray(np.arange(3), dtype=np.dtype("float32"), device=gpu)
        assert got.dtype == torch.float32
    with pytest.raises(ValueError, match=r"asarray: copy=False, but host data .* cuda:0"):
        backend.asarray(np.arange(3.0), device=gpu, copy=False)


@_NEEDS_TORCH
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "shape,axis,numpy_path",
    [((3, "w"), (0,), True), ((2, 3, "w"), (0, 1), True), ((3, "w"), 0, True),
     ((3, "w-1"), (0,), False), ((3, "w"), (1,), False), ((3, "w"), (0, 1), False),
     ((3, "w"), None, False)],
)  # fmt: skip
def test_torch_sum_over_leading_axes_of_wide_rows(monkeypatch, dtype, shape, axis, numpy_path):
    """A CPU float block summed over its leading axes with at least ``_WIDE_ROWS`` elements
    of its dtype kept per index runs the NumPy backend's sum on a view (NumPy's column sums
    are faster there): NumPy's values and dtype; other reductions, and tensors under
    autograd, stay Torch's."""
    import torch

    from xdist.backends import torch as backend_module

    w = backend_module._WIDE_ROWS[getattr(torch, dtype)]
    shape = tuple(w if n == "w" else w - 1 if n == "w-1" else n for n in shape)
    a = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    calls = []
    real, host = np.sum, backend_module._HOST.xp  # (the NumPy backend's sum, on views)
    spy = host.sum
    monkeypatch.setattr(host, "sum", lambda *a, **k: calls.append(1) or spy(*a, **k))
    t = torch.from_numpy(a)
    for keepdims in (False, True):
        got = backend_module._sum(t, axis=axis, keepdims=keepdims)
        want = real(a, axis=axis, keepdims=keepdims)
        assert got.dtype == t.dtype and tuple(got.shape) == np.shape(want)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5 if dtype == "float32" else 1e-12)
    assert bool(calls) == numpy_path
    calls.clear()
    assert backend_module._sum(t.clone().requires_grad_(), axis=axis).requires_grad
    assert not calls


@_NEEDS_TORCH
def test_torch_concat_arg_best_item_and_unstack_through_numpy_views(monkeypatch):
    """The Torch backend's CPU ``concat`` of one dtype and its ``arg_best`` run NumPy on
    views (Torch's strided copies are slower): Torch's values, dtype and positions, a lazy
    negation or conjugation resolved first; mixed dtypes, 0-d parts and tensors under
    autograd stay Torch's. ``item`` and ``unstack`` are Torch's own."""
    import torch

    from xdist.backends import torch as backend_module

    backend = backend_module.backend()
    calls = []
    real = np.concatenate
    monkeypatch.setattr(
        backend_module.np, "concatenate", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    base = torch.arange(12, dtype=torch.float64, device="cpu").reshape(3, 4)
    cols = [base[:, j] for j in range(4)]
    for axis in (0, None):
        got = backend.xp.concat(cols, axis=axis)
        assert torch.equal(got, torch.cat([c.reshape(-1) for c in cols]))
    assert len(calls) == 2
    neg = torch._neg_view(base)
    assert torch.equal(backend.xp.concat([neg, base], axis=1), torch.cat([-base, base], 1))
    z = torch.complex(base, base + 1)
    assert torch.equal(backend.xp.concat([z.conj(), z]), torch.cat([z.conj_physical(), z]))
    calls.clear()
    mixed = backend.xp.concat([base, base.to(torch.float32)])
    assert mixed.dtype == torch.float64 and torch.equal(mixed[3:], base)
    assert backend.xp.concat([base.clone().requires_grad_(), base]).requires_grad
    assert not calls
    scores = torch.from_numpy(np.random.default_rng(0).standard_normal((5000, 8)))
    scores[7, 3] = float("nan")
    for want_max in (False, True):
        got = backend.arg_best(scores, 1, False, want_max)
        want = (np.argmax if want_max else np.argmin)(scores.numpy(), axis=1)
        assert got.dtype == torch.int64 and np.array_equal(got.numpy(), want)
    assert backend.item(torch._neg_view(base[1:2, 2])) == -6.0
    assert [backend.item(t) for t in backend.unstack(base[:, 1], 0)] == [1.0, 5.0, 9.0]


@_NEEDS_TORCH
@pytest.mark.parametrize(
    "name", ["add", "subtract", "multiply", "equal", "not_equal", "less", "less_equal",
             "greater", "greater_equal"]
)  # fmt: skip
def test_torch_comparisons_and_integer_arithmetic_through_numpy_views(name, monkeypatch):
    """The Torch backend's comparisons (integers, floats, bools) and integer ``+ - *`` of
    two CPU tensors of one dtype, or of an integer tensor and a Python int its dtype holds,
    run NumPy's ufunc on views: Torch's own values and dtype, broadcast, 0-d, NaN, integers
    wrapping around, into ``out=``; float arithmetic, mixed dtypes, ints out of the dtype's
    range, lazy negations and tensors under autograd stay Torch's."""
    import torch
    from array_api_compat import torch as compat

    from xdist.backends import torch as backend_module

    fn, torch_fn = getattr(backend_module.backend().xp, name), getattr(compat, name)
    ufunc = getattr(np, name)
    calls = []

    class Counted:  # the ufunc, its calls counted (``reduce`` and the rest as they are)
        def __call__(self, *args, **kwargs):
            calls.append(1)
            return ufunc(*args, **kwargs)

        def __getattr__(self, attr):
            return getattr(ufunc, attr)

    monkeypatch.setattr(backend_module.np, name, Counted())
    compare = name not in ("add", "subtract", "multiply")
    rng = np.random.default_rng(3)
    dtypes = [np.int8, np.uint8, np.int16, np.int32, np.int64]
    dtypes += [np.float32, np.float64, np.bool_] if compare else []
    for dtype in dtypes:
        info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
        if info is not None:
            a = rng.integers(info.min, info.max, size=(6, 5), dtype=dtype, endpoint=True)
            a[0, :2] = (info.min, info.max)  # (wrapping around)
        elif dtype is np.bool_:
            a = rng.random((6, 5)) < 0.5
        else:
            a = rng.standard_normal((6, 5)).astype(dtype)
            a[1, 1] = np.nan
        b = a[::-1].copy()
        pairs = [(a, b), (a, b[2]), (a[0, 0], b[3, 3]), (a[:, :1], b[3])]
        if info is not None:
            pairs += [(a, 3), (7, b), (a, int(info.max)), (int(info.min), b)]
        for x1, x2 in pairs:
            t1 = torch.from_numpy(np.asarray(x1)) if isinstance(x1, np.ndarray | np.generic) else x1
            t2 = torch.from_numpy(np.asarray(x2)) if isinstance(x2, np.ndarray | np.generic) else x2
            calls.clear()
            with np.errstate(all="raise"):  # (these loops set no flag: run outside errstate)
                got = fn(t1, t2)
            assert calls == [1]
            want = torch_fn(t1, t2)
            assert got.dtype == want.dtype and torch.equal(got, want), (dtype, x1, x2)
            out = torch.empty_like(want)
            with np.errstate(all="raise"):
                assert fn(t1, t2, out=out) is out and torch.equal(out, want)
            out = want.new_empty(0)  # another shape: Torch resizes it, as its own does
            assert fn(t1, t2, out=out) is out and torch.equal(out, want)
    t = torch.arange(6, dtype=torch.int16, device="cpu")
    others = [
        (t, 40000),  # not an int16
        (t, t.to(torch.int32)),  # two dtypes: Torch promotes
        (t.to(torch.float32), t.to(torch.float32)) if not compare else (t, 2.5),
        (torch._neg_view(t.to(torch.float32)), t.to(torch.float32)),
        (t.to(torch.float64).requires_grad_(), t.to(torch.float64)),
    ]
    calls.clear()
    for x1, x2 in others:
        want = torch_fn(x1.detach(), x2) if isinstance(x1, torch.Tensor) else torch_fn(x1, x2)
        got = fn(x1, x2)
        assert got.dtype == want.dtype and torch.equal(got.detach(), want.detach())
    assert not calls


def _torch_xp():
    from xdist.backends import torch as backend_module

    return backend_module.backend().xp


@_NEEDS_TORCH
@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_torch_integer_division_through_numpy_views(name):
    """The Torch backend's integer ``//`` and ``%`` of CPU tensors of one dtype, or of one
    and a Python int, are NumPy's on views: Torch's values (floored, the remainder signed as
    the divisor) and dtype, into ``out=`` (``%``); a zero divisor gives NumPy's 0, quietly, where
    Torch raises (xdist replaces it before the call); floats stay Torch's (their special
    values)."""
    import torch
    from array_api_compat import torch as compat

    fn, torch_fn = getattr(_torch_xp(), name), getattr(compat, name)
    rng = np.random.default_rng(5)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8):
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=(6, 5), dtype=dtype, endpoint=True)
        b = rng.integers(info.min, info.max, size=(6, 5), dtype=dtype, endpoint=True)
        b[b == 0] = 1
        a[0, :2], b[0, :2] = (-7, 7) if info.min else (7, 3), (2, -2) if info.min else (2, 5)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        for x1, x2 in [(ta, tb), (ta, tb[2]), (ta, 3), (100, tb)]:
            want = torch_fn(x1, x2)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = fn(x1, x2)
            assert got.dtype == want.dtype and torch.equal(got, want), (dtype, x1, x2)
            if name == "remainder":  # (floor_divide's standard values take no out=)
                out = torch.empty_like(want)
                assert fn(x1, x2, out=out) is out and torch.equal(out, want)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert not fn(ta, 0).any() and not fn(ta, torch.zeros_like(tb)).any()
    x = torch.tensor([-7.5, 7.5, float("inf")], dtype=torch.float64, device="cpu")
    want = [-4.0, 3.0, np.inf] if name == "floor_divide" else [0.5, 1.5, np.nan]
    np.testing.assert_array_equal(fn(x, 2.0).numpy(), want)  # (the standard's inf // 2)


@_NEEDS_TORCH
def test_torch_real_arithmetic_calls_torch_directly():
    """``+ - * /`` of tensors of one real floating dtype, or of one and a Python int or
    float, and ``x ** 2`` of one, go to Torch's own function, without array-api-compat's
    wrapper: the values (bitwise) and dtype of the general path, NumPy's ``x ** 2`` (one
    rounded product), into ``out=``; other kinds (mixed dtypes, complex, bool and integer
    scalars) keep their paths: Torch's promotion, complex parts apart."""
    import torch
    from array_api_compat import torch as compat

    xp = _torch_xp()
    rng = np.random.default_rng(6)
    for dtype in (torch.float32, torch.float64):
        a = torch.from_numpy(rng.standard_normal((5, 4))).to(dtype)
        b = torch.from_numpy(rng.standard_normal((5, 4))).to(dtype)
        a[0, 0], b[0, 1] = float("inf"), float("nan")
        for name in ("add", "subtract", "multiply", "divide"):
            fn, general = getattr(xp, name), getattr(compat, name)
            for x1, x2 in [(a, b), (a, b[1]), (a, 0.1), (3, b), (a[0, 1], b), (a, -0.0)]:
                want = general(x1, x2)
                got = fn(x1, x2)
                assert got.dtype == want.dtype and torch.equal(got.nan_to_num(), want.nan_to_num())
                out = torch.empty_like(want)
                assert fn(x1, x2, out=out) is out and torch.equal(out.isnan(), want.isnan())
        for two in (2, 2.0):
            squared = xp.pow(a, two)
            assert squared.dtype == dtype
            np.testing.assert_array_equal(squared.numpy(), np.power(a.numpy(), 2))
        np.testing.assert_array_equal(xp.pow(a, 3).numpy(), np.power(a.numpy(), 3))
    h = torch.tensor([1.0, 2.0], dtype=torch.float32, device="cpu")
    assert xp.add(h, torch.tensor([1.0], dtype=torch.float64, device="cpu")).dtype == torch.float64
    assert xp.multiply(h, True).dtype == torch.float32
    cpu = {"device": "cpu"}
    z = xp.subtract(torch.tensor([1 + 2j], **cpu), torch.tensor([complex(1, float("inf"))], **cpu))
    assert z.real.item() == 0.0  # complex parts apart (Torch alone gives NaN)


@_NEEDS_TORCH
def test_torch_bool_to_float_casts_through_numpy_views(monkeypatch):
    """The Torch backend's ``astype`` of a bool CPU tensor to float32 or float64 is NumPy's
    cast on a view: Torch's values, dtype and shape (0-d, strided, empty, ``device="cpu"``);
    other casts, and a bool tensor's to integers, stay Torch's."""
    import torch

    from xdist.backends import torch as backend_module

    astype = backend_module.backend().xp.astype
    viewed = []
    real = backend_module._own_view
    monkeypatch.setattr(backend_module, "_own_view", lambda x, d: viewed.append(1) or real(x, d))
    mask = torch.from_numpy(np.random.default_rng(4).random((7, 5)) < 0.5)
    for dtype in (torch.float32, torch.float64):
        for t in (mask, mask[::2, 1:], mask.T, mask[0, 0], mask[:0], mask[3]):
            viewed.clear()
            for kwargs in ({}, {"device": "cpu"}, {"copy": False}):
                got = astype(t, dtype, **kwargs)
                want = t.to(dtype)
                assert got.dtype == dtype and got.shape == want.shape
                assert torch.equal(got, want)
            assert len(viewed) == 3
    viewed.clear()
    for t, dtype in [
        (mask, torch.int64),
        (mask, torch.float16),
        (mask.to(torch.int32), torch.float32),
    ]:
        got = astype(t, dtype)
        assert got.dtype == dtype and torch.equal(got, t.to(dtype))
    assert not viewed


@_NEEDS_TORCH
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_functions_give_an_element_the_same_bits_wherever_it_lies(dtype):
    """Torch's CPU kernels of ``sinh``, ``cosh``, ``atanh``, ``atan2``, ``pow``, ``hypot``,
    ``logaddexp``, ``exp2`` and ``expit`` give a call's last elements other bits than its
    vector loop: the Torch backend's give every element the same bits however the tensor is
    cut (NumPy's and SciPy's on views, bit for bit; ``logaddexp`` built of Torch's ``exp``
    and ``log1p``, as close to NumPy's as their rounding allows), into ``out=`` too;
    autograd and complex tensors stay Torch's."""
    import torch
    from scipy import special

    from xdist.backends import torch as backend_module

    backend = backend_module.backend()
    xp = backend.xp
    rng = np.random.default_rng(6)
    a = np.concatenate(
        [rng.standard_normal(700) * 3, rng.random(300) * 0.99, [np.nan, np.inf, -np.inf, 0.0, -0.0]]
    )
    b = np.concatenate(
        [rng.standard_normal(700) * 2, rng.random(300) * 4, [1.0, np.inf, -np.inf, -0.0, np.nan]]
    )
    a, b = a.astype(dtype), b.astype(dtype)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    cases = [
        (xp.sinh, (ta,), np.sinh(a)),
        (xp.cosh, (ta,), np.cosh(a)),
        (xp.atanh, (ta,), np.arctanh(a)),
        (xp.atan2, (ta, tb), np.arctan2(a, b)),
        (xp.pow, (ta.abs(), tb), np.power(np.abs(a), b)),
        (xp.pow, (ta, 3), np.power(a, np.asarray(3, dtype))),
        (xp.pow, (2.5, tb), np.power(np.asarray(2.5, dtype), b)),
        (xp.hypot, (ta, tb), np.hypot(a, b)),
        (xp.logaddexp, (ta, tb), None),
        (backend.special_function("exp2"), (ta,), special.exp2(a)),
        (backend.special_function("expit"), (ta,), special.expit(a)),
    ]
    cuts = [0, 1, 8, 21, 22, 500, 517, 1000, len(a)]
    for fn, args, numpy_bits in cases:
        with np.errstate(all="ignore"):
            whole = fn(*args).numpy()
            pieces = [
                fn(*(x[lo:hi] if isinstance(x, torch.Tensor) else x for x in args)).numpy()
                for lo, hi in zip(cuts, cuts[1:])
            ]
        assert whole.dtype == np.dtype(dtype)
        assert_host_bits(np.concatenate(pieces), whole)
        if numpy_bits is not None:
            assert_host_bits(whole, numpy_bits)
        else:
            with np.errstate(all="ignore"):
                want = np.logaddexp(a, b)
                bound = 4 * np.finfo(dtype).eps * (np.maximum(np.abs(a), np.abs(b)) + 1)
            assert_host_bits(np.isnan(whole), np.isnan(want))
            finite = np.isfinite(want)
            assert_host_bits(whole[~finite], want[~finite])  # (infinities)
            assert np.all(np.abs(whole - want)[finite] <= bound[finite])
        if fn.__name__ not in ("exp2", "expit"):  # (SciPy's take no ``out`` here)
            out = torch.empty(whole.shape, dtype=getattr(torch, dtype), device="cpu")
            assert fn(*args, out=out) is out
            assert_host_bits(out.numpy(), whole)
    grad = ta[:5].clone().requires_grad_()
    assert xp.sinh(grad).requires_grad and xp.logaddexp(grad, tb[:5]).requires_grad
    z = torch.zeros(2, dtype=torch.complex128, device="cpu")
    assert torch.equal(xp.pow(z, z), torch.ones(2, dtype=torch.complex128, device="cpu"))


@_NEEDS_TORCH
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_torch_complex_arithmetic_gives_an_element_the_same_bits_wherever_it_lies(dtype):
    """Complex ``*``, ``/``, ``square``, ``abs`` and ``sign`` of CPU tensors (Torch's kernels
    give a call's last elements other bits) are NumPy's on views: the same bits however the
    tensor is cut, NumPy's (``sign``: ``z / |z|``, 0 for 0), with Python numbers, into
    ``out=``; a complex tensor beside a real one, and autograd, stay Torch's."""
    import torch

    from xdist.backends import torch as backend_module

    xp = backend_module.backend().xp
    rng = np.random.default_rng(7)
    special = [
        complex(r, i)
        for r in (0.0, -0.0, np.inf, -np.inf, np.nan, 1.5)
        for i in (0.0, np.inf, np.nan, -2.0)
    ]
    a = np.concatenate([rng.standard_normal(900) + 1j * rng.standard_normal(900), special])
    b = np.concatenate(
        [rng.standard_normal(900) * 3 + 1j * rng.standard_normal(900), special[::-1]]
    )
    a, b = a.astype(dtype), b.astype(dtype)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    with np.errstate(all="ignore"):
        sign = a / np.abs(a)
        sign[a == 0] = 0
        cases = [
            (xp.multiply, (ta, tb), a * b),
            (xp.multiply, (ta, 2.5 - 1j), a * np.asarray(2.5 - 1j, dtype)),
            (xp.divide, (ta, tb), a / b),
            (xp.divide, (3, tb), np.asarray(3, dtype) / b),
            (xp.square, (ta,), np.square(a)),
            (xp.abs, (ta,), np.abs(a)),
            (xp.sign, (ta,), sign),
        ]
    cuts = [0, 3, 17, 18, 400, 413, len(a)]
    for fn, args, want in cases:
        with np.errstate(all="ignore"):
            whole = fn(*args)
            pieces = [
                fn(*(x[lo:hi] if isinstance(x, torch.Tensor) else x for x in args)).numpy()
                for lo, hi in zip(cuts, cuts[1:])
            ]
            out = torch.empty(whole.shape, dtype=whole.dtype, device="cpu")
            assert fn(*args, out=out) is out
        for got in (whole.numpy(), np.concatenate(pieces), out.numpy()):
            assert_host_bits(got, want)
    real = torch.from_numpy(np.abs(a).real.astype(np.float64))
    assert xp.multiply(ta, real).dtype == torch.promote_types(ta.dtype, real.dtype)
    assert xp.multiply(ta.clone().requires_grad_(), tb).requires_grad


@_NEEDS_TORCH
def test_torch_sqrt_into_an_out_of_another_shape_is_torchs(monkeypatch):
    """The Torch backend's ``sqrt`` into ``out=`` of the result's shape is NumPy's on a view;
    an ``out`` of another shape is resized by Torch's own, as Torch does."""
    import torch

    from xdist.backends import torch as backend_module

    sqrt = backend_module.backend().xp.sqrt
    t = torch.from_numpy(np.linspace(0.0, 9.0, 12).reshape(3, 4))
    want = torch.from_numpy(np.sqrt(t.numpy()))
    out = torch.empty_like(want)
    assert sqrt(t, out=out) is out and torch.equal(out, want)
    out = want.new_empty(0)
    got = sqrt(t, out=out)
    assert got is out and out.shape == want.shape
    assert torch.allclose(out, want, rtol=1e-15, atol=0)  # (Torch's kernel: a last place off)


@_NEEDS_TORCH
def test_torch_select_and_vecdot_through_numpy_views(monkeypatch):
    """The Torch backend's CPU selection by a mask over the whole block or over the leading
    axes of a contiguous block, and its ``vecdot`` along the last axis of real floating
    blocks, run NumPy on views: Torch's elements, values and dtype, a lazy negation or
    conjugation resolved first; tensors under autograd, masks over the leading axes of a
    block that is not contiguous and other dtypes stay Torch's."""
    import torch

    from xdist.backends import torch as backend_module

    backend = backend_module.backend()
    calls = []
    for name in ("select", "vecdot_last_axis"):
        real = getattr(backend_module._HOST, name)
        monkeypatch.setattr(
            backend_module._HOST,
            name,
            lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a),
        )
    rng = np.random.default_rng(3)
    labels = torch.from_numpy(rng.integers(0, 8, 3001))
    mask = torch.from_numpy(rng.random(3001) < 0.3)
    assert torch.equal(backend.select(labels, mask), labels[mask])
    assert torch.equal(backend.select(torch._neg_view(labels), mask), -labels[mask])
    z = torch.complex(labels.double(), labels.double() + 1)
    got = backend.select(z.conj(), mask)
    assert not got.is_conj() and torch.equal(got, z.conj_physical()[mask])
    empty = torch.zeros(3001, dtype=torch.bool, device="cpu")
    assert backend.select(labels, empty).shape == (0,)
    assert calls == ["select"] * 4
    calls.clear()
    rows = torch.from_numpy(rng.standard_normal((3001, 5)))
    assert torch.equal(backend.select(rows, mask), rows[mask])  # leading axis: NumPy's
    assert calls == ["select"]
    calls.clear()
    strided = torch.from_numpy(rng.standard_normal((5, 3001))).T  # not contiguous: Torch's
    assert torch.equal(backend.select(strided, mask), strided[mask])
    grad = labels.double().requires_grad_()
    assert backend.select(grad, mask).requires_grad
    assert not calls
    for dtype in (torch.float32, torch.float64):
        a = torch.from_numpy(rng.standard_normal((300, 65))).to(dtype)[:, :64]  # strided
        got = backend.vecdot_last_axis(a, torch._neg_view(a))
        assert got.dtype == dtype and got.shape == (300,)
        torch.testing.assert_close(got, -(a * a).sum(1))
        one = backend.vecdot_last_axis(a[0], a[0])
        assert isinstance(one, torch.Tensor) and one.shape == ()
    assert calls == ["vecdot_last_axis"] * 4
    calls.clear()
    ints = torch.arange(6, device="cpu").reshape(2, 3)
    assert backend.vecdot_last_axis(ints, ints) is None
    assert backend.vecdot_last_axis(a.clone().requires_grad_(), a) is None
    assert not calls


@_NEEDS_TORCH
def test_torch_asarray_copies_read_only_numpy_arrays():
    """Torch has no read-only tensors: a tensor sharing a read-only NumPy array (a memmap
    opened for reading, a broadcast view) would let a write through xdist change it (or
    crash on a read-only mapping). Such arrays are copied; ``copy=False`` says why it cannot
    share them. Writable arrays are still shared, as the standard's ``asarray`` may."""
    import torch

    b = get_backend("torch")
    a = np.arange(6.0).reshape(2, 3)
    a.setflags(write=False)
    for obj in (a, np.broadcast_to(np.arange(3.0), (2, 3))):
        t = b.asarray(obj)
        t += 1.0
        np.testing.assert_array_equal(t.numpy(), obj + 1.0)
        assert obj[0, 0] == 0.0
        with pytest.raises(ValueError, match="read-only NumPy array"):
            b.asarray(obj, copy=False)
    w = np.arange(3.0)
    shared = b.asarray(w, copy=False)
    shared += 1.0
    assert w[0] == 1.0 and isinstance(shared, torch.Tensor)


@_NEEDS_TORCH
def test_torch_matmul_of_cpu_floats_through_numpy_views(monkeypatch):
    """The Torch backend multiplies real float CPU tensors of one dtype by NumPy's product
    on views of them where NumPy's BLAS runs as many threads as Torch: NumPy's bits, Torch's
    dtype and shapes (vectors, batches, strided and negated views); under autograd, with
    mixed dtypes, integers, another thread count or shapes that do not multiply, Torch's."""
    import torch

    from xdist.backends import numpy as numpy_module
    from xdist.backends import torch as backend_module

    mm = backend_module.backend().xp.matmul
    calls = []
    real = backend_module.numpy_matmul
    monkeypatch.setattr(backend_module, "numpy_matmul", lambda a, b: calls.append(1) or real(a, b))
    monkeypatch.setattr(backend_module, "_blas_threads", torch.get_num_threads)
    rng = np.random.default_rng(5)
    for dtype in (torch.float32, torch.float64):
        a = torch.from_numpy(rng.standard_normal((70, 9))).to(dtype)
        b = torch.from_numpy(rng.standard_normal((9, 6))).to(dtype)
        batch = torch.from_numpy(rng.standard_normal((2, 9, 4))).to(dtype)
        for x1, x2 in [
            (a, b),
            (a[:, :5], b[:5]),
            (a.T[:, :7], a[:7]),  # strided
            (torch._neg_view(a), b),
            (a[0], b),
            (a, b[:, 0]),
            (a[0], a[1]),
            (a[:3], batch),
        ]:
            got = mm(x1, x2)
            want = numpy_module.matmul(x1.resolve_neg().numpy(), x2.numpy())
            assert got.dtype == dtype and tuple(got.shape) == np.shape(want)
            np.testing.assert_array_equal(got.numpy(), want)
    assert len(calls) == 16
    calls.clear()
    a = torch.from_numpy(rng.standard_normal((7, 3)))
    assert mm(a.clone().requires_grad_(), a.T).requires_grad
    assert mm(a, a.T.float()).dtype == torch.float64  # mixed dtypes: Torch's promotion
    ints = torch.arange(6, device="cpu").reshape(2, 3)
    assert torch.equal(mm(ints, ints.T), torch.matmul(ints, ints.T))
    with pytest.raises(RuntimeError):
        mm(a, a)  # Torch's own error
    monkeypatch.setattr(backend_module, "_blas_threads", lambda: torch.get_num_threads() + 1)
    assert torch.equal(mm(a, a.T), torch.matmul(a, a.T))
    assert not calls


@pytest.mark.parametrize("k", range(1, 10))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_backend_sums_short_lines_by_columns_with_numpys_bits(k, dtype):
    """Sums along a short last axis (2-7 elements) of float blocks add the columns from
    +0.0, as NumPy adds each line: NumPy's bits (signed zeros, infinities, NaN, a wide
    exponent range; float32 into float64 and back), shape and dtype, for 2-d and 3-d blocks,
    contiguous or not."""
    from xdist.backends.numpy import backend

    xp = backend().xp
    rng = np.random.default_rng(k)
    a = rng.standard_normal((2, 3000, k)) * 10.0 ** rng.integers(-30, 30, (2, 3000, k))
    a = a.astype(dtype)
    a[:, ::7] = -0.0
    a[:, 1::11, 0] = np.inf
    a[:, 2::13, -1] = np.nan
    a[:, 3::17, 0], a[:, 3::17, -1] = np.inf, -np.inf
    for block in (a, a[1], a[:, ::2], a[0].T.copy().T):
        for acc in (None, "float32", "float64"):
            for axis, keepdims in (((block.ndim - 1,), True), (-1, False)):
                with np.errstate(all="ignore"):
                    got = xp.sum(block, axis=axis, dtype=acc, keepdims=keepdims)
                    want = np.sum(block, axis=axis, dtype=acc, keepdims=keepdims)
                assert got.dtype == want.dtype and got.shape == want.shape
                nan = np.isnan(want)
                np.testing.assert_array_equal(np.isnan(got), nan)
                bits = [np.where(nan, 0, v).view(np.uint8) for v in (got, want)]
                np.testing.assert_array_equal(*bits)


def test_numpy_backend_multiplies_a_thin_matrix_by_its_transpose_as_a_general_product():
    """``a @ a.T`` of few columns takes NumPy's general product on a contiguous copy of
    ``a.T`` (``syrk`` and its triangle copy are slower there), also into ``out``, with
    float32 rounding against float64; a wide ``a`` (``syrk`` kept) and the transpose of
    another array keep their operand."""
    from xdist.backends import numpy as backend_module

    backend = backend_module.backend()
    a = np.random.default_rng(4).standard_normal((300, 18)).astype(np.float32)
    at = a.T
    b = backend_module.gemm_operand(a, at)
    assert b is not at and b.flags.c_contiguous and np.array_equal(b, at)
    got = backend.xp.matmul(a, at)
    exact = a.astype(np.float64) @ at.astype(np.float64)
    np.testing.assert_allclose(got, exact, rtol=2e-5, atol=2e-5)
    out = np.empty((300, 300), np.float32)
    backend.matmul_into(a, at, out)
    assert np.array_equal(out, got)
    v = a[:, :5]  # a strided view and its transpose: one memory
    vt = v.T
    assert backend_module.gemm_operand(v, vt) is not vt
    wide = np.ones((4, 600))
    wt = wide.T
    assert backend_module.gemm_operand(wide, wt) is wt
    other = a.copy().T
    assert backend_module.gemm_operand(a, other) is other


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,cols,n", [(8, 65, 30011), (2, 16, 60000), (24, 80, 20000)])
def test_numpy_backend_sums_a_long_narrow_product_over_slices(rows, cols, n, dtype):
    """A product of a few rows by a narrow matrix along a long contracted axis (k-means'
    cluster sums) is summed over slices of that axis (``_sliced_product``, the last slice
    shorter): exact on small integers (every slice counted once: each sum is exact in
    float32), float32 rounding within 4x BLAS's own call against float64, also for a
    transposed ``x1``."""
    from xdist.backends import numpy as backend_module

    rng = np.random.default_rng(7)
    a = rng.integers(0, 2, (rows, n)).astype(dtype)
    b = rng.integers(-8, 9, (n, cols)).astype(dtype)
    exact = a.astype(np.int64) @ b.astype(np.int64)
    for x1 in (a, np.ascontiguousarray(a.T).T):
        got = backend_module._sliced_product(x1, b)
        assert got is not None and got.dtype == dtype and got.shape == (rows, cols)
        assert np.array_equal(got, exact)
        assert np.array_equal(backend_module.backend().xp.matmul(x1, b), got)
    a = rng.standard_normal((rows, n)).astype(dtype)
    b = rng.standard_normal((n, cols)).astype(dtype)
    if dtype == "float32":
        exact = a.astype(np.float64) @ b.astype(np.float64)
        blas = np.abs(np.matmul(a, b) - exact).max()
        assert np.abs(backend_module._sliced_product(a, b) - exact).max() <= 4 * blas


def test_numpy_backend_leaves_other_products_to_blas():
    """One row (BLAS's vector product), a wide ``x2``, a short contracted axis, mixed dtypes,
    integers, a strided ``x2``, more than 24 rows and ``X.T @ X`` are not sliced (no gain
    was measured there), nor an ``x2`` of no columns."""
    from xdist.backends import numpy as backend_module

    rng = np.random.default_rng(8)
    long = rng.standard_normal((100000, 65)).astype(np.float32)
    for x1, x2 in [
        (rng.standard_normal((1, 100000)).astype(np.float32), long),
        (rng.standard_normal((8, 100000)).astype(np.float32), np.ones((100000, 400), np.float32)),
        (rng.standard_normal((8, 1000)).astype(np.float32), long[:1000]),
        (rng.standard_normal((8, 100000)), long),
        (np.ones((8, 100000), np.int64), np.ones((100000, 65), np.int64)),
        (rng.standard_normal((8, 100000)).astype(np.float32), long[:, ::2]),
        (rng.standard_normal((40, 100000)).astype(np.float32), long),
        (rng.standard_normal((8, 100000)).astype(np.float32), long[:, :0]),  # an empty block
        (long[:, :8].T, long[:, :8]),  # a Gram matrix: one memory, BLAS's ``syrk``
    ]:
        assert backend_module._sliced_product(x1, x2) is None


def test_namespace_over_holds_the_base_names_and_the_overrides():
    """``namespace_over``: the base's names are the module's own (no ``__getattr__`` call on
    a lookup, which would cost every backend call a Python frame per name), the overrides
    replace them, and a name the base resolves lazily still falls through."""
    import types

    from xdist.backends.standard_semantics import namespace_over

    base = types.ModuleType("base")
    base.add = lambda a, b: a + b
    base.sub = lambda a, b: a - b
    base.__getattr__ = lambda name: f"lazy {name}"  # a name found only on demand

    def sub(a, b):
        return "sub"

    ns = namespace_over("ns", base, {"sub": sub})
    assert vars(ns)["add"] is base.add and ns.add(2, 3) == 5
    assert ns.sub is sub and base.sub(2, 3) == -1
    assert "lazy" not in vars(ns) and ns.lazy == "lazy lazy"


@pytest.mark.parametrize("name", _INSTALLED)
def test_backend_namespaces_hold_their_library_names(name):
    """Every backend's namespace holds array-api-compat's names itself (the Torch and CuPy
    ones fell through two ``__getattr__`` layers on every lookup before), with the backend's
    own functions where it replaces one (Torch's ``sum`` and ``astype``, NumPy's ``matmul``)."""
    import importlib

    backend = get_backend(name)
    compat = importlib.import_module(f"array_api_compat.{name}")
    own, theirs = vars(backend.xp), vars(compat)
    for fn in ("astype", "argmin", "concat", "matmul", "where", "stack", "sum", "vecdot"):
        assert fn in own, fn
    assert own["where"] is theirs["where"]
    for fn in _REPLACED[name]:
        assert own[fn] is not theirs[fn], fn


# Functions each backend's namespace replaces (floor_divide: the standard's special values).
_REPLACED = {
    "numpy": ("floor_divide", "matmul"),
    "torch": ("floor_divide", "matmul", "sum", "concat", "astype"),
    "cupy": ("floor_divide",),
}


@pytest.mark.parametrize("name", _INSTALLED)
@pytest.mark.parametrize("value", [np.asarray(3.5), np.float64(3.5), np.float32(-2.0), 7])
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_asarray_copies_a_0d_value_with_a_dtype_change(name, value, dtype):
    """``copy=True`` of a 0-d NumPy value into another dtype (Torch refuses it on its own)."""
    b = get_backend(name)
    if dtype is None and isinstance(value, int):
        dtype = "float64"  # a Python int asked into a float: the dtype is the point here
    block = b.asarray(value, dtype=None if dtype is None else np.dtype(dtype), copy=True)
    host = b.to_host(block)
    assert host.shape == () and float(host) == float(value)
    if dtype is not None:
        assert host.dtype == np.dtype(dtype)
    before = float(value)
    block[...] = 0  # a copy: the value given is untouched
    assert float(value) == before


@_NEEDS_TORCH
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_remainder_where_the_quotient_overflows(dtype):
    """Torch's vectorized ``remainder`` gives NaN where ``x1 / x2`` overflows (finite
    operands); the backend's gives NumPy's exact remainder there, and NumPy's signed zeros and
    special values everywhere (a grid of every pair)."""
    import torch

    from xdist.backends import torch as backend_module

    big, tiny = (1.41383e6, 4.1548722e-33) if dtype == "float32" else (1e300, 1e-10)
    a = np.full((3, 3, 2), big, dtype=dtype)
    a[0, 0, 0] = -big
    b = np.asarray(tiny, dtype=dtype)
    got = backend_module._remainder(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    np.testing.assert_array_equal(got, np.remainder(a, b))
    vals = np.array([-0.0, 0.0, 5.0, -5.0, 7.5, -7.5, np.inf, -np.inf, np.nan, 1e-30, 3.0], dtype)
    x, y = np.meshgrid(vals, vals)
    with np.errstate(all="ignore"):
        want = np.remainder(x, y)
    got = backend_module._remainder(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()


@_NEEDS_TORCH
def test_torch_number_writes_through_numpy_views_keep_torchs_values_and_version():
    """``write_number`` (one-element writes of a loop: the Lasso descent's coefficients) goes
    through NumPy's view of a CPU tensor: the value Torch's own write stores (one rounding of
    a float into float32), the version counter bumped as Torch's write bumps it, so autograd
    still refuses a backward pass through a tensor written after it was saved."""
    import torch

    from xdist.backends import torch as backend_module

    backend = backend_module.backend()
    cases = [
        (torch.float32, 0.1),
        (torch.float64, -1e300),
        (torch.int8, -128),
        (torch.int64, 2**62),
        (torch.bool, True),
        (torch.float32, 3),  # an int into a float tensor: Torch's own write
        (torch.complex64, 1.5),  # not a NumPy-view write: Torch's own
    ]
    for dtype, value in cases:
        got, want = (
            torch.zeros(6, dtype=dtype, device="cpu"),
            torch.zeros(6, dtype=dtype, device="cpu"),
        )
        before = got._version
        backend.write_number(got, (2, Ellipsis), value)
        want[2] = value
        assert torch.equal(got, want), (dtype, value)
        assert got._version > before
        backend.write_number(got, (slice(3, 5), Ellipsis), value)
        want[3:5] = value
        assert torch.equal(got, want)
    w = torch.ones(4, requires_grad=True, device="cpu")
    saved = torch.arange(4.0, device="cpu")
    loss = (w * saved).sum()  # saves ``saved`` for the gradient of w
    backend.write_number(saved, (1, Ellipsis), 7.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
