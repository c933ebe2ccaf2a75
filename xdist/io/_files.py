"""Saving without half-written files, optional libraries, and the progress bar.

A save goes through ``AtomicSave``:

1. rank 0 checks the target and creates the file (or Zarr directory) under a temporary name
   in the same directory, ``.<name>.<token>.xdist-tmp``: header, dataset or metadata; every
   rank learns the name and what rank 0 made (``from_root``: two broadcasts);
2. every rank writes its part inside ``part()``, which keeps an error instead of raising
   (collectives such as an exchange of boundary rows may run between parts);
3. ``finish()``: the ranks agree that every part succeeded (one allgather), then rank 0
   renames the temporary to the final name (two broadcasts carry its outcome).

A failure at any step raises the same error on every rank and rank 0 removes the
temporary, so the final name never shows a half-written file: it is touched by the rename
only (``os.replace``, atomic within a file system).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import secrets
import shutil
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .._movement.agreement import agree_on_errors, from_root

__all__ = ["AtomicSave", "Progress", "is_zarr_store", "require", "write_at"]

EXTRA = "pip install 'xdist-array[io]'"


def require(module: str, func: str) -> Any:
    """The optional library ``module``, or an ImportError naming the ``io`` extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{func} needs {module}, which is not installed: {EXTRA}") from exc


def write_at(fd: int, data: memoryview, offset: int) -> None:
    """Write all of ``data`` at byte ``offset`` of the open file ``fd`` (``pwrite`` may
    write less than asked: it is repeated)."""
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done:], offset + done)


class Progress:
    """A tqdm bar of bytes on rank 0 when ``enabled`` and tqdm is installed; else nothing."""

    def __init__(self, enabled: bool, comm: Any, total: int, desc: str) -> None:
        self._bar = None
        if enabled and comm.rank == 0:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                return
            self._bar = tqdm(total=total, unit="B", unit_scale=True, desc=desc)

    def update(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.close()


def is_zarr_store(path: str) -> bool:
    """Whether the directory ``path`` is a Zarr array or group (v3 or v2 metadata)."""
    names = ("zarr.json", ".zarray", ".zgroup")
    return os.path.isdir(path) and any(os.path.exists(os.path.join(path, n)) for n in names)


def _check_target(path: str, func: str, directory: bool) -> None:
    """The final name must be free or hold what a save of this kind replaces."""
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"{func}: the directory {parent!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"{func}: the directory {parent!r} is not writable")
    if directory:
        if os.path.lexists(path) and not is_zarr_store(path):
            raise FileExistsError(
                f"{func}: {path!r} exists and is not a Zarr store; it is not replaced"
            )
    elif os.path.isdir(path):
        raise IsADirectoryError(f"{func}: {path!r} is a directory")


def _remove(path: str) -> None:
    """Remove a file or directory, if there (cleanup: its own failure is not reported)."""
    with contextlib.suppress(OSError):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def _replace(tmp: str, path: str, directory: bool) -> None:
    """``tmp`` under the name ``path``; a Zarr directory there is moved aside first and
    removed once the new one is in place (a directory cannot be replaced in one step)."""
    if not directory or not os.path.lexists(path):
        os.replace(tmp, path)
        return
    old = f"{tmp}.old"
    os.replace(path, old)
    try:
        os.replace(tmp, path)
    except OSError:
        os.replace(old, path)
        raise
    _remove(old)


class AtomicSave:
    """One save to ``path`` through a temporary name (see the module's docstring).

    ``create(tmp)`` runs on rank 0 and returns JSON values every rank gets as ``info``.
    ``commit(tmp, path)`` and ``discard(tmp)`` (rank 0) replace the defaults when the
    temporary is not a file beside the target (a dataset inside an HDF5 file).
    """

    def __init__(
        self,
        path: Any,
        func: str,
        comm: Any,
        create: Callable[[str], Any],
        *,
        directory: bool = False,
        temporary: Callable[[str, str], str] | None = None,
        commit: Callable[[str, str], None] | None = None,
        discard: Callable[[str], None] | None = None,
    ) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self.func, self.comm = func, comm
        self._error: BaseException | None = None
        self._commit = commit or (lambda tmp, final: _replace(tmp, final, directory))
        self._discard = discard or _remove
        name = temporary or _temporary_name

        def prepare() -> dict:
            if temporary is None:
                _check_target(self.path, func, directory)
            tmp = name(self.path, secrets.token_hex(8))
            try:
                return {"tmp": tmp, "info": create(tmp)}
            except BaseException:
                self._discard(tmp)
                raise

        got = from_root(prepare, comm)
        self.tmp, self.info = got["tmp"], got["info"]

    @contextlib.contextmanager
    def part(self) -> Iterator[None]:
        """This rank's share of the work: an error is kept for ``check``, not raised, so the
        collectives that follow still meet their partners (the first error counts)."""
        try:
            yield
        except Exception as exc:
            if self._error is None:
                self._error = exc

    def check(self, values: tuple[int, ...] = ()) -> Any:
        """Agree that every rank's parts succeeded (one allgather, also of ``values``);
        else remove the temporary and raise the first failing rank's error everywhere.
        Returns every rank's ``values`` (see ``agree_on_errors``)."""
        try:
            return agree_on_errors(self._error, self.comm, values)
        except BaseException:
            # Rank 0 removes the temporary while the others wait for its word (two
            # broadcasts): when the error is raised, nothing is left on disk.
            from_root(lambda: self._discard(self.tmp), self.comm)
            raise

    def in_turns(self, writers: Sequence[bool], write: Callable[[], None]) -> None:
        """``write()`` on each rank r with ``writers[r]``, one rank after the other in rank
        order, for formats whose library cannot write from several processes at once; the
        ranks agree after each turn (one allgather each), so the file is open in one
        process at a time and a failure stops the turns that follow."""
        for r, has_part in enumerate(writers):
            if not has_part:
                continue
            if self.comm.rank == r:
                with self.part():
                    write()
            self.check()

    def finish(self) -> None:
        """``check``, then rank 0 moves the temporary to the final name."""
        self.check()

        def commit() -> None:
            try:
                self._commit(self.tmp, self.path)
            except BaseException:
                self._discard(self.tmp)
                raise

        from_root(commit, self.comm)


def _temporary_name(path: str, token: str) -> str:
    directory, name = os.path.split(path)
    return os.path.join(directory, f".{name}.{token}.xdist-tmp")
