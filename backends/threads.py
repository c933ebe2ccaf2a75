"""Threads per rank: a node's cores shared among the ranks a launcher started on it.

Under ``mpiexec -n R``, each rank's libraries would start a thread per core: OpenBLAS (NumPy's
and SciPy's BLAS) starts as many as the CPUs the process may run on, so that R ranks on C
cores run R x C threads, which wait on one another (two ranks on two cores: NumPy's GEMM of
500000 x 16 by 16 x 32 took 125-129 ms against 26-49 ms with one thread per rank). Torch instead
reads MPICH's ``MPI_LOCALNRANKS`` and silently drops to one thread. xdist sets both to the
node's cores divided by the ranks on the node (``cores_per_rank``), or to what the user asked:
``XDIST_TORCH_THREADS`` for Torch, ``XDIST_BLAS_THREADS`` for the BLAS; a thread count the
user set for OpenBLAS in the environment (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``, ...)
is left as it is.
"""

from __future__ import annotations

import os

from .._config import blas_threads_setting

__all__ = ["OPENBLAS_VARS", "cores_per_rank", "limit_blas_threads", "local_ranks"]

# Where launchers give the ranks on this node: MPICH's and Intel MPI's Hydra, Open MPI.
_LOCAL_RANKS = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")
# The variables OpenBLAS reads for its threads, first found first.
OPENBLAS_VARS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
# The variables by which a user sets the threads of the BLAS libraries (OpenBLAS's, MKL's and
# BLIS's): where one is set, xdist does not change the BLAS.
_USER_BLAS = (*OPENBLAS_VARS, "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
_DONE: list[int | None] = []  # the BLAS threads set, once per process


def local_ranks() -> int:
    """The ranks the launcher started on this node (1 when not under a launcher)."""
    for name in _LOCAL_RANKS:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return 1


def cores_per_rank() -> int:
    """The node's cores divided by the ranks on it, at least 1."""
    return max(1, (os.cpu_count() or 1) // local_ranks())


def limit_blas_threads() -> int | None:
    """Set the threads of the BLAS libraries, once per process: to ``XDIST_BLAS_THREADS``
    where it is set, else, under a launcher that started several ranks on this node and where
    the user set no BLAS thread count, to ``cores_per_rank()``. Libraries loaded already (NumPy's
    OpenBLAS) are set through threadpoolctl, where it is installed; libraries loaded later
    (SciPy's) read ``OPENBLAS_NUM_THREADS``, set here for them. Returns the count set, else
    ``None``. A bad ``XDIST_BLAS_THREADS`` raises the same ValueError on every rank, which
    share the environment."""
    if _DONE:
        return _DONE[0]
    threads = blas_threads_setting()
    if threads is None and local_ranks() > 1 and not any(os.environ.get(n) for n in _USER_BLAS):
        threads = cores_per_rank()
    if threads is not None:
        os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            pass
        else:
            threadpool_limits(limits=threads, user_api="blas")
    _DONE.append(threads)
    return threads
