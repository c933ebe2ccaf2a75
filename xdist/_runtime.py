"""The default communicator, backend and device of this process.

They start as ``XDIST_COMM``, ``XDIST_BACKEND`` and ``XDIST_DEVICE`` say (read by
``_config``, the one reader of xdist's environment variables). The device ``cuda`` alone picks
a GPU round-robin by the rank's position on its node (node-local rank modulo the node's GPU
count), so the ranks of a node spread over its GPUs; ``cuda:N`` pins GPU N. The node-local
rank comes from the launcher's environment, or else from the communicator (MPI's
``COMM_TYPE_SHARED``). The backend and device can be changed in code with ``set_backend`` or
for a block of code with ``backend_context``, the communicator with ``set_default_comm``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ._config import backend_setting, comm_setting, device_setting
from ._transport.comm import Communicator, SelfComm
from ._transport.launcher import check_world, launched_size
from .backends import Backend, Device, get_backend, prepare
from .backends.threads import limit_blas_threads

__all__ = [
    "backend_context",
    "default_backend",
    "default_comm",
    "gpu_for_rank",
    "node_local_rank",
    "set_backend",
    "set_default_comm",
]

_comm: Communicator | None = None
_backend: Backend | None = None

# Environment variables in which MPI launchers and schedulers give the node-local rank.
_LOCAL_RANK_VARS = ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID")


def _make_world() -> Communicator:
    if comm_setting() == "self":
        return SelfComm()
    try:
        from ._transport.mpi import world
    except (ImportError, RuntimeError) as error:
        # No mpi4py (ImportError), or mpi4py without an MPI library behind it (RuntimeError
        # "cannot load MPI library"): one process, no MPI, and a one-line notice.
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        check_world(1, f"no MPI library ({reason})")
        sys.stderr.write(
            f"xdist: no MPI ({reason}); running as one process. For several ranks install an "
            "MPI library, e.g. pip install 'xdist-array[mpi]' (XDIST_COMM=self: no notice)\n"
        )
        return SelfComm()
    return world()


def start() -> None:
    """Called by ``import xdist``: under a launcher with several ranks, make the world
    communicator now, so that its abort-on-uncaught-exception hook is in place from the
    moment xdist is imported (an error before the first xdist call then ends the job instead
    of leaving the other ranks waiting). One process: nothing (MPI is started on first use)."""
    if comm_setting() == "world" and launched_size() > 1:
        default_comm()


def default_comm() -> Communicator:
    """The communicator new arrays use: ``MPI.COMM_WORLD`` when MPI is there, else one process."""
    global _comm
    if _comm is None:
        _comm = _make_world()
    return _comm


def set_default_comm(comm: Communicator) -> Communicator:
    """Make ``comm`` the default for new arrays; returns the previous default."""
    global _comm
    if not isinstance(comm, Communicator):
        raise TypeError(f"set_default_comm: expected a Communicator, got {type(comm).__name__}")
    previous = default_comm()
    _comm = comm
    return previous


def node_local_rank(comm: Communicator | None = None) -> int:
    """This process's rank among the ranks of its node: from the launcher's environment, else
    from the communicator (``comm.node_rank()``, collective on its first call)."""
    for name in _LOCAL_RANK_VARS:
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    comm = default_comm() if comm is None else comm
    node_rank = getattr(comm, "node_rank", None)
    return int(node_rank()) if node_rank is not None else 0


def gpu_for_rank(gpus: list[Device], local_rank: int) -> Device:
    """The GPU of the rank ``local_rank`` of a node: round-robin over the node's ``gpus``."""
    if not gpus:
        raise ValueError("XDIST_DEVICE=cuda: no GPU is visible to this rank")
    return gpus[local_rank % len(gpus)]


def _pick_device(backend: Backend, spec: str) -> Device | None:
    """The device named by ``XDIST_DEVICE``-style ``spec``; ``cuda`` is round-robin by node."""
    spec = spec.strip().lower()
    if spec in ("", "default"):
        return None
    if spec == "cuda":
        gpus = [d for d in backend.devices() if d.kind == "cuda"]
        if not gpus:
            raise ValueError(f"XDIST_DEVICE=cuda: the {backend.name} backend sees no GPU")
        return gpu_for_rank(gpus, node_local_rank())
    return backend.check_device(spec, "XDIST_DEVICE")


prepare(backend_setting())  # before the program's first use of the library


def default_backend() -> Backend:
    """The backend new arrays use (``XDIST_BACKEND``, numpy by default)."""
    global _backend
    if _backend is None:
        limit_blas_threads()  # before the backend reads the BLAS's threads (Torch's)
        backend = get_backend(backend_setting())
        backend.set_default_device(_pick_device(backend, device_setting()))
        _backend = backend
    return _backend


def set_backend(name: str, device: Any = None) -> tuple[str, Device]:
    """Make the backend ``name`` (and ``device``: a Device, ``"cpu"``, ``"cuda"``,
    ``"cuda:N"``) the default for new arrays; returns the previous ``(name, device)``."""
    global _backend
    previous = default_backend()
    before = (previous.name, previous.default_device())
    backend = get_backend(name)
    chosen = device if not isinstance(device, str) else _pick_device(backend, device)
    backend.set_default_device(chosen)
    _backend = backend
    return before


@contextmanager
def backend_context(name: str, device: Any = None) -> Iterator[Backend]:
    """Use the backend ``name`` (and ``device``) for new arrays inside a ``with`` block."""
    previous_name, previous_device = set_backend(name, device)
    try:
        yield default_backend()
    finally:
        set_backend(previous_name, previous_device)
