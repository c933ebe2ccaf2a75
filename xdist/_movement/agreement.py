"""Agreement: the ranks compare what each was given, so that a difference or a failure on some
ranks raises the same error on every rank.

Under SPMD an exception raised on one rank alone leaves the others waiting in the next
collective. So what may differ between ranks is compared before anyone raises:

- metadata (arguments, a block's dtype and shape, a device kind): ``agree_on_metadata``
  compares one row of small ints per rank, always in the same format (named fields, a
  checksum, the number of dimensions and a shape padded to ``MAX_DIMS``), in one allreduce
  whose size does not grow with the rank count; only when the rows differ is every rank's
  row gathered (``Rows``), for an error that names what differs and on which ranks;
- values given whole on every rank: ``checksum`` (a fingerprint of the values, as the
  ``check_replicated`` setting asks; it travels in a metadata row) and ``differing_copies``
  (every rank's checksum, one allgather, for data compared alone);
- failures: every step of a load or a save that may fail on some ranks only (opening a
  file, reading or writing a part) catches its error, and ``agree_on_errors`` (one allgather
  of a flag, plus the rank's small integers) raises the error of the first failing rank on
  every rank; ``from_root`` runs a step on rank 0 alone (reading a file's metadata, creating
  a file) and gives every rank its result or its error.

Errors travel as their type's name and message (JSON text, two broadcasts, only on failure
for ``agree_on_errors``) and are rebuilt on each rank from a fixed list of exception types.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .._config import get_config
from .._dtypes import ALL_DTYPES
from .._errors import AxisError
from .._transport.comm import Communicator
from ..backends.base import Backend
from .collectives import (
    allgather_ints,
    bcast_host,
    checksums,
    differing_ranks,
    fingerprint,
    fingerprint_halves,
    same_on_every_rank,
)

__all__ = [
    "DEVICE_KINDS",
    "MAX_DIMS",
    "Rows",
    "agree_on_errors",
    "agree_on_metadata",
    "bcast_text",
    "checksum",
    "device_code",
    "differing_copies",
    "dtype_code",
    "from_root",
]

_TYPES: dict[str, type[Exception]] = {
    cls.__name__: cls
    for cls in (
        AxisError,
        FileExistsError,
        FileNotFoundError,
        ImportError,
        IndexError,
        IsADirectoryError,
        KeyError,
        NotADirectoryError,
        OSError,
        OverflowError,
        PermissionError,
        RuntimeError,
        TypeError,
        ValueError,
    )
}


def _encoded(error: BaseException) -> str:
    """``error`` as JSON text: its type's name and its message."""
    if isinstance(error, KeyError) and len(error.args) == 1:
        message = str(error.args[0])  # str(KeyError) would quote the message
    else:
        message = str(error)
    return json.dumps([type(error).__name__, message])


def _rebuilt(kind: str, message: str) -> Exception:
    """The error named ``kind`` with ``message``; a type outside the list becomes a
    RuntimeError that names it (the message stays whole)."""
    cls = _TYPES.get(kind)
    if cls is not None:
        return cls(message)
    if kind in ("UnicodeDecodeError", "UnicodeEncodeError", "JSONDecodeError"):
        return ValueError(message)
    return RuntimeError(f"{kind}: {message}")


def bcast_text(text: str | None, root: int, comm: Any) -> str:
    """``root``'s ``text`` on every rank (the others pass ``None``): two broadcasts, of its
    length and of its UTF-8 bytes."""
    mine = np.frombuffer(text.encode(), np.uint8) if comm.rank == root else None
    n = int(bcast_host(np.array([0 if mine is None else mine.size], np.int64), root, comm)[0])
    buf = mine.copy() if mine is not None else np.empty(n, np.uint8)
    return bcast_host(buf, root, comm).tobytes().decode()


def agree_on_errors(
    error: BaseException | None, comm: Any, values: Sequence[int] = ()
) -> np.ndarray:
    """Every rank's ``values`` (small integers, as many on every rank) as a ``(p, k)`` table,
    once the ranks agree that none failed: when some rank passes an ``error``, the error of
    the first such rank is raised on every rank.

    Messages: one allgather; on failure two broadcasts more.
    """
    table = allgather_ints([int(error is not None), *[int(v) for v in values]], comm)
    failed = np.flatnonzero(table[:, 0])
    if failed.size:
        root = int(failed[0])
        text = bcast_text(_encoded(error) if comm.rank == root else None, root, comm)
        raise _rebuilt(*json.loads(text)) from (error if comm.rank == root else None)
    return table[:, 1:]


def from_root(step: Callable[[], Any], comm: Any) -> Any:
    """``step()`` run on rank 0 alone, its result (JSON values: numbers, strings, lists,
    dicts) returned on every rank; an error there is raised on every rank.

    Messages: two broadcasts.
    """
    error: BaseException | None = None
    text = None
    if comm.rank == 0:
        try:
            text = json.dumps({"value": step()})
        except Exception as exc:
            error = exc
            text = json.dumps({"error": _encoded(exc)})
    got = json.loads(bcast_text(text, 0, comm))
    if "error" in got:
        raise _rebuilt(*json.loads(got["error"])) from error
    return got["value"]


# -- metadata --------------------------------------------------------------------------------------
# Every agreement row holds a shape padded with zeros to NumPy's largest number of dimensions
# (a longer shape is cut there; its number of dimensions stays whole), so that every rank's
# row has the same length whatever it was given.
MAX_DIMS = 64
# Device kinds as fields of a row (a kind not named here travels as "other").
DEVICE_KINDS = ("cpu", "cuda", "rocm", "mps", "xpu", "other")


def dtype_code(dtype: Any) -> int:
    """A dtype as a field of a row: its place among the standard's dtypes, -1 for any other
    (or for ``None``)."""
    return ALL_DTYPES.index(dtype) if dtype in ALL_DTYPES else -1


def device_code(kind: str) -> int:
    """A device kind as a field of a row (see ``DEVICE_KINDS``)."""
    return DEVICE_KINDS.index(kind) if kind in DEVICE_KINDS else len(DEVICE_KINDS) - 1


class Rows:
    """Every rank's agreement row (row r: rank r's), read by what the row holds: the named
    fields, the checksum, the shape."""

    __slots__ = ("table", "names")

    def __init__(self, table: np.ndarray, names: Sequence[str]) -> None:
        self.table = table
        self.names = tuple(names)

    def column(self, name: str) -> list[int]:
        """Every rank's field ``name``."""
        return self.table[:, self.names.index(name)].tolist()

    def checksums(self) -> list[int]:
        """Every rank's checksum."""
        k = len(self.names)
        return [(hi << 32) | lo for hi, lo in self.table[:, k : k + 2].tolist()]

    def ndims(self) -> list[int]:
        """Every rank's number of dimensions."""
        return self.table[:, len(self.names) + 2].tolist()

    def shapes(self) -> list[tuple[int, ...]]:
        """Every rank's shape (cut to ``MAX_DIMS``)."""
        start = len(self.names) + 3
        return [
            tuple(row[start : start + min(ndim, MAX_DIMS)])
            for row, ndim in zip(self.table.tolist(), self.ndims())
        ]


def agree_on_metadata(
    fields: Mapping[str, int],
    comm: Communicator,
    *,
    shape: Sequence[int] = (),
    checksum: int = 0,
    free_axis: int | None = None,
    gather: bool = False,
) -> Rows | None:
    """``None`` when every rank gave the same ``fields`` (small ints, named), ``shape`` and
    ``checksum`` (a 64-bit ``checksum``: 0 where none was taken); else every rank's row, to
    word the error that names what differs and on which ranks. ``gather``: every rank's row
    even when they are the same (it must follow from the fields, so that ranks whose rows are
    the same pass the same). ``free_axis``: an axis of ``shape`` whose length may differ
    between ranks (blocks stacked along it).

    Messages: one allreduce of ``2 (len(fields) + 3 + MAX_DIMS)`` ints
    (``same_on_every_rank``), whatever the rank count; one allgather of the rows more when
    they differ. None on one rank unless ``gather``.
    """
    dims = [int(n) for n in shape[:MAX_DIMS]]
    row = [
        *fields.values(),
        *fingerprint_halves(checksum),
        len(shape),
        *dims,
        *[0] * (MAX_DIMS - len(dims)),
    ]
    key = row
    if free_axis is not None and free_axis < MAX_DIMS:
        key = list(row)
        key[len(fields) + 3 + free_axis] = 0
    if same_on_every_rank(key, comm) and not gather:
        return None
    return Rows(allgather_ints(row, comm), list(fields))


# -- values given whole on every rank --------------------------------------------------------------
def checksum(data: Any, backend: Backend) -> int:
    """The fingerprint of ``data`` (a block of ``backend`` or a NumPy array of a standard
    dtype) that the ``check_replicated`` setting asks for: of about 1024 elements spread over
    it (on by default), of every element (``"full"``), or 0 (off: no comparison). No
    message."""
    mode = get_config().check_replicated
    if not mode:
        return 0
    return fingerprint(data, backend, full=mode == "full")


def differing_copies(data: Any, comm: Communicator, backend: Backend) -> str | None:
    """``None`` when every rank's ``data`` is the same (by ``checksum``), else which ranks
    differ from rank 0, for an error message.

    Messages: one allgather of one int when the ``check_replicated`` setting is on and there
    are several ranks; none otherwise."""
    mode = get_config().check_replicated
    if comm.size == 1 or not mode:
        return None
    sums = checksums(data, comm, backend, full=mode == "full")
    return differing_ranks(sums) if len(set(sums)) > 1 else None
