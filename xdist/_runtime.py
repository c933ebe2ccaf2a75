"""The default communicator and backend of this process."""

from __future__ import annotations

import os

from ._comm import Communicator, SelfComm
from .backends import Backend, get_backend

__all__ = ["default_comm", "set_default_comm", "default_backend"]

_comm: Communicator | None = None


def _make_world() -> Communicator:
    choice = os.environ.get("XDIST_COMM", "world").strip().lower()
    if choice == "self":
        return SelfComm()
    if choice != "world":
        raise ValueError(f"XDIST_COMM: expected 'world' or 'self', got {choice!r}")
    try:
        from ._mpi import world
    except ImportError:  # no mpi4py, or no MPI library behind it: one process, no MPI
        return SelfComm()
    return world()


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


def default_backend() -> Backend:
    return get_backend(os.environ.get("XDIST_BACKEND", "numpy").strip().lower() or "numpy")
