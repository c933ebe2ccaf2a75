"""An uncaught exception on one rank ends the whole MPI job instead of hanging it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import COMM, RANK

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import xdist
    comm = xdist.default_comm()
    if comm.rank == 1:
        raise RuntimeError("rank 1 fails on purpose")
    comm.allreduce(np.ones(1), "sum")  # would wait forever without the abort hook
    """
)


def _clean_env() -> dict[str, str]:
    """The environment without the outer MPI job's variables, so mpiexec starts a new job."""
    prefixes = ("PMI_", "PMIX_", "HYDRA_", "MPI_LOCAL", "OMPI_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


def _run_job(tmp: Path) -> tuple[int, str]:
    script = tmp / "fail_on_rank_1.py"
    script.write_text(SCRIPT)
    mpiexec = Path(sys.executable).parent / "mpiexec"
    proc = subprocess.run(
        [str(mpiexec), "-n", "2", sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(),
    )
    return proc.returncode, proc.stderr


def test_uncaught_exception_aborts_the_job(tmp_path):
    # One job is enough: rank 0 of this run starts it; a failure here aborts this run too.
    if RANK == 0:
        code, stderr = _run_job(tmp_path)
        assert code != 0, "the job must fail"
        assert "rank 1 fails on purpose" in stderr, f"exit code {code}, stderr:\n{stderr}"
    COMM.barrier()
