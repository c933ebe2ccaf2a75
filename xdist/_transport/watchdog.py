"""What the MPI communicator does on entering a collective, and the watchdog that ends a job
whose ranks can no longer meet.

MPI matches the k-th collective of one rank with the k-th of every other rank of the
communicator. A rank that skips one (an exception caught on that rank only, a call under
``if rank == 0:``) is then out of step: the ranks wait in different collectives forever, or,
where the next collective has the same shape, it is matched with the skipped one and returns
a wrong value. MPI says nothing. Three checks, on by default, turn both into one message that
says where every rank is (collective, call number on its communicator, the program's line):

- **Call sites in the message.** A small allreduce (sum, min or max of float64, float32,
  int64, int32 or complex values) carries two extra elements and an ``allgather_ints`` one,
  derived from the program's line that called it: ``[s, s*s]`` for a sum (their sums are
  ``p*s`` and ``p*s*s`` on every rank exactly when every ``s`` is the same: the spread
  ``sum((s_i - s)**2)`` is 0), ``[s, -s]`` for min and max. Ranks whose calls were matched
  across different lines of the program raise the same ``CollectiveMismatchError`` before
  the value is returned (setting ``check_call_sites``).
- **The watchdog asks where the others are.** A rank that has waited ``collective_timeout``
  seconds in one collective asks every rank of its communicator, out of band, where it is.
  When every rank is blocked in a collective of that communicator and they are not all in
  the same one, or a rank it waits for has exited, nothing can complete: the lowest such rank
  prints one message with every rank's position and ends the job (``MPI_Abort``). A rank
  still computing outside any collective may come: that wait is reported once and never
  ended (unless ``collective_timeout_abort``).
- **A rank that exits tells the others.** At exit every rank joins a nonblocking exchange of
  its number of collectives on the world communicator; a rank that waits there half a second
  sends a short notice to every other rank (p - 1 small messages per rank, only when the ranks
  exit more than half a second apart), so that a rank blocked in a collective with it is
  ended within a second or so. Ranks that all exit compare their counts: different counts
  (a collective skipped on some rank, matched silently with another) end the job with an
  error instead of a silent success.

The out-of-band messages travel on a private duplicate of the world communicator (the
``side`` channel, given by ``_transport/mpi.py``, the only module that talks to MPI) and are
served by one watchdog thread per process, which needs MPI's ``MPI_THREAD_MULTIPLE`` (mpi4py's
default); under a lower thread level the watchdog only reports the rank's own wait.

The cost per collective is a counter, a thread id comparison, a walk up the stack to the
program's frame and a few stores; nothing is done on leaving (the watchdog learns that the
calling thread is still inside from its stack, ``sys._current_frames``). mpi4py releases the
GIL while MPI waits, so the watchdog thread runs.

``debug_collectives`` adds a check that every rank entered the same collective with the same
sizes: one small allgather before each collective (``TORCH_DISTRIBUTED_DEBUG``'s idea).

Threads: xdist's collectives are called by one thread per process (the one that made the
communicator, normally the main thread). A second thread calling collectives at the same time
would interleave messages differently on each rank and abort or corrupt the job, so a
collective from another thread raises a clear error, deterministically, on every rank.
"""

from __future__ import annotations

import itertools
import linecache
import os
import sys
import threading
import time
import weakref
import zlib
from collections.abc import Callable, Sequence
from types import CodeType, FrameType
from typing import Any, Protocol

import numpy as np

from .._config import get_config
from .comm import _counter

__all__ = ["CollectiveMismatchError", "Guard", "SideChannel", "call_site_bits"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_THIS_FILE_PREFIX = os.path.join(_PACKAGE, "_transport", "mpi")
# xdist's own files, skipped to find the program's line: the package, and in a source checkout
# (a pyproject.toml beside it) xdist.ml and xdist.backends, which live beside the package.
_ROOT = os.path.dirname(_PACKAGE)
_OWN = (_PACKAGE + os.sep,) + tuple(
    os.path.join(_ROOT, name) + os.sep
    for name in ("ml", "backends")
    if os.path.isfile(os.path.join(_ROOT, "pyproject.toml"))
    and os.path.isfile(os.path.join(_ROOT, name, "__init__.py"))
)

# Tags of the out-of-band messages on the side channel.
QUERY, REPLY, EXITED = 1, 2, 3


class CollectiveMismatchError(RuntimeError):
    """The ranks' collectives do not match: different collectives (``debug_collectives``) or
    calls from different lines of the program matched by MPI (``check_call_sites``)."""


class SideChannel(Protocol):
    """Out-of-band messages between the world's ranks (``_transport/mpi.py`` implements it on a
    private duplicate of the world communicator)."""

    rank: int
    size: int

    def send(self, dest: int, tag: int, obj: object) -> None: ...

    def poll(self) -> list[tuple[int, int, Any]]: ...

    def usable(self) -> bool: ...


def _user_frame(frame: FrameType | None) -> FrameType | None:
    """The innermost frame outside xdist: the program's call."""
    while frame is not None and frame.f_code.co_filename.startswith(_OWN):
        frame = frame.f_back
    return frame


def _site(code: CodeType | None, line: int) -> str:
    """``file:line: source`` of a call of the program (the source when it can be read)."""
    if code is None:
        return "(no caller outside xdist)"
    where = f"{code.co_filename}:{line}"
    text = linecache.getline(code.co_filename, line).strip()
    return f"{where}: {text}" if text else where


def _program_line(frame: FrameType | None) -> tuple[CodeType | None, int]:
    frame = _user_frame(frame)
    return (None, 0) if frame is None else (frame.f_code, frame.f_lineno)


def user_line(frame: FrameType | None) -> str:
    """``file:line: source`` of the innermost frame outside xdist (the program's call)."""
    frame = _user_frame(frame)
    return _site(None, 0) if frame is None else _site(frame.f_code, frame.f_lineno)


_SITE_CODES: dict[tuple[CodeType, int], int] = {}


def _site_code(code: CodeType | None, line: int) -> int:
    """A 32-bit number naming a line of the program, the same in every process."""
    key = (code, line)
    value = _SITE_CODES.get(key)
    if value is None:
        name = "" if code is None else code.co_filename
        value = _SITE_CODES[key] = zlib.crc32(f"{name}:{line}".encode())
    return value


# Bits of a float or int dtype that hold integers exactly.
_EXACT_BITS = {
    np.dtype(np.float64): 53,
    np.dtype(np.float32): 24,
    np.dtype(np.int64): 63,
    np.dtype(np.int32): 31,
}


def call_site_bits(dtype: np.dtype, op: object, size: int) -> int:
    """How many bits of a call-site number an allreduce of ``dtype`` with ``op`` over
    ``size`` ranks carries exactly (0: none, the check is skipped). A sum carries ``s`` and
    ``s*s``, whose sums over the ranks must stay exact integers: ``size * s*s < 2**bits``."""
    exact = _EXACT_BITS.get(dtype)
    if exact is None or op not in ("sum", "min", "max"):
        return 0
    if op == "sum":
        bits = (exact - size.bit_length()) // 2
    else:
        bits = exact - 1
    return min(bits, 20) if bits >= 8 else 0


class Guard:
    """The entry checks of one MPI communicator (see the module docstring).

    ``members``: the world ranks of the communicator's ranks, in order (None where they are
    unknown: the watchdog then only reports this rank's wait); ``ident``: a number the same on
    every member and different for each communicator they made together; ``exchange``: an
    allgather of Python objects on the communicator that does not enter the guard.
    """

    def __init__(
        self,
        rank: int,
        size: int,
        gather: Callable[[np.ndarray], np.ndarray],
        abort: Callable[[int], None],
        members: Sequence[int] | None = None,
        ident: int = 0,
        exchange: Callable[[object], list] | None = None,
    ):
        self.rank, self.size = rank, size
        self._gather = gather  # allgather of a small int64 array, without entering the guard
        self._abort = abort
        self._exchange = exchange
        self._owner = threading.get_ident()
        self.members = None if members is None else tuple(members)
        self.ident = ident
        self.calls = 0  # collectives entered on this communicator (sendrecv not counted)
        _GUARDS[ident] = self

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
        if name != "sendrecv":  # point to point: ranks make different numbers of them
            self.calls += 1  # (a tree's root more than its leaves), so they are not counted
        _LATEST[0] = (_LATEST[0][0] + 1, name, time.monotonic(), ident, self, self.calls)
        config = get_config()
        if config.collective_timeout and not _WATCHING[0] and self.size > 1:
            start_watchdog()
        if config.debug_collectives and self.size > 1:
            self._check_same(name, sizes)

    # -- the call site carried in a collective's own message --------------------------------------
    def site_number(self, bits: int) -> int:
        """The number of the program's line that called the collective being run, in ``bits``
        bits (called from the collective's own frame)."""
        frame = _user_frame(sys._getframe(2))
        code, line = (None, 0) if frame is None else (frame.f_code, frame.f_lineno)
        return _site_code(code, line) & ((1 << bits) - 1)

    def sites_differ(self, name: str) -> None:
        """Every rank found that the collective just completed was called from different lines
        (all of them see the same combined message): tell where each rank is and raise the same
        ``CollectiveMismatchError`` everywhere."""
        me = (self.calls, user_line(sys._getframe(1)))
        rows = self._exchange(me) if self._exchange is not None else [me]
        lines = [
            f"rank {r}: {name} (call {c} on this communicator) at {s}"
            for r, (c, s) in enumerate(rows)
        ]
        raise CollectiveMismatchError(
            f"xdist: one {name} was called from different lines of the program on different "
            "ranks, so MPI matched calls that do not belong together and its result would be "
            "wrong:\n  " + "\n  ".join(lines) + "\n  Likely cause: a collective skipped on some "
            "ranks (an exception caught on some ranks only) or called under a rank condition. "
            "Every xdist call is collective: each rank must make the same calls in the same "
            "order. (Calls that belong together but are written on different lines: setting "
            "XDIST_CHECK_CALL_SITES=0.)"
        )

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


# The latest collective entered in this process, over every communicator: (number, name,
# start, thread, guard, call number on its communicator), one tuple stored at once, so that
# the watchdog never pairs a new number with an old start.
_LATEST: list = [(0, "", 0.0, None, None, 0)]
_WATCHING = [False]
_GUARDS: weakref.WeakValueDictionary[int, Guard] = weakref.WeakValueDictionary()
_SIDE: list[SideChannel | None] = [None]
_ABORT: list[Callable[[int], None] | None] = [None]
_EXITING = [False]  # this process is in its exit hook
_FAILING = [False]  # this process is in its excepthook (which ends the job)
_STOP = threading.Event()
_EXITED: dict[int, tuple] = {}  # world rank -> (its calls on the world, its last site)
_REPLIES: dict[int, dict[int, dict]] = {}  # query number -> world rank -> state
_QUERIES = itertools.count(1)
_THREAD: list[threading.Thread | None] = [None]

_HINT = (
    "  Likely cause: a collective entered by some ranks only. Every xdist call is collective "
    "(np.asarray(x), print of values, float(x) included): a call under `if rank == 0:` "
    "(plotting: matplotlib gathers with np.asarray), or an exception caught on some ranks "
    "only, leaves the other ranks waiting.\n"
    "  Fix: make the same xdist calls on every rank (gather what rank 0 plots with "
    "x.to_numpy() on every rank, then plot on rank 0 only).\n"
)


def use_side_channel(side: SideChannel, abort: Callable[[int], None]) -> None:
    """Serve and use ``side`` from the watchdog thread (started now when the watchdog is on)."""
    _SIDE[0], _ABORT[0] = side, abort
    if get_config().collective_timeout and not _WATCHING[0]:
        start_watchdog()


def start_watchdog() -> None:
    _WATCHING[0] = True
    thread = threading.Thread(target=_watch, name="xdist-watchdog", daemon=True)
    _THREAD[0] = thread
    thread.start()


def stop_watchdog() -> None:
    """Stop the watchdog thread (before MPI is finalized: it must not call MPI after)."""
    _STOP.set()
    thread = _THREAD[0]
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout=2.0)


def set_exiting() -> None:
    _EXITING[0] = True


def set_failing() -> None:
    _FAILING[0] = True


def world_calls() -> int:
    """Collectives entered on the world communicator (ident 0) by this process."""
    guard = _GUARDS.get(0)
    return 0 if guard is None else guard.calls


def last_call() -> str:
    latest = _LATEST[0]
    return f"{latest[1]} (call {latest[5]})" if latest[0] else "none"


def _tick(timeout: float) -> float:
    return min(max(timeout / 10, 0.05), 0.5) if timeout else 0.5


def _watch() -> None:
    """The watchdog thread: one per process, whatever the number of communicators."""
    book = _Book()
    while not _STOP.is_set():
        timeout = get_config().collective_timeout
        _STOP.wait(_tick(timeout))
        side = _SIDE[0]
        if side is not None:
            try:
                if not side.usable():
                    return
                _serve(side)
            except Exception as error:  # pragma: no cover - MPI gone: stop serving
                _SIDE[0] = None
                os.write(2, f"xdist watchdog: side channel stopped ({error})\n".encode())
        if timeout and not _EXITING[0] and not _FAILING[0]:
            _check(timeout, book)


def _serve(side: SideChannel) -> None:
    """Answer the other ranks' questions; note their exit notices and answers."""
    for source, tag, obj in side.poll():
        if tag == QUERY:
            number, ident = obj
            side.send(source, REPLY, (number, _state(ident)))
        elif tag == REPLY:
            number, state = obj
            if number in _REPLIES:
                _REPLIES[number][source] = state
        elif tag == EXITED:
            _EXITED[source] = obj


def _inside(thread: int | None) -> FrameType | None:
    """The frame of ``thread`` when it is inside a collective (in mpi.py), else None."""
    frame = sys._current_frames().get(thread) if thread is not None else None
    if frame is not None and frame.f_code.co_filename.startswith(_THIS_FILE_PREFIX):
        return frame
    return None


def _state(ident: int) -> dict:
    """Where this process is, for a rank asking about communicator ``ident``."""
    seq, name, since, thread, guard, calls = _LATEST[0]
    mine = _GUARDS.get(ident)
    frame = _inside(thread) if seq else None
    return {
        "exited": _EXITING[0],
        "failing": _FAILING[0],
        "inside": frame is not None,
        "comm": None if guard is None else guard.ident,
        "calls_on": 0 if mine is None else mine.calls,
        "name": name,
        "calls": calls,
        "site": user_line(frame) if frame is not None else "",
        "waited": time.monotonic() - since,
    }


def _ask(side: SideChannel, guard: Guard, wait: float) -> dict[int, dict | None]:
    """Every member's state (None: no answer within ``wait`` seconds)."""
    number = next(_QUERIES)
    _REPLIES[number] = {}
    others = [r for r in guard.members or () if r != side.rank]
    for r in others:
        side.send(r, QUERY, (number, guard.ident))
    deadline = time.monotonic() + wait
    while len(_REPLIES[number]) < len(others) and time.monotonic() < deadline:
        _serve(side)
        time.sleep(0.01)
    got = _REPLIES.pop(number)
    states: dict[int, dict | None] = {r: got.get(r) for r in others}
    states[side.rank] = _state(guard.ident)
    return states


def _describe(state: dict | None, ident: int, calls: int, name: str) -> tuple[str, str]:
    """(kind, text) of one member as seen by a rank waiting in call ``calls`` (``name``) on
    communicator ``ident``. Kinds: failing (in its excepthook, which ends the job), behind
    (exited before this call: never comes), done (exited after it), same, other (blocked in
    another collective of this communicator), elsewhere (in a collective of another
    communicator), running, silent."""
    if state is None:
        return "silent", "no answer (busy in a long computation?)"
    if state["failing"]:
        return "failing", "raising an uncaught error (its excepthook ends the job)"
    if state["exited"]:
        kind = "behind" if state["calls_on"] < calls else "done"
        return kind, f"exited after call {state['calls_on']} on this communicator"
    if not state["inside"]:
        last = f"; its last collective: {state['name']}" if state["calls"] else ""
        return "running", f"running, not in a collective (call {state['calls_on']} done{last})"
    if state["comm"] != ident:
        where = f"{state['name']} (call {state['calls']}) at {state['site']}"
        return "elsewhere", f"in {where} on another communicator"
    kind = "same" if state["calls"] == calls and state["name"] == name else "other"
    return (
        kind,
        f"in {state['name']} (call {state['calls']} on this communicator) at {state['site']}",
    )


class _Book:
    """The watchdog thread's notes, by collective number (of ``_LATEST``)."""

    def __init__(self) -> None:
        self.due: dict[int, float] = {}  # when to ask the others next
        self.asked: dict[int, float] = {}  # when this rank last asked
        self.late: dict[int, float] = {}  # when a rank that is not the reporter ends the job
        self.reported: set[int] = set()  # a long wait reported (or left to the reporter)


def _check(timeout: float, book: _Book) -> None:
    """Ask the other ranks where they are when this rank has waited long enough in a
    collective; report a long wait once, end the job where the ranks cannot meet again."""
    seq, name, since, thread, guard, calls = _LATEST[0]
    frame = _inside(thread)
    if guard is None or frame is None:
        return
    code, line = _program_line(frame)
    now = time.monotonic()
    waited = now - since
    side = _SIDE[0]
    if side is None or guard.members is None:
        if waited >= timeout and seq not in book.reported:  # this rank's own wait only
            book.reported.add(seq)
            _report_alone(guard, name, waited, code, line)
        return
    grace = min(1.0, timeout)
    due = book.due.get(seq, since + timeout)
    if any(r in _EXITED for r in guard.members):  # a rank has exited: ask at once
        due = min(due, max(since + grace / 5, book.asked.get(seq, 0.0) + grace))
    if now < due:
        return
    book.due[seq], book.asked[seq] = now + timeout, now
    states = _ask(side, guard, wait=2.0)
    if _LATEST[0][0] != seq or not _inside(thread):
        return  # completed meanwhile
    rows = {r: _describe(s, guard.ident, calls, name) for r, s in sorted(states.items())}
    kinds = {kind for kind, _ in rows.values()}
    blocked = [r for r, (kind, _) in rows.items() if kind in ("same", "other")]
    settled = all(states[r]["waited"] >= grace for r in blocked)  # type: ignore[index]
    stuck = "behind" in kinds or (
        "other" in kinds and kinds <= {"same", "other", "done"} and settled
    )
    abort = stuck or (waited >= timeout and get_config().collective_timeout_abort)
    reporter = min(blocked, default=side.rank) == side.rank
    if not abort:
        if waited >= timeout and seq not in book.reported:
            book.reported.add(seq)  # the lowest waiting rank reports a long wait, once
            if reporter:
                _write(side, name, waited, calls, code, line, rows, stuck, abort)
        return
    if not reporter:  # the lowest blocked rank reports and ends the job; if it has not:
        late = book.late.setdefault(seq, now + 3 * grace)
        book.due[seq] = min(book.due[seq], late)
        if now < late:
            return
    _write(side, name, waited, calls, code, line, rows, stuck, abort)
    if _ABORT[0] is not None:
        _ABORT[0](3)


def _write(side, name, waited, calls, code, line, rows, stuck, abort) -> None:
    where = "".join(f"\n    rank {r}: {text}" for r, (_, text) in rows.items())
    text = (
        f"xdist watchdog: rank {side.rank} of {side.size} has waited {waited:.1f} s in {name}, "
        f"called at {_site(code, line)} (call {calls} on this communicator).\n"
        + ("  The ranks cannot meet again:" if stuck else "  Where the ranks are:")
        + where
        + "\n"
        + _HINT
        + f"  ({'ending the job' if abort else 'still waiting'}: settings "
        "XDIST_COLLECTIVE_TIMEOUT, XDIST_COLLECTIVE_TIMEOUT_ABORT)\n"
    )
    os.write(2, text.encode(errors="replace"))


def _report_alone(guard: Guard, name: str, waited: float, code, line: int) -> None:
    abort = get_config().collective_timeout_abort
    text = (
        f"xdist watchdog: rank {guard.rank} of {guard.size} has waited {waited:.0f} s in "
        f"{name}, called at {_site(code, line)}.\n"
        + _HINT
        + f"  ({'ending the job' if abort else 'still waiting'}: settings "
        "XDIST_COLLECTIVE_TIMEOUT, XDIST_COLLECTIVE_TIMEOUT_ABORT)\n"
    )
    os.write(2, text.encode(errors="replace"))
    if abort:
        guard._abort(3)


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
