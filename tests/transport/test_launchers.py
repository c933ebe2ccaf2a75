"""A launcher that started several ranks, and an MPI world of one rank, is an error.

A Python whose mpi4py loads one MPI library, started by another library's launcher, runs as
p separate one-rank jobs that would each compute the whole array. ``import xdist`` (the
moment the world communicator is made under a launcher) raises instead, naming the launcher's
variables, the sizes and the fix. Child processes started here carry fake launcher variables:
the MPI library in this environment then starts as a singleton, as a foreign library would.
A real job of this library's ``mpiexec``, and a plain one-process run, must not raise.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import RANK, SIZE, launcher_rank, outside_mpi_job, own_processes

from xdist._transport.launcher import check_world, launched_rank, launched_size

SOURCE = textwrap.dedent(
    """
    import xdist
    comm, total = xdist.default_comm(), float(xdist.sum(xdist.ones(6, split=0)))
    if comm.rank == 0:
        print(comm.size, total)
    """
)


def _child(env: dict[str, str], source: str = SOURCE) -> subprocess.CompletedProcess:
    """``python -c source`` alone (no outer job's variables) with ``env`` added."""
    return subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=120,
        env={**outside_mpi_job(), "XDIST_BACKEND": "numpy", **env},
    )


# What each launcher sets in a rank's environment (the sizes the message must name).
FOREIGN_LAUNCHERS = {
    "hydra": ({"PMI_SIZE": "3", "PMI_RANK": "1"}, "PMI_SIZE=3"),
    "open-mpi": (
        {"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "2"},
        "OMPI_COMM_WORLD_SIZE=4",
    ),
    "intel-mpi": ({"MPI_LOCALNRANKS": "2", "MPI_LOCALRANKID": "0"}, "MPI_LOCALNRANKS=2"),
    "srun": (
        {
            "SLURM_STEP_ID": "0",
            "SLURM_STEP_NUM_TASKS": "3",
            "SLURM_NTASKS": "3",
            "SLURM_PROCID": "2",
        },
        "SLURM_STEP_NUM_TASKS=3",
    ),
    "no-mpi-library": (
        {"PMI_SIZE": "2", "MPI4PY_LIBMPI": "/nonexistent/libmpi.so"},
        "PMI_SIZE=2",
    ),
}


@own_processes
@pytest.mark.parametrize("launcher", list(FOREIGN_LAUNCHERS))
def test_a_foreign_launcher_raises_at_import(launcher):
    env, told = FOREIGN_LAUNCHERS[launcher]
    proc = _child(env)
    assert proc.returncode != 0, f"ran as one process: {proc.stdout}"
    size = told.split("=")[1]
    for part in (
        told,
        f"the launcher started {size} ranks",
        "world communicator here has 1",
        "pip install --no-binary=mpi4py mpi4py",
        "XDIST_COMM=self",
    ):
        assert part in proc.stderr, proc.stderr


ONE_PROCESS = {
    "plain": {},
    "launcher-of-one": {"PMI_SIZE": "1", "PMI_RANK": "0"},
    # A Slurm batch script runs as one process although SLURM_NTASKS gives the allocation's.
    "slurm-batch-script": {"SLURM_NTASKS": "4", "SLURM_PROCID": "0", "SLURM_JOB_ID": "7"},
    # Each process alone on purpose.
    "xdist-comm-self": {"PMI_SIZE": "3", "PMI_RANK": "1", "XDIST_COMM": "self"},
}


@own_processes
@pytest.mark.parametrize("case", list(ONE_PROCESS))
def test_one_process_runs(case):
    proc = _child(ONE_PROCESS[case])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "6.0"], proc.stdout


def test_this_job_agrees_with_its_launcher():
    # This run itself: under mpiexec at 2 and 3 ranks the launcher's variables and the world
    # agree (import xdist did not raise), and at 1 rank there is no launcher.
    assert launched_size() == SIZE
    assert launched_rank() == launcher_rank() == RANK


@own_processes
def test_a_real_job_of_this_mpiexec_does_not_raise(tmp_path: Path):
    script = tmp_path / "job.py"
    script.write_text(SOURCE)
    mpiexec = Path(sys.executable).parent / "mpiexec"
    proc = subprocess.run(
        [str(mpiexec), "-n", "3", sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**outside_mpi_job(), "XDIST_BACKEND": "numpy"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["3", "6.0"], proc.stdout


@pytest.mark.parametrize(
    "env, size, rank",
    [
        ({}, 1, 0),
        ({"PMI_SIZE": "3", "PMI_RANK": "2"}, 3, 2),
        ({"OMPI_COMM_WORLD_SIZE": "5", "OMPI_COMM_WORLD_RANK": "4", "PMIX_RANK": "4"}, 5, 4),
        # PMIx alone gives a rank, hence at least rank + 1 ranks.
        ({"PMIX_RANK": "2"}, 3, 2),
        ({"SLURM_STEP_ID": "1", "SLURM_NTASKS": "8", "SLURM_PROCID": "5"}, 8, 5),
        ({"SLURM_STEPID": "1", "SLURM_STEP_NUM_TASKS": "2", "SLURM_NTASKS": "8"}, 2, 0),
        # Outside a job step Slurm's variables describe the allocation, not this process.
        ({"SLURM_NTASKS": "8", "SLURM_PROCID": "5"}, 1, 0),
        ({"PMI_SIZE": "", "OMPI_COMM_WORLD_SIZE": "x"}, 1, 0),
    ],
)
def test_launcher_variables(env, size, rank):
    assert launched_size(env) == size
    assert launched_rank(env) == rank


def test_check_world_names_variables_sizes_library_and_fix():
    env = {"PMIX_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4"}
    with pytest.raises(RuntimeError) as info:
        check_world(1, "Open MPI v5.0.3", env)
    message = str(info.value)
    for part in (
        "OMPI_COMM_WORLD_SIZE=4",
        "PMIX_RANK=2",
        "started 4 ranks",
        "has 1 rank",
        "Open MPI v5.0.3",
        "--no-binary=mpi4py",
        "XDIST_COMM=self",
    ):
        assert part in message, message
    check_world(4, "Open MPI v5.0.3", env)  # the world agrees: nothing to say
    check_world(1, "MPICH", {})  # no launcher
