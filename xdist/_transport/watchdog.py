"""What the MPI communicator does on entering a collective: count it, check the calling
thread, and let a watchdog see a collective that never completes.

A collective entered by some ranks only waits forever: ``if rank == 0: plt.scatter(X[:, 0])``
(matplotlib's ``np.asarray`` gathers, collectively), or an exception caught on one rank only
while the others go on to the next collective. MPI says nothing. Like torch.distributed's
collective timeout, a watchdog thread notices a rank that has waited in one collective longer
than ``collective_timeout`` seconds and prints which collective, the program's line that called
it, and the likely cause and fix; with ``collective_timeout_abort`` it then ends the job.

The cost per collective is a counter, a thread id comparison and three stores: the watchdog
learns that the calling thread is still inside the collective from its stack
(``sys._current_frames``), so nothing is done on leaving. mpi4py releases the GIL while MPI
waits, so the watchdog thread runs.

``debug_collectives`` adds a check that every rank entered the same collective: one small
allgather of (name, sizes) before each collective, and the same
``CollectiveMismatchError`` on every rank where they differ (``TORCH_DISTRIBUTED_DEBUG``'s
idea).

Threads: xdist's collectives are called by one thread per process (the one that made the
communicator, normally the main thread). A second thread calling collectives at the same time
would interleave messages differently on each rank and abort or corrupt the job, so a
collective from another thread raises a clear error, deterministically, on every rank.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import zlib
from collections.abc import Callable
from types import FrameType

import numpy as np

from .._config import get_config
from .comm import _counter

__all__ = ["CollectiveMismatchError", "Guard"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_THIS_FILE_PREFIX = os.path.join(_PACKAGE, "_transport", "mpi")


class CollectiveMismatchError(RuntimeError):
    """The ranks entered different collectives (raised with ``debug_collectives`` on)."""


def user_line(frame: FrameType | None) -> str:
    """``file:line`` of the innermost frame outside xdist (the program's call), with its
    source line when it can be read."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return "(no caller outside xdist)"
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    try:
        import linecache

        text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    except Exception:  # pragma: no cover - reading source is best effort
        text = ""
    return f"{where}: {text}" if text else where


class Guard:
    """The entry checks of one MPI communicator (see the module docstring)."""

    def __init__(
        self,
        rank: int,
        size: int,
        gather: Callable[[np.ndarray], np.ndarray],
        abort: Callable[[int], None],
    ):
        self.rank, self.size = rank, size
        self._gather = gather  # allgather of a small int64 array, without entering the guard
        self._abort = abort
        self._owner = threading.get_ident()

    def enter(self, name: str, *sizes: int) -> None:
        """Called first by every collective of the communicator."""
        _counter.record(name)
        ident = threading.get_ident()
        if ident != self._owner:
            raise RuntimeError(
                f"xdist: {name} called from a second thread ({threading.current_thread().name}"
                "); xdist's operations are collective over the ranks and run in one thread per "
                "process, in the same order on every rank. Call xdist from one thread (for "
                "scikit-learn, n_jobs=None or 1; for joblib, the 'sequential' or 'loky' backend)"
            )
        _LATEST[0] = (_LATEST[0][0] + 1, name, time.monotonic(), ident, self)
        config = get_config()
        if config.collective_timeout and not _WATCHING[0] and self.size > 1:
            _start_watchdog()
        if config.debug_collectives and self.size > 1:
            self._check_same(name, sizes)

    # -- debug: every rank in the same collective -------------------------------------------------
    def _check_same(self, name: str, sizes: tuple[int, ...]) -> None:
        code = zlib.crc32(name.encode())
        sizes = sizes[:6]
        mine = np.zeros(8, np.int64)
        mine[:2] = code, len(sizes)
        mine[2 : 2 + len(sizes)] = sizes
        table = self._gather(mine)
        if (table == table[0]).all():
            return
        names = {zlib.crc32(n.encode()): n for n in _NAMES}

        def entered(row: np.ndarray) -> str:
            args = tuple(int(v) for v in row[2 : 2 + int(row[1])])
            return f"{names.get(int(row[0]), '?')}{args}"

        rows = [f"rank {r}: {entered(row)}" for r, row in enumerate(table)]
        raise CollectiveMismatchError(
            f"xdist: the ranks entered different collectives (debug_collectives): "
            f"{'; '.join(rows)}. This rank called {name} at "
            f"{user_line(sys._getframe(1))}. Every xdist call is collective: each rank must "
            "make the same calls on arrays of the same global shapes, in the same order"
        )

    def _report(self, name: str, waited: float, frame: FrameType) -> None:
        abort = get_config().collective_timeout_abort
        text = (
            f"xdist watchdog: rank {self.rank} of {self.size} has waited {waited:.0f} s in "
            f"{name}, called at {user_line(frame)}.\n"
            "  Likely cause: a collective entered by some ranks only. Every xdist call is "
            "collective (np.asarray(x), print of values, float(x) included): a call under "
            "`if rank == 0:` (plotting: matplotlib gathers with np.asarray), or an exception "
            "caught on some ranks only, leaves the other ranks waiting here.\n"
            "  Fix: make the same xdist calls on every rank (gather what rank 0 plots with "
            "x.to_numpy() on every rank, then plot on rank 0 only).\n"
            f"  ({'ending the job' if abort else 'still waiting'}: settings "
            "XDIST_COLLECTIVE_TIMEOUT, XDIST_COLLECTIVE_TIMEOUT_ABORT)\n"
        )
        os.write(2, text.encode(errors="replace"))
        if abort:
            self._abort(3)


# The latest collective entered in this process, over every communicator: (number, name,
# start, thread, guard), one tuple stored at once, so that the watchdog never pairs a new
# number with an old start, nor one communicator's old collective with another's call.
_LATEST: list = [(0, "", 0.0, None, None)]
_WATCHING = [False]


def _start_watchdog() -> None:
    _WATCHING[0] = True
    threading.Thread(target=_watch, name="xdist-watchdog", daemon=True).start()


def _watch() -> None:
    """The watchdog thread: one per process, whatever the number of communicators."""
    reported = 0
    while True:
        timeout = get_config().collective_timeout
        time.sleep(min(max(timeout / 10, 0.05), 1.0) if timeout else 1.0)
        if not timeout:
            continue
        seq, name, since, thread, guard = _LATEST[0]
        if seq == reported or time.monotonic() - since < timeout:
            continue
        frame = sys._current_frames().get(thread)
        if frame is None or not frame.f_code.co_filename.startswith(_THIS_FILE_PREFIX):
            continue  # the collective has completed: the thread is elsewhere
        if seq != _LATEST[0][0]:
            continue
        reported = seq
        guard._report(name, time.monotonic() - since, frame)


# The collectives' names, to print another rank's collective in a mismatch report.
_NAMES = (
    "barrier",
    "bcast",
    "allreduce",
    "exscan",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "sendrecv",
    "split",
    "dup",
)
