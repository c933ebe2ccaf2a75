"""xdist.io when things go wrong: temporaries removed on any error and after a killed save;
I/O errors that name the function, the path and the cause (ENOSPC, EACCES, EFBIG), raised on
every rank; CSV errors that give the line of the file whatever the rank count; NetCDF
values decoded as xarray decodes them; a CSV of 0 rows that keeps its columns."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import (
    COMM,
    DEFAULTS,
    RANK,
    SIZE,
    assert_equal,
    distribute,
    outside_mpi_job,
    own_processes,
)
from test_io import break_the_write

import xdist
import xdist.io as xio
from xdist._movement.agreement import agree_on_errors, bcast_text

h5py = pytest.importorskip("h5py")
netCDF4 = pytest.importorskip("netCDF4")
pd = pytest.importorskip("pandas")
zarr = pytest.importorskip("zarr")

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "0123456789abcdef"  # a temporary's token: 16 hex digits


def barrier() -> None:
    agree_on_errors(None, COMM)


@pytest.fixture
def folder():
    """A new directory chosen by rank 0, the same on every rank, readable by everyone."""
    made = tempfile.mkdtemp(prefix="xdist-io-errors-") if RANK == 0 else None
    path = Path(bcast_text(made, 0, COMM))
    yield path
    barrier()
    if RANK == 0:
        os.chmod(path, 0o700)
        shutil.rmtree(path, ignore_errors=True)


SAVES = {
    "npy": (".npy", lambda x, p: xio.save_npy(x, p)),
    "hdf5": (".h5", lambda x, p: xio.save_hdf5(x, p, "d")),
    "netcdf": (".nc", lambda x, p: xio.save_netcdf(x, p, "d")),
    "zarr": (".zarr", lambda x, p: xio.save_zarr(x, p, chunks=(2, 2))),
    "csv": (".csv", lambda x, p: xio.save_csv(x, p)),
}
LOADS = {
    "npy": lambda p: xio.load_npy(p),
    "hdf5": lambda p: xio.load_hdf5(p, "d"),
    "netcdf": lambda p: xio.load_netcdf(p, "d"),
    "zarr": lambda p: xio.load_zarr(p),
    "csv": lambda p: xio.load_csv(p, dtype="float64"),
}


def _data(shape=(7, 3), seed=0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _hidden(directory: Path) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.startswith("."))


# -- temporaries ----------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", list(SAVES))
def test_the_next_save_removes_the_temporaries_of_a_killed_one_and_no_others(fmt, folder):
    """Temporaries that a killed save of the path left are removed by the next save of the
    path; those of other paths, which merely start alike, are not."""
    ext, save = SAVES[fmt]
    target = folder / f"t{ext}"
    stale = [f".t{ext}.{TOKEN}.xdist-tmp", f".t{ext}.{TOKEN[::-1]}.xdist-tmp"]
    others = [
        f".t.{TOKEN}.xdist-tmp",  # a save to "t"
        f".t{ext}.bak.{TOKEN}.xdist-tmp",  # a save to "t{ext}.bak"
        f".xt{ext}.{TOKEN}.xdist-tmp",  # a save to "xt{ext}"
        f".t{ext}.{TOKEN}.xdist-tmp.mine",  # not a temporary's name
        f".t{ext}.{TOKEN[:-1]}.xdist-tmp",  # 15 digits
    ]
    if RANK == 0:
        for name in stale + others:
            if fmt == "zarr" and name in stale:
                (folder / name).mkdir()
                (folder / name / "zarr.json").write_text("{}")
            else:
                (folder / name).write_bytes(b"x" * 1000)
    barrier()
    g = _data()
    save(distribute(g, 0), target)
    assert _hidden(folder) == sorted(others)
    assert_equal(LOADS[fmt](target), g)


def test_a_zarr_store_moved_aside_is_kept_while_the_name_is_free(folder):
    """A killed replacement of a Zarr store may leave the old store only under
    ``.<name>.<token>.xdist-tmp.old``: it is kept until a save has put a store at the name."""
    g = _data()
    old = folder / f".t.zarr.{TOKEN}.xdist-tmp.old"
    if RANK == 0:
        zarr.create_array(store=str(old), data=g, chunks=(2, 2))
    barrier()
    with pytest.raises(FileNotFoundError):
        xio.save_zarr(distribute(g, 0), folder / "no-such-dir" / "t.zarr")
    xio.save_zarr(distribute(2 * g, 0), folder / "t.zarr")  # the name was free: kept till done
    assert _hidden(folder) == []
    assert_equal(xio.load_zarr(folder / "t.zarr"), 2 * g)


def test_a_stale_temporary_dataset_in_an_hdf5_file_is_removed(folder):
    """``mode="a"`` writes a temporary dataset inside the file: one that a killed save left
    is removed by the next save of that dataset, another dataset's is not."""
    path = folder / "f.h5"
    if RANK == 0:
        with h5py.File(path, "w") as f:
            f[f"g/d.{TOKEN}.xdist-tmp"] = np.zeros(3)
            f[f"g/e.{TOKEN}.xdist-tmp"] = np.zeros(3)
            f["g/keep"] = np.ones(2)
    barrier()
    g = _data()
    xio.save_hdf5(distribute(g, 1), path, "g/d", mode="a")
    with h5py.File(path, "r") as f:
        assert sorted(f["g"]) == ["d", f"e.{TOKEN}.xdist-tmp", "keep"]
    assert_equal(xio.load_hdf5(path, "g/d"), g)


def killed_save(directory: str) -> None:
    """A save at 2 ranks whose rank 1 is killed while it writes (run under mpiexec)."""
    import xdist
    from xdist.io import _hdf5

    fmt = os.path.basename(directory).split("-")[0]

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    x = xdist.asarray(_data((40, 3)), split=0)
    if xdist.default_comm().rank == 1:
        if fmt == "npy":
            os.pwrite = die
        else:
            _hdf5.write_part = die
    SAVES[fmt][1](x, os.path.join(directory, f"t{SAVES[fmt][0]}"))


@own_processes
@pytest.mark.parametrize("fmt", ["npy", "hdf5"])
def test_a_save_killed_for_real_leaves_a_temporary_the_next_save_removes(fmt, tmp_path):
    directory = tmp_path / f"{fmt}-killed"
    directory.mkdir()
    exe = shutil.which(
        "mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    )
    env = outside_mpi_job()
    env["PYTHONPATH"] = os.pathsep.join(
        p
        for p in (
            str(ROOT / "tests" / "io"),
            str(ROOT / "tests" / "support"),
            os.environ.get("PYTHONPATH"),
        )
        if p
    )
    code = f"import test_io_errors; test_io_errors.killed_save({str(directory)!r})"
    done = subprocess.run(
        [exe, "-n", "2", sys.executable, "-c", code],
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode != 0
    left = [n for n in os.listdir(directory) if n.endswith(".xdist-tmp")]
    assert len(left) == 1 and left[0].startswith(f".t{SAVES[fmt][0]}."), left
    g = _data()
    SAVES[fmt][1](distribute(g, 0), directory / f"t{SAVES[fmt][0]}")
    assert os.listdir(directory) == [f"t{SAVES[fmt][0]}"]
    assert_equal(LOADS[fmt](directory / f"t{SAVES[fmt][0]}"), g)


@pytest.mark.parametrize("fmt", ["hdf5", "zarr", "csv"])
def test_an_error_between_the_steps_removes_the_temporary(fmt, folder, monkeypatch):
    """An error raised alike on every rank after the temporary exists, outside a rank's
    part (a later check, a collective's own error), leaves nothing behind."""
    ext, save = SAVES[fmt]
    step = {
        "hdf5": "xdist.io._hdf5.my_part",
        "zarr": "xdist.io._zarr.cell_shape",
        "csv": "xdist.io._csv.exscan_host",
    }[fmt]

    def broken(*args, **kwargs):
        raise RuntimeError("refused between the steps")

    monkeypatch.setattr(step, broken)
    with pytest.raises(RuntimeError, match="refused between the steps"):
        save(distribute(_data(), 0), folder / f"t{ext}")
    monkeypatch.undo()
    barrier()
    assert os.listdir(folder) == []


# -- errors that name their cause -----------------------------------------------------------------
@pytest.mark.parametrize("fmt", list(SAVES))
def test_a_full_disk_is_named_on_every_rank(fmt, folder, monkeypatch):
    ext, save = SAVES[fmt]
    break_the_write(fmt, monkeypatch, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    path = folder / f"t{ext}"
    expected = (
        rf"save_{fmt}: cannot write '{re.escape(str(path))}': no space left on device \(ENOSPC\)$"
    )
    with pytest.raises(OSError, match=expected):
        save(distribute(_data(), 0), path)
    monkeypatch.undo()
    barrier()
    assert os.listdir(folder) == []


@pytest.mark.parametrize("fmt", list(SAVES))
def test_a_permission_error_at_the_write_is_named_on_every_rank(fmt, folder, monkeypatch):
    ext, save = SAVES[fmt]
    if fmt == "hdf5":  # HDF5's own words, through h5py: the errno is in the message
        error = OSError(
            "Unable to synchronously open file (unable to open file: name = 'x', errno = 13, "
            "error message = 'Permission denied', flags = 1, o_flags = 2)"
        )
    else:
        error = PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    break_the_write(fmt, monkeypatch, error)
    path = folder / f"t{ext}"
    with pytest.raises(
        PermissionError, match=rf"save_{fmt}: cannot write .*t\{ext}': permission denied \(EACCES\)"
    ):
        save(distribute(_data(), 0), path)
    monkeypatch.undo()
    barrier()
    assert os.listdir(folder) == []


@contextlib.contextmanager
def as_nobody():
    """Run as an unprivileged user when this process is root (for whom a directory's mode
    blocks nothing): the effective user is switched, and back."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)


@pytest.fixture
def read_only():
    """A directory nobody may write (mode 0o555), the same on every rank."""
    made = tempfile.mkdtemp(prefix="xdist-io-ro-") if RANK == 0 else None
    path = Path(bcast_text(made, 0, COMM))
    if RANK == 0:
        np.save(path / "x.npy", np.arange(6.0))
        os.chmod(path / "x.npy", 0o000)
        os.chmod(path, 0o555)
    barrier()
    yield path
    barrier()
    if RANK == 0:
        os.chmod(path, 0o700)
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("fmt", list(SAVES))
def test_a_read_only_directory_is_named_on_every_rank(fmt, read_only):
    """A real directory of mode 0o555 (as root, the test runs as another user)."""
    ext, save = SAVES[fmt]
    x = distribute(_data(), 0)
    with (
        as_nobody(),
        pytest.raises(PermissionError, match=rf"save_{fmt}: cannot write .*\(EACCES\)"),
    ):
        save(x, read_only / f"t{ext}")
    assert sorted(os.listdir(read_only)) == ["x.npy"]


def test_an_unreadable_file_is_named_on_every_rank(read_only):
    with (
        as_nobody(),
        pytest.raises(
            PermissionError, match=r"load_npy: cannot read .*x\.npy': permission denied \(EACCES\)"
        ),
    ):
        xio.load_npy(read_only / "x.npy")


def test_netcdfs_bare_hdf_error_on_a_full_disk_is_named(folder, monkeypatch):
    """netCDF says "NetCDF: HDF error" when the disk is full: the file system is asked."""
    break_the_write("netcdf", monkeypatch, RuntimeError("NetCDF: HDF error"))
    real = os.statvfs

    def full(path):
        st = real(path)
        return os.statvfs_result((*st[:3], 0, 0, *st[5:]))

    monkeypatch.setattr(os, "statvfs", full)
    with pytest.raises(
        OSError,
        match=r"save_netcdf: cannot write '.*t\.nc': no space left on device \(ENOSPC\) "
        r"\[RuntimeError: NetCDF: HDF error\]",
    ):
        xio.save_netcdf(distribute(_data(), 0), folder / "t.nc", "d")
    monkeypatch.setattr(os, "statvfs", real)
    with pytest.raises(
        RuntimeError, match=r"save_netcdf: cannot write '.*t\.nc': NetCDF: HDF error$"
    ):
        xio.save_netcdf(distribute(_data(), 0), folder / "t.nc", "d")
    monkeypatch.undo()
    barrier()
    assert os.listdir(folder) == []


@contextlib.contextmanager
def file_size_limit(limit: int, on: bool):
    """Files this process writes may not pass ``limit`` bytes (``ulimit -f``): a real
    failure of the write inside the libraries (EFBIG)."""
    import resource

    if not on:
        yield
        return
    old = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)
        signal.signal(signal.SIGXFSZ, handler)


@pytest.mark.parametrize("fmt", ["npy", "hdf5", "netcdf", "csv"])
def test_a_write_past_the_file_size_limit_is_named_for_real(fmt, folder):
    """The last rank may write files of 64 KiB only: the libraries' writes fail for real
    (HDF5 and netCDF in C), and the error says why on every rank."""
    ext, save = SAVES[fmt]
    x = distribute(_data((3000, 20)), 0)  # 480 kB
    with (
        file_size_limit(64 << 10, RANK == SIZE - 1),
        pytest.raises(
            OSError, match=rf"save_{fmt}: cannot write '.*t\{ext}': file too large \(EFBIG\)"
        ),
    ):
        save(x, folder / f"t{ext}")
    barrier()
    assert os.listdir(folder) == []


# -- CSV errors: the line of the file ------------------------------------------------------------
def _csv_file(folder: Path, lines: list[str]) -> Path:
    path = folder / "t.csv"
    if RANK == 0:
        path.write_text("".join(line + "\n" for line in lines))
    barrier()
    return path


def _rows(n: int, ncols: int = 3) -> list[str]:
    return [",".join(str(10 * i + j) for j in range(ncols)) for i in range(n)]


@pytest.mark.parametrize("split", [0, 1, None])
@pytest.mark.parametrize("chunk_bytes", [None, 64])
def test_a_missing_value_names_its_line_in_the_file(split, chunk_bytes, folder):
    lines = ["a,b,c", *_rows(120), "", *_rows(130)]
    lines[250] = "1,,3"  # line 251 of the file
    path = _csv_file(folder, lines)
    with pytest.raises(ValueError) as numpy_says:
        np.loadtxt(path, delimiter=",", skiprows=1)
    assert "could not convert string '' to float64" in str(numpy_says.value)
    expected = (
        rf"load_csv: '{re.escape(str(path))}' line 251: column 2: "
        r"could not convert string '' to float64$"
    )
    with pytest.raises(ValueError, match=expected):
        xio.load_csv(path, split, header=1, dtype="float64", chunk_bytes=chunk_bytes)


@pytest.mark.parametrize("split", [0, 1, None])
@pytest.mark.parametrize("bad", ["1,2", "1,2,3,4", "5"])
def test_a_line_with_another_number_of_fields_names_its_line(split, bad, folder):
    lines = ["a,b,c", *_rows(60)]
    lines[40] = bad  # line 41
    path = _csv_file(folder, lines)
    fields = len(bad.split(","))
    expected = rf"load_csv: '.*t\.csv' line 41: has {fields} fields, not 3 as the first data line$"
    with pytest.raises(ValueError, match=expected):
        xio.load_csv(path, split, header=1)


@pytest.mark.parametrize("split", [0, 1, None])
def test_of_two_bad_lines_the_first_is_named_at_any_rank_count(split, folder):
    """Each rank parses its own lines (split 0) or its own columns (split 1): the error
    raised is the first bad line's, as one process reading the file meets it."""
    lines = _rows(90)
    lines[20] = "200,201,x"  # line 21, the last column
    lines[70] = "y,701,702"  # line 71, the first column
    path = _csv_file(folder, lines)
    with pytest.raises(ValueError, match=r"line 21: column 3: could not convert string 'x'"):
        xio.load_csv(path, split)


# -- NetCDF: decoded as xarray decodes ------------------------------------------------------------
NETCDF_CASES = {
    "int16 packed by float32 with a fill value": (
        "i2",
        {
            "scale_factor": np.float32(0.1),
            "add_offset": np.float32(3.0),
            "_FillValue": np.int16(-99),
        },
    ),
    "int16 scaled by float64": ("i2", {"scale_factor": np.float64(0.25)}),
    "int32 packed by float32": (
        "i4",
        {"scale_factor": np.float32(0.5), "add_offset": np.float32(-1.5)},
    ),
    "int16 with an offset alone": ("i2", {"add_offset": np.float32(7.0)}),
    "uint8 with a fill value": ("u1", {"_FillValue": np.uint8(255)}),
    "int64 with a fill value": ("i8", {"_FillValue": np.int64(-1)}),
    "float32 with a missing value": ("f4", {"missing_value": np.float32(-999.0)}),
    "float64 scaled with two missing values": (
        "f8",
        {"scale_factor": 2.0, "missing_value": np.array([1.0, 3.0])},
    ),
    "int8 _Unsigned with a fill value": ("i1", {"_Unsigned": "true", "_FillValue": np.int8(-1)}),
    "float32 with a NaN fill value": ("f4", {"_FillValue": np.float32(np.nan)}),
    "int32 without attributes": ("i4", {}),
}


def _write_netcdf(path: Path, dtype: str, attrs: dict) -> None:
    rng = np.random.default_rng(1)
    g = rng.integers(-50, 100, (7, 3)).astype(dtype)
    for name in ("_FillValue", "missing_value"):
        if name in attrs and not np.isnan(np.ravel(attrs[name])[0]):
            g[1, 2] = g[5, 0] = np.ravel(attrs[name])[0]
    if dtype == "i1":
        g[3, 1] = -7  # 249 unsigned
    with netCDF4.Dataset(path, "w") as ds:
        ds.createDimension("y", 7)
        ds.createDimension("x", 3)
        v = ds.createVariable("v", dtype, ("y", "x"), fill_value=attrs.get("_FillValue"))
        v.set_auto_maskandscale(False)
        for k, value in attrs.items():
            if k != "_FillValue":
                v.setncattr(k, value)
        v[...] = g


@pytest.mark.parametrize("case", list(NETCDF_CASES))
def test_netcdf_values_are_decoded_as_xarray_decodes_them(case, folder):
    xr = pytest.importorskip("xarray")
    dtype, attrs = NETCDF_CASES[case]
    path = folder / "t.nc"
    if RANK == 0:
        _write_netcdf(path, dtype, attrs)
    barrier()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # xarray warns of two missing values
        with xr.open_dataset(path, engine="netcdf4") as ds:
            decoded = ds["v"].values
        with xr.open_dataset(path, engine="netcdf4", mask_and_scale=False) as ds:
            raw = ds["v"].values
    for split in (0, 1, None):
        got = xio.load_netcdf(path, "v", split=split).to_numpy()
        np.testing.assert_array_equal(got, decoded, strict=True)
        got = xio.load_netcdf(path, "v", split=split, mask_and_scale=False).to_numpy()
        np.testing.assert_array_equal(got, raw, strict=True)
    if attrs and case != "float32 with a NaN fill value":
        assert not np.array_equal(decoded, raw, equal_nan=True)  # the test decodes something


def test_netcdf_decoding_in_pieces_and_with_dtype(folder):
    xr = pytest.importorskip("xarray")
    path = folder / "t.nc"
    if RANK == 0:
        _write_netcdf(path, *NETCDF_CASES["int16 packed by float32 with a fill value"])
    barrier()
    with xr.open_dataset(path, engine="netcdf4") as ds:
        decoded = ds["v"].values
    got = xio.load_netcdf(path, "v", split=1, chunk_bytes=8).to_numpy()
    np.testing.assert_array_equal(got, decoded, strict=True)
    got = xio.load_netcdf(path, "v", split=0, dtype="float64").to_numpy()
    np.testing.assert_array_equal(got, decoded.astype(np.float64), strict=True)
    with pytest.raises(TypeError, match="load_netcdf: mask_and_scale must be a bool"):
        xio.load_netcdf(path, "v", mask_and_scale="yes")


# -- CSV of 0 rows ---------------------------------------------------------------------------------
@pytest.mark.parametrize("split", [0, 1, None])
@pytest.mark.parametrize("dtype", [None, "int64"])
def test_a_csv_of_0_rows_keeps_its_columns(split, dtype, folder):
    path = _csv_file(folder, ["a,b,c", ""])
    frame = pd.read_csv(path)
    y = xio.load_csv(path, split, header=1, dtype=dtype)
    assert y.shape == frame.shape == (0, 3)
    expected = DEFAULTS["real floating"] if dtype is None else np.int64
    assert_equal(y, np.empty((0, 3), expected))


@pytest.mark.parametrize("shape", [(0, 4), (0,), (5, 0)])
def test_csv_refuses_what_it_could_not_read_back(shape, folder):
    """An array of 0 columns (no message), or of 0 rows without a header (once the ranks
    agreed on the header: one allgather), would read back as (0, 0): a clear error on every
    rank, and no file."""
    x = distribute(np.empty(shape), 0)
    with xdist.count_collectives() as sent:
        with pytest.raises(ValueError, match="save_csv: an array of"):
            xio.save_csv(x, folder / "t.csv")
    assert sum(sent.values()) == (0 if len(shape) == 2 and shape[1] == 0 else 1)
    assert not (folder / "t.csv").exists()


@pytest.mark.skipif(SIZE == 1, reason="a header that differs between ranks needs two ranks")
def test_csv_header_must_be_the_same_on_every_rank(folder):
    """Every rank writes its rows after the header: one that differs on one rank (a shorter
    one would move every row) raises on every rank, and no file is made."""
    x = distribute(np.ones((6, 2)), 0)
    with pytest.raises(ValueError, match=r"save_csv: header differs between ranks \(ranks \[1\]"):
        xio.save_csv(x, folder / "t.csv", header="a,b" if RANK != 1 else "a,bb")
    assert not (folder / "t.csv").exists()


@pytest.mark.parametrize("split", [0, 1, None])
def test_a_saved_array_of_0_rows_reads_back_with_its_header(split, folder):
    xio.save_csv(distribute(np.empty((0, 4)), 0), folder / "t.csv", header="a,b,c,d")
    assert pd.read_csv(folder / "t.csv").shape == (0, 4)
    y = xio.load_csv(folder / "t.csv", split, header=1, dtype="float64")
    assert_equal(y, np.empty((0, 4)))
