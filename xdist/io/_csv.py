"""CSV files (text, one row a line): parallel reads by byte ranges, parallel writes at byte
offsets.

Loads: rank 0 skips the ``header`` lines and counts the columns of the first data line. With
``split=0`` the rest of the file is cut into p equal byte ranges and each rank parses the
lines that start in its range (a line belongs to the rank where its first byte lies); the rows
per rank follow the text, and one allgather of the counts gives the exact layout. With
``split=1`` every rank reads all lines and parses only its columns (the text is read p times,
but no rank holds more than its block); ``split=None``: every rank parses the whole file.
Each pass goes in pieces of ``chunk_bytes``: a first pass counts the lines, the block is
allocated, a second pass parses into it. Blank lines are skipped; there are no comment lines.
A line that cannot be parsed is named by its number in the file, and the ranks agree on the
first such line (``_bad_line``, ``_agree_on_the_first_line``), so the error is the same at
any rank count. A file of 0 rows keeps the columns of its last header line.

Saves: a split along the columns first moves to a split of the rows (one all-to-all). Each
rank formats its rows as text, the ranks' text lengths give each rank's byte offset (one
exscan), and every rank writes its text at its offset at once. Numbers are written so that
they read back exactly: integers as integers, bools as 0/1, float64 and complex as Python's
shortest repr, float32 with 9 significant digits.
"""

from __future__ import annotations

import io
import os
import re
import warnings
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import _array
from .._dtypes import as_dtype
from .._layout import Layout
from .._movement.agreement import agree_on_errors, from_root
from .._movement.collectives import differing_ranks, exscan_host
from .._movement.redistribute import redistribute_block
from .._ops.slabs import check_budget, my_part
from .._placement import Placement, resolve_split
from .._validation import check_array
from ._files import AtomicSave, Progress, described, reading, write_at

__all__ = ["load_csv", "save_csv"]

# Blank lines (nothing but spaces): the first line, one between two newlines, the last line.
# Three searches with a literal start, which the regular-expression engine finds by a fast
# scan; one pattern with alternatives is tried at every byte instead, far more slowly.
_BLANK_FIRST = re.compile(rb"[ \t\r]*(?:\n|\Z)")
_BLANK_INSIDE = re.compile(rb"\n[ \t\r]*\n")
_BLANK_LAST = re.compile(rb"\n[ \t\r]+\Z")


def _fields(line: bytes, delimiter: str | None, encoding: str) -> int:
    text = line.decode(encoding).rstrip("\r\n")
    return len(text.split(delimiter) if delimiter is not None else text.split())


def _inspect(path: str, header: int, delimiter: str | None, encoding: str, func: str) -> dict:
    """The file's size, where its data starts (after ``header`` lines) and its number of
    columns: the fields of the first non-blank data line, or without one those of the last
    non-blank header line (the column names of a table of 0 rows), else 0. Rank 0."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{func}: no file {path!r}")
    with reading(func, path), open(path, "rb") as f:
        names = 0
        for _ in range(header):
            line = f.readline()
            if line.strip():
                names = _fields(line, delimiter, encoding)
        start, ncols = f.tell(), names
        for line in f:
            if line.strip():
                ncols = _fields(line, delimiter, encoding)
                break
    return {"size": os.path.getsize(path), "start": start, "ncols": ncols}


def _line_start(f: Any, pos: int, start: int, size: int) -> int:
    """The first line start at or after byte ``pos`` (lines begin at ``start`` and after
    each newline)."""
    if pos <= start or pos >= size:
        return min(max(pos, start), size)
    f.seek(pos - 1)
    at = pos - 1
    while True:
        buf = f.read(1 << 16)
        if not buf:
            return size
        i = buf.find(b"\n")
        if i >= 0:
            return at + i + 1
        at += len(buf)


def _line_chunks(f: Any, begin: int, end: int, budget: int) -> Iterator[bytes]:
    """The bytes ``begin:end`` (whole lines) in pieces of about ``budget`` bytes, each cut
    after a newline."""
    f.seek(begin)
    left, carry = end - begin, b""
    while left > 0 or carry:
        buf = f.read(min(budget, left)) if left > 0 else b""
        left = left - len(buf) if buf else 0  # a file shorter than it was: its end
        data = carry + buf
        cut = data.rfind(b"\n") + 1 if left > 0 else len(data)
        if cut == 0:  # a line longer than the budget: read on
            carry = data
            continue
        carry = data[cut:]
        yield data[:cut]


def _data_lines(chunk: bytes) -> bytes:
    """``chunk`` (whole lines) without its blank lines (none, or only spaces): what is
    counted and what is parsed are the same lines."""
    if not (_BLANK_FIRST.match(chunk) or _BLANK_INSIDE.search(chunk) or _BLANK_LAST.search(chunk)):
        return chunk
    return b"".join(line + b"\n" for line in chunk.split(b"\n") if line.strip())


def _count(chunk: bytes) -> int:
    """The lines of ``chunk`` (whole lines, no blank ones)."""
    return chunk.count(b"\n") + (bool(chunk) and not chunk.endswith(b"\n"))


def _byte_range(meta: dict, split: int | None, rank: int, size: int) -> tuple[int, int]:
    """The byte range whose lines this rank reads: its share of the data when the rows are
    split, else all of it."""
    start, total = meta["start"], meta["size"]
    if split != 0:
        return start, total
    length = total - start
    return start + length * rank // size, start + length * (rank + 1) // size


def load_csv(
    path,
    split=0,
    delimiter=",",
    header=0,
    dtype=None,
    *,
    encoding="utf-8",
    device=None,
    comm=None,
    chunk_bytes=None,
    progress=False,
) -> _array.Array:
    """Load a CSV file as a 2-D array (rows x columns), each rank parsing only its part.

    Parameters
    ----------
    split : 0, 1 or None
        0: each rank parses the lines of its byte range of the file (the row counts follow
        the text, so they may differ by a few rows); 1: each rank reads every line and
        parses only its columns (balanced); None: every rank parses the whole file.
    delimiter : str or None
        The field separator (``None``: any whitespace).
    header : int
        The number of lines at the top to skip (column names, notes).
    dtype : dtype, optional
        The array's dtype (default: the backend's default real floating dtype).
    encoding, device, comm, chunk_bytes, progress
        As for ``load_npy``; a rank holds its block plus a few pieces of text.

    A file without data lines has 0 rows and as many columns as its last header line has
    fields. A line that cannot be parsed raises ValueError on every rank, naming the path,
    the line's number in the file (from 1) and what is wrong, the same at any rank count.

    Communication: rank 0 reads the header (two broadcasts); one allgather of the ranks'
    row counts, which also agrees that every rank could read; one allgather agreeing that
    every rank could parse (on failure: one allgather and two broadcasts more, for the
    first bad line's error).
    """
    func = "load_csv"
    where = Placement(comm, device, func)
    comm, backend = where.comm, where.backend
    budget = check_budget(chunk_bytes, func)
    if isinstance(header, bool) or not isinstance(header, int) or header < 0:
        raise ValueError(f"{func}: header must be an int >= 0 (lines to skip), got {header!r}")
    if delimiter is not None and (not isinstance(delimiter, str) or not delimiter):
        raise TypeError(f"{func}: delimiter must be a non-empty str or None, got {delimiter!r}")
    axis = resolve_split(split, 2, func)
    dt = backend.default_dtypes()["real floating"] if dtype is None else as_dtype(dtype, func)
    if dt not in backend.supported_dtypes():
        raise TypeError(f"{func}: the {backend.name} backend has no {dt}; pass dtype=")
    path = os.fspath(path)
    meta = from_root(lambda: _inspect(path, header, delimiter, encoding, func), comm)
    lines, n, error = (0, 0), 0, None
    try:
        with open(path, "rb") as f:
            lo, hi = _byte_range(meta, axis, comm.rank, comm.size)
            lines = tuple(_line_start(f, at, meta["start"], meta["size"]) for at in (lo, hi))
            n = sum(_count(_data_lines(c)) for c in _line_chunks(f, *lines, budget))
    except Exception as exc:
        error = exc
    if error is not None:
        error = described(error, func, path, "read")
    counts = tuple(agree_on_errors(error, comm, [n])[:, 0].tolist())
    shape = (sum(counts) if axis == 0 else n, meta["ncols"])
    if axis == 0:
        layout = Layout(shape, 0, counts)
    else:
        layout = Layout.balanced(shape, axis, comm.size)
    cols = layout.local_range(comm.rank) if axis == 1 else (0, meta["ncols"])
    text = (path, delimiter, encoding, budget, meta["ncols"])
    host, error, line = None, None, 0
    with Progress(progress, comm, lines[1] - lines[0] if comm.rank == 0 else 0, func) as bar:
        try:
            host = _parse(text, lines, n, cols, dt, bar)
        except _LineError as exc:
            error, line = ValueError(str(exc)), exc.line
        except Exception as exc:
            error = described(exc, func, path, "read")
            if error is exc and isinstance(exc, ValueError) and not str(exc).startswith(func):
                error = ValueError(f"{func}: {path!r}: {exc}")  # a UnicodeDecodeError, ...
    _agree_on_the_first_line(error, line, comm)
    return where.array(backend.from_host(host, where.device), layout)


def _agree_on_the_first_line(error: BaseException | None, line: int, comm: Any) -> None:
    """Raise on every rank the error of the failing rank whose bad line comes first in the
    file (a rank parses its own lines or its own columns, so the first rank that failed
    need not hold the first bad line; a 1-rank load stops at that line). Errors without a
    line (``line`` 0) come after those with one, then in rank order. One allgather; on
    failure one allgather and two broadcasts more."""
    table = agree_on_errors(None, comm, [error is not None, line])
    failed = [r for r in range(comm.size) if table[r, 0]]
    if not failed:
        return
    first = min(failed, key=lambda r: (table[r, 1] <= 0, table[r, 1], r))
    agree_on_errors(error if comm.rank == first else None, comm)


class _LineError(ValueError):
    """A line of the file that cannot be parsed: ``line`` is its number in the file (from 1,
    header and blank lines counted)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _parse(text: tuple, lines: tuple[int, int], n: int, cols: tuple[int, int], dtype, bar):
    """Columns ``cols`` of the ``n`` lines in bytes ``lines`` of the file, parsed into a host
    array (``text``: the file's path, delimiter, encoding, piece size and column count)."""
    path, delimiter, encoding, budget, ncols = text
    # All columns: loadtxt checks that every line has as many (usecols would not).
    usecols = None if cols == (0, ncols) else range(*cols)
    out = np.empty((n, cols[1] - cols[0]), dtype)
    if out.size == 0:
        return out
    row = 0
    # With usecols loadtxt does not check that every line has ncols fields: the delimiters
    # of a piece are counted instead (one search of the bytes).
    sep = None if usecols is None or delimiter is None else delimiter.encode(encoding)
    with open(path, "rb") as f:
        at = lines[0]
        for chunk in _line_chunks(f, *lines, budget):
            data = _data_lines(chunk)
            if not data:
                at += len(chunk)
                continue
            try:
                values = _loadtxt(data, dtype, delimiter, encoding, usecols)
                if sep is not None and data.count(sep) != _count(data) * (ncols - 1):
                    raise ValueError("ragged")
                if values.size and values.shape[1] != out.shape[1]:
                    raise ValueError("ragged")
            except ValueError as exc:
                raise _bad_line(text, at, chunk, exc, dtype, usecols) from None
            if not values.size:
                at += len(chunk)
                continue
            if row + len(values) > n:
                raise ValueError(f"load_csv: {path!r} changed while it was read")
            out[row : row + len(values)] = values
            row += len(values)
            at += len(chunk)
            bar.update(len(chunk))
    return out


def _loadtxt(data: bytes, dtype, delimiter: str | None, encoding: str, usecols) -> np.ndarray:
    """NumPy's parse of ``data`` (whole lines, none blank) as a 2-D array."""
    with warnings.catch_warnings():  # a piece of blank lines only: no rows, no warning
        warnings.simplefilter("ignore", UserWarning)
        return np.loadtxt(
            io.BytesIO(data),
            dtype=dtype,
            delimiter=delimiter,
            comments=None,
            ndmin=2,
            encoding=encoding,
            usecols=usecols,
        )


def _lines_before(path: str, end: int, budget: int) -> int:
    """The newlines in bytes ``0:end`` of the file (read in pieces: an error's path only)."""
    found = 0
    with open(path, "rb") as f:
        while end > 0:
            buf = f.read(min(budget, end))
            if not buf:
                break
            found += buf.count(b"\n")
            end -= len(buf)
    return found


_ROW = re.compile(r"at row (\d+)")
_CONVERSION = re.compile(r"(could not convert string .* to \S+?)\.? at row \d+, column (\d+)")


def _bad_line(text: tuple, at: int, chunk: bytes, exc: ValueError, dtype, usecols) -> _LineError:
    """The error of the first bad line of ``chunk`` (the bytes from ``at``), which NumPy
    could not parse (``exc``): the line's number in the file, and what is wrong with it
    (its number of fields, or the field that is not a number), in words that do not depend
    on how the file was cut among the ranks."""
    path, delimiter, encoding, budget, ncols = text
    chunk_lines = chunk.split(b"\n")
    data = [(i, line) for i, line in enumerate(chunk_lines) if line.strip()]
    # loadtxt's row, counted among the non-blank lines from 0 (a conversion) or from 1 (a
    # change of the number of columns): the first bad line is at most one after it.
    hint = _ROW.search(str(exc))
    last = min(len(data), int(hint[1]) + 1) if hint else len(data)
    bad, what = None, str(exc)
    for k in range(last):
        fields = _fields(data[k][1], delimiter, encoding)
        if fields != ncols:
            bad, what = k, f"has {fields} fields, not {ncols} as the first data line"
            break
    if bad is None:
        for k in range(max(0, last - 2), len(data)):
            try:
                _loadtxt(data[k][1] + b"\n", dtype, delimiter, encoding, usecols)
            except ValueError:
                bad = k
                # The whole line, whatever columns this rank parses: its first bad field.
                try:
                    _loadtxt(data[k][1] + b"\n", dtype, delimiter, encoding, None)
                except ValueError as line_exc:
                    what = str(line_exc)
                found = _CONVERSION.search(what)
                if found:  # NumPy numbers the column from 1, as the lines here
                    what = f"column {found[2]}: {found[1]}"
                break
    if bad is None:  # not found again: the piece's message, with its first line
        bad = 0
    what = _ROW.sub("", what).replace(" ,", ",").replace("  ", " ")
    number = _lines_before(path, at, budget) + data[bad][0] + 1 if data else 0
    return _LineError(f"load_csv: {path!r} line {number}: {what}", number)


def _formats(dtype: np.dtype) -> tuple[str, Any]:
    """The ``%`` format of one value of ``dtype`` and the host conversion before it."""
    if dtype == np.bool_:
        return "%d", lambda h: h.astype(np.uint8)
    if dtype.kind in "iu":
        return "%d", None
    if dtype == np.float32:
        return "%.9g", None
    return "%r", None  # float64 and complex: Python's shortest repr reads back exactly


def _text(x: _array.Array, part: Any, delimiter: str, budget: int) -> list[bytes]:
    """This rank's rows as CSV text, in pieces of about ``budget`` bytes of values."""
    if part is None:
        return []
    box, origin = part
    fmt, convert = _formats(x.dtype)
    ncols = 1 if x.ndim == 1 else x.shape[1]
    line = delimiter.join([fmt] * ncols) + "\n"
    lo, hi = box[0].start - origin[0], box[0].stop - origin[0]
    step = max(1, budget // max(1, ncols * x.dtype.itemsize))
    out = []
    for a in range(lo, hi, step):
        host = np.asarray(x.backend.to_host(x.local[a : min(a + step, hi)]))
        host = (convert(host) if convert else host).reshape(-1, ncols)
        out.append("".join(line % tuple(r) for r in host.tolist()).encode())
    return out


def save_csv(x, path, *, delimiter=",", header=None, chunk_bytes=None, progress=False) -> None:
    """Save a 1-D or 2-D ``x`` as CSV text (a 1-D array as one column), every rank writing its
    rows at its byte offset in parallel; ``header`` (a str, e.g. column names) is written as
    the first line.

    A split along the columns first moves to a split of the rows (one all-to-all). Each rank
    holds its rows' text while writing (about three times the block for float64). A
    replicated array is written once, each rank writing a share of the rows.

    Communication: one allgather (the ranks agree on ``header``), two broadcasts (the
    temporary), one exscan (the offsets), one allgather (every part written), two broadcasts
    (the rename).
    """
    func = "save_csv"
    check_array(x, func)
    if x.ndim not in (1, 2):
        raise ValueError(f"{func}: CSV holds 1-D and 2-D arrays, got {x.ndim} dimensions")
    if not isinstance(delimiter, str) or not delimiter or "\n" in delimiter:
        raise TypeError(f"{func}: delimiter must be a non-empty str, got {delimiter!r}")
    if header is not None and not isinstance(header, str):
        raise TypeError(f"{func}: header must be a str or None, got {header!r}")
    if x.ndim == 2 and x.shape[1] == 0:
        raise ValueError(
            f"{func}: an array of shape {x.shape} has no columns to write (CSV would read back "
            "no rows); save it with save_npy"
        )
    budget = check_budget(chunk_bytes, func)
    comm = x.comm
    # every rank writes its rows after the header: the ranks agree on it (one allgather)
    codes = agree_on_errors(None, comm, [-1 if header is None else zlib.crc32(header.encode())])
    if len(set(codes[:, 0].tolist())) > 1:
        raise ValueError(
            f"{func}: header differs between ranks ({differing_ranks(codes[:, 0].tolist())}); "
            "pass the same header on every rank"
        )
    if x.shape[0] == 0 and header is None:
        raise ValueError(
            f"{func}: an array of 0 rows (shape {x.shape}) writes no line, so its columns would "
            "not read back; pass header= (its column names), or save it with save_npy"
        )
    if x.split not in (None, 0) and comm.size > 1:
        target = Layout.balanced(x.shape, 0, comm.size)
        block = redistribute_block(x.local, x.layout, target, comm, x.backend)
        x = _array.Array._new(block, target, comm, x.backend)
    head = b"" if header is None else (header.rstrip("\n") + "\n").encode()

    def create(tmp: str) -> None:
        with open(tmp, "xb") as f:
            f.write(head)

    with AtomicSave(path, func, comm, create) as save:
        text: list[bytes] = []
        with save.part():
            text = _text(x, my_part(x.layout, comm.rank, comm.size), delimiter, budget)
        length = sum(len(t) for t in text)
        offset = len(head) + int(exscan_host(np.array([length], np.int64), "sum", comm)[0])
        with save.part(length), Progress(progress, comm, length, func) as bar:
            if length:
                fd = os.open(save.tmp, os.O_WRONLY)
                try:
                    for t in text:
                        write_at(fd, memoryview(t), offset)
                        offset += len(t)
                        bar.update(len(t))
                finally:
                    os.close(fd)
        save.finish()
