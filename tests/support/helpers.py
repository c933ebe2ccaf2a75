"""Helpers every test module uses: distributing NumPy data with a chosen layout, comparing
results with NumPy, and the communicators every test can run on."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import xdist
from xdist import Layout, SelfComm
from xdist._array import Array
from xdist._dtypes import ALL_DTYPES
from xdist._runtime import default_backend

COMM = xdist.default_comm()
RANK, SIZE = COMM.rank, COMM.size

# The backend under test (XDIST_BACKEND) and what it offers: its default dtypes (Torch:
# float32 and complex64) and the standard's dtypes it lacks (Torch: uint16, uint32, uint64).
BACKEND = default_backend()
DEFAULTS = xdist.__array_namespace_info__().default_dtypes()
UNSUPPORTED = frozenset(d.name for d in ALL_DTYPES if d not in BACKEND.supported_dtypes())
# Where the backend's blocks live: host memory (NumPy, Torch on the CPU) or a GPU (CuPy),
# whose blocks never share memory with NumPy data.
DEVICE = BACKEND.default_device()
ON_HOST = DEVICE.kind == "cpu"


# A test that starts processes of its own (a child alone, or an MPI job of its own size): what
# it checks does not depend on this run's rank count, so the 1-rank run of each backend starts
# them and the 2- and 3-rank runs skip it.
own_processes = pytest.mark.skipif(
    SIZE > 1, reason="starts its own processes; the 1-rank run of this backend runs it"
)


def outside_mpi_job() -> dict[str, str]:
    """This process's environment without an outer MPI job's variables, for a child process
    that must run alone or start an MPI job of its own (``mpiexec`` inside a rank)."""
    prefixes = ("PMI_", "PMIX_", "HYDRA_", "MPI_LOCAL", "OMPI_", "SLURM_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


# Where the launchers give a process its rank: MPICH's and Intel MPI's Hydra (PMI), Open MPI,
# PMIx launchers, Slurm's srun.
LAUNCHER_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID")


def launcher_rank(environ=None) -> int:
    """This process's rank as its launcher's variables give it (0 outside a launcher): for a
    job's script that must know its rank before ``import xdist``."""
    environ = os.environ if environ is None else environ
    return next((int(environ[v]) for v in LAUNCHER_RANK_VARS if environ.get(v, "").isdigit()), 0)


def host(block) -> np.ndarray:
    """A block of the backend as NumPy (a copy when it lives on a GPU)."""
    return np.asarray(BACKEND.to_host(block))


def shares_memory(a, b) -> bool:
    """Whether two blocks of the backend share memory, on the CPU or a GPU (Torch: the same
    storage, so two views of one storage count as sharing)."""
    if isinstance(a, np.ndarray):
        return bool(np.shares_memory(a, b))
    if type(a).__module__.startswith("cupy"):
        import cupy

        return bool(cupy.shares_memory(a, b))
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def unsupported_reason(dtype) -> str:
    return f"the {BACKEND.name} backend has no {np.dtype(dtype).name} (a library limitation)"


def require_dtypes(*dtypes) -> None:
    """Skip the calling test when the backend lacks one of ``dtypes``."""
    for d in dtypes:
        if np.dtype(d).name in UNSUPPORTED:
            pytest.skip(unsupported_reason(d))


def defaulted(expected):
    """NumPy's ``expected`` made with NumPy's defaults (float64, complex128), in the backend's
    default dtypes instead: what xdist gives when no dtype is asked for."""
    expected = np.asarray(expected)
    if expected.dtype == np.float64:
        return expected.astype(DEFAULTS["real floating"])
    if expected.dtype == np.complex128:
        return expected.astype(DEFAULTS["complex floating"])
    return expected


def backend_rtol(dtype) -> float:
    """The relative tolerance for comparing a non-NumPy backend's floating-point results with
    NumPy's (the libraries' math differs in the last bits); 0 for NumPy (bit for bit)."""
    dt = np.dtype(dtype)
    if BACKEND.name == "numpy" or dt.kind not in "fc":
        return 0.0
    return 1e-5 if dt in (np.float32, np.complex64) else 1e-12


def comms() -> dict[str, object]:
    """One process, the world, a duplicate of it, and a sub-communicator with reversed ranks
    (so nothing may assume the world's rank order)."""
    return {
        "self": SelfComm(),
        "world": COMM,
        "dup": COMM.dup(),
        "reversed": COMM.split(0, SIZE - 1 - RANK),
    }


_COMMS = comms()
comm_params = pytest.mark.parametrize("comm", list(_COMMS.values()), ids=list(_COMMS))


def uneven_counts(n: int, nranks: int) -> tuple[int, ...]:
    """Counts that are far from balanced: the last rank holds most, the first holds nothing."""
    if nranks == 1:
        return (n,)
    counts = [0] * nranks
    counts[-1] = n - n // 3
    counts[1 if nranks > 2 else 0] += n // 3
    return tuple(counts)


def distribute(global_array, split=None, counts=None, comm=None) -> xdist.Array:
    """An xdist array holding ``global_array`` split along ``split`` with ``counts``
    (balanced when None), built without communication from the same data on every rank (the
    public constructors agree on metadata with one allreduce, which tests counting messages
    must not see)."""
    comm = COMM if comm is None else comm
    g = np.asarray(global_array)
    backend = default_backend()
    if split is None:
        return Array._new(backend.asarray(g.copy()), Layout.replicated(g.shape), comm, backend)
    split = split % g.ndim
    if counts is None:
        layout = Layout.balanced(g.shape, split, comm.size)
    else:
        layout = Layout(g.shape, split, tuple(counts))
    block = np.array(g[layout.local_slice(comm.rank)], order="C")  # a copy: never alias g
    return Array._new(backend.asarray(block), layout, comm, backend)


def layouts(shape: tuple[int, ...]):
    """Every way to lay out ``shape``: replicated, split along each axis (balanced), and the
    first axis with very uneven counts (empty blocks included)."""
    out = [(None, None)]
    for axis in range(len(shape)):
        out.append((axis, None))
    if len(shape) > 0:
        out.append((0, uneven_counts(shape[0], SIZE)))
    return out


def layout_id(case) -> str:
    split, counts = case
    return "rep" if split is None else f"s{split}" + ("u" if counts else "")


def assert_layout_consistent(x: xdist.Array) -> None:
    """The local block matches the layout on this rank."""
    assert tuple(x.local.shape) == x.lshape, (x.local.shape, x.lshape)
    if x.split is not None:
        assert len(x.counts) == x.comm.size
        assert sum(x.counts) == x.shape[x.split]


def assert_equal(x: xdist.Array, expected, *, rtol: float = 0.0, atol: float = 0.0) -> None:
    """``x`` equals NumPy's ``expected``: shape, dtype and every value (NaN equal to NaN)."""
    assert isinstance(x, xdist.Array), type(x)
    expected = np.asarray(expected)
    assert_layout_consistent(x)
    assert x.shape == expected.shape, (x.shape, expected.shape)
    assert x.dtype == expected.dtype, (x.dtype, expected.dtype)
    got = x.to_numpy()
    if not (rtol or atol):
        rtol = atol = backend_rtol(expected.dtype)  # atol: results near 0 (sin(pi))
    if rtol or atol:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected, strict=True)


def assert_same_bits(got, want) -> None:
    """Pairs of xdist arrays with the same dtype, shape, split and bits, NaNs apart: a NaN's
    sign and payload are NumPy's SIMD loops' choice, which differs by an element's place in
    the loop (eager too, between rank counts)."""
    for f, e in zip(got, want, strict=True):
        assert f.dtype == e.dtype and f.shape == e.shape and f.split == e.split
        assert_host_bits(f.to_numpy(), e.to_numpy())


def assert_host_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Two NumPy arrays of one dtype and shape with the same bits, NaNs apart (their sign and
    payload: ``assert_same_bits``)."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if got.dtype.kind in "fc":
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        got, want = np.where(nan, 0, got), np.where(nan, 0, want)
    got, want = got.reshape(-1), want.reshape(-1)  # (a 0-d array's bytes too; shapes checked)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), strict=True)


def odd_block(g: np.ndarray, kind: str) -> np.ndarray:
    """``g``'s values in a NumPy block of an unusual ``kind``: ``"float16"``, ``"big-endian"``,
    ``"unaligned"`` (memory not aligned to its elements), ``"read-only"``, ``"strided"`` (every
    other element of a wider block) or ``"1-d"``."""
    if kind == "float16":
        return g.astype(np.float16)
    if kind == "big-endian":
        return g.astype(g.dtype.newbyteorder(">"))
    if kind == "unaligned":
        raw = np.zeros(g.nbytes + 1, dtype=np.uint8)
        block = np.frombuffer(raw.data, dtype=g.dtype, count=g.size, offset=1).reshape(g.shape)
        block[...] = g
        return block
    if kind == "read-only":
        block = g.copy()
        block.flags.writeable = False
        return block
    if kind == "strided":
        return np.repeat(g, 2, axis=-1)[..., ::2]
    if kind == "1-d":
        return g.reshape(-1)
    raise ValueError(f"odd_block: unknown kind {kind!r}")


def record_answers(monkeypatch, module, name: str) -> list[bool]:
    """Replace the function ``module.name`` for the test by one that records, call by call,
    whether it answered (returned something other than ``None``); the list it fills."""
    answered: list[bool] = []
    fn = getattr(module, name)

    def recorded(*args, **kwargs):
        found = fn(*args, **kwargs)
        answered.append(found is not None)
        return found

    monkeypatch.setattr(module, name, recorded)
    return answered


def random_array(shape, dtype="float64", seed=0) -> np.ndarray:
    """The same data on every rank (fixed seed)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -50), min(info.max, 50)
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def layout_pair_params(cases, second: int):
    """pytest params ``(s1, s2, arg, l1, l2)`` for binary-op cases ``(s1, s2, arg)``: every
    layout of the first operand with the first ``second`` layouts of the other."""
    for s1, s2, arg in cases:
        for l1 in layouts(s1):
            for l2 in layouts(s2)[:second]:
                name = f"{s1}.{s2}@{arg}-{layout_id(l1)}-{layout_id(l2)}"
                yield pytest.param(s1, s2, arg, l1, l2, id=name)


def assert_same_on_every_rank(*values) -> None:
    """Each value (an xdist array or a Python number) is bitwise the same on every rank: each
    rank's copy is stacked by ``from_local`` and gathered, and the rows compared."""
    for value in values:
        if isinstance(value, xdist.Array):
            rows = xdist.from_local(value.local[None]).to_numpy()
        else:
            rows = xdist.from_local(np.asarray([value], np.float64)).to_numpy()
        for r in range(1, rows.shape[0]):
            np.testing.assert_array_equal(rows[r], rows[0], err_msg=f"rank {r} differs")


def without_gathers(f, *args, **kwargs):
    """``f(*args, **kwargs)`` with every implicit gather, of any size, an error (a
    ``GatherWarning`` raised): proof that ``f`` keeps split data where it is."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        with xdist.config_context(gather_warning_elements=0):
            return f(*args, **kwargs)
