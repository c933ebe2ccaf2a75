"""Agreement on failures, so that a load or a save raises the same error on every rank.

Under SPMD an exception raised on one rank alone leaves the others waiting in the next
collective. So every step of a load or a save that may fail on some ranks only (opening a
file, reading or writing a part) catches its error, and the ranks agree before anyone
raises: ``agree_on_errors`` (one allgather of a flag, plus the rank's small integers) raises
the error of the first failing rank on every rank; ``from_root`` runs a step on rank 0 alone
(reading a file's metadata, creating a file) and gives every rank its result or its error.

Errors travel as their type's name and message (JSON text, two broadcasts, only on failure
for ``agree_on_errors``) and are rebuilt on each rank from a fixed list of exception types.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .collectives import allgather_ints, bcast_host

__all__ = ["agree_on_errors", "bcast_text", "from_root"]

_TYPES: dict[str, type[Exception]] = {
    cls.__name__: cls
    for cls in (
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
