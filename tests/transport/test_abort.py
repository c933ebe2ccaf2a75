"""Faults end the whole MPI job instead of hanging it, and xdist runs without MPI.

- An uncaught exception on one rank, inside a collective's program or before the first xdist
  call (the abort hook is in place from ``import xdist`` under a launcher), ends the job.
- With mpi4py installed but no MPI library behind it, ``import xdist`` runs as one process
  with a one-line notice.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import LAUNCHER_RANK_VARS, launcher_rank, outside_mpi_job, own_processes

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


# Rank 1 fails right after ``import xdist``, before any xdist call; rank 0 waits in a collective.
# The script finds its rank from the launcher's variables (helpers.launcher_rank, copied in).
BEFORE_FIRST_CALL = (
    f"import os\nLAUNCHER_RANK_VARS = {LAUNCHER_RANK_VARS!r}\n\n"
    + inspect.getsource(launcher_rank)
    + textwrap.dedent(
        """
        import numpy as np
        import xdist
        if launcher_rank() == 1:
            raise RuntimeError("rank 1 fails before its first xdist call")
        xdist.default_comm().allreduce(np.ones(1), "sum")
        """
    )
)


def _run_job(tmp: Path, source: str, ranks: int = 2, env=None) -> tuple[int, str, str]:
    script = tmp / "job.py"
    script.write_text(source)
    mpiexec = Path(sys.executable).parent / "mpiexec"
    cmd = [str(mpiexec), "-n", str(ranks), sys.executable, str(script)]
    if ranks == 1:
        cmd = [sys.executable, str(script)]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=60, env={**outside_mpi_job(), **(env or {})}
    )
    return proc.returncode, proc.stdout, proc.stderr


# Rank 1 is killed (as by the kernel's OOM killer) while rank 0 waits in a collective.
KILLED = textwrap.dedent(
    """
    import os, signal
    import numpy as np
    import xdist
    comm = xdist.default_comm()
    comm.allreduce(np.ones(1), "sum")
    if comm.rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    comm.allreduce(np.ones(1), "sum")
    """
)

# Rank 1 fails inside a collective: its reduction's combine raises (a user op's error).
INSIDE = textwrap.dedent(
    """
    import numpy as np
    import xdist
    x = xdist.ones((6, 2), split=0)
    if xdist.default_comm().rank == 1:
        raise RuntimeError("rank 1 fails between two collectives")
    float(xdist.sum(x))
    """
)


@own_processes
@pytest.mark.parametrize(
    "source, message",
    [
        (SCRIPT, "rank 1 fails on purpose"),
        (BEFORE_FIRST_CALL, "rank 1 fails before its first xdist call"),
        (INSIDE, "rank 1 fails between two collectives"),
        (KILLED, ""),
    ],
    ids=["after-first-call", "before-first-call", "between-collectives", "killed"],
)
def test_uncaught_exception_aborts_the_job(tmp_path, source, message):
    code, _, stderr = _run_job(tmp_path, source)
    assert code != 0, "the job must fail"
    assert message in stderr, f"exit code {code}, stderr:\n{stderr}"


@own_processes
def test_no_mpi_library_runs_as_one_process_with_one_notice(tmp_path):
    source = "import xdist\nprint(float(xdist.sum(xdist.ones(5, split=0))))\n"
    code, stdout, stderr = _run_job(
        tmp_path, source, ranks=1, env={"MPI4PY_LIBMPI": "/nonexistent/libmpi.so"}
    )
    assert code == 0, stderr
    assert stdout.strip() == "5.0"
    notice = [line for line in stderr.splitlines() if line.strip()]
    assert len(notice) == 1 and "xdist: no MPI" in notice[0], stderr
