"""What the MPI launcher says about this job, read from the variables it sets in each rank's
environment, and the check that MPI agrees with it.

A Python whose mpi4py loads one MPI library, started by another library's ``mpiexec`` (or by
``srun`` without that library's PMI), initialises MPI as a singleton: every process gets a
world of one rank and computes the whole array alone, and nothing fails. The launcher's own
variables still give the job's size, so ``check_world`` compares the two when the world
communicator is made, and raises where the launcher started several ranks but MPI sees one.

This module reads the environment only; it never imports mpi4py.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["RANK_VARS", "SIZE_VARS", "check_world", "launched_rank", "launched_size"]

# Where launchers give the job's size: MPICH's and Intel MPI's Hydra and any PMI-1 launcher
# (PMI_SIZE); Open MPI (OMPI_COMM_WORLD_SIZE, also under PMIx); the ranks on this node, a
# lower bound of the size (MPI_LOCALNRANKS: Hydra, Intel MPI; OMPI_COMM_WORLD_LOCAL_SIZE).
SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")
# Where they give this process's rank (PMIX_RANK: PMIx launchers, Open MPI 5's and srun's).
RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")
# Slurm's, read only inside a job step (``srun``): a batch script's own environment holds the
# allocation's task count (SLURM_NTASKS) while it runs as one process.
_SLURM_STEP_VARS = ("SLURM_STEP_ID", "SLURM_STEPID")
_SLURM_SIZE_VARS = ("SLURM_STEP_NUM_TASKS", "SLURM_NTASKS")
_SLURM_RANK_VARS = ("SLURM_PROCID",)


def _told(env: Mapping[str, str]) -> list[tuple[str, int, bool]]:
    """``(variable, value, is_rank)`` for each launcher variable set to an integer."""
    sizes, ranks = SIZE_VARS, RANK_VARS
    if any(name in env for name in _SLURM_STEP_VARS):
        # the step's own task count where srun gives it, else the job's
        slurm = next((name for name in _SLURM_SIZE_VARS if name in env), None)
        sizes, ranks = sizes + ((slurm,) if slurm else ()), ranks + _SLURM_RANK_VARS
    found = []
    for names, is_rank in ((sizes, False), (ranks, True)):
        for name in names:
            value = env.get(name, "").strip()
            if value.isdigit():
                found.append((name, int(value), is_rank))
    return found


def _size(found: list[tuple[str, int, bool]]) -> int:
    """The least size the variables imply: the largest size given, or a rank ``r`` plus 1."""
    return max((value + is_rank for _, value, is_rank in found), default=1)


def launched_size(env: Mapping[str, str] | None = None) -> int:
    """The number of ranks the launcher started, as far as its variables tell (1 when not
    under a launcher)."""
    return _size(_told(os.environ if env is None else env))


def launched_rank(env: Mapping[str, str] | None = None) -> int:
    """This process's rank as the launcher gives it (0 when not under a launcher)."""
    found = _told(os.environ if env is None else env)
    return next((value for _, value, is_rank in found if is_rank), 0)


def check_world(world_size: int, library: str, env: Mapping[str, str] | None = None) -> None:
    """Raise where the launcher started several ranks but MPI's world has ``world_size`` 1
    (``library``: the MPI library mpi4py loaded, or why none was, for the message)."""
    found = _told(os.environ if env is None else env)
    size = _size(found)
    if world_size != 1 or size <= 1:
        return
    told = ", ".join(f"{name}={value}" for name, value, _ in found)
    raise RuntimeError(
        f"xdist: the launcher started {size} ranks ({told}) but MPI's world communicator here "
        f"has {world_size} rank: mpi4py uses {library}, not the MPI library whose launcher "
        f"started this job, so each of the {size} processes would compute the whole array "
        "alone. Start the job with the mpiexec of the MPI library mpi4py loads "
        "(python -m mpi4py --mpi-library names it; the 'mpi' extra puts one in the "
        "environment's bin/), or build mpi4py against the site's MPI: "
        "pip install --no-binary=mpi4py mpi4py. To run each process alone on purpose, set "
        "XDIST_COMM=self."
    )
