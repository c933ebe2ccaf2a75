"""Devices and the device plumbing: GPU choice per rank, CUDA-aware detection, the transport
buffers of the redistribution layer (staged and device paths, the latter on a fake device),
to_device, devices(), and the error for arrays of two backends or devices in one operation."""

from __future__ import annotations

import numpy as np
import pytest
from fake_device import GPU, FakeGPUBackend
from helpers import COMM, RANK, SIZE, distribute, random_array, uneven_counts

import xdist
from xdist import _runtime
from xdist._config import _env_flag
from xdist._layout import Layout
from xdist._movement.redistribute import gather_block, redistribute_block
from xdist._transport import mpi as _mpi
from xdist._transport.comm import SelfComm
from xdist.backends import Device, get_backend

torch = pytest.importorskip("torch")


# -- GPU choice: round-robin by node-local rank, overridable ------------------------------------
def _gpus(n: int) -> list[Device]:
    return [Device("fake", "cuda", i) for i in range(n)]


@pytest.mark.parametrize("ngpus", [1, 2, 3, 4])
def test_gpu_round_robin(ngpus):
    picked = [_runtime.gpu_for_rank(_gpus(ngpus), r).index for r in range(8)]
    assert picked == [r % ngpus for r in range(8)]


def test_gpu_round_robin_without_gpus():
    with pytest.raises(ValueError, match="no GPU"):
        _runtime.gpu_for_rank([], 0)


class _GPUBackendStub(FakeGPUBackend):
    def __init__(self, ngpus: int) -> None:
        super().__init__()
        self._gpus = _gpus(ngpus)

    def devices(self) -> list[Device]:
        return [Device("fake", "cpu"), *self._gpus]

    def check_device(self, device, func):
        for d in self.devices():
            if device == d or device == str(d):
                return d
        raise ValueError(f"{func}: device {device!r} is not a device of the fake backend")


@pytest.mark.parametrize("local_rank", [0, 1, 2, 5])
def test_pick_device_uses_node_local_rank(monkeypatch, local_rank):
    monkeypatch.setenv("MPI_LOCALRANKID", str(local_rank))
    assert _runtime._pick_device(_GPUBackendStub(2), "cuda") == _gpus(2)[local_rank % 2]


def test_pick_device_explicit_gpu_and_errors(monkeypatch):
    monkeypatch.setenv("MPI_LOCALRANKID", "1")
    assert _runtime._pick_device(_GPUBackendStub(3), "cuda:2") == _gpus(3)[2]
    assert _runtime._pick_device(_GPUBackendStub(3), "cpu") == Device("fake", "cpu")
    assert _runtime._pick_device(_GPUBackendStub(3), "") is None
    with pytest.raises(ValueError, match="sees no GPU"):
        _runtime._pick_device(_GPUBackendStub(0), "cuda")
    with pytest.raises(ValueError, match="XDIST_DEVICE"):
        _runtime._pick_device(_GPUBackendStub(2), "cuda:7")


def test_node_local_rank_falls_back_to_the_communicator(monkeypatch):
    for name in _runtime._LOCAL_RANK_VARS:
        monkeypatch.delenv(name, raising=False)
    local = _runtime.node_local_rank(COMM)
    # Every rank of these test runs shares one node: the node rank is the world rank.
    assert local == COMM.node_rank() == RANK
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "4")
    assert _runtime.node_local_rank(COMM) == 4


# -- CUDA-aware detection and override -----------------------------------------------------------
def test_library_is_asked():
    aware, source = _mpi.library_cuda_support()
    assert isinstance(aware, bool) and source
    with xdist.config_context(cuda_aware=None):
        assert COMM.cuda_aware == aware


@pytest.mark.parametrize("setting", [True, False])
def test_cuda_aware_override(setting):
    with xdist.config_context(cuda_aware=setting):
        assert COMM.cuda_aware is setting
    assert SelfComm().cuda_aware is False


@pytest.mark.parametrize(
    "text,value", [("", None), ("auto", None), ("1", True), ("0", False), ("true", True)]
)
def test_cuda_aware_env(monkeypatch, text, value):
    monkeypatch.setenv("XDIST_CUDA_AWARE", text)
    assert _env_flag("XDIST_CUDA_AWARE") is value


def test_cuda_aware_env_rejects_garbage(monkeypatch):
    monkeypatch.setenv("XDIST_CUDA_AWARE", "maybe")
    with pytest.raises(ValueError, match="XDIST_CUDA_AWARE"):
        _env_flag("XDIST_CUDA_AWARE")
    with pytest.raises(TypeError, match="cuda_aware"):
        xdist.set_config(cuda_aware="yes")


# -- the redistribution layer's transport buffers: device path and staging path ----------------
_MOVES = [
    ((7, 3), 0, None, 1),  # split 0 -> split 1
    ((7, 3), 0, uneven_counts(7, SIZE), 0),  # new counts on the same axis (empty blocks)
    ((2, 5), 1, None, 0),  # more ranks than rows at 3 ranks
    ((4, 0), 0, None, 1),  # size 0
]


def _layout(shape, split, counts):
    if counts is None:
        return Layout.balanced(shape, split, SIZE)
    return Layout(shape, split, tuple(counts))


@pytest.mark.parametrize("aware", [True, False], ids=["device", "staged"])
@pytest.mark.parametrize("case", _MOVES, ids=[str(c) for c in _MOVES])
def test_redistribute_buffers(aware, case):
    shape, split, counts, dst_split = case
    g = random_array(shape, "float64", seed=3)
    src = _layout(shape, split, counts)
    dst = Layout.balanced(shape, dst_split, SIZE)
    backend = FakeGPUBackend()
    with xdist.config_context(cuda_aware=aware):
        got = redistribute_block(g[src.local_slice(RANK)].copy(), src, dst, COMM, backend)
        full = gather_block(g[src.local_slice(RANK)].copy(), src, COMM, backend)
    np.testing.assert_array_equal(got, g[dst.local_slice(RANK)])
    np.testing.assert_array_equal(full, g)
    if SIZE == 1:
        return  # nothing moves at one rank
    if aware:  # device buffers only: nothing staged through the host
        assert backend.calls["to_host"] == backend.calls["from_host"] == 0
        assert backend.calls["to_buffer(cuda_aware=True)"] == 2
        assert backend.calls["synchronize"] == 2 and backend.calls["empty_buffer"] == 2
    else:
        assert backend.calls["to_host"] == 2 and backend.calls["empty_buffer"] == 0


@pytest.mark.parametrize("aware", [True, False])
def test_numpy_blocks_are_never_device_buffers(aware):
    """A CPU block takes the host path whatever MPI supports: to_buffer gives the block."""
    block = np.arange(6.0).reshape(2, 3)
    with xdist.config_context(cuda_aware=aware):
        buf = get_backend("numpy").to_buffer(block, COMM.cuda_aware)
    assert buf is block
    tblock = torch.arange(6.0, device="cpu")
    assert isinstance(get_backend("torch").to_buffer(tblock, True), np.ndarray)


def test_fake_gpu_device_is_reported():
    assert FakeGPUBackend().device_of(np.zeros(1)) == GPU


# -- to_device and devices() ---------------------------------------------------------------------
def test_devices_reported_by_info():
    info = xdist.__array_namespace_info__()
    assert info.default_device() in info.devices()
    with xdist.backend_context("torch"):
        devices = xdist.__array_namespace_info__().devices()
        assert Device("torch", "cpu") in devices
        assert all(d.backend == "torch" for d in devices)
        assert len([d for d in devices if d.kind == "cuda"]) == torch.cuda.device_count()


@pytest.mark.parametrize("split", [None, 0])
def test_to_device_same_device(split):
    x = distribute(np.arange(6.0), split)
    with xdist.count_collectives() as counts:
        assert x.to_device(x.device) is x
        assert x.to_device(str(x.device)) is x  # by name: "cpu", or "cuda:0" under CuPy
    assert sum(counts.values()) == 0


def test_to_device_errors():
    with xdist.backend_context("numpy"):
        x = distribute(np.arange(6.0), 0)
    with pytest.raises(ValueError, match="to_device: .*torch backend"):
        x.to_device(Device("torch", "cpu"))
    with pytest.raises(ValueError, match="to_device"):
        x.to_device("cuda:5")


# -- arrays of two backends or devices in one operation ---------------------------------------
def _pair(split=0):
    g = random_array((6, 6), "float64", seed=1)
    with xdist.backend_context("numpy"):
        a = distribute(g, split)
    block = g[a.layout.local_slice(RANK)].copy()
    with xdist.backend_context("torch"):
        b = xdist.from_local(torch.from_numpy(block), split=split)
    assert b.backend.name == "torch" and a.backend.name == "numpy"
    return a, b


def _ints(a, b):
    return xdist.astype(a, xdist.int64), xdist.astype(b, xdist.int64)


# op: (prepare the operands (may communicate), the call that must raise before communicating)
_MIXED = {
    "add": (None, lambda a, b: a + b),
    "matmul": (None, xdist.matmul),
    "tensordot": (None, xdist.tensordot),
    "vecdot": (None, xdist.vecdot),
    "concat": (None, lambda a, b: xdist.concat([a, b])),
    "stack": (None, lambda a, b: xdist.stack([a, b])),
    "where": (lambda a, b: (a > 0, a, b), xdist.where),
    "take": (lambda a, b: (a, xdist.astype(b[0], xdist.int64)), xdist.take),
    "searchsorted": (lambda a, b: (a[0], b[0]), xdist.searchsorted),
    "isin": (_ints, xdist.isin),
    "solve": (None, xdist.linalg.solve),
}


@pytest.mark.parametrize("op", list(_MIXED))
@pytest.mark.parametrize("order", ["numpy-torch", "torch-numpy"])
def test_mixing_backends_raises_before_communicating(op, order):
    a, b = _pair()
    if order == "torch-numpy":
        a, b = b, a
    prepare, call = _MIXED[op]
    args = (a, b) if prepare is None else prepare(a, b)
    with xdist.count_collectives() as counts, pytest.raises(ValueError, match="backend"):
        call(*args)
    assert sum(counts.values()) == 0, counts


class _TorchAsGPU(type(get_backend("torch"))):
    """The Torch backend with its CPU tensors declared to be on ``cuda:0``: runs the device
    path's Torch code (packing with the namespace, DLPack buffers handed to MPI, receive
    buffers from ``empty_buffer``) on a machine without a GPU."""

    _GPU = Device("torch", "cuda", 0)

    def __init__(self) -> None:
        super().__init__()
        self.synced = 0

    def devices(self):
        return [self._GPU]

    def device_of(self, block):
        return self._GPU

    def native_device(self, device):
        return torch.device("cpu")

    def synchronize(self, device):
        self.synced += 1

    def to_host(self, block):
        raise AssertionError("the device path staged a block through the host")


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.complex128, torch.bool])
@pytest.mark.parametrize("case", _MOVES, ids=[str(c) for c in _MOVES])
def test_redistribute_torch_device_path(case, dtype):
    shape, split, counts, dst_split = case
    g = torch.from_numpy(random_array(shape, "float64", seed=5) * 10).to(dtype)
    src = _layout(shape, split, counts)
    dst = Layout.balanced(shape, dst_split, SIZE)
    backend = _TorchAsGPU()
    with xdist.config_context(cuda_aware=True):
        got = redistribute_block(g[src.local_slice(RANK)].clone(), src, dst, COMM, backend)
        full = gather_block(g[src.local_slice(RANK)].clone(), src, COMM, backend)
    assert torch.equal(got, g[dst.local_slice(RANK)]) and torch.equal(full, g)
    assert backend.synced == (2 if SIZE > 1 else 0)
