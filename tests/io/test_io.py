"""xdist.io: loads and saves by slab for every format, split axis and dtype; files written at
3 ranks read back at 1 and 2 ranks and by the formats' own libraries; memory held by a load;
errors raised alike on every rank; no half-written file under the final name."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from helpers import (
    BACKEND,
    COMM,
    RANK,
    SIZE,
    assert_equal,
    distribute,
    layout_id,
    layouts,
    outside_mpi_job,
    own_processes,
    uneven_counts,
)

import xdist
import xdist.io as xio
from xdist._movement.agreement import agree_on_errors, bcast_text

# The io extra (and pandas, to read the CSV files back): without them this file is skipped.
h5py = pytest.importorskip("h5py")
netCDF4 = pytest.importorskip("netCDF4")
pd = pytest.importorskip("pandas")
zarr = pytest.importorskip("zarr")

ROOT = Path(__file__).resolve().parents[2]


# -- a directory every rank sees --------------------------------------------------------------
@pytest.fixture(scope="session")
def shared_dir():
    """A new directory chosen by rank 0 (under MPI each rank's tmp_path differs)."""
    made = tempfile.mkdtemp(prefix="xdist-io-") if RANK == 0 else None
    path = Path(bcast_text(made, 0, COMM))
    yield path
    agree_on_errors(None, COMM)  # every rank is done with it
    if RANK == 0:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def where(shared_dir, request):
    """A file name of this test in the shared directory (the same on every rank)."""
    tag = hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:12]
    return lambda ext: shared_dir / f"{tag}{ext}"


def temporaries(path: Path) -> list[str]:
    """The temporaries of saves to ``path`` left in its directory (other tests' saves may be
    under way there on other ranks)."""
    return [n for n in os.listdir(path.parent) if n.startswith(f".{path.name}.")]


# -- the formats --------------------------------------------------------------------------------
def _zarr_chunks(shape):
    return tuple(max(1, n // 3) for n in shape)  # chunks that straddle the blocks


FORMATS = {
    "npy": (".npy", lambda x, p: xio.save_npy(x, p), lambda p, s, dt: xio.load_npy(p, split=s)),
    "hdf5": (
        ".h5",
        lambda x, p: xio.save_hdf5(x, p, "group/data"),
        lambda p, s, dt: xio.load_hdf5(p, "group/data", split=s),
    ),
    "netcdf": (
        ".nc",
        lambda x, p: xio.save_netcdf(x, p, "v"),
        lambda p, s, dt: xio.load_netcdf(p, "v", split=s),
    ),
    "zarr": (
        ".zarr",
        lambda x, p: xio.save_zarr(x, p, chunks=_zarr_chunks(x.shape)),
        lambda p, s, dt: xio.load_zarr(p, split=s),
    ),
    "csv": (
        ".csv",
        lambda x, p: xio.save_csv(x, p),
        lambda p, s, dt: xio.load_csv(p, split=s, dtype=dt),
    ),
}
SHAPES = [(7, 5), (2, 3), (4, 3, 5), (6,), (0, 4), ()]


def _fits(fmt: str, shape) -> bool:
    """CSV holds 1-D and 2-D arrays (and no columns without rows)."""
    return fmt != "csv" or (len(shape) in (1, 2) and 0 not in shape)


def _expected(fmt: str, g: np.ndarray) -> np.ndarray:
    """What loading gives: CSV files are 2-D (a 1-D array is one column)."""
    return g.reshape(-1, 1) if fmt == "csv" and g.ndim == 1 else g


def _data(shape, dtype="float64", seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    g = rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 5, size=shape)
    if dtype.kind == "c":
        g = g + 1j * rng.standard_normal(shape)
    return np.asarray(g).astype(dtype)


def _check_load(fmt, path, g, splits=None):
    expected = _expected(fmt, g)
    for split in [None, *range(expected.ndim)] if splits is None else splits:
        y = FORMATS[fmt][2](path, split, g.dtype)
        assert_equal(y, expected, rtol=0, atol=0)
        if split is not None and expected.ndim and not (fmt == "csv" and split == 0):
            assert y.layout.is_balanced and y.split == split


ROUND_TRIPS = [
    pytest.param(fmt, shape, case, id=f"{fmt}-{shape}-{layout_id(case)}")
    for fmt in FORMATS
    for shape in SHAPES
    if _fits(fmt, shape)
    for case in layouts(shape)
]


@pytest.mark.parametrize("fmt, shape, case", ROUND_TRIPS)
def test_round_trip_every_split(fmt, shape, case, where):
    """Saved from every layout (uneven and empty blocks too), loaded at every split."""
    g = _data(shape)
    ext, save, _ = FORMATS[fmt]
    path = where(ext)
    save(distribute(g, *case), path)
    _check_load(fmt, path, g)
    assert not temporaries(path)


DTYPES = [
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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_round_trip_every_dtype(fmt, dtype, where):
    if fmt == "netcdf" and dtype == "bool":
        pytest.skip("NetCDF has no bool type (test_netcdf_refuses_bool)")
    g = _data((7, 3), dtype, seed=1)
    ext, save, _ = FORMATS[fmt]
    path = where(ext)
    save(distribute(g, 1), path)
    _check_load(fmt, path, g, splits=[0, 1])


@pytest.mark.parametrize("fmt", ["npy", "hdf5", "zarr", "csv"])
def test_special_values_round_trip(fmt, where):
    g = np.array([[np.nan, np.inf, -np.inf], [-0.0, 5e-324, 1.7976931348623157e308]])
    ext, save, _ = FORMATS[fmt]
    save(distribute(g, 0), where(ext))
    got = FORMATS[fmt][2](where(ext), 0, g.dtype).to_numpy()
    np.testing.assert_array_equal(got, g)
    assert np.signbit(got[1, 0])


@pytest.mark.parametrize("run_bytes", [0, 1 << 62], ids=["runs", "to-split-0"])
@pytest.mark.parametrize("shape, split", [((3, 10), 1), ((2, 5, 3), 1), ((2, 3, 7), 2)], ids=str)
def test_npy_split_along_a_later_axis_both_schemes(shape, split, run_bytes, where, monkeypatch):
    """A block of a split along axis k > 0 is written as its runs or after a move to split 0
    (the choice depends on the runs' length: both are forced here)."""
    from xdist.io import _npy

    monkeypatch.setattr(_npy, "RUN_BYTES", run_bytes)
    g = _data(shape)
    for case in [(split, None), (split, uneven_counts(shape[split], SIZE))]:
        xio.save_npy(distribute(g, *case), where(".npy"), chunk_bytes=16)
        np.testing.assert_array_equal(np.load(where(".npy")), g)


# -- files of 3 ranks, read at 1 and 2 ranks and by the libraries themselves ------------------
WRITTEN = [("npy", (9, 4), 0), ("npy", (5, 6, 2), 1), ("hdf5", (9, 4), 1), ("netcdf", (9, 4), 0)]
WRITTEN += [("zarr", (10, 7), 0), ("zarr", (4, 9), 1), ("csv", (8, 3), 0), ("csv", (5, 7), 1)]
WRITTEN += [("npy", (6, 2), None), ("zarr", (6, 2), None), ("hdf5", (3,), None)]


def write_files(directory: str) -> None:
    """Every case of WRITTEN saved in ``directory`` (run under mpiexec -n 3)."""
    for i, (fmt, shape, split) in enumerate(WRITTEN):
        g = _data(shape, "float64", seed=i)
        ext, save, _ = FORMATS[fmt]
        save(xdist.asarray(g, split=split), os.path.join(directory, f"case{i}{ext}"))


def check_files(directory: str) -> None:
    """Every case of WRITTEN loads back at every split (at any rank count)."""
    for i, (fmt, shape, _) in enumerate(WRITTEN):
        _check_load(fmt, os.path.join(directory, f"case{i}{FORMATS[fmt][0]}"), _data(shape, seed=i))


def _direct(fmt: str, path: str) -> np.ndarray:
    """The file read by its own library (or pandas for CSV)."""
    if fmt == "npy":
        return np.load(path)
    if fmt == "hdf5":
        with h5py.File(path, "r") as f:
            return f["group/data"][...]
    if fmt == "netcdf":
        with netCDF4.Dataset(path) as ds:
            return np.asarray(ds["v"][...])
    if fmt == "zarr":
        return zarr.open_array(path, mode="r")[...]
    return pd.read_csv(path, header=None).to_numpy()


def _mpiexec(n: int, code: str, directory: str) -> None:
    """Run ``code`` (Python) under ``mpiexec -n n``, with this file's module importable."""
    exe = shutil.which(
        "mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    )
    env = outside_mpi_job()
    env.update(
        # the I/O tests' folder and the helpers first, the caller's path kept (packages
        # installed with --target)
        PYTHONPATH=os.pathsep.join(
            p
            for p in (
                str(ROOT / "tests" / "io"),
                str(ROOT / "tests" / "support"),
                os.environ.get("PYTHONPATH"),
            )
            if p
        ),
        MPIR_CVAR_CH4_PROGRESS_THROTTLE="1",
        MPIR_CVAR_POLLS_BEFORE_YIELD="100",
        MPIR_CVAR_ENABLE_HEAVY_YIELD="1",
    )
    cmd = [
        exe,
        "-n",
        str(n),
        sys.executable,
        "-c",
        f"import test_io; test_io.{code}({directory!r})",
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{cmd}:\n{done.stdout}\n{done.stderr}"


@own_processes
def test_files_written_at_3_ranks_read_back_at_1_and_2_ranks_and_directly(tmp_path):
    _mpiexec(3, "write_files", str(tmp_path))
    assert not [n for n in os.listdir(tmp_path) if "xdist-tmp" in n]
    check_files(str(tmp_path))  # here, at 1 rank
    _mpiexec(2, "check_files", str(tmp_path))
    for i, (fmt, shape, _) in enumerate(WRITTEN):
        direct = _direct(fmt, str(tmp_path / f"case{i}{FORMATS[fmt][0]}"))
        np.testing.assert_array_equal(direct, _expected(fmt, _data(shape, seed=i)), strict=True)


# -- memory: the block plus one piece -----------------------------------------------------------
MEMORY = {
    "npy": (".npy", lambda x, p: xio.save_npy(x, p), lambda p, **k: xio.load_npy(p, **k)),
    "hdf5": (
        ".h5",
        lambda x, p: xio.save_hdf5(x, p, "d", chunks=(100, 100)),
        lambda p, **k: xio.load_hdf5(p, "d", **k),
    ),
    "netcdf": (
        ".nc",
        lambda x, p: xio.save_netcdf(x, p, "d"),
        lambda p, **k: xio.load_netcdf(p, "d", **k),
    ),
    "zarr": (
        ".zarr",
        lambda x, p: xio.save_zarr(x, p, chunks=(100, 100)),
        lambda p, **k: xio.load_zarr(p, **k),
    ),
}
PIECE = 256 << 10
OVERHEAD = 256 << 10  # the libraries' own objects (zarr's asyncio tasks, MPI's buffers)


def _peak(load) -> tuple[int, int]:
    """The peak of traced allocations during ``load()``, and the block's bytes."""
    load()  # imports and caches first
    tracemalloc.start()
    try:
        x = load()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, x.local.nbytes


@pytest.mark.skipif(BACKEND.name != "numpy", reason="tracemalloc sees NumPy's allocations")
@pytest.mark.parametrize("split", [0, 1])
@pytest.mark.parametrize("fmt", list(MEMORY))
def test_a_load_holds_its_block_plus_one_piece(fmt, split, where):
    """A 9.6 MB file (3 blocks at 3 ranks) loads with at most block + piece + overhead."""
    g = _data((3000, 400))
    ext, save, load = MEMORY[fmt]
    save(distribute(g, 0), where(ext))
    peak, block = _peak(lambda: load(where(ext), split=split, chunk_bytes=PIECE))
    assert peak < block + PIECE + OVERHEAD, (peak, block)
    if SIZE == 3:
        assert block < g.nbytes / 2.9


@pytest.mark.skipif(BACKEND.name != "numpy", reason="tracemalloc sees NumPy's allocations")
@pytest.mark.parametrize("split", [0, 1])
def test_a_csv_load_holds_its_block_plus_a_few_pieces(split, where):
    g = _data((2000, 30))
    xio.save_csv(distribute(g, 0), where(".csv"))
    piece = 32 << 10
    peak, block = _peak(lambda: xio.load_csv(where(".csv"), split=split, chunk_bytes=piece))
    assert peak < block + 6 * piece + (64 << 10), (peak, block)


# -- replicated arrays are written once ---------------------------------------------------------
def _total(n: int) -> int:
    return int(agree_on_errors(None, COMM, [n])[:, 0].sum())


@pytest.mark.parametrize("fmt", ["npy", "csv"])
def test_a_replicated_array_is_written_once(fmt, where, monkeypatch):
    g = _data((10, 4))
    written = []
    pwrite = os.pwrite

    def counting(fd, data, offset):
        n = pwrite(fd, data, offset)
        written.append(n)
        return n

    monkeypatch.setattr(os, "pwrite", counting)
    ext, save, _ = FORMATS[fmt]
    save(distribute(g, None), where(ext))
    monkeypatch.undo()
    data = g.nbytes if fmt == "npy" else os.path.getsize(where(ext))  # .npy: not its header
    assert _total(sum(written)) == data
    _check_load(fmt, where(ext), g, splits=[0])


@pytest.mark.parametrize("fmt", ["hdf5", "netcdf"])
def test_a_replicated_array_is_written_by_rank_0_alone(fmt, where, monkeypatch):
    import xdist._ops.slabs as slabs

    calls = []

    def counting(*args):
        calls.append(1)
        return slabs.write_part(*args)

    monkeypatch.setattr(f"xdist.io._{fmt}.write_part", counting)
    g = _data((5, 3))
    ext, save, _ = FORMATS[fmt]
    save(distribute(g, None), where(ext))
    assert len(calls) == (RANK == 0)
    assert _total(len(calls)) == 1
    _check_load(fmt, where(ext), g, splits=[None])


# -- options of the formats ---------------------------------------------------------------------
def test_load_and_save_pick_the_format_by_extension(where):
    g = _data((6, 4))
    x = distribute(g, 0)
    xio.save(x, where(".npy"))
    xio.save(x, where(".h5"), "d")
    xio.save(x, where(".nc"), "d")
    xio.save(x, where(".zarr"))
    xio.save(x, where(".csv"))
    xio.save(x, where(".tsv"))
    assert "\t" in where(".tsv").read_text()
    for ext, args in [(".npy", ()), (".h5", ("d",)), (".nc", ("d",)), (".zarr", ())]:
        assert_equal(xio.load(where(ext), *args, split=1), g)
    for ext in (".csv", ".tsv"):
        assert_equal(xio.load(where(ext), split=1, dtype="float64"), g)
    with pytest.raises(ValueError, match=r"load: cannot tell the format of .*\.dat'"):
        xio.load(where(".dat"))


def test_csv_header_delimiter_and_pandas(where):
    g = _data((9, 3))
    xio.save_csv(distribute(g, 1), where(".csv"), delimiter=";", header="a;b;c")
    # pandas' default float parser is not exact on every install (it read some values
    # ulps off on a GPU machine's pandas): the file's exactness is read by its round-trip one
    frame = pd.read_csv(where(".csv"), sep=";", float_precision="round_trip")
    assert list(frame.columns) == ["a", "b", "c"]
    np.testing.assert_array_equal(frame.to_numpy(), g)
    for split in (0, 1, None):
        y = xio.load_csv(where(".csv"), split, ";", header=1, dtype="float64")
        assert_equal(y, g)


def test_csv_skips_blank_lines_and_reads_lines_without_a_final_newline(where):
    if RANK == 0:
        where(".csv").write_text("x,y\n1,2\n\n  \n3,4\r\n5,6\n\n7,8")
    agree_on_errors(None, COMM)
    expected = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int64)
    for split in (0, 1, None):
        assert_equal(xio.load_csv(where(".csv"), split, header=1, dtype="int64"), expected)
    for piece in (1, 3, 5):  # lines longer than a piece
        got = xio.load_csv(where(".csv"), 0, header=1, dtype="int64", chunk_bytes=piece)
        assert_equal(got, expected)


def test_hdf5_mode_a_adds_and_replaces_datasets(where):
    a, b = _data((5, 2)), _data((3, 4), "int32")
    xio.save_hdf5(distribute(a, 0), where(".h5"), "a", mode="a")  # creates the file
    xio.save_hdf5(distribute(b, 1), where(".h5"), "b", mode="a")
    xio.save_hdf5(distribute(a[:2], 0), where(".h5"), "a", mode="a")
    assert_equal(xio.load_hdf5(where(".h5"), "a"), a[:2])
    assert_equal(xio.load_hdf5(where(".h5"), "b"), b)
    with h5py.File(where(".h5"), "r") as f:
        assert sorted(f) == ["a", "b"]


def test_hdf5_options_reach_h5py(where):
    g = _data((40, 6))
    xio.save_hdf5(distribute(g, 0), where(".h5"), "d", chunks=(8, 6), compression="gzip")
    with h5py.File(where(".h5"), "r") as f:
        assert f["d"].chunks == (8, 6) and f["d"].compression == "gzip"
    assert_equal(xio.load_hdf5(where(".h5"), "d", split=1, chunk_bytes=100), g)


def test_zarr_is_format_3_and_replaces_a_store(where):
    xio.save_zarr(distribute(_data((4, 4)), 0), where(".zarr"))
    g = _data((30, 5), "int16")
    xio.save_zarr(distribute(g, 0), where(".zarr"), chunks=(4, 5), shards=(8, 5))
    z = zarr.open_array(where(".zarr"), mode="r")
    assert z.metadata.zarr_format == 3 and z.chunks == (4, 5) and z.shards == (8, 5)
    assert_equal(xio.load_zarr(where(".zarr"), split=0), g)


def test_netcdf_dimension_names(where):
    g = _data((4, 3))
    xio.save_netcdf(distribute(g, 0), where(".nc"), "t", dimensions=("time", "x"))
    with netCDF4.Dataset(where(".nc")) as ds:
        assert ds["t"].dimensions == ("time", "x")


def test_load_converts_to_dtype(where):
    g = _data((5, 3))
    xio.save_npy(distribute(g, 0), where(".npy"))
    assert_equal(xio.load_npy(where(".npy"), dtype="float32"), g.astype(np.float32))
    if RANK == 0:
        np.save(where(".npy"), g.astype(">f8"))  # big-endian data
    agree_on_errors(None, COMM)
    assert_equal(xio.load_npy(where(".npy"), split=1), g)


def test_progress_bar(where, capsys):
    g = _data((50, 3))
    xio.save_npy(distribute(g, 0), where(".npy"), progress=True)
    assert_equal(xio.load_npy(where(".npy"), progress=True), g)


def test_collectives_of_a_load_and_a_save(where):
    x = distribute(_data((6, 5)), 0)
    with xdist.count_collectives() as saving:
        xio.save_npy(x, where(".npy"))
    with xdist.count_collectives() as loading:
        xio.load_npy(where(".npy"), split=1)
    assert dict(saving) == {"bcast": 4, "allgather": 1}
    assert dict(loading) == {"bcast": 2, "allgather": 1}


# -- objects sliceable like arrays (asarray of an h5py dataset reads only the slab) -------------
def test_from_sliceable(where):
    g = _data((11, 4))
    if RANK == 0:
        with h5py.File(where(".h5"), "w") as f:
            f["d"] = g
        zarr.create_array(store=str(where(".zarr")), data=g, chunks=(3, 2))
        np.save(where(".npy"), g)
    agree_on_errors(None, COMM)
    with h5py.File(where(".h5"), "r") as f:
        assert xio.is_lazy_array(f["d"])
        for split in (0, 1, None):
            assert_equal(xio.from_sliceable(f["d"], split), g)
        assert_equal(xio.from_sliceable(f["d"], 1, dtype="float32"), g.astype(np.float32))
    z = zarr.open_array(where(".zarr"), mode="r")
    assert xio.is_lazy_array(z)
    assert_equal(xio.from_sliceable(z, 1, chunk_bytes=16), g)
    m = np.load(where(".npy"), mmap_mode="r")
    assert not xio.is_lazy_array(m)
    assert_equal(xio.from_sliceable(m, 0), g)


@pytest.mark.skipif(BACKEND.name != "numpy", reason="tracemalloc sees NumPy's allocations")
@pytest.mark.parametrize("split", [0, 1])
def test_asarray_of_a_file_array_reads_only_the_slab(split, where):
    g = _data((3000, 400))
    if RANK == 0:
        with h5py.File(where(".h5"), "w") as f:
            f["d"] = g
    agree_on_errors(None, COMM)
    with h5py.File(where(".h5"), "r") as f:
        assert_equal(xdist.asarray(f["d"], split=split), g)
        peak, block = _peak(lambda: xdist.asarray(f["d"], split=split))
        with pytest.raises(ValueError, match="copy=False"):
            xdist.asarray(f["d"], copy=False)
    assert peak < block + (64 << 20) + OVERHEAD, (peak, block)  # the default piece: 64 MiB
    assert peak < g.nbytes or SIZE == 1  # never the whole file


# -- errors: the same on every rank, before anything is written ---------------------------------
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_missing_file_raises_on_every_rank(fmt, where):
    path = where(FORMATS[fmt][0])
    with pytest.raises(FileNotFoundError, match=f"load_{fmt}: no .*{path.name}"):
        FORMATS[fmt][2](path, 0, np.float64)


def test_a_missing_dataset_or_variable_raises_on_every_rank(where):
    x = distribute(_data((3, 2)), 0)
    xio.save_hdf5(x, where(".h5"), "present")
    xio.save_netcdf(x, where(".nc"), "present")
    with pytest.raises(KeyError, match="load_hdf5: 'absent' .* is not there; its datasets"):
        xio.load_hdf5(where(".h5"), "absent")
    with pytest.raises(KeyError, match="load_netcdf: no variable 'absent'.*present"):
        xio.load_netcdf(where(".nc"), "absent")
    with pytest.raises(ValueError, match="load_zarr: .* is not a Zarr array"):
        xio.load_zarr(where(".h5"))


def test_a_dtype_outside_the_standard_raises_on_every_rank(where):
    if RANK == 0:
        np.save(where(".npy"), np.zeros(3, np.float16))
        with h5py.File(where(".h5"), "w") as f:
            f["s"] = np.array([b"ab", b"cd"])
    agree_on_errors(None, COMM)
    with pytest.raises(TypeError, match="load_npy: .* holds float16, not a dtype of the"):
        xio.load_npy(where(".npy"))
    assert_equal(xio.load_npy(where(".npy"), dtype="float32"), np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="load_hdf5: the dataset 's' holds"):
        xio.load_hdf5(where(".h5"), "s")


def test_bad_arguments(where):
    x = distribute(_data((3, 2, 2)), 0)
    with pytest.raises(TypeError, match="save_netcdf: NetCDF has no bool type"):
        xio.save_netcdf(distribute(np.ones(3, bool), 0), where(".nc"), "v")
    with pytest.raises(ValueError, match="save_csv: CSV holds 1-D and 2-D arrays, got 3"):
        xio.save_csv(x, where(".csv"))
    with pytest.raises(TypeError, match="save_npy: x must be an xdist array"):
        xio.save_npy(np.ones(3), where(".npy"))
    with pytest.raises(ValueError, match="save_netcdf: dimensions must be 3 distinct"):
        xio.save_netcdf(x, where(".nc"), "v", dimensions=("a", "a", "b"))
    xio.save_npy(x, where(".npy"))
    with pytest.raises(IndexError, match="load_npy: split 3 is out of bounds"):
        xio.load_npy(where(".npy"), split=3)
    with pytest.raises(ValueError, match="load_npy: chunk_bytes must be a positive int"):
        xio.load_npy(where(".npy"), chunk_bytes=0)
    assert not where(".nc").exists() and not where(".csv").exists()


def test_a_path_that_cannot_be_written_raises_on_every_rank(where, shared_dir):
    x = distribute(_data((4, 2)), 0)
    missing = shared_dir / "no-such-dir" / "x.npy"
    for fmt, (ext, save, _) in FORMATS.items():
        with pytest.raises(FileNotFoundError, match=f"save_{fmt}: the directory .* does not"):
            save(x, missing.with_suffix(ext))
    if RANK == 0:
        where(".zarr").mkdir()
        (where(".zarr") / "precious.txt").write_text("keep")
    agree_on_errors(None, COMM)
    with pytest.raises(FileExistsError, match="save_zarr: .* exists and is not a Zarr store"):
        xio.save_zarr(x, where(".zarr"))
    assert (where(".zarr") / "precious.txt").exists()
    with pytest.raises(IsADirectoryError, match="save_npy: .* is a directory"):
        xio.save_npy(x, where(".zarr"))


def test_a_ragged_csv_raises_on_every_rank(where):
    if RANK == 0:
        where(".csv").write_text("1,2\n3,4\n" * 20 + "5\n" + "6,7\n" * 20)
    agree_on_errors(None, COMM)
    for split in (0, None):
        with pytest.raises(ValueError):
            xio.load_csv(where(".csv"), split)


def break_the_write(fmt: str, monkeypatch, error: BaseException) -> None:
    """The library's write of the last rank raises ``error``."""
    if RANK != SIZE - 1:
        return

    def broken(*args, **kwargs):
        raise error

    if fmt in ("npy", "csv"):
        monkeypatch.setattr(os, "pwrite", broken)
    elif fmt == "zarr":
        monkeypatch.setattr(zarr.Array, "__setitem__", broken)
    else:
        monkeypatch.setattr(f"xdist.io._{fmt}.write_part", broken)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_save_failing_on_the_last_rank_leaves_the_old_file(fmt, where, monkeypatch):
    """The last rank's write fails: every rank raises its error, the file under the final
    name is the one there before, and no temporary is left."""
    ext, save, load = FORMATS[fmt]
    old = _data((6, 2), seed=3)
    save(distribute(old, 0), where(ext))
    break_the_write(fmt, monkeypatch, OSError(28, "No space left on device"))
    with pytest.raises(OSError, match=rf"save_{fmt}: cannot write .*: no space left on device"):
        save(distribute(_data((6, 2), seed=4), 0), where(ext))
    monkeypatch.undo()
    assert not temporaries(where(ext))
    _check_load(fmt, where(ext), old, splits=[0])


def test_a_missing_library_names_the_extra(where, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(ImportError, match=r"load_hdf5 needs h5py.*xdist-array\[io\]"):
        xio.load_hdf5(where(".h5"), "d")
    monkeypatch.setitem(sys.modules, "netCDF4", None)
    monkeypatch.setitem(sys.modules, "h5netcdf", None)
    monkeypatch.setitem(sys.modules, "h5netcdf.legacyapi", None)
    with pytest.raises(ImportError, match=r"save_netcdf needs netCDF4 .*xdist-array\[io\]"):
        xio.save_netcdf(distribute(np.ones(3), 0), where(".nc"), "v")


def test_netcdf_through_h5netcdf(where, monkeypatch):
    pytest.importorskip("h5netcdf")
    monkeypatch.setitem(sys.modules, "netCDF4", None)
    g = _data((5, 3))
    xio.save_netcdf(distribute(g, 1), where(".nc"), "v")
    assert_equal(xio.load_netcdf(where(".nc"), "v", split=0), g)
    monkeypatch.undo()
    with netCDF4.Dataset(where(".nc")) as ds:
        np.testing.assert_array_equal(ds["v"][...], g)
