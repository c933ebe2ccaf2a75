"""GPU blocks: Torch-CUDA and CuPy. Every test here skips without a GPU (or without the
package) and runs when one is present, at any number of ranks (ranks may share a GPU).

The device-buffer path (a CUDA-aware MPI) runs on real GPUs only when the MPI library says
it is CUDA-aware or ``XDIST_CUDA_AWARE=1`` is set: handing device pointers to an MPI that is
not CUDA-aware would crash. The same path runs everywhere on a fake device in
tests/transport/test_transport.py and tests/backends/test_devices.py.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import COMM, RANK, SIZE, random_array

import xdist
from xdist import _runtime
from xdist._layout import Layout
from xdist._movement.redistribute import gather_block, redistribute_block
from xdist._transport import mpi as _mpi
from xdist.backends import get_backend
from xdist.backends.base import DeviceBuffer

try:
    import torch

    HAVE_TORCH_CUDA = torch.cuda.is_available()
except ImportError:  # pragma: no cover - torch is a test dependency here
    HAVE_TORCH_CUDA = False

try:
    import cupy

    HAVE_CUPY_GPU = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # ImportError, or CUDA runtime errors without a driver
    HAVE_CUPY_GPU = False

torch_cuda = pytest.mark.skipif(not HAVE_TORCH_CUDA, reason="no CUDA GPU visible to Torch")
cupy_gpu = pytest.mark.skipif(not HAVE_CUPY_GPU, reason="CuPy or a CUDA GPU is missing")

# The device path on real GPUs only where MPI can take device pointers.
DEVICE_PATHS = [False]
if os.environ.get("XDIST_CUDA_AWARE") == "1" or _mpi.library_cuda_support()[0]:
    DEVICE_PATHS.append(True)


def _split_case(shape, split):
    g = random_array(shape, "float64", seed=7)
    layout = Layout.balanced(shape, split, SIZE)
    return g, layout, g[layout.local_slice(RANK)].copy()


# -- Torch on CUDA --------------------------------------------------------------------------------
@torch_cuda
def test_torch_cuda_default_device_is_round_robin():
    with xdist.backend_context("torch", "cuda") as backend:
        gpus = [d for d in backend.devices() if d.kind == "cuda"]
        expected = _runtime.gpu_for_rank(gpus, _runtime.node_local_rank())
        assert backend.default_device() == expected
        assert expected in xdist.__array_namespace_info__().devices()


@torch_cuda
@pytest.mark.parametrize("aware", DEVICE_PATHS, ids=lambda a: "device" if a else "staged")
@pytest.mark.parametrize("src,dst", [(0, 1), (1, 0), (0, None)])
def test_torch_cuda_redistribute(aware, src, dst):
    g, layout, block = _split_case((7, 5), src)
    with xdist.backend_context("torch", "cuda") as backend:
        dev = backend.default_device()
        local = torch.from_numpy(block).to(backend.native_device(dev))
        with xdist.config_context(cuda_aware=aware):
            if dst is None:
                got = gather_block(local, layout, COMM, backend)
                expected = g
            else:
                target = Layout.balanced(g.shape, dst, SIZE)
                got = redistribute_block(local, layout, target, COMM, backend)
                expected = g[target.local_slice(RANK)]
        assert backend.device_of(got) == dev
        np.testing.assert_array_equal(got.cpu().numpy(), expected)


@torch_cuda
def test_torch_cuda_elementwise_and_reduction():
    g, layout, block = _split_case((9, 4), 0)
    with xdist.backend_context("torch", "cuda") as backend:
        dev = backend.default_device()
        x = xdist.from_local(torch.from_numpy(block).to(backend.native_device(dev)), split=0)
        y = xdist.sum(x * 2.0 + 1.0, axis=0)
        assert x.device == dev and y.device == dev
        np.testing.assert_allclose(y.local.cpu().numpy(), (g * 2.0 + 1.0).sum(axis=0))


@torch_cuda
def test_torch_cuda_to_buffer_and_to_device():
    backend = get_backend("torch")
    gpu = next(d for d in backend.devices() if d.kind == "cuda")
    t = torch.arange(12.0, device=backend.native_device(gpu)).reshape(3, 4).T  # not contiguous
    host = backend.to_buffer(t, False)
    assert isinstance(host, np.ndarray) and host.flags.c_contiguous
    np.testing.assert_array_equal(host, np.arange(12.0).reshape(3, 4).T)
    buf = backend.to_buffer(t, True)
    assert isinstance(buf, DeviceBuffer) and buf.data.is_cuda and buf.data.is_contiguous()
    empty = backend.empty_buffer(5, np.dtype("float64"), buf)
    assert empty.data.is_cuda and empty.size == 5
    with xdist.backend_context("torch", "cpu"):
        x = xdist.from_local(torch.arange(6.0, dtype=torch.float64), split=0)
        y = x.to_device(gpu)
        assert y.device == gpu and y.local.is_cuda
        z = y.to_device("cpu")
        assert z.device == x.device
        np.testing.assert_array_equal(z.local.numpy(), x.local.numpy())
        with pytest.raises(ValueError, match="device"):
            x + y


@torch_cuda
@pytest.mark.skipif(True not in DEVICE_PATHS, reason="the MPI library is not CUDA-aware")
def test_torch_cuda_transport_device_buffers():
    backend = get_backend("torch")
    with xdist.backend_context("torch", "cuda"):
        dev = backend.native_device(backend.default_device())
    counts = [r + 1 for r in range(SIZE)]
    mine = torch.full((counts[RANK],), float(RANK), dtype=torch.float64, device=dev)
    got = COMM.allgatherv(DeviceBuffer(mine, backend), counts)
    assert isinstance(got, DeviceBuffer) and got.data.is_cuda
    expected = np.concatenate([np.full(c, float(r)) for r, c in enumerate(counts)])
    np.testing.assert_array_equal(got.data.cpu().numpy(), expected)


# -- CuPy -----------------------------------------------------------------------------------------
@cupy_gpu
@pytest.mark.parametrize("aware", DEVICE_PATHS, ids=lambda a: "device" if a else "staged")
@pytest.mark.parametrize("src,dst", [(0, 1), (1, 0), (0, None)])
def test_cupy_redistribute(aware, src, dst):
    g, layout, block = _split_case((7, 5), src)
    with xdist.backend_context("cupy", "cuda") as backend:
        dev = backend.default_device()
        with backend.native_device(dev):
            local = cupy.asarray(block)
        with xdist.config_context(cuda_aware=aware):
            if dst is None:
                got, expected = gather_block(local, layout, COMM, backend), g
            else:
                target = Layout.balanced(g.shape, dst, SIZE)
                got = redistribute_block(local, layout, target, COMM, backend)
                expected = g[target.local_slice(RANK)]
        assert backend.device_of(got) == dev
        np.testing.assert_array_equal(cupy.asnumpy(got), expected)


@cupy_gpu
def test_cupy_elementwise_reduction_and_buffers():
    g, layout, block = _split_case((9, 4), 0)
    with xdist.backend_context("cupy", "cuda") as backend:
        dev = backend.default_device()
        with backend.native_device(dev):
            x = xdist.from_local(cupy.asarray(block), split=0)
        y = xdist.sum(x * 2.0 + 1.0, axis=0)
        assert y.device == dev
        np.testing.assert_allclose(cupy.asnumpy(y.local), (g * 2.0 + 1.0).sum(axis=0))
        t = x.local.T
        host = backend.to_buffer(t, False)
        assert isinstance(host, np.ndarray)
        np.testing.assert_array_equal(host, block.T)
        buf = backend.to_buffer(t, True)
        assert isinstance(buf, DeviceBuffer) and buf.data.flags.c_contiguous
        assert xdist.__array_namespace_info__().default_device() == dev


@cupy_gpu
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "shape,axes",
    [
        ((8192, 3), (0, 1)),
        ((300, 40), (0, 1)),
        ((7,), (0,)),
        ((300, 40), (0,)),
        ((5, 4, 3), (1, 2)),
    ],
)
def test_cupy_one_read_moments(shape, axes, dtype):
    """CuPy's one-read moments (``backends/cupy.py: shifted_moments``: one reduction kernel
    for both sums, a whole block as 4096 rows and its tail) against the corrected two
    passes on centred, offset and drifting data (which it may decline: ``None``)."""
    from xdist.backends import moments
    from xdist.backends.cupy import shifted_moments

    rng = np.random.default_rng(3)
    n = int(np.prod([shape[a] for a in axes]))
    drift = np.arange(int(np.prod(shape))).reshape(shape) * 1e3 + 1e9
    for kind, g in [
        ("centred", rng.standard_normal(shape) * 2),
        ("offset", rng.standard_normal(shape) * 2 + 1e8),
        ("drift", drift),
    ]:
        g = g.astype(dtype)
        m, c, m2 = moments.two_pass(np, g, axes, n, np.dtype("float64"))
        got = shifted_moments(cupy.asarray(g), axes, n)
        if got is None:  # the shift far from the mean: two passes take it
            assert kind == "drift"
            continue
        gm, gc, gm2 = (cupy.asnumpy(r) for r in got)
        assert gm.shape == m.shape and gm2.dtype == np.float64
        np.testing.assert_allclose(gm2, m2, rtol=1e-11, err_msg=kind)
        spread = np.sqrt(m2 / n)
        assert np.all(np.abs((gm + gc) - (m + c)) <= 1e-12 * spread), kind


@cupy_gpu
def test_cupy_in_place_declines_overlapping_arrays():
    """CuPy's kernels do not buffer an operand that overlaps the block (NumPy's ufuncs
    do), so the backend writes in place only with numbers, the block itself and arrays
    of their own memory."""
    import operator

    backend = get_backend("cupy")
    a = cupy.arange(6.0)
    assert not backend.in_place(operator.iadd, a, a[::-1])  # a reversed view of itself
    np.testing.assert_array_equal(cupy.asnumpy(a), np.arange(6.0))
    assert backend.in_place(operator.iadd, a, a[::-1].copy())
    np.testing.assert_array_equal(cupy.asnumpy(a), np.full(6, 5.0))
    assert backend.in_place(operator.imul, a, a)
    assert backend.in_place(operator.imul, a, 2.0)
    np.testing.assert_array_equal(cupy.asnumpy(a), np.full(6, 50.0))
