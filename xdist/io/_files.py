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
only (``os.replace``, atomic within a file system). An error raised alike on every rank
between the steps (used as a context manager, ``with AtomicSave(...) as save:``) removes it
too. A process killed mid-save cannot clean up: the next save of the same path removes
the temporaries that such a save left (``remove_stale``; their names end in a token of 16
hex digits and ``.xdist-tmp``, so no other path's file matches).

I/O errors name their cause: ``described`` turns an ``OSError`` (or a library's bare
message, such as netCDF's "NetCDF: HDF error") into an error that names the function, the
path and the cause (``ENOSPC``, ``EACCES``, ...).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .._movement.agreement import agree_on_errors, from_root

__all__ = [
    "AtomicSave",
    "Progress",
    "described",
    "error_number",
    "is_zarr_store",
    "reading",
    "remove_stale",
    "require",
    "stale_pattern",
    "write_at",
]

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


# -- I/O errors that name their cause --------------------------------------------------------
def error_number(exc: BaseException) -> int | None:
    """The system error number of ``exc``: its ``errno`` when that is one (netCDF4 puts its
    own negative codes there), else the ``errno = N`` of an HDF5 message."""
    n = getattr(exc, "errno", None)
    if isinstance(n, int) and n > 0 and n in errno.errorcode:
        return n
    found = re.search(r"errno = (\d+)", str(exc))
    if found and int(found[1]) in errno.errorcode and int(found[1]) > 0:
        return int(found[1])
    return None


def _writable(path: str) -> bool:
    """Whether this process may write ``path`` (its effective user, where the platform can
    tell: a process that changed it, or root, is judged as it will be)."""
    effective = os.access in os.supports_effective_ids
    return os.access(path, os.W_OK, effective_ids=effective)


def _diagnosed(where: str, need: int) -> int | None:
    """The likely cause of a library's write failure that carries no error number (netCDF's
    "NetCDF: HDF error"), read from the file system: ``where`` (the file written, or its
    directory) cannot be written (EACCES), is on a read-only file system (EROFS), would
    pass this process's file size limit (EFBIG), or its file system has less room left
    than the ``need`` bytes of the write, or under 1 MiB (ENOSPC)."""
    target = where if os.path.exists(where) else os.path.dirname(where)
    try:
        if not _writable(target):
            return errno.EACCES
        st = os.statvfs(os.path.dirname(where) or ".")
    except OSError:
        return None
    if st.f_flag & os.ST_RDONLY:
        return errno.EROFS
    limit = _file_size_limit()
    if limit is not None and os.path.isfile(where) and os.path.getsize(where) + need >= limit:
        return errno.EFBIG
    blocks = st.f_bfree if os.geteuid() == 0 else st.f_bavail  # root may use the reserve
    if blocks * st.f_frsize < max(need, 1 << 20):
        return errno.ENOSPC
    return None


def _file_size_limit() -> int | None:
    """This process's limit on the size of the files it writes (``ulimit -f``), if any."""
    try:
        import resource
    except ImportError:  # not on Windows
        return None
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def _library_failure(exc: BaseException) -> bool:
    """An error of a file library (netCDF4's ``RuntimeError("NetCDF: ...")``, h5py's
    ``RuntimeError`` or ``OSError`` with HDF5's ``errno = N``, any ``OSError``) rather than
    of xdist or of the arguments."""
    if isinstance(exc, OSError):
        return True
    text = str(exc)
    library = "NetCDF" in text or "HDF" in text or re.search(r"errno = \d+", text)
    return isinstance(exc, RuntimeError) and bool(library)


def described(
    exc: BaseException,
    func: str,
    path: str,
    doing: str = "write",
    *,
    where: str | None = None,
    need: int = 0,
) -> BaseException:
    """``exc``, when it is an I/O error, as an error that names ``func``, ``path`` and the
    cause: ``"save_npy: cannot write '/d/x.npy': no space left on device (ENOSPC)"``, of the
    type Python gives that error number (``PermissionError`` for EACCES); the library's own
    message follows when it says more. A write failure without an error number is diagnosed
    from the file system at ``where`` (see ``_diagnosed``). Other errors, and those that
    already name ``func``, are returned as they are."""
    text = str(exc)
    if not _library_failure(exc) or text.startswith(f"{func}:"):
        return exc
    n = error_number(exc)
    if n is None and doing == "write":
        n = _diagnosed(where or path, need)
    if n is None:
        try:
            return type(exc)(f"{func}: cannot {doing} {path!r}: {text}")
        except Exception:  # a library's error type that takes other arguments
            return OSError(f"{func}: cannot {doing} {path!r}: {type(exc).__name__}: {text}")
    cause = f"{os.strerror(n)[:1].lower()}{os.strerror(n)[1:]} ({errno.errorcode[n]})"
    plain = isinstance(exc, OSError) and exc.errno == n and exc.strerror == os.strerror(n)
    detail = "" if plain else f" [{type(exc).__name__}: {text}]"
    return type(OSError(n, ""))(f"{func}: cannot {doing} {path!r}: {cause}{detail}")


@contextlib.contextmanager
def reading(func: str, path: str) -> Iterator[None]:
    """Errors of reading ``path`` inside the block named by ``described``."""
    try:
        yield
    except (OSError, RuntimeError) as exc:
        _reraise(described(exc, func, path, "read"), exc)


def _reraise(new: BaseException, exc: BaseException) -> None:
    """Raise ``new``, the description of ``exc`` (or ``exc`` itself)."""
    if new is exc:
        raise exc
    raise new from exc


# -- the target and the temporaries -------------------------------------------------------------
def _check_target(path: str, func: str, directory: bool) -> None:
    """The final name must be free or hold what a save of this kind replaces."""
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"{func}: the directory {parent!r} does not exist")
    if not (_writable(parent) and os.access(parent, os.X_OK)):
        raise PermissionError(
            f"{func}: cannot write {path!r}: permission denied (EACCES): the directory "
            f"{parent!r} is not writable"
        )
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
    """One save to ``path`` through a temporary name (see the module's docstring); a
    context manager whose exit with an error (raised alike on every rank) removes the
    temporary.

    ``create(tmp)`` runs on rank 0 and returns JSON values every rank gets as ``info``.
    ``commit(tmp, path)`` and ``discard(tmp)`` (rank 0) replace the defaults when the
    temporary is not a file beside the target (a dataset inside an HDF5 file); then
    ``create`` removes the stale temporaries itself.
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
        self._done = False
        self._beside = temporary is None  # the temporary is a file or directory of its own
        self._commit = commit or (lambda tmp, final: _replace(tmp, final, directory))
        self._discard = discard or _remove
        name = temporary or _temporary_name

        def prepare() -> dict:
            if self._beside:
                _check_target(self.path, func, directory)
                remove_stale(self.path)
            tmp = name(self.path, secrets.token_hex(8))
            try:
                return {"tmp": tmp, "info": create(tmp)}
            except BaseException as exc:
                self._discard(tmp)
                _reraise(self._described(exc, tmp), exc)

        got = from_root(prepare, comm)
        self.tmp, self.info = got["tmp"], got["info"]
        # The file written (for the diagnosis of errors): the temporary, or the target
        # that holds a temporary dataset.
        self.file = self.tmp if self._beside else self.path

    def _described(self, exc: BaseException, where: str, need: int = 0) -> BaseException:
        return described(exc, self.func, self.path, where=where, need=need)

    def __enter__(self) -> AtomicSave:
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        # An error raised between the steps, alike on every rank (an argument refused by a
        # later check, a collective's error, an interrupt): rank 0 removes the temporary
        # here, without messages, since the other ranks are leaving too.
        if kind is not None and not self._done and self.comm.rank == 0:
            self._done = True
            self._discard(self.tmp)

    @contextlib.contextmanager
    def part(self, need: int = 0) -> Iterator[None]:
        """This rank's share of the work: an error is kept for ``check``, not raised, so the
        collectives that follow still meet their partners (the first error counts). An I/O
        error is kept named by its cause (``described``; ``need``: the bytes this part
        writes, for a library's failure without an error number)."""
        try:
            yield
        except Exception as exc:
            if self._error is None:
                self._error = self._described(exc, self.file, need)
                if self._error is not exc:
                    self._error.__cause__ = exc

    def check(self, values: tuple[int, ...] = ()) -> Any:
        """Agree that every rank's parts succeeded (one allgather, also of ``values``);
        else remove the temporary and raise the first failing rank's error everywhere.
        Returns every rank's ``values`` (see ``agree_on_errors``)."""
        try:
            return agree_on_errors(self._error, self.comm, values)
        except BaseException:
            # Rank 0 removes the temporary while the others wait for its word (two
            # broadcasts): when the error is raised, nothing is left on disk.
            self._done = True
            from_root(lambda: self._discard(self.tmp), self.comm)
            raise

    def in_turns(self, writers: Sequence[bool], write: Callable[[], None], need: int = 0) -> None:
        """``write()`` on each rank r with ``writers[r]``, one rank after the other in rank
        order, for formats whose library cannot write from several processes at once; the
        ranks agree after each turn (one allgather each), so the file is open in one
        process at a time and a failure stops the turns that follow."""
        for r, has_part in enumerate(writers):
            if not has_part:
                continue
            if self.comm.rank == r:
                with self.part(need):
                    write()
            self.check()

    def finish(self) -> None:
        """``check``, then rank 0 moves the temporary to the final name (and removes what
        earlier saves of it left: the ``.old`` of a store kept while the name was free)."""
        self.check()
        self._done = True

        def commit() -> None:
            try:
                self._commit(self.tmp, self.path)
            except BaseException as exc:
                self._discard(self.tmp)
                _reraise(self._described(exc, self.path), exc)
            if self._beside:
                remove_stale(self.path)

        from_root(commit, self.comm)


def _temporary_name(path: str, token: str) -> str:
    """``.<name>.<token>.xdist-tmp`` beside ``path`` (``token``: 16 hex digits)."""
    directory, name = os.path.split(path)
    return os.path.join(directory, f".{name}.{token}.xdist-tmp")


def stale_pattern(name: str) -> re.Pattern:
    """The names of the temporaries of saves to ``name`` (a file name or an HDF5 dataset's
    last part), and nothing else: a name that merely starts alike (``x.npy`` against
    ``x``) does not match, since the 16 hex digits and ``.xdist-tmp`` must follow it."""
    return re.compile(rf"\.?{re.escape(name)}\.[0-9a-f]{{16}}\.xdist-tmp(\.old)?")


def remove_stale(path: str) -> list[str]:
    """Remove the temporaries that earlier saves of ``path`` left in its directory (a
    process killed mid-save cannot remove its own), and return their names. The ``.old``
    of a replaced Zarr store is kept while nothing is under ``path``: it may be the only
    copy of the last complete store. Rank 0, one directory listing."""
    directory, name = os.path.split(path)
    pattern = stale_pattern(name)
    try:
        entries = os.listdir(directory)
    except OSError:
        return []
    target_missing = not os.path.lexists(path)
    removed = []
    for entry in entries:
        found = pattern.fullmatch(entry)
        if found and entry.startswith(".") and not (found[1] and target_missing):
            _remove(os.path.join(directory, entry))
            removed.append(entry)
    return removed
